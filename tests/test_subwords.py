"""Byte-pair encoding (course/text/subwords.py) against merges worked out by hand and a plain recount at every step,
and fastText's subword vectors (gensim) on a tiny corpus."""

import numpy as np
import pytest

from course.text.subwords import (
    END_OF_WORD,
    bpe_segment,
    bpe_segmenter,
    learn_bpe,
    merge_pair,
    pieces_text,
    word_symbols,
)

E = END_OF_WORD

# The dictionary of Sennrich et al.'s Algorithm 1. The counts f(a, b) of each step, by hand:
#  1. (e,s) = (s,t) = (t,</w>) = 6 + 3 = 9, the most; (e,s) is the smallest of the three in string order
#  2. (es,t) = (t,</w>) = 9                          -> (es,t)
#  3. (est,</w>) = 9                                 -> (est,</w>)
#  4. (l,o) = (o,w) = 5 + 2 = 7                      -> (l,o)
#  5. (lo,w) = 7                                     -> (lo,w)
#  6. (n,e) = (e,w) = (w,est</w>) = 6, all from "newest"; (e,w) sorts first ("e" < "n" < "w")
#  7. (n,ew) = (ew,est</w>) = 6                      -> (ew,est</w>)
#  8. (n,ewest</w>) = 6                              -> (n,ewest</w>)
#  9. (low,</w>) = 5, the most now                  -> (low,</w>)
# 10. (w,i) = (i,d) = (d,est</w>) = 3, above (low,e) = (e,r) = (r,</w>) = 2; "d" < "i" < "w" -> (d,est</w>)
# The paper's code takes the first pair its dict met on a tie, (n,e) at step 6 and (w,i) at step 10.
PAPER_COUNTS = {"low": 5, "lower": 2, "newest": 6, "widest": 3}
PAPER_MERGES = [("e", "s"), ("es", "t"), ("est", E), ("l", "o"), ("lo", "w"), ("e", "w"), ("ew", "est" + E),
                ("n", "ewest" + E), ("low", E), ("d", "est" + E)]


def plain_bpe(word_counts, merges):
    """The plain loop: recount every pair of every word at every step. Returns the merges and the words'
    segmentations at the end."""
    words = {word: word_symbols(word) for word in word_counts}
    learned = []
    for _ in range(merges):
        frequency = {}
        for word, symbols in words.items():
            for pair in zip(symbols, symbols[1:], strict=False):
                frequency[pair] = frequency.get(pair, 0) + word_counts[word]
        if not frequency:
            break
        best = min(frequency, key=lambda pair: (-frequency[pair], pair))
        learned.append(best)
        words = {word: merge_pair(symbols, best) for word, symbols in words.items()}
    return learned, words


def random_counts(rng, alphabet="abcde", size=None):
    size = size or int(rng.integers(1, 30))
    counts = {}
    while len(counts) < size:
        word = "".join(rng.choice(list(alphabet), int(rng.integers(1, 9))))
        counts[word] = int(rng.integers(1, 20))
    return counts


def test_the_papers_example_gives_the_merges_worked_out_by_hand():
    assert learn_bpe(PAPER_COUNTS, 10) == PAPER_MERGES
    segment = bpe_segmenter(PAPER_MERGES)
    assert segment("low") == ["low" + E]
    assert segment("lower") == ["low", "e", "r", E]
    assert segment("newest") == ["newest" + E]
    assert segment("widest") == ["w", "i", "dest" + E]
    assert segment("lowest") == ["low", "est" + E]                 # unseen, but made of pieces the merges know
    assert pieces_text(segment("lowest")) == "low·est"


def test_merges_stop_when_every_word_is_one_symbol():
    merges = learn_bpe(PAPER_COUNTS, 1000)
    assert merges[:10] == PAPER_MERGES
    assert all(len(bpe_segment(word, merges)) == 1 for word in PAPER_COUNTS)
    assert len(merges) == len(plain_bpe(PAPER_COUNTS, 1000)[0]) < 1000
    assert learn_bpe(PAPER_COUNTS, 0) == []


@pytest.mark.parametrize("seed", range(40))
def test_the_fast_loop_learns_what_the_plain_loop_learns(seed):
    rng = np.random.default_rng(seed)
    counts = random_counts(rng, alphabet="ab" if seed % 4 == 0 else "abcde")   # "ab": long runs such as "aaaa"
    merges = int(rng.integers(1, 40))
    expected, words = plain_bpe(counts, merges)
    assert learn_bpe(counts, merges) == expected
    segment = bpe_segmenter(expected)
    for word, symbols in words.items():
        assert segment(word) == symbols                  # a training word comes out as training left it


def test_fewer_merges_are_a_prefix_of_more():
    counts = random_counts(np.random.default_rng(7), size=25)
    many = learn_bpe(counts, 60)
    for m in (0, 1, 5, 20, 59):
        assert learn_bpe(counts, m) == many[:m]


def test_overlapping_occurrences_merge_left_to_right_and_count_twice():
    assert merge_pair(["a", "a", "a", E], ("a", "a")) == ["aa", "a", E]
    assert merge_pair(["a", "a", "a", "a", E], ("a", "a")) == ["aa", "aa", E]
    # "aaaa" holds (a,a) three times (overlaps included) and (a,</w>) once; "ba" holds (b,a) and (a,</w>): 3 > 2.
    # Counted once per word, or without overlaps (2, a tie that (a,</w>) wins: "<" sorts before "a"), it loses.
    assert learn_bpe({"aaaa": 1, "ba": 1}, 1) == [("a", "a")]
    assert learn_bpe({"aaa": 1, "ba": 1}, 1) == [("a", E)]          # (a,a) = (a,</w>) = 2: the tie rule decides
    assert learn_bpe({"aaaa": 1}, 3) == [("a", "a"), ("aa", E), ("aa", "aa" + E)]   # aa aa </w>, a tie


