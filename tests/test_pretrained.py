"""``pretrained get`` end to end against a real HTTP server on 127.0.0.1 laid out as the publishers'
storage (``COURSE_PRETRAINED_MIRROR``): allennlp's tiny ELMo standing in for ``small``, small vectors for
GloVe (through gensim's own downloader) and for fastText's Chinese file. Never the network."""

import gzip
import hashlib
import http.server
import json
import shutil
import threading
from functools import partial
from pathlib import Path

import h5py
import numpy as np
import pytest
from conftest import assert_one_line_error
from conftest import run_course as run

from course.analysis.vectors import load_vectors
from course.elmo import Elmo

FIXTURES = Path(__file__).parent / "fixtures" / "elmo"
SMALL = "2x1024_128_2048cnn_1xhighway"


class RangeHandler(http.server.SimpleHTTPRequestHandler):
    """Serves a folder, answers ``Range: bytes=N-`` with 206, records each request, and cuts the
    transfer of a file named in ``cut`` after half its bytes, once."""

    requests: list[tuple[str, str, str | None]] = []
    cut: set[str] = set()

    def log_message(self, *args):
        pass

    def do_HEAD(self):
        RangeHandler.requests.append(("HEAD", self.path, None))
        super().do_HEAD()

    def do_GET(self):
        asked = self.headers.get("Range")
        RangeHandler.requests.append(("GET", self.path, asked))
        path = Path(self.translate_path(self.path))
        if not path.is_file():
            return super().do_GET()
        data = path.read_bytes()
        start = int(asked.removeprefix("bytes=").rstrip("-")) if asked else 0
        if asked:
            self.send_response(206)
            self.send_header("Content-Range", f"bytes {start}-{len(data) - 1}/{len(data)}")
        else:
            self.send_response(200)
        self.send_header("Content-Length", str(len(data) - start))
        self.end_headers()
        if self.path in RangeHandler.cut:
            RangeHandler.cut.discard(self.path)
            self.wfile.write(data[start: start + (len(data) - start) // 2])
            self.wfile.flush()
            self.close_connection = True
            return
        self.wfile.write(data[start:])


@pytest.fixture
def mirror(tmp_path, monkeypatch):
    """A local server laid out as the publishers' storage; ``(folder, url)``, and the course's cache
    and the mirror variable pointed at the test's own folders."""
    root = tmp_path / "www"
    root.mkdir()
    RangeHandler.requests.clear()
    RangeHandler.cut.clear()
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), partial(RangeHandler, directory=str(root)))
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{httpd.server_address[1]}"
    monkeypatch.setenv("COURSE_PRETRAINED_MIRROR", url)
    monkeypatch.setenv("COURSE_CACHE", str(tmp_path / "cache"))
    yield root, url
    httpd.shutdown()
    httpd.server_close()


def publish_tiny_elmo_as_small(root: Path) -> Path:
    folder = root / "allennlp" / "models" / "elmo" / SMALL
    folder.mkdir(parents=True)
    shutil.copy(FIXTURES / "options.json", folder / f"elmo_{SMALL}_options.json")
    shutil.copy(FIXTURES / "lm_weights.hdf5", folder / f"elmo_{SMALL}_weights.hdf5")
    return folder


def test_pretrained_list_shows_size_corpus_and_licence(mirror):
    result = run("pretrained", "list", "--json")
    assert result.returncode == 0, result.stderr
    rows = {row["name"]: row for row in json.loads(result.stdout)}
    assert {"small", "medium", "original", "glove-6b-100", "word2vec-google-news", "fasttext-zh"} <= set(rows)
    assert all(row["size"] and row["corpus"] and row["licence"] and row["path"] is None for row in rows.values())
    assert "1 Billion Word" in rows["small"]["corpus"] and rows["fasttext-zh"]["language"] == "zh"


