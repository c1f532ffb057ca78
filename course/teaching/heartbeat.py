"""A build's sign of life while a notebook runs: every few minutes, one line on where it stands.

A notebook that trains a biLM runs for twenty minutes or more, and a build prints nothing between its
"running ..." line and its end. :class:`Heartbeat` watches papermill run one notebook (nbclient calls
:meth:`Heartbeat.on_cell_execute` as each code cell starts) and prints, every ``seconds``, which code
cell is running, under which heading, for how long, and where its progress bar stands (the latest state
the notebook's kernel wrote into the status file of :mod:`course.core.progress`; without one, the last line
the cell has printed)::

      06_elmo_bilm: 12.0 min; code cell 14 of 31, "4 · Training", for 9.5 min: ELMo (cpu):  62%|██████▏   |
      1.65M/2.67M [09:20<05:41, 2.95ktok/s, ...]

Each notebook process prints its own lines, so notebooks run side by side (``build --jobs``) each
say where they stand.
"""

from __future__ import annotations

import re
import threading
import time
from pathlib import Path

#: Seconds between the lines a build prints about a notebook still running.
HEARTBEAT_SECONDS = 120.0
TAIL_CHARACTERS = 100  # the cell's last printed line is cut to this many characters


def cell_sections(notebook) -> dict[tuple[str, str], tuple[int, str]]:
    """``("id", its id)`` and ``("source", its source)`` of each code cell -> (its number among the
    notebook's code cells, from 1; the last markdown heading above it, ``## 4 · Training`` giving
    ``4 · Training``, or "" before any heading). The source finds a cell whose id changed on the way (a
    notebook of a format before ids gets new ones at every read); of cells with the same source, the first."""
    sections, heading, number = {}, "", 0
    for cell in notebook.cells:
        if cell.cell_type == "markdown":
            for line in cell.source.splitlines():
                if line.startswith("#"):
                    heading = line.lstrip("#").strip()
        elif cell.cell_type == "code":
            number += 1
            if cell.get("id"):
                sections[("id", cell["id"])] = (number, heading)
            sections.setdefault(("source", cell.source), (number, heading))
    return sections


#: A warning as Python prints it (``warnings.formatwarning``): "file:line: SomeWarning: message", then the
#: source line that raised it, indented.
WARNING_HEADER = re.compile(r"^.+:\d+: \w*Warning: ")


def without_warnings(text: str) -> list[str]:
    """The lines of printed ``text`` (a carriage return ending a line too) less Python's warnings: each
    warning's header line and the indented source line printed under it."""
    kept, after_warning = [], False
    for line in text.replace("\r", "\n").split("\n"):
        if WARNING_HEADER.match(line):
            after_warning = True
            continue
        if not (after_warning and line.startswith(" ")):
            kept.append(line)
        after_warning = False
    return kept


def last_printed_line(cell) -> str:
    """The last non-empty line of the text the cell has printed so far (stdout or stderr; a progress bar
    that redraws itself with carriage returns gives its latest state), a library's warnings left out, or ""."""
    try:
        outputs = list(cell.get("outputs", []))  # nbclient appends to it while the cell runs
    except Exception:  # noqa: BLE001 - a line without the tail is better than none
        return ""
    for output in reversed(outputs):
        if output.get("output_type") == "stream":
            lines = [line.strip() for line in without_warnings(output.get("text", ""))]
            lines = [line for line in lines if line]
            if lines:
                line = lines[-1]
                return line if len(line) <= TAIL_CHARACTERS else line[:TAIL_CHARACTERS - 3] + "..."
    return ""


class Heartbeat:
    """Prints, every ``seconds`` while in its ``with`` block, where the notebook ``name`` stands.

    Args:
        name: the notebook's name (its file's stem).
        notebook: the notebook as papermill will run it (its cells' ids name the code cells).
        seconds: between two lines; the first comes ``seconds`` after the block begins.
        status: the file the notebook's kernel writes its progress bar's state into
            (:data:`course.core.progress.STATUS_ENV`), if any.
    """

    def __init__(self, name: str, notebook, seconds: float = HEARTBEAT_SECONDS, status: Path | None = None):
        self.name, self.seconds, self.status = name, seconds, status
        self.sections = cell_sections(notebook)
        self.code_cells = sum(cell.cell_type == "code" for cell in notebook.cells)
        self.started = time.perf_counter()
        self.cell, self.cell_started, self.cell_done = None, None, False
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._beat, name=f"heartbeat-{name}", daemon=True)

    def on_cell_execute(self, cell, cell_index: int | None = None, **_) -> None:
        """nbclient's hook as a code cell starts (``on_cell_execute``)."""
        self.cell, self.cell_started, self.cell_done = cell, time.perf_counter(), False

    def on_cell_executed(self, cell, cell_index: int | None = None, **_) -> None:
        """nbclient's hook once the kernel has answered for a code cell (``on_cell_executed``)."""
        if cell is self.cell:
            self.cell_done = True

    def line(self, now: float | None = None) -> str:
        """Where the notebook stands, in one line."""
        now = time.perf_counter() if now is None else now
        text = f"  {self.name}: {(now - self.started) / 60:.1f} min"
        cell = self.cell
        if cell is None:
            return text + "; starting"
        number, heading = (self.sections.get(("id", cell.get("id")))
                           or self.sections.get(("source", cell.get("source")), (None, "")))
        where = f"code cell {number} of {self.code_cells}" if number else "its parameters"
        if self.cell_done:
            return text + f"; after {where}"
        text += f"; {where}" + (f', "{heading}"' if heading else "") + f", for {(now - self.cell_started) / 60:.1f} min"
        tail = self.progress() or last_printed_line(cell)
        return text + (f": {tail}" if tail else "")

    def progress(self) -> str:
        """The notebook's progress bar as its kernel last wrote it, or ""."""
        if self.status is None:
            return ""
        try:
            return self.status.read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError):  # no bar open (no file), or another moment's file
            return ""

    def _beat(self) -> None:
        while not self._stopped.wait(self.seconds):
            print(self.line(), flush=True)

    def __enter__(self) -> Heartbeat:
        self.started = time.perf_counter()
        self._thread.start()
        return self

    def __exit__(self, *_) -> None:
        self._stopped.set()
        self._thread.join()
