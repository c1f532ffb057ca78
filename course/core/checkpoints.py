"""Checkpoint files of every trainer: a dict of plain types and tensors, written
atomically with ``torch.save`` and read back with ``torch.load(weights_only=True)``, which
unpickles only plain types and tensors: a crafted file cannot run code, it is refused.

Every trainer's checkpoint records its run's identity (:func:`run_identity`: the corpus, by its
name and a hash of its token stream, and the vocabulary), and every trainer resumes through
:func:`check_resumable`, which refuses another corpus, another vocabulary or other settings, and
a checkpoint written before the identity was recorded."""

from __future__ import annotations

import hashlib
import os
import pickle
import re
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from .divergence import check_weights
from .errors import CourseError, SettingError
from .io import atomic_path, check_writable


def write_checkpoint(path: str | os.PathLike, payload: dict, weights=("weights", "best_weights")) -> Path:
    """Save ``payload`` (which names its ``format``) at ``path``; a reader never sees half a file.

    Raises:
        TrainingDivergedError: a floating tensor of the entries ``weights`` of ``payload`` is not
            finite (a run that diverged): nothing is written (:func:`course.core.divergence.check_weights`).
    """
    import torch

    check_weights(path, {key: payload.get(key) for key in weights}, "checkpoint")
    with atomic_path(path) as temporary:
        torch.save(payload, temporary)
    return Path(path)


def read_checkpoint(path: str | os.PathLike, format: str) -> dict:
    """The payload saved at ``path``; ``ValueError`` if it is not a ``format`` checkpoint.

    Only plain types (dicts, lists, strings, numbers) and tensors are unpickled; anything else
    raises ``pickle.UnpicklingError`` before it is built.
    """
    import torch

    payload = torch.load(path, map_location="cpu", weights_only=True)
    if not isinstance(payload, dict) or payload.get("format") != format:
        raise ValueError(f"not a {format} checkpoint of this course")
    return payload


@contextmanager
def checkpoint_errors(path: str | os.PathLike, model: str) -> Iterator[None]:
    """Turn the ways reading a checkpoint can fail into one-line :class:`SettingError` messages that
    name ``path``."""
    try:
        yield
    except CourseError:  # already one line (a setting, memory that would not fit)
        raise
    except FileNotFoundError:
        raise SettingError(f"{path}: no such checkpoint") from None
    except IsADirectoryError:
        raise SettingError(f"{path}: is a folder, not a {model} checkpoint") from None
    except pickle.UnpicklingError as exc:  # torch's message runs to many lines
        found = re.search(r"GLOBAL (\S+)", str(exc))
        if found is None:
            raise SettingError(f"{path}: not a readable {model} checkpoint, truncated or damaged") from None
        raise SettingError(f"{path}: refused, it would build objects other than plain types and tensors "
                           f"({found.group(1)}), which could run code; not a {model} checkpoint of this course") \
            from None
    except (RuntimeError, ValueError, KeyError, TypeError, IndexError, EOFError, OSError,
            zipfile.BadZipFile) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        reason = " ".join(reason.split()).split(". ")[0][:160] or type(exc).__name__  # torch's run to many lines
        raise SettingError(f"{path}: not a readable {model} checkpoint, truncated or damaged ({reason})") from None


def corpus_key(corpus) -> dict:
    """What a checkpoint records of the corpus it was trained on: a SHA-256 of its words (every
    token, in order), and for the messages its name and size."""
    digest = hashlib.sha256()
    digest.update("\n".join(corpus.types).encode("utf-8"))
    digest.update(np.ascontiguousarray(corpus.token_ids, dtype=np.int64).tobytes())
    digest.update(np.ascontiguousarray(corpus.offsets, dtype=np.int64).tobytes())
    return {"name": str(corpus.name), "sentences": int(corpus.num_sentences), "tokens": int(corpus.num_tokens),
            "sha256": digest.hexdigest()}


