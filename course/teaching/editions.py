"""The two editions of the notebooks kept in step: ``notebooks/NN_*.ipynb`` (English) and
``notebooks/zh/NN_*.ipynb`` (Chinese).

The Chinese notebook has the English notebook's cells in the same order with the same cell ids. Its
code cells are the English ones, byte for byte (source and metadata). Each of its markdown cells
records, in ``metadata.edition``, which English cell it renders (``renders``: the cell id) and the
SHA-256 of that English cell's source when it was last translated (``sha``). :func:`check_editions`
names every cell that breaks this, one line each:

- a notebook or a cell that exists in one edition only, or cells in another order;
- a code cell that differs (``python -m course editions sync`` copies the English code over), or a
  markdown cell whose nbgrader marks differ (an answer cell is one in both editions);
- a markdown cell whose English cell has changed since it was translated (stale), or that was never
  translated: edit the Chinese text, then ``python -m course editions stamp NOTEBOOK CELL_ID``;
- a Chinese term the glossary does not use (:mod:`course.teaching.glossary`, docs/glossary.md);
- a comment of a code cell in English words alone (:func:`untranslated_comments`): the two editions
  share their code cells, so a comment a student reads carries its Chinese on the same line or on a
  comment line just above it;
- a notebook whose markdown holds fewer than :data:`MIN_RATIO` Chinese characters per English word of
  the English markdown (code, formulas and inline code aside), so that a half-translated notebook does
  not pass.

Changing a notebook: edit the English notebook; run ``python -m course editions sync`` (code cells
copied, new markdown cells added in English and marked untranslated, removed ones dropped); translate
what :func:`check_editions` lists and stamp those cells.
"""

from __future__ import annotations

import copy
import hashlib
import io
import re
import tokenize
import unicodedata
from dataclasses import dataclass
from pathlib import Path

from ..core.errors import NotebookFileError
from ..core.io import atomic_path
from ..core.paths import project_root
from .assignments import notebook_paths, read_notebook
from .glossary import glossary_problems

EDITION_FOLDER = "zh"
MIN_RATIO = 1.3
"""Chinese characters of markdown per English word of the English notebook's markdown, at least."""

_FENCED = re.compile(r"```.*?```", re.S)
_DISPLAY_MATHS = re.compile(r"\$\$.*?\$\$", re.S)
_INLINE_MATHS = re.compile(r"(?<![\\$])\$(?!\$)[^$]+\$")
_INLINE_CODE = re.compile(r"`[^`\n]*`")
_HTML_TAG = re.compile(r"<[^>\n]+>")
_LINK_TARGET = re.compile(r"\]\([^)\s]*\)")
_ENGLISH_WORD = re.compile(r"[A-Za-z]+(?:['’][A-Za-z]+)?")
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")


def prose(markdown: str) -> str:
    """``markdown`` without fenced code, formulas, inline code, HTML tags and link targets."""
    for pattern in (_FENCED, _DISPLAY_MATHS, _INLINE_MATHS, _INLINE_CODE, _HTML_TAG, _LINK_TARGET):
        markdown = pattern.sub(" ", markdown)
    return markdown


def english_words(markdown: str) -> int:
    """How many English words the prose of ``markdown`` has."""
    return len(_ENGLISH_WORD.findall(prose(markdown)))


def chinese_characters(markdown: str) -> int:
    """How many Chinese characters (CJK ideographs) the prose of ``markdown`` has."""
    return len(_CJK.findall(prose(markdown)))


_PROTECTED = re.compile(r"```.*?```|\$\$.*?\$\$|(?<![\\$])\$(?!\$)[^$]+\$|`[^`\n]*`", re.S)
_SENTENCE_PUNCTUATION = "。，、；：！？,.;:!?"


def _punctuation(character: str) -> bool:
    return unicodedata.category(character)[0] in "PS"


def _blank(character: str) -> bool:
    return character == "" or character.isspace()


