"""The grader: full marks for the solutions, zero for an untouched student copy, and bad notebooks."""

import hashlib
import json
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell

from course.errors import GradingError
from course.teaching.assignments import student_version
from course.teaching.grading import grade_notebook
from course.teaching.sandbox import Limits
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
    # Points come from the teacher's notebook, and a deleted grade cell is the teacher's all the same.
    student.cells[4].metadata["nbgrader"]["points"] = 100
    del student.cells[2]
    report = grade_notebook(write(student, path), timeout=30, source_dir=teacher.parent)
    assert scores(report) == {"double": 0, "triple": 2} and report.points == 3
    assert reasons(report)["double"].startswith("cell 2: AssertionError"), "the teacher's grade cell still runs"


def test_a_cell_that_runs_forever_or_kills_the_kernel_fails_only_its_assignment(tmp_path):
    forever = solution_cell("forever", "def forever():\n    ### BEGIN SOLUTION\n    while True:\n        pass\n"
                                       "    ### END SOLUTION")
    crash = solution_cell("crash", "def crash():\n    ### BEGIN SOLUTION\n    import os\n    os._exit(3)\n"
                                   "    ### END SOLUTION")
    notebook = toy_notebook(new_code_cell("offset = 0"), DOUBLE, DOUBLE_CHECK, forever,
                            grade_cell("forever", "forever()"), crash, grade_cell("crash", "crash()"),
                            TRIPLE, TRIPLE_CHECK)
    path = write(notebook, tmp_path / "student" / "05_hard.ipynb")
    write(notebook, tmp_path / "teacher" / "05_hard.ipynb")
    before = digest(path)
    report = grade_notebook(path, timeout=3, source_dir=tmp_path / "teacher")
    assert scores(report) == {"double": 1, "forever": 0, "crash": 0, "triple": 2}
    assert "ran longer than 3 s" in reasons(report)["forever"]
    assert "crashed the kernel" in reasons(report)["crash"]
    assert digest(path) == before, "grading never changes the student's file"


def test_a_solution_marker_without_its_end_fails_that_assignment_only(tmp_path):
    broken = solution_cell("double", "def double(v):\n    ### BEGIN SOLUTION\n    return 2 * v")
    path = write(toy_notebook(broken, DOUBLE_CHECK, TRIPLE, TRIPLE_CHECK), tmp_path / "01_toy.ipynb")
    write(toy_notebook(DOUBLE, DOUBLE_CHECK, TRIPLE, TRIPLE_CHECK), tmp_path / "teacher" / "01_toy.ipynb")
    report = grade_notebook(path, timeout=30, source_dir=tmp_path / "teacher")
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
    assert [r.id for r in report.results] == ["huffman_code", "entropy_bound"]
    assert report.score == report.points > 0, reasons(report)
    student = write(student_version(nbformat.read(teacher, as_version=4)), tmp_path / teacher.name)
    report = grade_notebook(student, timeout=300)
    assert report.score == 0 and all(reason.endswith("not answered (NotImplementedError)")
                                     for reason in reasons(report).values())


# ------------------------------------------------------------------------------------ attacks

ANSWER_NOTHING = "def double(v):\n    raise NotImplementedError()"


def teacher_and_student(tmp_path, name="01_toy.ipynb", *extra):
    teacher = write(toy_notebook(new_code_cell("import numpy as np"), DOUBLE, DOUBLE_CHECK, *extra),
                    tmp_path / "teacher" / name)
    return teacher, student_version(nbformat.read(teacher, as_version=4), name)


def test_a_grade_cell_turned_into_markdown_or_raw_still_runs_from_the_teachers_notebook(tmp_path):
    teacher, student = teacher_and_student(tmp_path)
    for kind in ("markdown", "raw"):
        student.cells[3].cell_type = kind
        student.cells[3].pop("outputs", None), student.cells[3].pop("execution_count", None)
        report = grade_notebook(write(student, tmp_path / "student" / teacher.name), timeout=30,
                                source_dir=teacher.parent)
        assert report.score == 0 and "NotImplementedError" in reasons(report)["double"], kind


