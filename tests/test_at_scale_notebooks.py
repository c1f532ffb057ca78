"""The at-scale sections of notebooks 05, 07 and 08, run (smoke profile) with stand-ins in the course's
cache where the published models would be: allennlp's tiny ELMo as ``small``, small word2vec vectors of
wiki-en as GloVe 6B and GoogleNews, and of People's Daily as fastText's Chinese vectors. Never the network."""

from pathlib import Path

import nbformat
import papermill
import pytest
from gensim.models import Word2Vec

from course.analysis.vectors import save_vectors
from course.elmo.bilm_tf import convert
from course.text.corpus import load_corpus

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"
FIXTURES = Path(__file__).parent / "fixtures" / "elmo"


@pytest.fixture(scope="module")
def stand_ins(tmp_path_factory, wiki):
    cache = tmp_path_factory.mktemp("cache")
    folder = cache / "pretrained"
    folder.mkdir()
    convert(FIXTURES / "options.json", FIXTURES / "lm_weights.hdf5", name="elmo-small").save(folder / "small.pt")
    english = Word2Vec(list(wiki.head(6_000)), vector_size=30, min_count=3, workers=1, epochs=2, seed=3).wv
    for name in ("glove-6b-100", "word2vec-google-news"):
        save_vectors(english, folder / f"{name}.bin", binary=True)
    daily = load_corpus("peoples-daily-zh", progress=False)
    chinese = Word2Vec(list(daily.head(6_000)), vector_size=30, min_count=3, workers=1, epochs=2, seed=3).wv
    save_vectors(chinese, folder / "fasttext-zh.bin", binary=True)
    return cache


def run(notebook: str, out: Path, cache: Path | None, monkeypatch, until: str | None = None) -> dict[str, str]:
    """Execute a notebook in the smoke profile (up to the cell ``until``, where given); the text each cell
    printed, by cell id."""
    monkeypatch.setenv("COURSE_PROFILE", "smoke")
    monkeypatch.delenv("COURSE_AT_SCALE_ELMO", raising=False)
    if cache is not None:
        monkeypatch.setenv("COURSE_CACHE", str(cache))
    else:
        monkeypatch.setenv("COURSE_CACHE", str(out.parent / "empty-cache"))
    source = NOTEBOOKS / notebook
    if until is not None:
        whole = nbformat.read(source, as_version=4)
        whole.cells = whole.cells[: [cell.get("id") for cell in whole.cells].index(until) + 1]
        source = out.with_name(f"first-{notebook}")
        nbformat.write(whole, source)
    papermill.execute_notebook(str(source), str(out), parameters={"PROFILE": "smoke", "EDITION": "en"},
                               cwd=str(NOTEBOOKS), kernel_name="python3", progress_bar=False)
    printed = {}
    for cell in nbformat.read(out, as_version=4).cells:
        if cell.cell_type == "code":
            parts = []
            for output in cell.get("outputs", []):
                parts.append(output.get("text", ""))
                parts.append(str(output.get("data", {}).get("text/markdown", "")))
                parts.append(str(output.get("data", {}).get("text/plain", "")))
            printed[cell.get("id")] = "\n".join(parts)
    return printed


def test_notebook_05_scores_the_stand_ins_beside_the_course_vectors(stand_ins, tmp_path, monkeypatch):
    printed = run("05_comparing_static_vectors.ipynb", tmp_path / "05.ipynb", stand_ins, monkeypatch)
    english, chinese = printed["at-scale-english"], printed["at-scale-chinese"]
    for name in ("glove-6b-100", "word2vec-google-news", "our skip-gram", "gensim skip-gram"):
        assert name in english, english
    assert "get glove-6b-100" not in english and "get glove-6b-300" in english  # the one stand-in not given
    assert "questions wiki-en supports" in english
    assert "fasttext-zh" in chinese and "our skip-gram" in chinese and "CA8 morphological" in chinese


def test_notebooks_07_and_08_probe_the_published_elmo_beside_the_course_bilm(stand_ins, tmp_path, monkeypatch):
    # COURSE_ELMO_EN names the converted model too: it is then also the notebooks' own English biLM
    monkeypatch.setenv("COURSE_ELMO_EN", str(stand_ins / "pretrained" / "small.pt"))
    printed = run("07_polysemy.ipynb", tmp_path / "07.ipynb", stand_ins, monkeypatch)
    seven = printed["at-scale-elmo"]
    assert "ELMo small" in seven and "the course's biLM (wiki-en)" in seven
    assert "bag of context (GloVe 6B)" in seven and "bag of context (skip-gram, wiki-en)" in seven
    assert "The top layer of the published ELMo small" in seven
    assert "preset='elmo-small'" in printed["4"]  # the models cell: the converted model stands in for the biLM
    eight = run("08_what_each_layer_knows.ipynb", tmp_path / "08.ipynb", stand_ins, monkeypatch)["at-scale-layers"]
    assert "ELMo small, dev" in eight and "ELMo small untrained, test" in eight
    assert "the English sense probe of ELMo small peaks at layer" in eight and "ScalarMix" in eight


def test_notebook_11_keeps_the_courses_bilm_where_course_elmo_en_names_one_without_softmax(stand_ins, tmp_path,
                                                                                          monkeypatch):
    monkeypatch.setenv("COURSE_ELMO_EN", str(stand_ins / "pretrained" / "small.pt"))
    printed = run("11_transformers.ipynb", tmp_path / "11.ipynb", stand_ins, monkeypatch, until="4")
    assert "has no softmax (a published ELMo, converted)" in printed["4"]


def test_without_a_published_elmo_one_line_says_how_to_fetch_it(tmp_path, monkeypatch, capsys):
    from course.shared.at_scale import elmo_at_scale, vectors_at_scale

    monkeypatch.setenv("COURSE_CACHE", str(tmp_path / "empty"))
    monkeypatch.delenv("COURSE_AT_SCALE_ELMO", raising=False)
    assert elmo_at_scale() is None and vectors_at_scale("zh") == {} and vectors_at_scale("en") == {}
    assert capsys.readouterr().out.splitlines() == [
        "not measured: run `python -m course pretrained get small` (13.6M weights, about 55 MB)",
        "not measured: run `python -m course pretrained get fasttext-zh` (2 million words x 300, about 1.3 GB; read "
        "until the first 200,000 words)",
        "not measured: run `python -m course pretrained get glove-6b-100` (400,000 words x 100, 128 MB download)",
        "not measured: run `python -m course pretrained get glove-6b-300` (400,000 words x 300, 376 MB download)",
        "not measured: run `python -m course pretrained get word2vec-google-news` (3 million words x 300, 1.66 GB "
        "download; the first 1,000,000 kept)"]
    monkeypatch.setenv("COURSE_AT_SCALE_ELMO", "nonsense")
    with pytest.raises(Exception, match="COURSE_AT_SCALE_ELMO=nonsense names neither"):
        elmo_at_scale()
