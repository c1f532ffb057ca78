"""The course builder on two tiny notebooks: one that works and one that fails."""

import json

import nbformat
import torch
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from course.core.parallel import available_cores
from course.teaching.build import build_course
from tests.test_assignments import DOUBLE, DOUBLE_CHECK


def _notebook(path, cells):
    notebook = new_notebook(cells=cells)
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(notebook, path)


def test_build_runs_notebooks_and_writes_an_index(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("COURSE_BUILD", str(tmp_path / "build"))  # the models the claims read: none here
    source = tmp_path / "notebooks"
    source.mkdir()
    parameters = new_code_cell("PROFILE = None")
    parameters.metadata["tags"] = ["parameters"]
    _notebook(source / "00_good.ipynb", [
        new_markdown_cell("# 00 · A good notebook"),
        parameters,
        new_code_cell("import course\nimport matplotlib\nmatplotlib.use('Agg')\nimport matplotlib.pyplot as plt\n"
                      "%matplotlib inline\n"
                      "PROFILE = course.resolve_profile(PROFILE)\n"
                      "course.headline('Profile seen', PROFILE)\ncourse.headline('Answer', 42)"),
        new_markdown_cell("## 1 · Doubling numbers\nText."),
        DOUBLE,
        DOUBLE_CHECK,
        new_code_cell("plt.plot([1, 2, 3]); plt.show()"),
        new_markdown_cell("## Exercises"),
    ])
    _notebook(source / "01_bad.ipynb", [new_markdown_cell("# 01 · Broken"), new_code_cell("1 / 0")])
    out = tmp_path / "build"
    runs = build_course(profile="smoke", out=out, notebooks=source)
    good, bad = runs
    # The machine, in the summary and the printout: the times and the claims' last digits are its own.
    machine = json.loads((out / "summary.json").read_text(encoding="utf-8"))["machine"]
    assert f"{available_cores()} cores, PyTorch's CPU kernels: {torch.backends.cpu.get_cpu_capability()}" in machine
    assert f"machine: {machine}" in capsys.readouterr().out
    assert good.error is None and bad.error and "ZeroDivisionError" in bad.error
    assert [(h["name"], h["text"]) for h in good.headlines] == [("Profile seen", "smoke"), ("Answer", "42")]
    assert len(good.figures) == 1 and good.figures[0].read_bytes().startswith(b"\x89PNG")
    index = (out / "index.html").read_text(encoding="utf-8")
    assert "00 · A good notebook" in index and "Answer" in index and "Failed" in index
    assert "figures/00_good-01.png" in index and "notebooks/00_good.html" in index
    assert (out / "notebooks" / "00_good.html").is_file()
    # The claims table comes first; with no models saved, the index says why in its place.
    assert index.index("Claims: do they hold here?") < index.index("For teachers")
    assert "The claims could not be measured" in index and "holds no trained models" in index
    assert not list(out.rglob("*.part"))
    # The teacher's table: ideas, assignments with points, time, and the student version beside it.
    assert "For teachers" in index and "Doubling numbers" in index and "double (1)" in index
    assert "assignments/00_good.ipynb" in index and "Exercises</li>" not in index
    student = nbformat.read(out / "assignments" / "00_good.ipynb", as_version=4)
    assert any("raise NotImplementedError()" in cell.source for cell in student.cells)
    assert good.ideas == ["Doubling numbers"] and [a.id for a in good.assignments] == ["double"]


def _two_notebooks(folder):
    folder.mkdir()
    _notebook(folder / "00_good.ipynb", [new_markdown_cell("# 00 · Good"), new_code_cell("x = 1")])
    _notebook(folder / "01_other.ipynb", [new_markdown_cell("# 01 · Other"), new_code_cell("y = 2")])
    return folder


def test_only_that_matches_no_notebook_is_one_line_and_writes_nothing(tmp_path, monkeypatch, capsys):
    from course.cli import main

    monkeypatch.setenv("COURSE_BUILD", str(tmp_path / "build"))
    source = _two_notebooks(tmp_path / "notebooks")
    out = tmp_path / "site" / "build"
    assert main(["build", "--profile", "smoke", "--notebooks", str(source), "--out", str(out), "--only", "09_"]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: --only '09_' matches none of the notebooks in"), lines
    assert "(there are: 00_good, 01_other)" in lines[0]
    assert main(["build", "--profile", "smoke", "--notebooks", str(source), "--out", str(out), "--only", "09_",
                 "--only", "10_"]) == 2
    assert "error: --only '09_' --only '10_' matches none" in capsys.readouterr().err
    assert not (tmp_path / "site").exists() and not (tmp_path / "build").exists()
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["build", "--profile", "smoke", "--notebooks", str(empty), "--out", str(out)]) == 2
    assert "no NN_*.ipynb notebooks to build" in capsys.readouterr().err
    assert not (tmp_path / "site").exists() and not (tmp_path / "build").exists()


def test_an_interrupted_build_leaves_no_empty_folders_and_no_half_notebook(tmp_path, monkeypatch):
    import papermill
    import pytest

    monkeypatch.setenv("COURSE_BUILD", str(tmp_path / "build"))
    source = _two_notebooks(tmp_path / "notebooks")

    def interrupted(input_path, output_path, **kwargs):
        with open(output_path, "w", encoding="utf-8") as handle:
            handle.write('{"cells": [')  # papermill had saved part of the notebook when Ctrl-C came
        raise KeyboardInterrupt

    monkeypatch.setattr(papermill, "execute_notebook", interrupted)
    out = tmp_path / "site" / "build"
    with pytest.raises(KeyboardInterrupt):
        build_course(profile="smoke", out=out, notebooks=source)
    folders = [path for path in tmp_path.rglob("*") if path.is_dir()]
    assert all(any(folder.iterdir()) for folder in folders), folders  # no empty folder anywhere
    assert not (out / "notebooks").exists() and not (out / "models").exists() and not list(out.rglob("*.part"))
    assert sorted(p.name for p in (out / "assignments").iterdir()) == ["00_good.ipynb", "01_other.ipynb"]


def test_a_build_that_fails_before_writing_removes_the_folders_it_made(tmp_path, monkeypatch):
    import pytest

    from course.core.errors import AssignmentMarkerError

    monkeypatch.setenv("COURSE_BUILD", str(tmp_path / "build"))
    source = _two_notebooks(tmp_path / "notebooks")
    _notebook(source / "02_bad.ipynb", [new_code_cell("### BEGIN SOLUTION\nx = 1")])  # a marker without its partner
    out = tmp_path / "site" / "build"
    with pytest.raises(AssignmentMarkerError):
        build_course(profile="smoke", out=out, notebooks=source)
    assert not (tmp_path / "site").exists()


def test_the_build_prints_each_time_beside_its_budget():
    from course.teaching.build import FULL_BUDGETS, FULL_TOTAL_BUDGET, budget_lines

    names = [f"{key}_notebook" for key in FULL_BUDGETS if key != "claims"] + ["claims"]
    within = {name: FULL_BUDGETS[name.split("_", 1)[0]] * 0.5 for name in names}
    lines = budget_lines(within, "full")
    assert lines[-1].startswith("0 of 13 over budget") and "OVER" not in "\n".join(lines)
    assert lines[-2].startswith("total") and lines[-2].endswith("ok")
    assert sum(FULL_BUDGETS.values()) <= FULL_TOTAL_BUDGET  # the budgets add up to what the whole may take
    slow = within | {"06_notebook": 1599.0}
    lines = budget_lines(slow, "full")
    row = next(line for line in lines if line.startswith("06_notebook"))
    assert "26.6 min" in row and "OVER by  17.6 min" in row
    assert "06_notebook took more than 10 minutes" in lines and lines[-1].startswith("1 of 13 over budget")
    # A partial build is held to the budgets of its own notebooks; other profiles print times only.
    part = budget_lines({"02_notebook": 100.0}, "full")
    assert part[-2].startswith("total (these notebooks)") and "1.5 min" in part[-2] and "OVER" in part[-2]
    assert not any("budget" in line or "OVER" in line for line in budget_lines(slow, "smoke"))


def test_the_build_counts_the_processor_time_of_a_notebook_and_of_the_processes_it_starts(tmp_path, monkeypatch,
                                                                                          capsys):
    """A notebook that keeps a forked child busy for a second: the run's processor time holds the kernel's
    own and the child's, so cores busy can read more than one."""
    monkeypatch.setenv("COURSE_BUILD", str(tmp_path / "build"))
    source = tmp_path / "notebooks"
    source.mkdir()
    _notebook(source / "00_busy.ipynb", [new_markdown_cell("# 00 · Busy"), new_code_cell(
        "import json, multiprocessing, time\n"
        "def spin(seconds):\n"
        "    end = time.process_time() + seconds\n"
        "    while time.process_time() < end:\n"
        "        pass\n"
        "child = multiprocessing.get_context('fork').Process(target=spin, args=(1.0,))\n"
        "child.start()\n"
        "spin(0.5)\n"
        "child.join()\n"
        "print(json.dumps(time.process_time()))")])
    out = tmp_path / "build"
    (run,) = build_course(profile="smoke", out=out, notebooks=source)
    executed = nbformat.read(run.executed, as_version=4)
    kernel = float(next(o["text"] for c in executed.cells if c.cell_type == "code" for o in c.outputs
                        if o.get("name") == "stdout"))
    assert kernel >= 0.5 and run.cpu_seconds >= kernel + 1.0  # the kernel, and the child it forked
    assert run.cpu_seconds <= run.seconds * available_cores() + 1.0  # no more than the cores could give
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))["notebooks"][0]
    assert summary["cpu_seconds"] == round(run.cpu_seconds, 1)
    printed = capsys.readouterr().out.splitlines()
    row = next(line for line in printed if line.startswith("00_busy"))
    assert f"{run.cpu_seconds / run.seconds:5.2f}" in row
    assert "min of processor time: with all" in printed[-1]


