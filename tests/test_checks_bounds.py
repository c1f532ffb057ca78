"""The entropy-bound check of notebook 03: right answers pass, the usual mistakes fail with a message naming them."""

import heapq
import itertools
import math
from pathlib import Path

import numpy as np
import pytest

from course.teaching.assignments import read_notebook
from course.teaching.checks.bounds import _dyadic, _reference, check_entropy_bound
from course.teaching.checks.harness import CheckFailed
from course.text.vocab import Vocabulary
from tests.conftest import failure_message, graded_cell

NOTEBOOK = Path(__file__).resolve().parent.parent / "notebooks" / "03_cbow_hierarchical_softmax.ipynb"
SEEDS = (0, 1, 2)


def huffman_lengths(counts):
    """{word: code length} of a Huffman code, by a heap of its own (not the course's two queues)."""
    tiebreak = itertools.count()
    heap = [(count, next(tiebreak), {word: 0}) for word, count in counts.items()]
    heapq.heapify(heap)
    while len(heap) > 1:
        weight_0, _, depths_0 = heapq.heappop(heap)
        weight_1, _, depths_1 = heapq.heappop(heap)
        merged = {word: depth + 1 for word, depth in (depths_0 | depths_1).items()}
        heapq.heappush(heap, (weight_0 + weight_1, next(tiebreak), merged))
    return heap[0][2]


def entropy_bound(counts, *, log=np.log2, weighted=True, divide=True, lengths="huffman", balanced="ceil",
                  bound="tolerant", order=(0, 1, 2)):
    """The right answer, with switches that make one mistake each."""
    values = np.array(list(counts.values()), dtype=np.float64)
    p = values / values.sum()
    entropy = float(-(p * log(p)).sum())
    if lengths == "huffman":
        found = huffman_lengths(counts)
        code_lengths = np.array([found[word] for word in counts], dtype=np.float64)
    else:  # Shannon's code: ceil(-log2 p) bits
        code_lengths = np.ceil(-np.log2(p) - 1e-12)
    mean_length = float((values @ code_lengths) / (values.sum() if divide else 1)) if weighted \
        else float(code_lengths.mean())
    size = len(counts)
    balanced_length = {"ceil": float((size - 1).bit_length()), "none": math.log2(size),
                       "floor": float(math.floor(math.log2(size))), "bit_length": float(size.bit_length())}[balanced]
    if bound == "tolerant":
        assert entropy <= mean_length + 1e-9 and mean_length < entropy + 1, (entropy, mean_length)
    elif bound == "exact":
        assert entropy <= mean_length < entropy + 1, (entropy, mean_length)
    elif bound == "strict":
        assert entropy < mean_length < entropy + 1, (entropy, mean_length)
    answer = (entropy, mean_length, balanced_length)
    return tuple(answer[i] for i in order)


def wrong(**flags):
    def student(counts):
        return entropy_bound(counts, **flags)

    return student


def with_the_course_tree(counts):
    words = sorted(counts, key=lambda word: -counts[word])
    values = np.array([counts[word] for word in words], dtype=np.int64)
    lengths = Vocabulary(words, values, specials=()).huffman().lengths
    p = values / values.sum()
    entropy, mean_length = float(-(p * np.log2(p)).sum()), float(p @ lengths)
    assert entropy <= mean_length + 1e-9 and mean_length < entropy + 1
    return entropy, mean_length, float(math.ceil(math.log2(len(counts))))


def entropy_with_scipy(counts):
    """scipy's entropy in base 2: ln p / ln 2, a rounding error above L on some counts where H = L."""
    from scipy import stats

    entropy = float(stats.entropy(np.array(list(counts.values()), dtype=np.float64), base=2))
    mean_length = entropy_bound(counts)[1]
    assert entropy <= mean_length < entropy + 1
    return entropy, mean_length, float((len(counts) - 1).bit_length())


def entropy_by_division(counts, strict=True):
    values = np.array(list(counts.values()), dtype=np.float64)
    p = values / values.sum()
    entropy = float(-(p * np.log(p)).sum() / np.log(2))  # one rounding more than log2
    found = huffman_lengths(counts)
    mean_length = sum(count * found[word] for word, count in counts.items()) / values.sum()
    if strict:
        assert entropy <= mean_length < entropy + 1
    else:
        assert entropy <= mean_length + 1e-12 and mean_length < entropy + 1
    return entropy, mean_length, float((len(counts) - 1).bit_length())


