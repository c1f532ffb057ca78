"""ELMo: shapes and masks, what each direction may see, the scalar mix, the char-CNN, training,
resuming, the model file and the command line. Tiny models, so the whole file runs in seconds."""

import os
import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import torch
from conftest import assert_one_line_error, toy_corpus

from course.core.errors import ModelFileError, SettingError
from course.elmo import BiLM, CharacterVocabulary, Elmo, ElmoConfig, ScalarMix, TokenEncoder, preset, train_elmo
from course.elmo.batching import LanguageModelData
from course.elmo.bilm import reverse_within_lengths
from course.elmo.training import language_model_data
from course.lm import split_heldout
from course.text.corpus import from_sentences
from course.text.vocab import Vocabulary, VocabularyConfig

# PyTorch says once that projected LSTMs skip oneDNN on the CPU: expected, see course/elmo/bilm.py
pytestmark = pytest.mark.filterwarnings("ignore:LSTM with projections is not supported:UserWarning")

TINY = ElmoConfig(min_count=1, max_characters=12, char_dim=4, filters=((1, 4), (2, 4), (3, 8)), projection_dim=8,
                  lstm_dim=16, dropout=0.1, epochs=10, batch_tokens=120, lr=2e-2, heldout_every=5,
                  checkpoint_every=4, device="cpu", threads=1)


def tiny_bilm(seed=0, **overrides):
    config = ElmoConfig(**{**TINY.to_dict(), "dropout": 0.0, **overrides})
    characters = CharacterVocabulary.from_words("abcdefghijklmnopqrstuvwxyz", max_characters=config.max_characters)
    return BiLM(config, len(characters), 30, seed=seed).eval(), characters


def states_of(bilm, characters, sentences):
    char_ids, mask = characters.encode_sentences(sentences)
    with torch.no_grad():
        return bilm(torch.from_numpy(char_ids), torch.from_numpy(mask))


# ------------------------------------------------------------------------------ shapes and masks


def test_shapes_and_mask():
    bilm, characters = tiny_bilm()
    states = states_of(bilm, characters, [["a", "cat"], ["the", "big", "dog", "runs"]])
    assert states.tokens.shape == (2, 6, 8)
    assert len(states.forward) == len(states.backward) == 2
    assert all(h.shape == (2, 6, 8) for h in states.forward + states.backward)
    assert states.mask.tolist() == [[True] * 4 + [False] * 2, [True] * 6]


def test_padding_never_changes_a_real_token():
    bilm, characters = tiny_bilm()
    short = ["a", "cat", "sat"]
    alone = states_of(bilm, characters, [short])
    padded = states_of(bilm, characters, [short, ["a", "much", "longer", "sentence", "than", "that", "one"]])
    n = len(short) + 2
    for a, b in zip([alone.tokens, *alone.forward, *alone.backward],
                    [padded.tokens, *padded.forward, *padded.backward], strict=True):
        torch.testing.assert_close(a[0, :n], b[0, :n], rtol=1e-5, atol=1e-6)


def test_reverse_within_lengths_keeps_padding_in_place():
    mask = torch.tensor([[True, True, True, False], [True, True, True, True]])
    index = reverse_within_lengths(mask)
    assert index.tolist() == [[2, 1, 0, 3], [3, 2, 1, 0]]
    x = torch.arange(8).view(2, 4)
    assert torch.equal(x.gather(1, index).gather(1, index), x)


def test_forward_lm_never_sees_the_future_and_backward_lm_never_the_past():
    bilm, characters = tiny_bilm()
    sentence = ["the", "cat", "sat", "on", "a", "mat"]
    k = 3  # change word k; with <bos> it sits at position k + 1
    changed = sentence[:k] + ["zebra"] + sentence[k + 1:]
    a, b = states_of(bilm, characters, [sentence]), states_of(bilm, characters, [changed])
    position = k + 1
    for j in range(2):
        torch.testing.assert_close(a.forward[j][0, :position], b.forward[j][0, :position])
        assert not torch.allclose(a.forward[j][0, position], b.forward[j][0, position])
        torch.testing.assert_close(a.backward[j][0, position + 1:], b.backward[j][0, position + 1:])
        assert not torch.allclose(a.backward[j][0, position], b.backward[j][0, position])


