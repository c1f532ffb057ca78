"""Training a Transformer LM: batches of equal-length sentences, AdamW with a warm-up and a cosine
decay, gradient clipping, held-out perplexity after every epoch (or every ``config.eval_every``
steps), the best weights kept, checkpoints and resuming, also from within an epoch.

The conventions are ELMo's (:func:`course.elmo.train_elmo`): every ``config.heldout_every``-th
sentence is held out (:func:`course.lm.heldout.split_heldout`), the vocabulary is counted on
the rest, each epoch's batches are shuffled from (seed, epoch), and a checkpoint keeps the model,
the optimizer and the random generator, so that a resumed run gives bit for bit the weights and
history of an uninterrupted one. For the masked objective each batch's masks are drawn from
(seed, epoch, batch), batch counted in the epoch's order, so they too are the same in a resumed run
(with any number of processes). As the biLM's trainer does, it
keeps the weights of the best held-out measurement and stops after ``config.patience``
measurements without a better one (one per epoch, or per ``config.eval_every`` steps, each followed
by a checkpoint: :func:`course.lm.best.measures`); both run through :class:`course.lm.run.Run`
and resume through :mod:`course.lm.resume`.
Under ``torchrun`` each process steps on its share of every global batch (``config.batch_tokens``
is per process), the gradients averaged across processes (:mod:`course.core.distributed`); only rank 0
writes and shows progress, and its held-out measurement decides for every process. A checkpoint
resumes with another number of processes too (:mod:`course.lm.run`).
"""

from __future__ import annotations

import math
import os

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
from ..lm.precision import autocast
from ..lm.resume import resume_checkpoint
from ..lm.run import Limits, Run
from ..lm.threads import cpu_threads
from ..text.vocab import Vocabulary, VocabularyConfig
from .config import TransformerConfig, preset
from .data import SPECIALS, SentenceIds
from .embedder import warn_split
from .model import Transformer
from .perplexity import corrupt, evaluate_perplexity, generator, precision_dtype


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

    def checked():
        """What is refused before any work, agreed by every process (the checkpoint only rank 0 reads)."""
        precision_dtype(config, device)  # refuses fp16 on a CPU
        train_sentences, heldout_sentences = split_heldout(corpus, config)
        if len(train_sentences) == 0:
            raise SettingError(f"corpus {corpus.name!r} has too few sentences to train on ({corpus.num_sentences})")
        words = vocabulary(corpus, train_sentences, config)
        resumed = resume_checkpoint(checkpoint, config, Transformer.load, corpus, words.words) if resume else (None,
                                                                                                             None)
        return train_sentences, heldout_sentences, words, *resumed

    train_sentences, heldout_sentences, words, model, saved = world.together(checked)
    saved = world.agree(saved)  # rank 0 read the checkpoint, every process resumes from it
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
    from ..core.progress import progress_bar

    model.network.train()
    best = KeepBest(model.network, model.state, config.patience, saved) if held is not None else None
    with cpu_threads(device, world.threads(config.threads)), progress_bar(
            total=config.epochs * train.num_tokens, initial=model.state.tokens, unit="tok", unit_scale=True,
            desc=f"Transformer {config.objective} ({config.preset})", disable=not progress, smoothing=0.1) as bar:
        _Run(model, train, held, optimizer, bar, checkpoint, saved, best,
             run_identity(corpus, model.words.words), world).epochs(Limits(max_steps))
    if best is not None and model.state.finished:
        best.restore()
    model.network.eval()
    return model


class _Run(Run):
    """The epochs of one call of :func:`train_transformer` (:class:`course.lm.run.Run`): AdamW steps
    on the mean loss per prediction (the masked objective's masks drawn from (seed, epoch, batch)),
    read out as the training perplexity, and the held-out perplexity."""

    def __init__(self, model: Transformer, train: SentenceIds, heldout: SentenceIds | None, optimizer, bar,
                 checkpoint, saved: dict | None, best: KeepBest | None, identity: dict,
                 world: distributed.World = distributed.World()):
        super().__init__(model, train, heldout, bar, checkpoint, best, identity, world, saved)
        self.optimizer = optimizer
        self.device = model.device
        self.dtype = precision_dtype(self.config, self.device)
        self.loss = distributed.loss_function(model.network, world, self.device)
        interval = self.saved_interval() or {"sum": 0.0, "predictions": 0}  # since the last read-out
        self.sums = torch.tensor(interval["sum"], dtype=torch.float64, device=self.device)
        self.predictions = interval["predictions"]

    def learning_rate(self, step: int) -> float:
        return learning_rate(self.config, step, self.total_steps)

    def step(self, group: np.ndarray, lr: float) -> None:
        """One AdamW step at learning rate ``lr`` on the mean loss of the batch of ``group``."""
        batch = self.train.batch(group)
        targets = None
        ids = batch.ids
        if self.config.objective == "masked":
            rng = generator(self.config.seed, self.state.epoch, self.state.batch_in_epoch + self.world.rank)
            ids, targets = corrupt(batch, self.model.words, self.config, rng)
            targets = targets.to(self.device)
        for param_group in self.optimizer.param_groups:
            param_group["lr"] = lr
        with autocast(self.device, self.dtype):
            loss, nll, count = self.loss(ids.to(self.device), batch.mask.to(self.device), targets)
        self.optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(self.model.network.parameters(), self.config.clip_norm)
        self.optimizer.step()
        self.sums += nll.double()
        self.predictions += count

    def read_out(self, lr: float) -> tuple[dict, dict]:
        """The mean loss per prediction since the last read-out (one that is not finite stops the
        run: :meth:`course.lm.run.Run.check_loss`)."""
        mean = float(self.sums) / max(self.predictions, 1)
        self.sums.zero_()
        self.predictions = 0
        return ({"lr": lr, "loss": mean, "perplexity": perplexity(mean)},
                {"loss": f"{mean:.3f}", "ppl": f"{perplexity(mean):.0f}"})

    def interval_state(self) -> dict:
        return {"sum": float(self.sums), "predictions": self.predictions}

    def evaluate(self) -> tuple[dict, float, dict]:
        measured = evaluate_perplexity(self.model.network, self.heldout, self.config)
        return measured, measured["perplexity"], {"heldout": f"{measured['perplexity']:.0f}"}

    def checkpoint_extra(self) -> dict:
        return {"optimizer": self.optimizer.state_dict()}
