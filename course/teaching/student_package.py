"""The student version of the course package: the course without its own implementations of the graded functions.

A check compares a student's function with the course's own implementation (declared next to each check with
:func:`course.teaching.checks.harness.compares_with`). Anything that runs in the kernel of the student's notebook
is the student's to change: a tracer replaced, a record filtered, a thread or a child process that the grader
never sees. So the grader does not try to catch the reference being used there; it leaves the reference out:

- **for one notebook** (:func:`notebook_references`), the functions and methods that the checks its grade cells
  call compare with are replaced by **stubs**: the same signature and docstring, and a body that raises
  ``NotImplementedError`` with one sentence saying so (``inspect.getsource`` shows the stub, nothing else);
  the rest of the package is as it is, so the notebook's other cells still run;
- the **checks package** (``course/teaching/checks``, which holds closed-form references of its own) becomes
  stubs whole: each public check keeps its name, signature and docstring and raises; nothing private is left.
  The student's kernel never runs a grade cell (the checking kernel does, with the real package).

:func:`student_package` builds that copy once per package content and set of stubs, in
``build/student-packages/``, for the sandbox to show in place of the real package
(:mod:`course.teaching.sandbox`); :func:`write_student_package` writes the copy with every notebook's stubs,
beside the student notebooks ``python -m course assignments`` writes, for a class to install instead of the
course.
"""

from __future__ import annotations

import ast
import hashlib
import importlib
import os
import pkgutil
import re
import shutil
import tempfile
import time
from collections.abc import Iterable
from pathlib import Path

from ..core.errors import OutputFileError
from ..core.paths import build_dir
from .assignments import is_grade_cell

PACKAGE = Path(__file__).resolve().parents[1]  # the real package, course/
CHECKS = PACKAGE / "teaching" / "checks"
KEPT_ENTRIES = 20  # cached student packages always kept in build/student-packages/ (the most recently used)
REFERENCE_STUB = ("{name} is left out of the student version of the course, which runs notebooks while they are "
                  "graded: write your own.")
CHECK_STUB = ("{name} is left out of the student version of the course: the grader runs the checks on your "
              "notebook with the whole course.")


# ----------------------------------------------------------------------------------- what is left out


def check_functions() -> dict:
    """Every check of :mod:`course.teaching.checks` (the ``check_*`` functions of its modules), by name."""
    import course.teaching.checks as package

    found = {}
    for module in pkgutil.iter_modules(package.__path__):
        loaded = importlib.import_module(f"{package.__name__}.{module.name}")
        found.update({name: value for name, value in vars(loaded).items()
                      if name.startswith("check_") and callable(value)})
    return found


def checks_called(notebook) -> set[str]:
    """The checks a notebook's grade cells call, by name."""
    known = check_functions()
    return {name for cell in notebook.cells if cell.cell_type == "code" and is_grade_cell(cell)
            for name in re.findall(r"\b(check_\w+)\s*\(", cell.source) if name in known}


def notebook_references(notebook) -> tuple[str, ...]:
    """The course's implementations that the checks of ``notebook`` compare with, ``"module:qualname"``, sorted."""
    known = check_functions()
    return tuple(sorted({reference for name in checks_called(notebook)
                         for reference in getattr(known[name], "references", ())}))


def course_references(folder: str | Path | None = None) -> tuple[str, ...]:
    """What the student version handed to a class leaves out: the references of every notebook in ``folder``
    (default ``notebooks/``)."""
    from .assignments import notebook_paths, read_notebook

    return tuple(sorted({reference for path in notebook_paths(folder)
                         for reference in notebook_references(read_notebook(path))}))


def resolve(reference: str):
    """The object ``"module:qualname"`` names (a function, or the function behind a method or property)."""
    module_name, _, qualname = reference.partition(":")
    value = importlib.import_module(module_name)
    for part in qualname.split("."):
        owner, value = value, getattr(value, part)
        if isinstance(owner, type):
            value = owner.__dict__[part]
    return value.fget if isinstance(value, property) else value


# ----------------------------------------------------------------------------------------------- stubs


def _stub_node(node: ast.FunctionDef | ast.AsyncFunctionDef, sentence: str, decorators: bool = True):
    """``node`` with its docstring kept and its body replaced by ``raise NotImplementedError(sentence)``."""
    body = node.body[:1] if ast.get_docstring(node, clean=False) is not None else []
    raising = ast.Raise(exc=ast.Call(func=ast.Name("NotImplementedError", ast.Load()), args=[ast.Constant(sentence)],
                                     keywords=[]))
    stub = type(node)(name=node.name, args=node.args, body=[*body, raising],
                      decorator_list=node.decorator_list if decorators else [], returns=node.returns,
                      type_comment=None, type_params=getattr(node, "type_params", []))
    return ast.fix_missing_locations(stub)


