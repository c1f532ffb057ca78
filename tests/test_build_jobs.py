"""Notebooks run several at a time (``build --jobs``): a notebook that needs a file an earlier one is still
making waits for it instead of making it again, and the build's results are those of one at a time."""

import json
import os
import subprocess
import sys
import threading
import time

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from course.core.errors import SettingError
from course.core.io import save_json
from course.shared.files import SHARED_FILES
from course.shared.saved import BUILD_PID, NOTEBOOK_ENV, PENDING_ENV, load_saved, wait_for_saved
from course.teaching.build import (
    PENDING_PREFIX,
    budget_lines,
    build_course,
    core_shares,
    pending_markers,
    remove_stale_marker_folders,
)

BILM = "elmo-cpu-wiki-en.pt"  # made by notebook 06, loaded by 07, 08 and 11


@pytest.fixture
def pending(tmp_path, monkeypatch):
    """A build's marker folder, as a notebook of it (07) sees it."""
    folder = tmp_path / "pending"
    folder.mkdir()
    (folder / BUILD_PID).write_text(str(os.getpid()), encoding="utf-8")
    monkeypatch.setenv(PENDING_ENV, str(folder))
    monkeypatch.setenv(NOTEBOOK_ENV, "07_user")
    return folder


def _later(seconds, action):
    thread = threading.Thread(target=lambda: (time.sleep(seconds), action()))
    thread.start()
    return thread


def test_outside_a_build_nothing_waits(tmp_path, monkeypatch):
    monkeypatch.delenv(PENDING_ENV, raising=False)
    start = time.perf_counter()
    assert wait_for_saved(tmp_path / BILM) == tmp_path / BILM
    assert time.perf_counter() - start < 0.1


def test_a_notebook_waits_for_the_file_another_is_making_and_loads_it(tmp_path, pending, capsys):
    (pending / BILM).write_text("06_maker", encoding="utf-8")
    path = tmp_path / "models" / BILM
    thread = _later(0.6, lambda: save_json(path, {"made by": "06"}))
    start = time.perf_counter()
    loaded = load_saved(path, lambda p: json.loads(p.read_text(encoding="utf-8")))
    waited = time.perf_counter() - start
    thread.join()
    assert loaded == {"made by": "06"} and waited >= 0.5
    notes = capsys.readouterr().err.strip().splitlines()
    assert notes == [f"note: waiting for 06_maker, which this build runs at the same time, to save {BILM}"]


def test_a_file_saved_before_the_build_is_waited_for_until_it_is_saved_again(tmp_path, pending):
    """A stale file (trained with other settings, say) that the maker will save again: the marker is newer."""
    path = tmp_path / BILM
    save_json(path, "old")
    time.sleep(0.05)
    (pending / BILM).write_text("06_maker", encoding="utf-8")
    thread = _later(0.5, lambda: save_json(path, "new"))
    assert json.loads(wait_for_saved(path, poll=0.05).read_text(encoding="utf-8")) == "new"
    thread.join()


def test_a_maker_that_ends_without_the_file_lets_the_waiter_make_it_itself(tmp_path, pending):
    marker = pending / BILM
    marker.write_text("06_maker", encoding="utf-8")
    thread = _later(0.4, marker.unlink)
    start = time.perf_counter()
    assert load_saved(tmp_path / BILM, lambda p: p.read_text()) is None  # the caller trains it, as alone
    assert 0.3 <= time.perf_counter() - start < 5
    thread.join()


def test_no_one_waits_for_a_build_that_is_no_longer_running(tmp_path, pending):
    (pending / BILM).write_text("06_maker", encoding="utf-8")
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    (pending / BUILD_PID).write_text(gone.stdout.strip(), encoding="utf-8")  # killed before it removed its markers
    start = time.perf_counter()
    assert not wait_for_saved(tmp_path / BILM).is_file()
    assert time.perf_counter() - start < 0.1


def test_the_maker_does_not_wait_for_itself_nor_anyone_for_other_files(tmp_path, pending, monkeypatch):
    (pending / BILM).write_text("07_user", encoding="utf-8")
    start = time.perf_counter()
    assert wait_for_saved(tmp_path / BILM) == tmp_path / BILM
    assert wait_for_saved(tmp_path / "glove-wiki-en.txt") == tmp_path / "glove-wiki-en.txt"
    assert time.perf_counter() - start < 0.1


