import heapq
import itertools

import numpy as np
import pytest
from scipy import stats

from course.core.errors import EmptyVocabularyError, SettingError, WordNotInVocabularyError
from course.text.corpus import from_sentences
from course.text.vocab import Vocabulary, VocabularyConfig


@pytest.fixture(scope="module")
def toy():
    sentences = [["the", "cat", "sat", "on", "the", "mat"], ["the", "dog", "sat"], ["a", "cat", "ran"]]
    return from_sentences(sentences, name="toy")


def test_min_count_specials_and_order(toy):
    vocab = Vocabulary.from_corpus(toy, min_count=2)
    assert vocab.words == ["<pad>", "<unk>", "<bos>", "<eos>", "the", "cat", "sat"]
    assert vocab.counts.tolist() == [0, 0, 0, 0, 3, 2, 2]
    assert (vocab.pad_id, vocab.unk_id, vocab.bos_id, vocab.eos_id) == (0, 1, 2, 3)
    assert vocab.num_unknown_tokens == 5
    assert len(Vocabulary.from_corpus(toy, min_count=1, max_size=2)) == 6
    plain = Vocabulary.from_corpus(toy, min_count=2, specials=())
    assert plain.words == ["the", "cat", "sat"] and plain.unk_id is None


def test_encode_decode_and_unknown_words(toy):
    vocab = Vocabulary.from_corpus(toy, min_count=2)
    assert vocab.encode(["the", "zebra", "cat"]).tolist() == [4, 1, 5]
    assert vocab.encode(["the", "zebra", "cat"], unknown="drop").tolist() == [4, 5]
    assert vocab.decode([4, 1, 5]) == ["the", "<unk>", "cat"]
    with pytest.raises(WordNotInVocabularyError, match="'cats' is not in the vocabulary .* did you mean cat"):
        vocab.encode(["cats"], unknown="raise")
    with pytest.raises(WordNotInVocabularyError):
        vocab["zebra"]


def test_encode_corpus_matches_a_plain_loop(wiki):
    vocab = Vocabulary.from_corpus(wiki, min_count=5)
    part = wiki.head(300)
    ids, offsets = vocab.encode_corpus(part, unknown="drop")
    expected = [[vocab.word_to_id[w] for w in sentence if w in vocab] for sentence in part]
    assert [ids[a:b].tolist() for a, b in itertools.pairwise(offsets)] == expected
    ids, offsets = vocab.encode_corpus(part, unknown="unk")
    assert ids.tolist() == [i for sentence in part for i in vocab.encode(sentence)]


def test_empty_vocabulary_and_bad_settings(toy):
    with pytest.raises(EmptyVocabularyError, match="min_count=10 .* most frequent occurs 3 times"):
        Vocabulary.from_corpus(toy, min_count=10)
    with pytest.raises(SettingError, match="min_count"):
        Vocabulary.from_corpus(toy, min_count=0)
    with pytest.raises(SettingError, match="sample"):
        Vocabulary.from_corpus(toy, min_count=1).keep_probabilities(-1)


def test_keep_probabilities_equal_gensims_sample_int(wiki):
    from gensim.models import Word2Vec

    vocab = Vocabulary.from_corpus(wiki, min_count=5, specials=())
    model = Word2Vec(vector_size=10, min_count=5, sample=1e-3)
    model.build_vocab(list(wiki))
    ours = vocab.keep_probabilities(1e-3)
    gensim_keep = np.array([model.wv.get_vecattr(w, "sample_int") for w in vocab.words]) / 2**32
    assert model.wv.index_to_key[:50] == vocab.words[:50]
    np.testing.assert_allclose(ours, gensim_keep, atol=1e-9)
    assert ours[0] < 0.2 and ours[-1] == 1.0  # "the" is mostly dropped, rare words always kept


def test_noise_draws_follow_counts_to_the_three_quarters(wiki):
    vocab = Vocabulary.from_corpus(wiki, min_count=5)
    draws = vocab.sample_noise(400_000, np.random.default_rng(12345))
    assert draws.min() >= vocab.num_specials  # specials are never noise
    observed = np.bincount(draws, minlength=len(vocab))
    # Pool the rare words so that every expected cell is large enough for the chi-square test.
    def pooled(p):
        expected = p * len(draws)
        head = expected >= 20
        return np.append(observed[head], observed[~head].sum()), np.append(expected[head], expected[~head].sum())

    obs, exp = pooled(vocab.noise_distribution(0.75))
    assert stats.chisquare(obs, exp).pvalue > 1e-3
    obs, exp = pooled(vocab.noise_distribution(1.0))  # the plain unigram distribution is clearly rejected
    assert stats.chisquare(obs, exp).pvalue < 1e-12


