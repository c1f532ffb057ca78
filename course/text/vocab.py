"""The vocabulary: words and their counts, and everything word2vec derives from the counts.

- ids: the special tokens first (``<pad>``, ``<unk>``, ``<bos>``, ``<eos>`` by default), then the
  words from most to least frequent;
- frequent-word subsampling: the probability of keeping each occurrence, by the formula of
  word2vec.c and gensim's ``sample`` setting;
- the noise distribution for negative sampling, P(w) proportional to count(w)^0.75;
- the Huffman tree for hierarchical softmax: each word's binary code and the inner nodes on its path.

Special tokens never occur in counted text: their count is 0, they are never drawn as noise and
they have no Huffman code.
"""

from __future__ import annotations

import difflib
import json
import os
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from ..core.errors import EmptyVocabularyError, SettingError, WordNotInVocabularyError
from ..core.io import atomic_path

DEFAULT_SPECIALS = ("<pad>", "<unk>", "<bos>", "<eos>")


@dataclass(frozen=True)
class VocabularyConfig:
    """How to cut a vocabulary out of counts."""

    min_count: int = 5
    max_size: int | None = None  # at most this many words (specials not counted)
    specials: tuple[str, ...] = DEFAULT_SPECIALS


@dataclass(frozen=True)
class HuffmanTree:
    """Huffman codes over the vocabulary, laid out as word2vec.c does.

    With ``W`` coded words there are ``W - 1`` inner nodes, numbered ``0 .. W - 2``; the root is
    ``W - 2``. Arrays are indexed by vocabulary id and padded to the longest code.

    Attributes:
        codes: ``(V, max_length)`` int8, the bits from the root down to the word (0 or 1).
        points: ``(V, max_length)`` int64, the inner node at each step of that path.
        lengths: ``(V,)`` int64, code length of each word (0 for special tokens).
    """

    codes: np.ndarray
    points: np.ndarray
    lengths: np.ndarray

    @property
    def num_inner_nodes(self) -> int:
        return int(max(0, (self.lengths > 0).sum() - 1))

    def code_of(self, word_id: int) -> str:
        """The code of one word as a string of 0s and 1s."""
        return "".join(map(str, self.codes[word_id, : self.lengths[word_id]]))


