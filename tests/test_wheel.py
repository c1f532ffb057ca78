"""The package installs and runs with no checkout around it: the wheel is built from the package's
sources, installed into a fresh virtual environment, and run from a temporary folder (the corpus
command, a one-epoch training of ELMo and of word2vec, the sense probe with the shipped probe
files, one notebook). About a minute; ``pytest -m wheel`` runs it alone, ``-m "not wheel"`` skips it.

Each extra is tried the same way, with only what it declares: another fresh environment can import
just the modules of the distributions the wheel's requirements reach (with the extra, or with none),
found from this environment's metadata; every other name is refused as if it were not installed.
Without ``[teach]`` the teacher's commands say in one line which extra to install; with it, ``build``
and ``grade`` run.

Offline: the wheel is built with the setuptools of this environment (no build isolation), and the
fresh environment sees this one's dependencies (torch, gensim, ...) through a ``.pth`` file naming
its site-packages. Such a path is put on ``sys.path`` without reading the ``.pth`` files inside it,
so the editable install of the checkout stays invisible, and the fresh environment's own
site-packages comes first: ``import course`` finds the installed wheel, as the tests check.
"""

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

pytestmark = pytest.mark.wheel

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK = "00_corpus.ipynb"
KERNEL = "course-wheel-test"
RUN_NOTEBOOK = """
import sys
import nbclient
import nbformat

notebook = nbformat.read(sys.argv[1], as_version=4)
notebook.cells.append(nbformat.v4.new_code_cell("import course, sys; print(course.__file__); print(sys.executable)"))
nbclient.NotebookClient(notebook, kernel_name=sys.argv[2], timeout=600, resources={"metadata": {"path": "."}}).execute()
print("".join(output.get("text", "") for output in notebook.cells[-1].outputs), end="")
"""


def _run(command, cwd, env, timeout=300) -> str:
    done = subprocess.run([str(part) for part in command], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout)
    assert done.returncode == 0, f"{' '.join(map(str, command))} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done.stdout


def _package_files(folder: Path) -> set[str]:
    """The files of ``course/`` a clone has, as wheel paths (no caches, no hidden files)."""
    return {path.relative_to(folder.parent).as_posix() for path in folder.rglob("*")
            if path.is_file() and "__pycache__" not in path.parts and not path.name.startswith(".")
            and path.suffix != ".pyc"}


