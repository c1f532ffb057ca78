"""Diagrams of the course's models, drawn with matplotlib, each where its notebook introduces the model.

Every public function draws one diagram and returns its matplotlib ``Figure``: on a new figure, or on
the ``ax`` given (then the diagram sets that Axes' limits and turns its frame off). Labels come from the
catalogue (:func:`course.core.edition.text`), so they follow the notebook's edition; sizes come from the
config presets the course trains (``course.elmo.preset``, ``course.transformer.preset``, the ULMFiT
and word2vec defaults), so a diagram names what the course builds.

The boxes, arrows, tables and grids they are drawn with are :mod:`course.figures.drawing`.

- :func:`skipgram_diagram`, :func:`cbow_diagram`: the input table (rows v_w) and the output table
  (rows u_w), and which rows one training example reads and updates under negative sampling;
- :func:`hierarchical_softmax_diagram`: a word's path through a Huffman tree and the sigmoid at each
  inner node (:func:`course.figures.plots.huffman_tree_plot` draws the tree);
- :func:`glove_diagram`: log X ~ W W~^T + b + b~^T over the non-zero entries, weighted by f(X);
- :func:`bilm_diagram`: characters -> char-CNN -> highway -> projection, two LSTM layers each way with
  the residual, the shared softmax, and which state predicts which word;
- :func:`scalar_mix_diagram`: ELMo's layers -> softmax weights s_j -> gamma * sum;
- :func:`transformer_block_diagram`: the pre-LN block, and the causal and padding masks as grids;
- :func:`bert_masking_diagram`: 15% of the words chosen, 80/10/10 ``<mask>`` / random / kept;
- :func:`ulmfit_diagram`: ULMFiT's three stages and where discriminative rates, the slanted triangle
  and gradual unfreezing act.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .drawing import (
    BLUE,
    FILL,
    GREEN,
    GREY,
    ORANGE,
    RED,
    Box,
    arrow,
    box,
    canvas,
    caption,
    cell,
    figure_of,
    grid,
    note,
    table,
)
from .plots import huffman_tree_plot, setup_cjk_font

# ------------------------------------------------------------------ word2vec

SENTENCE = "i want a glass of orange juice to go along with my cereal".split()  # notebook 02's example
NOISE = ("the", "war", "music")  # noise words drawn for the picture (k = 3 of the default 5)


def _sentence(ax, y: float, centre: int, context: Sequence[int], centre_colour: str, context_colour: str) -> list:
    """The example sentence as a row of word boxes; returns their Boxes."""
    widths = [0.16 + 0.075 * len(word) for word in SENTENCE]
    total = sum(widths) + 0.06 * (len(SENTENCE) - 1)
    x = (ax.get_xlim()[1] - total) / 2
    boxes = []
    for i, (word, w) in enumerate(zip(SENTENCE, widths, strict=True)):
        colour = centre_colour if i == centre else (context_colour if i in context else GREY)
        boxes.append(box(ax, x + w / 2, y, w, 0.3, word, colour=colour, fontsize=9, gid=f"word{i}"))
        x += w + 0.06
    return boxes


def _vocabulary_rows() -> list[str]:
    return sorted(set(SENTENCE) | set(NOISE))


def _word2vec(arch: str, ax=None):
    from ..word2vec.config import Word2VecConfig

    config = Word2VecConfig()
    ax = canvas(11.0, 6.6, ax)
    centre = SENTENCE.index("orange")
    reach = 2
    context = [i for i in range(centre - reach, centre + reach + 1) if i != centre]
    skipgram = arch == "skipgram"
    target = SENTENCE.index("juice")
    note(ax, 5.5, 6.35, caption("diagram skipgram title" if skipgram else "diagram cbow title"), fontsize=11)
    _sentence(ax, 5.75, centre, [target] if skipgram else context, BLUE if skipgram else GREEN,
              GREEN if skipgram else BLUE)
    note(ax, 5.5, 5.37, caption("diagram skipgram pair" if skipgram else "diagram cbow window", reach=reach),
         fontsize=8)
    rows = _vocabulary_rows()
    index = {word: i for i, word in enumerate(rows)}
    inputs = [SENTENCE[centre]] if skipgram else [SENTENCE[i] for i in context]
    output = SENTENCE[target] if skipgram else SENTENCE[centre]
    input_marks = {index[word]: BLUE for word in inputs}
    output_marks = {index[output]: GREEN, **{index[word]: ORANGE for word in NOISE}}
    top = 4.75
    left_rows = table(ax, 1.0, top, rows, input_marks, gid="input",
                      title=caption("diagram input table", dim=config.dim))
    right_rows = table(ax, 8.3, top, rows, output_marks, names_right=True, gid="output",
                       title=caption("diagram output table", dim=config.dim))
    note(ax, 1.65, 0.55, caption("diagram untouched rows"), fontsize=8, colour="0.35")
    note(ax, 8.95, 0.55, caption("diagram untouched rows"), fontsize=8, colour="0.35")
    if skipgram:
        hidden = box(ax, 4.05, 3.3, 1.5, 0.5, caption("diagram centre vector"), colour=BLUE, gid="hidden")
        arrow(ax, left_rows[index[inputs[0]]].right, hidden.left, colour=BLUE)
    else:
        hidden = box(ax, 4.05, 3.3, 1.5, 0.62, caption("diagram cbow hidden"), colour=BLUE, gid="hidden")
        for word in inputs:
            arrow(ax, left_rows[index[word]].right, hidden.left, colour=BLUE, width=0.8)
    score = box(ax, 6.35, 3.3, 1.9, 0.62, caption("diagram sigmoid scores", k=len(NOISE)), colour="0.3",
                gid="scores")
    arrow(ax, hidden.right, score.left)
    arrow(ax, right_rows[index[output]].left, score.right, colour=GREEN, width=1.3)
    for word in NOISE:
        arrow(ax, right_rows[index[word]].left, score.right, colour=ORANGE, width=0.9)
    note(ax, 5.15, 2.55, caption("diagram true word", word=output), colour=GREEN, fontsize=8)
    note(ax, 5.15, 2.2, caption("diagram noise words", k=len(NOISE), negative=config.negative), colour=ORANGE,
         fontsize=8)
    note(ax, 5.2, 1.5, caption("diagram rows updated", rows=len(inputs) + 1 + len(NOISE)), fontsize=8.5)
    return figure_of(ax)


def skipgram_diagram(ax=None):
    """Skip-gram with negative sampling: one (centre, context) pair of notebook 02's sentence reads the
    centre word's row v_c of the input table and the rows u_o (the true context word) and u_{n_i} (k noise
    words) of the output table; the score of each is sigma(u^T v_c), and only those k + 2 rows change.
    Table sizes: |V| x d with word2vec's default d. Returns the Figure."""
    return _word2vec("skipgram", ax)


