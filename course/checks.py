"""Checks for the notebooks' assignments: each calls your function on fresh random inputs and
compares it with the course's own implementation.

One check per assignment, all called the same way::

    check_noise_distribution(noise_distribution)              # new random inputs every call
    check_noise_distribution(noise_distribution, seed=1)      # the same inputs every time

A check that passes prints one line starting with ``Right:``. One that fails raises
:class:`CheckFailed` with a sentence or two on what is wrong (a wrong sign, a missing term, the
paper's formula where word2vec.c's is asked for, ...) and the input size where it showed. A
``NotImplementedError`` from your function comes through unchanged: the assignment is not done yet.

Several sizes are tried, the smallest first (one noise word, two entries, a vocabulary of one
word), then random ones; ``trials`` sets how many inputs in all. When several inputs fail, the
message names the mistake they have in common.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import product

import numpy as np

from .probes import sense_probe
from .vocab import Vocabulary

__all__ = [
    "CheckFailed",
    "check_analogy_3cosadd",
    "check_discriminative_rates",
    "check_entity_f1",
    "check_entity_spans",
    "check_glove_loss",
    "check_glove_weighting",
    "check_huffman_code",
    "check_keep_probabilities",
    "check_negative_sampling_loss",
    "check_noise_distribution",
    "check_scalar_mix",
    "check_sense_knn_accuracy",
    "check_slanted_triangular",
]

RTOL = 1e-5  # relative tolerance of every comparison: room for float32 arithmetic, far below any mistake
ATOL = 1e-9
TORCH_ATOL = 1e-5  # float32 tensors of values of order 1
GOLDEN_SQUARED = (3 + 5**0.5) / 2  # f / t above which word2vec.c's keep probability drops below 1


class CheckFailed(AssertionError):
    """Your function gave a wrong answer; the message says what is wrong and where it showed."""


# ------------------------------------------------------------------------------------ machinery


GENERIC = "generic"  # the key of the finding that only says the answer differs, last in every list


@dataclass
class _Failures:
    """The trials that went wrong, each with its findings: ``(key, message)``, most specific first and the
    ``GENERIC`` one last."""

    trials: list[tuple[str, list[tuple[str, str]]]] = field(default_factory=list)

    def add(self, where: str, findings: list[tuple[str, str]]) -> None:
        self.trials.append((where, findings))

    def raise_if_any(self) -> None:
        """Raise, in this order of preference: a finding every failed trial shares; a fact (key ``fact:...``,
        e.g. "f(0) is not 0") from any of them; the first trial's ``generic`` finding (its last)."""
        if not self.trials:
            return
        shared = set.intersection(*({key for key, _ in findings} for _, findings in self.trials)) - {GENERIC}
        for wanted in (lambda key: key in shared, lambda key: key.startswith("fact:")):
            for where, findings in self.trials:
                for key, message in findings:
                    if wanted(key):
                        raise CheckFailed(_sentence(message, where))
        where, findings = self.trials[0]
        raise CheckFailed(_sentence(findings[-1][1], where))


def _sentence(message: str, where: str) -> str:
    return f"{message} (with {where})."


def _start(function, name: str, seed: int | None, trials: int) -> tuple[np.random.Generator, _Failures]:
    if not callable(function):
        raise TypeError(f"check_{name} takes your function itself, e.g. check_{name}({name}); "
                        f"got {type(function).__name__}")
    if not isinstance(trials, int) or trials < 1:
        raise ValueError(f"trials must be a whole number of at least 1, got {trials!r}")
    return np.random.default_rng(seed), _Failures()


def _sizes(trials: int, edges: Sequence, draw: Callable[[], object]) -> list:
    """The edge cases first, then ``draw()`` for the remaining trials."""
    return [edges[i] if i < len(edges) else draw() for i in range(trials)]


def _call(function, args: tuple, kwargs: dict | None = None, *, shapes: str):
    """``function(*args, **kwargs)``; any exception but NotImplementedError becomes CheckFailed."""
    try:
        return function(*args, **(kwargs or {}))
    except NotImplementedError:
        raise
    except Exception as exc:
        raise CheckFailed(f"Your function raised {type(exc).__name__}: {str(exc).rstrip('.')} "
                          f"on inputs of shape {shapes}.") from exc


def _describe(value) -> str:
    shape = getattr(value, "shape", None)
    if shape is not None:
        return f"{type(value).__module__.split('.')[0]}.{type(value).__name__} of shape {tuple(shape)}"
    if isinstance(value, tuple | list):
        return f"a {type(value).__name__} of {len(value)} items"
    return f"{type(value).__name__} {value!r}"[:80]


def _array(value, name: str, shape: tuple[int, ...], symbols: str, where: str) -> np.ndarray:
    """``value`` as a float64 array of ``shape``, or CheckFailed saying why not."""
    try:
        array = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError, RuntimeError) as exc:
        raise CheckFailed(_sentence(f"{name} should be an array of numbers, got {_describe(value)} ({exc})",
                                    where)) from None
    if array.shape != shape:
        wanted = f"{symbols} = {shape}" if symbols else f"{shape}"
        raise CheckFailed(_sentence(f"{name} should have shape {wanted}, got {array.shape}", where))
    if not np.all(np.isfinite(array)):
        raise CheckFailed(_sentence(f"{name} contains nan or inf", where))
    return array


def _number(value, name: str, where: str) -> float:
    """``value`` as one float, or CheckFailed saying why not."""
    try:
        array = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError, RuntimeError) as exc:
        raise CheckFailed(_sentence(f"{name} should be one number, got {_describe(value)} ({exc})", where)) from None
    if array.size != 1:
        raise CheckFailed(_sentence(f"{name} should be one number, got an array of shape {array.shape}", where))
    number = float(array.reshape(()))
    if not np.isfinite(number):
        raise CheckFailed(_sentence(f"{name} is {number}", where))
    return number


def _close(value, reference, atol: float = ATOL) -> bool:
    value, reference = np.asarray(value, dtype=np.float64), np.asarray(reference, dtype=np.float64)
    return value.shape == reference.shape and bool(np.allclose(value, reference, rtol=RTOL, atol=atol))


def _span(values) -> str:
    low, high = min(values), max(values)
    return f"{low}" if low == high else f"{low} to {high}"


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"


def _right(message: str) -> None:
    print(f"Right: {message}")


def _zipf_counts(rng: np.random.Generator, size: int) -> np.ndarray:
    """``(size,)`` int64 word counts, roughly Zipfian, in random order."""
    ranks = rng.permutation(size) + 1
    top = rng.uniform(1e3, 1e5)
    return np.maximum(1, np.round(top / ranks ** rng.uniform(0.7, 1.3))).astype(np.int64)


def _vocabulary(counts: np.ndarray) -> Vocabulary:
    return Vocabulary([f"w{i}" for i in range(len(counts))], counts, specials=())


def _worst(value: np.ndarray, reference: np.ndarray) -> str:
    """Where two arrays differ most, in words."""
    index = np.unravel_index(np.argmax(np.abs(value - reference)), reference.shape)
    at = index[0] if len(index) == 1 else tuple(int(i) for i in index)
    return f"the largest difference is {abs(value[index] - reference[index]):.3g} at index {at}"


# ------------------------------------------------------------------------ negative sampling loss


def _sigmoid(x):
    return 0.5 * (1 + np.tanh(0.5 * np.asarray(x)))


def _negative_sampling_reference(center, context, noise):
    """The closed form. center, context: ``(d,)``; noise: ``(k, d)``.
    Returns loss (float), grad_center ``(d,)``, grad_context ``(d,)``, grad_noise ``(k, d)``."""
    true_score, noise_scores = context @ center, noise @ center  # float, (k,)
    loss = np.logaddexp(0, -true_score) + np.logaddexp(0, noise_scores).sum()
    d_true, d_noise = _sigmoid(true_score) - 1, _sigmoid(noise_scores)  # d loss / d score
    return float(loss), d_true * context + d_noise @ noise, d_true * center, d_noise[:, None] * center


