"""What the notebooks hand on to each other: every model and result file one notebook makes and a
later one loads, and which notebook makes it.

A build runs the notebooks in order, so each file is made once, by the first notebook that needs it,
and loaded after (``build/models/``, ``build/models/smoke/`` for the smoke profile). A notebook run
on its own, before the one that makes a file, makes it itself (the course's settings for it) and
saves it for the others. :func:`shared_files_table` is the table each notebook shows near its top.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..edition import text
from ..paths import models_dir


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


SHARED_FILES = (
    SharedFile("skipgram-neg-wiki-en.txt", "shared skipgram en", "02", ("07",)),
    SharedFile("skipgram-neg-peoples-daily-zh.txt", "shared skipgram zh", "05", ("07", "09")),
    SharedFile("glove-peoples-daily-zh.txt", "shared glove zh", "05", ("09",)),
    SharedFile("elmo-cpu-wiki-en.pt", "shared bilm en", "06", ("07", "08", "11")),
    SharedFile("elmo-cpu-peoples-daily-zh.pt", "shared bilm zh", "07", ("08", "09", "10")),
    SharedFile("ner-curve-peoples-daily-zh.json", "shared ner curve", "09", ("11",), model=False),
    SharedFile("ulmfit-curve-reviews-zh.json", "shared ulmfit curve", "10", ("11",), model=False),
)


def shared_files(notebook: str) -> list[SharedFile]:
    """The shared files notebook ``notebook`` (``"07"``) makes or loads, in the order of the list above."""
    return [f for f in SHARED_FILES if notebook in (f.made_in, *f.used_in)]


def shared_files_table(notebook: str, profile: str | None = None):
    """A table of what ``notebook`` loads from earlier notebooks and what it makes for later ones:
    each file, what it is, which notebook makes it, and whether it is saved now (then it is loaded),
    will be made here, or is missing (a result only its own notebook makes)."""
    from .report import markdown_table

    rows = []
    for shared in shared_files(notebook):
        saved = (models_dir(profile) / shared.name).is_file()
        maker = text("this notebook") if shared.made_in == notebook else text("notebook n", n=shared.made_in)
        if saved:
            status = text("saved: loaded")
        elif shared.made_in == notebook:
            status = text("made here")
        elif shared.model:
            status = text("not saved yet: made here")
        else:
            status = text("not saved yet: run notebook n first", n=shared.made_in)
        rows.append([f"`{shared.name}`", text(shared.what), maker, status])
    header = [text("file"), text("what it holds"), text("made by"), text("now")]
    return markdown_table(header, rows)

