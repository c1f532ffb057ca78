"""The model file of a language model with a config: one way to save and read it for the biLM
(:class:`course.elmo.Elmo`) and the Transformers (:class:`course.transformer.Transformer`).

The file is a ``torch.save`` dictionary of plain types and tensors (read back with
``weights_only=True``): ``{"format", "config", "words", "counts", "specials", ..., "weights",
"state"}``, where ``...`` are the model's own entries (the biLM's ``characters``); a checkpoint
adds the training's entries beside them (the optimizer's state, the random generators' ...).
"""

from __future__ import annotations

import os
from dataclasses import asdict
from pathlib import Path

import torch

from ..core.divergence import check_weights
from ..core.errors import ModelFileError
from ..core.io import atomic_path
from ..text.vocab import Vocabulary
from .state import TrainingState

KINDS = {"course.elmo/1": "an ELMo model file", "course.transformer/1": "a Transformer model file"}  # by mark
CHECKPOINT_ENTRIES = ("identity", "interval")  # what a training checkpoint holds beside the model, a model file not


class ModelFile:
    """``save`` and ``load`` for a model with ``config``, ``words``, ``state`` and a network.

    A model class sets ``FORMAT`` (the file's mark), ``KIND`` (its name in messages: ``"ELMo"``),
    ``TRAIN_HINT`` (how to train one), ``CONFIG`` (its config class) and ``NETWORK`` (the attribute
    that holds the ``torch.nn.Module``), and gives :meth:`file_entries` and :meth:`from_file` where
    it keeps more than the vocabulary.
    """

    FORMAT: str
    KIND: str
    TRAIN_HINT: str
    CONFIG: type
    NETWORK: str

    def file_entries(self) -> dict:
        """The model's own entries of the file, besides the config, the vocabulary and the weights."""
        return {}

    @classmethod
    def from_file(cls, config, words: Vocabulary, payload: dict, device: str):
        """A model of ``config`` and ``words`` (and the model's own entries of ``payload``) on ``device``."""
        return cls(config, words, device=device)

    def save(self, path: str | os.PathLike, extra: dict | None = None) -> Path:
        """Write the model file (atomically); ``extra`` entries are stored beside (checkpoints).

        Raises:
            TrainingDivergedError: a weight (or a best weight of a checkpoint) that is not finite:
                nothing is written (:func:`course.core.divergence.check_weights`).
            ModelFileError: ``path`` is a folder.
        """
        network = getattr(self, self.NETWORK)
        payload = {
            "format": self.FORMAT,
            "config": self.config.to_dict(),
            "words": [str(word) for word in self.words.words],
            "counts": self.words.counts.tolist(),
            "specials": list(self.words.specials),
            **self.file_entries(),
            "weights": {name: tensor.detach().cpu() for name, tensor in network.state_dict().items()},
            "state": asdict(self.state),
            **(extra or {}),
        }
        target = Path(path)
        if target.is_dir():
            raise ModelFileError(f"{target} is a folder: give a file name for the model")
        check_weights(target, {"weights": payload["weights"], "best_weights": payload.get("best_weights")},
                      "checkpoint" if extra else "model")
        with atomic_path(target) as temporary:
            torch.save(payload, temporary)
        return target

    @classmethod
    def load(cls, path: str | os.PathLike, device: str | None = None, with_extra: bool = False):
        """Read a model file written by :meth:`save` (on ``device``; default ``"auto"``).

        Returns the model, or ``(model, payload)`` with ``with_extra=True``.

        Raises:
            ModelFileError: no such file, a damaged one, not a model file of this kind of ours, or a
                training checkpoint where a model is asked for (with ``with_extra``: the reverse).
        """
        path = Path(path)
        if not path.is_file():
            raise ModelFileError(f"{path}: no such model file; train one with {cls.TRAIN_HINT}")
        try:
            payload = torch.load(path, map_location="cpu", weights_only=True)
        except Exception as exc:  # noqa: BLE001 - torch raises many kinds for a file that is not its own
            raise ModelFileError(f"{path}: not a readable {cls.KIND} model file (truncated, or another kind of "
                                 f"file: {type(exc).__name__}); train it again") from None
        mark = payload.get("format") if isinstance(payload, dict) else None
        if mark != cls.FORMAT:
            what = (f"{KINDS[mark]} ({mark!r})" if mark in KINDS
                    else f"a file marked {mark!r}" if isinstance(mark, str) else "a file without a course model mark")
            raise ModelFileError(f"{path}: is {what}, not {KINDS[cls.FORMAT]} of this course "
                                 f"(expected the mark {cls.FORMAT!r})")
        is_checkpoint = any(entry in payload for entry in CHECKPOINT_ENTRIES)
        if is_checkpoint and not with_extra:
            raise ModelFileError(f"{path}: is a training checkpoint of {KINDS[cls.FORMAT]}, not the model: give the "
                                 f"file the run wrote with --out, or resume the run with --checkpoint {path} --resume")
        if with_extra and not is_checkpoint:
            raise ModelFileError(f"{path}: is {KINDS[cls.FORMAT]}, not a training checkpoint: give --checkpoint a new "
                                 "file or the checkpoint of the run to resume")
        try:
            config = cls.CONFIG.from_dict(payload["config"])
            words = Vocabulary(payload["words"], payload["counts"], payload["specials"])
            model = cls.from_file(config, words, payload, device or "auto")
            network = getattr(model, cls.NETWORK)
            network.load_state_dict(payload["weights"])
            network.eval()  # ready to use, as training leaves it (dropout off)
            model.state = TrainingState(**payload["state"])
        except (KeyError, TypeError, ValueError, RuntimeError) as exc:
            message = f"{path}: a damaged {cls.KIND} model file ({type(exc).__name__}: {exc})"
            raise ModelFileError(" ".join(message.split())[:300]) from None
        return (model, payload) if with_extra else model
