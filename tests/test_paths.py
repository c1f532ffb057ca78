"""Atomic writes: what a killed write leaves is cleaned, outputs get the umask's mode, and a path
that cannot be written is named in one line."""

import os
import subprocess
import sys

import pytest

from course.core import io as course_io
from course.core import paths
from course.core.errors import OutputFileError
from course.core.io import atomic_path, check_writable


def _parts(folder):
    return sorted(path.name for path in folder.iterdir() if path.name.endswith(".part"))


@pytest.mark.skipif(sys.platform == "win32", reason="no file locks to tell a write in progress")
def test_a_killed_write_leaves_a_part_file_that_the_next_write_removes(tmp_path):
    target = tmp_path / "vectors.txt"
    killed = ("import os, signal, sys\n"
              "from course.core.io import atomic_path\n"
              "with atomic_path(sys.argv[1]) as temporary:\n"
              "    temporary.write_text('half a file')\n"
              "    os.kill(os.getpid(), signal.SIGKILL)\n")
    subprocess.run([sys.executable, "-c", killed, str(target)], timeout=60)
    (left,) = _parts(tmp_path)
    assert left.startswith(".vectors.txt.") and not target.exists()
    (tmp_path / ".vectors.txt.old.part").write_text("not ours: another name")
    with atomic_path(target) as temporary:
        assert left not in _parts(tmp_path)  # removed when the next write starts
        with atomic_path(target) as inner:  # a write in progress keeps its file
            assert temporary.name in _parts(tmp_path)
            inner.write_text("inner")
        temporary.write_text("whole")
    assert target.read_text() == "whole"
    assert _parts(tmp_path) == [".vectors.txt.old.part"]


def test_outputs_get_the_mode_the_umask_allows(tmp_path):
    previous = os.umask(0o027)
    try:
        with atomic_path(tmp_path / "out.json") as temporary:
            temporary.write_text("{}")
    finally:
        os.umask(previous)
    assert (tmp_path / "out.json").stat().st_mode & 0o777 == 0o640


def test_a_path_that_cannot_be_written_is_named_not_its_part_file(tmp_path):
    (tmp_path / "file.txt").write_text("x")
    for bad, message in [(tmp_path, "is a folder"), (tmp_path / "file.txt" / "out.txt", "file.txt is a file")]:
        with pytest.raises(OutputFileError, match=message) as caught:
            with atomic_path(bad) as temporary:
                temporary.write_text("never")
        assert str(caught.value).startswith(str(bad)) and ".part" not in str(caught.value)
        with pytest.raises(OutputFileError, match=message):
            check_writable(bad, "vectors")
    assert _parts(tmp_path) == []


def test_a_read_only_folder_is_named(tmp_path, monkeypatch):
    folder = tmp_path / "locked"
    folder.mkdir()

    def refused(*args, **kwargs):  # what the system answers in a read-only folder (root is never refused)
        raise PermissionError(13, "Permission denied", str(folder / ".out.txt.a1b2c3d4.part"))

    monkeypatch.setattr("course.core.io.tempfile.mkstemp", refused)
    monkeypatch.setattr("course.core.io.os.access", lambda *args, **kwargs: False)
    with pytest.raises(OutputFileError, match="the folder .*locked is not writable"):
        check_writable(folder / "out.txt", "JSON")
    with pytest.raises(OutputFileError, match=r"out.txt: cannot write in the folder .*locked \(Permission denied\)") \
            as caught:
        with atomic_path(folder / "out.txt") as temporary:
            temporary.write_text("never")
    assert ".part" not in str(caught.value)



def test_where_things_go_in_a_checkout_and_installed_without_one(tmp_path, monkeypatch):
    for name in ("COURSE_CACHE", "COURSE_BUILD", "XDG_CACHE_HOME"):
        monkeypatch.delenv(name, raising=False)
    root = paths.checkout()
    assert root is not None and paths.cache_dir() == root / "data" / "cache" and paths.build_dir() == root / "build"
    monkeypatch.setattr(paths, "checkout", lambda: None)  # as from a wheel in site-packages
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert paths.cache_dir() == tmp_path / "home" / ".cache" / "word-vectors-course"
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert paths.cache_dir() == tmp_path / "xdg" / "word-vectors-course"
    assert paths.build_dir() == tmp_path / "build"
    assert paths.models_dir("smoke") == tmp_path / "build" / "models" / "smoke"
    monkeypatch.setenv("COURSE_CACHE", str(tmp_path / "c"))
    monkeypatch.setenv("COURSE_BUILD", str(tmp_path / "b"))
    assert paths.cache_dir() == tmp_path / "c" and paths.build_dir() == tmp_path / "b"
    assert paths.data_dir() == paths.PACKAGE_DIR / "data"  # the package's own files, wherever it lives


