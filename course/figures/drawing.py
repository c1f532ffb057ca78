"""The drawing pieces the course's diagrams (:mod:`course.figures.diagrams`) are made of, in matplotlib.

A diagram lives in a coordinate system of inches: an Axes of ``width`` x ``height`` data units on a
figure of the same size in inches (:func:`canvas`), so a font size in points and a box size in units
compare. :func:`box` draws a labelled box whose label shrinks until it fits (:func:`fit_text`);
:func:`arrow`, :func:`note`, :func:`table` (a column of rows, some marked) and :func:`grid` (a boolean
matrix as cells) do the rest. Labels come from the catalogue (:func:`label`), in the notebook's edition.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..core.edition import text
from .plots import setup_cjk_font

BLUE, GREEN, ORANGE, RED, GREY = "#4c72b0", "#55a868", "#dd8452", "#c44e52", "0.55"
FILL = {BLUE: "#dbe6f4", GREEN: "#dcefe0", ORANGE: "#f8e3d3", RED: "#f2d8d9", GREY: "0.93"}
MIN_FONT = 5.5  # points: a label is shrunk down to this size at most to fit its box


@dataclass(frozen=True)
class Box:
    """A box on a diagram: centre ``(x, y)``, width ``w`` and height ``h`` in the diagram's units (inches)."""

    x: float
    y: float
    w: float
    h: float

    @property
    def left(self) -> tuple[float, float]:
        return self.x - self.w / 2, self.y

    @property
    def right(self) -> tuple[float, float]:
        return self.x + self.w / 2, self.y

    @property
    def top(self) -> tuple[float, float]:
        return self.x, self.y + self.h / 2

    @property
    def bottom(self) -> tuple[float, float]:
        return self.x, self.y - self.h / 2


def caption(key: str, **values) -> str:
    """The catalogue's string ``key`` in the current edition. Every entry is a ``str.format`` template,
    formatted even without values, so that ``{{`` and ``}}`` in a formula become braces."""
    return text(key, **values) if values else text(key).format()


def canvas(width: float, height: float, ax=None):
    """An Axes of ``width`` x ``height`` units without a frame: a new figure of that size in inches,
    or ``ax`` with those limits. Returns the Axes."""
    import matplotlib.pyplot as plt

    setup_cjk_font()
    if ax is None:
        fig = plt.figure(figsize=(width, height))
        ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(0, width)
    ax.set_ylim(0, height)
    ax.set_aspect("equal")
    ax.axis("off")
    return ax


def _renderer(ax):
    figure = ax.figure
    canvas_ = figure.canvas
    return canvas_.get_renderer() if hasattr(canvas_, "get_renderer") else figure._get_renderer()


def fit_text(ax, artist, box: Box, margin: float = 0.05) -> None:
    """Shrink ``artist``'s font until its extent fits inside ``box`` less ``margin`` units a side
    (down to :data:`MIN_FONT` points)."""
    renderer = _renderer(ax)
    to_pixels = ax.transData
    (x0, y0), (x1, y1) = to_pixels.transform([(box.x - box.w / 2 + margin, box.y - box.h / 2 + margin / 2),
                                              (box.x + box.w / 2 - margin, box.y + box.h / 2 - margin / 2)])
    while artist.get_fontsize() > MIN_FONT:
        extent = artist.get_window_extent(renderer)
        if extent.width <= x1 - x0 and extent.height <= y1 - y0:
            return
        artist.set_fontsize(artist.get_fontsize() - 0.5)


def box(ax, x: float, y: float, w: float, h: float, label: str = "", colour: str = GREY, fontsize: float = 9,
        gid: str | None = None) -> Box:
    """A rounded box centred at ``(x, y)`` with ``label`` inside (shrunk to fit); ``colour`` is the edge,
    its light tint the fill. The patch and the label share the gid ``gid`` (label: ``gid + ":label"``)."""
    from matplotlib.patches import FancyBboxPatch

    shape = Box(x, y, w, h)
    patch = FancyBboxPatch((x - w / 2, y - h / 2), w, h, boxstyle="round,pad=0,rounding_size=0.06",
                           facecolor=FILL.get(colour, "white"), edgecolor=colour, linewidth=1.2, zorder=2)
    ax.add_patch(patch)
    name = gid or f"box{len(ax.patches)}"
    patch.set_gid(name)
    if label:
        artist = ax.text(x, y, label, ha="center", va="center", fontsize=fontsize, zorder=3,
                         linespacing=1.25)
        artist.set_gid(f"{name}:label")
        fit_text(ax, artist, shape)
    return shape