def test_no_prediction_sees_the_word_it_predicts():
    """The loss of predicting the word at one position has no gradient with respect to that
    position's own token vector, in either direction."""
    bilm, characters = tiny_bilm()
    char_ids, mask = characters.encode_sentences([["the", "cat", "sat", "on", "a", "mat"]])
    char_ids, mask = torch.from_numpy(char_ids), torch.from_numpy(mask)
    targets = torch.randint(4, 30, mask.shape)
    position = 3
    for direction in (0, 1):
        x = bilm.token_encoder(char_ids).detach().requires_grad_(True)
        original = bilm.token_encoder.forward
        bilm.token_encoder.forward = lambda _ids, x=x: x
        try:
            nll = bilm.negative_log_likelihoods(bilm(char_ids, mask), targets)[direction]
        finally:
            bilm.token_encoder.forward = original
        # forward_nll[:, k] predicts position k + 1, backward_nll[:, k] predicts position k
        column = position - 1 if direction == 0 else position
        (grad,) = torch.autograd.grad(nll[0, column], x)
        assert grad[0, position].abs().max() == 0
        assert grad[0, position - 1 if direction == 0 else position + 1].abs().max() > 0


def test_loss_counts_both_directions_and_every_word():
    bilm, characters = tiny_bilm()
    char_ids, mask = characters.encode_sentences([["a", "cat"], ["the", "big", "dog", "runs"]])
    char_ids, mask = torch.from_numpy(char_ids), torch.from_numpy(mask)
    targets = torch.randint(4, 30, mask.shape)
    loss, forward_sum, backward_sum = bilm.loss(char_ids, mask, targets)
    forward_nll, backward_nll = bilm.negative_log_likelihoods(bilm(char_ids, mask), targets)
    assert (forward_nll[0, 3:] == 0).all() and (forward_nll[0, :3] > 0).all()
    predictions = 3 + 5  # n + 1 per sentence and direction
    torch.testing.assert_close(loss, (forward_sum + backward_sum) / predictions)
    log_p = torch.log_softmax(bilm.softmax(bilm(char_ids, mask).forward[-1][1, 0]), dim=-1)
    torch.testing.assert_close(forward_nll[1, 0], -log_p[targets[1, 1]])


@pytest.mark.parametrize("softmax", ["full", "adaptive"])
def test_softmax_is_a_distribution(softmax):
    bilm, _ = tiny_bilm(softmax=softmax, adaptive_cutoffs=(8, 16))
    assert bilm.adaptive == (softmax == "adaptive")
    hidden = torch.randn(5, 8)
    log_p = bilm.log_probabilities(hidden)
    torch.testing.assert_close(log_p.exp().sum(-1), torch.ones(5))
    targets = torch.tensor([0, 3, 9, 17, 29])
    torch.testing.assert_close(bilm.target_log_probabilities(hidden, targets), log_p[torch.arange(5), targets])


# ------------------------------------------------------------------------------- scalar mix


def test_scalar_mix_weights_sum_to_one_and_gradients_reach_s_and_gamma():
    mix = ScalarMix(3, initial_weights=[0.5, -1.0, 2.0], initial_gamma=0.7)
    assert mix.weights.sum().item() == pytest.approx(1.0)
    layers = torch.randn(3, 2, 4, 6)
    out = mix(layers)
    expected = 0.7 * sum(w * layer for w, layer in zip(torch.softmax(torch.tensor([0.5, -1.0, 2.0]), 0), layers,
                                                       strict=True))
    torch.testing.assert_close(out, expected)
    out.pow(2).sum().backward()
    assert mix.scalar_parameters.grad is not None and mix.scalar_parameters.grad.abs().sum() > 0
    assert mix.gamma.grad is not None and mix.gamma.grad.abs() > 0


def test_scalar_mix_layer_norm_ignores_padding():
    mix = ScalarMix(2, layer_norm=True)
    layers = torch.randn(2, 1, 5, 4)
    mask = torch.tensor([[True, True, True, False, False]])
    padded = layers.clone()
    padded[:, :, 3:] = 1e6
    torch.testing.assert_close(mix(layers, mask)[:, :3], mix(padded, mask)[:, :3])
    with pytest.raises(ValueError, match="3 layers"):
        ScalarMix(3)(layers)


# ------------------------------------------------------------------------------- token encoder


def test_char_cnn_output_does_not_depend_on_padding_length():
    config = ElmoConfig(**{**TINY.to_dict(), "filters": [(1, 4), (3, 4), (5, 8)]})
    words = ["a", "cat", "characters", "包袱"]
    vocab = CharacterVocabulary.from_words(["".join(words)], max_characters=12)
    encoder = TokenEncoder(config, len(vocab)).eval()
    rows = torch.from_numpy(vocab.encode(words))
    wide = torch.cat([rows, torch.zeros(len(words), 30, dtype=torch.long)], dim=1)
    with torch.no_grad():
        torch.testing.assert_close(encoder(rows), encoder(wide))
        torch.testing.assert_close(encoder(rows)[1], encoder(rows[1:2])[0])


