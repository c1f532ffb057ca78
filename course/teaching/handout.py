"""The models a build trained, handed out as one file.

A full build from nothing trains every model the notebooks share (on two CPU cores, over an hour,
most of it the two biLMs). A teacher runs it once and packs ``build/models/``; a class unpacks the
archive into its clones, and every notebook loads those models instead of training them::

    python -m course models pack                              # build/course-models.zip and its SHA-256
    python -m course models get course-models.zip             # a file handed out
    python -m course models get https://.../course-models.zip --sha256 HEX   # or a download

The archive is a zip whose first member, ``MANIFEST.json``, names every file with its size and
SHA-256, and the profile and commit of the build. Unpacking reads the whole archive and checks every
file against the manifest before it writes any, writes each file whole (:func:`course.paths.atomic_path`),
and leaves a file already there with other bytes alone unless asked to replace it: a class's own
models are never overwritten by mistake.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import zipfile
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath

from ..errors import ChecksumError, ModelFileError, SettingError
from ..paths import atomic_path, build_dir, models_dir, project_root
from ..settings import PROFILES, resolve_profile
from ..text.download import CHUNK_BYTES, RemoteFile, fetch, sha256_of

MANIFEST = "MANIFEST.json"
FORMAT = "word-vectors-course models"
SUFFIXES = (".pt", ".txt", ".json")  # models, vectors and the results files the notebooks share
_STORED = (".pt",)  # PyTorch's files are zip archives already: deflating them gains nothing


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
    """The manifest of the models archive at ``path``, checked: its format, its profile, and file names
    that are plain names (nothing that could be written outside the models' folder), each once.

    Raises:
        ModelFileError: ``path`` is not a models archive, or its manifest is damaged.
    """
    path = Path(path)
    if not path.is_file():
        raise ModelFileError(f"{path}: no such file (python -m course models pack writes one)")
    try:
        with zipfile.ZipFile(path) as archive:
            manifest = json.loads(archive.read(MANIFEST))
    except (zipfile.BadZipFile, KeyError, ValueError, UnicodeDecodeError):
        raise ModelFileError(f"{path} is not a models archive of this course (python -m course models pack "
                             "writes one)") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT or manifest.get("profile") not in PROFILES \
            or not isinstance(manifest.get("files"), list):
        raise ModelFileError(f"{path} is not a models archive of this course (its {MANIFEST} is not one)")
    names = []
    for entry in manifest["files"]:
        name = entry.get("name") if isinstance(entry, dict) else None
        if (not isinstance(name, str) or PurePosixPath(name).name != name or name in ("", ".", "..")
                or "\\" in name or name.startswith(".") or Path(name).suffix not in SUFFIXES
                or not isinstance(entry.get("size"), int) or not isinstance(entry.get("sha256"), str)):
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
    is checked against the manifest (size and SHA-256) before any is written. A file already in the
    folder with the same bytes is left as it is; one with other bytes is replaced only with ``replace``.

    Returns:
        ``(name, what)`` for each file of the archive, ``what`` one of ``"written"``, ``"replaced"``
        and ``"already there"``.

    Raises:
        SettingError: a URL without ``sha256``, a ``sha256`` that is not 64 hex digits, or files that would
            replace others without ``replace`` (all named; nothing is written).
        ChecksumError, DownloadError: the archive's bytes are not those of ``sha256``, or the download failed.
        ModelFileError: not a models archive, or a file in it is not what its manifest says (nothing is written).
    """
    if sha256 is not None and (len(sha256) != 64 or any(c not in "0123456789abcdefABCDEF" for c in sha256)):
        raise SettingError(f"--sha256 {sha256!r} is not a SHA-256 (64 hex digits, as models pack prints)")
    path = _local_archive(str(source), sha256.lower() if sha256 else None, progress)
    manifest = read_manifest(path)
    folder = models_dir(manifest["profile"])
    with zipfile.ZipFile(path) as archive:
        members = {info.filename for info in archive.infolist()} - {MANIFEST}
        listed = {entry["name"] for entry in manifest["files"]}
        if members != listed:
            extra, missing = sorted(members - listed), sorted(listed - members)
            raise ModelFileError(f"{path}: its files are not those its {MANIFEST} names"
                                 + (f" (not named: {', '.join(extra)})" if extra else "")
                                 + (f" (missing: {', '.join(missing)})" if missing else ""))
        for entry in manifest["files"]:  # every file checked before any is written
            size, digest = _member_digest(archive, entry["name"], path)
            if (size, digest) != (entry["size"], entry["sha256"]):
                raise ModelFileError(f"{path}: {entry['name']} is not the file its {MANIFEST} names ({size:,} bytes, "
                                     f"SHA-256 {digest[:12]}..., expected {entry['size']:,} and "
                                     f"{entry['sha256'][:12]}...): the archive is damaged; nothing was written")
        actions = []
        for entry in manifest["files"]:
            target = folder / entry["name"]
            if not target.exists():
                actions.append((entry["name"], "written"))
            elif target.is_file() and sha256_of(target) == entry["sha256"]:
                actions.append((entry["name"], "already there"))
            else:
                actions.append((entry["name"], "replaced"))
        clashes = [name for name, what in actions if what == "replaced"]
        if clashes and not replace:
            raise SettingError(f"{folder} already holds {', '.join(clashes)} with other contents (models of your own "
                               "build?): nothing was written; move them away, or unpack with --replace")
        for name, what in actions:
            if what != "already there":
                with atomic_path(folder / name) as temporary, archive.open(name) as member, \
                        open(temporary, "wb") as out:
                    while chunk := member.read(CHUNK_BYTES):
                        out.write(chunk)
    return actions


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


def _member_digest(archive: zipfile.ZipFile, name: str, path: Path) -> tuple[int, str]:
    digest, size = hashlib.sha256(), 0
    try:
        with archive.open(name) as member:
            while chunk := member.read(CHUNK_BYTES):
                digest.update(chunk)
                size += len(chunk)
    except (zipfile.BadZipFile, OSError, EOFError) as exc:  # a bad CRC, a cut archive
        raise ModelFileError(f"{path}: {name} cannot be read ({exc}): the archive is damaged; nothing was written") \
            from None
    return size, digest.hexdigest()


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