# ---------------------------------------------------------------------------------- right answers


def test_a_right_answer_passes_with_one_line(capsys):
    check_entropy_bound(entropy_bound, seed=11)
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 1 and lines[0].startswith("Right:"), lines


def test_right_answers_pass_on_fresh_inputs_with_either_huffman_code(capsys):
    for student in (entropy_bound, with_the_course_tree):
        check_entropy_bound(student)
        check_entropy_bound(student, seed=2026, trials=60)
    assert capsys.readouterr().out.count("Right:") == 4


def test_a_rounding_error_is_fine_where_the_bound_allows_for_it():
    check_entropy_bound(lambda counts: entropy_by_division(counts, strict=False), seed=0)


def notebook_cell(grade_id):
    return graded_cell(NOTEBOOK, grade_id)


def test_the_notebooks_solution_passes_and_sits_before_its_grade_cell(capsys):
    namespace = {"np": np, "heapq": heapq}
    exec(notebook_cell("huffman_code"), namespace)  # the solution uses the Huffman code of the assignment before
    exec(notebook_cell("entropy_bound"), namespace)
    check_entropy_bound(namespace["entropy_bound"], seed=3, trials=40)
    assert capsys.readouterr().out.startswith("Right:")
    ids = [cell.get("id") for cell in read_notebook(NOTEBOOK).cells]
    assert ids.index("entropy-bound-task") + 1 == ids.index("entropy-bound-solution")
    assert ids.index("entropy-bound-solution") + 1 == ids.index("entropy-bound-check")
    assert "check_entropy_bound(entropy_bound)" in notebook_cell("entropy_bound_check")


# ------------------------------------------------------------------------------- mistakes found


MISTAKES = [  # (flags, phrases the message must contain)
    (dict(log=np.log), ["nats", "natural log"]),
    (dict(log=np.log, bound="none"), ["nats", "natural log"]),
    (dict(log=np.log10, bound="none"), ["log base 10"]),
    (dict(weighted=False), ["plain mean over the words", "weights each word's code length by its count"]),
    (dict(divide=False, bound="none"), ["not divided by the total count"]),
    (dict(lengths="shannon"), ["Shannon's code", "not optimal"]),
    (dict(balanced="none"), ["ceil is missing"]),
    (dict(balanced="floor"), ["floor(log2 W)", "fewer than W different codes"]),
    (dict(balanced="bit_length"), ["one bit too many when W is a power of two"]),
    (dict(order=(1, 0, 2), bound="none"), ["wrong order"]),
    (dict(bound="strict"), ["holds with equality", "H <= L, not H < L"]),
]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize(("flags", "phrases"), MISTAKES, ids=[str(flags) for flags, _ in MISTAKES])
def test_a_mistake_fails_with_a_message_that_names_it(flags, phrases, seed, capsys):
    message = failure_message(check_entropy_bound, wrong(**flags), capsys, seed=seed)
    for phrase in phrases:
        assert phrase in message, message
    assert "(with " in message


@pytest.mark.parametrize("seed", SEEDS)
def test_a_bound_that_a_rounding_error_breaks_is_named(seed):
    with pytest.raises(CheckFailed, match="rounding error above L") as failure:
        check_entropy_bound(entropy_by_division, seed=seed)
    assert "every p(w) is a power of 1/2" in str(failure.value)
    with pytest.raises(CheckFailed, match="rounding error above L"):
        check_entropy_bound(entropy_with_scipy, seed=seed)


def test_numbers_that_break_the_bound_without_an_assertion_are_told_to_assert_it():
    with pytest.raises(CheckFailed, match="assert the bound before returning") as failure:
        check_entropy_bound(wrong(weighted=False, bound="none"), seed=0)
    assert "plain mean over the words" in str(failure.value)


def test_an_assertion_that_stops_wrong_numbers_everywhere_names_the_usual_causes():
    def always_wrong(counts):
        raise AssertionError("nope")

    with pytest.raises(CheckFailed, match="assertion failed") as failure:
        check_entropy_bound(always_wrong, seed=0)
    message = str(failure.value)
    assert "nats" in message and "weighted by the counts" in message and "nope" in message


