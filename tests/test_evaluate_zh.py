"""Chinese vectors scored as English ones are: CA8 and wordsim-240/297 shipped and read, the language
taken from the vectors, and 3CosAdd equal to CA8's own evaluator (``tests/fixtures/ca8/``, Apache-2.0)."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import run_course

from course.analysis import evaluate
from course.analysis.vectors import keyed_vectors, save_vectors

CA8_EVALUATOR = Path(__file__).parent / "fixtures" / "ca8" / "ana_eval_dense.py"


def test_the_chinese_benchmarks_are_shipped_whole():
    morphological = evaluate.read_analogies("ca8-morphological")
    semantic = evaluate.read_analogies("ca8-semantic")
    assert sum(len(q) for _, q in morphological) == 10_177 and sum(len(q) for _, q in semantic) == 7_636
    assert [name for name, _ in evaluate.read_analogies("ca8")] == [n for n, _ in morphological + semantic]
    assert {name.split("/")[1] for name, _ in semantic} == {"geography", "nature", "history", "people"}
    assert len(evaluate.read_word_pairs("wordsim240")) == 240 and len(evaluate.read_word_pairs("wordsim297")) == 297
    licences = Path(evaluate.__file__).parents[1] / "data" / "benchmarks"
    assert (licences / "ca8" / "LICENSE").is_file() and (licences / "wordsim-zh" / "LICENSE").is_file()


def planted_ca8_vectors(dim=40, seed=0):
    """Vectors for every CA8 word in which each section's pairs share an offset (with noise), words
    in several pairs only partly: 3CosAdd then answers some questions and misses others."""
    rng = np.random.default_rng(seed)
    vectors: dict[str, np.ndarray] = {}
    for _, questions in evaluate.read_analogies("ca8"):
        offset = rng.normal(size=dim) * 1.5
        for a, b, c, d in questions:
            for first, second in ((a, b), (c, d)):
                vectors.setdefault(first, rng.normal(size=dim))
                if second not in vectors:
                    vectors[second] = vectors[first] + offset + rng.normal(size=dim) * 0.6
    words = sorted(vectors)
    rng.shuffle(words)
    return keyed_vectors(words, np.stack([vectors[w] for w in words]).astype(np.float32))


def ca8_evaluator(vectors_file: Path, analogies: Path) -> dict[str, float]:
    """CA8's own evaluator run on a text vectors file: its printed 3CosAdd accuracy per category and
    in total (rounded to 3 decimals, as it prints them)."""
    result = subprocess.run([sys.executable, str(CA8_EVALUATOR), "-v", str(vectors_file), "-a", str(analogies)],
                            capture_output=True, text=True, env={**os.environ, "PYTHONUTF8": "1"}, timeout=600)
    assert result.returncode == 0, result.stderr
    figures = {}
    for line in result.stdout.splitlines():
        if match := re.fullmatch(r"(\S+) add/mul: ([\d.]+)/([\d.]+)", line):
            figures[match.group(1)] = float(match.group(2))
        elif match := re.fullmatch(r"Total accuracy \(add\): ([\d.]+)", line):
            figures["total"] = float(match.group(1))
    return figures


@pytest.mark.parametrize("half", ["morphological", "semantic"])
def test_3cosadd_equals_ca8s_own_evaluator(tmp_path, half):
    kv = planted_ca8_vectors()
    text = tmp_path / "vectors.txt"
    save_vectors(kv, text)
    theirs = ca8_evaluator(text, evaluate.benchmark_path(f"ca8-{half}"))
    ours = evaluate.evaluate_analogies(kv, f"ca8-{half}", method="3cosadd", restrict_vocab=len(kv))
    assert 0.1 < ours.total.accuracy < 0.9  # a test with right and wrong answers
    assert round(ours.total.accuracy, 3) == theirs["total"]
    for section in ours.sections:
        assert round(section.accuracy, 3) == theirs[section.name.split("/")[1]], section.name
    assert ours.total.skipped == 0  # every word has a vector: both ask every question


def test_evaluate_takes_the_benchmarks_of_the_vectors_language(tmp_path):
    kv = planted_ca8_vectors(dim=20)
    assert evaluate.language_of(kv) == "zh"
    path = tmp_path / "zh.bin"
    save_vectors(kv, path, binary=True)
    result = run_course("evaluate", path, "--method", "3cosadd", "--json")
    assert result.returncode == 0, result.stderr
    figures = json.loads(result.stdout)
    assert figures["vectors"]["language"] == "zh"
    assert set(figures["similarity"]) == {"wordsim240", "wordsim297"}
    assert figures["analogies"]["3cosadd"]["total"]["answered"] == 17_813
    assert [s["name"] for s in figures["analogies"]["3cosadd"]["sections"]][0] == "morphological/A"
    table = run_course("evaluate", path, "--method", "3cosadd")
    assert "morphological" in table.stdout and "wordsim240" in table.stdout
    english = run_course("evaluate", path, "--language", "en", "--method", "3cosadd", "--json")
    assert json.loads(english.stdout)["analogies"]["3cosadd"]["total"]["answered"] == 0


def test_english_vectors_keep_the_english_benchmarks(wiki_vectors):
    assert evaluate.language_of(wiki_vectors) == "en"
    results = evaluate.evaluate_all(wiki_vectors, methods=("3cosadd",))
    assert set(results["similarity"]) == {"wordsim353", "simlex999"}
