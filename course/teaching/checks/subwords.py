"""Check of the BPE assignment (notebook 03): the learning loop of byte-pair encoding, against
:func:`course.text.subwords.learn_bpe` on random small word counts."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ...core.edition import text
from ...text.subwords import END_OF_WORD, learn_bpe, merge_pair
from .harness import (
    GENERIC,
    CheckFailed,
    call_answer,
    compares_with,
    describe,
    how_many,
    say_right,
    sentence_at,
    span_of,
    start_check,
    trial_inputs,
)

Pair = tuple[str, str]


# ------------------------------------------------------------------------- the usual mistakes, as code


def _merge_right_to_left(symbols: list[str], pair: Pair) -> list[str]:
    return merge_pair(symbols[::-1], pair[::-1])[::-1] if pair[0] == pair[1] else merge_pair(symbols, pair)


def _merge_by_replace(symbols: list[str], pair: Pair) -> list[str]:
    """``" ".join(symbols).replace("a b", "ab")``: also glues the ends of longer symbols (``xa b`` -> ``xab``)."""
    return " ".join(symbols).replace(f"{pair[0]} {pair[1]}", pair[0] + pair[1]).split(" ")


def _non_overlapping(symbols: list[str], pair: Pair) -> int:
    return len(symbols) - len(merge_pair(symbols, pair))


def _variant(word_counts: Mapping[str, int], merges: int, *, weighted: bool = True, marker: bool = True,
             merge=merge_pair, overlaps: bool = True, ties: str = "smallest", across: bool = False) -> list[Pair]:
    """BPE by the plain loop with one mistake switched on (or none: then it is ``learn_bpe``)."""
    end = [END_OF_WORD] if marker else []
    words = [[*word, *end] for word in word_counts]
    counts = [int(count) if weighted else 1 for count in word_counts.values()]
    if across:  # one stream: each word `count` times in a row, the words in the order of the table
        words = [[symbol for word, count in zip(words, counts, strict=True) for _ in range(count) for symbol in word]]
        counts = [1]
    learned: list[Pair] = []
    for _ in range(merges):
        frequency: dict[Pair, int] = {}
        for symbols, count in zip(words, counts, strict=True):
            seen = list(zip(symbols, symbols[1:], strict=False))
            for pair in dict.fromkeys(seen):
                times = seen.count(pair) if overlaps or pair[0] != pair[1] else _non_overlapping(symbols, pair)
                frequency[pair] = frequency.get(pair, 0) + count * times
        if not frequency:
            break
        top = max(frequency.values())
        tied = [pair for pair in frequency if frequency[pair] == top]        # in the order first seen
        best = {"smallest": min(tied), "largest": max(tied), "first": tied[0]}[ties]
        learned.append(best)
        words = [merge(symbols, best) for symbols in words]
    return learned


_MISTAKES = [  # (key, the switches, what is wrong: its key in the catalogue, formatted with end=END_OF_WORD)
    ("unweighted", dict(weighted=False), "check bpe unweighted"),
    ("marker", dict(marker=False), "check bpe marker"),
    ("across", dict(across=True), "check bpe across"),
    ("right", dict(merge=_merge_right_to_left), "check bpe right to left"),
    ("overlaps", dict(overlaps=False), "check bpe overlaps"),
    ("replace", dict(merge=_merge_by_replace), "check bpe replace"),
    ("ties:first", dict(ties="first"), "check bpe ties first"),
    ("ties:largest", dict(ties="largest"), "check bpe ties largest"),
]


def _mistake(index: int) -> str:
    """What is wrong in mistake ``index`` of ``_MISTAKES``, in the current edition."""
    return text(_MISTAKES[index][2], end=END_OF_WORD)


# ------------------------------------------------------------------------------------------ the check


def _table(rng: np.random.Generator, kind: str) -> tuple[dict[str, int], int, str]:
    """A word count table of one kind, the number of merges to ask for, and the kind in words."""
    if kind == "one":
        letter, length = str(rng.choice(list("abc"))), int(rng.integers(3, 8))
        return {letter * length: int(rng.integers(1, 9))}, length + 2, text("check bpe one word")  # too many
    if kind == "runs":
        words = {"a" * n: int(rng.integers(1, 6)) for n in rng.choice(np.arange(1, 8), 3, replace=False)}
        return words | {"ba": int(rng.integers(1, 6))}, 6, text("check bpe runs")
    if kind == "ties":
        size = int(rng.integers(3, 8))
        words = {"".join(rng.choice(list("abcd"), int(rng.integers(2, 6)))) for _ in range(size)}
        return {word: 1 for word in sorted(words, key=lambda _: rng.random())}, 6, text("check bpe ties")
    if kind == "skewed":  # one frequent word against several rarer words that share a pair
        frequent = "".join(rng.choice(list("ab"), 3))
        table = {frequent: int(rng.integers(20, 40))}
        for _ in range(4):
            table.setdefault("".join(rng.choice(list("cd"), int(rng.integers(2, 5)))), 1)
        return dict(sorted(table.items(), key=lambda _: rng.random())), 5, text("check bpe skewed")
    size = int(rng.integers(3, 16))
    alphabet = list("abcdefgh"[: int(rng.integers(2, 7))])
    table: dict[str, int] = {}
    while len(table) < size:
        table.setdefault("".join(rng.choice(alphabet, int(rng.integers(1, 9)))), int(np.ceil(40 / rng.integers(1, 41))))
    return table, int(rng.integers(3, 25)), text("check bpe random words")


def _merges(value, where: str) -> list[Pair]:
    """The student's answer as a list of pairs of strings, or CheckFailed saying why not."""
    form = text("check bpe form", end=END_OF_WORD)
    if not isinstance(value, list | tuple):
        raise CheckFailed(sentence_at(text("check bpe returns", form=form, got=describe(value)), where))
    pairs = []
    for item in value:
        if not isinstance(item, list | tuple) or len(item) != 2 or not all(isinstance(s, str) for s in item):
            raise CheckFailed(sentence_at(text("check bpe returns item", form=form, got=describe(item)), where))
        pairs.append((item[0], item[1]))
    return pairs


