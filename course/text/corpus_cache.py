"""The preprocessed corpora's cache files, read back only when they prove whole and consistent.

A cached corpus is an ``.npz`` (an uncompressed zip of ``.npy`` arrays):

=========== ======== ======================================================================
array       dtype    what it holds
=========== ======== ======================================================================
types       uint8    the distinct tokens, UTF-8, joined by ``\\n``, most frequent first
token_ids   int32    ``(N,)`` every token as an index into ``types``
offsets     int64    ``(S + 1,)`` where each sentence starts, from 0 up to N
meta        uint8    JSON: name, language, the source's fingerprint, and the header ``N``, ``S``, ``V``
tag_types   uint8    (tagged corpora) the distinct tags, joined by ``\\n``
tag_ids     int16    (tagged corpora) ``(N,)`` indexes into ``tag_types``
=========== ======== ======================================================================

:func:`read_cached` checks each array's dtype and declared shape against its size in the zip
before reading it (a damaged header cannot ask for gigabytes), then that the arrays agree with
one another and with the header: ids in ``[0, V)``, offsets strictly increasing from 0 to ``N``,
every type counted at least once and the counts falling (types are stored most frequent first).
All of it is vectorised: a few passes over ``token_ids``, milliseconds for a million tokens.

A corpus read from files is cached under the files' path, size, modification time and
:func:`content_fingerprint`, so that a file edited in place and left with the same size and date
is preprocessed again rather than served stale. :func:`clear_folder_entry` deals with a folder
found where a cache file should be.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import struct
import zipfile
import zlib
from pathlib import Path

import numpy as np

from ..core.errors import OutputFileError
from ..core.io import atomic_path

DTYPES = {"types": np.uint8, "token_ids": np.int32, "offsets": np.int64, "meta": np.uint8,
          "tag_types": np.uint8, "tag_ids": np.int16}
REQUIRED = ("types", "token_ids", "offsets", "meta")
FINGERPRINT_WHOLE = 16 << 20  # bytes: a file up to this size is hashed whole
FINGERPRINT_CHUNKS = 16  # MiB a larger file is sampled at: its first, its last and 14 evenly between
_MIB = 1 << 20


class DamagedCacheError(Exception):
    """A cache file that cannot be read, or whose arrays do not agree; the message says what is wrong."""


def content_fingerprint(path: Path) -> str:
    """A BLAKE2b hash of the file at ``path`` and its size, cheap enough to take each time its cached
    corpus is looked up: a file of up to :data:`FINGERPRINT_WHOLE` bytes is hashed whole; a larger
    one at :data:`FINGERPRINT_CHUNKS` chunks of 1 MiB (its first, its last and the others evenly
    spaced between), 16 MiB read whatever its size.

    It catches any edit of a file up to 16 MiB, and an edit of a larger one that touches a sampled
    chunk or moves what follows it (an insertion or deletion shifts the later chunks). It misses an
    edit of a larger file that keeps its size and falls wholly between sampled chunks; the cache's key
    also holds the modification time, so such an edit goes unseen only if the time is kept too (a copy
    that keeps dates, an edit within the file system's clock tick).

    Raises:
        OSError: the file cannot be read.
    """
    digest = hashlib.blake2b(digest_size=16)
    with open(path, "rb") as handle:
        size = os.fstat(handle.fileno()).st_size
        digest.update(size.to_bytes(8, "little"))
        if size <= FINGERPRINT_WHOLE:
            while chunk := handle.read(_MIB):
                digest.update(chunk)
        else:
            for number in range(FINGERPRINT_CHUNKS):
                handle.seek((size - _MIB) * number // (FINGERPRINT_CHUNKS - 1))
                digest.update(handle.read(_MIB))
    return digest.hexdigest()


def clear_folder_entry(path: Path, corpora: Path) -> bool:
    """Where a folder stands at the cache file ``path`` (a stale entry: a cache file cannot be a
    folder), delete it when it is a folder of the cache folder ``corpora`` itself, so that the corpus
    is cached there again; True where one was deleted, False where ``path`` is no folder.

    Raises:
        OutputFileError: the folder lies elsewhere (``path`` is a link to it), so it is not the
            cache's to delete.
    """
    if not path.is_dir():
        return False
    if path.is_symlink() or path.resolve().parent != corpora.resolve():
        raise OutputFileError(f"{path}: a folder stands where this corpus's cache file goes, and it is "
                              f"{path.resolve()}, outside the cache; move it away (or set COURSE_CACHE elsewhere)")
    try:
        shutil.rmtree(path)
    except OSError as exc:
        raise OutputFileError(f"{path}: a folder stands where this corpus's cache file goes, and it cannot be "
                              f"deleted ({exc.strerror or exc}); move it away") from None
    return True


def write_cached(path: Path, arrays: dict[str, np.ndarray], meta: dict) -> None:
    """Write ``arrays`` (names and dtypes of :data:`DTYPES`) and ``meta`` to ``path`` atomically, with
    the header ``tokens``, ``sentences`` and ``types`` that :func:`read_cached` checks them against."""
    header = {**meta, "tokens": len(arrays["token_ids"]), "sentences": len(arrays["offsets"]) - 1,
              "types": _count_lines(arrays["types"])}
    payload = {**arrays, "meta": np.frombuffer(json.dumps(header).encode(), dtype=np.uint8)}
    with atomic_path(path) as temporary, open(temporary, "wb") as handle:
        np.savez(handle, **payload)


def read_cached(path: Path, source: dict) -> tuple[dict, dict[str, np.ndarray]]:
    """``(meta, arrays)`` of the cache file ``path``, written for the source whose fingerprint is
    ``source``; ``meta["types"]`` etc. are the header, ``arrays`` as :data:`DTYPES` lists them.

    Raises:
        DamagedCacheError: the file cannot be read, or fails a check (the message says which).
    """
    try:
        arrays = _read_arrays(path)
    except (OSError, EOFError, ValueError, RuntimeError, zipfile.BadZipFile, zlib.error, struct.error) as exc:
        raise DamagedCacheError(f"cannot be read ({type(exc).__name__}: {exc})") from None
    missing = [name for name in REQUIRED if name not in arrays]
    if missing:
        raise DamagedCacheError(f"lacks the array {missing[0]!r}")
    try:
        meta = json.loads(arrays.pop("meta").tobytes())
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise DamagedCacheError(f"its header is not JSON ({exc})") from None
    if not isinstance(meta, dict) or not {"name", "language", "source", "tokens", "sentences", "types"} <= set(meta):
        raise DamagedCacheError("has no header (written by an older version of the course)")
    if not (isinstance(meta["name"], str) and meta["language"] in ("en", "zh")
            and all(type(meta[key]) is int for key in ("tokens", "sentences", "types"))):
        raise DamagedCacheError("has a header with values of the wrong kind")
    if meta["source"] != json.loads(json.dumps(source)):
        raise DamagedCacheError("was made from another source (its fingerprint differs)")
    check_arrays(arrays, meta)
    return meta, arrays


def check_arrays(arrays: dict[str, np.ndarray], header: dict) -> None:
    """Check that a corpus's arrays agree with one another and with ``header`` (``tokens``,
    ``sentences``, ``types``): see the module's docstring.

    Raises:
        DamagedCacheError: the first disagreement found.
    """
    ids, offsets = arrays["token_ids"], arrays["offsets"]
    num_types = _count_lines(arrays["types"])
    declared = (header["tokens"], header["sentences"], header["types"])
    if (len(ids), len(offsets) - 1, num_types) != declared:
        raise DamagedCacheError(f"holds {len(ids):,} tokens, {len(offsets) - 1:,} sentences and {num_types:,} types, "
                                f"and its header says {declared[0]:,}, {declared[1]:,} and {declared[2]:,}")
    if len(ids) == 0 or len(offsets) < 2:
        raise DamagedCacheError("holds no tokens")
    if offsets[0] != 0 or offsets[-1] != len(ids):
        raise DamagedCacheError(f"its sentence offsets run from {offsets[0]:,} to {offsets[-1]:,}, "
                                f"not from 0 to the {len(ids):,} tokens")
    steps = np.diff(offsets)
    if steps.min() <= 0:
        raise DamagedCacheError(f"its sentence offsets do not increase (sentence {int(np.argmin(steps)):,})")
    low, high = int(ids.min()), int(ids.max())
    if low < 0 or high >= num_types:
        raise DamagedCacheError(f"holds token ids from {low:,} to {high:,}, outside the {num_types:,} types")
    counts = np.bincount(ids, minlength=num_types)
    if counts.min() == 0 or np.any(np.diff(counts) > 0):
        raise DamagedCacheError("its token counts do not match its types (each type counted, most frequent first)")
    if ("tag_ids" in arrays) != ("tag_types" in arrays):
        raise DamagedCacheError("has tags without tag types, or tag types without tags")
    if "tag_ids" in arrays:
        tags = arrays["tag_ids"]
        num_tags = _count_lines(arrays["tag_types"])
        if len(tags) != len(ids):
            raise DamagedCacheError(f"holds {len(tags):,} tags for {len(ids):,} tokens")
        if tags.min() < 0 or tags.max() >= num_tags:
            raise DamagedCacheError(f"holds tag ids outside the {num_tags:,} tags")


def _count_lines(joined: np.ndarray) -> int:
    """How many strings ``"\\n".join`` put in ``joined`` (uint8 UTF-8 bytes)."""
    return int(np.count_nonzero(joined == ord("\n"))) + 1


def _read_arrays(path: Path) -> dict[str, np.ndarray]:
    """Every array of the ``.npz`` at ``path``, each refused before it is read when its name,
    dtype or shape is not the expected one or its declared size is not what the zip holds."""
    arrays = {}
    file_size = os.path.getsize(path)
    with zipfile.ZipFile(path) as archive:
        for member in archive.infolist():
            name = member.filename.removesuffix(".npy")
            if name not in DTYPES:
                raise ValueError(f"an unexpected array {name!r}")
            with archive.open(member) as handle:
                version = np.lib.format.read_magic(handle)
                read_header = (np.lib.format.read_array_header_1_0 if version == (1, 0)
                               else np.lib.format.read_array_header_2_0)
                shape, _fortran, dtype = read_header(handle)
                if dtype != np.dtype(DTYPES[name]) or len(shape) != 1:
                    raise ValueError(f"the array {name!r} is {dtype} of shape {shape}, not one-dimensional "
                                     f"{np.dtype(DTYPES[name])}")
                size = shape[0] * dtype.itemsize
                if size > member.file_size or member.file_size > file_size:
                    raise ValueError(f"the array {name!r} declares {size:,} bytes and the file holds "
                                     f"{min(member.file_size, file_size):,}")
            with archive.open(member) as handle:  # numpy reads it in chunks; the zip checks its CRC at the end
                arrays[name] = np.lib.format.read_array(handle, allow_pickle=False)
                if handle.read(1 << 16):  # reading to the end is what makes the zip check the CRC
                    raise ValueError(f"the array {name!r} is followed by bytes no array holds")
    return arrays
