"""Cached, checksummed, atomic downloads with a progress bar.

A file is fetched once into ``data/cache/downloads/``; its size and SHA-256 (or, where only that is
published, its MD5) are checked while it streams in, and it appears under its final name only when
they match. An interrupted or corrupt download leaves nothing behind but an error; a large file
marked ``resumable`` keeps what arrived beside it (``.NAME.partial``), and the next fetch asks for
the rest only (an HTTP range request; a server that ignores it sends the whole file again). A file
with mirrors is fetched from the first place that gives the right bytes.
"""

from __future__ import annotations

import hashlib
import http.client
import os
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from ..core.errors import ChecksumError, DownloadError
from ..core.io import atomic_path
from ..core.paths import cache_dir
from ..core.progress import progress_bar

CHUNK_BYTES = 1 << 20


@dataclass(frozen=True)
class RemoteFile:
    """A file on the web and what it must be: its exact size and, where known, its SHA-256 (``md5``
    where only an MD5 is published).

    ``members`` maps a file inside a zip archive to that member's SHA-256, checked on extraction.
    ``mirrors``: other URLs of the same file, tried in turn when one fails. ``resumable``: a download
    cut short keeps its bytes, and the next fetch continues from them.
    """

    url: str
    filename: str
    size: int | None = None
    sha256: str | None = None
    members: dict[str, str] = field(default_factory=dict)
    md5: str | None = None
    mirrors: tuple[str, ...] = ()
    resumable: bool = False


def sha256_of(path: str | Path, algorithm: str = "sha256") -> str:
    """Hex SHA-256 (or another ``hashlib`` algorithm's digest) of a file, read in 1 MiB chunks."""
    digest = hashlib.new(algorithm)
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(CHUNK_BYTES), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _expected(remote: RemoteFile) -> dict[str, str]:
    return {name: value for name, value in (("sha256", remote.sha256), ("md5", remote.md5)) if value is not None}


def _matches(path: Path, remote: RemoteFile) -> bool:
    if remote.size is not None and path.stat().st_size != remote.size:
        return False
    return all(sha256_of(path, name) == value for name, value in _expected(remote).items())


def fetch(remote: RemoteFile, directory: str | Path | None = None, progress: bool = True,
          timeout: float = 60.0) -> Path:
    """Return the local path of ``remote``, downloading it first unless a verified copy is cached.

    The URL is tried first, then each mirror in turn; the first download that verifies is kept.

    Raises:
        DownloadError: no place could be reached or each answered with an error status.
        ChecksumError: what arrived has the wrong size or checksum (nothing is kept).
    """
    directory = Path(directory) if directory is not None else cache_dir() / "downloads"
    target = directory / remote.filename
    if target.is_file() and _matches(target, remote):
        return target
    failures: list[DownloadError | ChecksumError] = []
    for url in (remote.url, *remote.mirrors):
        try:
            return _download(url, remote, target, progress, timeout)
        except (DownloadError, ChecksumError) as exc:
            failures.append(exc)
    if len(failures) == 1:
        raise failures[0]
    kind = ChecksumError if all(isinstance(f, ChecksumError) for f in failures) else DownloadError
    raise kind(f"{remote.filename}: every place failed: " + "; ".join(str(f) for f in failures)) from None


def partial_path(target: Path) -> Path:
    """Where a resumable download of ``target`` keeps the bytes that have arrived."""
    return target.with_name(f".{target.name}.partial")


def _open(url: str, target: Path, timeout: float, offset: int = 0):
    """The response to a GET of ``url`` (from byte ``offset`` on, where it is not 0)."""
    request = urllib.request.Request(url, headers={"Range": f"bytes={offset}-"} if offset else {})
    try:
        return urllib.request.urlopen(request, timeout=timeout)
    except (urllib.error.URLError, OSError) as exc:
        if offset and getattr(exc, "code", None) == 416:  # the range is past the end: begin again
            return _open(url, target, timeout)
        reason = getattr(exc, "reason", exc)
        raise DownloadError(
            f"could not download {url} ({reason}); check the network, or put the file at {target}"
        ) from None


def _stream(response, out, digests: dict, url: str, remote: RemoteFile, target: Path, progress: bool,
            timeout: float, received: int = 0) -> int:
    """Copy ``response`` into the open file ``out`` with a progress bar, feeding ``digests``; the
    bytes received in all (``received`` before this response included)."""
    length = response.headers.get("Content-Length")
    total = received + int(length) if length and length.isdigit() else remote.size
    with progress_bar(total=total, initial=received, unit="B", unit_scale=True, desc=remote.filename,
                      disable=not progress) as bar:
        while chunk := _read(response, url, received, timeout, target):
            out.write(chunk)
            for digest in digests.values():
                digest.update(chunk)
            received += len(chunk)
            bar.update(len(chunk))
    out.flush()
    return received


