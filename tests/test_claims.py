"""The claims table: each claim's verdict on made-up figures, the bootstrap spread, the per-occurrence
scores against the probes' own figures, measure_claims on tiny models saved as a smoke build, the
command line with and without a build, and the table at the top of the index."""

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import assert_one_line_error

from course.claims import (
    FAILS,
    HOLDS,
    Claim,
    bootstrap_spread,
    both_sides_claim,
    chance_scores,
    claims_html,
    claims_markdown,
    fine_tuning_gain_claim,
    format_claims,
    language_model_claim,
    layer_claim,
    measure_claims,
    pos_baseline_claim,
    sense_claim,
    sense_scores,
    speed_claim,
    static_vector_claim,
    ulmfit_claims,
)
from course.core.paths import data_dir

pytestmark = pytest.mark.filterwarnings("ignore:LSTM with projections is not supported:UserWarning")

KNESER_NEY = {(2, "forward"): 247.0, (2, "backward"): 246.0, (3, "forward"): 226.0, (3, "backward"): 225.0}


# ------------------------------------------------------------------- claims on made-up figures


def test_fine_tuning_gain_pairs_bert_with_the_bilm_seed_by_seed():
    def rows(name, f1s, labels=100):
        return [{"input": name, "labels": labels, "seed": seed, "f1": f1} for seed, f1 in f1s.items()]

    ner = rows("elmo", {1: 0.70, 2: 0.72, 3: 0.74}) + rows("elmo-finetuned", {1: 0.71, 2: 0.72, 3: 0.73}) + \
        rows("elmo", {1: 0.9}, labels=1000)
    bert = rows("bert", {1: 0.38, 2: 0.40, 3: 0.36}) + rows("bert-finetuned", {1: 0.48, 2: 0.47, 3: 0.45})
    row = fine_tuning_gain_claim(ner, bert)
    # BERT gains 0.10, 0.07, 0.09; the biLM 0.01, 0.00, -0.01: differences 0.09, 0.07, 0.10.
    assert row.notebook == "11" and row.verdict == HOLDS
    assert row.margin == pytest.approx(0.26 / 3) and row.spread == pytest.approx(0.015)
    assert "at 100 labels: +0.087" in row.measurement and "seeds (1, 2, 3): +0.000" in row.controls
    hurt = fine_tuning_gain_claim(ner, rows("bert", {1: 0.38, 2: 0.40}) + rows("bert-finetuned", {1: 0.33, 2: 0.32}))
    assert hurt.verdict == FAILS and hurt.margin < 0 and "1, 2" in hurt.controls  # seed 3 has no BERT rows
    missing = fine_tuning_gain_claim(ner, rows("bert", {1: 0.38}))
    assert missing.verdict.startswith("not measured") and "bert-finetuned" in missing.verdict
    elsewhere = fine_tuning_gain_claim(ner, rows("bert", {1: 0.4}, 300) + rows("bert-finetuned", {1: 0.5}, 300))
    assert elsewhere.verdict.startswith("not measured") and "same labels" in elsewhere.verdict



def test_language_model_claim_needs_both_directions_below_both_ngram_models():
    row = language_model_claim("wiki-en", {"forward": 171.0, "backward": 168.0}, KNESER_NEY)
    assert row.verdict == HOLDS and row.spread is None and row.notebook == "06"
    assert row.margin == pytest.approx(min(1 - 171 / 226, 1 - 168 / 225))
    assert "0.69x / 0.68x the bigram's" in row.measurement and "trigram 226 / 225" in row.controls
    between = language_model_claim("wiki-en", {"forward": 171.0, "backward": 235.0}, KNESER_NEY)  # above the trigram
    assert between.verdict == FAILS and between.margin < 0


def test_static_vector_claim_holds_at_chance_only():
    at_chance = {"knn_accuracy": 0.474, "separation": 0.0, "chance": 0.474}
    assert static_vector_claim({"biLM layer 0": at_chance, "skip-gram": at_chance}).verdict == HOLDS
    above = static_vector_claim({"biLM layer 0": at_chance, "skip-gram": {**at_chance, "separation": 0.01}})
    assert above.verdict == FAILS and above.margin == pytest.approx(0.01)


