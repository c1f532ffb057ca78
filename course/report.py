"""Headline numbers that a notebook shows and the course index collects.

``headline("Sentences", 24807)`` displays the figure in the notebook and tags the output with a
MIME type of its own, so the builder of ``build/index.html`` can find it in the executed notebook.
"""

from __future__ import annotations

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