def test_cores_busy_and_the_least_time_the_same_work_could_take():
    from course.teaching.build import budget_lines

    seconds = {"00_a": 60.0, "01_b": 120.0, "claims": 30.0}
    lines = budget_lines(seconds, "full", {"00_a": 60.0, "01_b": 230.0, "claims": 15.0}, cores=2)
    assert lines[0].endswith("cores busy")
    assert "1.00" in next(line for line in lines if line.startswith("00_a"))
    assert "1.92" in next(line for line in lines if line.startswith("01_b"))
    assert "0.50" in next(line for line in lines if line.startswith("claims"))
    assert "1.45" in next(line for line in lines if line.startswith("total"))  # 305 s of processor in 210 s
    assert lines[-1] == "5.1 min of processor time: with all 2 cores busy throughout, at least 2.5 min"
    # One of them unknown: its column is empty, and neither the total's nor the least time is claimed.
    lines = budget_lines(seconds, "full", {"00_a": 60.0, "01_b": None, "claims": 15.0}, cores=2)
    assert "1.45" not in next(line for line in lines if line.startswith("total"))
    assert not any("processor time" in line for line in lines)
    # Without processor times the lines are the times and budgets alone.
    assert not any("cores busy" in line for line in budget_lines(seconds, "full", None, cores=2))