class Vocabulary:
    """Token <-> id mapping with counts.

    Args:
        words: the tokens in id order (specials first).
        counts: ``(V,)`` how often each token occurred (0 for specials).
        specials: which of ``words`` are special tokens (they must come first).
    """

    def __init__(self, words: Sequence[str], counts: Sequence[int] | np.ndarray,
                 specials: Sequence[str] = DEFAULT_SPECIALS, num_unknown_tokens: int = 0):
        self.words = list(words)
        self.counts = np.asarray(counts, dtype=np.int64)
        self.specials = tuple(specials)
        self.num_unknown_tokens = int(num_unknown_tokens)
        if len(self.words) != len(self.counts):
            raise ValueError(f"{len(self.words)} words but {len(self.counts)} counts")
        if tuple(self.words[: len(self.specials)]) != self.specials:
            raise ValueError("special tokens must come first, in order")
        self.word_to_id = {word: i for i, word in enumerate(self.words)}
        if len(self.word_to_id) != len(self.words):
            raise ValueError("words must be distinct")
        self._huffman: HuffmanTree | None = None

    # ------------------------------------------------------------------ construction

    @classmethod
    def from_counts(cls, counts: dict[str, int] | Iterable[tuple[str, int]],
                    config: VocabularyConfig = VocabularyConfig()) -> Vocabulary:
        """Keep the words counted at least ``min_count`` times, most frequent first.

        Raises:
            EmptyVocabularyError: no word reaches ``min_count``.
        """
        items = list(counts.items() if isinstance(counts, dict) else counts)
        words = [word for word, _ in items]
        values = np.asarray([count for _, count in items], dtype=np.int64)
        return cls._cut(words, values, config, source="the counts")

    @classmethod
    def from_corpus(cls, corpus, config: VocabularyConfig | None = None, **overrides) -> Vocabulary:
        """Count a :class:`~course.text.corpus.Corpus` and cut its vocabulary (``min_count=...`` etc. override)."""
        config = VocabularyConfig(**{**asdict(config or VocabularyConfig()), **overrides})
        return cls._cut(corpus.types, corpus.counts(), config, source=f"corpus {corpus.name!r}")

    @classmethod
    def _cut(cls, words: list[str], counts: np.ndarray, config: VocabularyConfig, source: str) -> Vocabulary:
        if config.min_count < 1:
            raise SettingError(f"min_count must be at least 1, got {config.min_count}")
        if config.max_size is not None and config.max_size < 1:
            raise SettingError(f"max_size must be at least 1, got {config.max_size}")
        order = np.argsort(-counts, kind="stable")
        order = order[counts[order] >= config.min_count]
        clash = set(config.specials) & {words[i] for i in order}
        order = np.asarray([i for i in order if words[i] not in clash], dtype=np.int64) if clash else order
        if config.max_size is not None:
            order = order[: config.max_size]
        if len(order) == 0:
            top = int(counts.max()) if len(counts) else 0
            raise EmptyVocabularyError(
                f"no word in {source} occurs at least min_count={config.min_count} times "
                f"(the most frequent occurs {top} times): lower min_count or use more text"
            )
        kept = [words[i] for i in order]
        unknown = int(counts.sum() - counts[order].sum())
        all_counts = np.concatenate([np.zeros(len(config.specials), np.int64), counts[order]])
        return cls(list(config.specials) + kept, all_counts, config.specials, unknown)

    # ------------------------------------------------------------------ lookup

    def __len__(self) -> int:
        return len(self.words)

    def __contains__(self, word: str) -> bool:
        return word in self.word_to_id

    def __getitem__(self, word: str) -> int:
        try:
            return self.word_to_id[word]
        except KeyError:
            raise WordNotInVocabularyError(self._missing_message(word)) from None

    def __repr__(self) -> str:
        return (f"Vocabulary({len(self.words):,} entries, {self.num_specials} specials, "
                f"{self.total_words:,} words counted)")

    def _missing_message(self, word: str) -> str:
        close = difflib.get_close_matches(word, self.words[self.num_specials: 50_000], n=3)
        hint = f"; did you mean {', '.join(close)}?" if close else "; it may be rarer than min_count"
        return f"{word!r} is not in the vocabulary ({len(self.words):,} entries){hint}"

    @property
    def num_specials(self) -> int:
        return len(self.specials)

    def _special(self, token: str) -> int | None:
        return self.word_to_id.get(token) if token in self.specials else None

    @property
    def pad_id(self) -> int | None:
        return self._special("<pad>")

    @property
    def unk_id(self) -> int | None:
        return self._special("<unk>")

    @property
    def bos_id(self) -> int | None:
        return self._special("<bos>")

    @property
    def eos_id(self) -> int | None:
        return self._special("<eos>")

    @property
    def total_words(self) -> int:
        """Occurrences of all vocabulary words in the counted text."""
        return int(self.counts.sum())

    def encode(self, tokens: Sequence[str], unknown: str = "unk") -> np.ndarray:
        """``(n,)`` int64 ids of ``tokens``; unknown tokens become ``<unk>`` (``unknown="unk"``),
        are dropped (``"drop"``) or raise :class:`WordNotInVocabularyError` (``"raise"``)."""
        if unknown == "raise":
            return np.asarray([self[token] for token in tokens], dtype=np.int64)
        if unknown == "drop":
            ids = [self.word_to_id.get(token, -1) for token in tokens]
            return np.asarray([i for i in ids if i >= 0], dtype=np.int64)
        if self.unk_id is None:
            raise SettingError("unknown='unk' needs a vocabulary with the <unk> special token")
        return np.asarray([self.word_to_id.get(token, self.unk_id) for token in tokens], dtype=np.int64)

    def decode(self, ids: Iterable[int]) -> list[str]:
        """Tokens of ``ids``."""
        return [self.words[int(i)] for i in ids]

    def encode_corpus(self, corpus, unknown: str = "drop") -> tuple[np.ndarray, np.ndarray]:
        """All of ``corpus`` as ids, vectorised: ``(ids (n,) int32, offsets (num_sentences + 1,) int64)``.

        ``unknown="drop"`` removes out-of-vocabulary tokens (as word2vec does) and shortens the
        sentences; ``"unk"`` maps them to ``<unk>`` (as a language model wants).
        """
        type_to_id = np.asarray([self.word_to_id.get(word, -1) for word in corpus.types], dtype=np.int32)
        ids = type_to_id[corpus.token_ids]
        if unknown == "unk":
            if self.unk_id is None:
                raise SettingError("unknown='unk' needs a vocabulary with the <unk> special token")
            return np.where(ids < 0, self.unk_id, ids).astype(np.int32), corpus.offsets.copy()
        if unknown != "drop":
            raise SettingError(f"unknown must be 'drop' or 'unk', got {unknown!r}")
        known = ids >= 0
        kept_before = np.concatenate([[0], np.cumsum(known)])
        return ids[known], kept_before[corpus.offsets].astype(np.int64)

    # ------------------------------------------------------------------ word2vec's distributions

    def keep_probabilities(self, sample: float = 1e-3) -> np.ndarray:
        """``(V,)`` float64: the chance of keeping each occurrence under frequent-word subsampling.

        With ``t = sample * total_words``, a word counted ``c`` times is kept with probability
        ``min(1, (sqrt(c / t) + 1) * t / c)`` (word2vec.c's formula, and gensim's).
        ``sample=0`` keeps everything; ``sample >= 1`` is read as an absolute count, as gensim does.
        """
        if sample < 0:
            raise SettingError(f"sample must be >= 0, got {sample}")
        counts = self.counts.astype(np.float64)
        if sample == 0:
            return np.ones_like(counts)
        threshold = sample * self.total_words if sample < 1.0 else int(sample * (3 + np.sqrt(5)) / 2)
        with np.errstate(divide="ignore", invalid="ignore"):
            keep = (np.sqrt(counts / threshold) + 1) * threshold / counts
        return np.where(counts > 0, np.minimum(keep, 1.0), 1.0)

    def noise_distribution(self, exponent: float = 0.75) -> np.ndarray:
        """``(V,)`` float64, sums to 1: P(w) = count(w)^exponent / sum over v of count(v)^exponent."""
        weights = np.where(self.counts > 0, self.counts.astype(np.float64) ** exponent, 0.0)
        return weights / weights.sum()

    def sample_noise(self, size: int | tuple[int, ...], rng: np.random.Generator,
                     exponent: float = 0.75) -> np.ndarray:
        """Draw word ids from :meth:`noise_distribution` (inverse CDF by binary search, vectorised)."""
        cumulative = np.cumsum(self.noise_distribution(exponent))
        draws = np.searchsorted(cumulative, rng.random(size) * cumulative[-1], side="right")
        return np.minimum(draws, len(cumulative) - 1)

    # ------------------------------------------------------------------ Huffman tree

    def huffman(self) -> HuffmanTree:
        """The Huffman tree of the word counts (computed once), for hierarchical softmax.

        Built the way word2vec.c builds it: with the words sorted by count, two queues (the leaves,
        and the inner nodes as they are made, which come out in increasing weight) give the two
        lightest nodes in O(1), so the whole tree takes O(W). Ties are broken in a fixed way: a
        word before an inner node of the same weight (word2vec.c takes the inner node; gensim's
        heap compares weights only and leaves ties to its layout), and of two words with the same
        count the one with the lower id. Every way of breaking ties gives an optimal code, but not
        the same tree, and the tree changes what hierarchical softmax learns: after 20 epochs of
        skip-gram on ``wiki-en`` (medians of eight seeds), word2vec.c's rule gave analogies 4.0%,
        SimLex-999 0.172 and WordSim-353 0.447; this one 4.6%, 0.188 and 0.454.
        """
        if self._huffman is None:
            self._huffman = _build_huffman(self.counts, first=self.num_specials)
        return self._huffman

    # ------------------------------------------------------------------ persistence

    def save(self, path: str | os.PathLike) -> Path:
        """Write the vocabulary as JSON (atomically)."""
        payload = {"format": "course.vocabulary/1", "specials": list(self.specials), "words": self.words,
                   "counts": self.counts.tolist(), "num_unknown_tokens": self.num_unknown_tokens}
        target = Path(path)
        with atomic_path(target) as temporary:
            temporary.write_text(json.dumps(payload, ensure_ascii=False), encoding="utf-8")
        return target

    @classmethod
    def load(cls, path: str | os.PathLike) -> Vocabulary:
        """Read a vocabulary written by :meth:`save`."""
        try:
            payload = json.loads(Path(path).read_text(encoding="utf-8"))
            if payload.get("format") != "course.vocabulary/1":
                raise ValueError("not a course vocabulary file")
            return cls(payload["words"], payload["counts"], payload["specials"], payload["num_unknown_tokens"])
        except FileNotFoundError:
            raise SettingError(f"{path}: no such vocabulary file") from None
        except (ValueError, KeyError, TypeError) as exc:
            raise SettingError(f"{path}: not a vocabulary file written by Vocabulary.save ({exc})") from None


