"""``train word2vec | glove | elmo | transformer``: the static vectors and the language models, each
trainer's options its settings dataclass's fields.
"""

from __future__ import annotations

import sys

from .arguments import CORPUS_HELP, add_model_output, add_vectors_output, declare_paths
from .output import check_checkpoint, model_out, vectors_out


def train_word2vec_command(args) -> int:
    from dataclasses import replace

    from ..core.devices import resolve_device
    from ..core.fields import from_options
    from ..text.corpus import load_corpus
    from ..word2vec import Word2VecConfig, train_word2vec

    config = from_options(Word2VecConfig, args)
    if config.loss == "hs":
        config = replace(config, negative=0)  # hierarchical softmax draws no noise words
    resolve_device(config.device)  # no CUDA: say so before reading the corpus
    out = vectors_out(args.out)
    check_checkpoint(args)
    corpus = load_corpus(args.corpus, progress=not args.quiet)
    model = train_word2vec(corpus, config, progress=not args.quiet, checkpoint=args.checkpoint, resume=args.resume)
    model.save_vectors(out, binary=args.binary)
    words = config.epochs * corpus.num_tokens
    print(f"wrote {len(model.vocab):,} vectors of {config.dim} dimensions to {out} "
          f"({model.state.seconds:.1f} s of training, {words / max(model.state.seconds, 1e-9):,.0f} words/s)",
          file=sys.stderr)
    return 0


def train_glove_command(args) -> int:
    from ..core.devices import resolve_device
    from ..core.fields import from_options
    from ..glove import GloVeConfig, train_glove
    from ..text.corpus import load_corpus

    config = from_options(GloVeConfig, args)
    resolve_device(config.device)  # no CUDA: say so before reading the corpus
    out = vectors_out(args.out)
    check_checkpoint(args)
    corpus = load_corpus(args.corpus, progress=not args.quiet)
    model = train_glove(corpus, config, progress=not args.quiet, checkpoint=args.checkpoint, resume=args.resume)
    model.save_vectors(out, binary=args.binary)
    state = model.state
    print(f"wrote {len(model.vocab):,} vectors of {config.dim} dimensions to {out} ({state.entries_per_epoch:,} "
          f"non-zero co-occurrences; {state.seconds:.1f} s of training, "
          f"{state.entries_done / max(state.seconds, 1e-9):,.0f} entries/s)", file=sys.stderr)
    return 0


def train_elmo_command(args) -> int:
    from ..core import distributed
    from ..core.devices import resolve_device
    from ..core.fields import from_options
    from ..elmo import ElmoConfig, preset, train_elmo
    from ..text.corpus import load_corpus

    config = from_options(ElmoConfig, args, base=preset(args.preset))
    world = distributed.start(resolve_device(config.device))  # no CUDA: say so before reading the corpus
    out = world.together(lambda: model_out(args))  # rank 0's refusal ends every process
    corpus = world.writer_first(lambda: load_corpus(args.corpus, progress=not args.quiet and world.writer))
    model = train_elmo(corpus, config, progress=not args.quiet, checkpoint=args.checkpoint, resume=args.resume)
    world.together(lambda: model.save(out) if world.writer else None)
    distributed.stop()
    if not world.writer:
        return 0
    state = model.state
    heldout = state.kept  # the weights kept are the best's
    perplexity = (f", held-out perplexity {heldout['forward']:.1f} forward / {heldout['backward']:.1f} backward"
                  f"{kept_at(state)}" if heldout else "")
    print(f"wrote {out}: {model!r} ({state.seconds:.0f} s of training, {state.tokens_per_second:,.0f} tokens/s"
          f"{perplexity})", file=sys.stderr)
    return 0


