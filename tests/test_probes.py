"""Probes: the probe-file reader, its splits and its errors, the sense-probe figures and their
controls (the bag of context among them), the nearest contexts, the POS probe, our own probe files
and the probe command."""

import json
import os
import subprocess
import sys
import zlib
from collections import Counter

import numpy as np
import pytest
from conftest import assert_one_line_error

from course.analysis.pos_probe import most_frequent_tag_accuracy, pos_probe
from course.analysis.probes import (
    bag_of_context_vectors,
    draw_splits,
    format_probe_table,
    nearest_contexts,
    occurrence_labels,
    probe_model,
    probe_splits,
    probe_summary,
    read_probes,
    sense_probe,
    target_vectors,
    write_probes,
)
from course.analysis.vectors import keyed_vectors, save_vectors
from course.core.errors import ProbeFileError, SettingError
from course.core.paths import probe_file, probe_files
from course.elmo import ElmoConfig, train_elmo
from course.text.corpus import from_sentences

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
SPLIT_HEADER = "word\tsense\tsentence\tsplit\n"
SPLIT = SPLIT_HEADER + "".join(f"fish\t{sense}\t{sentence}\t{split}\n" for sense, sentence, split in [
    ("noun", "a big fish sees the cat", "dev"), ("noun", "a big fish sees the dog", "test"),
    ("verb", "the cat can fish well", "test"), ("noun", "a big fish sees a bird", "dev"),
    ("verb", "the dog can fish well", "dev"), ("verb", "a bird can fish well", "test"),
    ("noun", "the big fish sees a cat", "test"), ("verb", "a cat can fish well", "dev")])


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
    (SPLIT + "fish\tverb\tfish can swim\n", ["line 10", "four tab-separated fields"]),
    (SPLIT + "fish\tverb\tcats fish\ttrain\n", ["line 10", "'fish'", "'verb'", "split 'train'", "dev or test"]),
    (SPLIT.replace("sentence\tsplit", "sentence\tpart"), ["line 1", "header"]),
])
def test_reader_rejects_malformed_files_with_a_clear_error(tmp_path, text, fragments):
    path = write(tmp_path, text)
    with pytest.raises(ProbeFileError) as error:
        read_probes(path)
    message = str(error.value)
    assert str(path) in message and "\n" not in message
    for fragment in fragments:
        assert fragment in message


def test_shipped_probe_files_are_found_by_name_from_any_folder(tmp_path, monkeypatch):
    assert [path.name for path in probe_files()] == ["en_polysemy.tsv", "zh_polysemy.tsv"]
    assert probe_file("en_polysemy.tsv").parent.parent.parent.name == "course"  # inside the package
    monkeypatch.chdir(tmp_path)
    assert read_probes("zh_polysemy.tsv", split="test") == read_probes(probe_file("zh_polysemy.tsv"), split="test")
    (tmp_path / "en_polysemy.tsv").write_text(GOOD, encoding="utf-8")
    assert read_probes("en_polysemy.tsv") == read_probes(tmp_path / "en_polysemy.tsv")  # a file here comes first
    for name in ("fr_polysemy.tsv", "../probes/en_polysemy.tsv"):
        with pytest.raises(ProbeFileError, match="no such probe file ships with the course.*en_polysemy.tsv"):
            probe_file(name)
    with pytest.raises(ProbeFileError, match="no such probe file.*ships en_polysemy.tsv, zh_polysemy.tsv"):
        read_probes("fr_polysemy.tsv")


def test_reader_rejects_missing_and_non_utf8_files(tmp_path):
    with pytest.raises(ProbeFileError, match="no such probe file"):
        read_probes(tmp_path / "missing.tsv")
    path = tmp_path / "gbk.tsv"
    path.write_bytes((HEADER + "包袱\t负担\t放下 包袱\n").encode("gbk"))
    with pytest.raises(ProbeFileError, match="not UTF-8"):
        read_probes(path)


