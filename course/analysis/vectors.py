"""Static word vectors in and out of the package, as gensim ``KeyedVectors``."""

from __future__ import annotations

import logging
import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ..core.errors import VectorsFileError
from ..core.io import atomic_path


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


FORMATS = ("auto", "word2vec", "word2vec-binary", "glove", "kv")
"""What :func:`load_vectors` reads: ``auto`` (told from the file, see there), word2vec text (a first
line ``words dimensions``), word2vec binary, GloVe text (no first line) and gensim's ``.kv`` files."""

_NAMES = {"word2vec": "word2vec text", "word2vec-binary": "word2vec binary", "glove": "GloVe text",
          "kv": "gensim KeyedVectors (.kv)"}


def load_vectors(path: str | os.PathLike, format: str = "auto"):
    """Read a vectors file, through gensim's loaders, as gensim ``KeyedVectors`` (float32).

    ``format`` is one of :data:`FORMATS`:

    - ``word2vec``: the first line is ``words dimensions``, then each word and its numbers on a line,
      separated by spaces (``KeyedVectors.load_word2vec_format(binary=False)``);
    - ``word2vec-binary``: the same first line, then each word, a space and its vector as float32
      (``binary=True``);
    - ``glove``: Stanford's GloVe text files, the word2vec text format without its first line
      (``no_header=True``);
    - ``kv``: a file gensim's ``KeyedVectors.save`` wrote (``KeyedVectors.load``, memory-mapped). It is
      a pickle, and reading a pickle can run any code: name only a file you trust;
    - ``auto``: ``kv`` for a name ending ``.kv``; else the first line tells: ``words dimensions``
      is word2vec (binary when the next bytes are not a line of text, or the name ends ``.bin``),
      a word followed by numbers is GloVe. A pickle under another name is refused rather than
      loaded. (A GloVe file of one dimension whose first word is a whole number looks like a first
      line of word2vec: give ``glove``.)

    The course checks what gensim does not: every word is UTF-8 and appears once (gensim would keep
    the first and drop the others; a repeated word here is a damaged or concatenated file, so it is
    refused), every vector is finite, and a word2vec file holds as many words as its first line says,
    no fewer and no more (gensim would stop reading there).

    Raises:
        VectorsFileError: one line naming the file (and the line or word) and what is wrong.
        SettingError: ``format`` is not one of :data:`FORMATS`.
    """
    path = Path(path)
    if format not in FORMATS:
        from ..core.errors import SettingError

        raise SettingError(f"unknown vectors format {format!r}; choose one of {', '.join(FORMATS)}")
    if not path.is_file():
        raise VectorsFileError(f"{path}: no such vectors file")
    if path.stat().st_size == 0:
        raise VectorsFileError(f"{path}: is empty, not a vectors file")
    if format == "auto":
        format = detect_format(path)
    if format == "kv":
        words, vectors = _read_kv(path)
    else:
        words, vectors = _read_word2vec(path, format)
    with np.errstate(over="ignore"):  # a .kv's float64 beyond float32 becomes infinity, refused below
        vectors = np.asarray(vectors, dtype=np.float32)
    bad = np.flatnonzero(~np.isfinite(vectors).all(axis=1))
    if len(bad):
        skip = {"word2vec": 2, "glove": 1}.get(format)
        where = f"word {bad[0] + 1:,}" if skip is None else f"line {bad[0] + skip:,}"
        raise VectorsFileError(f"{path}, {where}: the vector of {words[bad[0]]!r} holds NaN or infinity "
                               f"({len(bad):,} vectors do): a model that diverged?")
    return keyed_vectors(words, vectors)


