"""Checkpoint files of the static-vector trainers: a dict of plain types and tensors, written
atomically with ``torch.save`` and read back with a check of its ``format`` tag."""

from __future__ import annotations

import os
import pickle
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from .errors import SettingError
from .paths import atomic_path


def write_checkpoint(path: str | os.PathLike, payload: dict) -> Path:
    """Save ``payload`` (which names its ``format``) at ``path``; a reader never sees half a file."""
    import torch

    with atomic_path(path) as temporary:
        torch.save(payload, temporary)
    return Path(path)


def read_checkpoint(path: str | os.PathLike, format: str) -> dict:
    """The payload saved at ``path``; ``ValueError`` if it is not a ``format`` checkpoint."""
    import torch

    payload = torch.load(path, map_location="cpu", weights_only=False)
    if not isinstance(payload, dict) or payload.get("format") != format:
        raise ValueError(f"not a {format} checkpoint of this course")
    return payload


@contextmanager
def checkpoint_errors(path: str | os.PathLike, model: str) -> Iterator[None]:
    """Turn the ways reading a checkpoint can fail into one-line :class:`SettingError` messages."""
    try:
        yield
    except FileNotFoundError:
        raise SettingError(f"{path}: no such checkpoint") from None
    except (RuntimeError, ValueError, KeyError, TypeError, EOFError, pickle.UnpicklingError) as exc:
        raise SettingError(f"{path}: not a readable {model} checkpoint ({exc})") from None
