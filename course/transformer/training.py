"""Training a Transformer LM: batches of equal-length sentences, AdamW with a warm-up and a cosine
decay, gradient clipping, held-out perplexity after every epoch (or every ``config.eval_every``
steps), the best weights kept, checkpoints and resuming, also from within an epoch.

The conventions are ELMo's (:func:`course.elmo.train_elmo`): every ``config.heldout_every``-th
sentence is held out (:func:`course.elmo.training.split_heldout`), the vocabulary is counted on
the rest, each epoch's batches are shuffled from (seed, epoch), and a checkpoint keeps the model,
the optimizer and the random generator, so that a resumed run gives bit for bit the weights and
history of an uninterrupted one. For the masked objective each batch's masks are drawn from
(seed, epoch, batch), so they too are the same in a resumed run. As the biLM's trainer does, it
keeps the weights of the best held-out measurement and stops after ``config.patience``
measurements without a better one (one per epoch, or per ``config.eval_every`` steps, each followed
by a checkpoint: :func:`course.lm_training.measures`); both resume through :mod:`course.lm_training`.
Under ``torchrun`` each process steps on its share of every global batch (``config.batch_tokens``
is per process), the gradients averaged across processes (:mod:`course.distributed`); only rank 0
writes and shows progress, and its held-out measurement decides for every process.
"""

from __future__ import annotations

import math
import os
import time

import numpy as np
import torch

from .. import distributed
from ..checkpoints import run_identity
from ..devices import resolve_device
from ..elmo.training import cpu_threads, random_state, split_heldout, start_random_state
from ..errors import SettingError, TrainingDivergedError
from ..lm_training import KeepBest, batch_order, check_batch_order, epoch_position, measures, resume_checkpoint
from ..vocab import Vocabulary, VocabularyConfig
from .config import TransformerConfig, preset
from .data import SPECIALS, SentenceIds
from .embedder import warn_split
from .model import Transformer
from .perplexity import autocast, corrupt, evaluate_perplexity, generator

LOG_EVERY = 10  # steps between the loss read-outs


def learning_rate(config: TransformerConfig, step: int, total_steps: int) -> float:
    """The learning rate of step t (0-based) of T = ``total_steps``, with W = the warm-up steps
    (``warmup_share * T``, at least 1) and r = ``final_lr_share``:

        lr_t = lr * (t + 1) / W                                          for t < W
        lr_t = lr * (r + (1 - r) * (1 + cos(pi * (t - W) / (T - W))) / 2)  after.
    """
    warmup = max(1, round(config.warmup_share * total_steps))
    if step < warmup:
        return config.lr * (step + 1) / warmup
    progress = min(1.0, (step - warmup) / max(1, total_steps - warmup))
    r = config.final_lr_share
    return config.lr * (r + (1 - r) * (1 + math.cos(math.pi * progress)) / 2)


def vocabulary(corpus, train_sentences: np.ndarray, config: TransformerConfig) -> Vocabulary:
    """The words of the training sentences seen ``min_count`` times (at most ``max_vocab``), after
    ``<pad>``, ``<unk>``, ``<bos>``, ``<eos>`` and ``<mask>``."""
    starts, ends = corpus.offsets[train_sentences], corpus.offsets[train_sentences + 1]
    inside = np.zeros(corpus.num_tokens + 1, dtype=np.int64)  # +1 at each start, -1 at each end
    np.add.at(inside, starts, 1)
    np.add.at(inside, ends, -1)
    tokens = corpus.token_ids[np.cumsum(inside[:-1]) > 0]
    counts = np.bincount(tokens, minlength=len(corpus.types))
    return Vocabulary.from_counts(list(zip(corpus.types, counts.tolist(), strict=True)),
                                  VocabularyConfig(min_count=config.min_count, max_size=config.max_vocab,
                                                   specials=SPECIALS))


