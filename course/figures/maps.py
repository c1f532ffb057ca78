"""Interactive word maps that work offline: hover a point to read its word, its count and its nearest
neighbours, search a word to see where it and its neighbours lie, and compare several models side by side.

A map is a 2-D t-SNE projection (``course.figures.plots.tsne``) of ``(n, d)`` vectors, drawn with Bokeh. Everything the
page shows is computed here in Python and stored in one Bokeh data source: the 2-D points, the colour category of
each point, and for each point its ``k`` nearest neighbours by cosine in the ORIGINAL ``d``-dimensional space,

    cos(a, b) = a · b / (|a| |b|),    neighbours(i) = the k indices j ≠ i with the largest cos(v_i, v_j),

so a reader sees which words are close in the model, not merely close on the flattened picture.

A :class:`WordMap` shows itself in Jupyter as an ``<iframe>`` whose ``srcdoc`` is a standalone Bokeh page with
BokehJS inline (``bokeh.resources.INLINE``): nothing is fetched from the network, and the map works the same in
JupyterLab (no extension needed) and in the static HTML pages nbconvert writes. :meth:`WordMap.save` writes that
page to a file. :func:`linked_maps` puts several maps of the same labels into one page with one data source, so
that a word selected or searched in one map is highlighted in all of them.

Sizes: BokehJS (with the widgets that the search box needs) is about 1.7 MB of the page; the data are stored as
small binary arrays (coordinates on an integer grid of :data:`GRID` steps, similarities in hundredths), so a map of
5,000 words stays under 2 MB.
"""

from __future__ import annotations

import html
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..core.edition import text
from ..core.io import atomic_path

GRID = 10_000  # coordinates are rounded to this many steps across the map, and stored as int16
MAX_CATEGORIES = 255  # colour categories are stored as uint8 codes
MAX_SHOWN_NEIGHBOURS = 12  # a selection of more points than this shows no neighbour rings
LABEL_CHARACTERS = 48  # the ring labels are cut to this length (labels of occurrences can be long)


@dataclass(frozen=True)
class MapPanel:
    """One map's data, ``n`` points.

    Attributes:
        title: the map's title.
        points: ``(n, 2)`` float coordinates.
        neighbours: ``(n, k)`` indices of each point's nearest neighbours by cosine, nearest first.
        similarities: ``(n, k)`` their cosine similarities.
        categories: ``(n,)`` the colour category of each point, or None for one colour.
        colour_title: the legend's title, or None.
    """

    title: str
    points: np.ndarray
    neighbours: np.ndarray
    similarities: np.ndarray
    categories: tuple[str, ...] | None
    colour_title: str | None


def nearest_neighbours(vectors: np.ndarray, k: int = 5, block: int = 1024) -> tuple[np.ndarray, np.ndarray]:
    """The ``k`` nearest neighbours of every row of ``vectors`` by cosine similarity, itself excluded.

    Args:
        vectors: ``(n, d)`` vectors; a zero row has cosine 0 with every other row.
        k: how many neighbours, at most ``n - 1``.
        block: rows compared at once (memory ``block * n`` floats).

    Returns:
        ``(indices, similarities)``, both ``(n, k)``: row ``i`` holds the indices ``j != i`` with the largest
        ``cos(v_i, v_j)``, nearest first (ties broken by the smaller index), and those cosines.
    """
    vectors = np.asarray(vectors, dtype=np.float64)
    n = len(vectors)
    k = min(int(k), n - 1)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    unit = vectors / np.where(norms > 0, norms, 1.0)                     # (n, d)
    indices = np.empty((n, k), dtype=np.int64)
    similarities = np.empty((n, k), dtype=np.float64)
    for start in range(0, n, block):
        stop = min(start + block, n)
        cosines = unit[start:stop] @ unit.T                              # (b, n)
        cosines[np.arange(stop - start), np.arange(start, stop)] = -np.inf
        if k < n - 1:
            candidates = np.argpartition(-cosines, k, axis=1)[:, : k + 1]   # (b, k + 1): the top k, and one more
        else:
            candidates = np.broadcast_to(np.arange(n), cosines.shape)
        values = np.take_along_axis(cosines, candidates, axis=1)
        order = np.lexsort((candidates, -values), axis=1)[:, :k]          # by cosine, then by index
        indices[start:stop] = np.take_along_axis(candidates, order, axis=1)
        similarities[start:stop] = np.take_along_axis(values, order, axis=1)
    return indices, similarities


