"""The trainers' and the file commands' mistakes on the command line: one line on standard error
naming what is wrong, exit status 2, before any work is done, and nothing half-written left."""

import os
import subprocess
import sys

import pytest
import torch

from course.cli import main


def run(*args, env=None):
    return subprocess.run([sys.executable, "-m", "course", *map(str, args)], capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, timeout=300)


def _one_line(status, stderr, *fragments):
    lines = stderr.strip().splitlines()
    assert status == 2, stderr
    assert len(lines) == 1 and lines[0].startswith("error: "), stderr
    assert "Traceback" not in stderr and ".part" not in stderr, stderr
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])


def _write(path, text):
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_a_window_that_cannot_fit_is_refused_in_one_line(tmp_path):
    one_sentence = " ".join(f"w{i % 500}" for i in range(60_000))
    out = tmp_path / "vectors.txt"
    result = run("train", "word2vec", "--corpus", _write(tmp_path / "long.txt", one_sentence + "\n"),
                 "--window", "100000", "--min-count", "1", "--out", out, "--quiet",
                 env={"COURSE_CACHE": str(tmp_path / "cache")})
    _one_line(result.returncode, result.stderr, "window=100000", "would need about", "GB of memory")
    assert not out.exists()


def test_bad_settings_and_outputs_are_refused_in_one_line_before_any_work(tmp_path, capsys, private_cache):
    text = _write(tmp_path / "text.txt", "the cat sat on the mat. the dog sat on the log.\n" * 20)
    (tmp_path / "file.txt").write_text("x")
    folder = tmp_path / "a-folder"  # a folder that holds no input
    folder.mkdir()
    out = str(tmp_path / "vectors.txt")
    train = ["--corpus", text, "--min-count", "1", "--dim", "8", "--epochs", "1", "--quiet", "--out", out]
    cases = [
        (["train", "word2vec", *train, "--sample", "inf"], "sample: must be a finite number from 0 to 1, got inf"),
        (["train", "word2vec", *train, "--lr", "inf"], "lr: must be a finite number above 0"),
        # 7 words of 1e11 dimensions: 5,600 GB, more than any machine's memory (1e9 fits in 128 GB)
        (["train", "word2vec", *train, "--dim", "100000000000"], "100,000,000,000 dimensions would need about"),
        (["train", "glove", *train, "--dim", "100000000000"], "100,000,000,000 dimensions would need about"),
        (["train", "word2vec", *train, "--resume"], "--resume needs --checkpoint FILE"),
        (["train", "glove", *train, "--resume"], "--resume needs --checkpoint FILE"),
        (["train", "word2vec", *train, "--checkpoint", str(folder)], "is a folder: give a file name for the "
                                                                       "checkpoint"),
        (["train", "glove", *train, "--checkpoint", str(folder)], "is a folder: give a file name for the checkpoint"),
        (["train", "word2vec", *train[:-1], str(tmp_path / "file.txt" / "v.txt")], "file.txt is a file, not a folder"),
        (["train", "elmo", "--corpus", text, "--out", out, "--resume"], "--resume needs --checkpoint FILE"),
        (["corpus", "info", text, "--json", str(folder)], "is a folder: give a file name for the JSON"),
    ]
    if not torch.cuda.is_available():
        cases.append((["probe", "--model", str(tmp_path / "no-model.pt"), "--probes", text, "--device", "cuda"],
                      "no CUDA GPU"))
    for arguments, message in cases:
        try:
            status = main(arguments)
        except SystemExit as stop:  # a number out of its range, refused by the parser
            status = stop.code
        _one_line(status, capsys.readouterr().err, message)
        assert not os.path.exists(out), arguments
    assert [path.name for path in tmp_path.iterdir() if path.name.startswith(".")] == []


def test_vectors_files_with_a_duplicate_a_latin1_word_or_a_huge_header_are_one_line(tmp_path, capsys):
    files = {
        "duplicate.txt": (b"2 2\nking 0.1 0.2\nking 0.3 0.4\n", "the word 'king' appears again"),
        "latin1.txt": ("1 2\ncafé 0.1 0.2\n".encode("latin-1"), "not UTF-8"),
        "count.txt": (b"99999999999 2\nking 0.1 0.2\n", "declares 99,999,999,999 words"),
        "dimensions.txt": (b"1 99999999999\nking 0.1 0.2\n", "of 99,999,999,999 dimensions"),
        "nan.txt": (b"1 2\nking nan 0.2\n", "holds NaN or infinity"),
        "fewer.txt": (b"1 2\nking 0.1 0.2\nqueen 0.2 0.1\n", "declares 1 word, but the file holds 2 lines"),
    }
    for name, (content, message) in files.items():
        (tmp_path / name).write_bytes(content)
        status = main(["evaluate", str(tmp_path / name)])
        _one_line(status, capsys.readouterr().err, name, message)


