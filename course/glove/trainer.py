"""The fast GloVe trainer: the steps of the reference trainer (:mod:`course.glove.reference`) for a
whole batch of entries at once, on several workers, on a CPU or a GPU.

- Each epoch visits the non-zero entries in a new shuffled order (:func:`~course.glove.counting.entry_order`)
  and cuts it into batches of ``batch_size``; a batch's loss and gradients are sparse matrix
  products (:mod:`course.glove.batches`).
- AdaGrad, as in ``glove.c``: parameters start uniform in ``[-0.5, 0.5] / (dim + 1)`` and each one
  has an accumulator ``G`` that starts at 1 and adds the square of the *scaled* step ``(lr * g)^2``;
  the update is ``-lr * g / sqrt(G)``. ``glove.c`` updates after every single entry and divides by
  the accumulator before adding the new square; here ``g`` is the sum of a batch's gradients, and
  its square is added first, which bounds every step (with the old accumulator, a frequent word's
  summed gradient makes the first step explode). A row that no entry of a batch touches does not
  move, so this is sparse AdaGrad. With ``batch_size=1`` the steps are the reference trainer's.
- On the CPU, ``threads`` Python threads take batches in turn and update the shared tables without
  locks ("Hogwild", as ``glove.c``'s threads do); on a GPU one thread does. One thread and one seed
  give identical vectors every time; with two or more threads the order in which they update
  shared rows changes from run to run, and so do the vectors.
"""

from __future__ import annotations

import math
import os

import scipy.sparse as sp

from ..core import devices
from ..core.checkpoints import corpus_key
from ..core.divergence import check_loss, smaller
from ..core.errors import SettingError
from ..static import hogwild, run_epochs
from .batches import Batch, DeviceEntries, batch_loss_and_gradients
from .counting import ENTRY_BYTES, entry_order

# Hogwild workers as forked processes (course.static.hogwild) rather than threads. Measured on wiki-en-articles
# with 2 workers on 2 cores, processes trained 0.78-0.87 times as many entries per second as threads:
# a batch is a few large sparse products, which release the interpreter lock, so threads already run
# in parallel, and processes add a fork per epoch. So GloVe keeps threads.
IN_PROCESSES = False


class FastTrainer:
    """Trains a :class:`~course.glove.model.GloVe` in batches of ``config.batch_size`` entries."""

    def __init__(self, model):
        self.model, self.config, self.device = model, model.config, model.device
        on_cpu = self.device.type == "cpu"
        self.workers = self.config.threads if on_cpu else 1
        self.in_processes = IN_PROCESSES and on_cpu and self.workers > 1 and hogwild.can_fork()

    def train(self, cooccurrences: sp.csr_matrix, corpus=None, progress: bool = True,
              checkpoint: str | os.PathLike | None = None, callback=None, callback_seconds: float = 1.0) -> None:
        """Train the model on the counts ``cooccurrences`` ``(V, V)`` (of ``corpus``, if given) until
        ``config.epochs`` epochs are done (see :meth:`GloVe.train <course.glove.model.GloVe.train>`).

        Raises:
            SettingError: no non-zero count; a run that would need more memory than there is.
        """
        import torch

        model, config = self.model, self.config
        self.check_memory(corpus, cooccurrences.nnz)
        entries = DeviceEntries.from_counts(cooccurrences, config.x_max, config.alpha, self.device)
        size = len(entries.rows)
        if size == 0:
            name = getattr(corpus, "name", "the corpus")
            raise SettingError(f"corpus {name!r} is too small to train on: no two vocabulary words occur within "
                               f"window={config.window} of each other in a sentence (min_count={config.min_count})")
        model.state.entries_per_epoch = size
        if corpus is not None:
            model.trained_on = corpus_key(corpus)

        def epoch_work(epoch: int):
            order = torch.from_numpy(entry_order(config.seed, epoch, size)).to(self.device)

            def train_batch(index: int, done) -> tuple[int, float]:
                with torch.no_grad():
                    batch = entries.batch(order[index * config.batch_size:(index + 1) * config.batch_size])
                    loss = self.step(batch)
                check_loss(loss, f"in epoch {epoch + 1}", smaller(lr=config.lr, batch_size=config.batch_size))
                return len(batch.rows), loss / len(batch.rows)

            return math.ceil(size / config.batch_size), train_batch

        run_epochs(model, epoch_work, config.epochs * size, "entry", "GloVe", self.workers, self.in_processes,
                   progress, checkpoint, callback, callback_seconds)

    def step(self, batch: Batch) -> float:
        """One AdaGrad step on the rows a batch touches; returns the batch's loss.

        Each touched row adds the square of its scaled step to its accumulator, then moves by the
        step over the square root of the accumulator. Threads share the parameters without locks
        (Hogwild): two threads touching the same row at once may, rarely, lose one's update.
        """
        model = self.model
        loss, *grads = batch_loss_and_gradients(*model.parameters(), batch)
        where = (batch.touched_rows, batch.touched_cols, batch.touched_rows, batch.touched_cols)
        for parameter, gradsq, grad, index in zip(model.parameters(), model.gradsq, grads, where, strict=True):
            step = grad.mul_(self.config.lr)
            squared = step * step
            accumulated = gradsq.index_select(0, index).add_(squared)
            gradsq.index_add_(0, index, squared)
            parameter.index_add_(0, index, step.div_(accumulated.sqrt_()), alpha=-1)
        return float(loss)

    def check_memory(self, corpus, entries: int) -> None:
        """Refuse, before they are made, training arrays that cannot fit: :data:`ENTRY_BYTES` per
        non-zero co-occurrence, each worker's batch (its entries, and rows of vectors and
        gradients for the words it touches), the copies of the tables that worker processes share
        and the copy of the vectors made for saving them."""
        config, vocab = self.config, self.model.vocab
        table = len(vocab) * config.dim * 4
        rows = min(config.batch_size, len(vocab))
        batch = config.batch_size * 80 + rows * config.dim * 4 * 8
        on_device = self.workers * batch + (40 * entries if self.device.type == "cuda" else 0)
        on_device += 4 * table if self.in_processes else 0  # the parameters and AdaGrad's accumulators
        name = getattr(corpus, "name", "the counts")
        devices.check_memory(f"training GloVe on {name!r} ({entries:,} non-zero co-occurrences at window="
                             f"{config.window}, dim={config.dim:,}, batch_size={config.batch_size:,})",
                             entries * ENTRY_BYTES + 2 * table,
                             "use a smaller window, dim or batch_size, or a larger min_count", self.device, on_device)
