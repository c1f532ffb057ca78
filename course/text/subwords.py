"""Byte-pair encoding (Sennrich, Haddow and Birch, 2016): subword units learned from word counts.

BPE starts from characters and learns, one at a time, which two adjacent symbols to glue together:

1. Write every word of the count table as its characters followed by the **end-of-word marker**
   :data:`END_OF_WORD` (``"</w>"``): ``lower`` is ``l o w e r </w>``. The marker keeps a piece that ends a word
   (``er</w>``) apart from the same letters inside one (``er`` in ``ere``).
2. Count every pair of adjacent symbols, each occurrence weighted by the count of its word:

   .. math:: f(a, b) = \\sum_{w} c(w)\\, \\#\\{i : s_i(w) = a,\\ s_{i+1}(w) = b\\},

   pairs counted inside words only (never across two words), overlapping ones included (``a a a`` holds
   ``(a, a)`` twice).
3. Merge the most frequent pair :math:`(a, b) = \\arg\\max f`: in every word, scanning left to right, replace each
   ``a b`` by the new symbol ``ab`` (so ``a a a`` becomes ``aa a``: occurrences that overlap a merged one are
   not merged). **Ties**: among pairs of equal count the smallest in string order wins, comparing the left
   symbols first, then the right ones: ``min(f, key=lambda pair: (-f[pair], pair))``.
4. Repeat steps 2-3 ``merges`` times, or until every word is a single symbol. The ordered list of merges is
   the model; the vocabulary is the characters plus one new symbol per merge.

To segment a word, write it as characters and the marker and apply the merges in the order they were learned
(:func:`bpe_segment`). A training word comes out exactly as training left it; an unseen word is split into
known pieces, and in the worst case into its characters. GPT-2 runs the same algorithm on the bytes of UTF-8
text, so that no character is ever unknown.

``learn_bpe`` updates the pair counts of only the words a merge touches and keeps the counts in a heap, so that
it scales to a corpus's vocabulary; the result is that of the plain loop above, merge for merge
(``tests/test_subwords.py`` compares the two).
"""

from __future__ import annotations

import heapq
from bisect import bisect_right
from collections import Counter, defaultdict
from collections.abc import Callable, Mapping, Sequence
from numbers import Integral

END_OF_WORD = "</w>"

Pair = tuple[str, str]


def word_symbols(word: str) -> list[str]:
    """``word`` as BPE's starting symbols: its characters, then :data:`END_OF_WORD`."""
    if not isinstance(word, str) or not word:
        raise ValueError(f"a word must be a non-empty string, got {word!r}")
    return [*word, END_OF_WORD]


def merge_pair(symbols: Sequence[str], pair: Pair) -> list[str]:
    """``symbols`` with every occurrence of ``pair`` glued into one symbol, scanning left to right
    (``a a a`` with ``(a, a)`` gives ``aa a``)."""
    first, second = pair
    merged, i = [], 0
    while i < len(symbols):
        if i + 1 < len(symbols) and symbols[i] == first and symbols[i + 1] == second:
            merged.append(first + second)
            i += 2
        else:
            merged.append(symbols[i])
            i += 1
    return merged


def learn_bpe(word_counts: Mapping[str, int], merges: int) -> list[Pair]:
    """The first ``merges`` BPE merges of a word count table, in the order they are learned.

    Args:
        word_counts: {word: count}, counts >= 1; the words hold no spaces (one table entry is one word).
        merges: how many merges to learn (fewer come back when every word has become one symbol).

    Returns:
        [(a, b), ...]: merge k glues adjacent symbols a and b into ab. Pairs are counted within words, weighted
        by the words' counts (overlaps included); the most frequent wins, ties going to the smallest pair in
        string order. ``learn_bpe(counts, m)`` is the first m merges of ``learn_bpe(counts, M)`` for m <= M.
    """
    if not isinstance(merges, int) or merges < 0:
        raise ValueError(f"merges must be a whole number >= 0, got {merges!r}")
    words, counts = [], []
    for word, count in word_counts.items():
        if not isinstance(count, Integral) or count < 1:
            raise ValueError(f"the count of {word!r} must be a whole number >= 1, got {count!r}")
        words.append(word_symbols(word))
        counts.append(int(count))
    frequency: Counter[Pair] = Counter()          # f(a, b)
    containing: defaultdict[Pair, set[int]] = defaultdict(set)   # the words in which a pair occurs (or did)
    for index, symbols in enumerate(words):
        for pair in zip(symbols, symbols[1:], strict=False):
            frequency[pair] += counts[index]
            containing[pair].add(index)
    heap = [(-count, pair) for pair, count in frequency.items()]   # (-f, pair): the top is argmax, ties by pair
    heapq.heapify(heap)
    learned: list[Pair] = []
    while len(learned) < merges and heap:
        negative, pair = heapq.heappop(heap)
        if frequency[pair] != -negative or negative == 0:
            continue                                               # an entry from before the count changed
        learned.append(pair)
        changed = set()
        for index in containing.pop(pair):
            old = words[index]
            new = merge_pair(old, pair)
            if len(new) == len(old):
                continue
            for gone in zip(old, old[1:], strict=False):
                frequency[gone] -= counts[index]
                changed.add(gone)
            for made in zip(new, new[1:], strict=False):
                frequency[made] += counts[index]
                containing[made].add(index)
                changed.add(made)
            words[index] = new
        for changed_pair in changed:
            if frequency[changed_pair] > 0:
                heapq.heappush(heap, (-frequency[changed_pair], changed_pair))
    return learned


def bpe_segmenter(merges: Sequence[Pair]) -> Callable[[str], list[str]]:
    """A function ``word -> pieces`` that applies ``merges`` in order (what :func:`bpe_segment` does),
    with the merges indexed once for many words.

    Applying the merges in order is done as: repeatedly take the adjacent pair of the lowest rank that comes
    after the last merge applied, and merge it everywhere in the word; the pieces end with :data:`END_OF_WORD`.
    """
    ranks: defaultdict[Pair, list[int]] = defaultdict(list)
    for rank, pair in enumerate(merges):
        ranks[tuple(pair)].append(rank)

    def segment(word: str) -> list[str]:
        symbols, last = word_symbols(word), -1
        while len(symbols) > 1:
            best, best_pair = None, None
            for pair in zip(symbols, symbols[1:], strict=False):
                pair_ranks = ranks.get(pair)
                if pair_ranks is None:
                    continue
                later = bisect_right(pair_ranks, last)               # the first rank of this pair after `last`
                if later < len(pair_ranks) and (best is None or pair_ranks[later] < best):
                    best, best_pair = pair_ranks[later], pair
            if best is None:
                break
            symbols, last = merge_pair(symbols, best_pair), best
        return symbols

    return segment


def bpe_segment(word: str, merges: Sequence[Pair]) -> list[str]:
    """``word`` split into BPE pieces: its characters and :data:`END_OF_WORD`, then each merge applied in
    the order learned. ``"".join(pieces)`` is ``word + END_OF_WORD``; with no merge that applies, the pieces
    are the characters."""
    return bpe_segmenter(merges)(word)


def pieces_text(pieces: Sequence[str]) -> str:
    """Pieces as one readable string, separated by middle dots, the marker dropped: ``low·est``."""
    text = "·".join(pieces)
    return text[: -len(END_OF_WORD)].rstrip("·") if text.endswith(END_OF_WORD) else text

