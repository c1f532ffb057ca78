"""Transformers: what each position may see, attention, BERT's masking, training, resuming, the
model file, and the probes' three methods. Tiny models, so the whole file runs in seconds."""

import shutil
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import torch
from conftest import VERBS, toy_corpus

from course.analysis.probes import ProbeSentence, probe_model, target_vectors
from course.core.errors import ModelFileError, SettingError
from course.shared.corpus import course_corpus
from course.text.corpus import from_sentences
from course.transformer import (
    IGNORE,
    MultiHeadSelfAttention,
    Transformer,
    TransformerConfig,
    TransformerLM,
    causal_mask,
    learning_rate,
    mask_tokens,
    preset,
    scaled_dot_product_attention,
    train_transformer,
)

TINY = TransformerConfig(min_count=1, dim=16, heads=2, layers=2, ff_dim=32, max_positions=16, dropout=0.1,
                         epochs=6, batch_tokens=120, lr=1e-2, warmup_share=0.1, heldout_every=5, checkpoint_every=4,
                         device="cpu", threads=1)


pytestmark = pytest.mark.usefixtures("one_torch_thread")


def tiny(**overrides) -> TransformerConfig:
    return replace(TINY, **overrides)


def one_line(excinfo) -> str:
    message = str(excinfo.value)
    assert message and "\n" not in message
    return message


@pytest.fixture(scope="module")
def trained():
    return {objective: train_transformer(toy_corpus(), tiny(objective=objective), progress=False)
            for objective in ("causal", "masked")}


# ------------------------------------------------------------------------------ what each position sees


@pytest.mark.parametrize("objective", ["causal", "masked"])
def test_a_later_word_changes_only_later_positions_of_a_causal_model(objective):
    network = TransformerLM(tiny(objective=objective, dropout=0.0), 30).eval()
    ids = torch.tensor([[2, 7, 8, 9, 10, 11, 12, 3]])
    changed = ids.clone()
    changed[0, 5] = 20
    with torch.no_grad():
        before, after = network(ids), network(changed)
    for layer_before, layer_after in zip(before.layers, after.layers, strict=True):
        if objective == "causal":
            torch.testing.assert_close(layer_before[:, :5], layer_after[:, :5], rtol=0, atol=1e-6)
        else:  # both sides are seen: the earlier positions change too
            assert not torch.allclose(layer_before[:, :5], layer_after[:, :5], atol=1e-4)
        assert not torch.allclose(layer_before[:, 5:], layer_after[:, 5:], atol=1e-4)


def test_causal_mask_is_lower_triangular():
    mask = causal_mask(4)
    assert mask.dtype == torch.bool and mask.tolist() == [[j <= i for j in range(4)] for i in range(4)]


def test_attention_weights_sum_to_one_and_ignore_masked_keys():
    torch.manual_seed(0)
    q, k, v = torch.randn(3, 2, 5, 4), torch.randn(3, 2, 5, 4), torch.randn(3, 2, 5, 6)
    padding = torch.tensor([[True] * 5, [True] * 3 + [False] * 2, [True] * 4 + [False]])
    mask = causal_mask(5)[None, None] & padding[:, None, None, :]
    for m in (None, mask):
        out, weights = scaled_dot_product_attention(q, k, v, m)
        torch.testing.assert_close(out, torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=m))
        torch.testing.assert_close(weights.sum(-1), torch.ones(3, 2, 5))
    assert (weights[~mask.expand_as(weights)] == 0).all()
    assert (weights[mask.expand_as(weights)] > 0).all()

    attention = MultiHeadSelfAttention(8, 2).eval()
    x = torch.randn(3, 5, 8)
    slow, weights = attention(x, padding, causal=True, need_weights=True)
    fast, none = attention(x, padding, causal=True)
    assert none is None and weights.shape == (3, 2, 5, 5)
    torch.testing.assert_close(slow, fast)
    assert (weights[1, :, :, 3:] == 0).all() and (weights[0].triu(1) == 0).all()


# ------------------------------------------------------------------------------ the adaptive softmax


def test_the_adaptive_softmax_is_a_distribution_over_every_word_tied_to_the_table():
    V = 40
    adaptive = TransformerLM(tiny(softmax="adaptive", adaptive_cutoffs=(10, 25), dropout=0.0), V).eval()
    full = TransformerLM(tiny(dropout=0.0), V).eval()
    assert adaptive.cutoffs == (10, 25) and full.cutoffs == () and full.clusters is None
    # the only weights it adds are one row and a bias per cluster; the table is still the softmax's
    assert (sum(p.numel() for p in adaptive.parameters()) - sum(p.numel() for p in full.parameters())
            == 2 * (16 + 1))
    torch.manual_seed(0)
    hidden = torch.randn(7, 16)
    targets = torch.tensor([0, 9, 10, 24, 25, 39, 3])  # both sides of every cutoff
    for network in (adaptive, full):
        log_p = network.log_probabilities(hidden)
        assert log_p.shape == (7, V) and log_p.dtype == torch.float32
        torch.testing.assert_close(log_p.logsumexp(-1), torch.zeros(7), rtol=0, atol=1e-5)
        torch.testing.assert_close(network.target_log_probabilities(hidden, targets),
                                   log_p.gather(1, targets[:, None])[:, 0])
    # p(w) for a word of cluster i is p(cluster i) * p(w | cluster i), written out
    z = adaptive.final_norm(hidden)
    E, b = adaptive.token_embedding.weight, adaptive.output_bias
    head = torch.log_softmax(torch.cat([z @ E[:10].t() + b[:10], adaptive.clusters(z)], -1), -1)
    second = torch.log_softmax(z @ E[25:].t() + b[25:], -1)
    torch.testing.assert_close(adaptive.log_probabilities(hidden)[:, 30], head[:, 11] + second[:, 5])
    torch.testing.assert_close(adaptive.log_probabilities(hidden)[:, 4], head[:, 4])
    # a vocabulary below every cutoff gets the full softmax
    assert TransformerLM(tiny(softmax="adaptive", adaptive_cutoffs=(50,)), V).cutoffs == ()


