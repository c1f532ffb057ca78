"""The models a build trained, handed out as one file.

A full build from nothing trains every model the notebooks share (on two CPU cores, over an hour,
most of it the two biLMs). A teacher runs it once and packs ``build/models/``; a class unpacks the
archive into its clones, and every notebook loads those models instead of training them::

    python -m course models pack                              # build/course-models.zip and its SHA-256
    python -m course models get course-models.zip             # a file handed out
    python -m course models get https://.../course-models.zip --sha256 HEX   # or a download

The archive is a zip whose first member, ``MANIFEST.json``, names every file with its size and
SHA-256, and the profile and commit of the build. Unpacking reads no more of the archive than its
manifest says is there (a manifest of at most :data:`MANIFEST_LIMIT` bytes, each file up to its listed
size and one byte more), stages every file in a folder beside the models' folder and checks it there,
and moves them all into place only once every one is whole and checked: a damaged archive, a full
disk or a crafted file leaves the models' folder as it was. A file already there with other bytes is
left alone unless asked to replace it: a class's own models are never overwritten by mistake.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import tempfile
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext, suppress
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath

from ..core.errors import ChecksumError, ModelFileError, OutputFileError, SettingError
from ..core.io import _lock, atomic_path, write_failure
from ..core.paths import build_dir, models_dir, project_root
from ..core.settings import PROFILES, resolve_profile
from ..text.download import CHUNK_BYTES, RemoteFile, fetch, sha256_of

MANIFEST = "MANIFEST.json"
FORMAT = "word-vectors-course models"
SUFFIXES = (".pt", ".txt", ".json")  # models, vectors and the results files the notebooks share
_STORED = (".pt",)  # PyTorch's files are zip archives already: deflating them gains nothing
MANIFEST_LIMIT = 4 << 20  # bytes: a build's manifest is a few kB; a larger one is not a manifest


@dataclass(frozen=True)
class Archive:
    """A models archive: where it is, its SHA-256 and size, and the files it holds (name, size)."""

    path: Path
    sha256: str
    size: int
    files: tuple[tuple[str, int], ...]


def handed_out_files(profile: str | None = None) -> list[Path]:
    """The files of ``build/models/`` (``build/models/smoke/`` for the smoke profile) that a build shares
    between notebooks: models, vectors and results files, not checkpoints of runs cut short, not the
    temporary files of a write under way, and not the smoke profile's folder."""
    folder = models_dir(profile)
    if not folder.is_dir():
        return []
    return sorted(path for path in folder.iterdir()
                  if path.is_file() and path.suffix in SUFFIXES and not path.name.startswith(".")
                  and not path.name.endswith(".checkpoint.pt"))


def default_archive(profile: str | None = None) -> Path:
    """``build/course-models.zip`` (``build/course-models-smoke.zip`` for the smoke profile)."""
    return build_dir() / ("course-models.zip" if resolve_profile(profile) == "full" else "course-models-smoke.zip")


def pack_models(out: str | Path | None = None, profile: str | None = None) -> Archive:
    """Pack the build's shared files (:func:`handed_out_files`) into one zip at ``out`` (default
    :func:`default_archive`), written whole or not at all.

    Raises:
        ModelFileError: the build has trained nothing yet.
    """
    profile = resolve_profile(profile)
    files = handed_out_files(profile)
    if not files:
        raise ModelFileError(f"{models_dir(profile)} holds no trained models: build the course first with make course "
                             f"(or python -m course build --profile {profile})")
    out = Path(out) if out is not None else default_archive(profile)
    manifest = {"format": FORMAT, "version": 1, "profile": profile, "commit": _commit(),
                "created": datetime.now(UTC).isoformat(timespec="seconds"),
                "files": [{"name": path.name, "size": path.stat().st_size, "sha256": sha256_of(path)}
                          for path in files]}
    with atomic_path(out) as temporary:
        with zipfile.ZipFile(temporary, "w") as archive:
            archive.writestr(MANIFEST, json.dumps(manifest, indent=2), compress_type=zipfile.ZIP_DEFLATED)
            for path in files:
                archive.write(path, path.name,
                              compress_type=zipfile.ZIP_STORED if path.suffix in _STORED else zipfile.ZIP_DEFLATED)
    return Archive(out, sha256_of(out), out.stat().st_size, tuple((f["name"], f["size"]) for f in manifest["files"]))


