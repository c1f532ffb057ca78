"""Check of the Transformer assignment (notebook 11): scaled dot-product attention with a mask, in numpy."""

from __future__ import annotations

import numpy as np

from ...core.edition import text
from .harness import (
    GENERIC,
    CheckFailed,
    answer_array,
    call_answer,
    close_to,
    compares_with,
    describe,
    say_right,
    sentence_at,
    start_check,
    trial_inputs,
    worst_difference,
)


def _softmax(scores: np.ndarray, axis: int) -> np.ndarray:
    with np.errstate(invalid="ignore"):  # a row of -inf (an inverted mask) gives nan, as it would for you
        shifted = scores - np.max(scores, axis=axis, keepdims=True)
        exp = np.exp(shifted)
        return exp / exp.sum(axis=axis, keepdims=True)


def _attention(q, k, v, mask=None, *, scale: str = "sqrt", axis: int = -1, mask_how: str = "add",
               values: str = "v") -> tuple[np.ndarray, np.ndarray]:
    """The reference softmax(q k^T / sqrt(d_k) + M) v, with switches that make one mistake each."""
    d_k = q.shape[-1]
    scores = q @ k.T
    scores = scores / {"sqrt": np.sqrt(d_k), "none": 1.0, "d": d_k}[scale]
    if mask is not None and mask_how == "add":
        scores = np.where(mask, scores, -np.inf)
    elif mask is not None and mask_how == "inverted":
        scores = np.where(mask, -np.inf, scores)
    weights = _softmax(scores, axis)
    if mask is not None and mask_how == "multiply":
        weights = weights * mask
    return weights @ (v if values == "v" else k), weights


def _random_mask(rng: np.random.Generator, t_q: int, t_k: int) -> np.ndarray:
    """True where a query may look: a causal mask when the shapes are square (half the time), else a
    random one in which every query may look at one key at least and every key is seen by one query."""
    if t_q == t_k and rng.random() < 0.5:
        return np.tril(np.ones((t_q, t_k), dtype=bool))
    mask = rng.random((t_q, t_k)) < 0.6
    mask[np.arange(t_q), rng.integers(0, t_k, size=t_q)] = True
    mask[rng.integers(0, t_q, size=t_k), np.arange(t_k)] = True
    return mask


def _case(rng: np.random.Generator, t_q: int, t_k: int, d: int, d_v: int, masked: bool):
    q = rng.normal(size=(t_q, d)) * rng.uniform(0.5, 2.0)
    k = rng.normal(size=(t_k, d)) * rng.uniform(0.5, 2.0)
    v = rng.normal(size=(t_k, d_v))
    return q, k, v, _random_mask(rng, t_q, t_k) if masked else None


def _findings(q, k, v, mask, output, weights) -> list[tuple[str, str]]:
    """What the student's (output, weights) match among the usual mistakes."""
    reference_out, reference_w = _attention(q, k, v, mask)
    wrong = {
        "no_scale": (_attention(q, k, v, mask, scale="none"), text("check attention no scale")),
        "by_d": (_attention(q, k, v, mask, scale="d"), text("check attention by d")),
        "queries_axis": (_attention(q, k, v, mask, axis=0), text("check attention queries axis")),
        "inverted": (_attention(q, k, v, mask, mask_how="inverted"), text("check attention inverted")),
        "multiply": (_attention(q, k, v, mask, mask_how="multiply"), text("check attention multiply")),
        "keys_as_values": (_attention(q, k, v, mask, values="k"), text("check attention keys as values")),
    }
    findings = []
    for key, ((out, w), message) in wrong.items():
        if key in ("inverted", "multiply") and mask is None:
            continue
        if close_to(output, out) and close_to(weights, w) and \
                not (close_to(out, reference_out) and close_to(w, reference_w)):
            findings.append((key, message))
    if weights.shape == reference_w.T.shape and close_to(weights, reference_w.T) and not close_to(weights, reference_w):
        findings.append(("transposed", text("check attention transposed")))
    if mask is not None and not close_to(weights.sum(axis=1), np.ones(len(weights)), atol=1e-6):
        findings.append(("fact:rows", text("check attention rows", sums=np.round(weights.sum(axis=1), 4).tolist())))
    if mask is not None and np.any(np.abs(weights[~mask]) > 1e-9) and weights.shape == mask.shape:
        findings.append(("fact:masked", text("check attention masked")))
    if not close_to(weights, reference_w):
        findings.append((GENERIC, text("check attention weights differ", worst=worst_difference(weights, reference_w))))
    else:
        findings.append((GENERIC, text("check attention output differs",
                                       worst=worst_difference(output, reference_out))))
    return findings


