"""The command line, run as a user runs it: a new process, its output and exit status."""

import json
import os
import subprocess
import sys

import pytest

from course.analysis.vectors import save_vectors


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
    from course.analysis.evaluate import evaluate_all

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


@pytest.mark.parametrize("model", ["word2vec", "glove"])
def test_a_gpu_that_is_not_there_is_refused_before_the_corpus_is_read(tmp_path, model):
    text = tmp_path / "text.txt"
    text.write_text("The cat sat on the mat.\n", encoding="utf-8")
    env = {"COURSE_CACHE": str(tmp_path / "cache")}
    for device, fragment in [("cuda:99", "'cuda:99'"), ("cuda:x", "unknown device 'cuda:x'"),
                             ("tpu", "unknown device 'tpu'")]:
        result = run("train", model, "--corpus", text, "--device", device, "--out", tmp_path / "v.txt", "--quiet",
                     env=env)
        assert_one_line_error(result, fragment)
    assert not (tmp_path / "cache").exists() and not (tmp_path / "v.txt").exists()


def test_a_gpu_index_past_the_machines_gpus_is_refused(monkeypatch):
    """On a machine with two GPUs (torch told so), cuda:1 is a device and cuda:2 is refused in one line."""
    import torch

    from course.core.devices import resolve_device
    from course.core.errors import SettingError

    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 2)
    assert resolve_device("cuda:1") == torch.device("cuda", 1) and resolve_device("CUDA") == torch.device("cuda")
    with pytest.raises(SettingError, match=r"'cuda:2' asked for, but this machine has 2 CUDA GPUs \(cuda:0 to cuda:1"):
        resolve_device("cuda:2")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    with pytest.raises(SettingError, match="'cuda:0' asked for, but this machine has no CUDA GPU"):
        resolve_device("cuda:0")


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
    for settings, fragment in [(["--dim", "0"], "--dim: must be from 1"), (["--window", "0"], "window"),
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


# ------------------------------------------------- a pretrained model of another language is refused


@pytest.fixture(scope="module")
def english_models(tmp_path_factory):
    """A tiny English biLM and English static vectors, to put under Chinese text."""
    import numpy as np

    from course.analysis.vectors import keyed_vectors
    from course.elmo import ElmoConfig, train_elmo
    from course.text.corpus import from_sentences
    from tests.test_ulmfit import TINY

    folder = tmp_path_factory.mktemp("english")
    sentences = [["the", "cat", "sat", "on", "the", "mat"], ["a", "dog", "ran", "home"]] * 20
    elmo = train_elmo(from_sentences(sentences), ElmoConfig(**TINY, epochs=1), progress=False).save(folder / "en.pt")
    words = sorted({word for sentence in sentences for word in sentence})
    vectors = save_vectors(keyed_vectors(words, np.eye(len(words))), folder / "en.txt")
    chinese = save_vectors(keyed_vectors(["张", "三", "在", "北京"], np.eye(4)), folder / "zh.txt")
    return elmo, vectors, chinese


def test_train_tagger_refuses_a_model_of_another_language(english_models, tmp_path, capsys):
    from course.cli import main

    elmo, vectors, chinese = english_models
    data = tmp_path / "pd.txt"
    data.write_text("张/nr 三/nr 在/p 北京/ns 。/w\n" * 100, encoding="utf-8")
    out = tmp_path / "report.json"
    for flags, where in [(["--input", "elmo", "--elmo", elmo], f"--elmo {elmo}"),
                         (["--input", "elmo-finetuned", "--elmo", elmo], f"--elmo {elmo}"),
                         (["--input", "word2vec", "--vectors", vectors], f"--vectors {vectors}"),
                         (["--input", "glove", "--vectors", vectors], f"--vectors {vectors}")]:
        status = main(["train", "tagger", "--data", str(data), "--labels", "20", "--epochs", "1", "--quiet",
                       "--device", "cpu", "--out", str(out), *map(str, flags)])
        error = capsys.readouterr().err.strip().splitlines()
        assert status == 2 and len(error) == 1, error
        assert error[0].startswith(f"error: {where} knows 0.0% of the characters") and "another vocabulary" in error[0]
        assert not out.exists()
    # vectors of the text's own language pass the check and train
    assert main(["train", "tagger", "--data", str(data), "--labels", "20", "--epochs", "1", "--quiet", "--device",
                 "cpu", "--input", "word2vec", "--vectors", str(chinese), "--out", str(out)]) == 0
    assert json.loads(out.read_text(encoding="utf-8"))["labels"] == 20


def test_probe_refuses_a_biLM_of_another_language(english_models, tmp_path, capsys):
    from course.cli import main

    elmo, vectors, _ = english_models
    status = main(["probe", "--model", str(elmo), "--probes", "zh_polysemy.tsv", "--device", "cpu"])
    error = capsys.readouterr().err.strip().splitlines()
    assert status == 2 and len(error) == 1 and error[0].startswith(f"error: --model {elmo} knows"), error
    assert "another vocabulary" in error[0]


def test_editions_of_a_folder_without_notebooks_is_one_line(tmp_path, capsys):
    from course.cli import main

    for action in ("check", "sync"):
        assert main(["editions", action, "--notebooks", str(tmp_path)]) == 2
        error = capsys.readouterr().err.strip().splitlines()
        assert error == [f"error: {tmp_path}: no NN_*.ipynb notebooks"], error


def test_corpus_commands_rebuild_a_damaged_cache_and_say_so(tmp_path):
    import numpy as np

    text = tmp_path / "story.txt"
    text.write_text("The cat sat on the mat. The dog sat too!\nA bird sang over the mat.\n" * 30, encoding="utf-8")
    env = {"COURSE_CACHE": str(tmp_path / "cache")}
    fresh = run("corpus", "info", text, "--json", env=env)
    assert fresh.returncode == 0 and json.loads(fresh.stdout)["tokens"] == 480
    [path] = (tmp_path / "cache" / "corpora").glob("*.npz")
    with np.load(path) as data:
        arrays = {name: data[name] for name in data.files}
    with open(path, "wb") as handle:  # token_ids cut short, the rest as it was
        np.savez(handle, **{**arrays, "token_ids": arrays["token_ids"][:100]})
    healed = run("corpus", "info", text, "--json", env=env)
    assert healed.returncode == 0 and json.loads(healed.stdout) == json.loads(fresh.stdout)
    assert healed.stderr.startswith(f"note: the cached corpus {path} holds 100 tokens")
    assert healed.stderr.count("\n") == 1 and "rebuilding it from its source" in healed.stderr
    with open(path, "wb") as handle:  # an id far past the vocabulary
        np.savez(handle, **{**arrays, "token_ids": np.where(arrays["token_ids"] == 2, 10**9, arrays["token_ids"])
                            .astype(np.int32)})
    out = tmp_path / "story-export.txt"
    exported = run("corpus", "export", text, "--out", out, env=env)
    assert exported.returncode == 0 and "token ids from 0 to 1,000,000,000" in exported.stderr
    assert out.read_text(encoding="utf-8").splitlines()[:2] == ["the cat sat on the mat", "the dog sat too"]


def test_version_is_the_projects_and_every_example_of_the_help_parses():
    import shlex
    import tomllib
    from pathlib import Path

    from course.cli import EXAMPLES, make_parser

    declared = tomllib.loads((Path(__file__).resolve().parents[1] / "pyproject.toml").read_text())["project"]["version"]
    result = run("--version")
    assert result.returncode == 0 and result.stdout.strip() == f"python -m course {declared}", result
    assert EXAMPLES in run("--help").stdout
    examples = [line.split("  ", 2)[1].strip() for line in EXAMPLES.splitlines()
                if line.startswith("  python -m course")]
    assert len(examples) >= 5
    for example in examples:
        make_parser().parse_args(shlex.split(example)[3:])  # an example that no longer parses exits 2 here


def test_a_command_whose_extra_is_missing_says_which_to_install(tmp_path):
    """nbformat hidden from the process, as after a plain pip install without [teach]."""
    blocker = tmp_path / "sitecustomize.py"
    blocker.write_text("import sys\n\nclass Hide:\n    def find_spec(self, name, path=None, target=None):\n"
                       "        if name.partition('.')[0] in ('nbformat', 'papermill'):\n"
                       "            raise ModuleNotFoundError(f'No module named {name!r}', name=name)\n\n"
                       "sys.meta_path.insert(0, Hide())\n")
    result = run("editions", "check", env={"PYTHONPATH": f"{tmp_path}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"})
    assert_one_line_error(result, "needs nbformat", "pip install 'word-vectors-course[teach]'")
