"""The padded-attention check of notebook 11: right answers pass, the usual mistakes fail with a message naming
them, and the check's reference is the course's own attention."""

from pathlib import Path

import numpy as np
import pytest
import torch

from course.teaching.assignments import read_notebook
from course.teaching.checks.attention import _reference, _simulate, check_padded_attention
from course.teaching.checks.harness import CheckFailed
from course.transformer.attention import MultiHeadSelfAttention, causal_mask, scaled_dot_product_attention
from tests.conftest import failure_message, graded_cell

NOTEBOOK = Path(__file__).resolve().parent.parent / "notebooks" / "11_transformers.ipynb"
SEEDS = (0, 1, 2)


def padded_attention(q, k, v, real, causal=True, *, diagonal=0, keys=True, queries=True, no_key="zero",
                     zero_padded=False, after=False, causal_mask_on=None):
    """The right answer, a loop over the sentences, with switches that make one mistake each.

    diagonal: the causal mask allows s <= t + diagonal ("upper": s >= t); keys, queries: mask the padding along
    that axis; no_key: what a row with no allowed key gives ("zero", or "nan" as a plain softmax gives);
    zero_padded: zero the padded queries' rows at the end; after: multiply the softmax by the mask;
    causal_mask_on: apply the causal mask whatever causal says (True or False).
    """
    batch, length, _ = q.shape
    output, weights = np.zeros((batch, length, v.shape[2])), np.zeros((batch, length, length))
    use_causal = causal if causal_mask_on is None else causal_mask_on
    for b in range(batch):
        scores = q[b] @ k[b].T / np.sqrt(q.shape[2])
        may = np.ones((length, length), dtype=bool)
        if use_causal:
            t, s = np.indices((length, length))
            may &= (s >= t) if diagonal == "upper" else (s <= t + diagonal)
        if keys:
            may &= real[b][None, :]
        if queries:
            may &= real[b][:, None]
        for t in range(length):
            if after:
                row = np.exp(scores[t] - scores[t].max())
                row = row / row.sum() * may[t]
            elif not may[t].any():
                row = np.full(length, np.nan if no_key == "nan" else 0.0)
            else:
                row = np.where(may[t], np.exp(scores[t] - scores[t][may[t]].max()), 0.0)
                row = row / row.sum()
            if zero_padded and not real[b, t]:
                row = np.zeros(length)
            weights[b, t] = row
            output[b, t] = row @ v[b]
    return output, weights


def wrong(**flags):
    def student(q, k, v, real, causal=True):
        return padded_attention(q, k, v, real, causal, **flags)

    return student


def with_the_course_function(q, k, v, real, causal=True):
    """The course's scaled_dot_product_attention with the module's mask, nan rows and padded queries zeroed."""
    mask = torch.from_numpy(real)[:, None, :]
    if causal:
        mask = mask & causal_mask(real.shape[1])[None]
    output, weights = scaled_dot_product_attention(*(torch.from_numpy(a) for a in (q, k, v)), mask)
    keep = torch.from_numpy(real)[:, :, None]
    return (torch.where(keep, output, 0.0).numpy(), torch.where(keep, weights, 0.0).numpy())


# ---------------------------------------------------------------------------------- right answers


def test_a_right_answer_passes_with_one_line(capsys):
    check_padded_attention(padded_attention, seed=11)
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 1 and lines[0].startswith("Right:"), lines


def test_right_answers_pass_on_fresh_inputs(capsys):
    for student in (padded_attention, with_the_course_function, wrong(queries=False, zero_padded=True)):
        check_padded_attention(student)
        check_padded_attention(student, seed=2026, trials=60)
    assert capsys.readouterr().out.count("Right:") == 6


def notebook_cell(grade_id):
    return graded_cell(NOTEBOOK, grade_id)


def test_the_notebooks_solution_passes_and_sits_before_its_grade_cell(capsys):
    namespace = {"np": np}
    exec(notebook_cell("padded_attention"), namespace)
    check_padded_attention(namespace["padded_attention"], seed=3, trials=60)
    assert capsys.readouterr().out.startswith("Right:")
    ids = [cell.get("id") for cell in read_notebook(NOTEBOOK).cells]
    assert ids.index("padded-attention-task") + 1 == ids.index("padded-attention-solution")
    assert ids.index("padded-attention-solution") + 1 == ids.index("padded-attention-check")
    assert ids.index("16") < ids.index("padded-attention-task") < ids.index("17")  # after the first, before section 4
    assert "check_padded_attention(padded_attention)" in notebook_cell("padded_attention_check")


