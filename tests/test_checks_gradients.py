"""The gradient checks of notebooks 02 and 04: right answers pass, the usual mistakes fail with a message that names
them, and the teacher's solutions in the notebooks pass."""

from pathlib import Path

import nbformat
import numpy as np
import pytest

from course.glove import weighting
from course.teaching.checks import CheckFailed, gradients
from course.teaching.checks.gradients import check_glove_gradients, check_negative_sampling_gradients
from tests.conftest import failure_message

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"

pytestmark = pytest.mark.filterwarnings("ignore:Sparse CSR tensor support:UserWarning")


# ---------------------------------------------------------------------------------- right answers


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


def negative_sampling_gradients(inputs, outputs, center, context, noise, *, outputs_how="add.at", sign=1,
                                drop_context=False, distinct=False, center_noise=True, noise_label=0.0,
                                input_row=None, swap=False, items=2):
    """The right answer, written with a loop, with flags that introduce one mistake each."""
    vector = inputs[center]
    if distinct:
        noise = np.unique(noise)
    if drop_context:  # word2vec.c's convention: a draw equal to the predicted word is skipped
        noise = noise[noise != context]
    true_error = sigmoid(outputs[context] @ vector) - 1
    noise_errors = sigmoid(outputs[noise] @ vector) - noise_label
    grad_inputs, grad_outputs = np.zeros_like(inputs), np.zeros_like(outputs)
    grad_inputs[center if input_row is None else input_row] = (
        true_error * outputs[context] + (noise_errors @ outputs[noise] if center_noise else 0))
    if outputs_how == "add.at":
        grad_outputs[context] += true_error * vector
        for word, error in zip(noise, noise_errors, strict=True):
            grad_outputs[word] += error * vector
    elif outputs_how == "assign":  # the noise words' rows written over, after the context's
        grad_outputs[context] = true_error * vector
        grad_outputs[noise] = np.outer(noise_errors, vector)
    elif outputs_how == "fancy +=":  # numpy adds once per distinct index
        grad_outputs[context] += true_error * vector
        grad_outputs[noise] += np.outer(noise_errors, vector)
    elif outputs_how == "context last":  # the context's row written over the noise words'
        grad_outputs[noise] = np.outer(noise_errors, vector)
        grad_outputs[context] = true_error * vector
    result = (sign * grad_inputs, sign * grad_outputs)
    return (result[::-1] if swap else result)[:items]


def glove_gradients(word_vectors, context_vectors, word_biases, context_biases, rows, cols, x, x_max=100.0,
                    alpha=0.75, *, scale=2.0, weight="f", how="add.at", partner=True, log=True, mean=False,
                    own_settings=True, bias_scale=None):
    """The right answer with flags that introduce one mistake each."""
    if not own_settings:
        x_max, alpha = 100.0, 0.75
    error = ((word_vectors[rows] * context_vectors[cols]).sum(1) + word_biases[rows] + context_biases[cols]
             - (np.log(x) if log else x))
    weights = {"f": weighting(x, x_max, alpha), "none": 1.0, "uncapped": (x / x_max) ** alpha}[weight]
    coefficient = scale * weights * error / (len(x) if mean else 1)
    bias_coefficient = coefficient if bias_scale is None else bias_scale * weights * error
    word_partner, context_partner = ((context_vectors[cols], word_vectors[rows]) if partner
                                     else (word_vectors[rows], context_vectors[cols]))
    grads = [np.zeros_like(t) for t in (word_vectors, context_vectors, word_biases, context_biases)]
    parts = [(rows, coefficient[:, None] * word_partner), (cols, coefficient[:, None] * context_partner),
             (rows, bias_coefficient), (cols, bias_coefficient)]
    for grad, (index, values) in zip(grads, parts, strict=True):
        if how == "add.at":
            np.add.at(grad, index, values)
        elif how == "fancy +=":
            grad[index] += values
        else:  # "assign"
            grad[index] = values
    return tuple(grads)


def wrong(function, **flags):
    def student(*args, **kwargs):
        return function(*args, **kwargs, **flags)

    return student


CHECKS = {"negative_sampling_gradients": (check_negative_sampling_gradients, negative_sampling_gradients),
          "glove_gradients": (check_glove_gradients, glove_gradients)}


@pytest.mark.parametrize("name", sorted(CHECKS))
def test_a_right_answer_passes_with_one_line(name, capsys):
    check, right = CHECKS[name]
    check(right, seed=11)
    check(right)
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2 and all(line.startswith("Right:") for line in lines), lines


def test_the_right_answer_names_the_cases_it_tried(capsys):
    check_negative_sampling_gradients(negative_sampling_gradients, seed=2026, trials=50)
    check_glove_gradients(glove_gradients, seed=2026, trials=50)
    words, glove = capsys.readouterr().out.splitlines()
    assert "with a noise word drawn more than once" in words and "V from 1 to" in words
    assert "words in several entries, values above x_max" in glove and "V from 1 to" in glove