def test_sense_claim_beats_every_control_by_more_than_the_spread():
    untrained = [0.60, 0.62, 0.58, 0.61, 0.59]
    row = sense_claim("wiki-en", 0.90, untrained, 0.50, 0.70, spread=0.05)
    assert row.verdict == HOLDS and row.margin == pytest.approx(0.20) and row.spread == pytest.approx(0.05)
    assert "strongest: bag of context" in row.controls and "seeds: 0.580-0.620" in row.controls
    # A margin inside the spread does not hold, nor does one inside the untrained seeds' range.
    assert sense_claim("wiki-en", 0.72, untrained, 0.50, 0.70, spread=0.05).verdict == FAILS
    wide = sense_claim("wiki-en", 0.85, [0.50, 0.80], 0.50, 0.60, spread=0.01)
    assert wide.verdict == FAILS and wide.spread == pytest.approx(0.30) and wide.margin == pytest.approx(0.20)
    # Beating the untrained network is not enough when the bag of context does better.
    assert sense_claim("wiki-en", 0.75, untrained, 0.50, 0.80, spread=0.01).verdict == FAILS


def test_sense_claim_without_a_control_or_a_spread_is_not_measured():
    row = sense_claim("wiki-en", 0.9, [0.6, 0.6], 0.5, None, spread=0.05, missing="no skipgram-neg-wiki-en.txt")
    assert row.verdict == "not measured: no bag-of-context control (no skipgram-neg-wiki-en.txt)"
    assert row.margin == pytest.approx(0.3)  # what was measured is still shown
    assert sense_claim("wiki-en", 0.9, [0.6], 0.5, 0.7).verdict.startswith("not measured: no spread")
    assert sense_claim("wiki-en", 0.9, [0.6, 0.61], 0.5, 0.7).verdict == HOLDS  # the seeds' range is a spread


def test_layer_claim_wants_pos_low_senses_high_each_peak_clear():
    row = layer_claim("peoples-daily-zh", [0.80, 0.90, 0.85], [0.50, 0.60, 0.80], pos_spread=0.02, sense_spread=0.05)
    assert row.verdict == HOLDS
    assert (row.margin, row.spread) == (pytest.approx(0.05), 0.02)  # the POS peak clears its spread by less
    assert "peak: layer 1" in row.measurement and "peak: layer 2" in row.measurement
    assert layer_claim("z", [0.8, 0.9, 0.85], [0.5, 0.8, 0.6], 0.02, 0.05).verdict == FAILS  # the same layer
    assert layer_claim("z", [0.9, 0.8, 0.85], [0.5, 0.8, 0.6], 0.02, 0.05).verdict == HOLDS  # 0 below 1
    assert layer_claim("z", [0.8, 0.9, 0.85], [0.5, 0.6, 0.8], 0.06, 0.05).verdict == FAILS  # POS peak in its spread
    assert layer_claim("z", [0.8, 0.9, 0.85], [0.5, 0.6, 0.8]).verdict.startswith("not measured")


def test_pos_baseline_claim():
    row = pos_baseline_claim("peoples-daily-zh", [0.80, 0.93, 0.90], 0.88, spread=0.01)
    assert row.verdict == HOLDS and row.margin == pytest.approx(0.05) and "best: layer 1" in row.measurement
    assert pos_baseline_claim("p", [0.80, 0.885, 0.88], 0.88, spread=0.01).verdict == FAILS
    assert pos_baseline_claim("p", [0.9], 0.8).verdict.startswith("not measured")


def test_tables_show_every_row():
    rows = [language_model_claim("wiki-en", {"forward": 171.0, "backward": 168.0}, KNESER_NEY),
            Claim("A | claim <b>", "07", "-", "-", None, None, "not measured: no model")]
    text = format_claims(rows)
    assert "1. A neural language model beats counting (wiki-en)" in text and "verdict    holds" in text
    assert "2. A | claim <b>" in text and "margin     -   spread -" in text
    markdown = claims_markdown(rows).splitlines()
    assert len(markdown) == 4 and "A \\| claim <b>" in markdown[3] and markdown[2].endswith("| holds | - |")
    page = claims_html(rows)
    assert "A | claim &lt;b&gt;" in page and "<tr class='holds'>" in page and "<tr class='not'>" in page


