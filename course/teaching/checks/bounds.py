"""Check of the entropy-bound assignment (notebook 03): the entropy of the unigram distribution, the mean code
length of an optimal prefix code and of a balanced tree's code, and Shannon's bound H <= L < H + 1 between them."""

from __future__ import annotations

import math

import numpy as np

from ...text.vocab import Vocabulary
from .common import (
    ATOL,
    GENERIC,
    CheckFailed,
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
    _zipf_counts,
    compares_with,
)

BOUND_SLACK = 1e-9  # how far below the mean code length a float entropy may land when the two are equal

_NAMES = ("the entropy", "the mean code length", "the balanced tree's code length")


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
        return np.array([first, int(rng.integers(1, first))]), "two words"
    if kind == "dominant":
        top = int(10 ** rng.uniform(5, 6.5))
        return np.concatenate([[top], rng.integers(1, 4, size - 1)]), f"one word with {top:,} of the occurrences"
    if kind == "equal":
        return np.full(size, int(rng.integers(1, 1000))), "every count the same"
    if kind == "halves":  # counts 2^(W-2), ..., 4, 2, 1, 1: p(w) = 1/2, 1/4, ..., 2^-(W-1), 2^-(W-1)
        return np.array([2 ** (size - 2 - i) for i in range(size - 1)] + [1]), "every p(w) a power of 1/2"
    if kind == "ties":
        return rng.integers(1, 30, size), "small counts with ties"
    return _zipf_counts(rng, size), "Zipf counts"


@compares_with("course.text.vocab:Vocabulary.huffman", "course.text.vocab:_build_huffman")
def check_entropy_bound(function, *, seed: int | None = None, trials: int = 20) -> None:
    """Check ``function(counts) -> (entropy, mean_length, balanced_length)``.

    Inputs: ``counts`` a dict {word: count} of W >= 2 words (counts at least 1). Expected three floats: the
    entropy H = -Σ p log2 p of p(w) = count / total, in bits; the mean length Σ p(w) L(w) of an optimal
    prefix code (a Huffman code: :meth:`course.text.vocab.Vocabulary.huffman`); and ceil(log2 W), the length of
    every code of a balanced tree. The function should assert H <= L < H + 1, which holds with equality on
    the left when every p(w) is a power of 1/2 (those inputs are among the trials).
    """
    rng, failures = _start(function, "entropy_bound", seed, trials)
    edges = [("two", 2), ("dominant", 5), ("equal", int(rng.choice([3, 5, 6, 7, 12, 100]))), ("equal", 1024),
             ("dominant", 2), ("zipf", 64), ("halves", 24), ("equal", 2), ("equal", int(rng.integers(300, 1000)))]
    cases = _sizes(trials, edges, lambda: (str(rng.choice(["zipf", "ties", "zipf"])), int(rng.integers(3, 301))))
    for kind, size in cases:
        values, described = _counts(rng, kind, size)
        values = values.astype(np.int64)
        counts = {f"w{i}": int(value) for i, value in zip(rng.permutation(size), values, strict=True)}
        values = np.asarray(list(counts.values()), dtype=np.float64)
        where = f"W={_count(size, 'word')}, {described}"
        reference = _reference(values)
        try:
            result = _call(function, (dict(counts),), shapes=f"a dict of {size} words")
        except CheckFailed as failure:
            cause = failure.__cause__
            if not isinstance(cause, AssertionError) or isinstance(cause, CheckFailed):
                raise
            failures.add(where, _assertion_findings(cause, values, reference))
            continue
        if not isinstance(result, tuple | list) or len(result) != 3:
            raise CheckFailed(_sentence("Your function should return a tuple (entropy, mean_length, "
                                        f"balanced_length) of 3 numbers, got {_describe(result)}", where))
        got = tuple(_number(value, name[0].upper() + name[1:], where) for value, name in zip(result, _NAMES,
                                                                                             strict=True))
        if not all(_close(value, expected) for value, expected in zip(got, reference, strict=True)):
            failures.add(where, _findings(values, got, reference))
    returned = [trial for trial in failures.trials if not trial[1][0][0].startswith("assert:")]
    if returned:  # the numbers themselves say more than an assertion that stopped them
        failures.trials = returned
    failures.raise_if_any()
    _right(f"the entropy, the Huffman code's mean length and the balanced tree's match on {trials} random inputs "
           f"(W from {_span([size for _, size in cases])} words), and H <= L < H + 1 held on every one.")


