"""The interactive word maps (course.figures.maps): what the Bokeh document holds, the page it makes, and its
refusals."""

import errno
import re
from pathlib import Path

import numpy as np
import pytest

from course.core.edition import text
from course.core.errors import OutputFileError
from course.figures.maps import GRID, linked_maps, nearest_neighbours, rank_bands, word_map


def brute_force_neighbours(vectors, k):
    # Every pair's cosine, one at a time, sorted by (cosine descending, index): the reference ranking.
    n = len(vectors)
    rows = []
    for i in range(n):
        scored = []
        for j in range(n):
            if j != i:
                a, b = vectors[i], vectors[j]
                scored.append((-float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b))), j))
        rows.append(sorted(scored)[:k])
    return (np.array([[j for _, j in row] for row in rows]), np.array([[-s for s, _ in row] for row in rows]))


def small_map(n=30, d=8, seed=0, **kwargs):
    rng = np.random.default_rng(seed)
    vectors = rng.normal(size=(n, d))
    words = [f"w{i}" for i in range(n)]
    return vectors, words, word_map(vectors, words, points=rng.normal(size=(n, 2)), **kwargs)


def source_of(layout):
    from bokeh.models import ColumnDataSource

    sources = [model for model in layout.references() if isinstance(model, ColumnDataSource) and model.name == "words"]
    assert len(sources) == 1
    return sources[0]


def test_nearest_neighbours_match_a_brute_force_cosine_ranking():
    vectors = np.random.default_rng(3).normal(size=(40, 6)) * np.random.default_rng(4).lognormal(size=(40, 1))
    indices, similarities = nearest_neighbours(vectors, 5, block=7)     # blocks that do not divide 40
    expected_indices, expected_similarities = brute_force_neighbours(vectors, 5)
    np.testing.assert_array_equal(indices, expected_indices)
    np.testing.assert_allclose(similarities, expected_similarities, rtol=1e-12, atol=1e-12)
    assert not (indices == np.arange(40)[:, None]).any()


def test_nearest_neighbours_of_every_other_point_and_of_a_zero_vector():
    vectors = np.array([[1.0, 0.0], [0.0, 0.0], [1.0, 1.0], [-1.0, 0.2]])
    indices, similarities = nearest_neighbours(vectors, k=10)             # asks more than there are: n - 1
    assert indices.shape == (4, 3)
    assert indices[0].tolist() == [2, 1, 3]                             # cos 0.71, 0 (the zero row), -0.98
    np.testing.assert_allclose(similarities[1], [0.0, 0.0, 0.0])
    assert indices[1].tolist() == [0, 2, 3]                             # all ties: by index


def test_the_document_holds_the_hover_fields_and_the_neighbours_computed():
    vectors, words, wordmap = small_map(counts=np.arange(30, 0, -1), neighbours=4)
    layout = wordmap.layout()
    data = source_of(layout).data
    assert data["label"] == words
    assert list(data["count"]) == list(range(30, 0, -1))
    expected_indices, expected_similarities = brute_force_neighbours(vectors, 4)
    stored = np.stack([data[f"n0_{j}"] for j in range(4)], axis=1)
    np.testing.assert_array_equal(stored, expected_indices)
    stored_similarities = np.stack([data[f"s0_{j}"] for j in range(4)], axis=1) / 100
    np.testing.assert_allclose(stored_similarities, expected_similarities, atol=0.005 + 1e-9)
    assert {f"n0_{j}" for j in range(5, 9)}.isdisjoint(data)
    from bokeh.models import HoverTool

    hovers = [model for model in layout.references() if isinstance(model, HoverTool)]
    assert len(hovers) == 1
    fields = {field for _, template in hovers[0].tooltips for field in re.findall(r"@\{?(\w+)\}?", template)}
    assert fields == {"label", "count", "n0_0", "n0_1", "n0_2", "n0_3"} and fields <= set(data)
    assert [name for name, _ in hovers[0].tooltips] == [text("maps word"), text("maps count"),
                                                        text("maps neighbours", k=4), "", "", ""]
    assert hovers[0].limit == 1  # one word per tooltip, however crowded the points
    cosines = {key: formatter.args["cosine"] for key, formatter in hovers[0].formatters.items()}
    assert cosines == {f"@{{n0_{j}}}": f"s0_{j}" for j in range(4)}  # each neighbour's row shows its own cosine


def test_points_are_rounded_onto_the_grid_keeping_their_shape():
    points = np.array([[0.0, 0.0], [2.0, 1.0], [1.0, 0.5], [2.0, 0.0]])
    wordmap = word_map(np.eye(4), list("abcd"), points=points)
    data = source_of(wordmap.layout()).data
    assert data["x0"].dtype == np.int16
    np.testing.assert_array_equal(np.stack([data["x0"], data["y0"]], axis=1), points * GRID / 2)


