"""One training loop for the course's supervised models (the tagger of :mod:`course.tagger`,
ULMFiT's classifier of :mod:`course.ulmfit`): epochs, a dev score at chosen epochs, the best
score's weights kept, stopping after ``patience`` evaluations without a better one, checkpoints
after every epoch and a resume that ends as an uninterrupted run.

With s_1 .. s_k the dev scores measured so far (higher better, or lower better for an error),

    best = the first s_j no other s_i beats,   since_best = k - j,

the model returned has the weights of ``best`` (a later tie does not replace it), and training
stops once ``since_best`` reaches the patience (0: never). What is the trainer's own (its model,
its batches, its schedule, its score) comes in as two functions: ``train_epoch(epoch) -> dict``
(the history's fields of that epoch, e.g. its mean ``loss``) and ``evaluate() -> float``.

A checkpoint (:func:`course.core.checkpoints.write_checkpoint`) holds the weights, the optimizer, the
random generators (torch's, CUDA's, and the trainer's numpy generator where it has one), the
history and the best weights so far; it records the run's identity and resuming refuses another
run's with one line (:class:`~course.core.errors.SettingError`): another corpus, vocabulary or settings
(:func:`course.core.checkpoints.check_resumable`), other inputs (the trainer's fingerprint of them),
or a file that is not a readable checkpoint (:func:`course.core.checkpoints.checkpoint_errors`).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import torch

from .core.checkpoints import check_resumable, checkpoint_errors, read_checkpoint, write_checkpoint
from .core.divergence import check_weights
from .core.errors import SettingError


@dataclass(frozen=True)
class LoopConfig:
    """How the loop runs.

    Attributes:
        epochs: passes over the training data; ``evaluated``: the epochs (1-based) after which dev is scored.
        score: the dev score's name: ``"f1"`` is recorded as ``dev_f1`` in the history and ``best_f1``
            in a checkpoint; ``higher_is_better``: False for an error rate.
        patience: evaluations without a better score before training stops (0: never).
        every_epoch: record every epoch in the history (its score None where dev was not scored), not
            only the evaluated ones.
        description: the progress bar's label.
        advice: what to change where the weights stop being finite (:func:`course.core.divergence.smaller`).
    """

    epochs: int
    evaluated: frozenset[int]
    score: str
    higher_is_better: bool = True
    patience: int = 0
    every_epoch: bool = False
    description: str = "training"
    advice: str = "use a smaller --lr"

    def __post_init__(self):
        if self.patience < 0:
            raise SettingError(f"patience must not be negative, got {self.patience!r}")


@dataclass(frozen=True)
class Checkpoint:
    """Where the loop saves, and what a resume must match.

    Attributes:
        path: the checkpoint file; ``format``: its format string; ``model``: the model's name in messages.
        identity: ``{"identity": run_identity(...), "config": {...}, fingerprint: "<hex>"}``, recorded in
            the checkpoint and compared on resume.
        fingerprint: the key of ``identity`` that stands for the pretrained inputs, and the message
            (after the path) when it differs.
    """

    path: str | os.PathLike
    format: str
    model: str
    identity: dict
    fingerprint: str
    other_inputs: str


@dataclass
class SupervisedState:
    """Where the loop stands, and what it measured.

    Attributes:
        epoch: epochs done; ``seconds``: time spent training and scoring them (checkpoints not counted).
        history: one dict per evaluated epoch (or per epoch with ``every_epoch``): ``epoch``, the
            trainer's fields and ``dev_<score>``.
        best_score, best_epoch, best_weights: the best evaluation so far, and its weights (on the CPU).
        since_best: evaluations since it; ``stopped_early``: the patience was used up.
    """

    epoch: int = 0
    history: list[dict] = field(default_factory=list)
    best_score: float | None = None
    best_epoch: int = 0
    best_weights: dict | None = None
    since_best: int = 0
    stopped_early: bool = False
    seconds: float = 0.0


def better(score: float, best: float | None, higher_is_better: bool) -> bool:
    """Whether ``score`` beats ``best`` (None: nothing measured yet); a tie does not."""
    if best is None:
        return True
    return score > best if higher_is_better else score < best


def fit(model: torch.nn.Module, optimizer: torch.optim.Optimizer, train_epoch: Callable[[int], dict],
        evaluate: Callable[[], float], config: LoopConfig, checkpoint: Checkpoint | None = None,
        resume: bool = False, rng: np.random.Generator | None = None, progress: bool = False) -> SupervisedState:
    """Train ``model`` for ``config.epochs`` epochs (``train_epoch(epoch)``, 1-based), score dev after
    the epochs ``config.evaluated`` (``evaluate()``), keep the best score's weights and put them back
    into ``model`` at the end.

    Args:
        checkpoint: where to save after every epoch (None: nowhere); ``resume``: continue from it
            (the caller has checked that the file exists: :func:`course.core.checkpoints.resumes`).
        rng: the trainer's numpy generator, whose state a checkpoint keeps.

    Returns:
        The :class:`SupervisedState` of the run.

    Raises:
        SettingError: a checkpoint of another run, or not a readable one.
        TrainingDivergedError: the weights are not finite after an epoch: nothing more is written.
    """
    from .core.progress import progress_bar

    state = SupervisedState()
    if resume and checkpoint is not None:
        state = load(checkpoint, model, optimizer, rng, config.score)
    bar = progress_bar(total=config.epochs, initial=state.epoch, desc=config.description, unit="epoch",
               disable=not progress, leave=False)
    key = f"dev_{config.score}"
    for epoch in range(state.epoch + 1, config.epochs + 1):
        if state.stopped_early:
            break
        started = time.perf_counter()
        fields = train_epoch(epoch)
        check_weights(None, {"weights": model.state_dict()}, f"model after epoch {epoch}", config.advice)
        score = float(evaluate()) if epoch in config.evaluated else None
        if score is not None or config.every_epoch:
            state.history.append({"epoch": epoch, **fields, key: score})
        if score is not None:
            _measured(state, model, epoch, score, config)
            bar.set_postfix({key: f"{score:.3f}", "kept": state.best_epoch}, refresh=False)
        state.epoch, state.seconds = epoch, state.seconds + time.perf_counter() - started
        if checkpoint is not None:
            save(checkpoint, model, optimizer, rng, state, config.score)
        bar.update(1)
    bar.close()
    if state.best_weights is not None:
        model.load_state_dict(state.best_weights)
    return state


def _measured(state: SupervisedState, model: torch.nn.Module, epoch: int, score: float, config: LoopConfig) -> None:
    """Record an evaluation: keep the weights if it is the best so far, count the patience."""
    if better(score, state.best_score, config.higher_is_better):
        state.best_score, state.best_epoch, state.since_best = score, epoch, 0
        state.best_weights = _on_cpu(model.state_dict())
    else:
        state.since_best += 1
    state.stopped_early = config.patience > 0 and state.since_best >= config.patience


def _on_cpu(weights: dict) -> dict:
    return {name: tensor.detach().to("cpu", copy=True) for name, tensor in weights.items()}


def save(checkpoint: Checkpoint, model: torch.nn.Module, optimizer: torch.optim.Optimizer,
         rng: np.random.Generator | None, state: SupervisedState, score: str) -> None:
    """Write the run as it stands to ``checkpoint.path`` (atomically)."""
    write_checkpoint(checkpoint.path, {
        "format": checkpoint.format, "identity": checkpoint.identity, "epoch": state.epoch,
        "history": state.history, "seconds": state.seconds, "weights": _on_cpu(model.state_dict()),
        "optimizer": optimizer.state_dict(), "numpy_rng": rng.bit_generator.state if rng is not None else None,
        "torch_rng": torch.get_rng_state(),
        "cuda_rng": torch.cuda.get_rng_state_all() if torch.cuda.is_available() else [],
        f"best_{score}": state.best_score, "best_epoch": state.best_epoch, "best_weights": state.best_weights,
        "since_best": state.since_best, "stopped_early": state.stopped_early})


def load(checkpoint: Checkpoint, model: torch.nn.Module, optimizer: torch.optim.Optimizer,
         rng: np.random.Generator | None, score: str) -> SupervisedState:
    """Load the checkpoint into ``model``, ``optimizer``, the random generators and ``rng``, after
    :func:`check_same_run`; the state it records (``score``: the name its best score is saved under)."""
    path = checkpoint.path
    with checkpoint_errors(path, checkpoint.model):
        saved = read_checkpoint(path, checkpoint.format)
        check_same_run(checkpoint, saved["identity"])
        model.load_state_dict(saved["weights"])
        optimizer.load_state_dict(saved["optimizer"])
        if rng is not None:
            rng.bit_generator.state = saved["numpy_rng"]
        if saved.get("torch_rng") is not None:
            torch.set_rng_state(saved["torch_rng"])
        if saved.get("cuda_rng") and torch.cuda.is_available():
            torch.cuda.set_rng_state_all(saved["cuda_rng"])
        weights = saved["best_weights"]
        return SupervisedState(epoch=saved["epoch"], history=saved["history"], seconds=saved["seconds"],
                               best_score=None if weights is None else float(saved[f"best_{score}"]),
                               best_epoch=saved["best_epoch"], best_weights=weights,
                               since_best=saved.get("since_best", 0), stopped_early=saved.get("stopped_early", False))


def check_same_run(checkpoint: Checkpoint, saved: dict) -> None:
    """Refuse to resume a checkpoint whose recorded identity ``saved`` is another run's: another
    corpus, vocabulary or settings (:func:`course.core.checkpoints.check_resumable`), or other inputs
    (``checkpoint.fingerprint`` differs).

    Raises:
        SettingError: one line naming what differs.
    """
    now = checkpoint.identity
    check_resumable(checkpoint.path, {"identity": saved.get("identity"), "config": saved["config"]},
                    now["identity"], now["config"])
    if saved[checkpoint.fingerprint] != now[checkpoint.fingerprint]:
        raise SettingError(f"{checkpoint.path}: {checkpoint.other_inputs}")


def pooled_batches(lengths: np.ndarray, batch_size: int, rng: np.random.Generator) -> list[np.ndarray]:
    """One epoch's batches of example indexes: shuffled, sorted by length within pools of 20 batches (less
    padding), cut into batches, the batches shuffled."""
    order = rng.permutation(len(lengths))
    pool = 20 * batch_size
    out = []
    for start in range(0, len(order), pool):
        part = order[start:start + pool]
        part = part[np.argsort(lengths[part], kind="stable")]
        out.extend(part[i:i + batch_size] for i in range(0, len(part), batch_size))
    return [out[i] for i in rng.permutation(len(out))]


def evaluation_epochs(epochs: int, evaluations: int) -> set[int]:
    """The epochs (1-based) after which dev is measured: ``evaluations`` of them, evenly spread, the last included."""
    count = min(evaluations, epochs)
    return {int(round(e)) for e in np.linspace(epochs / count, epochs, count)}


def labelled_corpus(name: str, sentences) -> object:
    """Labelled texts as a corpus whose tokens are ``word<TAB>label`` pairs (``label`` may be one per
    word or one per text), so that :func:`corpus_key` hashes the words and their labels together."""
    from .text.corpus import from_sentences

    return from_sentences([[f"{word}\t{label}" for word, label in pairs] for pairs in sentences], name=name)