def test_characters_marks_truncation_and_chinese():
    vocab = CharacterVocabulary.from_words(["abc", "包袱"], max_characters=5)
    row = vocab.word_row("abcabc")
    assert row[0] == 2 and row[-1] == 3 and len(row) == 5  # <bow> ... <eow>, cut to 3 characters
    assert vocab.word_row("包袱")[1:3].tolist() == [vocab.char_to_id["包"], vocab.char_to_id["袱"]]
    assert vocab.word_row("x")[1] == 1  # an unseen character
    char_ids, mask = vocab.encode_sentences([["abc"], ["a", "b", "c"]])
    assert char_ids.shape == (2, 5, 5) and mask.sum(1).tolist() == [3, 5]


# ------------------------------------------------------------------------------- training


def test_batches_group_sentences_of_equal_length_and_split_long_ones():
    corpus = from_sentences([["w"] * n for n in (1, 2, 2, 3, 9, 3, 1)], name="lengths")
    words = Vocabulary.from_counts({"w": 5}, VocabularyConfig(min_count=1))
    data = LanguageModelData(corpus.types, corpus.token_ids, corpus.offsets, words,
                             CharacterVocabulary.from_words(["w"]), max_length=4)
    assert data.num_split == 1
    assert sorted(data.lengths().tolist()) == [1, 1, 1, 2, 2, 3, 3, 4, 4]
    groups = data.batches(batch_tokens=12, rng=np.random.default_rng(0))
    assert sorted(np.concatenate(groups).tolist()) == list(range(data.num_sentences))
    for group in groups:
        widths = data.lengths()[group] + 2
        assert len(group) == 1 or len(group) * widths.max() <= 12
    batch = data.batch(groups[0])
    assert batch.predictions == batch.mask[:, 1:].sum().item()
    assert batch.targets[0, 0] == words.bos_id


def test_loss_falls_and_heldout_perplexity_is_measured():
    model = train_elmo(toy_corpus(), TINY, progress=False)
    losses = [entry["loss"] for entry in model.state.history]
    assert losses[-1] < 0.5 * losses[0]
    assert [entry["epoch"] for entry in model.state.heldout] == list(range(1, 11))
    last = model.state.heldout[-1]
    assert last["forward"] < 4 and last["backward"] < 4  # the 13 words are far from equally likely
    assert model.state.finished and model.state.tokens == 10 * 5 * 128


def test_checkpoint_resume_continues_to_the_same_loss(tmp_path):
    corpus = toy_corpus(80)
    whole = train_elmo(corpus, TINY, progress=False)
    path = tmp_path / "elmo.ckpt"
    first = train_elmo(corpus, TINY, progress=False, checkpoint=path, max_steps=10)
    assert first.state.step == 10 and not first.state.finished
    resumed = train_elmo(corpus, TINY, progress=False, checkpoint=path, resume=True)
    assert resumed.state.step == whole.state.step and resumed.state.finished
    assert resumed.state.history[-1]["loss"] == pytest.approx(whole.state.history[-1]["loss"], rel=1e-5)
    assert resumed.state.heldout[-1]["forward"] == pytest.approx(whole.state.heldout[-1]["forward"], rel=1e-5)
    for a, b in zip(whole.bilm.parameters(), resumed.bilm.parameters(), strict=True):
        torch.testing.assert_close(a, b, rtol=1e-4, atol=1e-6)
    other = ElmoConfig(**{**TINY.to_dict(), "lstm_dim": 32})
    with pytest.raises(SettingError, match="lstm_dim"):
        train_elmo(corpus, other, progress=False, checkpoint=path, resume=True)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
def test_a_run_resumed_on_cuda_draws_the_dropout_of_the_uninterrupted_one(tmp_path):
    # the checkpoint carries CUDA's generator; the control resumes from a copy without it, so that its
    # dropout masks after step 10 are other draws
    corpus, config = toy_corpus(80), replace(TINY, device="cuda", precision="fp32", dropout=0.3)
    whole = train_elmo(corpus, config, progress=False)
    path, control = tmp_path / "elmo.ckpt", tmp_path / "without-cuda-rng.ckpt"
    train_elmo(corpus, config, progress=False, checkpoint=path, max_steps=10)
    payload = torch.load(path, map_location="cpu", weights_only=True)
    assert payload["cuda_rng"] is not None
    torch.save({**payload, "cuda_rng": None}, control)
    resumed = train_elmo(corpus, config, progress=False, checkpoint=path, resume=True)
    drawn_afresh = train_elmo(corpus, config, progress=False, checkpoint=control, resume=True)
    assert resumed.state.step == whole.state.step and resumed.state.finished
    # CUDA's atomic sums (the embeddings' gradients) may add in another order: float32 rounding, not 1e-5
    assert resumed.state.history[-1]["loss"] == pytest.approx(whole.state.history[-1]["loss"], rel=1e-4)
    for a, b in zip(whole.bilm.parameters(), resumed.bilm.parameters(), strict=True):
        torch.testing.assert_close(a, b, rtol=1e-3, atol=1e-5)
    assert any(not torch.allclose(a, b, rtol=1e-3, atol=1e-5)  # the tolerance tells other draws apart
               for a, b in zip(whole.bilm.parameters(), drawn_afresh.bilm.parameters(), strict=True))