def check_negative_sampling_loss(function, *, seed: int | None = None, trials: int = 20) -> None:
    """Check ``function(center, context, noise) -> (loss, grad_center, grad_context, grad_noise)``.

    Inputs: ``center`` ``(d,)`` v_c, ``context`` ``(d,)`` u_o, ``noise`` ``(k, d)`` u_1..u_k.
    Expected: the float loss -log σ(u_o·v_c) - Σ_k log σ(-u_k·v_c) and its gradients with respect to
    center ``(d,)``, context ``(d,)`` and noise ``(k, d)``.
    """
    rng, failures = _start(function, "negative_sampling_loss", seed, trials)
    sizes = _sizes(trials, [(1, 1), (4, 1), (3, 2)], lambda: (int(rng.integers(2, 51)), int(rng.integers(1, 21))))
    for d, k in sizes:
        scale = rng.uniform(0.6, 1.3) / d**0.25  # scores u·v of order 1: σ neither 0 nor 1
        center, context, noise = rng.normal(0, scale, d), rng.normal(0, scale, d), rng.normal(0, scale, (k, d))
        where = f"d={d}, k={k}"
        result = _call(function, (center.copy(), context.copy(), noise.copy()),
                       shapes=f"center {(d,)}, context {(d,)}, noise {(k, d)}")
        if not isinstance(result, tuple | list) or len(result) != 4:
            raise CheckFailed(_sentence("Your function should return a tuple (loss, grad_center, grad_context, "
                                        f"grad_noise) of 4 items, got {_describe(result)}", where))
        loss = _number(result[0], "The loss", where)
        grads = (_array(result[1], "grad_center", (d,), "(d,)", where),
                 _array(result[2], "grad_context", (d,), "(d,)", where),
                 _array(result[3], "grad_noise", (k, d), "(k, d)", where))
        findings = _negative_sampling_findings(center, context, noise, loss, grads)
        if findings:
            failures.add(where, findings)
    failures.raise_if_any()
    _right(f"the loss and its three gradients match on {trials} random inputs "
           f"(d from {_span([d for d, _ in sizes])}, k from {_span([k for _, k in sizes])}).")


def _negative_sampling_findings(center, context, noise, loss, grads) -> list[tuple[str, str]]:
    ref_loss, *ref_grads = _negative_sampling_reference(center, context, noise)
    if not _close(loss, ref_loss):
        return _negative_sampling_loss_findings(center, context, noise, loss, ref_loss)
    names, symbols = ("center", "context", "noise"), ("v_c", "u_o", "u_1..u_k")
    findings = []
    if all(_close(g, -r) for g, r in zip(grads, ref_grads, strict=True)):
        findings.append(("sign:all", "All three gradients have the wrong sign: they point uphill, the direction of "
                                     "gradient ascent; return d loss / d v_c, d loss / d u_o and d loss / d u_k "
                                     "(the update subtracts them)"))
    if _close(grads[0], ref_grads[1]) and _close(grads[1], ref_grads[0]) and not _close(grads[0], ref_grads[0]):
        findings.append(("swap", "grad_center and grad_context are swapped: grad_center is d loss / d v_c, "
                                 "the derivative with respect to the centre word's input vector"))
    true_score, noise_scores = context @ center, noise @ center
    for name, symbol, grad, ref in zip(names, symbols, grads, ref_grads, strict=True):
        if _close(grad, ref):
            continue
        if _close(grad, -ref):
            findings.append((f"sign:{name}", f"grad_{name} has the wrong sign: it is -d loss / d {symbol}, the "
                                             "direction of gradient ascent; return the gradient itself"))
        if name == "center" and _close(grad, (_sigmoid(true_score) - 1) * context):
            findings.append(("center:noise", "grad_center is missing the noise words' part: every noise term "
                                             "-log σ(-u_k·v_c) depends on v_c too"))
        if name == "center" and _close(grad, _sigmoid(noise_scores) @ noise):
            findings.append(("center:true", "grad_center is missing the true context word's part, from "
                                            "-log σ(u_o·v_c)"))
        if name == "context" and _close(grad, _sigmoid(true_score) * center):
            findings.append(("context:sigma", "grad_context is off by v_c: the derivative of -log σ(x) is "
                                              "σ(x) - 1, not σ(x)"))
        if name == "noise" and _close(grad, (_sigmoid(noise_scores) - 1)[:, None] * center):
            findings.append(("noise:sigma", "grad_noise treats the noise words like the true word: the "
                                            "derivative of -log σ(-x) with respect to x is σ(x), not σ(x) - 1"))
        findings.append((f"grad:{name}", f"grad_{name} does not match the gradient of the loss with respect to "
                                         f"{symbol}: {_worst(grad, ref)}; compare it with finite differences"))
    return findings


def _negative_sampling_loss_findings(center, context, noise, loss, ref_loss) -> list[tuple[str, str]]:
    true_term = np.logaddexp(0, -(context @ center))  # -log σ(u_o·v_c)
    noise_terms = np.logaddexp(0, noise @ center)  # (k,) -log σ(-u_k·v_c)
    flipped = np.logaddexp(0, -(noise @ center))  # (k,) -log σ(u_k·v_c)
    got = f"got {loss:.6g}, expected {ref_loss:.6g}"
    candidates = [
        ("sign", -ref_loss, f"The loss has the wrong sign: -log σ(u_o·v_c) - Σ_k log σ(-u_k·v_c) is a positive "
                            f"number to minimise ({got})"),
        ("noise term", true_term, f"The loss is missing the noise term -Σ_k log σ(-u_k·v_c) ({got})"),
        ("noise sign", true_term + flipped.sum(), "The noise term has the wrong sign inside σ: each noise word "
                                                  f"adds -log σ(-u_k·v_c), not -log σ(u_k·v_c) ({got})"),
        ("true term", noise_terms.sum(), f"The loss is missing the true context word's term -log σ(u_o·v_c) ({got})"),
        ("noise mean", true_term + noise_terms.mean(), f"The loss averages the k noise terms; it sums them ({got})"),
    ]
    findings = [(key, message) for key, value, message in candidates if _close(loss, value)]
    return findings + [(GENERIC, f"The loss is wrong: {got}; it is -log σ(u_o·v_c) - Σ_k log σ(-u_k·v_c)")]


# --------------------------------------------------------------------------- noise distribution


def check_noise_distribution(function, *, seed: int | None = None, trials: int = 20) -> None:
    """Check ``function(counts) -> probabilities``.

    Inputs: ``counts`` ``(V,)`` int64 word counts (all at least 1). Expected: ``(V,)`` probabilities
    proportional to count^(3/4), summing to 1 (:meth:`course.vocab.Vocabulary.noise_distribution`).
    """
    rng, failures = _start(function, "noise_distribution", seed, trials)
    sizes = _sizes(trials, [1, 2, 3], lambda: int(rng.integers(4, 301)))
    for size in sizes:
        counts = _zipf_counts(rng, size)
        where = f"V={_count(size, 'word')}"
        result = _call(function, (counts.copy(),), shapes=f"counts {counts.shape}")
        probabilities = _array(result, "The result", (size,), "(V,)", where)
        reference = _vocabulary(counts).noise_distribution()
        if not _close(probabilities, reference):
            failures.add(where, _noise_findings(counts, probabilities, reference))
    failures.raise_if_any()
    _right(f"the noise distribution matches count^(3/4) / Σ count^(3/4) on {trials} random inputs "
           f"(V from {_span(sizes)} words).")


def _fitted_power(counts: np.ndarray, shares: np.ndarray) -> float | None:
    """The p with shares = counts^p / Σ counts^p, if there is one (needs two different counts)."""
    if np.any(shares <= 0) or np.ptp(counts) == 0:
        return None
    power = float(np.polyfit(np.log(counts), np.log(shares), 1)[0])
    powered = counts.astype(np.float64) ** power
    return power if np.allclose(shares, powered / powered.sum(), rtol=1e-4, atol=0) else None


def _noise_findings(counts, probabilities, reference) -> list[tuple[str, str]]:
    total = probabilities.sum()
    generic = (GENERIC, "The probabilities differ from count^(3/4) / Σ count^(3/4): "
                        f"{_worst(probabilities, reference)}")
    if np.any(probabilities < 0) or total <= 0:
        return [("fact:negative", "Some probabilities are negative"), generic]
    shares = probabilities / total
    unnormalised = f"they sum to {total:.6g}, not 1: divide by their sum" if abs(total - 1) > 1e-6 else None
    power = 0.75 if _close(shares, reference) else _fitted_power(counts, shares)
    if power is None:
        return [generic]
    if abs(power - 1) < 1e-3:
        wrong_power = ("3/4", "The 3/4 power is missing: this is the plain unigram distribution count / total; "
                              "word2vec draws noise words with probability proportional to count^(3/4)")
    elif abs(power) < 1e-3:
        wrong_power = ("uniform", "Every word gets the same probability; word2vec's noise distribution is "
                                  "proportional to count^(3/4)")
    elif abs(power - 0.75) > 1e-3:
        wrong_power = ("power", f"The counts are raised to the power {power:.4g} instead of 3/4")
    else:
        return [("normalise", f"The probabilities are not normalised: {unnormalised}"), generic]
    if unnormalised:
        return [(f"{wrong_power[0]}+normalise", f"{wrong_power[1]}; and {unnormalised}"), generic]
    return [wrong_power, generic]


