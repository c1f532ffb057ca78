"""Checks of the word2vec assignments (notebooks 02 and 03): the negative-sampling loss and its gradients,
the noise distribution, the keep probabilities of subsampling, Huffman codes."""

from __future__ import annotations

from collections.abc import Mapping
from itertools import product

import numpy as np

from ...core.edition import text
from ...text.vocab import Vocabulary
from .harness import (
    GENERIC,
    GOLDEN_SQUARED,
    CheckFailed,
    answer_array,
    answer_number,
    call_answer,
    close_to,
    compares_with,
    describe,
    how_many,
    random_vocabulary,
    say_right,
    sentence_at,
    span_of,
    start_check,
    trial_inputs,
    worst_difference,
    zipf_counts,
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
    rng, failures = start_check(function, "negative_sampling_loss", seed, trials)
    sizes = trial_inputs(trials, [(1, 1), (4, 1), (3, 2)], lambda: (int(rng.integers(2, 51)), int(rng.integers(1, 21))))
    for d, k in sizes:
        scale = rng.uniform(0.6, 1.3) / d**0.25  # scores u·v of order 1: σ neither 0 nor 1
        center, context, noise = rng.normal(0, scale, d), rng.normal(0, scale, d), rng.normal(0, scale, (k, d))
        where = f"d={d}, k={k}"
        result = call_answer(function, (center.copy(), context.copy(), noise.copy()),
                             shapes=f"center {(d,)}, context {(d,)}, noise {(k, d)}")
        if not isinstance(result, tuple | list) or len(result) != 4:
            raise CheckFailed(sentence_at(text("check ns returns", got=describe(result)), where))
        loss = answer_number(result[0], text("check the loss"), where)
        grads = (answer_array(result[1], "grad_center", (d,), "(d,)", where),
                 answer_array(result[2], "grad_context", (d,), "(d,)", where),
                 answer_array(result[3], "grad_noise", (k, d), "(k, d)", where))
        findings = _negative_sampling_findings(center, context, noise, loss, grads)
        if findings:
            failures.add(where, findings)
    failures.raise_if_any()
    say_right(text("check ns right", trials=trials, d=span_of([d for d, _ in sizes]), k=span_of([k for _, k in sizes])))


def _negative_sampling_findings(center, context, noise, loss, grads) -> list[tuple[str, str]]:
    ref_loss, *ref_grads = _negative_sampling_reference(center, context, noise)
    if not close_to(loss, ref_loss):
        return _negative_sampling_loss_findings(center, context, noise, loss, ref_loss)
    names, symbols = ("center", "context", "noise"), ("v_c", "u_o", "u_1..u_k")
    findings = []
    if all(close_to(g, -r) for g, r in zip(grads, ref_grads, strict=True)):
        findings.append(("sign:all", text("check ns all signs")))
    if close_to(grads[0], ref_grads[1]) and close_to(grads[1], ref_grads[0]) and not close_to(grads[0], ref_grads[0]):
        findings.append(("swap", text("check ns swapped")))
    true_score, noise_scores = context @ center, noise @ center
    for name, symbol, grad, ref in zip(names, symbols, grads, ref_grads, strict=True):
        if close_to(grad, ref):
            continue
        if close_to(grad, -ref):
            findings.append((f"sign:{name}", text("check ns sign", name=name, symbol=symbol)))
        if name == "center" and close_to(grad, (_sigmoid(true_score) - 1) * context):
            findings.append(("center:noise", text("check ns center noise")))
        if name == "center" and close_to(grad, _sigmoid(noise_scores) @ noise):
            findings.append(("center:true", text("check ns center true")))
        if name == "context" and close_to(grad, _sigmoid(true_score) * center):
            findings.append(("context:sigma", text("check ns context sigma")))
        if name == "noise" and close_to(grad, (_sigmoid(noise_scores) - 1)[:, None] * center):
            findings.append(("noise:sigma", text("check ns noise sigma")))
        findings.append((f"grad:{name}", text("check ns gradient", name=name, symbol=symbol,
                                                        worst=worst_difference(grad, ref))))
    return findings


def _negative_sampling_loss_findings(center, context, noise, loss, ref_loss) -> list[tuple[str, str]]:
    true_term = np.logaddexp(0, -(context @ center))  # -log σ(u_o·v_c)
    noise_terms = np.logaddexp(0, noise @ center)  # (k,) -log σ(-u_k·v_c)
    flipped = np.logaddexp(0, -(noise @ center))  # (k,) -log σ(u_k·v_c)
    got = text("check got expected", got=loss, expected=ref_loss)
    candidates = [
        ("sign", -ref_loss, text("check ns loss sign", got=got)),
        ("noise term", true_term, text("check ns loss noise term", got=got)),
        ("noise sign", true_term + flipped.sum(), text("check ns loss noise sign", got=got)),
        ("true term", noise_terms.sum(), text("check ns loss true term", got=got)),
        ("noise mean", true_term + noise_terms.mean(), text("check ns loss noise mean", got=got)),
    ]
    findings = [(key, message) for key, value, message in candidates if close_to(loss, value)]
    return findings + [(GENERIC, text("check ns loss wrong", got=got))]


# --------------------------------------------------------------------------- noise distribution


@compares_with("course.text.vocab:Vocabulary.noise_distribution")
def check_noise_distribution(function, *, seed: int | None = None, trials: int = 20) -> None:
    """Check ``function(counts) -> probabilities``.

    Inputs: ``counts`` ``(V,)`` int64 word counts (all at least 1). Expected: ``(V,)`` probabilities
    proportional to count^(3/4), summing to 1 (:meth:`course.text.vocab.Vocabulary.noise_distribution`).
    """
    rng, failures = start_check(function, "noise_distribution", seed, trials)
    sizes = trial_inputs(trials, [1, 2, 3], lambda: int(rng.integers(4, 301)))
    for size in sizes:
        counts = zipf_counts(rng, size)
        where = f"V={how_many(size, 'word')}"
        result = call_answer(function, (counts.copy(),), shapes=f"counts {counts.shape}")
        probabilities = answer_array(result, text("check the result"), (size,), "(V,)", where)
        reference = random_vocabulary(counts).noise_distribution()
        if not close_to(probabilities, reference):
            failures.add(where, _noise_findings(counts, probabilities, reference))
    failures.raise_if_any()
    say_right(text("check noise right", trials=trials, span=span_of(sizes)))


def _fitted_power(counts: np.ndarray, shares: np.ndarray) -> float | None:
    """The p with shares = counts^p / Σ counts^p, if there is one (needs two different counts)."""
    if np.any(shares <= 0) or np.ptp(counts) == 0:
        return None
    power = float(np.polyfit(np.log(counts), np.log(shares), 1)[0])
    powered = counts.astype(np.float64) ** power
    return power if np.allclose(shares, powered / powered.sum(), rtol=1e-4, atol=0) else None


def _noise_findings(counts, probabilities, reference) -> list[tuple[str, str]]:
    total = probabilities.sum()
    generic = (GENERIC, text("check noise differs", worst=worst_difference(probabilities, reference)))
    if np.any(probabilities < 0) or total <= 0:
        return [("fact:negative", text("check noise negative")), generic]
    shares = probabilities / total
    unnormalised = text("check noise sum", total=total) if abs(total - 1) > 1e-6 else None
    power = 0.75 if close_to(shares, reference) else _fitted_power(counts, shares)
    if power is None:
        return [generic]
    if abs(power - 1) < 1e-3:
        wrong_power = ("3/4", text("check noise unigram"))
    elif abs(power) < 1e-3:
        wrong_power = ("uniform", text("check noise uniform"))
    elif abs(power - 0.75) > 1e-3:
        wrong_power = ("power", text("check noise power", power=power))
    else:
        return [("normalise", text("check noise not normalised", why=unnormalised)), generic]
    if unnormalised:
        return [(f"{wrong_power[0]}+normalise", text("check and also", first=wrong_power[1], second=unnormalised)),
                generic]
    return [wrong_power, generic]


# --------------------------------------------------------------------------- keep probabilities


@compares_with("course.text.vocab:Vocabulary.keep_probabilities")
def check_keep_probabilities(function, *, seed: int | None = None, trials: int = 20) -> None:
    """Check ``function(counts, sample) -> keep``.

    Inputs: ``counts`` ``(V,)`` int64 word counts (all at least 1), ``sample`` the threshold t (below 1).
    Expected: ``(V,)`` keep = min(1, (sqrt(f/t) + 1) t/f) with f = count / total, word2vec.c's formula
    (:meth:`course.text.vocab.Vocabulary.keep_probabilities`).
    """
    rng, failures = start_check(function, "keep_probabilities", seed, trials)
    sizes = trial_inputs(trials, [1, 2, 3], lambda: int(rng.integers(4, 301)))
    for size in sizes:
        counts = zipf_counts(rng, size)
        frequencies = counts / counts.sum()
        low, high = frequencies.min() / GOLDEN_SQUARED, frequencies.max() / GOLDEN_SQUARED
        if high / low < 1.5:  # one word, or all as frequent: some trials capped, some not
            low, high = low / 10, high * 2
        sample = float(np.exp(rng.uniform(np.log(low), np.log(high))))
        where = f"V={how_many(size, 'word')}, sample={sample:.3g}"
        result = call_answer(function, (counts.copy(), sample), shapes=text("check keep shapes", shape=counts.shape))
        keep = answer_array(result, text("check the result"), (size,), "(V,)", where)
        reference = random_vocabulary(counts).keep_probabilities(sample)
        if not close_to(keep, reference):
            failures.add(where, _keep_findings(counts, sample, keep, reference))
    failures.raise_if_any()
    say_right(text("check keep right", trials=trials, span=span_of(sizes)))


def _keep_findings(counts, sample, keep, reference) -> list[tuple[str, str]]:
    word2vec = "min(1, (sqrt(f/t) + 1)·t/f)"

    def formula(f, t):
        return (np.sqrt(f / t) + 1) * t / f

    formulas = [  # (key, keep as a function of f and t, what is wrong, as a predicate)
        ("right", lambda f, t: np.minimum(1, formula(f, t)), None),
        ("cap", formula, text("check keep uncapped", formula=word2vec)),
        ("discard", lambda f, t: 1 - np.minimum(1, formula(f, t)), text("check keep discard")),
        ("discard", lambda f, t: 1 - formula(f, t), text("check keep discard uncapped", formula=word2vec)),
        ("paper", lambda f, t: np.sqrt(t / f), text("check keep paper", formula=word2vec)),
        ("paper", lambda f, t: np.minimum(1, np.sqrt(t / f)), text("check keep paper capped", formula=word2vec)),
        ("paper discard", lambda f, t: 1 - np.sqrt(t / f), text("check keep paper discard", formula=word2vec)),
        ("paper discard", lambda f, t: np.maximum(0, 1 - np.sqrt(t / f)),
         text("check keep paper discard", formula=word2vec)),
    ]
    inputs = [("", counts / counts.sum(), sample),
              ("counts", counts.astype(np.float64), sample)]
    if sample != 1e-3:
        inputs.append(("sample", counts / counts.sum(), 1e-3))
    notes = {"counts": text("check keep raw counts"), "sample": text("check keep sample ignored")}
    findings = []
    for (input_key, f, t), (key, keep_of, wrong) in product(inputs, formulas):
        parts = [part for part in (notes.get(input_key), wrong) if part]
        if parts and close_to(keep, keep_of(f, t)):
            keys = "+".join(part for part in (input_key, key if wrong else "") if part)
            findings.append((keys, text("check keep yours", parts=text("check keep and they").join(parts))))
    if keep.max() > 1 + 1e-9:
        findings.append(("fact:cap", text("check keep above one", largest=keep.max(), formula=word2vec)))
    if keep.min() < 0:
        findings.append(("fact:negative", text("check keep negative", smallest=keep.min())))
    return findings + [(GENERIC, text("check keep differs", formula=word2vec, worst=worst_difference(keep, reference)))]


# -------------------------------------------------------------------------------- Huffman code


@compares_with("course.text.vocab:Vocabulary.huffman", "course.text.vocab:_build_huffman")
def check_huffman_code(function, *, seed: int | None = None, trials: int = 20) -> None:
    """Check ``function(counts) -> codes``.

    Inputs: ``counts`` a dict {word: count} of W >= 2 words. Expected: a dict {word: code}, every code
    a non-empty string of '0' and '1', the codes prefix-free and of the least expected length
    Σ count·len(code) / Σ count (any Huffman code; ties may be broken either way).
    """
    rng, failures = start_check(function, "huffman_code", seed, trials)
    sizes = trial_inputs(trials, [2, 3, 4], lambda: int(rng.integers(5, 65)))
    for size in sizes:
        values = rng.integers(1, 30, size) if rng.random() < 0.5 else zipf_counts(rng, size)  # ties, or Zipf
        counts = {f"w{i}": int(value) for i, value in zip(rng.permutation(size), values, strict=True)}
        where = f"W={how_many(size, 'word')}"
        codes = call_answer(function, (dict(counts),), shapes=text("check dict of words", n=size))
        findings = _huffman_findings(counts, codes, where)
        if findings:
            failures.add(where, findings)
    failures.raise_if_any()
    say_right(text("check huffman right", trials=trials, span=span_of(sizes)))


def _huffman_cost(counts: Mapping[str, int]) -> int:
    """Σ count·len(code) of a Huffman code, from :meth:`course.text.vocab.Vocabulary.huffman`."""
    words = sorted(counts, key=lambda word: -counts[word])
    values = np.asarray([counts[word] for word in words], dtype=np.int64)
    tree = Vocabulary(words, values, specials=()).huffman()
    return int(values @ tree.lengths)


def _huffman_findings(counts: dict[str, int], codes, where: str) -> list[tuple[str, str]]:
    """Structural mistakes raise CheckFailed; a code that is only longer than need be is a finding."""
    if not isinstance(codes, Mapping):
        raise CheckFailed(sentence_at(text("check huffman returns", got=describe(codes)), where))
    missing, extra = [w for w in counts if w not in codes], [w for w in codes if w not in counts]
    if missing:
        raise CheckFailed(sentence_at(text("check huffman missing", words=how_many(len(missing), "word"),
                                           example=missing[0]), where))
    if extra:
        raise CheckFailed(sentence_at(text("check huffman extra", example=extra[0]), where))
    for word, code in codes.items():
        if not isinstance(code, str):
            raise CheckFailed(sentence_at(text("check huffman not a string", word=word, got=describe(code)), where))
        if not code or set(code) - {"0", "1"}:
            raise CheckFailed(sentence_at(text("check huffman not bits", word=word, code=code), where))
    ordered = sorted(codes.items(), key=lambda item: item[1])  # a prefix sorts right before the codes it starts
    for (first, short), (second, long) in zip(ordered, ordered[1:], strict=False):
        if long.startswith(short):
            what = text("check huffman same code" if long == short else "check huffman prefix")
            raise CheckFailed(sentence_at(text("check huffman not prefix-free", first=first, second=second, what=what,
                                               short=short, long=long), where))
    total = sum(counts.values())
    cost, optimal = sum(counts[w] * len(codes[w]) for w in counts), _huffman_cost(counts)
    if cost > optimal:
        return [("optimal", text("check huffman not optimal", cost=cost / total, optimal=optimal / total))]
    return []