def _strong_delimiters(markdown: str) -> list[int]:
    """Where the ``**`` of bold text stand, outside code and formulas."""
    protected = [match.span() for match in _PROTECTED.finditer(markdown)]
    return [match.start() for match in re.finditer(r"(?<!\*)\*\*(?!\*)", markdown)
            if not any(start <= match.start() < end for start, end in protected)]


def _flanks(markdown: str, at: int, opening: bool) -> bool:
    """Whether the ``**`` at ``at`` can open (or close) bold text, by CommonMark's flanking rules."""
    before = markdown[at - 1] if at > 0 else ""
    after = markdown[at + 2] if at + 2 < len(markdown) else ""
    inner, outer = (after, before) if opening else (before, after)
    return not _blank(inner) and (not _punctuation(inner) or _blank(outer) or _punctuation(outer))


def emphasis_problems(markdown: str) -> list[str]:
    """Bold text that Markdown will not render: in Chinese, ``**词。**后`` or ``的**“词”**`` (a ``**``
    between punctuation and a character is not a delimiter, by CommonMark's flanking rules)."""
    delimiters = _strong_delimiters(markdown)
    return [markdown[max(0, at - 6):at + 8].replace("\n", " ") for number, at in enumerate(delimiters)
            if not _flanks(markdown, at, opening=number % 2 == 0)]


def mend_emphasis(markdown: str) -> str:
    """``markdown`` with every bold span made to render: sentence punctuation just inside a closing ``**``
    moves after it; elsewhere a space goes on the outside of the ``**``."""
    for _ in range(len(markdown)):
        delimiters = _strong_delimiters(markdown)
        broken = [(number, at) for number, at in enumerate(delimiters)
                  if not _flanks(markdown, at, opening=number % 2 == 0)]
        if not broken:
            return markdown
        number, at = broken[0]
        if number % 2 == 1 and at > 0 and markdown[at - 1] in _SENTENCE_PUNCTUATION:
            markdown = markdown[:at - 1] + "**" + markdown[at - 1] + markdown[at + 2:]
        elif number % 2 == 0:
            markdown = markdown[:at] + " " + markdown[at:]
        else:
            markdown = markdown[:at + 2] + " " + markdown[at + 2:]
    return markdown


_COMMENT_WORD = re.compile(r"(?<![\w.])[A-Za-z]{2,}(?![\w(])")
_PARENTHESISED = re.compile(r"\([^()]*\)")
_NBGRADER_MARKER = re.compile(r"#+\s*(BEGIN|END) (SOLUTION|HIDDEN TESTS)")


def _comments(source: str) -> list[tuple[int, bool, str]]:
    """``(line, alone on its line, text)`` of each ``#`` comment in a code cell's source (magics aside)."""
    lines = source.split("\n")
    python = "\n".join("pass" if line.lstrip().startswith(("%", "!")) else line for line in lines)
    found = []
    try:
        for token in tokenize.generate_tokens(io.StringIO(python + "\n").readline):
            if token.type == tokenize.COMMENT:
                row, column = token.start
                found.append((row - 1, not lines[row - 1][:column].strip(), token.string))
    except (tokenize.TokenError, SyntaxError):
        pass
    return found


def _prose_words(comment: str) -> int:
    """Words of two letters or more in ``comment``, outside parentheses (a shape such as ``(n, d)``) and
    not names in code (``np.exp``, ``vocab_size``, ``len(``)."""
    for _ in range(comment.count("(")):
        comment = _PARENTHESISED.sub(" ", comment)
    return len(_COMMENT_WORD.findall(comment))


def untranslated_comments(source: str) -> list[str]:
    """The comments of a code cell that a Chinese reader would read in English alone.

    A comment of two words or more needs Chinese in it, in the comment lines just above it, or in the
    block of comment lines it belongs to. Shapes, names and nbgrader's markers need none."""
    found = _comments(source)
    alone = {row for row, by_itself, _ in found if by_itself}
    chinese = {row for row, _, text in found if _CJK.search(text)}
    untranslated = []
    for row, by_itself, text in found:
        if row in chinese or _NBGRADER_MARKER.match(text) or _prose_words(text) < 2:
            continue
        above = row - 1
        while above in alone and above not in chinese:
            above -= 1
        below = row + 1
        while by_itself and below in alone and below not in chinese:
            below += 1
        if above not in chinese and not (by_itself and below in chinese):
            untranslated.append(text)
    return untranslated