def detect_format(path: str | os.PathLike) -> str:
    """Which of :data:`FORMATS` (other than ``auto``) the file at ``path`` is in, as :func:`load_vectors`
    tells it; a file that is none of them is refused (:class:`VectorsFileError`)."""
    path = Path(path)
    if path.suffix.lower() == ".kv":
        return "kv"
    with open(path, "rb") as handle:
        head = handle.read(1 << 20)
    end = head.find(b"\n")
    first = head[:end if end >= 0 else len(head)]
    fields = first[:100].split()
    if len(fields) == 2 and all(field.isdigit() for field in fields):
        rest = head[end + 1:] if end >= 0 else b""
        line_end = rest.find(b"\n")
        text = _is_text_vector(rest[:line_end if line_end >= 0 else len(rest)], int(fields[1]))
        binary = not text and (_looks_binary(rest[:4096]) or path.suffix.lower() == ".bin")
        return "word2vec-binary" if binary else "word2vec"
    if head.startswith(b"\x80") and len(head) > 1 and 2 <= head[1] <= 5:  # a pickle, protocol 2 to 5
        raise VectorsFileError(f"{path}: looks like a pickle, as gensim's .kv files are; to read it as one, name it "
                               "*.kv or give the format kv (only for a file you trust: loading a pickle can run code)")
    fields = first.split()
    if len(fields) >= 2 and b"\x00" not in first and all(_is_number(field) for field in fields[1:]):
        return "glove"
    raise VectorsFileError(f"{path}: not a vectors file the course reads: its first line is neither 'words "
                           "dimensions' (word2vec text or binary) nor a word and its numbers (GloVe), and its name "
                           "does not end in .kv (gensim's KeyedVectors.save)")


def _read_kv(path: Path) -> tuple[list[str], np.ndarray]:
    """The words and vectors of a gensim ``.kv`` file (a pickle, with its large arrays memory-mapped
    from the ``.npy`` files beside it when ``save`` wrote them apart)."""
    from gensim.models import KeyedVectors

    try:
        kv = KeyedVectors.load(str(path), mmap="r")
    except Exception as exc:  # unpickling a file that is not one can raise anything
        raise VectorsFileError(f"{path}: not a gensim KeyedVectors file (.kv): {_reason(exc)}") from None
    if not isinstance(kv, KeyedVectors):
        advice = "; save its vectors with model.wv.save(...)" if isinstance(getattr(kv, "wv", None),
                                                                           KeyedVectors) else ""
        raise VectorsFileError(f"{path}: holds a gensim {type(kv).__name__}, not KeyedVectors{advice}")
    vectors = np.asarray(kv.vectors)
    words = [str(word) for word in kv.index_to_key]
    if vectors.ndim != 2 or len(vectors) != len(words) or len(words) == 0 or vectors.shape[1] == 0:
        raise VectorsFileError(f"{path}: a damaged .kv file: {len(words):,} words and vectors of shape "
                               f"{vectors.shape}; a vectors file needs at least one word of one dimension")
    if not np.issubdtype(vectors.dtype, np.floating):
        raise VectorsFileError(f"{path}: its vectors are {vectors.dtype}, not numbers with a fraction")
    return words, vectors


