"""Bias in static word vectors: a gender direction, words projected on it, the WEAT test, and what removing a
direction does.

- :func:`pair_components` and :func:`gender_direction`: the direction from definitional pairs (*he*/*she*,
  *man*/*woman*, ...), as Bolukbasi et al. (2016) find it: the first principal component of the pairs' centred
  unit vectors, or the plain mean of the differences; the share of the variance each component explains says
  whether one direction exists at all.
- :func:`project`: the cosine of each word with the direction.
- :func:`associations`, :func:`weat_vectors` and :func:`weat`: the Word Embedding Association Test of Caliskan et
  al. (2017), its effect size and a one-sided permutation p-value over the re-partitions of the target words
  (exact when they are few, else a seeded Monte-Carlo sample).
- :func:`neutralise`: hard debiasing's neutralise step, the direction projected out.
- :func:`cross_validated_accuracy`: how well a classifier recovers labels (say, which words leaned male or
  female) from vectors, the test Gonen and Goldberg (2019) use to show that debiased vectors keep the bias.

Every function takes a gensim ``KeyedVectors`` (or plain arrays) and returns numbers, arrays or a small
dataclass of them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from math import comb

import numpy as np

from ..core.errors import SettingError, WordNotInVocabularyError

METHODS = ("pca", "mean")
PERMUTATIONS = 100_000  # partitions in a Monte-Carlo p-value, and the most an exact one may enumerate


def word_matrix(kv, words: Sequence[str], unit: bool = True) -> np.ndarray:
    """``(n, d)`` float64 rows of ``words`` in ``kv`` (unit length with ``unit=True``).

    Raises WordNotInVocabularyError naming every missing word."""
    missing = [word for word in words if word not in kv.key_to_index]
    if missing:
        raise WordNotInVocabularyError(f"not in the vectors: {', '.join(map(repr, missing))}")
    rows = np.asarray(np.stack([kv.get_vector(word) for word in words]), dtype=np.float64).reshape(len(words), -1)
    return _unit(rows) if unit else rows


def _unit(vectors: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(vectors, axis=-1, keepdims=True)
    return vectors / np.where(norms > 0, norms, 1.0)


# ------------------------------------------------------------------------------- the direction


def pair_components(kv, pairs: Sequence[tuple[str, str]]) -> tuple[np.ndarray, np.ndarray]:
    """Principal components of definitional pairs, as Bolukbasi et al. (2016) compute them.

    Each pair (a, b) of unit vectors is centred on its own mean μ = (a + b) / 2, giving the rows a - μ and
    b - μ: ``(2n, d)`` for n pairs, whose mean is already zero. Returns ``(components, ratios)``:
    ``(k, d)`` unit components (k = min(2n, d)) and ``(k,)`` the share of the rows' variance each explains,
    largest first. The rows span at most n dimensions (a - μ = -(b - μ)), so even random pairs give the first
    component a share of at least 1/n: compare with random pairs before reading a large share as one direction.
    """
    from sklearn.decomposition import PCA

    if len(pairs) < 1:
        raise SettingError("pair_components needs at least one pair of words")
    first = word_matrix(kv, [a for a, _ in pairs])
    second = word_matrix(kv, [b for _, b in pairs])
    middle = (first + second) / 2
    rows = np.concatenate([first - middle, second - middle])  # (2n, d)
    pca = PCA(n_components=min(rows.shape), svd_solver="full").fit(rows)
    return pca.components_, pca.explained_variance_ratio_


def gender_direction(kv, pairs: Sequence[tuple[str, str]], method: str = "pca") -> np.ndarray:
    """``(d,)`` unit direction from the first word of each pair towards the second.

    ``method="pca"``: the first principal component of the pairs' centred unit vectors (:func:`pair_components`);
    ``"mean"``: the mean of the differences b̂ - â. Either is turned to point from the first words to the
    second: with pairs (*he*, *she*), ..., a word with a positive projection leans towards *she*.
    """
    if method not in METHODS:
        raise SettingError(f"unknown method {method!r}: use one of {', '.join(METHODS)}")
    if len(pairs) < 1:
        raise SettingError("gender_direction needs at least one pair of words")
    differences = word_matrix(kv, [b for _, b in pairs]) - word_matrix(kv, [a for a, _ in pairs])  # (n, d)
    mean = differences.mean(axis=0)
    direction = pair_components(kv, pairs)[0][0] if method == "pca" else mean
    direction = _unit(direction)
    return -direction if float(direction @ mean) < 0 else direction


def project(kv, words: Sequence[str], direction: np.ndarray) -> np.ndarray:
    """``(n,)`` the cosine of each word's vector with ``direction`` ``(d,)``: ŵ · ĝ."""
    return word_matrix(kv, words) @ _unit(np.asarray(direction, dtype=np.float64))