def train_transformer_command(args) -> int:
    from ..core import distributed
    from ..core.devices import resolve_device
    from ..core.fields import from_options
    from ..text.corpus import load_corpus
    from ..transformer import TransformerConfig, preset, train_transformer

    config = from_options(TransformerConfig, args, base=preset(args.preset))
    world = distributed.start(resolve_device(config.device))
    out = world.together(lambda: model_out(args))  # rank 0's refusal ends every process
    corpus = world.writer_first(lambda: load_corpus(args.corpus, progress=not args.quiet and world.writer))
    model = train_transformer(corpus, config, progress=not args.quiet, checkpoint=args.checkpoint,
                              resume=args.resume)
    world.together(lambda: model.save(out) if world.writer else None)
    distributed.stop()
    if not world.writer:
        return 0
    state = model.state
    kept = state.kept  # the weights kept are the best's
    heldout = f", held-out perplexity {kept['perplexity']:.1f}{kept_at(state)}" if kept else ""
    what = "masked positions" if config.objective == "masked" else "next words"
    print(f"wrote {out}: {config.objective} Transformer, {model.num_parameters:,} weights ({state.seconds:.0f} s of "
          f"training, {state.tokens_per_second:,.0f} tokens/s{heldout} on {what})", file=sys.stderr)
    return 0


def kept_at(state) -> str:
    """How a language model's held-out measurement was chosen: `` (epoch 4 of 9, stopped early)``, or
    within an epoch `` (epoch 3.5 of 9, step 700)``."""
    if state.best is None:
        return ""
    epoch = state.best["epoch"]
    where = f"epoch {epoch} of {state.epoch}" + ("" if float(epoch).is_integer() else f", step {state.best['step']}")
    return f" ({where}{', stopped early' if state.stopped_early else ''})"


def add_parser(subparsers) -> None:
    """``word2vec``, ``glove``, ``elmo`` and ``transformer`` under ``subparsers`` (``train``'s models)."""
    from ..core.fields import add_options
    from ..elmo import ElmoConfig
    from ..elmo import preset as elmo_preset
    from ..glove import GloVeConfig
    from ..transformer import TransformerConfig
    from ..transformer import preset as transformer_preset
    from ..word2vec import Word2VecConfig

    w2v = subparsers.add_parser("word2vec", help="skip-gram or CBOW, negative sampling or hierarchical softmax")
    w2v.add_argument("--corpus", required=True, metavar="NAME|PATH", help=CORPUS_HELP)
    add_options(w2v, Word2VecConfig)
    add_vectors_output(w2v)
    declare_paths(w2v, inputs=("corpus",))
    w2v.set_defaults(handler=train_word2vec_command)

    glove = subparsers.add_parser("glove", help="GloVe: weighted least squares on log co-occurrence counts")
    glove.add_argument("--corpus", required=True, metavar="NAME|PATH", help=CORPUS_HELP)
    add_options(glove, GloVeConfig)
    add_vectors_output(glove)
    declare_paths(glove, inputs=("corpus",))
    glove.set_defaults(handler=train_glove_command)

    elmo = subparsers.add_parser("elmo", help="the ELMo biLM (char-CNN, residual biLSTM), cpu or gpu preset")
    elmo.add_argument("--corpus", required=True, metavar="NAME|PATH", help=CORPUS_HELP)
    elmo.add_argument("--preset", choices=("cpu", "gpu"), default="cpu",
                      help="cpu: for wiki-en or People's Daily on a CPU (add --threads 2 on 2 cores); "
                           "gpu: the paper's small ELMo in shape")
    add_options(elmo, ElmoConfig, defaults=elmo_preset("cpu"), default_text="the preset's")
    add_model_output(elmo)
    declare_paths(elmo, inputs=("corpus",))
    elmo.set_defaults(handler=train_elmo_command)

    transformer = subparsers.add_parser("transformer", help="a GPT-style (causal) or BERT-style (masked) Transformer "
                                                        "language model, cpu or gpu preset")
    transformer.add_argument("--corpus", required=True, metavar="NAME|PATH", help=CORPUS_HELP)
    transformer.add_argument("--preset", choices=("cpu", "gpu"), default="cpu",
                             help="cpu: d_model 128, 4 blocks, for 2 CPU cores; gpu: d_model 512, 8 blocks")
    add_options(transformer, TransformerConfig, defaults=transformer_preset("cpu"), default_text="the preset's")
    add_model_output(transformer)
    declare_paths(transformer, inputs=("corpus",))
    transformer.set_defaults(handler=train_transformer_command)
