"""Vectors files in every format the course reads (word2vec text and binary, headerless GloVe text, gensim's
.kv), written by gensim itself: the same vectors give the same evaluation, the same Projector files and the
same tagger input whichever format they come in, and a file that is wrong in any way is refused in one line,
exit 2, naming it."""

from __future__ import annotations

import json
import pickle

import numpy as np
import pytest

from course.analysis.vectors import FORMATS, detect_format, keyed_vectors, load_vectors
from course.cli import main
from course.core.errors import VectorsFileError

WORDS = ["king", "queen", "man", "woman", "paris", "france", "rome", "italy", "张", "三", "在", "北京", "。"]


@pytest.fixture
def formats(tmp_path):
    """``{format: path}`` of the same vectors in each format, and the vectors."""
    rng = np.random.default_rng(0)
    vectors = dict(zip(WORDS, rng.normal(size=(len(WORDS), 6)), strict=True))
    vectors["queen"] = vectors["king"] - vectors["man"] + vectors["woman"] + rng.normal(0, 0.01, 6)
    vectors["italy"] = vectors["rome"] - vectors["paris"] + vectors["france"] + rng.normal(0, 0.01, 6)
    kv = keyed_vectors(WORDS, np.array(list(vectors.values()), dtype=np.float32))
    folder = tmp_path / "vectors"
    folder.mkdir()
    paths = {"word2vec": folder / "text.txt", "word2vec-binary": folder / "binary.bin",
             "glove": folder / "glove.txt", "kv": folder / "native.kv"}
    kv.save_word2vec_format(str(paths["word2vec"]), binary=False)
    kv.save_word2vec_format(str(paths["word2vec-binary"]), binary=True)
    text = paths["word2vec"].read_text(encoding="utf-8")
    paths["glove"].write_text(text.split("\n", 1)[1], encoding="utf-8")  # Stanford's files: no first line
    kv.save(str(paths["kv"]))
    return paths, kv


def test_every_format_reads_the_same_vectors(formats, tmp_path):
    paths, kv = formats
    assert set(paths) == set(FORMATS) - {"auto"}
    for name, path in paths.items():
        assert detect_format(path) == name
        for given in ("auto", name):
            loaded = load_vectors(path, given)
            assert loaded.index_to_key == WORDS and loaded.vectors.dtype == np.float32
            np.testing.assert_array_equal(loaded.vectors, kv.vectors)
    # a .kv whose arrays gensim stored apart (.npy beside it) is read from them, memory-mapped
    apart = tmp_path / "apart.kv"
    kv.save(str(apart), sep_limit=0)
    assert list(tmp_path.glob("apart.kv.*.npy"))
    np.testing.assert_array_equal(load_vectors(apart).vectors, kv.vectors)


def _pairs_and_analogies(tmp_path):
    analogies = tmp_path / "analogies.txt"
    analogies.write_text(": capitals\nparis france rome italy\nrome italy paris france\n"
                         ": family\nman woman king queen\nking queen man woman\n", encoding="utf-8")
    pairs = tmp_path / "pairs.tsv"
    pairs.write_text("king\tqueen\t8.5\nman\twoman\t8.3\nparis\tfrance\t7.0\nking\tparis\t1.2\nrome\tman\t0.5\n",
                     encoding="utf-8")
    return analogies, pairs


