"""The bookkeeping of one call of a language model's trainer, the same for the biLM and the
Transformers: epochs of batches shuffled from (seed, epoch), the loss read out every
:data:`LOG_EVERY` steps, the held-out perplexity after every epoch (or every ``config.eval_every``
steps: :func:`course.lm.best.measures`) with the best weights kept, checkpoints, and stopping early.

A model's trainer subclasses :class:`Run` and says how to take one step (:meth:`Run.step`), read
the loss out (:meth:`Run.read_out`), measure the held-out sentences (:meth:`Run.evaluate`) and what
its checkpoint keeps of the optimizer (:meth:`Run.checkpoint_extra`). Everything is recorded in
``model.state`` (:class:`~course.lm.state.TrainingState`); ``state.seconds`` counts the time spent
in steps (a read-out waits for the GPU and is counted too), not the held-out measurements, the
callbacks or the checkpoints.

Where a call stops (``max_steps``, ``max_seconds``) the checkpoint is written first, with the loss
summed since the last read-out, so that a resumed run reads out and records what an uninterrupted
one does; then the loss of the last steps is read out, so that the model returned has them in its
history.

Where an epoch stands is counted in batches of its order taken (``state.batch_in_epoch``, N a step
with N processes), and a checkpoint records N (``processes``), so that it resumes with another
number of processes: the epoch goes on from the first batch not yet taken, and the learning rate
from the same share of training (:func:`schedule_step`).
"""

from __future__ import annotations

import sys
import time

import numpy as np

from ..core import distributed
from ..core.divergence import check_loss, check_weights, smaller
from ..core.errors import SettingError
from .best import KeepBest, epoch_position, measures
from .generators import random_state
from .resume import batch_order, check_batch_order

LOG_EVERY = 10  # steps between the loss read-outs (each one waits for the GPU)


def schedule_step(epoch: int, batch_in_epoch: int, steps_per_epoch: int, processes: int) -> int | float:
    """Where the learning-rate schedule stands: the step t of T = epochs * S that a run of N =
    ``processes`` processes, S = ``steps_per_epoch`` = floor(M / N) steps an epoch, has reached after
    ``epoch`` epochs and b = ``batch_in_epoch`` batches of the next one's order,

        t = epoch * S + min(b, N S) / N,   t / T = (epoch + min(b, N S) / (N S)) / epochs,

    the share of training done, counted in batches of the epochs' orders. With one number of
    processes b = N s after s steps of the epoch, so t is the optimizer steps taken (an integer).
    A run resumed with N' processes goes on from the share of training the checkpoint reached; it
    moves by no more than the share N S and N' S' differ by (an epoch leaves fewer than N batches
    out), less than max(N, N') / M of an epoch.
    """
    done = min(batch_in_epoch, processes * steps_per_epoch)
    steps, rest = divmod(done, processes)
    return epoch * steps_per_epoch + (steps if rest == 0 else done / processes)


def check_steps(batches: int, world: distributed.World, batch_tokens: int) -> None:
    """Refuse an epoch of fewer batches than processes, which would take no step.

    Raises:
        SettingError: one line saying how many batches there are, and what to change.
    """
    if world.steps(batches) == 0:
        raise SettingError(f"the training sentences make {batches} batch{'es' if batches != 1 else ''} of "
                           f"--batch-tokens {batch_tokens}, fewer than the {world.size} processes that take one each a "
                           "step: use a smaller --batch-tokens, fewer processes or a larger corpus")


class Limits:
    """Where a call of a trainer stops early: after ``max_steps`` steps in all, or ``max_seconds``
    after these limits were made."""

    def __init__(self, max_steps: int | None = None, max_seconds: float | None = None):
        self.max_steps, self.max_seconds = max_steps, max_seconds
        self.started = time.perf_counter()

    def reached(self, step: int) -> bool:
        return (self.max_steps is not None and step >= self.max_steps) or (
            self.max_seconds is not None and time.perf_counter() - self.started >= self.max_seconds)


