"""Check of the entropy-bound assignment (notebook 03): the entropy of the unigram distribution, the mean code
length of an optimal prefix code and of a balanced tree's code, and Shannon's bound H <= L < H + 1 between them."""

from __future__ import annotations

import math

import numpy as np

from ...core.edition import text
from ...text.vocab import Vocabulary
from .harness import (
    ATOL,
    GENERIC,
    CheckFailed,
    answer_number,
    call_answer,
    close_to,
    compares_with,
    describe,
    how_many,
    say_right,
    sentence_at,
    span_of,
    start_check,
    trial_inputs,
    zipf_counts,
)

BOUND_SLACK = 1e-9  # how far below the mean code length a float entropy may land when the two are equal

_NAMES = ("check bound the entropy", "check bound the mean code length", "check bound the balanced length")  # keys


def _huffman_lengths(values: np.ndarray) -> np.ndarray:
    """``(W,)`` code lengths of the course's Huffman tree (:meth:`course.text.vocab.Vocabulary.huffman`), in the
    order of ``values``."""
    order = np.argsort(-values, kind="stable")  # the tree wants the counts in descending order
    tree = Vocabulary([f"w{i}" for i in range(len(values))], values[order], specials=()).huffman()
    lengths = np.empty(len(values), dtype=np.int64)
    lengths[order] = tree.lengths
    return lengths


def _reference(values: np.ndarray) -> tuple[float, float, float]:
    """(H in bits, the Huffman code's mean length weighted by the counts, ceil(log2 W))."""
    p = values / values.sum()
    entropy = float(-(p * np.log2(p)).sum())
    mean_length = float(values @ _huffman_lengths(values) / values.sum())
    return entropy, mean_length, float((len(values) - 1).bit_length())  # ceil(log2 W), in integers


