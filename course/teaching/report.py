"""Headline numbers that a notebook shows and the course index collects.

``headline("Sentences", 24807)`` displays the figure in the notebook and tags the output with a
MIME type of its own, so the builder of ``build/index.html`` can find it in the executed notebook.
A headline is named in English in the code cell (its key in the index); the notebook shows the name
and the unit in its edition's words (``course/printed/headlines.py``).
"""

from __future__ import annotations

import numbers
import re
import string
from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from ..edition import CATALOGUE, text

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