def read_manifest(path: str | Path) -> dict:
    """The manifest of the models archive at ``path``, checked: at most :data:`MANIFEST_LIMIT` bytes, its
    format, its profile, and file names that are plain names (nothing that could be written outside the
    models' folder), each once, with a size and a SHA-256.

    Raises:
        ModelFileError: ``path`` is not a models archive, or its manifest is damaged, too large or
            nested too deeply to read.
    """
    path = Path(path)
    if not path.is_file():
        raise ModelFileError(f"{path}: no such file (python -m course models pack writes one)")
    not_ours = f"{path} is not a models archive of this course (python -m course models pack writes one)"
    try:
        with zipfile.ZipFile(path) as archive, archive.open(MANIFEST) as member:
            data = member.read(MANIFEST_LIMIT + 1)  # never the whole of a member its header says is huge
    except (zipfile.BadZipFile, KeyError, ValueError, EOFError):
        raise ModelFileError(not_ours) from None
    if len(data) > MANIFEST_LIMIT:
        raise ModelFileError(f"{path}: its {MANIFEST} is larger than {MANIFEST_LIMIT >> 20} MiB, which no manifest "
                             "of a models archive is; it is not one of this course")
    try:
        manifest = json.loads(data)
    except RecursionError:  # [[[[... nested deeper than the parser's stack
        raise ModelFileError(f"{path}: its {MANIFEST} is nested too deeply to be a manifest; not a models archive "
                             "of this course") from None
    except (ValueError, UnicodeDecodeError):
        raise ModelFileError(not_ours) from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT or manifest.get("profile") not in PROFILES \
            or not isinstance(manifest.get("files"), list):
        raise ModelFileError(f"{path} is not a models archive of this course (its {MANIFEST} is not one)")
    names = []
    for entry in manifest["files"]:
        name = entry.get("name") if isinstance(entry, dict) else None
        size = entry.get("size") if isinstance(entry, dict) else None
        if (not isinstance(name, str) or PurePosixPath(name).name != name or name in ("", ".", "..")
                or "\\" in name or name.startswith(".") or Path(name).suffix not in SUFFIXES
                or type(size) is not int or size < 0 or not isinstance(entry.get("sha256"), str)):
            raise ModelFileError(f"{path}: its {MANIFEST} names a file it may not hold: {name!r}")
        names.append(name)
    if len(set(names)) != len(names):
        raise ModelFileError(f"{path}: its {MANIFEST} names a file twice")
    return manifest


def unpack_models(source: str | Path, sha256: str | None = None, replace: bool = False,
                  progress: bool = True) -> list[tuple[str, str]]:
    """Unpack a models archive into ``build/models/`` (or ``build/models/smoke/``, as its manifest says).

    ``source`` is a file, or an ``http(s)://`` URL, which is downloaded once into the download cache with
    a progress bar (:func:`course.text.download.fetch`) and must then come with its ``sha256``. Every file
    is checked against the manifest (size and SHA-256), read no further than its listed size and one byte
    more. The files to write are staged beside the models' folder (:func:`_staging`) and moved into it
    only once all of them are whole and checked, so that nothing is written unless everything is. A file
    already in the folder with the same bytes is left as it is; one with other bytes is replaced only with
    ``replace``.

    Returns:
        ``(name, what)`` for each file of the archive, ``what`` one of ``"written"``, ``"replaced"``
        and ``"already there"``.

    Raises:
        SettingError: a URL without ``sha256``, a ``sha256`` that is not 64 hex digits, or files that would
            replace others without ``replace`` (all named; nothing is written).
        ChecksumError, DownloadError: the archive's bytes are not those of ``sha256``, or the download failed.
        ModelFileError: not a models archive, or a file in it is not what its manifest says (nothing is written).
        OutputFileError: the files cannot all be written (a full disk, a read-only folder; nothing is written).
    """
    if sha256 is not None and (len(sha256) != 64 or any(c not in "0123456789abcdefABCDEF" for c in sha256)):
        raise SettingError(f"--sha256 {sha256!r} is not a SHA-256 (64 hex digits, as models pack prints)")
    path = _local_archive(str(source), sha256.lower() if sha256 else None, progress)
    manifest = read_manifest(path)
    folder = models_dir(manifest["profile"])
    with zipfile.ZipFile(path) as archive:
        _check_members(archive, manifest, path)
        actions = _actions(manifest, folder)
        clashes = [name for name, what in actions if what == "replaced"]
        if clashes and not replace:
            raise SettingError(f"{folder} already holds {', '.join(clashes)} with other contents (models of your own "
                               "build?): nothing was written; move them away, or unpack with --replace")
        writes = [name for name, what in actions if what != "already there"]
        with _staging(folder) as staging:
            _check_space(staging, folder, sum(e["size"] for e in manifest["files"] if e["name"] in writes))
            for entry in manifest["files"]:  # every file checked, those to write staged, before any is moved
                _stage(archive, entry, staging if entry["name"] in writes else None, folder, path)
            _move_into_place(staging, writes, folder)
    return actions


