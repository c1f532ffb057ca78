"""What the notebooks hand on to each other: every model and result file one notebook makes and a
later one loads, and which notebook makes it.

A build runs the notebooks in order (or several at a time, a notebook waiting for a file an earlier one
is still making: :func:`course.paths.wait_for_saved`), so each file is made once, by the first notebook
that needs it, and loaded after (``build/models/``, ``build/models/smoke/`` for the smoke profile). A notebook run
on its own, before the one that makes a file, makes it itself (the course's settings for it) and
saves it for the others. :func:`shared_files_table` is the table each notebook shows near its top.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..edition import text
from ..paths import models_dir
from ..settings import resolve_profile


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


def shared_files_table(notebook: str, profile: str | None = None):
    """A table of what ``notebook`` loads from earlier notebooks and what it makes for later ones:
    each file, what it is, which notebook makes it, and whether it is saved now (then it is loaded),
    will be made here, or is missing (a result only its own notebook makes). A saved biLM that cannot
    be read, or whose recorded settings are not the course's now, is said to be trained again here, as
    :func:`course.paths.load_saved` will have it. In the full profile, when a model will be trained here,
    a line below the table says how a teacher's archive of the models (``python -m course models get``)
    would have them loaded instead."""
    from .report import markdown_table

    rows, trained_here = [], False
    for shared in shared_files(notebook):
        path = models_dir(profile) / shared.name
        saved = path.is_file()
        maker = text("this notebook") if shared.made_in == notebook else text("notebook n", n=shared.made_in)
        changes = _setting_changes(path, shared.bilm_of, profile) if saved and shared.bilm_of else []
        if changes is None:
            status = text("saved: unreadable")
        elif changes:
            status = text("saved: other settings", changes=", ".join(changes))
        elif saved:
            status = text("saved: loaded")
        elif shared.made_in == notebook:
            status = text("made here")
        elif shared.model:
            status = text("not saved yet: made here")
        else:
            status = text("not saved yet: run notebook n first", n=shared.made_in)
        rows.append([f"`{shared.name}`", text(shared.what), maker, status])
        trained_here |= shared.model and not (saved and changes == [])
    header = [text("file"), text("what it holds"), text("made by"), text("now")]
    table = markdown_table(header, rows)
    if trained_here and resolve_profile(profile) == "full":  # minutes of training a teacher's archive spares
        table.data += "\n\n" + text("shared: unpack an archive")
    return table


def _setting_changes(path, corpus: str, profile: str | None) -> list[str] | None:
    """How the settings recorded in the saved biLM ``path`` differ from the course's biLM of ``corpus`` now,
    in what :func:`course.paths.load_saved` counts ([]: in nothing); None: the file cannot be read."""
    import torch

    from ..checkpoints import setting_changes
    from ..elmo.course_models import course_config
    from ..lm.resume import RESUMABLE_CHANGES

    try:
        recorded = torch.load(path, map_location="cpu", weights_only=True, mmap=True)["config"]
        return setting_changes(recorded, course_config(corpus, profile).to_dict(), RESUMABLE_CHANGES)
    except Exception:  # noqa: BLE001 - any file load_saved would refuse: damaged, cut short, not a model file
        return None
