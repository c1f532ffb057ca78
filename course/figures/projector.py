"""Word vectors in the files TensorBoard's Embedding Projector reads.

A folder holding three files:

- ``vectors.tsv``: one row per word, its ``d`` numbers separated by tabs, each written as the
  shortest decimal that reads back as the same float32 (``float(text)`` gives the stored value);
- ``metadata.tsv``: a header row, then one row per word in the same order: the word, its ``rank``
  (its position in the vectors file, 1 first; the course writes its vectors most frequent word
  first, so this is the frequency rank) and any further columns asked for;
- ``projector_config.pbtxt``: a ``ProjectorConfig`` in protobuf text format (TensorBoard's
  ``tensorboard/plugins/projector/projector_config.proto``) with one ``embeddings`` entry that
  names the two files, relative to the folder.

``tensorboard --logdir FOLDER`` shows them under "Projector"; projector.tensorflow.org ("Load")
reads the two ``.tsv`` files. Both readers split rows at ``\\n`` and fields at ``\\t`` and know no
quoting, so a word holding a tab or a line break would shift or split its row: such characters
(and the backslash, so that the escaping can be undone) are written as ``\\t``, ``\\n``, ``\\r`` and
``\\\\``. Words of the course's text vectors files never hold them (the format splits at
whitespace); binary files and vectors made in Python can. Chinese and every other word stay UTF-8.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from contextlib import ExitStack
from pathlib import Path

import numpy as np

from ..core.errors import OutputFileError, SettingError, VectorsFileError, WordNotInVocabularyError
from ..core.io import atomic_path, check_writable

FILES = {"vectors": "vectors.tsv", "metadata": "metadata.tsv", "config": "projector_config.pbtxt"}
CONFIG_FILENAME = FILES["config"]  # the name TensorBoard's projector plugin looks for in a log dir
TSV_ESCAPES = {"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"}


def export_projector(vectors, out: str | os.PathLike, limit: int | None = None, words: Sequence[str] | None = None,
                     normalise: bool = False, metadata: Mapping[str, Mapping[str, object]] | None = None,
                     name: str | None = None, format: str = "auto") -> dict[str, Path]:
    """Write ``vectors`` into the folder ``out`` as the Embedding Projector reads them.

    Args:
        vectors: a vectors file (word2vec text or binary, GloVe text or gensim's ``.kv``, read by
            :func:`course.analysis.vectors.load_vectors`) or a gensim ``KeyedVectors``.
        out: the folder to write into (made if missing); the three files in it are replaced.
        limit: keep the first ``limit`` rows (of the file's order, or of ``words``).
        words: only these words, in this order (repeats are kept once); every one must have a vector.
        normalise: write each row as ``v / ||v||``, so that the Projector's euclidean distances
            order neighbours as cosine similarity does (``||u - v||^2 = 2 - 2 cos(u, v)``).
        metadata: further columns, ``{column name: {word: value}}``; a word with no value gets an
            empty cell (the Projector reads it as missing).
        name: the tensor's name in TensorBoard (default: the vectors file's name without suffix).
        format: how the file is read, one of :data:`course.analysis.vectors.FORMATS` (default: told from it).

    Returns:
        ``{"vectors": path, "metadata": path, "config": path}``.

    Raises:
        VectorsFileError: ``vectors`` is missing or not a vectors file, or has fewer than 2
            dimensions (the Projector refuses one), or a zero row is to be normalised.
        WordNotInVocabularyError: a word of ``words`` has no vector.
        SettingError: an empty word list, a ``limit`` below 1, a bad column name.
        OutputFileError: ``out`` is a file, or cannot be written.
    """
    from ..analysis.vectors import load_vectors

    folder = _check_folder(out)
    if limit is not None and limit < 1:
        raise SettingError(f"limit must be at least 1, got {limit}")
    columns = dict(metadata or {})
    _check_columns(columns)
    in_memory = hasattr(vectors, "index_to_key")
    kv = vectors if in_memory else load_vectors(vectors, format)
    label = "the vectors" if in_memory else str(vectors)
    if kv.vector_size < 2:
        raise VectorsFileError(f"{label}: has {kv.vector_size} dimension; the Projector needs at least 2")
    rows = _rows(kv, words, label)[:limit]
    matrix = np.asarray(kv.vectors[rows], dtype=np.float32)
    if normalise:
        matrix = _unit_rows(matrix, [kv.index_to_key[i] for i in rows], label)
    chosen = [str(kv.index_to_key[i]) for i in rows]
    header = ["word", "rank", *columns]
    table = [[word, str(index + 1), *(_cell(columns[column].get(word)) for column in columns)]
             for word, index in zip(chosen, rows, strict=True)]
    tensor = name or ("vectors" if in_memory else Path(vectors).stem)
    paths = {key: folder / filename for key, filename in FILES.items()}
    texts = {"vectors": "".join("\t".join(map(str, row)) + "\n" for row in matrix),
             "metadata": "".join("\t".join(map(escape, cells)) + "\n" for cells in [header, *table]),
             "config": projector_config(tensor, matrix.shape)}
    with ExitStack() as stack:  # all three are renamed into place only once all three are written
        for key, path in paths.items():
            temporary = stack.enter_context(atomic_path(path))
            with open(temporary, "w", encoding="utf-8", newline="\n") as handle:
                handle.write(texts[key])
    return paths


def projector_config(tensor_name: str, shape: tuple[int, int]) -> str:
    """The text of ``projector_config.pbtxt``: one ``EmbeddingInfo`` naming ``vectors.tsv``
    (``shape`` = ``(N, d)``) and ``metadata.tsv``, relative to the folder the file is in."""
    rows, dims = shape
    return ("embeddings {\n"
            f"  tensor_name: {pbtxt_string(tensor_name)}\n"
            f"  tensor_path: {pbtxt_string(FILES['vectors'])}\n"
            f"  metadata_path: {pbtxt_string(FILES['metadata'])}\n"
            f"  tensor_shape: {int(rows)}\n"
            f"  tensor_shape: {int(dims)}\n"
            "}\n")


def pbtxt_string(text: str) -> str:
    """``text`` as a protobuf text-format string literal: double quotes, C escapes, and every byte
    outside printable ASCII of its UTF-8 as a three-digit octal escape (as protobuf writes them)."""
    named = {ord("\\"): "\\\\", ord('"'): '\\"', ord("\n"): "\\n", ord("\r"): "\\r", ord("\t"): "\\t"}
    out = []
    for byte in text.encode("utf-8"):
        out.append(named.get(byte) or (chr(byte) if 0x20 <= byte < 0x7F else f"\\{byte:03o}"))
    return '"' + "".join(out) + '"'


def escape(cell: str) -> str:
    """``cell`` safe in a TSV row of the Projector: backslash, tab, line feed and carriage return
    as ``\\\\``, ``\\t``, ``\\n`` and ``\\r``; everything else as it is."""
    return "".join(TSV_ESCAPES.get(char, char) for char in cell)


def unescape(cell: str) -> str:
    """The text :func:`escape` was given for ``cell``."""
    back = {value[1]: key for key, value in TSV_ESCAPES.items()}
    out, chars = [], iter(cell)
    for char in chars:
        if char == "\\":
            following = next(chars, "")
            char = back.get(following, char + following)
        out.append(char)
    return "".join(out)


def read_word_list(path: str | os.PathLike) -> list[str]:
    """The words of a UTF-8 file, one a line (surrounding whitespace and blank lines dropped).

    Raises:
        SettingError: the file is missing, not UTF-8, or holds no word.
    """
    path = Path(path)
    if not path.is_file():
        raise SettingError(f"{path}: no such word list")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise SettingError(f"{path}: the word list is not UTF-8 (byte {exc.start:,}); save it as UTF-8") from None
    words = [line.strip() for line in text.splitlines() if line.strip()]
    if not words:
        raise SettingError(f"{path}: the word list holds no word (one word a line)")
    return words


def read_metadata_columns(path: str | os.PathLike) -> dict[str, dict[str, str]]:
    """Columns of a UTF-8 TSV file with a header row, ``word<TAB>column...``: ``{column: {word: value}}``.

    Raises:
        SettingError: the file is missing, not UTF-8, has no header and row, or a row of another length.
    """
    path = Path(path)
    if not path.is_file():
        raise SettingError(f"{path}: no such metadata file")
    try:
        lines = [line for line in path.read_text(encoding="utf-8").split("\n") if line.strip()]
    except UnicodeDecodeError as exc:
        raise SettingError(f"{path}: the metadata file is not UTF-8 (byte {exc.start:,}); save it as UTF-8") from None
    header = lines[0].rstrip("\r").split("\t") if lines else []
    if len(header) < 2:
        raise SettingError(f"{path}: a metadata file needs a header row 'word<TAB>column...' and a row per word")
    columns: dict[str, dict[str, str]] = {column: {} for column in header[1:]}
    for number, line in enumerate(lines[1:], start=2):
        cells = line.rstrip("\r").split("\t")
        if len(cells) != len(header):
            raise SettingError(f"{path}, row {number:,}: {len(cells)} fields, the header has {len(header)}")
        for column, value in zip(header[1:], cells[1:], strict=True):
            columns[column][cells[0].strip()] = value
    return columns


def _check_folder(out: str | os.PathLike) -> Path:
    folder = Path(out)
    if folder.exists() and not folder.is_dir():
        raise OutputFileError(f"--out {folder} is a file: give a folder for the Projector's files")
    for filename in FILES.values():
        check_writable(folder / filename, "Projector file")
    return folder


def _check_columns(columns: dict) -> None:
    for column in columns:
        if not isinstance(column, str) or not column.strip() or any(char in column for char in TSV_ESCAPES):
            raise SettingError(f"metadata column {column!r}: a column name must be text without tabs, "
                               "line breaks or backslashes")
        if column in ("word", "rank"):
            raise SettingError(f"metadata column {column!r}: the Projector's files have that column already")


def _rows(kv, words: Sequence[str] | None, label: str) -> list[int]:
    """Indices into ``kv`` of the rows to write: all, or those of ``words`` in their order."""
    if words is None:
        return list(range(len(kv.index_to_key)))
    if isinstance(words, str):
        raise SettingError("words must be a list of words, not one string")
    unique = list(dict.fromkeys(str(word) for word in words))
    if not unique:
        raise SettingError("the word list holds no word")
    missing = [word for word in unique if word not in kv.key_to_index]
    if missing:
        shown = ", ".join(repr(word) for word in missing[:5]) + (", ..." if len(missing) > 5 else "")
        raise WordNotInVocabularyError(f"{len(missing):,} of the {len(unique):,} words asked for have no vector in "
                                       f"{label}: {shown}")
    return [kv.key_to_index[word] for word in unique]


def _unit_rows(matrix: np.ndarray, words: list[str], label: str) -> np.ndarray:
    """``(N, d)`` rows divided by their euclidean norms (in float64, then back to float32)."""
    norms = np.linalg.norm(matrix.astype(np.float64), axis=1, keepdims=True)
    zero = np.flatnonzero(norms[:, 0] == 0)
    if len(zero):
        raise VectorsFileError(f"{label}: the vector of {words[zero[0]]!r} is all zeros and has no direction, so it "
                               "cannot be made unit length; leave out normalising or that word")
    return (matrix / norms).astype(np.float32)


def _cell(value) -> str:
    return "" if value is None else str(value)