def _dyadic(values: np.ndarray) -> bool:
    """Whether every p(w) = count / total is a power of 1/2 (then a Huffman code reaches H exactly)."""
    total = int(values.sum())
    return all(total % int(c) == 0 and (total // int(c)) & (total // int(c) - 1) == 0 for c in values)


def _counts(rng: np.random.Generator, kind: str, size: int) -> tuple[np.ndarray, str]:
    """``(W,)`` int64 counts of one kind of input, and the kind in words."""
    if kind == "two":
        first = int(rng.integers(2, 50))
        return np.array([first, int(rng.integers(1, first))]), text("check bound two words")
    if kind == "dominant":
        top = int(10 ** rng.uniform(5, 6.5))
        return np.concatenate([[top], rng.integers(1, 4, size - 1)]), text("check bound dominant", top=top)
    if kind == "equal":
        return np.full(size, int(rng.integers(1, 1000))), text("check bound equal")
    if kind == "halves":  # counts 2^(W-2), ..., 4, 2, 1, 1: p(w) = 1/2, 1/4, ..., 2^-(W-1), 2^-(W-1)
        return np.array([2 ** (size - 2 - i) for i in range(size - 1)] + [1]), text("check bound halves")
    if kind == "ties":
        return rng.integers(1, 30, size), text("check bound ties")
    return zipf_counts(rng, size), text("check bound zipf")


@compares_with("course.text.vocab:Vocabulary.huffman", "course.text.vocab:_build_huffman")
def check_entropy_bound(function, *, seed: int | None = None, trials: int = 20) -> None:
    """Check ``function(counts) -> (entropy, mean_length, balanced_length)``.

    Inputs: ``counts`` a dict {word: count} of W >= 2 words (counts at least 1). Expected three floats: the
    entropy H = -Σ p log2 p of p(w) = count / total, in bits; the mean length Σ p(w) L(w) of an optimal
    prefix code (a Huffman code: :meth:`course.text.vocab.Vocabulary.huffman`); and ceil(log2 W), the length of
    every code of a balanced tree. The function should assert H <= L < H + 1, which holds with equality on
    the left when every p(w) is a power of 1/2 (those inputs are among the trials).
    """
    rng, failures = start_check(function, "entropy_bound", seed, trials)
    edges = [("two", 2), ("dominant", 5), ("equal", int(rng.choice([3, 5, 6, 7, 12, 100]))), ("equal", 1024),
             ("dominant", 2), ("zipf", 64), ("halves", 24), ("equal", 2), ("equal", int(rng.integers(300, 1000)))]
    cases = trial_inputs(trials, edges, lambda: (str(rng.choice(["zipf", "ties", "zipf"])), int(rng.integers(3, 301))))
    for kind, size in cases:
        values, described = _counts(rng, kind, size)
        values = values.astype(np.int64)
        counts = {f"w{i}": int(value) for i, value in zip(rng.permutation(size), values, strict=True)}
        values = np.asarray(list(counts.values()), dtype=np.float64)
        where = f"W={how_many(size, 'word')}, {described}"
        reference = _reference(values)
        try:
            result = call_answer(function, (dict(counts),), shapes=text("check dict of words", n=size))
        except CheckFailed as failure:
            cause = failure.__cause__
            if not isinstance(cause, AssertionError) or isinstance(cause, CheckFailed):
                raise
            failures.add(where, _assertion_findings(cause, values, reference))
            continue
        if not isinstance(result, tuple | list) or len(result) != 3:
            raise CheckFailed(sentence_at(text("check bound returns", got=describe(result)), where))
        names = [text(name) for name in _NAMES]
        got = tuple(answer_number(value, name[0].upper() + name[1:], where) for value, name in zip(result, names,
                                                                                                   strict=True))
        if not all(close_to(value, expected) for value, expected in zip(got, reference, strict=True)):
            failures.add(where, _findings(values, got, reference))
    returned = [trial for trial in failures.trials if not trial[1][0][0].startswith("assert:")]
    if returned:  # the numbers themselves say more than an assertion that stopped them
        failures.trials = returned
    failures.raise_if_any()
    say_right(text("check bound right", trials=trials, span=span_of([size for _, size in cases])))


def _assertion_findings(error: AssertionError, values: np.ndarray, reference) -> list[tuple[str, str]]:
    entropy, mean_length, _ = reference
    said = text("check bound said", said=str(error).strip()[:120]) if str(error).strip() else ""
    values_now = text("check bound values now", entropy=entropy, length=mean_length)
    if _dyadic(values):
        message = text("check bound assertion equality", said=said, values=values_now)
        return [("assert:equality", message), (GENERIC, message)]
    message = text("check bound assertion numbers", said=said, values=values_now)
    return [("assert:numbers", message), (GENERIC, message)]


def _candidates(values: np.ndarray, reference) -> list[tuple[int, str, float, str]]:
    """(which value, key, what a usual mistake gives, what is wrong)."""
    entropy, mean_length, balanced = reference
    size, total = len(values), values.sum()
    p = values / total
    lengths = _huffman_lengths(values)
    equal = _huffman_lengths(np.ones(size))  # a nearly balanced tree: floor or ceil(log2 W) bits
    shannon = np.ceil(-np.log2(p) - 1e-12)
    log2_size = math.log2(size)
    return [
        (0, "entropy:nats", entropy * math.log(2), text("check bound nats")),
        (0, "entropy:log10", entropy * math.log10(2), text("check bound log10")),
        (0, "entropy:sign", -entropy, text("check bound entropy sign")),
        (0, "entropy:counts", float(-(values * np.log2(values)).sum()), text("check bound entropy of counts")),
        (0, "entropy:unweighted", float(-np.log2(p).mean()), text("check bound entropy unweighted")),
        (0, "entropy:uniform", log2_size, text("check bound entropy uniform")),
        (1, "length:unweighted", float(lengths.mean()), text("check bound length unweighted")),
        (1, "length:total", float(values @ lengths), text("check bound length total")),
        (1, "length:shannon", float(p @ shannon), text("check bound length shannon")),
        (1, "length:entropy", entropy, text("check bound length entropy")),
        (1, "length:balanced", balanced, text("check bound length balanced")),
        (1, "length:longest", float(lengths.max()), text("check bound length longest")),
        (2, "balanced:ceil", log2_size, text("check bound balanced ceil")),
        (2, "balanced:floor", float(math.floor(log2_size)), text("check bound balanced floor")),
        (2, "balanced:plus_one", float(math.floor(log2_size) + 1), text("check bound balanced plus one")),
        (2, "balanced:nearly", float(p @ equal), text("check bound balanced nearly")),
        (2, "balanced:nearly", float(equal.mean()), text("check bound balanced nearly")),
    ]


def _findings(values: np.ndarray, got: tuple[float, float, float], reference) -> list[tuple[str, str]]:
    findings = []
    in_order = all(close_to(g, r) for g, r in zip(got, reference, strict=True))
    if not in_order and all(close_to(g, r) for g, r in zip(sorted(got), sorted(reference), strict=True)):
        findings.append(("order", text("check bound order")))
    for which, key, value, message in _candidates(values, reference):
        if close_to(got[which], value) and not close_to(value, reference[which]):
            findings.append((key, message))
    entropy, mean_length = got[:2]
    broken = not (entropy <= mean_length + BOUND_SLACK and mean_length < entropy + 1 + ATOL)
    note = "" if not broken or findings and findings[0][0] == "order" else (
        text("check bound broken", entropy=entropy, length=mean_length))
    findings = [(key, message + note) for key, message in findings]
    wrong = [text("check bound wrong value", name=text(name), value=value, expected=expected) for name, value, expected
             in zip(_NAMES, got, reference, strict=True) if not close_to(value, expected)]
    return findings + [(GENERIC, text("check bound differs", wrong=text("check semicolon").join(wrong), note=note))]
