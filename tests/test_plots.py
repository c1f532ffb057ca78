import warnings

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from course.figures import plots  # noqa: E402


def test_chinese_labels_render_without_missing_glyphs(tmp_path):
    assert plots.setup_cjk_font() is not None
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # matplotlib warns "Glyph ... missing from font(s)"
        ax = plots.heatmap(np.eye(2), ["包袱", "银行"])
        ax.figure.savefig(tmp_path / "heat.png")
    plt.close("all")


def test_missing_cjk_font_warns_clearly(monkeypatch):
    from matplotlib import font_manager

    monkeypatch.setitem(__import__("sys").modules, "mplfonts", None)
    monkeypatch.setattr(font_manager.fontManager, "ttflist", [])
    with pytest.warns(plots.CJKFontWarning, match="No CJK font found"):
        assert plots.setup_cjk_font.__wrapped__() is None


def test_zipf_fit_recovers_the_exponent():
    ranks = np.arange(1, 20_001)
    counts = np.round(1e6 * ranks ** -1.1)
    slope, _ = plots.zipf_fit(counts, 10, 1000)
    assert slope == pytest.approx(-1.1, abs=0.01)


def test_plot_helpers_draw(wiki_vectors):
    plots.zipf_plot(np.array([100, 50, 33, 25, 20] * 10))
    plots.training_curve(np.linspace(3, 1, 50), smooth=5)
    words = wiki_vectors.index_to_key[:40]
    ax = plots.tsne_plot(wiki_vectors, words, highlight=words[:3])
    assert len(ax.texts) == 40
    plt.close("all")


def test_highlighted_words_are_always_labelled():
    points = np.random.default_rng(0).normal(size=(10, 2))
    words = [f"w{i}" for i in range(10)]
    ax = plots.scatter_words(points, words, highlight=["w9"], max_labels=3)
    assert sorted(t.get_text() for t in ax.texts) == ["w0", "w1", "w2", "w9"]
    plt.close("all")


def test_huffman_tree_plot_draws_every_node_and_edge_and_the_highlighted_path():
    from course.text.vocab import Vocabulary

    vocab = Vocabulary(["<unk>", "the", "of", "war", "king", "violin"], [0, 500, 300, 40, 20, 5], specials=("<unk>",))
    tree = vocab.huffman()
    ax = plots.huffman_tree_plot(tree, vocab.words, highlight="king")
    words = [t.get_text() for t in ax.texts if t.get_bbox_patch() is None]     # leaves and inner nodes
    bits = [t.get_text() for t in ax.texts if t.get_bbox_patch() is not None]  # edge labels
    assert sorted(words) == sorted(vocab.words[1:] + [str(node) for node in range(tree.num_inner_nodes)])
    assert bits.count("0") == bits.count("1") == tree.num_inner_nodes == len(bits) / 2
    red_edges = [line for line in ax.lines if line.get_color() == "tab:red"]
    assert len(red_edges) == tree.lengths[vocab["king"]] == len(tree.code_of(vocab["king"]))
    with pytest.raises(ValueError, match="not a word with a code"):
        plots.huffman_tree_plot(tree, vocab.words, highlight="<unk>")
    plt.close("all")


def test_analogy_arrows_draw_one_arrow_per_pair_and_name_missing_words():
    from course.analysis.vectors import keyed_vectors

    rng = np.random.default_rng(0)
    words = ["man", "woman", "king", "queen", "paris", "france"]
    kv = keyed_vectors(words, rng.normal(size=(len(words), 8)).astype(np.float32))
    pairs = [("man", "woman"), ("king", "queen"), ("paris", "france")]
    ax = plots.analogy_arrows(kv, pairs, title="pairs")
    arrows = [text for text in ax.texts if getattr(text, "arrow_patch", None) is not None]
    assert len(arrows) == 3
    assert sorted(text.get_text().strip() for text in ax.texts if text not in arrows) == sorted(words)
    with pytest.raises(ValueError, match="'moscow'"):
        plots.analogy_arrows(kv, [("moscow", "russia")])
    plt.close("all")


def test_tsne_keeps_clusters_apart():
    rng = np.random.default_rng(0)
    centres = rng.normal(size=(3, 50)) * 5
    vectors = np.concatenate([centre + rng.normal(size=(20, 50)) for centre in centres])
    labels = np.repeat(np.arange(3), 20)
    points = plots.tsne(vectors, seed=0)
    assert points.shape == (60, 2) and len(vectors) <= plots.EXACT_TSNE_POINTS
    distances = np.linalg.norm(points[:, None] - points[None], axis=-1) + np.eye(60) * 1e9
    assert (labels[distances.argmin(axis=1)] == labels).all()
