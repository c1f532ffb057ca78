"""Grade a student's notebook: run it in a fresh kernel and score each assignment.

The student's file is read once and never written. Its cells run in order, in a temporary folder,
up to the last grade cell (nothing after it can change a score). Each grade cell is first replaced
by the teacher's version from the course's own notebook of the same name, hidden tests included,
so a student cannot edit a check away. An assignment scores its points when its solution cells and
its grade cell all run without an error; otherwise it scores 0, with the reason:

- an exception (the check's message, or ``NotImplementedError``: not answered);
- a cell that runs longer than the timeout (the kernel is interrupted and the run goes on);
- a cell that kills the kernel (a new kernel is started, the cells that had run are run again, and
  the run goes on);
- a solution marker without its end (that assignment's cells are not run).
"""

from __future__ import annotations

import os
import subprocess
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from .assignments import (
    BEGIN_SOLUTION,
    END_SOLUTION,
    Assignment,
    find_assignments,
    is_grade_cell,
    marker_regions,
    notebook_paths,
    read_notebook,
)
from .errors import AssignmentMarkerError, NotebookFileError


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
class GradeReport:
    """Every assignment of one graded notebook."""

    notebook: str
    profile: str
    seconds: float
    results: list[AssignmentResult]

    @property
    def score(self) -> float:
        return sum(result.score for result in self.results)

    @property
    def points(self) -> float:
        return sum(result.points for result in self.results)

    def to_json(self) -> dict:
        return {"notebook": self.notebook, "profile": self.profile, "seconds": round(self.seconds, 1),
                "score": self.score, "points": self.points, "assignments": [asdict(r) for r in self.results]}


@dataclass
class _Outcome:
    """What running one cell did: nothing wrong (``None``), or the reason it failed."""

    failure: str | None
    kernel_died: bool = False


def _source_notebook(name: str, source_dir: Path | None):
    """The course's own notebook called ``name`` (the teacher's version), or ``None``."""
    for path in notebook_paths(source_dir):
        if path.name == name:
            try:
                return read_notebook(path)
            except NotebookFileError:
                return None
    return None


def _teacher_grade_cells(source) -> dict[str, str]:
    if source is None:
        return {}
    return {str(cell.metadata["nbgrader"].get("grade_id")): cell.source
            for cell in source.cells if is_grade_cell(cell)}


def _failure_of(cell) -> str | None:
    for output in cell.get("outputs", []):
        if output.get("output_type") == "error":
            name, value = output.get("ename", "Error"), str(output.get("evalue", "")).strip()
            if name == "NotImplementedError":
                return "not answered (NotImplementedError)" if not value else f"NotImplementedError: {value}"
            first = value.splitlines()[0] if value else ""
            return f"{name}: {first}" if first else name
    return None


