"""The reference GloVe trainer: one entry at a time, the loss of :mod:`course.glove.loss`, AdaGrad.

This is GloVe as ``glove.c`` trains it, in a loop a reader can follow:

    count X, keep its non-zero entries (i, j, X_ij)
    for each epoch:
        for each entry, in a new shuffled order:
            diff = w_i . w~_j + b_i + b~_j - log X_ij,   c = f(X_ij) * diff
            gradients: c * w~_j for w_i, c * w_i for w~_j, c for b_i and b~_j
            AdaGrad: for each of the four, step = lr * gradient,
                     G += step^2, parameter -= step / sqrt(G)      (G starts at 1)

``glove.c`` divides by the accumulator *before* adding the new square; ``old_accumulator=True``
does the same. The course adds first (as its fast trainer must: a batch's summed gradient would
otherwise make a first step as large as ``lr`` times the sum). The fast trainer
(:mod:`course.glove.trainer`) takes the same steps for a batch of entries at once; with
``batch_size=1`` and one thread its steps are these, and the tests hold it to that.
"""

from __future__ import annotations

import numpy as np

from .config import GloVeConfig
from .counting import entry_order, nonzero_entries
from .loss import glove_loss_terms, targets
from .model import GloVe


def train_reference(corpus, config: GloVeConfig = GloVeConfig(), old_accumulator: bool = False) -> GloVe:
    """Build the vocabulary of ``corpus``, count its co-occurrences and train GloVe on them entry by
    entry (one thread, on the CPU, with ``config.seed``: the same vectors every time; ``batch_size``,
    ``threads`` and ``device`` are not used). ``model.state.history`` holds the mean loss per entry
    of each epoch.

    Raises:
        SettingError: no two vocabulary words occur within ``window`` of each other.
    """
    import dataclasses

    import torch

    model = GloVe.start(corpus, dataclasses.replace(config, device="cpu"))
    rows, cols, counts = nonzero_entries(model.cooccurrences(corpus))
    log_counts, weights = targets(counts, config.x_max, config.alpha)
    model.state.entries_per_epoch = len(rows)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # an entry's tensors are tiny: more threads only wait for each other
    try:
        with torch.no_grad():
            for epoch in range(config.epochs):
                losses = [train_entry(model, rows[n], cols[n], log_counts[n], weights[n], config.lr, old_accumulator)
                          for n in entry_order(config.seed, epoch, len(rows))]
                model.state.record(len(rows), float(np.mean(losses)) if losses else None)
                model.state.epochs_done = epoch + 1
    finally:
        torch.set_num_threads(threads)
    return model


def train_entry(model: GloVe, i: int, j: int, log_count: float, weight: float, lr: float,
                old_accumulator: bool = False) -> float:
    """One AdaGrad step on the entry ``(i, j)`` with log X_ij ``log_count`` and f(X_ij) ``weight``;
    returns its loss, 1/2 f(X_ij) diff^2 (before the step)."""
    import torch

    w, w_context, b, b_context = model.parameters()  # (V, d), (V, d), (V,), (V,)
    loss, grad_w, grad_w_context, grad_b = glove_loss_terms(
        w[i:i + 1], w_context[j:j + 1], b[i:i + 1], b_context[j:j + 1],
        torch.tensor([log_count], dtype=w.dtype), torch.tensor([weight], dtype=w.dtype))
    gradients = ((w, i, grad_w[0]), (w_context, j, grad_w_context[0]), (b, i, grad_b[0]), (b_context, j, grad_b[0]))
    for (parameter, row, gradient), accumulator in zip(gradients, model.gradsq, strict=True):
        step = gradient * lr
        if old_accumulator:  # glove.c: divide by G, then add the new square
            parameter[row] -= step / accumulator[row].sqrt()
            accumulator[row] += step * step
        else:
            accumulator[row] += step * step
            parameter[row] -= step / accumulator[row].sqrt()
    return float(loss[0])
