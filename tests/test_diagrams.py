"""The model diagrams: each draws in both editions, holds the labels it should in the edition's words and
the sizes of the presets the course trains, shows what the model does (which rows a word2vec example
touches, the causal mask, a word's Huffman path, the scalar mix's softmax), and keeps every text inside the
figure and every box's label inside its box."""

import re
import string

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from course.core.edition import CATALOGUE, text, use_edition  # noqa: E402
from course.elmo.config import preset as elmo_preset  # noqa: E402
from course.figures import diagrams  # noqa: E402
from course.text.vocab import Vocabulary  # noqa: E402
from course.transformer.config import preset as transformer_preset  # noqa: E402

CJK = re.compile(r"[\u4e00-\u9fff]")
TREE_WORDS = ["the", "of", "is", "war", "water", "city", "music", "france", "computer", "king", "football", "physics"]
TREE_COUNTS = [30_000, 17_000, 6_000, 900, 700, 650, 500, 400, 300, 250, 200, 150]


def label(key, **values):
    """The catalogue's string as the diagrams write it (every entry formatted, even without values)."""
    return text(key, **values) if values else text(key).format()


@pytest.fixture(scope="module")
def tree():
    vocab = Vocabulary(TREE_WORDS, TREE_COUNTS, specials=())
    return vocab.huffman(), list(vocab.words)


def draw(name, tree):
    calls = {"skipgram": diagrams.skipgram_diagram, "cbow": diagrams.cbow_diagram,
             "hierarchical softmax": lambda: diagrams.hierarchical_softmax_diagram(*tree, "king"),
             "glove": diagrams.glove_diagram, "bilm": diagrams.bilm_diagram, "scalar mix": diagrams.scalar_mix_diagram,
             "transformer block": diagrams.transformer_block_diagram, "bert masking": diagrams.bert_masking_diagram,
             "ulmfit": diagrams.ulmfit_diagram}
    figure = calls[name]()
    figure.canvas.draw()
    return figure


def texts(figure):
    """Every visible, non-empty text artist of the figure: annotations, titles, axis and tick labels."""
    found = []
    for artist in figure.findobj(matplotlib.text.Text):
        if artist.get_visible() and artist.get_text().strip() and artist.figure is figure:
            found.append(artist)
    return found


def strings(figure):
    return [artist.get_text() for artist in texts(figure)]


def expected_labels(name):
    """The catalogue entries (with their values) each diagram must show, and words that must appear."""
    elmo, transformer = elmo_preset("cpu"), transformer_preset("cpu")
    common = {
        "skipgram": [("diagram skipgram title", {}), ("diagram input table", {"dim": 100}),
                     ("diagram output table", {"dim": 100}), ("diagram centre vector", {}),
                     ("diagram rows updated", {"rows": 5})],
        "cbow": [("diagram cbow title", {}), ("diagram cbow hidden", {}), ("diagram rows updated", {"rows": 8})],
        "hierarchical softmax": [("diagram hs tree title", {"word": "king"}), ("diagram hs factors title", {})],
        "glove": [("diagram glove title", {}), ("diagram glove loss", {}), ("diagram glove zeros", {}),
                  ("diagram glove weighting", {"x_max": 10.0, "alpha": 0.75})],
        "bilm": [("diagram bilm char cnn", {"filters": elmo.num_filters, "widths": "1, 2, 3, 4, 5"}),
                 ("diagram bilm highway", {"layers": 2, "size": elmo.num_filters}),
                 ("diagram bilm projection", {"dim": elmo.projection_dim}),
                 ("diagram bilm lstm layer", {"j": 1, "cells": elmo.lstm_dim, "dim": elmo.projection_dim}),
                 ("diagram bilm predicts next", {"word": "bank"}),
                 ("diagram bilm predicts previous", {"word": "the"})],
        "scalar mix": [("diagram mix title", {}), ("diagram mix gamma", {"gamma": 1.0})],
        "transformer block": [("diagram block attention", {"heads": transformer.heads, "dk": transformer.head_dim}),
                              ("diagram block ffn", {"dim": transformer.dim, "ff": transformer.ff_dim}),
                              ("diagram block repeat", {"layers": transformer.layers}),
                              ("diagram mask causal", {}), ("diagram mask padding", {})],
        "bert masking": [("diagram bert chosen", {"share": 0.15}), ("diagram bert masked", {"share": 0.8}),
                         ("diagram bert random", {"share": 0.1}), ("diagram bert kept", {"share": 0.1})],
        "ulmfit": [("diagram ulmfit stage 1", {}), ("diagram ulmfit stage 2", {}), ("diagram ulmfit stage 3", {}),
                   ("diagram ulmfit unfreezing", {})],
    }
    return common[name]


