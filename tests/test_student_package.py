"""The student version of the package: every check declares the course's implementations it compares with, and
the copy the grader shows a student's kernel has those (and every check) as stubs, and nothing else changed."""

import ast
import builtins
import dataclasses
import importlib
import inspect
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import nbformat
import pytest

from course.teaching import student_package
from course.teaching.assignments import is_grade_cell, is_solution_cell, notebook_paths
from course.teaching.student_package import (
    CHECKS,
    PACKAGE,
    check_functions,
    notebook_references,
    resolve,
    write_student_package,
)

CHECK_MODULES = sorted(p for p in CHECKS.glob("*.py") if p.name != "__init__.py")


# ----------------------------------------------------------------------- what each check reaches


def _module_of(path: Path) -> str:
    return "course.teaching.checks." + path.stem


def _course_import(node: ast.ImportFrom, module: str) -> str | None:
    """The absolute name of a module an import in a checks module takes from the course outside teaching/."""
    if node.level == 0:
        name = node.module or ""
    else:
        base = module.split(".")[:-node.level]
        name = ".".join([*base, *([node.module] if node.module else [])])
    return name if name.startswith("course.") and not name.startswith("course.teaching") else None


def _reached(path: Path) -> dict[str, set]:
    """For each check of a checks module: the objects of the course (outside teaching/) that it and the helpers it
    calls (in its module and in ``harness``) import and name, found in the source."""
    modules = {p.stem: ast.parse(p.read_text(encoding="utf-8")) for p in [*CHECK_MODULES]}

    def top_level(stem):
        tree = modules[stem]
        functions = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef | ast.ClassDef)}
        imported, siblings = {}, {}
        for node in tree.body:
            if isinstance(node, ast.ImportFrom):
                source = _course_import(node, f"course.teaching.checks.{stem}")
                for alias in node.names:
                    if source:
                        imported[alias.asname or alias.name] = (source, alias.name)
                    elif node.level == 1 and node.module in modules:
                        siblings[alias.asname or alias.name] = node.module
        return functions, imported, siblings

    def walk(stem, name, seen, found):
        if (stem, name) in seen:
            return
        seen.add((stem, name))
        functions, imported, siblings = top_level(stem)
        node = functions.get(name)
        if node is None:
            return
        local = {}
        for inner in ast.walk(node):
            source = _course_import(inner, f"course.teaching.checks.{stem}") if isinstance(inner, ast.ImportFrom) \
                else None
            if source:
                for alias in inner.names:
                    local[alias.asname or alias.name] = (source, alias.name)
        for inner in ast.walk(node):
            if isinstance(inner, ast.Name):
                if inner.id in local or inner.id in imported:
                    source, attribute = local.get(inner.id) or imported[inner.id]
                    found.add(getattr(importlib.import_module(source), attribute))
                elif inner.id in functions and inner.id != name:
                    walk(stem, inner.id, seen, found)
                elif inner.id in siblings:
                    walk(siblings[inner.id], inner.id, seen, found)

    checks = {}
    for name in top_level(path.stem)[0]:
        if name.startswith("check_"):
            found: set = set()
            walk(path.stem, name, set(), found)
            checks[name] = found
    return checks


def _says(value) -> bool:
    """The catalogue of sentences a check speaks in (``course.core.edition.text``): it computes no answer, so the
    student version keeps it and no check declares it."""
    from course.core import edition

    return value in (edition.text, edition.current_edition)


def _covers(declared: set, value) -> bool:
    """A function is covered by its own declaration; a class by one of its methods; a plain value (a constant) or a
    dataclass of settings needs none."""
    if inspect.isclass(value):
        return dataclasses.is_dataclass(value) or any(
            getattr(d, "__qualname__", "").startswith(value.__qualname__ + ".") for d in declared)
    return not callable(value) or value in declared


@pytest.mark.parametrize("path", CHECK_MODULES, ids=lambda p: p.stem)
def test_every_check_declares_each_course_function_it_compares_with(path):
    known = check_functions()
    for check, found in _reached(path).items():
        declared_names = getattr(known[check], "references", None)
        assert declared_names is not None, f"{check} has no @compares_with(...)"
        declared = {resolve(name) for name in declared_names}  # every declared name resolves
        missing = [f"{v.__module__}.{getattr(v, '__qualname__', v)}" for v in found
                   if not _covers(declared, v) and not _says(v)]
        assert not missing, f"{check} runs {missing} of the course without declaring it"


