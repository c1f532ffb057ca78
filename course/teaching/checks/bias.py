"""Check of the WEAT assignment (notebook 05): the effect size and the exact one-sided permutation p-value of the
Word Embedding Association Test, against :func:`course.analysis.bias.weat_vectors`."""

from __future__ import annotations

import itertools
from math import comb

import numpy as np

from ...analysis.bias import associations, weat_vectors
from ...core.edition import text
from .harness import (
    GENERIC,
    CheckFailed,
    answer_number,
    call_answer,
    close_to,
    compares_with,
    describe,
    say_right,
    sentence_at,
    span_of,
    start_check,
    trial_inputs,
)

MAX_SPLITS = 924  # C(12, 6): the most splits of X ∪ Y a trial asks for, so that every p-value is exact


def _effect_size(X, Y, A, B, *, std: str = "pooled", cosine: bool = True, mean_attributes: bool = True) -> float:
    """The effect size d, or what a usual mistake makes of it.

    std: "pooled" (sample std over X ∪ Y, the definition), "population" (ddof 0), "x_only" (over X alone),
    "two_groups" (Cohen's pooled std of the two groups), "none" (no division); cosine: cosines (else raw dot
    products); mean_attributes: mean over A and over B (else sums)."""
    if cosine:
        X, Y, A, B = (m / np.linalg.norm(m, axis=1, keepdims=True) for m in (X, Y, A, B))
    reduce = np.mean if mean_attributes else np.sum
    s_x, s_y = (reduce(W @ A.T, axis=1) - reduce(W @ B.T, axis=1) for W in (X, Y))
    both = np.concatenate([s_x, s_y])
    spread = {"pooled": lambda: np.std(both, ddof=1), "population": lambda: np.std(both),
              "x_only": lambda: np.std(s_x, ddof=1),
              "two_groups": lambda: np.sqrt((np.var(s_x, ddof=1) + np.var(s_y, ddof=1)) / 2),
              "none": lambda: 1.0}[std]()
    return float((s_x.mean() - s_y.mean()) / spread)


def _p_values(X, Y, A, B) -> dict[str, float]:
    """The exact one-sided p-value by brute force, and what the usual mistakes make of it."""
    s = np.concatenate([associations(X, A, B), associations(Y, A, B)])
    n_x, n = len(X), len(X) + len(Y)
    differences = []
    for chosen in itertools.combinations(range(n), n_x):
        mask = np.zeros(n, dtype=bool)
        mask[list(chosen)] = True
        differences.append(s[mask].mean() - s[~mask].mean())
    differences = np.array(differences)
    observed = s[:n_x].mean() - s[n_x:].mean()
    slack = 1e-9 * max(1.0, float(np.abs(differences).max()))
    at_least = np.mean(differences >= observed - slack)
    return {"strict": float(np.mean(differences > observed + slack)),
            "two_sided": float(np.mean(np.abs(differences) >= abs(observed) - slack)),
            "other_tail": float(np.mean(differences <= observed + slack)),
            "complement": float(1 - at_least)}


_D_MISTAKES = [  # (key, keyword arguments of _effect_size, what is wrong: its key in the catalogue)
    ("d:x_only", {"std": "x_only"}, "check weat d x only"),
    ("d:two_groups", {"std": "two_groups"}, "check weat d two groups"),
    ("d:none", {"std": "none"}, "check weat d not standardised"),
    ("d:population", {"std": "population"}, "check weat d population"),
    ("d:dot", {"cosine": False}, "check weat d dot"),
    ("d:sums", {"mean_attributes": False}, "check weat d sums"),
]
_P_MISTAKES = {  # what is wrong: its key in the catalogue
    "strict": "check weat p strict",
    "two_sided": "check weat p two-sided",
    "other_tail": "check weat p other tail",
    "complement": "check weat p complement",
}


def _case(rng: np.random.Generator, n_x: int, n_y: int, n_a: int, n_b: int, dim: int, planted: bool):
    """Random target and attribute vectors of uneven lengths; with ``planted``, X leans towards A and Y
    towards B."""
    scale = lambda n: np.exp(rng.normal(0, 0.8, (n, 1)))  # noqa: E731
    A, B = rng.normal(size=(n_a, dim)), rng.normal(size=(n_b, dim))
    X, Y = rng.normal(size=(n_x, dim)), rng.normal(size=(n_y, dim))
    if planted:
        strength = rng.uniform(0.3, 1.2)
        X = X + strength * A.mean(axis=0)
        Y = Y + strength * B.mean(axis=0)
    return tuple(m * scale(len(m)) for m in (X, Y, A, B))


