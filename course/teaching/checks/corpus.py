"""Checks of the assignments on counting text (notebooks 00 and 01): the out-of-vocabulary rate that the
training counts predict for new text, and positive PMI with a smoothed context distribution."""

from __future__ import annotations

import warnings
from itertools import product

import numpy as np

from ...core.edition import text
from .harness import (
    GENERIC,
    CheckFailed,
    answer_array,
    call_answer,
    close_to,
    compares_with,
    how_many,
    say_right,
    sentence_at,
    span_of,
    start_check,
    trial_inputs,
    worst_difference,
)

# ------------------------------------------------------------------------------ OOV rate estimate


def _oov_reference(counts: np.ndarray, min_counts: np.ndarray) -> np.ndarray:
    """``(M,)`` the leave-one-out (Good–Turing) estimate of the OOV rate of new text at each min_count:
    the share of the N training tokens whose type is seen at most m times, Σ_{w: 1 <= c(w) <= m} c(w) / N.

    Leave out one training token of a type seen c times: the rest of the text has it c - 1 times, so it is
    out of a vocabulary cut at m when c - 1 < m. Summed over r = c - 1 this is Good–Turing's
    Σ_{r < m} (r + 1) N_{r+1} / N.
    """
    counts = np.asarray(counts, dtype=np.int64)
    kept = counts[None, :] <= np.asarray(min_counts, dtype=np.int64)[:, None]  # (M, V)
    return (kept * counts).sum(axis=1) / counts.sum()