def _check_members(archive: zipfile.ZipFile, manifest: dict, path: Path) -> None:
    """Refuse an archive whose members are not the files its manifest names, or whose headers give them
    other sizes (before a byte of them is read)."""
    members = {info.filename: info for info in archive.infolist() if info.filename != MANIFEST}
    listed = {entry["name"] for entry in manifest["files"]}
    if set(members) != listed:
        extra, missing = sorted(set(members) - listed), sorted(listed - set(members))
        raise ModelFileError(f"{path}: its files are not those its {MANIFEST} names"
                             + (f" (not named: {', '.join(extra)})" if extra else "")
                             + (f" (missing: {', '.join(missing)})" if missing else ""))
    for entry in manifest["files"]:
        if members[entry["name"]].file_size != entry["size"]:
            raise ModelFileError(f"{path}: {entry['name']} is not the file its {MANIFEST} names (the archive says "
                                 f"{members[entry['name']].file_size:,} bytes, expected {entry['size']:,}): the "
                                 "archive is damaged; nothing was written")


def _actions(manifest: dict, folder: Path) -> list[tuple[str, str]]:
    """What unpacking does with each file: ``"written"`` (none there), ``"already there"`` (the same
    bytes) or ``"replaced"`` (something else there)."""
    actions = []
    for entry in manifest["files"]:
        target = folder / entry["name"]
        if not os.path.lexists(target):
            actions.append((entry["name"], "written"))
        elif target.is_file() and sha256_of(target) == entry["sha256"]:
            actions.append((entry["name"], "already there"))
        else:
            actions.append((entry["name"], "replaced"))
    return actions


@contextmanager
def _staging(folder: Path) -> Iterator[Path]:
    """A new, empty folder beside ``folder`` (``.NAME.get-XXXXXXXX``, on its file system, so that what is
    staged there moves into ``folder`` by renaming), deleted with all it holds when the block ends,
    however it ends. It is locked while in use: one that a killed run left is not, and the next run
    deletes it.

    Raises:
        OutputFileError: no folder can be made there.
    """
    parent = folder.parent
    try:
        parent.mkdir(parents=True, exist_ok=True)
        for stale in parent.glob(f".{folder.name}.get-????????"):  # mkdtemp: 8 random letters
            _remove_if_unlocked(stale)
        staging = Path(tempfile.mkdtemp(dir=parent, prefix=f".{folder.name}.get-"))
        handle = os.open(staging, os.O_RDONLY)
    except OSError as exc:
        raise OutputFileError(f"{folder}: cannot write there ({exc.strerror or exc}); nothing was written") from None
    try:
        _lock(handle)
        yield staging
    finally:
        shutil.rmtree(staging, ignore_errors=True)
        os.close(handle)