@compares_with(
    "course.analysis.bias:associations",
    "course.analysis.bias:weat_vectors",
    "course.analysis.bias:_difference_of_means",
)
def check_weat_effect_size(function, *, seed: int | None = None, trials: int = 20) -> None:
    """Check ``function(X, Y, A, B) -> (effect_size, p_value)``.

    Inputs: target vectors ``X`` ``(n_X, d)`` and ``Y`` ``(n_Y, d)``, attribute vectors ``A`` ``(n_A, d)`` and
    ``B`` ``(n_B, d)``, random and of uneven lengths, some with X planted near A and Y near B; at most
    924 splits of X ∪ Y. Expected: WEAT's effect size d (sample std over X ∪ Y) and the exact one-sided
    permutation p-value, as :func:`course.analysis.bias.weat_vectors` computes them.
    """
    rng, failures = start_check(function, "weat_effect_size", seed, trials)
    edges = [(2, 2, 1, 1, 3), (2, 3, 2, 3, 4), (3, 3, 2, 2, 5), (4, 2, 3, 5, 8), (6, 6, 4, 4, 10)]

    def draw():
        while True:
            n_x, n_y = (int(v) for v in rng.integers(2, 8, size=2))
            if comb(n_x + n_y, n_x) <= MAX_SPLITS:
                return n_x, n_y, int(rng.integers(1, 7)), int(rng.integers(1, 7)), int(rng.integers(3, 31))

    cases = trial_inputs(trials, edges, draw)
    for trial, (n_x, n_y, n_a, n_b, dim) in enumerate(cases):
        X, Y, A, B = _case(rng, n_x, n_y, n_a, n_b, dim, planted=trial % 2 == 1)
        where = f"n_X={n_x}, n_Y={n_y}, n_A={n_a}, n_B={n_b}, d={dim}"
        result = call_answer(function, (X.copy(), Y.copy(), A.copy(), B.copy()),
                             shapes=f"X {X.shape}, Y {Y.shape}, A {A.shape}, B {B.shape}")
        if not isinstance(result, tuple | list) or len(result) != 2:
            raise CheckFailed(sentence_at(text("check weat returns", got=describe(result)), where))
        names = (text("check weat the effect size"), text("check weat the p-value"))
        effect_size, p_value = (answer_number(value, name, where) for value, name in zip(result, names, strict=True))
        reference = weat_vectors(X, Y, A, B)
        assert reference.exact
        findings = []
        if not close_to(effect_size, reference.effect_size):
            findings += _effect_findings(X, Y, A, B, effect_size, reference.effect_size)
        if not close_to(p_value, reference.p_value):
            findings += _p_findings(X, Y, A, B, p_value, reference)
        if findings:
            failures.add(where, findings)
    failures.raise_if_any()
    say_right(text("check weat right", trials=trials, span=span_of([c[0] + c[1] for c in cases]),
                   splits=max(comb(c[0] + c[1], c[0]) for c in cases)))


def _effect_findings(X, Y, A, B, value: float, right: float) -> list[tuple[str, str]]:
    findings = []
    if close_to(value, -right):
        findings.append(("d:sign", text("check weat d sign")))
    for key, kwargs, message in _D_MISTAKES:
        mistaken = _effect_size(X, Y, A, B, **kwargs)
        if close_to(value, mistaken) or close_to(value, -mistaken):
            findings.append((key, text(message)))
    return findings + [(GENERIC, text("check weat d differs", value=value, right=right))]


def _p_findings(X, Y, A, B, value: float, reference) -> list[tuple[str, str]]:
    findings = []
    if not 0 <= value <= 1:
        findings.append(("fact:p_range", text("check weat p range", value=value)))
    wrong = _p_values(X, Y, A, B)
    for key, message in _P_MISTAKES.items():
        if close_to(value, wrong[key]):
            findings.append((f"p:{key}", text(message)))
    if not close_to(value * reference.partitions, round(value * reference.partitions)):
        findings.append(("p:fraction", text("check weat p fraction", value=value, splits=reference.partitions,
                                            chosen=len(X), targets=len(X) + len(Y))))
    return findings + [(GENERIC, text("check weat p differs", value=value, splits=reference.partitions,
                                      right=reference.p_value))]
