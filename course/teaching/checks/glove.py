"""Checks of the GloVe assignments (notebook 04): the weighting function and the weighted least-squares loss."""

from __future__ import annotations

from itertools import product

import numpy as np

from ...core.edition import text
from .harness import (
    GENERIC,
    answer_array,
    answer_number,
    call_answer,
    close_to,
    compares_with,
    say_right,
    span_of,
    start_check,
    trial_inputs,
)

# ------------------------------------------------------------------------------ GloVe weighting


def _glove_settings(rng: np.random.Generator, trial: int) -> tuple[float, float, bool]:
    """(x_max, alpha, use the defaults): the defaults on the first trials and some others."""
    if trial < 2:
        return 100.0, 0.75, True
    options = [(100.0, 0.75, True), (10.0, 0.75, False), (50.0, 0.5, False), (3.5, 1.0, False), (100.0, 0.6, False)]
    return options[int(rng.integers(len(options)))]


def _glove_kwargs(x_max: float, alpha: float, defaults: bool) -> dict:
    return {} if defaults else {"x_max": x_max, "alpha": alpha}


def _glove_where(n: int, x_max: float, alpha: float, defaults: bool, d: int | None = None) -> str:
    size = f"n={n}" if d is None else f"n={n}, d={d}"
    return text("check glove defaults", size=size) if defaults else f"{size}, x_max={x_max:g}, alpha={alpha:g}"


def _weighting(x: np.ndarray, x_max: float, alpha: float) -> np.ndarray:
    from ...glove import weighting

    return weighting(x, x_max, alpha)


