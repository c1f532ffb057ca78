"""The assignments inside the notebooks, and the student versions made from them.

The notebooks mark their assignments the way nbgrader does, so a teacher can use either this module
or nbgrader itself:

- a **solution cell** (cell metadata ``nbgrader.solution = true``) holds the code a student writes,
  between a ``### BEGIN SOLUTION`` and a ``### END SOLUTION`` line;
- a **grade cell** (``nbgrader.grade = true``, with ``points`` and a ``grade_id``) right after its
  solution cells calls the check of :mod:`course.teaching.checks`; lines between ``### BEGIN HIDDEN TESTS``
  and ``### END HIDDEN TESTS`` are the teacher's and are removed from the student's copy.

An assignment is a grade cell together with the solution cells since the previous grade cell; its
name is the grade cell's ``grade_id`` without the ``_check`` suffix.

A markdown cell marked both ``solution`` and ``grade`` with no points is an **answer cell**
(nbgrader's "manually graded answer"): the teacher's answers to the questions and exercises that no
check grades. It is not an assignment; the student's copy has ``YOUR ANSWER HERE`` in its solution
region, where the student writes their own.

A markdown cell marked ``solution`` and ``grade`` *with* points is a **written assignment** (nbgrader's
"manually graded answer" with a score): a derivation or an argument the teacher grades by hand. Its
solution region holds the model answer and the rubric, which the student's copy leaves out; the
question is the markdown cell before it. :func:`find_written` lists them; the checks never grade them.

The student version of a notebook (:func:`student_version`) has every solution region replaced by
``# YOUR CODE HERE`` / ``raise NotImplementedError()`` (``YOUR ANSWER HERE`` in markdown) at the
region's indentation, every hidden-test region removed and every output cleared: the same cells
``nbgrader generate_assignment`` writes.
"""

from __future__ import annotations

import copy
import json
import re
from dataclasses import dataclass
from pathlib import Path

from ..core.errors import AssignmentMarkerError, NotebookFileError
from ..core.io import atomic_path
from ..core.paths import build_dir, project_root

BEGIN_SOLUTION = "BEGIN SOLUTION"
END_SOLUTION = "END SOLUTION"
BEGIN_HIDDEN_TESTS = "BEGIN HIDDEN TESTS"
END_HIDDEN_TESTS = "END HIDDEN TESTS"
CODE_STUB = "# YOUR CODE HERE\nraise NotImplementedError()"
TEXT_STUB = "YOUR ANSWER HERE"
GRADE_SUFFIX = "_check"

TITLES = {
    "negative_sampling_loss": "The negative-sampling loss and its gradients",
    "noise_distribution": "The noise distribution: unigram counts to the power 3/4",
    "keep_probabilities": "Subsampling: the probability of keeping a word",
    "huffman_code": "The Huffman code of a small vocabulary",
    "glove_weighting": "GloVe's weighting function f(x)",
    "glove_loss": "GloVe's weighted least-squares loss",
    "analogy_3cosadd": "Analogy search with 3CosAdd",
    "sense_knn_accuracy": "The 1-nearest-neighbour sense probe",
    "scalar_mix": "ScalarMix: a learned mixture of the layers",
    "entity_spans": "BIO labels to entities",
    "entity_f1": "Entity-level precision, recall and F1",
    "slanted_triangular": "The slanted triangular learning rate",
    "discriminative_rates": "Discriminative learning rates per layer group",
    "masked_attention": "Scaled dot-product attention with a mask",
    "oov_rate_estimate": "Predicting the OOV rate from the training counts",
    "positive_pmi": "PPMI from a count matrix",
    "negative_sampling_gradients": "Gradients into the tables, when a word is drawn twice",
    "entropy_bound": "Code lengths against the entropy bound",
    "glove_gradients": "The gradients of GloVe's loss over a batch",
    "perplexity": "Perplexity from the log-probabilities",
    "char_cnn_highway": "Max-pooling over characters, and a highway layer",
    "padded_attention": "A padded batch with a causal mask",
    "bpe_merges": "The BPE learning loop",
    "weat_effect_size": "The WEAT effect size and its permutation p-value",
}
"""A title for each assignment of the course, by id (the teacher's page and the grade table use them)."""


@dataclass(frozen=True)
class Assignment:
    """One assignment of one notebook: where its cells are and what it is worth."""

    id: str
    notebook: str
    points: float
    solution_cells: tuple[int, ...]
    grade_cell: int

    @property
    def title(self) -> str:
        return TITLES.get(self.id, self.id.replace("_", " "))

    @property
    def cells(self) -> tuple[int, ...]:
        return (*self.solution_cells, self.grade_cell)


# ------------------------------------------------------------------------------------ reading


