"""Writing the course's files: each one whole or not at all (:func:`atomic_path`), every output checked
before any work is done (:func:`check_writable`, :func:`refuse_overlaps`) and held for the run that
writes it (:func:`claim_output`), and one line saying why a write failed (:func:`write_failure`)."""

from __future__ import annotations

import errno
import glob
import os
import shutil
import stat
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from .errors import CourseError, OutputFileError


def check_writable(path: str | os.PathLike, what: str = "output") -> Path:
    """Refuse, before any work is done, an output ``path`` that names a folder or lies where no file
    can be made (under a file, or in a folder this process may not write); returns it as a Path.

    Raises:
        OutputFileError: one line naming ``path`` and what is wrong.
    """
    target = Path(path)
    if target.is_dir():
        raise OutputFileError(f"{target} is a folder: give a file name for the {what}")
    folder = target.parent
    while not folder.exists() and folder != folder.parent:  # atomic_path makes the missing folders
        folder = folder.parent
    if not folder.is_dir():
        raise OutputFileError(f"{target}: cannot write the {what} there, {folder} is a file, not a folder")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise OutputFileError(f"{target}: cannot write the {what} there, the folder {folder} is not writable")
    return target


def _same_file(a: Path, b: Path) -> bool:
    """The same file after resolving links, or the same inode (a hard link)."""
    if a.resolve() == b.resolve():
        return True
    try:
        return a.exists() and b.exists() and os.path.samefile(a, b)
    except OSError:
        return False


def refuse_overlaps(inputs, outputs) -> None:
    """The one rule for every command's paths, checked before anything is read or written: refuse an
    output that is the same file as an input or as another output (after resolving links, or the
    same inode), that lies inside an input folder, or that is a folder an input lies in.

    Args:
        inputs, outputs: ``(flag, path)`` pairs; a path of None or ``-`` (standard output) is left out,
            and an input that does not exist (a named corpus, a URL) cannot be written over.

    Raises:
        OutputFileError: one line naming both paths and their flags.
    """
    def given(pairs):
        return [(flag, Path(path)) for flag, path in pairs if path is not None and str(path) != "-"]

    sources = [(flag, path) for flag, path in given(inputs) if path.exists()]
    targets = given(outputs)
    for number, (flag, target) in enumerate(targets):
        for other_flag, other in targets[:number]:
            if _same_file(target, other):
                raise OutputFileError(f"{flag} {target} and {other_flag} {other} are the same file: give each "
                                      "output its own")
        for source_flag, source in sources:
            if _same_file(target, source):
                raise OutputFileError(f"{flag} {target} would be written over the input {source_flag} {source}: "
                                      "give another file")
            if source.is_dir() and target.resolve().is_relative_to(source.resolve()):
                raise OutputFileError(f"{flag} {target} lies inside the input folder {source_flag} {source}: "
                                      "write it somewhere else")
            if source.resolve().is_relative_to(target.resolve()):
                raise OutputFileError(f"{flag} {target} is a folder that holds the input {source_flag} {source}, "
                                      "and would be written over it: give another folder")


_CLAIMS: dict[Path, tuple[int, Path]] = {}  # outputs this process holds: (locked handle, lock file)


