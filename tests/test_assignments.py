"""Solution markers, student versions, and agreement with nbgrader's generate_assignment."""

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from course.core.errors import AssignmentMarkerError
from course.teaching.assignments import (
    CODE_STUB,
    TEXT_STUB,
    TITLES,
    Written,
    answer_text,
    check_markers,
    course_assignments,
    find_assignments,
    find_written,
    is_answer_cell,
    is_written_cell,
    notebook_paths,
    student_version,
    write_student_versions,
)
from tests.conftest import assert_one_line_error

MARKERS = ("BEGIN SOLUTION", "END SOLUTION", "BEGIN HIDDEN TESTS", "END HIDDEN TESTS")
REQUIRED = {"negative_sampling_loss", "keep_probabilities", "huffman_code", "glove_weighting", "glove_loss",
            "analogy_3cosadd", "scalar_mix", "sense_knn_accuracy", "entity_spans", "entity_f1", "slanted_triangular",
            "discriminative_rates", "masked_attention"}


def solution_cell(grade_id, source):
    cell = new_code_cell(source)
    cell.metadata["nbgrader"] = {"grade": False, "solution": True, "locked": False, "grade_id": grade_id,
                                 "schema_version": 3, "task": False}
    return cell


def grade_cell(grade_id, source, points=1):
    cell = new_code_cell(source)
    cell.metadata["nbgrader"] = {"grade": True, "solution": False, "locked": True, "points": points,
                                 "grade_id": f"{grade_id}_check", "schema_version": 3, "task": False}
    return cell


def toy_notebook(*cells):
    notebook = new_notebook(cells=[new_markdown_cell("# A toy assignment"), *cells])
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    return notebook


DOUBLE = solution_cell("double", "def double(v):\n    \"\"\"Twice v.\"\"\"\n    ### BEGIN SOLUTION\n"
                                 "    return 2 * v\n    ### END SOLUTION\n\nprint('defined')")
def answer_cell(grade_id, source):
    cell = new_markdown_cell(source)
    cell.metadata["nbgrader"] = {"grade": True, "solution": True, "locked": False, "points": 0,
                                 "grade_id": grade_id, "schema_version": 3, "task": False}
    return cell


ANSWERS = answer_cell("answers", "## Answers\n\n### BEGIN SOLUTION\n1. Twice two is four.\n### END SOLUTION")
DOUBLE_CHECK = grade_cell("double", "assert double(2) == 4\n### BEGIN HIDDEN TESTS\nassert double(-3) == -6\n"
                                    "### END HIDDEN TESTS\nprint('checked')")


def test_student_version_stubs_solutions_at_their_indentation_and_cuts_hidden_tests():
    notebook = toy_notebook(new_code_cell("x = 1"), DOUBLE, DOUBLE_CHECK)
    notebook.cells[2].outputs = [nbformat.v4.new_output("stream", text="defined\n")]
    notebook.cells[2].execution_count = 3
    student = student_version(notebook)
    assert student.cells[2].source == ("def double(v):\n    \"\"\"Twice v.\"\"\"\n    # YOUR CODE HERE\n"
                                       "    raise NotImplementedError()\n\nprint('defined')")
    assert student.cells[3].source == "assert double(2) == 4\nprint('checked')"
    assert student.cells[1].source == "x = 1"
    assert student.cells[2].outputs == [] and student.cells[2].execution_count is None
    assert notebook.cells[2].outputs, "the teacher's notebook itself is left as it was"
    assert "return 2 * v" in notebook.cells[2].source


def test_a_solution_cell_without_markers_becomes_the_stub():
    notebook = toy_notebook(solution_cell("free", "answer = 42"), grade_cell("free", "assert answer == 42"))
    assert student_version(notebook).cells[1].source == CODE_STUB


@pytest.mark.parametrize("source, message", [
    ("def f():\n    ### BEGIN SOLUTION\n    return 1", "has no '### END SOLUTION'"),
    ("def f():\n    return 1\n    ### END SOLUTION", "without '### BEGIN SOLUTION'"),
    ("### BEGIN SOLUTION\n### BEGIN SOLUTION\n### END SOLUTION", "a second '### BEGIN SOLUTION'"),
])
def test_unmatched_solution_markers_name_the_cell(source, message):
    notebook = toy_notebook(solution_cell("f", source), grade_cell("f", "f()"))
    with pytest.raises(AssignmentMarkerError, match="cell 1") as caught:
        student_version(notebook, "toy.ipynb")
    assert message in str(caught.value) and "toy.ipynb" in str(caught.value)