def test_reader_reads_a_split(tmp_path):
    path = write(tmp_path, SPLIT)
    everything = read_probes(path)
    dev, test = read_probes(path, split="dev"), read_probes(path, split="test")
    assert [p.split for p in everything] == ["dev", "test", "test", "dev", "dev", "test", "test", "dev"]
    assert all(p.split == "dev" for p in dev) and all(p.split == "test" for p in test)
    assert {p.line for p in dev} | {p.line for p in test} == {p.line for p in everything}  # the parts cover it
    assert not {p.tokens for p in dev} & {p.tokens for p in test}  # and are disjoint
    assert read_probes(path, split="dev") == dev  # the same file, the same split
    assert probe_splits(path) == {"fish": {"noun": {"dev": 2, "test": 2}, "verb": {"dev": 2, "test": 2}}}
    unsplit = write(tmp_path, GOOD, "unsplit.tsv")
    assert {p.split for p in read_probes(unsplit)} == {None}
    assert probe_splits(unsplit) == {"fish": {"noun": {"all": 2}, "verb": {"all": 2}}}


@pytest.mark.parametrize("text, split, fragments", [
    (GOOD, "test", ["no split column", "no test part", "fourth column"]),
    (SPLIT.replace("cat can fish well\ttest", "cat can fish well\tdev"), "test",
     ["the test split has 1 sentence(s)", "'fish'", "'verb'", "at least two"]),
    (SPLIT.replace("\ttest\n", "\tdev\n"), "test", ["the test split has 0 sentence(s)", "'noun'"]),
])
def test_reader_rejects_a_split_it_cannot_give(tmp_path, text, split, fragments):
    path = write(tmp_path, text)
    with pytest.raises(ProbeFileError) as error:
        read_probes(path, split=split)
    message = str(error.value)
    assert str(path) in message and "\n" not in message
    for fragment in fragments:
        assert fragment in message
    with pytest.raises(SettingError, match="must be dev or test"):
        read_probes(path, split="train")


def test_draw_splits_is_stable_per_word_and_sense(tmp_path):
    text = HEADER + "".join(f"{word}\t{sense}\t{word} number {i} of {sense}\n" for word in ("fish", "bank")
                            for sense in ("a", "b") for i in range(7))
    probes = read_probes(write(tmp_path, text))
    drawn = draw_splits(probes, dev_per_sense=3, seed=5)
    assert draw_splits(probes, dev_per_sense=3, seed=5) == drawn  # the same seed, the same split
    assert Counter((p.word, p.sense, p.split) for p in drawn) == {
        (word, sense, split): count for word in ("fish", "bank") for sense in ("a", "b")
        for split, count in (("dev", 3), ("test", 4))}
    fish_only = [p for p in probes if p.word == "fish"]
    assert draw_splits(fish_only, 3, seed=5) == [p for p in drawn if p.word == "fish"]  # other words: no change
    assert draw_splits(probes, 3, seed=6) != drawn
    path = write_probes(tmp_path / "split.tsv", drawn, comments=("drawn with seed 5",))
    assert [(p.word, p.sense, p.tokens, p.split) for p in read_probes(path)] == [
        (p.word, p.sense, p.tokens, p.split) for p in drawn]
    with pytest.raises(SettingError, match="too few"):
        draw_splits(probes, dev_per_sense=6)


@pytest.mark.parametrize("name, words, senses", [
    ("en_polysemy.tsv", {"bank", "plant", "spring", "cell", "capital", "court", "party", "star"}, 2),
    ("zh_polysemy.tsv", {"包袱", "花", "门", "运动"}, 2)])
