"""The command line: ``python -m course ...``.

    python -m course corpus list
    python -m course corpus info wiki-en peoples-daily-zh [--json [FILE]]
    python -m course corpus export wiki-en --out wiki-en.txt
    python -m course evaluate vectors.txt [--json [FILE]]
    python -m course export projector vectors.txt --out projector/ [--limit N] [--words FILE] [--normalise]
    python -m course train word2vec --corpus wiki-en --arch skipgram --loss neg --out vectors.txt
    python -m course train glove --corpus wiki-en --dim 100 --window 15 --epochs 15 --out glove.txt
    python -m course train elmo --corpus wiki-en --preset cpu --epochs 3 --seed 1 --device auto --out elmo.pt
    python -m course elmo convert options.json weights.hdf5 --out elmo.pt
    python -m course elmo embed sentences.txt layers.hdf5 --model elmo.pt [--stateful]
    python -m course pretrained list | get NAME [--limit N]
    python -m course probe --model elmo.pt --probes en_polysemy.tsv [--json OUT]
    python -m course claims [--profile full|smoke] [--json OUT] [--markdown]
    python -m course build [--profile full|smoke] [--edition en|zh]
    python -m course assignments [--out build/assignments] [--edition en|zh]
    python -m course grade NOTEBOOK.ipynb [--timeout 120] [--json OUT]
    python -m course editions check | sync [NOTEBOOK ...] | stamp NOTEBOOK CELL_ID ...
    python -m course models pack [--out FILE] | get FILE_OR_URL [--sha256 HEX] [--replace]

Mistakes in the input (a missing file, an unknown corpus, a file that is not UTF-8, ...) print one
line on standard error and exit with status 2.

Each subcommand's parser sits beside its handler, one module per group: :mod:`~course.cli.corpus`,
:mod:`~course.cli.vectors` (``evaluate``, ``export``), :mod:`~course.cli.train` (the vectors and language
models), :mod:`~course.cli.tasks` (``train tagger``, ``train classifier``), :mod:`~course.cli.elmo` (``elmo convert``,
``elmo embed``), :mod:`~course.cli.pretrained` (``pretrained list``, ``get``), :mod:`~course.cli.measure`
(``probe``, ``claims``), :mod:`~course.cli.teaching` (``build``, ``assignments``, ``grade``, ``models``) and
:mod:`~course.cli.editions`; each has ``add_parser(subparsers)``. What they share: :mod:`~course.cli.output`
(JSON, tables, outputs claimed before any work) and :mod:`~course.cli.arguments` (argument types, flag groups).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from ..core.errors import CourseError, refusal
from ..core.io import release_outputs
from . import corpus, editions, elmo, measure, pretrained, tasks, teaching, train, vectors
from .arguments import check_paths


class CourseParser(argparse.ArgumentParser):
    """argparse's parser, whose mistakes (an unknown option, a value of the wrong type, a choice not
    offered) are one line on standard error and exit status 2, as every other mistake is."""

    def error(self, message: str):
        self.exit(2, f"error: {message} (see {self.prog} --help)\n")


EXAMPLES = """examples:
  python -m course corpus list                          the corpora the course ships
  python -m course train word2vec --corpus wiki-en --out vectors.txt
  python -m course evaluate vectors.txt                 similarity and analogy benchmarks
  python -m course evaluate glove.6B.100d.txt --format glove
  python -m course build --profile smoke                every notebook run and written as pages
  python -m course assignments                          the student versions of the notebooks
  python -m course grade submitted.ipynb --json marks.json

python -m course COMMAND --help says more of each command; docs/command-line.md has them all."""


EXTRAS = {module: "teach" for module in ("papermill", "nbconvert", "nbclient", "nbformat", "jupyter_client",
                                         "jupyter_server_mathjax", "nbgrader", "ipykernel")}
"""The modules of pyproject.toml's extras that a command may import, by the extra that installs them."""


def version() -> str:
    """The installed package's version, or pyproject.toml's where the course runs from a checkout
    that was never installed."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed

    try:
        return installed("word-vectors-course")
    except PackageNotFoundError:
        import tomllib
        from pathlib import Path

        pyproject = Path(__file__).resolve().parents[2] / "pyproject.toml"
        try:
            return tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]["version"]
        except (OSError, KeyError, tomllib.TOMLDecodeError):
            return "(version unknown)"


def make_parser() -> argparse.ArgumentParser:
    """``python -m course``'s parser: each module's ``add_parser`` in the order ``--help`` lists them."""
    parser = CourseParser(prog="python -m course", description="Word Vectors, Hands-On", epilog=EXAMPLES,
                          formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"%(prog)s {version()}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    corpus.add_parser(commands)
    vectors.add_parser(commands)
    trainer = commands.add_parser("train", help="train a model")
    models = trainer.add_subparsers(dest="model", required=True, metavar="MODEL")
    train.add_parser(models)
    tasks.add_parser(models)
    elmo.add_parser(commands)
    pretrained.add_parser(commands)
    measure.add_parser(commands)
    teaching.add_parser(commands)
    editions.add_parser(commands)
    return parser


def _refused(error: Exception) -> int:
    """A refusal's one line on stderr, and status 2; under torchrun, rank 0 alone says it and every
    process leaves the process group (:func:`course.core.distributed.refuse`)."""
    if "WORLD_SIZE" in os.environ:
        from ..core.distributed import refuse

        return refuse(error)
    print(f"error: {refusal(error)}", file=sys.stderr)
    return 2


def main(argv: Sequence[str] | None = None) -> int:
    parser = make_parser()
    args = parser.parse_args(argv)  # a mistake it finds is one line and SystemExit(2), as argparse does
    try:
        check_paths(parser, args)
        return args.handler(args)
    except (CourseError, OSError) as exc:
        return _refused(exc)
    except ModuleNotFoundError as exc:
        extra = EXTRAS.get((exc.name or "").partition(".")[0])
        if extra is None:
            raise
        print(f"error: python -m course {args.command} needs {exc.name}, which is not installed: "
              f"pip install 'word-vectors-course[{extra}]' (or make setup in a checkout)", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    finally:
        release_outputs()


__all__ = ["CourseParser", "main", "make_parser"]
