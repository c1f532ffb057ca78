"""Static word vectors in and out of the package, as gensim ``KeyedVectors``."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ..errors import VectorsFileError
from ..paths import atomic_path


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


def save_word_vectors(words: Sequence[str], vectors: np.ndarray, path: str | os.PathLike,
                      binary: bool = False) -> Path:
    """Write ``vectors`` ``(len(words), d)`` under ``words`` in word2vec format, atomically, byte for
    byte as gensim's ``save_word2vec_format`` writes them, without importing gensim (about a second
    of a training process's start, through scipy)."""
    vectors = np.asarray(vectors, dtype=np.float32)
    target = Path(path)
    with atomic_path(target) as temporary, open(temporary, "wb") as out:
        out.write(f"{len(words)} {vectors.shape[1]}\n".encode())
        for word, row in zip(words, vectors, strict=True):
            if binary:
                out.write(f"{word} ".encode() + row.tobytes())
            else:
                out.write(f"{word} {' '.join(str(value) for value in row)}\n".encode())
    return target


def load_vectors(path: str | os.PathLike):
    """Read a word2vec-format vectors file (text or binary, told apart by its first vector).

    The first line is ``words dimensions``; then each word and its vector: in text, the word and
    the numbers on one line, separated by spaces; in binary, the word, a space and the vector as
    float32. Every word must be UTF-8 and appear once, every vector must be finite, and the file
    must hold as many words as its first line says: nothing is dropped or made up.

    Raises:
        VectorsFileError: one line naming the file (and the line or word) and what is wrong.
    """
    import mmap

    path = Path(path)
    if not path.is_file():
        raise VectorsFileError(f"{path}: no such vectors file")
    if path.stat().st_size == 0:
        raise VectorsFileError(f"{path}: is empty, not a word2vec-format file")
    with open(path, "rb") as handle, mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as data:
        count, dim, start = _header(path, data)
        line_end = data.find(b"\n", start)
        first = data[start:line_end if line_end >= 0 else len(data)]
        binary = not _is_text_vector(first, dim) and _looks_binary(data[start:start + 4096])
        words, vectors = (_read_binary if binary else _read_text)(path, data, start, count, dim)
    bad = np.flatnonzero(~np.isfinite(vectors).all(axis=1))
    if len(bad):
        where = f"word {bad[0] + 1:,}" if binary else f"line {bad[0] + 2:,}"
        raise VectorsFileError(f"{path}, {where}: the vector of {words[bad[0]]!r} holds NaN or infinity "
                               f"({len(bad):,} vectors do): a model that diverged?")
    return keyed_vectors(words, vectors)


def _header(path: Path, data) -> tuple[int, int, int]:
    """``(words, dimensions, where the first vector starts)`` from the first line, refused when the
    file is too short to hold what it declares (so that nothing is allocated for a wrong header)."""
    end = data.find(b"\n")
    end = len(data) if end < 0 else end
    try:
        count, dim = (int(x) for x in data[:min(end, 100)].split())
    except ValueError:
        raise VectorsFileError(
            f"{path}: not a word2vec-format file (the first line must be 'words dimensions')") from None
    if count < 1 or dim < 1:
        raise VectorsFileError(f"{path}: the first line declares {_many(count, 'word')} of {_many(dim, 'dimension')}; "
                               "a vectors file needs at least one of each")
    body = len(data) - end - 1
    least = count * (2 * dim + 2)  # a word of one byte and a space, each number two bytes at least
    if body < least:
        raise VectorsFileError(f"{path}: truncated or malformed word2vec file: its first line declares "
                               f"{_many(count, 'word')} of {_many(dim, 'dimension')}, which take at least "
                               f"{_many(least, 'byte')}, and {body:,} follow it")
    return count, dim, end + 1


def _is_text_vector(line: bytes, dim: int) -> bool:
    """Whether ``line`` is a word and ``dim`` numbers, as a text file's lines are."""
    fields = line.split()
    if len(fields) != dim + 1:
        return False
    try:
        [float(field) for field in fields[1:]]
    except ValueError:
        return False
    return True


