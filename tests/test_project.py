"""The project's own promises: pins agree, notebooks are clean and parameterised, the README is true."""

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
CHINESE_NOTEBOOKS = sorted((ROOT / "notebooks" / "zh").glob("[0-9][0-9]_*.ipynb"))
PIN = re.compile(r"^\s*(?:-\s+)?([A-Za-z0-9_.\-]+)==([^\s#]+)\s*$")


def _pins(path: Path) -> dict[str, str]:
    pins = {}
    for line in path.read_text().splitlines():
        match = PIN.match(line)
        if match:
            pins[match.group(1).lower()] = match.group(2)
    return pins


def test_environment_yml_names_the_same_pins_as_requirements():
    requirements = _pins(ROOT / "requirements.txt")
    conda = _pins(ROOT / "environment.yml")
    assert requirements["torch"] == "2.13.0"
    assert conda == requirements


def test_package_dependencies_are_all_pinned():
    text = (ROOT / "pyproject.toml").read_text()
    block = text.split("dependencies = [", 1)[1].split("]", 1)[0]
    names = {re.split(r"[<>=!~ ]", item.strip().strip('",'))[0].lower() for item in block.splitlines() if item.strip()}
    assert names - {""} <= set(_pins(ROOT / "requirements.txt")) | {"ipython"}


def test_there_are_notebooks():
    assert [p.name[:2] for p in NOTEBOOKS][:2] == ["00", "01"]


@pytest.mark.parametrize("path", NOTEBOOKS + CHINESE_NOTEBOOKS, ids=lambda p: str(p.relative_to(ROOT / "notebooks")))
def test_notebook_is_stripped_and_parameterised(path):
    notebook = json.loads(path.read_text(encoding="utf-8"))
    code = [cell for cell in notebook["cells"] if cell["cell_type"] == "code"]
    assert all(not cell.get("outputs") and cell.get("execution_count") is None for cell in code), \
        f"{path.name} carries outputs: strip them with nbstripout"
    first = notebook["cells"][0]
    assert first["cell_type"] == "markdown" and "".join(first["source"]).startswith("# ")
    parameters = notebook["cells"][1]
    assert "parameters" in parameters.get("metadata", {}).get("tags", [])
    assert "".join(parameters["source"]).strip() == "PROFILE = None\nEDITION = None"
    assert any("course.use_edition(EDITION)" in "".join(c["source"]) for c in code)
    exercises = "## 练习" if path.parent.name == "zh" else "## Exercises"
    assert any(exercises in "".join(c["source"]) for c in notebook["cells"] if c["cell_type"] == "markdown")


def test_readme_gives_the_two_commands_and_a_true_package_map():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "make course" in readme and "make test" in readme
    for module in (ROOT / "course").glob("*.py"):
        if module.name not in ("__init__.py", "__main__.py"):
            assert module.name in readme, f"README's package map misses {module.name}"
    rows = {line.split("`")[1]: line for line in readme.splitlines() if line.startswith("| `")}
    for package in sorted(p for p in (ROOT / "course").iterdir() if (p / "__init__.py").is_file()):
        row = rows.get(f"{package.name}/")
        assert row is not None, f"README's package map misses {package.name}/"
        for module in package.rglob("*.py"):
            if module.name != "__init__.py":
                assert f"`{module.name}`" in row, f"README's row of {package.name}/ misses {module.name}"
    for notebook in NOTEBOOKS:
        assert notebook.name in readme, f"README's syllabus misses {notebook.name}"