def test_ulmfit_claims_pair_errors_by_seed_at_the_fewest_labels():
    def rows(errors):  # {variant: {labels: [error of seed 1, seed 2, seed 3]}}
        return [{"variant": name, "labels": labels, "seed": seed, "error": error}
                for name, by_count in errors.items() for labels, values in by_count.items()
                for seed, error in enumerate(values, start=1)]

    errors = {"ULMFiT (1+2+3)": {100: [0.30, 0.32, 0.34], 300: [0.28, 0.29, 0.30]},
              "from scratch": {100: [0.40, 0.41, 0.42], 300: [0.29, 0.40, 0.30]},  # seed 2 unlucky at 300
              "stages 1+3": {100: [0.35, 0.31, 0.36]},
              "ELMo features": {100: [0.36, 0.37, 0.38], 300: [0.29, 0.29, 0.31]},
              "bag of words": {100: [0.28, 0.30, 0.30], 300: [0.25, 0.25, 0.25]}}
    pretrained, domain, tuning, bow = ulmfit_claims(rows(errors))
    assert [row.notebook for row in (pretrained, domain, tuning, bow)] == ["10"] * 4
    # From scratch is judged at 100 labels only: gains 0.10, 0.09, 0.08, paired by seed.
    assert pretrained.verdict == HOLDS and pretrained.margin == pytest.approx(0.09)
    assert pretrained.spread == pytest.approx(0.01) and "100 labels: ULMFiT 0.320, from scratch 0.410" in \
        pretrained.measurement
    # Stage 2's gains 0.05, -0.01, 0.02: the mean is inside the half range.
    assert domain.verdict == FAILS and domain.margin == pytest.approx(0.02) and domain.spread == pytest.approx(0.03)
    # Features are judged at every count: the smaller gain (300 labels, 0.007) against the larger spread.
    assert tuning.margin == pytest.approx(0.04 / 6) and tuning.spread == pytest.approx(0.01)
    assert tuning.verdict == FAILS
    assert bow.verdict == FAILS and bow.margin == pytest.approx(-0.0266667, abs=1e-6)
    del errors["stages 1+3"]
    assert ulmfit_claims(rows(errors))[1].verdict.startswith("not measured: the comparison has no 'stages 1+3'")


def test_the_speed_claim_is_judged_on_the_bodies_repeat_by_repeat():
    def rows(body, whole):  # {length: ([transformer tokens/s per repeat], [lstm tokens/s per repeat])}
        return [{"model": model, "length": length, "repeat": r, "tokens_per_second": value, "threads": 1,
                 "softmax": softmax}
                for softmax, table in ((False, body), (True, whole)) for length, pair in table.items()
                for model, values in zip(("transformer", "lstm"), pair, strict=True)
                for r, value in enumerate(values)]

    body = {8: ([150, 160, 155], [100, 100, 100]), 64: ([130, 140, 120], [100, 100, 100])}
    whole = {8: ([80, 80, 80], [100, 100, 100])}
    row = speed_claim(rows(body, whole))
    assert row.verdict == HOLDS and row.margin == pytest.approx(0.30) and row.spread == pytest.approx(0.10)
    assert "1.55x (8), 1.30x (64)" in row.measurement and "whole LMs (adaptive against full softmax): 0.80x (8)" \
        in row.measurement
    slower = speed_claim(rows({8: ([90, 95, 99], [100, 100, 100])}, {}))
    assert slower.verdict == FAILS and slower.margin == pytest.approx(-0.05)
    two_threads = [dict(r, threads=2) for r in rows(body, {})]
    assert speed_claim(two_threads).verdict.startswith("not measured")


def test_the_both_sides_claim_pairs_blanks_against_the_stronger_control():
    rng = np.random.default_rng(0)
    truth = {"BERT": rng.random(300) < 0.45, "GPT": rng.random(300) < 0.25, "CBOW": rng.random(300) < 0.30}
    rows = [{"model": name, "blank": b, "correct_at_5": bool(answers[b])} for name, answers in truth.items()
            for b in range(300)]
    row = both_sides_claim(rows)
    assert row.notebook == "11" and "strongest: CBOW" in row.controls
    assert row.margin == pytest.approx(truth["BERT"].mean() - truth["CBOW"].mean())
    assert row.spread == pytest.approx(bootstrap_spread(truth["BERT"].astype(float) - truth["CBOW"]))
    assert row.verdict == HOLDS
    same = [dict(r, correct_at_5=truth["CBOW"][r["blank"]]) if r["model"] == "BERT" else r for r in rows]
    assert both_sides_claim(same).verdict == FAILS


# ----------------------------------------------------------------------- scores and spread