def test_the_build_ends_with_its_times(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("COURSE_BUILD", str(tmp_path / "build"))
    source = tmp_path / "notebooks"
    source.mkdir()
    _notebook(source / "00_good.ipynb", [new_markdown_cell("# 00 · Good"), new_code_cell("x = 1")])
    build_course(profile="smoke", out=tmp_path / "build", notebooks=source)
    printed = capsys.readouterr().out.splitlines()
    if "processor time" in printed[-1]:  # where the system counts it: the least time the same work could take
        printed = printed[:-1]
    assert printed[-3].startswith("00_good") and printed[-2].startswith("claims") and printed[-1].startswith("total")


def test_a_second_build_into_a_folder_another_holds_refuses_at_once(tmp_path, monkeypatch):
    """The test process holds the folder as a build does; a build started in another process refuses
    in one line, having written nothing; once the folder is let go, it may be held again."""
    from course.teaching.build import holding_output_folder
    from tests.conftest import assert_one_line_error, run_course

    source = _two_notebooks(tmp_path / "notebooks")
    out = tmp_path / "site" / "build"
    env = {"COURSE_BUILD": str(tmp_path / "build")}
    with holding_output_folder(out):
        second = run_course("build", "--profile", "smoke", "--notebooks", source, "--out", out, env=env)
        assert_one_line_error(second, f"error: {out}: another build is writing into this folder now")
        assert list(out.iterdir()) == []  # not even the student versions
    assert not (tmp_path / "site").exists()  # the holder made the folders, and removed them empty
    with holding_output_folder(out):
        (out / "index.html").write_text("kept")
    assert (out / "index.html").read_text() == "kept"


def test_a_build_holds_its_folder_from_start_to_end(tmp_path, monkeypatch):
    """While build_course runs (its notebooks stood in for), a build into the same folder from another
    process refuses, and another folder is free; once it ends, even failing, the folder is free again."""
    import pytest

    from course.teaching import build
    from tests.conftest import run_course

    source = _two_notebooks(tmp_path / "notebooks")
    out = tmp_path / "build"
    monkeypatch.setenv("COURSE_BUILD", str(out))
    seen = []

    def meanwhile(*args, **kwargs):
        seen.append(run_course("build", "--profile", "smoke", "--notebooks", source, "--out", out))
        with build.holding_output_folder(tmp_path / "other"):
            pass
        (out / "summary.json").write_text("{}")
        if len(seen) == 2:
            raise RuntimeError("a notebook's run broke")
        return []

    monkeypatch.setattr(build, "_build", meanwhile)
    assert build_course(profile="smoke", out=out, notebooks=source) == []
    with pytest.raises(RuntimeError, match="broke"):
        build_course(profile="smoke", out=out, notebooks=source)
    for refused in seen:
        assert refused.returncode == 2 and f"{out}: another build is writing into this folder" in refused.stderr
    with build.holding_output_folder(out):  # let go both times
        pass
