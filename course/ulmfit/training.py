"""ULMFiT's stages 2 and 3, and what they are measured with.

- :func:`fine_tune_lm` (stage 2): the pretrained forward LM trained on the target domain's text,
  each layer group at its own rate (:func:`~course.ulmfit.schedules.discriminative_rates`), all
  following one slanted triangular schedule; given held-out texts, it measures their perplexity
  after every epoch (or every ``eval_every`` steps), keeps the weights of the best measurement and
  stops after ``patience`` measurements without a better one, in the epochs of a
  :class:`course.lm.run.Run`, as the biLM's and the Transformers' trainers do;
- :func:`train_classifier` (stage 3): a :class:`~course.ulmfit.classifier.Classifier` on the LM,
  trained on labelled texts with the same two tricks and gradual unfreezing; the dev error is
  measured after a few epochs (``evaluations``), and the weights of the best are kept (chosen on
  dev, never on test);
  with a checkpoint file, each epoch is saved and an interrupted run resumes where it stopped (the
  loop of :mod:`course.supervised`, which the tagger shares);
- :func:`train_feature_classifier`: the feature-based alternative, a mix of a frozen biLM's layers
  under the same head;
- :func:`error_rate` and :func:`forward_perplexity`.

The passes run in bfloat16 on a CPU that has bfloat16 units, as the biLM's training does.
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from ..core.checkpoints import resumes, run_identity
from ..core.devices import resolve_device
from ..core.divergence import check_loss, perplexity, smaller
from ..core.errors import SettingError
from ..elmo.batching import LanguageModelData
from ..lm.best import KeepBest
from ..lm.precision import autocast, autocast_dtype
from ..lm.resume import RESUMABLE_CHANGES
from ..lm.run import Limits, Run
from ..lm.state import TrainingState
from ..lm.threads import cpu_threads
from ..supervised import Checkpoint, LoopConfig, evaluation_epochs, fit, labelled_corpus
from ..tagger.training import batches
from .classifier import Classifier, FeatureClassifier
from .config import ClassifierConfig, LanguageModelConfig, epochs_for
from .language_model import ForwardLM, check_vocabulary
from .schedules import discriminative_rates, slanted_triangular, unfrozen_groups

CHECKPOINT_FORMAT = "course.ulmfit-classifier-checkpoint/1"


def parameter_groups(groups, top_rate: float, factor: float) -> list[dict]:
    """Adam's parameter groups for layer groups given bottom first: each with its own ``"lr"``
    from :func:`~course.ulmfit.schedules.discriminative_rates` (``factor=1``: one rate), and
    ``"top_lr"``, that rate before any schedule scales it."""
    rates = discriminative_rates(top_rate, len(groups), factor)
    return [{"params": [p for p in group.parameters()], "lr": rate, "top_lr": rate}
            for group, rate in zip(groups, rates, strict=True)]


def _set_rates(optimizer: torch.optim.Optimizer, scale: float) -> None:
    for group in optimizer.param_groups:
        group["lr"] = group["top_lr"] * scale


def _schedule_scale(config, step: int, total_steps: int) -> float:
    """The share of each group's rate at ``step``: the slanted triangle over the run, or 1."""
    if not config.slanted:
        return 1.0
    return slanted_triangular(step, total_steps, 1.0, config.cut_frac, config.ratio)


def _language_model_data(lm: ForwardLM, sentences) -> LanguageModelData:
    from ..text.corpus import from_sentences

    corpus = from_sentences([list(s) for s in sentences if len(s)], name="texts", language="zh")
    return LanguageModelData(corpus.types, corpus.token_ids, corpus.offsets, lm.words, lm.characters,
                             lm.elmo_config.max_sentence_length)


@torch.no_grad()
def forward_perplexity(lm, sentences, batch_tokens: int = 4_000) -> float:
    """exp of the mean -log p(w_{k+1} | w_0 .. w_k) of a forward LM (a :class:`ForwardLM`, or an
    :class:`~course.elmo.Elmo`'s) over sentences of words, ``<eos>`` included; without dropout,
    in float32; words outside its vocabulary are ``<unk>``."""
    if not isinstance(lm, ForwardLM):
        lm = ForwardLM(lm, shared=True)
    data = _language_model_data(lm, sentences)
    was_training = lm.training
    lm.eval()
    total, predictions = 0.0, 0
    try:
        for group in data.batches(batch_tokens):
            batch = data.batch(group).to(lm.device)
            _, summed = lm.batch_loss(batch)
            total += float(summed)
            predictions += batch.predictions
    finally:
        lm.train(was_training)
    return perplexity(total / max(predictions, 1))