def claim_output(path: str | os.PathLike, what: str = "output") -> Path:
    """Refuse ``path`` as :func:`check_writable` does, then hold it for this run: an advisory lock on
    a lock file beside it (``.NAME.lock``), held until :func:`release_outputs` or the process ends,
    so that a second run given the same output refuses at its start instead of both running to the
    end and one result being silently lost. A path this process already holds is held once.

    Raises:
        OutputFileError: the path cannot be written, or another process holds it (the message
            names that process).
    """
    target = check_writable(path, what)
    key = Path(os.path.abspath(target))
    if key in _CLAIMS:
        return target
    lock = key.parent / f".{key.name}.lock"
    try:
        key.parent.mkdir(parents=True, exist_ok=True)
        while True:
            handle = os.open(lock, os.O_RDWR | os.O_CREAT, 0o666)
            if not _lock(handle):
                holder = _lock_holder(handle)
                os.close(handle)
                if holder is None:  # no advisory locks here (Windows, some network drives)
                    return target
                raise OutputFileError(f"{target}: another run is writing this {what} now{holder}; wait for it "
                                      f"to end, or give another file")
            try:  # the holder before us may have deleted the lock file as it released it: lock afresh
                same = os.path.samestat(os.fstat(handle), os.stat(lock))
            except FileNotFoundError:
                same = False
            if same:
                break
            os.close(handle)
        os.ftruncate(handle, 0)
        os.write(handle, str(os.getpid()).encode())
    except OSError as exc:
        if isinstance(exc, OutputFileError):
            raise
        raise OutputFileError(f"{target}: cannot write the {what} there ({exc.strerror or exc})") from None
    _CLAIMS[key] = (handle, lock)
    return target


def release_outputs() -> None:
    """Give back every output :func:`claim_output` holds, deleting the lock files."""
    while _CLAIMS:
        _, (handle, lock) = _CLAIMS.popitem()
        try:
            lock.unlink(missing_ok=True)  # while still locked, so no one locks a file about to vanish
        except OSError:
            pass
        os.close(handle)


def _lock_holder(handle: int) -> str | None:
    """Where another process holds the lock on ``handle``: `` (process N)`` as the lock file names its
    holder, or ``""``; None where the file is not locked (this system has no advisory locks)."""
    try:
        import fcntl

        fcntl.flock(handle, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except ImportError:
        return None
    except BlockingIOError:
        try:
            pid = os.pread(handle, 32, 0).decode().strip()
        except (OSError, UnicodeDecodeError):
            return ""
        return f" (process {pid})" if pid.isdigit() else ""
    except OSError:
        return None
    return ""  # free a moment later: the holder has just ended; say so as held all the same


@contextmanager
def atomic_path(path: str | os.PathLike, suffix: str = "") -> Iterator[Path]:
    """Yield a temporary path beside ``path``; on success rename it to ``path``, on error delete it.

    Whatever is written through it appears at ``path`` whole or not at all, with the mode the
    umask allows (``0o666 & ~umask``, as a plain ``open`` would give). The temporary file
    (``.NAME.XXXXXXXX.part``) is locked while it is written; one left behind by a write that was
    killed is no longer locked, and the next write of the same ``path`` deletes it.

    Every write of the course goes through here, so a disk that fills up, a folder that becomes
    read-only or one that vanishes while the file is written (``OSError`` with ``ENOSPC``,
    ``EDQUOT``, ``EROFS``, ``ENOENT`` or ``EACCES``, or the ``RuntimeError`` of torch's zip writer)
    ends the same way for every file: one line naming ``path``, nothing left behind.

    Raises:
        OutputFileError: ``path`` is a folder, or no file can be made beside it, or the write
            failed for one of the reasons above (the message names ``path``, not the temporary file).
    """
    target = Path(path)
    if target.is_dir():
        raise OutputFileError(f"{target} is a folder: give a file name")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        _remove_stale_parts(target, suffix)
        handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=suffix + ".part")
    except (FileExistsError, NotADirectoryError):  # a file where a folder should be
        blocker = next(folder for folder in target.parents if folder.exists())
        raise OutputFileError(f"{target}: cannot write here, {blocker} is a file, not a folder") from None
    except OSError as exc:
        raise OutputFileError(f"{target}: cannot write in the folder {target.parent} ({exc.strerror or exc})") from None
    temporary = Path(temporary)
    locked = _lock(handle)
    if not locked:
        os.close(handle)
    try:
        yield temporary
        os.chmod(temporary, 0o666 & ~process_umask())
        try:
            os.replace(temporary, target)
        except OSError as exc:
            raise OutputFileError(f"{target}: cannot write here ({exc.strerror or exc})") from None
    except BaseException as exc:
        temporary.unlink(missing_ok=True)
        failure = write_failure(target, exc)
        if failure is not None:
            raise failure from None
        raise
    finally:
        if locked:
            os.close(handle)


