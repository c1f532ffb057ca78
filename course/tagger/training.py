"""Training a tagger, choosing its epoch on the dev sentences, and measuring it.

:func:`train_tagger` shuffles the labelled sentences each epoch, takes Adam steps on batches of
``batch_size`` sentences, measures entity F1 on the dev sentences ``evaluations`` times over the
run, and keeps the weights of the best of those: the epoch is chosen on dev, never on test. With a
checkpoint file it saves the run after every epoch (weights, optimizer, random states, the best
weights so far), and ``resume=True`` continues an interrupted run to the same result as one that
never stopped. The epochs, the keeping and the checkpoints are the loop of :mod:`course.supervised`,
which ULMFiT's classifier shares; what is the tagger's own is here (its batches and its score).

:func:`entity_scores` is the CoNLL measure (``seqeval``): an entity counts as found only when its
type and both ends are right; precision over the predicted entities, recall over the gold ones.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import torch

from ..core.checkpoints import resumes, run_identity
from ..core.devices import check_memory, resolve_device
from ..core.divergence import check_loss, smaller
from ..core.errors import SettingError
from ..supervised import Checkpoint, LoopConfig, evaluation_epochs, fit, labelled_corpus, pooled_batches
from ..tasks.ner import LABELS
from .config import TaggerConfig, epochs_for
from .inputs import ElmoFeatures, ElmoInput, LearnedEmbeddings, StaticVectors
from .model import Tagger

CHECKPOINT_FORMAT = "course.tagger-checkpoint/1"


def entity_scores(gold, predicted) -> dict:
    """Entity precision, recall and F1 of ``predicted`` label sequences against ``gold`` ones."""
    from seqeval.metrics import f1_score, precision_score, recall_score

    gold = [list(labels) for labels in gold]
    predicted = [list(labels) for labels in predicted]
    return {"precision": precision_score(gold, predicted, zero_division=0),
            "recall": recall_score(gold, predicted, zero_division=0),
            "f1": f1_score(gold, predicted, zero_division=0)}


def evaluate(tagger: Tagger, sentences) -> dict:
    """:func:`entity_scores` of the tagger on tagged sentences (:class:`course.tasks.ner.TaggedSentence`)."""
    return entity_scores([s.labels for s in sentences], tagger.predict([s.words for s in sentences]))


def build_tagger(train, config: TaggerConfig, vectors=None, elmo=None, features: ElmoFeatures | None = None,
                 bert=None) -> Tagger:
    """A tagger with fresh weights (drawn from ``config.seed``) for ``config.input``.

    Args:
        train: the labelled sentences (their words make the learned vocabulary).
        vectors: gensim ``KeyedVectors`` for the ``word2vec`` and ``glove`` inputs.
        elmo: the pretrained :class:`~course.elmo.Elmo` for the ``elmo`` inputs.
        features: the frozen network's layers to share between taggers (``elmo`` or ``bert`` input).
        bert: the pretrained :class:`~course.transformer.Transformer` for the ``bert`` inputs.
    """
    torch.manual_seed(config.seed)
    words = [s.words for s in train]
    if config.input in ("word2vec", "glove"):
        if vectors is None:
            raise SettingError(f"the {config.input} input needs its vectors (give vectors=...)")
        inputs = StaticVectors(vectors)
    elif config.uses_elmo:
        kind = config.input.split("-")[0]
        network = elmo if kind == "elmo" else bert
        if network is None:
            raise SettingError(f"the {config.input} input needs a pretrained "
                               f"{'biLM' if kind == 'elmo' else 'Transformer'} (give {kind}=...)")
        inputs = ElmoInput(network, LearnedEmbeddings(words, config.word_dim), fine_tune=config.fine_tunes,
                           features=features, dropout=config.elmo_dropout)
    else:
        inputs = LearnedEmbeddings(words, config.word_dim)
    return Tagger(inputs, LABELS, config)


def check_tagger_memory(train, config: TaggerConfig, device, vectors=None, elmo=None, bert=None) -> None:
    """Refuse, before anything is allocated, a tagger whose training cannot fit in memory
    (:func:`course.core.devices.check_memory`, as the other trainers do).

    With V the words of ``train`` (and ``<pad>``, ``<unk>``), D the input's size per word, H
    ``hidden_dim`` and the labelled sentences' longest T, the weights are the learned embeddings
    (V, word_dim), two LSTMs of 4 H (D + H + 2) and the output layer (2 H + 1) x labels (2 H + E + 1
    with ``elmo_at_output``, E the pretrained layers' size); each is
    held six times (the weights, their gradient, Adam's two moments, the best weights so far and
    the checkpoint's copy), and a batch's activations are about batch_size T (3 D + 12 H) floats.
    """
    words = len({word for sentence in train for word in sentence.words}) + 2
    learned = config.word_dim if config.input not in ("word2vec", "glove") else 0
    pretrained = {"word2vec": vectors, "glove": vectors}.get(config.input)
    network = elmo if config.input.startswith("elmo") else bert if config.input.startswith("bert") else None
    dim = learned + (np.shape(pretrained.vectors)[1] if pretrained is not None else 0) + (
        network.dim if network is not None else 0)
    hidden = config.hidden_dim
    at_output = network.dim if config.elmo_at_output and network is not None else 0
    weights = words * learned + 2 * 4 * hidden * (dim + hidden + 2) + (2 * hidden + at_output + 1) * len(LABELS)
    longest = max(len(sentence.words) for sentence in train)
    activations = config.batch_size * longest * (3 * dim + 12 * hidden)
    check_memory(f"training the tagger with word_dim={config.word_dim:,}, hidden_dim={hidden:,} and "
                 f"batch_size={config.batch_size:,} ({words:,} words, {dim:,} numbers per word)", 0,
                 "use a smaller word_dim, hidden_dim or batch_size", device, 4 * (6 * weights + activations))


def _optimizer(tagger: Tagger, config: TaggerConfig) -> torch.optim.Optimizer:
    pretrained = list(tagger.inputs.network.parameters()) if getattr(tagger.inputs, "fine_tune", False) else []
    in_pretrained = {id(p) for p in pretrained}
    own = [p for p in tagger.parameters() if p.requires_grad and id(p) not in in_pretrained]
    groups = [{"params": own, "lr": config.lr}] + ([{"params": pretrained, "lr": config.finetune_lr}]
                                                    if pretrained else [])
    return torch.optim.Adam(groups)


def batches(sentences, batch_size: int, rng: np.random.Generator) -> list[np.ndarray]:
    """One epoch's batches of sentence indexes: shuffled, then sorted by length within pools of 20
    batches so that a batch holds sentences of similar length (less padding), in shuffled order."""
    return pooled_batches(np.array([len(s.words) for s in sentences]), batch_size, rng)


def train_tagger(train, dev, config: TaggerConfig = TaggerConfig(), vectors=None, elmo=None,
                 features: ElmoFeatures | None = None, progress: bool = False,
                 checkpoint: str | Path | None = None, resume: bool = False, bert=None) -> Tagger:
    """Train a tagger on the labelled sentences ``train`` and keep its best weights on ``dev``.

    Args:
        checkpoint: a file to save the run to after every epoch; ``resume``: continue from it (it
            must be the same run: settings, labelled sentences and inputs).

    Returns:
        The tagger, with ``tagger.history`` (one dict per dev evaluation: ``epoch``, ``loss``, the
        epoch's mean training loss, and ``dev_f1``), ``tagger.best_epoch`` and ``tagger.seconds``.

    Raises:
        SettingError: no labelled sentences, an input without what it needs, or a checkpoint of
            another run.
    """
    if not train:
        raise SettingError("no labelled sentences to train the tagger on")
    if not dev:
        raise SettingError("no dev sentences to choose the tagger's epoch on")
    continuing = resumes(checkpoint, resume)
    device = resolve_device(config.device)
    check_tagger_memory(train, config, device, vectors, elmo, bert)
    tagger = build_tagger(train, config, vectors, elmo, features, bert).to(device)
    optimizer = _optimizer(tagger, config)
    epochs = config.epochs or epochs_for(len(train))
    saving = None if checkpoint is None else Checkpoint(
        checkpoint, CHECKPOINT_FORMAT, "tagger", _run_identity(train, tagger, config), "weights",
        "was trained on other inputs (vectors or biLM); give the same ones to resume, or another checkpoint file")
    rng = np.random.default_rng(config.seed)
    advice = smaller(lr=config.lr, **({"finetune_lr": config.finetune_lr} if config.fine_tunes else {}))

    def train_epoch(epoch: int) -> dict:
        tagger.train()
        losses = []
        for batch_order in batches(train, config.batch_size, rng):
            batch = [train[i] for i in batch_order]
            loss = tagger.loss([s.words for s in batch], [s.labels for s in batch])
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(tagger.parameters(), 5.0)
            optimizer.step()
            losses.append(check_loss(loss.item(), f"in epoch {epoch}", advice))
        return {"loss": float(np.mean(losses))}

    loop = LoopConfig(epochs, frozenset(evaluation_epochs(epochs, config.evaluations)), "f1",
                      description=f"tagger ({config.input})", advice=advice)
    run = fit(tagger, optimizer, train_epoch, lambda: evaluate(tagger, dev)["f1"], loop, saving, continuing, rng,
              progress)
    tagger.history, tagger.best_epoch, tagger.seconds = run.history, run.best_epoch, run.seconds
    return tagger


def _run_identity(train, tagger: Tagger, config: TaggerConfig) -> dict:
    """What a checkpoint must match to be resumed: the run's identity (the labelled sentences as a
    corpus of word-label pairs, and the learned vocabulary: :func:`course.core.checkpoints.run_identity`),
    the settings (the device may change), and the freshly drawn tagger's weights, which hold its
    pretrained inputs."""
    corpus = labelled_corpus("labelled sentences", [zip(s.words, s.labels, strict=True) for s in train])
    inputs = tagger.inputs
    vocabulary = getattr(inputs, "vocabulary", None) or getattr(getattr(inputs, "embeddings", None), "vocabulary", None)
    weights = hashlib.sha256()
    for name, tensor in sorted(tagger.state_dict().items()):
        weights.update(name.encode())
        weights.update(tensor.detach().cpu().contiguous().numpy().tobytes())
    return {"identity": run_identity(corpus, vocabulary.words if vocabulary is not None else []),
            "config": {k: v for k, v in config.to_dict().items() if k != "device"}, "weights": weights.hexdigest()}