def test_bootstrap_spread():
    assert bootstrap_spread(np.full(50, 0.2)) == 0.0
    noise = np.random.default_rng(0).normal(size=400)
    assert bootstrap_spread(noise) == pytest.approx(1.96 / np.sqrt(400), rel=0.15)
    assert bootstrap_spread(noise, seed=3) == pytest.approx(bootstrap_spread(noise, seed=3))
    # Sentences of several tokens: the per-sentence sums over their sizes.
    sizes = np.full(400, 4)
    assert bootstrap_spread(noise * 4, sizes) == pytest.approx(bootstrap_spread(noise))
    # Within strata the statistic is the mean over strata, each stratum drawn again on its own.
    strata = np.repeat(["a", "b"], 200)
    shifted = noise + np.where(strata == "a", 5.0, -5.0)  # a gap between strata, not within
    assert bootstrap_spread(shifted, strata=strata) < 0.6 * bootstrap_spread(shifted)


def test_sense_scores_agree_with_the_probes():
    from course.analysis.probes import sense_probe

    rng = np.random.default_rng(1)
    senses = np.array(["money"] * 7 + ["river"] * 5 + ["verb"] * 3)
    vectors = rng.normal(size=(15, 6)) + 2 * rng.normal(size=(3, 6))[np.repeat([0, 1, 2], [7, 5, 3])]
    vectors[3] = vectors[9]  # a tie across senses
    assert sense_scores(vectors, senses).mean() == pytest.approx(sense_probe(vectors, senses)["knn_accuracy"])
    same = np.ones((15, 6))
    np.testing.assert_allclose(sense_scores(same, senses), chance_scores(senses))
    assert chance_scores(senses)[0] == pytest.approx(6 / 14)


# -------------------------------------------------------------- a tiny build, measured


@pytest.fixture(scope="module")
def smoke_build(tmp_path_factory):
    """COURSE_BUILD with smoke models: tiny biLMs trained on the first 300 sentences of each corpus
    (as notebooks 06-08 do in the smoke profile) and random skip-gram vectors."""
    from course.analysis.probes import read_probes
    from course.analysis.vectors import keyed_vectors, save_vectors
    from course.claims import SMOKE_SENTENCES
    from course.elmo import ElmoConfig, train_elmo
    from course.text.corpus import load_corpus

    build = tmp_path_factory.mktemp("build")
    folder = build / "models" / "smoke"
    tiny = ElmoConfig(min_count=2, max_characters=12, char_dim=4, filters=((1, 4), (2, 4), (3, 8)), projection_dim=8,
                      lstm_dim=16, epochs=1, batch_tokens=800, softmax="full", device="cpu", threads=1)
    for name in ("wiki-en", "peoples-daily-zh"):
        corpus = load_corpus(name, progress=False).head(SMOKE_SENTENCES)
        train_elmo(corpus, tiny, progress=False).save(folder / f"elmo-cpu-{name}.pt")
    probes = read_probes(data_dir() / "probes" / "en_polysemy.tsv")
    words = sorted({token for probe in probes for token in probe.tokens})
    vectors = np.random.default_rng(0).normal(size=(len(words), 10))
    save_vectors(keyed_vectors(words, vectors), folder / "skipgram-neg-wiki-en.txt")
    rng = np.random.default_rng(1)   # notebook 09's learning curve, as it saves it
    curve = [{"input": name, "labels": labels, "seed": seed, "f1": float(rng.uniform(0.2, 0.8))}
             for name in ("learned", "word2vec", "glove", "elmo") for labels in (20, 60) for seed in (1, 2)]
    curve += [{"input": "elmo-finetuned", "labels": 20, "seed": seed, "f1": 0.5} for seed in (1, 2)]
    (folder / "ner-curve-peoples-daily-zh.json").write_text(json.dumps(curve), encoding="utf-8")
    errors = [{"variant": name, "labels": labels, "seed": seed, "error": float(rng.uniform(0.2, 0.5))}
              for name in ("from scratch", "stages 1+3", "ULMFiT (1+2+3)", "ELMo features", "bag of words")
              for labels in (20, 40) for seed in (1, 2)]
    (folder / "ulmfit-curve-reviews-zh.json").write_text(json.dumps(errors), encoding="utf-8")
    from course.shared.transformers import course_config
    from course.transformer import train_transformer

    english = load_corpus("wiki-en", progress=False).head(SMOKE_SENTENCES)
    for objective, prefix in (("causal", "gpt"), ("masked", "bert")):
        train_transformer(english, course_config("wiki-en", objective, "smoke"), progress=False,
                          heldout=False).save(folder / f"{prefix}-wiki-en.pt")
    results = {"throughput": [{"model": model, "length": length, "repeat": r, "threads": 1, "softmax": False,
                               "tokens_per_second": float(rng.uniform(900, 1100))}
                              for model in ("lstm", "transformer") for length in (8, 32) for r in range(3)],
               "fill_in": [{"model": model, "blank": b, "correct_at_5": bool(rng.random() < 0.3)}
                           for model in ("BERT", "GPT", "CBOW") for b in range(40)],
               "ner": [{"input": name, "labels": 20, "seed": seed, "f1": float(rng.uniform(0.2, 0.6))}
                       for name in ("bert", "bert-finetuned") for seed in (1, 2)]}
    (folder / "transformers-wiki-en.json").write_text(json.dumps(results), encoding="utf-8")
    return build


