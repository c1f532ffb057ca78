"""Training a tagger, choosing its epoch on the dev sentences, and measuring it.

:func:`train_tagger` shuffles the labelled sentences each epoch, takes Adam steps on batches of
``batch_size`` sentences, measures entity F1 on the dev sentences ``evaluations`` times over the
run, and keeps the weights of the best of those: the epoch is chosen on dev, never on test. With a
checkpoint file it saves the run after every epoch (weights, optimizer, random states, the best
weights so far), and ``resume=True`` continues an interrupted run to the same result as one that
never stopped.

:func:`entity_scores` is the CoNLL measure (``seqeval``): an entity counts as found only when its
type and both ends are right; precision over the predicted entities, recall over the gold ones.
"""

from __future__ import annotations

import copy
import hashlib
import time
from pathlib import Path

import numpy as np
import torch

from ..checkpoints import (
    check_resumable,
    checkpoint_errors,
    labelled_corpus,
    read_checkpoint,
    resumes,
    run_identity,
    write_checkpoint,
)
from ..devices import check_memory, resolve_device
from ..errors import SettingError
from ..labelled import length_batches
from ..ner import LABELS
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
    """:func:`entity_scores` of the tagger on tagged sentences (:class:`course.ner.TaggedSentence`)."""
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
    (:func:`course.devices.check_memory`, as the other trainers do).

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
    return length_batches(np.array([len(s.words) for s in sentences]), batch_size, rng)


def evaluation_epochs(epochs: int, evaluations: int) -> set[int]:
    """The epochs (1-based) after which dev is measured: ``evaluations`` of them, evenly spread, the last included."""
    count = min(evaluations, epochs)
    return {int(round(e)) for e in np.linspace(epochs / count, epochs, count)}


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
    checkpoints = evaluation_epochs(epochs, config.evaluations)
    identity = _run_identity(train, tagger, config) if checkpoint is not None else None
    rng = np.random.default_rng(config.seed)
    run = {"epoch": 0, "history": [], "best": (-1.0, None, 0), "seconds": 0.0}
    if continuing:
        run = _resume(checkpoint, tagger, optimizer, rng, identity)
    bar = _progress(epochs, progress, config.input, initial=run["epoch"])
    for epoch in range(run["epoch"] + 1, epochs + 1):
        started = time.perf_counter()
        tagger.train()
        losses = []
        for batch_order in batches(train, config.batch_size, rng):
            batch = [train[i] for i in batch_order]
            loss = tagger.loss([s.words for s in batch], [s.labels for s in batch])
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(tagger.parameters(), 5.0)
            optimizer.step()
            losses.append(loss.item())
        if epoch in checkpoints:
            f1 = float(evaluate(tagger, dev)["f1"])
            run["history"].append({"epoch": epoch, "loss": float(np.mean(losses)), "dev_f1": f1})
            if f1 > run["best"][0]:
                run["best"] = (f1, copy.deepcopy(tagger.state_dict()), epoch)
        run["epoch"], run["seconds"] = epoch, run["seconds"] + time.perf_counter() - started
        if checkpoint is not None:
            _save(checkpoint, tagger, optimizer, rng, run, identity)
        bar.update(1)
    bar.close()
    tagger.load_state_dict(run["best"][1])
    tagger.history, tagger.best_epoch, tagger.seconds = run["history"], run["best"][2], run["seconds"]
    return tagger


def _run_identity(train, tagger: Tagger, config: TaggerConfig) -> dict:
    """What a checkpoint must match to be resumed: the run's identity (the labelled sentences as a
    corpus of word-label pairs, and the learned vocabulary: :func:`course.checkpoints.run_identity`),
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


def _save(path, tagger: Tagger, optimizer, rng: np.random.Generator, run: dict, identity: dict) -> None:
    best_f1, best_state, best_epoch = run["best"]
    write_checkpoint(path, {"format": CHECKPOINT_FORMAT, "identity": identity, "epoch": run["epoch"],
                            "history": run["history"], "seconds": run["seconds"],
                            "weights": {k: v.detach().cpu() for k, v in tagger.state_dict().items()},
                            "optimizer": optimizer.state_dict(), "numpy_rng": rng.bit_generator.state,
                            "torch_rng": torch.get_rng_state(),
                            "cuda_rng": torch.cuda.get_rng_state_all() if torch.cuda.is_available() else [],
                            "best_f1": best_f1, "best_epoch": best_epoch,
                            "best_weights": None if best_state is None else
                            {k: v.detach().cpu() for k, v in best_state.items()}})


def _resume(path, tagger: Tagger, optimizer, rng: np.random.Generator, identity: dict) -> dict:
    """Load the checkpoint at ``path`` into ``tagger``, ``optimizer`` and the random generators;
    refuse another run's."""
    with checkpoint_errors(path, "tagger"):
        saved = read_checkpoint(path, CHECKPOINT_FORMAT)
        old = saved["identity"]
        check_resumable(path, {"identity": old.get("identity"), "config": old["config"]}, identity["identity"],
                        identity["config"])
        if old["weights"] != identity["weights"]:
            raise SettingError(f"{path}: was trained on other inputs (vectors or biLM); give the same ones to "
                               "resume, or another checkpoint file")
        tagger.load_state_dict(saved["weights"])
        optimizer.load_state_dict(saved["optimizer"])
        rng.bit_generator.state = saved["numpy_rng"]
        torch.set_rng_state(saved["torch_rng"])
        if saved["cuda_rng"] and torch.cuda.is_available():
            torch.cuda.set_rng_state_all(saved["cuda_rng"])
        device = next(tagger.parameters()).device
        best = None if saved["best_weights"] is None else {k: v.to(device) for k, v in saved["best_weights"].items()}
        return {"epoch": saved["epoch"], "history": saved["history"], "seconds": saved["seconds"],
                "best": (saved["best_f1"], best, saved["best_epoch"])}


def _progress(total: int, show: bool, what: str, initial: int = 0):
    from tqdm.auto import tqdm

    return tqdm(total=total, initial=initial, desc=f"tagger ({what})", unit="epoch", disable=not show, leave=False)
