"""Build the course: run every notebook in order and write an HTML index of what came out.

For each ``notebooks/NN_*.ipynb``, papermill executes it with the chosen profile into
``build/notebooks/``, nbconvert renders it to HTML beside it, its figures are saved under
``build/figures/``, and its headline numbers (see :mod:`course.teaching.report`) are collected.
``build/index.html`` links all of it, with the time each notebook took. It opens with the claims
table (:func:`course.claims.measure_claims` on the models the notebooks saved: does each claim the
course teaches hold in this build?) and the teacher's table: which ideas each notebook covers, its
assignments, and its student version (written to ``build/assignments/`` by
:func:`course.teaching.assignments.write_student_versions`).
"""

from __future__ import annotations

import base64
import html
import json
import os
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from ..claims import Claim, claims_html, claims_json, measure_claims
from ..errors import CourseError
from ..paths import atomic_path, build_dir, project_root
from ..settings import resolve_profile
from .assignments import Assignment, find_assignments, read_notebook, write_student_versions
from .report import HEADLINE_MIME


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
    student: Path | None = None


def notebook_paths(notebooks: Path | None = None, only: str | None = None) -> list[Path]:
    """The course's notebooks in order: ``NN_*.ipynb`` in ``notebooks/``."""
    folder = notebooks or project_root() / "notebooks"
    paths = sorted(p for p in folder.glob("[0-9][0-9]_*.ipynb"))
    return [p for p in paths if only is None or only in p.name]


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
                if line.startswith("## ") and "exercises" not in line.lower():
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


def run_notebook(source: Path, out: Path, profile: str) -> NotebookRun:
    """Execute one notebook with papermill and render it; failures are recorded, not raised."""
    import nbformat
    import papermill
    from nbconvert import HTMLExporter

    executed = out / "notebooks" / source.name
    executed.parent.mkdir(parents=True, exist_ok=True)
    error = None
    start = time.perf_counter()
    previous = os.environ.get("COURSE_PROFILE")
    os.environ["COURSE_PROFILE"] = profile  # the kernel inherits it, for code that reads it directly
    try:
        papermill.execute_notebook(str(source), str(executed), parameters={"PROFILE": profile},
                                   cwd=str(source.parent), kernel_name="python3", progress_bar=False)
    except Exception as exc:  # papermill's execution error carries the cell's traceback
        error = f"{type(exc).__name__}: {str(exc).strip().splitlines()[-1] if str(exc).strip() else exc}"
    finally:
        if previous is None:
            os.environ.pop("COURSE_PROFILE", None)
        else:
            os.environ["COURSE_PROFILE"] = previous
    seconds = time.perf_counter() - start
    if not executed.is_file():
        return NotebookRun(source.stem, source.stem, seconds, executed, None, error=error or "no output")
    notebook = nbformat.read(executed, as_version=4)
    figures, headlines = _collect(notebook, source.stem, out / "figures")
    page = executed.with_suffix(".html")
    body, _ = HTMLExporter(template_name="lab").from_notebook_node(notebook)
    with atomic_path(page) as temporary:
        temporary.write_text(body, encoding="utf-8")
    return NotebookRun(source.stem, _title(notebook) or source.stem, seconds, executed, page, figures, headlines,
                       error)


def build_course(profile: str | None = None, out: Path | None = None, notebooks: Path | None = None,
                 only: str | None = None) -> list[NotebookRun]:
    """Run the notebooks (all, or those whose name contains ``only``) and write ``index.html``."""
    profile = resolve_profile(profile)
    out = Path(out) if out is not None else build_dir()
    (out / "models").mkdir(parents=True, exist_ok=True)
    students = {path.name: path for path in write_student_versions(out / "assignments", notebooks)}
    print(f"wrote {len(students)} student notebooks to {out / 'assignments'}", flush=True)
    runs = []
    for source in notebook_paths(notebooks, only):
        print(f"running {source.name} ({profile}) ...", flush=True)
        run = run_notebook(source, out, profile)
        print(f"  {run.seconds:6.1f} s  {'FAILED: ' + run.error if run.error else 'ok'}", flush=True)
        teacher = read_notebook(source)
        run.ideas, run.assignments = ideas_of(teacher), find_assignments(teacher, source.name)
        run.student = students.get(source.name)
        runs.append(run)
    claims = measure_build_claims(profile)
    write_index(runs, out, profile, claims)
    summary = [{"notebook": r.name, "seconds": round(r.seconds, 1), "error": r.error, "ideas": r.ideas,
                "assignments": [{"id": a.id, "title": a.title, "points": a.points} for a in r.assignments],
                "headlines": r.headlines} for r in runs]
    with atomic_path(out / "summary.json") as temporary:
        temporary.write_text(json.dumps({"profile": profile, "notebooks": summary,
                                         "claims": claims_json(claims) if isinstance(claims, list) else claims},
                                        indent=2, ensure_ascii=False), encoding="utf-8")
    print(f"wrote {out / 'index.html'}", flush=True)
    return runs