# ------------------------------------------------------------------------------- mistakes found


MISTAKES = [  # (flags, phrases the message must contain)
    (dict(after=True), ["after the softmax", "no longer sum to 1"]),
    (dict(after=True, queries=False), ["after the softmax"]),
    (dict(no_key="nan"), ["padded query positions come out as nan", "0/0"]),
    (dict(keys=False), ["query axis only", "padded keys"]),
    (dict(keys=False, queries=False, zero_padded=True), ["query axis only"]),
    (dict(queries=False), ["padded query positions are not zeros", "the course's module"]),
    (dict(queries=False, no_key="nan"), ["padded query positions are not zeros"]),
    (dict(keys=False, queries=False), ["not masked at all"]),
    (dict(diagonal=-1), ["off by one", "s < t only"]),
    (dict(diagonal=-1, no_key="nan"), ["is the diagonal missing from your causal mask"]),
    (dict(diagonal=1), ["off by one", "t + 1"]),
    (dict(diagonal="upper"), ["wrong triangle"]),
    (dict(causal_mask_on=False), ["ignore causal=True"]),
    (dict(causal_mask_on=True), ["although causal=False"]),
]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize(("flags", "phrases"), MISTAKES, ids=[str(flags) for flags, _ in MISTAKES])
def test_a_mistake_fails_with_a_message_that_names_it(flags, phrases, seed, capsys):
    message = failure_message(check_padded_attention, wrong(**flags), capsys, seed=seed)
    for phrase in phrases:
        assert phrase in message, message
    assert "(with " in message


def test_the_course_module_as_it_is_fails_on_its_padded_queries():
    def like_the_module(q, k, v, real, causal=True):  # key padding only: padded queries attend, or are nan
        mask = torch.from_numpy(real)[:, None, :]
        if causal:
            mask = mask & causal_mask(real.shape[1])[None]
        output, weights = scaled_dot_product_attention(*(torch.from_numpy(a) for a in (q, k, v)), mask)
        return output.numpy(), weights.numpy()

    with pytest.raises(CheckFailed, match="padded query positions are not zeros"):
        check_padded_attention(like_the_module, seed=0)


def test_an_unknown_mistake_says_where_the_weights_differ():
    def noisy(q, k, v, real, causal=True):
        output, weights = padded_attention(q, k, v, real, causal)
        weights = weights * 1.01
        return weights @ v, weights

    with pytest.raises(CheckFailed, match="sum to 1|differ from the course's"):
        check_padded_attention(noisy, seed=0)

    def wrong_values(q, k, v, real, causal=True):
        output, weights = padded_attention(q, k, v, real, causal)
        return output + real[:, :, None], weights  # off by one at every real position

    with pytest.raises(CheckFailed, match="weights are right but your output is not weights @ v"):
        check_padded_attention(wrong_values, seed=0)


@pytest.mark.parametrize(("student", "phrase"), [
    (lambda q, k, v, real, causal=True: padded_attention(q, k, v, real, causal)[0], "Return two arrays"),
    (lambda q, k, v, real, causal=True: (padded_attention(q, k, v, real, causal)[0],
                                         padded_attention(q, k, v, real, causal)[1][0]), "one per sentence"),
    (lambda q, k, v, real, causal=True: (padded_attention(q, k, v, real, causal)[0][..., :1],
                                         padded_attention(q, k, v, real, causal)[1]), r"\(B, T, d_v\)"),
])
def test_answers_of_the_wrong_form_are_named(student, phrase):
    with pytest.raises(CheckFailed, match=phrase):
        check_padded_attention(student, seed=1)


def test_mistakes_are_found_without_a_seed():
    for _ in range(3):
        with pytest.raises(CheckFailed, match="after the softmax"):
            check_padded_attention(wrong(after=True))


# ------------------------------------------------------------------------ errors and repeatability