def test_the_adaptive_softmax_gradient_matches_finite_differences():
    network = TransformerLM(tiny(softmax="adaptive", adaptive_cutoffs=(6, 12), dropout=0.0, dim=4, heads=1,
                                 layers=1, ff_dim=8), 20).double().eval()
    torch.manual_seed(1)
    hidden = torch.randn(5, 4, dtype=torch.float64, requires_grad=True)
    targets = torch.tensor([1, 7, 13, 19, 5])
    torch.autograd.gradcheck(lambda h: network.target_log_probabilities(h, targets), (hidden,))
    weights = network.token_embedding.weight
    torch.autograd.gradcheck(lambda E: _with_table(network, E, hidden.detach(), targets), (weights.detach().clone()
                                                                                             .requires_grad_(),))


def _with_table(network, table, hidden, targets):
    """target log-probabilities with ``table`` in place of the word embeddings (for gradcheck)."""
    saved = network.token_embedding.weight
    try:
        del network.token_embedding.weight
        network.token_embedding.weight = table
        return network.target_log_probabilities(hidden, targets)
    finally:
        network.token_embedding.weight = saved


def test_a_causal_model_with_the_adaptive_softmax_learns_and_loads(tmp_path):
    config = tiny(softmax="adaptive", adaptive_cutoffs=(8,), epochs=8)
    model = train_transformer(toy_corpus(), config, progress=False)
    assert model.network.cutoffs == (8,) and len(model.words) > 8
    perplexities = [row["perplexity"] for row in model.state.heldout]
    assert perplexities[-1] < perplexities[0] / 2
    model.save(tmp_path / "gpt.pt")
    loaded = Transformer.load(tmp_path / "gpt.pt", device="cpu")
    assert loaded.config.adaptive_cutoffs == (8,) and loaded.network.cutoffs == (8,)
    sentences = list(toy_corpus(num_sentences=20, seed=3))
    assert loaded.perplexity(sentences)["perplexity"] == pytest.approx(model.perplexity(sentences)["perplexity"])


# ------------------------------------------------------------------------------------ masking


def test_masking_chooses_fifteen_percent_and_replaces_80_10_10():
    pad, unk, bos, eos, mask_id, vocab_size = 0, 1, 2, 3, 4, 100
    specials = [pad, unk, bos, eos]
    generator = torch.Generator().manual_seed(0)
    ids = torch.randint(5, vocab_size, (400, 60), generator=generator)
    ids[:, 0], ids[:, 50], ids[:, 51:], ids[::7, 10] = bos, eos, pad, unk
    inputs, targets = mask_tokens(ids, mask_id, vocab_size, specials, 0.15, generator)
    chosen = targets != IGNORE
    words = ids > 4
    assert not chosen[~words].any() and (inputs[~words] == ids[~words]).all()  # specials never chosen
    assert chosen.sum() / words.sum() == pytest.approx(0.15, abs=0.005)
    assert (targets[chosen] == ids[chosen]).all() and (inputs[~chosen] == ids[~chosen]).all()
    masked = (inputs[chosen] == mask_id).float().mean()
    kept = (inputs[chosen] == ids[chosen]).float().mean()
    replaced = ((inputs[chosen] != mask_id) & (inputs[chosen] != ids[chosen])).float().mean()
    assert masked == pytest.approx(0.8, abs=0.02)
    assert kept == pytest.approx(0.1 + 0.1 / 95, abs=0.015)  # a random word is the same word 1 time in 95
    assert replaced == pytest.approx(0.1 - 0.1 / 95, abs=0.015)
    assert (inputs[chosen & (inputs != mask_id)] > 4).all()  # never replaced by a special token
    again, _ = mask_tokens(ids, mask_id, vocab_size, specials, 0.15, torch.Generator().manual_seed(1))
    assert not torch.equal(again, inputs)


# ------------------------------------------------------------------------------------ training


@pytest.mark.parametrize("objective", ["causal", "masked"])
def test_loss_falls_and_heldout_perplexity_is_measured(trained, objective):
    model = trained[objective]
    losses = [entry["loss"] for entry in model.state.history]
    assert losses[-1] < 0.6 * losses[0]
    assert [entry["epoch"] for entry in model.state.heldout] == list(range(1, 7))
    assert model.state.heldout[-1]["perplexity"] < 0.5 * model.state.heldout[0]["perplexity"]
    assert model.state.finished and model.state.tokens == 6 * 5 * 128