def _find(tree: ast.Module, qualname: str, where: str) -> ast.FunctionDef | ast.AsyncFunctionDef:
    body, node = tree.body, None
    for part in qualname.split("."):
        node = next((n for n in body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
                     and n.name == part), None)
        if node is None:
            raise LookupError(f"{where}: no {qualname} to leave out")
        body = node.body
    if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        raise LookupError(f"{where}: {qualname} is not a function or method")
    return node


def stubbed_source(source: str, module: str, qualnames: Iterable[str]) -> str:
    """``source`` (of ``module``) with each function or method of ``qualnames`` replaced by its stub, in place:
    the rest of the file, line for line, as it was."""
    tree = ast.parse(source)
    lines = source.splitlines(keepends=True)
    nodes = [(qualname, _find(tree, qualname, module)) for qualname in set(qualnames)]
    for qualname, node in sorted(nodes, key=lambda item: -item[1].lineno):
        sentence = REFERENCE_STUB.format(name=f"{module}.{qualname}")
        first = node.body[0]
        if first.lineno == node.lineno:  # a body on the line of its def: the whole function written anew
            start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            indent = " " * node.col_offset
            lines[start - 1:node.end_lineno] = [indent + ast.unparse(_stub_node(node, sentence)) + "\n"]
            continue
        documented = ast.get_docstring(node, clean=False) is not None
        kept = first.end_lineno if documented else first.lineno - 1  # the def, its decorators and docstring
        raising = " " * first.col_offset + f"raise NotImplementedError({sentence!r})\n"
        lines[kept:node.end_lineno] = [raising]
    return "".join(lines)


def _literal(node: ast.AST) -> bool:
    try:
        ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, RecursionError):
        return False
    return True


def checks_stub_source(source: str, module: str) -> str:
    """A module of the checks package as the student version holds it: its docstring, each public check and
    function as a stub, its public classes with their methods as stubs, its public constants, and (in the
    package's ``__init__``) the imports of its own modules; nothing private."""
    tree = ast.parse(source)
    kept: list[ast.stmt] = [ast.ImportFrom("__future__", [ast.alias("annotations")], 0)]
    if ast.get_docstring(tree, clean=False) is not None:
        kept.insert(0, tree.body[0])
    for node in tree.body:
        public = not getattr(node, "name", "").startswith("_")
        if isinstance(node, ast.ImportFrom) and node.level == 1 and module.endswith(".checks"):
            kept.append(node)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and public:
            kept.append(_checks_stub_function(node, f"{module}.{node.name}"))
        elif isinstance(node, ast.ClassDef) and public and all(isinstance(b, ast.Name) for b in node.bases):
            methods = [_checks_stub_function(n, f"{module}.{node.name}.{n.name}") for n in node.body
                       if isinstance(n, ast.FunctionDef) and not n.name.startswith("_")]
            doc = node.body[:1] if ast.get_docstring(node, clean=False) is not None else []
            kept.append(ast.ClassDef(node.name, node.bases, node.keywords, [*doc, *methods] or [ast.Pass()], [],
                                     type_params=[]))
        elif isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None and _literal(node.value):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if all(isinstance(t, ast.Name) and (not t.id.startswith("_") or t.id == "__all__") for t in targets):
                kept.append(node)
    return ast.unparse(ast.fix_missing_locations(ast.Module(kept, []))) + "\n"


def _checks_stub_function(node, name: str):
    """A public function of the checks as a stub; a default that is not a literal (a name it no longer has)
    becomes None."""
    stub = _stub_node(node, CHECK_STUB.format(name=name), decorators=False)
    stub.args.defaults = [d if _literal(d) else ast.Constant(None) for d in stub.args.defaults]
    stub.args.kw_defaults = [d if d is None or _literal(d) else ast.Constant(None) for d in stub.args.kw_defaults]
    return stub


# --------------------------------------------------------------------------------------------- the copy


def _by_file(references: Iterable[str]) -> dict[Path, tuple[str, list[str]]]:
    """``{file of the module: (module, [qualnames])}`` for ``"module:qualname"`` references."""
    files: dict[Path, tuple[str, list[str]]] = {}
    for reference in references:
        module, _, qualname = reference.partition(":")
        parts = module.split(".")
        if parts[0] != "course" or not qualname:
            raise LookupError(f"{reference}: not a function of the course (module:qualname)")
        base = PACKAGE.joinpath(*parts[1:])
        path = base / "__init__.py" if base.is_dir() else base.with_suffix(".py")
        if not path.is_file():
            raise LookupError(f"{reference}: no module {module}")
        files.setdefault(path, (module, []))[1].append(qualname)
    return files


