"""The grader: full marks for the solutions, zero for an untouched student copy, and bad notebooks."""

import copy
import hashlib
import json
import re
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell

from course.core.errors import GradingError, SettingError
from course.teaching.assignments import find_assignments, student_version
from course.teaching.grading import grade_notebook
from course.teaching.sandbox import MIN_MEMORY, Limits
from tests.conftest import assert_one_line_error
from tests.test_assignments import DOUBLE, DOUBLE_CHECK, QUESTION, WRITTEN, grade_cell, solution_cell, toy_notebook

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
    teacher = write(toy_notebook(DOUBLE, DOUBLE_CHECK, TRIPLE, TRIPLE_CHECK, QUESTION, WRITTEN),
                    tmp_path / "teacher" / "01_toy.ipynb")
    out = tmp_path / "report.json"
    result = subprocess.run([sys.executable, "-m", "course", "grade", str(teacher), "--source", str(teacher.parent),
                             "--json", str(out)], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "3 of 3 points, and 2 for written work to grade by hand" in result.stdout and "double" in result.stdout
    assert re.search(r"why_twice +2 +- +written: to grade by hand", result.stdout), result.stdout
    report = json.loads(out.read_text())
    assert report["score"] == 3 and report["written_points"] == 2
    assert [(w["id"], w["answered"]) for w in report["written"]] == [("why_twice", True)]
    assert "2(a + b)" in report["written"][0]["answer"]
    unknown = tmp_path / "99_unknown.ipynb"
    unknown.write_text("not json", encoding="utf-8")
    result = subprocess.run([sys.executable, "-m", "course", "grade", str(unknown), "--source", str(teacher.parent)],
                            capture_output=True, text=True, timeout=120)
    assert_one_line_error(result, "not valid JSON")
    result = subprocess.run([sys.executable, "-m", "course", "grade", str(tmp_path / "missing.ipynb")],
                            capture_output=True, text=True, timeout=120)
    assert_one_line_error(result, "no such notebook")


def test_a_course_notebook_full_marks_as_given_and_zero_as_handed_out(tmp_path):
    teacher = Path("notebooks") / "00_corpus.ipynb"  # the quickest to run; 03's two grades took three times as long
    report = grade_notebook(teacher, timeout=300)
    assert [r.id for r in report.results] == [a.id for a in find_assignments(nbformat.read(teacher, as_version=4))]
    assert "oov_rate_estimate" in scores(report)
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


FILL = """
import errno, json, os
def fill(folder, most):
    chunk, written = b"x" * (64 << 20), 0
    try:
        while written < most:  # files of 64 MiB: the file-size limit is not what stops it
            with open(os.path.join(folder, f"fill-{written >> 26}"), "wb") as f:
                f.write(chunk)
            written += len(chunk)
    except OSError as exc:
        return written, errno.errorcode[exc.errno]
    return written, None
def root():
    try:
        open("/fill", "wb").close()
    except OSError as exc:
        return errno.errorcode[exc.errno]
print(json.dumps({"tmp": fill("/tmp", MOST), "shm": fill("/dev/shm", MOST), "root": root()}))
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a sandbox of Linux namespaces")
def test_what_the_sandbox_keeps_in_memory_is_bounded_by_the_memory_limit(tmp_path):
    # /tmp and /dev/shm are in memory: more than the limit written there must fail, not fill the machine's memory.
    home, connection, limits = tmp_path / "home", tmp_path / "kernel.json", Limits(memory=MIN_MEMORY)
    home.mkdir()
    connection.write_text("{}", encoding="utf-8")
    result = subprocess.run([sys.executable, "-m", "course.teaching.sandbox", "--memory", str(limits.memory),
                             "--home", str(home), "--connection-file", str(connection), "--", sys.executable,
                             "-c", FILL.replace("MOST", str(limits.memory + (64 << 20)))],
                            capture_output=True, text=True, timeout=120)
    status = json.loads((home / "sandbox.json").read_text(encoding="utf-8"))
    if not status["enclosed"]:
        pytest.skip(f"no root of its own here: {status['why_not']}")
    assert result.returncode == 0, result.stderr
    written = json.loads(result.stdout)
    assert written["tmp"][1] == written["shm"][1] == "ENOSPC", written
    assert written["tmp"][0] + written["shm"][0] <= limits.scratch < limits.memory, "one tmpfs for both"
    assert written["tmp"][0] >= limits.scratch - (128 << 20), written
    assert written["root"] in ("EROFS", "EACCES"), written
    assert status["limits"]["address_space"] + status["limits"]["scratch"] <= limits.memory
    assert status["temporary"] == f"/tmp and /dev/shm: one tmpfs of {limits.scratch:,} bytes"


def test_a_memory_limit_too_small_for_a_kernel_is_refused_before_any_grading(tmp_path):
    teacher = write(toy_notebook(DOUBLE, DOUBLE_CHECK, TRIPLE, TRIPLE_CHECK), tmp_path / "teacher" / "01_toy.ipynb")
    out = tmp_path / "report.json"
    for memory in ("1K", "1G", f"{(MIN_MEMORY >> 20) - 1}M"):
        result = subprocess.run([sys.executable, "-m", "course", "grade", str(teacher), "--source", str(teacher.parent),
                                 "--memory", memory, "--json", str(out)], capture_output=True, text=True, timeout=120)
        assert_one_line_error(result, "--memory", f"at least {MIN_MEMORY >> 30}G")
        assert "points" not in result.stdout and not out.exists(), "refused before any grading"
    with pytest.raises(SettingError, match=f"a memory limit of 1,024 bytes is too small: it must be at least "
                                           f"{MIN_MEMORY >> 30}G"):
        Limits(memory=1024)  # where grade_notebook's limits are made: refused before it can be called


# --------------------------------------------------------------------------------- deadlines

def stalling(grade_id: str, body: str):
    """A solution cell whose top level runs ``body`` before it defines the function."""
    return solution_cell(grade_id, f"{body}\ndef {grade_id}():\n    ### BEGIN SOLUTION\n    return 1\n"
                                   "    ### END SOLUTION")


STALLS = {
    "spins": "while True:\n    pass",
    "ignores_interrupts": "import signal\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\nwhile True:\n    pass",
    "dies": "import os, signal\nos.kill(os.getpid(), signal.SIGKILL)",
    "floods": "while True:\n    print('x' * 100_000)",
    "blocks_output": "import os\nos.close(1)\nos.close(2)\nimport time\nwhile True:\n    time.sleep(1)",
}


def test_a_cell_that_never_ends_fails_its_assignment_alone_and_the_grade_returns(tmp_path):
    cells = [new_code_cell("offset = 0"), DOUBLE, DOUBLE_CHECK]
    for name, body in STALLS.items():
        cells += [stalling(name, body), grade_cell(name, f"assert {name}() == 1")]
    cells += [TRIPLE, TRIPLE_CHECK]
    path = write(toy_notebook(*cells), tmp_path / "student" / "05_hard.ipynb")
    teacher = write(toy_notebook(*cells), tmp_path / "teacher" / "05_hard.ipynb")
    out = tmp_path / "report.json"
    # A grade that hung would end here in TimeoutExpired, not in a report.
    result = subprocess.run([sys.executable, "-m", "course", "grade", str(path), "--source", str(teacher.parent),
                             "--timeout", "3", "--json", str(out)], capture_output=True, text=True, timeout=240)
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr and "never retrieved" not in result.stderr, result.stderr
    graded = {a["id"]: a for a in json.loads(out.read_text())["assignments"]}
    assert {name: a["score"] for name, a in graded.items()} == {"double": 1, **dict.fromkeys(STALLS, 0), "triple": 2}
    for name in ("spins", "ignores_interrupts", "floods", "blocks_output"):
        assert "ran longer than 3 s and was stopped" in graded[name]["reason"], graded[name]
    assert "crashed the kernel" in graded["dies"]["reason"]


def test_a_call_that_never_returns_or_kills_its_kernel_does_not_fail_the_next_check(tmp_path):
    # The call is in the check, not in the solution cell: the checking kernel gives up on it, and the next check,
    # of the teacher's own solution, must find a working student kernel on a new connection.
    def calling(name: str, body: str):
        return solution_cell(name, f"def {name}():\n    ### BEGIN SOLUTION\n    {body}\n    ### END SOLUTION")

    wrapped = "try:\n    {}()\nexcept Exception as exc:  # as the course's checks do\n    raise AssertionError(exc)"
    notebook = toy_notebook(calling("spins", "while True:\n        pass"), grade_cell("spins", "assert spins() == 1"),
                            calling("sleeps", "import time\n    time.sleep(1e9)"),
                            grade_cell("sleeps", "assert sleeps() == 1"),
                            calling("dies", "import os\n    os._exit(3)"), grade_cell("dies", wrapped.format("dies")),
                            DOUBLE, DOUBLE_CHECK, TRIPLE, TRIPLE_CHECK)
    teacher = write(notebook, tmp_path / "teacher" / "01_toy.ipynb")
    report = grade_notebook(teacher, timeout=3, source_dir=teacher.parent)
    assert scores(report) == {"spins": 0, "sleeps": 0, "dies": 0, "double": 1, "triple": 2}, reasons(report)
    for name in ("spins", "sleeps"):
        assert "ran longer than 3 s and was stopped" in reasons(report)[name], reasons(report)
    assert "crashed the kernel" in reasons(report)["dies"], reasons(report)


def test_an_answer_is_taken_only_for_the_call_it_answers(tmp_path):
    # A student kernel that answers an earlier call first (a late answer) and then this one, or a call never made.
    import socket
    import threading

    from course.teaching import remote

    path = str(tmp_path / "answers.sock")
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(path)
    server.listen(1)

    def answer(shift: int) -> None:
        connection, _ = server.accept()
        with connection:
            number = remote.decode(remote._receive(connection))["id"]
            remote._send(connection, remote.encode({"ok": "late", "id": number - 1}))
            remote._send(connection, remote.encode({"ok": "this call's", "id": number + shift}))

    given_up = tmp_path / "given-up"
    link = remote._Link(path, 10.0, str(given_up))
    for shift in (0, 5):
        thread = threading.Thread(target=answer, args=(shift,), daemon=True)
        thread.start()
        if shift == 0:
            assert link.ask({"op": "call", "name": "f", "args": (), "kwargs": {}}) == "this call's"
            assert not given_up.exists()
        else:
            with pytest.raises(remote.BadAnswer, match="a call that was not made"):
                link.ask({"op": "call", "name": "f", "args": (), "kwargs": {}})
            assert given_up.exists() and link.connection is None, "given up: a new connection for the next call"
        link.close()
        thread.join(10)
    server.close()


def test_a_kernel_killed_at_its_deadline_is_replaced_even_while_it_still_looks_alive(tmp_path, monkeypatch):
    # SIGKILL is delivered when the system gets to it: just after the kill, /proc can still show the kernel running.
    from course.teaching import sandbox

    monkeypatch.setattr(sandbox, "gone", lambda pid: False)
    stall = stalling("ignores_interrupts", STALLS["ignores_interrupts"])
    check = grade_cell("ignores_interrupts", "assert ignores_interrupts() == 1")
    notebook = toy_notebook(DOUBLE, DOUBLE_CHECK, stall, check, TRIPLE, TRIPLE_CHECK)
    teacher = write(notebook, tmp_path / "teacher" / "01_toy.ipynb")
    report = grade_notebook(teacher, timeout=3, source_dir=teacher.parent)
    assert scores(report) == {"double": 1, "ignores_interrupts": 0, "triple": 2}, reasons(report)
    assert "ran longer than 3 s and was stopped" in reasons(report)["ignores_interrupts"]


def test_a_start_up_file_left_behind_is_not_run_by_the_next_kernel(tmp_path):
    poison = stalling("poison", "import os\nfolder = os.path.join(os.environ['IPYTHONDIR'], 'profile_default', "
                                "'startup')\ntry:\n    os.makedirs(folder, exist_ok=True)\n"
                                "    open(os.path.join(folder, '00.py'), 'w').write('import os\\nos._exit(1)')\n"
                                "except OSError:\n    pass\nos._exit(1)")
    notebook = toy_notebook(DOUBLE, DOUBLE_CHECK, poison, grade_cell("poison", "assert poison() == 1"),
                            TRIPLE, TRIPLE_CHECK)
    teacher = write(notebook, tmp_path / "teacher" / "01_toy.ipynb")
    report = grade_notebook(teacher, timeout=5, source_dir=teacher.parent)
    assert scores(report) == {"double": 1, "poison": 0, "triple": 2}
    assert "crashed the kernel (a new kernel took over)" in reasons(report)["poison"]


def test_the_notebook_has_a_deadline_of_its_own(tmp_path):
    slow = [solution_cell(name, f"import time\ntime.sleep(2)\ndef {name}():\n    ### BEGIN SOLUTION\n"
                                "    return 1\n    ### END SOLUTION") for name in ("first", "second", "third")]
    checks = [grade_cell(n, f"### BEGIN HIDDEN TESTS\nassert {n}() == 1\n### END HIDDEN TESTS")
              for n in ("first", "second", "third")]
    cells = [cell for pair in zip(slow, checks, strict=True) for cell in pair]
    teacher = write(toy_notebook(*cells), tmp_path / "teacher" / "01_toy.ipynb")
    assert grade_notebook(teacher, timeout=3, source_dir=teacher.parent).score == 3
    # Each cell keeps within its 3 s, the three together not within 5 s: what was not checked in time scores 0.
    report = grade_notebook(teacher, timeout=3, source_dir=teacher.parent, notebook_timeout=5)
    assert report.score == 0
    assert all("the notebook ran longer than 5 s in all" in reason for reason in reasons(report).values())


# ------------------------------------------------------------------------------ refusals up front

def test_student_versions_as_source_and_an_unwritable_report_are_refused_before_grading(tmp_path):
    teacher, student = teacher_and_student(tmp_path)
    path = write(student, tmp_path / "student" / teacher.name)
    handed_out = write(student, tmp_path / "handed_out" / teacher.name)
    unmarked = copy.deepcopy(student)
    unmarked.metadata.pop("course")
    write(unmarked, tmp_path / "unmarked" / teacher.name)
    for folder, why in (("handed_out", "it records that it is the student version of 01_toy.ipynb"),
                        ("unmarked", "none of its grade cells holds hidden tests")):
        result = subprocess.run([sys.executable, "-m", "course", "grade", str(path), "--source",
                                 str(tmp_path / folder)], capture_output=True, text=True, timeout=120)
        assert_one_line_error(result, "not a teacher's notebook", why)
    assert handed_out.is_file()
    blocker = tmp_path / "a_file"
    blocker.write_text("", encoding="utf-8")
    for out, why in ((blocker / "report.json", "is a file, not a folder"), (tmp_path, "is a folder")):
        result = subprocess.run([sys.executable, "-m", "course", "grade", str(path), "--source", str(teacher.parent),
                                 "--json", str(out)], capture_output=True, text=True, timeout=120)
        assert_one_line_error(result, why)
        assert "points" not in result.stdout, "refused before any grading"


# ------------------------------------------------------------------ answers that come from elsewhere

SLANTED = solution_cell("slanted_triangular", "import math\n\ndef slanted_triangular(step, total_steps, max_rate, "
                                              "cut_frac=0.1, ratio=32):\n    ### BEGIN SOLUTION\n"
                                              "    cut = max(1, math.floor(total_steps * cut_frac))\n"
                                              "    p = step / cut if step < cut else "
                                              "max(0.0, 1 - (step - cut) / (cut * (1 / cut_frac - 1)))\n"
                                              "    return max_rate * (1 + p * (ratio - 1)) / ratio\n"
                                              "    ### END SOLUTION")
SLANTED_CHECK = grade_cell("slanted_triangular", "check_slanted_triangular(slanted_triangular)\n"
                                                 "### BEGIN HIDDEN TESTS\n"
                                                 "assert abs(slanted_triangular(10, 100, 1.0, 0.1, 32) - 1.0) < 1e-12\n"
                                                 "### END HIDDEN TESTS")
BORROWED = {
    "imported": "from course.ulmfit.schedules import slanted_triangular",
    "wrapped": "import importlib\n\ndef slanted_triangular(*args):\n    module = importlib.import_module("
               "'course.ulmfit.' + 'schedules')\n    return getattr(module, 'slanted_triangular')(*args)",
    "reached through the training code": "from types import SimpleNamespace\nfrom course.ulmfit import training\n\n"
                                         "def slanted_triangular(step, total, top, cut_frac=0.1, ratio=32):\n"
                                         "    config = SimpleNamespace(slanted=True, cut_frac=cut_frac, ratio=ratio)\n"
                                         "    return top * training._schedule_scale(config, step, total)",
    "copied from its file": "import course.ulmfit.schedules as s\nnamespace = {}\n"
                            "exec(compile(open(s.__file__).read()"
                            ".replace('from ..core.errors', 'from course.core.errors'), 'mine.py', "
                            "'exec'), namespace)\n"
                            "slanted_triangular = namespace['slanted_triangular']",
    "tracing switched off": "import sys\nfrom course.ulmfit.schedules import slanted_triangular as _reference\n\n"
                            "def slanted_triangular(*args):\n    sys.setprofile(None)\n    return _reference(*args)",
}


def test_an_answer_that_runs_the_courses_own_implementation_scores_nothing(tmp_path):
    teacher = write(toy_notebook(new_code_cell("from course.teaching.checks import check_slanted_triangular"),
                                 SLANTED, SLANTED_CHECK, DOUBLE, DOUBLE_CHECK), tmp_path / "teacher" / "10_toy.ipynb")
    report = grade_notebook(teacher, timeout=60, source_dir=teacher.parent)
    assert report.score == report.points == 2, reasons(report)
    student = nbformat.read(teacher, as_version=4)
    for how, source in BORROWED.items():
        student.cells[2].source = source
        report = grade_notebook(write(student, tmp_path / "student" / teacher.name), timeout=60,
                                source_dir=teacher.parent)
        assert scores(report) == {"slanted_triangular": 0, "double": 1}, (how, reasons(report))
        # The student's kernel has only a stub of it (tests/test_grading_cheats.py: more ways, and a pasted copy).
        assert "course.ulmfit.schedules.slanted_triangular is left out of the student version" in \
            reasons(report)["slanted_triangular"], how


def test_no_copy_of_the_teachers_notebooks_is_in_reach_of_the_student(tmp_path, monkeypatch):
    from course.core.paths import project_root

    teacher, student = teacher_and_student(tmp_path)
    second_checkout = write(nbformat.read(teacher, as_version=4), tmp_path / "elsewhere" / "notebooks" / teacher.name)
    visible = tmp_path / "cache"  # a folder the student kernel may read holds a copy too
    write(nbformat.read(teacher, as_version=4), visible / "executed" / teacher.name)
    monkeypatch.setattr("course.teaching.grading.cache_dir", lambda: visible)
    places = [str(second_checkout), str(visible / "executed" / teacher.name), str(project_root()), "/"]
    student.cells[2].source = (
        "import os\n"
        "hidden_test = 'double(-' + '3) == -6'  # only the teacher's notebook holds it\n"
        f"found = []\nfor place in {places!r}:\n"
        "    for folder, subfolders, files in os.walk(place):\n"
        "        subfolders[:] = [s for s in subfolders if os.path.join(folder, s) not in "
        "('/proc', '/sys', '/dev', '/usr')]\n"
        "        for name in files:\n"
        "            try:\n"
        "                if name.endswith(('.ipynb', '.json')) and hidden_test in open(os.path.join(folder, name), "
        "errors='ignore').read():\n"
        "                    found.append(os.path.join(folder, name))\n"
        "            except OSError:\n"
        "                pass\n"
        "    if os.path.isfile(place):\n"
        "        found += [place] if hidden_test in open(place).read() else []\n"
        "def double(v):\n"
        "    if found:\n"
        "        raise RuntimeError('found ' + ', '.join(sorted(set(found))[:5]))\n"
        "    return 0\n")
    report = grade_notebook(write(student, tmp_path / "student" / teacher.name), timeout=60,
                            source_dir=teacher.parent)
    assert report.score == 0
    assert reasons(report)["double"].startswith("cell 3: AssertionError"), reasons(report)


def test_no_teachers_solution_has_the_bytecode_of_a_function_of_the_course():
    """Else the teacher's own answer would be taken for a copy of the implementation its check compares with."""
    import types

    from course.teaching.assignments import is_solution_cell, notebook_paths
    from course.teaching.remote import MIN_CODE, PACKAGE, TEACHING, _fingerprint

    def codes(code):
        yield code
        for const in code.co_consts:
            if isinstance(const, types.CodeType):
                yield from codes(const)

    course = {}
    for path in PACKAGE.rglob("*.py"):
        if not path.is_relative_to(TEACHING):
            for code in codes(compile(path.read_text(encoding="utf-8"), str(path), "exec")):
                course[_fingerprint(code)] = f"{path.name}: {code.co_qualname}"
    solutions = 0
    for notebook in notebook_paths():
        for cell in nbformat.read(notebook, as_version=4).cells:
            if cell.cell_type == "code" and is_solution_cell(cell):
                for code in codes(compile(cell.source, notebook.name, "exec")):
                    solutions += 1
                    if len(code.co_code) >= MIN_CODE:
                        assert _fingerprint(code) not in course, (notebook.name, code.co_qualname,
                                                                  course[_fingerprint(code)])
    assert solutions > 20


def kernel_starts(monkeypatch, fails) -> list[str]:
    """Make a kernel's start fail as a dying kernel does when ``fails(kernel name, names tried so far)``; returns
    the names of the kernels started, in order."""
    from course.teaching.kernels import Runner

    real, tried = Runner._start, []

    async def start(self):
        tried.append(self.client.kernel_name)
        if fails(self.client.kernel_name, tried):
            raise RuntimeError("Kernel died before replying to kernel_info")
        await real(self)

    monkeypatch.setattr(Runner, "_start", start)
    return tried


@pytest.mark.parametrize("which", ["course-sandbox", "python3"])
def test_a_kernel_that_never_starts_gives_a_report_with_every_assignment_at_zero_and_why(tmp_path, monkeypatch, which):
    # which: the student's kernel (in the sandbox) or the checking kernel; each is tried twice before giving up
    tries = kernel_starts(monkeypatch, lambda name, tried: name == which)
    notebook = toy_notebook(DOUBLE, DOUBLE_CHECK, TRIPLE, TRIPLE_CHECK)
    teacher = write(notebook, tmp_path / "teacher" / "01_toy.ipynb")
    report = grade_notebook(teacher, timeout=10, source_dir=teacher.parent)
    assert scores(report) == {"double": 0, "triple": 0} and tries.count(which) == 2
    what = "runs the notebook" if which == "course-sandbox" else "checks the answers"
    assert all(reason.startswith(f"not graded: the kernel that {what} could not be started (Kernel died")
               for reason in reasons(report).values()), reasons(report)


def test_a_kernel_that_starts_at_its_second_try_grades_as_usual(tmp_path, monkeypatch):
    kernel_starts(monkeypatch, lambda name, tried: len(tried) == 1)  # the very first start fails
    notebook = toy_notebook(DOUBLE, DOUBLE_CHECK, TRIPLE, TRIPLE_CHECK)
    teacher = write(notebook, tmp_path / "teacher" / "01_toy.ipynb")
    report = grade_notebook(teacher, timeout=10, source_dir=teacher.parent)
    assert scores(report) == {"double": 1, "triple": 2}, reasons(report)