def _oov_inputs(rng: np.random.Generator, size: int) -> tuple[np.ndarray, np.ndarray]:
    """Training counts of ``size`` types (a Zipfian sample of tokens: many singletons, some zeros) and
    2 to 6 distinct thresholds in random order, 1 among them, one above the largest count at times."""
    probabilities = 1 / np.arange(1, size + 1) ** rng.uniform(0.8, 1.4)
    tokens = int(rng.integers(max(2, size // 2), 20 * size + 1))
    counts = rng.multinomial(tokens, probabilities / probabilities.sum())[rng.permutation(size)].astype(np.int64)
    top = int(counts.max())
    others = np.exp(rng.uniform(np.log(2), np.log(top + 3), int(rng.integers(1, 6)))).astype(np.int64)
    small = [int(rng.integers(2, 6))] if rng.random() < 0.7 else []
    above = [top + int(rng.integers(1, 3))] if rng.random() < 0.2 else []
    min_counts = np.unique(np.concatenate([[1], small, others, above])).astype(np.int64)
    return counts, rng.permutation(min_counts)


OOV_EDGES = [  # (training counts, min_counts): one type; every token a singleton; zeros, min_count above all
    (np.array([3]), np.array([1, 3, 4])),
    (np.array([1, 1]), np.array([2, 1])),
    (np.array([4, 0, 1, 2, 1]), np.array([1, 2, 3, 5])),
]


@compares_with()
def check_oov_rate_estimate(function, *, seed: int | None = None, trials: int = 20) -> None:
    """Check ``function(counts, min_counts) -> rates``.

    Inputs: ``counts`` ``(V,)`` int64 training counts (>= 0, some zero, not all), ``min_counts`` ``(M,)``
    int64 thresholds >= 1 in any order. Expected: ``(M,)`` the OOV rate that leave-one-out (Good–Turing)
    predicts for new text from the same source, with a vocabulary of the types counted at least m times.
    """
    rng, failures = start_check(function, "oov_rate_estimate", seed, trials)
    inputs = trial_inputs(trials, OOV_EDGES, lambda: _oov_inputs(rng, int(rng.integers(4, 401))))
    for counts, min_counts in inputs:
        where = text("check oov where", types=how_many(len(counts), "type"), tokens=int(counts.sum()),
                     min_counts=min_counts.tolist())
        try:
            result = call_answer(function, (counts.copy(), min_counts.copy()),
                                 shapes=f"counts {counts.shape}, min_counts {min_counts.shape}")
        except CheckFailed as failure:
            if min_counts.max() <= counts.max():
                raise
            raise CheckFailed(text("check oov above the largest", failure=failure, min_count=min_counts.max(),
                                   largest=counts.max())) from failure.__cause__
        rates = answer_array(result, text("check the result"), min_counts.shape, "(M,)", where)
        reference = _oov_reference(counts, min_counts)
        if not close_to(rates, reference):
            failures.add(where, _oov_findings(counts, min_counts, rates, reference))
    failures.raise_if_any()
    sizes = [len(counts) for counts, _ in inputs]
    say_right(text("check oov right", trials=trials, span=span_of(sizes), largest=max(int(m.max()) for _, m in inputs)))


def _oov_findings(counts, min_counts, rates, reference) -> list[tuple[str, str]]:
    total = counts.sum()
    c, m = counts[None, :], min_counts[:, None]  # (1, V), (M, 1)

    def share(chosen, over=total):
        return (chosen * c).sum(axis=1) / over

    seen_types = (counts > 0).sum()
    candidates = [  # (key, what a mistake gives, what is wrong)
        ("training", share((c >= 1) & (c < m)), text("check oov training")),
        ("one too many", share(c <= m + 1), text("check oov one too many")),
        ("unseen only", share(np.broadcast_to(c == 1, (len(min_counts), len(counts)))), text("check oov unseen only")),
        ("no unseen", share((c >= 2) & (c <= m)), text("check oov no unseen")),
        ("types", ((c >= 1) & (c <= m)).sum(axis=1) / max(seen_types, 1), text("check oov types")),
        *(("types", chosen.sum(axis=1) / len(counts), text("check oov types and zeros"))
          for chosen in (c <= m, (c >= 1) & (c <= m))),
        ("N - 1", share(c <= m, total - 1) if total > 1 else None, text("check oov N - 1")),
        ("not a share", share(c <= m, 1), text("check oov not a share")),
        ("coverage", 1 - reference, text("check oov coverage")),
        ("order", _oov_reference(counts, np.sort(min_counts)), text("check oov order")),
    ]
    findings = [(key, wrong) for key, value, wrong in candidates if value is not None and close_to(rates, value)]
    if rates.min() < -1e-12 or rates.max() > 1 + 1e-9:
        findings.append(("fact:range", text("check oov range", low=rates.min(), high=rates.max())))
    worst = int(np.argmax(np.abs(rates - reference)))
    return findings + [(GENERIC, text("check oov differs", min_count=min_counts[worst], got=rates[worst],
                                      expected=reference[worst]))]


# ------------------------------------------------------------------------------------- positive PMI


def _ppmi_reference(counts: np.ndarray, alpha: float) -> np.ndarray:
    """``(V, C)`` :func:`course.counts.count_vectors.ppmi` of a dense matrix, as a dense matrix."""
    import scipy.sparse as sp

    from ...counts.count_vectors import ppmi

    return ppmi(sp.csr_matrix(counts), context_smoothing=alpha).toarray()


def _ppmi_variant(counts: np.ndarray, *, word_power: float, context_power: float, scale: str = "sum",
                  base: float = np.e, clip: bool = True) -> np.ndarray:
    """PPMI as a mistake computes it: the word and context marginals raised to their powers; a powered
    marginal divided by its own sum (``scale="sum"``, right), not divided (``"none"``), divided by the total
    count (``"total"``), or the probability raised to the power (``"probability"``); the logarithm to
    ``base``; negative PMI kept (``clip=False``). Cells with X_wc = 0 are 0."""
    total = counts.sum()
    rows, cols = counts.sum(axis=1), counts.sum(axis=0)

    def marginal(sums: np.ndarray, power: float) -> np.ndarray:
        if power == 1.0:
            return sums / total
        return {"sum": lambda: sums**power / (sums**power).sum(), "none": lambda: sums**power,
                "total": lambda: sums**power / total, "probability": lambda: (sums / total) ** power}[scale]()

    p_word, p_context = marginal(rows, word_power), marginal(cols, context_power)
    r, c = np.nonzero(counts)
    with np.errstate(divide="ignore", invalid="ignore"):
        pmi = (np.log(counts[r, c] / total) - np.log(p_word[r]) - np.log(p_context[c])) / np.log(base)
    out = np.zeros_like(counts, dtype=np.float64)
    out[r, c] = np.maximum(pmi, 0.0) if clip else pmi
    return out


def _ppmi_inputs(rng: np.random.Generator, shape: tuple[int, int]) -> np.ndarray:
    """``shape`` counts: integer or harmonic (sums of 1/d) values, many zeros, at times an all-zero row or
    column; never all zero."""
    rows, cols = shape
    density = rng.uniform(0.15, 0.9)
    values = rng.integers(1, 60, shape).astype(np.float64)
    if rng.random() < 0.5:
        values = values / rng.integers(1, 6, shape)
    counts = np.where(rng.random(shape) < density, values, 0.0)
    if rows > 2 and rng.random() < 0.7:
        counts[rng.integers(rows)] = 0.0
    if cols > 2 and rng.random() < 0.7:
        counts[:, rng.integers(cols)] = 0.0
    if not counts.any():
        counts[rng.integers(rows), rng.integers(cols)] = 1.0
    return counts


PPMI_EDGES = [  # one cell; a zero row and a zero column; a rectangle with a zero column
    np.array([[3.0]]),
    np.array([[4.0, 0.0], [0.0, 0.0]]),
    np.array([[1.0, 2.0, 0.0], [3.0, 0.0, 0.0]]),
    np.array([[2.0, 0.0, 1.0], [0.0, 5.0, 0.5], [1.0, 3.0, 0.0], [0.0, 0.0, 0.0]]),
]


def _ppmi_settings(rng: np.random.Generator, trial: int) -> tuple[float, bool]:
    """(alpha, use the default): the default on the first trials and some others."""
    if trial < 4:
        return 0.75, True
    options = [(0.75, True), (0.75, False), (1.0, False), (0.5, False), (float(rng.uniform(0.3, 0.95)), False)]
    return options[int(rng.integers(len(options)))]


@compares_with("course.counts.count_vectors:ppmi")
def check_positive_pmi(function, *, seed: int | None = None, trials: int = 20) -> None:
    """Check ``function(counts, alpha=0.75) -> ppmi``.

    Inputs: ``counts`` ``(V, C)`` float64 co-occurrence counts >= 0, words in rows and contexts in columns,
    not symmetric, with zero cells and at times an all-zero row or column (never all zero). Expected:
    ``(V, C)`` max(0, log P(w, c) / (P(w) P_alpha(c))) with P_alpha(c) = (Σ_w X_wc)^alpha / Σ_c' (Σ_w X_wc')^alpha
    and the natural logarithm, 0 wherever X_wc = 0, no nan or inf and no numpy RuntimeWarning on the way
    (:func:`course.counts.count_vectors.ppmi`). Some trials pass ``alpha``, others use the default.
    """
    rng, failures = start_check(function, "positive_pmi", seed, trials)
    inputs = trial_inputs(trials, PPMI_EDGES,
                          lambda: _ppmi_inputs(rng, (int(rng.integers(3, 61)), int(rng.integers(3, 61)))))
    for trial, counts in enumerate(inputs):
        alpha, default = _ppmi_settings(rng, trial)
        setting = text("check ppmi default alpha") if default else f"alpha={alpha:g}"
        where = f"V×C = {counts.shape[0]}×{counts.shape[1]}, {setting}"
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                result = call_answer(function, (counts.copy(),), {} if default else {"alpha": alpha},
                                     shapes=f"counts {counts.shape}")
            except CheckFailed as failure:
                if counts.shape[0] == counts.shape[1] or "broadcast" not in str(failure):
                    raise
                raise CheckFailed(text("check ppmi broadcast", failure=failure, rows=counts.shape[0],
                                       columns=counts.shape[1])) from failure.__cause__
        if hasattr(result, "toarray"):  # a scipy sparse matrix is fine too
            result = result.toarray()
        reference = _ppmi_reference(counts, alpha)
        _ppmi_not_finite(counts, result, where)
        values = answer_array(result, text("check the result"), counts.shape, "(V, C)", where)
        findings = [] if close_to(values, reference) else _ppmi_findings(counts, alpha, default, values, reference)
        numpy_warnings = [w for w in caught if issubclass(w.category, RuntimeWarning)]
        if numpy_warnings and not findings:
            findings = [("fact:warning", text("check ppmi warned", warning=numpy_warnings[0].message))]
        if findings:
            failures.add(where, findings)
    failures.raise_if_any()
    smallest, largest = (f"{counts.shape[0]}×{counts.shape[1]}" for counts in (inputs[0], max(inputs, key=np.size)))
    say_right(text("check ppmi right", trials=trials, smallest=smallest, largest=largest))


def _ppmi_not_finite(counts: np.ndarray, result, where: str) -> None:
    """CheckFailed naming the zero counts when the result holds nan or inf where they are."""
    try:
        array = np.asarray(result, dtype=np.float64)
    except (TypeError, ValueError, RuntimeError):
        return  # answer_array says what is wrong
    if array.shape != counts.shape or np.all(np.isfinite(array)):
        return
    empty = (counts.sum(axis=1) == 0)[:, None] | (counts.sum(axis=0) == 0)[None, :]  # (V, C)
    bad = ~np.isfinite(array)
    found = (("nan", np.isnan(array).any()), ("-inf", np.isneginf(array).any()), ("inf", np.isposinf(array).any()))
    kinds = text("check ppmi and").join(name for name, present in found if present)
    if bad[~empty].any() and (counts[bad] > 0).any():
        message = text("check ppmi not finite seen", kinds=kinds)
    elif not bad[~empty].any():
        message = text("check ppmi not finite empty", kinds=kinds)
    else:
        message = text("check ppmi not finite zero", kinds=kinds)
    raise CheckFailed(sentence_at(message, where))


def _ppmi_findings(counts, alpha, default, values, reference) -> list[tuple[str, str]]:
    findings = []
    zero = counts == 0
    if np.any(values[zero] != 0):
        at = tuple(int(i) for i in np.argwhere(zero & (values != 0))[0])
        findings.append(("fact:zero cell", text("check ppmi zero cell", at=at, value=values[at])))
    smoothing = [("", 1.0, alpha, None)]
    if alpha != 1:
        smoothing += [
            ("no smoothing", 1.0, 1.0, text("check ppmi no smoothing default") if default
             else text("check ppmi no smoothing", alpha=alpha)),
            ("words", alpha, 1.0, text("check ppmi smooths words")),
            ("both", alpha, alpha, text("check ppmi smooths both")),
        ]
    if alpha != 0.75 and not default:
        smoothing.append(("alpha argument", 1.0, 0.75, text("check ppmi alpha ignored")))
    scales = [("", "sum", None),
              ("normalise", "probability", text("check ppmi not normalised again")),
              ("normalise", "none", text("check ppmi powered sums")),
              ("normalise", "total", text("check ppmi divided by total"))]
    bases = [("", np.e, None), ("log2", 2.0, text("check ppmi log2")), ("log10", 10.0, text("check ppmi log10"))]
    clips = [("", True, None), ("clip", False, text("check ppmi negative kept"))]
    for (s_key, word_power, context_power, s_wrong), (n_key, scale, n_wrong), (b_key, base, b_wrong), \
            (c_key, clip, c_wrong) in product(smoothing, scales, bases, clips):
        if scale != "sum" and word_power == context_power == 1.0:
            continue  # nothing is smoothed, so nothing to normalise
        wrong = [part for part in (s_wrong, n_wrong, b_wrong, c_wrong) if part]
        if not wrong:
            continue
        variant = _ppmi_variant(counts, word_power=word_power, context_power=context_power, scale=scale, base=base,
                                clip=clip)
        if close_to(values, variant):
            findings.append(("+".join(k for k in (s_key, n_key, b_key, c_key) if k),
                             text("check ppmi yours", parts=text("check glove and it").join(wrong))))
    if values.min() < 0:
        findings.append(("fact:negative", text("check ppmi negative", smallest=values.min())))
    return findings + [(GENERIC, text("check ppmi differs", worst=worst_difference(values, reference)))]