def _read_word2vec(path: Path, format: str) -> tuple[list[str], np.ndarray]:
    """The words and vectors of a word2vec (text or binary) or GloVe file, read by gensim's
    ``load_word2vec_format``, with the course's checks around it."""
    from gensim.models import KeyedVectors

    binary, headed = format == "word2vec-binary", format != "glove"
    count = dim = 0
    if headed:
        import mmap

        with open(path, "rb") as handle, mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as data:
            count, dim, start = _header(path, data)  # before gensim allocates what the first line declares
            line_end = data.find(b"\n", start)
            if binary and _is_text_vector(data[start:line_end if line_end >= 0 else len(data)], dim):
                raise VectorsFileError(f"{path}: read as word2vec binary, but its second line is a word and "
                                       f"{_many(dim, 'number')} in text: give the format word2vec (or auto)")
    repeated = _Repeated()
    gensim_log = logging.getLogger("gensim.models.keyedvectors")
    gensim_log.addHandler(repeated)
    try:
        with np.errstate(over="ignore"):  # a number beyond float32 becomes infinity, refused below
            kv = KeyedVectors.load_word2vec_format(str(path), binary=binary, no_header=not headed)
    except UnicodeDecodeError as exc:
        raise VectorsFileError(_undecoded(path, exc, format)) from None
    except (ValueError, EOFError, IndexError, OverflowError, TypeError, MemoryError) as exc:
        raise VectorsFileError(_fault(path, format, count, dim) or f"{path}: not a {_NAMES[format]} file: "
                                                                   f"{_reason(exc)}") from None
    finally:
        gensim_log.removeHandler(repeated)
    words = list(kv.index_to_key)
    if repeated.words or (headed and len(words) != count):
        raise VectorsFileError(_repeats(path, format, repeated.words))
    if not binary:
        lines, spaces = _lines_and_spaces(path)
        if not headed and len(words) < lines:  # gensim kept the first of a repeated word (and logged the others)
            raise VectorsFileError(_repeats(path, format, repeated.words))
        if headed and lines - 1 > count:
            raise VectorsFileError(f"{path}, line {count + 2:,}: its first line declares {_many(count, 'word')}, but "
                                   f"the file holds {_many(lines - 1, 'line')} of vectors: correct the first line")
        # gensim stretches a row of one number to the width of the others: count the spaces between the numbers
        if spaces < len(words) * kv.vector_size + headed:
            fault = _fault(path, format, count, dim)
            if fault:
                raise VectorsFileError(fault)
    if binary:
        least = start + sum(len(word.encode("utf-8")) + 1 for word in words) + 4 * dim * count
        if path.stat().st_size > least + count + 1:  # a newline after each vector, as word2vec's C tool writes
            raise VectorsFileError(f"{path}: its first line declares {_many(count, 'word')}, and more bytes follow "
                                   "the last of them: correct the first line")
    return words, np.asarray(kv.vectors)


class _Repeated(logging.Handler):
    """Collects the words gensim's loader reports as repeated (it keeps the first and logs the others)."""

    def __init__(self):
        super().__init__(logging.WARNING)
        self.words: list[str] = []

    def emit(self, record) -> None:
        if str(record.msg).startswith("duplicate word") and record.args:
            self.words.append(str(record.args[0]))


def _reason(exc: BaseException) -> str:
    """An exception's message on one line, with its type when it has none."""
    text = " ".join(str(exc).split())
    return text or type(exc).__name__


def _undecoded(path: Path, exc: UnicodeDecodeError, format: str) -> str:
    """A word that is not UTF-8: which bytes, where, and what the file's encoding looks like."""
    if format == "word2vec-binary":
        raw = exc.object[max(0, exc.start - 20):exc.end + 20]
        return (f"{path}: a word holds bytes that are not UTF-8 (0x{exc.object[exc.start]:02x} in {raw!r}): a "
                "word2vec binary file that is damaged, not one at all, or with words in another encoding")
    with open(path, "rb") as handle:
        sample = handle.read(1 << 20)
        handle.seek(0)
        for number, line in enumerate(handle, 1):
            try:
                line.decode("utf-8")
            except UnicodeDecodeError:
                fields = line.split() or [line]
                bad = next((field for field in fields if not _decodes(field)), line)
                if bad is fields[0]:
                    return _word_error(path, bad, f"line {number:,}", sample)
                from ..text.corpus import encoding_advice

                return (f"{path}, line {number:,}: truncated or malformed {_NAMES[format]} file: {bad[:40]!r} is "
                        f"not a number, nor even UTF-8 text; {encoding_advice(sample)}")
    return _word_error(path, exc.object[max(0, exc.start - 20):exc.end + 20], "somewhere", sample)


def _decodes(raw: bytes) -> bool:
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _word_error(path: Path, raw: bytes, where: str, sample: bytes) -> str:
    from ..text.corpus import encoding_advice

    try:
        raw.decode("utf-8")
        byte = ""
    except UnicodeDecodeError as exc:
        byte = f" (byte 0x{raw[exc.start]:02x})"
    return f"{path}, {where}: the word {raw!r} is not UTF-8{byte}; {encoding_advice(sample)}"