def _looks_binary(sample: bytes) -> bool:
    """Whether the start of the vectors is not text: zero bytes, or bytes that are not UTF-8
    (other than a character cut at the end of the sample)."""
    if b"\x00" in sample:
        return True
    try:
        sample.decode("utf-8")
    except UnicodeDecodeError as exc:
        return exc.start < len(sample) - 4
    return False


def _word(path: Path, raw: bytes, where: str, data) -> str:
    """``raw`` decoded as UTF-8, or a one-line error with advice on what the file's encoding is."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        from ..text.corpus import encoding_advice

        raise VectorsFileError(f"{path}, {where}: the word {raw!r} is not UTF-8 (byte 0x{raw[exc.start]:02x}); "
                               f"{encoding_advice(data[:1 << 20])}") from None


def _read_text(path: Path, data, start: int, count: int, dim: int) -> tuple[list[str], np.ndarray]:
    """The words and ``(count, dim)`` vectors of a text file, line by line."""
    lines = data[start:].split(b"\n")
    if len(lines) < count:
        raise VectorsFileError(f"{path}: truncated or malformed word2vec file: its first line declares "
                               f"{_many(count, 'word')}, and {_many(len(lines), 'line')} follow it")
    words, first_seen = [], {}
    vectors = np.empty((count, dim), dtype=np.float32)
    for index in range(count):
        number = index + 2
        fields = lines[index].split()
        if len(fields) != dim + 1:
            raise VectorsFileError(f"{path}, line {number:,}: truncated or malformed word2vec file: expected a word "
                                   f"and {dim:,} numbers, found {max(0, len(fields) - 1):,} numbers")
        word = _word(path, fields[0], f"line {number:,}", data)
        if word in first_seen:
            raise VectorsFileError(f"{path}, line {number:,}: the word {word!r} appears again (first on line "
                                   f"{first_seen[word]:,}); each word must have one vector")
        first_seen[word] = number
        try:
            with np.errstate(over="ignore"):  # a number beyond float32 becomes infinity, refused below
                vectors[index] = np.array(fields[1:], dtype=np.float32)
        except ValueError:
            bad = next(field for field in fields[1:] if not _is_number(field))
            raise VectorsFileError(f"{path}, line {number:,}: truncated or malformed word2vec file: {bad!r} "
                                   "is not a number") from None
        words.append(word)
    more = [i for i in range(count, len(lines)) if lines[i].strip()]
    if more:
        raise VectorsFileError(f"{path}, line {more[0] + 2:,}: its first line declares {_many(count, 'word')}, but the "
                               f"file holds {_many(count + len(more), 'line')} of vectors: correct the first line")
    return words, vectors


def _many(number: int, noun: str) -> str:
    """``"1 word"``, ``"2,000 words"``."""
    return f"{number:,} {noun}{'' if number == 1 else 's'}"


def _is_number(field: bytes) -> bool:
    try:
        float(field)
    except ValueError:
        return False
    return True


def _read_binary(path: Path, data, start: int, count: int, dim: int) -> tuple[list[str], np.ndarray]:
    """The words and ``(count, dim)`` vectors of a binary file: each word, a space, ``dim`` float32."""
    words, first_seen = [], {}
    vectors = np.empty((count, dim), dtype=np.float32)
    size, position = len(data), start
    for index in range(count):
        space = data.find(b" ", position)
        if space < 0 or space + 1 + 4 * dim > size:
            raise VectorsFileError(f"{path}: truncated or malformed word2vec file: its first line declares "
                                   f"{_many(count, 'word')}, and it ends in word {index + 1:,}")
        word = _word(path, data[position:space].lstrip(b"\n"), f"word {index + 1:,}", data)
        if word in first_seen:
            raise VectorsFileError(f"{path}, word {index + 1:,}: the word {word!r} appears again (first as word "
                                   f"{first_seen[word]:,}); each word must have one vector")
        first_seen[word] = index + 1
        vectors[index] = np.frombuffer(data[space + 1:space + 1 + 4 * dim], dtype="<f4")
        words.append(word)
        position = space + 1 + 4 * dim
    if data[position:].strip():
        raise VectorsFileError(f"{path}: its first line declares {_many(count, 'word')}, and more bytes follow "
                               "the last of them: correct the first line")
    return words, vectors