def test_markers_outside_marked_cells_are_refused():
    loose = toy_notebook(new_code_cell("### BEGIN SOLUTION\nx = 1\n### END SOLUTION"))
    with pytest.raises(AssignmentMarkerError, match="not marked as a solution cell"):
        check_markers(loose)
    hidden = toy_notebook(new_code_cell("### BEGIN HIDDEN TESTS\nassert True\n### END HIDDEN TESTS"))
    with pytest.raises(AssignmentMarkerError, match="not marked as a grade cell"):
        check_markers(hidden)


def test_assignments_group_solution_cells_with_the_grade_cell_after_them():
    notebook = toy_notebook(new_code_cell("x = 1"), DOUBLE, DOUBLE_CHECK,
                            solution_cell("triple_a", "a = 3"), solution_cell("triple_b", "b = a"),
                            grade_cell("triple", "assert b == 3", points=2))
    found = find_assignments(notebook, "toy.ipynb")
    assert [(a.id, a.solution_cells, a.grade_cell, a.points) for a in found] == [
        ("double", (2,), 3, 1.0), ("triple", (4, 5), 6, 2.0)]
    with pytest.raises(AssignmentMarkerError, match="no grade cell after it"):
        find_assignments(toy_notebook(DOUBLE), "toy.ipynb")


def test_an_answer_cell_is_no_assignment_and_the_student_gets_room_for_their_own():
    notebook = toy_notebook(DOUBLE, DOUBLE_CHECK, ANSWERS)
    assert [a.id for a in find_assignments(notebook, "toy.ipynb")] == ["double"]
    assert is_answer_cell(ANSWERS) and not is_answer_cell(DOUBLE) and not is_answer_cell(DOUBLE_CHECK)
    assert answer_text(ANSWERS) == "1. Twice two is four."
    student = student_version(notebook, "toy.ipynb")
    assert student.cells[-1].source == f"## Answers\n\n{TEXT_STUB}"
    assert answer_text(answer_cell("whole", "All of it.")) == "All of it."
    assert student_version(toy_notebook(answer_cell("whole", "All of it."))).cells[-1].source == TEXT_STUB


def test_the_course_has_every_assignment_once_with_a_title():
    found = [a for items in course_assignments().values() for a in items]
    ids = [a.id for a in found]
    assert len(ids) == len(set(ids))
    assert REQUIRED <= set(ids)
    assert set(ids) <= set(TITLES), "every assignment has a title for the teacher's page"
    for assignment in found:
        assert assignment.points > 0 and assignment.solution_cells


def test_marker_strings_appear_only_in_marked_cells():
    for path in notebook_paths():
        notebook = nbformat.read(path, as_version=4)
        check_markers(notebook, path.name)
        for cell in notebook.cells:
            if cell.cell_type == "markdown" and not is_answer_cell(cell) and not is_written_cell(cell):
                assert not any(marker in cell.source for marker in MARKERS), path.name


def test_student_versions_hold_no_solution_and_no_hidden_test(tmp_path):
    written = write_student_versions(out=tmp_path)
    assert [p.name for p in written] == [p.name for p in notebook_paths()]
    for path in written:
        student = nbformat.read(path, as_version=4)
        teacher = nbformat.read(Path("notebooks") / path.name, as_version=4)
        assert len(student.cells) == len(teacher.cells)
        for mine, theirs in zip(student.cells, teacher.cells, strict=True):
            assert not any(marker in mine.source for marker in MARKERS)
            if is_answer_cell(mine) or is_written_cell(mine):
                assert TEXT_STUB in mine.source and answer_text(theirs) not in mine.source
            elif mine.get("metadata", {}).get("nbgrader", {}).get("solution"):
                assert "# YOUR CODE HERE\n" in mine.source and "raise NotImplementedError()" in mine.source
            elif not mine.get("metadata", {}).get("nbgrader", {}).get("grade"):
                assert mine.source == theirs.source
            if mine.cell_type == "code":
                assert mine.outputs == [] and mine.execution_count is None