def source_sha(source: str) -> str:
    """The SHA-256 (hex) of a cell's source, as a Chinese cell records its English cell's."""
    return hashlib.sha256(source.encode("utf-8")).hexdigest()


def chinese_folder(notebooks: str | Path | None = None) -> Path:
    """The Chinese edition's folder: ``zh/`` inside the English notebooks' folder."""
    return (Path(notebooks) if notebooks is not None else project_root() / "notebooks") / EDITION_FOLDER


def edition_folder(edition: str, notebooks: str | Path | None = None) -> Path:
    """The folder of ``edition``'s notebooks: ``notebooks/`` for ``en``, ``notebooks/zh/`` for ``zh``."""
    from ..core.edition import resolve_edition

    english = Path(notebooks) if notebooks is not None else project_root() / "notebooks"
    return english if resolve_edition(edition) == "en" else english / EDITION_FOLDER


def _shown(path: Path) -> Path:
    """``path`` relative to the working folder where it lies inside it (the messages name it so)."""
    try:
        return Path(path).resolve().relative_to(Path.cwd().resolve())
    except ValueError:
        return Path(path)


def edition_of(notebook) -> str:
    """The edition a notebook belongs to: the one its metadata records (``metadata.course.edition``,
    which the Chinese notebooks and their student versions carry), else ``zh`` when its markdown has
    more Chinese characters than English words, else ``en``."""
    course = notebook.metadata.get("course")
    recorded = course.get("edition") if isinstance(course, dict) else None
    if recorded in ("en", "zh"):
        return recorded
    markdown = [cell.source for cell in notebook.cells if cell.cell_type == "markdown"]
    return "zh" if sum(map(chinese_characters, markdown)) > sum(map(english_words, markdown)) else "en"


def _write(notebook, path: Path) -> None:
    import nbformat

    with atomic_path(path) as temporary:
        nbformat.write(notebook, str(temporary))


def _markdown_metadata(cell) -> dict:
    return cell.get("metadata", {}).get("edition", {}) or {}


# ------------------------------------------------------------------------------------ writing


@dataclass
class SyncReport:
    """What :func:`sync_notebook` changed in one Chinese notebook."""

    path: Path
    added: list[str]
    dropped: list[str]
    code_copied: int

    def __str__(self) -> str:
        parts = [f"{self.code_copied} code cells copied"]
        if self.added:
            parts.append(f"{len(self.added)} markdown cells added untranslated ({', '.join(self.added)})")
        if self.dropped:
            parts.append(f"{len(self.dropped)} dropped ({', '.join(self.dropped)})")
        return f"{_shown(self.path)}: " + "; ".join(parts)


