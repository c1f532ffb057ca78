"""Build the course: run every notebook in order and write an HTML index of what came out.

For each ``notebooks/NN_*.ipynb`` (the Chinese edition: ``notebooks/zh/NN_*.ipynb``, built into
``build/zh/``), papermill executes it with the chosen profile and edition into ``build/notebooks/``,
nbconvert renders it to HTML beside it (a page that fetches nothing from the network, MathJax from
``build/static/``: :mod:`course.teaching.pages`), its figures are saved under
``build/figures/``, and its headline numbers (see :mod:`course.teaching.report`) are collected.
``build/index.html`` links all of it, with the time each notebook took. It opens with the claims
table (:func:`course.claims.measure_claims` on the models the notebooks saved: does each claim the
course teaches hold in this build?) and the teacher's table: which ideas each notebook covers, its
assignments, and its student version (written to ``build/assignments/`` by
:func:`course.teaching.assignments.write_student_versions`). Last, every page of both editions then under
``build/`` becomes one site (:func:`course.teaching.site.write_site`): a sidebar of the notebooks and their
sections, previous and next, the switch between editions, a search over both, and the CJK font they need.

With ``jobs`` above 1 the notebooks run that many at a time, each in a process of its own, started in
order as the earlier ones end. A notebook that loads a model a notebook still running will save waits for
it (:func:`course.shared.saved.wait_for_saved`) rather than training it again, so nothing is trained twice and
the results are those of the build one at a time; where the machine has at least two cores per notebook,
each gets its own share of them. On two cores that fills the cores a notebook leaves idle; with a GPU,
the small models of several notebooks share it.

A build of nothing (``only`` matching no notebook) is refused before anything is written; each file
appears whole or not at all (papermill writes into a temporary folder), and a build that fails or is
interrupted removes the folders it made and left empty. A build holds its output folder locked from
start to end (:func:`holding_output_folder`): a second build into the same folder refuses at its start,
rather than both running and the index keeping only the notebooks of the one that ended last.
"""

from __future__ import annotations

import base64
import html
import json
import multiprocessing
import multiprocessing.connection
import os
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from ..claims import HOLDS, Claim, claims_html, claims_json, measure_claims
from ..core.devices import describe_machine
from ..core.edition import resolve_edition, text
from ..core.errors import CourseError, NotebookFileError, OutputFileError, SettingError
from ..core.io import atomic_path
from ..core.paths import build_dir, project_root
from ..core.progress import STATUS_ENV
from ..core.settings import resolve_profile
from ..shared.saved import BUILD_PID, NOTEBOOK_ENV, PENDING_ENV, build_running
from . import heartbeat
from .assignments import Assignment, Written, find_assignments, find_written, read_notebook, write_student_versions
from .heartbeat import Heartbeat
from .pages import render_page, static_folder
from .report import HEADLINE_MIME
from .site import with_site, write_site


@dataclass
class NotebookRun:
    """What running one notebook produced."""

    name: str
    title: str
    seconds: float
    executed: Path
    html: Path | None
    figures: list[Path] = field(default_factory=list)
    headlines: list[dict] = field(default_factory=list)
    error: str | None = None
    ideas: list[str] = field(default_factory=list)
    assignments: list[Assignment] = field(default_factory=list)
    written: list[Written] = field(default_factory=list)
    student: Path | None = None
    cpu_seconds: float | None = None  # processor time of the run, every process it started included


def cpu_seconds() -> float | None:
    """Processor seconds (user and system) this process and its finished children have used so far, or
    None where the system does not count them. A notebook's kernel, and every process it forks, is a
    finished child once the notebook has run: the difference around a run is the run's processor time."""
    try:
        import resource
    except ImportError:  # not a Unix
        return None
    used = [resource.getrusage(who) for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)]
    return sum(usage.ru_utime + usage.ru_stime for usage in used)


def _used_since(before: float | None) -> float | None:
    after = cpu_seconds()
    return None if before is None or after is None else after - before


def _patterns(only: str | Sequence[str] | None) -> list[str] | None:
    return [only] if isinstance(only, str) else (list(only) if only is not None else None)


