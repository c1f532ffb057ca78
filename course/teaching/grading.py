"""Grade a student's notebook: the student's code in one kernel, the teacher's checks in another.

The student's file is read once and never written. What runs, and where:

- **The teacher's notebook decides.** The student's notebook is matched to a teacher's notebook (in
  ``--source``, default the course's notebooks of the student's edition: ``notebooks/``, or
  ``notebooks/zh/`` for a Chinese notebook, :func:`course.teaching.editions.edition_of`) by the name
  the student version carries in its metadata, else by its file name, else by the grade ids of its
  cells; a notebook that matches none is an error, never graded against itself. The assignments,
  their points, the grade cells and the hidden tests all come from the teacher's notebook, whatever
  the student did to cells, types or metadata.
- **The student kernel** runs the student's code cells (up to their last assignment cell) in the
  sandbox of :mod:`course.teaching.sandbox`: a root of its own that holds Python, the course's package and
  its corpora but no checkout, build folder or notebook of the teacher's, a private home, limits on memory,
  CPU time and processes, and as user ``nobody`` when the grader is root. The package there is the student
  version for this notebook (:mod:`course.teaching.student_package`): the course's own implementations that
  its checks compare answers with are stubs, and so is every check, so no code in that kernel can run them.
  It runs no grade cell. Then it answers calls.
- **The checking kernel** runs the teacher's cells, with each solution cell replaced by stand-ins
  for the functions it defines (:mod:`course.teaching.remote`): calling one calls the student's function in
  the student kernel and brings the result back as data. The checks and hidden tests run here,
  where no student code ever runs.

An assignment scores its points when its solution cells ran without an error in the student kernel
and its grade cell passed in the checking kernel, without the student's functions running the course's
own implementation that the checks compare them with (:func:`course.teaching.remote.verdict`);
otherwise 0, with the reason (an exception, not answered, a cell or call longer than the timeout, a
crash of the student kernel, a marker without its end, the course's implementation). Every cell, of
either kernel, runs under a deadline this process keeps (:mod:`course.teaching.kernels`): the cell
timeout, and what is left of the notebook's own; at the deadline the kernel is interrupted and, if it does not stop,
its process group killed, so a grade always returns. A new kernel replaces one that dies or hangs. When
grading ends every process the student's code started is stopped (detached ones too), and then the
grader checks that neither the teacher's notebooks nor any code the checking kernel loaded changed
while it graded: if one did, the grade is refused with an error.
"""

from __future__ import annotations

import ast
import json
import os
import re
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from ..core.errors import AssignmentMarkerError, GradingError, NotebookFileError
from ..core.paths import cache_dir
from . import sandbox
from .assignments import (
    BEGIN_HIDDEN_TESTS,
    BEGIN_SOLUTION,
    END_SOLUTION,
    TEXT_STUB,
    Assignment,
    find_assignments,
    find_written,
    is_grade_cell,
    is_solution_cell,
    marker_regions,
    notebook_paths,
    read_notebook,
)
from .editions import EDITION_FOLDER, edition_folder, edition_of
from .kernels import Clock, Outcome, Runner
from .student_package import notebook_references, student_package

STUDENT_FAULTS = ("StudentTimeout", "StudentKernelDied")  # a checking cell that failed this way: new student kernel
_REFERENCE_USED = "your function runs the course's own implementation that the check compares it with ({})"
NOTEBOOK_TIMEOUTS = 20  # the whole notebook's limit, in cell timeouts, unless one is given


@dataclass
class AssignmentResult:
    """The score of one assignment and why."""

    id: str
    title: str
    points: float
    score: float
    passed: bool
    reason: str


@dataclass
class WrittenResult:
    """A written assignment, for the teacher to grade by hand: whether the student wrote anything, and what."""

    id: str
    title: str
    points: float
    answered: bool
    answer: str