def sync_notebook(english_path: str | Path, chinese_path: str | Path | None = None) -> SyncReport:
    """Bring the Chinese notebook in line with the English one's cells: the English cells in order,
    every code cell copied, every markdown cell kept where the Chinese notebook has one with that id
    (else the English text, marked untranslated); cells the English notebook no longer has are
    dropped. Translations are never touched."""
    english_path = Path(english_path)
    chinese_path = Path(chinese_path) if chinese_path is not None else chinese_folder(english_path.parent) / \
        english_path.name
    if not re.fullmatch(r"\d\d_.+\.ipynb", english_path.name):
        raise NotebookFileError(f"{english_path}: not one of the course's notebooks (NN_name.ipynb in notebooks/): "
                                "there is no Chinese edition to bring in step")
    english = read_notebook(english_path)
    if edition_of(english) == EDITION_FOLDER:
        raise NotebookFileError(f"{english_path}: is a Chinese notebook: give its English one "
                                f"(notebooks/{english_path.name}), whose Chinese edition sync brings in step")
    ids = [cell.get("id") for cell in english.cells]
    if None in ids or len(set(ids)) != len(ids):
        raise NotebookFileError(f"{english_path}: every cell needs its own id (nbformat 4.5); open and save it "
                                "in JupyterLab, or run nbformat.validator.normalize")
    chinese = read_notebook(chinese_path) if chinese_path.is_file() else None
    translated = {cell.get("id"): cell for cell in (chinese.cells if chinese else []) if cell.cell_type == "markdown"}
    cells, added, copied = [], [], 0
    for cell in english.cells:
        if cell.cell_type == "markdown" and cell.id in translated:
            kept = copy.deepcopy(translated[cell.id])
            kept.metadata.setdefault("edition", {})["renders"] = cell.id
            kept.metadata.pop("nbgrader", None)
            if "nbgrader" in cell.metadata:  # an answer cell is one in both editions
                kept.metadata["nbgrader"] = copy.deepcopy(cell.metadata["nbgrader"])
            cells.append(kept)
            continue
        new = copy.deepcopy(cell)
        if cell.cell_type == "markdown":
            new.metadata["edition"] = {"renders": cell.id, "sha": None}
            added.append(cell.id)
        elif cell.cell_type == "code":
            copied += 1
        cells.append(new)
    dropped = [cell.get("id") for cell in (chinese.cells if chinese else []) if cell.get("id") not in set(ids)]
    result = copy.deepcopy(english)
    result.cells = cells
    result.metadata["course"] = {**dict(result.metadata.get("course", {})), "edition": "zh"}
    chinese_path.parent.mkdir(parents=True, exist_ok=True)
    _write(result, chinese_path)
    return SyncReport(chinese_path, added, dropped, copied)


def _english_of(chinese_path: Path, notebooks: Path | None = None) -> Path:
    english = (notebooks or chinese_path.resolve().parent.parent) / chinese_path.name
    if not english.is_file():
        raise NotebookFileError(f"{chinese_path}: no English notebook {english} beside it")
    return english


def translate(chinese_path: str | Path, texts: dict[str, str | None]) -> list[str]:
    """Write the Chinese ``texts`` (cell id -> markdown; None keeps the cell's text) into the Chinese
    notebook's markdown cells and record each as a rendering of its English cell as it is now; returns
    the ids written."""
    chinese_path = Path(chinese_path)
    chinese = read_notebook(chinese_path)
    english = {cell.get("id"): cell for cell in read_notebook(_english_of(chinese_path)).cells}
    by_id = {cell.get("id"): cell for cell in chinese.cells}
    for cell_id in texts:
        cell = by_id.get(cell_id)
        if cell is None or cell.cell_type != "markdown" or cell_id not in english:
            raise NotebookFileError(f"{chinese_path}: no markdown cell {cell_id!r} in both editions")
    for cell_id, text in texts.items():
        if text is not None:
            by_id[cell_id].source = mend_emphasis(text.strip("\n"))
        by_id[cell_id].metadata["edition"] = {"renders": cell_id, "sha": source_sha(english[cell_id].source)}
    _write(chinese, chinese_path)
    return list(texts)


def stamp(chinese_path: str | Path, cell_ids: list[str]) -> list[str]:
    """Record the Chinese cells ``cell_ids``, edited by hand, as in step with their English cells now."""
    return translate(chinese_path, dict.fromkeys(cell_ids))


# ----------------------------------------------------------------------------------- checking


def notebook_ratio(english, chinese) -> tuple[int, int]:
    """``(English words, Chinese characters)`` of the two notebooks' markdown prose."""
    words = sum(english_words(cell.source) for cell in english.cells if cell.cell_type == "markdown")
    characters = sum(chinese_characters(cell.source) for cell in chinese.cells if cell.cell_type == "markdown")
    return words, characters


