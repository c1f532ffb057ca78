"""``elmo convert | embed``: the published ELMo's weights as a course biLM file, and ELMo's layers of a
file of sentences, in allennlp's ``elmo --all`` HDF5 layout, from any course biLM.
"""

from __future__ import annotations

import sys
from pathlib import Path

from .arguments import declare_paths


def convert_command(args) -> int:
    from ..core.io import claim_output
    from ..elmo.bilm_tf import convert

    claim_output(args.out, "model")
    model = convert(args.options, args.weights, name=args.name)
    model.save(args.out)
    weights = sum(p.numel() for p in model.bilm.parameters())
    config = model.config
    print(f"wrote {args.out}: ELMo with {weights:,} weights ({config.num_layers} x {config.lstm_dim} LSTM cells "
          f"projected to {config.projection_dim}, {config.num_filters} char filters, {config.highway_layers} "
          f"highway layers); use it with --model {args.out}, or COURSE_ELMO_EN={args.out}", file=sys.stderr)
    return 0


def embed_command(args) -> int:
    from ..core.devices import resolve_device
    from ..core.io import claim_output
    from ..elmo import Elmo
    from ..elmo.embedder import embed_file

    resolve_device(args.device)
    claim_output(args.output, "embeddings")
    model = Elmo.load(args.model, device=args.device)
    count = embed_file(model, args.input, args.output, stateful=args.stateful, progress=not args.quiet)
    how = "one row, state carried" if args.stateful else "each from a zero state"
    print(f"wrote {args.output}: {model.num_layers} layers of {model.dim} dimensions for each token of {count:,} "
          f"sentence{'' if count == 1 else 's'} ({how})", file=sys.stderr)
    return 0


def add_parser(subparsers) -> None:
    """``elmo convert`` and ``elmo embed`` under ``subparsers`` (the top-level commands)."""
    elmo = subparsers.add_parser("elmo", help="convert the published ELMo; embed a file of sentences")
    actions = elmo.add_subparsers(dest="elmo_command", required=True, metavar="ACTION")
    converter = actions.add_parser("convert", help="bilm-tf's options.json and weights.hdf5 as a course biLM file")
    converter.add_argument("options", type=Path, help="options.json of the published model")
    converter.add_argument("weights", type=Path, help="weights.hdf5 of the published model")
    converter.add_argument("--out", type=Path, required=True, help="the course model file to write (.pt)")
    converter.add_argument("--name", default="bilm-tf", help="a name for it, kept as its preset (default bilm-tf)")
    declare_paths(converter, inputs=("options", "weights"), outputs=("out",), text=("name",))
    converter.set_defaults(handler=convert_command)

    embedder = actions.add_parser("embed", help="ELMo's layers of every token, in allennlp's elmo --all HDF5 layout")
    embedder.add_argument("input", type=Path, help="UTF-8 text, one whitespace-tokenised sentence a line")
    embedder.add_argument("output", type=Path, help="HDF5 file to write: dataset 'i' (layers, tokens, 2 d) for line "
                                                    "i, and 'sentence_to_index'")
    embedder.add_argument("--model", type=Path, required=True, help="a course biLM file (trained or converted)")
    embedder.add_argument("--stateful", action="store_true",
                          help="read the lines as one row, each sentence starting from the states the previous one "
                               "ended with (as bilm-tf made its published outputs); default: each from zero")
    embedder.add_argument("--device", default="auto", help="auto (CUDA if present), cpu or cuda")
    embedder.add_argument("--quiet", action="store_true", help="no progress bar")
    declare_paths(embedder, inputs=("input", "model"), outputs=("output",), text=("device",))
    embedder.set_defaults(handler=embed_command)
