import json
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]


def run(code: str, **env) -> str:
    environment = {k: v for k, v in __import__("os").environ.items() if k != "OMP_WAIT_POLICY"} | env
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                            env=environment, timeout=120)
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def test_setup_cpu_sets_the_wait_policy_before_torch_and_says_when_it_is_too_late():
    code = ("import json, os\nfrom course.core.runtime import setup_cpu\nfirst = setup_cpu()\nimport torch\n"
            "print(json.dumps([first, setup_cpu(), os.environ.get('OMP_WAIT_POLICY')]))")
    assert json.loads(run(code)) == [True, False, "PASSIVE"]
    assert json.loads(run(code, OMP_WAIT_POLICY="ACTIVE")) == [True, False, "ACTIVE"]  # the user's own is kept


@pytest.mark.parametrize("package", ["course", "course.elmo", "course.transformer", "course.tagger", "course.ulmfit"])
def test_importing_the_course_sets_nothing(package):
    assert run(f"import os, {package}\nprint(os.environ.get('OMP_WAIT_POLICY'))") == "None"


def test_every_notebook_that_uses_pytorch_sets_up_the_cpu_before_anything_imports_it():
    for path in sorted(ROOT.glob("notebooks/**/*.ipynb")):
        notebook = nbformat.read(path, as_version=4)
        code = [cell.source for cell in notebook.cells if cell.cell_type == "code"]
        if not any("torch" in source or "course.elmo" in source or "course.transformer" in source
                   or "train_" in source for source in code):
            continue
        imports = next(source for source in code if "import" in source)
        statements = [line for line in imports.splitlines() if line.strip() and not line.startswith("#")]
        assert statements[:2] == ["from course.core.runtime import setup_cpu",
                                  "setup_cpu()  # before PyTorch is imported: how its CPU threads wait "
                                  "(see course/core/runtime.py)"], path
