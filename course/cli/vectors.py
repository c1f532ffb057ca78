"""``evaluate`` and ``export projector``: a vectors file's analogies and word similarity, and the vectors
written for TensorBoard's Embedding Projector.
"""

from __future__ import annotations

import sys
from pathlib import Path

from .arguments import add_vectors_format, count, declare_paths
from .output import check_json_out, write_json

VECTORS_HELP = "a vectors file: word2vec text or binary, GloVe text, or gensim's .kv (see --format)"


def evaluate(args) -> int:
    from ..analysis.evaluate import evaluate_all, format_report
    from ..analysis.vectors import load_vectors

    check_json_out(args.json)
    methods = ("3cosadd", "3cosmul") if args.method == "both" else (args.method,)
    results = evaluate_all(load_vectors(args.vectors, args.format), restrict_vocab=args.restrict_vocab, methods=methods,
                           analogies=args.analogies, similarity=args.similarity, language=args.language)
    results["vectors"]["file"] = str(args.vectors)
    if args.json:
        write_json(results, args.json)
    else:
        print(format_report(results))
    return 0


def export_projector_command(args) -> int:
    from ..figures.projector import export_projector, read_metadata_columns, read_word_list

    words = read_word_list(args.words) if args.words else None
    columns = read_metadata_columns(args.metadata) if args.metadata else None
    paths = export_projector(args.vectors, args.out, limit=args.limit, words=words, normalise=args.normalise,
                             metadata=columns, format=args.format)
    with open(paths["metadata"], encoding="utf-8") as handle:
        rows = sum(1 for _ in handle) - 1
    print(f"wrote {rows:,} words to {args.out} ({', '.join(path.name for path in paths.values())}); "
          f"see them with 'tensorboard --logdir {args.out}', or load the two .tsv files at "
          "https://projector.tensorflow.org", file=sys.stderr)
    return 0


def add_parser(subparsers) -> None:
    """``evaluate`` and ``export projector`` under ``subparsers`` (the top-level commands)."""
    evaluation = subparsers.add_parser("evaluate", help="analogies and word similarity of a vectors file")
    evaluation.add_argument("vectors", type=Path, help=VECTORS_HELP)
    add_vectors_format(evaluation)
    evaluation.add_argument("--method", choices=("3cosadd", "3cosmul", "both"), default="both",
                            help="how an analogy a:b :: c:? is answered: the word x, among the --restrict-vocab "
                                 "most frequent other than a, b and c, that maximises 3cosadd: cos(x, b - a + c) "
                                 "of unit vectors (the same order as cos(x,b) - cos(x,a) + cos(x,c); Mikolov et al. "
                                 "2013, gensim's evaluate_word_analogies), or 3cosmul: cos'(x,b) cos'(x,c) / "
                                 "(cos'(x,a) + 1e-6) with cos' = (1 + cos) / 2, where one large similarity cannot "
                                 "outweigh the others (Levy and Goldberg 2014); both (default): report each")
    evaluation.add_argument("--restrict-vocab", type=count, default=300_000,
                            help="search answers among this many most frequent words (gensim's default)")
    evaluation.add_argument("--language", choices=("en", "zh"), default=None,
                            help="which benchmarks: en (Google's analogies, wordsim353, simlex999) or zh (CA8, "
                                 "wordsim240, wordsim297); default: the language of most of the vectors' words")
    evaluation.add_argument("--analogies", default=None, metavar="FILE",
                            help="analogy questions (': section' lines, then 'a b c d'), or a named set "
                                 "(google-analogies, ca8, ca8-morphological, ca8-semantic); default: the language's")
    evaluation.add_argument("--similarity", nargs="+", default=None, metavar="FILE",
                            help="word-pair files ('word1<TAB>word2<TAB>score'), or named sets (wordsim353, "
                                 "simlex999, wordsim240, wordsim297); default: the language's")
    evaluation.add_argument("--json", nargs="?", const="-", metavar="FILE", help="JSON to standard output or FILE")
    declare_paths(evaluation, inputs=("vectors", "analogies", "similarity"), outputs=("json",))
    evaluation.set_defaults(handler=evaluate)

    exporter = subparsers.add_parser("export", help="write vectors in another tool's format")
    export_formats = exporter.add_subparsers(dest="export_format", required=True, metavar="FORMAT")
    projector = export_formats.add_parser("projector", help="TensorBoard's Embedding Projector: vectors.tsv, "
                                                            "metadata.tsv and projector_config.pbtxt in a folder")
    projector.add_argument("vectors", type=Path, help=VECTORS_HELP)
    add_vectors_format(projector)
    projector.add_argument("--out", required=True, type=Path, help="folder to write (made if missing)")
    projector.add_argument("--limit", type=count, default=None, metavar="N",
                           help="only the first N words (the most frequent, in the course's files)")
    projector.add_argument("--words", default=None, metavar="FILE", help="only these words, one a line, in this order")
    projector.add_argument("--normalise", action="store_true", help="unit-length rows (euclidean = cosine order)")
    projector.add_argument("--metadata", default=None, metavar="FILE",
                           help="more columns: a TSV file with a header row, word<TAB>column...")
    declare_paths(projector, inputs=("vectors", "words", "metadata"), outputs=("out",))
    projector.set_defaults(handler=export_projector_command)