# --------------------------------------------------------------------------- keep probabilities


def check_keep_probabilities(function, *, seed: int | None = None, trials: int = 20) -> None:
    """Check ``function(counts, sample) -> keep``.

    Inputs: ``counts`` ``(V,)`` int64 word counts (all at least 1), ``sample`` the threshold t (below 1).
    Expected: ``(V,)`` keep = min(1, (sqrt(f/t) + 1) t/f) with f = count / total, word2vec.c's formula
    (:meth:`course.vocab.Vocabulary.keep_probabilities`).
    """
    rng, failures = _start(function, "keep_probabilities", seed, trials)
    sizes = _sizes(trials, [1, 2, 3], lambda: int(rng.integers(4, 301)))
    for size in sizes:
        counts = _zipf_counts(rng, size)
        frequencies = counts / counts.sum()
        low, high = frequencies.min() / GOLDEN_SQUARED, frequencies.max() / GOLDEN_SQUARED
        if high / low < 1.5:  # one word, or all as frequent: some trials capped, some not
            low, high = low / 10, high * 2
        sample = float(np.exp(rng.uniform(np.log(low), np.log(high))))
        where = f"V={_count(size, 'word')}, sample={sample:.3g}"
        result = _call(function, (counts.copy(), sample), shapes=f"counts {counts.shape}, sample a float")
        keep = _array(result, "The result", (size,), "(V,)", where)
        reference = _vocabulary(counts).keep_probabilities(sample)
        if not _close(keep, reference):
            failures.add(where, _keep_findings(counts, sample, keep, reference))
    failures.raise_if_any()
    _right(f"the keep probabilities match word2vec.c's min(1, (sqrt(f/t) + 1)·t/f) on {trials} random inputs "
           f"(V from {_span(sizes)} words).")


def _keep_findings(counts, sample, keep, reference) -> list[tuple[str, str]]:
    word2vec = "min(1, (sqrt(f/t) + 1)·t/f)"

    def formula(f, t):
        return (np.sqrt(f / t) + 1) * t / f

    formulas = [  # (key, keep as a function of f and t, what is wrong, as a predicate)
        ("right", lambda f, t: np.minimum(1, formula(f, t)), None),
        ("cap", formula, "are not capped at 1: for rare words (sqrt(f/t) + 1)·t/f is above 1, so take "
                         f"{word2vec}"),
        ("discard", lambda f, t: 1 - np.minimum(1, formula(f, t)),
         "are the probabilities of discarding an occurrence, 1 - keep; return the probability of keeping it"),
        ("discard", lambda f, t: 1 - formula(f, t),
         "are the probabilities of discarding an occurrence, 1 - keep; return the probability of keeping it, "
         f"{word2vec}"),
        ("paper", lambda f, t: np.sqrt(t / f), "use the paper's formula sqrt(t/f) (Mikolov et al., 2013); "
                                               f"word2vec.c and gensim keep an occurrence with probability {word2vec}"),
        ("paper", lambda f, t: np.minimum(1, np.sqrt(t / f)),
         f"use the paper's formula sqrt(t/f) (Mikolov et al., 2013); word2vec.c and gensim use {word2vec}"),
        ("paper discard", lambda f, t: 1 - np.sqrt(t / f),
         f"are the paper's discard probability 1 - sqrt(t/f); return word2vec.c's keep probability {word2vec}"),
        ("paper discard", lambda f, t: np.maximum(0, 1 - np.sqrt(t / f)),
         f"are the paper's discard probability 1 - sqrt(t/f); return word2vec.c's keep probability {word2vec}"),
    ]
    inputs = [("", counts / counts.sum(), sample),
              ("counts", counts.astype(np.float64), sample)]
    if sample != 1e-3:
        inputs.append(("sample", counts / counts.sum(), 1e-3))
    notes = {"counts": "use the raw counts as f; f is the frequency count / total",
             "sample": "ignore the sample argument (they use t = 1e-3)"}
    findings = []
    for (input_key, f, t), (key, keep_of, wrong) in product(inputs, formulas):
        parts = [part for part in (notes.get(input_key), wrong) if part]
        if parts and _close(keep, keep_of(f, t)):
            keys = "+".join(part for part in (input_key, key if wrong else "") if part)
            findings.append((keys, "Your keep probabilities " + "; and they ".join(parts)))
    if keep.max() > 1 + 1e-9:
        findings.append(("fact:cap", f"Some keep probabilities are above 1 (up to {keep.max():.4g}): cap them at 1, "
                                f"{word2vec}"))
    if keep.min() < 0:
        findings.append(("fact:negative", f"Some keep probabilities are negative (down to {keep.min():.4g})"))
    return findings + [(GENERIC, f"The keep probabilities differ from word2vec.c's {word2vec} with "
                                f"f = count / total: {_worst(keep, reference)}")]


# -------------------------------------------------------------------------------- Huffman code


def check_huffman_code(function, *, seed: int | None = None, trials: int = 20) -> None:
    """Check ``function(counts) -> codes``.

    Inputs: ``counts`` a dict {word: count} of W >= 2 words. Expected: a dict {word: code}, every code
    a non-empty string of '0' and '1', the codes prefix-free and of the least expected length
    Σ count·len(code) / Σ count (any Huffman code; ties may be broken either way).
    """
    rng, failures = _start(function, "huffman_code", seed, trials)
    sizes = _sizes(trials, [2, 3, 4], lambda: int(rng.integers(5, 65)))
    for size in sizes:
        values = rng.integers(1, 30, size) if rng.random() < 0.5 else _zipf_counts(rng, size)  # ties, or Zipf
        counts = {f"w{i}": int(value) for i, value in zip(rng.permutation(size), values, strict=True)}
        where = f"W={_count(size, 'word')}"
        codes = _call(function, (dict(counts),), shapes=f"a dict of {size} words")
        findings = _huffman_findings(counts, codes, where)
        if findings:
            failures.add(where, findings)
    failures.raise_if_any()
    _right(f"the codes are prefix-free and as short as a Huffman code on {trials} random inputs "
           f"(W from {_span(sizes)} words).")


def _huffman_cost(counts: Mapping[str, int]) -> int:
    """Σ count·len(code) of a Huffman code, from :meth:`course.vocab.Vocabulary.huffman`."""
    words = sorted(counts, key=lambda word: -counts[word])
    values = np.asarray([counts[word] for word in words], dtype=np.int64)
    tree = Vocabulary(words, values, specials=()).huffman()
    return int(values @ tree.lengths)


def _huffman_findings(counts: dict[str, int], codes, where: str) -> list[tuple[str, str]]:
    """Structural mistakes raise CheckFailed; a code that is only longer than need be is a finding."""
    if not isinstance(codes, Mapping):
        raise CheckFailed(_sentence(f"Your function should return a dict {{word: code}}, got {_describe(codes)}",
                                    where))
    missing, extra = [w for w in counts if w not in codes], [w for w in codes if w not in counts]
    if missing:
        raise CheckFailed(_sentence(f"{_count(len(missing), 'word')} without a code, e.g. {missing[0]!r}", where))
    if extra:
        raise CheckFailed(_sentence(f"There are codes for words not in the counts, e.g. {extra[0]!r}", where))
    for word, code in codes.items():
        if not isinstance(code, str):
            raise CheckFailed(_sentence(f"The code of {word!r} is {_describe(code)}; codes should be strings of "
                                        "'0' and '1' such as '0110'", where))
        if not code or set(code) - {"0", "1"}:
            raise CheckFailed(_sentence(f"The code of {word!r} is {code!r}; codes should be non-empty strings of "
                                        "'0' and '1'", where))
    ordered = sorted(codes.items(), key=lambda item: item[1])  # a prefix sorts right before the codes it starts
    for (first, short), (second, long) in zip(ordered, ordered[1:], strict=False):
        if long.startswith(short):
            what = "the same code" if long == short else "codes where one is a prefix of the other"
            raise CheckFailed(_sentence(f"The codes are not prefix-free: {first!r} and {second!r} have {what} "
                                        f"({short!r} and {long!r}), so a bit string cannot be decoded", where))
    total = sum(counts.values())
    cost, optimal = sum(counts[w] * len(codes[w]) for w in counts), _huffman_cost(counts)
    if cost > optimal:
        return [("optimal", f"The codes are prefix-free but not optimal: the expected code length is "
                            f"{cost / total:.4f} bits per word, a Huffman code reaches {optimal / total:.4f}; "
                            "merge the two lightest nodes at every step")]
    return []


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
    return f"{size}, the default x_max and alpha" if defaults else f"{size}, x_max={x_max:g}, alpha={alpha:g}"


