"""Keeping a language model at its best held-out perplexity (the biLM of :mod:`course.elmo`, the
Transformers of :mod:`course.transformer`, ULMFiT's fine-tuning and the Transformers' classifiers).

After every measurement of the held-out perplexity p_k,

    best = min(p_1 .. p_k),   since_best = k - argmin(p_1 .. p_k),

the weights of the best measurement are kept, and training stops once ``since_best`` reaches the
patience (0: never). The model a trainer returns when it finishes (or stops) has the best weights;
its state records the best measurement (``state.best``) and every one (``state.heldout``, the last
last). A checkpoint holds the best weights too, so that a resumed run ends as an uninterrupted one.

When to measure (:func:`measures`): by default after every epoch; with ``eval_every = N``, after
every N-th optimizer step s (s = N, 2N, ..., counted over all epochs) and after the last epoch, so
that on a corpus whose epoch takes hours the best weights are kept, and the patience counted, within
an epoch. The patience then counts measurements, not epochs. A measurement's ``epoch`` says where it
stands: whole epochs done, plus the share of the current one (:func:`epoch_position`, e.g. 1.5).
"""

from __future__ import annotations

import torch


def measures(eval_every: int | None, step: int, epoch_ends: bool, last_epoch: bool) -> bool:
    """Whether the held-out perplexity is measured after optimizer step ``step`` (1, 2, ..., counted
    over all epochs): at the end of every epoch when ``eval_every`` is None; else when ``step`` is a
    multiple of ``eval_every``, and at the end of the last epoch.

    Args:
        epoch_ends: the step is the last of its epoch; ``last_epoch``: that epoch is the run's last.
    """
    if eval_every is None:
        return epoch_ends
    return step % eval_every == 0 or (epoch_ends and last_epoch)


def epoch_position(epochs_done: int, batch_in_epoch: int, batches_in_epoch: int) -> int | float:
    """Where training stands in epochs: ``epochs_done``, plus ``batch_in_epoch / batches_in_epoch``
    of the epoch under way (rounded to 3 places); a whole number at an epoch's end."""
    if batch_in_epoch == 0 or batches_in_epoch == 0:
        return epochs_done
    return round(epochs_done + batch_in_epoch / batches_in_epoch, 3)


class KeepBest:
    """The best held-out measurement's weights of ``network``, and the patience left.

    Args:
        network: the module whose weights are kept (a copy on the CPU).
        state: the training state (``best``, ``since_best``, ``stopped_early``), updated here.
        patience: measurements without a better perplexity before training stops (0: never); one
            measurement per epoch, or per ``eval_every`` steps where the trainer is given that.
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
                    f"kept epoch {best['epoch']}, step {best['step']} ({best['perplexity']:.1f})")
        return f"best {best['perplexity']:.1f} (epoch {best['epoch']}, step {best['step']})"

    def checkpoint_extra(self) -> dict:
        """What a checkpoint keeps of it: ``{"best_weights"}``."""
        return {"best_weights": self.weights}

    def restore(self) -> None:
        """Put the best measurement's weights back into the network (where there was one)."""
        if self.weights is not None:
            self.network.load_state_dict(self.weights)