def arrow(ax, start: tuple[float, float], end: tuple[float, float], colour: str = "0.3", label: str | None = None,
          curve: float = 0.0, width: float = 1.1, style: str = "-|>", fontsize: float = 8, dashed: bool = False,
          label_offset: tuple[float, float] = (0.0, 0.0)):
    """An arrow from ``start`` to ``end`` (bent by ``curve``, matplotlib's ``arc3`` radius), with an
    optional ``label`` at its middle."""
    ax.annotate("", xy=end, xytext=start, zorder=1,
                arrowprops=dict(arrowstyle=style, color=colour, linewidth=width, shrinkA=1, shrinkB=1,
                                connectionstyle=f"arc3,rad={curve}", linestyle="--" if dashed else "-"))
    if label:
        ax.text((start[0] + end[0]) / 2 + label_offset[0], (start[1] + end[1]) / 2 + label_offset[1], label,
                ha="center", va="center", fontsize=fontsize, color=colour, zorder=3,
                bbox=dict(boxstyle="round,pad=0.1", facecolor="white", edgecolor="none"))


def note(ax, x: float, y: float, label: str, fontsize: float = 8, colour: str = "0.2", ha: str = "center",
         va: str = "center"):
    """Plain text at ``(x, y)``."""
    return ax.text(x, y, label, ha=ha, va=va, fontsize=fontsize, color=colour, zorder=3, linespacing=1.3)


def table(ax, x: float, top: float, rows: Sequence[str], marks: dict[int, str], width: float = 1.3,
          row_height: float = 0.24, title: str = "", names_right: bool = False, gid: str = "table") -> list[Box]:
    """A table of ``len(rows)`` rows of vectors, the top edge at ``top``, the left edge at ``x``; each
    row's name (a word) to its left (``names_right``: to its right). ``marks``: row index -> colour of the
    rows an example touches; the others are grey. Row i's patch has the gid ``f"{gid}:{i}:{word}"``.
    Returns each row's :class:`Box`."""
    boxes = []
    for i, name in enumerate(rows):
        y = top - (i + 0.5) * row_height
        colour = marks.get(i, GREY)
        shape = box(ax, x + width / 2, y, width, row_height * 0.86, colour=colour, gid=f"{gid}:{i}:{name}")
        if i in marks:
            for j in range(8):  # the d numbers of the row, drawn as cells
                ax.add_patch(cell(x + 0.08 + j * (width - 0.16) / 8, y, (width - 0.16) / 8, row_height * 0.5,
                                   colour))
        note(ax, x + width + 0.06 if names_right else x - 0.06, y, name, fontsize=8,
             ha="left" if names_right else "right", colour=colour if i in marks else "0.35")
        boxes.append(shape)
    if title:
        note(ax, x + width / 2, top + 0.2, title, fontsize=9, va="bottom")
    return boxes


def cell(x, y, w, h, colour):
    from matplotlib.patches import Rectangle

    return Rectangle((x + 0.01, y - h / 2), w - 0.02, h, facecolor=colour, alpha=0.55, edgecolor="none", zorder=3)


def grid(ax, x: float, top: float, allowed: np.ndarray, cell: float = 0.22, row_labels: Sequence[str] = (),
         col_labels: Sequence[str] = (), colour: str = BLUE, title: str = "", gid: str = "grid") -> None:
    """A boolean matrix as a grid of cells, the top-left corner at ``(x, top)``: True filled with
    ``colour``, False white; ``row_labels`` to the left, ``col_labels`` above. Cell (i, j) has the gid
    ``f"{gid}:{i},{j}"``."""
    from matplotlib.patches import Rectangle

    allowed = np.asarray(allowed, dtype=bool)
    for (i, j), value in np.ndenumerate(allowed):
        ax.add_patch(Rectangle((x + j * cell, top - (i + 1) * cell), cell, cell, zorder=2, linewidth=0.6,
                               facecolor=colour if value else "white", edgecolor="0.6", gid=f"{gid}:{i},{j}"))
    for i, name in enumerate(row_labels):
        note(ax, x - 0.05, top - (i + 0.5) * cell, name, fontsize=7, ha="right")
    for j, name in enumerate(col_labels):
        note(ax, x + (j + 0.5) * cell, top + 0.05, name, fontsize=7, va="bottom", ha="left").set_rotation(50)
    if title:
        note(ax, x + allowed.shape[1] * cell / 2, top - allowed.shape[0] * cell - 0.12, title, fontsize=8, va="top")


def figure_of(ax):
    return ax.figure