def test_the_command_writes_every_student_notebook(tmp_path):
    out = tmp_path / "assignments"
    result = subprocess.run([sys.executable, "-m", "course", "assignments", "--out", str(out)],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert sorted(p.name for p in out.glob("*.ipynb")) == [p.name for p in notebook_paths()]
    assert "negative_sampling_loss" in result.stdout
    # Beside them the course without its own versions of the graded functions, to install instead of the course.
    package = out / "package"
    assert f"pip install {package}" in result.stderr and (package / "pyproject.toml").is_file()
    schedules = (package / "course" / "ulmfit" / "schedules.py").read_text(encoding="utf-8")
    assert "course.ulmfit.schedules.slanted_triangular is left out of the student version" in schedules
    assert "return max_rate * (1 + p * (ratio - 1)) / ratio" not in schedules and "def unfrozen_groups" in schedules
    checks = (package / "course" / "teaching" / "checks" / "word2vec.py").read_text(encoding="utf-8")
    assert "def check_negative_sampling_loss" in checks and "_negative_sampling_reference" not in checks


def test_a_bad_marker_is_one_line_and_nothing_is_written(tmp_path):
    source = tmp_path / "teacher"
    source.mkdir()
    nbformat.write(toy_notebook(DOUBLE, DOUBLE_CHECK), str(source / "01_good.ipynb"))
    nbformat.write(toy_notebook(solution_cell("f", "### BEGIN SOLUTION\nx = 1"), grade_cell("f", "x")),
                   str(source / "02_bad.ipynb"))
    out = tmp_path / "out"
    result = subprocess.run([sys.executable, "-m", "course", "assignments", "--notebooks", str(source),
                             "--out", str(out)], capture_output=True, text=True, timeout=120)
    assert_one_line_error(result, "02_bad.ipynb, cell 1")
    assert not out.exists() or not any(out.iterdir())


def nbgrader_release(notebooks: list[Path], root: Path) -> Path:
    """``nbgrader generate_assignment`` on copies of ``notebooks``; the folder of its student versions."""
    source = root / "source" / "ps"
    source.mkdir(parents=True)
    for path in notebooks:
        shutil.copy(path, source / path.name)
    bin_dir = Path(sys.executable).parent  # nbgrader runs alembic from there
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"}
    result = subprocess.run([str(bin_dir / "nbgrader"), "generate_assignment", "ps", "--force"], cwd=root,
                            capture_output=True, text=True, timeout=300, env=env)
    assert result.returncode == 0, result.stdout + result.stderr
    return root / "release" / "ps"


def test_student_versions_are_the_cells_nbgrader_generates(tmp_path):
    pytest.importorskip("nbgrader")
    toy = tmp_path / "toy"
    toy.mkdir()
    nbformat.write(toy_notebook(new_code_cell("x = 1"), DOUBLE, DOUBLE_CHECK,
                                solution_cell("free", "answer = 42"), grade_cell("free", "assert answer == 42"),
                                ANSWERS, answer_cell("whole", "All of it.")),
                   str(toy / "00_toy.ipynb"))
    sources = [*notebook_paths(), toy / "00_toy.ipynb"]
    released = nbgrader_release(sources, tmp_path / "nbgrader")
    ours = tmp_path / "ours"
    write_student_versions(out=ours)
    write_student_versions(out=ours, notebooks=toy)
    for path in sources:
        theirs = nbformat.read(released / path.name, as_version=4)
        mine = nbformat.read(ours / path.name, as_version=4)
        assert [(c.cell_type, c.source) for c in mine.cells] == [(c.cell_type, c.source) for c in theirs.cells], \
            path.name
        for index, (cell, released_cell) in enumerate(zip(mine.cells, theirs.cells, strict=True)):
            locks = [(c.metadata.get("editable"), c.metadata.get("deletable"),
                      c.metadata.get("nbgrader", {}).get("checksum"), c.metadata.get("nbgrader", {}).get("cell_type"))
                     for c in (cell, released_cell)]
            assert locks[0] == locks[1], (path.name, index)  # the same cell locks and checksums as nbgrader's
        graded = [c for c in mine.cells if c.metadata.get("nbgrader", {}).get("grade")
                  and not c.metadata["nbgrader"].get("solution")]
        assert all(c.metadata["editable"] is False and c.metadata["deletable"] is False for c in graded), path.name
        assert all(c.metadata["nbgrader"]["checksum"] for c in graded), path.name


@pytest.mark.parametrize("path", notebook_paths(), ids=lambda path: path.stem)
def test_each_student_version_runs_up_to_its_first_assignment_and_stops_there(path, monkeypatch):
    """Smoke profile, a fresh kernel: the first error is the first check's NotImplementedError, and nothing else."""
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError

    teacher = nbformat.read(path, as_version=4)
    student = student_version(teacher, path.name)
    found = find_assignments(teacher, path.name)
    if not found:  # nothing to answer: the student's notebook is the one nbval runs
        assert [c.source for c in student.cells] == [c.source for c in teacher.cells]
        return
    first = found[0]
    student.cells = student.cells[: first.grade_cell + 1]
    monkeypatch.setenv("COURSE_PROFILE", "smoke")
    client = NotebookClient(student, timeout=600, kernel_name="python3",
                            resources={"metadata": {"path": str(path.parent)}})
    with pytest.raises(CellExecutionError) as caught:
        client.execute()
    assert caught.value.ename == "NotImplementedError", str(caught.value)[-2000:]
    failed = [i for i, cell in enumerate(student.cells)
              if any(output.get("output_type") == "error" for output in cell.get("outputs", []))]
    assert failed == [first.grade_cell]


def written_cell(grade_id, source, points=2):
    cell = answer_cell(grade_id, source)
    cell.metadata["nbgrader"]["points"] = points
    return cell


QUESTION = new_markdown_cell("### Written assignment · Why twice? (2 points)\n\nSay why doubling is linear.")
WRITTEN = written_cell("why_twice", "### BEGIN SOLUTION\n**Model answer.** 2(a + b) = 2a + 2b.\n\n"
                                    "**Rubric.** 1 point for the identity, 1 for the scaling.\n### END SOLUTION")


def test_a_written_assignment_is_listed_apart_and_its_rubric_stays_with_the_teacher():
    notebook = toy_notebook(DOUBLE, DOUBLE_CHECK, QUESTION, WRITTEN, ANSWERS)
    assert [a.id for a in find_assignments(notebook, "toy.ipynb")] == ["double"]
    assert find_written(notebook, "toy.ipynb") == [Written("why_twice", "toy.ipynb", 2.0, 4,
                                                           "Why twice?")]
    assert is_written_cell(WRITTEN) and not is_answer_cell(WRITTEN) and not is_written_cell(ANSWERS)
    student = student_version(notebook, "toy.ipynb")
    assert student.cells[4].source == TEXT_STUB and "Rubric" not in json.dumps(student)
    assert find_written(student, "toy.ipynb")[0].points == 2.0  # the student sees what it is worth

    from course.teaching.grading import written_answers

    [unanswered] = written_answers(student, notebook, "toy.ipynb")
    assert (unanswered.answered, unanswered.answer, unanswered.points) == (False, "", 2.0)
    student.cells[4].source = "Because 2(a + b) = 2a + 2b."
    [answered] = written_answers(student, notebook, "toy.ipynb")
    assert answered.answered and answered.answer == "Because 2(a + b) = 2a + 2b."
    del student.cells[4]
    assert not written_answers(student, notebook, "toy.ipynb")[0].answered


def answer_entries(text: str) -> tuple[int, int]:
    """``(bullets, numbered items)`` at the start of a line in an answer cell's text."""
    lines = text.split("\n")
    return (sum(line.startswith("- ") for line in lines),
            sum(bool(re.match(r"\d+\. ", line)) for line in lines))


@pytest.mark.parametrize("path", [*notebook_paths(), *notebook_paths(Path("notebooks") / "zh")],
                         ids=lambda path: f"{path.parent.name}/{path.stem}")
def test_every_question_and_exercise_has_a_teachers_answer(path):
    notebook = nbformat.read(path, as_version=4)
    answers = [cell for cell in notebook.cells if is_answer_cell(cell)]
    assert len(answers) == 1 and answers[0] is notebook.cells[-1], f"{path}: one answer cell, the last one"
    english = nbformat.read(Path("notebooks") / path.name, as_version=4)
    markdown = [cell.source for cell in english.cells if cell.cell_type == "markdown" and not is_answer_cell(cell)]
    questions = sum(source.count("**Question") for source in markdown)
    after = re.split(r"^## Exercises", "\n\n".join(markdown), maxsplit=1, flags=re.M)
    exercises = len(re.findall(r"^\d+\. ", after[1], re.M)) if len(after) == 2 else 0
    assert answer_entries(answer_text(answers[0])) == (questions, exercises), path


@pytest.mark.parametrize("path", [*notebook_paths(), *notebook_paths(Path("notebooks") / "zh")],
                         ids=lambda path: f"{path.parent.name}/{path.stem}")
def test_every_notebook_has_written_work_with_a_rubric_the_student_version_leaves_out(path):
    teacher = nbformat.read(path, as_version=4)
    written = find_written(teacher, path.name)
    assert written and all(w.points >= 2 and w.title for w in written), path
    english = find_written(nbformat.read(Path("notebooks") / path.name, as_version=4), path.name)
    assert [(w.id, w.points, w.cell) for w in written] == [(w.id, w.points, w.cell) for w in english]
    student = student_version(teacher, path.name)
    for w in written:
        rubric = answer_text(teacher.cells[w.cell])
        assert re.search(r"\*\*(Rubric|评分标准)", rubric), (path, w.id)
        points = [int(n) for n in re.findall(r"^- (\d+) (?:points?|分)", rubric, re.M)]
        assert sum(points) == w.points, (path, w.id, points)
        assert student.cells[w.cell].source == TEXT_STUB