def fine_tune_lm(elmo, sentences, config: LanguageModelConfig = LanguageModelConfig(), progress: bool = False,
                 heldout=None):
    """Stage 2: the forward LM of ``elmo`` trained on ``sentences`` (the target domain's texts).

    Layer groups, bottom first: token encoder, each LSTM layer, softmax; with ``discriminative``
    each gets 2.6 times less than the one above, with ``slanted`` all follow one slanted triangle
    over the run's steps. With ``heldout`` texts, their forward perplexity is measured after
    every epoch (with ``config.eval_every``: every that many steps, and after the last epoch), the
    best measurement's weights are kept, and training stops after ``config.patience``
    measurements without a better one.

    Returns:
        A copy of ``elmo`` whose forward LM is the fine-tuned one (the backward LM is unchanged),
        with ``.history``: the mean training loss of each tenth of the run, and ``.fine_tuning``:
        a :class:`~course.lm.state.TrainingState` with the epochs done and, with ``heldout``,
        every held-out measurement (``heldout``), the best (``best``) and ``stopped_early``.
    """
    device = resolve_device(config.device)
    lm = ForwardLM(elmo).to(device)  # a copy of the biLM, trained in place
    model = copy.copy(elmo)
    model.bilm, model.device = lm.bilm, device
    data = _language_model_data(lm, sentences)
    if data.num_sentences == 0:
        raise SettingError("no texts to fine-tune the language model on")
    groups = [*lm.layer_groups(), lm.bilm.softmax]
    optimizer = torch.optim.Adam(parameter_groups(groups, config.lr, config.factor if config.discriminative else 1))
    dtype = autocast_dtype(elmo.config.precision, device)
    torch.manual_seed(config.seed)
    words = config.epochs * int(data.lengths().sum())
    bar = _progress(words, progress, "LM fine-tuning", "word")
    tuned = _Tuned(lm.bilm, config, TrainingState(), device)
    best = KeepBest(lm.bilm, tuned.state, config.patience) if heldout is not None else None
    advice = f"use a smaller lr for it (LanguageModelConfig.lr, now {config.lr})"
    run = _FineTuning(tuned, data, heldout, bar, best, lm, optimizer, groups, dtype, advice)
    lm.train()
    with cpu_threads(device, config.threads):
        run.epochs(Limits())
    bar.close()
    tuned.state.finished = True
    if best is not None:
        best.restore()  # weights the Run checked when it measured them
    lm.eval()
    model.history, model.fine_tuning = run.tenths, tuned.state
    return model


@dataclass
class _Tuned:
    """What :class:`course.lm.run.Run` reads of the model it trains: here the forward LM's biLM, the
    stage's settings, where it stands and its device."""

    bilm: torch.nn.Module
    config: LanguageModelConfig
    state: TrainingState
    device: torch.device
    NETWORK = "bilm"