def _assertion_findings(error: AssertionError, values: np.ndarray, reference) -> list[tuple[str, str]]:
    entropy, mean_length, _ = reference
    said = f" ({str(error).strip()[:120]})" if str(error).strip() else ""
    values_now = f"here H = {entropy:.6g} bits and the Huffman code's L = {mean_length:.6g}"
    if _dyadic(values):
        message = (f"Your function's assertion failed{said}, on counts where every p(w) is a power of 1/2: "
                   f"{values_now}, equal. The left side of the bound holds with equality here (H <= L, not H < L), "
                   "and an entropy computed in floats may land a rounding error above L; state the bound so that it "
                   "survives that")
        return [("assert:equality", message), (GENERIC, message)]
    message = (f"Your function's assertion failed{said}: {values_now}, and H <= L < H + 1 holds for every Huffman "
               "code, so one of the numbers it compares is wrong. The usual causes: the entropy in nats (natural "
               "log) instead of bits, or the plain mean of the code lengths instead of the mean weighted by the "
               "counts")
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
        (0, "entropy:nats", entropy * math.log(2), "Your entropy is in nats: you used the natural log. A code's "
                                                   "length is counted in bits, so the entropy takes log base 2"),
        (0, "entropy:log10", entropy * math.log10(2), "Your entropy uses log base 10; bits take log base 2"),
        (0, "entropy:sign", -entropy, "Your entropy has the wrong sign: H = -Σ p log2 p is never negative"),
        (0, "entropy:counts", float(-(values * np.log2(values)).sum()),
         "Your entropy uses the counts where the probabilities p(w) = count / total belong"),
        (0, "entropy:unweighted", float(-np.log2(p).mean()),
         "Your entropy is the plain mean of -log2 p(w) over the words; weight each by p(w)"),
        (0, "entropy:uniform", log2_size, "Your entropy is log2 W, the entropy of W equally frequent words, the "
                                          "largest there is; these words are not equally frequent"),
        (1, "length:unweighted", float(lengths.mean()),
         "Your mean code length is the plain mean over the words, each counted once; the mean that decides the "
         "cost per example weights each word's code length by its count: Σ c(w) L(w) / Σ c(w)"),
        (1, "length:total", float(values @ lengths), "Your mean code length is not divided by the total count"),
        (1, "length:shannon", float(p @ shannon),
         "Your mean code length is that of Shannon's code, ceil(-log2 p(w)) bits per word: it satisfies the bound "
         "too, but it is not optimal; a Huffman code is"),
        (1, "length:entropy", entropy, "Your mean code length is the entropy itself; a code spends a whole number "
                                       "of bits on each word, so measure the lengths of a Huffman code"),
        (1, "length:balanced", balanced, "Your mean code length is the balanced tree's; the Huffman tree gives the "
                                         "frequent words shorter codes"),
        (1, "length:longest", float(lengths.max()), "Your mean code length is the longest code's length"),
        (2, "balanced:ceil", log2_size, "Your balanced tree's code length is log2 W, which is not a whole number "
                                        "of bits unless W is a power of two: the ceil is missing, ceil(log2 W)"),
        (2, "balanced:floor", float(math.floor(log2_size)),
         "Your balanced tree's code length is floor(log2 W): that many bits give fewer than W different codes"),
        (2, "balanced:plus_one", float(math.floor(log2_size) + 1),
         "Your balanced tree's code length is floor(log2 W) + 1 (or W.bit_length()), one bit too many when W is "
         "a power of two: 2^k words need k bits"),
        (2, "balanced:nearly", float(p @ equal),
         "Your balanced tree's code length is the mean of a nearly balanced tree whose codes have floor or "
         "ceil(log2 W) bits; the balanced tree here gives every word the same code length, ceil(log2 W)"),
        (2, "balanced:nearly", float(equal.mean()),
         "Your balanced tree's code length is the mean of a nearly balanced tree whose codes have floor or "
         "ceil(log2 W) bits; the balanced tree here gives every word the same code length, ceil(log2 W)"),
    ]


def _findings(values: np.ndarray, got: tuple[float, float, float], reference) -> list[tuple[str, str]]:
    findings = []
    in_order = all(_close(g, r) for g, r in zip(got, reference, strict=True))
    if not in_order and all(_close(g, r) for g, r in zip(sorted(got), sorted(reference), strict=True)):
        findings.append(("order", "Your three numbers are right but in the wrong order: return (entropy, "
                                  "mean_length, balanced_length)"))
    for which, key, value, message in _candidates(values, reference):
        if _close(got[which], value) and not _close(value, reference[which]):
            findings.append((key, message))
    entropy, mean_length = got[:2]
    broken = not (entropy <= mean_length + BOUND_SLACK and mean_length < entropy + 1 + ATOL)
    note = "" if not broken or findings and findings[0][0] == "order" else (
        f"; and your function returned H = {entropy:.6g}, L = {mean_length:.6g}, which break H <= L < H + 1: "
        "assert the bound before returning, and it will stop such numbers")
    findings = [(key, message + note) for key, message in findings]
    wrong = [f"{name} is {value:.6g}, expected {expected:.6g}" for name, value, expected
             in zip(_NAMES, got, reference, strict=True) if not _close(value, expected)]
    return findings + [(GENERIC, "Your numbers differ from H = -Σ p log2 p, the Huffman code's Σ p(w) L(w) and "
                                 f"ceil(log2 W): {'; '.join(wrong)}{note}")]