def resumes(checkpoint: str | os.PathLike | None, resume: bool) -> bool:
    """Whether a trainer continues from ``checkpoint``: refuses ``resume`` without one, and a checkpoint
    path that cannot be written, before any work."""
    if resume and checkpoint is None:
        raise SettingError("resume needs a checkpoint to continue from: give --checkpoint FILE")
    if checkpoint is not None:
        check_writable(checkpoint, "checkpoint")
    return bool(resume and Path(checkpoint).is_file())


def vocabulary_key(words) -> dict:
    """What a checkpoint records of the vocabulary it was trained with: its size and a SHA-256 of
    its words, in order."""
    words = [str(word) for word in words]
    return {"words": len(words), "sha256": hashlib.sha256("\n".join(words).encode("utf-8")).hexdigest()}


def run_identity(corpus, words) -> dict:
    """The identity every trainer's checkpoint records and a resume must match: the corpus
    (:func:`corpus_key`: its name and a hash of its token stream) and the vocabulary ``words``
    (:func:`vocabulary_key`)."""
    return {"corpus": corpus_key(corpus), "vocabulary": vocabulary_key(words)}


def identity_differences(saved: dict | None, now: dict) -> list[str]:
    """What differs between the identity ``saved`` in a checkpoint and the run's ``now``, in words:
    ``["on another corpus ('wiki-en', 24,807 sentences, ...; now ...)", "with another vocabulary
    (12,000 words; now 8,000)"]``; empty where they are the same."""
    differences = []
    trained_on, corpus = saved["corpus"], now["corpus"]
    if trained_on.get("sha256") != corpus["sha256"]:
        def described(key: dict) -> str:
            return (f"{key.get('name')!r}, {_many(key.get('sentences', 0), 'sentence')}, "
                    f"{_many(key.get('tokens', 0), 'token')}")

        same_size = described(trained_on) == described(corpus)
        differences.append(f"on another corpus ({described(trained_on)}{', other words' if same_size else ''}; "
                           f"now {described(corpus)})")
    vocabulary, wanted = saved["vocabulary"], now["vocabulary"]
    if vocabulary.get("sha256") != wanted["sha256"]:
        sizes = (f"{_many(vocabulary.get('words', 0), 'word')}; now {_many(wanted['words'], 'word')}"
                 if vocabulary.get("words") != wanted["words"] else f"{_many(wanted['words'], 'word')}, other ones")
        differences.append(f"with another vocabulary ({sizes})")
    return differences


def check_resumable(path: str | os.PathLike, saved: dict, now: dict, config: dict, free=frozenset()) -> None:
    """Refuse to resume the checkpoint at ``path`` on another corpus, with another vocabulary or
    with other settings: the one check every trainer makes before it resumes.

    Args:
        saved: the checkpoint's ``{"identity", "config"}`` (identity as :func:`run_identity`
            gives it; a checkpoint without one, written before checkpoints recorded it, is refused).
        now: the identity of the run asked for now (:func:`run_identity`).
        config: the settings asked for now, as a dict; the keys in ``free`` may differ.

    Raises:
        SettingError: one line naming what differs.
    """
    if not saved.get("identity"):
        raise SettingError(f"{path}: an older checkpoint that does not record the corpus and vocabulary it was "
                           "trained on, so resuming it cannot be checked; train afresh (delete it, or give "
                           "another checkpoint file)")
    differences = identity_differences(saved["identity"], now)
    changed = setting_changes(saved["config"], config, free)
    if changed:
        differences.append(f"with other settings ({', '.join(changed)})")
    if differences:
        raise SettingError(f"{path}: was trained {' and '.join(differences)}; use the same corpus and settings to "
                           "resume, or another checkpoint file")


def setting_changes(saved: dict, now: dict, free=frozenset()) -> list[str]:
    """The settings of ``now`` that ``saved`` has otherwise, in words (``["epochs=6 (now 8)"]``),
    but for the keys in ``free``; empty where they are the same."""
    return [f"{key}={saved.get(key)!r} (now {value!r})" for key, value in now.items()
            if key not in free and saved.get(key) != value]


def _many(number: int, noun: str) -> str:
    """``"1 sentence"``, ``"24,807 sentences"``."""
    return f"{number:,} {noun}{'' if number == 1 else 's'}"
