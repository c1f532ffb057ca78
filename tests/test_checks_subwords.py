"""The BPE check of notebook 03: right answers pass, the usual mistakes fail with a message naming them."""

import re
from pathlib import Path

import numpy as np
import pytest

from course.teaching.assignments import read_notebook
from course.teaching.checks.harness import CheckFailed
from course.teaching.checks.subwords import _variant, check_bpe_merges
from course.text.subwords import learn_bpe
from tests.conftest import failure_message, graded_cell

NOTEBOOK = Path(__file__).resolve().parent.parent / "notebooks" / "03_cbow_hierarchical_softmax.ipynb"
SEEDS = (0, 1, 2)


def student_bpe(word_counts, merges, *, weighted=True, marker=True, stream=False, overlaps="all",
                merge="left", ties="smallest", stop=True):
    """A student's plain loop, with switches that make one mistake each."""
    end = ["</w>"] if marker else []
    words = [list(word) + end for word in word_counts]
    counts = [count if weighted else 1 for count in word_counts.values()]
    if stream:  # the corpus as one sequence of symbols, pairs counted across words
        words = [[symbol for word, count in zip(words, counts, strict=False) for _ in range(count) for symbol in word]]
        counts = [1]
    learned = []
    for _ in range(merges):
        frequency = {}
        for symbols, count in zip(words, counts, strict=False):
            if overlaps == "all":
                for pair in zip(symbols, symbols[1:], strict=False):
                    frequency[pair] = frequency.get(pair, 0) + count
            else:  # str.count on the spaced text: overlapping occurrences counted once
                spaced = " " + " ".join(symbols) + " "
                for pair in dict.fromkeys(zip(symbols, symbols[1:], strict=False)):
                    frequency[pair] = frequency.get(pair, 0) + count * spaced.count(f" {pair[0]} {pair[1]} ")
        if not frequency:
            if stop:
                break
            learned.append(learned[-1])
            continue
        if ties == "smallest":
            best = min(frequency, key=lambda pair: (-frequency[pair], pair))
        elif ties == "first":      # Sennrich et al.'s code: max over the dict, the first pair met wins a tie
            best = max(frequency, key=frequency.get)
        else:
            best = max(frequency, key=lambda pair: (frequency[pair], pair))
        learned.append(best)
        words = [glue(symbols, best, merge) for symbols in words]
    return learned


def glue(symbols, pair, how):
    if how == "replace":       # the text "a b" replaced, whatever symbols it belongs to
        return " ".join(symbols).replace(f"{pair[0]} {pair[1]}", pair[0] + pair[1]).split(" ")
    if how == "regex":         # the paper's regular expression, at symbol boundaries: right
        pattern = re.compile(r"(?<!\S)" + re.escape(f"{pair[0]} {pair[1]}") + r"(?!\S)")
        return pattern.sub(pair[0] + pair[1], " ".join(symbols)).split(" ")
    order = range(len(symbols) - 2, -1, -1) if how == "right" else range(len(symbols) - 1)
    symbols, taken = list(symbols), set()
    for i in order:
        if (symbols[i], symbols[i + 1]) == pair and i not in taken and i + 1 not in taken:
            taken.update((i, i + 1))
    merged, i = [], 0
    while i < len(symbols):
        if i in taken and i + 1 in taken and (symbols[i], symbols[i + 1]) == pair:
            merged.append(symbols[i] + symbols[i + 1])
            i += 2
        else:
            merged.append(symbols[i])
            i += 1
    return merged


def wrong(**switches):
    def bpe_merges(word_counts, merges):
        return student_bpe(word_counts, merges, **switches)

    return bpe_merges


def notebook_cell(grade_id):
    return graded_cell(NOTEBOOK, grade_id)


# ---------------------------------------------------------------------------------- right answers


def test_a_right_answer_passes_with_one_line(capsys):
    check_bpe_merges(student_bpe, seed=11)
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 1 and lines[0].startswith("Right:"), lines


def test_right_answers_pass_on_fresh_inputs(capsys):
    for student in (student_bpe, wrong(merge="regex"), learn_bpe):
        check_bpe_merges(student)
        check_bpe_merges(student, seed=2026, trials=60)
    assert capsys.readouterr().out.count("Right:") == 6


def test_tuples_or_lists_of_two_strings_are_both_fine():
    check_bpe_merges(lambda counts, merges: [list(pair) for pair in learn_bpe(counts, merges)], seed=0)
    check_bpe_merges(lambda counts, merges: tuple(learn_bpe(counts, merges)), seed=0)


def test_the_notebooks_solution_passes_and_sits_between_its_task_and_its_grade_cell(capsys):
    namespace = {}
    exec(notebook_cell("bpe_merges"), namespace)
    check_bpe_merges(namespace["bpe_merges"], seed=3, trials=60)
    assert capsys.readouterr().out.startswith("Right:")
    ids = [cell.get("id") for cell in read_notebook(NOTEBOOK).cells]
    assert ids.index("bpe-merges-task") + 1 == ids.index("bpe-merges-solution")
    assert ids.index("bpe-merges-solution") + 1 == ids.index("bpe-merges-check")
    assert notebook_cell("bpe_merges_check").startswith("check_bpe_merges(bpe_merges)")


# ------------------------------------------------------------------------------- mistakes found


