"""The command line, run as a user runs it: a new process, its output and exit status."""

import json
import os
import subprocess
import sys

import pytest

from course.vectors import save_vectors


def run(*args, env=None):
    return subprocess.run([sys.executable, "-m", "course", *map(str, args)], capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, timeout=300)


def assert_one_line_error(result, *fragments):
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    assert "Traceback" not in result.stderr
    for fragment in fragments:
        assert fragment in lines[0]


def test_corpus_info_table_and_json(wiki):
    table = run("corpus", "info", "wiki-en", "--quiet")
    assert table.returncode == 0
    assert f"{wiki.num_sentences:,}" in table.stdout and "vocabulary" in table.stdout
    info = json.loads(run("corpus", "info", "wiki-en", "--json", "--quiet").stdout)
    assert info == json.loads(json.dumps(wiki.info()))


def test_corpus_export_writes_what_trainers_see(tmp_path):
    text = tmp_path / "in.txt"
    text.write_text("One small sentence. Another one here!\n", encoding="utf-8")
    out = tmp_path / "out.txt"
    result = run("corpus", "export", text, "--out", out, "--quiet", env={"COURSE_CACHE": str(tmp_path / "c")})
    assert result.returncode == 0, result.stderr
    assert out.read_text(encoding="utf-8") == "one small sentence\nanother one here\n"


def test_evaluate_prints_table_and_json(tmp_path, wiki_vectors):
    from course.evaluate import evaluate_all

    path = save_vectors(wiki_vectors, tmp_path / "vectors.txt")
    table = run("evaluate", path)
    assert table.returncode == 0, table.stderr
    assert "3cosadd" in table.stdout and "simlex999" in table.stdout
    result = run("evaluate", path, "--json", tmp_path / "out.json")
    assert result.returncode == 0
    written = json.loads((tmp_path / "out.json").read_text())
    expected = evaluate_all(wiki_vectors)
    assert written["analogies"]["3cosadd"]["total"] == expected["analogies"]["3cosadd"]["total"]
    spearman = expected["similarity"]["wordsim353"]["spearman"]
    assert written["similarity"]["wordsim353"]["spearman"] == pytest.approx(spearman)


def test_bad_input_gives_one_line_and_status_2(tmp_path):
    env = {"COURSE_CACHE": str(tmp_path / "cache")}
    assert_one_line_error(run("corpus", "info", "no-such-corpus", env=env), "unknown corpus 'no-such-corpus'")
    assert_one_line_error(run("corpus", "info", tmp_path / "missing.txt", env=env), "missing.txt: no such file")
    (tmp_path / "empty.txt").write_text("")
    assert_one_line_error(run("corpus", "info", tmp_path / "empty.txt", env=env), "empty.txt: is empty")
    (tmp_path / "latin1.txt").write_bytes("café\n".encode("latin-1"))
    assert_one_line_error(run("corpus", "export", tmp_path / "latin1.txt", "--out", tmp_path / "x.txt", env=env),
                          "latin1.txt: not UTF-8", "offset 3, line 1")
    assert not (tmp_path / "x.txt").exists()
    (tmp_path / "vectors.txt").write_text("2 3\nking 0.1 0.2\n")
    assert_one_line_error(run("evaluate", tmp_path / "vectors.txt"), "vectors.txt: truncated or malformed")
    assert_one_line_error(run("evaluate", tmp_path / "none.txt"), "none.txt: no such vectors file")
    (tmp_path / "ok.txt").write_text("2 2\nking 0.1 0.2\nqueen 0.2 0.1\n")
    (tmp_path / "pairs.tsv").write_text("king\tqueen\n")
    assert_one_line_error(run("evaluate", tmp_path / "ok.txt", "--similarity", tmp_path / "pairs.tsv"),
                          "pairs.tsv:1: expected")
    assert run("corpus", "info", "wiki-en", "--min-count", "0").returncode == 2  # argparse's own check
    assert list((tmp_path / "cache").rglob("*.npz")) == []


def test_train_word2vec_writes_vectors_and_refuses_nonsense(tmp_path):
    from gensim.models import KeyedVectors

    text = tmp_path / "text.txt"
    text.write_text("The cat sat on the mat. The dog sat on the log. " * 40 + "\n", encoding="utf-8")
    env = {"COURSE_CACHE": str(tmp_path / "cache")}
    out = tmp_path / "vectors.bin"
    result = run("train", "word2vec", "--corpus", text, "--arch", "cbow", "--loss", "hs", "--dim", "8",
                 "--epochs", "2", "--min-count", "1", "--binary", "--out", out, "--quiet", env=env)
    assert result.returncode == 0, result.stderr
    assert KeyedVectors.load_word2vec_format(str(out), binary=True).vector_size == 8
    result = run("train", "word2vec", "--corpus", text, "--loss", "hs", "--no-damp-tree-steps", "--dim", "8",
                 "--epochs", "1", "--min-count", "1", "--out", tmp_path / "plain.txt", "--quiet", env=env)
    assert result.returncode == 0, result.stderr
    for settings, fragment in [(["--dim", "0"], "dim must be at least 1"), (["--window", "0"], "window"),
                               (["--epochs", "0"], "epochs"), (["--negative", "-2"], "negative"),
                               (["--device", "cuda:7"], "CUDA")]:
        bad = tmp_path / "bad.txt"
        result = run("train", "word2vec", "--corpus", text, "--min-count", "1", "--out", bad, "--quiet", *settings,
                     env=env)
        if fragment == "CUDA" and result.returncode == 0:
            continue  # a machine with that many GPUs
        assert_one_line_error(result, fragment)
        assert not bad.exists()
    assert run("train", "word2vec", "--corpus", text, "--arch", "glove", "--out", tmp_path / "x").returncode == 2