def test_colour_categories_become_codes_with_a_legend_in_order_of_first_appearance():
    from bokeh.models import Legend

    colours = ["noun", "verb", "noun", "adj"] * 5
    _, _, wordmap = small_map(n=20, colour_by=colours, colour_title="POS")
    layout = wordmap.layout()
    data = source_of(layout).data
    np.testing.assert_array_equal(data["c0"], [{"noun": 0, "verb": 1, "adj": 2}[c] for c in colours])
    legends = [model for model in layout.references() if isinstance(model, Legend)]
    assert len(legends) == 1 and legends[0].title == "POS"
    assert [item.label.value for item in legends[0].items] == ["noun", "verb", "adj"]
    assert [item.index for item in legends[0].items] == [0, 1, 3]
    _, _, plain = small_map(n=20)
    assert "c0" not in source_of(plain.layout()).data
    assert not [model for model in plain.layout().references() if isinstance(model, Legend)]


def test_rank_bands_by_frequency_in_both_editions():
    counts = [5, 50, 7, 1, 9, 3]                                  # ranks: 4, 1, 3, 6, 2, 5
    assert rank_bands(counts, (2, 4), ) == [text("maps rank band", low="3", high="4"),
                                           text("maps rank band", low="1", high="2"),
                                           text("maps rank band", low="3", high="4"),
                                           text("maps rank band", low="5", high="6"),
                                           text("maps rank band", low="1", high="2"),
                                           text("maps rank band", low="5", high="6")]
    assert rank_bands(np.arange(1500, 0, -1), (100, 1000, 5000))[-1] == "ranks 1,001–1,500"
    assert set(rank_bands(np.arange(1500, 0, -1), (100,), )) == {"ranks 1–100", "ranks 101–1,500"}
    assert rank_bands([3, 2], edition_check := ()) == ["ranks 1–2", "ranks 1–2"] and edition_check == ()


def test_labels_follow_the_edition():
    from course.core.edition import use_edition

    try:
        use_edition("zh")
        assert rank_bands([2, 1], (1,)) == ["排名 1–1", "排名 2–2"]
        _, _, wordmap = small_map(n=5)
        from bokeh.models import TextInput

        search = [model for model in wordmap.layout().references() if isinstance(model, TextInput)]
        assert [(model.title, model.placeholder) for model in search] == [("查找一个词", "输入一个词")]
        assert "<title>词图</title>" in wordmap.html()
    finally:
        use_edition("en")


def test_linked_maps_share_one_source_and_one_selection():
    from bokeh.models import CustomJS, HoverTool

    rng = np.random.default_rng(1)
    vectors = rng.normal(size=(25, 6))
    words = [f"w{i}" for i in range(25)]
    maps = [word_map(vectors @ rng.normal(size=(6, 6)), words, points=rng.normal(size=(25, 2)), title=f"model {m}")
            for m in range(3)]
    linked = linked_maps(maps, columns=2, title="three models")
    layout = linked.layout()
    source = source_of(layout)
    from bokeh.models import GlyphRenderer

    point_renderers = [r for r in layout.references() if isinstance(r, GlyphRenderer) and r.data_source is source]
    assert len(point_renderers) == 3                              # every map draws from the one source
    assert {r.glyph.x for r in point_renderers} == {"x0", "x1", "x2"}
    for m, wordmap in enumerate(maps):                            # each map keeps its own neighbours
        stored = np.stack([source.data[f"n{m}_{j}"] for j in range(5)], axis=1)
        np.testing.assert_array_equal(stored, wordmap.panels[0].neighbours)
    hovers = [model for model in layout.references() if isinstance(model, HoverTool)]
    assert sorted(h.tooltips[-1][1] for h in hovers) == ["@{n0_4}{custom}", "@{n1_4}{custom}", "@{n2_4}{custom}"]
    on_select = source.selected.js_property_callbacks["change:indices"]
    assert len(on_select) == 1 and isinstance(on_select[0], CustomJS)
    assert len(on_select[0].args["halos"]) == 3                   # the selection rings neighbours in every map
    assert "source.selected.indices = hits" in "".join(c.code for c in layout.references() if isinstance(c, CustomJS))


def test_linked_maps_refuse_other_labels():
    _, words, first = small_map(n=10)
    _, _, second = small_map(n=11)
    with pytest.raises(ValueError, match="map 2 has other labels than map 1"):
        linked_maps([first, second])
    with pytest.raises(ValueError, match="at least one map"):
        linked_maps([])


def test_the_page_fetches_nothing_and_stays_under_two_megabytes():
    rng = np.random.default_rng(2)
    n = 5000
    vectors = rng.normal(size=(n, 50)).astype(np.float32)
    counts = np.sort(rng.integers(5, 10_000, n))[::-1]
    words = [f"word{i}" for i in range(n)]
    wordmap = word_map(vectors, words, counts=counts, colour_by=rank_bands(counts, (100, 1000)),
                       points=rng.normal(size=(n, 2)), title="5,000 words")
    shown = wordmap._repr_html_()
    assert shown.startswith("<iframe srcdoc='") and len(shown.encode()) < 2_000_000
    page = wordmap.html()
    tags = re.findall(r"<(?:script|link|img|iframe)\b[^>]*>", page)
    assert tags and not [tag for tag in tags if re.search(r"(?:src|href)\s*=\s*[\"']?\s*(?:https?:)?//", tag)]
    assert "Bokeh.embed.embed_items" in page and "word4999" in page
    assert "'" not in shown[len("<iframe srcdoc='"):shown.index("' style=")]   # the srcdoc is one attribute


