"""An nbgrader course folder for the course's notebooks, for a teacher who grades with nbgrader:

    python -m course nbgrader init my-course [--only 02] [--edition zh] [--profile smoke]
    cd my-course && nbgrader generate_assignment 02_skipgram_negative_sampling
    # students' notebooks into submitted/<student>/02_skipgram_negative_sampling/
    nbgrader autograde 02_skipgram_negative_sampling

The folder holds ``nbgrader_config.py`` and ``source/<assignment>/<notebook>.ipynb``, one assignment
per notebook, named by its file. The config sets what the notebooks need in nbgrader's kernels: a
cell timeout long enough for the models they train (nbgrader's default, 30 s, is not), the profile
(``COURSE_PROFILE``: smoke unless chosen, since the checks need no more) and where the shared models
are (``COURSE_BUILD``, as it was when the folder was made), so that a kernel started in
``submitted/<student>/...`` finds the models ``python -m course models get`` unpacked.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from ..core.errors import NotebookFileError, OutputFileError
from ..core.io import process_umask
from ..core.paths import build_dir
from .assignments import find_assignments, notebook_paths, read_notebook
from .editions import edition_folder

CELL_TIMEOUT = 600
"""Seconds an nbgrader kernel may spend on one cell: the slowest cell of a smoke-profile notebook takes
well under a minute on two cores, a full-profile one trains a biLM for up to 22 minutes (then raise it)."""

CONFIG = '''"""nbgrader's configuration for Word Vectors, Hands-On (written by python -m course nbgrader init)."""

import os

c = get_config()  # noqa: F821 (nbgrader defines it)
c.CourseDirectory.course_id = "word-vectors-hands-on"
c.CourseDirectory.db_assignments = {assignments!r}
c.Execute.timeout = {timeout}
c.Execute.interrupt_on_timeout = True

# What the notebooks need in nbgrader's kernels, which inherit this process's environment.
os.environ.setdefault("COURSE_PROFILE", {profile!r})
os.environ.setdefault("COURSE_BUILD", {build!r})
os.environ.setdefault("COURSE_EDITION", {edition!r})
'''


def init_course(folder: str | Path, notebooks: str | Path | None = None, only: str | None = None,
                edition: str = "en", profile: str = "smoke") -> list[str]:
    """Write an nbgrader course folder at ``folder`` (missing or empty) with the notebooks of
    ``notebooks`` (default ``notebooks/``, or its ``zh/`` for ``edition="zh"``) whose names contain
    ``only``; the assignments' names. Written whole or not at all.

    Raises:
        OutputFileError: ``folder`` is a file or a folder with something in it.
        NotebookFileError: no notebook with an assignment matches.
    """
    folder = Path(folder)
    if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        raise OutputFileError(f"{folder}: already there and not an empty folder; choose a new one")
    sources = notebook_paths(edition_folder(edition, notebooks))
    chosen = [path for path in sources if only is None or only in path.name]
    chosen = [path for path in chosen if find_assignments(read_notebook(path), path.name)]
    if not chosen:
        raise NotebookFileError(f"no notebook with an assignment{f' matches {only!r}' if only else ''}")
    names = [path.stem for path in chosen]
    folder.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", dir=folder.parent))
    try:
        for path, name in zip(chosen, names, strict=True):
            (staging / "source" / name).mkdir(parents=True)
            shutil.copyfile(path, staging / "source" / name / path.name)
        (staging / "nbgrader_config.py").write_text(CONFIG.format(
            assignments=[{"name": name} for name in names], timeout=CELL_TIMEOUT, profile=profile,
            build=str(build_dir().resolve()), edition=edition), encoding="utf-8")
        os.chmod(staging, 0o777 & ~process_umask())
        if folder.exists():
            folder.rmdir()
        staging.rename(folder)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return names
