"""The checks of notebooks 00 and 01: the OOV rate that the training counts predict, and PPMI. Right answers
pass, the usual mistakes fail with a message that names them, and the teacher's solutions in the notebooks pass."""

import subprocess
import sys
import warnings

import numpy as np
import pytest
import scipy.sparse as sp

from course.core.errors import EmptyVocabularyError
from course.core.paths import project_root
from course.counts.count_vectors import ppmi
from course.teaching.assignments import read_notebook
from course.teaching.checks import CheckFailed
from course.teaching.checks import corpus as corpus_checks
from course.teaching.checks.corpus import check_oov_rate_estimate, check_positive_pmi
from course.text.vocab import Vocabulary, VocabularyConfig
from tests.conftest import failure_message

SEEDS = (0, 1, 2)


# ---------------------------------------------------------------------------------- right answers


def oov_rate_estimate(counts, min_counts, *, below=False, extra=0, from_two=False, types=False, zeros_as_types=False,
                      over=0, share=True, sort=False, covered=False):
    """The leave-one-out estimate, with flags that introduce one mistake each."""
    counts = np.asarray(counts)
    thresholds = np.sort(min_counts) if sort else np.asarray(min_counts)
    rates = []
    for m in thresholds:
        chosen = (counts >= 1) & ((counts < m) if below else (counts <= m + extra))
        if from_two:
            chosen &= counts >= 2
        if types:
            rates.append(chosen.sum() / (len(counts) if zeros_as_types else (counts > 0).sum()))
            continue
        tokens = counts[chosen].sum()
        rates.append(tokens / (counts.sum() - over) if share else tokens)
    rates = np.asarray(rates, dtype=float)
    return 1 - rates if covered else rates


def good_turing(counts, min_counts):
    """Σ_{r < m} (r + 1) N_{r+1} / N, the way Good and Turing write it."""
    frequency_of_frequency = np.bincount(counts, minlength=int(np.max(min_counts)) + 2)  # N_r
    return np.array([sum((r + 1) * frequency_of_frequency[r + 1] for r in range(m)) / counts.sum()
                     for m in min_counts])


def good_turing_no_padding(counts, min_counts):  # breaks when min_count is above the largest count
    frequency_of_frequency = np.bincount(counts)
    return np.array([sum((r + 1) * frequency_of_frequency[r + 1] for r in range(m)) / counts.sum()
                     for m in min_counts])


def positive_pmi(counts, alpha=0.75, *, context_power=None, word_power=1.0, normalise=True, base=np.e, clip=True,
                 add=0.0):
    """PPMI over the cells seen, with flags that introduce one mistake each."""
    counts = np.asarray(counts, dtype=float) + add
    total = counts.sum()
    word_sums, context_sums = counts.sum(axis=1) ** word_power, counts.sum(axis=0)
    p_word = word_sums / word_sums.sum()
    powered = context_sums ** (alpha if context_power is None else context_power)
    p_context = powered / powered.sum() if normalise else (context_sums / total) ** alpha
    rows, cols = np.nonzero(counts)
    pmi = (np.log(counts[rows, cols] / total) - np.log(p_word[rows]) - np.log(p_context[cols])) / np.log(base)
    result = np.zeros_like(counts)
    result[rows, cols] = np.maximum(pmi, 0.0) if clip else pmi
    return result


def pmi_through_the_zeros(counts, alpha=0.75, *, tidy=True):
    """The formula on every cell, then nan and -inf replaced by 0 (tidy) or left in (not tidy)."""
    counts = np.asarray(counts, dtype=float)
    total = counts.sum()
    p_context = counts.sum(axis=0) ** alpha / (counts.sum(axis=0) ** alpha).sum()
    values = np.maximum(0, np.log(counts / total / np.outer(counts.sum(axis=1) / total, p_context)))
    return np.nan_to_num(values, nan=0.0) if tidy else values


def pmi_quietly(counts, alpha=0.75):
    with np.errstate(divide="ignore", invalid="ignore"):
        return pmi_through_the_zeros(counts, alpha, tidy=False)


def package_ppmi(counts, alpha=0.75):
    return ppmi(sp.csr_matrix(counts), context_smoothing=alpha)  # a sparse result is accepted


def swapped_marginals(counts, alpha=0.75):
    counts = np.asarray(counts, dtype=float)
    total = counts.sum()
    p_word = counts.sum(axis=0) / total  # (C,): the column sums
    powered = counts.sum(axis=1) ** alpha  # (V,)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.nan_to_num(np.maximum(0, np.log(counts / total / (p_word[:, None] * powered / powered.sum()))))