@pytest.fixture(scope="module")
def measured(smoke_build):
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("COURSE_BUILD", str(smoke_build))
        return measure_claims("smoke")


def test_measure_claims_gives_every_row(measured):
    claims = [row.claim for row in measured]
    assert claims == [
        "A neural language model beats counting (wiki-en)",
        "A neural language model beats counting (peoples-daily-zh)",
        "A static vector gives one vector per word type: it cannot tell senses apart",
        "Contextual vectors separate word senses beyond every control (wiki-en)",
        "Contextual vectors separate word senses beyond every control (peoples-daily-zh)",
        "Syntax is learned low, senses high (peoples-daily-zh)",
        "A linear probe on the biLM's vectors tags parts of speech better than the most-frequent-tag baseline "
        "(peoples-daily-zh)",
        "Pretrained vectors help most when labels are few",
        "Contextual features beat static ones",
        "Fine-tuning the biLM with the task beats using its layers as features",
        "A pretrained language model lets a classifier learn from few labels",
        "Fine-tuning the language model on the target domain adds to general pretraining",
        "Fine-tuning the language model beats using its layers as features",
        "With few labels, ULMFiT beats a bag-of-words classifier",
        "A Transformer trains faster per token than an LSTM at equal size",
        "A masked LM fills in blanks better than a causal LM",
        "Fine-tuning gains more for BERT than for the LSTM biLM",
        "A Transformer's top layer separates word senses beyond every control (GPT, wiki-en)",
        "A Transformer's top layer separates word senses beyond every control (BERT, wiki-en)"]
    for row in measured:  # a tiny model may lose, but everything is measured
        assert row.verdict in (HOLDS, FAILS), (row.claim, row.verdict)
        assert row.margin is not None and np.isfinite(row.margin)
    language, static, english, chinese, layers, pos = measured[0], measured[2], *measured[3:7]
    assert "Kneser-Ney bigram" in language.controls and language.spread is None
    assert static.verdict == HOLDS and "skip-gram (wiki-en)" in static.measurement
    assert "bag of context (skip-gram)" in english.controls and "160 sentences" in english.measurement
    assert "bag of context (the biLM's layer-0 vectors)" in chinese.controls
    assert english.spread > 0 and chinese.spread > 0 and layers.spread > 0 and pos.spread > 0
    text = format_claims(measured)
    assert all(row.claim in text for row in measured)


def test_a_notebook_gets_its_own_rows(smoke_build, monkeypatch, measured):
    monkeypatch.setenv("COURSE_BUILD", str(smoke_build))
    for notebook in ("06", "07", "08", "09", "10", "11"):
        rows = measure_claims("smoke", notebooks=(notebook,))
        assert rows == [row for row in measured if row.notebook == notebook]