def test_resuming_a_damaged_or_another_corpus_checkpoint_says_so(tmp_path, capsys, private_cache):
    first = _write(tmp_path / "first.txt", "the cat sat on the mat. the dog sat on the log.\n" * 20)
    second = _write(tmp_path / "second.txt", "a bird flew over the tree. a fish swam in the sea.\n" * 20)
    checkpoint = tmp_path / "w2v.ckpt"
    settings = ["--min-count", "1", "--dim", "8", "--epochs", "1", "--threads", "1", "--quiet",
                "--out", str(tmp_path / "v.txt"), "--checkpoint", str(checkpoint), "--resume"]
    assert main(["train", "word2vec", "--corpus", first, *settings]) == 0
    capsys.readouterr()
    assert main(["train", "word2vec", "--corpus", second, *settings]) == 2
    _one_line(2, capsys.readouterr().err, "w2v.ckpt: was trained on another corpus", "first.txt", "second.txt")
    checkpoint.write_bytes(checkpoint.read_bytes()[:-100])
    assert main(["train", "word2vec", "--corpus", first, *settings]) == 2
    _one_line(2, capsys.readouterr().err, "w2v.ckpt: not a readable word2vec checkpoint, truncated or damaged")


@pytest.mark.parametrize("model", ["word2vec", "glove"])
def test_help_says_which_runs_are_repeatable(model, capsys):
    with pytest.raises(SystemExit):
        main(["train", model, "--help"])
    assert "only 1 is repeatable" in " ".join(capsys.readouterr().out.split())


@pytest.mark.parametrize("model", ["word2vec", "glove", "elmo", "transformer"])
def test_training_options_are_the_settings_dataclass_fields(model, capsys, monkeypatch):
    """Every described setting is an option whose help is its one-line description and whose default is the
    dataclass's (or, for the preset trainers, the cpu preset's); the options build back the same config."""
    import dataclasses

    from course.cli import make_parser
    from course.core.fields import described, from_options, option_name
    from course.elmo import ElmoConfig
    from course.elmo import preset as elmo_preset
    from course.glove import GloVeConfig
    from course.transformer import TransformerConfig
    from course.transformer import preset as transformer_preset
    from course.word2vec import Word2VecConfig

    monkeypatch.setenv("COLUMNS", "2000")  # argparse wraps help at hyphens otherwise
    config_class, shown = {"word2vec": (Word2VecConfig, Word2VecConfig()), "glove": (GloVeConfig, GloVeConfig()),
                           "elmo": (ElmoConfig, elmo_preset("cpu")),
                           "transformer": (TransformerConfig, transformer_preset("cpu"))}[model]
    with pytest.raises(SystemExit):
        main(["train", model, "--help"])
    text = " ".join(capsys.readouterr().out.split())
    fields = described(config_class)
    assert len(fields) >= 10
    for field in fields:
        value = getattr(shown, field.name)
        assert option_name(field.name) in text, field.name
        assert " ".join(field.metadata["help"].split()) in text, field.name
        assert (f"{value:,}" if type(value) is int else "none" if value is None else str(value)) in text, field.name
    base = [] if model in ("word2vec", "glove") else ["--preset", "cpu"]
    args = make_parser().parse_args(["train", model, "--corpus", "c", "--out", "o", *base, "--epochs", "2",
                                     "--seed", "7"])
    config = from_options(config_class, args, base=None if not base else shown)
    assert config == dataclasses.replace(shown, epochs=2, seed=7)


def test_a_transformer_trains_from_the_command_line_and_bad_settings_are_one_line(tmp_path, private_cache):
    from course.transformer import Transformer

    text = _write(tmp_path / "text.txt", "the cat sat on the mat . the dog sat on the log .\n" * 60)
    out = tmp_path / "bert.pt"
    tiny = ["--min-count", "1", "--epochs", "1", "--batch-tokens", "200", "--device", "cpu", "--quiet"]
    result = run("train", "transformer", "--corpus", text, "--objective", "masked", *tiny, "--out", out,
                 env={"COURSE_CACHE": str(private_cache)})
    assert result.returncode == 0, result.stderr
    model = Transformer.load(out)
    assert model.config.objective == "masked" and model.config.epochs == 1 and model.state.finished
    assert "masked Transformer" in result.stderr and "held-out perplexity" in result.stderr
    for args, fragment in [(["--preset", "huge"], "invalid choice: 'huge'"),
                           (["--mask-share", "1.5"], "--mask-share: must be above 0 and below 1"),
                           (["--resume"], "--resume needs --checkpoint"),
                           (["--out", tmp_path], "is a folder")]:
        result = run("train", "transformer", "--corpus", text, *tiny, "--out", tmp_path / "x.pt", *args)
        _one_line(result.returncode, result.stderr, fragment)
    assert not (tmp_path / "x.pt").exists()