def test_causal_model_learns_a_deterministic_sequence():
    """Windows of the cycle w0 w1 .. w9 w0 ..: after the first word, each next word is certain."""
    rng = np.random.default_rng(0)
    cycle = [f"w{i}" for i in range(10)]
    sentences = [[cycle[(start + k) % 10] for k in range(8)] for start in rng.integers(0, 10, 150)]
    model = train_transformer(from_sentences(sentences), tiny(epochs=8, dropout=0.0), progress=False)
    measured = model.perplexity([["w3", "w4", "w5", "w6", "w7", "w8", "w9", "w0"]])
    assert measured["predictions"] == 9
    # chance is 15 (the vocabulary); 2 of the 9 predictions (the first word, <eos>) are uncertain
    assert model.state.heldout[-1]["perplexity"] < 3 and measured["perplexity"] < 3


def test_learning_rate_warms_up_then_decays():
    config = tiny(lr=1.0, warmup_share=0.1, final_lr_share=0.1)
    rates = [learning_rate(config, step, 100) for step in range(100)]
    assert rates[0] == pytest.approx(0.1) and rates[9] == pytest.approx(1.0)
    assert all(a < b for a, b in zip(rates[:10], rates[1:10], strict=False))
    assert all(a >= b for a, b in zip(rates[10:], rates[11:], strict=False))
    assert learning_rate(config, 100, 100) == pytest.approx(0.1)


@pytest.mark.parametrize("objective", ["causal", "masked"])
def test_resume_gives_the_uninterrupted_run_bit_for_bit(tmp_path, objective):
    corpus = toy_corpus(80)
    config = tiny(objective=objective, epochs=3)
    whole = train_transformer(corpus, config, progress=False)
    path = tmp_path / "model.ckpt"
    first = train_transformer(corpus, config, progress=False, checkpoint=path, max_steps=7)
    assert first.state.step == 7 and not first.state.finished
    resumed = train_transformer(corpus, config, progress=False, checkpoint=path, resume=True)
    assert resumed.state.step == whole.state.step and resumed.state.finished
    for a, b in zip(whole.network.state_dict().values(), resumed.network.state_dict().values(), strict=True):
        assert torch.equal(a, b)
    without_time = lambda history: [{k: v for k, v in e.items() if k != "seconds"} for e in history]  # noqa: E731
    assert without_time(resumed.state.history) == without_time(whole.state.history)
    assert resumed.state.heldout == whole.state.heldout
    with pytest.raises(SettingError, match="ff_dim") as excinfo:
        train_transformer(corpus, replace(config, ff_dim=64), progress=False, checkpoint=path, resume=True)
    one_line(excinfo)


def noise_corpus(num_sentences=60):
    """Six words drawn at random from twelve: nothing to learn but the training sentences themselves,
    so a model that fits them well does worse on held-out ones (held-out perplexity rises)."""
    rng = np.random.default_rng(0)
    words = [f"w{i}" for i in range(12)]
    return from_sentences([[str(w) for w in rng.choice(words, 6)] for _ in range(num_sentences)], name="noise")


OVERFITS = tiny(epochs=25, lr=3e-2, dropout=0.0, heldout_every=4, patience=3)


def heldout_perplexity(model: Transformer, corpus) -> float:
    """The held-out perplexity of ``model`` on the sentences its training held out."""
    from course.lm import split_heldout
    from course.transformer.data import SentenceIds
    from course.transformer.perplexity import evaluate_perplexity

    held = SentenceIds.from_corpus(corpus, split_heldout(corpus, model.config)[1], model.words, model.config.max_words)
    return evaluate_perplexity(model.network, held, model.config)["perplexity"]


def test_the_best_heldout_weights_are_kept_and_patience_stops_training(tmp_path):
    corpus = noise_corpus()
    model = train_transformer(corpus, OVERFITS, progress=False)
    state = model.state
    perplexities = [entry["perplexity"] for entry in state.heldout]
    best = int(np.argmin(perplexities))
    assert 0 < best and perplexities[-1] > perplexities[best]  # it learned, then overfit
    assert state.stopped_early and state.finished and state.epoch < OVERFITS.epochs
    assert len(perplexities) == best + 1 + OVERFITS.patience and state.since_best == OVERFITS.patience
    assert state.best == state.heldout[best] and state.last == state.heldout[-1]
    assert heldout_perplexity(model, corpus) == pytest.approx(state.best["perplexity"], rel=1e-6)
    loaded = Transformer.load(model.save(tmp_path / "model.pt"), device="cpu")
    assert loaded.state == state and heldout_perplexity(loaded, corpus) == pytest.approx(perplexities[best], rel=1e-6)

    path = tmp_path / "run.ckpt"  # stopped mid-way after the best epoch, then resumed: the same run
    first = train_transformer(corpus, OVERFITS, progress=False, checkpoint=path, max_steps=state.step - 3)
    assert not first.state.finished and first.state.best["epoch"] == state.best["epoch"]
    resumed = train_transformer(corpus, OVERFITS, progress=False, checkpoint=path, resume=True)
    assert resumed.state.heldout == state.heldout and resumed.state.best == state.best
    for a, b in zip(model.network.state_dict().values(), resumed.network.state_dict().values(), strict=True):
        assert torch.equal(a, b)

    patient = train_transformer(corpus, replace(OVERFITS, epochs=best + 2 + OVERFITS.patience, patience=0),
                                progress=False)
    assert not patient.state.stopped_early and patient.state.epoch == best + 2 + OVERFITS.patience


