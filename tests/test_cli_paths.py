"""Every subcommand's paths and numbers, enumerated from the parser and the settings dataclasses themselves:
an output over an input (or over another output, or inside an input folder) and a number outside its range
are refused in one line, exit 2, before anything is read or written, so a new subcommand or setting cannot
forget the rule."""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import math
import os
import pkgutil
from pathlib import Path

import pytest

import course
from course.cli import main, make_parser
from course.core.errors import SettingError
from course.core.fields import INPUT, OUTPUT, RANGE, ROLE, TEXT, described


def leaves(parser=None, prefix=()):
    """``(words, parser)`` of every subcommand: ``(("train", "word2vec"), its parser)``."""
    parser = parser or make_parser()
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not subs:
        yield prefix, parser
        return
    for name, sub in subs[0].choices.items():
        yield from leaves(sub, (*prefix, name))


LEAVES = list(leaves())
SWITCHES = (argparse._HelpAction, argparse._StoreTrueAction, argparse.BooleanOptionalAction)


def arguments(parser):
    return [a for a in parser._actions if not isinstance(a, SWITCHES)]


def ids(leaf) -> str:
    return " ".join(leaf[0])


def test_every_argument_says_what_it_is():
    """A string argument is a path read, a path written, or declared not a path; a number has a range."""
    missing = []
    for words, parser in LEAVES:
        for action in arguments(parser):
            if action.choices is not None:
                continue
            if action.type in (int, float):
                missing.append(f"{' '.join(words)} {action.dest}: a number without a range")
            elif not hasattr(action.type, "range") and getattr(action, ROLE, None) not in (INPUT, OUTPUT, TEXT):
                missing.append(f"{' '.join(words)} {action.dest}: neither a path read, one written, nor text")
    assert not missing, missing
    assert sum(1 for _, p in LEAVES for a in arguments(p) if getattr(a, ROLE, None) == OUTPUT) >= 20


def command_line(words, parser, tmp: Path, chosen: dict) -> list[str]:
    """An argv for the subcommand: ``chosen`` (dest -> value) as given, every other required argument a
    harmless value of its kind (an input: a file of its own; an output: a new file of its own)."""
    argv = list(words)
    for number, action in enumerate(arguments(parser)):
        value = chosen.get(action.dest)
        if value is None and not (action.required or not action.option_strings):
            continue
        if value is None:
            role = getattr(action, ROLE, TEXT)
            if role == INPUT:
                value = tmp / f"other-input-{number}.txt"
                value.write_text("one two\n", encoding="utf-8")
            elif role == OUTPUT:
                value = tmp / f"other-output-{number}.txt"
            elif action.choices is not None:
                value = next(iter(action.choices))
            else:
                value = "x"
        argv += [*action.option_strings[-1:], str(value)]
    return argv


def refused(argv, capsys) -> str:
    """The one line of a refusal with exit 2."""
    assert main(argv) == 2, argv
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("error: "), err
    return err


def pairs(role_a: str, role_b: str):
    for words, parser in LEAVES:
        for a in arguments(parser):
            for b in arguments(parser):
                if a is not b and getattr(a, ROLE, None) == role_a and getattr(b, ROLE, None) == role_b:
                    yield pytest.param(words, parser, a, b, id=f"{' '.join(words)} {a.dest}={b.dest}")