def noise_corpus(num_sentences=60):
    """Six words drawn at random from twelve: nothing to learn but the training sentences themselves,
    so a biLM that fits them well does worse on held-out ones (held-out perplexity rises)."""
    rng = np.random.default_rng(0)
    words = [f"w{i}" for i in range(12)]
    return from_sentences([[str(w) for w in rng.choice(words, 6)] for _ in range(num_sentences)], name="noise")


def heldout_perplexity(model: Elmo, corpus) -> float:
    """The geometric mean of the two directions' perplexities on the sentences training held out."""
    from course.elmo.perplexity import evaluate_perplexity
    from course.elmo.training import language_model_data
    from course.lm import split_heldout

    held = language_model_data(corpus, split_heldout(corpus, model.config)[1], model)
    measured = evaluate_perplexity(model.bilm, held, model.config)
    return float(np.sqrt(measured["forward"] * measured["backward"]))


def test_the_best_heldout_weights_are_kept_and_patience_stops_training(tmp_path):
    # float32: where it starts to overfit depends on rounding, and bfloat16's differs from one CPU to another
    corpus, config = noise_corpus(), replace(TINY, epochs=25, dropout=0.0, heldout_every=4, patience=3,
                                             precision="fp32")
    model = train_elmo(corpus, config, progress=False)
    state = model.state
    perplexities = [np.sqrt(entry["forward"] * entry["backward"]) for entry in state.heldout]
    best = int(np.argmin(perplexities))
    assert 0 < best and perplexities[-1] > perplexities[best]  # it learned, then overfit
    assert state.stopped_early and state.finished and state.epoch < config.epochs
    assert len(perplexities) == best + 1 + config.patience and state.since_best == config.patience
    assert state.best["epoch"] == best + 1 and state.best["perplexity"] == pytest.approx(perplexities[best])
    assert heldout_perplexity(model, corpus) == pytest.approx(state.best["perplexity"], rel=1e-5)
    loaded = Elmo.load(model.save(tmp_path / "elmo.pt"), device="cpu")
    assert loaded.state == state and heldout_perplexity(loaded, corpus) == pytest.approx(perplexities[best], rel=1e-5)

    path = tmp_path / "run.ckpt"  # stopped mid-way after the best epoch, then resumed: the same run
    first = train_elmo(corpus, config, progress=False, checkpoint=path, max_steps=state.step - 2)
    assert not first.state.finished and first.state.best["epoch"] == state.best["epoch"]
    resumed = train_elmo(corpus, config, progress=False, checkpoint=path, resume=True)
    assert resumed.state.epoch == state.epoch and resumed.state.best == state.best
    for a, b in zip(model.bilm.parameters(), resumed.bilm.parameters(), strict=True):
        torch.testing.assert_close(a, b, rtol=1e-4, atol=1e-6)


def copy_checkpoint_at(monkeypatch, step: int, copy: Path) -> None:
    """Copy the checkpoint ``train_elmo`` saves after step ``step`` to ``copy``: what a run that
    crashed right after that save would leave behind."""
    from course.elmo import training

    save = training._Run.save_checkpoint

    def save_and_copy(run):
        save(run)
        if run.state.step == step and run.checkpoint is not None:
            shutil.copy(run.checkpoint, copy)

    monkeypatch.setattr(training._Run, "save_checkpoint", save_and_copy)