def test_a_renamed_copy_is_graded_against_its_teachers_notebook_and_a_stranger_is_refused(tmp_path):
    teacher, student = teacher_and_student(tmp_path)
    student.metadata.pop("course")  # an old student version: the file name must do
    renamed = write(student, tmp_path / "downloads" / "01_toy (1).ipynb")
    report = grade_notebook(renamed, timeout=30, source_dir=teacher.parent)
    assert report.teacher == "01_toy.ipynb" and report.score == 0 and report.points == 1
    # Its own grade cells and points (100) never count: a notebook of another course is refused.
    stranger = toy_notebook(solution_cell("other", "def other():\n    ### BEGIN SOLUTION\n    return 1\n"
                                                   "    ### END SOLUTION"), grade_cell("other", "pass", points=100))
    path = write(stranger, tmp_path / "downloads" / "07_other.ipynb")
    with pytest.raises(GradingError, match="matches none of the teacher's notebooks"):
        grade_notebook(path, timeout=30, source_dir=teacher.parent)
    with pytest.raises(GradingError, match="no such folder"):
        grade_notebook(renamed, timeout=30, source_dir=tmp_path / "techer")
    result = subprocess.run([sys.executable, "-m", "course", "grade", str(path), "--source", str(teacher.parent)],
                            capture_output=True, text=True, timeout=120)
    assert_one_line_error(result, "matches none of the teacher's notebooks")


CHEATS = {
    "rebinding the check": "check_double = lambda function: None\nassert_true = None",
    "patching numpy": "import numpy as np\nnp.testing.assert_allclose = lambda *a, **k: None\n"
                      "np.isclose = lambda *a, **k: True\nnp.allclose = lambda *a, **k: True",
    "shadowing builtins": "int = lambda *a: 4\nsum = lambda *a: 4\nimport builtins\n"
                          "builtins.AssertionError = KeyError",
    "swallowing errors": "get_ipython().set_custom_exc((BaseException,), lambda *a, **k: None)",
    "patching at call time": "import sys\ndef double(v):\n    sys.modules['numpy'].testing.assert_allclose = "
                             "lambda *a, **k: None\n    raise NotImplementedError()",
}


def test_student_code_cannot_reach_the_checks(tmp_path):
    check = grade_cell("twice", "np.testing.assert_allclose(twice(np.arange(3.0)), [0.0, 2.0, 4.0])\n"
                                "assert int(sum([twice(1)])) == 2 and np.isclose(twice(1), 2)")
    twice = solution_cell("twice", "def twice(v):\n    ### BEGIN SOLUTION\n    return 2 * v\n    ### END SOLUTION")
    teacher, student = teacher_and_student(tmp_path, "01_toy.ipynb", twice, check)
    for name, cheat in CHEATS.items():
        student.cells[2].source = ANSWER_NOTHING + "\n" + cheat if "def double" not in cheat else cheat
        student.cells[4].source = "def twice(v):\n    return 0 * v\n" + cheat.replace("def double", "def _unused")
        report = grade_notebook(write(student, tmp_path / "student" / teacher.name), timeout=30,
                                source_dir=teacher.parent)
        assert report.score == 0, (name, reasons(report))


def test_the_teachers_files_are_out_of_reach_and_nothing_outlives_grading(tmp_path):
    teacher, student = teacher_and_student(tmp_path)
    report_file = tmp_path / "report.json"
    report_file.write_text("{}", encoding="utf-8")
    before = digest(teacher)
    student.cells[2].source = (
        "import os, subprocess, sys\n"
        f"teacher = {str(teacher)!r}\n"
        "try:\n"
        "    text = open(teacher).read()\n"
        "    open(teacher, 'w').write(text.replace('assert double', 'assert True or double'))\n"
        "except OSError:\n"
        "    text = ''\n"
        "subprocess.Popen([sys.executable, '-c', 'import os, time\\nos.setsid()\\nif os.fork(): os._exit(0)\\n"
        f"time.sleep(4)\\nopen({str(report_file)!r}, \"w\").write(\"hacked\")'], start_new_session=True)\n"
        "def double(v):\n"
        "    return 2 * v if 'BEGIN SOLUTION' in text else 0\n")
    report = grade_notebook(write(student, tmp_path / "student" / teacher.name), timeout=30,
                            source_dir=teacher.parent)
    assert report.score == 0, reasons(report)
    assert digest(teacher) == before
    time.sleep(5)
    assert report_file.read_text(encoding="utf-8") == "{}", "a process the student started outlived grading"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="setrlimit limits of Linux")
def test_memory_is_limited_per_notebook_and_a_hungry_answer_fails_alone(tmp_path):
    teacher = write(toy_notebook(DOUBLE, DOUBLE_CHECK, TRIPLE, TRIPLE_CHECK), tmp_path / "teacher" / "01_toy.ipynb")
    student = nbformat.read(teacher, as_version=4)
    student.cells[1].source = "def double(v):\n    block = bytearray(64 << 30)\n    return 2 * v"
    report = grade_notebook(write(student, tmp_path / "student" / teacher.name), timeout=60,
                            source_dir=teacher.parent, limits=Limits(memory=3 << 30))
    assert scores(report) == {"double": 0, "triple": 2}
    assert "MemoryError" in reasons(report)["double"]
