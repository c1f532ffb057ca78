"""What the notebooks hand on to each other: every model and result file one notebook makes and a
later one loads, and which notebook makes it.

A build runs the notebooks in order (or several at a time, a notebook waiting for a file an earlier one
is still making: :func:`course.shared.saved.wait_for_saved`), so each file is made once, by the first notebook
that needs it, and loaded after (``build/models/``, ``build/models/smoke/`` for the smoke profile). A notebook run
on its own, before the one that makes a file, makes it itself (the course's settings for it) and
saves it for the others. Each notebook shows the table of its own near its top
(:func:`course.teaching.report.shared_files_table`).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SharedFile:
    """A file in ``models_dir``: ``made_in`` makes it (the first notebook of a build that needs it),
    ``used_in`` load it after; a model a later notebook trains itself when it is missing, a result
    (``model=False``) only ``made_in`` makes."""

    name: str
    what: str  # catalogue key
    made_in: str
    used_in: tuple[str, ...]
    model: bool = True
    bilm_of: str | None = None  # the course's biLM of this corpus: its file records the settings it was trained with


SHARED_FILES = (
    SharedFile("skipgram-neg-wiki-en.txt", "shared skipgram en", "02", ("07",)),
    SharedFile("skipgram-neg-peoples-daily-zh.txt", "shared skipgram zh", "05", ("07", "09")),
    SharedFile("glove-peoples-daily-zh.txt", "shared glove zh", "05", ("09",)),
    SharedFile("elmo-cpu-wiki-en.pt", "shared bilm en", "06", ("07", "08", "11"), bilm_of="wiki-en"),
    SharedFile("elmo-cpu-peoples-daily-zh.pt", "shared bilm zh", "07", ("08", "09", "10", "11"),
               bilm_of="peoples-daily-zh"),
    SharedFile("ner-curve-peoples-daily-zh.json", "shared ner curve", "09", ("11",), model=False),
    SharedFile("ulmfit-curve-reviews-zh.json", "shared ulmfit curve", "10", ("11",), model=False),
)


def shared_files(notebook: str) -> list[SharedFile]:
    """The shared files notebook ``notebook`` (``"07"``) makes or loads, in the order of the list above."""
    return [f for f in SHARED_FILES if notebook in (f.made_in, *f.used_in)]