def test_eval_every_measures_within_the_epoch_and_resumes_there_as_the_uninterrupted_run(tmp_path, monkeypatch):
    corpus, config = toy_corpus(80), replace(TINY, epochs=3, eval_every=3, checkpoint_every=100)  # 4 steps an epoch
    copy = tmp_path / "at-step-6.ckpt"
    copy_checkpoint_at(monkeypatch, 6, copy)  # mid-epoch 2, between two read-outs of the loss
    whole = train_elmo(corpus, config, progress=False, checkpoint=tmp_path / "elmo.ckpt")
    assert [(entry["epoch"], entry["step"]) for entry in whole.state.heldout] == [(0.75, 3), (1.5, 6), (2.25, 9),
                                                                                  (3, 12)]
    assert copy.is_file()
    resumed = train_elmo(corpus, config, progress=False, checkpoint=copy, resume=True)
    assert resumed.state.step == whole.state.step and resumed.state.finished
    without_time = lambda history: [{k: v for k, v in e.items() if k != "seconds"} for e in history]  # noqa: E731
    for a, b in zip(without_time(resumed.state.history), without_time(whole.state.history), strict=True):
        assert a == pytest.approx(b, rel=1e-5)
    assert [entry["step"] for entry in resumed.state.heldout] == [3, 6, 9, 12]
    for a, b in zip(resumed.state.heldout, whole.state.heldout, strict=True):
        assert a == pytest.approx(b, rel=1e-5)
    assert resumed.state.best["step"] == whole.state.best["step"]
    for a, b in zip(whole.bilm.parameters(), resumed.bilm.parameters(), strict=True):
        torch.testing.assert_close(a, b, rtol=1e-4, atol=1e-6)
    with pytest.raises(SettingError, match="eval_every"):  # measured elsewhere: another run
        train_elmo(corpus, replace(config, eval_every=2), progress=False, checkpoint=copy, resume=True)


def test_eval_every_is_an_option_of_train_elmo_and_nonsense_is_refused():
    from course.cli import make_parser
    from course.core.fields import from_options

    args = make_parser().parse_args(["train", "elmo", "--corpus", "c", "--out", "o", "--preset", "gpu",
                                     "--eval-every", "5000"])
    assert from_options(ElmoConfig, args, base=preset(args.preset)) == preset("gpu", eval_every=5_000)
    assert preset("gpu").eval_every is None and preset("cpu").eval_every is None  # after every epoch
    with pytest.raises(SettingError, match="eval_every must be from 1"):
        replace(TINY, eval_every=0)


def test_patience_counts_measurements_and_can_stop_within_an_epoch(tmp_path):
    corpus, config = noise_corpus(), replace(TINY, epochs=25, dropout=0.0, heldout_every=4, patience=3, eval_every=2)
    model = train_elmo(corpus, config, progress=False)
    state = model.state
    steps_per_epoch = len(language_model_data(corpus, split_heldout(corpus, config)[0], model).batches(
        config.batch_tokens))
    assert [entry["step"] for entry in state.heldout] == list(range(2, state.step + 1, 2))
    assert [entry["epoch"] for entry in state.heldout] == [
        step // steps_per_epoch if step % steps_per_epoch == 0 else round(step / steps_per_epoch, 3)
        for step in range(2, state.step + 1, 2)]
    perplexities = [np.sqrt(entry["forward"] * entry["backward"]) for entry in state.heldout]
    best = int(np.argmin(perplexities))
    assert state.stopped_early and state.finished and state.epoch < config.epochs
    assert len(perplexities) == best + 1 + config.patience and state.since_best == config.patience
    assert heldout_perplexity(model, corpus) == pytest.approx(state.best["perplexity"], rel=1e-5)
    assert any(not float(entry["epoch"]).is_integer() for entry in state.heldout)

    path = tmp_path / "run.ckpt"  # stopped at a measurement after the best, then resumed: the same run
    first = train_elmo(corpus, config, progress=False, checkpoint=path, max_steps=state.step - 2)
    assert not first.state.finished and first.state.heldout[-1]["step"] == state.step - 2
    resumed = train_elmo(corpus, config, progress=False, checkpoint=path, resume=True)
    assert resumed.state.step == state.step and resumed.state.best["step"] == state.best["step"]
    assert resumed.state.stopped_early and len(resumed.state.heldout) == len(state.heldout)
    for a, b in zip(model.bilm.parameters(), resumed.bilm.parameters(), strict=True):
        torch.testing.assert_close(a, b, rtol=1e-4, atol=1e-6)


def test_resuming_on_another_corpus_or_an_unrecorded_checkpoint_is_refused(tmp_path):
    path = tmp_path / "elmo.ckpt"
    config = replace(TINY, epochs=2)
    train_elmo(toy_corpus(40), config, progress=False, checkpoint=path, max_steps=3)
    with pytest.raises(SettingError, match=r"elmo.ckpt: was trained on another corpus \('toy', 40 sentences, "
                                           r"200 tokens; now 'noise', 60 sentences, 360 tokens\) and with another "
                                           r"vocabulary \(16 words, other ones\)"):
        train_elmo(noise_corpus(), config, progress=False, checkpoint=path, resume=True)
    payload = torch.load(path, weights_only=True)
    del payload["identity"]
    torch.save(payload, path)
    with pytest.raises(SettingError, match="elmo.ckpt: an older checkpoint that does not record the corpus"):
        train_elmo(toy_corpus(40), config, progress=False, checkpoint=path, resume=True)


