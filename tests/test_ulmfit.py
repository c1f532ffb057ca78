"""ULMFiT: the schedules' shapes, concat pooling ignores padding, a review classifies the same in any batch,
gradual unfreezing keeps the LM still while the head learns, a pretrained LM carries a classifier past one
trained from scratch on a task built to need it, LM fine-tuning lowers the target domain's perplexity, the
review data (duplicates, conflicts, splits), and the command line's one-line errors."""

import json

import numpy as np
import pytest
import torch

from course.cli import main
from course.core.errors import SettingError
from course.elmo import Elmo, ElmoConfig, train_elmo
from course.tasks.ner import LabelledFileError
from course.tasks.reviews import Review, read_reviews, review_data, split_of
from course.text.corpus import from_sentences
from course.ulmfit import (
    ClassifierConfig,
    LanguageModelConfig,
    check_vocabulary,
    concat_pool,
    discriminative_rates,
    error_rate,
    fine_tune_lm,
    forward_perplexity,
    parameter_groups,
    slanted_triangular,
    train_classifier,
    unfrozen_groups,
)
from course.ulmfit.experiments import bag_of_words, error_table, labels_to_match, variant_calls, variant_run
from course.ulmfit.training import build_classifier

TINY = dict(char_dim=4, filters=((1, 8), (2, 8)), highway_layers=1, projection_dim=8, lstm_dim=16, num_layers=2,
            softmax="full", min_count=1, batch_tokens=300, device="cpu", heldout_every=20)


# ------------------------------------------------------------------------------------------ schedules


def test_slanted_triangle_rises_to_its_peak_at_the_cut_then_falls_back():
    total, top = 1_000, 0.01
    rates = [slanted_triangular(t, total, top) for t in range(total + 1)]
    assert rates[0] == pytest.approx(top / 32) and rates[100] == pytest.approx(top)
    assert rates[total] == pytest.approx(top / 32)
    assert np.all(np.diff(rates[:101]) > 0) and np.all(np.diff(rates[100:]) < 0)
    assert rates[50] == pytest.approx(top * (1 + 0.5 * 31) / 32)  # the paper's formula, halfway up
    with pytest.raises(SettingError):
        slanted_triangular(0, 0, top)


def test_discriminative_rates_fall_by_the_factor_per_group_down():
    rates = discriminative_rates(0.01, 4)
    assert rates[-1] == 0.01 and np.allclose(np.array(rates[1:]) / np.array(rates[:-1]), 2.6)
    assert discriminative_rates(0.01, 3, factor=1) == [0.01] * 3
    with pytest.raises(SettingError):
        discriminative_rates(0.01, 0)


def test_gradual_unfreezing_adds_one_group_per_epoch():
    assert [unfrozen_groups(e, 4) for e in range(1, 7)] == [1, 2, 3, 4, 4, 4]
    assert unfrozen_groups(1, 4, gradual=False) == 4


def test_parameter_groups_give_each_group_its_rate():
    groups = [torch.nn.Linear(2, 2), torch.nn.Linear(2, 2), torch.nn.Linear(2, 1)]
    made = parameter_groups(groups, 0.01, 2.6)
    assert [g["lr"] for g in made] == pytest.approx([0.01 / 2.6 ** 2, 0.01 / 2.6, 0.01])
    assert all(len(g["params"]) == 2 for g in made)


# ------------------------------------------------------------------------------------------ pooling


def test_concat_pool_is_last_max_and_mean_of_the_real_states_only():
    states = torch.randn(2, 4, 3)
    mask = torch.tensor([[True, True, False, False], [True, True, True, True]])
    pooled = concat_pool(states, mask)
    first = states[0, :2]
    assert torch.allclose(pooled[0], torch.cat([first[-1], first.max(0).values, first.mean(0)]))
    padded = states.clone()
    padded[0, 2:] = 1e6  # anything at padding
    assert torch.allclose(concat_pool(padded, mask), pooled)


# ------------------------------------------------------------------------------------------ models


