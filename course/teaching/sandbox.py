"""The student kernel's sandbox: what the grader does so that a student's code cannot reach the grade.

``python -m course.teaching.sandbox [options] -- KERNEL ARGV ...`` prepares its own process and then becomes
the kernel (``exec``), so everything below holds for the kernel and for every process it starts:

- **its own session**, so the grader can stop the kernel and its children together;
- **limits** (``setrlimit``): address space (``--memory``), CPU seconds (``--cpu-time``), processes and
  threads of its user (``--processes``), file size, no core files;
- **hidden folders** (``--hide``): in a private mount namespace an empty read-only ``tmpfs`` is
  mounted over each, so the teacher's notebooks and the grader's private folder (the checking
  kernel's connection file among them) do not exist for the student's code. This needs root or
  unprivileged user namespaces; where neither is available the folders stay visible;
- **another user** when the grader runs as root: the kernel runs as ``nobody``, so it can read only
  what every user may read and write only its own home (``--home``), and cannot signal, trace or
  read the memory of the grader or of the checking kernel.

It does not stop network access, and without root a kernel of the grader's own user can still read
and write whatever that user can outside the hidden folders: the grader then checks afterwards that
neither the teacher's notebooks nor any code the checks loaded changed while grading, and refuses
the grade if one did (see :mod:`course.teaching.grading`).

:func:`kernel_spec` writes the Jupyter kernel spec that starts a kernel this way;
:func:`descendants` and :func:`stop_new_descendants` find and stop every process the kernel left
behind, detached ones included (the grader makes itself their subreaper).
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import resource
import shutil
import signal
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

CLONE_NEWNS, CLONE_NEWUSER = 0x00020000, 0x10000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_BIND, MS_REC, MS_PRIVATE = 1, 2, 4, 4096, 0x4000, 1 << 18
PR_SET_DUMPABLE, PR_SET_CHILD_SUBREAPER = 4, 36
STATUS_FILE = "sandbox.json"


@dataclass(frozen=True)
class Limits:
    """What one student kernel may use: bytes of address space, CPU seconds, processes and threads
    (of its user), and bytes per file written."""

    memory: int = 8 << 30
    cpu_seconds: int = 1_800
    processes: int = 256
    file_size: int = 2 << 30


def parse_size(text: str) -> int:
    """``"8G"``, ``"512M"``, ``"100000K"`` or a number of bytes -> bytes."""
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
    text = str(text).strip().upper().removesuffix("B").removesuffix("I")
    factor = units.get(text[-1:], 1)
    number = float(text[:-1] if text[-1:] in units else text)
    if not number > 0:
        raise ValueError(f"a size must be positive, got {text!r}")
    return int(number * factor)


def _libc():
    return ctypes.CDLL(None, use_errno=True)


def prctl(option: int, value: int) -> bool:
    """``prctl(option, value)`` on Linux; False elsewhere or when it fails."""
    if not sys.platform.startswith("linux"):
        return False
    return _libc().prctl(option, value, 0, 0, 0) == 0


def _hide(folders: list[str]) -> bool:
    """A private mount namespace with an empty read-only tmpfs over each folder; False if not possible."""
    if not folders or not sys.platform.startswith("linux"):
        return False
    libc = _libc()
    uid, gid = os.getuid(), os.getgid()
    if uid != 0:
        if libc.unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0:
            return False
        try:
            Path("/proc/self/setgroups").write_text("deny")
            Path("/proc/self/uid_map").write_text(f"{uid} {uid} 1")
            Path("/proc/self/gid_map").write_text(f"{gid} {gid} 1")
        except OSError:
            return False
    elif libc.unshare(CLONE_NEWNS) != 0:
        return False
    if libc.mount(b"none", b"/", None, MS_REC | MS_PRIVATE, None) != 0:
        return False
    hidden = True
    for folder in folders:
        if Path(folder).is_dir():
            hidden &= libc.mount(b"tmpfs", os.fsencode(folder), b"tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV,
                                 b"size=4k,mode=0555") == 0
    return hidden


def _reachable(paths: list[str]) -> bool:
    """Make ``paths`` reachable by any user inside this mount namespace: a private folder above them (``/root``
    with mode 0700, where pyenv keeps Python) is covered by an open tmpfs with only the needed folder bound back."""
    libc = _libc()
    needed: dict[str, set[str]] = {}
    for path in paths:
        parts = Path(os.path.realpath(path)).parts
        for depth in range(1, len(parts) - 1):
            folder = Path(*parts[:depth + 1])
            if not os.stat(folder).st_mode & 0o001:
                needed.setdefault(str(folder), set()).add(parts[depth + 1])
                break
    for folder, children in needed.items():
        handles = {child: os.open(os.path.join(folder, child), os.O_PATH) for child in children}
        if libc.mount(b"tmpfs", os.fsencode(folder), b"tmpfs", MS_NOSUID | MS_NODEV, b"size=64k,mode=0755") != 0:
            return False
        for child, handle in handles.items():
            os.mkdir(os.path.join(folder, child))
            if libc.mount(os.fsencode(f"/proc/self/fd/{handle}"), os.fsencode(os.path.join(folder, child)), None,
                          MS_BIND | MS_REC, None) != 0:
                return False
            os.close(handle)
    return True


def _limit(limits: Limits, uid: int) -> None:
    resource.setrlimit(resource.RLIMIT_AS, (limits.memory, limits.memory))
    resource.setrlimit(resource.RLIMIT_CPU, (limits.cpu_seconds, limits.cpu_seconds + 5))
    resource.setrlimit(resource.RLIMIT_FSIZE, (limits.file_size, limits.file_size))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    processes = limits.processes + (0 if uid == 65534 else _tasks_of(uid))  # the user's threads count too
    resource.setrlimit(resource.RLIMIT_NPROC, (processes, processes))


def _tasks_of(uid: int) -> int:
    count = 0
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if entry.stat().st_uid == uid:
                    count += len(os.listdir(entry / "task"))
            except OSError:
                continue
    return count


def _run(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="python -m course.teaching.sandbox")
    parser.add_argument("--memory", type=int, default=Limits.memory)
    parser.add_argument("--cpu-time", type=int, default=Limits.cpu_seconds)
    parser.add_argument("--processes", type=int, default=Limits.processes)
    parser.add_argument("--file-size", type=int, default=Limits.file_size)
    parser.add_argument("--home", required=True)
    parser.add_argument("--hide", action="append", default=[])
    parser.add_argument("--connection-file", required=True)
    parser.add_argument("kernel", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    kernel = [part for part in args.kernel if part != "--"]
    try:
        os.setsid()
    except PermissionError:  # already the leader of its own session
        pass
    home = Path(args.home)
    connection = home / "kernel.json"
    shutil.copyfile(args.connection_file, connection)  # read while it may still be read
    user = None
    if os.getuid() == 0:
        import pwd

        user = pwd.getpwnam("nobody")
        for path in (home, connection):
            os.chown(path, user.pw_uid, user.pw_gid)
    hidden = _hide(args.hide)
    if user is not None and not (hidden and _reachable([sys.executable, sys.prefix, sys.base_prefix, str(home),
                                                          str(Path(__file__).resolve().parents[1])])):
        user = None  # Python is out of reach of other users: the kernel keeps the grader's user
    limits = Limits(args.memory, args.cpu_time, args.processes, args.file_size)
    if user is not None:
        os.setgroups([])
        os.setgid(user.pw_gid)
        os.setuid(user.pw_uid)
    _limit(limits, os.getuid())
    status = {"uid": os.getuid(), "hidden": hidden, "folders": args.hide, "limits": asdict(limits)}
    (home / STATUS_FILE).write_text(json.dumps(status), encoding="utf-8")
    for name in ("HOME", "IPYTHONDIR", "MPLCONFIGDIR", "JUPYTER_RUNTIME_DIR", "JUPYTER_DATA_DIR", "XDG_CACHE_HOME",
                 "XDG_CONFIG_HOME", "TMPDIR"):
        os.environ[name] = str(home)
    os.environ["COURSE_BUILD"] = str(home / "build")
    os.chdir(home)
    kernel = [str(connection) if part == args.connection_file else part for part in kernel]
    os.execv(kernel[0], kernel)


def kernel_spec(folder: Path, home: Path, connection_file: Path, hide: list[Path], limits: Limits) -> Path:
    """Write ``folder/kernels/course-sandbox/kernel.json`` for a kernel started through this module."""
    argv = [sys.executable, "-m", "course.teaching.sandbox", "--memory", str(limits.memory), "--cpu-time",
            str(limits.cpu_seconds), "--processes", str(limits.processes), "--file-size", str(limits.file_size),
            "--home", str(home), "--connection-file", str(connection_file)]
    for path in hide:
        argv += ["--hide", str(path)]
    argv += ["--", sys.executable, "-m", "ipykernel_launcher", "-f", str(connection_file)]
    spec = folder / "kernels" / "course-sandbox"
    spec.mkdir(parents=True, exist_ok=True)
    (spec / "kernel.json").write_text(json.dumps({"argv": argv, "display_name": "course sandbox",
                                                  "language": "python"}), encoding="utf-8")
    return folder / "kernels"


# ---------------------------------------------------------------------------------- leftovers


def _processes() -> dict[int, tuple[int, str]]:
    """Every process: pid -> (parent pid, start time)."""
    table = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        table[int(entry.name)] = (int(fields[1]), fields[19])
    return table


def descendants(root: int | None = None) -> set[tuple[int, str]]:
    """``(pid, start time)`` of every process below ``root`` (default this one)."""
    if not Path("/proc/self/stat").exists():
        return set()
    root = os.getpid() if root is None else root
    table = _processes()
    children: dict[int, list[int]] = {}
    for pid, (parent, _) in table.items():
        children.setdefault(parent, []).append(pid)
    found, stack = set(), [root]
    while stack:
        for child in children.get(stack.pop(), []):
            found.add((child, table[child][1]))
            stack.append(child)
    return found


def stop_new_descendants(before: set[tuple[int, str]], seconds: float = 10.0) -> int:
    """Kill every process below this one that was not in ``before``, until none is left; the number killed.

    A process that detached itself (a double fork, a new session) still comes back here, because
    :func:`course.teaching.grading.grade_notebook` makes the grader the subreaper of its descendants.
    """
    killed: set[int] = set()
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        new = {pid for pid, start in descendants() - before}
        alive = new - {pid for pid in new if _zombie(pid)}
        for pid in alive:
            try:
                os.kill(pid, signal.SIGKILL)
                killed.add(pid)
            except ProcessLookupError:
                pass
        for pid in new:
            try:
                os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                pass
        if not alive:
            break
        time.sleep(0.05)
    return len(killed)


def _zombie(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return stat[stat.rindex(")") + 2:].split()[0] in ("Z", "X")


if __name__ == "__main__":
    _run(sys.argv[1:])