def notebook_paths(notebooks: Path | None = None, only: str | Sequence[str] | None = None) -> list[Path]:
    """The course's notebooks in order: ``NN_*.ipynb`` in ``notebooks/`` (those whose name contains ``only``,
    or one of ``only``'s strings)."""
    folder = notebooks or project_root() / "notebooks"
    paths = sorted(p for p in folder.glob("[0-9][0-9]_*.ipynb"))
    wanted = _patterns(only)
    return [p for p in paths if wanted is None or any(pattern in p.name for pattern in wanted)]


def chosen_notebooks(notebooks: Path | None = None, only: str | Sequence[str] | None = None) -> list[Path]:
    """:func:`notebook_paths`, refused when it is empty, so that a build of nothing writes nothing.

    Raises:
        NotebookFileError: the folder holds no ``NN_*.ipynb`` notebooks, or none whose name contains ``only``
            (the message names the pattern and the notebooks there are).
    """
    folder = Path(notebooks or project_root() / "notebooks")
    everything = notebook_paths(folder)
    if not everything:
        raise NotebookFileError(f"{folder}: no NN_*.ipynb notebooks to build")
    chosen = notebook_paths(folder, only)
    if not chosen:
        names = ", ".join(path.stem for path in everything)
        asked = " ".join(f"--only {pattern!r}" for pattern in _patterns(only))
        raise NotebookFileError(f"{asked} matches none of the notebooks in {folder} (there are: {names})")
    return chosen


