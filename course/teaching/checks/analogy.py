"""Check of the analogy assignment (notebook 05): 3CosAdd over unit vectors."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...core.edition import text
from .harness import (
    GENERIC,
    CheckFailed,
    call_answer,
    compares_with,
    describe,
    say_right,
    sentence_at,
    span_of,
    start_check,
    trial_inputs,
)

# ------------------------------------------------------------------------------- 3CosAdd analogy


def _analogy_scores(vectors: np.ndarray, abc: Sequence[int], coefficients=(-1, 1, 1), unit_offset: bool = True,
                    cosine: bool = True, exclude: bool = True) -> np.ndarray:
    """``(V,)`` the score of every word as the answer to a : b :: c : ? (3CosAdd, as
    :func:`course.analysis.evaluate.evaluate_analogies` computes it, unless told otherwise).

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


_ANALOGY_MISTAKES = [  # (key, what is wrong: its key in the catalogue, arguments of _analogy_scores)
    ("unit", "check analogy unit offset", {"unit_offset": False}),
    ("unit", "check analogy dot product", {"cosine": False}),
    ("unit", "check analogy not unit", {"unit_offset": False, "cosine": False}),
    ("offset", "check analogy a - b + c", {"coefficients": (1, -1, 1)}),
    ("offset", "check analogy a + b - c", {"coefficients": (1, 1, -1)}),
    ("offset", "check analogy b + c", {"coefficients": (0, 1, 1)}),
    ("offset", "check analogy b - a", {"coefficients": (-1, 1, 0)}),
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


@compares_with("course.analysis.evaluate:_answer")
def check_analogy_3cosadd(function, *, seed: int | None = None, trials: int = 20) -> None:
    """Check ``function(kv, a, b, c) -> word``.

    Inputs: ``kv`` a gensim ``KeyedVectors`` of V random vectors ``(V, d)`` of uneven length, and three
    of its words a, b, c. Expected: the word d (a str) of "a is to b as c is to d": the word other than
    a, b and c whose unit vector has the largest cosine with b̂ - â + ĉ (the 3CosAdd of
    :func:`course.analysis.evaluate.evaluate_analogies`).
    """
    from gensim.models import KeyedVectors

    rng, failures = start_check(function, "analogy_3cosadd", seed, trials)
    kinds = ("exclude", "unit", "offset", "plain")
    sizes = trial_inputs(trials, [(4, 2, "exclude"), (5, 3, "plain")],
                         lambda: (int(rng.integers(8, 61)), int(rng.integers(3, 26)), None))
    for trial, (size, dim, kind) in enumerate(sizes):
        vectors, abc = _analogy_case(rng, size, dim, kind or kinds[trial % len(kinds)])
        words = [f"w{i:02d}" for i in range(size)]
        kv = KeyedVectors(dim)
        kv.add_vectors(words, vectors.astype(np.float32))
        a, b, c = (words[i] for i in abc)
        where = text("check analogy where", size=size, dim=dim, a=a, b=b, c=c)
        answer = call_answer(function, (kv, a, b, c), shapes=text("check analogy shapes", size=size, dim=dim))
        _check_word(answer, kv, where)
        scores = _analogy_scores(vectors, abc)
        right = words[int(np.argmax(scores))]
        if answer != right:
            failures.add(where, _analogy_findings(vectors, abc, words, answer, right, scores))
    failures.raise_if_any()
    say_right(text("check analogy right", trials=trials, size=span_of([s for s, _, _ in sizes]),
                   dim=span_of([d for _, d, _ in sizes])))


def _check_word(answer, kv, where: str) -> None:
    if isinstance(answer, str):
        if answer not in kv.key_to_index:
            raise CheckFailed(sentence_at(text("check analogy not in kv", answer=answer), where))
        return
    if isinstance(answer, tuple | list) and answer and isinstance(answer[0], str):
        hint = text("check analogy got a sequence", got=describe(answer), first=answer[0])
    elif isinstance(answer, int | np.integer):
        hint = text("check analogy got an index", index=int(answer))
    else:
        hint = text("check analogy got something else", got=describe(answer))
    raise CheckFailed(sentence_at(text("check analogy returns", hint=hint), where))


def _analogy_findings(vectors, abc, words, answer, right, scores) -> list[tuple[str, str]]:
    index = words.index(answer)
    findings = []
    if index in abc:
        findings.append(("fact:exclude", text("check analogy question word", answer=answer)))
    for key, wrong, kwargs in _ANALOGY_MISTAKES:
        if int(np.argmax(_analogy_scores(vectors, abc, **kwargs))) == index:
            findings.append((key, text("check analogy mistake", answer=answer, wrong=text(wrong), right=right)))
    cosines = _analogy_scores(vectors, abc, exclude=False)
    return findings + [(GENERIC, text("check analogy differs", answer=answer, right=right, best=scores.max(),
                                      yours=cosines[index]))]