def _fault(path: Path, format: str, count: int, dim: int) -> str | None:
    """Where a text file gensim could not read goes wrong, and how, in one line (None when it is not a
    text file's fault that is found here: a binary file's, or one the message of gensim says best)."""
    if format == "word2vec-binary":
        return (f"{path}: truncated or malformed word2vec binary file: its first line declares "
                f"{_many(count, 'word')} of {_many(dim, 'dimension')}, and the file ends before the last of them")
    skip = 1 if format == "word2vec" else 0
    number = 0
    with open(path, "rb") as handle:
        for number, line in enumerate(handle, 1):
            if number <= skip:
                continue
            fields = line.rstrip().split(b" ")  # as gensim splits a line
            if not dim:
                dim = len(fields) - 1
            if len(fields) != dim + 1:
                found = _many(max(0, len(fields) - 1), "number") if line.strip() else "an empty line"
                return (f"{path}, line {number:,}: truncated or malformed {_NAMES[format]} file: expected a word and "
                        f"{_many(dim, 'number')}, found {found}")
            bad = next((field for field in fields[1:] if not _is_number(field)), None)
            if bad is not None:
                return f"{path}, line {number:,}: truncated or malformed {_NAMES[format]} file: {bad!r} is not a number"
            if skip and number - skip == count:
                return None
    if skip and number - skip < count:
        return (f"{path}: truncated or malformed word2vec text file: its first line declares {_many(count, 'word')}, "
                f"and {_many(max(0, number - skip), 'line')} follow it")
    return None


def _repeats(path: Path, format: str, words: list[str]) -> str:
    """A repeated word, with the lines it is on in a text file."""
    if not words:
        return f"{path}: gensim read fewer words than the file has lines of vectors: a word appears twice?"
    word = words[0]
    if format != "word2vec-binary":
        skip = 1 if format == "word2vec" else 0
        target, seen = word.encode("utf-8"), []
        with open(path, "rb") as handle:
            for number, line in enumerate(handle, 1):
                if number > skip and line.split(b" ", 1)[0].strip() == target:
                    seen.append(number)
                    if len(seen) == 2:
                        return (f"{path}, line {seen[1]:,}: the word {word!r} appears again (first on line "
                                f"{seen[0]:,}); each word must have one vector")
    others = len(set(words)) - 1
    also = f" (and {_many(others, 'other word')})" if others else ""
    return f"{path}: the word {word!r}{also} appears more than once; each word must have one vector"


def _lines_and_spaces(path: Path) -> tuple[int, int]:
    """How many lines the file holds and how many spaces, not counting the white space at its end."""
    size = path.stat().st_size
    with open(path, "rb") as handle:
        end = size
        while end > 0:  # just after the last byte that is not white space
            handle.seek(max(0, end - (1 << 16)))
            tail = handle.read(end - max(0, end - (1 << 16))).rstrip()
            if tail:
                end = max(0, end - (1 << 16)) + len(tail)
                break
            end = max(0, end - (1 << 16))
        handle.seek(0)
        newlines = spaces = position = 0
        while position < end:
            chunk = handle.read(min(1 << 24, end - position))
            newlines, spaces = newlines + chunk.count(b"\n"), spaces + chunk.count(b" ")
            position += len(chunk)
    return (newlines + 1 if end else 0), spaces


def _header(path: Path, data) -> tuple[int, int, int]:
    """``(words, dimensions, where the first vector starts)`` from the first line, refused when the
    file is too short to hold what it declares (so that nothing is allocated for a wrong header)."""
    end = data.find(b"\n")
    end = len(data) if end < 0 else end
    try:
        count, dim = (int(x) for x in data[:min(end, 100)].split())
    except ValueError:
        raise VectorsFileError(
            f"{path}: not a word2vec-format file (the first line must be 'words dimensions'; a GloVe file has no "
            "such line: give the format glove, or auto)") from None
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


def _many(number: int, noun: str) -> str:
    """``"1 word"``, ``"2,000 words"``."""
    return f"{number:,} {noun}{'' if number == 1 else 's'}"


def _is_number(field: bytes) -> bool:
    try:
        float(field)
    except ValueError:
        return False
    return True
