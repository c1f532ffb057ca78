"""Training the biLM: batches of equal-length sentences, Adam with a linearly falling learning
rate, gradient clipping, held-out perplexity per direction, the best weights kept, checkpoints and
resuming.

On CUDA the LSTMs are cuDNN's and the forward and backward passes run in mixed precision
(``torch.autocast`` with a gradient scaler; float16 by default, or bfloat16 for the rest of the
network); on a CPU with bfloat16 matrix units they run in bfloat16 (see
:mod:`~course.lm.precision`), elsewhere in float32. Every ``config.heldout_every``-th sentence
is held out: the vocabulary is counted on the rest, and the held-out perplexity of each direction
(:mod:`~course.elmo.perplexity`) is measured after every epoch, or every ``config.eval_every``
steps (:func:`course.lm.best.measures`); the weights of the best measurement (the geometric
mean of the two directions' perplexities) are kept, and training stops after ``config.patience``
measurements without a better one (:class:`course.lm.best.KeepBest`).

:func:`train_elmo` reads as its steps: the model (new, or resumed from a checkpoint), the data,
the optimizer (:class:`_Updates`), the random state, then the epochs (:class:`_Run`), each a
pass over shuffled batches with the loss logged every :data:`course.lm.run.LOG_EVERY` steps, followed by the
held-out perplexity and a checkpoint (or with them every ``config.eval_every`` steps). A checkpoint
written within an epoch resumes there exactly: it records the epoch and the batches of it done
(``state.epoch``, ``state.batch_in_epoch``) and the losses summed since the last read-out, and
the epoch's batch order is drawn again from (``config.seed``, epoch), as the uninterrupted run drew
it. What it shares with the Transformers' trainer (the identity and settings check of a resume,
keeping the best, the bookkeeping of a run, :class:`course.lm.run.Run`) is in :mod:`course.lm`.

Under ``torchrun`` each process steps on its share of every global batch (``config.batch_tokens``
is per process) and the gradients are averaged across processes (:mod:`course.core.distributed`); only
rank 0 writes checkpoints and shows progress, and its held-out measurement decides for every process.
A checkpoint resumes with another number of processes too: the epoch goes on from the first batch of
its order not yet taken, the learning rate from the same share of training (:mod:`course.lm.run`).
"""

from __future__ import annotations

import math
import os
import sys
from contextlib import contextmanager, nullcontext

import numpy as np
import torch

from ..core import distributed
from ..core.checkpoints import run_identity
from ..core.devices import resolve_device
from ..core.divergence import perplexity
from ..core.errors import SettingError
from ..lm.best import KeepBest
from ..lm.generators import start_random_state
from ..lm.heldout import split_heldout
from ..lm.precision import autocast, autocast_dtype
from ..lm.resume import resume_checkpoint
from ..lm.run import Limits, Run
from ..lm.threads import cpu_threads
from ..text.vocab import Vocabulary, VocabularyConfig
from .batching import LanguageModelData
from .characters import CharacterVocabulary
from .config import ElmoConfig, preset
from .model import Elmo
from .perplexity import evaluate_perplexity
from .side_by_side import direction_worker, side_by_side_backward


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
            uninterrupted run (with another number of processes: close to it).
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
    world = distributed.start(device)
    progress, checkpoint = progress and world.writer, checkpoint if world.writer else None

    def checked():
        """What is refused before any work, agreed by every process (the checkpoint only rank 0 reads)."""
        dtype = autocast_dtype(config.precision, device)  # refuses fp16 on a CPU
        train_sentences, heldout_sentences = split_heldout(corpus, config)
        if len(train_sentences) == 0:
            raise SettingError(f"corpus {corpus.name!r} has too few sentences to train on ({corpus.num_sentences})")
        words, characters = vocabularies(corpus, train_sentences, config)
        resumed = resume_checkpoint(checkpoint, config, Elmo.load, corpus, words.words) if resume else (None, None)
        return dtype, train_sentences, heldout_sentences, words, characters, *resumed

    dtype, train_sentences, heldout_sentences, words, characters, model, saved = world.together(checked)
    saved = world.agree(saved)  # rank 0 read the checkpoint, every process resumes from it
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
    with cpu_threads(device, intra_op_threads(config, device, world)), _progress_bar(model, train, progress) as bar, \
            direction_worker() if updates.side_by_side else nullcontext() as updates.worker:
        run = _Run(model, train, heldout, updates, bar, checkpoint, callback, best,
                   run_identity(corpus, model.words.words), world, saved)
        run.epochs(Limits(max_steps, max_seconds))
    if best is not None and model.state.finished:
        best.restore()
    model.bilm.eval()
    return model


