"""Progress bars, and, within a course build, the latest state of the one running in a file the build reads.

Every trainer of the course shows a tqdm bar (``tqdm.auto``: a widget in a notebook, text in a
terminal) made by :func:`progress_bar`. A widget's state never reaches the notebook's text, so a build
that runs the notebook cannot see how far a twenty-minute training has got. Where ``$COURSE_BUILD_STATUS``
names a file (the build sets it for each notebook it runs), a thread of this process writes there,
every :data:`STATUS_SECONDS`, the text of the bar opened last that is still open::

    ELMo (cpu):  62%|██████▏   | 1.65M/2.67M [05:58<03:24, 4.96ktok/s, loss=13.107, ppl=180/182]

and removes the file while no bar is open. The build's line on where a notebook stands
(:mod:`course.teaching.heartbeat`) shows it, with the time left that tqdm estimates.
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

STATUS_ENV = "COURSE_BUILD_STATUS"  # the file to write the latest bar's text into, within a build
STATUS_SECONDS = 10.0  # between two writes of that file

_bars: list = []  # the bars made while a status file is named, the latest last
_lock = threading.Lock()
_writer: threading.Thread | None = None


def progress_bar(*args, **kwargs):
    """``tqdm.auto.tqdm(*args, **kwargs)``; within a build (``$COURSE_BUILD_STATUS``), a bar that shows
    (not ``disable``) is also the one whose text that file holds, until it closes or a newer one opens."""
    from tqdm.auto import tqdm

    bar = tqdm(*args, **kwargs)
    path = os.environ.get(STATUS_ENV, "").strip()
    if path and not bar.disable:
        global _writer
        with _lock:
            _bars.append(bar)
            if _writer is None:
                _writer = threading.Thread(target=_write_status, args=(Path(path),), name="course-status",
                                           daemon=True)
                _writer.start()
    return bar


def status_line() -> str:
    """The text of the latest bar of :func:`progress_bar` that is still open (tqdm's own line, with its
    count, times and figures), or "" when none is."""
    with _lock:
        _bars[:] = [bar for bar in _bars if not bar.disable]  # tqdm disables a bar as it closes it
        bar = _bars[-1] if _bars else None
    if bar is None:
        return ""
    meter = dict(bar.format_dict)
    meter["ncols"] = None  # a widget's width is not a terminal's: tqdm's bar of 10 characters
    return bar.format_meter(**meter).strip()


def write_status(path: Path) -> None:
    """Write :func:`status_line` into ``path`` whole, or remove ``path`` when it is empty."""
    from .io import atomic_path

    line = status_line()
    if line:
        with atomic_path(path) as temporary:
            temporary.write_text(line, encoding="utf-8")
    else:
        path.unlink(missing_ok=True)


def _write_status(path: Path) -> None:
    while True:
        try:
            write_status(path)
        except Exception:  # noqa: BLE001 - the build's folder may be gone; a status is never worth a failure
            pass
        time.sleep(STATUS_SECONDS)