def _weighting(x: np.ndarray, x_max: float, alpha: float) -> np.ndarray:
    from .glove import weighting

    return weighting(x, x_max, alpha)


def check_glove_weighting(function, *, seed: int | None = None, trials: int = 20) -> None:
    """Check ``function(x, x_max=100.0, alpha=0.75) -> weights``.

    Inputs: ``x`` ``(n,)`` float64 co-occurrence values >= 0 (zeros, values at and above x_max included).
    Expected: ``(n,)`` f(x) = (x/x_max)^alpha below x_max, 1 from x_max on, f(0) = 0
    (:func:`course.glove.weighting`). Some trials pass x_max and alpha, others use the defaults.
    """
    rng, failures = _start(function, "glove_weighting", seed, trials)
    sizes = _sizes(trials, [2, 3], lambda: int(rng.integers(5, 201)))
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
        result = _call(function, (x.copy(),), _glove_kwargs(x_max, alpha, defaults), shapes=f"x {x.shape}")
        weights = _array(result, "The result", (n,), "(n,)", where)
        reference = _weighting(x, x_max, alpha)
        if not _close(weights, reference):
            failures.add(where, _weighting_findings(x, x_max, alpha, defaults, weights, reference))
    failures.raise_if_any()
    _right(f"f(x) matches GloVe's weighting on {trials} random inputs (n from {_span(sizes)}, "
           "with and without x_max and alpha).")


def _weighting_variants(x_max: float, alpha: float, defaults: bool):
    """``(keys, x_max used, alpha used, what is wrong)`` for the weightings a mistake gives (the right one first)."""
    scales = [("", x_max, None)]
    if defaults:
        scales.append(("default x_max", 10.0, "uses x_max = 10 by default; the default is 100"))
    elif x_max != 100:
        scales.append(("x_max", 100.0, "ignores the x_max argument (uses 100)"))
    powers = [("", alpha, None)]
    if alpha != 1:
        powers.append(("alpha", 1.0, f"has no power alpha: below x_max, f(x) = (x/x_max)^alpha, "
                                     f"not x/x_max (alpha={alpha:g})"))
    if alpha != 0.75 and not defaults:
        powers.append(("alpha argument", 0.75, "ignores the alpha argument (uses 0.75)"))
    return [("+".join(k for k in (s_key, p_key) if k), scale, power, [w for w in (s_wrong, p_wrong) if w])
            for (s_key, scale, s_wrong), (p_key, power, p_wrong) in product(scales, powers)]


def _weighting_findings(x, x_max, alpha, defaults, weights, reference) -> list[tuple[str, str]]:
    findings = []
    zeros = x == 0
    if np.any(zeros) and np.any(weights[zeros] != 0):
        findings.append(("fact:f(0)", f"f(0) should be 0 (a pair never seen together carries no weight), "
                                 f"got f(0) = {weights[zeros][weights[zeros] != 0][0]:.4g}"))
    for keys, scale, power, wrong in _weighting_variants(x_max, alpha, defaults):
        uncapped = np.where(x > 0, (x / scale) ** power, 0.0)
        for capped in (True, False):
            if (capped and not wrong) or not _close(weights, np.minimum(uncapped, 1) if capped else uncapped):
                continue
            parts = wrong + ([] if capped else ["is not capped at 1: f(x) = 1 for x >= x_max"])
            findings.append(("+".join(k for k in (keys, "" if capped else "cap") if k),
                             "Your f(x) " + "; and it ".join(parts)))
    if weights.max() > 1 + 1e-9:
        above = int(np.argmax(weights))
        findings.append(("fact:cap", f"Your f(x) goes above 1 (f({x[above]:.4g}) = {weights[above]:.4g}): cap it at 1, "
                                "f(x) = 1 for x >= x_max"))
    i = int(np.argmax(np.abs(weights - reference)))
    return findings + [(GENERIC, f"f(x) differs from (x/x_max)^alpha capped at 1: at x = {x[i]:.4g} you return "
                                     f"{weights[i]:.6g}, expected {reference[i]:.6g}")]


# ----------------------------------------------------------------------------------- GloVe loss


def check_glove_loss(function, *, seed: int | None = None, trials: int = 20) -> None:
    """Check ``function(w, w_context, b, b_context, x, x_max=100.0, alpha=0.75) -> loss``.

    Inputs: ``w``, ``w_context`` ``(n, d)`` the word and context vectors of n non-zero entries,
    ``b``, ``b_context`` ``(n,)`` their biases, ``x`` ``(n,)`` the co-occurrence values (> 0).
    Expected: the float J = Σ_n f(x_n) (w_n·w̃_n + b_n + b̃_n - log x_n)^2, the paper's loss without
    glove.c's 1/2, with f :func:`course.glove.weighting`.
    """
    rng, failures = _start(function, "glove_loss", seed, trials)
    sizes = _sizes(trials, [(1, 1), (2, 3)], lambda: (int(rng.integers(3, 101)), int(rng.integers(2, 31))))
    for trial, (n, d) in enumerate(sizes):
        x_max, alpha, defaults = _glove_settings(rng, trial)
        w, w_context = rng.normal(0, 0.4, (n, d)), rng.normal(0, 0.4, (n, d))
        b, b_context = rng.normal(0, 0.5, n), rng.normal(0, 0.5, n)
        x = np.exp(rng.uniform(np.log(0.2), np.log(5 * x_max), n))
        where = _glove_where(n, x_max, alpha, defaults, d)
        args = (w.copy(), w_context.copy(), b.copy(), b_context.copy(), x.copy())
        result = _call(function, args, _glove_kwargs(x_max, alpha, defaults),
                       shapes=f"w {(n, d)}, w_context {(n, d)}, b {(n,)}, b_context {(n,)}, x {(n,)}")
        loss = _number(result, "The loss", where)
        reference = _glove_loss_variant(w, w_context, b, b_context, x, _weighting(x, x_max, alpha))
        if not _close(loss, reference):
            failures.add(where, _glove_loss_findings(w, w_context, b, b_context, x, x_max, alpha, defaults, loss,
                                                     reference))
    failures.raise_if_any()
    _right(f"J matches Σ f(x)(w·w̃ + b + b̃ - log x)² on {trials} random inputs "
           f"(n from {_span([n for n, _ in sizes])}, d from {_span([d for _, d in sizes])}).")


def _glove_loss_variant(w, w_context, b, b_context, x, weights, target=None, scale=1.0) -> float:
    """scale · Σ weights (w·w̃ + b + b̃ - target)^2 with target log x unless given; w ``(n, d)``, the rest ``(n,)``."""
    target = np.log(x) if target is None else target
    return float(scale * (weights * (np.einsum("nd,nd->n", w, w_context) + b + b_context - target) ** 2).sum())


def _glove_loss_findings(w, w_context, b, b_context, x, x_max, alpha, defaults, loss, reference):
    n = len(x)
    weightings = [("", _weighting(x, x_max, alpha), None),
                  ("weighting", np.ones(n), "the weighting f(x_n) is missing")]
    if defaults:
        weightings.append(("x_max", _weighting(x, 10.0, 0.75), "the weighting uses x_max = 10 by default; the "
                                                               "default is 100"))
    elif (x_max, alpha) != (100.0, 0.75):
        weightings.append(("x_max", _weighting(x, 100.0, 0.75), "the weighting ignores the x_max and alpha arguments"))
    zeros = np.zeros(n)
    biases = [("", b, b_context, None), ("bias", zeros, zeros, "the biases b_n + b̃_n are missing"),
              ("bias", b, zeros, "the context bias b̃_n is missing"), ("bias", zeros, b_context,
                                                                        "the word bias b_n is missing")]
    targets = [("", np.log(x), None), ("log", x, "it fits x_n where the paper fits log x_n")]
    half = ("it is exactly half of J: that is glove.c's convention, with 1/2 in front; this assignment asks for "
            "the paper's J = Σ f(x_n)(...)², without the 1/2")
    mean = "it takes the mean over the n entries where J is a sum"
    scales = [("", 1.0, []), ("half", 0.5, [half]), ("mean", 1 / n, [mean]), ("half+mean", 0.5 / n, [mean, half])]
    findings = []
    for (w_key, weights, w_wrong), (b_key, word_bias, context_bias, b_wrong), (t_key, target, t_wrong), \
            (s_key, scale, s_wrong) in product(weightings, biases, targets, scales):
        parts = [part for part in (w_wrong, b_wrong, t_wrong) if part] + s_wrong
        if parts and _close(loss, _glove_loss_variant(w, w_context, word_bias, context_bias, x, weights, target,
                                                      scale)):
            keys = "+".join(key for key in (w_key, b_key, t_key, s_key) if key)
            findings.append((keys, "Your loss: " + "; ".join(parts) + f" (got {loss:.6g}, expected {reference:.6g})"))
    return findings + [(GENERIC, f"The loss differs from Σ_n f(x_n)(w_n·w̃_n + b_n + b̃_n - log x_n)²: got {loss:.6g}, "
                                f"expected {reference:.6g}; w_n·w̃_n is the dot product of row n of w and row n "
                                "of w_context")]


