"""The checks' shared machinery: tolerances, the collected failures and their messages, calling a student's
function safely, and random inputs (Zipf counts, vocabularies)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from ...core.edition import current_edition, text
from ...text.vocab import Vocabulary

RTOL = 1e-5  # relative tolerance of every comparison: room for float32 arithmetic, far below any mistake
ATOL = 1e-9
TORCH_ATOL = 1e-5  # float32 tensors of values of order 1
GOLDEN_SQUARED = (3 + 5**0.5) / 2  # f / t above which word2vec.c's keep probability drops below 1


class CheckFailed(AssertionError):
    """Your function gave a wrong answer; the message says what is wrong and where it showed."""


# ------------------------------------------------------------------------------------ machinery


GENERIC = "generic"  # the key of the finding that only says the answer differs, last in every list


def compares_with(*references: str):
    """Declare the course's own implementations a check compares answers with, as ``"module:qualname"``
    (``"course.text.vocab:Vocabulary.huffman"``), with the private helpers that compute them; none for a check
    whose reference is its own closed form. The grader leaves the declared ones out of the kernel that runs a
    student's notebook (:mod:`course.teaching.student_package`); ``tests/test_student_package.py`` holds every
    check to a declaration that names each course function it runs."""
    def declare(check):
        check.references = tuple(references)
        return check

    return declare


@dataclass
class Failures:
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
                        raise CheckFailed(sentence_at(message, where))
        where, findings = self.trials[0]
        raise CheckFailed(sentence_at(findings[-1][1], where))


def sentence_at(message: str, where: str) -> str:
    return text("check with", message=message, where=where)


def as_subject(name: str) -> str:
    """``name`` as the subject of a sentence: in Chinese a code name (``grad_center``) is set off from the
    characters after it by a space."""
    return f"{name} " if current_edition() == "zh" and name[-1:].isascii() and name[-1:].isalnum() else name


def start_check(function, name: str, seed: int | None, trials: int) -> tuple[np.random.Generator, Failures]:
    if not callable(function):
        raise TypeError(text("check takes a function", name=name, got=type(function).__name__))
    if not isinstance(trials, int) or trials < 1:
        raise ValueError(text("check trials", trials=trials))
    return np.random.default_rng(seed), Failures()


def trial_inputs(trials: int, edges: Sequence, draw: Callable[[], object]) -> list:
    """The edge cases first, then ``draw()`` for the remaining trials."""
    return [edges[i] if i < len(edges) else draw() for i in range(trials)]


def call_answer(function, args: tuple, kwargs: dict | None = None, *, shapes: str):
    """``function(*args, **kwargs)``; any exception but NotImplementedError becomes CheckFailed."""
    try:
        return function(*args, **(kwargs or {}))
    except NotImplementedError:
        raise
    except Exception as exc:
        raise CheckFailed(text("check raised", error=type(exc).__name__, detail=str(exc).rstrip('.'),
                               shapes=shapes)) from exc


def describe(value) -> str:
    shape = getattr(value, "shape", None)
    if shape is not None:
        return text("check described shape", kind=f"{type(value).__module__.split('.')[0]}.{type(value).__name__}",
                    shape=tuple(shape))
    if isinstance(value, tuple | list):
        return text("check described items", kind=type(value).__name__, n=len(value))
    return f"{type(value).__name__} {value!r}"[:80]


def answer_array(value, name: str, shape: tuple[int, ...], symbols: str, where: str, finite: bool = True,
                 hint: str = "") -> np.ndarray:
    """``value`` as a float64 array of ``shape``, or CheckFailed saying why not (``hint`` after a wrong
    shape; ``finite=False`` lets nan and inf through, for a check that says where they are)."""
    try:
        array = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError, RuntimeError) as exc:
        raise CheckFailed(sentence_at(text("check not numbers", name=as_subject(name), got=describe(value), error=exc),
                                      where)) from None
    if array.shape != shape:
        wanted = f"{symbols} = {shape}" if symbols else f"{shape}"
        raise CheckFailed(sentence_at(text("check wrong shape", name=as_subject(name), wanted=wanted, shape=array.shape,
                                           hint=hint), where))
    if finite and not np.all(np.isfinite(array)):
        raise CheckFailed(sentence_at(text("check not finite", name=as_subject(name)), where))
    return array


def answer_number(value, name: str, where: str) -> float:
    """``value`` as one float, or CheckFailed saying why not."""
    try:
        array = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError, RuntimeError) as exc:
        raise CheckFailed(sentence_at(text("check not one number", name=as_subject(name), got=describe(value),
                                           error=exc), where)) from None
    if array.size != 1:
        raise CheckFailed(sentence_at(text("check not one number shape", name=as_subject(name), shape=array.shape),
                                      where))
    number = float(array.reshape(()))
    if not np.isfinite(number):
        raise CheckFailed(sentence_at(text("check number is", name=as_subject(name), number=number), where))
    return number


def close_to(value, reference, atol: float = ATOL) -> bool:
    value, reference = np.asarray(value, dtype=np.float64), np.asarray(reference, dtype=np.float64)
    return value.shape == reference.shape and bool(np.allclose(value, reference, rtol=RTOL, atol=atol))


def span_of(values) -> str:
    low, high = min(values), max(values)
    return f"{low}" if low == high else text("check span", low=low, high=high)


def how_many(number: int, noun: str) -> str:
    """``number`` things, as the catalogue's ``check count <noun>`` (one) or ``check count <noun>s`` says it."""
    return text(f"check count {noun}" if number == 1 else f"check count {noun}s", n=number)


def say_right(message: str) -> None:
    print(text("check right", message=message))


def zipf_counts(rng: np.random.Generator, size: int) -> np.ndarray:
    """``(size,)`` int64 word counts, roughly Zipfian, in random order."""
    ranks = rng.permutation(size) + 1
    top = rng.uniform(1e3, 1e5)
    return np.maximum(1, np.round(top / ranks ** rng.uniform(0.7, 1.3))).astype(np.int64)


def random_vocabulary(counts: np.ndarray) -> Vocabulary:
    return Vocabulary([f"w{i}" for i in range(len(counts))], counts, specials=())


def worst_difference(value: np.ndarray, reference: np.ndarray) -> str:
    """Where two arrays differ most, in words."""
    index = np.unravel_index(np.argmax(np.abs(value - reference)), reference.shape)
    at = index[0] if len(index) == 1 else tuple(int(i) for i in index)
    return text("check worst", difference=abs(value[index] - reference[index]), at=at)