@contextmanager
def holding_output_folder(out: Path) -> Iterator[None]:
    """Hold the folder ``out`` (made if missing) for one build: an exclusive advisory lock on the folder
    itself, which the system lets go however the build ends (killed outright too), so nothing is left in
    it to clean up. On leaving, the folders made for it that are still empty are removed while it is
    held. Where the file system has no such locks (some network drives), the build runs unlocked.

    Raises:
        OutputFileError: another build holds ``out`` (nothing is made or removed: the folder is that
            build's), or ``out`` cannot be made.
    """
    out = Path(out)
    missing = [folder for folder in (out.absolute(), *out.absolute().parents) if not folder.exists()]
    try:
        out.mkdir(parents=True, exist_ok=True)
        handle = os.open(out, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError as exc:
        for folder in missing:
            _remove_if_empty(folder)
        raise OutputFileError(f"{out}: cannot build into this folder ({exc.strerror or exc})") from None
    try:
        import fcntl

        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(handle)
        raise OutputFileError(f"{out}: another build is writing into this folder now; wait for it to end, or build "
                              "into another folder with --out") from None
    except (ImportError, OSError):  # no advisory locks here
        pass
    try:
        yield
    finally:
        for folder in missing:  # deepest first
            _remove_if_empty(folder)
        os.close(handle)


@contextmanager
def removing_empty_folders(out: Path) -> Iterator[None]:
    """On an error or an interrupt, remove the folders under ``out`` (and ``out`` and the folders
    above it) that did not exist before and hold nothing, so a failed build leaves nothing half-made."""
    out = Path(out).absolute()
    missing = [folder for folder in (out, *out.parents) if not folder.exists()]
    existed = {folder for folder in out.rglob("*") if folder.is_dir()} if out.is_dir() else set()
    try:
        yield
    except BaseException:
        if out.is_dir():
            made = [folder for folder in out.rglob("*") if folder.is_dir() and folder not in existed]
            for folder in sorted(made, key=lambda path: len(path.parts), reverse=True):
                _remove_if_empty(folder)
        for folder in missing:  # deepest first
            _remove_if_empty(folder)
        raise


def _remove_if_empty(folder: Path) -> None:
    try:
        folder.rmdir()
    except OSError:  # not empty, or already gone
        pass


def _title(notebook) -> str:
    for cell in notebook.cells:
        if cell.cell_type == "markdown":
            for line in cell.source.splitlines():
                if line.startswith("# "):
                    return line[2:].strip()
    return ""


def ideas_of(notebook) -> list[str]:
    """The notebook's section headings (``## 3 · Negative sampling`` gives ``Negative sampling``)."""
    ideas = []
    for cell in notebook.cells:
        if cell.cell_type == "markdown":
            for line in cell.source.splitlines():
                if line.startswith("## ") and not any(word in line.lower() for word in ("exercises", "练习")):
                    ideas.append(line[3:].split("·", 1)[-1].strip().replace("`", ""))
    return ideas


def _collect(notebook, stem: str, figures_dir: Path) -> tuple[list[Path], list[dict]]:
    figures, headlines = [], []
    for cell in notebook.cells:
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            if HEADLINE_MIME in data:
                headlines.append(dict(data[HEADLINE_MIME]))
            if "image/png" in data:
                path = figures_dir / f"{stem}-{len(figures) + 1:02d}.png"
                with atomic_path(path) as temporary:
                    temporary.write_bytes(base64.b64decode(data["image/png"]))
                figures.append(path)
    return figures, headlines


def run_notebook(source: Path, out: Path, profile: str, edition: str = "en") -> NotebookRun:
    """Execute one notebook with papermill and render it; failures are recorded, not raised. While it runs,
    a line every :data:`~course.teaching.heartbeat.HEARTBEAT_SECONDS` says where it stands
    (:class:`~course.teaching.heartbeat.Heartbeat`)."""
    import nbformat
    import papermill

    executed = out / "notebooks" / source.name
    error = None
    start, processor = time.perf_counter(), cpu_seconds()
    previous = {name: os.environ.get(name) for name in ("COURSE_PROFILE", "COURSE_EDITION", STATUS_ENV)}
    os.environ["COURSE_PROFILE"] = profile  # the kernel inherits them, for code that reads them directly
    os.environ["COURSE_EDITION"] = edition
    with tempfile.TemporaryDirectory(prefix="course-build-") as running:  # papermill saves as it goes
        output, status = Path(running) / source.name, Path(running) / "progress"
        os.environ[STATUS_ENV] = str(status)  # where the kernel's progress bar says how far it has got
        try:
            with Heartbeat(source.stem, nbformat.read(source, as_version=4), heartbeat.HEARTBEAT_SECONDS,
                           status) as beat:
                papermill.execute_notebook(str(source), str(output),
                                           parameters={"PROFILE": profile, "EDITION": edition},
                                           cwd=str(source.parent), kernel_name="python3", progress_bar=False,
                                           on_cell_execute=beat.on_cell_execute,
                                           on_cell_executed=beat.on_cell_executed)
        except Exception as exc:  # papermill's execution error carries the cell's traceback
            error = f"{type(exc).__name__}: {str(exc).strip().splitlines()[-1] if str(exc).strip() else exc}"
        finally:
            for name, value in previous.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value
        seconds, used = time.perf_counter() - start, _used_since(processor)
        if not output.is_file() or output.stat().st_size == 0:
            return NotebookRun(source.stem, source.stem, seconds, executed, None, error=error or "no output",
                               cpu_seconds=used)
        notebook = nbformat.read(output, as_version=4)
    if isinstance(notebook.metadata.get("papermill"), dict):
        notebook.metadata["papermill"]["output_path"] = str(executed)
    with atomic_path(executed) as temporary:  # whole, or not at all
        nbformat.write(notebook, str(temporary))
    figures, headlines = _collect(notebook, source.stem, out / "figures")
    page = executed.with_suffix(".html")
    body = render_page(notebook, page, static_folder(out), edition)
    with atomic_path(page) as temporary:
        temporary.write_text(body, encoding="utf-8")
    return NotebookRun(source.stem, _title(notebook) or source.stem, seconds, executed, page, figures, headlines,
                       error, cpu_seconds=used)


def build_course(profile: str | None = None, out: Path | None = None, notebooks: Path | None = None,
                 only: str | Sequence[str] | None = None, edition: str | None = "en",
                 jobs: int = 1) -> list[NotebookRun]:
    """Run the notebooks of ``edition`` (all, or those whose name contains ``only``) and write
    ``index.html``. ``notebooks`` is the English notebooks' folder (the Chinese ones are in its
    ``zh/``); ``out`` defaults to ``build/`` for English and ``build/zh/`` for Chinese. Both editions
    save their models into the same ``build/models/``, so what one edition trained the other loads.
    ``jobs``: how many notebooks run at a time (1: one after the other).

    Raises:
        SettingError: ``jobs`` that is not a positive whole number.
    """
    from .editions import edition_folder

    if not isinstance(jobs, int) or isinstance(jobs, bool) or jobs < 1:
        raise SettingError(f"jobs must be a positive whole number, got {jobs!r}")
    profile = resolve_profile(profile)
    edition = resolve_edition(edition)
    out = Path(out) if out is not None else build_dir() / ("zh" if edition == "zh" else "")
    folder = edition_folder(edition, notebooks)
    sources = chosen_notebooks(folder, only)  # nothing to build: say so before anything is written
    with holding_output_folder(out), removing_empty_folders(out):
        return _build(sources, folder, out, profile, edition, jobs)


#: Seconds each notebook may take in a full-profile build from nothing (no model saved yet) on two CPU
#: cores, and the whole build's, the claims included: what a class can wait for.
FULL_BUDGETS = {"00": 30, "01": 30, "02": 90, "03": 90, "04": 90, "05": 90, "06": 540, "07": 540, "08": 180,
                "09": 300, "10": 300, "11": 360, "claims": 30}
FULL_TOTAL_BUDGET = 45 * 60
NOTEBOOK_LIMIT = 10 * 60


def budget_lines(seconds: dict[str, float], profile: str, cpu: dict[str, float | None] | None = None,
                 cores: int | None = None, wall: float | None = None) -> list[str]:
    """The build's times beside their budgets, one line per notebook (keyed by its ``NN_`` stem, or
    ``"claims"``) and one for the total. Budgets hold for the full profile; other profiles get the times.
    ``wall``: the whole build's time where notebooks ran at the same time. The total is then that, not the
    sum of theirs, and only the total is held to its budget: a notebook's budget is for a notebook that has
    the machine to itself, and beside another it takes longer (or waits for the models it loads).

    ``cpu``: each one's processor seconds (:func:`cpu_seconds`), where known. Each line then says how many
    cores were busy on average (processor time over wall time), and a last line what the whole would take
    with all ``cores`` busy throughout: the least that running the same work in another order could give."""
    def minutes(value: float) -> str:
        return f"{value / 60:5.1f} min"

    cpu = {name: used for name, used in (cpu or {}).items() if used is not None and name in seconds}

    def busy(name: str) -> str:
        return f"{cpu[name] / seconds[name]:5.2f}" if name in cpu and seconds[name] > 0 else ""

    budgets = FULL_BUDGETS if profile == "full" else {}
    header = f"{'':<34} {'time':>9}   {'budget' if budgets else '':>9}"
    lines, over = [(header + ("   cores busy" if cpu else "")).rstrip()], 0
    width = 13 if cpu else 0
    for name, taken in seconds.items():
        budget = budgets.get(name.split("_", 1)[0])
        judged = budget is not None and wall is None
        verdict = "" if not judged else ("ok" if taken <= budget else f"OVER by {minutes(taken - budget)}")
        over += judged and taken > budget
        lines.append(f"{name:<34} {minutes(taken)}   {minutes(budget) if budget else '':>9}{busy(name):>{width}}   "
                     f"{verdict}".rstrip())
    total = sum(seconds.values()) if wall is None else wall
    whole_cpu = sum(cpu.values()) if len(cpu) == len(seconds) else None
    total_busy = f"{whole_cpu / total:5.2f}" if whole_cpu is not None and total > 0 else ""
    if budgets:
        whole = len([n for n in seconds if n.split("_", 1)[0] in budgets]) == len(budgets)
        limit = FULL_TOTAL_BUDGET if whole else sum(budgets.get(n.split("_", 1)[0], 0) for n in seconds)
        verdict = "ok" if total <= limit else f"OVER by {minutes(total - limit)}"
        lines.append(f"{'total' if whole else 'total (these notebooks)':<34} {minutes(total)}   {minutes(limit)}"
                     f"{total_busy:>{width}}   {verdict}")
        if wall is None:
            lines += [f"{name} took more than {NOTEBOOK_LIMIT // 60} minutes" for name, taken in seconds.items()
                      if taken > NOTEBOOK_LIMIT]
            lines.append(f"{over} of {len(seconds)} over budget (budgets: a build from nothing on two CPU cores)")
        else:
            lines.append("side by side, only the total is held to its budget (budgets: a build from nothing on two "
                         "CPU cores)")
    else:
        lines.append(f"{'total':<34} {minutes(total)}   {'':>9}{total_busy:>{width}}".rstrip())
    if whole_cpu is not None and cores:
        lines.append(f"{whole_cpu / 60:.1f} min of processor time: with all {cores} cores busy throughout, "
                     f"at least {minutes(whole_cpu / cores).strip()}")
    return lines


def _build(sources: list[Path], folder: Path, out: Path, profile: str, edition: str, jobs: int = 1
           ) -> list[NotebookRun]:
    students = {path.name: path for path in write_student_versions(out / "assignments", folder)}
    print(f"wrote {len(students)} student notebooks to {out / 'assignments'}", flush=True)
    began = time.perf_counter()
    if jobs == 1:
        runs = []
        for source in sources:
            print(f"running {source.name} ({profile}, {edition}) ...", flush=True)
            runs.append(run_notebook(source, out, profile, edition))
            print(f"  {runs[-1].seconds:6.1f} s  {_verdict(runs[-1])}", flush=True)
    else:
        runs = run_side_by_side(sources, out, profile, edition, jobs)
    for source, run in zip(sources, runs, strict=True):
        teacher = read_notebook(source)
        run.ideas, run.assignments = ideas_of(teacher), find_assignments(teacher, source.name)
        run.written = find_written(teacher, source.name)
        run.student = students.get(source.name)
    start, processor = time.perf_counter(), cpu_seconds()
    claims = measure_build_claims(profile, edition)
    times = {run.name: run.seconds for run in runs} | {"claims": time.perf_counter() - start}
    wall = None if jobs == 1 else time.perf_counter() - began
    cpu = {run.name: run.cpu_seconds for run in runs} | {"claims": _used_since(processor)}
    write_index(runs, out, profile, claims, edition)
    write_site(static_folder(out))
    summary = [{"notebook": r.name, "seconds": round(r.seconds, 1),
                "cpu_seconds": None if r.cpu_seconds is None else round(r.cpu_seconds, 1), "error": r.error,
                "ideas": r.ideas,
                "budget": FULL_BUDGETS.get(r.name.split("_", 1)[0]) if profile == "full" else None,
                "assignments": [{"id": a.id, "title": a.title, "points": a.points} for a in r.assignments],
                "written": [{"id": w.id, "title": w.title, "points": w.points} for w in r.written],
                "headlines": r.headlines} for r in runs]
    machine = describe_machine()
    with atomic_path(out / "summary.json") as temporary:
        temporary.write_text(json.dumps({"profile": profile, "edition": edition, "machine": machine, "jobs": jobs,
                                         "seconds": round(sum(times.values()) if wall is None else wall, 1),
                                         "notebooks": summary,
                                         "claims": claims_json(claims) if isinstance(claims, list) else claims},
                                        indent=2, ensure_ascii=False), encoding="utf-8")
    print(f"wrote {out / 'index.html'}", flush=True)
    print(f"machine: {machine}", flush=True)  # the times and the claims' last digits are this machine's
    from ..core.parallel import available_cores

    if wall is not None:
        print(f"{jobs} notebooks at a time: the total is the build's own time, not the sum of the notebooks'",
              flush=True)
    print("\n".join(budget_lines(times, profile, cpu, available_cores(), wall)), flush=True)
    return runs


def _verdict(run: NotebookRun) -> str:
    return "FAILED: " + run.error if run.error else "ok"


def core_shares(jobs: int, cores: list[int] | None = None) -> list[list[int] | None]:
    """The cores each of ``jobs`` notebooks running at once may use: ``cores`` (default: this process's)
    in ``jobs`` equal runs where there are at least two per notebook, so that one notebook's threads do
    not slow another's; otherwise None for each (all share every core)."""
    if cores is None:
        try:
            cores = sorted(os.sched_getaffinity(0))
        except AttributeError:  # no affinity on this system
            return [None] * jobs
    if len(cores) < 2 * jobs:
        return [None] * jobs
    size = len(cores) // jobs
    return [cores[i * size:(i + 1) * size] for i in range(jobs)]


def pending_markers(sources: list[Path], folder: Path) -> list[Path]:
    """Write into ``folder`` a marker for each shared file (:data:`~course.shared.files.SHARED_FILES`)
    that one of ``sources`` makes, naming that notebook (its stem): what a notebook started at the same
    time waits for (:func:`course.shared.saved.wait_for_saved`). A file already saved gets one too: the maker may
    save it again (trained with other settings), and a marker written before the save makes that visible."""
    from ..shared.files import SHARED_FILES

    makers = {source.stem.split("_", 1)[0]: source.stem for source in sources}
    markers = []
    for shared in SHARED_FILES:
        if shared.made_in in makers:
            marker = folder / shared.name
            marker.write_text(makers[shared.made_in], encoding="utf-8")
            markers.append(marker)
    return markers


PENDING_PREFIX = "course-pending-"  # a build's marker folder, in the system's temporary folder


def remove_stale_marker_folders(folder: Path | None = None) -> list[Path]:
    """Remove the marker folders (:func:`pending_markers`) left in ``folder`` (default: the system's temporary
    folder) by builds that ended without removing them (killed outright): those whose ``BUILD_PID`` names
    a process that no longer runs. A folder without that file is left alone: its build may have just made
    it and not written the file yet. Returns the folders removed."""
    import shutil

    folder = Path(tempfile.gettempdir()) if folder is None else Path(folder)
    removed = []
    for stale in sorted(folder.glob(PENDING_PREFIX + "*")):
        if stale.is_dir() and (stale / BUILD_PID).is_file() and not build_running(stale):
            shutil.rmtree(stale, ignore_errors=True)
            removed.append(stale)
    return removed


def run_side_by_side(sources: list[Path], out: Path, profile: str, edition: str, jobs: int) -> list[NotebookRun]:
    """Run ``sources`` ``jobs`` at a time, each in a process of its own (spawned: nothing of this one's
    PyTorch or CUDA state is inherited), started in order as slots free up; the runs in the order of
    ``sources``. The processes see the markers of :func:`pending_markers`, and a notebook's markers go
    when it ends, whether or not it saved its files. An interrupt stops every notebook running."""
    context = multiprocessing.get_context("spawn")
    shares = core_shares(jobs)
    runs: dict[Path, NotebookRun] = {}
    remove_stale_marker_folders()
    with tempfile.TemporaryDirectory(prefix=PENDING_PREFIX) as pending:
        with atomic_path(Path(pending) / BUILD_PID) as temporary:  # whole: another build may read it
            temporary.write_text(str(os.getpid()), encoding="utf-8")
        markers = pending_markers(sources, Path(pending))
        waiting, running, free = list(sources), {}, list(range(jobs))
        try:
            while waiting or running:
                while waiting and free:
                    source, slot = waiting.pop(0), free.pop(0)
                    here, there = context.Pipe(duplex=False)
                    process = context.Process(target=_notebook_process, name=f"course-build-{source.stem}",
                                              args=(source, out, profile, edition, pending, shares[slot], there))
                    process.start()
                    there.close()
                    running[here] = (source, process, slot)
                    print(f"running {source.name} ({profile}, {edition}) ...", flush=True)
                for ready in multiprocessing.connection.wait(list(running)):
                    source, process, slot = running.pop(ready)
                    try:
                        run = ready.recv()
                    except (EOFError, OSError):
                        run = None
                    ready.close()
                    process.join()
                    if run is None:
                        run = NotebookRun(source.stem, source.stem, 0.0, out / "notebooks" / source.name, None,
                                          error=f"the process that ran it ended with exit status {process.exitcode}")
                    free.append(slot)
                    for marker in markers:
                        if marker.is_file() and marker.read_text(encoding="utf-8") == source.stem:
                            marker.unlink()
                    runs[source] = run
                    print(f"  {source.name}: {run.seconds:6.1f} s  {_verdict(run)}", flush=True)
        finally:
            _stop(process for _, process, _ in running.values())
    return [runs[source] for source in sources]


def _stop(processes, grace: float = 10.0) -> None:
    """Interrupt each notebook process still running (its kernel is shut down and its temporary files
    removed), then end those that have not ended after ``grace`` seconds."""
    import signal

    processes = [process for process in processes if process.is_alive()]
    for process in processes:
        os.kill(process.pid, signal.SIGINT)
    deadline = time.monotonic() + grace
    for process in processes:
        process.join(max(0.0, deadline - time.monotonic()))
        if process.is_alive():
            process.terminate()
            process.join()


def _notebook_process(source: Path, out: Path, profile: str, edition: str, pending: str, cores: list[int] | None,
                      connection) -> None:
    """One notebook of :func:`run_side_by_side`, in its own process; its run goes back on ``connection``."""
    os.environ[PENDING_ENV], os.environ[NOTEBOOK_ENV] = pending, source.stem  # the kernel inherits them
    if cores is not None:
        os.sched_setaffinity(0, cores)
    try:
        run = run_notebook(source, out, profile, edition)
    except KeyboardInterrupt:
        return
    except Exception as exc:  # noqa: BLE001 - a notebook that cannot be run is recorded as failed
        run = NotebookRun(source.stem, source.stem, 0.0, out / "notebooks" / source.name, None,
                          error=f"{type(exc).__name__}: {exc}")
    connection.send(run)


def measure_build_claims(profile: str, edition: str = "en") -> list[Claim] | str:
    """The claims table of the models this build saved, or, when it cannot be measured, why
    (one line: an index without the table is still an index)."""
    print(f"measuring the claims ({profile}) ...", flush=True)
    start = time.perf_counter()
    try:
        rows = measure_claims(profile, progress=True)
    except Exception as exc:  # noqa: BLE001 - whatever goes wrong, the rest of the index is written
        message = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
        print(f"  claims not measured: {type(exc).__name__}: {message}", flush=True)
        return f"{type(exc).__name__}: {message}" if not isinstance(exc, CourseError) else message
    held = sum(row.verdict == HOLDS for row in rows)
    print(f"  {time.perf_counter() - start:6.1f} s  {text('claims count', edition, held=held, total=len(rows))}",
          flush=True)
    return rows


def _claims_section(claims: list[Claim] | str, edition: str = "en") -> list[str]:
    """The claims table, or the reason there is none in its place."""
    parts = [f"<section><h2>{text('claims heading', edition)}</h2>", f"<p>{text('claims intro', edition)}</p>"]
    if isinstance(claims, str):
        parts.append(f"<p class='failed'>{text('claims missing', edition, why=html.escape(claims))}</p>")
    else:
        parts.append(claims_html(claims, edition))
    parts.append("</section>")
    return parts


STYLE = """
body { font-family: "Course CJK", system-ui, sans-serif; max-width: 1100px; margin: 2em auto; padding: 0 1em;
       color: #222; }
h1 { margin-bottom: 0.2em; } .meta { color: #666; margin-top: 0; }
section { border-top: 1px solid #ddd; padding: 1em 0; }
section h2 { margin: 0 0 0.3em 0; font-size: 1.25em; }
.failed { color: #b00020; font-weight: bold; }
table { border-collapse: collapse; margin: 0.5em 0; } td, th { padding: 2px 12px 2px 0; text-align: left; }
td.value { text-align: right; font-variant-numeric: tabular-nums; }
.figures img { height: 140px; margin: 4px; border: 1px solid #eee; }
table.teacher td, table.teacher th { vertical-align: top; border-bottom: 1px solid #eee; padding: 4px 12px 4px 0; }
table.teacher ul { margin: 0; padding-left: 1.1em; }
table.claims td, table.claims th { vertical-align: top; border-bottom: 1px solid #eee; padding: 4px 12px 4px 0; }
table.claims tr.holds td:last-child { color: #1b5e20; font-weight: bold; }
table.claims tr.does td:last-child { color: #b00020; font-weight: bold; }
table.claims tr.not td:last-child { color: #666; }
"""


def _teacher_table(runs: list[NotebookRun], out: Path, edition: str = "en") -> list[str]:
    """The teacher's overview: ideas, assignments, run time and student version of every notebook."""
    total = sum(a.points for run in runs for a in run.assignments)
    count = sum(len(run.assignments) for run in runs)
    heads = "".join(f"<th>{text(key, edition)}</th>" for key in ("notebook", "ideas", "assignments points",
                                                                   "time to run", "student version"))
    parts = [f"<section><h2>{text('for teachers', edition)}</h2>",
             f"<p>{text('teacher intro', edition, count=count, points=total, folder='assignments/')}</p>",
             f"<table class='teacher'><tr>{heads}</tr>"]
    for run in runs:
        ideas = "".join(f"<li>{html.escape(idea)}</li>" for idea in run.ideas)
        tasks = "".join(f"<li>{html.escape(a.title)} ({a.points:g})</li>" for a in run.assignments)
        tasks += "".join(f"<li>{html.escape(text('written assignment', edition, title=w.title, points=w.points))}</li>"
                         for w in run.written)
        tasks = tasks or text("none", edition)
        student = (f"<a href='{html.escape(str(run.student.relative_to(out)))}'>{html.escape(run.student.name)}</a>"
                   if run.student else "")
        parts.append(f"<tr><td>{html.escape(run.title)}</td><td><ul>{ideas}</ul></td>"
                     f"<td>{'<ul>' + tasks + '</ul>' if run.assignments or run.written else tasks}</td>"
                     f"<td class='value'>{run.seconds:.1f} s</td><td>{student}</td></tr>")
    parts.append("</table></section>")
    return parts


def write_index(runs: list[NotebookRun], out: Path, profile: str, claims: list[Claim] | str | None = None,
                edition: str = "en") -> Path:
    """Write ``out/index.html`` in ``edition``'s words: the notebooks of both editions (drawn by the site's script,
    :mod:`course.teaching.site`), the claims table (``claims``: rows, or why there
    are none; None: no such section), the teacher's table, then one section per notebook with its time,
    numbers and figures."""
    total = sum(run.seconds for run in runs)
    stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    title = text("course title", edition)
    parts = [f"<!doctype html><html lang='{edition}'><head><meta charset='utf-8'><title>{title}</title>"
             f"<style>{STYLE}</style></head><body>",
             f"<h1>{title}</h1>",
             "<p class='meta'>" + text("profile line", edition, profile=profile, stamp=stamp, count=len(runs),
                                       seconds=total) + "</p>"]
    # both editions' notebooks, listed by the site's script from what the last build of either found
    parts.append(f"<section><h2>{text('site editions', edition)}</h2><div id='course-editions'></div></section>")
    if claims is not None:
        parts.extend(_claims_section(claims, edition))
    parts.extend(_teacher_table(runs, out, edition))
    for run in runs:
        link = lambda path: html.escape(str(path.relative_to(out)))  # noqa: E731
        title = html.escape(run.title)
        heading = f"<a href='{link(run.html)}'>{title}</a>" if run.html else title
        executed = text("executed notebook", edition)
        parts.append(f"<section><h2>{heading}</h2><p class='meta'>{html.escape(run.name)}.ipynb · "
                     f"{run.seconds:.1f} s · <a href='{link(run.executed)}'>{executed}</a></p>")
        if run.error:
            parts.append(f"<p class='failed'>{text('failed', edition, why=html.escape(run.error))}</p>")
        if run.headlines:
            rows = "".join(f"<tr><td>{html.escape(h.get('label', h['name']))}</td>"
                           f"<td class='value'>{html.escape(h['text'])}</td></tr>" for h in run.headlines)
            parts.append(f"<table>{rows}</table>")
        if run.figures:
            images = "".join(f"<a href='{link(f)}'><img src='{link(f)}' alt='{text('figure', edition, n=i + 1)}'></a>"
                             for i, f in enumerate(run.figures))
            parts.append(f"<div class='figures'>{images}</div>")
        parts.append("</section>")
    parts.append("</body></html>")
    index = out / "index.html"
    page = with_site("\n".join(parts), index, static_folder(out), edition)
    with atomic_path(index) as temporary:
        temporary.write_text(page, encoding="utf-8")
    return index