def test_not_implemented_comes_through_unchanged():
    error = NotImplementedError()

    def student(*args, **kwargs):
        raise error

    with pytest.raises(NotImplementedError) as raised:
        check_padded_attention(student)
    assert raised.value is error


def test_other_exceptions_become_check_failed():
    def student(*args, **kwargs):
        raise TypeError("unsupported operand")

    with pytest.raises(CheckFailed, match=r"^Your function raised TypeError: unsupported operand on inputs of shape"):
        check_padded_attention(student)


def test_a_check_wants_the_function_itself():
    with pytest.raises(TypeError, match="function itself"):
        check_padded_attention(np.zeros(3))
    with pytest.raises(ValueError, match="trials"):
        check_padded_attention(padded_attention, trials=0)


def recorder():
    seen = []

    def student(q, k, v, real, causal=True):
        seen.append((q.copy(), k.copy(), v.copy(), real.copy(), causal))
        return padded_attention(q, k, v, real, causal)

    return student, seen


def test_a_seed_repeats_the_inputs(capsys):
    runs = []
    for seed in (5, 5, None):
        student, seen = recorder()
        check_padded_attention(student, seed=seed, trials=10)
        runs.append(seen)
    assert len(runs[0]) == 10
    for first, second in zip(runs[0], runs[1], strict=True):
        assert all(np.array_equal(a, b) for a, b in zip(first, second, strict=True))
    assert not all(np.array_equal(a[0], b[0]) for a, b in zip(runs[0], runs[2], strict=True))


def test_the_small_and_awkward_batches_come_first():
    student, seen = recorder()
    check_padded_attention(student, seed=0, trials=30)
    q, _, v, real, causal = seen[0]
    assert q.shape == (1, 1, 1) and v.shape == (1, 1, 1) and real.all() and causal
    reals = [(real, causal) for _, _, _, real, causal in seen[:7]]
    assert any(not r[b, 0] and r[b].any() and c for r, c in reals for b in range(len(r)))  # padding before, causal
    assert any(not r[b, -1] and r[b, 0] for r, _ in reals for b in range(len(r)))          # padding after
    assert any(not r[b].any() for r, _ in reals for b in range(len(r)))                     # all padding
    assert any(not c and not r.all() for r, c in reals)                                     # padding, no causal mask
    assert all(real.dtype == bool for _, _, _, real, _ in seen)
    assert {causal for *_, causal in seen} == {True, False}


# -------------------------------------------------------------------- agreement with the package


def test_the_reference_is_the_course_module_at_the_real_positions():
    rng = np.random.default_rng(0)
    module = MultiHeadSelfAttention(dim=6, heads=1).double().eval()
    x = torch.from_numpy(rng.normal(size=(3, 5, 6)))
    real = np.array([[1, 1, 1, 1, 1], [1, 1, 1, 0, 0], [1, 0, 0, 0, 0]], dtype=bool)
    q, k, v = (part.numpy() for part in module.qkv(x).detach().chunk(3, dim=-1))  # one head: (B, T, 6) each
    for causal in (True, False):
        _, weights = module(x, torch.from_numpy(real), causal=causal, need_weights=True)
        output, reference_weights = _reference(q, k, v, real, causal)
        module_weights = weights[:, 0].detach().numpy()
        np.testing.assert_allclose(reference_weights[real], module_weights[real], rtol=1e-12, atol=1e-14)
        assert not reference_weights[~real].any() and not output[~real].any()


def test_the_mistakes_are_anchored_to_the_reference():
    rng = np.random.default_rng(1)
    real = np.array([[1, 1, 1, 1], [0, 0, 1, 1], [1, 1, 0, 0], [0, 0, 0, 0]], dtype=bool)
    q, k, v = rng.normal(size=(4, 4, 3)), rng.normal(size=(4, 4, 3)), rng.normal(size=(4, 4, 2))
    for causal in (True, False):
        reference = _reference(q, k, v, real, causal)
        for mine in (_simulate(q, k, v, real, causal), padded_attention(q, k, v, real, causal)):
            for a, b in zip(mine, reference, strict=True):
                np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)
        with_nan = _simulate(q, k, v, real, causal, empty="nan")[1]
        assert np.isnan(with_nan[~real]).all() and np.isfinite(with_nan[real]).all()
