"""``probe`` and ``claims``: the sense probe of one ELMo model per layer, and the course's claims measured
on a build's models.
"""

from __future__ import annotations

from ..core.edition import EDITIONS
from .arguments import add_vectors_format, check_fits, declare_paths
from .output import check_json_out, write_json


def probe(args) -> int:
    from ..analysis.probes import format_probe_table, probe_model, read_probes
    from ..analysis.vectors import load_vectors
    from ..core.devices import resolve_device
    from ..elmo import Elmo

    resolve_device(args.device)  # no CUDA: say so, rather than blame the model file
    check_json_out(args.json)
    probes = read_probes(args.probes, split=args.split)
    context_vectors = load_vectors(args.context_vectors, args.context_vectors_format) if args.context_vectors else None
    model = Elmo.load(args.model, device=args.device)
    sentences = [probe.tokens for probe in probes]
    check_fits(model, sentences, f"--model {args.model}")  # an English biLM under Chinese probes, say
    if context_vectors is not None:
        check_fits(context_vectors, sentences, f"--context-vectors {args.context_vectors}")
    results = probe_model(model, probes, context_vectors=context_vectors)
    if args.json:
        write_json(results, args.json)
    if args.json != "-":
        print(format_probe_table(results))
    return 0


def claims_command(args) -> int:
    from ..claims import claims_json, claims_markdown, format_claims, measure_claims
    from ..core.devices import resolve_device

    resolve_device(args.device)  # no CUDA: say so, whether or not a model is loaded later
    check_json_out(args.json)
    rows = measure_claims(args.profile, device=args.device, progress=not args.quiet)
    if args.json:
        write_json(claims_json(rows), args.json)
    if args.json != "-":
        print(claims_markdown(rows, args.edition) if args.markdown else format_claims(rows, args.edition))
    return 0


def add_parser(subparsers) -> None:
    """``probe`` and ``claims`` under ``subparsers`` (the top-level commands)."""
    prober = subparsers.add_parser("probe", help="sense probe of an ELMo model per layer, with its controls")
    prober.add_argument("--model", required=True, help="an ELMo model file (train elmo --out)")
    prober.add_argument("--probes", required=True,
                        help="probe file: word<TAB>sense<TAB>sentence[<TAB>split], with a header; "
                        "en_polysemy.tsv or zh_polysemy.tsv: the course's own")
    prober.add_argument("--split", default=None, metavar="dev|test",
                        help="only the sentences of this split (the file needs a split column); default: all")
    prober.add_argument("--context-vectors", default=None, metavar="FILE",
                        help="static word vectors for the bag-of-context control: word2vec text or binary, GloVe "
                             "text, or gensim's .kv (see --context-vectors-format)")
    add_vectors_format(prober, "--context-vectors-format")
    prober.add_argument("--json", nargs="?", const="-", metavar="OUT", help="JSON to standard output or OUT")
    prober.add_argument("--device", default="auto", help="auto (CUDA if present), cpu or cuda")
    declare_paths(prober, inputs=("model", "probes", "context_vectors"), outputs=("json",), text=("split", "device"))
    prober.set_defaults(handler=probe)

    claimer = subparsers.add_parser("claims", help="measure the course's claims on a build's models: do they hold?")
    claimer.add_argument("--profile", choices=("full", "smoke"), default=None,
                         help="whose models: build/models (full) or build/models/smoke; default: $COURSE_PROFILE, "
                              "else full")
    claimer.add_argument("--json", nargs="?", const="-", metavar="OUT", help="JSON to standard output or OUT")
    claimer.add_argument("--markdown", action="store_true", help="print the table as Markdown (for the README)")
    claimer.add_argument("--device", default="auto", help="auto (CUDA if present), cpu or cuda")
    claimer.add_argument("--quiet", action="store_true", help="no progress lines")
    claimer.add_argument("--edition", choices=EDITIONS, default=None, help="the table's words: en or zh")
    declare_paths(claimer, outputs=("json",), text=("device",))
    claimer.set_defaults(handler=claims_command)
