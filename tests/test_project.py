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


def _requirement_names(items) -> set[str]:
    return {re.split(r"[<>=!~\[ ]", item.strip())[0].lower().replace("_", "-") for item in items}


def test_every_pin_is_a_dependency_or_an_extra_and_every_one_is_pinned():
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    runtime = _requirement_names(project["dependencies"])
    extras = {name: _requirement_names(items) - {"word-vectors-course"}
              for name, items in project["optional-dependencies"].items()}
    assert {"lab", "teach", "dev"} <= set(extras)
    assert all(not runtime & names for names in extras.values()), "a runtime dependency repeated in an extra"
    pins = set(_pins(ROOT / "requirements.txt"))
    declared = runtime.union(*extras.values())
    assert declared - pins <= {"ipython"}, f"not pinned in requirements.txt: {declared - pins - {'ipython'}}"
    assert pins <= declared, f"pinned but in no dependency or extra: {pins - declared}"
    assert {"papermill", "nbconvert", "nbclient", "nbformat", "nbgrader"} <= extras["teach"]
    assert not {"pytest", "ruff", "nbval", "nbgrader"} & (runtime | extras["lab"])  # a student installs no tests


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


def _markdown(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def _table_rows(text: str) -> dict[str, list[str]]:
    """A Markdown table's rows by their first cell (backticks kept), each as its list of cells."""
    rows = {}
    for line in text.splitlines():
        if line.startswith("|") and not line.startswith("|---"):
            cells = [cell.strip() for cell in line.strip().strip("|").split(" | ")]
            rows.setdefault(cells[0], cells)
    return rows


def test_readme_gives_the_two_commands_and_the_syllabus():
    readme = _markdown(ROOT / "README.md")
    assert "make course" in readme and "make test" in readme
    syllabus = readme.split("## Syllabus", 1)[1].split("\n## ", 1)[0]
    for notebook in NOTEBOOKS:
        assert f"`{notebook.name}`" in syllabus, f"README's syllabus misses {notebook.name}"
    chinese = _markdown(ROOT / "README.zh.md")
    for notebook in CHINESE_NOTEBOOKS:
        assert f"notebooks/zh/{notebook.name}" in chinese, f"README.zh.md's syllabus misses {notebook.name}"


@pytest.mark.parametrize("name", ["README.md", "README.zh.md"])
def test_readme_is_short(name):
    lines = _markdown(ROOT / name).count("\n")
    assert lines <= 300, f"{name} has {lines} lines: move the detail into docs/"


def test_package_map_is_true():
    design = _markdown(ROOT / "docs" / "design.md")
    package_map = design.split("## The package", 1)[1].split("\n## ", 1)[0]
    for module in (ROOT / "course").glob("*.py"):
        if module.name not in ("__init__.py", "__main__.py"):
            assert f"`{module.name}`" in package_map, f"docs/design.md's package map misses {module.name}"
    rows = {line.split("`")[1]: line for line in package_map.splitlines() if line.startswith("| `")}
    for package in sorted(p for p in (ROOT / "course").iterdir() if (p / "__init__.py").is_file()):
        row = rows.get(f"{package.name}/")
        assert row is not None, f"docs/design.md's package map misses {package.name}/"
        for module in package.rglob("*.py"):
            if module.name != "__init__.py":
                assert f"`{module.name}`" in row, f"docs/design.md's row of {package.name}/ misses {module.name}"


def test_readme_dependency_table_names_every_pinned_package_at_its_pin():
    readme = _markdown(ROOT / "README.md")
    table = readme.split("### Dependencies, and what each is for", 1)[1].split("\n## ", 1)[0]
    named = {}
    for cells in _table_rows(table).values():
        for item in cells[0].split(","):
            words = re.sub(r"\(.*?\)", "", item).split()
            if words:
                named[words[0].lower()] = words[1] if len(words) > 1 and words[1][0].isdigit() else None
    named.pop("package", None)
    requirements = _pins(ROOT / "requirements.txt")
    assert set(requirements) <= set(named), f"README's dependency table misses {set(requirements) - set(named)}"
    for package, version in named.items():
        if version is not None:
            assert requirements.get(package) == version, f"README says {package} {version}, requirements.txt " \
                                                         f"pins {requirements.get(package)}"


LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)")


