"""Sentences as rows of vocabulary ids, cut to the position table, and batches of sentences of
about equal length.

A sentence of n words takes n + 2 positions (``<bos>`` .. ``<eos>``); one longer than
``max_positions - 2`` words is split into pieces of at most that many, each a sentence of its
own (for training and for embedding alike; the caller says how many were split).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from ..text.sentences import Sentences, split_offsets
from ..text.vocab import Vocabulary

SPECIALS = ("<pad>", "<unk>", "<bos>", "<eos>", "<mask>")  # the vocabulary's first ids


@dataclass
class Batch:
    """``B`` sentences wrapped in ``<bos>`` .. ``<eos>`` and padded to ``T`` positions.

    Attributes:
        ids: ``(B, T)`` int64 vocabulary ids (``<pad>`` after each sentence).
        mask: ``(B, T)`` bool, True at real positions.
        words: real words in the batch (``<bos>`` and ``<eos>`` not counted).
    """

    ids: torch.Tensor
    mask: torch.Tensor
    words: int

    def to(self, device: torch.device) -> Batch:
        return self if device.type == "cpu" else Batch(self.ids.to(device), self.mask.to(device), self.words)


def pad_batch(sentences: list[np.ndarray], words: Vocabulary) -> Batch:
    """Wrap each id array in ``<bos>`` .. ``<eos>`` and pad them to the longest: a :class:`Batch`."""
    width = max(len(s) for s in sentences) + 2
    ids = np.full((len(sentences), width), words.pad_id, dtype=np.int64)
    mask = np.zeros((len(sentences), width), dtype=bool)
    for row, sentence in enumerate(sentences):
        ids[row, : len(sentence) + 2] = [words.bos_id, *sentence, words.eos_id]
        mask[row, : len(sentence) + 2] = True
    return Batch(torch.from_numpy(ids), torch.from_numpy(mask), sum(len(s) for s in sentences))


class SentenceIds(Sentences):
    """Sentences as vocabulary ids (unknown words as ``<unk>``), split to fit the position table.

    Args:
        ids: ``(N,)`` int64 vocabulary ids of every token.
        offsets: ``(S + 1,)`` sentence ``i`` is ``ids[offsets[i]:offsets[i + 1]]``.
        words: the vocabulary; max_words: longer sentences are split into pieces of this many.
    """

    def __init__(self, ids: np.ndarray, offsets: np.ndarray, words: Vocabulary, max_words: int):
        self.token_ids = np.asarray(ids, dtype=np.int64)
        self.words = words
        lengths = np.diff(offsets)
        self.num_split = int((lengths > max_words).sum())
        self.offsets = split_offsets(offsets, max_words)

    @classmethod
    def from_corpus(cls, corpus, sentences: np.ndarray, words: Vocabulary, max_words: int) -> SentenceIds:
        """Some sentences (numbers) of a :class:`~course.text.corpus.Corpus`."""
        table = np.asarray([words.word_to_id.get(word, words.unk_id) for word in corpus.types], dtype=np.int64)
        starts, ends = corpus.offsets[sentences], corpus.offsets[np.asarray(sentences) + 1]
        lengths = ends - starts
        offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
        positions = np.repeat(starts - offsets[:-1], lengths) + np.arange(offsets[-1])
        return cls(table[corpus.token_ids[positions]], offsets, words, max_words)

    def batch(self, sentences: np.ndarray) -> Batch:
        """The :class:`Batch` of the given sentence numbers."""
        return pad_batch([self.token_ids[self.offsets[i]:self.offsets[i + 1]] for i in sentences], self.words)