WRITE_ERRNOS = {errno.ENOSPC: "the disk is full", errno.EDQUOT: "the disk quota is used up",
                errno.EROFS: "the folder is on a read-only file system", errno.ENOENT: "the folder vanished",
                errno.EACCES: "the folder is not writable"}


TORCH_WRITER_MARKS = ("inline_container", "PytorchStreamWriter", "unexpected pos", "file write failed")


def write_failure(target: str | os.PathLike, exc: BaseException) -> OutputFileError | None:
    """The one-line :class:`OutputFileError` that says why writing ``target`` failed with ``exc``, or
    None where ``exc`` is not a failure of the write itself (a mistake of the caller's, an interrupt).

    ``OSError`` says why in its ``errno``; torch's zip writer raises a ``RuntimeError`` that does
    not (``[enforce fail at inline_container.cc:...] . unexpected pos ...``), so the folder is
    looked at: gone, read-only, or short of space.
    """
    target = Path(target)
    if isinstance(exc, CourseError):
        return None
    if isinstance(exc, OSError) and exc.errno in WRITE_ERRNOS:
        reason = WRITE_ERRNOS[exc.errno]
        if exc.errno == errno.ENOENT and target.parent.is_dir():
            return None  # something else was missing (a file read while writing): not the write's fault
    elif isinstance(exc, RuntimeError) and any(mark in str(exc) for mark in TORCH_WRITER_MARKS):
        reason = _folder_state(target.parent)
    else:
        return None
    return OutputFileError(f"{target}: could not be written, {reason} ({target.parent}); nothing was written")


def _folder_state(folder: Path) -> str:
    """Why a write in ``folder`` may have failed, as :data:`WRITE_ERRNOS` says it."""
    if not folder.is_dir():
        return WRITE_ERRNOS[errno.ENOENT]
    if not os.access(folder, os.W_OK | os.X_OK):
        return WRITE_ERRNOS[errno.EACCES]
    try:
        if shutil.disk_usage(folder).free < 64 * 1024 * 1024:
            return WRITE_ERRNOS[errno.ENOSPC]
    except OSError:
        pass
    return "the write failed (a full disk, a quota or a failing drive)"


def _lock(handle: int) -> bool:
    """Take an exclusive lock on the open file ``handle`` (held until it is closed, or the process
    ends however it ends); False where there are no such locks (Windows, some network drives)."""
    try:
        import fcntl

        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except (ImportError, OSError):
        return False
    return True


def _remove_stale_parts(target: Path, suffix: str) -> None:
    """Delete the temporary files of ``target`` that killed writes left: those no process holds locked."""
    pattern = f".{glob.escape(target.name)}.{'?' * 8}{glob.escape(suffix)}.part"  # mkstemp: 8 random letters
    for part in target.parent.glob(pattern):
        try:
            handle = os.open(part, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        except OSError:
            continue
        try:
            if stat.S_ISREG(os.fstat(handle).st_mode) and _lock(handle):  # locked: a write in progress
                part.unlink(missing_ok=True)
        finally:
            os.close(handle)


def process_umask() -> int:
    """The process's umask, read without changing it where the system tells it (Linux)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def save_json(path: str | os.PathLike, payload) -> Path:
    """Write ``payload`` as indented JSON to ``path``, whole or not at all (:func:`atomic_path`), so that
    a notebook that reads it while another saves it never reads half of it."""
    import json

    with atomic_path(path) as temporary:
        temporary.write_text(json.dumps(payload, indent=1), encoding="utf-8")
    return Path(path)