def _package_files() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*") if p.is_file() and "__pycache__" not in p.parts
                  and p.suffix not in (".pyc", ".pyo"))


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _copy_package(target: Path, references: Iterable[str]) -> None:
    """Write the student version of the package into ``target`` (a new folder), every file of the package in it."""
    stubs = _by_file(references)
    for path in _package_files():
        destination = target / path.relative_to(PACKAGE)
        destination.parent.mkdir(parents=True, exist_ok=True)
        if path.suffix == ".py" and path.is_relative_to(CHECKS):
            destination.write_text(checks_stub_source(path.read_text(encoding="utf-8"), _module_name(path)),
                                   encoding="utf-8")
        elif path in stubs:
            module, qualnames = stubs[path]
            destination.write_text(stubbed_source(path.read_text(encoding="utf-8"), module, qualnames),
                                   encoding="utf-8")
        else:
            shutil.copyfile(path, destination)


def package_key(references: Iterable[str]) -> str:
    """A digest of every file of the package (this builder included) and of the references left out."""
    digest = hashlib.sha256()
    for path in _package_files():
        digest.update(str(path.relative_to(PACKAGE)).encode() + b"\0" + path.read_bytes() + b"\0")
    digest.update("\n".join(sorted(set(references))).encode())
    return digest.hexdigest()[:24]


def student_package(references: Iterable[str], root: Path | None = None) -> Path:
    """The ``course`` folder of the student version that leaves ``references`` out, built once per package
    content and references in ``root`` (default ``build/student-packages/``) and reused; the most recently used
    ``KEPT_ENTRIES`` are kept."""
    references = sorted(set(references))
    root = Path(root) if root is not None else build_dir() / "student-packages"
    entry = root / package_key(references)
    if not (entry / "course").is_dir():
        root.mkdir(parents=True, exist_ok=True)
        building = Path(tempfile.mkdtemp(dir=root, prefix=".building-"))
        try:
            _copy_package(building / "course", references)
            building.chmod(0o755)  # mkdtemp's 0700 would keep out the kernel's user (nobody, under root)
            os.rename(building, entry)
        except OSError:
            if not (entry / "course").is_dir():  # not another grader's copy, finished first: a real failure
                raise
        finally:
            shutil.rmtree(building, ignore_errors=True)
    os.utime(entry)
    _prune(root)
    return entry / "course"


def _prune(root: Path) -> None:
    """Remove the cached copies beyond the ``KEPT_ENTRIES`` most recently used that no grade has used for an hour
    (a grade's kernel may still be reading a copy in use)."""
    entries = []
    for path in root.iterdir():
        try:
            entries.append((path.stat().st_mtime, path))
        except OSError:  # removed meanwhile by another grader
            continue
    for used, stale in sorted(entries, reverse=True)[KEPT_ENTRIES:]:
        if used < time.time() - 3600:
            shutil.rmtree(stale, ignore_errors=True)


def write_student_package(out: Path, references: Iterable[str]) -> Path:
    """Write ``out/course`` (the student version without ``references``) and ``out/pyproject.toml``, so that
    ``pip install out`` installs it in place of the course; ``out`` is replaced whole, or left as it was."""
    out = Path(out)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        building = Path(tempfile.mkdtemp(dir=out.parent, prefix=f".{out.name}."))
    except OSError as exc:
        raise OutputFileError(f"{out}: cannot write here ({exc.strerror or exc})") from None
    old = out.parent / f".{out.name}.old"
    try:
        _copy_package(building / "course", references)
        building.chmod(0o755)
        (building / "pyproject.toml").write_text(_pyproject(), encoding="utf-8")
        shutil.rmtree(old, ignore_errors=True)
        if out.exists():
            os.rename(out, old)
        os.rename(building, out)
    except OSError as exc:
        raise OutputFileError(f"{out}: cannot write the student package ({exc.strerror or exc})") from None
    finally:
        shutil.rmtree(building, ignore_errors=True)
        shutil.rmtree(old, ignore_errors=True)
    return out / "course"


def _pyproject() -> str:
    """The student package's ``pyproject.toml``: the course's name, version and dependencies."""
    from importlib import metadata

    try:
        version, requires = metadata.version("word-vectors-course"), metadata.requires("word-vectors-course") or []
    except metadata.PackageNotFoundError:
        version, requires = "0.1.0", []
    dependencies = "".join(f'    "{r}",\n' for r in requires if "extra ==" not in r)
    return ('[build-system]\nrequires = ["setuptools>=64"]\nbuild-backend = "setuptools.build_meta"\n\n'
            f'[project]\nname = "word-vectors-course"\nversion = "{version}"\n'
            'description = "Word Vectors, Hands-On: the student version, without the course\'s own versions of the '
            'graded functions"\nrequires-python = ">=3.11"\n'
            f"dependencies = [\n{dependencies}]\n\n"
            '[tool.setuptools.packages.find]\ninclude = ["course*"]\nnamespaces = false\n\n'
            '[tool.setuptools.package-data]\ncourse = ["data/**/*"]\n')