def neutralise(vectors: np.ndarray, direction: np.ndarray) -> np.ndarray:
    """``vectors`` ``(..., d)`` with their component along ``direction`` ``(d,)`` removed: v - (v · ĝ) ĝ.

    The neutralise step of hard debiasing (Bolukbasi et al. then rescale to unit length, which keeps the
    projection at zero); the part orthogonal to ĝ is left as it was."""
    vectors = np.asarray(vectors, dtype=np.float64)
    g = _unit(np.asarray(direction, dtype=np.float64))
    return vectors - np.multiply.outer(vectors @ g, g)


# ------------------------------------------------------------------------------------- WEAT


def associations(W: np.ndarray, A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """``(n,)`` s(w, A, B) = mean_a cos(w, a) - mean_b cos(w, b) for each row w of ``W`` ``(n, d)``;
    ``A`` ``(n_A, d)`` and ``B`` ``(n_B, d)`` are the two attribute sets."""
    W, A, B = (_unit(np.asarray(m, dtype=np.float64)) for m in (W, A, B))
    return (W @ A.T).mean(axis=1) - (W @ B.T).mean(axis=1)


@dataclass(frozen=True)
class WeatResult:
    """A WEAT test: the effect size d, the one-sided p-value, the statistic and how the p-value was found."""

    effect_size: float  # (mean_x s(x) - mean_y s(y)) / std over X ∪ Y of s(w), sample std (ddof 1)
    p_value: float  # share of re-partitions (X_i, Y_i) whose statistic is at least the observed one
    statistic: float  # s(X, Y, A, B) = Σ_x s(x, A, B) - Σ_y s(y, A, B)
    partitions: int  # re-partitions counted: all of them when exact, else the Monte-Carlo sample's size
    exact: bool


def weat_vectors(X: np.ndarray, Y: np.ndarray, A: np.ndarray, B: np.ndarray, permutations: int = PERMUTATIONS,
                 seed: int = 0) -> WeatResult:
    """The WEAT of Caliskan et al. (2017) on target vectors ``X`` ``(n_X, d)`` and ``Y`` ``(n_Y, d)`` and
    attribute vectors ``A`` ``(n_A, d)`` and ``B`` ``(n_B, d)``.

    With s(w) = s(w, A, B) (:func:`associations`):

    - effect size d = (mean_{x ∈ X} s(x) - mean_{y ∈ Y} s(y)) / std_{w ∈ X ∪ Y} s(w), the sample standard
      deviation (ddof 1);
    - p-value: the share of the C(n_X + n_Y, n_X) ways of splitting X ∪ Y into sets X_i, Y_i of the sizes of
      X and Y whose difference of means is at least the observed one (the observed split counts, so p > 0).
      With n_X = n_Y, as in the paper, ranking by the difference of means is ranking by the statistic
      Σ_x s(x) - Σ_y s(y). Exact (every split, via ``scipy.stats.permutation_test``) when there are at most
      ``permutations`` of them, else ``permutations`` random splits drawn with ``seed`` and
      p = (1 + #{at least observed}) / (1 + permutations).
    """
    from scipy import stats

    X, Y, A, B = (np.asarray(m, dtype=np.float64) for m in (X, Y, A, B))
    for name, m in (("X", X), ("Y", Y), ("A", A), ("B", B)):
        if m.ndim != 2 or len(m) == 0:
            raise SettingError(f"WEAT's {name} must be a non-empty (n, d) array of vectors, got shape {m.shape}")
    if len(X) + len(Y) < 3:
        raise SettingError("WEAT needs at least three target words in X and Y together (the std takes two, "
                           "the p-value at least two splits)")
    if permutations < 1:
        raise SettingError(f"permutations must be at least 1, got {permutations}")
    s_x, s_y = associations(X, A, B), associations(Y, A, B)
    effect_size = float((s_x.mean() - s_y.mean()) / np.std(np.concatenate([s_x, s_y]), ddof=1))
    total = comb(len(X) + len(Y), len(X))
    exact = total <= permutations
    result = stats.permutation_test((s_x, s_y), _difference_of_means, permutation_type="independent",
                                    vectorized=True, n_resamples=total if exact else permutations,
                                    alternative="greater", rng=np.random.default_rng(seed))
    return WeatResult(effect_size=effect_size, p_value=float(result.pvalue),
                      statistic=float(s_x.sum() - s_y.sum()), partitions=total if exact else permutations,
                      exact=exact)


def _difference_of_means(x: np.ndarray, y: np.ndarray, axis: int) -> np.ndarray:
    return x.mean(axis=axis) - y.mean(axis=axis)


def weat(kv, X: Sequence[str], Y: Sequence[str], A: Sequence[str], B: Sequence[str],
         permutations: int = PERMUTATIONS, seed: int = 0) -> WeatResult:
    """:func:`weat_vectors` on the vectors of the words ``X``, ``Y`` (targets) and ``A``, ``B`` (attributes)
    in ``kv``, a gensim ``KeyedVectors``. A word in two sets is refused: it would be compared with itself."""
    sets = {"X": list(X), "Y": list(Y), "A": list(A), "B": list(B)}
    seen: dict[str, str] = {}
    for name, words in sets.items():
        for word in words:
            if word in seen and seen[word] != name:
                raise SettingError(f"{word!r} is in both {seen[word]} and {name}: WEAT's sets must not share words")
            seen[word] = name
    return weat_vectors(*(word_matrix(kv, words, unit=False) for words in sets.values()),
                        permutations=permutations, seed=seed)


# ---------------------------------------------------------------------- what neutralising leaves


def cross_validated_accuracy(vectors: np.ndarray, labels: Sequence, classifier: str = "knn", neighbours: int = 5,
                             folds: int = 5, seed: int = 0) -> np.ndarray:
    """``(folds,)`` held-out accuracies of a classifier predicting ``labels`` ``(n,)`` from ``vectors`` ``(n, d)``,
    by stratified k-fold cross-validation (folds shuffled with ``seed``).

    ``classifier="knn"``: the majority label of the ``neighbours`` nearest rows by cosine; ``"logistic"``: a
    logistic regression on the unit vectors (scikit-learn's defaults, L2 with C = 1)."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import StratifiedKFold, cross_val_score
    from sklearn.neighbors import KNeighborsClassifier

    models = {"knn": lambda: KNeighborsClassifier(n_neighbors=neighbours, metric="cosine"),
              "logistic": lambda: LogisticRegression(max_iter=2000)}
    if classifier not in models:
        raise SettingError(f"unknown classifier {classifier!r}: use one of {', '.join(models)}")
    splits = StratifiedKFold(n_splits=folds, shuffle=True, random_state=seed)
    return cross_val_score(models[classifier](), _unit(np.asarray(vectors, dtype=np.float64)), np.asarray(labels),
                           cv=splits, scoring="accuracy")
