import math

import numpy as np
import pytest

from course.core.errors import SettingError
from course.counts.ngram import KneserNeyLM

TOY = [["a", "b"], ["a", "c"], ["b", "a"]]


def test_bigram_matches_a_hand_computed_example():
    model = KneserNeyLM(TOY, order=2, discount=0.75)
    assert model.vocabulary == ["a", "b", "c", "<unk>", "<eos>"]  # V = 5
    # Padded: <bos> a b <eos> | <bos> a c <eos> | <bos> b a <eos>.
    # Continuation counts (distinct left neighbours): a {<bos>, b} = 2, b {a, <bos>} = 2, c {a} = 1,
    # <eos> {b, c, a} = 3, <unk> 0; 8 in all over 4 words.
    p1 = {"a": (2 - 0.75) / 8 + 0.75 * 4 / 8 / 5, "b": (2 - 0.75) / 8 + 0.75 * 4 / 8 / 5,
          "c": (1 - 0.75) / 8 + 0.75 * 4 / 8 / 5, "<unk>": 0.75 * 4 / 8 / 5, "<eos>": (3 - 0.75) / 8 + 0.75 * 4 / 8 / 5}
    assert sum(p1.values()) == pytest.approx(1)
    # After "a": b once, c once, <eos> once: c(a) = 3, T(a) = 3.
    expected = {w: max((w in ("b", "c", "<eos>")) - 0.75, 0) / 3 + 0.75 * 3 / 3 * p1[w] for w in p1}
    got = dict(zip(model.vocabulary, model.probabilities(["a"]), strict=True))
    assert got == pytest.approx(expected)
    # A context never seen backs off to the continuation unigram.
    assert model.probabilities(["<unk>"]) == pytest.approx([p1[w] for w in model.vocabulary])


@pytest.mark.parametrize("order", [1, 2, 3, 4])
@pytest.mark.parametrize("direction", ["forward", "backward"])
def test_every_context_gives_a_distribution(wiki, order, direction):
    sentences = [wiki[i] for i in range(2_000)]
    model = KneserNeyLM(sentences, order=order, direction=direction)
    rng = np.random.default_rng(order)
    contexts = [[], ["<bos>"], ["the"], ["of", "the"], ["zzz-never-seen", "the"], ["<unk>", "<unk>", "<unk>"],
                [sentences[5][0], sentences[5][1]], list(rng.choice(model.vocabulary[:-2], size=3))]
    for context in contexts:
        p = model.probabilities(context)
        assert p.shape == (len(model.vocabulary),)
        assert (p > 0).all()
        assert p.sum() == pytest.approx(1, abs=1e-9)


def test_unseen_words_are_unk_and_vocabulary_words_never_seen_get_a_probability():
    model = KneserNeyLM(TOY, order=2, vocabulary=["a", "b", "c", "d"])
    assert "d" in model.vocabulary
    p = dict(zip(model.vocabulary, model.probabilities(["a"]), strict=True))
    assert 0 < p["d"] < p["c"]
    # A word outside the vocabulary is scored as <unk>: the same log-likelihood.
    assert model.log_likelihood([["a", "zebra"]]) == pytest.approx(model.log_likelihood([["a", "<unk>"]]))


def test_perplexity_is_the_product_of_the_per_word_probabilities():
    model = KneserNeyLM(TOY, order=3)
    sentence = ["b", "a", "c"]
    log_p = 0.0
    context = ["<bos>", "<bos>"]
    for word in [*sentence, "<eos>"]:
        log_p += math.log(model.probabilities(context)[model.vocabulary.index(word)])
        context = context[1:] + [word]
    assert model.log_likelihood([sentence]) == pytest.approx((log_p, 4))
    assert model.perplexity([sentence]) == pytest.approx(math.exp(-log_p / 4))


def test_backward_model_is_the_forward_model_of_reversed_sentences():
    backward = KneserNeyLM(TOY, order=2, direction="backward")
    forward_of_reversed = KneserNeyLM([s[::-1] for s in TOY], order=2)
    test = [["c", "a", "b"], ["a"]]
    assert backward.perplexity(test) == pytest.approx(forward_of_reversed.perplexity([s[::-1] for s in test]))


def test_higher_orders_help_on_real_text(wiki):
    from collections import Counter

    sentences = list(wiki)
    train, heldout = sentences[:-2_000], sentences[-2_000:]
    counts = Counter(word for sentence in train for word in sentence)
    vocabulary = [word for word, count in counts.items() if count >= 5]
    unigram, bigram, trigram = (KneserNeyLM(train, order=n, vocabulary=vocabulary).perplexity(heldout)
                                for n in (1, 2, 3))
    assert unigram > 1.5 * bigram
    assert trigram < bigram


def test_nonsense_settings_are_refused():
    for kwargs in ({"order": 0}, {"discount": 1.0}, {"discount": 0}, {"direction": "sideways"}):
        with pytest.raises(SettingError):
            KneserNeyLM(TOY, **kwargs)
    with pytest.raises(SettingError):
        KneserNeyLM([], order=2)
    with pytest.raises(SettingError):
        KneserNeyLM(TOY).perplexity([])