# ------------------------------------------------------------------------------- 3CosAdd analogy


def _analogy_scores(vectors: np.ndarray, abc: Sequence[int], coefficients=(-1, 1, 1), unit_offset: bool = True,
                    cosine: bool = True, exclude: bool = True) -> np.ndarray:
    """``(V,)`` the score of every word as the answer to a : b :: c : ? (3CosAdd, as
    :func:`course.evaluate.evaluate_analogies` computes it, unless told otherwise).

    vectors: ``(V, d)``; abc: the indices of a, b, c; coefficients: of a, b and c in the offset;
    unit_offset: build the offset from unit vectors; cosine: score by cosine (else dot product);
    exclude: a, b and c score -inf.
    """
    unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    target = np.asarray(coefficients, dtype=np.float64) @ (unit if unit_offset else vectors)[list(abc)]
    target = target / max(float(np.linalg.norm(target)), 1e-300)
    scores = (unit if cosine else vectors) @ target
    if exclude:
        scores[list(abc)] = -np.inf
    return scores


_ANALOGY_MISTAKES = [  # (key, what is wrong, arguments of _analogy_scores)
    ("unit", "builds the offset from vectors that are not unit length: normalise a, b and c first, b̂ - â + ĉ",
     {"unit_offset": False}),
    ("unit", "scores the candidates by dot product with vectors that are not unit length; 3CosAdd takes the "
             "cosine (normalise the candidates to unit vectors)", {"cosine": False}),
    ("unit", "uses vectors that are not unit length, both in the offset and for the candidates; 3CosAdd takes the "
             "cosine with b̂ - â + ĉ (all unit vectors)", {"unit_offset": False, "cosine": False}),
    ("offset", "uses the offset a - b + c; for 'a is to b as c is to d', d ≈ b - a + c", {"coefficients": (1, -1, 1)}),
    ("offset", "uses the offset a + b - c; for 'a is to b as c is to d', d ≈ b - a + c", {"coefficients": (1, 1, -1)}),
    ("offset", "uses b + c without subtracting a; d ≈ b - a + c", {"coefficients": (0, 1, 1)}),
    ("offset", "uses b - a without adding c; d ≈ b - a + c", {"coefficients": (-1, 1, 0)}),
]


def _best_gap(scores: np.ndarray) -> float:
    finite = np.sort(scores[np.isfinite(scores)])
    return float(finite[-1] - finite[-2]) if len(finite) > 1 else np.inf


def _analogy_case(rng: np.random.Generator, size: int, dim: int, kind: str) -> tuple[np.ndarray, tuple[int, int, int]]:
    """``(size, dim)`` vectors (float32 values) and a question (a, b, c) on which the ``kind`` of mistake shows:
    "exclude" (a word of the question scores best), "unit" (vector lengths change the answer),
    "offset" (a planted answer near b̂ - â + ĉ), or "plain"."""
    for _ in range(100):
        spread = 1.0 if kind == "unit" else 0.3
        vectors = rng.normal(size=(size, dim)) * np.exp(rng.normal(0, spread, (size, 1)))
        a, b, c = (int(i) for i in rng.choice(size, 3, replace=False))
        if kind == "exclude":  # b close to a: the offset b̂ - â + ĉ is close to ĉ
            vectors[b] = vectors[a] * rng.uniform(0.7, 1.4) + rng.normal(0, 0.05, dim) * np.linalg.norm(vectors[a])
        if kind == "offset":
            unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
            answer = int(rng.choice([i for i in range(size) if i not in (a, b, c)]))
            planted = unit[b] - unit[a] + unit[c] + rng.normal(0, 0.15 / dim**0.5, dim)
            vectors[answer] = planted / np.linalg.norm(planted) * np.exp(rng.normal(0, spread))
        vectors = vectors.astype(np.float32).astype(np.float64)
        scores = _analogy_scores(vectors, (a, b, c))
        if _best_gap(scores) < 1e-4:
            continue
        right = int(np.argmax(scores))
        if kind == "exclude" and int(np.argmax(_analogy_scores(vectors, (a, b, c), exclude=False))) not in (a, b, c):
            continue
        if kind in ("unit", "offset"):
            shown = [np.argmax(_analogy_scores(vectors, (a, b, c), **kwargs)) != right
                     for key, _, kwargs in _ANALOGY_MISTAKES if key == kind]
            if not any(shown):
                continue
        break
    return vectors, (a, b, c)


def check_analogy_3cosadd(function, *, seed: int | None = None, trials: int = 20) -> None:
    """Check ``function(kv, a, b, c) -> word``.

    Inputs: ``kv`` a gensim ``KeyedVectors`` of V random vectors ``(V, d)`` of uneven length, and three
    of its words a, b, c. Expected: the word d (a str) of "a is to b as c is to d": the word other than
    a, b and c whose unit vector has the largest cosine with b̂ - â + ĉ (the 3CosAdd of
    :func:`course.evaluate.evaluate_analogies`).
    """
    from gensim.models import KeyedVectors

    rng, failures = _start(function, "analogy_3cosadd", seed, trials)
    kinds = ("exclude", "unit", "offset", "plain")
    sizes = _sizes(trials, [(4, 2, "exclude"), (5, 3, "plain")],
                   lambda: (int(rng.integers(8, 61)), int(rng.integers(3, 26)), None))
    for trial, (size, dim, kind) in enumerate(sizes):
        vectors, abc = _analogy_case(rng, size, dim, kind or kinds[trial % len(kinds)])
        words = [f"w{i:02d}" for i in range(size)]
        kv = KeyedVectors(dim)
        kv.add_vectors(words, vectors.astype(np.float32))
        a, b, c = (words[i] for i in abc)
        where = f"V={size} words, d={dim}, the question {a} : {b} :: {c} : ?"
        answer = _call(function, (kv, a, b, c), shapes=f"a KeyedVectors of {size} words × {dim} dimensions")
        _check_word(answer, kv, where)
        scores = _analogy_scores(vectors, abc)
        right = words[int(np.argmax(scores))]
        if answer != right:
            failures.add(where, _analogy_findings(vectors, abc, words, answer, right, scores))
    failures.raise_if_any()
    _right(f"the answers match 3CosAdd on {trials} random sets of vectors "
           f"(V from {_span([s for s, _, _ in sizes])} words, d from {_span([d for _, d, _ in sizes])}).")


def _check_word(answer, kv, where: str) -> None:
    if isinstance(answer, str):
        if answer not in kv.key_to_index:
            raise CheckFailed(_sentence(f"Your answer {answer!r} is not a word of kv", where))
        return
    if isinstance(answer, tuple | list) and answer and isinstance(answer[0], str):
        hint = f"{_describe(answer)} starting with {answer[0]!r}; return only the word (a str)"
    elif isinstance(answer, int | np.integer):
        hint = f"the index {int(answer)}; return the word itself, kv.index_to_key[{int(answer)}]"
    else:
        hint = f"{_describe(answer)}; return the word (a str)"
    raise CheckFailed(_sentence(f"Your function should return a word, got {hint}", where))