def wrong(function, **flags):
    def student(*args, **kwargs):
        return function(*args, **kwargs, **flags)

    return student


CHECKS = {"oov_rate_estimate": check_oov_rate_estimate, "positive_pmi": check_positive_pmi}
RIGHT = {"oov_rate_estimate": [oov_rate_estimate, good_turing],
         "positive_pmi": [positive_pmi, package_ppmi]}


@pytest.mark.parametrize(("name", "function"), [(name, f) for name, fs in RIGHT.items() for f in fs],
                         ids=lambda value: getattr(value, "__name__", value))
def test_a_right_answer_passes_with_one_line(name, function, capsys):
    CHECKS[name](function, seed=11)
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 1 and lines[0].startswith("Right:"), lines


@pytest.mark.parametrize("name", sorted(CHECKS))
def test_a_right_answer_passes_on_fresh_inputs(name, capsys):
    CHECKS[name](RIGHT[name][0])
    CHECKS[name](RIGHT[name][0], seed=2026, trials=50)
    assert capsys.readouterr().out.count("Right:") == 2


# -------------------------------------------------------------------------- the references themselves


def leave_one_out_by_hand(counts, m):
    """Take out each token in turn, build the course's Vocabulary from the rest, look the token up."""
    outside = 0
    for word, count in enumerate(counts):
        if count == 0:
            continue
        rest = dict(enumerate(counts.tolist()))
        rest[word] -= 1
        try:
            vocabulary = Vocabulary.from_counts({f"w{w}": c for w, c in rest.items()}, VocabularyConfig(min_count=m))
        except EmptyVocabularyError:
            outside += count
            continue
        outside += count * (f"w{word}" not in vocabulary)
    return outside / counts.sum()


def test_the_oov_reference_is_leave_one_out_with_the_courses_vocabulary_and_good_turing():
    rng = np.random.default_rng(0)
    for counts, min_counts in corpus_checks.OOV_EDGES + [corpus_checks._oov_inputs(rng, 12) for _ in range(4)]:
        reference = corpus_checks._oov_reference(counts, min_counts)
        by_hand = [leave_one_out_by_hand(counts, int(m)) for m in min_counts]
        np.testing.assert_allclose(reference, by_hand, rtol=1e-12)
        np.testing.assert_allclose(reference, good_turing(counts, min_counts), rtol=1e-12)


def test_the_oov_inputs_have_zeros_singletons_and_a_min_count_of_one():
    rng = np.random.default_rng(1)
    inputs = [corpus_checks._oov_inputs(rng, int(rng.integers(4, 401))) for _ in range(30)]
    assert all(1 in min_counts and counts.sum() > 0 for counts, min_counts in inputs)
    assert sum((counts == 1).any() for counts, _ in inputs) >= 25
    assert sum((counts == 0).any() for counts, _ in inputs) >= 10
    assert any(min_counts.max() > counts.max() for counts, min_counts in inputs)


def test_the_right_ppmi_variant_is_the_courses_ppmi():
    rng = np.random.default_rng(2)
    for counts in corpus_checks.PPMI_EDGES + [corpus_checks._ppmi_inputs(rng, (7, 11)) for _ in range(4)]:
        for alpha in (0.75, 1.0, 0.4):
            reference = ppmi(sp.csr_matrix(counts), context_smoothing=alpha).toarray()
            variant = corpus_checks._ppmi_variant(counts, word_power=1.0, context_power=alpha)
            np.testing.assert_allclose(variant, reference, rtol=1e-12, atol=1e-15)


def test_the_ppmi_inputs_are_rectangular_unsymmetric_with_empty_rows_and_columns():
    rng = np.random.default_rng(3)
    inputs = [corpus_checks._ppmi_inputs(rng, (int(rng.integers(3, 61)), int(rng.integers(3, 61))))
              for _ in range(30)]
    assert all(counts.any() and (counts == 0).any() for counts in inputs)
    assert sum(counts.shape[0] != counts.shape[1] for counts in inputs) >= 25
    assert sum((counts.sum(axis=1) == 0).any() for counts in inputs) >= 10
    assert sum((counts.sum(axis=0) == 0).any() for counts in inputs) >= 10


# ------------------------------------------------------------------------------- mistakes found