def test_measured_figures_are_the_probes_own(smoke_build, monkeypatch):
    """The sense and POS figures of the claims are those of course.analysis.probes on the same data."""
    from course.analysis.pos_probe import pos_probe
    from course.analysis.probes import probe_model, probe_summary, read_probes
    from course.analysis.vectors import load_vectors
    from course.claims import _pos_scores, _sense_measurement, _untrained, _word_mean
    from course.elmo import Elmo
    from course.text.corpus import load_corpus

    folder = smoke_build / "models" / "smoke"
    model = Elmo.load(folder / "elmo-cpu-wiki-en.pt", device="cpu")
    probes = read_probes(data_dir() / "probes" / "en_polysemy.tsv", split="test")
    kv = load_vectors(folder / "skipgram-neg-wiki-en.txt")
    ours = _sense_measurement(model, probes, kv)
    theirs = probe_summary(probe_model(model, probes, untrained=_untrained(model, 1), context_vectors=kv))
    words = ours["words"]
    assert [_word_mean(s, words) for s in ours["layers"]] == pytest.approx([e["trained"] for e in theirs["layers"]])
    assert _word_mean(ours["untrained"][0], words) == pytest.approx(theirs["layers"][-1]["untrained"])
    assert _word_mean(ours["bag"], words) == pytest.approx(theirs["bag_of_context"])
    assert _word_mean(ours["chance"], words) == pytest.approx(theirs["static"])

    chinese = Elmo.load(folder / "elmo-cpu-peoples-daily-zh.pt", device="cpu")
    daily = load_corpus("peoples-daily-zh", progress=False)
    pos = _pos_scores(chinese, daily, num_sentences=60, max_iter=50)
    reference = pos_probe(chinese, daily, num_sentences=60, seed=1, untrained=False, max_iter=50)
    assert pos["layers"].mean(axis=1).tolist() == pytest.approx([e["trained"] for e in reference["layers"]])
    assert pos["most_frequent_tag"].mean() == pytest.approx(reference["most_frequent_tag"])
    assert pos["sizes"].sum() == reference["test_tokens"]


def test_missing_models_are_rows_that_say_so(tmp_path, monkeypatch, smoke_build):
    folder = tmp_path / "models" / "smoke"
    folder.mkdir(parents=True)
    (folder / "skipgram-neg-wiki-en.txt").write_bytes((smoke_build / "models" / "smoke" /
                                                       "skipgram-neg-wiki-en.txt").read_bytes())
    (folder / "elmo-cpu-peoples-daily-zh.pt").write_bytes(b"not a model")
    monkeypatch.setenv("COURSE_BUILD", str(tmp_path))
    rows = measure_claims("smoke")
    assert len(rows) == 19
    assert all(row.verdict.startswith("not measured: no ") and "run notebook 09" in row.verdict for row in rows[7:10])
    assert all(row.verdict.startswith("not measured: no ") and "ulmfit-curve-reviews-zh.json: run notebook 10" in
               row.verdict for row in rows[10:14])
    assert all(row.verdict.startswith("not measured: no ") and "run notebook 11" in row.verdict for row in rows[14:])
    static = rows[2]
    assert static.verdict == HOLDS and static.measurement.startswith("skip-gram (wiki-en)")
    english = [row for row in rows if row.claim.endswith("(wiki-en)")]
    for row in english:
        assert row.verdict.startswith("not measured: no ") and "elmo-cpu-wiki-en.pt" in row.verdict
        assert "run make course PROFILE=smoke" in row.verdict
    chinese = [row for row in rows if row.claim.endswith("(peoples-daily-zh)")]
    assert len(chinese) == 4
    assert all(row.verdict.startswith("not measured: ") for row in chinese)
    assert "not a readable ELMo model file" in chinese[0].verdict


