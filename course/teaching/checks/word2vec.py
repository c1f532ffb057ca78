"""Checks of the word2vec assignments (notebooks 02 and 03): the negative-sampling loss and its gradients,
the noise distribution, the keep probabilities of subsampling, Huffman codes."""

from __future__ import annotations

from collections.abc import Mapping
from itertools import product

import numpy as np

from ...text.vocab import Vocabulary
from .common import (
    GENERIC,
    GOLDEN_SQUARED,
    CheckFailed,
    _array,
    _call,
    _close,
    _count,
    _describe,
    _number,
    _right,
    _sentence,
    _sizes,
    _span,
    _start,
    _vocabulary,
    _worst,
    _zipf_counts,
    compares_with,
)

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


@compares_with("course.word2vec.losses:negative_sampling_loss", "course.word2vec.losses:negative_sampling_terms")
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


@compares_with("course.text.vocab:Vocabulary.noise_distribution")
def check_noise_distribution(function, *, seed: int | None = None, trials: int = 20) -> None:
    """Check ``function(counts) -> probabilities``.

    Inputs: ``counts`` ``(V,)`` int64 word counts (all at least 1). Expected: ``(V,)`` probabilities
    proportional to count^(3/4), summing to 1 (:meth:`course.text.vocab.Vocabulary.noise_distribution`).
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


@compares_with("course.text.vocab:Vocabulary.keep_probabilities")
def check_keep_probabilities(function, *, seed: int | None = None, trials: int = 20) -> None:
    """Check ``function(counts, sample) -> keep``.

    Inputs: ``counts`` ``(V,)`` int64 word counts (all at least 1), ``sample`` the threshold t (below 1).
    Expected: ``(V,)`` keep = min(1, (sqrt(f/t) + 1) t/f) with f = count / total, word2vec.c's formula
    (:meth:`course.text.vocab.Vocabulary.keep_probabilities`).
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


@compares_with("course.text.vocab:Vocabulary.huffman", "course.text.vocab:_build_huffman")
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
    """Σ count·len(code) of a Huffman code, from :meth:`course.text.vocab.Vocabulary.huffman`."""
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