def steps_per_epoch(corpus, config) -> int:
    from course.lm import split_heldout
    from course.transformer.data import SentenceIds
    from course.transformer.training import vocabulary

    train_sentences = split_heldout(corpus, config)[0]
    words = vocabulary(corpus, train_sentences, config)
    return len(SentenceIds.from_corpus(corpus, train_sentences, words, config.max_words).batches(config.batch_tokens))


def copy_checkpoint_at(monkeypatch, step: int, copy: Path) -> None:
    """Copy the checkpoint ``train_transformer`` saves after step ``step`` to ``copy``: what a run
    that crashed right after that save would leave behind."""
    from course.transformer import training

    save = training._Run.save_checkpoint

    def save_and_copy(run):
        save(run)
        if run.state.step == step and run.checkpoint is not None:
            shutil.copy(run.checkpoint, copy)

    monkeypatch.setattr(training._Run, "save_checkpoint", save_and_copy)


def test_eval_every_an_epoch_of_steps_is_the_run_measured_per_epoch():
    corpus = noise_corpus()
    per_epoch = train_transformer(corpus, OVERFITS, progress=False)
    every = train_transformer(corpus, replace(OVERFITS, eval_every=steps_per_epoch(corpus, OVERFITS)), progress=False)
    assert every.state.heldout == per_epoch.state.heldout and every.state.best == per_epoch.state.best
    for a, b in zip(every.network.state_dict().values(), per_epoch.network.state_dict().values(), strict=True):
        assert torch.equal(a, b)


def test_patience_counts_measurements_within_epochs_and_a_crash_after_one_resumes_bit_for_bit(tmp_path, monkeypatch):
    corpus, config = noise_corpus(), replace(OVERFITS, eval_every=2)
    per_epoch = steps_per_epoch(corpus, config)
    copy = tmp_path / "at-step-8.ckpt"
    copy_checkpoint_at(monkeypatch, 8, copy)
    model = train_transformer(corpus, config, progress=False, checkpoint=tmp_path / "model.ckpt")
    state = model.state
    assert 8 % per_epoch and copy.is_file()  # the copy was saved within an epoch
    assert [entry["step"] for entry in state.heldout] == list(range(2, state.step + 1, 2))
    steps = range(2, state.step + 1, 2)
    assert [entry["epoch"] for entry in state.heldout] == [step // per_epoch if step % per_epoch == 0 else
                                                           round(step / per_epoch, 3) for step in steps]
    perplexities = [entry["perplexity"] for entry in state.heldout]
    best = int(np.argmin(perplexities))
    assert state.stopped_early and state.finished and state.epoch < config.epochs
    assert len(perplexities) == best + 1 + config.patience and state.since_best == config.patience
    assert state.best == state.heldout[best]
    assert heldout_perplexity(model, corpus) == pytest.approx(state.best["perplexity"], rel=1e-6)

    tampered = shutil.copy(copy, tmp_path / "tampered.ckpt")
    resumed = train_transformer(corpus, config, progress=False, checkpoint=copy, resume=True)
    assert resumed.state.step == state.step and resumed.state.stopped_early
    without_time = lambda history: [{k: v for k, v in e.items() if k != "seconds"} for e in history]  # noqa: E731
    assert without_time(resumed.state.history) == without_time(state.history)
    assert resumed.state.heldout == state.heldout and resumed.state.best == state.best
    for a, b in zip(model.network.state_dict().values(), resumed.network.state_dict().values(), strict=True):
        assert torch.equal(a, b)

    payload = torch.load(tampered, weights_only=True)  # an epoch whose order, drawn again, is another: refused
    assert payload["state"]["batch_in_epoch"] > 0 and len(payload["batch_order"]) == 64
    payload["batch_order"] = "0" * 64
    torch.save(payload, tampered)
    with pytest.raises(SettingError, match="tampered.ckpt: the epoch's batch order drawn again") as excinfo:
        train_transformer(corpus, config, progress=False, checkpoint=tampered, resume=True)
    one_line(excinfo)


def test_eval_every_on_the_command_line(tmp_path, capsys, private_cache):
    from course.cli import main

    text = tmp_path / "toy.txt"
    text.write_text("\n".join(" ".join(s) for s in toy_corpus(80)) + "\n", encoding="utf-8")
    out = tmp_path / "model.pt"
    common = ["train", "transformer", "--corpus", str(text), "--min-count", "1", "--batch-tokens", "120",
              "--device", "cpu", "--quiet"]
    assert main([*common, "--epochs", "2", "--eval-every", "3", "--out", str(out)]) == 0
    model = Transformer.load(out, device="cpu")
    assert model.config.eval_every == 3 and [entry["step"] for entry in model.state.heldout][:2] == [3, 6]
    capsys.readouterr()
    with pytest.raises(SystemExit) as stop:  # out of its range: the parser refuses it
        main([*common, "--eval-every", "0", "--out", str(tmp_path / "other.pt")])
    assert stop.value.code == 2
    error = capsys.readouterr().err.strip().splitlines()
    assert len(error) == 1 and error[0].startswith("error: argument --eval-every: must be from 1")
    assert not (tmp_path / "other.pt").exists()


