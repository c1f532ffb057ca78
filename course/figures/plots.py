"""Figures for the course: Zipf plots, similarity heat maps, 2-D maps of words, training curves, Huffman trees,
analogy arrows.

Chinese labels need a font with CJK glyphs: :func:`setup_cjk_font` registers the Noto Sans CJK
font that the ``mplfonts`` package ships, or a CJK font the system has, and warns clearly when
there is none (labels would show as empty boxes). Every plotting function here calls it.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

import numpy as np

from ..core.edition import text

CJK_FAMILY_HINTS = ("CJK", "Han Sans", "Han Serif", "WenQuanYi", "SimHei", "Hei", "Ming", "Kai", "Song",
                    "Droid Sans Fallback")


class CJKFontWarning(UserWarning):
    """No font with Chinese glyphs was found; Chinese labels in figures will not render."""


@lru_cache(maxsize=1)
def setup_cjk_font() -> str | None:
    """Make matplotlib draw Chinese: register a CJK font and put it first in ``font.sans-serif``.

    Returns the font family name, or None (with a :class:`CJKFontWarning`) when none is found.
    """
    import matplotlib
    from matplotlib import font_manager

    candidates: list[Path] = []
    try:
        import mplfonts

        candidates.append(Path(mplfonts.__file__).parent / "fonts" / "NotoSansCJKsc-Regular.otf")
    except ImportError:
        pass
    family = None
    for path in candidates:
        if path.is_file():
            font_manager.fontManager.addfont(str(path))
            family = font_manager.FontProperties(fname=str(path)).get_name()
            break
    if family is None:
        for entry in font_manager.fontManager.ttflist:
            if any(hint.lower() in entry.name.lower() for hint in CJK_FAMILY_HINTS):
                family = entry.name
                break
    if family is None:
        warnings.warn("No CJK font found: Chinese labels in figures will show as empty boxes. "
                      "Install one with 'pip install mplfonts' or 'apt-get install fonts-noto-cjk'.",
                      CJKFontWarning, stacklevel=2)
        return None
    sans = [name for name in matplotlib.rcParams["font.sans-serif"] if name != family]
    matplotlib.rcParams["font.sans-serif"] = [family, *sans]
    matplotlib.rcParams["font.family"] = "sans-serif"
    matplotlib.rcParams["axes.unicode_minus"] = False
    return family


def _axes(ax=None, figsize=(6, 4)):
    import matplotlib.pyplot as plt

    setup_cjk_font()
    if ax is None:
        _, ax = plt.subplots(figsize=figsize)
    return ax


def zipf_fit(counts: np.ndarray, first_rank: int = 10, last_rank: int = 10_000) -> tuple[float, float]:
    """Least-squares line through log(frequency) against log(rank) over ranks ``first..last``.

    Returns ``(slope, intercept)``; Zipf's law says the slope is close to -1.
    """
    frequencies = np.sort(np.asarray(counts, dtype=np.float64))[::-1]
    frequencies = frequencies[frequencies > 0]
    ranks = np.arange(1, len(frequencies) + 1)
    window = slice(first_rank - 1, min(last_rank, len(frequencies)))
    slope, intercept = np.polyfit(np.log10(ranks[window]), np.log10(frequencies[window]), 1)
    return float(slope), float(intercept)


def zipf_plot(counts: np.ndarray, label: str | None = None, ax=None, fit: bool = True):
    """Frequency against rank on log-log axes, with the fitted Zipf line. ``counts``: ``(V,)``."""
    ax = _axes(ax)
    frequencies = np.sort(np.asarray(counts, dtype=np.float64))[::-1]
    frequencies = frequencies[frequencies > 0]
    ranks = np.arange(1, len(frequencies) + 1)
    line = ax.loglog(ranks, frequencies, ".", markersize=2, label=label or text("words"))[0]
    if fit and len(frequencies) > 20:
        slope, intercept = zipf_fit(frequencies)
        ax.loglog(ranks, 10 ** intercept * ranks ** slope, "--", color=line.get_color(), alpha=0.7,
                  label=text("zipf fit", slope=slope))
    ax.set_xlabel(text("rank"))
    ax.set_ylabel(text("frequency"))
    ax.legend()
    return ax


def heatmap(matrix: np.ndarray, labels: Sequence[str], col_labels: Sequence[str] | None = None, ax=None,
            title: str | None = None, vmin: float = -1.0, vmax: float = 1.0, annotate: bool = True,
            cmap: str = "RdBu_r"):
    """A labelled heat map of an ``(n, m)`` matrix (cosine similarities by default)."""
    matrix = np.asarray(matrix)
    col_labels = list(labels if col_labels is None else col_labels)
    ax = _axes(ax, figsize=(1.0 + 0.55 * len(col_labels), 0.8 + 0.5 * len(labels)))
    image = ax.imshow(matrix, cmap=cmap, vmin=vmin, vmax=vmax)
    ax.set_xticks(range(len(col_labels)), col_labels, rotation=45, ha="right")
    ax.set_yticks(range(len(labels)), list(labels))
    if annotate and matrix.size <= 400:
        for (i, j), value in np.ndenumerate(matrix):
            ax.text(j, i, f"{value:.2f}", ha="center", va="center", fontsize=7,
                    color="white" if abs(value) > 0.6 * max(abs(vmin), abs(vmax)) else "black")
    ax.figure.colorbar(image, ax=ax, fraction=0.046, pad=0.04)
    if title:
        ax.set_title(title)
    ax.figure.tight_layout()
    return ax


def scatter_words(points: np.ndarray, words: Sequence[str], ax=None, highlight: Sequence[str] = (),
                  title: str | None = None, max_labels: int = 300):
    """Words at 2-D positions ``(n, 2)``; the first ``max_labels`` and every word in ``highlight``
    (drawn in colour) are labelled."""
    ax = _axes(ax, figsize=(9, 9))
    points = np.asarray(points)
    marked = np.isin(np.asarray(words, dtype=object), list(highlight))
    ax.scatter(points[~marked, 0], points[~marked, 1], s=6, color="0.6")
    ax.scatter(points[marked, 0], points[marked, 1], s=18, color="tab:red")
    for i, word in enumerate(words):
        if i >= max_labels and not marked[i]:
            continue
        ax.annotate(word, points[i], fontsize=8 if marked[i] else 6, color="tab:red" if marked[i] else "0.2",
                    xytext=(2, 2), textcoords="offset points")
    ax.set_xticks([])
    ax.set_yticks([])
    if title:
        ax.set_title(title)
    return ax


EXACT_TSNE_POINTS = 500  # up to here the exact gradient is faster than Barnes-Hut's approximation
TSNE_ITERATIONS = 500  # 250 of early exaggeration, then 250: half sklearn's default (benchmarks/tsne_iterations.py)


def tsne(vectors: np.ndarray, seed: int = 0, perplexity: float = 30.0,
         iterations: int = TSNE_ITERATIONS) -> np.ndarray:
    """``(n, 2)`` t-SNE map of ``(n, d)`` vectors by cosine distance (scikit-learn): the exact
    gradient for at most ``EXACT_TSNE_POINTS`` points, Barnes-Hut's O(n log n) one for more.
    ``iterations`` (at least 250, the early-exaggeration phase): on the course's maps of 5,000
    words, 500 kept as many of each word's ten nearest neighbours on the map as 1,000 did, in half
    the time."""
    from sklearn.manifold import TSNE

    vectors = np.asarray(vectors, dtype=np.float64)
    perplexity = min(perplexity, max(2.0, (len(vectors) - 1) / 3))
    method = "exact" if len(vectors) <= EXACT_TSNE_POINTS else "barnes_hut"
    return TSNE(n_components=2, metric="cosine", init="pca", perplexity=perplexity, method=method,
                max_iter=iterations, random_state=seed).fit_transform(vectors)


def tsne_plot(kv, words: Sequence[str], seed: int = 0, ax=None, highlight: Sequence[str] = (),
              title: str | None = None, max_labels: int = 300):
    """t-SNE map of the vectors of ``words`` (a gensim ``KeyedVectors``), labelled."""
    words = [word for word in words if word in kv.key_to_index]
    points = tsne(np.stack([kv.get_vector(word) for word in words]), seed=seed)
    return scatter_words(points, words, ax=ax, highlight=highlight, title=title, max_labels=max_labels)


def training_curve(values: Sequence[float], ax=None, xlabel: str | None = None, ylabel: str | None = None,
                   label: str | None = None, smooth: int = 1):
    """A training curve; ``smooth`` > 1 overlays a moving average of that many points. The axis labels
    default to "step" and "loss" in the edition's words (:mod:`course.core.edition`)."""
    xlabel, ylabel = xlabel or text("step"), ylabel or text("loss")
    ax = _axes(ax)
    values = np.asarray(values, dtype=np.float64)
    ax.plot(values, alpha=0.4 if smooth > 1 else 1.0, label=label)
    if smooth > 1 and len(values) >= smooth:
        kernel = np.ones(smooth) / smooth
        ax.plot(np.arange(smooth - 1, len(values)), np.convolve(values, kernel, mode="valid"),
                label=text("moving mean", what=label or ylabel, n=smooth))
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if label or smooth > 1:
        ax.legend()
    return ax