def _verify(url: str, remote: RemoteFile, received: int, digests: dict) -> None:
    if remote.size is not None and received != remote.size:
        raise ChecksumError(
            f"{url}: received {received:,} bytes, expected {remote.size:,}; the download was "
            "cut short or the file changed upstream (nothing was kept, try again)"
        )
    for name, value in _expected(remote).items():
        if digests[name].hexdigest() != value:
            raise ChecksumError(
                f"{url}: {name.upper().replace('SHA', 'SHA-')} {digests[name].hexdigest()} does not match the "
                f"expected {value} (nothing was kept; the file changed upstream or the download was corrupted)"
            )


def _download(url: str, remote: RemoteFile, target: Path, progress: bool, timeout: float) -> Path:
    if remote.resumable:
        return _download_resumable(url, remote, target, progress, timeout)
    response = _open(url, target, timeout)
    digests = {name: hashlib.new(name) for name in ("sha256", "md5")}
    with response, atomic_path(target) as temporary, open(temporary, "wb") as out:
        received = _stream(response, out, digests, url, remote, target, progress, timeout)
        _verify(url, remote, received, digests)
    return target


def _download_resumable(url: str, remote: RemoteFile, target: Path, progress: bool, timeout: float) -> Path:
    """:func:`_download` that keeps what arrived in :func:`partial_path` when the transfer breaks,
    and continues from it."""
    partial = partial_path(target)
    offset = partial.stat().st_size if partial.is_file() else 0
    response = _open(url, target, timeout, offset)
    resumed = offset > 0 and response.status == 206 and \
        response.headers.get("Content-Range", "").startswith(f"bytes {offset}-")
    digests = {name: hashlib.new(name) for name in ("sha256", "md5")}
    if resumed:
        with open(partial, "rb") as kept:
            for chunk in iter(lambda: kept.read(CHUNK_BYTES), b""):
                for digest in digests.values():
                    digest.update(chunk)
    partial.parent.mkdir(parents=True, exist_ok=True)
    received = offset if resumed else 0
    length = response.headers.get("Content-Length")
    expected = received + int(length) if length and length.isdigit() else remote.size
    broke_off = False
    try:
        with response, open(partial, "ab" if resumed else "wb") as out:
            received = _stream(response, out, digests, url, remote, target, progress, timeout, received)
    except DownloadError:
        broke_off = True
    if broke_off or (expected is not None and received < expected):  # the connection closed early
        kept = partial.stat().st_size if partial.is_file() else 0
        raise DownloadError(f"download of {url} broke off after {kept:,} bytes, which are kept in {partial}: run the "
                            "same command again to continue from there")
    try:
        _verify(url, remote, received, digests)
    except ChecksumError:
        partial.unlink(missing_ok=True)
        raise
    os.replace(partial, target)
    return target


def _read(response, url: str, received: int, timeout: float, target: Path) -> bytes:
    """The next chunk of a download; a stall or a broken connection as a :class:`DownloadError` that
    names the URL (nothing is kept)."""
    try:
        return response.read1(CHUNK_BYTES)  # what has arrived, up to a chunk: a stall is seen where it begins
    except (TimeoutError, OSError, http.client.HTTPException) as exc:
        what = f"nothing arrived for {timeout:g} s" if isinstance(exc, TimeoutError) else f"{exc or type(exc).__name__}"
        raise DownloadError(f"download of {url} failed after {received:,} bytes ({what}); nothing was kept: "
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


def member_lines(archive: Path, member: str, remote: RemoteFile) -> Iterator[str]:
    """The lines of the UTF-8 text ``member`` of the zip ``archive``, read as a stream (for members too
    large to hold at once); its SHA-256, where ``remote.members`` gives one, is checked at the end and a
    mismatch raises :class:`ChecksumError` before the last line is given."""
    import io
    import zipfile

    digest = hashlib.sha256()
    try:
        with zipfile.ZipFile(archive) as zipped, zipped.open(member) as raw:
            pending = None
            for line in io.TextIOWrapper(raw, encoding="utf-8", newline=""):  # newline="": the bytes as they are
                digest.update(line.encode("utf-8"))
                if pending is not None:
                    yield pending
                pending = line
    except (zipfile.BadZipFile, KeyError) as exc:
        raise ChecksumError(f"{archive}: not a zip archive holding {member} ({exc}); delete it and retry") from None
    expected = remote.members.get(member)
    if expected is not None and digest.hexdigest() != expected:
        raise ChecksumError(f"{archive}: {member} has the wrong SHA-256; delete {archive} and download it again")
    if pending is not None:
        yield pending