def test_resuming_on_another_corpus_or_an_unrecorded_checkpoint_is_refused(tmp_path):
    path = tmp_path / "model.ckpt"
    config = tiny(epochs=2)
    train_transformer(toy_corpus(40), config, progress=False, checkpoint=path, max_steps=3)
    with pytest.raises(SettingError, match=r"model.ckpt: was trained on another corpus \('toy', 40 sentences, "
                                           r"200 tokens; now 'noise', 60 sentences, 360 tokens\) and with another "
                                           r"vocabulary \(17 words, other ones\)") as excinfo:
        train_transformer(noise_corpus(), config, progress=False, checkpoint=path, resume=True)
    one_line(excinfo)
    payload = torch.load(path, weights_only=True)
    del payload["identity"]
    torch.save(payload, path)
    with pytest.raises(SettingError, match="model.ckpt: an older checkpoint that does not record the corpus"):
        train_transformer(toy_corpus(40), config, progress=False, checkpoint=path, resume=True)


# ------------------------------------------------------------------------------------ using it


@pytest.mark.parametrize("objective", ["causal", "masked"])
def test_embed_gives_every_layer_and_the_same_vectors_in_any_batch(trained, objective):
    model = trained[objective]
    sentences = [["the", "cat", "sees", "a", "dog"], ["a", "fish"], ["the", "cow", "eats", "a", "zebra", "today"]]
    vectors = model.embed(sentences)
    assert [v.shape for v in vectors] == [(3, 5, 16), (3, 2, 16), (3, 6, 16)]
    for sentence, batched in zip(sentences, vectors, strict=True):
        np.testing.assert_allclose(model.embed([sentence])[0], batched, rtol=1e-5, atol=1e-5)
    static = model.token_vectors(["cat", "zebra", "<unk>"])
    assert static.shape == (3, 16)
    np.testing.assert_array_equal(vectors[0][0, 1], static[0])  # layer 0 is the static vector
    np.testing.assert_array_equal(static[1], static[2])  # an unknown word is <unk>
    other = model.embed([["a", "cat", "likes", "the", "fish"]])[0]
    np.testing.assert_array_equal(other[0, 1], vectors[0][0, 1])
    assert not np.allclose(other[2, 1], vectors[0][2, 1])  # the upper layers depend on the context


def test_untrained_is_the_starting_point_and_probes_run_unchanged(trained):
    model = trained["causal"]
    fresh, again = model.untrained(), Transformer(model.config, model.words)
    for a, b in zip(fresh.network.parameters(), again.network.parameters(), strict=True):
        assert torch.equal(a, b)
    assert not torch.equal(fresh.network.token_embedding.weight, model.network.token_embedding.weight)
    assert not torch.equal(model.untrained(seed=5).network.token_embedding.weight,
                           fresh.network.token_embedding.weight)
    lines = [("subject", "the cat sees a dog"), ("subject", "a cat eats"), ("object", "the dog finds a cat"),
             ("object", "a cow likes the cat")]
    probes = [ProbeSentence("cat", sense, tuple(text.split()), text.split().index("cat"), line)
              for line, (sense, text) in enumerate(lines)]
    vectors = target_vectors(model, probes)
    assert vectors.shape == (3, 4, 16)
    results = probe_model(model, probes)
    assert [entry["layer"] for entry in results[0]["layers"]] == [0, 1, 2]
    assert results[0]["static"]["separation"] == pytest.approx(0, abs=1e-6)


def test_attention_of_one_sentence(trained):
    weights = trained["causal"].attention(["the", "cat", "sees"])
    assert weights.shape == (2, 2, 5, 5)
    np.testing.assert_allclose(weights.sum(-1), 1, rtol=1e-5)
    assert np.all(np.triu(weights, 1) == 0)


def test_long_sentences_are_split_and_said_so(trained):
    model = trained["causal"]  # 16 positions: 14 words
    long = (["the", "cat", "sees", "a", "dog"] * 6)[:30]
    with pytest.warns(UserWarning, match=r"1 of 2 sentences are longer than 14 words"):
        vectors = model.embed([long, ["a", "fish"]])
    assert vectors[0].shape == (3, 30, 16)
    np.testing.assert_allclose(vectors[0][:, 14:28], model.embed([long[14:28]])[0], rtol=1e-5, atol=1e-5)
    with pytest.warns(UserWarning, match=r"1 of 1 sentences"):
        assert model.perplexity([long])["predictions"] == 30 + 3  # three pieces, each with its <eos>
    corpus = from_sentences([*toy_corpus(20), long], name="toy")
    with pytest.warns(UserWarning, match=r"1 of 17 training sentences of 'toy' are longer than 14 words"):
        train_transformer(corpus, tiny(epochs=1), progress=False)


# ------------------------------------------------------------------------------------ files and settings