def _remove_if_unlocked(folder: Path) -> None:
    """Delete a staging folder no run holds locked (a killed run's)."""
    try:
        handle = os.open(folder, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        if _lock(handle):
            shutil.rmtree(folder, ignore_errors=True)
    finally:
        os.close(handle)


def _check_space(staging: Path, folder: Path, needed: int) -> None:
    """Refuse, before any is staged, files that the disk has no room for."""
    try:
        free = shutil.disk_usage(staging).free
    except OSError:
        return
    if needed > free:
        raise OutputFileError(f"{folder}: the models need {needed / 1e6:,.1f} MB and its disk has {free / 1e6:,.1f} MB "
                              "free; nothing was written")


def _stage(archive: zipfile.ZipFile, entry: dict, staging: Path | None, folder: Path, path: Path) -> None:
    """Read the archive's file ``entry`` (up to its listed size and one byte more) into ``staging``, or
    only hash it where ``staging`` is None, and refuse it unless it has the size and SHA-256 its manifest
    lists.

    Raises:
        ModelFileError: the file is damaged, or is not the one listed.
        OutputFileError: it cannot be written (a full disk; the message names its place in ``folder``).
    """
    name = entry["name"]
    try:
        with archive.open(name) as member, (open(staging / name, "xb") if staging else nullcontext()) as out:
            size, digest = _copy_member(member, out, entry["size"] + 1, path, name)
    except OSError as exc:  # writing: reading the archive raises ModelFileError
        failure = write_failure(folder / name, exc)
        raise failure or OutputFileError(f"{folder / name}: could not be written ({exc.strerror or exc}); "
                                         "nothing was written") from None
    if (size, digest) != (entry["size"], entry["sha256"]):
        longer = " or more" if size > entry["size"] else ""
        raise ModelFileError(f"{path}: {name} is not the file its {MANIFEST} names ({size:,} bytes{longer}, "
                             f"SHA-256 {digest[:12]}..., expected {entry['size']:,} and "
                             f"{entry['sha256'][:12]}...): the archive is damaged; nothing was written")


def _copy_member(member, out, limit: int, path: Path, name: str) -> tuple[int, str]:
    """The size and SHA-256 of at most ``limit`` bytes read from the archive's ``member``, each chunk also
    written to ``out`` unless it is None.

    Raises:
        ModelFileError: the member cannot be read (a bad CRC, a cut archive).
    """
    digest, size = hashlib.sha256(), 0
    while size < limit:
        try:
            chunk = member.read(min(CHUNK_BYTES, limit - size))
        except (zipfile.BadZipFile, OSError, EOFError) as exc:
            raise ModelFileError(f"{path}: {name} cannot be read ({exc}): the archive is damaged; nothing was "
                                 "written") from None
        if not chunk:
            break
        digest.update(chunk)
        size += len(chunk)
        if out is not None:
            out.write(chunk)
    return size, digest.hexdigest()


def _move_into_place(staging: Path, names: list[str], folder: Path) -> None:
    """Rename the staged files ``names`` into ``folder``, each file they replace set aside in ``staging``
    first. Should a rename fail, those moved go back and those set aside are put back: ``folder`` is as
    it was.

    Raises:
        OutputFileError: a rename failed (nothing was written).
    """
    aside, placed = staging / ".replaced", []
    try:
        aside.mkdir()
        folder.mkdir(parents=True, exist_ok=True)
        for name in names:
            if os.path.lexists(folder / name):
                os.replace(folder / name, aside / name)
            os.replace(staging / name, folder / name)
            placed.append(name)
    except OSError as exc:
        for name in placed:
            with suppress(OSError):
                os.replace(folder / name, staging / name)
        for old in aside.iterdir() if aside.is_dir() else ():
            with suppress(OSError):
                os.replace(old, folder / old.name)
        raise OutputFileError(f"{folder}: the models could not be moved into it ({exc.strerror or exc}); nothing "
                              "was written") from None


def _local_archive(source: str, sha256: str | None, progress: bool) -> Path:
    """The archive as a local file: ``source`` itself, or its download; checked against ``sha256`` if given."""
    if source.startswith(("http://", "https://")):
        if sha256 is None:
            raise SettingError(f"{source}: a download needs its --sha256 (python -m course models pack prints it), "
                               "so that a damaged or changed file is refused")
        name = PurePosixPath(source.split("?", 1)[0]).name or "course-models.zip"
        return fetch(RemoteFile(source, name, sha256=sha256), progress=progress)
    path = Path(source).expanduser()
    if sha256 is not None and path.is_file() and (found := sha256_of(path)) != sha256:
        raise ChecksumError(f"{path}: its SHA-256 is {found}, not the {sha256} given: the file is damaged "
                            "or another one; nothing was written")
    return path


def _commit() -> str | None:
    """The checkout's commit, where there is one and git is installed (recorded for the reader, not checked)."""
    try:
        done = subprocess.run(["git", "-C", str(project_root()), "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True, timeout=10, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    if done.returncode != 0:
        return None
    return done.stdout.strip() or None
