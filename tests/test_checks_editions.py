"""The checks speak the edition: a wrong answer checked in the Chinese edition is told what is wrong in Chinese,
in the English edition in English, with the same numbers; the right answer's line too; and the grader checks a
Chinese notebook's answers in Chinese."""

import re
from pathlib import Path

import numpy as np
import pytest
from nbformat.v4 import new_code_cell

from course.core.edition import current_edition, use_edition
from course.teaching import checks
from course.teaching.checks import CheckFailed
from course.teaching.grading import grade_notebook
from tests.test_assignments import grade_cell, solution_cell, toy_notebook
from tests.test_grading import reasons, write

CJK = re.compile(r"[\u4e00-\u9fff]")
NUMBER = re.compile(r"\d+(?:\.\d+)?(?:e[-+]?\d+)?")


@pytest.fixture(autouse=True)
def _edition_restored():
    before = current_edition()
    yield
    use_edition(before)


def _unigram(counts):
    return counts / counts.sum()


def _paper_keep(counts, sample):
    return np.sqrt(sample / (counts / counts.sum()))


def _half_glove_loss(w, w_context, b, b_context, x, x_max=100.0, alpha=0.75):
    weights = np.minimum(1.0, (x / x_max) ** alpha)
    return 0.5 * float((weights * (np.einsum("nd,nd->n", w, w_context) + b + b_context - np.log(x)) ** 2).sum())


def _one_code(counts):
    return {word: "0" for word in counts}


def _entropy_in_nats(counts):
    values = np.asarray(list(counts.values()), dtype=np.float64)
    p = values / values.sum()
    entropy = float(-(p * np.log(p)).sum())
    return entropy, entropy + 0.5, float((len(values) - 1).bit_length())


def _unscaled_attention(q, k, v, mask=None):
    scores = q @ k.T
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    weights = np.exp(scores - scores.max(axis=1, keepdims=True))
    weights /= weights.sum(axis=1, keepdims=True)
    return weights @ v, weights


def _rates_top_first(top_rate, num_groups, factor):
    return [top_rate / factor**g for g in range(num_groups)]


WRONG = [  # (the check, a wrong answer, a phrase of the English message, one of the Chinese message)
    (checks.check_noise_distribution, _unigram, "The 3/4 power is missing", "缺少 3/4 次方"),
    (checks.check_keep_probabilities, _paper_keep, "the paper's formula sqrt(t/f)", "论文的公式 sqrt(t/f)"),
    (checks.check_glove_loss, _half_glove_loss, "exactly half of J", "恰好是 J 的一半"),
    (checks.check_huffman_code, _one_code, "not prefix-free", "不是前缀码"),
    (checks.check_entropy_bound, _entropy_in_nats, "in nats", "奈特"),
    (checks.check_masked_attention, _unscaled_attention, "not scaled", "没有缩放"),
    (checks.check_discriminative_rates, _rates_top_first, "top group first", "最上面的一组"),
]


def _failure(check, answer, edition: str) -> str:
    use_edition(edition)
    with pytest.raises(CheckFailed) as failed:
        check(answer, seed=3)
    return str(failed.value)


@pytest.mark.parametrize(("check", "answer", "english", "chinese"), WRONG, ids=[c.__name__ for c, *_ in WRONG])
def test_a_wrong_answer_is_told_in_the_editions_language_with_the_same_numbers(check, answer, english, chinese):
    en, zh = _failure(check, answer, "en"), _failure(check, answer, "zh")
    assert english in en and not CJK.search(en) and en.endswith(").") and "(with " in en, en
    assert chinese in zh and "（输入：" in zh and zh.endswith("）。"), zh
    assert not re.search(r"\b(?:the|with|is|should|your|got|expected)\b", zh, re.IGNORECASE), zh
    assert sorted(NUMBER.findall(en)) == sorted(NUMBER.findall(zh)), (en, zh)


def test_a_wrong_shape_and_the_right_answer_are_told_in_the_editions_language(capsys):
    def short(counts):
        return counts[:1] / counts[:1].sum()

    en, zh = _failure(checks.check_noise_distribution, short, "en"), _failure(checks.check_noise_distribution, short,
                                                                              "zh")
    assert en == "The result should have shape (V,) = (2,), got (1,) (with V=2 words)."
    assert zh == "返回值的形状应为 (V,) = (2,)，实际为 (1,)（输入：V=2 个词）。"
    lines = {}
    for edition in ("en", "zh"):
        use_edition(edition)
        checks.check_noise_distribution(lambda c: c**0.75 / (c**0.75).sum(), seed=3)
        lines[edition] = capsys.readouterr().out.strip()
    assert lines["en"].startswith("Right: the noise distribution matches") and not CJK.search(lines["en"])
    assert lines["zh"].startswith("正确：在 20 组随机输入上") and "噪声分布" in lines["zh"]
    assert NUMBER.findall(lines["en"]) == ["3", "4", "3", "4", "20", "1"] + NUMBER.findall(lines["en"])[6:]
    assert sorted(NUMBER.findall(lines["en"])) == sorted(NUMBER.findall(lines["zh"]))


def test_a_function_passed_wrongly_is_told_in_the_editions_language():
    use_edition("zh")
    with pytest.raises(TypeError, match="check_noise_distribution 接受的是你的函数本身"):
        checks.check_noise_distribution("noise_distribution")
    use_edition("en")
    with pytest.raises(TypeError, match="check_noise_distribution takes your function itself"):
        checks.check_noise_distribution("noise_distribution")


PARAMETERS = new_code_cell("EDITION = None\nimport course\ncourse.use_edition(EDITION)")
NOISE = solution_cell("noise", "import numpy as np\n\ndef noise_distribution(counts):\n    ### BEGIN SOLUTION\n"
                               "    return counts / counts.sum()\n    ### END SOLUTION")
NOISE_CHECK = grade_cell("noise", "from course.teaching.checks import check_noise_distribution\n"
                                  "check_noise_distribution(noise_distribution, seed=0)\n"
                                  "### BEGIN HIDDEN TESTS\nassert noise_distribution(np.ones(2)).sum() == 1\n"
                                  "### END HIDDEN TESTS")


@pytest.mark.parametrize(("edition", "phrase"), [("zh", "缺少 3/4 次方"), ("en", "The 3/4 power is missing")])
def test_the_grader_checks_a_notebook_in_its_own_edition(tmp_path: Path, monkeypatch, edition, phrase):
    """The checking kernel runs in a folder of its own, so the edition comes from the notebook's metadata: a Chinese
    notebook's wrong answer is reported in Chinese whatever $COURSE_EDITION the teacher has set."""
    monkeypatch.setenv("COURSE_EDITION", "en" if edition == "zh" else "zh")
    notebook = toy_notebook(PARAMETERS, NOISE, NOISE_CHECK)
    notebook.metadata["course"] = {"edition": edition}
    teacher = write(notebook, tmp_path / "teacher" / "01_toy.ipynb")
    reason = reasons(grade_notebook(teacher, timeout=60, source_dir=teacher.parent))["noise"]
    assert phrase in reason, reason
    assert bool(CJK.search(reason)) == (edition == "zh"), reason