def test_model_file_round_trip_and_bad_files(trained, tmp_path):
    from course.elmo import CharacterVocabulary, Elmo, ElmoConfig

    model = trained["masked"]
    path = model.save(tmp_path / "bert.pt")
    loaded = Transformer.load(path, device="cpu")
    sentence = [["the", "dog", "likes", "a", "bird"]]
    np.testing.assert_array_equal(loaded.embed(sentence)[0], model.embed(sentence)[0])
    assert loaded.state.heldout == model.state.heldout and loaded.config == model.config
    assert not loaded.network.training and not model.network.training  # loaded ready to use, as trained
    truncated = tmp_path / "truncated.pt"
    truncated.write_bytes(path.read_bytes()[:2000])
    with pytest.raises(ModelFileError, match="truncated") as excinfo:
        Transformer.load(truncated)
    one_line(excinfo)
    elmo_config = ElmoConfig(min_count=1, char_dim=4, filters=((1, 4),), projection_dim=8, lstm_dim=16, device="cpu")
    elmo = Elmo(elmo_config, model.words, CharacterVocabulary.from_words(["cat"], max_characters=20))
    elmo_file = elmo.save(tmp_path / "elmo.pt")
    with pytest.raises(ModelFileError, match=r"is an ELMo model file .*not a Transformer model file") as excinfo:
        Transformer.load(elmo_file)
    one_line(excinfo)
    with pytest.raises(ModelFileError, match="no such model file") as excinfo:
        Transformer.load(tmp_path / "missing.pt")
    one_line(excinfo)


def test_a_file_saved_before_the_softmax_setting_loads_as_the_full_softmax_it_had(trained, tmp_path):
    model = trained["causal"]
    assert model.config.softmax == "full"
    payload = torch.load(model.save(tmp_path / "gpt.pt"), weights_only=True)
    for key in ("softmax", "adaptive_cutoffs"):  # what files written before the adaptive softmax lack
        del payload["config"][key]
    old = tmp_path / "old.pt"
    torch.save(payload, old)
    loaded = Transformer.load(old, device="cpu")
    assert loaded.config.softmax == "full" and loaded.network.clusters is None
    sentence = [["the", "dog", "likes", "a", "bird"]]
    np.testing.assert_array_equal(loaded.embed(sentence)[-1], model.embed(sentence)[-1])


def test_presets_and_nonsense_settings():
    assert preset("cpu").preset == "cpu" and preset("gpu").dim > preset("cpu").dim
    assert preset("cpu", objective="masked").objective == "masked"
    cases = [(lambda: preset("tpu"), "unknown Transformer preset 'tpu': use one of cpu, gpu"),
             (lambda: preset("cpu", width=3), "unknown Transformer setting"),
             (lambda: tiny(dim=30, heads=4), "dim (30) must be divisible by heads (4)"),
             (lambda: tiny(objective="prefix"), "objective must be one of causal, masked"),
             (lambda: tiny(max_positions=2), "max_positions must be at least 3"),
             (lambda: tiny(mask_share=0), "mask_share must be above 0 and below 1"),
             (lambda: tiny(softmax="sampled"), "softmax must be one of full, adaptive"),
             (lambda: tiny(adaptive_cutoffs=(3_000, 2_000)), "adaptive_cutoffs must be one or more increasing"),
             (lambda: tiny(adaptive_cutoffs=()), "adaptive_cutoffs must be one or more increasing")]
    for make, message in cases:
        with pytest.raises(SettingError) as excinfo:
            make()
        assert message in one_line(excinfo)
    if not torch.cuda.is_available():
        with pytest.raises(SettingError, match="no CUDA GPU") as excinfo:
            train_transformer(toy_corpus(20), tiny(device="cuda"), progress=False)
        one_line(excinfo)


def test_course_transformer_trains_once_and_then_loads(tmp_path, monkeypatch, capsys):
    from course.shared.transformers import course_config, course_transformer, model_path

    monkeypatch.setenv("COURSE_BUILD", str(tmp_path))
    path = model_path("wiki-en", "masked", "smoke")
    assert path == tmp_path / "models" / "smoke" / "bert-wiki-en.pt"
    path.parent.mkdir(parents=True)
    path.write_bytes(b"")  # an empty file (a write cut short) is trained again, with a note
    trained = course_transformer("wiki-en", "masked", "smoke", progress=False, device="cpu")
    note = capsys.readouterr().err
    assert f"note: the saved Transformer {path} is damaged" in note and "training it again" in note
    assert path.is_file() and not path.with_suffix(".checkpoint.pt").exists()
    assert trained.state.finished and trained.config == replace(course_config("wiki-en", "masked", "smoke"),
                                                                device="cpu")
    loaded = course_transformer("wiki-en", "masked", "smoke", progress=False, device="cpu")
    assert loaded.state.step == trained.state.step
    sentence = [["the", "city", "of", "london"]]
    np.testing.assert_array_equal(loaded.embed(sentence)[0], trained.embed(sentence)[0])
    assert course_config("wiki-en", "causal", "full").preset == "cpu"

    payload = torch.load(path, weights_only=True)  # a model the course's settings of an older version made
    payload["config"]["epochs"] += 1
    payload["config"]["threads"] = 2  # where and how fast it ran do not count
    torch.save(payload, path)
    again = course_transformer("wiki-en", "masked", "smoke", progress=False, device="cpu")
    note = capsys.readouterr().err
    assert f"note: the saved Transformer {path} was trained with other settings (epochs=3 (now 2)); training it " \
           "again" in note and "threads" not in note
    assert again.config.epochs == 2 and Transformer.load(path).config.epochs == 2
    np.testing.assert_array_equal(again.embed(sentence)[0], trained.embed(sentence)[0])

    checkpoint = path.with_suffix(".checkpoint.pt")  # one an older run with other settings left behind
    train_transformer(course_corpus("wiki-en", "smoke"), replace(again.config, lr=1e-3, checkpoint_every=1),
                      progress=False, checkpoint=checkpoint, max_steps=2)
    path.unlink()
    afresh = course_transformer("wiki-en", "masked", "smoke", progress=False, device="cpu")
    note = capsys.readouterr().err
    assert f"note: the Transformer's checkpoint {checkpoint} cannot be resumed (was trained with other settings " \
           "(lr=0.001 (now 0.003)))" in note and "training afresh" in note
    assert not checkpoint.exists()
    np.testing.assert_array_equal(afresh.embed(sentence)[0], trained.embed(sentence)[0])


