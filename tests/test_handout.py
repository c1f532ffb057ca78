"""A build's models packed into one file and unpacked in another clone (course.teaching.handout and
``python -m course models``): the bytes arrive whole and checked, or nothing is written."""

import errno
import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from course.core.errors import ChecksumError, DownloadError, ModelFileError, OutputFileError, SettingError
from course.core.paths import models_dir
from course.teaching.handout import MANIFEST, handed_out_files, pack_models, read_manifest, unpack_models
from tests.conftest import assert_one_line_error

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def teacher(tmp_path, monkeypatch, private_cache):
    """A build folder with a few models of the full profile, and things that are not to be handed out."""
    monkeypatch.setenv("COURSE_BUILD", str(tmp_path / "teacher"))
    folder = models_dir("full")
    folder.mkdir(parents=True)
    files = {"elmo-cpu-wiki-en.pt": os.urandom(300_000), "glove-wiki-en.txt": b"the 0.1 0.2\n" * 5_000,
             "ulmfit-curve-reviews-zh.json": b'{"rows": []}'}
    for name, data in files.items():
        (folder / name).write_bytes(data)
    (folder / "gpt-wiki-en.checkpoint.pt").write_bytes(b"a run cut short")
    (folder / ".glove-wiki-en.txt.abc123.part").write_bytes(b"a write under way")
    (folder / "notes.md").write_text("not a model")
    (folder / "smoke").mkdir()
    (folder / "smoke" / "elmo-cpu-wiki-en.pt").write_bytes(b"smoke")
    return files


def _use_class_build(tmp_path, monkeypatch, name="class"):
    monkeypatch.setenv("COURSE_BUILD", str(tmp_path / name))
    return models_dir("full")


def _contents(folder: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in folder.iterdir() if path.is_file()} if folder.is_dir() else {}


def test_pack_holds_the_shared_files_and_a_manifest_of_their_checksums(teacher, tmp_path):
    archive = pack_models(tmp_path / "models.zip", "full")
    assert archive.sha256 == hashlib.sha256(archive.path.read_bytes()).hexdigest()
    assert archive.size == archive.path.stat().st_size
    with zipfile.ZipFile(archive.path) as packed:
        assert packed.namelist()[0] == MANIFEST
        assert sorted(packed.namelist()[1:]) == sorted(teacher)  # no checkpoint, no .part, no smoke/, no notes
        assert packed.getinfo("elmo-cpu-wiki-en.pt").compress_type == zipfile.ZIP_STORED
        assert packed.getinfo("glove-wiki-en.txt").compress_type == zipfile.ZIP_DEFLATED
        manifest = json.loads(packed.read(MANIFEST))
    assert manifest["profile"] == "full"
    assert {entry["name"]: (entry["size"], entry["sha256"]) for entry in manifest["files"]} == {
        name: (len(data), hashlib.sha256(data).hexdigest()) for name, data in teacher.items()}
    assert [path.name for path in handed_out_files("full")] == sorted(teacher)


def test_a_class_unpacks_the_same_bytes_and_a_second_time_changes_nothing(teacher, tmp_path, monkeypatch):
    archive = pack_models(tmp_path / "models.zip", "full")
    folder = _use_class_build(tmp_path, monkeypatch)
    actions = unpack_models(archive.path, archive.sha256, progress=False)
    assert actions == [(name, "written") for name in sorted(teacher)]
    assert _contents(folder) == teacher
    before = {path.name: path.stat().st_mtime_ns for path in folder.iterdir()}
    assert {what for _, what in unpack_models(archive.path, progress=False)} == {"already there"}
    assert {path.name: path.stat().st_mtime_ns for path in folder.iterdir()} == before