def test_markers_name_the_notebook_of_the_build_that_makes_each_shared_file(tmp_path):
    sources = [tmp_path / f"{stem}.ipynb" for stem in ("05_compare", "06_elmo", "08_layers")]
    markers = pending_markers(sources, tmp_path)
    made = {shared.name: shared.made_in for shared in SHARED_FILES}
    assert sorted(m.name for m in markers) == sorted(n for n, by in made.items() if by in ("05", "06"))
    assert {m.name: m.read_text(encoding="utf-8") for m in markers}[BILM] == "06_elmo"


def test_marker_folders_of_builds_that_were_killed_are_removed_and_no_others(tmp_path):
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    folders = {name: tmp_path / f"{PENDING_PREFIX}{name}" for name in ("killed", "running", "starting")}
    for folder in folders.values():
        folder.mkdir()
        (folder / BILM).write_text("06_maker", encoding="utf-8")
    (folders["killed"] / BUILD_PID).write_text(dead.stdout.strip(), encoding="utf-8")
    (folders["running"] / BUILD_PID).write_text(str(os.getpid()), encoding="utf-8")
    other = tmp_path / "course-build-other"  # not a marker folder
    other.mkdir()
    (other / BUILD_PID).write_text(dead.stdout.strip(), encoding="utf-8")
    assert remove_stale_marker_folders(tmp_path) == [folders["killed"]]
    assert not folders["killed"].exists()
    assert folders["running"].is_dir() and folders["starting"].is_dir() and other.is_dir()


def test_each_notebook_gets_its_own_cores_where_there_are_two_per_notebook():
    assert core_shares(2, list(range(16))) == [list(range(8)), list(range(8, 16))]
    assert core_shares(3, list(range(16))) == [[0, 1, 2, 3, 4], [5, 6, 7, 8, 9], [10, 11, 12, 13, 14]]
    assert core_shares(2, [0, 1]) == [None, None]  # two cores, two notebooks: they share both
    assert core_shares(1, [0, 1]) == [[0, 1]]


def test_a_build_at_the_same_time_prints_its_own_time_as_the_total():
    lines = budget_lines({"00_a": 60.0, "01_b": 120.0, "claims": 30.0}, "smoke", wall=150.0)
    assert lines[-1].split()[:3] == ["total", "2.5", "min"]
    assert budget_lines({"00_a": 60.0, "01_b": 120.0, "claims": 30.0}, "smoke")[-1].split()[:3] == \
        ["total", "3.5", "min"]
    # Full profile: a notebook beside another is not held to its own budget (made for one at a time), the total is.
    times = {"06_elmo": 1500.0, "07_polysemy": 1740.0, "claims": 40.0}
    alone = budget_lines(times, "full")
    assert "OVER by" in next(line for line in alone if line.startswith("06_elmo"))
    assert "06_elmo took more than 10 minutes" in alone
    side = budget_lines(times, "full", wall=1800.0)
    assert next(line for line in side if line.startswith("06_elmo")).split()[-2:] == ["9.0", "min"]
    assert not any("took more than" in line for line in side)
    total = next(line for line in side if line.startswith("total"))
    assert total.endswith("30.0 min    18.5 min   OVER by  11.5 min")  # the build's 30 minutes, not the sum's 54
    assert side[-1].startswith("side by side, only the total is held to its budget")


def _notebook(path, *sources):
    parameters = new_code_cell("PROFILE = None\nEDITION = None")
    parameters.metadata["tags"] = ["parameters"]
    notebook = new_notebook(cells=[new_markdown_cell(f"# {path.stem}"), parameters,
                                   *[new_code_cell(source) for source in sources]])
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(notebook, path)


STAMP = "import json, os, time\nfrom course.core.io import save_json\nfrom course.core.paths import models_dir\n" \
        "from course.shared.saved import wait_for_saved\n" \
        "print(json.dumps({'start': time.time(), 'notebook': os.environ.get('COURSE_BUILD_NOTEBOOK')}))"