def read_notebook(path: str | Path):
    """The notebook at ``path`` as an ``nbformat`` node; one clear line if it is missing or not a notebook."""
    import nbformat

    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise NotebookFileError(f"{path}: no such notebook") from None
    except UnicodeDecodeError as exc:
        raise NotebookFileError(f"{path}: not UTF-8 text (byte {exc.start})") from None
    try:
        json.loads(text)
    except json.JSONDecodeError as exc:
        raise NotebookFileError(f"{path}: not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") \
            from None
    try:
        return nbformat.reads(text, as_version=4)
    except Exception as exc:  # nbformat's own reader errors (not a notebook at all)
        raise NotebookFileError(f"{path}: not a Jupyter notebook ({str(exc).strip().splitlines()[0]})") from None


def notebook_paths(folder: str | Path | None = None) -> list[Path]:
    """The course's notebooks in order: ``NN_*.ipynb`` in ``folder`` (default ``notebooks/``)."""
    folder = Path(folder) if folder is not None else project_root() / "notebooks"
    return sorted(folder.glob("[0-9][0-9]_*.ipynb"))


def _nbgrader(cell) -> dict:
    return cell.get("metadata", {}).get("nbgrader", {}) or {}


def is_solution_cell(cell) -> bool:
    return bool(_nbgrader(cell).get("solution"))


def is_grade_cell(cell) -> bool:
    return bool(_nbgrader(cell).get("grade"))


def is_answer_cell(cell) -> bool:
    """A markdown cell of answers for the teacher: solution and grade at once, worth no points."""
    marks = _nbgrader(cell)
    return cell.get("cell_type") == "markdown" and bool(marks.get("solution")) and bool(marks.get("grade")) \
        and not float(marks.get("points") or 0)


def is_written_cell(cell) -> bool:
    """A markdown cell a student answers in writing, graded by hand: solution and grade, with points."""
    marks = _nbgrader(cell)
    return cell.get("cell_type") == "markdown" and bool(marks.get("solution")) and bool(marks.get("grade")) \
        and bool(float(marks.get("points") or 0))


@dataclass(frozen=True)
class Written:
    """One written assignment of one notebook: its answer cell, its points and the question's title (the
    first line of the markdown cell before it, without its ``#`` marks, the "Written assignment ·" before
    it and the points in brackets after it)."""

    id: str
    notebook: str
    points: float
    cell: int
    title: str


def find_written(notebook, name: str = "notebook") -> list[Written]:
    """The written assignments of ``notebook`` in order (see the module's text)."""
    found = []
    for index, cell in enumerate(notebook.cells):
        if is_written_cell(cell):
            question = notebook.cells[index - 1].source.strip().split("\n")[0] if index else ""
            title = re.sub(r"\s*[(（][^()（）]*[)）]$", "", question.lstrip("#").strip()).split("·", 1)[-1].strip()
            found.append(Written(str(_nbgrader(cell).get("grade_id") or f"cell_{index}"), name,
                                 float(_nbgrader(cell)["points"]), index, title))
    return found


def answer_text(cell) -> str:
    """The teacher's text of an answer cell: its solution region (the whole cell when it has none)."""
    lines = cell.source.split("\n")
    regions = marker_regions(cell.source, BEGIN_SOLUTION, END_SOLUTION, "answer cell")
    if not regions:
        return cell.source
    return "\n".join(line for first, last in regions for line in lines[first + 1:last])


def marker_regions(source: str, begin: str, end: str, where: str) -> list[tuple[int, int]]:
    """Line ranges ``[first, last]`` of the ``begin`` ... ``end`` regions of ``source``; bad nesting raises."""
    regions, start = [], None
    for number, line in enumerate(source.split("\n")):
        if begin in line:
            if start is not None:
                raise AssignmentMarkerError(f"{where}: a second '### {begin}' before '### {end}'")
            start = number
        elif end in line:
            if start is None:
                raise AssignmentMarkerError(f"{where}: '### {end}' without '### {begin}' before it")
            regions.append((start, number))
            start = None
    if start is not None:
        raise AssignmentMarkerError(f"{where}: '### {begin}' has no '### {end}'")
    return regions


def check_markers(notebook, name: str = "notebook") -> None:
    """Raise :class:`AssignmentMarkerError` naming the cell when a marker is unmatched or misplaced."""
    for index, cell in enumerate(notebook.cells):
        where = f"{name}, cell {index}"
        solutions = marker_regions(cell.source, BEGIN_SOLUTION, END_SOLUTION, where)
        hidden = marker_regions(cell.source, BEGIN_HIDDEN_TESTS, END_HIDDEN_TESTS, where)
        if solutions and not is_solution_cell(cell):
            raise AssignmentMarkerError(f"{where}: a solution region in a cell not marked as a solution cell "
                                        "(nbgrader metadata 'solution': true)")
        if hidden and not is_grade_cell(cell):
            raise AssignmentMarkerError(f"{where}: hidden tests in a cell not marked as a grade cell "
                                        "(nbgrader metadata 'grade': true)")


