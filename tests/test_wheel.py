"""The package installs and runs with no checkout around it: the wheel is built from the package's
sources, installed into a fresh virtual environment, and run from a temporary folder (the corpus
command, a one-epoch training of ELMo and of word2vec, the sense probe with the shipped probe
files, one notebook). About a minute; ``pytest -m wheel`` runs it alone, ``-m "not wheel"`` skips it.

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
    source = base / "source"  # a copy, so the build's own folders (build/, *.egg-info) stay out of the checkout
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    shutil.copytree(ROOT / "course", source / "course", ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index",
          "--disable-pip-version-check", "--quiet", "--wheel-dir", base / "dist", source], base, os.environ)
    [wheel] = (base / "dist").glob("*.whl")

    venv = base / "fresh"
    _run([sys.executable, "-m", "venv", "--without-pip", venv], base, os.environ)
    python = venv / "bin" / "python"
    _run([sys.executable, "-m", "pip", "--python", python, "install", "--no-deps", "--no-index",
          "--disable-pip-version-check", "--quiet", wheel], base, os.environ)
    site = Path(_run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], base,
                     os.environ).strip())
    ours = dict.fromkeys(sysconfig.get_paths()[key] for key in ("purelib", "platlib"))
    (site / "course-test-dependencies.pth").write_text("".join(f"{path}\n" for path in ours))
    kernel = venv / "share" / "jupyter" / "kernels" / KERNEL
    kernel.mkdir(parents=True)
    (kernel / "kernel.json").write_text(json.dumps({
        "argv": [str(python), "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "the installed wheel", "language": "python"}))

    env = {key: value for key, value in os.environ.items()
           if not key.startswith(("PYTHON", "COURSE_", "JUPYTER", "VIRTUAL_ENV", "XDG_"))}
    env.update(HOME=str(base / "home"), XDG_CACHE_HOME=str(base / "cache"), COURSE_PROFILE="smoke",
               PATH=f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}")
    work = base / "work"
    work.mkdir()
    return python, env, work, wheel, site


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
