"""What several subcommands share about their arguments: argparse types (argparse's messages name them:
``invalid _positive_int value``), the output flags of the trainers, and the check that a pretrained model
a flag names reads the data's language.
"""

from __future__ import annotations

import argparse

CORPUS_HELP = "a named corpus (see 'corpus list') or a UTF-8 text file or folder"


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


def _size(text: str) -> int:
    """A memory limit such as ``8G`` or ``512M`` in bytes, at least :data:`course.teaching.sandbox.MIN_MEMORY`."""
    from ..teaching.sandbox import MIN_MEMORY, MIN_MEMORY_TEXT, parse_size

    try:
        value = parse_size(text)
    except (ValueError, IndexError):
        raise argparse.ArgumentTypeError(f"a size such as 8G or 512M, got {text!r}") from None
    if value < MIN_MEMORY:
        raise argparse.ArgumentTypeError(f"must be at least {MIN_MEMORY_TEXT}, got {text!r}")
    return value


def add_vectors_output(sub: argparse.ArgumentParser) -> None:
    """The flags every static-vector trainer shares: where its vectors go, its checkpoint, and quiet."""
    sub.add_argument("--out", required=True, help="vectors file to write (word2vec format)")
    sub.add_argument("--binary", action="store_true", help="binary word2vec format instead of text")
    sub.add_argument("--checkpoint", default=None, help="save the training state here after every epoch")
    sub.add_argument("--resume", action="store_true", help="continue from --checkpoint if it exists")
    sub.add_argument("--quiet", action="store_true", help="no progress bars")


def add_model_output(sub: argparse.ArgumentParser) -> None:
    """The flags the network trainers share: the model file, its checkpoint, and quiet."""
    sub.add_argument("--out", required=True, help="model file to write")
    sub.add_argument("--checkpoint", default=None, help="save the training state here every few hundred steps")
    sub.add_argument("--resume", action="store_true", help="continue from --checkpoint if it exists")
    sub.add_argument("--quiet", action="store_true", help="no progress bar")


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