def find_assignments(notebook, name: str = "notebook", strict: bool = True) -> list[Assignment]:
    """The assignments of ``notebook`` in order. ``strict``: check the markers first, and refuse a second
    grade cell for one assignment or a solution cell with no grade cell after it."""
    if strict:
        check_markers(notebook, name)
    assignments, pending, seen = [], [], set()
    for index, cell in enumerate(notebook.cells):
        if is_answer_cell(cell) or is_written_cell(cell):
            continue
        if is_solution_cell(cell) and not is_grade_cell(cell):
            pending.append(index)
        elif is_grade_cell(cell):
            grade_id = str(_nbgrader(cell).get("grade_id") or f"cell_{index}")
            assignment_id = grade_id.removesuffix(GRADE_SUFFIX)
            if assignment_id in seen and strict:
                raise AssignmentMarkerError(f"{name}, cell {index}: a second grade cell for '{assignment_id}'")
            seen.add(assignment_id)
            assignments.append(Assignment(assignment_id, name, float(_nbgrader(cell).get("points", 0)),
                                          tuple(pending), index))
            pending = []
    if pending and strict:
        raise AssignmentMarkerError(f"{name}, cell {pending[0]}: a solution cell with no grade cell after it")
    return assignments


# --------------------------------------------------------------------------- student versions


def _replace_regions(source: str, begin: str, end: str, stub: str | None) -> str:
    """``source`` with every ``begin``..``end`` region replaced by ``stub`` (indented as the marker), or cut."""
    kept, inside = [], False
    for line in source.split("\n"):
        if begin in line:
            inside = True
            if stub is not None:
                indent = re.match(r"\s*", line).group(0)
                kept.extend(indent + stub_line for stub_line in stub.split("\n"))
        elif end in line:
            inside = False
        elif not inside:
            kept.append(line)
    return "\n".join(kept)


def student_version(notebook, name: str = "notebook"):
    """A copy of ``notebook`` as a student receives it: solutions stubbed, hidden tests cut, outputs empty."""
    check_markers(notebook, name)
    student = copy.deepcopy(notebook)
    if name.endswith(".ipynb"):  # the grader finds the teacher's notebook by it, whatever the file is renamed to
        student.metadata["course"] = {**student.metadata.get("course", {}), "notebook": name}
    for cell in student.cells:
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
        stub = CODE_STUB if cell.cell_type == "code" else TEXT_STUB
        if BEGIN_SOLUTION in cell.source:
            cell.source = _replace_regions(cell.source, BEGIN_SOLUTION, END_SOLUTION, stub)
        elif is_solution_cell(cell):
            cell.source = stub
        if BEGIN_HIDDEN_TESTS in cell.source:
            cell.source = _replace_regions(cell.source, BEGIN_HIDDEN_TESTS, END_HIDDEN_TESTS, None)
        _lock_and_sum(cell)
    return student


def _lock_and_sum(cell) -> None:
    """Lock ``cell`` and record its checksum as ``nbgrader generate_assignment`` does (its LockCells
    and ComputeChecksums with their defaults), so JupyterLab will not let a student edit or delete a
    grade cell, or delete an answer cell, and nbgrader can tell a changed cell."""
    from nbgrader.utils import compute_checksum, is_grade, is_locked, is_solution

    if is_solution(cell):
        cell.metadata["deletable"] = False
    elif is_grade(cell) or is_locked(cell):
        cell.metadata["deletable"] = False
        cell.metadata["editable"] = False
    if is_grade(cell) or is_solution(cell) or is_locked(cell):
        cell.metadata.nbgrader["checksum"] = compute_checksum(cell)
        cell.metadata.nbgrader["cell_type"] = cell.cell_type


def write_student_versions(out: str | Path | None = None, notebooks: str | Path | None = None) -> list[Path]:
    """Write the student version of every notebook into ``out`` (default ``build/assignments``).

    Every notebook is read and checked before anything is written, and each file is written whole
    or not at all, so a bad marker leaves ``out`` as it was.
    """
    import nbformat

    out = Path(out) if out is not None else build_dir() / "assignments"
    sources = notebook_paths(notebooks)
    if not sources:
        raise NotebookFileError(f"{Path(notebooks) if notebooks else 'notebooks/'}: no NN_*.ipynb notebooks")
    versions = [(source.name, student_version(read_notebook(source), source.name)) for source in sources]
    written = []
    for file_name, notebook in versions:
        with atomic_path(out / file_name) as temporary:
            nbformat.write(notebook, str(temporary))
        written.append(out / file_name)
    return written


def course_assignments(notebooks: str | Path | None = None) -> dict[str, list[Assignment]]:
    """The assignments of every course notebook, by notebook file name (notebooks without any included)."""
    return {path.name: find_assignments(read_notebook(path), path.name) for path in notebook_paths(notebooks)}
