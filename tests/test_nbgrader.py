"""Real nbgrader on a course notebook: a course folder from ``python -m course nbgrader init``, nbgrader's
``generate_assignment`` and ``autograde``, and the scores it gives equal to ``python -m course grade``'s on the
same files (unanswered, the teacher's answers, a wrong answer)."""

import json
import os
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from course.teaching.assignments import notebook_paths, student_version

pytest.importorskip("nbgrader")

BIN = Path(sys.executable).parent  # nbgrader runs alembic from there
NOTEBOOK = "00_corpus"


def course(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "course", *map(str, args)], capture_output=True, text=True,
                          timeout=600, cwd=cwd)


def nbgrader(*args, cwd):
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    result = subprocess.run([str(BIN / "nbgrader"), *args], capture_output=True, text=True, timeout=900, cwd=cwd,
                            env=env)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return result


def test_nbgrader_init_writes_a_course_folder_and_refuses_one_that_is_there(tmp_path):
    folder = tmp_path / "class"
    result = course("nbgrader", "init", folder)
    assert result.returncode == 0, result.stderr
    names = result.stdout.split()
    assert names == [path.stem for path in notebook_paths()]  # every notebook has an assignment
    for name in names:
        assert (folder / "source" / name / f"{name}.ipynb").is_file()
    config = (folder / "nbgrader_config.py").read_text()
    assert "c.Execute.timeout = 600" in config and "COURSE_PROFILE" in config and "COURSE_BUILD" in config
    again = course("nbgrader", "init", folder)
    assert again.returncode == 2 and len(again.stderr.strip().splitlines()) == 1
    assert "not an empty folder" in again.stderr
    none = course("nbgrader", "init", tmp_path / "other", "--only", "no-such-notebook")
    assert none.returncode == 2 and "no notebook with an assignment" in none.stderr
    assert not (tmp_path / "other").exists()


def test_nbgraders_autograde_scores_as_the_course_grader_does(tmp_path):
    folder = tmp_path / "class"
    assert course("nbgrader", "init", folder, "--only", NOTEBOOK).returncode == 0
    nbgrader("generate_assignment", NOTEBOOK, "--force", cwd=folder)
    released = nbformat.read(folder / "release" / NOTEBOOK / f"{NOTEBOOK}.ipynb", as_version=4)
    student = student_version(nbformat.read(Path("notebooks") / f"{NOTEBOOK}.ipynb", as_version=4),
                              f"{NOTEBOOK}.ipynb")
    assert [c.source for c in student.cells] == [c.source for c in released.cells]

    teacher = nbformat.read(folder / "source" / NOTEBOOK / f"{NOTEBOOK}.ipynb", as_version=4)
    wrong = nbformat.from_dict(json.loads(json.dumps(teacher)))
    [cell] = [c for c in wrong.cells if "def oov_rate_estimate" in c.source]
    assert "<= min_counts[:, None]" in cell.source
    cell.source = cell.source.replace("<= min_counts[:, None]", "< min_counts[:, None]")  # c(w) < m: off by one
    submissions = {"unanswered": student, "teacher": teacher, "wrong": wrong}
    for name, notebook in submissions.items():
        (folder / "submitted" / name / NOTEBOOK).mkdir(parents=True)
        nbformat.write(notebook, str(folder / "submitted" / name / NOTEBOOK / f"{NOTEBOOK}.ipynb"))
    nbgrader("autograde", NOTEBOOK, "--force", cwd=folder)

    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{folder / 'gradebook.db'}") as gradebook:
        theirs = {name: gradebook.find_submission(NOTEBOOK, name).score for name in submissions}
    mine = {}
    for name in submissions:
        report = tmp_path / f"{name}.json"
        result = course("grade", folder / "submitted" / name / NOTEBOOK / f"{NOTEBOOK}.ipynb", "--json", report)
        assert result.returncode == 0, result.stderr
        mine[name] = json.loads(report.read_text(encoding="utf-8"))["score"]
    assert theirs == mine, (theirs, mine)
    assert mine["teacher"] > mine["wrong"] == mine["unanswered"] == 0