@pytest.mark.parametrize(("result", "phrase"), [((1.0, 2.0), "3 numbers"), ({"entropy": 1.0}, "3 numbers"),
                                                ((1.0, "two", 3.0), "one number"), ((np.ones(2), 1.0, 1.0),
                                                                                    "one number")])
def test_answers_of_the_wrong_form_are_named(result, phrase):
    with pytest.raises(CheckFailed, match=phrase):
        check_entropy_bound(lambda counts: result, seed=0)


def test_mistakes_are_found_without_a_seed():
    for _ in range(3):
        with pytest.raises(CheckFailed, match="natural log"):
            check_entropy_bound(wrong(log=np.log))


# ------------------------------------------------------------------------ errors and repeatability


def test_not_implemented_comes_through_unchanged():
    error = NotImplementedError()

    def student(counts):
        raise error

    with pytest.raises(NotImplementedError) as raised:
        check_entropy_bound(student)
    assert raised.value is error


def test_other_exceptions_become_check_failed():
    def student(counts):
        raise TypeError("unsupported operand")

    with pytest.raises(CheckFailed, match=r"^Your function raised TypeError: unsupported operand on inputs"):
        check_entropy_bound(student)


def test_a_check_wants_the_function_itself():
    with pytest.raises(TypeError, match="function itself"):
        check_entropy_bound(entropy_bound({"a": 1, "b": 2}))
    with pytest.raises(ValueError, match="trials"):
        check_entropy_bound(entropy_bound, trials=0)


def recorder():
    seen = []

    def student(counts):
        seen.append(dict(counts))
        return entropy_bound(counts)

    return student, seen


def test_a_seed_repeats_the_inputs(capsys):
    runs = []
    for seed in (5, 5, None):
        student, seen = recorder()
        check_entropy_bound(student, seed=seed, trials=12)
        runs.append(seen)
    assert len(runs[0]) == 12
    assert runs[0] == runs[1]
    assert runs[0] != runs[2]


def test_the_degenerate_inputs_come_first():
    student, seen = recorder()
    check_entropy_bound(student, seed=0, trials=20)
    values = [np.array(list(counts.values())) for counts in seen]
    assert len(values[0]) == 2 and values[0][0] != values[0][1]                       # two words
    assert values[1].max() > 1000 * (values[1].sum() - values[1].max())              # one word dominating
    equal = [v for v in values if len(set(v.tolist())) == 1]
    assert any(len(v) & (len(v) - 1) for v in equal)                                  # all equal, W not 2^k
    assert any(len(v) >= 512 and not len(v) & (len(v) - 1) for v in equal)           # all equal, W = 2^k
    assert any(not len(v) & (len(v) - 1) and len(set(v.tolist())) > 1 for v in values)  # W = 2^k, unequal
    assert sum(_dyadic(v) for v in values) >= 3 and any(_dyadic(v) and len(set(v.tolist())) > 2 for v in values)
    assert all(min(counts.values()) >= 1 and len(counts) >= 2 for counts in seen)


# -------------------------------------------------------------------- agreement with the package


def test_the_reference_is_the_course_tree_and_obeys_the_bound():
    rng = np.random.default_rng(0)
    for size in [2, 3, 4, 7, 16, 100, 257]:
        values = rng.integers(1, 10_000, size).astype(np.float64)
        entropy, mean_length, balanced = _reference(values)
        counts = {f"w{i}": int(value) for i, value in enumerate(values)}
        found = huffman_lengths(counts)
        assert mean_length == pytest.approx(sum(counts[w] * found[w] for w in counts) / values.sum(), rel=1e-12)
        assert entropy <= mean_length < entropy + 1
        assert mean_length <= balanced == math.ceil(math.log2(size))


def test_dyadic_counts_reach_the_entropy_exactly():
    for values in ([1, 1], [2, 1, 1], [8, 4, 2, 1, 1], [5] * 64):
        values = np.array(values, dtype=np.float64)
        assert _dyadic(values)
        entropy, mean_length, _ = _reference(values)
        assert entropy == mean_length
    assert not _dyadic(np.array([3.0, 1.0, 1.0]))
