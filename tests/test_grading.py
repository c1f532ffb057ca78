"""The grader: full marks for the solutions, zero for an untouched student copy, and bad notebooks."""

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell

from course.assignments import student_version
from course.grading import grade_notebook
from tests.conftest import assert_one_line_error
from tests.test_assignments import DOUBLE, DOUBLE_CHECK, grade_cell, solution_cell, toy_notebook

TRIPLE = solution_cell("triple", "def triple(v):\n    ### BEGIN SOLUTION\n    return 3 * v\n    ### END SOLUTION")
TRIPLE_CHECK = grade_cell("triple", "assert triple(2) == 6\n### BEGIN HIDDEN TESTS\nassert triple(0) == 0\n"
                                    "### END HIDDEN TESTS", points=2)


def write(notebook, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(notebook, str(path))
    return path


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def scores(report) -> dict:
    return {result.id: result.score for result in report.results}


def reasons(report) -> dict:
    return {result.id: result.reason for result in report.results}


def test_solutions_get_full_marks_and_the_untouched_student_copy_zero(tmp_path):
    teacher = write(toy_notebook(new_code_cell("x = 1"), DOUBLE, DOUBLE_CHECK, TRIPLE, TRIPLE_CHECK),
                    tmp_path / "teacher" / "01_toy.ipynb")
    report = grade_notebook(teacher, timeout=30, source_dir=teacher.parent)
    assert scores(report) == {"double": 1, "triple": 2} and report.score == report.points == 3
    student = write(student_version(nbformat.read(teacher, as_version=4)), tmp_path / "student" / "01_toy.ipynb")
    report = grade_notebook(student, timeout=30, source_dir=teacher.parent)
    assert report.score == 0 and report.points == 3
    assert all("not answered (NotImplementedError)" in reason for reason in reasons(report).values())


def test_hidden_tests_come_back_and_an_edited_check_does_not_count(tmp_path):
    teacher = write(toy_notebook(DOUBLE, DOUBLE_CHECK, TRIPLE, TRIPLE_CHECK), tmp_path / "teacher" / "01_toy.ipynb")
    student = student_version(nbformat.read(teacher, as_version=4))
    # Right on the visible test only, and a check deleted: the teacher's hidden tests still run.
    student.cells[1].source = "def double(v):\n    return 4 if v == 2 else 0"
    student.cells[4].source = "pass"
    student.cells[3].source = "def triple(v):\n    return 3 * v"
    path = write(student, tmp_path / "student" / "01_toy.ipynb")
    report = grade_notebook(path, timeout=30, source_dir=teacher.parent)
    assert scores(report) == {"double": 0, "triple": 2}
    assert reasons(report)["double"].startswith("cell 2: AssertionError")
    # Points come from the teacher's notebook, and a deleted grade cell scores nothing.
    student.cells[4].metadata["nbgrader"]["points"] = 100
    del student.cells[2]
    report = grade_notebook(write(student, path), timeout=30, source_dir=teacher.parent)
    assert scores(report) == {"double": 0, "triple": 2} and report.points == 3
    assert reasons(report)["double"] == "its grade cell is not in the notebook"


def test_a_cell_that_runs_forever_or_kills_the_kernel_fails_only_its_assignment(tmp_path):
    forever = solution_cell("forever", "def forever():\n    ### BEGIN SOLUTION\n    while True:\n        pass\n"
                                       "    ### END SOLUTION")
    crash = solution_cell("crash", "def crash():\n    ### BEGIN SOLUTION\n    import os\n    os._exit(3)\n"
                                   "    ### END SOLUTION")
    notebook = toy_notebook(new_code_cell("offset = 0"), DOUBLE, DOUBLE_CHECK, forever,
                            grade_cell("forever", "forever()"), crash, grade_cell("crash", "crash()"),
                            TRIPLE, TRIPLE_CHECK)
    path = write(notebook, tmp_path / "student" / "05_hard.ipynb")
    before = digest(path)
    report = grade_notebook(path, timeout=3, source_dir=tmp_path / "none")
    assert scores(report) == {"double": 1, "forever": 0, "crash": 0, "triple": 2}
    assert "ran longer than 3 s" in reasons(report)["forever"]
    assert "crashed the kernel" in reasons(report)["crash"]
    assert digest(path) == before, "grading never changes the student's file"


def test_a_solution_marker_without_its_end_fails_that_assignment_only(tmp_path):
    broken = solution_cell("double", "def double(v):\n    ### BEGIN SOLUTION\n    return 2 * v")
    path = write(toy_notebook(broken, DOUBLE_CHECK, TRIPLE, TRIPLE_CHECK), tmp_path / "01_toy.ipynb")
    report = grade_notebook(path, timeout=30, source_dir=tmp_path / "none")
    assert scores(report) == {"double": 0, "triple": 2}
    assert "has no '### END SOLUTION'" in reasons(report)["double"]


def test_a_notebook_that_is_not_json_fails_every_assignment_with_the_reason(tmp_path):
    teacher = write(toy_notebook(DOUBLE, DOUBLE_CHECK, TRIPLE, TRIPLE_CHECK), tmp_path / "teacher" / "01_toy.ipynb")
    student = tmp_path / "student" / "01_toy.ipynb"
    student.parent.mkdir()
    student.write_text('{"cells": [\n  {"cell_type": "code",,}', encoding="utf-8")
    before = digest(student)
    report = grade_notebook(student, source_dir=teacher.parent)
    assert scores(report) == {"double": 0, "triple": 0}
    assert all("not valid JSON (line 2" in reason for reason in reasons(report).values())
    assert digest(student) == before


def test_the_grade_command_prints_a_table_and_writes_json(tmp_path):
    teacher = write(toy_notebook(DOUBLE, DOUBLE_CHECK, TRIPLE, TRIPLE_CHECK), tmp_path / "teacher" / "01_toy.ipynb")
    out = tmp_path / "report.json"
    result = subprocess.run([sys.executable, "-m", "course", "grade", str(teacher), "--source", str(teacher.parent),
                             "--json", str(out)], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "3 of 3 points" in result.stdout and "double" in result.stdout
    assert json.loads(out.read_text())["score"] == 3
    unknown = tmp_path / "99_unknown.ipynb"
    unknown.write_text("not json", encoding="utf-8")
    result = subprocess.run([sys.executable, "-m", "course", "grade", str(unknown), "--source", str(teacher.parent)],
                            capture_output=True, text=True, timeout=120)
    assert_one_line_error(result, "not valid JSON")
    result = subprocess.run([sys.executable, "-m", "course", "grade", str(tmp_path / "missing.ipynb")],
                            capture_output=True, text=True, timeout=120)
    assert_one_line_error(result, "no such notebook")


def test_a_course_notebook_full_marks_as_given_and_zero_as_handed_out(tmp_path):
    teacher = Path("notebooks") / "03_cbow_hierarchical_softmax.ipynb"
    report = grade_notebook(teacher, timeout=300)
    assert [r.id for r in report.results] == ["huffman_code"]
    assert report.score == report.points > 0, reasons(report)
    student = write(student_version(nbformat.read(teacher, as_version=4)), tmp_path / teacher.name)
    report = grade_notebook(student, timeout=300)
    assert report.score == 0 and reasons(report)["huffman_code"].endswith("not answered (NotImplementedError)")
