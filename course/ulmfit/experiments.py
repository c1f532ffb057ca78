"""The comparisons of notebook 10: error rates per variant and number of labels, over seeds.

A *variant* is a way to get a classifier (:data:`VARIANTS`): from scratch, from the general LM
(stages 1 and 3), from the LM fine-tuned on reviews (all three stages, ULMFiT), or ULMFiT with
one trick of stage 3 removed. :func:`compare` trains one classifier per (variant, count, seed);
the seed draws the labelled reviews (nested across counts) and the weights, so the spread over
seeds is the spread of both. Every classifier chooses its epoch on the same dev reviews and is
measured once on the test reviews. Two controls sit beside them: a bag-of-words logistic
regression (scikit-learn) on the same labels (:func:`bag_of_words`), and ELMo's frozen layers
under the same head (:func:`features`).

:func:`forgetting` measures what fine-tuning costs the general domain: the perplexity on
People's Daily of the LM under a classifier, after ULMFiT's careful stage 3 and after training
every layer at once at a high rate.

The classifiers of each function share nothing but their inputs, so they train side by side on the
CPU's cores (:func:`course.core.parallel.run_jobs`, ``workers``); the rows are the same for any number.
:func:`variant_calls` and :func:`feature_calls` give the same runs as jobs to hand to
:func:`course.core.parallel.run_calls` together with other work, so that no core waits for another.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

import numpy as np

from ..core.errors import SettingError
from ..core.parallel import run_calls, run_jobs
from .classifier import cut
from .config import ClassifierConfig
from .training import error_rate, forward_perplexity, train_classifier, train_feature_classifier

# name -> (which LM: "general" or "fine-tuned", the settings that differ from ClassifierConfig's)
VARIANTS: dict[str, tuple[str, dict]] = {
    # the random network at the classifier's rate of 0.01 stayed near a dev error of 0.5 with 1,000 labels; 0.003
    # trained it (chosen on dev)
    "from scratch": ("general", {"pretrained": False, "discriminative": False, "gradual_unfreezing": False,
                                 "lr": 3e-3}),
    "stages 1+3": ("general", {}),
    "ULMFiT (1+2+3)": ("fine-tuned", {}),
    "no discriminative rates": ("fine-tuned", {"discriminative": False}),
    "no slanted schedule": ("fine-tuned", {"slanted": False}),
    "no gradual unfreezing": ("fine-tuned", {"gradual_unfreezing": False}),
}
HIGH_RATE = 1e-2  # forgetting: every layer at once at this rate, constant


def compare(data, variants: Sequence[str], counts: Sequence[int | str], seeds: Sequence[int], lms: dict,
            dev, test, config: ClassifierConfig = ClassifierConfig(),
            on_run: Callable[[dict], None] | None = None, workers: int | None = None) -> list[dict]:
    """Train and measure a classifier for every variant, count and seed.

    Args:
        data: the :class:`~course.tasks.reviews.ReviewData` (labelled reviews drawn from its train split).
        variants: names from :data:`VARIANTS`.
        lms: ``{"general": Elmo, "fine-tuned": Elmo}`` as the variants need.
        dev, test: the reviews to choose the epoch on and to measure on.
        config: the settings the variants start from.
        on_run: called with each row, in the order of the runs, as it is done (to print progress).
        workers: runs at once, each in a process of its own (None: every core;
            :func:`course.core.parallel.run_jobs`); the rows are the same for any number.

    Returns:
        One dict per run, variant by variant, then count, then seed: ``variant``, ``labels``,
        ``seed``, ``error``, ``dev_error`` (of the kept epoch), ``best_epoch``, ``epochs``, ``seconds``.
    """
    calls = variant_calls(data, variants, counts, seeds, lms, dev, test, config)
    return run_calls(calls, workers, None if on_run is None else lambda _, row: on_run(row))


def variant_calls(data, variants: Sequence[str], counts: Sequence[int | str], seeds: Sequence[int], lms: dict,
                  dev, test, config: ClassifierConfig = ClassifierConfig()) -> list[tuple[Callable, tuple]]:
    """The runs of :func:`compare` (same arguments) as ``(function, arguments)`` pairs, in its order, for
    :func:`course.core.parallel.run_calls`: to train them on the same workers as other work. Notebook 10 trains
    the variants that need only the general LM beside stage 2, which needs only that LM too.

    Raises:
        SettingError: an unknown variant, or one whose LM is not in ``lms``.
    """
    unknown = [name for name in variants if name not in VARIANTS]
    if unknown:
        raise SettingError(f"unknown variant(s) {', '.join(unknown)}: use {', '.join(VARIANTS)}")
    for name in variants:
        lm_name = VARIANTS[name][0]
        if lm_name not in lms:
            raise SettingError(f"variant {name!r} needs the {lm_name} LM (lms={{{lm_name!r}: ...}})")
    return [(variant_run, (data, name, count, seed, lms[VARIANTS[name][0]], dev, test, config))
            for name in variants for count in counts for seed in seeds]


def variant_run(data, name: str, count: int | str, seed: int, lm, dev, test,
                config: ClassifierConfig = ClassifierConfig()) -> dict:
    """One run of :func:`compare`: ``count`` labelled reviews drawn with ``seed``, a classifier of
    variant ``name`` on ``lm`` trained on them and measured (its row)."""
    train = data.training_reviews(count, seed=seed)
    classifier = train_classifier(train, dev, lm, replace(config, seed=seed, **VARIANTS[name][1]))
    return _row(name, train, seed, classifier, test)


def _row(name: str, train, seed: int, model, test) -> dict:
    best = next(h for h in model.history if h["epoch"] == model.best_epoch)
    return {"variant": name, "labels": len(train), "seed": seed, "error": error_rate(model, test),
            "dev_error": best["dev_error"], "best_epoch": model.best_epoch, "epochs": model.epochs,
            "seconds": model.seconds}


def bag_of_words(data, counts: Sequence[int | str], seeds: Sequence[int], test) -> list[dict]:
    """The control: scikit-learn's logistic regression on word counts, trained on the same labelled
    reviews as :func:`compare` draws (same counts and seeds), measured on ``test``."""
    from sklearn.feature_extraction.text import CountVectorizer
    from sklearn.linear_model import LogisticRegression

    rows = []
    for count in counts:
        for seed in seeds:
            train = data.training_reviews(count, seed=seed)
            vectorizer = CountVectorizer(analyzer=list)  # the reviews are already lists of words
            model = LogisticRegression(max_iter=2_000).fit(vectorizer.fit_transform([r.words for r in train]),
                                                           [r.label for r in train])
            predicted = model.predict(vectorizer.transform([r.words for r in test]))
            error = float(np.mean(predicted != np.array([r.label for r in test])))
            rows.append({"variant": "bag of words", "labels": len(train), "seed": seed, "error": error,
                         "dev_error": None, "best_epoch": None, "epochs": None, "seconds": None})
    return rows


def features(data, features, counts: Sequence[int | str], seeds: Sequence[int], dev, test,
             config: ClassifierConfig = ClassifierConfig(), name: str = "ELMo features",
             workers: int | None = None) -> list[dict]:
    """Feature-based transfer under the same head: a :class:`~course.tagger.inputs.ElmoFeatures`
    of a frozen biLM, one classifier per count and seed (``workers``: as :func:`compare`). The
    biLM's layers are computed here, once, for every review the runs read."""
    return run_calls(feature_calls(data, features, counts, seeds, dev, test, config, name), workers)