def test_get_small_downloads_converts_and_embeds_as_bilm_tf(mirror, tmp_path):
    root, _ = mirror
    publish_tiny_elmo_as_small(root)
    result = run("pretrained", "get", "small", "--quiet")
    assert result.returncode == 0, result.stderr
    path = tmp_path / "cache" / "pretrained" / "small.pt"
    assert f"small: {path}" in result.stderr
    model = Elmo.load(path, device="cpu")
    assert model.config.preset == "elmo-small" and model.config.cell_clip == 3
    sentences = json.loads((FIXTURES / "sentences.json").read_text())[0]
    got = model.embed([sentences[0].split()])[0]
    with h5py.File(FIXTURES / "lm_embeddings_0.hdf5", "r") as handle:
        expected = np.concatenate([handle["0"][0], handle["0"][1]], axis=-1)
    np.testing.assert_allclose(got[2], expected, atol=1e-5, rtol=0)
    gets = [r for r in RangeHandler.requests if r[0] == "GET"]
    again = run("pretrained", "get", "small", "--quiet")
    assert again.returncode == 0 and [r for r in RangeHandler.requests if r[0] == "GET"] == gets  # kept, not fetched
    listed = {row["name"]: row for row in json.loads(run("pretrained", "list", "--json").stdout)}
    assert listed["small"]["path"] == str(path)


def test_a_download_cut_short_is_resumed_where_it_stopped(mirror, tmp_path):
    root, _ = mirror
    publish_tiny_elmo_as_small(root)
    weights = f"/allennlp/models/elmo/{SMALL}/elmo_{SMALL}_weights.hdf5"
    RangeHandler.cut.add(weights)
    first = run("pretrained", "get", "small", "--quiet")
    assert_one_line_error(first, "broke off after", "run the same command again")
    assert not (tmp_path / "cache" / "pretrained" / "small.pt").exists()
    kept = tmp_path / "cache" / "pretrained" / "downloads" / "small" / ".weights.hdf5.partial"
    half = kept.stat().st_size
    assert 0 < half < (FIXTURES / "lm_weights.hdf5").stat().st_size
    second = run("pretrained", "get", "small", "--quiet")
    assert second.returncode == 0, second.stderr
    assert ("GET", weights, f"bytes={half}-") in RangeHandler.requests
    assert not kept.exists()
    downloaded = tmp_path / "cache" / "pretrained" / "downloads" / "small" / "weights.hdf5"
    assert downloaded.read_bytes() == (FIXTURES / "lm_weights.hdf5").read_bytes()


def test_a_file_of_the_wrong_size_is_refused_and_kept_nowhere(mirror, tmp_path, monkeypatch):
    root, _ = mirror
    folder = publish_tiny_elmo_as_small(root)
    from course import pretrained

    monkeypatch.setattr(pretrained, "_server_size", lambda url: 123 if url.endswith("weights.hdf5") else None)
    with pytest.raises(pretrained.ChecksumError, match="expected 123"):
        pretrained.get("small", progress=False)
    assert not (tmp_path / "cache" / "pretrained" / "small.pt").exists()
    assert not list((tmp_path / "cache" / "pretrained" / "downloads" / "small").glob("*weights*"))
    assert (folder / f"elmo_{SMALL}_weights.hdf5").exists()


def test_an_interrupted_conversion_leaves_no_model_and_the_next_get_converts_without_downloading(
        mirror, tmp_path, monkeypatch):
    root, _ = mirror
    publish_tiny_elmo_as_small(root)
    from course import pretrained
    from course.lm import model_file

    real_save = model_file.torch.save

    def interrupted(payload, path, *args, **kwargs):
        Path(path).write_bytes(b"half a model")
        raise KeyboardInterrupt

    monkeypatch.setattr(model_file.torch, "save", interrupted)
    with pytest.raises(KeyboardInterrupt):
        pretrained.get("small", progress=False)
    assert not (tmp_path / "cache" / "pretrained" / "small.pt").exists()
    assert not [p for p in (tmp_path / "cache" / "pretrained").iterdir() if p.is_file()]  # no temporary left
    monkeypatch.setattr(model_file.torch, "save", real_save)
    before = [r for r in RangeHandler.requests if r[0] == "GET"]
    path = pretrained.get("small", progress=False)
    assert Elmo.load(path, device="cpu").config.character_ids == "bilm-tf"
    assert [r for r in RangeHandler.requests if r[0] == "GET"] == before  # the downloads were kept and checked


def _vectors_text(words, dim, seed=0, header=True):
    rng = np.random.default_rng(seed)
    lines = [f"{len(words)} {dim}"] if header else []
    lines += [word + " " + " ".join(f"{x:.5f}" for x in rng.normal(size=dim)) for word in words]
    return ("\n".join(lines) + "\n").encode("utf-8")