MISTAKES = [  # (check, the wrong function, phrases the message must contain)
    ("oov_rate_estimate", wrong(oov_rate_estimate, below=True), ["share of the training text", "0 at min_count 1"]),
    ("oov_rate_estimate", wrong(oov_rate_estimate, extra=1), ["m + 1 times"]),
    ("oov_rate_estimate", lambda counts, min_counts: oov_rate_estimate(counts, np.ones_like(min_counts)),
     ["N_1 / N at every min_count"]),
    ("oov_rate_estimate", wrong(oov_rate_estimate, from_two=True), ["never seen in training", "r = 0"]),
    ("oov_rate_estimate", wrong(oov_rate_estimate, types=True), ["counts types, not tokens"]),
    ("oov_rate_estimate", wrong(oov_rate_estimate, types=True, zeros_as_types=True),
     ["counts types, not tokens", "zero entries"]),
    ("oov_rate_estimate", wrong(oov_rate_estimate, over=1), ["divides by N − 1"]),
    ("oov_rate_estimate", wrong(oov_rate_estimate, share=False), ["number of tokens, not a share"]),
    ("oov_rate_estimate", wrong(oov_rate_estimate, covered=True), ["covers"]),
    ("oov_rate_estimate", wrong(oov_rate_estimate, sort=True), ["sorted min_counts"]),
    ("oov_rate_estimate", good_turing_no_padding, ["IndexError", "above the largest count"]),
    ("oov_rate_estimate", lambda counts, min_counts: oov_rate_estimate(counts, min_counts)[:-1],
     ["shape", "(M,)"]),
    ("positive_pmi", pmi_through_the_zeros, ["numpy warned", "invalid value"]),
    ("positive_pmi", pmi_quietly, ["nan", "all 0"]),
    ("positive_pmi", wrong(positive_pmi, context_power=1.0), ["no context smoothing", "0.75 by default"]),
    ("positive_pmi", lambda counts, alpha=0.75: positive_pmi(counts, alpha, context_power=1.0, word_power=alpha),
     ["smooths the word distribution"]),
    ("positive_pmi", lambda counts, alpha=0.75: positive_pmi(counts, alpha, word_power=alpha),
     ["smooths the word distribution P(w) too"]),
    ("positive_pmi", wrong(positive_pmi, normalise=False), ["does not normalise again"]),
    ("positive_pmi", wrong(positive_pmi, base=2.0), ["log base 2"]),
    ("positive_pmi", wrong(positive_pmi, clip=False), ["PMI, not PPMI"]),
    ("positive_pmi", wrong(positive_pmi, add=1e-9), ["X_wc = 0 should have PPMI 0"]),
    ("positive_pmi", swapped_marginals, ["broadcast", "rows (words)", "axis=1"]),
    ("positive_pmi", lambda counts, alpha=0.75: positive_pmi(counts, 0.75), ["ignores the alpha argument"]),
    ("positive_pmi", lambda counts, alpha=0.75: positive_pmi(counts).T, ["shape", "(V, C)"]),
]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize(("name", "function", "phrases"), MISTAKES,
                         ids=[f"{name}-{i}" for i, (name, _, _) in enumerate(MISTAKES)])
def test_a_mistake_fails_with_a_message_that_names_it(name, function, phrases, seed, capsys):
    message = failure_message(CHECKS[name], function, capsys, seed=seed)
    for phrase in phrases:
        assert phrase in message, message


@pytest.mark.parametrize(("name", "function", "phrases"), [MISTAKES[0], MISTAKES[14]], ids=["oov", "ppmi"])
def test_mistakes_are_found_without_a_seed(name, function, phrases):
    for _ in range(3):
        with pytest.raises(CheckFailed, match=phrases[0]):
            CHECKS[name](function)


def test_a_right_answer_that_warns_fails_even_when_warnings_are_errors():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(CheckFailed, match="numpy warned"):
            check_positive_pmi(pmi_through_the_zeros, seed=0)


def test_default_alpha_other_than_three_quarters_is_named():
    with pytest.raises(CheckFailed, match="no context smoothing: .*0.75 by default"):
        check_positive_pmi(lambda counts, alpha=1.0: positive_pmi(counts, alpha), seed=0)


# ------------------------------------------------------------------------ errors and repeatability


@pytest.mark.parametrize("name", sorted(CHECKS))
def test_not_implemented_comes_through_unchanged(name):
    error = NotImplementedError()

    def student(*args, **kwargs):
        raise error

    with pytest.raises(NotImplementedError) as raised:
        CHECKS[name](student)
    assert raised.value is error


