"""Cached, checksummed, atomic downloads with a progress bar.

A file is fetched once into ``data/cache/downloads/``; its size and SHA-256 are checked while it
streams in, and it appears under its final name only when both match. An interrupted or corrupt
download leaves nothing behind but an error.
"""

from __future__ import annotations

import hashlib
import http.client
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

from tqdm.auto import tqdm

from .errors import ChecksumError, DownloadError
from .paths import atomic_path, cache_dir

CHUNK_BYTES = 1 << 20


@dataclass(frozen=True)
class RemoteFile:
    """A file on the web and what it must be: its exact size and, where known, its SHA-256.

    ``members`` maps a file inside a zip archive to that member's SHA-256, checked on extraction.
    """

    url: str
    filename: str
    size: int | None = None
    sha256: str | None = None
    members: dict[str, str] = field(default_factory=dict)


def sha256_of(path: str | Path) -> str:
    """Hex SHA-256 of a file, read in 1 MiB chunks."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(CHUNK_BYTES), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _matches(path: Path, remote: RemoteFile) -> bool:
    if remote.size is not None and path.stat().st_size != remote.size:
        return False
    return remote.sha256 is None or sha256_of(path) == remote.sha256


def fetch(remote: RemoteFile, directory: str | Path | None = None, progress: bool = True,
          timeout: float = 60.0) -> Path:
    """Return the local path of ``remote``, downloading it first unless a verified copy is cached.

    Raises:
        DownloadError: the server could not be reached or answered with an error status.
        ChecksumError: what arrived has the wrong size or SHA-256 (nothing is kept).
    """
    directory = Path(directory) if directory is not None else cache_dir() / "downloads"
    target = directory / remote.filename
    if target.is_file() and _matches(target, remote):
        return target
    try:
        response = urllib.request.urlopen(remote.url, timeout=timeout)
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        raise DownloadError(
            f"could not download {remote.url} ({reason}); check the network, or put the file at {target}"
        ) from None
    digest = hashlib.sha256()
    received = 0
    with response, atomic_path(target) as temporary, open(temporary, "wb") as out:
        length = response.headers.get("Content-Length")
        total = int(length) if length and length.isdigit() else remote.size
        with tqdm(total=total, unit="B", unit_scale=True, desc=remote.filename, disable=not progress) as bar:
            while chunk := _read(response, remote, received, timeout, target):
                out.write(chunk)
                digest.update(chunk)
                received += len(chunk)
                bar.update(len(chunk))
        out.flush()
        if remote.size is not None and received != remote.size:
            raise ChecksumError(
                f"{remote.url}: received {received:,} bytes, expected {remote.size:,}; the download was "
                "cut short or the file changed upstream (nothing was kept, try again)"
            )
        if remote.sha256 is not None and digest.hexdigest() != remote.sha256:
            raise ChecksumError(
                f"{remote.url}: SHA-256 {digest.hexdigest()} does not match the expected {remote.sha256} "
                "(nothing was kept; the file changed upstream or the download was corrupted)"
            )
    return target


def _read(response, remote: RemoteFile, received: int, timeout: float, target: Path) -> bytes:
    """The next chunk of a download; a stall or a broken connection as a :class:`DownloadError` that
    names the URL (nothing is kept)."""
    try:
        return response.read1(CHUNK_BYTES)  # what has arrived, up to a chunk: a stall is seen where it begins
    except (TimeoutError, OSError, http.client.HTTPException) as exc:
        what = f"nothing arrived for {timeout:g} s" if isinstance(exc, TimeoutError) else f"{exc or type(exc).__name__}"
        raise DownloadError(f"download of {remote.url} failed after {received:,} bytes ({what}); nothing was kept: "
                            f"try again, or put the file at {target}") from None


def read_member(archive: Path, member: str, remote: RemoteFile) -> bytes:
    """The bytes of ``member`` inside the zip ``archive``, checked against ``remote.members``."""
    import zipfile

    try:
        with zipfile.ZipFile(archive) as zipped:
            data = zipped.read(member)
    except (zipfile.BadZipFile, KeyError) as exc:
        raise ChecksumError(f"{archive}: not a zip archive holding {member} ({exc}); delete it and retry") from None
    expected = remote.members.get(member)
    if expected is not None and hashlib.sha256(data).hexdigest() != expected:
        raise ChecksumError(f"{archive}: {member} has the wrong SHA-256; delete {archive} and download it again")
    return data