def test_models_of_the_class_own_are_kept_unless_replace_is_asked(teacher, tmp_path, monkeypatch):
    archive = pack_models(tmp_path / "models.zip", "full")
    folder = _use_class_build(tmp_path, monkeypatch)
    folder.mkdir(parents=True)
    (folder / "glove-wiki-en.txt").write_bytes(b"my own vectors\n")
    with pytest.raises(SettingError, match=r"glove-wiki-en\.txt.*--replace"):
        unpack_models(archive.path, progress=False)
    assert _contents(folder) == {"glove-wiki-en.txt": b"my own vectors\n"}  # not even the other files
    actions = dict(unpack_models(archive.path, replace=True, progress=False))
    assert actions == {"elmo-cpu-wiki-en.pt": "written", "glove-wiki-en.txt": "replaced",
                       "ulmfit-curve-reviews-zh.json": "written"}
    assert _contents(folder) == teacher


def _archive(tmp_path, manifest_files, members, name="crafted.zip", profile="full") -> Path:
    path = tmp_path / name
    manifest = {"format": "word-vectors-course models", "version": 1, "profile": profile, "files": manifest_files}
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr(MANIFEST, json.dumps(manifest))
        for member, data in members.items():
            archive.writestr(member, data)
    return path


def _entry(name, data):
    return {"name": name, "size": len(data), "sha256": hashlib.sha256(data).hexdigest()}


def test_a_damaged_file_in_the_archive_stops_everything_before_any_write(tmp_path, monkeypatch):
    good, bad = b"a good model", b"bytes that changed"
    path = _archive(tmp_path, [_entry("a.pt", good), _entry("b.txt", b"the bytes the teacher packed")],
                    {"a.pt": good, "b.txt": bad})
    folder = _use_class_build(tmp_path, monkeypatch)
    with pytest.raises(ModelFileError, match=r"b\.txt is not the file"):
        unpack_models(path, progress=False)
    assert _contents(folder) == {}


@pytest.mark.parametrize("name", ["../escape.pt", "/tmp/escape.pt", "sub/model.pt", "..", ".hidden.pt", "a\\b.pt",
                                  "script.sh"])
def test_a_manifest_may_name_only_plain_model_files(tmp_path, monkeypatch, name):
    data = b"x"
    path = _archive(tmp_path, [_entry(name, data)], {name: data})
    folder = _use_class_build(tmp_path, monkeypatch)
    with pytest.raises(ModelFileError, match="may not hold"):
        unpack_models(path, progress=False)
    assert _contents(folder) == {} and not (tmp_path / "escape.pt").exists()


def test_members_and_manifest_must_agree(tmp_path, monkeypatch):
    data = b"x"
    extra = _archive(tmp_path, [_entry("a.pt", data)], {"a.pt": data, "b.pt": data}, "extra.zip")
    missing = _archive(tmp_path, [_entry("a.pt", data), _entry("b.pt", data)], {"a.pt": data}, "missing.zip")
    twice = _archive(tmp_path, [_entry("a.pt", data), _entry("a.pt", data)], {"a.pt": data}, "twice.zip")
    folder = _use_class_build(tmp_path, monkeypatch)
    with pytest.raises(ModelFileError, match=r"not named: b\.pt"):
        unpack_models(extra, progress=False)
    with pytest.raises(ModelFileError, match=r"missing: b\.pt"):
        unpack_models(missing, progress=False)
    with pytest.raises(ModelFileError, match="twice"):
        unpack_models(twice, progress=False)
    assert _contents(folder) == {}


