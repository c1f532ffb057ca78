"""The course builder on two tiny notebooks: one that works and one that fails."""

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from course.teaching.build import build_course
from tests.test_assignments import DOUBLE, DOUBLE_CHECK


def _notebook(path, cells):
    notebook = new_notebook(cells=cells)
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(notebook, path)


def test_build_runs_notebooks_and_writes_an_index(tmp_path, monkeypatch):
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