# ------------------------------------------------------------------------------- mistakes found


def notebook_solution(notebook: str, grade_id: str):
    """The teacher's function, from the notebook's solution cell, run as the notebook runs it."""
    cells = nbformat.read(NOTEBOOKS / notebook, as_version=4).cells
    [cell] = [c for c in cells if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id]
    assert cell.metadata["nbgrader"]["solution"] and "### BEGIN SOLUTION" in cell.source
    namespace = {"np": np, "weighting": weighting}
    for earlier in cells[:cells.index(cell)]:  # the notebook's own answers the solution builds on (04's weighting)
        if earlier.metadata.get("nbgrader", {}).get("solution") and earlier.cell_type == "code":
            exec(compile(earlier.source, f"{notebook}:earlier", "exec"), namespace)
    exec(compile(cell.source, f"{notebook}:{grade_id}", "exec"), namespace)
    return namespace[grade_id]


def course_glove_halves(word_vectors, context_vectors, word_biases, context_biases, rows, cols, x, x_max=100.0,
                        alpha=0.75):
    """The course's own gradients, those of J/2: right but for the factor 2."""
    import torch

    from course.glove import glove_loss

    tensors = [torch.from_numpy(a) for a in (word_vectors, context_vectors, word_biases, context_biases)]
    _, *grads = glove_loss(*tensors, torch.from_numpy(rows), torch.from_numpy(cols), torch.from_numpy(x),
                           x_max=x_max, alpha=alpha)
    return tuple(grad.numpy() for grad in grads)


def in_place(inputs, outputs, center, context, noise):
    """The right gradients, written into the tables it was given."""
    grad_inputs, grad_outputs = negative_sampling_gradients(inputs, outputs, center, context, noise)
    inputs[:], outputs[:] = grad_inputs, grad_outputs
    return inputs, outputs


NS = negative_sampling_gradients
MISTAKES = [  # (check, the wrong function, phrases the message must contain)
    ("negative_sampling_gradients", wrong(NS, sign=-1), ["wrong sign", "ascent"]),
    ("negative_sampling_gradients", wrong(NS, swap=True), ["swapped"]),
    ("negative_sampling_gradients", wrong(NS, outputs_how="fancy +="), ["drawn twice", "add up", "np.add.at"]),
    ("negative_sampling_gradients", wrong(NS, outputs_how="assign"), ["context word's", "overwrote", "add up"]),
    ("negative_sampling_gradients", wrong(NS, outputs_how="context last"), ["only the true word's part",
                                                                             "overwrote"]),
    ("negative_sampling_gradients", wrong(NS, drop_context=True), ["word2vec.c skips", "counts every draw"]),
    ("negative_sampling_gradients", wrong(NS, distinct=True), ["only once"]),
    ("negative_sampling_gradients", wrong(NS, center_noise=False), ["missing the noise words' part"]),
    ("negative_sampling_gradients", wrong(NS, noise_label=1.0), ["like the true word", "σ(x), not σ(x) - 1"]),
    ("negative_sampling_gradients", lambda i, o, c, x, n: NS(i, o, c, x, n, input_row=x),
     ["grad_inputs has a non-zero row", "only v_c"]),
    ("negative_sampling_gradients", wrong(NS, items=1), ["tuple (grad_inputs, grad_outputs)"]),
    ("negative_sampling_gradients", lambda i, o, c, x, n: (NS(i, o, c, x, n)[0][c], NS(i, o, c, x, n)[1]),
     ["grad_inputs should have shape (V, d)"]),
    ("glove_gradients", wrong(glove_gradients, scale=1.0), ["factor 2 is missing", "J/2"]),
    ("glove_gradients", course_glove_halves, ["All four gradients", "factor 2 is missing"]),
    ("glove_gradients", wrong(glove_gradients, bias_scale=1.0), ["grad_word_biases and grad_context_biases",
                                                                 "factor 2"]),
    ("glove_gradients", wrong(glove_gradients, scale=-2.0), ["sign is wrong"]),
    ("glove_gradients", wrong(glove_gradients, weight="none"), ["weighting f(x_n) is missing"]),
    ("glove_gradients", wrong(glove_gradients, weight="uncapped"), ["above x_max", "f(x) = 1 from x_max on"]),
    ("glove_gradients", wrong(glove_gradients, how="fancy +="), ["several entries", "add up", "np.add.at"]),
    ("glove_gradients", wrong(glove_gradients, how="assign"), ["several entries", "add up"]),
    ("glove_gradients", wrong(glove_gradients, partner=False), ["grad_word_vectors and grad_context_vectors",
                                                                "with respect to w_i is w~_k"]),
    ("glove_gradients", wrong(glove_gradients, log=False), ["log x_n"]),
    ("glove_gradients", wrong(glove_gradients, mean=True), ["not a mean"]),
    ("glove_gradients", wrong(glove_gradients, own_settings=False), ["x_max and alpha arguments"]),
    ("glove_gradients", wrong(glove_gradients, scale=1.0, how="fancy +="), ["factor 2 is missing"]),
]