def test_course_transformers_train_side_by_side_with_the_weights_of_one_alone(tmp_path, monkeypatch):
    from course.shared.transformers import course_transformer, course_transformers, model_path

    pairs = [("wiki-en", "causal"), ("peoples-daily-zh", "masked"), ("wiki-en", "masked")]
    monkeypatch.setenv("COURSE_BUILD", str(tmp_path / "alone"))
    alone = [course_transformer(corpus, objective, "smoke", progress=False, device="cpu")
             for corpus, objective in pairs]
    monkeypatch.setenv("COURSE_BUILD", str(tmp_path / "together"))
    course_transformer("wiki-en", "masked", "smoke", progress=False, device="cpu")  # saved first: loaded, not trained
    saved = model_path("wiki-en", "masked", "smoke").stat().st_mtime_ns
    together = course_transformers(pairs, "smoke", progress=False, device="cpu", workers=2)
    for (corpus, objective), one, other in zip(pairs, alone, together, strict=True):
        assert model_path(corpus, objective, "smoke").is_file()
        assert other.state.finished and other.config == one.config and other.words.words == one.words.words
        for (name, a), b in zip(one.network.state_dict().items(), other.network.state_dict().values(), strict=True):
            assert torch.equal(a, b), f"{corpus} {objective}: {name} differs from the model trained alone"
    assert model_path("wiki-en", "masked", "smoke").stat().st_mtime_ns == saved
    with pytest.raises(SettingError, match="each .corpus, objective. pair once"):
        course_transformers([("wiki-en", "causal")] * 2, "smoke", progress=False)
    with pytest.raises(SettingError, match="objective must be one of"):
        course_transformers([("wiki-en", "causal"), ("wiki-en", "next")], "smoke", progress=False)


# ------------------------------------------------------------------ fill in the blank (notebook 11)


@pytest.fixture(scope="module")
def cbow():
    from course.word2vec import Word2VecConfig, train_word2vec

    config = Word2VecConfig(arch="cbow", loss="neg", dim=12, window=2, min_count=1, epochs=20, sample=0, threads=1,
                            device="cpu", seed=1)
    return train_word2vec(toy_corpus(), config, progress=False)


def test_fill_in_predictions_see_the_sides_each_model_is_meant_to_see(trained, cbow):
    from course.transformer.fill_in import cbow_predictions, transformer_predictions

    sentences = [["the", "cat", "sees", "a", "dog"], ["the", "cat", "sees", "the", "horse"]]
    for objective in ("causal", "masked"):
        top = transformer_predictions(trained[objective], sentences, [2, 2], k=4)
        assert [len(words) for words in top] == [4, 4]
        specials = set(trained[objective].words.specials)
        assert not specials & {word for words in top for word in words}
        if objective == "causal":  # the right side is never read
            assert top[0] == top[1]
    masked = transformer_predictions(trained["masked"], sentences[:1], [2], k=4)[0]
    assert set(masked) <= set(VERBS) | {"cat", "dog"} or masked[0] in VERBS  # a verb between the nouns
    window = cbow_predictions(cbow, [["the", "cat", "sees", "a", "dog"], ["the", "cat", "sees", "a", "fish"]],
                              [2, 2], k=3, window=1)
    assert window[0] == window[1]  # "a dog" and "a fish" lie outside a window of 1: the same bag
    assert window[0][0] in VERBS
    with pytest.raises(ValueError, match="no position 7"):
        cbow_predictions(cbow, [["the", "cat"]], [7])


