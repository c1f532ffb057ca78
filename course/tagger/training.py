"""Training a tagger, choosing its epoch on the dev sentences, and measuring it.

:func:`train_tagger` shuffles the labelled sentences each epoch, takes Adam steps on batches of
``batch_size`` sentences, measures entity F1 on the dev sentences ``evaluations`` times over the
run, and keeps the weights of the best of those: the epoch is chosen on dev, never on test.

:func:`entity_scores` is the CoNLL measure (``seqeval``): an entity counts as found only when its
type and both ends are right; precision over the predicted entities, recall over the gold ones.
"""

from __future__ import annotations

import copy
import time

import numpy as np
import torch

from ..devices import resolve_device
from ..errors import SettingError
from ..ner import LABELS
from .config import TaggerConfig, epochs_for
from .inputs import ElmoFeatures, ElmoInput, LearnedEmbeddings, StaticVectors
from .model import Tagger


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


def build_tagger(train, config: TaggerConfig, vectors=None, elmo=None, features: ElmoFeatures | None = None) -> Tagger:
    """A tagger with fresh weights (drawn from ``config.seed``) for ``config.input``.

    Args:
        train: the labelled sentences (their words make the learned vocabulary).
        vectors: gensim ``KeyedVectors`` for the ``word2vec`` and ``glove`` inputs.
        elmo: the pretrained :class:`~course.elmo.Elmo` for the ``elmo`` inputs.
        features: the frozen biLM's layers to share between taggers (``elmo`` input).
    """
    torch.manual_seed(config.seed)
    words = [s.words for s in train]
    if config.input in ("word2vec", "glove"):
        if vectors is None:
            raise SettingError(f"the {config.input} input needs its vectors (give vectors=...)")
        inputs = StaticVectors(vectors)
    elif config.uses_elmo:
        if elmo is None:
            raise SettingError(f"the {config.input} input needs a biLM (give elmo=...)")
        inputs = ElmoInput(elmo, LearnedEmbeddings(words, config.word_dim), fine_tune=config.input == "elmo-finetuned",
                           features=features, dropout=config.elmo_dropout)
    else:
        inputs = LearnedEmbeddings(words, config.word_dim)
    return Tagger(inputs, LABELS, config)


def _optimizer(tagger: Tagger, config: TaggerConfig) -> torch.optim.Optimizer:
    bilm = list(tagger.inputs.bilm.parameters()) if getattr(tagger.inputs, "fine_tune", False) else []
    in_bilm = {id(p) for p in bilm}
    own = [p for p in tagger.parameters() if p.requires_grad and id(p) not in in_bilm]
    groups = [{"params": own, "lr": config.lr}] + ([{"params": bilm, "lr": config.finetune_lr}] if bilm else [])
    return torch.optim.Adam(groups)


def batches(sentences, batch_size: int, rng: np.random.Generator) -> list[np.ndarray]:
    """One epoch's batches of sentence indexes: shuffled, then sorted by length within pools of 20
    batches so that a batch holds sentences of similar length (less padding), in shuffled order."""
    order = rng.permutation(len(sentences))
    pool = 20 * batch_size
    lengths = np.array([len(s.words) for s in sentences])
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


def train_tagger(train, dev, config: TaggerConfig = TaggerConfig(), vectors=None, elmo=None,
                 features: ElmoFeatures | None = None, progress: bool = False) -> Tagger:
    """Train a tagger on the labelled sentences ``train`` and keep its best weights on ``dev``.

    Returns:
        The tagger, with ``tagger.history`` (one dict per dev evaluation: ``epoch``, ``loss``, the
        epoch's mean training loss, and ``dev_f1``), ``tagger.best_epoch`` and ``tagger.seconds``.

    Raises:
        SettingError: no labelled sentences, or an input without what it needs.
    """
    if not train:
        raise SettingError("no labelled sentences to train the tagger on")
    if not dev:
        raise SettingError("no dev sentences to choose the tagger's epoch on")
    device = resolve_device(config.device)
    tagger = build_tagger(train, config, vectors, elmo, features).to(device)
    optimizer = _optimizer(tagger, config)
    epochs = config.epochs or epochs_for(len(train))
    checkpoints = evaluation_epochs(epochs, config.evaluations)
    rng = np.random.default_rng(config.seed)
    tagger.history, best, started = [], (-1.0, None, 0), time.perf_counter()
    bar = _progress(epochs, progress, config.input)
    for epoch in range(1, epochs + 1):
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
            f1 = evaluate(tagger, dev)["f1"]
            tagger.history.append({"epoch": epoch, "loss": float(np.mean(losses)), "dev_f1": f1})
            if f1 > best[0]:
                best = (f1, copy.deepcopy(tagger.state_dict()), epoch)
        bar.update(1)
    bar.close()
    tagger.load_state_dict(best[1])
    tagger.best_epoch, tagger.seconds = best[2], time.perf_counter() - started
    return tagger


def _progress(total: int, show: bool, what: str):
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=f"tagger ({what})", unit="epoch", disable=not show, leave=False)