def test_our_probe_files(name, words, senses, wiki):
    path = probe_file(name)
    probes = read_probes(path)
    assert {p.word for p in probes} == words
    per_sense = Counter((p.word, p.sense) for p in probes)
    assert min(per_sense.values()) >= 16 and min(Counter(p.word for p in probes).values()) >= 2 * 16
    assert len({p.tokens for p in probes}) == len(probes)  # no sentence twice
    counts = probe_splits(path)
    assert all(split["dev"] >= 6 and split["test"] >= 10 for word in counts.values() for split in word.values())
    dev, test = read_probes(path, split="dev"), read_probes(path, split="test")
    assert len(dev) + len(test) == len(probes) and not {p.tokens for p in dev} & {p.tokens for p in test}
    if name.startswith("en"):
        vocabulary = dict(zip(wiki.types, wiki.counts().tolist(), strict=True))
        assert all(vocabulary.get(word, 0) >= 30 for word in words)  # the corpus knows each word
        assert all(" ".join(p.tokens) == " ".join(p.tokens).lower() for p in probes)
        assert all(6 <= len(p.tokens) <= 20 for p in probes)
        tokens = [token for p in probes for token in p.tokens]
        assert np.mean([vocabulary.get(token, 0) >= 5 for token in tokens]) > 0.9  # ordinary words of wiki-en
        assert len({p.position for p in probes if p.word == "bank"}) >= 6  # the target word moves about
    else:
        assert {p.sense for p in probes if p.word == "包袱"} == {"bundle", "burden", "punchline"}


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


def test_bag_of_context_leaves_out_the_target_word_and_tells_senses_by_their_neighbours(tmp_path):
    # "big" and "sees" point one way, "can" and "well" another; "fish" itself, far longer than
    # both, would swamp every bag if it were not left out; "the", "cat", "dog" are not in the vectors.
    words = ["big", "sees", "can", "well", "fish", "a"]
    vectors = np.array([[1, 0.2, 0], [1, 0, 0], [0, 1, 0], [0.2, 1, 0], [0, 0, 100], [0, 0, 0]])
    kv = keyed_vectors(words, vectors)
    probes = read_probes(write(tmp_path, GOOD + "fish\tverb\tcat fish dog\n"))
    bags = bag_of_context_vectors(probes, kv)
    assert bags.shape == (5, 3)
    np.testing.assert_allclose(bags[0], np.mean([vectors[5], vectors[0], vectors[1]], axis=0))  # a big sees
    np.testing.assert_allclose(bags[2], np.mean([vectors[2], vectors[3]], axis=0))  # the cat can well
    np.testing.assert_array_equal(bags[4], 0.0)  # no known word besides the target: zeros
    figures = sense_probe(bags[:4], [p.sense for p in probes[:4]])
    assert figures["knn_accuracy"] == 1.0 and figures["separation"] > 0.5


def test_occurrence_labels_show_word_sense_and_context_and_are_unique(tmp_path):
    probes = read_probes(write(tmp_path, GOOD + "fish\tverb\tbirds fish\n"))
    assert occurrence_labels(probes) == [
        "fish · noun · a big fish sees the cat", "fish · noun · a big fish sees the dog",
        "fish · verb · the cat can fish well", "fish · verb · the dog can fish well", "fish · verb · birds fish"]
    # one word either side: the two nouns read alike, so both name their line; the cut is marked
    assert occurrence_labels(probes, window=1) == [
        "fish · noun · …big fish sees… · line 2", "fish · noun · …big fish sees… · line 3",
        "fish · verb · …can fish well · line 4", "fish · verb · …can fish well · line 5", "fish · verb · birds fish"]
    chinese = read_probes(write(tmp_path, HEADER + "包袱\t负担\t卸 下 历史 包袱\n包袱\t负担\t放下 思想 包袱 吧\n"
                                               "包袱\t笑料\t抖 包袱\n包袱\t笑料\t他 的 包袱 响\n", "zh.tsv"))
    assert occurrence_labels(chinese, window=1, separator="")[:2] == ["包袱 · 负担 · …历史包袱",
                                                                     "包袱 · 负担 · …思想包袱吧"]
    with pytest.raises(SettingError, match="window"):
        occurrence_labels(probes, window=-1)