def side_by_side(config: ElmoConfig, device: torch.device, world: distributed.World = distributed.World()) -> bool:
    """Whether training steps run the two directions side by side (:mod:`~course.elmo.side_by_side`):
    on a CPU, with ``config.threads`` of 2 or more, in a single process (under torchrun each process
    takes its share of every batch instead)."""
    return device.type == "cpu" and config.threads >= 2 and not world.distributed


def intra_op_threads(config: ElmoConfig, device: torch.device, world: distributed.World = distributed.World()) -> int:
    """Threads for each of torch's operations: ``config.threads`` (at most this process's share of
    the cores under torchrun), or half of them when the directions run side by side."""
    threads = world.threads(config.threads)
    return max(1, threads // 2) if side_by_side(config, device, world) else threads


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


@contextmanager
def _progress_bar(model: Elmo, train: LanguageModelData, progress: bool):
    """A tqdm bar over the tokens of all epochs, starting where ``model.state`` stands."""
    from ..core.progress import progress_bar

    bar = progress_bar(total=model.config.epochs * train.num_tokens, initial=model.state.tokens, unit="tok",
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
        self.side_by_side = side_by_side(config, device, world)
        self.worker = None  # the backward direction's thread, while training runs (side by side only)
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
        self.optimizer.zero_grad(set_to_none=True)
        if self.side_by_side:
            forward_sum, backward_sum = side_by_side_backward(self.bilm, batch, self.device, self.dtype, self.worker)
        else:
            with autocast(self.device, self.dtype, cache=self.device.type != "cpu"):
                loss, forward_sum, backward_sum = self.loss(batch.char_ids, batch.mask, batch.targets,
                                                            batch.index, batch.predictions)
            self.scaler.scale(loss).backward()
        self.scaler.unscale_(self.optimizer)
        torch.nn.utils.clip_grad_norm_(self.bilm.parameters(), self.config.clip_norm)
        self.scaler.step(self.optimizer)
        self.scaler.update()
        return forward_sum, backward_sum

    def state_dict(self) -> dict:
        """What a checkpoint keeps of them: ``{"optimizer", "scaler"}``."""
        return {"optimizer": self.optimizer.state_dict(), "scaler": self.scaler.state_dict()}


class _Run(Run):
    """The epochs of one call of :func:`train_elmo` (:class:`course.lm.run.Run`): Adam steps on both
    directions' loss, read out as the two directions' training perplexities, and the held-out
    perplexity of each direction, their geometric mean deciding which weights are kept."""

    def __init__(self, model: Elmo, train: LanguageModelData, heldout: LanguageModelData | None,
                 updates: _Updates, bar, checkpoint, callback, best: KeepBest | None, identity: dict,
                 world: distributed.World = distributed.World(), saved: dict | None = None):
        super().__init__(model, train, heldout, bar, checkpoint, best, identity, world, saved, callback)
        self.updates = updates
        self.interval = _Interval(updates.device)
        if self.saved_interval() is not None:  # the sums since the last read-out, this process's
            self.interval.load(self.saved_interval())

    def learning_rate(self, step: int) -> float:
        return learning_rate(self.config, step, self.total_steps)

    def step(self, group: np.ndarray, lr: float) -> None:
        batch = self.train.batch(group).to(self.updates.device)
        sums = self.updates.step(batch, lr)
        self.interval.add(*sums, batch.predictions)

    def read_out(self, lr: float) -> tuple[dict, dict]:
        entry = self.interval.read()  # waits for the GPU
        return entry, {"loss": f"{entry['loss']:.3f}",
                       "ppl": f"{entry['forward_perplexity']:.0f}/{entry['backward_perplexity']:.0f}"}

    def interval_state(self) -> dict:
        return self.interval.state_dict()

    def evaluate(self) -> tuple[dict, float, dict]:
        """Each direction's held-out perplexity; their geometric mean is compared."""
        measured = evaluate_perplexity(self.model.bilm, self.heldout, self.config)
        return ({"forward": measured["forward"], "backward": measured["backward"]},
                math.sqrt(measured["forward"] * measured["backward"]),
                {"heldout": f"{measured['forward']:.0f}/{measured['backward']:.0f}"})

    def checkpoint_extra(self) -> dict:
        return self.updates.state_dict()


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
        return {"loss": forward + backward, "forward_perplexity": perplexity(forward),
                "backward_perplexity": perplexity(backward)}

