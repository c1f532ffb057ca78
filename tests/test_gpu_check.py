"""benchmarks/gpu_check.sh, as far as a machine without a GPU can check it: valid bash, and one line
with exit status 2 for a wrong argument, a missing Python, or no CUDA GPU."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import torch

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "gpu_check.sh"
pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")


def run(*args, python=sys.executable):
    return subprocess.run(["bash", str(SCRIPT), *args], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHON": str(python)})


def assert_one_line(result, fragment):
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and fragment in lines[0], result.stderr
    assert result.stdout == ""


def test_the_script_is_valid_bash_and_says_what_it_does():
    assert subprocess.run(["bash", "-n", str(SCRIPT)], capture_output=True).returncode == 0
    shown = run("--help")
    assert shown.returncode == 0 and "--skip-tests" in shown.stdout and "exits with status 2" in shown.stdout


def test_a_wrong_argument_or_no_python_is_one_line(tmp_path):
    assert_one_line(run("--quick"), "unknown argument '--quick'")
    assert_one_line(run(python=tmp_path / "no-python"), "run make setup first")


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the refusal on a machine without CUDA")
def test_without_a_gpu_it_stops_at_once_in_one_line(tmp_path):
    result = subprocess.run(["bash", str(SCRIPT)], capture_output=True, text=True, timeout=120,
                            env={**os.environ, "PYTHON": sys.executable, "GPU_CHECK_OUT": str(tmp_path / "out")})
    assert_one_line(result, "no CUDA GPU here")
    assert not (tmp_path / "out").exists()  # nothing written
