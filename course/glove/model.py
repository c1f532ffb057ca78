"""The GloVe model: its tables of vectors and biases with AdaGrad's accumulators, and :func:`train_glove`.

Word vectors ``w_i`` and context vectors ``w~_j`` (``dim`` each), a word bias ``b_i`` and a context
bias ``b~_j``, all starting uniform in ``[-0.5, 0.5] / (dim + 1)`` as in ``glove.c``. The vectors
kept are ``w + w~`` by default (``glove.c``'s ``-model 2``), or ``w`` or ``w~`` alone.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from ..core import devices
from ..static import StaticVectorModel, TrainingState, hogwild
from ..text.vocab import Vocabulary
from .config import GloVeConfig
from .counting import ENTRY_BYTES, cooccurrence_counts, nonzero_entries
from .loss import weighting
from .trainer import FastTrainer


@dataclass
class GloVeState(TrainingState):
    """:class:`~course.static.TrainingState` counting ``entries_done``, the non-zero entries trained on
    over all epochs, beside ``entries_per_epoch``; ``history`` holds (entries done, mean loss per
    entry) of each batch."""

    entries_done: int = 0
    entries_per_epoch: int = 0

    @property
    def done(self) -> int:
        return self.entries_done

    def count(self, examples: int) -> None:
        self.entries_done += examples


class GloVe(StaticVectorModel):
    """A GloVe model over a :class:`~course.text.vocab.Vocabulary` (built without special tokens).

    Attributes:
        word_vectors, context_vectors: ``(V, d)`` float32, w and w~.
        word_biases, context_biases: ``(V,)`` float32, b and b~.
        gradsq: AdaGrad's accumulators, one tensor of the same shape per parameter, in that order.
        state: a :class:`GloVeState`.
    """

    FORMAT, NAME, Config, State = "course.glove/1", "GloVe", GloVeConfig, GloVeState
    # AdaGrad follows no schedule, so a larger ``epochs`` simply trains on
    RESUME_FREE = frozenset({"device", "threads", "vectors", "epochs"})

    def __init__(self, vocab: Vocabulary, config: GloVeConfig):
        import torch

        self.vocab, self.config = vocab, config
        self.device = devices.resolve_device(config.device)
        table = len(vocab) * (config.dim + 1) * 4  # a (V, d) table and its biases
        devices.check_memory(f"GloVe with {len(vocab):,} words of {config.dim:,} dimensions", 2 * table,
                             "use a smaller dim, or a larger min_count", self.device, 4 * table)
        rng = np.random.default_rng(config.seed)
        size, scale = len(vocab), config.dim + 1

        def uniform(*shape):
            return torch.from_numpy((rng.random(shape, dtype=np.float32) - 0.5) / scale).to(self.device)

        self.word_vectors = uniform(size, config.dim)
        self.context_vectors = uniform(size, config.dim)
        self.word_biases = uniform(size)
        self.context_biases = uniform(size)
        self.gradsq = [torch.ones_like(p) for p in self.parameters()]
        self.state = GloVeState()
        self.trained_on: dict | None = None

    def parameters(self) -> list:
        """``[word_vectors, context_vectors, word_biases, context_biases]``."""
        return [self.word_vectors, self.context_vectors, self.word_biases, self.context_biases]

    def vectors(self):
        """``(V, d)`` the vectors kept: ``w + w~``, ``w`` or ``w~`` as ``config.vectors`` says."""
        if self.config.vectors == "word":
            return self.word_vectors
        if self.config.vectors == "context":
            return self.context_vectors
        return self.word_vectors + self.context_vectors

    def loss(self, cooccurrences: sp.csr_matrix, batch_size: int = 65_536) -> float:
        """Mean loss per non-zero entry of ``cooccurrences`` ``(V, V)`` under the current parameters."""
        import torch

        total, entries = 0.0, nonzero_entries(cooccurrences)
        with torch.no_grad():
            for start in range(0, len(entries[0]), batch_size):
                rows, cols, counts = (torch.from_numpy(a[start:start + batch_size]).to(self.device) for a in entries)
                dots = (self.word_vectors.index_select(0, rows) * self.context_vectors.index_select(0, cols)).sum(1)
                diff = dots + self.word_biases[rows] + self.context_biases[cols] - counts.log()
                weights = weighting(counts, self.config.x_max, self.config.alpha)
                total += 0.5 * float((weights * diff * diff).sum())
        return total / max(1, len(entries[0]))

    def checkpoint_tensors(self) -> dict:
        return {"parameters": [p.cpu() for p in self.parameters()], "gradsq": [g.cpu() for g in self.gradsq]}

    def restore_tensors(self, payload: dict) -> None:
        for mine, saved in zip(self.parameters() + self.gradsq, payload["parameters"] + payload["gradsq"], strict=True):
            mine.copy_(saved)

    def share_memory(self) -> None:
        self.word_vectors, self.context_vectors, self.word_biases, self.context_biases = (
            hogwild.shared_tensor(p) for p in self.parameters())
        self.gradsq = [hogwild.shared_tensor(g) for g in self.gradsq]

    def cooccurrences(self, corpus) -> sp.csr_matrix:
        """The ``(V, V)`` co-occurrence counts of ``corpus`` over this model's vocabulary.

        Raises:
            SettingError: the counts would hold more non-zero entries than there is memory to train on.
        """
        ids, offsets = self.vocab.encode_corpus(corpus, unknown="drop")
        if self.config.across_sentences:
            offsets = np.array([0, len(ids)])
        available = devices.available_memory()
        return cooccurrence_counts(ids, offsets, len(self.vocab), self.config.window,
                                   max_entries=None if available is None else available // ENTRY_BYTES)

    def train(self, corpus=None, cooccurrences: sp.csr_matrix | None = None, progress: bool = True,
              checkpoint: str | os.PathLike | None = None, callback=None, callback_seconds: float = 1.0) -> GloVe:
        """Train with the fast trainer (:class:`~course.glove.trainer.FastTrainer`) until
        ``config.epochs`` epochs are done (continuing a resumed model).

        Give the ``corpus`` (counted here) or its ``cooccurrences`` ``(V, V)`` (from
        :func:`~course.glove.counting.cooccurrence_counts`). A checkpoint is written after every
        epoch when ``checkpoint`` is given. ``callback(model)``, if given, is called from the
        calling thread about every ``callback_seconds`` while training runs (for a live loss curve:
        ``model.state.history``) and after every epoch.

        Raises:
            SettingError: no two vocabulary words occur within ``window`` of each other.
        """
        if cooccurrences is None:
            if corpus is None:
                raise ValueError("give a corpus or its co-occurrence counts")
            cooccurrences = self.cooccurrences(corpus)
        if cooccurrences.shape != (len(self.vocab), len(self.vocab)):
            raise ValueError(f"co-occurrences of shape {cooccurrences.shape} for a vocabulary of {len(self.vocab)}")
        FastTrainer(self).train(cooccurrences, corpus, progress=progress, checkpoint=checkpoint, callback=callback,
                                callback_seconds=callback_seconds)
        return self


def train_glove(corpus, config: GloVeConfig = GloVeConfig(), progress: bool = True,
                checkpoint: str | os.PathLike | None = None, resume: bool = False, callback=None) -> GloVe:
    """Build the vocabulary of ``corpus``, count its co-occurrences and train GloVe on them.

    With ``resume=True`` and an existing ``checkpoint``, training continues from the last finished
    epoch; a checkpoint is written after every epoch. The corpus and the settings must be the same,
    except ``device``, ``threads``, ``vectors`` and ``epochs``: AdaGrad follows no schedule, so a
    larger ``epochs`` simply trains on.

    Raises:
        SettingError: ``resume`` without a ``checkpoint``; a ``checkpoint`` trained on another
            corpus or with other settings; a run that would need more memory than there is.
        OutputFileError: a ``checkpoint`` that cannot be written (a folder, ...), before counting.
    """
    model = GloVe.start(corpus, config, checkpoint, resume)
    return model.train(corpus, progress=progress, checkpoint=checkpoint, callback=callback)