def train_transformer(corpus, config: TransformerConfig | None = None, progress: bool = True,
                      checkpoint: str | os.PathLike | None = None, resume: bool = False,
                      max_steps: int | None = None, heldout: bool = True) -> Transformer:
    """Train a Transformer LM on ``corpus`` (a :class:`~course.corpus.Corpus`).

    Args:
        config: the settings (default: the ``cpu`` preset, causal).
        progress: show a tqdm bar (loss, perplexity, held-out perplexity).
        checkpoint: a file to save the whole training state to every ``config.checkpoint_every``
            steps, after every held-out measurement, after every epoch and where training stops.
        resume: continue from ``checkpoint`` if it exists (the corpus, the vocabulary and the
            settings must be the same, apart from the device, the threads and the checkpoint
            interval), also from within an epoch (the epoch, the batches of it done and the epoch's
            order, drawn again from (seed, epoch)); a resumed run gives the same model and history
            as an uninterrupted one.
        max_steps: stop after this many steps in all (the schedule still assumes all epochs).
        heldout: measure the held-out perplexity after every epoch, or every ``config.eval_every``
            steps and after the last epoch (``state.heldout``), keep the best measurement's weights
            and stop after ``config.patience`` measurements without a better one.

    Returns:
        The :class:`~course.transformer.model.Transformer`; ``model.state`` has the history. Once
        training is finished (or stopped early) the model has the weights of the best held-out
        measurement (``state.best``); a run stopped by ``max_steps`` returns its last weights.

    Raises:
        SettingError: too few sentences, CUDA asked for without a GPU, or a checkpoint of another
            corpus, vocabulary or settings.
        ModelFileError: a damaged checkpoint.
    """
    config = config or preset("cpu")
    device = resolve_device(config.device)
    world = distributed.start(device)
    progress, checkpoint = progress and world.writer, checkpoint if world.writer else None
    train_sentences, heldout_sentences = split_heldout(corpus, config)
    if len(train_sentences) == 0:
        raise SettingError(f"corpus {corpus.name!r} has too few sentences to train on ({corpus.num_sentences})")
    words = vocabulary(corpus, train_sentences, config)
    model, saved = (resume_checkpoint(checkpoint, config, Transformer.load, corpus, words.words) if resume
                    else (None, None))
    saved = world.agree(saved)  # rank 0 reads the checkpoint, every process resumes from it
    distributed.check_resume(saved, world, checkpoint)
    if model is None:
        model = Transformer(config, words, device=str(device))
    if saved is not None and not world.writer:
        model.network.load_state_dict(saved["weights"])
        model.state = type(model.state)(**saved["state"])
    train = SentenceIds.from_corpus(corpus, train_sentences, model.words, config.max_words)
    warn_split(train.num_split, len(train_sentences), config.max_words, f"training sentences of {corpus.name!r}")
    held = (SentenceIds.from_corpus(corpus, heldout_sentences, model.words, config.max_words)
            if heldout and len(heldout_sentences) else None)
    decay = [p for p in model.network.parameters() if p.dim() >= 2]
    rest = [p for p in model.network.parameters() if p.dim() < 2]
    optimizer = torch.optim.AdamW([{"params": decay, "weight_decay": config.weight_decay},
                                   {"params": rest, "weight_decay": 0.0}], lr=config.lr, betas=(0.9, 0.98))
    if saved is not None:
        optimizer.load_state_dict(saved["optimizer"])
    start_random_state(config.seed, device, saved, world)
    from tqdm.auto import tqdm

    model.network.train()
    best = KeepBest(model.network, model.state, config.patience, saved) if held is not None else None
    with cpu_threads(device, world.threads(config.threads)), tqdm(
            total=config.epochs * train.num_tokens, initial=model.state.tokens, unit="tok", unit_scale=True,
            desc=f"Transformer {config.objective} ({config.preset})", disable=not progress, smoothing=0.1) as bar:
        _Run(model, train, held, optimizer, bar, checkpoint, saved, best,
             run_identity(corpus, model.words.words), world).epochs(max_steps)
    if best is not None and model.state.finished:
        best.restore()
    model.network.eval()
    return model