def toy_reviews(count, seed):
    """Reviews of 6 to 12 words, most of them filler; one sentiment word (good0-9 or bad0-9) decides the label."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        label = int(rng.integers(0, 2))
        words = [f"f{int(i)}" for i in rng.integers(0, 20, int(rng.integers(5, 12)))]
        words.insert(int(rng.integers(0, len(words))), f"{'good' if label else 'bad'}{int(rng.integers(0, 10))}")
        out.append(Review(" ".join(words), tuple(words), label))
    return out


@pytest.fixture(scope="module")
def toy_lm():
    """A tiny biLM pretrained on text where the good words and the bad words each keep their own company
    (a good word is followed by 'nice', a bad one by 'awful'): what it learns there tells the two apart."""
    rng = np.random.default_rng(1)
    sentences = []
    for _ in range(1_500):
        kind = int(rng.integers(0, 2))
        word = f"{'good' if kind else 'bad'}{int(rng.integers(0, 10))}"
        sentences.append([f"f{int(rng.integers(0, 20))}", word, "nice" if kind else "awful",
                          f"f{int(rng.integers(0, 20))}"])
    return train_elmo(from_sentences(sentences), ElmoConfig(**TINY, epochs=3, lr=1e-2), progress=False)


def test_a_review_classifies_the_same_alone_and_in_a_padded_batch(toy_lm):
    classifier = build_classifier(toy_lm, ClassifierConfig(device="cpu")).eval()
    batch = [("f1", "good2"), ("f3", "f4", "bad1", "f5", "f6", "f7", "f8"), ("f9",)]
    with torch.no_grad():
        together = classifier(batch)
        alone = torch.cat([classifier([review]) for review in batch])
    assert torch.allclose(together, alone, atol=1e-5)


def test_gradual_unfreezing_trains_the_head_alone_in_the_first_epoch(toy_lm):
    train, dev = toy_reviews(64, 0), toy_reviews(20, 1)
    start = build_classifier(toy_lm, ClassifierConfig(device="cpu"))
    gradual = train_classifier(train, dev, toy_lm, ClassifierConfig(epochs=1, device="cpu"))
    at_once = train_classifier(train, dev, toy_lm, ClassifierConfig(epochs=1, gradual_unfreezing=False, device="cpu"))
    for name, weight in start.lm.state_dict().items():
        assert torch.equal(gradual.lm.state_dict()[name], weight), name
    assert not all(torch.equal(at_once.lm.state_dict()[name], w) for name, w in start.lm.state_dict().items())
    assert not torch.equal(gradual.head.state_dict()["layers.2.weight"], start.head.state_dict()["layers.2.weight"])


def test_a_pretrained_lm_carries_the_classifier_past_one_trained_from_scratch(toy_lm):
    """40 labelled reviews show only some of the 20 sentiment words; the pretrained LM has seen all of them in
    telling company, the LM from scratch has not."""
    train, dev, test = toy_reviews(40, 2), toy_reviews(60, 3), toy_reviews(300, 4)
    errors = {}
    for name, pretrained in (("pretrained", True), ("scratch", False)):
        config = ClassifierConfig(epochs=12, pretrained=pretrained, device="cpu", lr=2e-2, evaluations=4,
                                  gradual_unfreezing=pretrained, discriminative=pretrained)
        errors[name] = error_rate(train_classifier(train, dev, toy_lm, config), test)
    assert errors["pretrained"] < 0.2 and errors["pretrained"] < errors["scratch"] - 0.15, errors


def test_fine_tuning_the_lm_lowers_the_target_domains_perplexity_and_leaves_the_original(toy_lm):
    rng = np.random.default_rng(5)
    domain = [[f"f{int(i)}" for i in rng.integers(0, 5, 6)] for _ in range(300)]  # text in a narrower domain
    before = forward_perplexity(toy_lm, domain[:50])
    original = {k: v.clone() for k, v in toy_lm.bilm.state_dict().items()}
    tuned = fine_tune_lm(toy_lm, domain[50:], LanguageModelConfig(epochs=2, lr=1e-2, batch_tokens=200, device="cpu"))
    assert forward_perplexity(tuned, domain[:50]) < 0.8 * before
    assert all(torch.equal(v, original[k]) for k, v in toy_lm.bilm.state_dict().items())
    assert all(torch.equal(tuned.bilm.state_dict()[k], v) for k, v in original.items() if k.startswith("backward_lm"))


def test_fine_tuning_keeps_the_best_heldout_epoch_and_stops_after_patience(toy_lm):
    rng = np.random.default_rng(6)
    noise = [[f"f{int(i)}" for i in rng.integers(0, 20, 6)] for _ in range(80)]  # nothing to learn but these
    heldout, train = noise[:50], noise[50:]
    config = LanguageModelConfig(epochs=30, lr=3e-2, batch_tokens=60, slanted=False, device="cpu", patience=2)
    tuned = fine_tune_lm(toy_lm, train, config, heldout=heldout)
    state = tuned.fine_tuning
    perplexities = [entry["perplexity"] for entry in state.heldout]
    best = int(np.argmin(perplexities))
    assert perplexities[-1] > perplexities[best] and state.stopped_early and state.epoch < config.epochs
    assert len(perplexities) == best + 1 + config.patience and state.best == state.heldout[best]
    assert forward_perplexity(tuned, heldout) == pytest.approx(state.best["perplexity"], rel=1e-6)
    again = fine_tune_lm(toy_lm, train, config, heldout=heldout)
    assert all(torch.equal(v, again.bilm.state_dict()[k]) for k, v in tuned.bilm.state_dict().items())


def test_an_lm_of_another_vocabulary_is_refused(toy_lm):
    with pytest.raises(SettingError, match="another vocabulary"):
        check_vocabulary(toy_lm, [["我们", "喜欢", "这", "本书"]])
    assert check_vocabulary(toy_lm, [["good1", "nice", "zzz"]]) == pytest.approx(9 / 12)  # z: never read


def test_a_classifier_checkpoint_resumes_to_the_same_classifier(toy_lm, tmp_path):
    train, dev = toy_reviews(64, 0), toy_reviews(20, 1)
    config = ClassifierConfig(epochs=3, evaluations=3, device="cpu")
    whole = train_classifier(train, dev, toy_lm, config)
    checkpoint = tmp_path / "run.pt"
    train_classifier(train, dev, toy_lm, ClassifierConfig(**{**config.to_dict(), "epochs": 3}), checkpoint=checkpoint)
    resumed = train_classifier(train, dev, toy_lm, config, checkpoint=checkpoint, resume=True)
    assert resumed.history == whole.history
    with pytest.raises(SettingError, match="other settings"):
        train_classifier(train, dev, toy_lm, ClassifierConfig(epochs=3, evaluations=3, lr=0.5, device="cpu"),
                         checkpoint=checkpoint, resume=True)


def test_error_table_and_labels_to_match():
    rows = [{"variant": v, "labels": n, "seed": s, "error": e} for v, n, s, e in [
        ("a", 100, 1, 0.30), ("a", 100, 2, 0.34), ("b", 100, 1, 0.45), ("b", 300, 1, 0.35), ("b", 1000, 1, 0.31)]]
    table = error_table(rows)
    assert table["a"][100] == pytest.approx((0.32, 0.02))
    assert labels_to_match(table, "a", 100, "b") == 1000
    assert labels_to_match(table, "b", 100, "a") == 100



def test_variant_calls_are_compares_runs_in_its_order_and_refuse_what_compare_refuses():
    data, lms = object(), {"general": "the general LM", "fine-tuned": "the tuned LM"}
    calls = variant_calls(data, ["from scratch", "ULMFiT (1+2+3)"], [100, 300], [1, 2], lms, "dev", "test")
    assert [function for function, _ in calls] == [variant_run] * 8
    assert [args[1:5] for _, args in calls] == [(name, n, seed, lms[lm]) for name, lm in
                                               (("from scratch", "general"), ("ULMFiT (1+2+3)", "fine-tuned"))
                                               for n in (100, 300) for seed in (1, 2)]
    with pytest.raises(SettingError, match="unknown variant"):
        variant_calls(data, ["ULMFiT"], [100], [1], lms, "dev", "test")
    with pytest.raises(SettingError, match="needs the fine-tuned LM"):
        variant_calls(data, ["stages 1+3", "ULMFiT (1+2+3)"], [100], [1], {"general": "the general LM"}, "dev", "test")


# ------------------------------------------------------------------------------------------ the data


def write(path, lines):
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_reviews_are_kept_once_and_those_with_both_labels_dropped(tmp_path):
    positive = write(tmp_path / "pos.txt", ["很好", "很好", "一般", "", "喜欢"])
    negative = write(tmp_path / "neg.txt", ["很差", "一般", "很差"])
    reviews, duplicates, conflicting = read_reviews(positive, negative)
    assert sorted(reviews) == [("喜欢", 1), ("很好", 1), ("很差", 0)]
    assert duplicates == 2 and conflicting == 1


def test_bad_review_files_are_refused_in_one_line(tmp_path):
    empty = write(tmp_path / "empty.txt", [""])
    good = write(tmp_path / "pos.txt", ["很好"])
    with pytest.raises(LabelledFileError, match="no reviews"):
        read_reviews(good, empty)
    with pytest.raises(LabelledFileError, match="no such file"):
        read_reviews(good, tmp_path / "missing.txt")
    (tmp_path / "latin.txt").write_bytes("très bien".encode("latin-1"))
    with pytest.raises(LabelledFileError, match="not UTF-8"):
        read_reviews(good, tmp_path / "latin.txt")
    with pytest.raises(LabelledFileError, match="split is empty"):
        review_data(good, write(tmp_path / "neg.txt", ["很差"]))


def test_the_shipped_reviews_split_by_text_without_overlap():
    data = review_data()
    sizes = [len(data.train), len(data.dev), len(data.test)]
    assert sum(sizes) > 17_000 and 0.07 < sizes[2] / sum(sizes) < 0.13 and data.conflicting > 0
    texts = [{r.text for r in part} for part in (data.train, data.dev, data.test)]
    assert not (texts[0] & texts[1] or texts[0] & texts[2] or texts[1] & texts[2])
    assert all(split_of(r.text) == "test" for r in data.test[:50])
    assert 0.4 < np.mean([r.label for r in data.dev[:400]]) < 0.6  # a slice is not one label
    first, more = data.training_reviews(100, seed=3), data.training_reviews(300, seed=3)
    assert first == more[:100]
    with pytest.raises(SettingError, match="asked for"):
        data.training_reviews(len(data.train) + 1)
    rows = bag_of_words(data, [300], [1], data.test[:500])
    assert rows[0]["error"] < 0.4  # words alone tell a good part


# ------------------------------------------------------------------------------------------ command line


@pytest.fixture(scope="module")
def english_lm(tmp_path_factory):
    sentences = [["the", "cat", "sat", "on", "the", "mat"], ["a", "dog", "ran"]] * 20
    path = tmp_path_factory.mktemp("lm") / "english.pt"
    train_elmo(from_sentences(sentences), ElmoConfig(**TINY, epochs=1), progress=False).save(path)
    return path


def test_train_classifier_refuses_an_lm_of_another_vocabulary(english_lm, tmp_path, capsys):
    out = tmp_path / "report.json"
    assert main(["train", "classifier", "--lm", str(english_lm), "--labels", "40", "--quiet",
                 "--out", str(out)]) == 2
    error = capsys.readouterr().err.strip().splitlines()
    assert len(error) == 1 and "another vocabulary" in error[0] and not out.exists()


def test_train_classifier_refuses_more_labels_than_exist(english_lm, capsys):
    assert main(["train", "classifier", "--lm", str(english_lm), "--labels", "999999", "--quiet"]) == 2
    error = capsys.readouterr().err.strip().splitlines()
    assert len(error) == 1 and "asked for" in error[0]


def test_train_classifier_from_scratch_writes_its_report(english_lm, tmp_path, capsys):
    out = tmp_path / "report.json"
    assert main(["train", "classifier", "--lm", str(english_lm), "--scratch", "--labels", "40", "--epochs", "1",
                 "--dev-reviews", "30", "--quiet", "--out", str(out)]) == 0
    report = json.loads(out.read_text())
    assert report["labels"] == 40 and 0 <= report["error"] <= 1 and report["config"]["pretrained"] is False
    assert Elmo.load(english_lm).words  # the LM file is left as it was


def drifting_reviews(folder):
    """Review files whose training split is written in 'a dog ran' and whose dev and test splits in 'the cat
    sat on mat' (the split of a review follows from its text): fine-tuning the LM on the training reviews
    takes it away from the dev reviews, so their perplexity rises from the first measurement on."""
    rng = np.random.default_rng(0)
    dev_words, train_words = "the cat sat on mat".split(), "a dog ran".split()
    files = {folder / "positive.txt": [], folder / "negative.txt": []}
    while sum(map(len, files.values())) < 300:
        words = dev_words if rng.random() < 0.3 else train_words
        text = " ".join(rng.choice(words, 6))
        if (split_of(text) == "train") == (words is train_words):
            files[list(files)[int(rng.integers(0, 2))]].append(text)
    for path, lines in files.items():
        write(path, lines)
    return list(files)


def test_lm_patience_and_eval_every_reach_the_lm_fine_tuning_and_nonsense_is_refused(english_lm, tmp_path, capsys):
    positive, negative = drifting_reviews(tmp_path)
    out = tmp_path / "report.json"
    common = ["train", "classifier", "--lm", str(english_lm), "--positive", str(positive), "--negative",
              str(negative), "--labels", "40", "--epochs", "1", "--lm-epochs", "8", "--quiet", "--out", str(out)]

    def fine_tuning(*flags) -> dict:
        assert main([*common, *flags]) == 0
        return json.loads(out.read_text())["lm_fine_tuning"]

    patient = fine_tuning("--lm-patience", "2")
    perplexities = [entry["perplexity"] for entry in patient["heldout"]]
    assert perplexities == sorted(perplexities) and len(set(perplexities)) == len(perplexities)  # rising
    assert patient["stopped_early"] and len(perplexities) == 1 + 2 and patient["best"] == patient["heldout"][0]
    never = fine_tuning("--lm-patience", "0")
    assert not never["stopped_early"] and [entry["epoch"] for entry in never["heldout"]] == list(range(1, 9))
    often = fine_tuning("--lm-patience", "2", "--lm-eval-every", "3")
    assert often["stopped_early"] and [entry["step"] for entry in often["heldout"]] == [3, 6, 9]
    assert fine_tuning()["patience"] == LanguageModelConfig.patience
    capsys.readouterr()

    for flags in (["--lm-patience", "-1"], ["--lm-patience", "two"], ["--lm-eval-every", "0"]):
        with pytest.raises(SystemExit) as exit_status:
            main([*common, *flags])
        assert exit_status.value.code == 2
        error = capsys.readouterr().err.strip().splitlines()
        assert len(error) == 1 and error[0].startswith(f"error: argument {flags[0]}: "), error
    without_epochs = [flag for flag in common if flag not in ("--lm-epochs", "8")]
    assert main([*without_epochs, "--lm-patience", "2"]) == 2
    error = capsys.readouterr().err.strip().splitlines()
    assert error == ["error: --lm-patience is for the LM fine-tuned by --lm-epochs N: give --lm-epochs too"]


def test_lm_fine_tuning_measures_every_eval_every_steps_and_after_the_last_epoch(toy_lm):
    rng = np.random.default_rng(6)
    noise = [[f"f{int(i)}" for i in rng.integers(0, 20, 6)] for _ in range(80)]
    heldout, train = noise[:50], noise[50:]
    config = LanguageModelConfig(epochs=3, lr=3e-2, batch_tokens=60, slanted=False, device="cpu", patience=0,
                                 eval_every=2)
    tuned = fine_tune_lm(toy_lm, train, config, heldout=heldout)
    state = tuned.fine_tuning
    per_epoch = state.step // config.epochs
    expected = sorted({*range(2, state.step + 1, 2), state.step})
    assert [entry["step"] for entry in state.heldout] == expected and state.epoch == config.epochs
    assert [entry["epoch"] for entry in state.heldout] == [
        step // per_epoch if step % per_epoch == 0 else round(step / per_epoch, 3) for step in expected]
    assert forward_perplexity(tuned, heldout) == pytest.approx(state.best["perplexity"], rel=1e-6)
    with pytest.raises(SettingError, match="eval_every"):
        LanguageModelConfig(eval_every=0)


def test_stage_two_from_a_given_biLM_is_kept_apart_from_the_course_ones(tmp_path, monkeypatch):
    from course.shared.review_lm import course_review_lm, review_lm_path
    from course.text.corpus import load_corpus

    daily = load_corpus("peoples-daily-zh", progress=False).head(300)
    given = train_elmo(daily, ElmoConfig(**TINY, epochs=1), progress=False).save(tmp_path / "given-zh.pt")
    other = train_elmo(daily, ElmoConfig(**TINY, epochs=1, seed=2), progress=False).save(tmp_path / "other-zh.pt")
    assert len({review_lm_path("smoke"), review_lm_path("smoke", given), review_lm_path("smoke", other)}) == 3
    assert review_lm_path("smoke", given) == review_lm_path("smoke", given)
    monkeypatch.setenv("COURSE_BUILD", str(tmp_path / "build"))
    monkeypatch.setenv("COURSE_ELMO_ZH", str(given))
    tuned = course_review_lm(review_data(), "smoke", progress=False, device="cpu")
    path = review_lm_path("smoke", given)
    assert path.is_file() and not review_lm_path("smoke").exists()
    assert tuned.words.words == Elmo.load(given).words.words  # fine-tuned from the given biLM
    written = path.stat().st_mtime_ns
    again = course_review_lm(review_data(), "smoke", progress=False, device="cpu")  # loaded, not trained again
    assert path.stat().st_mtime_ns == written and again.state.step == tuned.state.step
