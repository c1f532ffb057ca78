"""Check of the second attention assignment (notebook 11): attention over a batch of padded sentences, with a
causal mask and padding together, in numpy, against the course's ``scaled_dot_product_attention``."""

from __future__ import annotations

from itertools import product

import numpy as np

from ...core.edition import text
from .harness import (
    GENERIC,
    RTOL,
    CheckFailed,
    answer_array,
    call_answer,
    compares_with,
    describe,
    say_right,
    sentence_at,
    span_of,
    start_check,
    trial_inputs,
)

ATOL = 1e-8


# ------------------------------------------------------------------------------------ reference


def _reference(q, k, v, real, causal: bool) -> tuple[np.ndarray, np.ndarray]:
    """The course's attention (:func:`course.transformer.attention.scaled_dot_product_attention`, the mask
    :class:`~course.transformer.attention.MultiHeadSelfAttention` builds from the causal mask and the key
    padding) at the real query positions, and zeros at the padded ones."""
    import torch

    from ...transformer.attention import causal_mask, scaled_dot_product_attention

    real_t = torch.from_numpy(real)
    mask = real_t[:, None, :]  # (B, 1, T): the keys that are words
    if causal:
        mask = mask & causal_mask(real.shape[1])[None]  # (B, T, T)
    output, weights = scaled_dot_product_attention(*(torch.from_numpy(a) for a in (q, k, v)), mask)
    output, weights = output.numpy().copy(), weights.numpy().copy()
    output[~real], weights[~real] = 0.0, 0.0  # padded queries: nothing to read (a row of no keys is nan there)
    return output, weights


def _softmax_rows(scores: np.ndarray, empty: str) -> np.ndarray:
    """Softmax along the last axis where -inf marks a forbidden key; a row with no key gives nan (0/0, as a
    plain softmax does) or zeros."""
    with np.errstate(invalid="ignore"):
        top = np.max(scores, axis=-1, keepdims=True)
        if empty == "zero":
            top = np.where(np.isfinite(top), top, 0.0)
        exp = np.exp(scores - top)
        total = exp.sum(axis=-1, keepdims=True)
        if empty == "zero":
            total = np.where(total > 0, total, 1.0)
        return exp / total