def rank_bands(counts: Sequence[float], edges: Sequence[int] = (100, 1000)) -> list[str]:
    """A frequency band for each word, by its rank among ``counts`` (1 = the most frequent), in the edition's words.

    ``rank_bands(counts, (100, 1000))`` gives "ranks 1–100", "ranks 101–1,000" and "ranks 1,001–n"; ties keep the
    order of ``counts``. Edges at or beyond ``n`` are dropped.
    """
    counts = np.asarray(counts, dtype=np.float64)
    n = len(counts)
    ranks = np.empty(n, dtype=np.int64)
    ranks[np.argsort(-counts, kind="stable")] = np.arange(1, n + 1)
    bounds = [0, *sorted(int(edge) for edge in edges if 0 < edge < n), n]
    names = [text("maps rank band", low=f"{low + 1:,}", high=f"{high:,}")
             for low, high in zip(bounds[:-1], bounds[1:], strict=True)]
    return [names[np.searchsorted(bounds, rank, side="left") - 1] for rank in ranks]


def category_summary(wordmap: WordMap, categories: Sequence[str],
                     panel: int = 0) -> list[tuple[str, int, float, float]]:
    """How close each category's points are to their neighbours in one map's original space.

    Args:
        wordmap: a map of ``n`` points (:func:`word_map`, or one of :func:`linked_maps`).
        categories: ``(n,)`` a category per point (e.g. :func:`rank_bands`).
        panel: which map of a linked figure.

    Returns:
        one row per category, in order of first appearance: ``(category, points, mean cosine of the nearest
        neighbour, share of the k neighbours that are in the same category)``.
    """
    categories = np.asarray([str(category) for category in categories], dtype=object)
    if len(categories) != len(wordmap.words):
        raise ValueError(f"{len(categories)} categories for {len(wordmap.words)} points: give one per point")
    chosen = wordmap.panels[panel]
    rows = []
    for category in dict.fromkeys(categories):
        members = categories == category
        rows.append((str(category), int(members.sum()), float(chosen.similarities[members, 0].mean()),
                     float(np.mean(categories[chosen.neighbours[members]] == category))))
    return rows


def neighbour_overlap(first: WordMap, second: WordMap) -> float:
    """The mean share of a point's ``k`` nearest neighbours that two maps of the same labels agree on, from 0
    (no neighbour in common) to 1 (the same ``k`` neighbours for every point): ``mean_i |N_1(i) ∩ N_2(i)| / k``.

    Raises:
        ValueError: maps of other labels, or with another number of neighbours.
    """
    if first.words != second.words:
        raise ValueError("the two maps have other labels: compare maps of the same words in the same order")
    a, b = first.panels[0].neighbours, second.panels[0].neighbours
    if a.shape != b.shape:
        raise ValueError(f"the maps keep {a.shape[1]} and {b.shape[1]} neighbours: compare maps with as many")
    same = (a[:, :, None] == b[:, None, :]).any(axis=2)                 # (n, k): a's j-th neighbour is among b's
    return float(same.mean())


