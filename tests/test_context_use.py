"""How far back a language model looks: the far-context perturbation measure of course.analysis.context_use."""

from __future__ import annotations

import math

import numpy as np
import pytest
from conftest import toy_corpus

from course.analysis.context_use import context_loss_increase, loss_by_position, next_word_nll
from course.elmo import ElmoConfig, train_elmo
from course.text.corpus import from_sentences
from course.transformer import TransformerConfig, train_transformer

pytestmark = pytest.mark.filterwarnings("ignore:LSTM with projections is not supported:UserWarning")

KEYS = [f"k{i}" for i in range(4)]
VALUES = [f"v{i}" for i in range(4)]
FILLERS = [f"f{i}" for i in range(8)]
TINY_GPT = TransformerConfig(min_count=1, dim=16, heads=2, layers=2, ff_dim=32, max_positions=16, dropout=0.0,
                             epochs=30, batch_tokens=200, lr=1e-2, warmup_share=0.1, heldout_every=5, patience=100,
                             device="cpu", threads=1)
TINY_ELMO = ElmoConfig(min_count=1, max_characters=12, char_dim=4, filters=((1, 4), (2, 4)), projection_dim=8,
                       lstm_dim=16, dropout=0.0, epochs=1, batch_tokens=120, heldout_every=5, device="cpu", threads=1)


pytestmark = pytest.mark.usefixtures("one_torch_thread")


def key_value_sentences(dependent: bool, num_sentences: int, seed: int) -> list[list[str]]:
    """``key f f f f value``: the value is the key's partner (``dependent``) or drawn on its own."""
    rng = np.random.default_rng(seed)
    sentences = []
    for _ in range(num_sentences):
        key = int(rng.integers(len(KEYS)))
        value = key if dependent else int(rng.integers(len(VALUES)))
        sentences.append([KEYS[key], *(FILLERS[i] for i in rng.integers(0, len(FILLERS), 4)), VALUES[value]])
    return sentences


@pytest.fixture(scope="module")
def key_value_models():
    return {dependent: train_transformer(from_sentences(key_value_sentences(dependent, 400, seed=0)), TINY_GPT,
                                         progress=False) for dependent in (True, False)}


@pytest.fixture(scope="module")
def tiny_elmo():
    return train_elmo(toy_corpus(40), TINY_ELMO, progress=False)


class LooksBack:
    """A stub LM: p(target | context) is high when the word ``distance`` back is the target, else low;
    ``distance=None`` ignores the context (a unigram)."""

    def __init__(self, distance: int | None):
        self.distance = distance

    def next_word_nll(self, contexts, targets):
        j = self.distance
        return np.asarray([0.1 if j is not None and len(c) >= j and c[-j] == t else 3.0
                           for c, t in zip(contexts, targets, strict=True)])


def periodic_sentences(period: int, num_sentences: int = 30, length: int = 14, seed: int = 0):
    """Each sentence repeats ``period`` distinct random words: w_k = w_{k - period}."""
    rng = np.random.default_rng(seed)
    words = [f"w{i}" for i in range(40)]
    sentences = []
    for _ in range(num_sentences):
        cycle = [words[i] for i in rng.choice(len(words), period, replace=False)]
        sentences.append([cycle[k % period] for k in range(length)])
    return sentences


# ------------------------------------------------------------------------------ the scores themselves


def test_scores_give_each_models_own_perplexity(key_value_models, tiny_elmo):
    """exp(mean -log p) over every word and <eos> equals the perplexity the models report."""
    sentences = [["the", "cat", "sees", "a", "dog"], ["a", "fish"], ["the", "cow", "eats", "a", "zebra", "sees"]]
    for model, key in ((tiny_elmo, "forward"), (key_value_models[True], "perplexity")):
        contexts = [s[:k] for s in sentences for k in range(len(s) + 1)]
        targets = [(s + ["<eos>"])[k] for s in sentences for k in range(len(s) + 1)]
        nll = next_word_nll(model, contexts, targets)
        assert math.exp(nll.mean()) == pytest.approx(model.perplexity(sentences)[key], rel=1e-4)
        alone = np.array([next_word_nll(model, [c], [t])[0] for c, t in zip(contexts, targets, strict=True)])
        np.testing.assert_allclose(alone, nll, rtol=1e-5, atol=1e-6)  # the same in any batch