MISTAKES = [  # (switches, phrases the message must contain)
    (dict(weighted=False), ["not weighted by the word counts"]),
    (dict(marker=False), ["end-of-word marker", "'</w>'"]),
    (dict(stream=True), ["across word boundaries"]),
    (dict(merge="right"), ["from the right", "'aa a'"]),
    (dict(overlaps="once"), ["overlapping occurrences of a pair once"]),
    (dict(merge="replace"), ["glues parts of longer symbols"]),
    (dict(ties="first"), ["ties are broken differently", "not the first pair met"]),
    (dict(ties="largest"), ["ties are broken differently"]),
]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize(("switches", "phrases"), MISTAKES, ids=[str(switches) for switches, _ in MISTAKES])
def test_a_mistake_fails_with_a_message_that_names_it(switches, phrases, seed, capsys):
    message = failure_message(check_bpe_merges, wrong(**switches), capsys, seed=seed)
    for phrase in phrases:
        assert phrase in message, message
    assert "(with " in message


def test_a_loop_that_does_not_stop_is_told_to():
    with pytest.raises(CheckFailed, match="the loop should stop there"):
        check_bpe_merges(wrong(stop=False), seed=0)


def test_a_loop_that_stops_too_soon_is_told_what_comes_next():
    with pytest.raises(CheckFailed, match=r"merge \d+ should be"):
        check_bpe_merges(lambda counts, merges: learn_bpe(counts, merges)[:-1], seed=0)


def test_a_tie_broken_some_other_way_is_found_by_the_counts():
    def shuffled_ties(counts, merges):    # the right counts, a tie rule of no name: by the merged string's length
        words = [list(word) + ["</w>"] for word in counts]
        learned = []
        for _ in range(merges):
            frequency = {}
            for symbols, count in zip(words, counts.values(), strict=False):
                for pair in zip(symbols, symbols[1:], strict=False):
                    frequency[pair] = frequency.get(pair, 0) + count
            if not frequency:
                break
            best = min(frequency, key=lambda pair: (-frequency[pair], -len(pair[0] + pair[1]), pair[::-1]))
            learned.append(best)
            words = [glue(symbols, best, "left") for symbols in words]
        return learned

    with pytest.raises(CheckFailed, match="both pairs occur .* times there"):
        check_bpe_merges(shuffled_ties, seed=0)


def test_a_pair_that_is_not_the_most_frequent_is_shown_with_both_counts():
    def second_best(counts, merges):
        right = learn_bpe(counts, merges)
        return right[:1] + [("z", "q")] + right[2:] if len(right) > 1 else [("q", "z")]

    with pytest.raises(CheckFailed, match="not a pair of adjacent symbols"):
        check_bpe_merges(second_best, seed=0)


@pytest.mark.parametrize(("result", "phrase"), [(None, "a list of pairs"), ([("a", "b", "c")], "one item is"),
                                                ([("a", 1)], "one item is"), ("ab", "a list of pairs")])
def test_answers_of_the_wrong_form_are_named(result, phrase):
    with pytest.raises(CheckFailed, match=phrase):
        check_bpe_merges(lambda counts, merges: result, seed=0)


def test_mistakes_are_found_without_a_seed():
    for _ in range(3):
        with pytest.raises(CheckFailed, match="not weighted"):
            check_bpe_merges(wrong(weighted=False))


# ------------------------------------------------------------------------ errors and repeatability


def test_not_implemented_comes_through_unchanged():
    error = NotImplementedError()

    def bpe_merges(word_counts, merges):
        raise error

    with pytest.raises(NotImplementedError) as raised:
        check_bpe_merges(bpe_merges)
    assert raised.value is error


def test_other_exceptions_become_check_failed():
    def bpe_merges(word_counts, merges):
        raise KeyError("</w>")

    with pytest.raises(CheckFailed, match=r"^Your function raised KeyError: '</w>' on inputs"):
        check_bpe_merges(bpe_merges)


def test_a_check_wants_the_function_itself():
    with pytest.raises(TypeError, match="function itself"):
        check_bpe_merges(learn_bpe({"ab": 1}, 1))
    with pytest.raises(ValueError, match="trials"):
        check_bpe_merges(learn_bpe, trials=0)


def recorder():
    seen = []

    def bpe_merges(word_counts, merges):
        seen.append((dict(word_counts), merges))
        return learn_bpe(word_counts, merges)

    return bpe_merges, seen


def test_a_seed_repeats_the_inputs_and_the_hard_cases_come_first():
    runs = []
    for seed in (5, 5, None):
        student, seen = recorder()
        check_bpe_merges(student, seed=seed, trials=12)
        runs.append(seen)
    assert len(runs[0]) == 12 and runs[0] == runs[1] and runs[0] != runs[2]
    tables = [table for table, _ in runs[0]]
    assert len(tables[0]) == 1 and len(set(next(iter(tables[0])))) == 1            # one word, one letter repeated
    assert any("aaa" in word for table in tables[:2] for word in table)             # runs such as "aaa"
    assert any(set(table.values()) == {1} and len(table) > 2 for table in tables)  # everything ties
    assert any(max(table.values()) >= 20 * min(table.values()) for table in tables)  # one frequent word
    assert all(min(table.values()) >= 1 for table in tables)


# -------------------------------------------------------------------- agreement with the package


def test_the_checks_mistake_free_loop_is_the_course_bpe():
    rng = np.random.default_rng(0)
    for _ in range(100):
        table = {"".join(rng.choice(list("abc"), int(rng.integers(1, 7)))): int(rng.integers(1, 9)) for _ in range(8)}
        merges = int(rng.integers(1, 20))
        assert _variant(table, merges) == learn_bpe(table, merges) == student_bpe(table, merges)
