"""``corpus list``, ``corpus info`` and ``corpus export``: the named corpora, their sizes, one sentence a line."""

from __future__ import annotations

import sys

from .arguments import count, declare_paths
from .output import check_json_out, format_value, table, write_json


def corpus_list(args) -> int:
    from ..text.corpus import list_corpora

    rows = [("name", "language", "offline", "description")]
    rows += [(c["name"], c["language"], "yes" if c["offline"] else "download", c["description"])
             for c in list_corpora()]
    print(table(rows))
    return 0


def corpus_info(args) -> int:
    from ..text.corpus import load_corpus

    check_json_out(args.json)
    infos = [load_corpus(name, language=args.language, progress=not args.quiet).info(args.min_count)
             for name in args.corpus]
    if args.json:
        write_json(infos if len(infos) > 1 else infos[0], args.json)
        return 0
    keys = [key for key in infos[0] if key != "corpus"]
    rows = [("", *[info["corpus"] for info in infos])]
    rows += [(key.replace("_", " "), *[format_value(info[key]) for info in infos]) for key in keys]
    print(table(rows))
    return 0


def corpus_export(args) -> int:
    from ..text.corpus import export, load_corpus

    corpus = load_corpus(args.corpus, language=args.language, progress=not args.quiet)
    export(corpus, args.out)
    print(f"wrote {corpus.num_sentences:,} sentences, {corpus.num_tokens:,} tokens to {args.out}", file=sys.stderr)
    return 0


def add_parser(subparsers) -> None:
    """``corpus list | info | export`` under ``subparsers`` (the top-level commands)."""
    corpus = subparsers.add_parser("corpus", help="list, describe and export corpora")
    corpus_commands = corpus.add_subparsers(dest="corpus_command", required=True, metavar="ACTION")
    listing = corpus_commands.add_parser("list", help="the named corpora")
    listing.set_defaults(handler=corpus_list)

    def corpus_arguments(sub, many: bool) -> None:
        sub.add_argument("corpus", nargs="+" if many else None, metavar="NAME|PATH",
                         help="a named corpus (see 'corpus list') or a UTF-8 text file or folder")
        sub.add_argument("--language", choices=("auto", "en", "zh"), default="auto",
                         help="language of text files (zh is segmented with jieba); default: guess")
        sub.add_argument("--quiet", action="store_true", help="no progress bars")

    info = corpus_commands.add_parser("info", help="sentences, tokens and vocabulary size")
    corpus_arguments(info, many=True)
    info.add_argument("--min-count", type=count, default=5, help="also count words seen this often")
    info.add_argument("--json", nargs="?", const="-", metavar="FILE", help="JSON to standard output or FILE")
    declare_paths(info, inputs=("corpus",), outputs=("json",))
    info.set_defaults(handler=corpus_info)

    export = corpus_commands.add_parser("export", help="one sentence a line, tokens separated by spaces")
    corpus_arguments(export, many=False)
    export.add_argument("--out", required=True, help="file to write")
    declare_paths(export, inputs=("corpus",), outputs=("out",))
    export.set_defaults(handler=corpus_export)