@compares_with("course.glove.loss:weighting")
def check_glove_weighting(function, *, seed: int | None = None, trials: int = 20) -> None:
    """Check ``function(x, x_max=100.0, alpha=0.75) -> weights``.

    Inputs: ``x`` ``(n,)`` float64 co-occurrence values >= 0 (zeros, values at and above x_max included).
    Expected: ``(n,)`` f(x) = (x/x_max)^alpha below x_max, 1 from x_max on, f(0) = 0
    (:func:`course.glove.weighting`). Some trials pass x_max and alpha, others use the defaults.
    """
    rng, failures = start_check(function, "glove_weighting", seed, trials)
    sizes = trial_inputs(trials, [2, 3], lambda: int(rng.integers(5, 201)))
    for trial, n in enumerate(sizes):
        x_max, alpha, defaults = _glove_settings(rng, trial)
        if trial == 0:
            x = np.array([0.0, 2.5 * x_max])
        elif trial == 1:
            x = np.array([0.5, 1.0, 3.0]) * x_max
        else:
            x = np.exp(rng.uniform(np.log(x_max / 1000), np.log(10 * x_max), n))
            x[rng.random(n) < 0.1] = 0.0
            x[rng.random(n) < 0.05] = x_max
            x[: n // 3] = np.round(x[: n // 3])
        where = _glove_where(n, x_max, alpha, defaults)
        result = call_answer(function, (x.copy(),), _glove_kwargs(x_max, alpha, defaults), shapes=f"x {x.shape}")
        weights = answer_array(result, text("check the result"), (n,), "(n,)", where)
        reference = _weighting(x, x_max, alpha)
        if not close_to(weights, reference):
            failures.add(where, _weighting_findings(x, x_max, alpha, defaults, weights, reference))
    failures.raise_if_any()
    say_right(text("check glove weighting right", trials=trials, span=span_of(sizes)))


def _weighting_variants(x_max: float, alpha: float, defaults: bool):
    """``(keys, x_max used, alpha used, what is wrong)`` for the weightings a mistake gives (the right one first)."""
    scales = [("", x_max, None)]
    if defaults:
        scales.append(("default x_max", 10.0, text("check glove default x_max")))
    elif x_max != 100:
        scales.append(("x_max", 100.0, text("check glove x_max ignored")))
    powers = [("", alpha, None)]
    if alpha != 1:
        powers.append(("alpha", 1.0, text("check glove no power", alpha=alpha)))
    if alpha != 0.75 and not defaults:
        powers.append(("alpha argument", 0.75, text("check glove alpha ignored")))
    return [("+".join(k for k in (s_key, p_key) if k), scale, power, [w for w in (s_wrong, p_wrong) if w])
            for (s_key, scale, s_wrong), (p_key, power, p_wrong) in product(scales, powers)]


def _weighting_findings(x, x_max, alpha, defaults, weights, reference) -> list[tuple[str, str]]:
    findings = []
    zeros = x == 0
    if np.any(zeros) and np.any(weights[zeros] != 0):
        findings.append(("fact:f(0)", text("check glove f(0)", value=weights[zeros][weights[zeros] != 0][0])))
    for keys, scale, power, wrong in _weighting_variants(x_max, alpha, defaults):
        uncapped = np.where(x > 0, (x / scale) ** power, 0.0)
        for capped in (True, False):
            if (capped and not wrong) or not close_to(weights, np.minimum(uncapped, 1) if capped else uncapped):
                continue
            parts = wrong + ([] if capped else [text("check glove uncapped")])
            findings.append(("+".join(k for k in (keys, "" if capped else "cap") if k),
                             text("check glove yours", parts=text("check glove and it").join(parts))))
    if weights.max() > 1 + 1e-9:
        above = int(np.argmax(weights))
        findings.append(("fact:cap", text("check glove above one", x=x[above], value=weights[above])))
    i = int(np.argmax(np.abs(weights - reference)))
    return findings + [(GENERIC, text("check glove weighting differs", x=x[i], got=weights[i], expected=reference[i]))]


# ----------------------------------------------------------------------------------- GloVe loss


@compares_with("course.glove.loss:weighting")
def check_glove_loss(function, *, seed: int | None = None, trials: int = 20) -> None:
    """Check ``function(w, w_context, b, b_context, x, x_max=100.0, alpha=0.75) -> loss``.

    Inputs: ``w``, ``w_context`` ``(n, d)`` the word and context vectors of n non-zero entries,
    ``b``, ``b_context`` ``(n,)`` their biases, ``x`` ``(n,)`` the co-occurrence values (> 0).
    Expected: the float J = Σ_n f(x_n) (w_n·w̃_n + b_n + b̃_n - log x_n)^2, the paper's loss without
    glove.c's 1/2, with f :func:`course.glove.weighting`.
    """
    rng, failures = start_check(function, "glove_loss", seed, trials)
    sizes = trial_inputs(trials, [(1, 1), (2, 3)], lambda: (int(rng.integers(3, 101)), int(rng.integers(2, 31))))
    for trial, (n, d) in enumerate(sizes):
        x_max, alpha, defaults = _glove_settings(rng, trial)
        w, w_context = rng.normal(0, 0.4, (n, d)), rng.normal(0, 0.4, (n, d))
        b, b_context = rng.normal(0, 0.5, n), rng.normal(0, 0.5, n)
        x = np.exp(rng.uniform(np.log(0.2), np.log(5 * x_max), n))
        where = _glove_where(n, x_max, alpha, defaults, d)
        args = (w.copy(), w_context.copy(), b.copy(), b_context.copy(), x.copy())
        result = call_answer(function, args, _glove_kwargs(x_max, alpha, defaults),
                             shapes=f"w {(n, d)}, w_context {(n, d)}, b {(n,)}, b_context {(n,)}, x {(n,)}")
        loss = answer_number(result, text("check the loss"), where)
        reference = _glove_loss_variant(w, w_context, b, b_context, x, _weighting(x, x_max, alpha))
        if not close_to(loss, reference):
            failures.add(where, _glove_loss_findings(w, w_context, b, b_context, x, x_max, alpha, defaults, loss,
                                                     reference))
    failures.raise_if_any()
    say_right(text("check glove loss right", trials=trials, n=span_of([n for n, _ in sizes]),
                   d=span_of([d for _, d in sizes])))


def _glove_loss_variant(w, w_context, b, b_context, x, weights, target=None, scale=1.0) -> float:
    """scale · Σ weights (w·w̃ + b + b̃ - target)^2 with target log x unless given; w ``(n, d)``, the rest ``(n,)``."""
    target = np.log(x) if target is None else target
    return float(scale * (weights * (np.einsum("nd,nd->n", w, w_context) + b + b_context - target) ** 2).sum())


def _glove_loss_findings(w, w_context, b, b_context, x, x_max, alpha, defaults, loss, reference):
    n = len(x)
    weightings = [("", _weighting(x, x_max, alpha), None),
                  ("weighting", np.ones(n), text("check glove no weighting"))]
    if defaults:
        weightings.append(("x_max", _weighting(x, 10.0, 0.75), text("check glove weighting default x_max")))
    elif (x_max, alpha) != (100.0, 0.75):
        weightings.append(("x_max", _weighting(x, 100.0, 0.75), text("check glove weighting arguments ignored")))
    zeros = np.zeros(n)
    biases = [("", b, b_context, None), ("bias", zeros, zeros, text("check glove no biases")),
              ("bias", b, zeros, text("check glove no context bias")),
              ("bias", zeros, b_context, text("check glove no word bias"))]
    targets = [("", np.log(x), None), ("log", x, text("check glove fits x"))]
    half = text("check glove half")
    mean = text("check glove mean")
    scales = [("", 1.0, []), ("half", 0.5, [half]), ("mean", 1 / n, [mean]), ("half+mean", 0.5 / n, [mean, half])]
    findings = []
    for (w_key, weights, w_wrong), (b_key, word_bias, context_bias, b_wrong), (t_key, target, t_wrong), \
            (s_key, scale, s_wrong) in product(weightings, biases, targets, scales):
        parts = [part for part in (w_wrong, b_wrong, t_wrong) if part] + s_wrong
        if parts and close_to(loss, _glove_loss_variant(w, w_context, word_bias, context_bias, x, weights, target,
                                                        scale)):
            keys = "+".join(key for key in (w_key, b_key, t_key, s_key) if key)
            findings.append((keys, text("check glove loss yours", parts=text("check semicolon").join(parts),
                                        got=text("check got expected", got=loss, expected=reference))))
    return findings + [(GENERIC, text("check glove loss differs",
                                      got=text("check got expected", got=loss, expected=reference)))]