def _reference_cost(counts):
    """Expected code length times total count of an optimal prefix code: the sum of all merges."""
    heap = list(map(int, counts))
    heapq.heapify(heap)
    cost = 0
    while len(heap) > 1:
        merged = heapq.heappop(heap) + heapq.heappop(heap)
        cost += merged
        heapq.heappush(heap, merged)
    return cost


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_huffman_codes_are_prefix_free_and_optimal(seed):
    rng = np.random.default_rng(seed)
    counts = np.sort(rng.zipf(1.3, size=300).clip(1, 10**6))[::-1]
    words = [f"w{i}" for i in range(len(counts))]
    vocab = Vocabulary.from_counts(dict(zip(words, counts.tolist(), strict=True)), VocabularyConfig(min_count=1))
    tree = vocab.huffman()
    assert tree.lengths[: vocab.num_specials].tolist() == [0] * vocab.num_specials
    codes = [tree.code_of(i) for i in range(vocab.num_specials, len(vocab))]
    assert len(set(codes)) == len(codes)
    ordered = sorted(codes)
    assert not any(b.startswith(a) for a, b in itertools.pairwise(ordered))  # prefix-free
    lengths = tree.lengths[vocab.num_specials:]
    assert np.sum(2.0 ** -lengths) == pytest.approx(1.0)  # a full binary tree (Kraft equality)
    assert int(np.sum(lengths * vocab.counts[vocab.num_specials:])) == _reference_cost(counts)  # optimal
    root = tree.num_inner_nodes - 1
    assert np.all(tree.points[vocab.num_specials:, 0] == root)  # every path starts at the root
    assert tree.points.max() == root


def _heap_tree(counts):
    """Each word's (code, points) from a plain heap Huffman: nodes ordered by (weight, word before inner
    node, id, order of creation); the first node taken gets bit 0; inner node k is the k-th made."""
    heap = [(int(count), 0, i) for i, count in enumerate(counts)]
    heapq.heapify(heap)
    parent, bit = {}, {}
    for k in range(len(counts) - 1):
        first, second = heapq.heappop(heap), heapq.heappop(heap)
        for node, b in ((first, 0), (second, 1)):
            key = ("word" if node[1] == 0 else "inner", node[2])
            parent[key], bit[key] = k, b
        heapq.heappush(heap, (first[0] + second[0], 1, k))
    root = len(counts) - 2
    paths = []
    for i in range(len(counts)):
        code, points, key = [], [], ("word", i)
        while key != ("inner", root):
            code.append(bit[key])
            points.append(parent[key])
            key = ("inner", parent[key])
        paths.append((code[::-1], points[::-1]))
    return paths


@pytest.mark.parametrize("counts", [[10, 6, 5, 5, 3, 3, 3, 1], [4, 4, 2, 2, 2, 2, 1, 1, 1, 1],
                                    sorted(np.random.default_rng(3).zipf(1.6, 400).clip(1, 50).tolist(), reverse=True)])
def test_huffman_ties_go_to_the_word_then_the_lower_id(counts):
    words = [f"w{i}" for i in range(len(counts))]
    vocab = Vocabulary(words, counts, specials=())
    tree = vocab.huffman()
    for i, (code, points) in enumerate(_heap_tree(counts)):
        length = tree.lengths[i]
        assert (tree.codes[i, :length].tolist(), tree.points[i, :length].tolist()) == (code, points), words[i]


def test_huffman_paths_agree_with_gensim(wiki):
    from gensim.models import Word2Vec

    vocab = Vocabulary.from_corpus(wiki, min_count=5, specials=())
    model = Word2Vec(vector_size=10, min_count=5, hs=1, negative=0)
    model.build_vocab(list(wiki))
    tree = vocab.huffman()
    gensim_lengths = np.array([len(model.wv.get_vecattr(w, "code")) for w in vocab.words])
    # Ties may be broken differently, but both trees are optimal: the same expected code length.
    assert int(gensim_lengths @ vocab.counts) == int(tree.lengths @ vocab.counts)


def test_save_and_load_round_trip(tmp_path, toy):
    vocab = Vocabulary.from_corpus(toy, min_count=1)
    path = vocab.save(tmp_path / "v" / "vocab.json")
    loaded = Vocabulary.load(path)
    assert loaded.words == vocab.words and loaded.counts.tolist() == vocab.counts.tolist()
    assert loaded.specials == vocab.specials and loaded.num_unknown_tokens == vocab.num_unknown_tokens
    (tmp_path / "junk.json").write_text("{}")
    with pytest.raises(SettingError, match="junk.json: not a vocabulary file"):
        Vocabulary.load(tmp_path / "junk.json")