def test_a_masked_model_is_refused():
    masked = train_transformer(from_sentences(key_value_sentences(True, 20, seed=0)),
                               TransformerConfig(**{**TINY_GPT.to_dict(), "objective": "masked", "epochs": 1}),
                               progress=False)
    with pytest.raises(ValueError, match="not a left-to-right language model"):
        context_loss_increase(masked, [["k0", "f1", "v0"]])
    with pytest.raises(ValueError, match="unknown perturbation 'drop'"):
        context_loss_increase(LooksBack(1), [["a", "b"]], perturb="drop")
    with pytest.raises(TypeError, match="not a language model this module reads"):
        loss_by_position(object(), [["a"]])


# ------------------------------------------------------------------------------ a dependence we built


@pytest.mark.parametrize("perturb", ["shuffle", "replace"])
def test_the_measure_finds_a_stub_dependence_where_it_is_and_nowhere_else(perturb):
    period = 3
    sentences = periodic_sentences(period)
    vocabulary = [f"w{i}" for i in range(40)]
    distances = [0, 1, 2, 3, 4, 8]
    looks = context_loss_increase(LooksBack(period), sentences, distances, perturb, vocabulary=vocabulary)
    unigram = context_loss_increase(LooksBack(None), sentences, distances, perturb, vocabulary=vocabulary)
    for d, increase, targets in zip(distances, looks["increase"], looks["targets"], strict=True):
        assert targets > 0
        if d < period:  # the word 3 back is among the perturbed ones
            assert increase > 0.5 and looks["low"][distances.index(d)] > 0
        else:  # it is kept: nothing the stub reads has changed
            assert increase == 0.0
    assert unigram["increase"] == [0.0] * len(distances)
    assert looks["targets"] == unigram["targets"]
    assert looks["intact"][distances.index(4)] == pytest.approx(0.1)  # every target after the first cycle


def test_perturbing_nothing_gives_exactly_zero(key_value_models):
    """A shuffle of one repeated word, or a replacement by that word, leaves every context as it was."""
    sentences = [["f1"] * 9, ["f1"] * 5]
    for perturb in ("shuffle", "replace"):
        result = context_loss_increase(key_value_models[True], sentences, [1, 2, 4], perturb, vocabulary=["f1"])
        assert result["increase"] == [0.0, 0.0, 0.0] and min(result["targets"]) > 0
    beyond = context_loss_increase(key_value_models[True], sentences, [20], "replace")
    assert beyond["targets"] == [0] and math.isnan(beyond["increase"][0])


def test_the_seed_repeats_the_result():
    sentences = periodic_sentences(3, seed=1)
    first = context_loss_increase(LooksBack(3), sentences, [0, 1, 2], "shuffle", seed=7)
    assert context_loss_increase(LooksBack(3), sentences, [0, 1, 2], "shuffle", seed=7) == first
    assert context_loss_increase(LooksBack(3), sentences, [0, 1, 2], "shuffle", seed=8)["increase"] != first["increase"]
    alone = context_loss_increase(LooksBack(3), sentences, [1], "shuffle", seed=7)  # d's draws are its own
    assert alone["increase"][0] == pytest.approx(first["increase"][1], rel=1e-12)


# ------------------------------------------------------------------------------ trained models


def test_a_trained_model_that_needs_the_far_key_loses_when_it_is_replaced(key_value_models):
    """``key f f f f value``: with d = 4 only the key is far from the value (and only for the value).
    Replaced by a random key, the model that learnt the pairing loses; the one trained on independent
    values does not."""
    test = {dependent: key_value_sentences(dependent, 60, seed=1) for dependent in (True, False)}
    found = {dependent: context_loss_increase(model, test[dependent], [4, 5], "replace", vocabulary=KEYS)
             for dependent, model in key_value_models.items()}
    assert found[True]["targets"] == [60, 0] and math.isnan(found[True]["increase"][1])
    assert found[True]["intact"][0] < 0.3  # it has learnt the pairing
    assert found[True]["increase"][0] > 1.0 and found[True]["low"][0] > 0.5
    assert abs(found[False]["increase"][0]) < 0.1


def test_loss_by_position_falls_where_the_context_tells_the_word(key_value_models):
    sentences = key_value_sentences(True, 60, seed=1)
    curve = loss_by_position(key_value_models[True], sentences)
    assert curve["position"] == [1, 2, 3, 4, 5, 6] and curve["targets"] == [60] * 6
    loss = curve["loss"]
    assert loss[5] < 0.3 < math.log(len(FILLERS)) - 0.3 < min(loss[1:5])  # the value is certain, fillers are not
    assert all(lo <= x <= hi for lo, x, hi in zip(curve["low"], loss, curve["high"], strict=True))
    nll = next_word_nll(key_value_models[True], [s[:5] for s in sentences], [s[5] for s in sentences])
    assert loss[5] == pytest.approx(nll.mean())