def cbow_diagram(ax=None):
    """CBOW with negative sampling: the context words' rows of the input table are averaged into
    h = mean(v_w), which is scored against the centre word's output row u_c and k noise rows;
    those rows and the context rows change. Returns the Figure."""
    return _word2vec("cbow", ax)


def hierarchical_softmax_diagram(tree, words: Sequence[str], word: str):
    """The path of ``word`` through the Huffman ``tree`` (drawn by :func:`course.figures.plots.huffman_tree_plot`,
    the path in red) beside the factor of each inner node n_j on it, sigma(s_j u_{n_j}^T h) with
    s_j = +1 for bit 0 (left) and -1 for bit 1 (right), and their product P(word | h).

    Args:
        tree: a :class:`~course.text.vocab.HuffmanTree` (``vocab.huffman()``).
        words: ``(V,)`` the words in vocabulary order.
        word: the word whose path is drawn.

    Raises:
        ValueError: as :func:`~course.figures.plots.huffman_tree_plot` does (``word`` without a code, ...).

    Returns:
        the Figure: the tree on the left, the factors along the path on the right.
    """
    import matplotlib.pyplot as plt

    setup_cjk_font()
    words = list(words)
    coded = int((np.asarray(tree.lengths) > 0).sum())
    depth = int(np.asarray(tree.lengths).max())
    tree_width = max(4.0, 0.8 * coded + 1)
    height = max(4.2, 1.4 + 0.62 * depth)
    fig = plt.figure(figsize=(tree_width + 4.6, height))
    tree_ax = fig.add_axes((0.6 / (tree_width + 4.6), 0.06, (tree_width - 0.7) / (tree_width + 4.6), 0.82))
    huffman_tree_plot(tree, words, ax=tree_ax, highlight=word)
    tree_ax.set_title(caption("diagram hs tree title", word=word), fontsize=10)
    ax = fig.add_axes((tree_width / (tree_width + 4.6), 0, 4.6 / (tree_width + 4.6), 1))
    canvas(4.6, height, ax)
    target = words.index(word)
    length = int(tree.lengths[target])
    nodes = [int(node) for node in tree.points[target, :length]]
    bits = [int(bit) for bit in tree.codes[target, :length]]
    note(ax, 2.3, height - 0.3, caption("diagram hs factors title"), fontsize=10)
    step = min(0.55, (height - 1.6) / (length + 1))
    y = height - 0.75
    previous = None
    for j, (node, bit) in enumerate(zip(nodes, bits, strict=True), start=1):
        sign = "+" if bit == 0 else "-"
        label = caption("diagram hs step", j=j, node=node, bit=bit, direction=caption(f"diagram hs bit {bit}"))
        factor = box(ax, 2.3, y, 4.2, step * 0.8, f"{label}:  $\\sigma({sign}u_{{{node}}}^\\top h)$", colour=RED,
                     fontsize=8.5, gid=f"factor{j}")
        if previous is not None:
            arrow(ax, previous.bottom, factor.top, colour=RED)
        previous, y = factor, y - step
    result = box(ax, 2.3, y - 0.1, 4.2, step * 0.85,
                 caption("diagram hs product", word=word, length=length), colour="0.3", gid="product")
    arrow(ax, previous.bottom, result.top)
    note(ax, 2.3, max(0.25, y - 0.1 - step), caption("diagram hs sum to one"), fontsize=8, colour="0.35")
    return fig