def _replay(word_counts: Mapping[str, int], got: list[Pair], expected: list[Pair]) -> list[tuple[str, str]]:
    """Findings at the first merge where ``got`` leaves ``expected``: the counts there say what went wrong."""
    step = next((k for k, (a, b) in enumerate(zip(got, expected, strict=False)) if a != b), min(len(got),
                                                                                                 len(expected)))
    if step == len(expected) < len(got):
        return [(GENERIC, text("check bpe too many", got=len(got), possible=len(expected), step=step))]
    if step == len(got) < len(expected):
        return [(GENERIC, text("check bpe too few", got=len(got), possible=len(expected), step=step + 1,
                               expected=expected[step]))]
    words = [[*word, END_OF_WORD] for word in word_counts]
    for pair in expected[:step]:
        words = [merge_pair(symbols, pair) for symbols in words]
    frequency: dict[Pair, int] = {}
    for symbols, count in zip(words, word_counts.values(), strict=True):
        for pair in zip(symbols, symbols[1:], strict=False):
            frequency[pair] = frequency.get(pair, 0) + int(count)
    mine, right = got[step], expected[step]
    at = text("check bpe at", step=step + 1, mine=mine, right=right)
    if mine not in frequency:
        return [(GENERIC, text("check bpe not adjacent", at=at, step=step, mine=mine))]
    if frequency[mine] == frequency[right]:
        return [("ties", text("check bpe tied", at=at, times=frequency[right]))]
    once = sum(int(count) for symbols, count in zip(words, word_counts.values(), strict=True)
               if right in zip(symbols, symbols[1:], strict=False))          # each word's occurrences counted once
    if right[0] == right[1] and once <= frequency[mine] < frequency[right]:
        overlaps = _mistake(4)
        return [("overlaps", text("check bpe overlapping", at=at, right=right, times=frequency[right],
                                  overlaps=overlaps[0].lower() + overlaps[1:]))]
    return [(GENERIC, text("check bpe not the most frequent", at=at, step=step, mine=mine, mine_times=frequency[mine],
                           right=right, right_times=frequency[right]))]


def _findings(word_counts: Mapping[str, int], merges: int, got: list[Pair],
              expected: list[Pair]) -> list[tuple[str, str]]:
    findings = []
    if any(END_OF_WORD in left for left, _ in got):
        findings.append(("across", _mistake(2)))
    elif expected and any(END_OF_WORD in left + right for left, right in expected) \
            and not any(END_OF_WORD in left + right for left, right in got):
        findings.append(("marker", _mistake(1)))
    for index, (key, switches, _) in enumerate(_MISTAKES):
        if key not in {found for found, _ in findings} and got == _variant(word_counts, merges, **switches):
            findings.append((key, _mistake(index)))
    return findings + _replay(word_counts, got, expected)


@compares_with("course.text.subwords:learn_bpe", "course.text.subwords:merge_pair")
def check_bpe_merges(function, *, seed: int | None = None, trials: int = 20) -> None:
    """Check ``function(word_counts, merges) -> [(a, b), ...]``.

    Inputs: ``word_counts`` a dict {word: count} (words of letters, counts >= 1) and ``merges`` a whole number.
    Expected: the merges :func:`course.text.subwords.learn_bpe` learns, in order: each word starts as its characters
    and ``"</w>"``; adjacent pairs are counted within words, weighted by the words' counts, overlaps included;
    the most frequent pair is merged left to right in every word; ties go to the smallest pair in string order;
    the loop stops early when every word is one symbol.
    """
    rng, failures = start_check(function, "bpe_merges", seed, trials)
    kinds = trial_inputs(trials, ["one", "runs", "ties", "skewed", "runs", "ties"],
                         lambda: str(rng.choice(["random", "random", "ties", "runs", "skewed"])))
    sizes = []
    for kind in kinds:
        word_counts, merges, described = _table(rng, kind)
        sizes.append(len(word_counts))
        where = text("check bpe where", words=how_many(len(word_counts), "word"), described=described, merges=merges)
        result = call_answer(function, (dict(word_counts), merges),
                             shapes=text("check dict of words", n=len(word_counts)))
        got = _merges(result, where)
        expected = learn_bpe(word_counts, merges)
        if got != expected:
            failures.add(where, _findings(word_counts, merges, got, expected))
    failures.raise_if_any()
    say_right(text("check bpe right", trials=trials, span=span_of(sizes)))
