"""The WEAT check of notebook 05: right answers pass, the usual mistakes fail with a message naming them."""

import itertools
from pathlib import Path

import numpy as np
import pytest

from course.teaching.assignments import read_notebook
from course.teaching.checks.bias import check_weat_effect_size
from course.teaching.checks.harness import CheckFailed
from tests.conftest import failure_message, graded_cell

NOTEBOOK = Path(__file__).resolve().parent.parent / "notebooks" / "05_comparing_static_vectors.ipynb"
SEEDS = (0, 1, 2)


def weat_by_hand(X, Y, A, B, *, cosine=True, std="pooled", attributes=np.mean, tail="greater", swap=False):
    """WEAT written out from the paper's definitions, with switches that make one mistake each."""
    X, Y, A, B = (np.asarray(m, dtype=np.float64) for m in (X, Y, A, B))
    if cosine:
        X, Y, A, B = (m / np.linalg.norm(m, axis=1, keepdims=True) for m in (X, Y, A, B))
    if swap:
        A, B = B, A

    def s(w):
        return attributes(A @ w) - attributes(B @ w)

    s_x, s_y = np.array([s(x) for x in X]), np.array([s(y) for y in Y])
    both = np.concatenate([s_x, s_y])
    spread = {"pooled": np.std(both, ddof=1), "population": np.std(both), "x_only": np.std(s_x, ddof=1),
              "none": 1.0}[std]
    effect_size = (s_x.mean() - s_y.mean()) / spread
    observed = s_x.mean() - s_y.mean()
    count = total = 0
    for chosen in itertools.combinations(range(len(both)), len(X)):
        inside = np.isin(np.arange(len(both)), chosen)
        difference = both[inside].mean() - both[~inside].mean()
        total += 1
        count += {"greater": difference >= observed - 1e-12, "strict": difference > observed + 1e-12,
                  "two_sided": abs(difference) >= abs(observed) - 1e-12,
                  "less": difference <= observed + 1e-12}[tail]
    return float(effect_size), count / total


def wrong(**flags):
    def student(X, Y, A, B):
        return weat_by_hand(X, Y, A, B, **flags)

    return student


def test_a_right_answer_passes_with_one_line(capsys):
    check_weat_effect_size(weat_by_hand, seed=11)
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 1 and lines[0].startswith("Right:"), lines


def test_right_answers_pass_on_fresh_inputs(capsys):
    check_weat_effect_size(weat_by_hand)
    check_weat_effect_size(weat_by_hand, seed=2026, trials=40)
    assert capsys.readouterr().out.count("Right:") == 2


def notebook_cell(grade_id):
    return graded_cell(NOTEBOOK, grade_id)


def test_the_notebooks_solution_passes_and_sits_before_its_grade_cell(capsys):
    namespace = {"np": np, "itertools": itertools}
    exec(notebook_cell("weat_effect_size"), namespace)
    check_weat_effect_size(namespace["weat_effect_size"], seed=3, trials=40)
    assert capsys.readouterr().out.startswith("Right:")
    ids = [cell.get("id") for cell in read_notebook(NOTEBOOK).cells]
    assert ids.index("weat-task") + 1 == ids.index("weat-solution")
    assert ids.index("weat-solution") + 1 == ids.index("weat-check")
    assert "check_weat_effect_size(weat_effect_size)" in notebook_cell("weat_effect_size_check")


MISTAKES = [  # (flags, phrases the message must contain)
    (dict(std="x_only"), ["over X only"]),
    (dict(std="none"), ["without dividing by the standard deviation"]),
    (dict(std="population"), ["ddof=0", "ddof=1"]),
    (dict(cosine=False), ["raw dot products", "cosine"]),
    (dict(swap=True), ["sign turned round"]),
    (dict(attributes=np.sum), ["sums the cosines"]),
    (dict(tail="strict"), ["strictly above", "observed split itself is missing"]),
    (dict(tail="two_sided"), ["two-sided"]),
    (dict(tail="less"), ["the other tail"]),
]


def _named(flags: dict) -> str:
    return ",".join(f"{key}={getattr(value, '__name__', value)}" for key, value in flags.items())


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize(("flags", "phrases"), MISTAKES, ids=[_named(flags) for flags, _ in MISTAKES])
def test_a_mistake_fails_with_a_message_that_names_it(flags, phrases, seed, capsys):
    message = failure_message(check_weat_effect_size, wrong(**flags), capsys, seed=seed)
    for phrase in phrases:
        assert phrase in message, message
    assert "(with n_X=" in message


def test_a_p_value_of_one_minus_the_right_one_is_named(capsys):
    def complement(X, Y, A, B):
        effect_size, p_value = weat_by_hand(X, Y, A, B)
        return effect_size, 1 - p_value

    assert "1 minus the right one" in failure_message(check_weat_effect_size, complement, capsys, seed=0)


def test_a_p_value_off_the_grid_of_splits_is_named(capsys):
    def smoothed(X, Y, A, B):
        effect_size, p_value = weat_by_hand(X, Y, A, B)
        return effect_size, p_value * 0.97 + 0.001

    message = failure_message(check_weat_effect_size, smoothed, capsys, seed=0)
    assert "not a whole number of splits" in message


@pytest.mark.parametrize(("result", "phrase"), [(0.5, "of 2 numbers"),
                                                ((0.5, 0.1, 3), "of 2 numbers"),
                                                ((np.ones(3), 0.1), "one number"), ((0.5, float("nan")), "nan")])
def test_answers_of_the_wrong_form_are_named(result, phrase):
    with pytest.raises(CheckFailed, match=phrase):
        check_weat_effect_size(lambda X, Y, A, B: result, seed=0)


def test_not_implemented_comes_through_unchanged():
    def unfinished(X, Y, A, B):
        raise NotImplementedError()

    with pytest.raises(NotImplementedError):
        check_weat_effect_size(unfinished, seed=0)


def test_an_error_in_the_students_function_becomes_a_check_failure_with_the_shapes():
    with pytest.raises(CheckFailed, match=r"raised ZeroDivisionError.*X \(2, 3\)"):
        check_weat_effect_size(lambda X, Y, A, B: 1 / 0, seed=0)


def test_the_check_does_not_hand_its_inputs_to_be_changed_in_place():
    def normalises_in_place(X, Y, A, B):
        for m in (X, Y, A, B):
            m /= np.linalg.norm(m, axis=1, keepdims=True)
        return weat_by_hand(X, Y, A, B)

    check_weat_effect_size(normalises_in_place, seed=4)


def test_mistakes_are_found_without_a_seed():
    for _ in range(3):
        with pytest.raises(CheckFailed, match="over X only"):
            check_weat_effect_size(wrong(std="x_only"))