@pytest.mark.parametrize(("words", "parser", "output", "source"), list(pairs(OUTPUT, INPUT)))
def test_an_output_over_an_input_is_refused(words, parser, output, source, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    given = tmp_path / "given.txt"
    given.write_text("the input, which must survive\n", encoding="utf-8")
    link = tmp_path / "link.txt"
    link.symlink_to(given)
    hard = tmp_path / "hard.txt"
    os.link(given, hard)
    for written in (given, link, hard):  # the same file, after links; the same inode
        err = refused(command_line(words, parser, tmp_path, {source.dest: given, output.dest: written}), capsys)
        assert "input" in err
    assert given.read_text(encoding="utf-8") == "the input, which must survive\n"
    folder = tmp_path / "folder"
    folder.mkdir()
    (folder / "inside.txt").write_text("x\n", encoding="utf-8")
    refused(command_line(words, parser, tmp_path, {source.dest: folder, output.dest: folder / "new.txt"}), capsys)
    refused(command_line(words, parser, tmp_path, {source.dest: folder / "inside.txt", output.dest: folder}), capsys)
    assert sorted(p.name for p in folder.iterdir()) == ["inside.txt"]


@pytest.mark.parametrize(("words", "parser", "first", "second"), list(pairs(OUTPUT, OUTPUT)))
def test_two_outputs_in_one_file_are_refused(words, parser, first, second, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    same = tmp_path / "out.bin"
    err = refused(command_line(words, parser, tmp_path, {first.dest: same, second.dest: same}), capsys)
    assert "same file" in err
    assert not same.exists() and not any(tmp_path.glob(".out.bin*"))


def test_outputs_apart_from_inputs_pass_the_rule(tmp_path):
    """The rule refuses only what it should: a named corpus, standard output and files side by side pass."""
    from course.core.io import refuse_overlaps

    (tmp_path / "in.txt").write_text("x\n", encoding="utf-8")
    refuse_overlaps([("--corpus", "wiki-en"), ("--corpus", tmp_path / "in.txt")],
                    [("--out", tmp_path / "out.txt"), ("--json", "-"), ("--checkpoint", None)])


def out_of_range(kind, bounds) -> list:
    """Values just outside ``bounds`` (and nan, inf for a float)."""
    values = [bounds.low if bounds.low_open else bounds.low - (1 if kind is int else abs(bounds.low) * 1e-6 + 1e-9),
              bounds.high if bounds.high_open else bounds.high + (1 if kind is int else abs(bounds.high) * 1e-6 + 1e-9)]
    return values + ([math.nan, math.inf, -math.inf] if kind is float else [2**70])


def numeric_options():
    for words, parser in LEAVES:
        for action in arguments(parser):
            if hasattr(action.type, "range"):
                yield pytest.param(words, parser, action, id=f"{' '.join(words)} {action.option_strings[-1]}")


@pytest.mark.parametrize(("words", "parser", "action"), list(numeric_options()))
def test_a_number_outside_its_range_is_refused_by_the_parser(words, parser, action, capsys, tmp_path):
    for value in out_of_range(action.type.kind, action.type.range):
        with pytest.raises(SystemExit) as stop:
            make_parser().parse_args([*words, action.option_strings[-1], str(value),
                                      *command_line(words, parser, tmp_path, {})[len(words):]])
        assert stop.value.code == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and action.option_strings[-1] in err, err
    inside = action.type.range.high if not action.type.range.high_open else action.type.range.low + 1e-3
    assert action.type(str(inside if action.type.kind is float else int(inside))) is not None


def settings_classes():
    """Every dataclass in the package with settings declared with :func:`course.core.fields.setting`."""
    found = {}
    for info in pkgutil.walk_packages(course.__path__, "course."):
        source = Path(importlib.util.find_spec(info.name).origin)
        if source.suffix != ".py" or "= setting(" not in source.read_text(encoding="utf-8"):
            continue
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            if dataclasses.is_dataclass(value) and isinstance(value, type) and described(value):
                found[value.__qualname__] = value
    return sorted(found.values(), key=lambda c: c.__qualname__)


SETTINGS = settings_classes()


def test_the_settings_classes_are_found():
    names = {c.__name__ for c in SETTINGS}
    assert {"Word2VecConfig", "GloVeConfig", "ElmoConfig", "TransformerConfig", "TaggerConfig", "ClassifierConfig",
            "LanguageModelConfig", "FineTuneConfig"} <= names


@pytest.mark.parametrize("config_class", SETTINGS, ids=lambda c: c.__name__)
def test_every_numeric_setting_has_a_range_that_its_config_enforces(config_class):
    default = config_class()
    numeric = [f for f in described(config_class) if str(f.type).split("|")[0].strip() in ("int", "float")]
    assert numeric
    for f in numeric:
        assert RANGE in f.metadata, f"{config_class.__name__}.{f.name} has no range"
        bounds, kind = f.metadata[RANGE], int if str(f.type).startswith("int") else float
        value = getattr(default, f.name)
        assert value is None or bounds.problem(value, whole=kind is int) is None, (f.name, value)
        for bad in out_of_range(kind, bounds):
            with pytest.raises(SettingError, match=f"^{f.name} must be"):
                dataclasses.replace(default, **{f.name: bad})
        if kind is int:
            with pytest.raises(SettingError, match=f"^{f.name} must be a whole number"):
                dataclasses.replace(default, **{f.name: 2.5})


def test_a_checkpoint_where_a_model_is_asked_for_and_the_reverse(tmp_path):
    """A training checkpoint is refused where a model is read, and a model where a checkpoint is resumed."""
    from course.core.errors import ModelFileError
    from course.elmo import Elmo, ElmoConfig
    from course.elmo.training import train_elmo
    from course.text.corpus import from_sentences

    corpus = from_sentences([["a", "b", "c", "d"], ["b", "c", "a"]] * 30)
    config = ElmoConfig(min_count=1, max_characters=12, char_dim=4, filters=((1, 4), (2, 4)), projection_dim=8,
                        lstm_dim=16, epochs=1, batch_tokens=120, heldout_every=5, device="cpu", threads=1)
    model = train_elmo(corpus, config, progress=False, checkpoint=tmp_path / "run.ckpt")
    model.save(tmp_path / "model.pt")
    with pytest.raises(ModelFileError, match="is a training checkpoint"):
        Elmo.load(tmp_path / "run.ckpt")
    with pytest.raises(ModelFileError, match="not a training checkpoint"):
        Elmo.load(tmp_path / "model.pt", with_extra=True)
    assert Elmo.load(tmp_path / "model.pt").config.model_fields() == model.config.model_fields()


def test_sync_refuses_a_notebook_that_has_no_chinese_edition(tmp_path, capsys):
    from course.teaching.editions import project_root

    chinese = sorted((project_root() / "notebooks" / "zh").glob("02_*.ipynb"))[0]
    err = refused(["editions", "sync", str(chinese)], capsys)
    assert "is a Chinese notebook" in err
    other = tmp_path / "mine.ipynb"
    other.write_text(chinese.read_text(encoding="utf-8"), encoding="utf-8")
    assert "not one of the course's notebooks" in refused(["editions", "sync", str(other)], capsys)
    assert not (chinese.parent / "zh").exists() and not (tmp_path / "zh").exists()
