"""Resuming a language model's training from its checkpoint: one check, one error type per mistake.

A checkpoint is the model file (:mod:`course.lm.model_file`) with the training state beside it; it
records the run's identity (the corpus and the vocabulary: :func:`course.core.checkpoints.run_identity`)
and the settings. Resuming refuses, each with one line:

- a checkpoint of another corpus or vocabulary, with other settings (but for
  :data:`RESUMABLE_CHANGES`), or one that does not record its corpus: :class:`~course.core.errors.SettingError`;
- an epoch whose batch order, drawn again from (seed, epoch), is not the one the checkpoint was
  written in (:func:`check_batch_order`; the random generator's algorithm changed between the two
  runs): :class:`~course.core.errors.SettingError`;
- a file that is not a readable model file of the model's kind (missing, truncated, another kind):
  :class:`~course.core.errors.ModelFileError`.

Resuming within an epoch: the trainers draw an epoch's batch order from (seed, epoch) and record in
``state.batch_in_epoch`` how many of its batches are taken (by all processes); a checkpoint written
within an epoch also records a fingerprint of that order (:func:`batch_order`). A checkpoint of another
number of processes is not refused: the epoch goes on from its first batch not yet taken
(:mod:`course.lm.run`).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import numpy as np

from ..core.checkpoints import check_resumable, run_identity
from ..core.errors import SettingError

RESUMABLE_CHANGES = frozenset({"device", "threads", "checkpoint_every", "preset"})  # a resumed run may change


def resume_checkpoint(checkpoint: str | os.PathLike | None, config, load, corpus, words):
    """``(model, payload)`` of ``checkpoint`` when there is one to resume from, now with ``config``;
    else ``(None, None)``.

    Args:
        load: reads the checkpoint: ``load(path, device=..., with_extra=True) -> (model, payload)``.
        corpus, words: the corpus asked for now and the vocabulary it gives, to be checked against
            the identity the checkpoint records (:func:`course.core.checkpoints.check_resumable`).

    Raises:
        SettingError: a checkpoint of another corpus or vocabulary, with other settings (but for
            :data:`RESUMABLE_CHANGES`), or one without the record of its corpus.
        ModelFileError: a damaged checkpoint.
    """
    if checkpoint is None or not Path(checkpoint).is_file():
        return None, None
    model, payload = load(checkpoint, device=config.device, with_extra=True)
    check_same_run(checkpoint, {"identity": payload.get("identity"), "config": model.config.to_dict()},
                   run_identity(corpus, words), config.to_dict())
    model.config = config
    return model, payload


def check_same_run(path: str | os.PathLike, saved: dict, identity: dict, config: dict) -> None:
    """Refuse to resume the checkpoint at ``path`` (``saved``: its ``{"identity", "config"}``) on
    another corpus or vocabulary (``identity`` now: :func:`course.core.checkpoints.run_identity`) or with
    other settings (``config`` now, as a dict; :data:`RESUMABLE_CHANGES` may differ).

    Raises:
        SettingError: one line naming what differs, or saying the checkpoint records no identity.
    """
    check_resumable(path, saved, identity, config, RESUMABLE_CHANGES)


def batch_order(groups) -> str:
    """A fingerprint of an epoch's batch order: the SHA-256 of the sentence numbers of its batches,
    in order (``groups``: one array of sentence numbers per batch)."""
    digest = hashlib.sha256()
    for group in groups:
        digest.update(np.asarray(group, dtype=np.int64).tobytes())
        digest.update(b"|")
    return digest.hexdigest()


def check_batch_order(saved: dict | None, groups, checkpoint) -> None:
    """Refuse to resume within an epoch whose batch order, drawn again, is not the one the
    checkpoint ``saved`` was written in (its ``batch_order``; a checkpoint written at an epoch's
    end, or one that does not record it, is not checked)."""
    recorded = (saved or {}).get("batch_order")
    if recorded is not None and recorded != batch_order(groups):
        raise SettingError(f"{checkpoint or 'the checkpoint'}: the epoch's batch order drawn again from the seed is "
                           "not the one it was trained in (another version of numpy?), so the run cannot go on where "
                           "it stopped; resume with the versions it was trained with, or train afresh")


def resumed_or_afresh(train, checkpoint: str | os.PathLike, what: str):
    """``train(resume=True)`` for a model the course keeps: where its checkpoint cannot be resumed with
    the settings asked for now (one left by older code, another preset or another corpus), a one-line
    note says why, the checkpoint is deleted and ``train(resume=False)`` starts afresh."""
    import sys

    checkpoint = Path(checkpoint)
    try:
        return train(resume=True)
    except SettingError as exc:
        if not (checkpoint.is_file() and str(exc).startswith(str(checkpoint))):
            raise
        reason = " ".join(str(exc).removeprefix(str(checkpoint)).lstrip(":, ").split("; ")[0].split())
        print(f"note: the {what}'s checkpoint {checkpoint} cannot be resumed ({reason}); training afresh",
              file=sys.stderr, flush=True)
        checkpoint.unlink()
        return train(resume=False)