def _uses(module: str) -> dict[str, set[str]]:
    """For each function and method of ``module`` (``"name"``, ``"Class.name"``): the private functions and methods
    of the module it names (``"_helper"``, ``"Class._helper"``)."""
    tree = ast.parse(Path(importlib.import_module(module).__file__).read_text(encoding="utf-8"))
    defs = [(n.name, n, None) for n in tree.body if isinstance(n, ast.FunctionDef)]
    defs += [(f"{c.name}.{n.name}", n, c.name) for c in tree.body if isinstance(c, ast.ClassDef)
             for n in c.body if isinstance(n, ast.FunctionDef)]
    names = {name for name, _, _ in defs}
    uses = {}
    for name, node, owner in defs:
        found = {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and n.id.startswith("_")}
        found |= {f"{owner}.{n.attr}" for n in ast.walk(node) if owner and isinstance(n, ast.Attribute)
                  and isinstance(n.value, ast.Name) and n.value.id == "self" and n.attr.startswith("_")}
        uses[name] = found & names
    return uses


def test_every_declared_function_brings_the_private_helpers_only_it_uses():
    """A private helper that only declared functions use is declared too: else the stub would leave the work there
    (a helper that other code of the module uses as well, such as a normalisation, may stay)."""
    for check in check_functions().values():
        declared = set(check.references)
        for name in declared:
            module, _, qualname = name.partition(":")
            uses = _uses(module)
            for helper in uses.get(qualname, ()):
                users = {user for user, used in uses.items() if helper in used}
                if all(f"{module}:{user}" in declared for user in users):
                    assert f"{module}:{helper}" in declared, (check.__name__, name, helper)


def test_a_notebook_leaves_out_what_its_grade_cells_checks_compare_with():
    ulmfit = nbformat.read(Path("notebooks") / "10_ulmfit.ipynb", as_version=4)
    assert notebook_references(ulmfit) == ("course.ulmfit.schedules:discriminative_rates",
                                           "course.ulmfit.schedules:slanted_triangular")
    corpus = nbformat.read(Path("notebooks") / "00_corpus.ipynb", as_version=4)
    assert notebook_references(corpus) == ()  # its check's reference is its own closed form


# ----------------------------------------------------------------------- the notebooks' own cells


def _stubbed_names(notebook) -> tuple[set, set]:
    """The stubbed functions of ``notebook`` as objects, and the names of its stubbed methods."""
    functions, methods = set(), set()
    for name in notebook_references(notebook):
        (methods if "." in name.partition(":")[2] else functions).add(name.rpartition(".")[2].rpartition(":")[2])
        functions.add(resolve(name))
    return functions, methods


def _bindings(notebook) -> dict[str, object]:
    """What the notebook's ``from course... import name`` lines bind, by the name they bind."""
    bound = {}
    for cell in notebook.cells:
        if cell.cell_type != "code":
            continue
        try:
            tree = ast.parse("\n".join(line for line in cell.source.splitlines() if not line.startswith(("%", "!"))))
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("course"):
                module = importlib.import_module(node.module)
                for alias in node.names:
                    bound[alias.asname or alias.name] = getattr(module, alias.name, None)
    return bound


def _calls_stub(source: str, bound: dict, functions: set, methods: set) -> list[str]:
    tree = ast.parse("\n".join(line for line in source.splitlines() if not line.startswith(("%", "!"))))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id in bound and any(bound[node.id] is f for f in functions):
            found.append(node.id)
        elif isinstance(node, ast.Attribute) and node.attr in methods:
            found.append("." + node.attr)
    return found


def _free_names(source: str) -> set[str]:
    tree = ast.parse(source)
    stored = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}
    stored |= {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.ClassDef)}
    stored |= {a.arg for n in ast.walk(tree) if isinstance(n, ast.arguments) for a in
               [*n.posonlyargs, *n.args, *n.kwonlyargs, *filter(None, [n.vararg, n.kwarg])]}
    stored |= {(a.asname or a.name).split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import | ast.ImportFrom)
               for a in n.names}
    loaded = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    return loaded - stored - set(dir(builtins))


