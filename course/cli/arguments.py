"""What several subcommands share about their arguments: argparse types for numbers with their ranges
(:func:`course.core.fields.bounded`), the role of each path argument (:func:`declare_paths`: read, written, or not
a path) and the one check of them all before any work (:func:`check_paths`), the output flags of the trainers,
and the check that a pretrained model a flag names reads the data's language.
"""

from __future__ import annotations

import argparse

from ..analysis.vectors import FORMATS
from ..core.fields import COUNT, EPOCHS, INPUT, OUTPUT, PATIENCE, ROLE, STEPS, TEXT, Range, bounded
from ..teaching.sandbox import MIN_MEMORY, MIN_MEMORY_TEXT

CORPUS_HELP = "a named corpus (see 'corpus list') or a UTF-8 text file or folder"

count = bounded(int, COUNT, "count")  # words, sentences, reviews: at least one
epochs = bounded(int, EPOCHS, "epochs")
steps = bounded(int, STEPS, "steps")
patience = bounded(int, PATIENCE, "patience")
seconds = bounded(int, Range(1, 7 * 24 * 3_600), "seconds")  # at most a week
jobs = bounded(int, Range(1, 64), "jobs")
processes = bounded(int, Range(1, 1 << 20), "processes")

VECTORS_FORMAT_HELP = ("how to read the vectors: word2vec (text, first line 'words dimensions'), word2vec-binary, "
                       "glove (text without that first line), kv (gensim's KeyedVectors.save; a pickle, so only a "
                       "file you trust); default auto: kv for a name ending .kv, else told from the first line")


def add_vectors_format(parser: argparse.ArgumentParser, flag: str = "--format") -> None:
    """The option that says how ``parser``'s vectors file is read (:data:`course.analysis.vectors.FORMATS`)."""
    parser.add_argument(flag, choices=FORMATS, default="auto", help=VECTORS_FORMAT_HELP)


def declare_paths(parser: argparse.ArgumentParser, inputs=(), outputs=(), text=()) -> None:
    """Say, by ``dest``, which of ``parser``'s string arguments are paths it reads (``inputs``: a file, a
    folder, or a name that may be one, such as a corpus), paths it writes (``outputs``), and which are not
    paths at all (``text``). :func:`check_paths` then holds every command to one rule, and a test holds every
    string argument to having a role, so a new subcommand cannot leave one out.

    Raises:
        ValueError: a name that is not one of ``parser``'s arguments.
    """
    actions = {action.dest: action for action in parser._actions}
    for role, names in ((INPUT, inputs), (OUTPUT, outputs), (TEXT, text)):
        for name in names:
            if name not in actions:
                raise ValueError(f"{parser.prog} has no argument {name!r}")
            setattr(actions[name], ROLE, role)


def chosen_parser(parser: argparse.ArgumentParser, args: argparse.Namespace) -> argparse.ArgumentParser:
    """The (sub)parser whose command ``args`` were parsed for: ``train word2vec``'s for ``args.command ==
    "train"`` and ``args.model == "word2vec"``."""
    while True:
        subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        if not subs or getattr(args, subs[0].dest, None) is None:
            return parser
        parser = subs[0].choices[getattr(args, subs[0].dest)]


def check_paths(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Refuse, before the command runs, an output argument that would be written over an input or another
    output, or inside an input folder (:func:`course.core.io.refuse_overlaps`)."""
    from ..core.io import refuse_overlaps

    roles: dict[str, list] = {INPUT: [], OUTPUT: []}
    for action in chosen_parser(parser, args)._actions:
        role = getattr(action, ROLE, None)
        value = getattr(args, action.dest, None)
        if role in roles and value is not None:
            flag = action.option_strings[-1] if action.option_strings else action.dest.upper()
            values = value if isinstance(value, list | tuple) else [value]
            roles[role] += [(flag, v) for v in values]
    refuse_overlaps(roles[INPUT], roles[OUTPUT])


MEMORY = Range(MIN_MEMORY, 1 << 50, note=f"in bytes: at least {MIN_MEMORY_TEXT}; at most 1P")


def _size(text: str) -> int:
    """A memory size such as ``8G`` or ``512M`` in bytes, in :data:`MEMORY`."""
    from ..teaching.sandbox import parse_size

    try:
        value = parse_size(text)
    except (ValueError, IndexError):
        raise argparse.ArgumentTypeError(f"must be a size such as 8G or 512M, got {text!r}") from None
    problem = MEMORY.problem(value, whole=True)
    if problem:
        raise argparse.ArgumentTypeError(problem)
    return value


_size.range, _size.kind = MEMORY, int


def add_vectors_output(sub: argparse.ArgumentParser) -> None:
    """The flags every static-vector trainer shares: where its vectors go, its checkpoint, and quiet."""
    sub.add_argument("--out", required=True, help="vectors file to write (word2vec format)")
    sub.add_argument("--binary", action="store_true", help="binary word2vec format instead of text")
    sub.add_argument("--checkpoint", default=None, help="save the training state here after every epoch")
    sub.add_argument("--resume", action="store_true", help="continue from --checkpoint if it exists")
    sub.add_argument("--quiet", action="store_true", help="no progress bars")
    declare_paths(sub, outputs=("out", "checkpoint"))


def add_model_output(sub: argparse.ArgumentParser) -> None:
    """The flags the network trainers share: the model file, its checkpoint, and quiet."""
    sub.add_argument("--out", required=True, help="model file to write")
    sub.add_argument("--checkpoint", default=None, help="save the training state here every few hundred steps")
    sub.add_argument("--resume", action="store_true", help="continue from --checkpoint if it exists")
    sub.add_argument("--quiet", action="store_true", help="no progress bar")
    declare_paths(sub, outputs=("out", "checkpoint"))


def check_fits(model, sentences, where: str) -> None:
    """Refuse a pretrained model of another language or vocabulary with the test ``train classifier``
    uses (:func:`course.ulmfit.check_vocabulary`): it must read at least half of the characters of
    ``sentences``' words. A biLM reads characters; a Transformer or static vectors (gensim
    ``KeyedVectors``) read whole words, and the characters of their vocabulary stand in.

    Raises:
        SettingError: one line naming ``where``, the share of characters it knows, and what to do.
    """
    from types import SimpleNamespace

    from ..ulmfit import check_vocabulary

    if not hasattr(model, "characters"):
        words = model.words.words if hasattr(model, "words") else model.index_to_key
        model = SimpleNamespace(characters=SimpleNamespace(char_to_id=set("".join(map(str, words)))))
    check_vocabulary(model, sentences, where=where)