def feature_calls(data, features, counts: Sequence[int | str], seeds: Sequence[int], dev, test,
                  config: ClassifierConfig = ClassifierConfig(),
                  name: str = "ELMo features") -> list[tuple[Callable, tuple]]:
    """The runs of :func:`features` (same arguments) as ``(function, arguments)`` pairs for
    :func:`course.core.parallel.run_calls`; the biLM's layers of every review they read are computed here, now."""
    features.add(cut([r.words for count in counts for seed in seeds for r in data.training_reviews(count, seed=seed)]
                     + [r.words for r in dev] + [r.words for r in test], config.max_tokens))
    return [(feature_run, (data, features, count, seed, dev, test, config, name)) for count in counts for seed in seeds]


def feature_run(data, features, count: int | str, seed: int, dev, test,
                config: ClassifierConfig = ClassifierConfig(), name: str = "ELMo features") -> dict:
    """One run of :func:`features`: the head on ``features``, trained on ``count`` reviews drawn with ``seed``."""
    train = data.training_reviews(count, seed=seed)
    return _row(name, train, seed, train_feature_classifier(train, dev, features, replace(config, seed=seed)), test)


def error_table(rows: Sequence[dict]) -> dict[str, dict[int, tuple[float, float]]]:
    """``{variant: {labels: (mean error, half range over seeds)}}``."""
    table: dict[str, dict[int, list[float]]] = {}
    for row in rows:
        table.setdefault(row["variant"], {}).setdefault(row["labels"], []).append(row["error"])
    return {name: {count: (float(np.mean(values)), (max(values) - min(values)) / 2)
                   for count, values in sorted(by_count.items())} for name, by_count in table.items()}