def _binds(source: str, name: str) -> bool:
    nodes = list(ast.walk(ast.parse(source)))
    bound = {n.id for n in nodes if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    bound |= {a.asname or a.name.split(".")[0] for n in nodes if isinstance(n, ast.Import | ast.ImportFrom)
              for a in n.names}
    bound |= {n.name for n in nodes if isinstance(n, ast.FunctionDef | ast.ClassDef)}
    return name in bound


@pytest.mark.parametrize("path", notebook_paths(), ids=lambda p: p.name[:2])
def test_no_solution_needs_what_its_notebook_leaves_out(path):
    """In the student's kernel a cell that calls a stub fails; the grader needs the solution cells only. So no
    teacher's solution may call a stub, nor use a name that only a cell calling one binds (every edition has the
    same code cells)."""
    notebook = nbformat.read(path, as_version=4)
    functions, methods = _stubbed_names(notebook)
    bound = _bindings(notebook)
    code = [(i, c.source) for i, c in enumerate(notebook.cells) if c.cell_type == "code" and not is_grade_cell(c)]
    code = [(i, "\n".join(line for line in s.splitlines() if not line.startswith(("%", "!")))) for i, s in code]
    for index, source in code:
        if not is_solution_cell(notebook.cells[index]):
            continue
        assert not _calls_stub(source, bound, functions, methods), (path.name, index)
        for name in _free_names(source):
            binders = [(i, s) for i, s in code if i < index and _binds(s, name)]
            if binders:
                i, binder = binders[-1]
                assert not _calls_stub(binder, bound, functions, methods), (path.name, index, name, i)


# ------------------------------------------------------------------------------------ the copy


def run_in(package: Path, code: str) -> dict:
    """``code`` run by Python with ``package`` (a ``course`` folder) first on its path; its last line, as JSON."""
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                            env={"PYTHONPATH": str(package.parent), "PATH": "/usr/bin:/bin"}, cwd=package.parent)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_the_student_version_has_stubs_for_the_references_and_every_check_and_the_rest_as_it_was(tmp_path):
    references = ["course.ulmfit.schedules:slanted_triangular", "course.text.vocab:Vocabulary.huffman",
                  "course.text.vocab:_build_huffman"]
    package = student_package.student_package(references, root=tmp_path / "cache")
    assert student_package.student_package(references, root=tmp_path / "cache") == package  # built once
    seen = run_in(package, textwrap.dedent("""
        import inspect, json
        import course
        from course.ulmfit import schedules
        from course.text.vocab import Vocabulary
        from course.teaching import checks
        from course.teaching.checks import word2vec
        out = {"file": course.__file__, "source": inspect.getsource(schedules.slanted_triangular),
               "doc": schedules.slanted_triangular.__doc__,
               "signature": str(inspect.signature(schedules.slanted_triangular)),
               "rates": schedules.discriminative_rates(0.01, 3),
               "private": sorted(n for n in vars(word2vec) if n.startswith("_") and not n.startswith("__"))}
        vocabulary = Vocabulary(["a", "b"], [3, 1], specials=())
        out["noise"] = vocabulary.noise_distribution().tolist()
        for name, call in (("reference", lambda: schedules.slanted_triangular(1, 10, 1.0)),
                           ("method", vocabulary.huffman),
                           ("check", lambda: checks.check_slanted_triangular(schedules.slanted_triangular))):
            try:
                call()
            except NotImplementedError as exc:
                out[name] = str(exc)
        print(json.dumps(out))"""))
    from course.ulmfit import schedules

    assert seen["file"] == str(package / "__init__.py")
    assert seen["doc"] == schedules.slanted_triangular.__doc__
    assert seen["signature"] == str(inspect.signature(schedules.slanted_triangular))
    assert "cut_frac" not in seen["source"].split('"""')[-1], "the source shows the stub and nothing else"
    assert seen["reference"] == ("course.ulmfit.schedules.slanted_triangular is left out of the student version of "
                                 "the course, which runs notebooks while they are graded: write your own.")
    assert seen["method"].startswith("course.text.vocab.Vocabulary.huffman is left out")
    assert seen["check"].startswith("course.teaching.checks.transfer.check_slanted_triangular is left out")
    assert seen["rates"] == schedules.discriminative_rates(0.01, 3), "what is not left out works as before"
    assert seen["noise"] == pytest.approx([3 ** 0.75 / (3 ** 0.75 + 1), 1 / (3 ** 0.75 + 1)])
    assert seen["private"] == [], "no private reference of the checks is left"
    unchanged = [p for p in PACKAGE.rglob("*") if p.is_file() and "__pycache__" not in p.parts]
    assert all((package / p.relative_to(PACKAGE)).is_file() for p in unchanged), "every file of the package"
    probes = "data/probes/en_polysemy.tsv"
    assert (package / probes).read_bytes() == (PACKAGE / probes).read_bytes()