@pytest.fixture(scope="module")
def fresh(tmp_path_factory):
    """``(python, env, work, wheel, site)``: the fresh environment's Python with the wheel installed,
    the environment variables to run it with (home and caches in the temporary folder, the smoke
    profile), the empty working folder to run it from, the wheel, and where it was installed."""
    base = tmp_path_factory.mktemp("wheel")
    wheel = _build_wheel(base)
    ours = sysconfig.get_paths()
    python, env, site = _fresh_environment(base, wheel, ours["purelib"], ours["platlib"])
    kernel = python.parent.parent / "share" / "jupyter" / "kernels" / KERNEL
    kernel.mkdir(parents=True)
    (kernel / "kernel.json").write_text(json.dumps({
        "argv": [str(python), "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "the installed wheel", "language": "python"}))
    work = base / "work"
    work.mkdir()
    return python, env, work, wheel, site


def _build_wheel(base: Path) -> Path:
    source = base / "source"  # a copy, so the build's own folders (build/, *.egg-info) stay out of the checkout
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    shutil.copytree(ROOT / "course", source / "course", ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index",
          "--disable-pip-version-check", "--quiet", "--wheel-dir", base / "dist", source], base, os.environ)
    [wheel] = (base / "dist").glob("*.whl")
    return wheel


def _fresh_environment(base: Path, wheel: Path, *dependencies) -> tuple[Path, dict, Path]:
    """``(python, env, site)``: a new virtual environment under ``base`` with the wheel installed and
    ``dependencies`` (folders) on its path after its own site-packages, the environment variables to
    run it with, and its site-packages."""
    venv = base / "fresh"
    _run([sys.executable, "-m", "venv", "--without-pip", venv], base, os.environ)
    python = venv / "bin" / "python"
    _run([sys.executable, "-m", "pip", "--python", python, "install", "--no-deps", "--no-index",
          "--disable-pip-version-check", "--quiet", wheel], base, os.environ)
    site = Path(_run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], base,
                     os.environ).strip())
    (site / "course-test-dependencies.pth").write_text("".join(f"{path}\n" for path in dict.fromkeys(dependencies)))
    env = {key: value for key, value in os.environ.items()
           if not key.startswith(("PYTHON", "COURSE_", "JUPYTER", "VIRTUAL_ENV", "XDG_"))}
    env.update(HOME=str(base / "home"), XDG_CACHE_HOME=str(base / "cache"), COURSE_PROFILE="smoke",
               PATH=f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}")
    return python, env, site


def test_the_wheel_holds_every_file_of_the_package(fresh):
    *_, wheel, _ = fresh
    names = set(zipfile.ZipFile(wheel).namelist())
    missing = _package_files(ROOT / "course") - names
    assert not missing, (f"the wheel lacks {sorted(missing)}: a folder without __init__.py, or a data file "
                         "not named in pyproject.toml's [tool.setuptools.package-data]")
    assert {"course/data/probes/en_polysemy.tsv", "course/data/probes/zh_polysemy.tsv"} <= names
    assert {name.split("/")[0] for name in names if ".dist-info/" not in name} == {"course"}  # no tests, no data/


def test_the_installed_package_runs_from_any_folder(fresh):
    python, env, work, _, site = fresh
    where = _run([python, "-c", "import course, course.elmo; print(course.__file__)"], work, env)
    assert Path(where.strip()).is_relative_to(site), f"imported {where}, not the installed wheel"
    before = _package_files(site / "course")

    assert "wiki-en" in _run([python.parent / "word-vectors-course", "corpus", "list"], work, env)  # the script
    info = _run([python, "-m", "course", "corpus", "info", "wiki-en"], work, env)
    assert "24,807" in info and "468,135" in info
    assert list((work.parent / "cache" / "word-vectors-course" / "corpora").glob("wiki-en-*.npz"))

    _run([python, "-m", "course", "corpus", "export", "wiki-en", "--quiet", "--out", "wiki-en.txt"], work, env)
    lines = (work / "wiki-en.txt").read_text(encoding="utf-8").splitlines(keepends=True)
    (work / "small.txt").write_text("".join(lines[:300]), encoding="utf-8")
    _run([python, "-m", "course", "train", "elmo", "--corpus", "small.txt", "--epochs", "1", "--device", "cpu",
          "--quiet", "--out", "elmo.pt"], work, env)
    _run([python, "-m", "course", "train", "word2vec", "--corpus", "small.txt", "--epochs", "1", "--min-count", "1",
          "--threads", "1", "--quiet", "--out", "vectors.txt"], work, env)
    assert (work / "elmo.pt").is_file() and (work / "vectors.txt").is_file()

    table = _run([python, "-m", "course", "probe", "--model", "elmo.pt", "--probes", "en_polysemy.tsv",
                  "--split", "test", "--device", "cpu", "--context-vectors", "vectors.txt"], work, env)
    assert all(word in table for word in ("bank", "plant", "spring", "star"))
    assert _package_files(site / "course") == before, "running wrote into the installed package"


def test_a_notebook_runs_on_the_installed_package(fresh):
    python, env, work, _, site = fresh
    shutil.copy(ROOT / "notebooks" / NOTEBOOK, work / NOTEBOOK)
    (work / "run_notebook.py").write_text(RUN_NOTEBOOK)
    printed = _run([python, "run_notebook.py", NOTEBOOK, KERNEL], work, env).splitlines()
    assert Path(printed[-2]).is_relative_to(site) and Path(printed[-1]) == python, printed[-2:]


NAME = "word-vectors-course"


def _reached(wheel: Path, extras: set[str]) -> set[str]:
    """The distributions (normalised names) that the wheel's requirements reach with ``extras``,
    followed through this environment's installed metadata."""
    from email.parser import Parser
    from importlib.metadata import distribution

    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name

    with zipfile.ZipFile(wheel) as archive:
        [metadata] = [name for name in archive.namelist() if name.endswith(".dist-info/METADATA")]
        ours = Parser().parsestr(archive.read(metadata).decode("utf-8")).get_all("Requires-Dist") or []
    reached: set[str] = set()
    pending = [(Requirement(line), extras | {""}) for line in ours]
    while pending:
        requirement, asked = pending.pop()
        if requirement.marker and not any(requirement.marker.evaluate({"extra": extra}) for extra in asked):
            continue
        name = canonicalize_name(requirement.name)
        if name == NAME:  # [dev] names [lab,teach]
            pending += [(Requirement(line), set(requirement.extras) | {""}) for line in ours]
            continue
        if name in reached:
            continue
        reached.add(name)
        below = distribution(requirement.name).requires or []
        pending += [(Requirement(line), set(requirement.extras) | {""}) for line in below]
    return reached


DECLARED_ONLY = """
import importlib.abc, importlib.machinery, json, sys
from pathlib import Path

_declared = json.loads((Path(__file__).parent / "course-test-declared.json").read_text())


class _DeclaredOnly(importlib.abc.MetaPathFinder):
    allowed, shared = set(_declared["modules"]), _declared["shared"]

    def find_spec(self, name, path=None, target=None):
        if path is None and name not in self.allowed and importlib.machinery.PathFinder.find_spec(name, self.shared):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None


sys.meta_path.insert(0, _DeclaredOnly())
"""


def _top_level_modules(names: set[str]) -> set[str]:
    """The top-level modules and packages of the named distributions in this environment."""
    from importlib.metadata import distributions

    from packaging.utils import canonicalize_name

    modules = set()
    for dist in distributions():
        if canonicalize_name(dist.metadata["Name"]) in names:
            assert dist.files is not None, f"{dist.metadata['Name']} has no record of its files"
            tops = {file.parts[0] for file in dist.files if len(file.parts) > 0}
            modules |= {top.split(".")[0] for top in tops
                        if top not in ("..", "__pycache__") and not top.endswith((".dist-info", ".data", ".pth"))}
    return modules


def _declared_only(site: Path, names: set[str], prefix: Path) -> None:
    """Let the environment whose site-packages is ``site`` import, of what this environment installed, only
    the top-level modules of the named distributions (a finder put first on ``sys.meta_path`` by a ``.pth``
    file refuses every other name found there, as if it were not installed), and copy those distributions'
    data files (``share/``: nbconvert's templates, the kernel specs) into it at ``prefix``. Nothing of
    this environment is changed: other tests read its files while this one runs."""
    from importlib.metadata import distributions

    from packaging.utils import canonicalize_name

    shared = list(dict.fromkeys(sysconfig.get_paths()[key] for key in ("purelib", "platlib")))
    declared = {"modules": sorted(_top_level_modules(names) | {"course"}), "shared": shared}
    (site / "course-test-declared.json").write_text(json.dumps(declared))
    (site / "course_test_declared_only.py").write_text(DECLARED_ONLY)
    (site / "course-test-declared-only.pth").write_text("import course_test_declared_only\n")
    for dist in distributions():
        if canonicalize_name(dist.metadata["Name"]) in names:
            for file in dist.files:
                where = Path(dist.locate_file(file)).resolve()
                if file.parts[0] == ".." and where.is_relative_to(Path(sys.prefix) / "share") and where.is_file():
                    (prefix / where.relative_to(sys.prefix)).parent.mkdir(parents=True, exist_ok=True)
                    shutil.copy2(where, prefix / where.relative_to(sys.prefix))


@pytest.fixture(scope="module")
def with_extras(fresh, tmp_path_factory):
    """``with_extras(*extras)``: ``(python, env, work)``, a fresh environment with the wheel that can
    import only what its requirements reach with those extras."""
    *_, wheel, _ = fresh

    def make(*extras):
        base = tmp_path_factory.mktemp("extras-" + "-".join(extras or ("none",)))
        ours = sysconfig.get_paths()
        python, env, site = _fresh_environment(base, wheel, ours["purelib"], ours["platlib"])
        _declared_only(site, _reached(wheel, set(extras)), python.parent.parent)
        (base / "work").mkdir()
        return python, env, base / "work"

    return make


def _notebook_to_build(folder: Path) -> None:
    import nbformat

    folder.mkdir()
    cells = [nbformat.v4.new_markdown_cell("# 00 · A small notebook"),
             nbformat.v4.new_code_cell("import course\ncourse.headline('Answer', 6 * 7)")]
    notebook = nbformat.v4.new_notebook(cells=cells)
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(notebook, folder / "00_small.ipynb")


def test_the_plain_install_runs_the_models_and_names_the_extra_the_teachers_commands_need(with_extras, tmp_path):
    python, env, work = with_extras()
    assert "24,807" in _run([python, "-m", "course", "corpus", "info", "wiki-en"], work, env)
    hidden = subprocess.run([python, "-c", "import nbformat"], cwd=work, env=env, capture_output=True, text=True)
    assert hidden.returncode == 1 and "No module named 'nbformat'" in hidden.stderr  # only what it declares
    (work / "notebooks").mkdir()
    shutil.copy(ROOT / "notebooks" / NOTEBOOK, work / "notebooks" / NOTEBOOK)
    for command in (["grade", f"notebooks/{NOTEBOOK}"], ["build", "--profile", "smoke"],
                    ["nbgrader", "init", "teaching"], ["assignments"]):
        done = subprocess.run([python, "-m", "course", *command], cwd=work, env=env, capture_output=True, text=True)
        assert done.returncode == 2, (command, done.stdout, done.stderr)
        assert done.stderr.count("\n") == 1 and "pip install 'word-vectors-course[teach]'" in done.stderr, done.stderr


def test_the_teaching_extra_builds_and_grades(with_extras):
    python, env, work = with_extras("teach")
    _notebook_to_build(work / "mine")
    _run([python, "-m", "course", "build", "--profile", "smoke", "--notebooks", "mine", "--out", "site"], work, env)
    assert (work / "site" / "notebooks" / "00_small.html").is_file()
    assert "Answer" in (work / "site" / "index.html").read_text(encoding="utf-8")
    source = work / "notebooks"
    source.mkdir()
    shutil.copy(ROOT / "notebooks" / NOTEBOOK, source / NOTEBOOK)
    _run([python, "-m", "course", "grade", source / NOTEBOOK, "--source", source, "--json", "grade.json"], work, env)
    grade = json.loads((work / "grade.json").read_text(encoding="utf-8"))
    assert grade["score"] == grade["points"] > 0, grade  # the teacher's own answers


def test_the_lab_extra_starts_jupyterlab_with_a_kernel(with_extras):
    python, env, work = with_extras("lab")
    from importlib.metadata import version

    assert _run([python, "-m", "jupyterlab", "--version"], work, env).strip() == version("jupyterlab")
    specs = json.loads(_run([python, "-m", "jupyter_client.kernelspecapp", "list", "--json"], work, env))
    assert "python3" in specs["kernelspecs"]