def test_damaged_vectors_are_a_row_that_says_so(tmp_path, monkeypatch, smoke_build):
    folder = tmp_path / "models" / "smoke"
    folder.mkdir(parents=True)
    saved = smoke_build / "models" / "smoke"
    (folder / "elmo-cpu-wiki-en.pt").write_bytes((saved / "elmo-cpu-wiki-en.pt").read_bytes())
    whole = (saved / "skipgram-neg-wiki-en.txt").read_bytes()
    (folder / "skipgram-neg-wiki-en.txt").write_bytes(whole[: len(whole) // 2])  # a write cut short
    monkeypatch.setenv("COURSE_BUILD", str(tmp_path))
    rows = {row.claim: row for row in measure_claims("smoke", notebooks=("07",))}
    sense = rows["Contextual vectors separate word senses beyond every control (wiki-en)"]
    assert "skipgram-neg-wiki-en.txt cannot be read (cut short?): run notebook 02 again" in sense.verdict
    assert rows["A static vector gives one vector per word type: it cannot tell senses apart"].measurement


# ------------------------------------------------------------------------ the command line


def run(*args, env=None):
    return subprocess.run([sys.executable, "-m", "course", *map(str, args)], capture_output=True, text=True,
                          env={**os.environ, **(env or {})})


def test_claims_without_a_build_is_one_line(tmp_path):
    result = run("claims", "--profile", "smoke", env={"COURSE_BUILD": str(tmp_path / "nowhere")})
    assert_one_line_error(result, "nowhere/models/smoke", "holds no trained models", "make course PROFILE=smoke",
                          "python -m course build --profile smoke")


def test_claims_checks_the_device_before_anything_else(tmp_path):
    """No model need be loaded for a GPU this machine lacks to be refused: cuda:99 is refused up front."""
    result = run("claims", "--profile", "smoke", "--device", "cuda:99", "--json", tmp_path / "claims.json",
                 env={"COURSE_BUILD": str(tmp_path / "nowhere")})
    assert_one_line_error(result, "'cuda:99'", "CUDA")
    assert "holds no trained models" not in result.stderr and not (tmp_path / "claims.json").exists()
    result = run("claims", "--profile", "smoke", "--device", "gpu", env={"COURSE_BUILD": str(tmp_path / "nowhere")})
    assert_one_line_error(result, "unknown device 'gpu'")


def test_claims_command_prints_the_table_and_json(smoke_build, monkeypatch, capsys, tmp_path):
    from course.cli import main

    monkeypatch.setenv("COURSE_BUILD", str(smoke_build))
    out = tmp_path / "claims.json"
    assert main(["claims", "--profile", "smoke", "--json", str(out), "--quiet"]) == 0
    printed = capsys.readouterr().out
    assert "1. A neural language model beats counting (wiki-en)" in printed and "verdict" in printed
    rows = json.loads(out.read_text(encoding="utf-8"))
    assert len(rows) == 19 and set(rows[0]) == {"claim", "notebook", "measurement", "controls", "margin", "spread",
                                               "verdict", "at_scale"}
    assert main(["claims", "--profile", "smoke", "--markdown", "--quiet"]) == 0
    assert capsys.readouterr().out.startswith("| claim | notebook |")


# ------------------------------------------------------------------------------- the index


def test_index_opens_with_the_claims_table(tmp_path):
    from course.teaching.build import write_index

    rows = [language_model_claim("wiki-en", {"forward": 171.0, "backward": 168.0}, KNESER_NEY)]
    index = write_index([], tmp_path, "smoke", rows).read_text(encoding="utf-8")
    assert "<table class='claims'>" in index and "A neural language model beats counting (wiki-en)" in index
    assert index.index("Claims: do they hold here?") < index.index("For teachers")
    reason = "build/models/smoke holds no trained models"
    failed = write_index([], tmp_path, "smoke", reason).read_text(encoding="utf-8")
    assert "The claims could not be measured: build/models/smoke holds no trained models" in failed
    assert "For teachers" in failed


def test_a_given_biLM_is_probed_and_the_builds_own_is_compared_with_counting(tmp_path, monkeypatch, smoke_build,
                                                                           measured):
    import shutil

    from course.claims import SMOKE_SENTENCES
    from course.elmo import ElmoConfig, train_elmo
    from course.text.corpus import from_sentences, load_corpus

    tiny = ElmoConfig(min_count=2, max_characters=12, char_dim=4, filters=((1, 4), (2, 4), (3, 8)), projection_dim=8,
                      lstm_dim=16, epochs=1, batch_tokens=800, softmax="full", device="cpu", threads=1, seed=7)
    sentences = list(load_corpus("peoples-daily-zh", progress=False).head(2 * SMOKE_SENTENCES))[SMOKE_SENTENCES:]
    given = train_elmo(from_sentences(sentences, name="other", language="zh"), tiny,
                       progress=False).save(tmp_path / "given-zh.pt")
    shutil.copytree(smoke_build / "models", tmp_path / "build" / "models")
    monkeypatch.setenv("COURSE_BUILD", str(tmp_path / "build"))
    monkeypatch.setenv("COURSE_ELMO_ZH", str(given))
    rows = {row.claim: row for row in measure_claims("smoke", notebooks=("07",))}
    before = {row.claim: row for row in measured}
    counting, senses = (f"{claim} (peoples-daily-zh)" for claim in
                        ("A neural language model beats counting", "Contextual vectors separate word senses beyond "
                                                                   "every control"))
    assert rows[counting] == before[counting]  # the build's own biLM against Kneser-Ney, as without the given one
    assert rows[senses].verdict in (HOLDS, FAILS) and rows[senses].measurement != before[senses].measurement
    english = "Contextual vectors separate word senses beyond every control (wiki-en)"
    assert rows[english] == before[english]  # COURSE_ELMO_ZH leaves the English biLM alone

    (tmp_path / "build" / "models" / "smoke" / "elmo-cpu-peoples-daily-zh.pt").unlink()
    rows = {row.claim: row for row in measure_claims("smoke", notebooks=("07",))}
    assert rows[counting].verdict.startswith("not measured: no ") and f"the biLM {given} stands in for it, " \
        "trained on other text than the bigram's" in rows[counting].verdict
    assert rows[senses].verdict in (HOLDS, FAILS)


# ------------------------------------------------------------------------ the "at scale" column

def test_the_at_scale_column_measures_the_published_elmo_where_it_is_fetched(smoke_build, tmp_path, monkeypatch):
    from course.elmo.bilm_tf import convert

    fixtures = Path(__file__).parent / "fixtures" / "elmo"
    monkeypatch.setenv("COURSE_BUILD", str(smoke_build))
    monkeypatch.setenv("COURSE_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("COURSE_AT_SCALE_ELMO", raising=False)
    claim = "Contextual vectors separate word senses beyond every control (wiki-en)"
    without = {row.claim: row for row in measure_claims("smoke", notebooks=("07",))}
    assert without[claim].at_scale == "not measured: run python -m course pretrained get small (13.6M weights, " \
                                      "about 55 MB)"
    assert all(row.at_scale == "-" for name, row in without.items() if name != claim)
    convert(fixtures / "options.json", fixtures / "lm_weights.hdf5", name="elmo-small").save(
        tmp_path / "cache" / "pretrained" / "small.pt")  # the tiny ELMo stands in for the published small one
    rows = {row.claim: row for row in measure_claims("smoke", notebooks=("07",))}
    cell = rows[claim].at_scale
    assert cell.startswith(("holds (ELMo small: ", "does not hold here (ELMo small: ")), cell
    assert "margin" in cell and "layer 2" in cell
    assert rows[claim].verdict == without[claim].verdict  # the course's own verdict is unchanged
    table = claims_markdown(list(rows.values()))
    assert "| verdict | at scale |" in table and "(ELMo small: " in table
    assert "大规模模型" in claims_markdown(list(rows.values()), "zh")


def test_a_rows_cells_are_said_in_the_edition_it_is_shown_in_with_the_same_figures():
    """A row is measured once (its JSON and the README in English) and shown in either edition: its measurement,
    controls and a not-measured reason in Chinese in the Chinese table, with the same figures."""
    import copy
    import pickle
    import re

    from course.claims import claims_json, ulmfit_claims
    from course.claims.row import said

    rows = [sense_claim("wiki-en", 0.8, [0.6, 0.62], 0.5, 0.7, spread=0.05),
            layer_claim("z", [0.8, 0.9, 0.85], [0.5, 0.6, 0.8]),
            sense_claim("wiki-en", 0.8, [0.6], 0.5, None, missing="no skipgram-neg-wiki-en.txt"),
            *ulmfit_claims([{"variant": variant, "labels": 100, "seed": seed, "error": error}
                            for variant, error in (("ULMFiT (1+2+3)", 0.2), ("from scratch", 0.3))
                            for seed in (1, 2)])[:2]]
    chinese, english = format_claims(rows, "zh"), format_claims(rows, "en")
    assert "对照    未训练（2 个随机种子的平均） 0.610（各随机种子：0.600-0.620）" in chinese
    assert "最强的对照：上下文词袋" in chinese
    assert "未测量：没有上下文词袋对照（no skipgram-neg-wiki-en.txt）" in chinese
    assert "测试错误率，100 个标注：ULMFiT 0.200，from scratch 0.300" in chinese
    assert "未测量：比较中没有 'stages 1+3' 的行" in chinese
    assert "strongest: bag of context" in english and "not measured: no bag-of-context control" in english
    figures = re.compile(r"[-+]?\d+(?:\.\d+)?")
    for row in rows:
        for cell in (row.measurement, row.controls, row.verdict):
            assert sorted(figures.findall(said(cell, "zh"))) == sorted(figures.findall(said(cell, "en"))), cell
            assert said(cell, "en") == cell  # the row itself holds the English
    assert json.dumps(claims_json(rows), ensure_ascii=False).isascii()
    again = pickle.loads(pickle.dumps(rows[0]))
    assert said(again.controls, "zh") == said(rows[0].controls, "zh") == said(copy.deepcopy(rows[0]).controls, "zh")
    assert "未训练" in claims_html(rows, "zh") and "| 未训练（2 个随机种子的平均） 0.610" in claims_markdown(rows, "zh")