NAMES = ["skipgram", "cbow", "hierarchical softmax", "glove", "bilm", "scalar mix", "transformer block",
         "bert masking", "ulmfit"]


@pytest.mark.parametrize("edition", ["en", "zh"])
@pytest.mark.parametrize("name", NAMES)
def test_each_diagram_draws_its_labels_in_the_edition_inside_the_figure(name, edition, tree):
    use_edition(edition)
    try:
        figure = draw(name, tree)
        shown = strings(figure)
        for key, values in expected_labels(name):
            assert label(key, **values) in shown, (key, shown)
        # every diagram key the figure shows is in the edition's words: Chinese text in the zh edition
        diagram_keys = [key for key in CATALOGUE if key.startswith("diagram ")]
        english = {text(key, "en").format(**_ones(key)) for key in diagram_keys if CATALOGUE[key]["en"] !=
                   CATALOGUE[key]["zh"]}
        if edition == "zh":
            assert sum(bool(CJK.search(s)) for s in shown) >= 3, shown
            assert not english & set(shown), english & set(shown)
        else:
            assert not any(CJK.search(s) for s in shown), [s for s in shown if CJK.search(s)]
        # no text leaves the figure
        renderer = figure.canvas.get_renderer()
        frame = figure.bbox
        for artist in texts(figure):
            extent = artist.get_window_extent(renderer)
            assert (extent.x0 >= frame.x0 - 1 and extent.y0 >= frame.y0 - 1 and extent.x1 <= frame.x1 + 1
                    and extent.y1 <= frame.y1 + 1), (artist.get_text(), extent, frame)
        # every box's label inside its box
        patches = {patch.get_gid(): patch for ax in figure.axes for patch in ax.patches if patch.get_gid()}
        boxed = 0
        for artist in texts(figure):
            gid = artist.get_gid() or ""
            if gid.endswith(":label"):
                outline = patches[gid.removesuffix(":label")].get_window_extent(renderer)
                extent = artist.get_window_extent(renderer)
                assert (extent.x0 >= outline.x0 - 0.5 and extent.x1 <= outline.x1 + 0.5
                        and extent.y0 >= outline.y0 - 0.5 and extent.y1 <= outline.y1 + 0.5), artist.get_text()
                boxed += 1
        assert boxed >= 2 or name == "glove"
    finally:
        plt.close("all")
        use_edition("en")


def _ones(key):
    return dict.fromkeys((field for _, field, _, _ in string.Formatter().parse(CATALOGUE[key]["en"]) if field), 1)


def touched(figure, table):
    """The words whose rows of ``table`` ("input" or "output") the diagram colours, by colour."""
    rows = {}
    for patch in figure.axes[0].patches:
        gid = patch.get_gid() or ""
        if gid.startswith(f"{table}:"):
            colour = matplotlib.colors.to_hex(patch.get_edgecolor())
            if colour != matplotlib.colors.to_hex(diagrams.GREY):
                rows.setdefault(colour, set()).add(gid.split(":")[2])
    return rows


def test_a_skipgram_pair_touches_one_input_row_and_the_context_and_noise_output_rows():
    use_edition("en")
    figure = diagrams.skipgram_diagram()
    blue, green, orange = (matplotlib.colors.to_hex(c) for c in (diagrams.BLUE, diagrams.GREEN, diagrams.ORANGE))
    assert touched(figure, "input") == {blue: {"orange"}}
    assert touched(figure, "output") == {green: {"juice"}, orange: set(diagrams.NOISE)}
    plt.close("all")