def _analogy_findings(vectors, abc, words, answer, right, scores) -> list[tuple[str, str]]:
    index = words.index(answer)
    findings = []
    if index in abc:
        findings.append(("fact:exclude", f"Your answer {answer!r} is one of the question words a, b, c; exclude a, b "
                                    "and c from the candidates (they are usually the closest to b̂ - â + ĉ)"))
    for key, wrong, kwargs in _ANALOGY_MISTAKES:
        if int(np.argmax(_analogy_scores(vectors, abc, **kwargs))) == index:
            findings.append((key, f"Your answer {answer!r} is what 3CosAdd gives when it {wrong}; the answer is "
                                  f"{right!r}"))
    cosines = _analogy_scores(vectors, abc, exclude=False)
    return findings + [(GENERIC, f"Your answer {answer!r} is not the word whose unit vector has the largest cosine "
                                  f"with b̂ - â + ĉ: that is {right!r} (cosine {scores.max():.4f}; "
                                  f"yours {cosines[index]:.4f})")]


# ---------------------------------------------------------------------------- sense 1-NN probe


def _knn_accuracy(similarity: np.ndarray, labels: np.ndarray, leave_out: bool = True,
                  largest: bool = True) -> float:
    """Share of rows whose most similar (``largest``) column has the row's label; ``(n, n)``, ``(n,)``."""
    similarity = similarity.copy() if largest else -similarity
    if leave_out:
        np.fill_diagonal(similarity, -np.inf)
    return float((labels[similarity.argmax(1)] == labels).mean())


def _sense_case(rng: np.random.Generator, n: int) -> tuple[np.ndarray, list[str]]:
    """``(n, d)`` vectors and n sense labels: directions by sense, lengths spread over 2.5 orders of magnitude,
    so cosine and Euclidean distance disagree; every occurrence's nearest neighbour stands clear."""
    names = ("river", "money", "rely")
    if n <= 3:
        labels = np.asarray(list(names[:2]) + list(names[: n - 2]))
        return rng.normal(size=(n, 4)) * np.exp(rng.normal(0, 1.5, (n, 1))), list(labels)
    for _ in range(100):
        d, senses = int(rng.integers(2, 17)), int(rng.integers(2, 4))
        labels = np.asarray(names)[rng.integers(0, senses, n)]
        if len(set(labels)) < 2:
            continue
        directions = dict(zip(names, rng.normal(size=(3, d)), strict=True))
        noisy = np.stack([directions[label] for label in labels]) + rng.normal(0, rng.uniform(0.5, 1.5), (n, d))
        vectors = noisy / np.linalg.norm(noisy, axis=1, keepdims=True) * np.exp(rng.uniform(-3, 3, (n, 1)))
        cosines = _cosines(vectors)
        np.fill_diagonal(cosines, -np.inf)
        top_two = np.sort(cosines, axis=1)[:, -2:]
        reference = _knn_accuracy(_cosines(vectors), labels)
        if (np.all(top_two[:, 1] - top_two[:, 0] > 1e-4) and 0 < reference < 1
                and _knn_accuracy(-_squared_distances(vectors), labels) != reference):
            break
    return vectors, list(labels)


def _cosines(vectors: np.ndarray) -> np.ndarray:
    unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    return unit @ unit.T


def _squared_distances(vectors: np.ndarray) -> np.ndarray:
    return ((vectors[:, None, :] - vectors[None, :, :]) ** 2).sum(-1)


def check_sense_knn_accuracy(function, *, seed: int | None = None, trials: int = 20) -> None:
    """Check ``function(vectors, senses) -> accuracy``.

    Inputs: ``vectors`` ``(n, d)`` one vector per occurrence of a word, ``senses`` a list of n labels.
    Expected: a float in [0, 1], the leave-one-out 1-nearest-neighbour accuracy with cosine similarity:
    each occurrence takes the sense of its most similar OTHER occurrence (``knn_accuracy`` of
    :func:`course.probes.sense_probe`).
    """
    rng, failures = _start(function, "sense_knn_accuracy", seed, trials)
    sizes = _sizes(trials, [2, 3], lambda: int(rng.integers(6, 41)))
    for n in sizes:
        vectors, senses = _sense_case(rng, n)
        where = f"n={_count(n, 'occurrence')}, d={vectors.shape[1]}, {len(set(senses))} senses"
        result = _call(function, (vectors.copy(), list(senses)), shapes=f"vectors {vectors.shape}, senses {n} labels")
        accuracy = _number(result, "The accuracy", where)
        reference = _sense_reference(vectors, senses)
        if not _close(accuracy, reference):
            failures.add(where, _sense_findings(vectors, np.asarray(senses), accuracy, reference))
    failures.raise_if_any()
    _right(f"the leave-one-out 1-NN accuracy matches on {trials} random inputs (n from {_span(sizes)}).")