def min_count_plot(min_counts: np.ndarray, sizes: np.ndarray, coverage: np.ndarray, label: str | None = None,
                   axes=None, mark: int | None = None):
    """Vocabulary size and token coverage against ``min_count``, side by side.

    Args:
        min_counts: ``(M,)`` increasing thresholds.
        sizes: ``(M,)`` how many types occur at least ``min_counts[i]`` times.
        coverage: ``(M,)`` the share (0 to 1) of all tokens that those types account for.
        label: the legend entry (for example the corpus name).
        axes: the pair of Axes to draw on (pass back what an earlier call returned to overlay
            several corpora), or None for a new figure.
        mark: a ``min_count`` to mark with a vertical line (for example 5), or None.

    Returns:
        the pair of Axes ``(size_axis, coverage_axis)``.
    """
    import matplotlib.pyplot as plt

    setup_cjk_font()
    if axes is None:
        _, axes = plt.subplots(1, 2, figsize=(11, 4))
    size_ax, coverage_ax = axes
    size_ax.loglog(min_counts, sizes, "o-", markersize=3, label=label)
    coverage_ax.semilogx(min_counts, 100 * np.asarray(coverage, dtype=np.float64), "o-", markersize=3, label=label)
    size_ax.set(xlabel="min_count", ylabel=text("vocabulary size kept"), title=text("vocabulary size"))
    coverage_ax.set(xlabel="min_count", ylabel=text("tokens covered"), title=text("token coverage"))
    for ax in axes:
        if mark is not None:
            ax.axvline(mark, color="0.5", linestyle=":", linewidth=1)
        if label:
            ax.legend()
    size_ax.figure.tight_layout()
    return size_ax, coverage_ax


