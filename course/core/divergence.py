"""Training that diverged: stopped where its loss stops being a number, and never saved.

A learning rate far too large sends the weights to infinity and then to NaN; every later loss is
NaN, and a model saved from there reads as a model but predicts nothing. What every network trainer
of the course shares against it (the biLM, the Transformers, the tagger, ULMFiT's LM and
classifier, GloVe):

- :func:`check_loss`: a training loss that is not finite stops the run with one line
  (:class:`~course.core.errors.TrainingDivergedError`) naming the epoch and the settings to lower;
- :func:`check_weights`: before a model, a checkpoint or vectors are written, every floating tensor
  of the weights is checked finite, else nothing is written and one line says which is not;
- :func:`perplexity`: exp of a mean loss, ``inf`` where it is past what a float holds (a loss of
  several hundred nats a word, which a run that diverged gives), never an ``OverflowError``.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping

from .errors import TrainingDivergedError


def perplexity(mean_loss: float) -> float:
    """exp(``mean_loss``), the perplexity of a mean negative log-likelihood per prediction (in nats):
    ``inf`` where it would not fit in a float, ``nan`` for a loss that is NaN."""
    try:
        return math.exp(float(mean_loss))
    except OverflowError:  # past 709.78 nats
        return math.inf


def smaller(**settings) -> str:
    """What to do about a run that diverged, for its settings as options: ``smaller(lr=0.1,
    batch_size=64)`` is ``"use a smaller --lr (now 0.1) or --batch-size (now 64)"``."""
    named = [f"--{name.replace('_', '-')} (now {value})" for name, value in settings.items()]
    return "use a smaller " + " or ".join(named)


def check_loss(loss: float, where: str, advice: str) -> float:
    """``loss``, where it is finite.

    Args:
        where: where training stands, for the message (``"in epoch 2"``, ``"in epoch 1, step 30"``).
        advice: what to change (:func:`smaller`).

    Raises:
        TrainingDivergedError: ``training diverged (the loss became nan) in epoch 1: use a smaller --lr (now 1e+30)``.
    """
    loss = float(loss)
    if not math.isfinite(loss):
        raise TrainingDivergedError(f"training diverged (the loss became {loss}) {where}: {advice}")
    return loss


def not_finite(tables: Mapping) -> str | None:
    """The name of the first floating tensor of ``tables`` that holds a NaN or an infinity, None
    where all are finite. ``tables`` maps names to tensors, or to state dicts, lists of tensors or
    None (skipped), whose tensors are named ``name.key`` or ``name[i]``."""
    import torch

    def walk(name: str, value):
        if isinstance(value, torch.Tensor):
            if value.is_floating_point() or value.is_complex():
                if not bool(torch.isfinite(value).all()):
                    yield name
        elif isinstance(value, Mapping):
            for key, inner in value.items():
                yield from walk(f"{name}.{key}" if name else str(key), inner)
        elif isinstance(value, (list, tuple)):
            for index, inner in enumerate(value):
                yield from walk(f"{name}[{index}]", inner)

    return next(walk("", tables), None)


def check_weights(path: str | os.PathLike | None, tables: Mapping, what: str = "model",
                  advice: str = "train again with a smaller --lr") -> None:
    """Refuse to write ``path`` (None: nothing is written, the run stops all the same) where a
    floating tensor of ``tables`` (see :func:`not_finite`) holds NaN or infinity: the run diverged,
    and its ``what`` (model, checkpoint, vectors) would be noise.

    Raises:
        TrainingDivergedError: one line naming ``path``, the first tensor that is not finite and ``advice``.
    """
    bad = not_finite(tables)
    if bad is None:
        return
    weights = f"the weights of the {what} are not finite ({bad} holds NaN or infinity)"
    if path is None:
        raise TrainingDivergedError(f"training diverged: {weights}; {advice}")
    raise TrainingDivergedError(f"{path}: not written, {weights}: training diverged; {advice}")