@pytest.mark.parametrize("seed", (0, 1, 2))
@pytest.mark.parametrize(("name", "function", "phrases"), MISTAKES,
                         ids=[f"{name}-{i}" for i, (name, _, _) in enumerate(MISTAKES)])
def test_a_mistake_fails_with_a_message_that_names_it(name, function, phrases, seed, capsys):
    message = failure_message(CHECKS[name][0], function, capsys, seed=seed)
    for phrase in phrases:
        assert phrase in message, message
    assert "(with " in message


@pytest.mark.parametrize(("name", "function", "phrases"), [MISTAKES[2], MISTAKES[18]], ids=["ns", "glove"])
def test_overwritten_repeats_are_found_without_a_seed(name, function, phrases):
    for _ in range(3):
        with pytest.raises(CheckFailed, match="add up"):
            CHECKS[name][0](function)


def test_two_mistakes_at_once_are_named_together_where_both_show():
    tables, rows, cols, x = gradients._glove_inputs(np.random.default_rng(0), 5, 6, 3, 20, 100.0)
    assert np.bincount(rows).max() > 1
    weights = weighting(x, 100.0, 0.75)
    numeric = gradients._central_differences(gradients._glove_loss, tables, rows, cols, x, weights)
    student = glove_gradients(*tables, rows, cols, x, scale=1.0, how="fancy +=")
    findings = gradients._glove_findings(tables, rows, cols, x, 100.0, 0.75, True, student, numeric,
                                         gradients._tolerance(gradients._glove_loss(*tables, rows, cols, x, weights)))
    keys = [key for key, _ in findings]
    assert keys[:3] == ["half+overwrite", "half", "overwrite"], keys
    assert "factor 2 is missing" in findings[0][1] and "add up" in findings[0][1]


def test_a_gradient_written_into_the_tables_still_passes_or_fails_on_its_values(capsys):
    check_negative_sampling_gradients(in_place, seed=3)  # the check hands over copies
    assert capsys.readouterr().out.startswith("Right:")


# ------------------------------------------------------------------------ errors and repeatability


@pytest.mark.parametrize("name", sorted(CHECKS))
def test_not_implemented_comes_through_unchanged(name):
    error = NotImplementedError()

    def student(*args, **kwargs):
        raise error

    with pytest.raises(NotImplementedError) as raised:
        CHECKS[name][0](student)
    assert raised.value is error


@pytest.mark.parametrize("name", sorted(CHECKS))
def test_other_exceptions_become_check_failed(name):
    def student(*args, **kwargs):
        raise IndexError("index 7 is out of bounds")

    with pytest.raises(CheckFailed, match=r"^Your function raised IndexError: index 7 is out of bounds on inputs"):
        CHECKS[name][0](student)


@pytest.mark.parametrize("name", sorted(CHECKS))
def test_a_seed_repeats_the_inputs_and_the_smallest_come_first(name, capsys):
    runs = []

    def recorder(seen):
        def student(*args, **kwargs):
            seen.append([np.asarray(a).tolist() for a in args] + [kwargs])
            return CHECKS[name][1](*args, **kwargs)

        return student

    for seed in (5, 5, None):
        runs.append([])
        CHECKS[name][0](recorder(runs[-1]), seed=seed, trials=4)
    assert runs[0] == runs[1] != runs[2]
    first = runs[2][0]
    if name == "negative_sampling_gradients":  # one word: centre, context and the noise word are all word 0
        assert np.shape(first[0]) == (1, 1) and first[2:5] == [0, 0, [0]]
        assert runs[2][1][4] == [2, 2]  # then a noise word drawn twice
    else:  # one word, its one entry above x_max; then a word in two entries
        assert np.shape(first[0]) == (1, 1) and first[4:6] == [[0], [0]] and first[6][0] > 100
        assert runs[2][1][4] == [0, 0, 1]


def test_a_check_wants_the_function_itself():
    with pytest.raises(TypeError, match="function itself"):
        check_glove_gradients(glove_gradients(np.ones((1, 1)), np.ones((1, 1)), np.ones(1), np.ones(1),
                                              np.array([0]), np.array([0]), np.array([2.0])))
    with pytest.raises(ValueError, match="trials"):
        check_negative_sampling_gradients(negative_sampling_gradients, trials=0)


