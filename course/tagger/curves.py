"""The transfer experiment of notebook 09: entity F1 per input against the number of labelled sentences.

:func:`learning_curve` trains one tagger per (input, number of labelled sentences, seed): the seed
draws the labelled sentences (:meth:`course.tasks.ner.NerData.training_sentences`, nested across counts)
and the tagger's weights, so each point's spread over seeds is the spread of both. Every tagger
chooses its epoch on the same dev sentences and is measured once on the test sentences:

- ``f1`` (with ``precision``, ``recall``): all test entities (:func:`~course.tagger.training.entity_scores`);
- ``unseen_f1``: only entities none of whose words occur in the tagger's labelled sentences, the
  words a tagger can only know from pretraining (:func:`unseen_entity_scores`).

The runs share nothing but their inputs, so they go side by side on the CPU's cores
(:func:`course.core.parallel.run_jobs`); a frozen network's layers are computed first, once, for every
sentence any run reads.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from ..core.errors import SettingError
from ..core.parallel import longest_first, run_jobs
from ..tasks.ner import NerData, TaggedSentence, entity_scores_from_counts, entity_spans
from .config import TaggerConfig
from .inputs import ElmoFeatures
from .training import entity_scores, train_tagger


def unseen_entity_scores(test: Sequence[TaggedSentence], predicted, known_words: set[str]) -> dict:
    """Precision, recall and F1 over the entities none of whose words is in ``known_words``.

    Recall counts the gold entities of unseen words that were found exactly (type and both ends);
    precision, the predicted entities of unseen words that are gold entities. ``entities``: the
    number of gold entities of unseen words.
    """
    gold, found, right = 0, 0, 0
    for sentence, labels in zip(test, predicted, strict=True):
        def unseen(span, words=sentence.words):
            return not any(word in known_words for word in words[span[1]:span[2]])

        gold_spans = {span for span in entity_spans(sentence.labels) if unseen(span)}
        predicted_spans = {span for span in entity_spans(labels) if unseen(span)}
        gold, found = gold + len(gold_spans), found + len(predicted_spans)
        right += len(gold_spans & predicted_spans)
    precision, recall, f1 = entity_scores_from_counts(right, found, gold)
    return {"precision": precision, "recall": recall, "f1": f1, "entities": gold}


def learning_curve(data: NerData, inputs: Sequence[str], counts: Sequence[int | str], seeds: Sequence[int],
                   dev: Sequence[TaggedSentence], test: Sequence[TaggedSentence], vectors: dict | None = None,
                   elmo=None, config: TaggerConfig = TaggerConfig(), on_run: Callable[[dict], None] | None = None,
                   bert=None, workers: int | None = None, longest_first_order: bool = True,
                   counts_by_input: dict[str, Sequence[int | str]] | None = None) -> list[dict]:
    """Train and measure a tagger for every input, count and seed.

    Args:
        data: the data set (labelled sentences are drawn from ``data.train``).
        inputs: names from :data:`~course.tagger.config.INPUTS`.
        counts: numbers of labelled sentences (or ``"all"``).
        dev, test: the sentences to choose the epoch on and to measure on.
        vectors: ``{"word2vec": KeyedVectors, "glove": KeyedVectors}`` as the inputs need.
        elmo: the pretrained biLM for the ``elmo`` inputs (its frozen layers are computed once, here,
            for every sentence the runs read).
        bert: the pretrained Transformer for the ``bert`` inputs (the same).
        config: the other settings (``input`` and ``seed`` are set per run).
        on_run: called with each row, in the order of the runs, as it is done (to print progress).
        workers: runs at once, each in a process of its own (None: every core;
            :func:`course.core.parallel.run_jobs`); the rows are the same for any number.
        counts_by_input: the counts of some inputs, in place of ``counts`` (notebook 09 fine-tunes the
            biLM at its fewest labels only): one call runs them all, so the workers share every run.
        longest_first_order: hand the workers the fine-tuning runs first, then the runs with more labels
            (False: in the rows' order); the rows are the same either way, only the wait differs.

    Returns:
        One dict per run, input by input, then count, then seed: ``input``, ``labels`` (sentences),
        ``seed``, ``f1``, ``precision``, ``recall``, ``unseen_f1``, ``unseen_entities``, ``epochs``,
        ``best_epoch``, ``seconds``, ``mix_weights`` (a list, ELMo inputs only), ``predicted`` (the
        test labels).
    """
    strays = sorted(set(counts_by_input or {}) - set(inputs))
    if strays:
        raise SettingError(f"counts_by_input names inputs that are not run: {', '.join(strays)} (inputs: "
                           f"{', '.join(inputs)})")
    counts_of = {name: (counts_by_input or {}).get(name, counts) for name in inputs}
    runs = [(name, count, seed) for name in inputs for count in counts_of[name] for seed in seeds]
    features = {kind: ElmoFeatures(network) for kind, network in (("elmo", elmo), ("bert", bert))
                if network is not None and kind in inputs}
    for kind, kept in features.items():
        kept.add([s.words for count in counts_of[kind] for seed in seeds
                  for s in data.training_sentences(count, seed=seed)]
                 + [s.words for s in dev] + [s.words for s in test])
    jobs = [(data, name, count, seed, dev, test, (vectors or {}).get(name), elmo, config, features.get(name), bert)
            for name, count, seed in runs]
    # fine-tuning a network takes several times as long as a frozen input (notebook 09: about 70 s against
    # 5-10 s per tagger), so those runs go first, and no core is left alone with them at the end
    costs = [(name.endswith("-finetuned"), len(data.train) if count == "all" else int(count))
             for name, count, _ in runs]
    return run_jobs(tagger_run, jobs, workers, None if on_run is None else lambda _, row: on_run(row),
                    order=longest_first(costs) if longest_first_order else None)


def tagger_run(data: NerData, name: str, count: int | str, seed: int, dev: Sequence[TaggedSentence],
               test: Sequence[TaggedSentence], vectors=None, elmo=None, config: TaggerConfig = TaggerConfig(),
               features: ElmoFeatures | None = None, bert=None) -> dict:
    """One run of :func:`learning_curve`: ``count`` labelled sentences drawn with ``seed``, a tagger
    with input ``name`` trained on them and measured (its row)."""
    train = data.training_sentences(count, seed=seed)
    run_config = TaggerConfig(**{**config.to_dict(), "input": name, "seed": seed})
    tagger = train_tagger(train, dev, run_config, vectors=vectors, elmo=elmo, features=features, bert=bert)
    return tagger_row(tagger, name, train, seed, test)


def tagger_row(tagger, name: str, train: Sequence[TaggedSentence], seed: int,
               test: Sequence[TaggedSentence]) -> dict:
    """One point of the learning curve: a trained tagger measured on ``test`` (the keys of
    :func:`learning_curve`'s rows)."""
    predicted = tagger.predict([s.words for s in test])
    known = {word for sentence in train for word in sentence.words}
    unseen = unseen_entity_scores(test, predicted, known)
    weights = tagger.mix_weights()
    return {"input": name, "labels": len(train), "seed": seed, **entity_scores([s.labels for s in test], predicted),
            "unseen_f1": unseen["f1"], "unseen_entities": unseen["entities"],
            "epochs": tagger.history[-1]["epoch"], "best_epoch": tagger.best_epoch,
            "seconds": tagger.seconds, "mix_weights": None if weights is None else weights.tolist(),
            "predicted": predicted}


def curve_table(rows: Sequence[dict], measure: str = "f1") -> dict[str, dict[int, tuple[float, float]]]:
    """``{input: {labels: (mean, half range over seeds)}}`` of ``measure`` (``"f1"``, ``"unseen_f1"``)."""
    table: dict[str, dict[int, list[float]]] = {}
    for row in rows:
        table.setdefault(row["input"], {}).setdefault(row["labels"], []).append(row[measure])
    return {name: {count: (float(np.mean(values)), (max(values) - min(values)) / 2)
                   for count, values in sorted(by_count.items())} for name, by_count in table.items()}

