"""Probes: the probe-file reader and its errors, the sense-probe figures and their controls, the
nearest contexts, the POS probe, our own probe files and the probe command."""

import json
import os
import subprocess
import sys
from collections import Counter

import numpy as np
import pytest
from conftest import assert_one_line_error

from course.corpus import from_sentences
from course.elmo import ElmoConfig, train_elmo
from course.errors import ProbeFileError
from course.paths import data_dir
from course.probes import (
    format_probe_table,
    most_frequent_tag_accuracy,
    nearest_contexts,
    pos_probe,
    probe_model,
    read_probes,
    sense_probe,
    target_vectors,
)

pytestmark = pytest.mark.filterwarnings("ignore:LSTM with projections is not supported:UserWarning")

TINY = ElmoConfig(min_count=1, max_characters=12, char_dim=4, filters=((1, 4), (2, 4), (3, 8)), projection_dim=8,
                  lstm_dim=16, epochs=4, batch_tokens=150, lr=2e-2, heldout_every=10, device="cpu", threads=1)
HEADER = "word\tsense\tsentence\n"


@pytest.fixture(scope="module")
def toy():
    """'fish' as a noun after 'the' and as a verb after a noun; tagged."""
    rng = np.random.default_rng(0)
    sentences, tags = [], []
    for _ in range(150):
        noun = str(rng.choice(["cat", "dog", "bird", "fish"]))
        if rng.random() < 0.5:
            sentences.append(["the", noun, "can", "fish", "well"])
            tags.append(["d", "n", "v", "v", "a"])
        else:
            sentences.append(["a", "big", "fish", "sees", "the", noun])
            tags.append(["d", "j", "n", "v", "d", "n"])
    corpus = from_sentences(sentences, name="toy", tags=tags)
    return corpus, train_elmo(corpus, TINY, progress=False)


