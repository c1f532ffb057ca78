"""A corpus made ready for the biLM: word and character ids, sentences cut to a maximum length,
and batches of sentences of about equal length.

Every token is stored as an id into a table of the corpus's distinct words (its *types*) plus
three rows of our own: ``<bos>``, ``<eos>`` and padding. Each row of the table knows the word's
characters (the token encoder's input) and its id in the softmax vocabulary (the target), so a
batch is two gathers. A batch carries only the characters of its distinct words, ``(U, C)``,
and for every position the row to use, so each word is spelled and encoded once per batch.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from ..text.sentences import Sentences, split_offsets
from ..text.vocab import Vocabulary
from .characters import CharacterVocabulary


@dataclass
class SentenceBatch:
    """``B`` sentences wrapped in ``<bos>`` .. ``<eos>``, padded to ``T`` positions.

    Attributes:
        char_ids: ``(U, C)`` int64, the characters of the batch's U distinct words.
        index: ``(B, T)`` int64, the row of ``char_ids`` at each position.
        targets: ``(B, T)`` int64, the softmax vocabulary id at each position (0 at padding).
        mask: ``(B, T)`` bool, True at real positions.
        predictions: predictions per direction (words plus one boundary per sentence).
    """

    char_ids: torch.Tensor
    index: torch.Tensor
    targets: torch.Tensor
    mask: torch.Tensor
    predictions: int

    @property
    def words(self) -> int:
        """Real words in the batch, boundaries not counted."""
        return self.predictions - self.mask.shape[0]

    def to(self, device: torch.device) -> SentenceBatch:
        if device.type == "cpu":
            return self
        move = lambda t: t.pin_memory().to(device, non_blocking=True)  # noqa: E731
        return SentenceBatch(move(self.char_ids), move(self.index), move(self.targets), move(self.mask),
                             self.predictions)


class LanguageModelData(Sentences):
    """Sentences as rows of a word table, with the ids the biLM needs.

    Args:
        types: the distinct words the sentences are made of.
        token_ids: ``(N,)`` every token as an index into ``types``.
        offsets: ``(S + 1,)`` sentence ``i`` is ``token_ids[offsets[i]:offsets[i + 1]]``.
        words: the softmax vocabulary (with ``<unk>``, ``<bos>`` and ``<eos>``).
        characters: the character vocabulary.
        max_length: longer sentences are cut into pieces of at most this many tokens.
    """

    def __init__(self, types, token_ids: np.ndarray, offsets: np.ndarray, words: Vocabulary,
                 characters: CharacterVocabulary, max_length: int):
        table_words = [*types, "<bos>", "<eos>"]
        self.bos, self.eos, self.pad = len(types), len(types) + 1, len(types) + 2
        self.char_table = np.concatenate([characters.encode(table_words),
                                          np.zeros((1, characters.max_characters), np.int64)])
        unk = words.unk_id
        self.target_table = np.asarray([words.word_to_id.get(word, unk) for word in table_words] + [0], np.int64)
        lengths = np.diff(offsets)
        self.num_split = int((lengths > max_length).sum())
        self.token_ids = np.asarray(token_ids, dtype=np.int64)
        self.offsets = split_offsets(offsets, max_length)
        self.max_length = max_length

    def batch(self, sentences: np.ndarray) -> SentenceBatch:
        """The :class:`SentenceBatch` of the given sentence numbers."""
        starts, ends = self.offsets[sentences], self.offsets[np.asarray(sentences) + 1]
        lengths = ends - starts
        width = int(lengths.max()) + 2
        positions = np.arange(width)[None, :]
        rows = np.full((len(sentences), width), self.pad, dtype=np.int64)
        inside = (positions >= 1) & (positions <= lengths[:, None])
        rows[inside] = self.token_ids[(starts[:, None] + positions - 1)[inside]]
        rows[:, 0] = self.bos
        rows[np.arange(len(sentences)), lengths + 1] = self.eos
        distinct, index = np.unique(rows, return_inverse=True)
        mask = positions <= lengths[:, None] + 1
        return SentenceBatch(torch.from_numpy(self.char_table[distinct]),
                             torch.from_numpy(index.reshape(rows.shape)),
                             torch.from_numpy(self.target_table[rows]), torch.from_numpy(mask),
                             int(lengths.sum()) + len(sentences))