def word_map(vectors, words: Sequence[str], *, counts: Sequence[float] | None = None,
             colour_by: Sequence[str] | None = None, colour_title: str | None = None, neighbours: int = 5,
             title: str = "", seed: int = 0, perplexity: float = 30.0, points=None, width: int = 640,
             height: int = 560) -> WordMap:
    """An interactive map of ``n`` labelled vectors.

    Args:
        vectors: ``(n, d)`` the vectors; the neighbours shown on hover are by cosine in this space.
        words: ``(n,)`` the labels (need not be unique: occurrences of one word in several sentences are fine).
        counts: ``(n,)`` a count to show on hover (corpus frequency), or None.
        colour_by: ``(n,)`` a category for each point (a frequency band, a part of speech, a sense), or None.
        colour_title: the legend's title.
        neighbours: how many nearest neighbours the hover and the search show (at most ``n - 1``).
        title: the map's title.
        seed, perplexity: t-SNE's settings (``course.figures.plots.tsne``; cosine distance, PCA start).
        points: ``(n, 2)`` coordinates to use instead of t-SNE, or None.
        width, height: the map's size in pixels.

    Raises:
        ValueError: fewer than 2 points, lengths that do not match, vectors or points of the wrong shape or not
            finite, ``neighbours`` below 1, or more than :data:`MAX_CATEGORIES` colour categories.
    """
    words = [str(word) for word in words]
    vectors = np.asarray(vectors, dtype=np.float64)
    n = len(words)
    if vectors.ndim != 2:
        raise ValueError(f"vectors must be an (n, d) array, not of shape {vectors.shape}")
    if n < 2 or len(vectors) < 2:
        raise ValueError(f"a word map needs at least 2 points, got {min(n, len(vectors))}")
    if len(vectors) != n:
        raise ValueError(f"{len(vectors)} vectors for {n} words: give one vector per word")
    if not np.isfinite(vectors).all():
        raise ValueError("the vectors hold NaN or infinite values")
    for name, values in (("counts", counts), ("colour_by", colour_by)):
        if values is not None and len(values) != n:
            raise ValueError(f"{len(values)} {name} for {n} words: give one per word")
    if int(neighbours) < 1:
        raise ValueError(f"neighbours must be at least 1, not {neighbours}")
    if points is None:
        points = _project(vectors, seed=seed, perplexity=perplexity)
    points = np.asarray(points, dtype=np.float64)
    if points.shape != (n, 2):
        raise ValueError(f"points must be an ({n}, 2) array, one row per word, not of shape {points.shape}")
    if not np.isfinite(points).all():
        raise ValueError("the points hold NaN or infinite values")
    categories = None if colour_by is None else tuple(str(category) for category in colour_by)
    if categories is not None and len(set(categories)) > MAX_CATEGORIES:
        raise ValueError(f"{len(set(categories))} colour categories: a map can tell at most {MAX_CATEGORIES} apart")
    indices, similarities = nearest_neighbours(vectors, neighbours)
    panel = MapPanel(title=title, points=points, neighbours=indices, similarities=similarities,
                     categories=categories, colour_title=colour_title)
    return WordMap(words, [panel], counts=counts, columns=1, width=width, height=height)


def linked_maps(maps: Sequence[WordMap], *, columns: int = 2, title: str = "", width: int = 400,
                height: int = 400) -> WordMap:
    """Several maps of the same labels side by side in one page, sharing one data source: a word selected (tap,
    box select) or searched in one map is highlighted in every map, each ringing its own nearest neighbours.

    Args:
        maps: maps made by :func:`word_map` from the same ``words`` in the same order (one model each, say).
        columns: maps per row.
        title: a title above them all.
        width, height: each map's size in pixels.

    Raises:
        ValueError: no maps, maps whose labels differ, or ``columns`` below 1.
    """
    maps = list(maps)
    if not maps:
        raise ValueError("linked_maps needs at least one map")
    if int(columns) < 1:
        raise ValueError(f"columns must be at least 1, not {columns}")
    words = maps[0].words
    for number, other in enumerate(maps[1:], start=2):
        if other.words != words:
            raise ValueError(f"map {number} has other labels than map 1 ({len(other.words)} against {len(words)}): "
                             "linked maps must show the same words in the same order")
    counts = next((m.counts for m in maps if m.counts is not None), None)
    panels = [panel for m in maps for panel in m.panels]
    return WordMap(words, panels, counts=counts, columns=int(columns), width=width, height=height, title=title)