def test_fill_in_blanks_gives_plain_rows_and_a_bootstrap_spread(trained, cbow):
    from course.transformer.fill_in import accuracy_table, choose_blanks, fill_in_blanks

    sentences = [list(s) for s in (toy_corpus(40, seed=3)[i] for i in range(40))]
    blanks = choose_blanks(sentences, [trained["masked"].words, cbow.vocab], 12, seed=2)
    assert len(blanks) == 12 and len({number for number, _ in blanks}) == 12
    assert all(1 <= position < len(sentences[number]) - 1 for number, position in blanks)
    chosen = [sentences[number] for number, _ in blanks]
    positions = [position for _, position in blanks]
    models = {"BERT": trained["masked"], "GPT": trained["causal"], "CBOW": cbow}
    rows = fill_in_blanks(models, chosen, positions, k=5)
    assert [row["model"] for row in rows] == ["BERT"] * 12 + ["GPT"] * 12 + ["CBOW"] * 12
    for row in rows:
        assert set(row) == {"model", "blank", "word", "known", "top", "correct_at_1", "correct_at_5"}
        assert row["known"] and len(row["top"]) == 5
        assert row["correct_at_1"] == (row["top"][0] == row["word"])
        assert row["correct_at_5"] == (row["word"] in row["top"]) >= row["correct_at_1"]
    table = accuracy_table(rows, resamples=200)
    assert [entry["model"] for entry in table] == ["BERT", "GPT", "CBOW"]
    for entry in table:
        assert entry["blanks"] == 12
        assert 0 <= entry["at_1_low"] <= entry["at_1"] <= entry["at_1_high"] <= 1
        assert entry["at_1"] <= entry["at_5"]
    assert min(entry["at_5"] for entry in table[:2]) > 0.5  # the toy pattern is learnt from either side


# ---------------------------------------------------------------------- serial against parallel


def test_training_throughput_gives_sane_rows_for_tiny_models():
    from course.transformer.throughput import median_table, parameter_count, training_throughput

    rows = []
    for kind in ("lstm", "transformer"):
        rows += training_throughput(kind, [4, 12], batch_tokens=48, repeats=2, size="tiny", vocab_size=40)
    assert len(rows) == 8
    for row in rows:
        assert row["sentences"] == 48 // row["length"] and row["tokens"] == row["sentences"] * row["length"]
        assert row["seconds"] > 0 and row["tokens_per_second"] == pytest.approx(row["tokens"] / row["seconds"])
        assert row["device"] == "cpu" and row["threads"] == 1 and row["repeat"] in (0, 1)
    table = median_table(rows)
    assert [(entry["length"], entry["threads"], entry["softmax"]) for entry in table] == [(4, 1, True), (12, 1, True)]
    assert all(entry["ratio"] == pytest.approx(entry["transformer"] / entry["lstm"]) for entry in table)
    assert 3e6 < parameter_count("lstm") < 4e6 and 3e6 < parameter_count("transformer") < 4e6  # about equal
    with pytest.raises(SettingError, match="model_kind"):
        training_throughput("gru", [4], size="tiny")
    with pytest.raises(SettingError, match="lengths"):
        training_throughput("lstm", [], size="tiny")
    body = training_throughput("transformer", [4], batch_tokens=16, repeats=1, size="tiny", vocab_size=40,
                               softmax=False)
    assert body[0]["softmax"] is False and median_table(body)[0]["softmax"] is False


def test_paired_timing_keeps_the_ratio_when_the_machine_slows_down_halfway(monkeypatch):
    """A machine three times slower from halfway on: timed one kind after the other, the Transformer is
    timed on the slow machine and looks slower than the LSTM; timed in pairs, every repeat gives the
    true ratio, and the speed claim holds with no spread."""
    from types import SimpleNamespace

    from course.claims.experiments import speed_claim
    from course.transformer import throughput

    cost = {"lstm": 2.0, "transformer": 1.0}  # seconds of a step on the fast machine: the Transformer twice as fast
    clock = {"now": 0.0, "steps": 0, "slow_after": 0}

    def step(kind, *args):
        clock["steps"] += 1
        clock["now"] += cost[kind] * (3.0 if clock["steps"] > clock["slow_after"] else 1.0)

    monkeypatch.setattr(throughput, "_step", step)
    monkeypatch.setattr(throughput, "time", SimpleNamespace(perf_counter=lambda: clock["now"]))

    def timed(kinds_in_turn):
        clock.update(now=0.0, steps=0, slow_after=20)  # 2 lengths x (1 + 4) steps x 2 kinds = 40 steps
        rows = []
        for kinds in kinds_in_turn:
            for softmax in (True, False):
                rows += [dict(row) for row in throughput.training_throughput(
                    kinds, [4, 8], batch_tokens=16, repeats=4, size="tiny", vocab_size=40, softmax=softmax)]
        return rows

    paired = timed([("lstm", "transformer")])
    assert [r["model"] for r in paired[:4]] == ["lstm", "transformer", "transformer", "lstm"]  # the first alternates
    ratios = [t["tokens_per_second"] / s["tokens_per_second"] for t in paired if t["model"] == "transformer"
              for s in paired if s["model"] == "lstm" and (s["length"], s["repeat"], s["softmax"])
              == (t["length"], t["repeat"], t["softmax"])]
    assert len(ratios) == 16 and ratios == pytest.approx([2.0] * 16)
    claim = speed_claim(paired)
    assert claim.margin == pytest.approx(1.0) and claim.spread == pytest.approx(0.0) and claim.verdict == "holds"
    one_after_the_other = timed(["lstm", "transformer"])
    assert speed_claim(one_after_the_other).verdict != "holds"
    with pytest.raises(SettingError, match="each kind once"):
        throughput.training_throughput(("lstm", "lstm"), [4], size="tiny")