def check_pair(english_path: Path, chinese_path: Path) -> list[str]:
    """Every way the Chinese notebook is out of step with the English one, one line each."""
    english, chinese = read_notebook(english_path), read_notebook(chinese_path)
    name = str(_shown(chinese_path))
    fix = f"python -m course editions sync {_shown(english_path)}"
    problems = []
    english_ids = [cell.get("id") for cell in english.cells]
    chinese_ids = [cell.get("id") for cell in chinese.cells]
    for cell_id in english_ids:
        if cell_id not in chinese_ids:
            kind = english.cells[english_ids.index(cell_id)].cell_type
            problems.append(f"{name}: the English {kind} cell {cell_id} has no Chinese cell ({fix})")
    for cell_id in chinese_ids:
        if cell_id not in english_ids:
            problems.append(f"{name}: cell {cell_id} is in the Chinese edition only ({fix} drops it)")
    shared = [cell_id for cell_id in chinese_ids if cell_id in english_ids]
    if shared != [cell_id for cell_id in english_ids if cell_id in chinese_ids]:
        problems.append(f"{name}: the cells are not in the English notebook's order ({fix})")
    english_cells = dict(zip(english_ids, english.cells, strict=True))
    for index, cell in enumerate(chinese.cells):
        source = english_cells.get(cell.get("id"))
        if source is None:
            continue
        where = f"{name}, cell {index} ({cell.id})"
        if cell.cell_type != source.cell_type:
            problems.append(f"{where}: a {cell.cell_type} cell where the English one is {source.cell_type} ({fix})")
        elif cell.cell_type == "code":
            if cell.source != source.source or dict(cell.metadata) != dict(source.metadata):
                what = "source" if cell.source != source.source else "metadata"
                problems.append(f"{where}: code {what} differs from the English notebook's ({fix})")
            for comment in untranslated_comments(source.source):
                problems.append(f"{where}: a comment in English only, {comment[:60]!r}: add its Chinese on the "
                                f"line or on a comment line above it, in {_shown(english_path)}, then {fix}")
        elif cell.cell_type == "markdown":
            recorded = _markdown_metadata(cell)
            again = f"translate it, then python -m course editions stamp {name} {cell.id}"
            if cell.metadata.get("nbgrader") != source.metadata.get("nbgrader"):
                problems.append(f"{where}: its nbgrader metadata differs from the English cell's ({fix})")
            if not recorded:
                problems.append(f"{where}: records no English cell it renders ({again})")
            elif not recorded.get("sha"):
                if english_words(source.source) or chinese_characters(source.source):
                    problems.append(f"{where}: not translated yet ({again})")
            else:
                for problem in glossary_problems(prose(cell.source)):
                    problems.append(f"{where}: {problem}")
                if emphasis_problems(cell.source):
                    shown = "; ".join(repr(fragment) for fragment in emphasis_problems(cell.source)[:3])
                    problems.append(f"{where}: bold text that will not render ({shown}): put the punctuation "
                                    "outside the ** or a space beside them")
                if recorded["sha"] != source_sha(source.source):
                    first = source.source.strip().splitlines()[0][:60] if source.source.strip() else ""
                    problems.append(f"{where}: stale, the English cell changed since it was translated "
                                    f"(it begins {first!r}; {again})")
    words, characters = notebook_ratio(english, chinese)
    if words and characters < MIN_RATIO * words:
        problems.append(f"{name}: {characters / words:.2f} Chinese characters of markdown per English word of "
                        f"{english_path.name} ({characters:,} for {words:,}); at least {MIN_RATIO} is needed")
    return problems


def check_editions(notebooks: str | Path | None = None) -> list[str]:
    """Every way the Chinese edition in ``notebooks/zh/`` is out of step with ``notebooks/``, one line each."""
    english_folder = Path(notebooks) if notebooks is not None else project_root() / "notebooks"
    folder = chinese_folder(english_folder)
    problems = []
    english = {path.name: path for path in notebook_paths(english_folder)}
    chinese = {path.name: path for path in notebook_paths(folder)}
    for name, path in english.items():
        if name not in chinese:
            problems.append(f"{_shown(folder / name)}: missing, the Chinese edition of {_shown(path)} "
                            f"(python -m course editions sync {_shown(path)})")
        else:
            problems.extend(check_pair(path, chinese[name]))
    for name in chinese:
        if name not in english:
            problems.append(f"{_shown(folder / name)}: no English notebook {_shown(english_folder / name)}")
    return problems