def publish_gensim_model(root: Path, name: str, payload: bytes, checksum: str | None = None) -> None:
    folder = root / "gensim-data" / "releases" / "download" / name
    folder.mkdir(parents=True)
    (folder / "__init__.py").write_text("raise RuntimeError('never imported by the course')\n")
    (folder / f"{name}.gz").write_bytes(payload)
    listing = {"corpora": {}, "models": {name: {"file_name": f"{name}.gz", "parts": 1,
                                                "checksum": checksum or hashlib.md5(payload).hexdigest()}}}
    (root / "gensim-data" / "list.json").write_text(json.dumps(listing))


def test_glove_through_gensims_downloader_is_stored_as_word2vec_binary(mirror, tmp_path):
    root, _ = mirror
    words = [f"w{i}" for i in range(40)]
    publish_gensim_model(root, "glove-wiki-gigaword-100", gzip.compress(_vectors_text(words, 100)))
    result = run("pretrained", "get", "glove-6b-100", "--limit", "25", "--quiet")
    assert result.returncode == 0, result.stderr
    vectors = load_vectors(tmp_path / "cache" / "pretrained" / "glove-6b-100.bin")
    assert vectors.index_to_key == words[:25] and vectors.vector_size == 100
    assert (tmp_path / "cache" / "pretrained" / "gensim-data" / "glove-wiki-gigaword-100").is_dir()


def test_gensims_checksum_is_enforced(mirror, tmp_path):
    root, _ = mirror
    publish_gensim_model(root, "glove-wiki-gigaword-100", gzip.compress(_vectors_text(["a"], 100)), "0" * 32)
    assert_one_line_error(run("pretrained", "get", "glove-6b-100", "--quiet"), "MD5", "gensim-data")
    assert not (tmp_path / "cache" / "pretrained" / "glove-6b-100.bin").exists()


def test_fasttext_chinese_is_streamed_and_stopped_after_the_limit(mirror, tmp_path):
    root, _ = mirror
    words = ["的", "包袱", "中国", *[f"词{i}" for i in range(500)]]
    folder = root / "fasttext" / "vectors-crawl"
    folder.mkdir(parents=True)
    (folder / "cc.zh.300.vec.gz").write_bytes(gzip.compress(_vectors_text(words, 300)))
    result = run("pretrained", "get", "fasttext-zh", "--limit", "60", "--quiet")
    assert result.returncode == 0, result.stderr
    vectors = load_vectors(tmp_path / "cache" / "pretrained" / "fasttext-zh.bin")
    assert vectors.index_to_key == words[:60] and vectors.vector_size == 300
    note = json.loads((tmp_path / "cache" / "pretrained" / "fasttext-zh.json").read_text(encoding="utf-8"))
    assert note["words"] == 60 and note["of"] == len(words) and "not the rest" in note["checked"]


def test_a_damaged_or_truncated_fasttext_file_is_refused(mirror, tmp_path):
    root, _ = mirror
    folder = root / "fasttext" / "vectors-crawl"
    folder.mkdir(parents=True)
    text = _vectors_text([f"词{i}" for i in range(30)], 300)
    target = folder / "cc.zh.300.vec.gz"
    target.write_bytes(gzip.compress(text.replace(b"\n\xe8\xaf\x8d5 ", b"\n\xe8\xaf\x8d5 nan ", 1)))
    assert_one_line_error(run("pretrained", "get", "fasttext-zh", "--quiet"), "line 7", "damaged")
    target.write_bytes(gzip.compress(text)[:-2000])
    assert_one_line_error(run("pretrained", "get", "fasttext-zh", "--quiet"), "nothing was kept")
    assert not (tmp_path / "cache" / "pretrained" / "fasttext-zh.bin").exists()


def test_mistakes_are_one_line(mirror):
    assert_one_line_error(run("pretrained", "get", "huge"), "no pretrained model 'huge'", "small")
    assert_one_line_error(run("pretrained", "get", "small", "--limit", "5"), "--limit is for static vectors")
    assert_one_line_error(run("pretrained", "get", "small", "--quiet"), "could not")  # nothing served


def test_gensims_downloader_is_left_as_it_was(mirror):
    import gensim.downloader as api

    from course import pretrained

    before = (api.BASE_DIR, api.DATA_LIST_URL, api.DOWNLOAD_BASE_URL, api._load_info)
    with pytest.raises(pretrained.DownloadError):  # the mirror serves no gensim-data list
        pretrained.get("glove-6b-100", progress=False)
    assert (api.BASE_DIR, api.DATA_LIST_URL, api.DOWNLOAD_BASE_URL, api._load_info) == before
