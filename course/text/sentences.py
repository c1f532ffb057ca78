"""Sentences stored flat, the one way the course holds them: every token's id in ``token_ids`` ``(N,)``
and sentence i as ``token_ids[offsets[i]:offsets[i + 1]]``, ``offsets`` ``(S + 1,)``
(:class:`Sentences`). A :class:`~course.text.corpus.Corpus` holds its text so, and so do the biLM's and
the Transformers' sentences made ready for a model (:class:`~course.elmo.batching.LanguageModelData`,
:class:`~course.transformer.data.SentenceIds`) and BERT's sentences read in pairs
(:class:`~course.transformer.next_sentence.PairIds`), which add only how a batch of them is laid out.

Sentences grouped into batches of about equal length, for every language model of the course:
a batch of B sentences padded to the longest, T = max n_i + 2 positions (``<bos>`` and ``<eos>``),
holds B * T <= ``batch_tokens`` positions, so few of them are padding (:func:`length_batches`); and
sentences longer than a model takes cut into pieces (:func:`split_offsets`)."""

from __future__ import annotations

import numpy as np


def length_batches(lengths: np.ndarray, batch_tokens: int, rng: np.random.Generator | None = None) -> list[np.ndarray]:
    """Indexes of sentences of ``lengths`` words, grouped into batches of about ``batch_tokens``
    padded positions each (``<bos>`` and ``<eos>`` counted; at least one sentence a batch): sorted by
    length (ties in random order when ``rng`` is given), cut into consecutive groups, the groups
    shuffled. How many batches depends only on the lengths, never on ``rng``."""
    tiebreak = rng.random(len(lengths)) if rng is not None else np.arange(len(lengths))
    order = np.lexsort((tiebreak, lengths))
    width = lengths[order] + 2  # positions with <bos> and <eos>; sorted, so the last is the widest
    groups, start = [], 0
    for end, w in enumerate(width.tolist()):
        if end > start and (end - start + 1) * w > batch_tokens:
            groups.append(order[start:end])
            start = end
    groups.append(order[start:])
    if rng is not None:
        groups = [groups[i] for i in rng.permutation(len(groups))]
    return groups


def split_offsets(offsets: np.ndarray, max_length: int) -> np.ndarray:
    """Sentence offsets ``(S + 1,)`` with every sentence longer than ``max_length`` cut into pieces of at
    most ``max_length`` tokens (the last piece holds the rest); an empty sentence stays one piece.
    Sentence i of ``n_i`` tokens becomes ceil(n_i / max_length) pieces, starting every ``max_length``."""
    offsets = np.asarray(offsets, dtype=np.int64)
    lengths = np.diff(offsets)
    if not (lengths > max_length).any():
        return offsets
    pieces = np.maximum(-(-lengths // max_length), 1)  # ceil, at least one
    within = np.arange(pieces.sum()) - np.repeat(np.cumsum(pieces) - pieces, pieces)  # piece number in its sentence
    return np.concatenate([np.repeat(offsets[:-1], pieces) + max_length * within, offsets[-1:]])


class Sentences:
    """Sentences stored flat: ``token_ids`` ``(N,)``, ``offsets`` ``(S + 1,)``; what every holder of
    sentences shares (its subclasses set both)."""

    token_ids: np.ndarray
    offsets: np.ndarray

    @property
    def num_sentences(self) -> int:
        """S, the sentences (a piece of a sentence that was cut counts as one)."""
        return len(self.offsets) - 1

    @property
    def num_tokens(self) -> int:
        """N, the tokens of all the sentences."""
        return len(self.token_ids)

    def lengths(self) -> np.ndarray:
        """``(S,)`` int64: tokens per sentence."""
        return np.diff(self.offsets)

    def batches(self, batch_tokens: int, rng: np.random.Generator | None = None) -> list[np.ndarray]:
        """Sentence numbers grouped into batches of about ``batch_tokens`` padded positions each
        (:func:`length_batches`)."""
        return length_batches(self.lengths(), batch_tokens, rng)