# ----------------------------------------------------- the references: finite differences and the course


def test_the_tolerance_comes_from_the_step():
    h, eps = gradients.STEP, np.finfo(np.float64).eps
    assert gradients._tolerance(0.5) == pytest.approx(gradients.SAFETY * (h**2 + eps / h))
    assert gradients._tolerance(1e4) == pytest.approx(gradients.SAFETY * (h**2 + eps * 1e4 / h))
    assert gradients._tolerance(1.0) < 1e-7  # far below a mistake's size, far above float64's error


def test_central_differences_are_as_close_as_the_tolerance_says():
    """On the checks' own inputs the course's gradients lie within a hundredth of the tolerance of the
    differences, and a gradient off by one part in a thousand lies outside it."""
    rng = np.random.default_rng(0)
    for _ in range(10):
        size, d, k = int(rng.integers(2, 31)), int(rng.integers(1, 17)), int(rng.integers(1, 11))
        inputs, outputs = rng.normal(0, 1 / d**0.25, (2, size, d))
        center, context = int(rng.integers(size)), int(rng.integers(size))
        noise = gradients._sgns_draws(rng, size, k, context)
        args = (center, context, noise)
        tolerance = gradients._tolerance(gradients._sgns_loss(inputs, outputs, *args))
        numeric = gradients._central_differences(gradients._sgns_loss, [inputs, outputs], *args)
        for course, differences in zip(gradients._sgns_package(inputs, outputs, *args), numeric, strict=True):
            assert np.abs(course - differences).max() < tolerance / 100
            assert np.abs(1.001 * course - differences).max() > tolerance or not course.any()
    for trial in range(10):
        size, d, n = gradients._glove_size(rng)
        tables, rows, cols, x = gradients._glove_inputs(rng, trial + 2, size, d, n, 10.0)
        weights = weighting(x, 10.0, 0.75)
        tolerance = gradients._tolerance(gradients._glove_loss(*tables, rows, cols, x, weights))
        numeric = gradients._central_differences(gradients._glove_loss, tables, rows, cols, x, weights)
        for course, differences in zip(gradients._glove_package(tables, rows, cols, x, 10.0, 0.75), numeric,
                                       strict=True):
            assert np.abs(course - differences).max() < tolerance / 100


def test_the_checks_batches_have_what_the_assignment_promises():
    rng = np.random.default_rng(1)
    repeats = with_context = above = shared = 0
    for trial in range(2, 40):
        size = int(rng.integers(2, 31))
        context = int(rng.integers(size))
        noise = gradients._sgns_draws(rng, size, int(rng.integers(2, 11)), context)
        repeats += len(set(noise.tolist())) < len(noise)
        with_context += context in noise
        size, d, n = gradients._glove_size(rng)
        _, rows, cols, x = gradients._glove_inputs(rng, trial, size, d, n, 10.0)
        assert len(set(zip(rows.tolist(), cols.tolist(), strict=True))) == n  # distinct entries, as in X
        above += (x >= 10.0).any()
        shared += np.bincount(rows).max() > 1 and np.bincount(cols).max() > 1
    assert repeats > 15 and with_context > 10 and above > 30 and shared == 38


# --------------------------------------------------------------------- the teacher's solutions


@pytest.mark.parametrize(("notebook", "name"), [("02_skipgram_negative_sampling.ipynb", "negative_sampling_gradients"),
                                                ("04_glove.ipynb", "glove_gradients")])
def test_the_notebooks_solution_passes(notebook, name, capsys):
    solution = notebook_solution(notebook, name)
    CHECKS[name][0](solution, seed=2026, trials=50)
    assert capsys.readouterr().out.startswith("Right:")


@pytest.mark.parametrize(("notebook", "name"), [("02_skipgram_negative_sampling.ipynb", "negative_sampling_gradients"),
                                                ("04_glove.ipynb", "glove_gradients")])
def test_the_notebook_grades_its_solution_with_this_check(notebook, name):
    cells = nbformat.read(NOTEBOOKS / notebook, as_version=4).cells
    ids = [c.metadata.get("nbgrader", {}).get("grade_id") for c in cells]
    solution, grade = ids.index(name), ids.index(f"{name}_check")
    assert grade == solution + 1 and cells[solution - 1].cell_type == "markdown"
    assert cells[solution - 1].source.startswith("### Assignment · ")
    assert cells[grade].metadata["nbgrader"]["points"] == 2
    assert cells[grade].source.startswith(f"check_{name}({name})\n### BEGIN HIDDEN TESTS\n")
    imports = "\n".join(c.source for c in cells if c.cell_type == "code" and "import" in c.source)
    assert f"from course.teaching.checks.gradients import check_{name}" in imports