def _anchor(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower().replace("`", "")).replace(" ", "-")


def _anchors(path: Path) -> set[str]:
    text = re.sub(r"```.*?```", "", _markdown(path), flags=re.S)
    return {_anchor(line.lstrip("#")) for line in text.splitlines() if re.match(r"#{1,6} ", line)}


DOCUMENTS = [ROOT / "README.md", ROOT / "README.zh.md", ROOT / "data" / "README.md",
             *sorted((ROOT / "docs").glob("*.md"))]


@pytest.mark.parametrize("path", DOCUMENTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_points_to_a_file_and_heading_that_exist(path):
    text = re.sub(r"```.*?```", "", _markdown(path), flags=re.S)
    for target in LINK.findall(text):
        if re.match(r"[a-z]+:", target):
            continue
        file, _, anchor = target.partition("#")
        linked = (path.parent / file).resolve() if file else path
        assert linked.exists(), f"{path.name} links {target}, and {file} does not exist"
        if anchor and linked.suffix == ".md":
            assert anchor in _anchors(linked), f"{path.name} links {target}: {linked.name} has no such heading"


def test_docs_exist_and_the_readme_links_each():
    readme = _markdown(ROOT / "README.md")
    documents = sorted((ROOT / "docs").glob("*.md"))
    assert documents
    for document in documents:
        assert f"](docs/{document.name}" in readme, f"README.md does not link docs/{document.name}"


def test_the_claims_document_states_every_claim_and_its_latest_table_adds_up():
    from course.claims import row

    claims = _markdown(ROOT / "docs" / "claims.md")
    for name in ("LANGUAGE_MODEL", "STATIC", "SENSES", "LAYERS", "POS_BASELINE", "FEW_LABELS", "CONTEXTUAL",
                 "FINE_TUNING", "PRETRAINED_LM", "TARGET_DOMAIN", "LM_FINE_TUNING", "BAG_OF_WORDS",
                 "TRANSFORMER_SPEED", "BOTH_SIDES", "TRANSFORMER_SENSES", "FINE_TUNING_GAIN"):
        assert getattr(row, name) in claims, f"docs/claims.md does not state the claim {getattr(row, name)!r}"
    latest = claims.split("| claim | notebook | measurement | controls | margin | spread | verdict |", 1)[1]
    verdicts = [line.rstrip(" |").rsplit("| ", 1)[1] for line in latest.split("\n\n", 1)[0].splitlines()[2:]]
    assert set(verdicts) <= {row.HOLDS, row.FAILS}
    stated = re.search(r"\((\d+) of (\d+) hold\)", claims)
    assert stated, "docs/claims.md no longer says how many claims hold"
    assert (int(stated.group(1)), int(stated.group(2))) == (verdicts.count(row.HOLDS), len(verdicts))


def test_the_measurements_agree_with_the_claims_table_on_the_figures_both_give():
    """The ULMFiT and fill-in-the-blank tables in docs/measurements.md come from the same saved build
    as the claims table in docs/claims.md: where both give a figure, it is the same figure."""
    measurements = _table_rows(_markdown(ROOT / "docs" / "measurements.md"))
    claims = _markdown(ROOT / "docs" / "claims.md")
    ulmfit = measurements["ULMFiT, stages 1+2+3"]
    at_100, at_300 = (cell.split(" ± ")[0] for cell in ulmfit[1:3])
    assert set(re.findall(r"100 labels: ULMFiT (\d\.\d+)", claims)) == {at_100}
    assert set(re.findall(r"300 labels: ULMFiT (\d\.\d+)", claims)) == {at_300}
    bag = measurements["bag of words (scikit-learn logistic regression, same labels)"][1].split(" ± ")[0]
    assert re.search(rf"bag of words {re.escape(bag)} ", claims)
    blanks = {name: measurements[name][2] for name in
              ("BERT (both sides, in order)", "GPT (the left side only)",
               "CBOW (a bag of 5 words each side, same sentences, 10 epochs)")}
    assert f"accuracy@5 on 400 blanked held-out words {blanks['BERT (both sides, in order)']}" in claims
    assert f"GPT {blanks['GPT (the left side only)']}, CBOW " \
           f"{blanks['CBOW (a bag of 5 words each side, same sentences, 10 epochs)']}" in claims