def full_disk_for(monkeypatch, target):
    """Writes of ``target`` go to ``/dev/full``, where every write fails with ENOSPC as on a full disk:
    its temporary file is made, then replaced by a link to ``/dev/full``."""
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full on this system")
    make = course_io.tempfile.mkstemp

    def mkstemp(*args, **kwargs):
        handle, name = make(*args, **kwargs)
        if kwargs.get("prefix") == f".{os.path.basename(target)}.":
            os.unlink(name)
            os.symlink("/dev/full", name)
        return handle, name

    monkeypatch.setattr(course_io.tempfile, "mkstemp", mkstemp)


@pytest.mark.parametrize("writer", ["torch", "text"])
def test_a_full_disk_is_one_line_naming_the_file_for_torch_files_too(tmp_path, monkeypatch, writer):
    import torch

    target = tmp_path / ("model.pt" if writer == "torch" else "vectors.txt")
    target.write_text("the last good version")
    full_disk_for(monkeypatch, target)
    with pytest.raises(OutputFileError) as excinfo, atomic_path(target) as temporary:
        if writer == "torch":  # torch's zip writer: RuntimeError "[enforce fail at inline_container.cc] ..."
            torch.save({"weights": torch.zeros(100_000)}, temporary)
        else:  # OSError ENOSPC
            with open(temporary, "w") as handle:
                handle.write("x" * 100_000)
    message = str(excinfo.value)
    assert "\n" not in message and message.startswith(f"{target}: could not be written"), message
    assert ".part" not in message and "enforce" not in message
    assert target.read_text() == "the last good version" and not _parts(tmp_path)


@pytest.mark.parametrize(("failure", "reason"), [
    (OSError(28, "No space left on device"), "the disk is full"),
    (OSError(122, "Disk quota exceeded"), "the disk quota is used up"),
    (OSError(30, "Read-only file system"), "the folder is on a read-only file system"),
    ("vanished", "the folder vanished"),
    (RuntimeError("[enforce fail at inline_container.cc:672] . unexpected pos 704 vs 598"), "the write failed"),
])
def test_why_a_write_failed_is_said_in_one_line(tmp_path, failure, reason):
    import shutil

    folder = tmp_path / "models"
    target = folder / "model.pt"
    with pytest.raises(OutputFileError) as excinfo, atomic_path(target) as temporary:
        temporary.write_bytes(b"half")
        if failure == "vanished":  # the folder is removed while the file is written
            shutil.rmtree(folder)
            temporary.write_bytes(b"more")
        raise failure
    message = str(excinfo.value)
    assert message.startswith(f"{target}: could not be written, {reason}"), message
    assert message.endswith(f"({folder}); nothing was written"), message
    assert not target.exists() and (not folder.exists() or not _parts(folder))


def test_a_mistake_inside_the_write_is_not_called_a_write_failure(tmp_path):
    with pytest.raises(ValueError, match="not a write failure"), atomic_path(tmp_path / "x.txt"):
        raise ValueError("not a write failure")
    with pytest.raises(RuntimeError, match="something else"), atomic_path(tmp_path / "x.txt"):
        raise RuntimeError("something else")


@pytest.mark.skipif(sys.platform == "win32", reason="no advisory locks")
def test_an_output_another_run_holds_is_refused_until_it_ends(tmp_path):
    target = tmp_path / "out" / "vectors.txt"
    holder = subprocess.Popen([sys.executable, "-c", "import sys, time\nfrom course.core.io import claim_output\n"
                               "claim_output(sys.argv[1], 'vectors')\nprint('held', flush=True)\ntime.sleep(120)\n",
                               str(target)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        with pytest.raises(OutputFileError, match=rf"vectors.txt: another run is writing this vectors now "
                                                  rf"\(process {holder.pid}\); wait for it to end"):
            course_io.claim_output(target, "vectors")
    finally:
        holder.kill()
        holder.wait()
    assert course_io.claim_output(target, "vectors") == target  # its lock ended with it
    assert course_io.claim_output(target, "vectors") == target  # held once by this process
    lock = tmp_path / "out" / ".vectors.txt.lock"
    assert lock.exists()
    course_io.release_outputs()
    assert not lock.exists() and not target.exists()