def test_evaluate_and_export_give_the_same_results_in_every_format(formats, tmp_path):
    paths, _ = formats
    analogies, pairs = _pairs_and_analogies(tmp_path)
    reports, exported = {}, {}
    for name, path in paths.items():
        for given in ("auto", name):
            out = tmp_path / f"{name}-{given}.json"
            assert main(["evaluate", str(path), "--format", given, "--analogies", str(analogies), "--similarity",
                         str(pairs), "--language", "en", "--json", str(out)]) == 0
            report = json.loads(out.read_text(encoding="utf-8"))
            assert report["vectors"].pop("file") == str(path)
            reports[name, given] = report
            folder = tmp_path / f"projector-{name}-{given}"
            assert main(["export", "projector", str(path), "--format", given, "--out", str(folder)]) == 0
            exported[name, given] = [(folder / f).read_bytes() for f in ("vectors.tsv", "metadata.tsv")]
    first = reports["word2vec", "auto"]
    assert first["analogies"]["3cosadd"]["total"]["answered"] == 4
    assert first["analogies"]["3cosadd"]["total"]["correct"] >= 2  # queen and italy, each made the answer
    assert all(report == first for report in reports.values())
    assert exported["word2vec", "auto"][1].decode("utf-8").split("\n")[1].startswith("king\t")
    assert all(files == exported["word2vec", "auto"] for files in exported.values())


def test_the_taggers_vectors_are_the_same_in_every_format(formats, tmp_path, capsys):
    from course.tagger.inputs import StaticVectors

    paths, _ = formats
    tables = [StaticVectors(load_vectors(path)).table for path in paths.values()]
    assert all(bool((table == tables[0]).all()) for table in tables)
    # and through the command line: the same scores from each format (seconds aside)
    data = tmp_path / "pd.txt"
    data.write_text("张/nr 三/nr 在/p 北京/ns 。/w\n" * 100, encoding="utf-8")
    scores = []
    for name, path in paths.items():
        out = tmp_path / f"tagger-{name}.json"
        assert main(["train", "tagger", "--data", str(data), "--labels", "20", "--epochs", "1", "--quiet",
                     "--device", "cpu", "--input", "glove", "--vectors", str(path), "--vectors-format", name,
                     "--out", str(out)]) == 0
        report = json.loads(out.read_text(encoding="utf-8"))
        scores.append({key: report[key] for key in ("f1", "precision", "recall", "best_epoch", "unseen_f1")})
    assert all(score == scores[0] for score in scores)
    capsys.readouterr()
    bad = tmp_path / "bad.txt"
    bad.write_text("张 0.1 0.2\n三 0.3\n", encoding="utf-8")
    status = main(["train", "tagger", "--data", str(data), "--labels", "20", "--epochs", "1", "--quiet", "--device",
                   "cpu", "--input", "glove", "--vectors", str(bad), "--out", str(tmp_path / "no.json")])
    error = capsys.readouterr().err.strip().splitlines()
    assert status == 2 and error == [f"error: {bad}, line 2: truncated or malformed GloVe text file: expected a word "
                                     "and 2 numbers, found 1 number"]


def _binary(count, entries):
    return f"{count} 2\n".encode() + b"".join(word.encode() + b" " + np.asarray(vector, dtype="<f4").tobytes()
                                             for word, vector in entries)