def labels_to_match(table: dict, variant: str, count: int, baseline: str) -> int | None:
    """The fewest labels with which ``baseline``'s mean error is at most ``variant``'s at ``count``
    labels, among the counts measured; None if no measured count gets there."""
    target = table[variant][count][0]
    for labels, (error, _) in sorted(table[baseline].items()):
        if error <= target:
            return labels
    return None


def forgetting(data, lms: dict, general_sentences, count: int, seed: int, dev, test,
               config: ClassifierConfig = ClassifierConfig(), workers: int | None = None) -> list[dict]:
    """The general domain's perplexity of the forward LM at each point of the pipeline.

    Rows: the general LM (stage 1), the LM fine-tuned on reviews (stage 2), then the LM under
    two classifiers trained on ``count`` labels from it: ULMFiT's stage 3 (discriminative rates,
    slanted schedule, gradual unfreezing), and every layer at once at :data:`HIGH_RATE`, one rate,
    constant. The classifier does not train the softmax, so the perplexity under it measures how
    far its LSTM and token encoder moved from a language model.

    The two classifiers train side by side on ``workers`` processes (as :func:`compare`).

    Returns:
        Dicts with ``stage``, ``perplexity`` (People's Daily), ``review_perplexity`` (dev reviews)
        and ``error`` (test; None for the LMs).
    """
    reviews = data.unlabelled_texts("dev")
    rows = [{"stage": name, "perplexity": forward_perplexity(lms[key], general_sentences),
             "review_perplexity": forward_perplexity(lms[key], reviews), "error": None}
            for name, key in (("general LM (stage 1)", "general"), ("fine-tuned on reviews (stage 2)", "fine-tuned"))]
    train = data.training_reviews(count, seed=seed)
    careful = replace(config, seed=seed)
    hasty = replace(config, seed=seed, lr=HIGH_RATE, discriminative=False, slanted=False, gradual_unfreezing=False)
    runs = (("ULMFiT classifier (stage 3)", careful), ("all layers at once, high rate", hasty))
    jobs = [(name, train, dev, test, lms["fine-tuned"], run_config, general_sentences, reviews)
            for name, run_config in runs]
    return rows + run_jobs(_forgetting_row, jobs, workers)


def _forgetting_row(name: str, train, dev, test, lm, config: ClassifierConfig, general_sentences, reviews) -> dict:
    classifier = train_classifier(train, dev, lm, config)
    return {"stage": name, "perplexity": forward_perplexity(classifier.lm, general_sentences),
            "review_perplexity": forward_perplexity(classifier.lm, reviews), "error": error_rate(classifier, test)}
