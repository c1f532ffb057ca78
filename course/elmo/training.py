"""Training the biLM: batches of equal-length sentences, Adam with a linearly falling learning
rate, gradient clipping, held-out perplexity per direction, the best weights kept, checkpoints and
resuming.

On CUDA the LSTMs are cuDNN's and the forward and backward passes run in mixed precision
(``torch.autocast`` with a gradient scaler; float16 by default, or bfloat16 for the rest of the
network); on a CPU with bfloat16 matrix units they run in bfloat16 (see
:mod:`~course.elmo.precision`), elsewhere in float32. Every ``config.heldout_every``-th sentence
is held out: the vocabulary is counted on the rest, and the held-out perplexity of each direction
(:mod:`~course.elmo.perplexity`) is measured after every epoch, or every ``config.eval_every``
steps (:func:`course.lm_training.measures`); the weights of the best measurement (the geometric
mean of the two directions' perplexities) are kept, and training stops after ``config.patience``
measurements without a better one (:class:`course.lm_training.KeepBest`).

:func:`train_elmo` reads as its steps: the model (new, or resumed from a checkpoint), the data,
the optimizer (:class:`_Updates`), the random state, then the epochs (:class:`_Run`), each a
pass over shuffled batches with the loss logged every :data:`LOG_EVERY` steps, followed by the
held-out perplexity and a checkpoint (or with them every ``config.eval_every`` steps). A checkpoint
written within an epoch resumes there exactly: it records the epoch and the batches of it done
(``state.epoch``, ``state.batch_in_epoch``) and the losses summed since the last read-out, and
the epoch's batch order is drawn again from (``config.seed``, epoch), as the uninterrupted run drew
it. What it shares with the Transformers' trainer (the identity and settings check of a resume,
keeping the best) is in :mod:`course.lm_training`.

Under ``torchrun`` each process steps on its share of every global batch (``config.batch_tokens``
is per process) and the gradients are averaged across processes (:mod:`course.distributed`); only
rank 0 writes checkpoints and shows progress, and its held-out measurement decides for every process.
"""

from __future__ import annotations

import math
import os
import sys
import time
from contextlib import contextmanager

import numpy as np
import torch

from .. import distributed
from ..checkpoints import run_identity
from ..devices import resolve_device
from ..errors import SettingError
from ..lm_training import KeepBest, batch_order, check_batch_order, epoch_position, measures, resume_checkpoint
from ..vocab import Vocabulary, VocabularyConfig
from .batching import LanguageModelData
from .characters import CharacterVocabulary
from .config import ElmoConfig, preset
from .model import Elmo
from .perplexity import evaluate_perplexity
from .precision import autocast, autocast_dtype

LOG_EVERY = 10  # steps between the loss read-outs (each one waits for the GPU)


def split_heldout(corpus, config: ElmoConfig) -> tuple[np.ndarray, np.ndarray]:
    """Sentence numbers ``(training, held_out)``: sentence i is held out when
    ``i % heldout_every == heldout_every - 1``."""
    numbers = np.arange(corpus.num_sentences)
    held = numbers % config.heldout_every == config.heldout_every - 1
    return numbers[~held], numbers[held]


