"""``pretrained list | get``: the models their publishers trained at scale, fetched once into the
course's cache in the course's formats (:mod:`course.pretrained`).
"""

from __future__ import annotations

from .arguments import count, declare_paths
from .output import table, write_json


def list_command(args) -> int:
    from ..pretrained import listing

    rows = listing()
    if args.json:
        write_json(rows, args.json)
        return 0
    print(table([("name", "kind", "language", "size", "corpus", "licence", "fetched")] +
                [(row["name"], row["kind"], row["language"], row["size"], row["corpus"], row["licence"],
                  row["path"] or "no") for row in rows]))
    return 0


def get_command(args) -> int:
    from ..pretrained import get, say_where

    for name in args.names:
        say_where(name, get(name, limit=args.limit, progress=not args.quiet, replace=args.replace))
    return 0


def add_parser(subparsers) -> None:
    """``pretrained list`` and ``pretrained get`` under ``subparsers`` (the top-level commands)."""
    pretrained = subparsers.add_parser("pretrained", help="list and fetch the models published at scale")
    actions = pretrained.add_subparsers(dest="pretrained_command", required=True, metavar="ACTION")
    lister = actions.add_parser("list", help="each model's size, corpus, licence, and whether it is fetched")
    lister.add_argument("--json", nargs="?", const="-", metavar="FILE", help="JSON to standard output or FILE")
    declare_paths(lister, outputs=("json",))
    lister.set_defaults(handler=list_command)
    getter = actions.add_parser("get", help="download models into the course's cache, in the course's formats")
    getter.add_argument("names", nargs="+", metavar="NAME", help="a name from 'pretrained list' (small, "
                                                                 "glove-6b-100, fasttext-zh, ...)")
    getter.add_argument("--limit", type=count, default=None,
                        help="static vectors: keep the first (most frequent) this many words")
    getter.add_argument("--replace", action="store_true", help="fetch and convert again, even if it is there")
    getter.add_argument("--quiet", action="store_true", help="no progress bars")
    declare_paths(getter, text=("names",))
    getter.set_defaults(handler=get_command)