def huffman_tree_plot(tree, words: Sequence[str], ax=None, highlight: str | None = None):
    """Draw a Huffman tree: inner nodes as circles with their number, leaves with their word, and
    each edge labelled with its bit (0 to the left, 1 to the right).

    Args:
        tree: a :class:`~course.text.vocab.HuffmanTree` (``vocab.huffman()``); words without a code
            (special tokens) are left out.
        words: ``(V,)`` the words in vocabulary order (``vocab.words``).
        ax: the Axes to draw on, or None for a new figure sized to the tree.
        highlight: a word whose path from the root is drawn in red, or None.

    Raises:
        ValueError: fewer than two coded words, ``words`` of the wrong length, or ``highlight`` not
            a coded word.

    Returns:
        the Axes. Each node sits at the depth of its path, so a word's height in the figure is the
        length of its code.
    """
    words = list(words)
    lengths = np.asarray(tree.lengths)
    if len(words) != len(lengths):
        raise ValueError(f"{len(words)} words for a tree over {len(lengths)} vocabulary entries")
    coded = [i for i in range(len(words)) if lengths[i] > 0]
    if not coded:
        raise ValueError("the tree has no inner nodes: a Huffman tree needs at least two words with counts")
    if highlight is not None and (highlight not in words or lengths[words.index(highlight)] == 0):
        raise ValueError(f"{highlight!r} is not a word with a code in this tree")
    # children[node] = [child for bit 0, child for bit 1]; a child is ("inner", node) or ("leaf", word id).
    children: dict[int, list] = {}
    for i in coded:
        path = [("inner", int(node)) for node in tree.points[i, : lengths[i]]] + [("leaf", i)]
        for (_, node), bit, child in zip(path[:-1], tree.codes[i, : lengths[i]], path[1:], strict=True):
            children.setdefault(node, [None, None])[int(bit)] = child
    max_depth = int(lengths.max())
    ax = _axes(ax, figsize=(max(4.0, 0.95 * len(coded) + 1), 1.0 + 0.75 * max_depth))
    on_path = set()
    if highlight is not None:
        target = words.index(highlight)
        on_path = {("inner", int(node)) for node in tree.points[target, : lengths[target]]} | {("leaf", target)}
    red, grey = "tab:red", "0.45"

    position: dict[tuple[str, int], tuple[float, float]] = {}
    next_leaf = [0.0]

    def place(node, depth):
        # Leaves take consecutive x positions from left to right; an inner node sits above the middle of its children.
        kind, index = node
        if kind == "leaf":
            position[node] = (next_leaf[0], -depth)
            next_leaf[0] += 1
        else:
            left, right = children[index]
            place(left, depth + 1)
            place(right, depth + 1)
            position[node] = ((position[left][0] + position[right][0]) / 2, -depth)

    place(("inner", int(tree.points[coded[0], 0])), 0)  # every path starts at the root
    for parent, pair in children.items():
        for bit, child in enumerate(pair):
            (x0, y0), (x1, y1) = position[("inner", parent)], position[child]
            marked = ("inner", parent) in on_path and child in on_path
            ax.plot([x0, x1], [y0, y1], color=red if marked else grey, linewidth=2.5 if marked else 1, zorder=1)
            ax.text((x0 + x1) / 2, (y0 + y1) / 2, str(bit), ha="center", va="center", fontsize=8,
                    color=red if marked else "0.2", bbox=dict(boxstyle="round,pad=0.1", fc="white", ec="none"))
    for node, (x, y) in position.items():
        kind, index = node
        colour = red if node in on_path else ("tab:blue" if kind == "inner" else "0.2")
        if kind == "inner":
            ax.scatter([x], [y], s=260, color="white", edgecolors=colour, linewidths=1.5, zorder=2)
            ax.text(x, y, str(index), ha="center", va="center", fontsize=7, color=colour, zorder=3)
        else:
            ax.scatter([x], [y], s=30, marker="s", color=colour, zorder=2)
            ax.text(x, y - 0.2, words[index], ha="center", va="top", fontsize=10 if node in on_path else 9,
                    color=colour)
    ax.set_xlim(-0.7, len(coded) - 0.3)
    ax.set_ylim(-max_depth - 0.8, 0.5)
    ax.set_yticks(-np.arange(max_depth + 1), [str(depth) for depth in range(max_depth + 1)])
    ax.set_ylabel(text("depth code length"))
    ax.set_xticks([])
    for side in ("top", "right", "bottom"):
        ax.spines[side].set_visible(False)
    return ax