@dataclass
class GradeReport:
    """Every assignment of one graded notebook: ``results`` the checked ones, which ``score`` and ``points``
    add up; ``written`` those the teacher grades by hand (their points in ``written_points``)."""

    notebook: str
    profile: str
    seconds: float
    results: list[AssignmentResult]
    teacher: str = ""
    written: list[WrittenResult] = field(default_factory=list)

    @property
    def written_points(self) -> float:
        return sum(result.points for result in self.written)

    @property
    def score(self) -> float:
        return sum(result.score for result in self.results)

    @property
    def points(self) -> float:
        return sum(result.points for result in self.results)

    def to_json(self) -> dict:
        return {"notebook": self.notebook, "teacher": self.teacher, "profile": self.profile,
                "seconds": round(self.seconds, 1), "score": self.score, "points": self.points,
                "assignments": [asdict(r) for r in self.results], "written_points": self.written_points,
                "written": [asdict(r) for r in self.written]}


# ------------------------------------------------------------------------------ the teacher's


def _teacher_folder(source_dir: Path | None) -> list[Path]:
    paths = notebook_paths(source_dir)
    if not paths:
        where = source_dir if source_dir is not None else "notebooks/"
        why = "no such folder" if source_dir is not None and not Path(source_dir).is_dir() else \
            "no teacher's notebooks (NN_*.ipynb) in it"
        raise GradingError(f"{where}: {why}; give the folder of the teacher's notebooks with --source")
    return paths


def _grade_ids(notebook) -> set[str]:
    return {str(cell.metadata.get("nbgrader", {}).get("grade_id")) for cell in notebook.cells
            if cell.metadata.get("nbgrader", {}).get("grade_id")}


def _browser_copy_name(name: str) -> str:
    """``04_glove (1).ipynb`` or ``04_glove-2.ipynb`` -> ``04_glove.ipynb``."""
    return re.sub(r"(\s*\(\d+\)|-\d+|\s+copy)+(?=\.ipynb$)", "", name)


def teacher_notebook(student, path: Path, source_dir: Path | None):
    """The teacher's notebook a student notebook belongs to: ``(path, notebook)``.

    In this order: the name the student version records (``metadata.course.notebook``); the file name,
    also as a browser names a second download (``04_glove (1).ipynb``); the teacher's notebook that
    shares the most grade ids with the student's cells. None of these: :class:`GradingError`.
    """
    teachers = {p.name: p for p in _teacher_folder(source_dir)}
    recorded = student.metadata.get("course", {}).get("notebook") if isinstance(
        student.metadata.get("course"), dict) else None
    for name in (recorded, path.name, _browser_copy_name(path.name)):
        if isinstance(name, str) and name in teachers:
            return _teachers_own(teachers[name], read_notebook(teachers[name]))
    folder = teachers[next(iter(teachers))].parent
    if recorded:
        raise GradingError(f"{path}: it is the student version of {recorded}, which is not among the teacher's "
                           f"notebooks in {folder}; check --source")
    ids = _grade_ids(student)
    shared = {}
    for name, teacher_path in teachers.items():
        try:
            shared[name] = len(ids & _grade_ids(read_notebook(teacher_path)))
        except NotebookFileError:
            continue
    best = max(shared.values(), default=0)
    winners = [name for name, count in shared.items() if count == best]
    folder = teachers[next(iter(teachers))].parent
    if best == 0 or len(winners) > 1:
        raise GradingError(f"{path}: matches none of the teacher's notebooks in {folder} "
                           "(by the name it records, its file name or its grade ids); name it as the assignment "
                           "was handed out, or give the right folder with --source")
    return _teachers_own(teachers[winners[0]], read_notebook(teachers[winners[0]]))


def _teachers_own(path: Path, notebook):
    """``(path, notebook)`` if it is a teacher's notebook; :class:`GradingError` for a student version (it records
    the notebook it was made from, or none of its grade cells holds hidden tests)."""
    course = notebook.metadata.get("course")
    if isinstance(course, dict) and course.get("notebook"):
        why = f"it records that it is the student version of {course['notebook']}"
    elif not any(is_grade_cell(cell) and BEGIN_HIDDEN_TESTS in cell.source for cell in notebook.cells):
        why = "none of its grade cells holds hidden tests"
    else:
        return path, notebook
    raise GradingError(f"{path}: not a teacher's notebook ({why}); give the folder of the teacher's notebooks "
                       "with --source")


