"""Progress bars within a build: the latest open bar's text in the status file the build reads, and nothing
outside a build."""

import time

import pytest

from course.core import progress
from course.core.progress import STATUS_ENV, progress_bar, status_line, write_status


@pytest.fixture
def fresh(monkeypatch):
    """This process as a notebook's kernel starts: no bar made yet, no writer running."""
    monkeypatch.setattr(progress, "_bars", [])
    monkeypatch.setattr(progress, "_writer", None)


def test_outside_a_build_no_bar_is_followed(fresh, monkeypatch):
    monkeypatch.delenv(STATUS_ENV, raising=False)
    bar = progress_bar(total=10, desc="steps")
    bar.update(3)
    assert status_line() == "" and progress._writer is None
    bar.close()


def test_the_status_is_the_latest_open_bar_and_goes_when_none_is_open(fresh, monkeypatch, tmp_path):
    status = tmp_path / "progress"
    monkeypatch.setenv(STATUS_ENV, str(status))
    monkeypatch.setattr(progress, "STATUS_SECONDS", 0.05)
    epochs = progress_bar(total=8, desc="epochs", unit="epoch")
    epochs.update(3)
    for _ in range(100):  # the writer thread writes at once, then every STATUS_SECONDS
        if status.is_file() and "3/8" in status.read_text(encoding="utf-8"):
            break
        time.sleep(0.05)
    assert status.read_text(encoding="utf-8").startswith("epochs:  38%|███▊      | 3/8 [")
    hidden = progress_bar(total=5, desc="hidden", disable=True)  # a bar that does not show is not followed
    steps = progress_bar(total=200, desc="steps", unit="step")
    steps.update(50)
    assert status_line().startswith("steps:  25%|██▌       | 50/200 [") and "hidden" not in status_line()
    steps.close()
    assert status_line().startswith("epochs:  38%")
    epochs.close()
    hidden.close()
    assert status_line() == ""
    for _ in range(100):  # the writer removes the file once no bar is open
        if not status.exists():
            break
        time.sleep(0.05)
    assert not status.exists()


def test_a_status_is_written_whole_and_removed_when_no_bar_is_open(fresh, monkeypatch, tmp_path):
    monkeypatch.delenv(STATUS_ENV, raising=False)  # no writer thread: the writes are this test's own
    status = tmp_path / "progress"
    bar = progress_bar(total=4, desc="models")
    progress._bars.append(bar)
    write_status(status)
    assert status.read_text(encoding="utf-8").startswith("models:   0%|          | 0/4 [")
    bar.close()
    write_status(status)
    assert not status.exists() and not list(tmp_path.iterdir())