class _Runner:
    """One notebook's cells in one kernel at a time, with a new kernel when one dies."""

    def __init__(self, notebook, workdir: Path, timeout: int, profile: str, kernel_name: str):
        from nbclient import NotebookClient

        self.client = NotebookClient(notebook, timeout=timeout, kernel_name=kernel_name, allow_errors=True,
                                     interrupt_on_timeout=False, record_timing=False,
                                     resources={"metadata": {"path": str(workdir)}})
        self.timeout = timeout
        self.env = {**os.environ, "COURSE_PROFILE": profile}
        self.succeeded: list[int] = []
        self.kernel = None

    def start(self) -> None:
        # The kernel's own stderr (start-up warnings, a crash's last words) is not the student's output.
        self.kernel = self.client.setup_kernel(env=self.env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.kernel.__enter__()

    def stop(self) -> None:
        if self.kernel is not None:
            try:
                self.kernel.__exit__(None, None, None)
            except Exception:  # a kernel that is already gone
                pass
            self.kernel = None

    def restart(self) -> None:
        """A new kernel, brought back to where the old one was by running the cells that had succeeded."""
        self.stop()
        self.start()
        for index in self.succeeded:
            cell = self.client.nb.cells[index]
            cell.outputs = []
            try:
                self.client.execute_cell(cell, index)
            except Exception:  # nothing to be done here: the cells after it will report what is missing
                pass

    def run(self, index: int) -> _Outcome:
        from nbclient.exceptions import CellTimeoutError, DeadKernelError

        cell = self.client.nb.cells[index]
        try:
            self.client.execute_cell(cell, index)
        except CellTimeoutError:
            self._interrupt()
            return _Outcome(f"cell {index} ran longer than {self.timeout} s and was stopped")
        except DeadKernelError:
            self.restart()
            return _Outcome(f"cell {index} crashed the kernel (a new kernel took over)", kernel_died=True)
        failure = _failure_of(cell)
        if failure is None:
            self.succeeded.append(index)
        else:
            failure = f"cell {index}: {failure}"
        return _Outcome(failure)

    def _interrupt(self) -> None:
        """Interrupt the running cell; if the kernel does not answer afterwards, replace it."""
        from jupyter_core.utils import run_sync

        run_sync(self.client.km.interrupt_kernel)()
        try:
            message_id = self.client.kc.execute("pass", store_history=False)
            self.client.wait_for_reply(message_id)
        except Exception:  # still busy (an interrupt it ignores) or gone: start afresh
            self.restart()


def _marker_failures(notebook, assignments: list[Assignment]) -> dict[str, str]:
    failures = {}
    for assignment in assignments:
        for index in assignment.solution_cells:
            try:
                marker_regions(notebook.cells[index].source, BEGIN_SOLUTION, END_SOLUTION, f"cell {index}")
            except AssignmentMarkerError as exc:
                failures[assignment.id] = str(exc)
    return failures


def _expected_assignments(source, name: str) -> list[Assignment]:
    """The teacher's assignments of this notebook (their order and points count), or none if unknown."""
    if source is None:
        return []
    try:
        return find_assignments(source, name)
    except AssignmentMarkerError:
        return []


def _unreadable_report(path: Path, reason: str, profile: str, source_dir: Path | None) -> GradeReport:
    """Every assignment of the course notebook of that name, failed with ``reason``; else re-raise."""
    source = _source_notebook(path.name, source_dir)
    if source is None:
        raise NotebookFileError(reason)
    reason = reason.removeprefix(f"{path}: ")
    results = [AssignmentResult(a.id, a.title, a.points, 0.0, False, reason)
               for a in find_assignments(source, path.name)]
    return GradeReport(path.name, profile, 0.0, results)


def grade_notebook(path: str | Path, timeout: int = 120, profile: str = "smoke", source_dir: str | Path | None = None,
                   kernel_name: str = "python3", progress: bool = False) -> GradeReport:
    """Run the student's notebook at ``path`` and score each of its assignments.

    ``timeout`` is the limit for one cell in seconds; ``profile`` the course profile the notebook runs
    with; ``source_dir`` the folder of the teacher's notebooks (default the course's ``notebooks/``).
    A file that is not a notebook gives every assignment of the course notebook of the same name 0
    points with the reason; if there is no such notebook, :class:`NotebookFileError` is raised.
    """
    path = Path(path)
    source_dir = Path(source_dir) if source_dir is not None else None
    try:
        notebook = read_notebook(path)
    except NotebookFileError as exc:
        if not path.is_file():
            raise
        return _unreadable_report(path, str(exc), profile, source_dir)
    assignments = find_assignments(notebook, path.name, strict=False)  # broken markers are reported below
    broken = _marker_failures(notebook, assignments)
    source = _source_notebook(path.name, source_dir)
    teacher = _teacher_grade_cells(source)
    expected = _expected_assignments(source, path.name)
    for assignment in assignments:
        cell = notebook.cells[assignment.grade_cell]
        grade_id = str(cell.metadata["nbgrader"].get("grade_id"))
        cell.source = teacher.get(grade_id, cell.source)
    for cell in notebook.cells:
        if cell.cell_type == "code":
            cell.outputs = []
    skipped = {index for a in assignments if a.id in broken for index in a.cells}
    owner = {index: a.id for a in assignments for index in a.cells}
    failures: dict[str, str] = dict(broken)
    last = max((a.grade_cell for a in assignments), default=-1)
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="grade-") as workdir:
        runner = _Runner(notebook, Path(workdir), timeout, profile, kernel_name)
        runner.start()
        try:
            for index in range(last + 1):
                cell = notebook.cells[index]
                if cell.cell_type != "code" or index in skipped or not cell.source.strip():
                    continue
                if progress:
                    print(f"  cell {index} ...", flush=True)
                outcome = runner.run(index)
                if outcome.failure and index in owner:
                    failures.setdefault(owner[index], outcome.failure)
        finally:
            runner.stop()
    found = {assignment.id: assignment for assignment in assignments}
    results = []
    for assignment in expected or assignments:
        points = assignment.points  # the teacher's, when the course has this notebook
        if assignment.id not in found:
            results.append(AssignmentResult(assignment.id, assignment.title, points, 0.0, False,
                                            "its grade cell is not in the notebook"))
            continue
        reason = failures.get(assignment.id)
        results.append(AssignmentResult(assignment.id, assignment.title, points, 0.0 if reason else points,
                                        reason is None, reason or "passed"))
    return GradeReport(path.name, profile, time.perf_counter() - start, results)