def _defined_names(source: str) -> list[str]:
    """The functions and classes a solution cell defines at its top level."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return re.findall(r"^(?:def|class)\s+(\w+)", source, flags=re.MULTILINE)
    return [node.name for node in tree.body if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)]


class KernelStartError(Exception):
    """A kernel the grade needs could not be started, even on a second try."""


def started_kernel(kernel, what: str) -> None:
    """Start ``kernel`` (a :class:`Runner` or the student's kernel), or raise :class:`KernelStartError`
    naming ``what`` could not be started and why, in one line."""
    try:
        kernel.start()
    except Exception as exc:  # noqa: BLE001 - any failure to start is reported in the grade, not raised
        why = " ".join(str(exc).split())[:200] or type(exc).__name__
        raise KernelStartError(f"not graded: {what} could not be started ({why}); grade the notebook again") \
            from exc


class _StudentKernel:
    """The student's code cells in the sandbox, then a server answering calls of its functions."""

    def __init__(self, notebook, cells: list[int], home: Path, private: Path, clock: Clock, env: dict,
                 hide: list[Path], limits: sandbox.Limits, package: Path | None = None):
        home.mkdir(mode=0o700)
        specs = sandbox.kernel_spec(private / "specs", home, private / "student.json", hide, limits, [cache_dir()],
                                    package)
        self.runner = Runner(notebook, home, clock, env, "course-sandbox", [specs], private / "student.json")
        self.cells, self.home, self.socket = cells, home, home / "answers.sock"

    def start(self) -> None:
        self.runner.start()

    def run(self, index: int) -> Outcome:
        return self.runner.run(index)

    def serve(self) -> None:
        """Start answering calls (after the cells ran); wait until the socket is there."""
        self.socket.unlink(missing_ok=True)
        self.runner.execute_quietly(f"import course.teaching.remote as _course_remote\n"
                                    f"_course_remote.serve({str(self.socket)!r}, globals())")
        deadline = time.monotonic() + min(30.0, max(self.runner.clock.seconds(), 1.0))
        while not self.socket.exists() and time.monotonic() < deadline:
            time.sleep(0.02)

    def restart(self) -> None:
        self.runner.restart()
        self.serve()

    def stop(self) -> None:
        self.runner.stop()


# ------------------------------------------------------------------------------------ grading


def _marker_failures(notebook, assignments: list[Assignment]) -> dict[str, str]:
    failures = {}
    for assignment in assignments:
        for index in assignment.solution_cells:
            try:
                marker_regions(notebook.cells[index].source, BEGIN_SOLUTION, END_SOLUTION, f"cell {index}")
            except AssignmentMarkerError as exc:
                failures[assignment.id] = str(exc)
    return failures


def _unreadable_report(path: Path, reason: str, profile: str, source_dir: Path | None) -> GradeReport:
    """Every assignment of the teacher's notebook of that name, failed with ``reason``; else re-raise."""
    teachers = {p.name: p for p in notebook_paths(source_dir)}
    teacher = teachers.get(path.name) or teachers.get(_browser_copy_name(path.name))
    if teacher is None:
        raise NotebookFileError(reason)
    reason = reason.removeprefix(f"{path}: ")
    results = [AssignmentResult(a.id, a.title, a.points, 0.0, False, reason)
               for a in find_assignments(read_notebook(teacher), teacher.name)]
    return GradeReport(path.name, profile, 0.0, results, teacher.name)


def _checking_notebook(teacher, assignments: list[Assignment], socket_path: Path, timeout: int, given_up: Path):
    """The teacher's notebook as the checking kernel runs it: solution cells replaced by stand-ins (a call they
    give up on touches ``given_up``)."""
    import copy

    from nbformat.v4 import new_code_cell

    checking = copy.deepcopy(teacher)
    solution_cells = {index for a in assignments for index in a.solution_cells}
    for index, cell in enumerate(checking.cells):
        if cell.cell_type == "code":
            cell.outputs = []
        if index in solution_cells and cell.cell_type == "code":
            names = _defined_names(teacher.cells[index].source)
            cell.source = "\n".join(f"{name} = _course_remote.function({name!r})" for name in names) or "pass"
    setup = new_code_cell(f"import course.teaching.remote as _course_remote\n"
                          f"import ctypes as _course_ctypes, sys as _course_sys\n"
                          f"if _course_sys.platform.startswith('linux'):\n"
                          f"    _course_ctypes.CDLL(None).prctl({sandbox.PR_SET_DUMPABLE}, 0, 0, 0, 0)\n"
                          f"_course_remote.bind({str(socket_path)!r}, {float(timeout)!r}, {str(given_up)!r})")
    checking.cells.insert(0, setup)
    return checking


_LOADED_FILES = ("import sys as _course_sys, json as _course_json\n"
                 "print(_course_json.dumps(sorted({p for m in list(_course_sys.modules.values()) "
                 "for p in [getattr(m, '__file__', None)] if isinstance(p, str)})))")


def _changed_since(paths, started: float) -> list[str]:
    changed = []
    for path in paths:
        try:
            if os.stat(path).st_ctime > started:
                changed.append(str(path))
        except OSError:
            continue
    return changed


def _course_files() -> list[Path]:
    """Every module of the ``course`` package (this file is in ``course/teaching/``)."""
    return list(Path(__file__).resolve().parents[1].rglob("*.py"))


def grade_notebook(path: str | Path, timeout: int = 120, profile: str = "smoke", source_dir: str | Path | None = None,
                   kernel_name: str = "python3", progress: bool = False,
                   limits: sandbox.Limits | None = None, notebook_timeout: float | None = None) -> GradeReport:
    """Run the student's notebook at ``path`` and score each of its assignments (see the module's text).

    ``timeout`` is the limit in seconds for one cell and for one call of a student's function;
    ``notebook_timeout`` the limit for the whole notebook, both kernels together (default
    ``NOTEBOOK_TIMEOUTS`` cell timeouts): every limit is kept by this process, whatever the kernels do;
    ``profile`` the course profile the notebooks run with; ``source_dir`` the folder of the teacher's
    notebooks (default the course's ``notebooks/``); ``limits`` what the student kernel may use.
    A file that is not a notebook gives every assignment of the teacher's notebook of the same name 0
    points with the reason. Raises :class:`GradingError` when the notebook matches no teacher's
    notebook, or when a file the grade depends on changed while grading.
    """
    path = Path(path)
    source_dir = Path(source_dir) if source_dir is not None else None
    limits = limits or sandbox.Limits()
    try:
        notebook = read_notebook(path)
    except NotebookFileError as exc:
        if not path.is_file():
            raise
        return _unreadable_report(path, str(exc), profile, source_dir)
    if source_dir is None:
        source_dir = edition_folder(edition_of(notebook))
    teacher_path, teacher = teacher_notebook(notebook, path, source_dir)
    assignments = find_assignments(teacher, teacher_path.name)
    written = written_answers(notebook, teacher, teacher_path.name)
    if not assignments:
        return GradeReport(path.name, profile, 0.0, [], teacher_path.name, written)
    solution_ids = {str(teacher.cells[i].metadata["nbgrader"].get("grade_id")): a.id
                    for a in assignments for i in a.solution_cells}

    # The student's cells: every code cell up to their last solution cell, none of their grade cells.
    failures: dict[str, str] = {}
    owner: dict[int, str] = {}
    for index, cell in enumerate(notebook.cells):
        grade_id = str(cell.metadata.get("nbgrader", {}).get("grade_id"))
        if is_solution_cell(cell) and grade_id in solution_ids:
            owner[index] = solution_ids[grade_id]
    for index, assignment_id in owner.items():
        try:
            marker_regions(notebook.cells[index].source, BEGIN_SOLUTION, END_SOLUTION, f"cell {index}")
        except AssignmentMarkerError as exc:
            failures.setdefault(assignment_id, str(exc))
    last = max(owner, default=len(notebook.cells) - 1)
    student_cells = [i for i, cell in enumerate(notebook.cells[:last + 1])
                     if cell.cell_type == "code" and not is_grade_cell(cell) and cell.source.strip()
                     and failures.get(owner.get(i, "")) is None]
    for cell in notebook.cells:
        if cell.cell_type == "code":
            cell.outputs = []
    for assignment in assignments:
        if not any(a == assignment.id for a in owner.values()):
            failures.setdefault(assignment.id, "its solution cell is not in the notebook")

    # The course as the student kernel has it: without the implementations this notebook's checks compare with.
    package = student_package(notebook_references(teacher))
    started = time.time()
    watched = [*notebook_paths(teacher_path.parent), *_course_files(), *package.rglob("*.py")]
    sandbox.prctl(sandbox.PR_SET_CHILD_SUBREAPER, 1)
    before = sandbox.descendants()
    env = {**{k: v for k, v in os.environ.items() if not k.startswith(("JPY_", "JUPYTER_"))},
           "COURSE_PROFILE": profile, "COURSE_EDITION": edition_of(notebook)}  # the checks speak the notebook's
    loaded: list[str] = []
    clock = Clock(timeout, notebook_timeout if notebook_timeout is not None else NOTEBOOK_TIMEOUTS * timeout)
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="grade-private-") as private_dir, \
            tempfile.TemporaryDirectory(prefix="grade-student-") as student_dir:
        private = Path(private_dir)
        # Both editions hold the same solutions: hide the English folder (which holds zh/) whichever was used.
        hide = [teacher_path.parent.resolve(), private.resolve()]
        if teacher_path.parent.name == EDITION_FOLDER:
            hide.insert(0, teacher_path.parent.parent.resolve())
        student = _StudentKernel(notebook, student_cells, Path(student_dir) / "home", private, clock, env, hide,
                                 limits, package)
        given_up = private / "given-up"  # a call the checks gave up on: the student kernel may still be in it
        checking = _checking_notebook(teacher, assignments, student.socket, timeout, given_up)
        checker = Runner(checking, private, clock, env, kernel_name, connection_file=private / "checking.json",
                          offset=1)
        try:
            started_kernel(student, "the kernel that runs the notebook")
            for index in student_cells:
                if progress:
                    print(f"  student cell {index} ...", flush=True)
                outcome = student.run(index)
                if outcome.failure and index in owner:
                    failures.setdefault(owner[index], outcome.failure)
            student.serve()
            started_kernel(checker, "the kernel that checks the answers")
            grade_cells = {a.grade_cell + 1: a.id for a in assignments}  # + 1: the setup cell
            for index in range(max(grade_cells) + 1):
                cell = checking.cells[index]
                if cell.cell_type != "code" or not cell.source.strip():
                    continue
                if progress:
                    print(f"  checking cell {index} ...", flush=True)
                if index in grade_cells:
                    checker.ask("_course_remote.watch()")
                outcome = checker.run(index)
                if outcome.failure and index in grade_cells:
                    failures.setdefault(grade_cells[index], outcome.failure)
                elif index in grade_cells:
                    found = json.loads(checker.ask("_course_remote.verdict()") or "[]")
                    if found:
                        failures.setdefault(grade_cells[index], _REFERENCE_USED.format(", ".join(found)))
                gave_up = given_up.exists()  # also where a check caught the StudentTimeout or StudentKernelDied
                given_up.unlink(missing_ok=True)
                if (gave_up or outcome.error in STUDENT_FAULTS or outcome.error in ("timeout", "crash")) and \
                        clock.seconds() > 0:
                    student.restart()
            loaded = json.loads(checker.ask(_LOADED_FILES) or "[]")
        except KernelStartError as exc:  # nothing can be checked: every assignment not yet failed fails with why
            for assignment in assignments:
                failures.setdefault(assignment.id, str(exc))
        finally:
            student.stop()
            checker.stop()
            sandbox.stop_new_descendants(before)
    changed = _changed_since([*watched, *loaded], started)
    if changed:
        raise GradingError(f"{path}: not graded: {changed[0]} changed while the notebook was graded "
                           f"({len(changed)} file(s) in all); restore them and grade again")
    results = [AssignmentResult(a.id, a.title, a.points, 0.0 if a.id in failures else a.points,
                                a.id not in failures, failures.get(a.id, "passed")) for a in assignments]
    return GradeReport(path.name, profile, time.perf_counter() - start, results, teacher_path.name, written)


def written_answers(student, teacher, name: str = "notebook") -> list[WrittenResult]:
    """What the student wrote for each written assignment of the teacher's notebook (matched by grade id):
    answered unless the cell is missing, empty or still ``YOUR ANSWER HERE``."""
    cells = {str(cell.metadata.get("nbgrader", {}).get("grade_id")): cell for cell in student.cells
             if cell.cell_type == "markdown"}
    results = []
    for question in find_written(teacher, name):
        cell = cells.get(question.id)
        answer = cell.source.strip() if cell is not None else ""
        answered = bool(answer) and answer != TEXT_STUB
        results.append(WrittenResult(question.id, question.title, question.points, answered,
                                     answer if answered else ""))
    return results