class Run:
    """The epochs of one call of a trainer.

    Args:
        model: the model trained (``config``, ``state``, ``save``); ``train``, ``heldout``: the
            training and held-out sentences (``batches``, ``batch``, ``lengths``; no held-out: None).
        bar: the tqdm bar; ``checkpoint``: the file to save to (None: no checkpoints);
        best: keeps the best held-out measurement's weights (None without held-out sentences);
        identity: the corpus and vocabulary, recorded in every checkpoint;
        world: the processes training together; ``saved``: the checkpoint resumed from;
        callback: called with the model after every read-out and every epoch.
    """

    def __init__(self, model, train, heldout, bar, checkpoint, best: KeepBest | None, identity: dict,
                 world: distributed.World = distributed.World(), saved: dict | None = None, callback=None):
        self.model, self.config, self.state = model, model.config, model.state
        self.train, self.heldout = train, heldout
        self.bar, self.checkpoint, self.best, self.callback = bar, checkpoint, best, callback
        self.identity = identity
        self.world = world
        # steps between checkpoints; a config without them (ULMFiT's stage 2) checkpoints where it measures
        self.checkpoint_every = getattr(self.config, "checkpoint_every", None)
        batches = len(train.batches(self.config.batch_tokens))
        world.together(lambda: check_steps(batches, world, self.config.batch_tokens))
        self.steps_per_epoch = world.steps(batches)
        self.total_steps = self.config.epochs * self.steps_per_epoch
        self.saved, self.order = saved, None  # the checkpoint resumed from; the current epoch's batch order
        if saved is not None:  # batches of the epoch's order taken (older checkpoints counted steps)
            self.state.batch_in_epoch = distributed.batches_taken(saved)
        note = distributed.resume_note(saved, world, batches, self.schedule_step() / self.total_steps)
        if note is not None and world.writer:
            bar.write(note, file=sys.stderr)  # above the progress bar, once
        self.stopped = False
        self.unread = None  # the learning rate of the last step, where it stopped before a read-out

    def saved_interval(self) -> dict | None:
        """This process's losses summed since the last read-out, as the checkpoint resumed from kept them."""
        if self.saved is None or "interval" not in self.saved:
            return None
        intervals = self.saved.get("intervals", [self.saved["interval"]])
        return intervals[self.world.rank] if self.world.rank < len(intervals) else None  # a rank the run lacked

    def schedule_step(self) -> int | float:
        """Where the learning-rate schedule stands now (:func:`schedule_step`)."""
        return schedule_step(self.state.epoch, self.state.batch_in_epoch, self.steps_per_epoch, self.world.size)

    # --------------------------------------------------------------- what each model's trainer says

    def learning_rate(self, step: int | float) -> float:
        """The learning rate at step ``step`` (0-based; :func:`schedule_step`) of ``self.total_steps``."""
        raise NotImplementedError

    def step(self, group: np.ndarray, lr: float) -> None:
        """One optimizer step at ``lr`` on the sentences ``group`` of ``self.train``, its summed
        losses added to the interval since the last read-out."""
        raise NotImplementedError

    def read_out(self, lr: float) -> tuple[dict, dict]:
        """The interval's loss and training perplexity (waits for the GPU), then a new interval:
        ``(history fields, bar fields)``."""
        raise NotImplementedError

    def interval_state(self) -> dict:
        """What a checkpoint keeps of the losses summed since the last read-out."""
        raise NotImplementedError

    def evaluate(self) -> tuple[dict, float, dict]:
        """The held-out measurement: ``(entry fields, the perplexity compared, bar fields)``."""
        raise NotImplementedError

    def checkpoint_extra(self) -> dict:
        """What a checkpoint keeps of the optimizer (and the loss scaler)."""
        raise NotImplementedError

    def epoch_order(self) -> list[np.ndarray]:
        """The batches of the current epoch (``state.epoch``, counted from 0), in the order they are
        taken: the training sentences in batches of about ``config.batch_tokens``, shuffled with
        (``config.seed``, epoch)."""
        return self.train.batches(self.config.batch_tokens,
                                  np.random.default_rng([self.config.seed, self.state.epoch]))

    WEIGHTS = "model"  # what a message calls the weights that stopped being finite, without a checkpoint

    def divergence_advice(self) -> str:
        """What to change where the loss or the weights stop being finite."""
        return smaller(lr=self.config.lr)

    # ------------------------------------------------------------------------------- the epochs

    def epochs(self, limits: Limits) -> None:
        """Train until every epoch is done, the patience is used up or ``limits`` is reached."""
        while self.state.epoch < self.config.epochs and not self.stopped and not self.state.stopped_early:
            self.epoch(limits)
            self.end_epoch()
        if self.unread is not None:  # stopped between two read-outs: after the checkpoint, read the last steps out
            self.log(self.unread)

    def epoch(self, limits: Limits) -> None:
        """The rest of the current epoch, its sentences shuffled with the seed (``config.seed``,
        epoch), so that a resumed epoch goes on with the batches an uninterrupted one would take: from
        the first batch of the order not yet taken, N a step."""
        state, config = self.state, self.config
        groups = self.epoch_order()
        if self.saved is not None and state.batch_in_epoch:  # resumed within this epoch
            check_batch_order(self.saved, groups, self.checkpoint)
        self.saved, self.order = None, batch_order(groups)
        steps = self.world.shard(groups, state.batch_in_epoch)
        self.epoch_end = state.batch_in_epoch + len(steps) * self.world.size  # batches the epoch takes
        lengths = self.train.lengths()
        clock = time.perf_counter()
        for group, everyone in steps:
            lr = self.learning_rate(self.schedule_step())
            self.step(group, lr)
            words = sum(int(lengths[g].sum()) for g in everyone)  # every process's batch
            state.step += 1
            state.batch_in_epoch += self.world.size
            state.tokens += words
            self.bar.update(words)
            self.stopped = (self.world.agree(limits.reached(state.step)) if limits.max_seconds
                            else limits.reached(state.step))
            if state.step % LOG_EVERY == 0 or state.batch_in_epoch == self.epoch_end:
                self.log(lr, clock)
                clock = time.perf_counter()
            elif self.stopped:
                self.unread = lr
            within = state.batch_in_epoch < self.epoch_end  # an epoch's end is measured by end_epoch
            measured = within and self.heldout is not None and measures(config.eval_every, state.step, False, False)
            if measured:
                state.seconds += time.perf_counter() - clock
                self.measure(epoch_position(state.epoch, state.batch_in_epoch, self.epoch_end))
                clock = time.perf_counter()
            if state.stopped_early:
                return  # end_epoch saves the checkpoint
            every = self.checkpoint_every
            if (measured or (every and state.step % every == 0)) and not self.stopped:
                self.save_checkpoint()
                clock = time.perf_counter()
            if self.stopped:
                state.seconds += time.perf_counter() - clock
                return

    def log(self, lr: float, clock: float | None = None) -> None:
        """Record the loss and training perplexity since the last read-out (and the time spent
        stepping since ``clock``) in ``state.history`` and on the bar; call the callback."""
        state = self.state
        fields, shown = self.read_out(lr)
        self.check_loss(fields["loss"])
        if clock is not None:
            state.seconds += time.perf_counter() - clock
        state.history.append({"step": state.step, "tokens": state.tokens, "seconds": round(state.seconds, 3),
                              **fields})
        self.bar.set_postfix(**shown, refresh=False)
        if self.callback is not None:
            self.callback(self.model)

    def check_loss(self, loss: float) -> None:
        """Stop where the loss read out is not finite in any process (every process stops alike:
        :meth:`course.core.distributed.World.together`).

        Raises:
            TrainingDivergedError: one line naming the epoch, the step and the learning rate.
        """
        self.world.together(lambda: check_loss(loss, f"in epoch {self.state.epoch + 1}, step {self.state.step}",
                                               self.divergence_advice()))

    def end_epoch(self) -> None:
        """After an epoch (or where training stopped): if the epoch is whole, count it, and (after
        every epoch, or with ``config.eval_every`` on its steps and after the last epoch) measure the
        held-out perplexity; save a checkpoint and call the callback. Nothing is measured where
        training stops mid-epoch but where the steps call for it, so that a resumed run measures,
        keeps and stops as an uninterrupted one."""
        state = self.state
        whole = state.batch_in_epoch == self.epoch_end
        if whole:
            state.epoch += 1
            state.batch_in_epoch = 0
        if self.heldout is not None and whole and measures(self.config.eval_every, state.step, True,
                                                           state.epoch >= self.config.epochs):
            self.measure(state.epoch)
        state.finished = state.epoch >= self.config.epochs or state.stopped_early
        self.save_checkpoint()
        if self.callback is not None:
            self.callback(self.model)

    def measure(self, epoch: int | float) -> None:
        """Measure the held-out perplexity (rank 0's measurement, in every process) and give it to
        :class:`~course.lm.best.KeepBest`; ``epoch``: where training stands
        (:func:`~course.lm.best.epoch_position`)."""
        state = self.state
        fields, perplexity, shown = self.world.agree(self.evaluate())
        entry = {"epoch": epoch, "step": state.step, "tokens": state.tokens, **fields}
        state.heldout.append(entry)
        self.best.measured(entry, perplexity)
        self.bar.set_postfix(**shown, kept=self.best.note(), refresh=False)

    def save_checkpoint(self) -> None:
        """The model with the optimizer's and the random generators' states, the best weights, and
        the losses summed since the last read-out and the number of processes, when training has a
        checkpoint file. Every process takes part, and a checkpoint that cannot be written ends every
        process (:meth:`course.core.distributed.World.together`)."""
        generators = random_state(self.model.device, self.world)
        interval = self.interval_state()
        intervals = {"intervals": self.world.gather(interval)} if self.world.distributed else {}
        extra = self.checkpoint_extra()

        def write() -> None:
            network = getattr(self.model, self.model.NETWORK)  # the same weights in every process: checked in each
            check_weights(self.checkpoint, {"weights": network.state_dict()},
                          "checkpoint" if self.checkpoint else self.WEIGHTS, self.divergence_advice())
            if self.checkpoint is not None:
                self.model.save(self.checkpoint, extra={
                    **extra, **generators, **(self.best.checkpoint_extra() if self.best else {}), "interval": interval,
                    **intervals, "identity": self.identity, "processes": self.world.size,
                    "batch_order": self.order if self.state.batch_in_epoch else None})

        self.world.together(write)
