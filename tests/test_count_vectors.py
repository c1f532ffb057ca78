import numpy as np
import pytest

from course.core.errors import SettingError
from course.counts.count_vectors import CountVectorsConfig, cooccurrence_matrix, count_vectors, ppmi
from course.text.corpus import from_sentences
from course.text.vocab import Vocabulary


def _loop_counts(sentences, vocab_size, window, harmonic):
    counts = np.zeros((vocab_size, vocab_size))
    for sentence in sentences:
        for i, word in enumerate(sentence):
            for j in range(max(0, i - window), min(len(sentence), i + window + 1)):
                if j != i:
                    counts[word, sentence[j]] += 1.0 / abs(i - j) if harmonic else 1.0
    return counts


@pytest.mark.parametrize("weighting", ["harmonic", "uniform"])
def test_cooccurrence_equals_a_plain_loop(weighting):
    rng = np.random.default_rng(3)
    sentences = [rng.integers(0, 12, size=rng.integers(1, 15)).tolist() for _ in range(40)]
    ids = np.concatenate(sentences)
    offsets = np.concatenate([[0], np.cumsum([len(s) for s in sentences])])
    ours = cooccurrence_matrix(ids, offsets, 12, window=3, weighting=weighting, chunk_tokens=17).toarray()
    np.testing.assert_allclose(ours, _loop_counts(sentences, 12, 3, weighting == "harmonic"))
    np.testing.assert_allclose(ours, ours.T)


def test_cooccurrence_never_crosses_sentences():
    counts = cooccurrence_matrix(np.array([0, 1, 2, 3]), np.array([0, 2, 4]), 4, window=5).toarray()
    assert counts[1, 2] == 0 and counts[0, 1] == 1 and counts[2, 3] == 1
    with pytest.raises(SettingError):
        cooccurrence_matrix(np.array([0]), np.array([0, 1]), 1, window=0)


def test_ppmi_matches_the_formula():
    counts = np.array([[0, 4, 1], [4, 0, 2], [1, 2, 0]], dtype=float)
    ours = ppmi(counts, context_smoothing=1.0).toarray()
    total = counts.sum()
    expected = np.log(counts * total / np.outer(counts.sum(1), counts.sum(0)), where=counts > 0,
                      out=np.zeros_like(counts))
    np.testing.assert_allclose(ours, np.maximum(expected, 0))


def test_count_vectors_separate_two_planted_topics():
    rng = np.random.default_rng(0)
    animals, tools = [f"animal{i}" for i in range(8)], [f"tool{i}" for i in range(8)]
    sentences = [list(rng.choice(topic, size=8)) for _ in range(400) for topic in (animals, tools)]
    corpus = from_sentences(sentences, name="topics")
    kv = count_vectors(corpus, Vocabulary.from_corpus(corpus, min_count=1), CountVectorsConfig(window=3, dim=4))
    within = np.mean([kv.similarity(a, b) for a in animals for b in animals if a != b])
    across = np.mean([kv.similarity(a, t) for a in animals for t in tools])
    assert within > across + 0.5


def test_table_helpers_read_a_matrix_by_word():
    from course.core.errors import WordNotInVocabularyError
    from course.counts.count_vectors import block_density, context_table, top_contexts

    words = ["a", "b", "c"]
    matrix = np.array([[0, 5, 1], [5, 0, 0], [1, 0, 2]], dtype=float)
    np.testing.assert_array_equal(context_table(matrix, words, ["c", "a"], ["a", "b"]), [[1, 0], [0, 5]])
    assert top_contexts(matrix, words, "a", topn=5) == [("b", 5.0), ("c", 1.0)]
    with pytest.raises(WordNotInVocabularyError):
        top_contexts(matrix, words, "z")
    np.testing.assert_allclose(block_density(matrix, block=2), [[2 / 4, 1 / 2], [1 / 2, 1.0]])
