"""The figures the probe claims are judged on: each occurrence's leave-one-out 1-NN sense score, the
score every occurrence would get by chance, the mean over words, and the paired bootstrap spread of a
difference (half the width of its central 95% interval over 1,000 resamples, seed 0).
"""

from __future__ import annotations

import numpy as np

RESAMPLES = 1_000
LEVEL = 0.95


def sense_scores(vectors: np.ndarray, senses) -> np.ndarray:
    """``(n,)``: each occurrence's leave-one-out 1-NN score, the share of its equally nearest other
    occurrences (cosine, ties within :data:`course.analysis.probes.TIE`) that have its sense. Their mean is
    :func:`course.analysis.probes.sense_probe`'s ``knn_accuracy``."""
    from ..analysis.probes import TIE, cosine_matrix

    labels = np.asarray(senses)
    similarity = cosine_matrix(vectors)
    np.fill_diagonal(similarity, -np.inf)
    tied = similarity >= similarity.max(axis=1, keepdims=True) - TIE
    return (tied & (labels[:, None] == labels)).sum(axis=1) / tied.sum(axis=1)


def chance_scores(senses) -> np.ndarray:
    """``(n,)``: what :func:`sense_scores` gives when every occurrence has the same vector:
    ``(n_s - 1) / (n - 1)`` for an occurrence of a sense with ``n_s`` of the ``n`` occurrences."""
    labels = np.asarray(senses)
    same = (labels[:, None] == labels).sum(axis=1)
    return (same - 1) / (len(labels) - 1)


def bootstrap_spread(differences, sizes=None, strata=None, resamples: int = RESAMPLES, seed: int = 0,
                     level: float = LEVEL) -> float:
    """Half the width of the central ``level`` interval of a paired bootstrap of a difference.

    Args:
        differences: ``(n,)``, per test unit (a sentence) the sum of its items' score differences
            between the two things compared (one item per unit unless ``sizes`` says otherwise).
        sizes: ``(n,)`` items per unit (tokens of a sentence); default 1.
        strata: ``(n,)`` labels (the probe word of each sentence): units are drawn again within
            each stratum, and the statistic is the mean over strata of ``sum(differences) /
            sum(sizes)``. Default: one stratum.
        resamples, seed, level: the bootstrap's size, its random seed and the interval's level.
    """
    differences = np.asarray(differences, dtype=float)
    sizes = np.ones_like(differences) if sizes is None else np.asarray(sizes, dtype=float)
    strata = np.zeros(len(differences)) if strata is None else np.asarray(strata)
    rng = np.random.default_rng(seed)
    labels = np.unique(strata)
    statistic = np.zeros(resamples)
    for label in labels:
        rows = np.flatnonzero(strata == label)
        drawn = rows[rng.integers(0, len(rows), (resamples, len(rows)))]
        statistic += differences[drawn].sum(axis=1) / sizes[drawn].sum(axis=1)
    low, high = np.quantile(statistic / len(labels), [(1 - level) / 2, (1 + level) / 2])
    return float(high - low) / 2


def _word_mean(scores: np.ndarray, words: np.ndarray) -> float:
    """The mean over words of the mean score of each word's occurrences (how the probes summarise)."""
    return float(np.mean([scores[words == word].mean() for word in dict.fromkeys(words.tolist())]))