def test_probe_model_with_the_bag_of_context_control_and_its_summary(toy, tmp_path):
    _, model = toy
    probes = read_probes(write(tmp_path, GOOD))
    kv = keyed_vectors(["big", "sees", "can", "well"], np.array([[1.0, 0.1], [1.0, 0.0], [0.0, 1.0], [0.1, 1.0]]))
    results = probe_model(model, probes, context_vectors=kv)
    assert json.loads(json.dumps(results)) == results
    assert results[0]["bag_of_context"]["knn_accuracy"] == 1.0 and results[0]["bag_of_context"]["separation"] > 0.8
    assert "bag of context" in format_probe_table(results)
    summary = probe_summary(results)
    assert json.loads(json.dumps(summary)) == summary
    assert summary["words"] == ["fish"] and summary["bag_of_context"] == 1.0
    assert summary["static"] == pytest.approx(1 / 3)
    assert [entry["trained"] for entry in summary["layers"]] == [
        entry["trained"]["knn_accuracy"] for entry in results[0]["layers"]]
    without = probe_summary(probe_model(model, probes))
    assert without["bag_of_context"] is None and without["layers"] == summary["layers"]


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


def test_probe_command_split_and_context_vectors(toy, tmp_path):
    _, model = toy
    path = model.save(tmp_path / "toy.pt")
    probes = write(tmp_path, SPLIT)
    vectors = save_vectors(keyed_vectors(["big", "sees", "can", "well"], np.eye(4)), tmp_path / "vectors.bin",
                           binary=True)
    result = run("probe", "--model", path, "--probes", probes, "--split", "dev", "--context-vectors", vectors,
                 "--json", tmp_path / "probe.json")
    assert result.returncode == 0, result.stderr
    assert "bag of context" in result.stdout and "noun 2, verb 2" in result.stdout
    written = json.loads((tmp_path / "probe.json").read_text(encoding="utf-8"))
    assert written[0]["senses"] == {"noun": 2, "verb": 2} and written[0]["bag_of_context"]["knn_accuracy"] == 1.0

    unsplit = write(tmp_path, GOOD, "unsplit.tsv")
    assert_one_line_error(run("probe", "--model", path, "--probes", unsplit, "--split", "test"),
                          "unsplit.tsv", "no split column")
    assert_one_line_error(run("probe", "--model", path, "--probes", probes, "--split", "train"),
                          "must be dev or test", "'train'")
    assert_one_line_error(run("probe", "--model", path, "--probes", probes, "--context-vectors",
                              tmp_path / "none.txt"), "none.txt: no such vectors file")


class TagVectors:
    """A stand-in biLM whose three layers hold each token's tag (one-hot, times ``signal``) plus
    Gaussian noise, the same for the same sentence: what a linear probe can read off and a table of
    words cannot guess for a word it has not seen."""

    num_layers = 3

    def __init__(self, tag_of: dict, tags: list[str], signal: float = 4.0):
        self.tag_of, self.tags, self.signal = tag_of, tags, signal

    def embed(self, sentences):
        embedded = []
        for sentence in sentences:
            rng = np.random.default_rng(zlib.crc32(" ".join(sentence).encode()))
            vectors = rng.normal(size=(3, len(sentence), 2 * len(self.tags))).astype(np.float32)
            for k, tag in enumerate(self.tag_of[tuple(sentence)]):
                vectors[:, k, self.tags.index(tag)] += self.signal
            embedded.append(vectors)
        return embedded

    def untrained(self):
        return TagVectors(self.tag_of, self.tags, signal=0.0)