def test_refusals():
    vectors = np.ones((3, 4))
    with pytest.raises(ValueError, match="at least 2 points"):
        word_map(vectors[:1], ["a"])
    with pytest.raises(ValueError, match="3 vectors for 2 words"):
        word_map(vectors, ["a", "b"])
    with pytest.raises(ValueError, match="2 colour_by for 3 words"):
        word_map(vectors, ["a", "b", "c"], colour_by=["x", "y"], points=np.zeros((3, 2)))
    with pytest.raises(ValueError, match="2 counts for 3 words"):
        word_map(vectors, ["a", "b", "c"], counts=[1, 2], points=np.zeros((3, 2)))
    with pytest.raises(ValueError, match=r"points must be an \(3, 2\) array"):
        word_map(vectors, ["a", "b", "c"], points=np.zeros((3, 3)))
    with pytest.raises(ValueError, match="NaN or infinite"):
        word_map(vectors * np.nan, ["a", "b", "c"], points=np.zeros((3, 2)))
    with pytest.raises(ValueError, match=r"\(n, d\) array"):
        word_map(np.ones(3), ["a", "b", "c"])


def test_save_writes_the_page_whole_or_not_at_all(tmp_path, monkeypatch):
    _, _, wordmap = small_map(n=12, title="twelve")
    path = wordmap.save(tmp_path / "maps" / "twelve.html")
    page = path.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and "twelve" in page and "w11" in page
    assert [p.name for p in path.parent.iterdir()] == ["twelve.html"]

    def disk_fills_up(self, data, *args, **kwargs):     # half the page written, then the disk is full
        with open(self, "w", encoding="utf-8") as handle:
            handle.write(data[: len(data) // 2])
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(Path, "write_text", disk_fills_up)
    with pytest.raises(OutputFileError, match="the disk is full"):
        wordmap.save(tmp_path / "maps" / "other.html")
    assert [p.name for p in path.parent.iterdir()] == ["twelve.html"]   # no half page, no temporary file
    monkeypatch.undo()
    with pytest.raises(OutputFileError, match="is a folder"):
        wordmap.save(tmp_path / "maps")


def test_a_small_map_by_t_sne_is_repeatable():
    vectors = np.random.default_rng(5).normal(size=(40, 10))
    words = [f"w{i}" for i in range(40)]
    first = word_map(vectors, words, seed=3, perplexity=5)
    second = word_map(vectors, words, seed=3, perplexity=5)
    np.testing.assert_allclose(first.panels[0].points, second.panels[0].points)
    assert first.panels[0].points.shape == (40, 2) and np.isfinite(first.panels[0].points).all()
    # t-SNE keeps near neighbours near: each point's nearest neighbour in the full space is closer on the map
    # than the median point is.
    points = first.panels[0].points
    nearest = first.panels[0].neighbours[:, 0]
    distance = np.linalg.norm(points[:, None] - points[None], axis=2)
    assert np.mean(distance[np.arange(40), nearest] < np.median(distance, axis=1)) > 0.8


def test_category_summary_and_neighbour_overlap_count_what_they_say():
    from course.figures.maps import category_summary, neighbour_overlap

    vectors = np.array([[1.0, 0.0], [0.9, 0.1], [0.0, 1.0], [0.1, 0.9], [-1.0, 0.1]])
    words = list("abcde")
    first = word_map(vectors, words, points=np.zeros((5, 2)) + np.arange(5)[:, None], neighbours=1)
    # nearest neighbours: a-b, b-a, c-d, d-c, and e-c (cosine 0.10; e with d: -0.01)
    assert first.panels[0].neighbours[:, 0].tolist() == [1, 0, 3, 2, 2]
    rows = category_summary(first, ["x", "x", "y", "y", "x"])
    assert [(name, size) for name, size, _, _ in rows] == [("x", 3), ("y", 2)]
    np.testing.assert_allclose(rows[0][3], 2 / 3)                # e's neighbour c is a "y"
    np.testing.assert_allclose(rows[1][3], 1.0)
    np.testing.assert_allclose(rows[1][2], np.mean(first.panels[0].similarities[[2, 3], 0]))
    second = word_map(vectors[:, ::-1], words, points=np.zeros((5, 2)), neighbours=1)
    expected = np.mean(first.panels[0].neighbours[:, 0] == second.panels[0].neighbours[:, 0])
    assert neighbour_overlap(first, second) == pytest.approx(expected)
    assert neighbour_overlap(first, first) == 1.0
    with pytest.raises(ValueError, match="one per point"):
        category_summary(first, ["x"])
    with pytest.raises(ValueError, match="keep 1 and 4 neighbours"):
        neighbour_overlap(first, word_map(vectors, words, points=np.zeros((5, 2))))