class WordMap:
    """One or more linked maps of the same labels; shows itself in Jupyter, and :meth:`save` writes it as a page.

    Attributes:
        words: the ``n`` labels.
        panels: one :class:`MapPanel` per map.
        counts: ``(n,)`` counts, or None.
    """

    def __init__(self, words: Sequence[str], panels: Sequence[MapPanel], *, counts=None, columns: int = 1,
                 width: int = 640, height: int = 560, title: str = ""):
        self.words = tuple(words)
        self.panels = tuple(panels)
        self.counts = None if counts is None else np.asarray(counts)
        self.columns = columns
        self.width, self.height = int(width), int(height)
        self.title = title

    def __repr__(self) -> str:
        return f"WordMap({len(self.words)} points, {len(self.panels)} map(s))"

    def layout(self):
        """The Bokeh layout: the search box above the maps, all drawn from one ``ColumnDataSource``."""
        return _build_layout(self)

    def html(self) -> str:
        """The map as a standalone HTML page, BokehJS inline (nothing is fetched)."""
        from bokeh.embed import file_html
        from bokeh.resources import INLINE

        page = file_html(self.layout(), INLINE, title=self._name())
        end = page.rindex("</body>")  # the last one: BokehJS itself holds the string "</body>"
        return page[:end] + _FIT_FRAME + page[end:]

    def _repr_html_(self) -> str:
        # srcdoc in single quotes: the page then needs only & and ' escaped (BokehJS is full of double quotes).
        page = self.html().replace("&", "&amp;").replace("'", "&#39;")
        width, height = self.frame_size()
        return (f"<iframe srcdoc='{page}' style='width: {width}px; max-width: 100%; height: {height}px; border: 0' "
                f"title='{html.escape(self._name(), quote=True)}'></iframe>")

    def _name(self) -> str:
        return self.title or self.panels[0].title or text("maps page")

    def frame_size(self) -> tuple[int, int]:
        """The ``(width, height)`` in pixels of the frame the map is shown in (the page makes it fit later)."""
        rows = -(-len(self.panels) // self.columns)
        return (min(len(self.panels), self.columns) * (self.width + 10) + 30,
                rows * (self.height + 10) + (110 if self.title else 80))

    def save(self, path: str | os.PathLike) -> Path:
        """Write the standalone page to ``path`` (made whole or not at all); returns the path."""
        page = self.html()
        target = Path(path)
        with atomic_path(target) as temporary:
            temporary.write_text(page, encoding="utf-8")
        return target


def _project(vectors: np.ndarray, seed: int, perplexity: float) -> np.ndarray:
    """``(n, 2)``: t-SNE of ``vectors`` by cosine; for fewer than 4 points, their first two principal components."""
    if len(vectors) >= 4:
        from .plots import tsne

        return tsne(vectors, seed=seed, perplexity=min(perplexity, (len(vectors) - 1) / 3))
    centred = vectors - vectors.mean(axis=0)
    _, _, components = np.linalg.svd(centred, full_matrices=False)
    points = np.zeros((len(vectors), 2))
    projected = centred @ components[:2].T
    points[:, : projected.shape[1]] = projected
    return points


def _palette(size: int) -> list[str]:
    from bokeh.palettes import Category10_10, Category20_20, turbo

    if size <= 10:
        return list(Category10_10[:size])
    return list(Category20_20[:size]) if size <= 20 else list(turbo(size))


def _on_grid(points: np.ndarray) -> np.ndarray:
    """``(n, 2)`` int16: ``points`` scaled (the same factor on both axes) and rounded onto ``0..GRID``."""
    low = points.min(axis=0)
    span = float(np.ptp(points, axis=0).max()) or 1.0
    return np.rint((points - low) * (GRID / span)).astype(np.int16)


def _columns(word_map: WordMap) -> dict:
    """The data source's columns: ``label``, ``count``, and per map ``m``: ``x{m}``, ``y{m}`` (int16 on the grid),
    ``c{m}`` (uint8 colour codes), ``n{m}_{j}`` (the j-th neighbour's index) and ``s{m}_{j}`` (its cosine, in
    hundredths, int8)."""
    n = len(word_map.words)
    columns: dict = {"label": list(word_map.words)}
    if word_map.counts is not None:
        counts = np.asarray(word_map.counts, dtype=np.float64)
        columns["count"] = counts.astype(np.int32) if np.all(counts == np.round(counts)) else counts.astype(np.float32)
    index_type = np.int16 if n <= np.iinfo(np.int16).max else np.int32
    for m, panel in enumerate(word_map.panels):
        grid = _on_grid(panel.points)
        columns[f"x{m}"], columns[f"y{m}"] = grid[:, 0].copy(), grid[:, 1].copy()
        if panel.categories is not None:
            names = list(dict.fromkeys(panel.categories))
            code = {name: number for number, name in enumerate(names)}
            columns[f"c{m}"] = np.array([code[category] for category in panel.categories], dtype=np.uint8)
        for j in range(panel.neighbours.shape[1]):
            columns[f"n{m}_{j}"] = panel.neighbours[:, j].astype(index_type)
            columns[f"s{m}_{j}"] = np.rint(100 * panel.similarities[:, j]).astype(np.int8)
    return columns


def _build_layout(word_map: WordMap):
    from bokeh.layouts import column, row
    from bokeh.models import (
        ColumnDataSource,
        CustomJS,
        CustomJSHover,
        Div,
        HoverTool,
        LabelSet,
        Legend,
        LegendItem,
        LinearColorMapper,
        TextInput,
    )
    from bokeh.plotting import figure

    source = ColumnDataSource(_columns(word_map), name="words")
    figures, halos = [], []
    for m, panel in enumerate(word_map.panels):
        figure_ = figure(width=word_map.width, height=word_map.height, title=panel.title or None, match_aspect=True,
                         tools="pan,wheel_zoom,box_zoom,box_select,tap,reset,save", active_scroll="wheel_zoom",
                         toolbar_location="above")
        figure_.toolbar.logo = None
        figure_.axis.visible = False
        figure_.grid.visible = False
        colour = "#1f77b4"
        names = []
        if panel.categories is not None:
            names = list(dict.fromkeys(panel.categories))
            colour = {"field": f"c{m}", "transform": LinearColorMapper(palette=_palette(len(names)), low=-0.5,
                                                                        high=len(names) - 0.5)}
        points = figure_.scatter(f"x{m}", f"y{m}", source=source, size=6, fill_color=colour, line_color=None,
                                 fill_alpha=0.75, selection_fill_alpha=1.0, nonselection_fill_alpha=0.07)
        if names:
            first = {name: panel.categories.index(name) for name in names}
            legend = Legend(items=[LegendItem(label=name, renderers=[points], index=first[name]) for name in names],
                            title=panel.colour_title, orientation="horizontal", label_text_font_size="11px",
                            ncols=max(1, min(len(names), word_map.width // 170)))
            figure_.add_layout(legend, "below")
        halo = ColumnDataSource({"x": [], "y": [], "text": [], "ring": []}, name=f"rings{m}")
        figure_.scatter("x", "y", source=halo, size=13, fill_color=None, line_color="ring", line_width=2)
        figure_.add_layout(LabelSet(x="x", y="y", text="text", source=halo, x_offset=7, y_offset=3,
                                    text_font_size="11px", background_fill_color="white",
                                    background_fill_alpha=0.75))
        # One neighbour per row keeps the tooltip narrow enough to open beside any point of the map, and one
        # point per tooltip keeps it short where points crowd (limit=1).
        k = panel.neighbours.shape[1]
        tooltips = [(text("maps word"), "@label")]
        if word_map.counts is not None:
            tooltips.append((text("maps count"), "@count{0,0}"))
        tooltips += [(text("maps neighbours", k=k) if j == 0 else "", f"@{{n{m}_{j}}}{{custom}}") for j in range(k)]
        neighbour = {f"@{{n{m}_{j}}}": CustomJSHover(args={"source": source, "cosine": f"s{m}_{j}"}, code=_HOVER_JS)
                     for j in range(k)}
        figure_.add_tools(HoverTool(renderers=[points], tooltips=tooltips, formatters=neighbour, limit=1))
        figures.append(figure_)
        halos.append(halo)
    source.selected.js_on_change("indices", CustomJS(
        args={"source": source, "halos": halos, "ks": [p.neighbours.shape[1] for p in word_map.panels],
              "limit": MAX_SHOWN_NEIGHBOURS, "chars": LABEL_CHARACTERS}, code=_SELECTION_JS))
    status = Div(text="", render_as_text=True, width=320, name="status")
    search = TextInput(title=text("maps search"), placeholder=text("maps search placeholder"), width=260,
                       name="search")
    find = CustomJS(args={"source": source, "status": status, "found": text("maps found"),
                          "missing": text("maps not found")}, code=_SEARCH_JS)
    search.js_on_change("value_input", find)
    search.js_on_change("value", find)
    rows = [row(*figures[start:start + word_map.columns]) for start in range(0, len(figures), word_map.columns)]
    parts = [Div(text=f"<b>{html.escape(word_map.title)}</b>")] if word_map.title else []
    return column(*parts, row(search, status), *rows)


# A hover row: the neighbour stored in this column (its index into the data source) and its cosine.
_HOVER_JS = """
const d = source.data;
return `${d.label[value]} (${(d[cosine][special_vars.index] / 100).toFixed(2)})`;
"""

# A selection (search, tap or box) of a few points rings them in red, and their neighbours in each map in black.
_SELECTION_JS = """
const selected = source.selected.indices;
const d = source.data;
const cut = (label) => label.length > chars ? label.slice(0, chars - 1) + "…" : label;
for (let m = 0; m < halos.length; m++) {
  const x = [], y = [], labels = [], ring = [];
  if (selected.length > 0 && selected.length <= limit) {
    const seen = new Set(selected);
    for (const i of selected) {
      x.push(d[`x${m}`][i]); y.push(d[`y${m}`][i]); labels.push(cut(d.label[i])); ring.push("#d62728");
    }
    for (const i of selected) {
      for (let j = 0; j < ks[m]; j++) {
        const n = d[`n${m}_${j}`][i];
        if (seen.has(n)) { continue; }
        seen.add(n);
        x.push(d[`x${m}`][n]); y.push(d[`y${m}`][n]); ring.push("#222222");
        labels.push(`${cut(d.label[n])} ${(d[`s${m}_${j}`][i] / 100).toFixed(2)}`);
      }
    }
  }
  halos[m].data = {x: x, y: y, text: labels, ring: ring};
}
"""

# The search box: the labels equal to what is typed (any case), else those that start with it.
_SEARCH_JS = """
const query = (cb_obj.value_input ?? cb_obj.value ?? "").trim().toLowerCase();
const labels = source.data.label;
let hits = [];
if (query.length > 0) {
  for (let i = 0; i < labels.length; i++) { if (labels[i].toLowerCase() === query) { hits.push(i); } }
  if (hits.length === 0) {
    for (let i = 0; i < labels.length; i++) { if (labels[i].toLowerCase().startsWith(query)) { hits.push(i); } }
  }
}
source.selected.indices = hits;
status.text = query.length === 0 ? "" :
  (hits.length === 0 ? missing : found).replace("{query}", query).replace("{n}", String(hits.length));
"""


# After the page has drawn, make the frame it sits in (Jupyter's output) as tall and wide as the page.
_FIT_FRAME = """<script>
(function () {
  function fit() {
    var frame = window.frameElement;
    if (!frame) { return; }
    var body = document.body;
    frame.style.height = (body.scrollHeight + 16) + "px";
    frame.style.width = (body.scrollWidth + 16) + "px";
  }
  window.addEventListener("load", function () { setTimeout(fit, 300); setTimeout(fit, 1500); });
})();
</script>
"""

__all__ = ["GRID", "MapPanel", "WordMap", "category_summary", "linked_maps", "nearest_neighbours", "neighbour_overlap",
           "rank_bands", "word_map"]