def _printed(run) -> list[str]:
    executed = nbformat.read(run.executed, as_version=4)
    return [line for cell in executed.cells if cell.cell_type == "code" for output in cell.outputs
            if output.get("name") == "stdout" for line in output["text"].splitlines()]


def test_notebooks_run_at_the_same_time_and_one_waits_for_what_another_saves(tmp_path, monkeypatch, capsys):
    """06 takes 3 seconds to save the English biLM; 07 starts at once beside it, and loads what 06 saved;
    08 fails, and its failure is recorded as in a build one at a time; the runs come back in order."""
    monkeypatch.setenv("COURSE_BUILD", str(tmp_path / "build"))
    source = tmp_path / "notebooks"
    source.mkdir()
    _notebook(source / "06_maker.ipynb", STAMP, "time.sleep(3)\n"
              f"save_json(models_dir(PROFILE) / {BILM!r}, {{'saved': time.time()}})\nprint('saved')")
    _notebook(source / "07_user.ipynb", STAMP,
              f"path = wait_for_saved(models_dir(PROFILE) / {BILM!r})\n"
              "print(json.dumps({'loaded': json.loads(path.read_text()), 'at': time.time()}))")
    _notebook(source / "08_broken.ipynb", STAMP, "1 / 0")
    out = tmp_path / "build"
    start = time.perf_counter()
    runs = build_course(profile="smoke", out=out, notebooks=source, jobs=2)
    elapsed = time.perf_counter() - start
    assert [run.name for run in runs] == ["06_maker", "07_user", "08_broken"]
    maker, user, broken = runs
    assert maker.error is None and user.error is None and "ZeroDivisionError" in broken.error
    made, used = (json.loads(_printed(run)[0]) for run in (maker, user))
    assert (made["notebook"], used["notebook"]) == ("06_maker", "07_user")
    assert used["start"] < made["start"] + 3  # 07 began while 06 was still at work
    loaded = json.loads(_printed(user)[1])
    saved = json.loads((out / "models" / "smoke" / BILM).read_text())
    assert loaded["loaded"] == saved and loaded["at"] >= saved["saved"]
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["jobs"] == 2 and max(run.seconds for run in runs) < summary["seconds"] <= elapsed + 0.05  # its own
    assert [n["notebook"] for n in summary["notebooks"]] == ["06_maker", "07_user", "08_broken"]
    printed = capsys.readouterr().out
    assert "2 notebooks at a time: the total is the build's own time" in printed
    assert not list(tmp_path.glob("**/*.part"))


def test_a_maker_that_fails_does_not_leave_the_waiter_waiting(tmp_path, monkeypatch):
    monkeypatch.setenv("COURSE_BUILD", str(tmp_path / "build"))
    source = tmp_path / "notebooks"
    source.mkdir()
    _notebook(source / "06_maker.ipynb", "import time\ntime.sleep(1)\nraise RuntimeError('no biLM today')")
    _notebook(source / "07_user.ipynb", STAMP, f"path = wait_for_saved(models_dir(PROFILE) / {BILM!r})\n"
              "print('missing' if not path.is_file() else 'there')")
    out = tmp_path / "build"
    done = subprocess.run([sys.executable, "-m", "course", "build", "--profile", "smoke", "--notebooks", str(source),
                           "--out", str(out), "--jobs", "3"], capture_output=True, text=True, timeout=180)
    assert done.returncode == 1 and "error: 06_maker failed: " in done.stderr and "no biLM today" in done.stderr
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))["notebooks"]
    assert [(n["notebook"], n["error"] is None) for n in summary] == [("06_maker", False), ("07_user", True)]
    executed = nbformat.read(out / "notebooks" / "07_user.ipynb", as_version=4)
    assert executed.cells[-1].outputs[-1]["text"].strip() == "missing"


def test_jobs_must_be_a_positive_whole_number(tmp_path, capsys):
    from course.cli import main

    with pytest.raises(SettingError, match="jobs must be a positive whole number"):
        build_course(profile="smoke", out=tmp_path / "build", notebooks=tmp_path, jobs=0)
    with pytest.raises(SystemExit) as stopped:
        main(["build", "--profile", "smoke", "--jobs", "0"])
    assert stopped.value.code == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1
    assert not (tmp_path / "build").exists()