@pytest.mark.parametrize("model", ["tagger", "classifier"])
def test_task_trainers_options_are_their_settings_too(model, capsys, monkeypatch):
    from course.cli import make_parser
    from course.core.fields import described, from_options, option_name
    from course.tagger import TaggerConfig
    from course.ulmfit import ClassifierConfig

    monkeypatch.setenv("COLUMNS", "2000")
    config_class = TaggerConfig if model == "tagger" else ClassifierConfig
    with pytest.raises(SystemExit):
        main(["train", model, "--help"])
    text = " ".join(capsys.readouterr().out.split())
    for field in described(config_class):
        if field.name != "pretrained":  # the classifier's --scratch
            assert option_name(field.name) in text and " ".join(field.metadata["help"].split()) in text, field.name
    extra = ["--lm", "lm.pt", "--scratch", "--no-slanted"] if model == "classifier" else ["--input", "glove"]
    args = make_parser().parse_args(["train", model, *extra, "--epochs", "4", "--lr", "0.5"])
    config = from_options(config_class, args, **({"pretrained": not args.scratch} if model == "classifier" else {}))
    expected = {"epochs": 4, "lr": 0.5, **({"pretrained": False, "slanted": False} if model == "classifier"
                                            else {"input": "glove"})}
    assert config == config_class(**expected)


def test_a_language_model_refuses_to_resume_on_another_corpus(tmp_path, capsys, private_cache):
    english = _write(tmp_path / "english.txt", "the cat sat on the mat . the dog sat on the log .\n" * 60)
    chinese = _write(tmp_path / "chinese.txt", "我们 今天 去 学校 。 他们 明天 去 公园 。\n" * 60)
    checkpoint = tmp_path / "lm.ckpt"
    tiny = ["--min-count", "1", "--epochs", "1", "--batch-tokens", "200", "--device", "cpu", "--quiet",
            "--checkpoint", str(checkpoint), "--resume"]
    assert main(["train", "transformer", "--corpus", english, *tiny, "--out", str(tmp_path / "en.pt")]) == 0
    capsys.readouterr()
    saved = checkpoint.read_bytes()
    status = main(["train", "transformer", "--corpus", chinese, *tiny, "--out", str(tmp_path / "zh.pt")])
    _one_line(status, capsys.readouterr().err, "lm.ckpt: was trained on another corpus (", "english.txt', 60 "
              "sentences, 720 tokens; now '", "chinese.txt', 120 sentences, 480 tokens)", "and with another vocabulary")
    assert checkpoint.read_bytes() == saved and not (tmp_path / "zh.pt").exists()


@pytest.mark.parametrize("model", ["transformer", "word2vec"])
def test_a_full_disk_is_one_line_naming_the_file(tmp_path, capsys, monkeypatch, private_cache, model):
    from test_paths import full_disk_for

    text = _write(tmp_path / "text.txt", "the cat sat on the mat . the dog sat on the log .\n" * 60)
    out = tmp_path / ("model.pt" if model == "transformer" else "vectors.txt")
    settings = (["--batch-tokens", "200", "--device", "cpu"] if model == "transformer" else ["--dim", "8"])
    full_disk_for(monkeypatch, out)  # torch's zip writer fails with a RuntimeError, a text write with ENOSPC
    status = main(["train", model, "--corpus", text, "--min-count", "1", "--epochs", "1", *settings, "--quiet",
                   "--out", str(out)])
    _one_line(status, capsys.readouterr().err, f"{out}: could not be written", "nothing was written")
    assert not out.exists() and not [p for p in tmp_path.iterdir() if p.name.endswith(".part")]


def test_a_second_run_with_the_same_out_is_refused_at_its_start(tmp_path, capsys, private_cache):
    text = _write(tmp_path / "text.txt", "the cat sat on the mat . the dog sat on the log .\n" * 20)
    out = tmp_path / "vectors.txt"
    holder = subprocess.Popen([sys.executable, "-c", "import sys, time\nfrom course.core.io import claim_output\n"
                               "claim_output(sys.argv[1], 'vectors')\nprint('held', flush=True)\ntime.sleep(120)\n",
                               str(out)], stdout=subprocess.PIPE, text=True)
    train = ["train", "word2vec", "--corpus", text, "--min-count", "1", "--dim", "8", "--epochs", "1", "--quiet",
             "--out", str(out)]
    try:
        assert holder.stdout.readline().strip() == "held"  # a first run, writing this file
        status = main(train)
        _one_line(status, capsys.readouterr().err, f"{out}: another run is writing this vectors now "
                  f"(process {holder.pid}); wait for it to end, or give another file")
        assert not out.exists()
    finally:
        holder.kill()
        holder.wait()
    assert main(train) == 0 and out.exists()  # once it has ended
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []  # no lock file left
