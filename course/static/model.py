"""A static-vector model's files, and how its training run starts or resumes.

A model is a :class:`~course.text.vocab.Vocabulary` (built without special tokens), a config
dataclass, tables of vectors and a :class:`~course.static.state.TrainingState`. Its vectors
leave the package as gensim ``KeyedVectors`` and word2vec files; its checkpoints are a dict of
plain types and tensors (:mod:`course.core.checkpoints`), so that a crafted file is refused unread.
"""

from __future__ import annotations

import os
from dataclasses import asdict
from pathlib import Path
from typing import ClassVar

from ..core.checkpoints import (
    check_resumable,
    checkpoint_errors,
    read_checkpoint,
    resumes,
    run_identity,
    vocabulary_key,
    write_checkpoint,
)
from ..core.errors import EmptyVocabularyError
from ..text.vocab import Vocabulary, VocabularyConfig


class StaticVectorModel:
    """What word2vec and GloVe models share.

    A subclass sets ``FORMAT`` (the checkpoint's format), ``NAME`` (for messages), ``Config``,
    ``State`` and ``RESUME_FREE`` (settings that may change when a run resumes), builds its
    tables in ``__init__(vocab, config)`` and says what :meth:`vectors` are, which tensors a
    checkpoint holds (:meth:`checkpoint_tensors`, :meth:`restore_tensors`) and how they move into
    memory that forked workers share (:meth:`share_memory`).

    Attributes:
        vocab, config, device, state: the words, the settings, where the tables are, where training stands.
        trained_on: the corpus trained on (:func:`course.core.checkpoints.corpus_key`), once training starts.
    """

    FORMAT: ClassVar[str]
    NAME: ClassVar[str]
    Config: ClassVar[type]
    State: ClassVar[type]
    # device and threads change neither the examples nor the maths of an update
    RESUME_FREE: ClassVar[frozenset[str]] = frozenset({"device", "threads"})

    def vectors(self):
        """``(V, d)`` the word vectors kept."""
        raise NotImplementedError

    def checkpoint_tensors(self) -> dict:
        """The tables a checkpoint saves, by name (tensors, or lists of them)."""
        raise NotImplementedError

    def restore_tensors(self, payload: dict) -> None:
        """Copy the tables of a checkpoint's ``payload`` into this model's."""
        raise NotImplementedError

    def share_memory(self) -> None:
        """Move the trained tables into memory that forked worker processes share."""
        raise NotImplementedError

    # -------------------------------------------------------------------------------- vectors

    def keyed_vectors(self):
        """The word vectors as a gensim ``KeyedVectors``, most frequent word first."""
        from ..analysis.vectors import keyed_vectors

        return keyed_vectors(self.vocab.words, self.vectors().float().cpu().numpy())

    def save_vectors(self, path: str | os.PathLike, binary: bool = False) -> Path:
        """Write the word vectors in word2vec format (text, or binary), atomically; refused, with
        nothing written, where a vector is not finite (a run that diverged)."""
        from ..analysis.vectors import save_word_vectors
        from ..core.divergence import check_weights, smaller

        check_weights(path, {"vectors": self.vectors()}, "vectors", smaller(lr=self.config.lr))
        return save_word_vectors(self.vocab.words, self.vectors().float().cpu().numpy(), path, binary=binary)

    # ---------------------------------------------------------------------------- checkpoints

    def save_checkpoint(self, path: str | os.PathLike) -> Path:
        """Save everything needed to resume training (atomically); refused, with nothing written, where
        a table is not finite (:func:`course.core.checkpoints.write_checkpoint`)."""
        tensors = self.checkpoint_tensors()
        return write_checkpoint(path, {
            "format": self.FORMAT,
            "config": asdict(self.config),
            "words": [str(word) for word in self.vocab.words],  # plain str, never numpy.str_
            "counts": self.vocab.counts.tolist(),
            **tensors,
            "state": asdict(self.state),
            "identity": {"corpus": self.trained_on, "vocabulary": vocabulary_key(self.vocab.words)}
            if self.trained_on is not None else None,
        }, weights=tuple(tensors))

    @classmethod
    def load_checkpoint(cls, path: str | os.PathLike, device: str | None = None):
        """Load a model saved by :meth:`save_checkpoint` (on ``device``, default: the saved one)."""
        with checkpoint_errors(path, cls.NAME):
            payload = read_checkpoint(path, cls.FORMAT)
            config = cls.Config(**{**payload["config"], **({"device": device} if device else {})})
            model = cls(Vocabulary(payload["words"], payload["counts"], specials=()), config)
            model.restore_tensors(payload)
            model.state = cls.State.from_dict(payload["state"])
            identity = payload.get("identity")
            model.trained_on = identity["corpus"] if identity else None
            return model

    @classmethod
    def start(cls, corpus, config, checkpoint: str | os.PathLike | None = None, resume: bool = False):
        """A new model over the vocabulary of ``corpus``, or, with ``resume`` and an existing
        ``checkpoint``, the model saved there, now with ``config``.

        Raises:
            SettingError: ``resume`` without a ``checkpoint``; a ``checkpoint`` trained on another
                corpus or with other settings than ``config`` (but for ``RESUME_FREE``).
            OutputFileError: a ``checkpoint`` that cannot be written (a folder, ...).
        """
        def vocabulary() -> Vocabulary:
            return Vocabulary.from_corpus(corpus, VocabularyConfig(min_count=config.min_count,
                                                                   max_size=config.max_vocab, specials=()))

        if resumes(checkpoint, resume):
            model = cls.load_checkpoint(checkpoint, device=config.device)
            saved = {"config": asdict(model.config), "identity": model.trained_on and {
                "corpus": model.trained_on, "vocabulary": vocabulary_key(model.vocab.words)}}
            try:
                words = vocabulary().words
            except EmptyVocabularyError:  # another corpus, too small for min_count: say that it is another
                words = []
            check_resumable(checkpoint, saved, run_identity(corpus, words), asdict(config), cls.RESUME_FREE)
            model.config = config
            return model
        return cls(vocabulary(), config)
