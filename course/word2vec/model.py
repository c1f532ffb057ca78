"""The word2vec model: its tables of vectors, and :func:`train_word2vec`.

Two tables (Mikolov et al., 2013): ``input_vectors``, the word vectors we keep, and the output
layer's, ``output_vectors`` (negative sampling: one per word) or ``inner_node_vectors``
(hierarchical softmax: one per inner node of the Huffman tree). The input vectors start uniform
in [-0.5, 0.5] / d, as in word2vec.c; the output tables at zero.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np

from ..core.devices import check_memory
from ..static import StaticVectorModel, TrainingState
from ..text.vocab import Vocabulary
from .config import Word2VecConfig
from .trainer import FastTrainer


@dataclass
class Word2VecState(TrainingState):
    """:class:`~course.static.TrainingState` counting ``words_done``: the corpus words trained on,
    over all epochs (before subsampling); ``history`` holds (words done, mean loss per example)."""

    words_done: int = 0

    @property
    def done(self) -> int:
        return self.words_done

    def count(self, examples: int) -> None:
        self.words_done += examples


class Word2Vec(StaticVectorModel):
    """A word2vec model over a :class:`~course.text.vocab.Vocabulary` (built without special tokens).

    Attributes:
        input_vectors: ``(V, d)`` float32, the word vectors.
        output_vectors: ``(V, d)`` float32, negative sampling's output layer (``loss="neg"``).
        inner_node_vectors: ``(V - 1, d)`` float32, hierarchical softmax's output layer (``loss="hs"``).
        state: a :class:`Word2VecState`.
    """

    FORMAT, NAME, Config, State = "course.word2vec/1", "word2vec", Word2VecConfig, Word2VecState

    def __init__(self, vocab: Vocabulary, config: Word2VecConfig):
        import torch

        from ..core.devices import resolve_device

        self.vocab, self.config = vocab, config
        self.device = resolve_device(config.device)
        table = len(vocab) * config.dim * 4
        check_memory(f"word2vec with {len(vocab):,} words of {config.dim:,} dimensions", 2 * table,
                     "use a smaller dim, or a larger min_count", self.device, 2 * table)
        rng = np.random.default_rng(config.seed)
        size = (len(vocab), config.dim)
        initial = (rng.random(size, dtype=np.float32) - 0.5) / config.dim  # word2vec.c's initialisation
        self.input_vectors = torch.from_numpy(initial).to(self.device)
        rows = len(vocab) if config.loss == "neg" else max(1, len(vocab) - 1)
        output = torch.zeros(rows, config.dim, device=self.device)
        self.output_vectors = output if config.loss == "neg" else None
        self.inner_node_vectors = output if config.loss == "hs" else None
        self.state = Word2VecState()
        self.trained_on: dict | None = None

    @property
    def output_table(self):
        """The output layer's table: ``output_vectors`` or ``inner_node_vectors``."""
        return self.output_vectors if self.config.loss == "neg" else self.inner_node_vectors

    def vectors(self):
        return self.input_vectors

    def checkpoint_tensors(self) -> dict:
        return {"input_vectors": self.input_vectors.cpu(), "output": self.output_table.cpu()}

    def restore_tensors(self, payload: dict) -> None:
        self.input_vectors.copy_(payload["input_vectors"])
        self.output_table.copy_(payload["output"])

    def share_memory(self) -> None:
        from ..static import hogwild

        self.input_vectors = hogwild.shared_tensor(self.input_vectors)
        shared = hogwild.shared_tensor(self.output_table)
        self.output_vectors = shared if self.config.loss == "neg" else None
        self.inner_node_vectors = shared if self.config.loss == "hs" else None

    def train(self, corpus, progress: bool = True, checkpoint: str | os.PathLike | None = None,
              callback=None, callback_seconds: float = 1.0) -> Word2Vec:
        """Train on ``corpus`` with the fast trainer (:class:`~course.word2vec.trainer.FastTrainer`)
        until ``config.epochs`` epochs are done (continuing a resumed model).

        A checkpoint is written after every epoch when ``checkpoint`` is given. ``callback(model)``,
        if given, is called from the calling thread about every ``callback_seconds`` while training
        runs (for a live loss curve: ``model.state.history``) and after every epoch.

        Raises:
            SettingError: the corpus gives no training example (no two vocabulary words share a sentence).
        """
        FastTrainer(self).train(corpus, progress=progress, checkpoint=checkpoint, callback=callback,
                                callback_seconds=callback_seconds)
        return self


def train_word2vec(corpus, config: Word2VecConfig = Word2VecConfig(), progress: bool = True,
                   checkpoint: str | os.PathLike | None = None, resume: bool = False, callback=None) -> Word2Vec:
    """Build the vocabulary of ``corpus`` and train word2vec on it with the fast trainer.

    With ``resume=True`` and an existing ``checkpoint``, training continues from the last finished
    epoch (the corpus and the settings must be the same, but for ``device`` and ``threads``); a
    checkpoint is written after every epoch.

    Raises:
        SettingError: ``resume`` without a ``checkpoint``; a ``checkpoint`` trained on another
            corpus or with other settings; a run that would need more memory than there is.
        OutputFileError: a ``checkpoint`` that cannot be written (a folder, ...), before training.
    """
    model = Word2Vec.start(corpus, config, checkpoint, resume)
    return model.train(corpus, progress=progress, checkpoint=checkpoint, callback=callback)