BAD = [  # name, content (bytes, or a callable writing the file), format, what the one line says after the path
    ("missing.txt", None, "auto", ": no such vectors file"),
    ("empty.txt", b"", "auto", ": is empty, not a vectors file"),
    ("ragged.txt", b"the 0.1 0.2\ncat 0.3\n", "auto",
     ", line 2: truncated or malformed GloVe text file: expected a word and 2 numbers, found 1 number"),
    ("letters.txt", b"the 0.1 0.2\ncat 0.3 x\n", "auto",
     ", line 2: truncated or malformed GloVe text file: b'x' is not a number"),
    ("wide.txt", b"2 2\nthe 0.1 0.2\ncat 0.3 0.4 0.5\n", "auto",
     ", line 3: truncated or malformed word2vec text file: expected a word and 2 numbers, found 3 numbers"),
    ("short.txt", b"3 2\nthe 0.1 0.2\ncat 0.3 0.4\n", "auto",
     ": truncated or malformed word2vec text file: its first line declares 3 words, and 2 lines follow it"),
    ("more.txt", b"1 2\nthe 0.1 0.2\ncat 0.3 0.4\n", "auto",
     ", line 3: its first line declares 1 word, but the file holds 2 lines of vectors"),
    ("twice.txt", b"the 0.1 0.2\ncat 0.3 0.4\nthe 0.5 0.6\n", "auto",
     ", line 3: the word 'the' appears again (first on line 1); each word must have one vector"),
    ("nan.txt", b"the 0.1 0.2\ncat nan 0.4\n", "auto", ", line 2: the vector of 'cat' holds NaN or infinity"),
    ("latin1.txt", "thé 0.1 0.2\ncafé 0.3 0.4\n".encode("latin-1"), "auto",
     ", line 1: the word b'th\\xe9' is not UTF-8"),
    ("noise.bin", bytes(range(256)) * 4, "auto", ": not a vectors file the course reads"),
    ("cut.bin", _binary(3, [("the", [1, 2]), ("cat", [3, 4])]) + b"xxxxxxxx", "auto",
     ": truncated or malformed word2vec binary file: its first line declares 3 words of 2 dimensions"),
    ("twice.bin", _binary(2, [("the", [1, 2]), ("the", [3, 4])]), "auto", ": the word 'the' appears more than once"),
    ("text-as-binary.txt", b"2 2\nthe 0.1 0.2\ncat 0.3 0.4\n", "word2vec-binary",
     ": read as word2vec binary, but its second line is a word and 2 numbers in text"),
    ("binary-as-text.bin", _binary(2, [("the", [1, 2]), ("cat", [3, 4])]), "word2vec",
     ", line 2: truncated or malformed word2vec text file: "),
    ("text.kv", b"the 0.1 0.2\n", "auto", ": not a gensim KeyedVectors file (.kv): "),
    ("forced.txt", b"the 0.1 0.2\n", "kv", ": not a gensim KeyedVectors file (.kv): "),
    ("dict.kv", pickle.dumps({"the": [0.1, 0.2]}), "auto", ": not a gensim KeyedVectors file (.kv): "),
    ("pickle.bin", pickle.dumps({"the": [0.1, 0.2]}), "auto", ": looks like a pickle, as gensim's .kv files are"),
    ("model.kv", "word2vec model", "auto", ": holds a gensim Word2Vec, not KeyedVectors; save its vectors with"),
]


@pytest.mark.parametrize("name,content,given,message", BAD, ids=[case[0] for case in BAD])
def test_a_wrong_vectors_file_is_one_line_and_exit_2(tmp_path, capsys, name, content, given, message):
    path = tmp_path / name
    if content == "word2vec model":
        from gensim.models import Word2Vec

        Word2Vec([["the", "cat"]] * 5, vector_size=2, min_count=1, workers=1, seed=1).save(str(path))
    elif content is not None:
        path.write_bytes(content)
    for command in (["evaluate", str(path), "--language", "en"],
                    ["export", "projector", str(path), "--out", str(tmp_path / "out")]):
        status = main([*command, "--format", given])
        error = capsys.readouterr().err.strip().splitlines()
        assert status == 2 and len(error) == 1, error
        assert error[0].startswith(f"error: {path}{message}"), error
    with pytest.raises(VectorsFileError):
        load_vectors(path, given)
    assert not (tmp_path / "out").exists()


def test_the_probes_context_vectors_are_read_in_the_format_given(formats, tmp_path, capsys):
    paths, _ = formats
    glove = paths["glove"]
    for given, message in (("word2vec", ": not a word2vec-format file (the first line must be 'words dimensions'; a "
                                        "GloVe file has no such line: give the format glove, or auto)"),
                           ("kv", ": not a gensim KeyedVectors file (.kv): ")):
        status = main(["probe", "--model", str(tmp_path / "no-model.pt"), "--probes", "en_polysemy.tsv", "--device",
                       "cpu", "--context-vectors", str(glove), "--context-vectors-format", given])
        error = capsys.readouterr().err.strip().splitlines()
        assert status == 2 and len(error) == 1 and error[0].startswith(f"error: {glove}{message}"), error