class _FineTuning(Run):
    """The epochs of :func:`fine_tune_lm` (:class:`course.lm.run.Run`, as the biLM's and the Transformers'
    trainers): each layer group's rate scaled by the slanted triangle at the step
    (``learning_rate`` returns the scale), the held-out texts' forward perplexity measured where
    :func:`~course.lm.best.measures` says, and the mean loss of each tenth of the steps kept
    (``tenths``, the model's ``history``)."""

    def __init__(self, tuned: _Tuned, data: LanguageModelData, heldout, bar, best: KeepBest | None,
                 lm: ForwardLM, optimizer: torch.optim.Optimizer, groups, dtype, advice: str):
        super().__init__(tuned, data, heldout, bar, None, best, identity={})
        self.lm, self.optimizer, self.dtype, self.advice = lm, optimizer, dtype, advice
        self.parameters = [p for g in groups for p in g.parameters()]
        self.tenth = max(1, self.total_steps // 10)
        self.tenths, self.losses, self.interval = [], [], []

    def learning_rate(self, step: int) -> float:
        return _schedule_scale(self.config, step, self.total_steps)

    def step(self, group: np.ndarray, lr: float) -> None:
        _set_rates(self.optimizer, lr)
        device = self.model.device
        with autocast(device, self.dtype):
            loss, _ = self.lm.batch_loss(self.train.batch(group).to(device))
        self.optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(self.parameters, self.lm.elmo_config.clip_norm)
        self.optimizer.step()
        value = check_loss(loss.item(), f"in epoch {self.state.epoch + 1} of the LM's fine-tuning", self.advice)
        self.losses.append(value)
        self.interval.append(value)
        done = self.state.step + 1  # counted by the Run after this call
        if done % self.tenth == 0 or done == self.total_steps:
            self.tenths.append({"step": done, "loss": float(np.mean(self.losses))})
            self.losses = []

    def read_out(self, lr: float) -> tuple[dict, dict]:
        loss = float(np.mean(self.interval)) if self.interval else math.nan
        self.interval = []
        return {"loss": loss, "lr_scale": lr}, {"loss": f"{loss:.3f}"}

    def interval_state(self) -> dict:
        return {"losses": list(self.interval)}

    def evaluate(self) -> tuple[dict, float, dict]:
        measured = forward_perplexity(self.lm, self.heldout)
        return {"perplexity": measured}, measured, {"heldout": f"{measured:.1f}"}

    def checkpoint_extra(self) -> dict:
        return {}

    WEIGHTS = "fine-tuned LM"

    def divergence_advice(self) -> str:
        return self.advice


def error_rate(model, reviews) -> float:
    """The share of ``reviews`` (with ``.words`` and ``.label``) whose label ``model`` gets wrong."""
    predicted = model.predict([r.words for r in reviews])
    return float(np.mean(predicted != np.array([r.label for r in reviews])))


def build_classifier(elmo, config: ClassifierConfig, classes: int = 2) -> Classifier:
    """A classifier on ``elmo``'s forward LM (its weights, or with ``pretrained=False`` the same
    network drawn at random), with a head drawn from ``config.seed``."""
    device = resolve_device(config.device)
    lm = ForwardLM(elmo, pretrained=config.pretrained, seed=config.seed).to(device)
    torch.manual_seed(config.seed)
    return Classifier(lm, classes, config.hidden_dim, config.dropout, config.max_tokens).to(device)


def train_classifier(train, dev, elmo, config: ClassifierConfig = ClassifierConfig(), progress: bool = False,
                     checkpoint: str | Path | None = None, resume: bool = False) -> Classifier:
    """Stage 3: train a classifier on the labelled reviews ``train``, keeping its best epoch on ``dev``.

    Args:
        train, dev: lists of :class:`~course.tasks.reviews.Review` (``.words``, ``.label``).
        elmo: the :class:`~course.elmo.Elmo` whose forward LM is the encoder (pretrained, or
            fine-tuned by :func:`fine_tune_lm`); with ``config.pretrained=False`` only its sizes
            and vocabularies are used.
        checkpoint: a file to save the run to after every epoch; ``resume``: continue from it.

    Returns:
        The classifier with ``.history`` (per epoch: ``epoch``, ``groups`` training, the mean
        training ``loss``, ``dev_error``, None where dev was not measured), ``.best_epoch``,
        ``.epochs`` and ``.seconds``.

    Raises:
        SettingError: no labelled or dev reviews; an LM of another vocabulary (it knows less than
            half the words of ``train``); a checkpoint of another run.
    """
    if not train:
        raise SettingError("no labelled reviews to train the classifier on")
    if not dev:
        raise SettingError("no dev reviews to choose the classifier's epoch on")
    continuing = resumes(checkpoint, resume)
    if config.pretrained:
        check_vocabulary(elmo, [r.words for r in train])
    classifier = build_classifier(elmo, config)
    dtype = autocast_dtype(elmo.config.precision, resolve_device(config.device))
    identity = _run_identity(train, elmo, config)
    return _fit(classifier, train, dev, config, dtype, progress, checkpoint, identity if continuing else None,
                identity)


def _fit(model, train, dev, config: ClassifierConfig, dtype, progress: bool, checkpoint, resume_identity,
         identity):
    """Train ``model`` (a :class:`Classifier` or :class:`FeatureClassifier`) on ``train``: Adam over
    its layer groups at their rates, the schedule, gradual unfreezing, dev evaluations; resume from
    ``checkpoint`` when ``resume_identity`` is given; keep the best evaluation's weights
    (:func:`course.supervised.fit`)."""
    device = resolve_device(config.device)
    groups = model.layer_groups()
    optimizer = torch.optim.Adam(parameter_groups(groups, config.lr, config.factor if config.discriminative else 1))
    epochs = config.epochs or epochs_for(len(train))
    saving = None if checkpoint is None else Checkpoint(
        checkpoint, CHECKPOINT_FORMAT, "classifier", identity, "lm_weights",
        "was trained on another LM (other weights); give the LM it was trained on, or another checkpoint file")
    loop = LoopConfig(epochs, frozenset(evaluation_epochs(epochs, config.evaluations)), "error",
                      higher_is_better=False, every_epoch=True, description="classifier", advice=smaller(lr=config.lr))

    def evaluate() -> float:
        with autocast(device, dtype):
            return error_rate(model, dev)

    with cpu_threads(device, config.threads):
        run = fit(model, optimizer, _epoch_trainer(train, model, optimizer, config, epochs, device, dtype), evaluate,
                  loop, saving, resume_identity is not None, progress=progress)
    model.requires_grad_(True)
    model.eval()
    model.history, model.best_epoch = run.history, run.best_epoch
    model.epochs, model.seconds = epochs, run.seconds
    return model


def _epoch_trainer(train, classifier, optimizer, config, epochs, device, dtype):
    """``train_epoch(epoch) -> {"groups", "loss"}`` of :func:`_fit`: the layer groups unfrozen by
    then, the batches drawn from (seed, epoch), each step at its share of the slanted triangle."""
    groups = classifier.layer_groups()
    labels = np.array([r.label for r in train])
    steps_per_epoch = math.ceil(len(train) / config.batch_size)
    total_steps = epochs * steps_per_epoch
    advice = smaller(lr=config.lr)

    def train_epoch(epoch: int) -> dict:
        unfrozen = unfrozen_groups(epoch, len(groups), config.gradual_unfreezing)
        for index, group in enumerate(groups):
            group.requires_grad_(index >= len(groups) - unfrozen)
        classifier.train()
        torch.manual_seed(config.seed * 1_000 + epoch)
        losses = []
        for number, rows in enumerate(batches(train, config.batch_size, np.random.default_rng([config.seed, epoch]))):
            if len(rows) < 2:  # batch normalisation needs two examples
                continue
            step = (epoch - 1) * steps_per_epoch + number
            _set_rates(optimizer, _schedule_scale(config, step, total_steps))
            with autocast(device, dtype):
                logits = classifier([train[i].words for i in rows])
            loss = torch.nn.functional.cross_entropy(logits.float(), torch.from_numpy(labels[rows]).to(device))
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(classifier.parameters(), 1.0)
            optimizer.step()
            losses.append(check_loss(loss.item(), f"in epoch {epoch}", advice))
        return {"groups": unfrozen, "loss": float(np.mean(losses)) if losses else math.nan}

    return train_epoch


def _run_identity(train, elmo, config: ClassifierConfig) -> dict:
    """What a checkpoint must match to be resumed: the run's identity (the labelled reviews as a corpus
    of word-label pairs, and the LM's vocabulary: :func:`course.core.checkpoints.run_identity`), the
    settings, and the LM's weights."""
    import hashlib

    corpus = labelled_corpus("labelled reviews", [[(word, r.label) for word in r.words] for r in train])
    weights = hashlib.sha256()
    for name, tensor in sorted(elmo.bilm.state_dict().items()):
        weights.update(name.encode())
        weights.update(tensor.detach().cpu().float().numpy().tobytes()[:4096])
    return {"identity": run_identity(corpus, elmo.words.words),
            "config": {k: v for k, v in config.to_dict().items() if k not in RESUMABLE_CHANGES},
            "lm_weights": weights.hexdigest()}


def train_feature_classifier(train, dev, features, config: ClassifierConfig = ClassifierConfig(),
                             progress: bool = False) -> FeatureClassifier:
    """Feature-based transfer: the head (and a :class:`~course.elmo.ScalarMix`) on a frozen
    biLM's layers, trained as :func:`train_classifier` trains (one layer group: nothing to unfreeze);
    the best epoch on ``dev`` is kept."""
    if not train or not dev:
        raise SettingError("the feature classifier needs labelled and dev reviews")
    torch.manual_seed(config.seed)
    model = FeatureClassifier(features, 2, config.hidden_dim, config.dropout, config.max_tokens)
    return _fit(model.to(resolve_device(config.device)), train, dev, config, None, progress, None, None, None)


def _progress(total: int, show: bool, what: str, unit: str):
    from ..core.progress import progress_bar

    return progress_bar(total=total, desc=what, unit=unit, disable=not show, leave=False)
