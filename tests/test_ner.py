"""Named entities of People's Daily: the reader (brackets, tags, its errors), BIO labels, entities read back
as seqeval reads them, the splits, and the tagger command's one-line errors."""

import subprocess
import sys
from collections import Counter

import numpy as np
import pytest
import torch
from conftest import assert_one_line_error

from course.core.errors import SettingError
from course.tasks.ner import LabelledFileError, bio_labels, entity_spans, ner_data, read_people_daily, sentences_of


def write(tmp_path, text, name="pd.txt"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def labels_of(tmp_path, line):
    return bio_labels(read_people_daily(write(tmp_path, line + "\n"))[0])


def test_names_places_and_organisations(tmp_path):
    line = "中共中央/nt 总书记/n 江/nr 泽民/nr 在/p 北京/ns 中国/ns 会见/v 克林顿/nr 。/w"
    assert labels_of(tmp_path, line) == ["B-ORG", "O", "B-PER", "I-PER", "O", "B-LOC", "B-LOC", "O", "B-PER", "O"]


def test_a_bracket_is_one_entity_and_two_brackets_are_two(tmp_path):
    line = "[中央/n 人民/n 广播/vn 电台/n]nt [北京/ns 大学/n]nt 的/u [一/m 个/q]nz 人/n"
    labels = labels_of(tmp_path, line)
    assert labels == ["B-ORG", "I-ORG", "I-ORG", "I-ORG", "B-ORG", "I-ORG", "O", "O", "O", "O"]
    assert entity_spans(labels) == [("ORG", 0, 4), ("ORG", 4, 6)]


def test_sentences_are_cut_as_the_corpus_cuts_them(tmp_path):
    paragraph = read_people_daily(write(tmp_path, "江/nr 泽民/nr ，/w 北京/ns 。/w 新华社/nt 报道/v\n"))[0]
    sentences = sentences_of(paragraph)
    assert [s.words for s in sentences] == [("江", "泽民", "北京"), ("新华社", "报道")]
    assert [s.labels for s in sentences] == [("B-PER", "I-PER", "B-LOC"), ("B-ORG", "O")]


def test_a_name_cut_by_punctuation_starts_again(tmp_path):
    paragraph = read_people_daily(write(tmp_path, "[北京/ns ，/w 大学/n]nt\n"))[0]
    assert sentences_of(paragraph)[0].labels == ("B-ORG", "I-ORG")
    paragraph = read_people_daily(write(tmp_path, "[北京/ns 。/w 大学/n]nt\n"))[0]
    assert [s.labels for s in sentences_of(paragraph)] == [("B-ORG",), ("B-ORG",)]


@pytest.mark.parametrize("line, fragment", [
    ("北京/xx 大学/n", "unknown tag 'xx'"),
    ("[北京/ns 大学/n", "never closed"),
    ("北京/ns 大学/n]nt", "never opened"),
    ("[北京/ns [大学/n]nt", "opened inside another"),
    ("[北京/ns 大学/n]qq", "unknown tag 'qq'"),
    ("北京 大学/n", "not a word/tag item"),
])
def test_a_broken_file_names_its_line(tmp_path, line, fragment):
    path = write(tmp_path, "中国/ns 人民/n\n" + line + "\n")
    with pytest.raises(LabelledFileError, match=fragment) as error:
        read_people_daily(path)
    assert "line 2" in str(error.value) and str(path) in str(error.value)


def test_the_files_two_slips_are_read_as_what_they_stand_for(tmp_path):
    assert labels_of(tmp_path, "镇国寺/na 面试/vvn") == ["B-LOC", "O"]


def test_entities_are_read_back_as_seqeval_reads_them():
    from seqeval.metrics.sequence_labeling import get_entities

    rng = np.random.default_rng(0)
    choices = ["O", "B-PER", "I-PER", "B-LOC", "I-LOC", "I-ORG", "B-ORG"]
    for _ in range(2_000):
        labels = list(rng.choice(choices, int(rng.integers(0, 12))))
        assert entity_spans(labels) == [(kind, start, end + 1) for kind, start, end in get_entities(labels)], labels


def test_the_data_set_holds_every_sentence_of_the_corpus():
    import course

    data = ner_data()
    corpus = course.load_corpus("peoples-daily-zh", progress=False)
    ours = Counter(s.words for s in data.train + data.dev + data.test)
    assert ours == Counter(tuple(sentence) for sentence in corpus)
    info = {row["split"]: row for row in data.info()}
    assert info["train"]["sentences"] > 7 * info["test"]["sentences"] > 0
    assert 0.7 < info["dev"]["sentences"] / info["test"]["sentences"] < 1.4
    total = Counter()
    for row in info.values():
        total.update({kind: row[kind] for kind in ("PER", "LOC", "ORG")})
    assert total["PER"] > 15_000 and total["LOC"] > 25_000 and 3_000 < total["ORG"] < 3_600


def test_labelled_sentences_are_drawn_nested_and_refused_beyond_the_split(tmp_path):
    lines = [f"张/nr 三{i}/nr 在/p 北京/ns 。/w" for i in range(120)]
    data = ner_data(write(tmp_path, "\n".join(lines) + "\n"))
    small, large = data.training_sentences(10, seed=3), data.training_sentences(40, seed=3)
    assert small == large[:10] and small != data.training_sentences(10, seed=4)
    assert len(data.training_sentences("all")) == len(data.train) == 100
    for count, fragment in [(101, "has 100"), (0, "positive whole number"), (True, "positive whole number")]:
        with pytest.raises(SettingError, match=fragment):
            data.training_sentences(count)


def test_a_file_too_small_for_three_splits_says_so(tmp_path):
    with pytest.raises(LabelledFileError, match="the dev split is empty"):
        ner_data(write(tmp_path, "张/nr 三/nr 。/w\n" * 50))


def run(*args):
    return subprocess.run([sys.executable, "-m", "course", "train", "tagger", *map(str, args)], capture_output=True,
                          text=True)


def test_the_tagger_command_refuses_bad_input_in_one_line(tmp_path):
    broken = write(tmp_path, "中国/ns\n[北京/ns 大学/n\n")
    assert_one_line_error(run("--data", broken, "--labels", 10), "line 2", "never closed")
    unknown = write(tmp_path, "中国/zz\n", "unknown.txt")
    assert_one_line_error(run("--data", unknown), "unknown tag 'zz'")
    small = write(tmp_path, "张/nr 三/nr 在/p 北京/ns 。/w\n" * 100, "small.txt")
    assert_one_line_error(run("--data", small, "--labels", 1_000), "1,000 labelled sentences asked for", "has 80")
    assert_one_line_error(run("--data", small, "--labels", "many"), "positive whole number or 'all'")
    assert_one_line_error(run("--data", small, "--input", "glove"), "--input glove needs --vectors")
    assert_one_line_error(run("--data", small, "--resume"), "--resume needs --checkpoint")
    assert_one_line_error(run("--data", small, "--input", "bert-finetuned"), "--input bert-finetuned needs --bert FILE")
    elmo_file = tmp_path / "elmo.pt"
    torch.save({"format": "course.elmo/1"}, elmo_file)  # a model file of another kind
    assert_one_line_error(run("--data", small, "--input", "bert", "--bert", elmo_file), "an ELMo model file")
    assert_one_line_error(run("--data", small, "--input", "elmo", "--elmo", tmp_path / "none.pt"), "no such model file")
    out = tmp_path / "report.json"
    assert not out.exists()


def test_the_tagger_command_checkpoints_and_resumes(tmp_path):
    import json

    data = write(tmp_path, "张/nr 三/nr 在/p 北京/ns 。/w\n李/nr 四/nr 去/v 上海/ns 。/w\n" * 50)
    checkpoint, first, second = tmp_path / "tagger.pt", tmp_path / "first.json", tmp_path / "second.json"
    common = ("--data", data, "--labels", 20, "--epochs", 2, "--device", "cpu", "--quiet", "--checkpoint", checkpoint)
    assert run(*common, "--out", first).returncode == 0 and checkpoint.is_file()
    resumed = run(*common, "--resume", "--out", second)  # every epoch is done: resuming trains nothing more
    assert resumed.returncode == 0, resumed.stderr
    before, after = json.loads(first.read_text()), json.loads(second.read_text())
    assert after["f1"] == before["f1"] and after["best_epoch"] == before["best_epoch"]
    assert_one_line_error(run(*common[:5], 3, *common[6:], "--resume"), "was trained with other settings",
                          "epochs=2 (now 3)")
