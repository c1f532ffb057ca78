"""The course's shared model files as notebooks load them: a notebook waits for the one a parallel
build is still making (:func:`wait_for_saved`), and loads a saved model only when it can be read and
was trained with today's settings (:func:`load_saved`); else its caller trains it again."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from ..core.checkpoints import setting_changes
from ..core.errors import CourseError
from ..lm.resume import RESUMABLE_CHANGES

PENDING_ENV = "COURSE_BUILD_PENDING"  # a build's folder of markers: the files its running notebooks will save
NOTEBOOK_ENV = "COURSE_BUILD_NOTEBOOK"  # the notebook this process runs, in such a build
BUILD_PID = "BUILD_PID"  # in that folder: the build's own process


def wait_for_saved(path: str | os.PathLike, poll: float = 0.5) -> Path:
    """``path`` once no other notebook of a build that runs notebooks at the same time is still making it.

    A build run with ``--jobs`` above 1 (:func:`course.teaching.build.build_course`) starts a notebook
    before the earlier ones end. For each shared file an earlier notebook of the build will save, it
    leaves a marker naming that notebook in the folder ``$COURSE_BUILD_PENDING``, and removes it when
    that notebook ends. Here, a notebook about to load ``path`` waits while such a marker is there and
    ``path`` was not saved since: then it loads what the other saved instead of training the same model
    again. The maker itself, a marker removed without a file (the maker failed: the caller trains it, as
    a notebook run alone would), a build that is no longer running (the folder's ``BUILD_PID`` file names
    its process) and every process outside such a build do not wait. A one-line note says whom it waits
    for.
    """
    path = Path(path)
    folder = os.environ.get(PENDING_ENV)
    if not folder:
        return path
    marker, noted = Path(folder) / path.name, False
    while True:
        try:
            maker, marked = marker.read_text(encoding="utf-8").strip(), marker.stat().st_mtime
        except (FileNotFoundError, NotADirectoryError):
            return path
        if maker == os.environ.get(NOTEBOOK_ENV) or (path.is_file() and path.stat().st_mtime >= marked) or \
                not build_running(Path(folder)):
            return path
        if not noted:
            print(f"note: waiting for {maker}, which this build runs at the same time, to save {path.name}",
                  file=sys.stderr, flush=True)
            noted = True
        time.sleep(poll)


def build_running(folder: Path) -> bool:
    """Whether the build whose marker folder is ``folder`` still runs (the process its ``BUILD_PID`` file
    names): False without a readable file, True where the system will not say (a process of another user)."""
    try:
        pid = int((Path(folder) / BUILD_PID).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's process, or no such signal here
        return True
    return True


def load_saved(path: str | os.PathLike, load, what: str = "model", settings: dict | None = None):
    """``load(path)`` when ``path`` is a file, or ``None`` when there is none or it cannot be read (cut
    short, damaged, another kind of file): then a one-line note says so, and the caller trains it again.
    ``load`` raises :class:`~course.core.errors.CourseError` for a bad file (the models' ``load`` does).

    ``settings``: the settings the caller would train it with now (its config's ``to_dict()``). A
    saved model whose own config differs from them, in anything but where and how fast it runs
    (:data:`course.lm.resume.RESUMABLE_CHANGES`), was made by older code or another preset: it is
    not returned either, with a note naming what changed, and the caller trains it again."""
    path = wait_for_saved(path)
    if not path.is_file():
        return None
    try:
        model = load(path)
    except CourseError as exc:
        problem = " ".join(str(exc).removeprefix(str(path)).lstrip(":, ").split())
        print(f"note: the saved {what} {path} is damaged ({problem}); training it again", file=sys.stderr, flush=True)
        return None
    changed = [] if settings is None else setting_changes(model.config.to_dict(), settings, RESUMABLE_CHANGES)
    if changed:
        print(f"note: the saved {what} {path} was trained with other settings ({', '.join(changed)}); training it "
              "again", file=sys.stderr, flush=True)
        return None
    return model