def _sense_reference(vectors: np.ndarray, senses: list[str]) -> float:
    """``knn_accuracy`` of :func:`course.probes.sense_probe` (quietly: its other figure may average nothing)."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        return sense_probe(vectors, senses)["knn_accuracy"]


def _sense_findings(vectors, labels, accuracy, reference) -> list[tuple[str, str]]:
    n = len(labels)
    got = f"got {accuracy:.4g}, expected {reference:.4g}"
    candidates = [
        ("leave", _knn_accuracy(_cosines(vectors), labels, leave_out=False),
         f"Every occurrence is its own nearest neighbour: leave it out (exclude the diagonal of the similarity "
         f"matrix) and take the most similar OTHER occurrence ({got})"),
        ("cosine", _knn_accuracy(-_squared_distances(vectors), labels),
         f"Your nearest neighbours are by Euclidean distance; the probe compares occurrences by cosine "
         f"similarity, which ignores the vectors' lengths ({got})"),
        ("cosine", _knn_accuracy(vectors @ vectors.T, labels),
         f"Your nearest neighbours are by dot product; the probe uses cosine similarity: normalise the vectors "
         f"to unit length first ({got})"),
        ("largest", _knn_accuracy(_cosines(vectors), labels, largest=False),
         f"Your neighbour is the LEAST similar occurrence: with cosine similarity the nearest neighbour has the "
         f"largest value ({got})"),
        ("fraction", reference * n, f"You return the number of occurrences labelled right ({accuracy:g}) instead of "
                                    f"the fraction of the n={n} occurrences ({reference:.4g})"),
    ]
    findings = [(key, message) for key, value, message in candidates if _close(accuracy, value)]
    if accuracy == 1.0 and reference < 1 and not any(key == "leave" for key, _ in findings):
        findings.append(("fact:leave", f"An accuracy of 1.0 where leave-one-out gives {reference:.4g} suggests every "
                                  "occurrence found itself: leave it out"))
    if not 0 <= accuracy <= 1:
        findings.append(("fact:range", f"An accuracy must lie in [0, 1], {got}"))
    return findings + [(GENERIC, f"The accuracy differs from leave-one-out 1-NN with cosine similarity: {got}")]


# ---------------------------------------------------------------------------------- scalar mix


def check_scalar_mix(function, *, seed: int | None = None, trials: int = 20) -> None:
    """Check ``function(layers, s, gamma) -> mixed``.

    Inputs (torch float32): ``layers`` ``(L, n, d)``, ``s`` ``(L,)`` unnormalised layer weights and
    ``gamma`` a 0-dim tensor, both requiring gradients. Expected: the ``(n, d)`` tensor
    gamma · Σ_j softmax(s)_j layers_j (:class:`course.elmo.scalar_mix.ScalarMix` without layer norm),
    with gradients reaching s and gamma.
    """
    from .elmo.scalar_mix import ScalarMix  # noqa: I001 (course.elmo first: it sets OpenMP's policy for torch)
    import torch

    rng, failures = _start(function, "scalar_mix", seed, trials)
    sizes = _sizes(trials, [(1, 1, 1), (2, 1, 3), (3, 4, 2)],
                   lambda: (int(rng.integers(2, 6)), int(rng.integers(1, 11)), int(rng.integers(1, 17))))
    for layers_count, n, d in sizes:
        layers_np = rng.normal(size=(layers_count, n, d))
        s_np, gamma_np = rng.normal(0, 1, layers_count), rng.uniform(0.5, 2.0)
        while abs(s_np.sum()) < 0.2:  # s / s.sum() (a mistake to recognise) would be float32 noise
            s_np = rng.normal(0, 1, layers_count)
        upstream = torch.from_numpy(rng.normal(size=(n, d)))  # d loss / d mixed, for the gradients
        where = f"L={layers_count}, n={n}, d={d}"
        layers = torch.tensor(layers_np, dtype=torch.float32)
        s = torch.tensor(s_np, dtype=torch.float32, requires_grad=True)
        gamma = torch.tensor(gamma_np, dtype=torch.float32, requires_grad=True)
        # the reference sees the same float32 values, in float64
        layers_np, s_np, gamma_np = layers.double().numpy(), s.detach().double().numpy(), float(gamma.detach())
        mixed = _call(function, (layers, s, gamma), shapes=f"layers {(layers_count, n, d)}, s {(layers_count,)}, "
                                                           "gamma ()")
        if not isinstance(mixed, torch.Tensor):
            raise CheckFailed(_sentence(f"Your function returns {_describe(mixed)}; return a torch tensor made with "
                                        "torch operations, so that gradients reach s and gamma", where))
        if tuple(mixed.shape) != (n, d):
            hint = ": sum the weighted layers over j" if tuple(mixed.shape) == (layers_count, n, d) else ""
            raise CheckFailed(_sentence(f"The mix should have shape (n, d) = {(n, d)}, got {tuple(mixed.shape)}{hint}",
                                        where))
        mix = ScalarMix(layers_count, initial_weights=s_np, initial_gamma=gamma_np).double()
        with torch.no_grad():  # the float64 copy keeps every digit of s and gamma
            mix.scalar_parameters.copy_(torch.from_numpy(s_np))
            mix.gamma.copy_(torch.tensor(gamma_np, dtype=torch.float64))
        reference = mix(torch.from_numpy(layers_np))
        value = mixed.detach().double().numpy()
        if not _close(value, reference.detach().numpy(), TORCH_ATOL):
            failures.add(where, _mix_findings(layers_np, s_np, gamma_np, value, reference.detach().numpy()))
            continue
        (reference * upstream).sum().backward()
        findings = _mix_gradient_findings(mixed, s, gamma, upstream, mix)
        if findings:
            failures.add(where, findings)
    failures.raise_if_any()
    _right(f"the mix and its gradients for s and gamma match ScalarMix on {trials} random inputs "
           f"(L from {_span([size[0] for size in sizes])}, n from {_span([size[1] for size in sizes])}).")


def _mix_findings(layers, s, gamma, value, reference) -> list[tuple[str, str]]:
    softmax = np.exp(s - s.max()) / np.exp(s - s.max()).sum()
    weightings = [
        ("", softmax, None),
        ("softmax", s, "uses s itself as the layer weights; ELMo turns them into softmax(s)_j = exp(s_j) / Σ_i "
                       "exp(s_i)"),
        ("softmax", s / s.sum(), "divides s by its sum; the weights are softmax(s) (exp first, then normalise), "
                                 "which keeps them positive"),
        ("softmax", np.exp(s), "uses exp(s) without dividing by Σ_i exp(s_i): that is half a softmax"),
        ("ignores s", np.full(len(s), 1 / len(s)), "ignores s: every layer gets the same weight"),
        ("weights", np.ones(len(s)), "adds the layers up without weights"),
    ]
    findings = []
    for (key, weights, wrong), with_gamma in product(weightings, (True, False)):
        parts = [part for part in (wrong, None if with_gamma else "leaves out gamma: scale the mix by gamma") if part]
        mixed = (gamma if with_gamma else 1.0) * np.tensordot(weights, layers, axes=1)
        if parts and _close(value, mixed, TORCH_ATOL * max(1.0, float(np.abs(mixed).max()))):
            keys = "+".join(k for k in (key, "" if with_gamma else "gamma") if k)
            findings.append((keys, "Your mix " + "; and ".join(parts)))
    return findings + [(GENERIC, f"The mix differs from gamma · Σ_j softmax(s)_j layers_j: {_worst(value, reference)}")]


def _mix_gradient_findings(mixed, s, gamma, upstream, mix) -> list[tuple[str, str]]:
    """Whether the gradients of (mixed · upstream).sum() reach s and gamma and match ``mix``'s (already computed)."""
    detached = ("gradient", "No gradient reaches s or gamma: the mix is detached from them (made with numpy, "
                            ".item(), .detach(), torch.no_grad() or torch.tensor(...) of computed values); keep to "
                            "torch operations on s and gamma")
    if not mixed.requires_grad:
        return [detached]
    (mixed.double() * upstream).sum().backward()
    findings = []
    for name, tensor, reference in (("s", s, mix.scalar_parameters.grad), ("gamma", gamma, mix.gamma.grad)):
        if tensor.grad is None:
            findings.append((f"gradient:{name}", f"No gradient reaches {name}: the mix uses a detached copy of it "
                                                 "(.item(), .detach(), .numpy() or float(...))"))
        elif not _close(tensor.grad.double().numpy(), reference.numpy(), TORCH_ATOL * reference.numel()):
            grad, wanted = tensor.grad.double().numpy().reshape(-1), reference.numpy().reshape(-1)
            findings.append((f"gradient:{name}", f"The gradient reaching {name} is wrong: "
                                                 f"{_worst(grad, wanted)}; build the mix from {name} with torch "
                                                 "operations only"))
    return findings


# ------------------------------------------------------------------------------ named entities

ENTITY_KINDS = ("PER", "LOC", "ORG")


def _random_labels(rng: np.random.Generator, length: int, well_formed: bool) -> list[str]:
    """A BIO sequence; unless ``well_formed``, with ``I-`` after ``O`` and type changes inside a run."""
    labels = []
    for _ in range(length):
        draw = rng.random()
        if draw < 0.45:
            labels.append("O")
        elif labels and labels[-1] != "O" and draw < 0.8:
            kind = labels[-1][2:] if well_formed or rng.random() < 0.7 else str(rng.choice(ENTITY_KINDS))
            labels.append("I-" + kind)
        else:
            prefix = "B-" if well_formed or rng.random() < 0.7 else "I-"
            labels.append(prefix + str(rng.choice(ENTITY_KINDS)))
    return labels


def _spans_as_tuples(value, where: str) -> list[tuple[str, int, int]]:
    if not isinstance(value, list | tuple):
        raise CheckFailed(_sentence(f"Return a list of (type, start, end) tuples, got {_describe(value)}", where))
    out = []
    for item in value:
        if not isinstance(item, list | tuple) or len(item) != 3:
            raise CheckFailed(_sentence(f"Each entity should be a (type, start, end) tuple, got {item!r}", where))
        kind, start, end = item
        try:
            out.append((str(kind), int(start), int(end)))
        except (TypeError, ValueError):
            raise CheckFailed(_sentence(f"start and end should be whole numbers, got {item!r}", where)) from None
    return out


def _strict_spans(labels) -> list[tuple[str, int, int]]:
    """Only the entities that begin with ``B-`` (an ``I-`` run that continues nothing is dropped)."""
    from .ner import entity_spans

    return [span for span in entity_spans(labels) if labels[span[1]].startswith("B-")]


def _typeless_spans(labels) -> list[tuple[str, int, int]]:
    """Runs of non-O labels, a ``B-`` starting a new one, whatever the types."""
    from .ner import entity_spans

    plain = [label if label == "O" else label[:2] + "X" for label in labels]
    return [(labels[start][2:], start, end) for _, start, end in entity_spans(plain)]


def _span_findings(labels, spans, reference) -> list[tuple[str, str]]:
    findings = []
    if spans == [(kind, start, end - 1) for kind, start, end in reference]:
        findings.append(("inclusive", "Your ends are one short: return `end` exclusive, as Python slices are, so "
                                      "that labels[start:end] is the whole entity"))
    if spans == _strict_spans(labels) != reference:
        findings.append(("strict", "An I-X that does not continue an entity of type X starts a new entity (the "
                                   "CoNLL rule, as seqeval reads it); you drop it"))
    if spans == _typeless_spans(labels) != reference:
        findings.append(("types", "An I-Y right after an entity of type X starts a new entity of type Y; you "
                                  "continue the old one"))
    findings.append((GENERIC, f"For labels {labels} the entities are {reference}, your function gives {spans}"))
    return findings


def check_entity_spans(function, *, seed: int | None = None, trials: int = 40) -> None:
    """Check ``function(labels) -> [(type, start, end), ...]``.

    Inputs: a list of BIO labels (``"O"``, ``"B-PER"``, ``"I-LOC"``, ...), well-formed or not.
    Expected: :func:`course.ner.entity_spans`: each entity's type, first position and the position
    after its last, in order; an entity starts at ``B-X`` or at an ``I-X`` that continues no entity
    of type X.
    """
    from .ner import entity_spans

    rng, failures = _start(function, "entity_spans", seed, trials)
    edges = [[], ["O", "I-PER", "I-PER"], ["B-PER", "I-PER", "O", "B-ORG", "B-ORG"], ["B-PER", "I-LOC"]]
    cases = _sizes(trials, edges, lambda: _random_labels(rng, int(rng.integers(1, 16)), bool(rng.random() < 0.5)))
    for labels in cases:
        where = f"labels {labels}"
        spans = _spans_as_tuples(_call(function, (list(labels),), shapes=f"({len(labels)},) labels"), where)
        reference = entity_spans(labels)
        if spans != reference:
            failures.add(where, _span_findings(labels, spans, reference))
    failures.raise_if_any()
    _right(f"the entities of {trials} label sequences (well-formed and not, up to 15 labels) match the CoNLL rule.")


