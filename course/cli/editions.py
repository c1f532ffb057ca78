"""``editions check | sync | stamp``: the Chinese notebooks kept in step with the English."""

from __future__ import annotations

import sys
from pathlib import Path

from .arguments import declare_paths


def editions_command(args) -> int:
    from ..core.errors import NotebookFileError
    from ..teaching import editions

    if args.editions_command in ("check", "sync") and not getattr(args, "notebook", None):
        folder = args.notebooks or editions.project_root() / "notebooks"
        if not editions.notebook_paths(folder):  # nothing to check or copy: say so, not "in step"
            raise NotebookFileError(f"{folder}: no NN_*.ipynb notebooks")
    if args.editions_command == "check":
        problems = editions.check_editions(args.notebooks)
        for problem in problems:
            print(problem)
        print(f"{len(problems)} problems" if problems else "the two editions are in step", file=sys.stderr)
        return 1 if problems else 0
    if args.editions_command == "sync":
        folder = args.notebooks or editions.project_root() / "notebooks"
        for path in args.notebook or editions.notebook_paths(folder):
            print(editions.sync_notebook(path))
        return 0
    written = editions.stamp(args.notebook, args.cell)
    print(f"{args.notebook}: {len(written)} cells recorded as in step with the English ({', '.join(written)})")
    return 0


def add_parser(subparsers) -> None:
    """``editions check | sync | stamp`` under ``subparsers`` (the top-level commands)."""
    editor = subparsers.add_parser("editions",
                                   help="keep the Chinese notebooks (notebooks/zh/) in step with the English")
    editor_commands = editor.add_subparsers(dest="editions_command", required=True, metavar="ACTION")
    checker = editor_commands.add_parser("check", help="list every cell out of step, one line each (exit 1 if any)")
    syncer = editor_commands.add_parser("sync", help="copy the English code cells; add new markdown cells untranslated")
    syncer.add_argument("notebook", nargs="*", type=Path, help="English notebooks (default: all)")
    for sub in (checker, syncer):
        sub.add_argument("--notebooks", type=Path, default=None, help="the English notebooks' folder")
    stamper = editor_commands.add_parser("stamp", help="record Chinese cells, edited by hand, as in step")
    stamper.add_argument("notebook", type=Path, help="the Chinese notebook (notebooks/zh/NN_*.ipynb)")
    stamper.add_argument("cell", nargs="+", help="the cells' ids (check names them)")
    declare_paths(checker, inputs=("notebooks",))
    declare_paths(syncer, inputs=("notebook", "notebooks"))
    declare_paths(stamper, inputs=("notebook",), text=("cell",))  # stamp writes its notebook in place, by design
    editor.set_defaults(handler=editions_command)