def write(tmp_path, text, name="probes.tsv"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


GOOD = HEADER + ("fish\tnoun\ta big fish sees the cat\nfish\tnoun\ta big fish sees the dog\n"
                 "fish\tverb\tthe cat can fish well\nfish\tverb\tthe dog can fish well\n")


# ------------------------------------------------------------------------------ the reader


def test_reader_reads_words_senses_and_positions(tmp_path):
    probes = read_probes(write(tmp_path, "\ufeff" + GOOD + "\n# a comment\n"))
    assert [(p.word, p.sense, p.position, p.line) for p in probes] == [
        ("fish", "noun", 2, 2), ("fish", "noun", 2, 3), ("fish", "verb", 3, 4), ("fish", "verb", 3, 5)]
    assert probes[0].tokens == ("a", "big", "fish", "sees", "the", "cat")


@pytest.mark.parametrize("text, fragments", [
    ("", ["line 1", "header"]),
    ("word,sense,sentence\n", ["line 1", "header"]),
    (HEADER, ["no sentences"]),
    (GOOD + "fish\tverb\n", ["line 6", "three tab-separated fields"]),
    (GOOD + "fish noun a big fish\n", ["line 6", "three tab-separated fields"]),
    (GOOD + "fish\tverb\tthe cat can swim\n", ["line 6", "does not contain", "'fish'"]),
    (GOOD + "fish\tverb\tthe fishes can swim\n", ["line 6", "does not contain"]),
    (GOOD + "fish\tverb\tfish can fish\n", ["line 6", "occurs 2 times"]),
    (HEADER + "fish\tnoun\ta fish\nfish\tnoun\tthe fish\n", ["'fish'", "one sense only"]),
    (GOOD + "fish\tfood\tfried fish\n", ["one sentence only", "'food'"]),
])
def test_reader_rejects_malformed_files_with_a_clear_error(tmp_path, text, fragments):
    path = write(tmp_path, text)
    with pytest.raises(ProbeFileError) as error:
        read_probes(path)
    message = str(error.value)
    assert str(path) in message and "\n" not in message
    for fragment in fragments:
        assert fragment in message


def test_reader_rejects_missing_and_non_utf8_files(tmp_path):
    with pytest.raises(ProbeFileError, match="no such probe file"):
        read_probes(tmp_path / "missing.tsv")
    path = tmp_path / "gbk.tsv"
    path.write_bytes((HEADER + "包袱\t负担\t放下 包袱\n").encode("gbk"))
    with pytest.raises(ProbeFileError, match="not UTF-8"):
        read_probes(path)


@pytest.mark.parametrize("name, words", [("en_polysemy.tsv", {"bank", "plant", "spring", "cell", "capital"}),
                                         ("zh_baofu.tsv", {"包袱"})])
def test_our_probe_files(name, words, wiki):
    probes = read_probes(data_dir() / "probes" / name)
    assert {p.word for p in probes} == words
    per_sense = Counter((p.word, p.sense) for p in probes)
    assert min(per_sense.values()) >= 8
    assert len({p.tokens for p in probes}) == len(probes)  # no sentence twice
    if name.startswith("en"):
        counts = dict(zip(wiki.types, wiki.counts().tolist(), strict=True))
        assert all(counts.get(word, 0) >= 30 for word in words)  # the corpus knows each word
        assert all(" ".join(p.tokens) == " ".join(p.tokens).lower() for p in probes)


# ------------------------------------------------------------------------------ the figures


def test_sense_probe_figures():
    separated = np.array([[1, 0.1], [1, 0.0], [0, 1], [0.1, 1]])
    figures = sense_probe(separated, ["a", "a", "b", "b"])
    assert figures["knn_accuracy"] == 1.0 and figures["separation"] > 0.8
    crossed = sense_probe(separated, ["a", "b", "a", "b"])
    assert crossed["knn_accuracy"] == 0.0 and crossed["separation"] < 0
    same = sense_probe(np.ones((6, 3)), ["a", "a", "a", "b", "b", "b"])  # one static vector: chance, 0
    assert same["knn_accuracy"] == pytest.approx(2 / 5) and same["separation"] == pytest.approx(0.0, abs=1e-12)


def test_probe_model_gives_every_layer_and_both_controls(toy, tmp_path):
    _, model = toy
    probes = read_probes(write(tmp_path, GOOD))
    vectors = target_vectors(model, probes)
    assert vectors.shape == (3, 4, 16)
    results = probe_model(model, probes)
    assert json.loads(json.dumps(results)) == results
    (result,) = results
    assert result["word"] == "fish" and result["senses"] == {"noun": 2, "verb": 2}
    assert [entry["layer"] for entry in result["layers"]] == [0, 1, 2]
    for entry in result["layers"]:
        assert set(entry) == {"layer", "trained", "untrained"}
        assert set(entry["trained"]) == set(entry["untrained"]) == {"knn_accuracy", "separation"}
    assert result["static"] == pytest.approx({"knn_accuracy": 1 / 3, "separation": 0.0}, abs=1e-9)
    assert result["layers"][0]["trained"] == pytest.approx(result["static"], abs=1e-5)  # layer 0 is static
    assert result["layers"][2]["trained"]["knn_accuracy"] == 1.0  # the biLM tells noun from verb
    table = format_probe_table(results)
    assert "fish" in table and "static" in table and "noun 2, verb 2" in table


def test_nearest_contexts_finds_the_sentence_itself_first(toy):
    corpus, model = toy
    query = corpus[0]
    position = query.index("fish")
    found = nearest_contexts(model, query, position, corpus, layer=2, k=3)
    assert len(found) == 3 and found[0]["similarity"] == pytest.approx(1.0, abs=1e-5)
    assert found[0]["sentence"] == query and found[0]["sentence"][found[0]["position"]] == "fish"
    assert [f["similarity"] for f in found] == sorted((f["similarity"] for f in found), reverse=True)
    assert nearest_contexts(model, ["a", "zebra"], 1, corpus) == []


def test_most_frequent_tag_baseline_and_pos_probe(toy):
    train = [[("the", "d"), ("fish", "n")], [("fish", "v"), ("fish", "n")]]
    test = [[("fish", "v"), ("the", "d"), ("cod", "n")]]
    assert most_frequent_tag_accuracy(train, test) == pytest.approx(2 / 3)  # fish -> n (wrong), cod -> n
    corpus, model = toy
    result = pos_probe(model, corpus, num_sentences=100, test_share=0.3, seed=2, max_iter=100)
    assert [entry["layer"] for entry in result["layers"]] == [0, 1, 2]
    assert result["test_tokens"] > 0 and set(result["tags"]) == {"a", "d", "j", "n", "v"}
    assert result["layers"][0]["trained"] == pytest.approx(result["most_frequent_tag"], abs=0.05)
    assert result["layers"][2]["trained"] > result["most_frequent_tag"]  # context tells the two fish apart
    with pytest.raises(Exception, match="no part-of-speech tags"):
        pos_probe(model, from_sentences([["a"]]), untrained=False)


# ------------------------------------------------------------------------------ the command


def run(*args):
    return subprocess.run([sys.executable, "-m", "course", *map(str, args)], capture_output=True, text=True,
                          env=dict(os.environ), timeout=300)


def test_probe_command_table_json_and_bad_input(toy, tmp_path):
    _, model = toy
    path = model.save(tmp_path / "toy.pt")
    probes = write(tmp_path, GOOD)
    out = tmp_path / "probe.json"
    result = run("probe", "--model", path, "--probes", probes, "--json", out)
    assert result.returncode == 0, result.stderr
    assert "fish" in result.stdout and "static" in result.stdout
    written = json.loads(out.read_text(encoding="utf-8"))
    assert written[0]["word"] == "fish" and len(written[0]["layers"]) == 3 and "static" in written[0]

    bad = write(tmp_path, GOOD + "fish\tverb\tfish can fish\n", "bad.tsv")
    assert_one_line_error(run("probe", "--model", path, "--probes", bad, "--json", tmp_path / "no.json"),
                          "bad.tsv", "line 6", "occurs 2 times")
    truncated = tmp_path / "truncated.pt"
    truncated.write_bytes(path.read_bytes()[:1500])
    assert_one_line_error(run("probe", "--model", truncated, "--probes", probes, "--json", tmp_path / "no.json"),
                          "truncated.pt", "train it again")
    assert not (tmp_path / "no.json").exists()
