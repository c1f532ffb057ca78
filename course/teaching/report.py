"""Headline numbers that a notebook shows and the course index collects.

``headline("Sentences", 24807)`` displays the figure in the notebook and tags the output with a
MIME type of its own, so the builder of ``build/index.html`` can find it in the executed notebook.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence

import numpy as np

HEADLINE_MIME = "application/vnd.course.headline+json"


def _format(value) -> str:
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return f"{value:,.4g}" if abs(value) < 1000 else f"{value:,.0f}"
    return str(value)


def headline(name: str, value, unit: str = "") -> None:
    """Show ``name: value`` in bold and record it as one of the notebook's headline numbers."""
    from IPython.display import display

    text = f"{_format(value)}{' ' + unit if unit else ''}"
    display({HEADLINE_MIME: {"name": name, "value": value if isinstance(value, (int, float, str)) else str(value),
                             "text": text},
             "text/markdown": f"**{name}:** {text}",
             "text/plain": f"{name}: {text}"}, raw=True)


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