def test_what_is_not_a_models_archive_is_refused(tmp_path, teacher):
    archive = pack_models(tmp_path / "models.zip", "full")
    cut = tmp_path / "cut.zip"
    cut.write_bytes(archive.path.read_bytes()[: archive.size // 2])
    other = tmp_path / "other.zip"
    with zipfile.ZipFile(other, "w") as packed:
        packed.writestr("README", "hello")
    wrong_format = tmp_path / "format.zip"
    with zipfile.ZipFile(wrong_format, "w") as packed:
        packed.writestr(MANIFEST, json.dumps({"format": "something else", "profile": "full", "files": []}))
    a_list = tmp_path / "list.zip"
    with zipfile.ZipFile(a_list, "w") as packed:
        packed.writestr(MANIFEST, json.dumps(["format", "files"]))
    for path in (cut, other, wrong_format, a_list, tmp_path / "absent.zip"):
        with pytest.raises(ModelFileError):
            read_manifest(path)


def test_a_smoke_archive_goes_to_the_smoke_folder(tmp_path, monkeypatch):
    data = b"smoke model"
    path = _archive(tmp_path, [_entry("elmo-cpu-wiki-en.pt", data)], {"elmo-cpu-wiki-en.pt": data}, profile="smoke")
    _use_class_build(tmp_path, monkeypatch)
    unpack_models(path, progress=False)
    assert _contents(models_dir("smoke")) == {"elmo-cpu-wiki-en.pt": data}
    assert _contents(models_dir("full")) == {}


def test_a_checksum_given_for_a_file_is_checked(teacher, tmp_path, monkeypatch):
    archive = pack_models(tmp_path / "models.zip", "full")
    folder = _use_class_build(tmp_path, monkeypatch)
    with pytest.raises(ChecksumError):
        unpack_models(archive.path, "0" * 64, progress=False)
    with pytest.raises(SettingError, match="64 hex"):
        unpack_models(archive.path, "abc", progress=False)
    assert _contents(folder) == {}




def test_a_class_downloads_the_archive_once_with_its_checksum(teacher, tmp_path, monkeypatch, server, requests_seen):
    root, url = server
    archive = pack_models(root / "course-models.zip", "full")
    folder = _use_class_build(tmp_path, monkeypatch)
    with pytest.raises(SettingError, match="--sha256"):
        unpack_models(f"{url}/course-models.zip", progress=False)
    with pytest.raises(ChecksumError):
        unpack_models(f"{url}/course-models.zip", "f" * 64, progress=False)
    assert _contents(folder) == {}
    with pytest.raises(DownloadError):
        unpack_models(f"{url}/absent.zip", archive.sha256, progress=False)
    requests_seen.clear()
    unpack_models(f"{url}/course-models.zip", archive.sha256.upper(), progress=False)
    assert _contents(folder) == teacher
    unpack_models(f"{url}/course-models.zip", archive.sha256, progress=False)
    assert requests_seen == ["/course-models.zip"]  # the second time from the download cache


def test_unpacked_vectors_are_loaded_not_trained(tmp_path, monkeypatch, private_cache):
    """The point of handing out: the notebooks' loader finds the teacher's file and trains nothing."""
    from course.shared import vectors as course_models

    monkeypatch.setenv("COURSE_BUILD", str(tmp_path / "teacher"))
    trained = course_models.course_vectors("skipgram-neg", "wiki-en", "smoke")
    pack = pack_models(tmp_path / "smoke.zip", "smoke")
    _use_class_build(tmp_path, monkeypatch)

    def no_training(*args, **kwargs):
        raise AssertionError("trained again")

    monkeypatch.setattr(course_models, "_train", no_training)
    with pytest.raises(AssertionError, match="trained again"):
        course_models.course_vectors("skipgram-neg", "wiki-en", "smoke")  # nothing there yet: it would train
    unpack_models(pack.path, progress=False)
    loaded = course_models.course_vectors("skipgram-neg", "wiki-en", "smoke")
    assert loaded.index_to_key == trained.index_to_key
    assert abs(loaded.vectors - trained.vectors).max() < 1e-5  # the text file's printed precision


def _run(*args, env):
    return subprocess.run([sys.executable, "-m", "course", "models", *args], capture_output=True, text=True,
                          cwd=ROOT, env=env, timeout=120)


def test_the_command_line_packs_and_unpacks_and_says_no_in_one_line(teacher, tmp_path):
    env = {name: value for name, value in os.environ.items() if name != "COURSE_PROFILE"}  # the default: full
    env.update(COURSE_BUILD=str(tmp_path / "teacher"), COURSE_CACHE=str(tmp_path / "cache"))
    smoke = _run("pack", "--profile", "smoke", "--out", str(tmp_path / "s.zip"), env=env)
    assert smoke.returncode == 0 and "1 file," in smoke.stdout, smoke.stderr
    assert read_manifest(tmp_path / "s.zip")["profile"] == "smoke"
    packed = _run("pack", "--out", str(tmp_path / "m.zip"), env=env)
    assert packed.returncode == 0, packed.stderr
    digest = hashlib.sha256((tmp_path / "m.zip").read_bytes()).hexdigest()
    assert f"SHA-256 {digest}" in packed.stdout and "3 files" in packed.stdout
    env["COURSE_BUILD"] = str(tmp_path / "class")
    got = _run("get", str(tmp_path / "m.zip"), "--sha256", digest, env=env)
    assert got.returncode == 0, got.stderr
    assert "3 files: 3 written" in got.stderr
    assert _contents(tmp_path / "class" / "models") == teacher
    assert_one_line_error(_run("get", str(tmp_path / "absent.zip"), env=env), "no such file")
    assert_one_line_error(_run("get", str(tmp_path / "m.zip"), "--sha256", "0" * 64, env=env), "SHA-256")
    assert_one_line_error(_run("get", "http://127.0.0.1:9/m.zip", env=env), "--sha256")
    env["COURSE_BUILD"] = str(tmp_path / "empty")
    assert_one_line_error(_run("pack", env=env), "holds no trained models")
    assert not (tmp_path / "empty" / "course-models.zip").exists()


def _get(capsys, *args):
    """``python -m course models get ARGS`` in this process (so that a test may stand in for the disk):
    its exit status and what it wrote to standard error."""
    from types import SimpleNamespace

    from course.cli import main

    status = main(["models", "get", *map(str, args), "--quiet"])
    return SimpleNamespace(returncode=status, stderr=capsys.readouterr().err)


def _raw_archive(tmp_path, manifest: bytes, members=None, name="raw.zip") -> Path:
    path = tmp_path / name
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as archive:
        archive.writestr(MANIFEST, manifest)
        for member, data in (members or {}).items():
            archive.writestr(member, data)
    return path


def test_a_manifest_larger_than_any_is_refused_without_being_read_whole(tmp_path, monkeypatch, capsys):
    from course.teaching import handout

    padding = " " * (handout.MANIFEST_LIMIT + 1)  # valid JSON all the same: only its size is wrong
    manifest = json.dumps({"format": "word-vectors-course models", "profile": "full", "files": [], "x": padding})
    path = _raw_archive(tmp_path, manifest.encode())
    assert path.stat().st_size < handout.MANIFEST_LIMIT // 100
    folder = _use_class_build(tmp_path, monkeypatch)
    assert_one_line_error(_get(capsys, path), "larger than 4 MiB")
    assert _contents(folder) == {}


def test_a_manifest_nested_too_deeply_is_refused_in_one_line(tmp_path, monkeypatch, capsys):
    path = _raw_archive(tmp_path, b"[" * 100_000)
    folder = _use_class_build(tmp_path, monkeypatch)
    assert_one_line_error(_get(capsys, path), "nested too deeply")
    assert _contents(folder) == {}


def test_a_member_larger_than_listed_is_refused_before_it_is_read(tmp_path, monkeypatch):
    """A member whose header says 64 MiB, listed as 10 bytes: refused without decompressing it."""
    big = bytes(64 << 20)
    path = _raw_archive(tmp_path, json.dumps({"format": "word-vectors-course models", "version": 1, "profile": "full",
                                              "files": [_entry("a.pt", big[:10])]}).encode(), {"a.pt": big})
    folder = _use_class_build(tmp_path, monkeypatch)
    read, real_read = [], zipfile.ZipExtFile.read

    def counted(self, n=-1):
        data = real_read(self, n)
        read.append(len(data))
        return data

    monkeypatch.setattr(zipfile.ZipExtFile, "read", counted)
    with pytest.raises(ModelFileError, match=r"a\.pt is not the file .*67,108,864 bytes, expected 10"):
        unpack_models(path, progress=False)
    assert sum(read) < 1 << 20  # the manifest, not the member
    assert _contents(folder) == {}


def test_a_member_is_read_no_further_than_its_listed_size_and_one_byte(tmp_path):
    from course.teaching.handout import _copy_member

    source = io.BytesIO(bytes(5 << 20))
    size, digest = _copy_member(source, None, 11, tmp_path / "a.zip", "a.pt")
    assert (size, source.tell()) == (11, 11)
    assert digest == hashlib.sha256(bytes(11)).hexdigest()


def _class_with_own_files(teacher, tmp_path, monkeypatch):
    """The teacher's archive, and a class folder holding a file of its own and another version of one
    of the archive's files: (archive, folder, its contents)."""
    archive = pack_models(tmp_path / "models.zip", "full")
    folder = _use_class_build(tmp_path, monkeypatch)
    folder.mkdir(parents=True)
    (folder / "glove-wiki-en.txt").write_bytes(b"my own vectors\n")
    (folder / "mine.pt").write_bytes(b"a model of my own")
    return archive, folder, _contents(folder)


def test_a_full_disk_while_staging_writes_nothing_and_says_so_in_one_line(teacher, tmp_path, monkeypatch, capsys):
    from course.teaching import handout

    archive, folder, before = _class_with_own_files(teacher, tmp_path, monkeypatch)
    staged, real_copy = [], handout._copy_member

    class FullDisk:
        def __init__(self, out):
            self.out = out

        def write(self, chunk):
            self.out.write(chunk[: len(chunk) // 2])
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    def copy(member, out, limit, path, name):
        if out is not None:
            staged.append(name)
            if len(staged) == 2:
                out = FullDisk(out)
        return real_copy(member, out, limit, path, name)

    monkeypatch.setattr(handout, "_copy_member", copy)
    result = _get(capsys, archive.path, "--replace")
    assert_one_line_error(result, f"{folder / staged[1]}: could not be written, the disk is full",
                          "nothing was written")
    assert _contents(folder) == before
    assert sorted(path.name for path in folder.parent.iterdir()) == ["models"]  # no staging left beside it


def test_a_rename_that_fails_puts_back_what_was_there(teacher, tmp_path, monkeypatch):
    from course.teaching import handout

    archive, folder, before = _class_with_own_files(teacher, tmp_path, monkeypatch)
    moved, real_replace = [], os.replace

    def replace(source, target):
        if Path(target).parent == folder and Path(source).parent.name.startswith(".models.get-"):  # staged files
            moved.append(target)
            if len(moved) == 3:
                raise OSError(errno.EIO, os.strerror(errno.EIO))
        return real_replace(source, target)

    monkeypatch.setattr(handout.os, "replace", replace)
    with pytest.raises(OutputFileError, match="could not be moved into it.*nothing was written"):
        unpack_models(archive.path, replace=True, progress=False)
    assert len(moved) == 3
    assert _contents(folder) == before
    assert sorted(path.name for path in folder.parent.iterdir()) == ["models"]


def test_no_room_for_the_models_is_refused_before_any_is_staged(teacher, tmp_path, monkeypatch):
    from course.teaching import handout

    archive = pack_models(tmp_path / "models.zip", "full")
    folder = _use_class_build(tmp_path, monkeypatch)
    real_usage = shutil.disk_usage
    monkeypatch.setattr(handout.shutil, "disk_usage", lambda p: real_usage(p)._replace(free=1_000))
    needed = sum(map(len, teacher.values())) / 1e6
    with pytest.raises(OutputFileError, match=rf"the models need {needed:.1f} MB and its disk has 0\.0 MB free"):
        unpack_models(archive.path, progress=False)
    assert _contents(folder) == {}


def test_a_staging_folder_a_killed_run_left_is_removed_and_one_in_use_is_not(teacher, tmp_path, monkeypatch):
    import fcntl

    archive = pack_models(tmp_path / "models.zip", "full")
    folder = _use_class_build(tmp_path, monkeypatch)
    left, in_use = folder.parent / ".models.get-abcdefgh", folder.parent / ".models.get-ijklmnop"
    for staging in (left, in_use):
        staging.mkdir(parents=True)
        (staging / "elmo-cpu-wiki-en.pt").write_bytes(b"half a model")
    handle = os.open(in_use, os.O_RDONLY)
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        unpack_models(archive.path, progress=False)
        assert not left.exists() and in_use.is_dir()
    finally:
        os.close(handle)
    assert _contents(folder) == teacher