def _simulate(q, k, v, real, causal: bool, *, diagonal: int = 0, triangle: str = "lower", use_causal=None,
              keys: bool = True, queries: bool = True, empty: str = "zero", zero_padded: bool = False,
              after: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """softmax(q k^T / sqrt(d) + M) v in numpy, with switches that make one mistake each.

    diagonal, triangle: which keys the causal mask allows (0, "lower": s <= t); use_causal: apply it
    (default: when causal); keys, queries: mask padding along the keys' or the queries' axis; empty: what a
    row with no allowed key gives ("zero" or "nan"); zero_padded: set the padded queries' rows to zero
    afterwards; after: multiply the softmax by the mask instead of putting -inf in the scores.
    """
    batch, length, d = q.shape
    scores = q @ k.transpose(0, 2, 1) / np.sqrt(d)  # (B, T, T)
    allowed = np.ones((batch, length, length), dtype=bool)
    if causal if use_causal is None else use_causal:
        square = np.ones((length, length), dtype=bool)
        allowed &= np.tril(square, diagonal) if triangle == "lower" else np.triu(square, -diagonal)
    if keys:
        allowed &= real[:, None, :]
    if queries:
        allowed &= real[:, :, None]
    if after:
        weights = _softmax_rows(scores, "zero") * allowed
    else:
        weights = _softmax_rows(np.where(allowed, scores, -np.inf), empty)
    if zero_padded:
        weights = np.where(real[:, :, None], weights, 0.0)
    return weights @ v, weights


# The structural mistakes (what may look at what) and the ways of handling the padded queries, combined.
_STRUCTURES = {
    "right": {},
    "after": {"after": True},
    "query_only": {"keys": False},
    "diagonal:strict": {"diagonal": -1},
    "diagonal:next": {"diagonal": 1},
    "diagonal:upper": {"triangle": "upper"},
    "no_causal": {"use_causal": False},
    "always_causal": {"use_causal": True},
}
_HANDLING = {
    "right": {"queries": True, "empty": "zero"},
    "right-zeroed": {"queries": False, "zero_padded": True},
    "nan": {"queries": True, "empty": "nan"},
    "padded_queries": {"queries": False, "empty": "zero"},
    "padded_queries+nan": {"queries": False, "empty": "nan"},
}
_MESSAGES = {key: f"check padded {key}" for key in (  # each mistake's message: its key in the catalogue
    "after", "query_only", "diagonal:strict", "diagonal:next", "diagonal:upper", "no_causal", "always_causal",
    "no_padding", "nan", "padded_queries", "padded_queries+nan")}


def _same(value: np.ndarray, expected: np.ndarray) -> bool:
    return value.shape == expected.shape and bool(np.allclose(value, expected, rtol=RTOL, atol=ATOL, equal_nan=True))


def _applies(structure: str, causal: bool) -> bool:
    """Whether a structural mistake can show: the causal mask's mistakes only with causal=True, and so on."""
    if structure.startswith("diagonal") or structure == "no_causal":
        return causal
    return not causal if structure == "always_causal" else True


def _shown_handling(handling: str, nan_padded: bool, nonzero_padded: bool) -> str:
    """The mistake in handling the padded queries that the answer shows there (nan, numbers), if any."""
    if handling == "nan":
        return "nan" if nan_padded else "right"
    if handling.startswith("padded_queries"):
        return "padded_queries+nan" if nan_padded and handling.endswith("nan") else \
            "padded_queries" if nonzero_padded else "right"
    return handling


def _keys_of(structure: str, handling: str) -> list[str]:
    """The mistakes of one combination, most specific first."""
    if structure == "query_only" and handling.startswith("padded_queries"):
        return ["no_padding"]  # neither axis: every row has keys, so no nan
    keys = [key for key in (structure, handling) if not key.startswith("right")]
    return keys + ["padded_queries"] if handling == "padded_queries+nan" else keys


# -------------------------------------------------------------------------------------- inputs


def _case(rng: np.random.Generator, lengths, sides, causal: bool, width: int | None = None, d: int | None = None,
          d_v: int | None = None):
    """q, k, v ``(B, T, d)``, ``(B, T, d)``, ``(B, T, d_v)`` and ``real`` ``(B, T)``: sentence b has
    ``lengths[b]`` words, after its padding (side "left") or before it ("right")."""
    batch = len(lengths)
    width = max(1, max(lengths)) if width is None else width
    d = int(rng.integers(1, 17)) if d is None else d
    d_v = int(rng.integers(1, 9)) if d_v is None else d_v
    real = np.zeros((batch, width), dtype=bool)
    for b, (length, side) in enumerate(zip(lengths, sides, strict=True)):
        real[b, :length] = True
        if side == "left":
            real[b] = real[b, ::-1]
    scale = rng.uniform(0.5, 2.0)
    q, k = rng.normal(size=(batch, width, d)) * scale, rng.normal(size=(batch, width, d)) * scale
    return q, k, rng.normal(size=(batch, width, d_v)), real, causal


def _draw(rng: np.random.Generator):
    batch, width = int(rng.integers(1, 5)), int(rng.integers(1, 10))
    lengths = [0 if rng.random() < 0.05 else int(rng.integers(1, width + 1)) for _ in range(batch)]
    sides = ["left" if rng.random() < 0.4 else "right" for _ in range(batch)]
    return _case(rng, lengths, sides, bool(rng.random() < 0.7), width=width)


def _where(q, v, real, causal: bool) -> str:
    batch, width, d = q.shape
    return text("check padded where", batch=batch, width=width, d=d, d_v=v.shape[2], causal=causal,
                real=real.astype(int).tolist())


# ---------------------------------------------------------------------------------------- check


@compares_with("course.transformer.attention:causal_mask", "course.transformer.attention:scaled_dot_product_attention")
def check_padded_attention(function, *, seed: int | None = None, trials: int = 30) -> None:
    """Check ``function(q, k, v, real, causal=True) -> (output, weights)`` in numpy.

    Inputs: ``q`` ``(B, T, d)``, ``k`` ``(B, T, d)``, ``v`` ``(B, T, d_v)`` float64, ``real`` ``(B, T)`` bool,
    True at the positions that are words (the rest is padding, before or after the words; a sentence may be
    all padding), and ``causal`` a bool. Expected: ``(B, T, d_v)`` and ``(B, T, T)``: at a real query t the
    weights softmax(q k^T / sqrt(d) + M) over the real keys s (with causal, s <= t only), exactly 0 on every
    other key and summing to 1, and output = weights @ v, as the course's ``scaled_dot_product_attention``
    gives; at a padded query, zeros (weights and output), never nan.
    """
    rng, failures = start_check(function, "padded_attention", seed, trials)
    edges = [lambda: _case(rng, [1], ["right"], True, d=1, d_v=1),
             lambda: _case(rng, [3, 1], ["right", "right"], True),
             lambda: _case(rng, [4, 2], ["right", "left"], True),
             lambda: _case(rng, [5, 3, 1], ["right", "right", "left"], False),
             lambda: _case(rng, [3, 4], ["right", "right"], True, width=5),
             lambda: _case(rng, [2, 6, 0], ["left", "right", "right"], True),
             lambda: _case(rng, [6, 3, 4, 1], ["left", "left", "right", "left"], bool(rng.random() < 0.5))]
    cases = [case() for case in trial_inputs(trials, edges, lambda: lambda: _draw(rng))]
    for q, k, v, real, causal in cases:
        where = _where(q, v, real, causal)
        result = call_answer(function, (q.copy(), k.copy(), v.copy(), real.copy()), {"causal": causal},
                             shapes=f"q {q.shape}, k {k.shape}, v {v.shape}, real {real.shape}")
        if not isinstance(result, tuple | list) or len(result) != 2:
            raise CheckFailed(sentence_at(text("check attention returns", got=describe(result)), where))
        batch, width, d_v = v.shape
        output = _as_array(result[0], "output", (batch, width, d_v), "(B, T, d_v)", where)
        weights = _as_array(result[1], "weights", (batch, width, width), "(B, T, T)", where)
        reference = _reference(q, k, v, real, causal)
        if not (_same(output, reference[0]) and _same(weights, reference[1])):
            failures.add(where, _findings(q, k, v, real, causal, output, weights, reference))
    failures.raise_if_any()
    say_right(text("check padded right", trials=trials, batch=span_of([len(c[0]) for c in cases]),
                   width=span_of([c[0].shape[1] for c in cases])))


def _as_array(value, name: str, shape: tuple[int, ...], symbols: str, where: str) -> np.ndarray:
    """``value`` as a float64 array of ``shape`` (nan allowed: the findings say where it is)."""
    try:
        per_batch = name == "weights" and np.ndim(value) == 2 and np.shape(value) == shape[1:]
    except (TypeError, ValueError):  # ragged: answer_array says what is wrong
        per_batch = False
    hint = text("check padded one matrix") if per_batch else ""
    return answer_array(value, name, shape, symbols, where, finite=False, hint=hint)


def _findings(q, k, v, real, causal, output, weights, reference) -> list[tuple[str, str]]:
    """The usual mistakes the answer matches: a combination of a structural mistake and a way of handling the
    padded queries, each named only where it shows (undoing it alone would change the answer)."""
    simulated = {}

    def answer(structure: str, handling: str) -> tuple[np.ndarray, np.ndarray]:
        if (structure, handling) not in simulated:
            simulated[structure, handling] = _simulate(q, k, v, real, causal, **_STRUCTURES[structure],
                                                       **_HANDLING[handling])
        return simulated[structure, handling]

    def matches(structure: str, handling: str) -> bool:
        out, w = answer(structure, handling)
        return _same(output, out) and _same(weights, w)

    nan_padded = not (np.isfinite(output[~real]).all() and np.isfinite(weights[~real]).all())
    nonzero_padded = bool((np.abs(np.nan_to_num(weights[~real])) > 1e-12).any()
                          or (np.abs(np.nan_to_num(output[~real])) > 1e-12).any())
    findings: list[tuple[str, str]] = []
    for structure, handling in product(_STRUCTURES, _HANDLING):
        if structure == "right" and handling.startswith("right") or not _applies(structure, causal):
            continue
        if not matches(structure, handling):
            continue
        shown = [structure if not matches("right", handling) else "right",
                 handling if not matches(structure, "right") else "right"]
        shown[1] = _shown_handling(shown[1], nan_padded, nonzero_padded)
        for key in _keys_of(*shown):
            if key not in {found for found, _ in findings}:
                findings.append((key, text(_MESSAGES[key])))
    return findings + _facts(real, causal, output, weights, reference)


def _facts(real, causal, output, weights, reference) -> list[tuple[str, str]]:
    """What is wrong, read off the answer itself, when no usual mistake matches it."""
    facts = []
    finite = np.isfinite(weights).all(axis=2) & np.isfinite(output).all(axis=2)  # (B, T)
    if not finite.all():
        b, t = (int(i) for i in np.argwhere(~finite)[0])
        if finite[real].all():
            facts.append(("fact:nan", text("check padded nan at a padded position", b=b, t=t)))
        else:
            b, t = (int(i) for i in np.argwhere(~finite & real)[0])
            hint = text("check padded diagonal missing") if causal else ""
            facts.append(("fact:nan", text("check padded nan at a real position", b=b, t=t, hint=hint)))
    allowed = real[:, None, :] & real[:, :, None]
    if causal:
        allowed &= np.tril(np.ones(real.shape[1:] * 2, dtype=bool))
    leaked = np.abs(np.nan_to_num(weights, nan=0.0)) > 1e-9
    rows = real[:, :, None] & leaked & ~allowed
    if rows.any():
        b, t, s = (int(i) for i in np.argwhere(rows)[0])
        what = text("check padded a padded key" if not real[b, s] else "check padded a later position")
        facts.append(("fact:forbidden", text("check padded forbidden", t=t, b=b, weight=weights[b, t, s], s=s,
                                             what=what)))
    padded = ~real & finite & ((np.abs(weights).sum(axis=2) > 1e-9) | (np.abs(output).sum(axis=2) > 1e-9))
    if padded.any():
        b, t = (int(i) for i in np.argwhere(padded)[0])
        facts.append(("fact:padded", text("check padded not zeros", t=t, b=b)))
    sums = np.nan_to_num(weights, nan=0.0).sum(axis=2)[real]
    if len(sums) and not np.allclose(sums, 1.0, atol=1e-6):
        facts.append(("fact:rows", text("check padded rows", sums=np.round(sums, 4).tolist()[:8])))
    if _same(weights, reference[1]):
        generic = text("check padded output differs")
    else:
        index = np.unravel_index(np.argmax(np.abs(np.nan_to_num(weights - reference[1], nan=np.inf))), weights.shape)
        generic = text("check padded weights differ", b=index[0], t=index[1], s=index[2], yours=weights[index],
                       reference=reference[1][index])
    return facts + [(GENERIC, generic)]