def _build_huffman(counts: np.ndarray, first: int) -> HuffmanTree:
    """Huffman codes for ``counts[first:]`` (already in descending order), word2vec.c's layout; ties
    as :meth:`Vocabulary.huffman` says."""
    vocab_size = len(counts)
    weights = counts[first:]
    num_words = len(weights)
    empty = np.zeros((vocab_size, 0), np.int8)
    if num_words < 2:
        return HuffmanTree(empty, empty.astype(np.int64), np.zeros(vocab_size, np.int64))
    if np.any(np.diff(weights) > 0):
        raise ValueError("word counts must be in descending order")
    # Nodes 0..W-1 are the words, W..2W-2 the inner nodes in order of creation.
    node_weight = np.concatenate([weights, np.zeros(num_words - 1, np.int64)])
    parent = np.zeros(2 * num_words - 1, np.int64)
    bit = np.zeros(2 * num_words - 1, np.int8)
    # The leaves from the lightest up; among equal counts the lowest id first.
    leaves = np.lexsort((np.arange(num_words), weights)).tolist()
    leaf, inner = 0, num_words  # next leaf (in that order), next inner node (in order of creation)
    for new in range(num_words, 2 * num_words - 1):
        picked = []
        for _ in range(2):
            if leaf < num_words and (inner >= new or node_weight[leaves[leaf]] <= node_weight[inner]):
                picked.append(leaves[leaf])
                leaf += 1
            else:
                picked.append(inner)
                inner += 1
        node_weight[new] = node_weight[picked[0]] + node_weight[picked[1]]
        parent[picked] = new
        bit[picked[1]] = 1
    root = 2 * num_words - 2
    # Walk all words up to the root together, one level per step.
    steps_bits, steps_nodes = [], []
    node = np.arange(num_words)
    active = node != root
    while active.any():
        steps_bits.append(np.where(active, bit[node], 0))
        node = np.where(active, parent[node], node)
        steps_nodes.append(np.where(active, node - num_words, -1))
        active = node != root
    lengths = (np.stack(steps_nodes, axis=1) >= 0).sum(axis=1)
    max_length = int(lengths.max())
    codes = np.zeros((num_words, max_length), np.int8)
    points = np.zeros((num_words, max_length), np.int64)
    bits, nodes = np.stack(steps_bits, axis=1), np.stack(steps_nodes, axis=1)
    # The walk went leaf -> root; codes and points run root -> leaf.
    for depth in range(max_length):
        has = lengths > depth
        source = lengths[has] - 1 - depth
        codes[has, depth] = bits[has, source]
        points[has, depth] = nodes[has, source]
    full_codes = np.zeros((vocab_size, max_length), np.int8)
    full_points = np.zeros((vocab_size, max_length), np.int64)
    full_lengths = np.zeros(vocab_size, np.int64)
    full_codes[first:], full_points[first:], full_lengths[first:] = codes, points, lengths
    return HuffmanTree(full_codes, full_points, full_lengths)