@pytest.fixture(scope="module")
def tag_vectors():
    """Sentences 'd v n v n v' of 5 adverbs, 20 verbs and 3,000 rare nouns (most test nouns unseen;
    the commonest tag, which the baseline gives an unseen word, is v), and a TagVectors model."""
    rng = np.random.default_rng(3)
    pattern = ["d", "v", "n", "v", "n", "v"]
    vocabulary = {"d": [f"adv{i}" for i in range(5)], "v": [f"verb{i}" for i in range(20)],
                  "n": [f"noun{i}" for i in range(3_000)]}
    sentences = [[str(rng.choice(vocabulary[tag])) for tag in pattern] for _ in range(400)]
    corpus = from_sentences(sentences, name="tagged", tags=[pattern] * len(sentences))
    return corpus, TagVectors({tuple(sentence): pattern for sentence in sentences}, ["d", "n", "v"])


def test_pos_probe_reads_the_tag_where_the_baseline_has_only_seen_words(tag_vectors):
    corpus, model = tag_vectors
    result = pos_probe(model, corpus, num_sentences=400, seed=1, per_token=True, C=(1e-4, 1.0),
                       dev_share=0.25)
    assert 0.3 < result["seen_share"] < 0.9
    assert result["most_frequent_tag_seen"] == 1.0 and result["most_frequent_tag_unseen"] == 0.0  # nouns -> v
    for layer in result["layers"]:
        assert layer["trained_unseen"] > 0.95 > result["most_frequent_tag_unseen"] + 0.9
        assert layer["trained_seen"] == pytest.approx(result["most_frequent_tag_seen"], abs=0.02)
        assert layer["trained_C"] == 1.0 and layer["trained_dev"] > 0.95  # C = 1e-4 can hardly move off v
        assert layer["untrained"] < 0.75 and layer["untrained_unseen"] < 0.5  # noise alone: little to read
        assert layer["trained_margin"] == pytest.approx(layer["trained"] - result["most_frequent_tag"])
        assert layer["trained_margin"] > 4 * layer["trained_margin_se"] > 0
        assert layer["trained_margin_unseen"] > 0.95 and layer["trained_margin_seen"] == pytest.approx(0, abs=0.02)
    # The seen and unseen tokens partition the test tokens, and the figures add up.
    per_token = result["per_token"]
    seen = per_token["seen"]
    assert len(seen) == result["test_tokens"] == per_token["sizes"].sum() == per_token["trained"].shape[1]
    assert result["seen_share"] == pytest.approx(seen.mean())
    for layer, right in zip(result["layers"], per_token["trained"], strict=True):
        assert layer["trained"] == pytest.approx(right.mean())
        assert layer["trained"] == pytest.approx(result["seen_share"] * layer["trained_seen"]
                                                 + (1 - result["seen_share"]) * layer["trained_unseen"])
    assert result["most_frequent_tag"] == pytest.approx(per_token["most_frequent_tag"].mean())
    assert result["train_tokens"] + result["dev_tokens"] + result["test_tokens"] == 400 * 6


def test_pos_probe_standard_errors_are_reproducible_from_the_seed(tag_vectors):
    corpus, model = tag_vectors
    settings = dict(num_sentences=200, seed=4, untrained=False, dev_share=0.25)
    first, again = pos_probe(model, corpus, **settings), pos_probe(model, corpus, **settings)
    assert first == again
    assert 0 < first["most_frequent_tag_se"] < 0.1 and first["layers"][0]["untrained"] is None
    fewer = pos_probe(model, corpus, **settings, bootstrap=50)
    assert fewer["most_frequent_tag"] == first["most_frequent_tag"]
    assert fewer["most_frequent_tag_se"] != first["most_frequent_tag_se"]
    # Without dev sentences the probe trains on every sentence that is not a test sentence.
    whole = pos_probe(model, corpus, **{**settings, "dev_share": 0})
    assert whole["dev_tokens"] == 0 and whole["layers"][0]["trained_dev"] is None
    assert whole["train_tokens"] == first["train_tokens"] + first["dev_tokens"]
    with pytest.raises(SettingError, match="dev sentences"):
        pos_probe(model, corpus, num_sentences=200, C=(1.0, 10.0))