@pytest.mark.parametrize("name", sorted(CHECKS))
def test_other_exceptions_become_check_failed(name):
    def student(*args, **kwargs):
        raise TypeError("unsupported operand")

    with pytest.raises(CheckFailed, match=r"^Your function raised TypeError: unsupported operand on inputs of shape"):
        CHECKS[name](student)


def recorder(name):
    seen = []

    def student(*args, **kwargs):
        seen.append(([np.asarray(arg).tolist() for arg in args], kwargs))
        return RIGHT[name][0](*args, **kwargs)

    return student, seen


@pytest.mark.parametrize("name", sorted(CHECKS))
def test_a_seed_repeats_the_inputs(name, capsys):
    runs = []
    for seed in (5, 5, None):
        student, seen = recorder(name)
        CHECKS[name](student, seed=seed, trials=8)
        runs.append(seen)
    assert len(runs[0]) == 8
    assert runs[0] == runs[1]
    assert runs[0] != runs[2]


@pytest.mark.parametrize("name", sorted(CHECKS))
def test_the_smallest_inputs_come_first(name):
    student, seen = recorder(name)
    CHECKS[name](student, seed=0, trials=6)
    sizes = [np.size(args[0]) for args, _ in seen]
    assert sizes[0] == 1 and sizes[:3] == sorted(sizes[:3]) and max(sizes[:3]) < max(sizes)


def test_the_ppmi_check_tries_the_default_and_other_alphas():
    student, seen = recorder("positive_pmi")
    check_positive_pmi(student, seed=0, trials=30)
    alphas = [kwargs.get("alpha") for _, kwargs in seen]
    assert alphas[:4] == [None] * 4
    assert {1.0, 0.5} <= set(alphas) and any(a not in (None, 0.5, 0.75, 1.0) for a in alphas)


def test_a_check_wants_the_function_itself():
    with pytest.raises(TypeError, match="function itself"):
        check_positive_pmi(positive_pmi(np.ones((2, 2))))
    with pytest.raises(ValueError, match="trials"):
        check_oov_rate_estimate(oov_rate_estimate, trials=0)


def test_importing_the_corpus_checks_loads_neither_scipy_nor_torch_nor_gensim():
    code = "import sys, course.teaching.checks.corpus; print(sorted({'torch', 'gensim', 'scipy'} & set(sys.modules)))"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"


# ------------------------------------------------------------------- the teacher's solutions


def teachers_solution(notebook: str, grade_id: str):
    """The solution cell of ``grade_id`` in ``notebooks/<notebook>``, run, and its function."""
    cells = [cell for cell in read_notebook(project_root() / "notebooks" / notebook).cells
             if cell.metadata.get("nbgrader", {}).get("grade_id") == grade_id]
    assert len(cells) == 1 and cells[0].metadata["nbgrader"]["solution"]
    assert "### BEGIN SOLUTION" in cells[0].source
    namespace = {"np": np}
    exec(cells[0].source, namespace)
    return namespace[grade_id]


@pytest.mark.parametrize(("notebook", "name"), [("00_corpus.ipynb", "oov_rate_estimate"),
                                                ("01_one_hot_to_embeddings.ipynb", "positive_pmi")])
def test_the_teachers_solution_in_the_notebook_passes(notebook, name, capsys):
    function = teachers_solution(notebook, name)
    CHECKS[name](function, seed=2026, trials=50)
    CHECKS[name](function)
    assert capsys.readouterr().out.count("Right:") == 2


@pytest.mark.parametrize(("notebook", "name", "check"),
                         [("00_corpus.ipynb", "oov_rate_estimate", "check_oov_rate_estimate"),
                          ("01_one_hot_to_embeddings.ipynb", "positive_pmi", "check_positive_pmi")])
def test_the_grade_cell_follows_the_solution_and_calls_the_check(notebook, name, check):
    cells = read_notebook(project_root() / "notebooks" / notebook).cells
    at = next(i for i, cell in enumerate(cells) if cell.metadata.get("nbgrader", {}).get("grade_id") == name)
    grade = cells[at + 1]
    assert grade.metadata["nbgrader"] == {"grade": True, "grade_id": f"{name}_check", "locked": True, "points": 1,
                                          "schema_version": 3, "solution": False, "task": False}
    assert grade.source.startswith(f"{check}({name})\n### BEGIN HIDDEN TESTS")
    assert f"from course.teaching.checks.corpus import {check}" in cells[2].source
    assert cells[at - 1].cell_type == "markdown" and cells[at - 1].source.startswith("### Assignment · ")