# ------------------------------------------------------------------ GloVe


def _matrix(ax, x: float, top: float, rows: int, cols: int, cell: float, colour: str, filled=None):
    """A block of ``rows`` x ``cols`` cells, the top-left corner at ``(x, top)``; ``filled`` a bool mask of
    the cells drawn in colour (all by default). Returns its Box."""
    from matplotlib.patches import Rectangle

    filled = np.ones((rows, cols), dtype=bool) if filled is None else filled
    for (i, j), value in np.ndenumerate(filled):
        ax.add_patch(Rectangle((x + j * cell, top - (i + 1) * cell), cell, cell, linewidth=0.5, zorder=2,
                               facecolor=FILL[colour] if value else "white", edgecolor=colour if value else "0.8"))
    return Box(x + cols * cell / 2, top - rows * cell / 2, cols * cell, rows * cell)


def glove_diagram(ax=None):
    """GloVe as a weighted factorisation: log X_ik ~ w_i^T w~_k + b_i + b~_k over the non-zero entries
    of the (|V| x |V|) co-occurrence matrix, with W and W~ (|V| x d), b and b~ (|V|), each entry's
    squared error weighted by f(X_ik) = min(1, (X_ik / x_max)^alpha) (the course's defaults, drawn
    below the matrices); the empty cells (X_ik = 0) are left out of the loss. Returns the Figure."""
    from ..glove import GloVeConfig, weighting

    config = GloVeConfig()
    ax = canvas(11.0, 5.6, ax)
    note(ax, 5.5, 5.35, caption("diagram glove title"), fontsize=11)
    rng = np.random.default_rng(3)
    size, dim, cell = 9, 3, 0.26
    counts = np.triu(rng.random((size, size)) < 0.55, 0)
    counts = counts | counts.T  # X is symmetric
    top = 4.65
    logx = _matrix(ax, 0.4, top, size, size, cell, BLUE, filled=counts)
    note(ax, logx.x, top + 0.12, caption("diagram glove log x", size="|V|"), fontsize=9, va="bottom")
    note(ax, logx.x + logx.w / 2 + 0.35, logx.y, "≈", fontsize=20)
    w = _matrix(ax, 3.3, top, size, dim, cell, GREEN)
    note(ax, w.x, top + 0.12, caption("diagram glove w", dim=config.dim), fontsize=9, va="bottom")
    note(ax, w.x + w.w / 2 + 0.22, w.y, "×", fontsize=14)
    wt = _matrix(ax, 4.5, top - 0.5, dim, size, cell, ORANGE)
    note(ax, wt.x, top - 0.38, caption("diagram glove w tilde"), fontsize=9, va="bottom")
    note(ax, wt.x + wt.w / 2 + 0.25, w.y, "+", fontsize=14)
    b = _matrix(ax, 7.3, top, size, 1, cell, GREEN)
    note(ax, b.x, top + 0.12, "$b$", fontsize=10, va="bottom")
    note(ax, b.x + b.w / 2 + 0.25, w.y, "+", fontsize=14)
    bt = _matrix(ax, 7.85, top - 0.5, 1, size, cell, ORANGE)
    note(ax, bt.x, top - 0.38, r"$\tilde b^\top$", fontsize=10, va="bottom")
    # one entry (i, k) and the rows and columns its equation uses, in red
    i, k = np.argwhere(counts)[len(np.argwhere(counts)) // 3]
    from matplotlib.patches import Rectangle

    def outline(x, top_, row, col, rows=1, cols=1):
        ax.add_patch(Rectangle((x + col * cell, top_ - (row + rows) * cell), cols * cell, rows * cell, fill=False,
                               edgecolor=RED, linewidth=1.8, zorder=4))

    outline(0.4, top, i, k)
    outline(3.3, top, i, 0, cols=dim)
    outline(4.5, top - 0.5, 0, k, rows=dim)
    outline(7.3, top, i, 0)
    outline(7.85, top - 0.5, 0, k)
    note(ax, 5.5, 1.95, caption("diagram glove entry"), fontsize=9, colour=RED)
    note(ax, 5.5, 1.55, caption("diagram glove zeros"), fontsize=8, colour="0.35")
    note(ax, 5.5, 1.2, caption("diagram glove loss"), fontsize=9)
    inset = ax.inset_axes((0.73, 0.1, 0.23, 0.24))
    x = np.linspace(0, 2.2 * config.x_max, 200)
    inset.plot(x, weighting(x, config.x_max, config.alpha), color=BLUE)
    inset.axvline(config.x_max, color="0.6", linestyle=":", linewidth=1)
    inset.set_xlabel(r"$X_{ik}$", fontsize=8, labelpad=1)
    inset.set_ylabel(r"$f(X_{ik})$", fontsize=8, labelpad=1)
    inset.tick_params(labelsize=7)
    inset.set_title(caption("diagram glove weighting", x_max=config.x_max, alpha=config.alpha), fontsize=8)
    return figure_of(ax)


# ------------------------------------------------------------------ ELMo


def bilm_diagram(preset: str = "cpu", ax=None):
    """The biLM of the ``preset`` (``"cpu"`` or ``"gpu"``, :func:`course.elmo.preset`): on the left the
    token encoder of one word (characters -> embeddings -> char-CNN with max-pooling -> highway layers ->
    projection to d: x_k, layer 0); on the right three positions k-1, k, k+1 with the forward LSTM layers
    above the token vectors (reading left to right) and the backward ones below (right to left), each
    layer's cells projected to d and a residual into layer 2, and the one softmax both directions share:
    the forward top state at k predicts t_{k+1}, the backward one t_{k-1}. Returns the Figure."""
    from ..elmo.config import preset as elmo_preset

    config = elmo_preset(preset)
    widths = ", ".join(str(width) for width, _ in config.filters)
    ax = canvas(12.0, 9.0, ax)
    note(ax, 6.0, 8.8, caption("diagram bilm title", preset=preset), fontsize=11)
    rows = {"next": 8.05, "softmax top": 7.25, "f2": 6.35, "f1": 5.35, "x": 4.35, "b1": 3.35, "b2": 2.35,
            "softmax bottom": 1.45, "previous": 0.55}
    # the token encoder of one word, bottom-up, ending level with the token vectors
    encoder = [(caption("diagram bilm characters"), GREY),
               (caption("diagram bilm char embeddings", dim=config.char_dim), GREY),
               (caption("diagram bilm char cnn", filters=config.num_filters, widths=widths), BLUE),
               (caption("diagram bilm highway", layers=config.highway_layers, size=config.num_filters), BLUE),
               (caption("diagram bilm projection", dim=config.projection_dim), BLUE)]
    previous = None
    for i, (label, colour) in enumerate(encoder):
        shape = box(ax, 1.7, rows["x"] - (len(encoder) - 1 - i) * 0.95, 3.1, 0.66, label, colour=colour,
                    fontsize=8.5, gid=f"encoder{i}")
        if previous is not None:
            arrow(ax, previous.top, shape.bottom)
        previous = shape
    note(ax, 1.7, rows["x"] + 0.75, caption("diagram bilm encoder note"), fontsize=8, colour="0.35")
    sentence = ["the", "river", "bank"]
    positions = ("k-1", "k", "k+1")
    columns = [6.6, 8.7, 10.8]
    xs, forward, backward = [], [[], []], [[], []]
    for k, (cx, word) in enumerate(zip(columns, sentence, strict=True)):
        xs.append(box(ax, cx, rows["x"], 1.6, 0.55, caption("diagram bilm token vector", word=word, k=positions[k]),
                      colour=BLUE, fontsize=9, gid=f"x{k}"))
        for j in range(2):
            forward[j].append(box(ax, cx, rows[f"f{j + 1}"], 1.3, 0.55,
                                  f"$\\overrightarrow{{h}}_{{{positions[k]},{j + 1}}}$", colour=GREEN, fontsize=10,
                                  gid=f"forward{j}{k}"))
            backward[j].append(box(ax, cx, rows[f"b{j + 1}"], 1.3, 0.55,
                                   f"$\\overleftarrow{{h}}_{{{positions[k]},{j + 1}}}$", colour=ORANGE, fontsize=10,
                                   gid=f"backward{j}{k}"))
    arrow(ax, previous.right, xs[0].left, colour=BLUE, label=caption("diagram bilm every word"), label_offset=(0, 0.2))
    for k in range(3):
        arrow(ax, xs[k].top, forward[0][k].bottom, colour=GREEN)
        arrow(ax, forward[0][k].top, forward[1][k].bottom, colour=GREEN)
        arrow(ax, xs[k].bottom, backward[0][k].top, colour=ORANGE)
        arrow(ax, backward[0][k].bottom, backward[1][k].top, colour=ORANGE)
        # the residual: layer 1's output is added to layer 2's
        arrow(ax, forward[0][k].right, forward[1][k].right, colour=GREEN, curve=0.6, width=0.8, dashed=True)
        arrow(ax, backward[0][k].right, backward[1][k].right, colour=ORANGE, curve=-0.6, width=0.8, dashed=True)
        for j in range(2):
            if k < 2:  # the recurrences: forward left to right, backward right to left
                arrow(ax, forward[j][k].right, forward[j][k + 1].left, colour=GREEN)
                arrow(ax, backward[j][k + 1].left, backward[j][k].right, colour=ORANGE)
    layer_notes = {"f1": ("diagram bilm lstm layer", GREEN, 1), "f2": ("diagram bilm lstm layer residual", GREEN, 2),
                   "b1": ("diagram bilm lstm layer", ORANGE, 1), "b2": ("diagram bilm lstm layer residual", ORANGE, 2)}
    for row, (key, colour, j) in layer_notes.items():
        note(ax, 4.55, rows[row], caption(key, j=j, cells=config.lstm_dim, dim=config.projection_dim), fontsize=7.5,
             colour=colour)
    softmax_label = caption("diagram bilm softmax", kind=caption(f"diagram softmax {config.softmax}"))
    top = box(ax, columns[1], rows["softmax top"], 5.6, 0.5, softmax_label, colour=RED, fontsize=9, gid="softmax-top")
    bottom = box(ax, columns[1], rows["softmax bottom"], 5.6, 0.5, softmax_label, colour=RED, fontsize=9,
                 gid="softmax-bottom")
    arrow(ax, forward[1][1].top, top.bottom, colour=GREEN, width=1.5)
    arrow(ax, backward[1][1].bottom, bottom.top, colour=ORANGE, width=1.5)
    ahead = box(ax, columns[2], rows["next"], 2.3, 0.55, caption("diagram bilm predicts next", word=sentence[2]),
                colour=GREEN, fontsize=8.5, gid="predict-next")
    behind = box(ax, columns[0], rows["previous"], 2.3, 0.55,
                 caption("diagram bilm predicts previous", word=sentence[0]), colour=ORANGE, fontsize=8.5,
                 gid="predict-previous")
    arrow(ax, top.top, ahead.left, colour=GREEN, width=1.5, curve=-0.3)
    arrow(ax, bottom.bottom, behind.right, colour=ORANGE, width=1.5, curve=-0.3)
    note(ax, 4.55, (rows["softmax top"] + rows["softmax bottom"]) / 2 + 2.9, caption("diagram bilm shared"),
         fontsize=7.5, colour=RED)
    return figure_of(ax)


def scalar_mix_diagram(weights: Sequence[float] | None = None, gamma: float = 1.0, ax=None):
    """ELMo's scalar mix for one token k: the layers h_{k,0} .. h_{k,L} times s = softmax(w), summed and
    scaled by gamma. ``weights``: w, one per layer (default three zeros: the even mix a ``ScalarMix``
    starts from; a trained mix's ``scalar_parameters`` draws what a task learned); ``gamma``: its scale.
    The bars show s. Returns the Figure."""
    weights = np.zeros(3) if weights is None else np.asarray(weights, dtype=np.float64)
    if weights.ndim != 1 or len(weights) < 1:
        raise ValueError(f"need one weight per layer, got shape {weights.shape}")
    shares = np.exp(weights - weights.max())
    shares = shares / shares.sum()
    layers = len(weights)
    height = max(3.6, 1.2 + 0.95 * layers)
    ax = canvas(10.0, height, ax)
    note(ax, 5.0, height - 0.3, caption("diagram mix title"), fontsize=11)
    ys = [height - 1.15 - i * (height - 1.9) / max(1, layers - 1) for i in range(layers)]
    total = box(ax, 6.9, float(np.mean(ys)), 1.4, 0.75, r"$\sum_j s_j\, h_{k,j}$", colour="0.3", fontsize=11,
                gid="sum")
    for j, y in enumerate(ys):
        kind = caption("diagram mix token layer") if j == 0 else caption("diagram mix lstm layer", j=j)
        layer = box(ax, 1.4, y, 2.4, 0.6, f"$h_{{k,{j}}}$: {kind}", colour=BLUE, fontsize=9, gid=f"layer{j}")
        weight = box(ax, 3.55, y, 1.3, 0.5, f"$s_{j}$ = {shares[j]:.2f}", colour=GREEN, fontsize=9, gid=f"s{j}")
        ax.add_patch(cell(4.3, y, 0.8 * shares[j] + 0.02, 0.32, GREEN))
        arrow(ax, layer.right, weight.left, label="×", fontsize=9)
        arrow(ax, (5.25, y), total.left, colour="0.4")
    note(ax, 3.55, ys[-1] - 0.55, caption("diagram mix softmax"), fontsize=8, colour="0.35")
    scaled = box(ax, 8.95, total.y, 1.9, 0.75, caption("diagram mix gamma", gamma=gamma), colour=RED, fontsize=10,
                 gid="gamma")
    arrow(ax, total.right, scaled.left, label=r"$\times\,\gamma$", fontsize=9)
    note(ax, 8.2, total.y - 0.7, caption("diagram mix task"), fontsize=8, colour="0.35")
    return figure_of(ax)


# ------------------------------------------------------------------ Transformer


def transformer_block_diagram(preset: str = "cpu", ax=None):
    """One pre-LN Transformer block of the ``preset`` (:func:`course.transformer.preset`) inside the
    model: word and position embeddings, LN -> multi-head self-attention -> residual, LN -> feed-forward
    (d_model -> d_ff, GELU, -> d_model) -> residual, L blocks, the softmax tied to E; beside it the masks
    on a padded sentence as grids (1 = the query may look at the key): the causal mask, the padding
    mask, and what GPT (both) and BERT (padding only) use. Returns the Figure."""
    from ..transformer.attention import causal_mask
    from ..transformer.config import preset as transformer_preset

    config = transformer_preset(preset)
    ax = canvas(12.0, 8.6, ax)
    note(ax, 6.0, 8.35, caption("diagram block title", preset=preset), fontsize=11)
    x = 2.6
    steps = [("embed", caption("diagram block embeddings", dim=config.dim), BLUE),
             ("ln1", "LayerNorm$_1$", GREY),
             ("attention", caption("diagram block attention", heads=config.heads, dk=config.head_dim), GREEN),
             ("add1", caption("diagram block residual"), GREY),
             ("ln2", "LayerNorm$_2$", GREY),
             ("ffn", caption("diagram block ffn", dim=config.dim, ff=config.ff_dim), ORANGE),
             ("add2", caption("diagram block residual"), GREY),
             ("out", caption("diagram block softmax"), RED)]
    ys = [0.55, 1.55, 2.45, 3.35, 4.25, 5.15, 6.05, 7.35]
    shapes = {}
    for (name, label, colour), y in zip(steps, ys, strict=True):
        width = 4.4 if name in ("embed", "out", "attention", "ffn") else 2.6
        shapes[name] = box(ax, x, y, width, 0.58, label, colour=colour, fontsize=9, gid=name)
    order = [name for name, _, _ in steps]
    for lower, upper in zip(order, order[1:], strict=False):
        arrow(ax, shapes[lower].top, shapes[upper].bottom)
    # the residual stream skips each sub-layer
    arrow(ax, (x + 1.4, (ys[0] + ys[1]) / 2), shapes["add1"].right, colour="0.4", curve=0.45, dashed=True)
    arrow(ax, (x + 1.4, (ys[3] + ys[4]) / 2), shapes["add2"].right, colour="0.4", curve=0.45, dashed=True)
    from matplotlib.patches import Rectangle

    ax.add_patch(Rectangle((x - 2.45, (ys[0] + ys[1]) / 2 - 0.05), 4.9, ys[6] - ys[1] + 0.75, fill=False,
                           linestyle="--", edgecolor="0.5", zorder=1))
    note(ax, x - 2.35, ys[6] + 0.55, caption("diagram block repeat", layers=config.layers), fontsize=8.5, ha="left",
         colour="0.3")
    arrow(ax, (6.6, ys[2]), shapes["attention"].right, colour=GREEN, label=caption("diagram block mask here"),
          label_offset=(0.0, 0.25))
    # the masks, on a sentence of three words padded to five positions
    tokens = ["<bos>", "a", "cat", "<eos>", "<pad>"]
    length = len(tokens)
    real = np.array([token != "<pad>" for token in tokens])  # the key padding mask: True at real positions
    causal = causal_mask(length).numpy()  # (T, T): True where query t may look at key s
    padding = np.repeat(real[None, :], length, axis=0)
    cell = 0.27
    grids = [("causal", causal, caption("diagram mask causal"), GREEN, 6.9, 7.1),
             ("padding", padding, caption("diagram mask padding"), BLUE, 9.6, 7.1),
             ("gpt", causal & padding, caption("diagram mask gpt"), GREEN, 6.9, 4.6),
             ("bert", padding, caption("diagram mask bert"), BLUE, 9.6, 4.6)]
    for name, allowed, title, colour, gx, gtop in grids:
        grid(ax, gx, gtop, allowed, cell=cell, row_labels=tokens, col_labels=tokens, colour=colour, title=title,
             gid=f"mask-{name}")
    note(ax, 9.1, ys[2], caption("diagram mask legend"), fontsize=8, colour="0.35")
    return figure_of(ax)


def bert_masking_diagram(ax=None):
    """BERT's corruption of a sentence (:mod:`course.transformer.masking`): each word position is
    chosen with probability 0.15; of the chosen, 80% become ``<mask>``, 10% a random word, 10% keep their
    word; the loss is taken at the chosen positions only. Returns the Figure."""
    from ..transformer.config import TransformerConfig
    from ..transformer.masking import MASK_SHARE, RANDOM_SHARE

    share = TransformerConfig().mask_share
    keep = 1 - MASK_SHARE - RANDOM_SHARE
    ax = canvas(11.0, 5.0, ax)
    note(ax, 5.5, 4.75, caption("diagram bert title"), fontsize=11)
    sentence = ["<bos>", "the", "cat", "sat", "on", "the", "mat", "by", "the", "door", "<eos>"]
    chosen = {2: ("<mask>", RED, MASK_SHARE), 6: ("river", ORANGE, RANDOM_SHARE), 9: ("door", GREEN, keep)}
    xs = np.linspace(1.6, 10.5, len(sentence))
    note(ax, 0.1, 3.65, caption("diagram bert original"), fontsize=8, ha="left", colour="0.35")
    note(ax, 0.1, 1.75, caption("diagram bert input"), fontsize=8, ha="left", colour="0.35")
    note(ax, 0.1, 0.7, caption("diagram bert target"), fontsize=8, ha="left", colour="0.35")
    for i, (x, word) in enumerate(zip(xs, sentence, strict=True)):
        is_chosen = i in chosen
        top = box(ax, x, 3.65, 0.74, 0.36, word, colour="0.3" if is_chosen else GREY, fontsize=9, gid=f"word{i}")
        new, colour, _ = chosen.get(i, (word, GREY, 0))
        below = box(ax, x, 1.75, 0.74, 0.36, new, colour=colour, fontsize=9, gid=f"input{i}")
        arrow(ax, top.bottom, below.top, colour=colour if is_chosen else "0.75", width=1.3 if is_chosen else 0.7)
        target = word if is_chosen else "–"
        box(ax, x, 0.7, 0.74, 0.32, target, colour=colour if is_chosen else GREY, fontsize=9 if is_chosen else 8,
            gid=f"target{i}")
    for i, (_, colour, probability) in chosen.items():
        kind = {RED: "diagram bert masked", ORANGE: "diagram bert random", GREEN: "diagram bert kept"}[colour]
        note(ax, xs[i] + 0.08, 2.7, caption(kind, share=probability), fontsize=8, colour=colour, ha="left")
    note(ax, 5.5, 4.3, caption("diagram bert chosen", share=share), fontsize=9)
    note(ax, 5.5, 0.2, caption("diagram bert loss"), fontsize=8, colour="0.35")
    return figure_of(ax)


# ------------------------------------------------------------------ ULMFiT


def ulmfit_diagram(ax=None):
    """ULMFiT's three stages (Howard and Ruder, 2018) as the course runs them: (1) the general-domain
    LM, the forward LM of the People's Daily biLM; (2) that LM fine-tuned on the reviews' text with
    discriminative rates and the slanted triangle; (3) the classifier (concat pooling, a small head)
    fine-tuned on the labels with both and with gradual unfreezing. Below the stages: the rates per
    layer group (:func:`~course.ulmfit.schedules.discriminative_rates`), the slanted triangle
    (:func:`~course.ulmfit.schedules.slanted_triangular`) and the groups that train in each epoch
    (:func:`~course.ulmfit.schedules.unfrozen_groups`), with the classifier's default settings.
    Returns the Figure."""
    from ..ulmfit.config import ClassifierConfig
    from ..ulmfit.schedules import discriminative_rates, slanted_triangular, unfrozen_groups

    config = ClassifierConfig()
    ax = canvas(12.0, 6.4, ax)
    note(ax, 6.0, 6.15, caption("diagram ulmfit title"), fontsize=11)
    stages = [(caption("diagram ulmfit stage 1"), BLUE), (caption("diagram ulmfit stage 2"), GREEN),
              (caption("diagram ulmfit stage 3"), ORANGE)]
    centres = [2.0, 6.0, 10.0]
    shapes = [box(ax, cx, 4.95, 3.6, 1.45, label, colour=colour, fontsize=9, gid=f"stage{i + 1}")
              for i, (cx, (label, colour)) in enumerate(zip(centres, stages, strict=True))]
    arrow(ax, shapes[0].right, shapes[1].left, width=1.6)
    arrow(ax, shapes[1].right, shapes[2].left, width=1.6)
    groups = [caption("diagram ulmfit group encoder"), "LSTM 1", "LSTM 2", caption("diagram ulmfit group head")]
    # discriminative rates, bottom group first
    rates = discriminative_rates(config.lr, len(groups), config.factor)
    bars = ax.inset_axes((0.1, 0.08, 0.22, 0.42))
    bars.barh(range(len(groups)), rates, color=GREEN)
    bars.set_yticks(range(len(groups)), groups, fontsize=7.5)
    bars.tick_params(axis="x", labelsize=7)
    bars.set_title(caption("diagram ulmfit discriminative", factor=config.factor), fontsize=8.5)
    # the slanted triangle over a run
    steps = 200
    rate = [slanted_triangular(step, steps, config.lr, config.cut_frac, config.ratio) for step in range(steps)]
    curve = ax.inset_axes((0.41, 0.08, 0.22, 0.42))
    curve.plot(range(steps), rate, color=GREEN)
    curve.set_xlabel(caption("step"), fontsize=7.5, labelpad=1)
    curve.tick_params(labelsize=7)
    curve.set_title(caption("diagram ulmfit slanted", cut=config.cut_frac, ratio=config.ratio), fontsize=8.5)
    # gradual unfreezing: which groups train in each epoch
    epochs = len(groups) + 1
    trained = np.array([[len(groups) - 1 - g < unfrozen_groups(epoch, len(groups), config.gradual_unfreezing)
                         for epoch in range(1, epochs + 1)] for g in range(len(groups))])[::-1]
    frozen = ax.inset_axes((0.76, 0.08, 0.2, 0.42))
    frozen.imshow(trained, cmap="Oranges", vmin=0, vmax=1.6, aspect="auto")
    frozen.set_yticks(range(len(groups)), groups[::-1], fontsize=7.5)
    frozen.set_xticks(range(epochs), [str(epoch) for epoch in range(1, epochs + 1)], fontsize=7)
    frozen.set_xlabel(caption("diagram ulmfit epoch"), fontsize=7.5, labelpad=1)
    frozen.set_title(caption("diagram ulmfit unfreezing"), fontsize=8.5)
    return figure_of(ax)