class _Run:
    """The epochs of one call of :func:`train_transformer`, recorded in ``model.state``."""

    def __init__(self, model: Transformer, train: SentenceIds, heldout: SentenceIds | None, optimizer, bar,
                 checkpoint, saved: dict | None, best: KeepBest | None, identity: dict,
                 world: distributed.World = distributed.World()):
        self.model, self.config, self.state = model, model.config, model.state
        self.train, self.heldout, self.optimizer = train, heldout, optimizer
        self.bar, self.checkpoint, self.best = bar, checkpoint, best
        self.identity = identity  # the corpus and vocabulary, recorded in every checkpoint
        self.device = model.device
        self.world = world
        self.loss = distributed.loss_function(model.network, world, self.device)
        self.total_steps = self.config.epochs * world.steps(len(train.batches(self.config.batch_tokens)))
        interval = {"sum": 0.0, "predictions": 0}  # since the last log
        if saved is not None:
            interval = saved.get("intervals", [saved["interval"]])[world.rank]
        self.sums = torch.tensor(interval["sum"], dtype=torch.float64, device=self.device)
        self.predictions = interval["predictions"]
        self.saved, self.order = saved, None  # the checkpoint resumed from; the current epoch's batch order
        self.stopped = False

    def epochs(self, max_steps: int | None) -> None:
        while self.state.epoch < self.config.epochs and not self.stopped and not self.state.stopped_early:
            self.epoch(max_steps)
            self.end_epoch()

    def epoch(self, max_steps: int | None) -> None:
        """The rest of the current epoch, its batches shuffled with (seed, epoch)."""
        state, config = self.state, self.config
        groups = self.train.batches(config.batch_tokens, np.random.default_rng([config.seed, state.epoch]))
        if self.saved is not None and state.batch_in_epoch:  # resumed within this epoch
            check_batch_order(self.saved, groups, self.checkpoint)
        self.saved, self.order = None, batch_order(groups)
        steps = self.world.shard(groups)
        self.batches_in_epoch = len(steps)
        lengths = np.diff(self.train.offsets)
        clock = time.perf_counter()
        for group, everyone in steps[state.batch_in_epoch:]:
            lr = learning_rate(config, state.step, self.total_steps)
            self.step(self.train.batch(group), lr, sum(int(lengths[g].sum()) for g in everyone))
            state.step += 1
            state.batch_in_epoch += 1
            self.stopped = max_steps is not None and state.step >= max_steps
            if state.step % LOG_EVERY == 0 or state.batch_in_epoch == len(steps):
                state.seconds += time.perf_counter() - clock
                self.log(lr)
                clock = time.perf_counter()
            within = state.batch_in_epoch < len(steps)  # an epoch's end is measured by end_epoch
            measured = within and self.heldout is not None and measures(config.eval_every, state.step, False, False)
            if measured:
                state.seconds += time.perf_counter() - clock
                self.measure(epoch_position(state.epoch, state.batch_in_epoch, len(steps)))
                clock = time.perf_counter()
            if state.stopped_early:
                return  # end_epoch saves the checkpoint
            if (measured or state.step % config.checkpoint_every == 0) and not self.stopped:
                self.save_checkpoint()
                clock = time.perf_counter()
            if self.stopped:
                state.seconds += time.perf_counter() - clock
                return

    def step(self, batch, lr: float, words: int) -> None:
        """One AdamW step at learning rate ``lr`` on the mean loss of ``batch``; ``words``: the
        words of every process's batch of this step."""
        targets = None
        ids = batch.ids
        if self.config.objective == "masked":
            rng = generator(self.config.seed, self.state.epoch,
                            self.state.batch_in_epoch * self.world.size + self.world.rank)
            ids, targets = corrupt(batch, self.model.words, self.config, rng)
            targets = targets.to(self.device)
        for group in self.optimizer.param_groups:
            group["lr"] = lr
        with autocast(self.config, self.device):
            loss, nll, count = self.loss(ids.to(self.device), batch.mask.to(self.device), targets)
        self.optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(self.model.network.parameters(), self.config.clip_norm)
        self.optimizer.step()
        self.sums += nll.double()
        self.predictions += count
        self.state.tokens += words
        self.bar.update(words)

    def log(self, lr: float) -> None:
        mean = float(self.sums) / max(self.predictions, 1)
        if not math.isfinite(mean):
            raise TrainingDivergedError(f"the training loss became {mean} at step {self.state.step}: "
                                        f"lower lr ({self.config.lr})")
        self.sums.zero_()
        self.predictions = 0
        state = self.state
        state.history.append({"step": state.step, "tokens": state.tokens, "seconds": round(state.seconds, 3),
                              "lr": lr, "loss": mean, "perplexity": math.exp(min(mean, 50))})
        self.bar.set_postfix(loss=f"{mean:.3f}", ppl=f"{math.exp(min(mean, 50)):.0f}", refresh=False)

    def end_epoch(self) -> None:
        """After an epoch (or where training stopped): if the epoch is whole, count it and (after
        every epoch, or with ``config.eval_every`` on its steps and after the last epoch) measure the
        held-out perplexity, keeping the weights if it is the best; then save a checkpoint. Nothing
        is logged or measured where training stops mid-epoch but where the steps call for it, so
        that a resumed run's history is an uninterrupted run's."""
        state = self.state
        whole = state.batch_in_epoch == self.batches_in_epoch
        if whole:
            state.epoch += 1
            state.batch_in_epoch = 0
        if self.heldout is not None and whole and measures(self.config.eval_every, state.step, True,
                                                           state.epoch >= self.config.epochs):
            self.measure(state.epoch)
        state.finished = state.epoch >= self.config.epochs or state.stopped_early
        self.save_checkpoint()

    def measure(self, epoch: int | float) -> None:
        """Measure the held-out perplexity (rank 0's measurement, in every process) and give it to
        :class:`~course.lm_training.KeepBest`; ``epoch``: where training stands
        (:func:`~course.lm_training.epoch_position`)."""
        state = self.state
        measured = self.world.agree(evaluate_perplexity(self.model.network, self.heldout, self.config))
        entry = {"epoch": epoch, "step": state.step, "tokens": state.tokens, **measured}
        state.heldout.append(entry)
        self.best.measured(entry, measured["perplexity"])
        self.bar.set_postfix(heldout=f"{measured['perplexity']:.0f}", kept=self.best.note(), refresh=False)

    def save_checkpoint(self) -> None:
        """The model with the optimizer's and the random generators' states, and the losses summed
        since the last log entry."""
        generators = random_state(self.device, self.world)  # every process takes part
        interval = {"sum": float(self.sums), "predictions": self.predictions}
        intervals = {"intervals": self.world.gather(interval)} if self.world.distributed else {}
        if self.checkpoint is not None:
            self.model.save(self.checkpoint, extra={
                "optimizer": self.optimizer.state_dict(), **generators, "interval": interval, **intervals,
                "identity": self.identity, **(self.best.checkpoint_extra() if self.best else {}),
                "batch_order": self.order if self.state.batch_in_epoch else None})