def test_every_module_of_the_student_version_with_every_notebooks_stubs_imports(tmp_path):
    references = {name for path in notebook_paths() for name in notebook_references(nbformat.read(path, as_version=4))}
    package = write_student_package(tmp_path / "package", references)
    assert (tmp_path / "package" / "pyproject.toml").is_file()
    broken = run_in(package, textwrap.dedent("""
        import importlib, json, pkgutil
        import course
        broken = []
        for module in pkgutil.walk_packages(course.__path__, "course."):
            if not module.name.endswith("__main__"):
                try:
                    importlib.import_module(module.name)
                except Exception as exc:
                    broken.append(f"{module.name}: {exc!r}")
        print(json.dumps(broken))"""))
    assert broken == []
    again = write_student_package(tmp_path / "package", [])  # written again, whole: this time no stubs
    assert "raise NotImplementedError" not in (again / "ulmfit" / "schedules.py").read_text(encoding="utf-8")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["package"], "nothing left beside it"


def test_a_declaration_that_names_nothing_is_refused(tmp_path):
    with pytest.raises(LookupError, match="no slanted_triangle to leave out"):
        student_package.student_package(["course.ulmfit.schedules:slanted_triangle"], root=tmp_path)
    with pytest.raises(LookupError, match="no module course.ulmfit.schedule"):
        student_package.student_package(["course.ulmfit.schedule:slanted_triangular"], root=tmp_path)


SEES = ("import course, inspect, json\nfrom course.ulmfit import schedules\n"
        "print(json.dumps({'file': course.__file__, 'source': inspect.getsource(schedules.slanted_triangular)}))")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the sandbox of Linux namespaces")
@pytest.mark.parametrize("root_of_its_own", [True, False], ids=["enclosed", "no namespaces"])
def test_the_sandbox_shows_the_student_version_where_the_package_is(tmp_path, root_of_its_own):
    copy = student_package.student_package(["course.ulmfit.schedules:slanted_triangular"], root=tmp_path / "cache")
    home, connection = tmp_path / "home", tmp_path / "kernel.json"
    home.mkdir()
    connection.write_text("{}", encoding="utf-8")
    argv = ["--home", str(home), "--connection-file", str(connection), "--package", str(copy), "--",
            sys.executable, "-c", SEES]
    switch = "" if root_of_its_own else "sandbox._namespaces = lambda: False\n"
    result = subprocess.run([sys.executable, "-c", f"import course.teaching.sandbox as sandbox\n{switch}"
                                                   f"sandbox._run({argv!r})"], capture_output=True, text=True,
                            timeout=120)
    status = json.loads((home / "sandbox.json").read_text(encoding="utf-8"))
    if root_of_its_own and not status["enclosed"]:
        pytest.skip(f"no root of its own here: {status['why_not']}")
    assert result.returncode == 0, result.stderr
    seen = json.loads(result.stdout.strip().splitlines()[-1])
    assert "left out of the student version" in seen["source"] and "math.floor" not in seen["source"]
    assert status["package"]["student_version"] is True
    if root_of_its_own:  # the copy is where the package is, and nothing else of the package is there
        assert seen["file"] == str(PACKAGE / "__init__.py") and status["package"]["real_package_reachable"] is False
    else:
        assert seen["file"] == str(copy / "__init__.py") and status["package"]["real_package_reachable"] is True
        assert "still reachable" in status["package"]["how"]