def measure_build_claims(profile: str) -> list[Claim] | str:
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
    print(f"  {time.perf_counter() - start:6.1f} s  {sum(row.verdict == 'holds' for row in rows)} of {len(rows)} "
          "claims hold", flush=True)
    return rows


def _claims_section(claims: list[Claim] | str) -> list[str]:
    """The claims table, or the reason there is none in its place."""
    parts = ["<section><h2>Claims: do they hold here?</h2>",
             "<p>Each claim the course teaches, measured on the models this build trained: the margin by which "
             "the measurement beats its strongest control, the spread that margin must exceed (a bootstrap over "
             "the test sentences; for the sense probe also the untrained network's range over seeds), and the "
             "verdict. <code>python -m course claims</code> prints the same table.</p>"]
    if isinstance(claims, str):
        parts.append(f"<p class='failed'>The claims could not be measured: {html.escape(claims)}</p>")
    else:
        parts.append(claims_html(claims))
    parts.append("</section>")
    return parts


STYLE = """
body { font-family: system-ui, sans-serif; max-width: 1100px; margin: 2em auto; padding: 0 1em; color: #222; }
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


def _teacher_table(runs: list[NotebookRun], out: Path) -> list[str]:
    """The teacher's overview: ideas, assignments, run time and student version of every notebook."""
    total = sum(a.points for run in runs for a in run.assignments)
    count = sum(len(run.assignments) for run in runs)
    parts = ["<section><h2>For teachers</h2>",
             f"<p>{count} assignments, {total:g} points. Hand out the student versions in "
             "<code>assignments/</code> (solutions replaced by <code>raise NotImplementedError()</code>, hidden "
             "tests removed; the same cells as <code>nbgrader generate_assignment</code>); each assignment has a "
             "check the student runs, which says what is wrong. Grade a returned notebook with "
             "<code>python -m course grade NOTEBOOK.ipynb</code>: it runs the notebook in a fresh kernel with the "
             "hidden tests put back and prints the points per assignment. The times are this build's.</p>",
             "<table class='teacher'><tr><th>notebook</th><th>ideas</th><th>assignments (points)</th>"
             "<th>time to run</th><th>student version</th></tr>"]
    for run in runs:
        ideas = "".join(f"<li>{html.escape(idea)}</li>" for idea in run.ideas)
        tasks = "".join(f"<li>{html.escape(a.title)} ({a.points:g})</li>" for a in run.assignments) or "none"
        student = (f"<a href='{html.escape(str(run.student.relative_to(out)))}'>{html.escape(run.student.name)}</a>"
                   if run.student else "")
        parts.append(f"<tr><td>{html.escape(run.title)}</td><td><ul>{ideas}</ul></td>"
                     f"<td>{'<ul>' + tasks + '</ul>' if run.assignments else tasks}</td>"
                     f"<td class='value'>{run.seconds:.1f} s</td><td>{student}</td></tr>")
    parts.append("</table></section>")
    return parts


def write_index(runs: list[NotebookRun], out: Path, profile: str, claims: list[Claim] | str | None = None) -> Path:
    """Write ``out/index.html``: the claims table (``claims``: rows, or why there are none; None:
    no such section), the teacher's table, then one section per notebook with its time, numbers and
    figures."""
    total = sum(run.seconds for run in runs)
    stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    parts = [f"<!doctype html><html lang='en'><head><meta charset='utf-8'><title>Word Vectors, Hands-On</title>"
             f"<style>{STYLE}</style></head><body>",
             "<h1>Word Vectors, Hands-On</h1>",
             f"<p class='meta'>Profile <b>{profile}</b> · built {stamp} · {len(runs)} notebooks in {total:.0f} s</p>"]
    if claims is not None:
        parts.extend(_claims_section(claims))
    parts.extend(_teacher_table(runs, out))
    for run in runs:
        link = lambda path: html.escape(str(path.relative_to(out)))  # noqa: E731
        title = html.escape(run.title)
        heading = f"<a href='{link(run.html)}'>{title}</a>" if run.html else title
        parts.append(f"<section><h2>{heading}</h2><p class='meta'>{html.escape(run.name)}.ipynb · "
                     f"{run.seconds:.1f} s · <a href='{link(run.executed)}'>executed notebook</a></p>")
        if run.error:
            parts.append(f"<p class='failed'>Failed: {html.escape(run.error)}</p>")
        if run.headlines:
            rows = "".join(f"<tr><td>{html.escape(h['name'])}</td><td class='value'>{html.escape(h['text'])}</td></tr>"
                           for h in run.headlines)
            parts.append(f"<table>{rows}</table>")
        if run.figures:
            images = "".join(f"<a href='{link(f)}'><img src='{link(f)}' alt='figure {i + 1}'></a>"
                             for i, f in enumerate(run.figures))
            parts.append(f"<div class='figures'>{images}</div>")
        parts.append("</section>")
    parts.append("</body></html>")
    index = out / "index.html"
    with atomic_path(index) as temporary:
        temporary.write_text("\n".join(parts), encoding="utf-8")
    return index