def _shape_error(value, name: str, wanted: tuple[int, ...], symbols: str, where: str, hints: dict) -> None:
    """CheckFailed with a hint when ``value``'s shape is one a usual mistake gives."""
    shape = tuple(getattr(value, "shape", np.shape(value)))
    if shape != wanted and shape in hints:
        raise CheckFailed(sentence_at(hints[shape], where))


def _no_nan(weights, mask, where: str) -> None:
    """A named CheckFailed for weights with nan or inf in them (an inverted mask makes a row all -inf)."""
    try:
        finite = np.all(np.isfinite(np.asarray(weights, dtype=np.float64)))
    except (TypeError, ValueError):
        return  # answer_array says what is wrong
    if not finite and mask is not None:
        raise CheckFailed(sentence_at(text("check attention nan"), where))


@compares_with("course.transformer.attention:scaled_dot_product_attention")
def check_masked_attention(function, *, seed: int | None = None, trials: int = 30) -> None:
    """Check ``function(q, k, v, mask=None) -> (output, weights)`` in numpy.

    Inputs: ``q`` ``(T_q, d)``, ``k`` ``(T_k, d)``, ``v`` ``(T_k, d_v)`` float64 arrays and ``mask``,
    None or a bool ``(T_q, T_k)`` array, True where a query may look at a key (every query may look at
    one key at least). Expected: ``weights = softmax(q k^T / sqrt(d) + M)`` over the keys, with M 0
    where the mask is True and -inf where it is False (so those weights are exactly 0 and each row
    sums to 1), and ``output = weights @ v``: ``(T_q, d_v)`` and ``(T_q, T_k)``.
    """
    rng, failures = start_check(function, "masked_attention", seed, trials)

    edges = [lambda: _case(rng, 1, 1, 1, 1, False), lambda: _case(rng, 1, 1, 3, 2, True),
             lambda: _case(rng, 3, 3, 4, 4, True), lambda: _case(rng, 2, 5, 4, 3, False),
             lambda: _case(rng, 4, 4, 8, 5, True), lambda: _case(rng, 3, 6, 6, 6, True)]

    def draw():
        t_q, t_k = int(rng.integers(1, 9)), int(rng.integers(1, 9))
        if rng.random() < 0.4:
            t_k = t_q
        d = int(rng.integers(1, 17))
        d_v = d if rng.random() < 0.3 else int(rng.integers(1, 17))
        return _case(rng, t_q, t_k, d, d_v, bool(rng.random() < 0.7))

    cases = [case() for case in trial_inputs(trials, edges, lambda: draw)]
    for q, k, v, mask in cases:
        t_q, t_k, d, d_v = len(q), len(k), q.shape[1], v.shape[1]
        where = (f"q {q.shape}, k {k.shape}, v {v.shape}, "
                 + (text("check attention no mask") if mask is None else f"mask {mask.astype(int).tolist()}"))
        args = (q.copy(), k.copy(), v.copy()) + (() if mask is None else (mask.copy(),))
        result = call_answer(function, args, shapes=f"q {q.shape}, k {k.shape}, v {v.shape}"
                             + ("" if mask is None else f", mask {mask.shape}"))
        if not isinstance(result, tuple | list) or len(result) != 2:
            raise CheckFailed(sentence_at(text("check attention returns", got=describe(result)), where))
        output, weights = result
        _shape_error(output, "output", (t_q, d_v), "(T_q, d_v)", where,
                     {(t_q, d): text("check attention keys' width")} if d != d_v else {})
        _shape_error(weights, "weights", (t_q, t_k), "(T_q, T_k)", where,
                     {(t_k, t_q): text("check attention transposed")} if t_q != t_k else {})
        _no_nan(weights, mask, where)
        output = answer_array(output, "output", (t_q, d_v), "(T_q, d_v)", where)
        weights = answer_array(weights, "weights", (t_q, t_k), "(T_q, T_k)", where)
        reference_out, reference_w = _attention(q, k, v, mask)
        if not (close_to(output, reference_out, atol=1e-8) and close_to(weights, reference_w, atol=1e-8)):
            failures.add(where, _findings(q, k, v, mask, output, weights))
    failures.raise_if_any()
    say_right(text("check attention right", trials=trials))