def analogy_arrows(kv, pairs: Sequence[tuple[str, str]], ax=None, title: str | None = None,
                   colour: str = "tab:blue"):
    """Word pairs as arrows in 2-D: the first word of each pair points to the second.

    The unit vectors of all the words in ``pairs`` are projected onto their first two principal
    components (fitted on those words only, as in Mikolov et al.'s figure of countries and
    capitals), so parallel arrows of equal length mean the same offset in the full space.

    Args:
        kv: a gensim ``KeyedVectors``.
        pairs: ``(n, 2)`` word pairs such as ``[("man", "woman"), ("king", "queen")]``.
        ax: the Axes to draw on, or None for a new figure.
        title: the title, or None.
        colour: the colour of the arrows.

    Raises:
        ValueError: fewer than two distinct words, or a word the vectors do not have (named).

    Returns:
        the Axes, with one arrow (an annotation) per pair and one label per word.
    """
    pairs = [(str(a), str(b)) for a, b in pairs]
    words = list(dict.fromkeys(word for pair in pairs for word in pair))
    missing = [word for word in words if word not in kv.key_to_index]
    if missing:
        raise ValueError(f"not in the vectors' vocabulary: {', '.join(repr(word) for word in missing)}")
    if len(words) < 2:
        raise ValueError("analogy arrows need at least two distinct words")
    vectors = np.stack([kv.get_vector(word, norm=True) for word in words]).astype(np.float64)  # (w, d)
    centred = vectors - vectors.mean(axis=0)
    _, _, components = np.linalg.svd(centred, full_matrices=False)
    points = centred @ components[:2].T  # (w, 2), or (w, 1) when two words span one direction
    if points.shape[1] < 2:
        points = np.hstack([points, np.zeros((len(points), 2 - points.shape[1]))])
    where = dict(zip(words, points, strict=True))
    ax = _axes(ax, figsize=(6, 5))
    ax.scatter(points[:, 0], points[:, 1], s=12, color="0.3", zorder=3)
    for a, b in pairs:
        ax.annotate("", xy=where[b], xytext=where[a],
                    arrowprops=dict(arrowstyle="->", color=colour, linewidth=1.4, shrinkA=3, shrinkB=3))
    for word, (x, y) in where.items():
        ax.text(x, y, f" {word}", fontsize=9, va="bottom", ha="left", zorder=4)
    span = np.ptp(points, axis=0).max() or 1.0
    low, high = points.min(axis=0) - 0.12 * span, points.max(axis=0) + 0.12 * span
    ax.set_xlim(low[0], high[0] + 0.1 * span)  # room for the labels on the right
    ax.set_ylim(low[1], high[1])
    ax.set_xticks([])
    ax.set_yticks([])
    ax.set_xlabel(text("principal component", n=1))
    ax.set_ylabel(text("principal component", n=2))
    if title:
        ax.set_title(title)
    return ax