def _micro_scores(gold_spans, predicted_spans) -> tuple[float, float, float]:
    from .ner import entity_scores_from_counts

    right = sum(len(set(g) & set(p)) for g, p in zip(gold_spans, predicted_spans, strict=True))
    return entity_scores_from_counts(right, sum(map(len, predicted_spans)), sum(map(len, gold_spans)))


def _f1_findings(gold, predicted, value, reference) -> list[tuple[str, str]]:
    from .ner import entity_spans

    findings = []
    tokens = [(g == p) for gs, ps in zip(gold, predicted, strict=True) for g, p in zip(gs, ps, strict=True)
              if g != "O" or p != "O"]
    if tokens and np.isclose(value[2], np.mean(tokens)):
        findings.append(("tokens", "You count words; F1 counts entities: an entity is found only when its type "
                                   "and both ends are right"))
    typeless = _micro_scores([[(0, s, e) for _, s, e in entity_spans(g)] for g in gold],
                             [[(0, s, e) for _, s, e in entity_spans(p)] for p in predicted])
    if np.allclose(value, typeless) and not np.allclose(typeless, reference):
        findings.append(("types", "An entity with the right ends but the wrong type is not found: compare the "
                                  "type too"))
    precision, recall = reference[0], reference[1]
    if np.allclose(value[:2], [recall, precision]) and not np.isclose(precision, recall):
        findings.append(("swapped", "Precision and recall are swapped: precision divides by the predicted "
                                    "entities, recall by the gold ones"))
    findings.append((GENERIC, f"Expected (precision, recall, F1) = ({reference[0]:.4f}, {reference[1]:.4f}, "
                              f"{reference[2]:.4f}), your function gives ({value[0]:.4f}, {value[1]:.4f}, "
                              f"{value[2]:.4f})"))
    return findings


def check_entity_f1(function, *, seed: int | None = None, trials: int = 30) -> None:
    """Check ``function(gold, predicted) -> (precision, recall, f1)``.

    Inputs: two lists of label sequences, sentence by sentence of equal lengths. Expected: entity
    precision, recall and F1 over all sentences together (micro-averaged, as ``seqeval`` and the
    CoNLL script give them): an entity counts as found only when its type and both ends match; 0
    where there is nothing to divide by.
    """
    from .ner import entity_spans

    rng, failures = _start(function, "entity_f1", seed, trials)
    edges = [([["O", "O"]], [["O", "O"]]), ([["B-PER", "I-PER", "B-LOC"]], [["B-PER", "O", "B-ORG"]])]

    def draw():
        gold = [_random_labels(rng, int(rng.integers(1, 12)), True) for _ in range(int(rng.integers(1, 6)))]
        predicted = [[label if rng.random() < 0.75 else str(rng.choice(["O", "B-PER", "I-PER", "B-LOC", "I-ORG"]))
                      for label in sentence] for sentence in gold]
        return gold, predicted

    for gold, predicted in _sizes(trials, edges, draw):
        where = f"gold {gold} and predicted {predicted}"
        result = _call(function, ([list(s) for s in gold], [list(s) for s in predicted]),
                       shapes=f"{len(gold)} sentences")
        if isinstance(result, Mapping):
            result = [result.get(key) for key in ("precision", "recall", "f1")]
        value = _array(result, "(precision, recall, f1)", (3,), "", where)
        reference = np.array(_micro_scores([entity_spans(g) for g in gold], [entity_spans(p) for p in predicted]))
        if not _close(value, reference):
            failures.add(where, _f1_findings(gold, predicted, value, reference))
    failures.raise_if_any()
    _right(f"precision, recall and F1 of {trials} taggings match the entity-level (CoNLL) measure.")


def check_slanted_triangular(function, *, seed: int | None = None, trials: int = 40) -> None:
    """Check ``function(step, total_steps, max_rate, cut_frac, ratio) -> rate``.

    Expected: :func:`course.ulmfit.slanted_triangular`, ULMFiT's slanted triangular learning rate:
    cut = floor(T cut_frac), a linear rise from ``max_rate / ratio`` to ``max_rate`` at step cut,
    then a linear fall back to ``max_rate / ratio`` at step T.
    """
    from .ulmfit.schedules import slanted_triangular

    rng, failures = _start(function, "slanted_triangular", seed, trials)
    edges = [(0, 1_000, 0.01, 0.1, 32.0), (100, 1_000, 0.01, 0.1, 32.0), (1_000, 1_000, 0.01, 0.1, 32.0),
             (55, 1_000, 0.01, 0.1, 32.0), (7, 25, 0.5, 0.3, 8.0)]

    def draw():
        total = int(rng.integers(10, 5_000))
        return (int(rng.integers(0, total + 1)), total, float(rng.uniform(1e-4, 0.1)), float(rng.uniform(0.05, 0.5)),
                float(rng.uniform(2, 64)))

    for case in _sizes(trials, edges, draw):
        step, total, top, cut_frac, ratio = case
        where = f"step {step} of {total}, max_rate {top:.4g}, cut_frac {cut_frac:.3g}, ratio {ratio:.3g}"
        value = _number(_call(function, case, shapes="five numbers"), "the rate", where)
        reference = slanted_triangular(*case)
        if not _close(value, reference, atol=1e-12):
            cut = max(1, int(total * cut_frac))
            findings = []
            if np.isclose(value, top * (step / cut if step < cut else 1 - (step - cut) / (cut * (1 / cut_frac - 1)))):
                findings.append(("no_ratio", "Your rate falls to 0: the lowest rate is max_rate / ratio, "
                                             "eta_t = max_rate (1 + p (ratio - 1)) / ratio"))
            if step >= cut and np.isclose(value, top * (1 + (step / cut) * (ratio - 1)) / ratio):
                findings.append(("no_fall", "After the cut the rate must fall: "
                                            "p = 1 - (t - cut) / (cut (1/cut_frac - 1))"))
            findings.append((GENERIC, f"Your rate is {value:.6g}; it should be {reference:.6g}"))
            failures.add(where, findings)
    failures.raise_if_any()
    _right(f"the slanted triangular rates of {trials} steps (rise, peak, fall, both ends) match ULMFiT's formula.")


def check_discriminative_rates(function, *, seed: int | None = None, trials: int = 30) -> None:
    """Check ``function(top_rate, num_groups, factor) -> list of rates``, bottom group first.

    Expected: :func:`course.ulmfit.discriminative_rates`: the top group gets ``top_rate``, each
    group below it ``factor`` times less.
    """
    from .ulmfit.schedules import discriminative_rates

    rng, failures = _start(function, "discriminative_rates", seed, trials)
    edges = [(0.01, 4, 2.6), (0.01, 1, 2.6), (0.004, 3, 1.0)]

    def draw():
        return float(rng.uniform(1e-4, 0.1)), int(rng.integers(1, 8)), float(rng.uniform(1, 4))

    for case in _sizes(trials, edges, draw):
        top, groups, factor = case
        where = f"top_rate {top:.4g}, {groups} groups, factor {factor:.3g}"
        reference = discriminative_rates(*case)
        value = _array(_call(function, case, shapes="three numbers"), "the rates", (groups,), "(num_groups,)", where)
        if not _close(value, reference, atol=1e-12):
            findings = []
            if _close(value[::-1], reference, atol=1e-12):
                findings.append(("order", "Your rates are top group first: give the bottom group (the token encoder) "
                                          "first and the top group (the head) last"))
            subtracted = [top - (groups - 1 - g) * top / factor for g in range(groups)]
            if groups > 1 and _close(value, subtracted, atol=1e-12):
                findings.append(("subtract", "Each group down divides by the factor; it does not subtract"))
            findings.append((GENERIC, f"Your rates are {np.round(value, 6).tolist()}; they should be "
                                      f"{np.round(reference, 6).tolist()}"))
            failures.add(where, findings)
    failures.raise_if_any()
    _right(f"the rates of {trials} stacks of layer groups match eta^(l-1) = eta^l / factor, bottom group first.")