@pytest.fixture(scope="module")
def trained():
    return train_elmo(toy_corpus(), TINY, progress=False)


def test_embed_gives_three_layers_and_the_same_vectors_in_any_batch(trained):
    sentences = [["the", "cat", "sees", "a", "dog"], ["a", "fish"], ["the", "cow", "eats", "a", "zebra", "today"]]
    vectors = trained.embed(sentences)
    assert [v.shape for v in vectors] == [(3, 5, 16), (3, 2, 16), (3, 6, 16)]
    np.testing.assert_array_equal(vectors[0][0, :, :8], vectors[0][0, :, 8:])  # layer 0 duplicated
    np.testing.assert_allclose(trained.embed([sentences[0]])[0], vectors[0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(vectors[0][0, 1], trained.token_vectors(["cat"])[0], rtol=1e-5, atol=1e-6)
    assert not np.allclose(vectors[0][2, 1], trained.embed([["a", "cat", "likes", "the", "fish"]])[0][2, 1])


def test_untrained_model_is_the_starting_point(trained):
    fresh = trained.untrained()
    again = Elmo(trained.config, trained.words, trained.characters)
    for a, b in zip(fresh.bilm.parameters(), again.bilm.parameters(), strict=True):
        torch.testing.assert_close(a, b)
    assert not torch.allclose(next(fresh.bilm.parameters()), next(trained.bilm.parameters()))


def test_perplexity_and_sampling(trained):
    measured = trained.perplexity([["the", "cat", "sees", "a", "dog"]])
    assert measured["predictions"] == 6 and 1 < measured["forward"] < 10
    sentences = trained.sample(4, max_length=8, seed=3)
    assert sentences == trained.sample(4, max_length=8, seed=3)
    assert all(0 < len(s) <= 8 and set(s) <= set(trained.words.words[4:]) for s in sentences)


def test_model_file_round_trip_and_bad_files(trained, tmp_path):
    path = trained.save(tmp_path / "elmo.pt")
    loaded = Elmo.load(path, device=str(trained.device))  # the same device runs the same kernels: exact
    assert loaded.device == trained.device and not loaded.bilm.training
    assert all(p.dtype == torch.float32 for p in loaded.bilm.parameters())
    sentence = [["the", "dog", "likes", "a", "bird"]]
    np.testing.assert_array_equal(loaded.embed(sentence)[0], trained.embed(sentence)[0])
    assert loaded.state.heldout == trained.state.heldout
    truncated = tmp_path / "truncated.pt"
    truncated.write_bytes(path.read_bytes()[:2000])
    with pytest.raises(ModelFileError, match="truncated"):
        Elmo.load(truncated)
    other = tmp_path / "other.pt"
    torch.save({"weights": torch.zeros(3)}, other)
    with pytest.raises(ModelFileError, match="not an ELMo model file"):
        Elmo.load(other)
    with pytest.raises(ModelFileError, match="no such model file"):
        Elmo.load(tmp_path / "missing.pt")


# ------------------------------------------------------------------------------- settings


def test_presets_and_nonsense_settings():
    assert preset("cpu").preset == "cpu" and preset("gpu").lstm_dim > preset("cpu").lstm_dim
    assert preset("cpu", epochs=1).epochs == 1
    with pytest.raises(SettingError, match="unknown ELMo preset"):
        preset("tpu")
    with pytest.raises(SettingError, match="unknown ELMo setting"):
        preset("cpu", layers=3)
    with pytest.raises(SettingError, match="lstm_dim"):
        ElmoConfig(lstm_dim=64, projection_dim=128)


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the message on a machine without CUDA")
def test_cuda_without_a_gpu_is_refused():
    with pytest.raises(SettingError, match="no CUDA GPU"):
        train_elmo(toy_corpus(20), ElmoConfig(**{**TINY.to_dict(), "device": "cuda"}), progress=False)
    with pytest.raises(SettingError, match="needs a CUDA GPU"):
        train_elmo(toy_corpus(20), ElmoConfig(**{**TINY.to_dict(), "precision": "fp16"}), progress=False)


@pytest.mark.parametrize("softmax", ["full", "adaptive"])
def test_training_on_the_cpu_in_bfloat16(softmax):
    config = ElmoConfig(**{**TINY.to_dict(), "precision": "bf16", "softmax": softmax, "adaptive_cutoffs": (6,)})
    model = train_elmo(toy_corpus(), config, progress=False)
    in_float32 = train_elmo(toy_corpus(), replace(config, precision="fp32"), progress=False)
    losses = [entry["loss"] for entry in model.state.history]
    assert losses[-1] < 0.6 * losses[0]
    for direction in ("forward", "backward"):  # as good as float32 training
        assert model.state.heldout[-1][direction] < 1.1 * in_float32.state.heldout[-1][direction]
    assert all(p.dtype == torch.float32 for p in model.bilm.parameters())  # bfloat16 only inside autocast
    with torch.autocast("cpu", dtype=torch.bfloat16):  # the softmax stays a float32 distribution
        hidden = torch.randn(5, config.projection_dim)
        log_p = model.bilm.log_probabilities(hidden)
        targets = torch.arange(5)
        picked = model.bilm.target_log_probabilities(hidden, targets)
    assert log_p.dtype == torch.float32 and picked.dtype == torch.float32
    torch.testing.assert_close(log_p.exp().sum(1), torch.ones(5))
    torch.testing.assert_close(picked, log_p[torch.arange(5), targets], rtol=1e-3, atol=1e-3)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
@pytest.mark.parametrize("precision", ["auto", "bf16", "fp32"])
def test_training_on_cuda_in_mixed_precision(precision, monkeypatch, tmp_path):
    config = ElmoConfig(**{**TINY.to_dict(), "device": "cuda", "precision": precision})
    model = train_elmo(toy_corpus(), config, progress=False)
    assert model.device.type == "cuda"
    losses = [entry["loss"] for entry in model.state.history]
    assert losses[-1] < 0.5 * losses[0] and model.state.heldout[-1]["forward"] < 4
    assert all(p.dtype == torch.float32 for p in model.bilm.parameters())  # half precision only inside autocast
    sentences = [["the", "cat", "sees", "a", "dog"], ["a", "fish"]]
    on_cpu = Elmo(model.config, model.words, model.characters, device="cpu")
    on_cpu.bilm.load_state_dict(model.bilm.state_dict())
    expected = on_cpu.embed(sentences)
    loaded = Elmo.load(model.save(tmp_path / "elmo.pt"), device="cuda")  # same device, same kernels: exact
    for a, b in zip(loaded.embed(sentences), model.embed(sentences), strict=True):
        np.testing.assert_array_equal(a, b)
    # embed runs in float32 whatever the training precision; but cuDNN's convolutions and LSTMs use
    # TensorFloat-32 by default (a 10-bit mantissa: ~1e-3 relative per product, and up to a few percent on
    # states near zero after the char-CNN, highway layers and two LSTMs). In IEEE float32 only the order
    # of the sums differs from the CPU's kernels (and cuDNN may pick a transform-based convolution):
    # 1e-6 to 1e-5, inside 1e-4 relative and 2e-5 absolute, and far below TensorFloat-32's 1e-3.
    monkeypatch.setattr(torch.backends.cudnn, "allow_tf32", False)
    for a, b in zip(model.embed(sentences), expected, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=2e-5)


# ------------------------------------------------------------------------------- command line


def run(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "course", *map(str, args)], capture_output=True, text=True,
                          env={**os.environ, "COURSE_CACHE": str(cwd / "cache")}, timeout=300)


def test_command_line_trains_and_refuses_bad_input(tmp_path):
    text = tmp_path / "toy.txt"
    text.write_text("\n".join(" ".join(s) + "." for s in toy_corpus(60)) + "\n", encoding="utf-8")
    out = tmp_path / "elmo.pt"
    result = run("train", "elmo", "--corpus", text, "--preset", "cpu", "--epochs", "1", "--min-count", "1",
                 "--out", out, "--quiet", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "held-out perplexity" in result.stderr
    assert Elmo.load(out).config.epochs == 1

    on_cuda = run("train", "elmo", "--corpus", text, "--device", "cuda", "--epochs", "1", "--min-count", "1",
                  "--out", tmp_path / "x.pt", "--quiet", cwd=tmp_path)
    if torch.cuda.is_available():  # trains there
        assert on_cuda.returncode == 0, on_cuda.stderr
        assert Elmo.load(tmp_path / "x.pt", device="cpu").config.device == "cuda"
    else:  # refused before anything is written
        assert_one_line_error(on_cuda, "cuda", "no CUDA GPU")
        assert not (tmp_path / "x.pt").exists()
    assert_one_line_error(run("train", "elmo", "--corpus", text, "--out", tmp_path, cwd=tmp_path), "folder")


def test_course_elmo_trains_once_and_then_loads(tmp_path, monkeypatch, capsys):
    from course.shared.bilm import course_config, course_elmo, model_path

    monkeypatch.setenv("COURSE_BUILD", str(tmp_path))
    path = model_path("wiki-en", "smoke")
    assert path.parent == tmp_path / "models" / "smoke" and not path.exists()
    path.parent.mkdir(parents=True)
    path.write_bytes(b"PK\x03\x04 a model file cut short")  # a damaged file is trained again, with a note
    trained = course_elmo("wiki-en", "smoke", progress=False, device="cpu")  # trained on the CPU, on any machine
    note = capsys.readouterr().err
    assert f"note: the saved biLM {path} is damaged (not a readable ELMo model file" in note
    assert "training it again" in note
    assert path.is_file() and not path.with_suffix(".checkpoint.pt").exists()
    assert trained.device.type == "cpu"
    assert trained.state.finished and trained.config == replace(course_config("wiki-en", "smoke"), device="cpu")
    loaded = course_elmo("wiki-en", "smoke", progress=False, device="cpu")
    assert loaded.state.step == trained.state.step
    sentence = [["the", "city", "of", "london"]]
    np.testing.assert_array_equal(loaded.embed(sentence)[0], trained.embed(sentence)[0])
    assert course_config("peoples-daily-zh", "full").preset == "cpu"

    payload = torch.load(path, weights_only=True)  # what an older version's settings made
    payload["config"]["device"] = "cuda"  # where it ran does not count
    payload["config"]["dropout"] = 0.3
    torch.save(payload, path)
    again = course_elmo("wiki-en", "smoke", progress=False, device="cpu")
    note = capsys.readouterr().err
    assert f"note: the saved biLM {path} was trained with other settings (dropout=0.3 (now 0.1)); training it " \
           "again" in note and "device" not in note
    np.testing.assert_array_equal(again.embed(sentence)[0], trained.embed(sentence)[0])
    assert Elmo.load(path).config.dropout == trained.config.dropout


def test_a_given_biLM_stands_in_for_the_course_one_of_its_language(tmp_path, monkeypatch, capsys):
    from course.shared.bilm import course_elmo, given_file, model_path

    monkeypatch.setenv("COURSE_BUILD", str(tmp_path / "build"))
    monkeypatch.delenv("COURSE_ELMO_EN", raising=False)
    monkeypatch.delenv("COURSE_ELMO_ZH", raising=False)
    english = from_sentences([s for s in toy_corpus(80)], name="toy")  # letters a-z, as most of wiki-en's
    given = train_elmo(english, replace(TINY, epochs=1), progress=False).save(tmp_path / "larger.pt")
    monkeypatch.setenv("COURSE_ELMO_EN", str(given))
    assert given_file("wiki-en") == given and given_file("peoples-daily-zh") is None
    first = course_elmo("wiki-en", "smoke", progress=False, device="cpu")
    again = course_elmo("wiki-en", "smoke", progress=False, device="cpu")
    notes = capsys.readouterr().err.splitlines()
    assert len(notes) == 1 and notes[0].startswith(f"note: the biLM for wiki-en is {given} (COURSE_ELMO_EN: ")
    assert first.words.words == again.words.words == Elmo.load(given).words.words
    assert not model_path("wiki-en", "smoke").exists()  # nothing trained, nothing written
    own = course_elmo("wiki-en", "smoke", progress=False, device="cpu", given=False)  # notebook 06 trains its own
    assert model_path("wiki-en", "smoke").is_file() and own.words.words != first.words.words

    chinese = from_sentences([["天气", "很", "好"], ["我们", "去", "公园"]] * 30, name="toy-zh", language="zh")
    monkeypatch.setenv("COURSE_ELMO_EN", str(train_elmo(chinese, replace(TINY, epochs=1), progress=False)
                                             .save(tmp_path / "chinese.pt")))
    with pytest.raises(SettingError, match=r"COURSE_ELMO_EN=.*chinese.pt is a biLM that reads 0.0% of the "
                                           r"characters of wiki-en .at least 50% needed.: it was trained on another"):
        course_elmo("wiki-en", "smoke", progress=False, device="cpu")
    monkeypatch.setenv("COURSE_ELMO_EN", str(tmp_path / "missing.pt"))
    with pytest.raises(SettingError, match=r"COURSE_ELMO_EN=.*missing.pt names no file: .* or unset COURSE_ELMO_EN"):
        course_elmo("wiki-en", "smoke", progress=False, device="cpu")
    (tmp_path / "not-a-model.pt").write_bytes(b"not a model")
    monkeypatch.setenv("COURSE_ELMO_EN", str(tmp_path / "not-a-model.pt"))
    with pytest.raises(ModelFileError):
        course_elmo("wiki-en", "smoke", progress=False, device="cpu")
