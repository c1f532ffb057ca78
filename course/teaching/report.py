"""Headline numbers that a notebook shows and the course index collects.

``headline("Sentences", 24807)`` displays the figure in the notebook and tags the output with a
MIME type of its own, so the builder of ``build/index.html`` can find it in the executed notebook.
A headline is named in English in the code cell (its key in the index); the notebook shows the name
and the unit in its edition's words (``course/printed/headlines.py``). Beside them, the small tables a notebook
shows: :func:`markdown_table`, and :func:`shared_files_table`, what a notebook loads and what it makes.
"""

from __future__ import annotations

import numbers
import re
import string
from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from ..core.edition import CATALOGUE, text
from ..core.paths import models_dir
from ..core.settings import resolve_profile
from ..shared.files import shared_files

HEADLINE_MIME = "application/vnd.course.headline+json"


@lru_cache(maxsize=1)
def _named() -> tuple[tuple[re.Pattern, str], ...]:
    """Each headline name of the catalogue as a pattern of its English (a ``{field}`` matches any text), with
    its key."""
    patterns = []
    for key, entry in CATALOGUE.items():
        if key.startswith("headline ") and key == f"headline {entry.get('en')}":
            parts = [re.escape(literal) + (f"(?P<{field}>.+?)" if field else "")
                     for literal, field, _, _ in string.Formatter().parse(entry["en"])]
            patterns.append((re.compile("".join(parts)), key))
    return tuple(patterns)


def headline_name(name: str, edition: str | None = None) -> str:
    """A headline's English ``name`` in ``edition`` (default the current one): the catalogue's name it matches,
    with the parts the code filled in kept; a name the catalogue does not hold stays as it is."""
    for pattern, key in _named():
        found = pattern.fullmatch(name)
        if found:
            return text(key, edition, **found.groupdict()) if found.groupdict() else text(key, edition)
    return name


def _format(value) -> str:
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return f"{value:,.4g}" if abs(value) < 1000 else f"{value:,.0f}"
    return str(value)


def headline(name: str, value, unit: str = "") -> None:
    """Show ``name: value`` in bold, in the edition's words, and record it as one of the notebook's headline
    numbers: under its English ``name``, with the name as shown (``label``) and the value with its unit."""
    from IPython.display import display

    unit = text(f"headline unit {unit}") if f"headline unit {unit}" in CATALOGUE else unit
    shown = f"{_format(value)}{' ' + unit if unit else ''}"
    label = headline_name(name)
    display({HEADLINE_MIME: {"name": name, "label": label,
                             "value": value if isinstance(value, (int, float, str)) else str(value), "text": shown},
             "text/markdown": text("headline shown markdown", name=label, value=shown),
             "text/plain": text("headline shown plain", name=label, value=shown)}, raw=True)


def markdown_table(header: Sequence[str], rows: Sequence[Sequence], float_format: str = "{:,.3g}"):
    """A small table for a notebook, as an ``IPython.display.Markdown`` object (a cell's last value shows it).

    Args:
        header: ``(k,)`` column names.
        rows: ``(n, k)`` cells: strings are shown as they are, integers with thousands separators,
            other numbers with ``float_format``, booleans as yes/no. Columns of numbers are right-aligned.
    """
    from IPython.display import Markdown

    def cell(value) -> str:
        if isinstance(value, (bool, np.bool_)):
            return "yes" if value else "no"
        if isinstance(value, numbers.Integral):
            return f"{int(value):,}"
        if isinstance(value, numbers.Real):
            return float_format.format(float(value))
        return str(value).replace("|", "\\|").replace("\n", " ")

    rows = [list(row) for row in rows]
    if any(len(row) != len(header) for row in rows):
        raise ValueError(f"every row needs {len(header)} cells, one for each column of the header")
    numeric = [bool(rows) and all(isinstance(row[i], numbers.Number) and not isinstance(row[i], (bool, np.bool_))
                                  for row in rows) for i in range(len(header))]
    lines = ["| " + " | ".join(cell(name) for name in header) + " |",
             "|" + "|".join("---:" if right else "---" for right in numeric) + "|"]
    lines += ["| " + " | ".join(cell(value) for value in row) + " |" for row in rows]
    return Markdown("\n".join(lines))


def shared_files_table(notebook: str, profile: str | None = None):
    """A table of what ``notebook`` loads from earlier notebooks and what it makes for later ones:
    each file, what it is, which notebook makes it, and whether it is saved now (then it is loaded),
    will be made here, or is missing (a result only its own notebook makes). A saved biLM that cannot
    be read, or whose recorded settings are not the course's now, is said to be trained again here, as
    :func:`course.shared.saved.load_saved` will have it. In the full profile, when a model will be trained here,
    a line below the table says how a teacher's archive of the models (``python -m course models get``)
    would have them loaded instead."""
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
    in what :func:`course.shared.saved.load_saved` counts ([]: in nothing); None: the file cannot be read."""
    import torch

    from ..core.checkpoints import setting_changes
    from ..lm.resume import RESUMABLE_CHANGES
    from ..shared.bilm import course_config

    try:
        recorded = torch.load(path, map_location="cpu", weights_only=True, mmap=True)["config"]
        return setting_changes(recorded, course_config(corpus, profile).to_dict(), RESUMABLE_CHANGES)
    except Exception:  # noqa: BLE001 - any file load_saved would refuse: damaged, cut short, not a model file
        return None
