"""What the language-model trainers share (the biLM of :mod:`course.elmo`, the Transformers of
:mod:`course.transformer` and ULMFiT's fine-tuning): resuming a checkpoint of the same run, and
keeping the model at its best held-out perplexity.

Keeping the best: after every measurement of the held-out perplexity p_k (one per epoch),

    best = min(p_1 .. p_k),   since_best = k - argmin(p_1 .. p_k),

the weights of the best measurement are kept, and training stops once ``since_best`` reaches the
patience (0: never). The model a trainer returns when it finishes (or stops) has the best weights;
its state records the best measurement (``state.best``) and every one (``state.heldout``, the last
last). A checkpoint holds the best weights too, so that a resumed run ends as an uninterrupted one.
"""

from __future__ import annotations

import os
from pathlib import Path

import torch

from .checkpoints import check_resumable, run_identity

RESUMABLE_CHANGES = frozenset({"device", "threads", "checkpoint_every", "preset"})  # a resumed run may change


def resume_checkpoint(checkpoint: str | os.PathLike | None, config, load, corpus, words):
    """``(model, payload)`` of ``checkpoint`` when there is one to resume from, now with ``config``;
    else ``(None, None)``.

    Args:
        load: reads the checkpoint: ``load(path, device=..., with_extra=True) -> (model, payload)``.
        corpus, words: the corpus asked for now and the vocabulary it gives, to be checked against
            the identity the checkpoint records (:func:`course.checkpoints.check_resumable`).

    Raises:
        SettingError: a checkpoint of another corpus or vocabulary, with other settings (but for
            :data:`RESUMABLE_CHANGES`), or one without the record of its corpus.
        ModelFileError: a damaged checkpoint.
    """
    if checkpoint is None or not Path(checkpoint).is_file():
        return None, None
    model, payload = load(checkpoint, device=config.device, with_extra=True)
    check_resumable(checkpoint, {"identity": payload.get("identity"), "config": model.config.to_dict()},
                    run_identity(corpus, words), config.to_dict(), RESUMABLE_CHANGES)
    model.config = config
    return model, payload


class KeepBest:
    """The best held-out measurement's weights of ``network``, and the patience left.

    Args:
        network: the module whose weights are kept (a copy on the CPU).
        state: the training state (``best``, ``since_best``, ``stopped_early``), updated here.
        patience: measurements without a better perplexity before training stops (0: never).
        saved: a checkpoint's payload, whose ``best_weights`` are taken up.
    """

    def __init__(self, network: torch.nn.Module, state, patience: int, saved: dict | None = None):
        self.network, self.state, self.patience = network, state, patience
        self.weights = saved.get("best_weights") if saved is not None else None

    def measured(self, entry: dict, perplexity: float) -> bool:
        """Record a held-out measurement (``entry``, with its ``perplexity``); keep the weights
        if it is the best so far. Returns whether training should stop (patience used up)."""
        state = self.state
        if state.best is None or perplexity < state.best["perplexity"]:
            state.best = {**entry, "perplexity": perplexity}
            state.since_best = 0
            self.weights = {name: tensor.detach().to("cpu", copy=True)
                            for name, tensor in self.network.state_dict().items()}
        else:
            state.since_best += 1
        state.stopped_early = self.patience > 0 and state.since_best >= self.patience
        return state.stopped_early

    def note(self) -> str:
        """For the progress bar: the best so far, and the patience left or used up."""
        best = self.state.best
        if best is None:
            return ""
        if self.state.stopped_early:
            return (f"stopped: {self.state.since_best} without a better held-out ppl, "
                    f"kept epoch {best['epoch']} ({best['perplexity']:.1f})")
        return f"best {best['perplexity']:.1f} (epoch {best['epoch']})"

    def checkpoint_extra(self) -> dict:
        """What a checkpoint keeps of it: ``{"best_weights"}``."""
        return {"best_weights": self.weights}

    def restore(self) -> None:
        """Put the best measurement's weights back into the network (where there was one)."""
        if self.weights is not None:
            self.network.load_state_dict(self.weights)
