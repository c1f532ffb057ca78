"""Static word vectors in and out of the package, as gensim ``KeyedVectors``."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from .errors import VectorsFileError
from .paths import atomic_path


def keyed_vectors(words: Sequence[str], vectors: np.ndarray):
    """A gensim ``KeyedVectors`` holding ``vectors`` ``(len(words), d)`` under ``words``, in that order."""
    from gensim.models import KeyedVectors

    vectors = np.asarray(vectors, dtype=np.float32)
    if vectors.ndim != 2 or len(vectors) != len(words):
        raise ValueError(f"need one row per word: {len(words)} words, vectors of shape {vectors.shape}")
    kv = KeyedVectors(vectors.shape[1], dtype=np.float32)
    kv.add_vectors(list(words), vectors)
    return kv


def save_vectors(kv, path: str | os.PathLike, binary: bool = False) -> Path:
    """Write ``kv`` in word2vec format (text, or binary with ``binary=True``), atomically."""
    target = Path(path)
    with atomic_path(target) as temporary:
        kv.save_word2vec_format(str(temporary), binary=binary)
    return target


def load_vectors(path: str | os.PathLike):
    """Read a word2vec-format vectors file (text or binary, told apart by its contents).

    Raises:
        VectorsFileError: a missing, truncated or malformed file.
    """
    from gensim.models import KeyedVectors

    path = Path(path)
    if not path.is_file():
        raise VectorsFileError(f"{path}: no such vectors file")
    with open(path, "rb") as handle:
        header = handle.readline()
        body = handle.read(4096)
    try:
        count, size = (int(x) for x in header.split())
    except ValueError:
        raise VectorsFileError(
            f"{path}: not a word2vec-format file (the first line must be 'words dimensions')") from None
    try:
        body.decode("utf-8")
        binary = False
    except UnicodeDecodeError as exc:
        binary = exc.start < len(body) - 4  # a multi-byte character cut at the end is still text
    try:
        return KeyedVectors.load_word2vec_format(str(path), binary=binary)
    except (ValueError, EOFError, UnicodeDecodeError, IndexError) as exc:
        raise VectorsFileError(
            f"{path}: truncated or malformed word2vec file ({count:,} x {size} declared): {exc}") from None