def test_pairs_are_weighted_by_word_counts_and_never_cross_words():
    # by types, (x,y) occurs in two words and (a,b) in one; by tokens (a,b) occurs 10 times, (x,y) twice
    assert learn_bpe({"ab": 10, "xy": 1, "xyz": 1}, 1) == [("a", "b")]
    # "b" ends one word and "c" starts the next, however often: (b,c) is never a pair
    merges = learn_bpe({"ab": 50, "cd": 50}, 10)
    assert ("b", "c") not in merges and (E, "c") not in merges
    assert all(E not in left for left, _ in merges)                   # nothing ever follows the marker


def test_ties_are_broken_by_string_order_whatever_the_order_of_the_table():
    rng = np.random.default_rng(3)
    for _ in range(10):
        counts = random_counts(rng, alphabet="abc", size=12)
        merges = learn_bpe(counts, 15)
        keys = list(counts)
        rng.shuffle(keys)
        assert learn_bpe({word: counts[word] for word in keys}, 15) == merges
    # every pair of "abcd" occurs once: (a,b) < (b,c) < (c,d) < (d,</w>)
    assert learn_bpe({"abcd": 1}, 1) == [("a", "b")]
    assert learn_bpe({"dcba": 1}, 1) == [("a", E)]                   # "a" < "b" < "c" < "d"


def test_segmentation_never_loses_a_character():
    rng = np.random.default_rng(11)
    counts = random_counts(rng, alphabet="abcdef", size=40)
    segment = bpe_segmenter(learn_bpe(counts, 50))
    for _ in range(200):
        word = "".join(rng.choice(list("abcdefgh"), int(rng.integers(1, 12))))
        pieces = segment(word)
        assert "".join(pieces) == word + E
        assert pieces[-1].endswith(E) and all(piece for piece in pieces)


def test_an_unseen_word_falls_back_to_characters():
    merges = learn_bpe(PAPER_COUNTS, 10)
    assert bpe_segment("xyz", merges) == ["x", "y", "z", E]           # characters no merge knows
    assert bpe_segment("tse", merges) == ["t", "s", "e", E]           # known characters, no merge applies
    assert bpe_segment("sol", merges) == ["s", "o", "l", E]           # known characters in an order never seen
    assert bpe_segment("abc", []) == ["a", "b", "c", E]


def test_merges_apply_in_order_not_whenever_a_pair_appears():
    # (ab,c) ranks first but "ab" does not exist yet; (a,b) then makes the pair (ab,c), too late to be merged
    merges = [("ab", "c"), ("a", "b")]
    assert bpe_segment("abc", merges) == ["ab", "c", E]
    assert bpe_segment("abab", merges) == ["ab", "ab", E]


def test_bad_input_is_refused():
    with pytest.raises(ValueError, match="merges"):
        learn_bpe(PAPER_COUNTS, -1)
    with pytest.raises(ValueError, match="count of 'low'"):
        learn_bpe({"low": 0}, 3)
    with pytest.raises(ValueError, match="non-empty"):
        learn_bpe({"": 3}, 3)
    with pytest.raises(ValueError, match="non-empty"):
        bpe_segment("", PAPER_MERGES)


# ---------------------------------------------------------------------------------------- fastText


def tiny_fasttext():
    """Sentences on eight topics, each with a family of word forms that share a stem and context words of its
    own; the unseen forms tested below occur nowhere."""
    from gensim.models import FastText

    rng = np.random.default_rng(0)
    topics = {"walk": "park dog path", "play": "game team ball", "jump": "high fence rope", "paint": "wall brush red",
              "climb": "rock summit rope", "read": "book page library", "cook": "kitchen soup pan",
              "sing": "song choir voice"}
    sentences = []
    for _ in range(1200):
        stem = str(rng.choice(list(topics)))
        words = [stem + ending for ending in ("", "s", "ed", "ing")] + topics[stem].split()
        sentences.append([str(word) for word in rng.choice(words, 8)])
    return FastText(sentences, vector_size=24, window=3, min_count=1, min_n=3, max_n=6, bucket=5000, epochs=5,
                    workers=1, seed=1, sg=1, negative=5)


def test_fasttext_builds_an_unseen_word_from_its_ngrams():
    from gensim.models.fasttext import compute_ngrams, ft_ngram_hashes

    wv = tiny_fasttext().wv
    for unseen, stem in (("walker", "walk"), ("repainting", "paint"), ("climbers", "climb"), ("singer", "sing")):
        assert unseen not in wv.key_to_index
        rows = ft_ngram_hashes(unseen, wv.min_n, wv.max_n, wv.bucket)
        assert len(rows) == len(compute_ngrams(unseen, 3, 6))
        assert np.allclose(wv[unseen], wv.vectors_ngrams[rows].mean(0), atol=1e-6)   # the mean of its n-grams
        top = [word for word, _ in wv.most_similar(unseen, topn=3)]
        assert all(word.startswith(stem) for word in top), (unseen, top)    # its neighbours share its n-grams
    assert compute_ngrams("where", 3, 3) == ["<wh", "whe", "her", "ere", "re>"]