def _subset(corpus, sentences: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(token_ids, offsets)`` of some sentences of ``corpus``."""
    starts, ends = corpus.offsets[sentences], corpus.offsets[sentences + 1]
    lengths = ends - starts
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    positions = np.repeat(starts - offsets[:-1], lengths) + np.arange(offsets[-1])
    return corpus.token_ids[positions], offsets


def vocabularies(corpus, train_sentences: np.ndarray, config: ElmoConfig) -> tuple[Vocabulary, CharacterVocabulary]:
    """The softmax vocabulary (words of the training sentences seen ``min_count`` times, with
    ``<pad>``, ``<unk>``, ``<bos>``, ``<eos>``) and the character vocabulary (every character)."""
    token_ids, _ = _subset(corpus, train_sentences)
    counts = np.bincount(token_ids, minlength=len(corpus.types))
    words = Vocabulary.from_counts(list(zip(corpus.types, counts.tolist(), strict=True)),
                                   VocabularyConfig(min_count=config.min_count, max_size=config.max_vocab))
    seen = counts > 0
    characters = CharacterVocabulary.from_words(np.asarray(corpus.types, dtype=object)[seen].tolist(),
                                                counts[seen].tolist(), max_characters=config.max_characters)
    return words, characters


def language_model_data(corpus, sentences: np.ndarray, model: Elmo) -> LanguageModelData:
    token_ids, offsets = _subset(corpus, sentences)
    return LanguageModelData(corpus.types, token_ids, offsets, model.words, model.characters,
                             model.config.max_sentence_length)


def learning_rate(config: ElmoConfig, step: int, total_steps: int) -> float:
    """The learning rate of step t of T = ``total_steps``: it falls linearly from ``config.lr`` at
    t = 0 to ``config.final_lr_share * config.lr`` at t = T,

        lr_t = lr * (1 - (1 - final_lr_share) * t / T).
    """
    return config.lr * (1 - (1 - config.final_lr_share) * step / total_steps)


def train_elmo(corpus, config: ElmoConfig | None = None, progress: bool = True,
               checkpoint: str | os.PathLike | None = None, resume: bool = False, max_steps: int | None = None,
               max_seconds: float | None = None, callback=None) -> Elmo:
    """Train an ELMo biLM on ``corpus`` (a :class:`~course.corpus.Corpus`).

    Args:
        config: the settings (default: the ``cpu`` preset).
        progress: show a tqdm bar (loss, perplexity per direction, tokens per second) and notes.
        checkpoint: a file to save the whole training state to every ``config.checkpoint_every``
            steps, after every held-out measurement, after every epoch and where training stops.
        resume: continue from ``checkpoint`` if it exists (the corpus, the vocabulary and the
            settings must be the same, apart from the device, the threads and the checkpoint
            interval), also from within an epoch; resumed training gives the same model as an
            uninterrupted run.
        max_steps, max_seconds: stop early, after this many steps in all, or this long in this
            call (the learning-rate schedule still assumes all ``config.epochs``).
        callback: called with the model after every logging interval and every epoch.

    Returns:
        The :class:`~course.elmo.model.Elmo`; ``model.state`` has the history and the held-out
        perplexities. Once training is finished (or stopped early) the model has the weights of
        the best held-out measurement (``state.best``); a run stopped by ``max_steps`` or
        ``max_seconds`` returns its last weights, the ones its checkpoint continues from.

    Raises:
        SettingError: too few sentences; a checkpoint of another corpus, vocabulary or settings.
        ModelFileError: a damaged checkpoint.
    """
    config = config or preset("cpu")
    device = resolve_device(config.device)
    dtype = autocast_dtype(config, device)  # refuses fp16 on a CPU before any work
    world = distributed.start(device)
    progress, checkpoint = progress and world.writer, checkpoint if world.writer else None
    train_sentences, heldout_sentences = split_heldout(corpus, config)
    if len(train_sentences) == 0:
        raise SettingError(f"corpus {corpus.name!r} has too few sentences to train on ({corpus.num_sentences})")
    words, characters = vocabularies(corpus, train_sentences, config)
    model, saved = resume_checkpoint(checkpoint, config, Elmo.load, corpus, words.words) if resume else (None, None)
    saved = world.agree(saved)  # rank 0 reads the checkpoint, every process resumes from it
    distributed.check_resume(saved, world, checkpoint)
    if model is None:
        model = Elmo(config, words, characters)
    if saved is not None and not world.writer:
        model.bilm.load_state_dict(saved["weights"])
        model.state = type(model.state)(**saved["state"])
    train, heldout = _training_data(corpus, model, train_sentences, heldout_sentences)
    model.bilm.train()
    updates = _Updates(model.bilm, config, device, dtype, saved, world)
    start_random_state(config.seed, device, saved, world)
    best = KeepBest(model.bilm, model.state, config.patience, saved) if heldout is not None else None
    with cpu_threads(device, world.threads(config.threads)), _progress_bar(model, train, progress) as bar:
        run = _Run(model, train, heldout, updates, bar, checkpoint, callback, best,
                   run_identity(corpus, model.words.words), world, saved)
        run.epochs(_Limits(max_steps, max_seconds))
    if best is not None and model.state.finished:
        best.restore()
    model.bilm.eval()
    return model


def _training_data(corpus, model: Elmo, train_sentences: np.ndarray,
                   heldout_sentences: np.ndarray) -> tuple[LanguageModelData, LanguageModelData | None]:
    """The training and held-out sentences as batchable data (no held-out data when there are no
    held-out sentences); says on stderr how many training sentences were cut to the maximum length."""
    train = language_model_data(corpus, train_sentences, model)
    heldout = language_model_data(corpus, heldout_sentences, model) if len(heldout_sentences) else None
    if train.num_split:
        limit = model.config.max_sentence_length
        print(f"{corpus.name}: {train.num_split:,} training sentences longer than {limit} "
              f"tokens were split into pieces of at most {limit}", file=sys.stderr)
    return train, heldout


def start_random_state(seed: int, device: torch.device, saved: dict | None,
                       world: distributed.World = distributed.World()) -> None:
    """The random numbers of dropout: drawn from ``seed`` (+ the rank, under torchrun), or, when
    resuming, from where the checkpoint ``saved`` left them (its ``rng`` and ``cuda_rng``, each
    process's own), so that a resumed run draws what an uninterrupted one would have."""
    if saved is not None:
        mine = saved.get("ranks", [saved])[world.rank]
        torch.set_rng_state(mine["rng"])
        if device.type == "cuda" and mine.get("cuda_rng") is not None:
            torch.cuda.set_rng_state(mine["cuda_rng"], device)
    else:
        torch.manual_seed(seed + world.rank)
        if device.type == "cuda":
            torch.cuda.manual_seed(seed + world.rank)


def random_state(device: torch.device, world: distributed.World = distributed.World()) -> dict:
    """What a checkpoint keeps of the random generators: ``{"rng", "cuda_rng"}`` (rank 0's), and
    under torchrun every process's in ``"ranks"`` with the number of processes (``"world_size"``).
    Every process must call it."""
    mine = {"rng": torch.get_rng_state(),
            "cuda_rng": torch.cuda.get_rng_state(device) if device.type == "cuda" else None}
    if not world.distributed:
        return mine
    return {**mine, "ranks": world.gather(mine), "world_size": world.size}


@contextmanager
def cpu_threads(device: torch.device, threads: int):
    """On the CPU, train with ``threads`` threads, and give back the number there was afterwards."""
    before = torch.get_num_threads()
    if device.type == "cpu":
        torch.set_num_threads(threads)
    try:
        yield
    finally:
        if device.type == "cpu":
            torch.set_num_threads(before)


@contextmanager
def _progress_bar(model: Elmo, train: LanguageModelData, progress: bool):
    """A tqdm bar over the tokens of all epochs, starting where ``model.state`` stands."""
    from tqdm.auto import tqdm

    bar = tqdm(total=model.config.epochs * train.num_tokens, initial=model.state.tokens, unit="tok",
               unit_scale=True, desc=f"ELMo ({model.config.preset})", disable=not progress, smoothing=0.1)
    try:
        yield bar
    finally:
        bar.close()


class _Updates:
    """One optimizer step on a batch: Adam, gradients clipped to norm ``config.clip_norm``, and on
    CUDA under autocast the loss scaled (``GradScaler``) so that small float16 gradients survive.

    Args:
        bilm: the network whose weights are trained.
        device, dtype: where, and in which autocast dtype (None: float32), the passes run.
        saved: a checkpoint's payload, whose optimizer and scaler states are taken up.
    """

    def __init__(self, bilm, config: ElmoConfig, device: torch.device, dtype, saved: dict | None,
                 world: distributed.World = distributed.World()):
        self.bilm, self.config, self.device, self.dtype = bilm, config, device, dtype
        self.loss = distributed.loss_function(bilm, world, device)
        self.optimizer = torch.optim.Adam(bilm.parameters(), lr=config.lr, fused=device.type == "cuda")
        self.scaler = torch.amp.GradScaler(device.type, enabled=dtype is not None and device.type == "cuda")
        if saved is not None:
            self.optimizer.load_state_dict(saved["optimizer"])
            self.scaler.load_state_dict(saved["scaler"])

    def step(self, batch, lr: float) -> tuple[torch.Tensor, torch.Tensor]:
        """Take one step at learning rate ``lr`` on the loss of ``batch`` (the sum of the two
        directions' mean negative log-likelihoods); returns the two directions' summed negative
        log-likelihoods, left on the device."""
        for param_group in self.optimizer.param_groups:
            param_group["lr"] = lr
        with autocast(self.device, self.dtype):
            loss, forward_sum, backward_sum = self.loss(batch.char_ids, batch.mask, batch.targets,
                                                             batch.index, batch.predictions)
        self.optimizer.zero_grad(set_to_none=True)
        self.scaler.scale(loss).backward()
        self.scaler.unscale_(self.optimizer)
        torch.nn.utils.clip_grad_norm_(self.bilm.parameters(), self.config.clip_norm)
        self.scaler.step(self.optimizer)
        self.scaler.update()
        return forward_sum, backward_sum

    def state_dict(self) -> dict:
        """What a checkpoint keeps of them: ``{"optimizer", "scaler"}``."""
        return {"optimizer": self.optimizer.state_dict(), "scaler": self.scaler.state_dict()}


class _Limits:
    """Where a call of :func:`train_elmo` stops early: after ``max_steps`` steps in all, or
    ``max_seconds`` after these limits were made."""

    def __init__(self, max_steps: int | None, max_seconds: float | None):
        self.max_steps, self.max_seconds = max_steps, max_seconds
        self.started = time.perf_counter()

    def reached(self, step: int) -> bool:
        return (self.max_steps is not None and step >= self.max_steps) or (
            self.max_seconds is not None and time.perf_counter() - self.started >= self.max_seconds)


class _Run:
    """The epochs of one call of :func:`train_elmo`: steps, the loss logged every
    :data:`LOG_EVERY` steps, the held-out perplexity after every epoch (or every
    ``config.eval_every`` steps), and checkpoints, all recorded in ``model.state``.

    ``model.state.seconds`` counts the time spent in steps (logging waits for the GPU and is
    counted too), not the held-out evaluation, the callbacks or the checkpoints.
    """

    def __init__(self, model: Elmo, train: LanguageModelData, heldout: LanguageModelData | None,
                 updates: _Updates, bar, checkpoint, callback, best: KeepBest | None, identity: dict,
                 world: distributed.World = distributed.World(), saved: dict | None = None):
        self.model, self.config, self.state = model, model.config, model.state
        self.train, self.heldout, self.updates = train, heldout, updates
        self.bar, self.checkpoint, self.callback, self.best = bar, checkpoint, callback, best
        self.identity = identity  # the corpus and vocabulary, recorded in every checkpoint
        self.world = world
        self.total_steps = self.config.epochs * world.steps(len(train.batches(self.config.batch_tokens)))
        self.interval = _Interval(updates.device)
        self.saved, self.order = saved, None  # the checkpoint resumed from; the current epoch's batch order
        if saved is not None and "interval" in saved:  # the sums since the last read-out, this process's
            self.interval.load(saved.get("intervals", [saved["interval"]])[world.rank])
        self.stopped = False

    def epochs(self, limits: _Limits) -> None:
        """Train until every epoch is done, the patience is used up or ``limits`` is reached."""
        while self.state.epoch < self.config.epochs and not self.stopped and not self.state.stopped_early:
            self.epoch(limits)
            self.end_epoch()

    def epoch(self, limits: _Limits) -> None:
        """The rest of the current epoch, its sentences shuffled with the seed (``config.seed``,
        epoch), so that a resumed epoch goes on with the batches an uninterrupted one would take."""
        state = self.state
        groups = self.train.batches(self.config.batch_tokens, np.random.default_rng([self.config.seed, state.epoch]))
        if self.saved is not None and state.batch_in_epoch:  # resumed within this epoch
            check_batch_order(self.saved, groups, self.checkpoint)
        self.saved, self.order = None, batch_order(groups)
        steps = self.world.shard(groups)
        self.batches_in_epoch = len(steps)
        lengths = self.train.lengths()
        clock = time.perf_counter()
        for group, everyone in steps[state.batch_in_epoch:]:
            batch = self.train.batch(group).to(self.updates.device)
            sums = self.updates.step(batch, learning_rate(self.config, state.step, self.total_steps))
            self.interval.add(*sums, batch.predictions)
            words = sum(int(lengths[g].sum()) for g in everyone)  # every process's batch
            state.step += 1
            state.batch_in_epoch += 1
            state.tokens += words
            self.bar.update(words)
            self.stopped = self.world.agree(limits.reached(state.step)) if limits.max_seconds else limits.reached(
                state.step)
            if state.step % LOG_EVERY == 0 or self.stopped or state.batch_in_epoch == len(steps):
                self.log(clock)
                clock = time.perf_counter()
            within = state.batch_in_epoch < len(steps)  # an epoch's end is measured by end_epoch
            measured = within and self.heldout is not None and measures(self.config.eval_every, state.step, False,
                                                                        False)
            if measured:
                state.seconds += time.perf_counter() - clock
                self.measure(epoch_position(state.epoch, state.batch_in_epoch, len(steps)))
                clock = time.perf_counter()
            if state.stopped_early:
                break  # end_epoch saves the checkpoint
            if (measured or state.step % self.config.checkpoint_every == 0) and not self.stopped:
                self.save_checkpoint()
                clock = time.perf_counter()
            if self.stopped:
                break

    def log(self, clock: float) -> None:
        """Record the loss and training perplexities since the last read-out, and the time spent
        stepping since ``clock``, in ``state.history`` and on the bar; call the callback."""
        state = self.state
        entry = self.interval.read()  # waits for the GPU
        state.seconds += time.perf_counter() - clock
        state.history.append({"step": state.step, "tokens": state.tokens, "seconds": round(state.seconds, 3),
                              **entry})
        self.bar.set_postfix(loss=f"{entry['loss']:.3f}",
                             ppl=f"{entry['forward_perplexity']:.0f}/{entry['backward_perplexity']:.0f}", refresh=False)
        if self.callback is not None:
            self.callback(self.model)

    def end_epoch(self) -> None:
        """After an epoch (or where training stopped): if the epoch is whole, count it, and (after
        every epoch, or with ``config.eval_every`` on its steps and after the last epoch) measure the
        held-out perplexity; save a checkpoint and call the callback. Nothing is measured where
        training stops mid-epoch but where the steps call for it, so that a resumed run measures,
        keeps and stops as an uninterrupted one."""
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
        if self.callback is not None:
            self.callback(self.model)

    def measure(self, epoch: int | float) -> None:
        """Measure the held-out perplexity of each direction (rank 0's measurement, in every process)
        and give their geometric mean to :class:`~course.lm_training.KeepBest`; ``epoch``: where
        training stands (:func:`~course.lm_training.epoch_position`)."""
        state = self.state
        measured = self.world.agree(evaluate_perplexity(self.model.bilm, self.heldout, self.config))
        entry = {"epoch": epoch, "step": state.step, "tokens": state.tokens,
                 "forward": measured["forward"], "backward": measured["backward"]}
        state.heldout.append(entry)
        self.best.measured(entry, math.sqrt(measured["forward"] * measured["backward"]))
        self.bar.set_postfix(heldout=f"{measured['forward']:.0f}/{measured['backward']:.0f}",
                             kept=self.best.note(), refresh=False)

    def save_checkpoint(self) -> None:
        """The model with the optimizer's, the scaler's and the random generators' states, and the
        losses summed since the last read-out, when training has a checkpoint file."""
        generators = random_state(self.updates.device, self.world)  # every process takes part
        interval = self.interval.state_dict()
        intervals = {"intervals": self.world.gather(interval)} if self.world.distributed else {}
        if self.checkpoint is not None:
            self.model.save(self.checkpoint, extra={**self.updates.state_dict(), **generators,
                                                    **(self.best.checkpoint_extra() if self.best else {}),
                                                    "interval": interval, **intervals, "identity": self.identity,
                                                    "batch_order": self.order if self.state.batch_in_epoch else None})


class _Interval:
    """Sums of the negative log-likelihoods since the last read-out, kept on the device."""

    def __init__(self, device):
        self.sums = torch.zeros(2, dtype=torch.float64, device=device)
        self.predictions = 0

    def add(self, forward_sum, backward_sum, predictions: int):
        self.sums += torch.stack([forward_sum, backward_sum]).double()
        self.predictions += predictions

    def state_dict(self) -> dict:
        """``{"sums": [forward, backward], "predictions"}``: what a checkpoint keeps."""
        return {"sums": self.sums.tolist(), "predictions": self.predictions}

    def load(self, saved: dict) -> None:
        self.sums.copy_(torch.tensor(saved["sums"], dtype=torch.float64))
        self.predictions = saved["predictions"]

    def read(self) -> dict:
        forward, backward = (self.sums / max(self.predictions, 1)).tolist()
        self.sums.zero_()
        self.predictions = 0
        return {"loss": forward + backward, "forward_perplexity": math.exp(min(forward, 50)),
                "backward_perplexity": math.exp(min(backward, 50))}