def test_a_cbow_window_touches_the_context_rows_and_the_centre_words_output_row():
    use_edition("en")
    figure = diagrams.cbow_diagram()
    blue, green, orange = (matplotlib.colors.to_hex(c) for c in (diagrams.BLUE, diagrams.GREEN, diagrams.ORANGE))
    centre = diagrams.SENTENCE.index("orange")
    window = {diagrams.SENTENCE[i] for i in (centre - 2, centre - 1, centre + 1, centre + 2)}
    assert window == {"glass", "of", "juice", "to"}
    assert touched(figure, "input") == {blue: window}
    assert touched(figure, "output") == {green: {"orange"}, orange: set(diagrams.NOISE)}
    plt.close("all")


def test_the_hierarchical_softmax_path_has_one_sigmoid_per_bit_of_the_code(tree):
    use_edition("en")
    huffman, words = tree
    for word in ("the", "king", "physics"):
        figure = diagrams.hierarchical_softmax_diagram(huffman, words, word)
        code = huffman.code_of(words.index(word))
        factors = [s for s in strings(figure) if s.startswith("step ")]
        assert len(factors) == len(code), (word, factors)
        for factor, bit in zip(factors, code, strict=True):
            assert f"bit {bit}" in factor and ("\\sigma(+" if bit == "0" else "\\sigma(-") in factor, factor
        assert label("diagram hs product", word=word, length=len(code)) in strings(figure)
        plt.close("all")
    with pytest.raises(ValueError, match="not a word with a code"):
        diagrams.hierarchical_softmax_diagram(huffman, words, "banana")


def test_the_masks_are_drawn_as_the_model_applies_them():
    use_edition("en")
    figure = diagrams.transformer_block_diagram()
    cells = {patch.get_gid(): matplotlib.colors.to_hex(patch.get_facecolor()) != "#ffffff"
             for patch in figure.axes[0].patches if (patch.get_gid() or "").startswith("mask-")}
    tokens = ["<bos>", "a", "cat", "<eos>", "<pad>"]

    def drawn(name):
        return np.array([[cells[f"mask-{name}:{i},{j}"] for j in range(len(tokens))] for i in range(len(tokens))])

    lower = np.tril(np.ones((5, 5), dtype=bool))         # query t may look at keys s <= t
    real = np.array([token != "<pad>" for token in tokens])
    np.testing.assert_array_equal(drawn("causal"), lower)
    np.testing.assert_array_equal(drawn("padding"), np.broadcast_to(real, (5, 5)))
    np.testing.assert_array_equal(drawn("gpt"), lower & real[None, :])
    np.testing.assert_array_equal(drawn("bert"), np.broadcast_to(real, (5, 5)))
    plt.close("all")


def test_the_scalar_mix_shows_the_softmax_of_its_weights_and_refuses_a_bad_shape():
    use_edition("en")
    weights = [0.0, 1.0, 2.0]
    shares = np.exp(weights) / np.exp(weights).sum()
    shown = strings(diagrams.scalar_mix_diagram(weights, gamma=0.5))
    for j, share in enumerate(shares):
        assert f"$s_{j}$ = {share:.2f}" in shown
    assert label("diagram mix gamma", gamma=0.5) in shown
    assert any("$h_{k,2}$" in s for s in shown)
    with pytest.raises(ValueError, match="one weight per layer"):
        diagrams.scalar_mix_diagram(np.zeros((2, 3)))
    plt.close("all")


def test_the_sizes_follow_the_preset():
    use_edition("en")
    gpu = elmo_preset("gpu")
    shown = " ".join(strings(diagrams.bilm_diagram("gpu")))
    assert f"{gpu.num_filters} filters" in shown and f"{gpu.lstm_dim} cells" in shown and "d = 256" in shown
    big = transformer_preset("gpu")
    shown = " ".join(strings(diagrams.transformer_block_diagram("gpu")))
    assert f"{big.heads} heads of d_k = {big.head_dim}" in shown and f"{big.dim} → {big.ff_dim}" in shown
    plt.close("all")


def test_a_diagram_draws_on_a_given_axes():
    use_edition("en")
    figure, ax = plt.subplots(figsize=(11, 5))
    assert diagrams.bert_masking_diagram(ax=ax) is figure
    assert ax.get_xlim() == (0.0, 11.0) and not ax.axison
    plt.close("all")
