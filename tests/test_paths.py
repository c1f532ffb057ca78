"""Atomic writes: what a killed write leaves is cleaned, outputs get the umask's mode, and a path
that cannot be written is named in one line."""

import os
import subprocess
import sys

import pytest

from course import paths
from course.errors import OutputFileError
from course.paths import atomic_path, check_writable


def _parts(folder):
    return sorted(path.name for path in folder.iterdir() if path.name.endswith(".part"))


@pytest.mark.skipif(sys.platform == "win32", reason="no file locks to tell a write in progress")
def test_a_killed_write_leaves_a_part_file_that_the_next_write_removes(tmp_path):
    target = tmp_path / "vectors.txt"
    killed = ("import os, signal, sys\n"
              "from course.paths import atomic_path\n"
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

    monkeypatch.setattr("course.paths.tempfile.mkstemp", refused)
    monkeypatch.setattr("course.paths.os.access", lambda *args, **kwargs: False)
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
