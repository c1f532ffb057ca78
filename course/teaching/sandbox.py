"""The student kernel's sandbox: what the grader does so that a student's code cannot reach the grade.

``python -m course.teaching.sandbox [options] -- KERNEL ARGV ...`` prepares its own process and then becomes
the kernel (``exec``), so everything below holds for the kernel and for every process it starts:

- **its own session**, so the grader can stop the kernel and its children together;
- **limits** (``setrlimit``): memory (``--memory``, see :class:`Limits`: its address space and what it may
  keep in ``/tmp`` and ``/dev/shm`` together), CPU seconds (``--cpu-time``), processes and threads of its
  user (``--processes``), file size, no core files;
- **a root of its own** (Linux; root, or a user namespace where the grader is not root): in new mount
  and process-id namespaces the kernel's root is a ``tmpfs`` holding read-only only the system's folders
  (``/usr``, ``/etc``, ...), Python (its prefixes and ``sys.path``; of a checkout only the ``course``
  package) and the folders given with ``--allow`` (the corpora's cache), plus its home, a fresh ``/tmp``
  and ``/dev/shm`` (one ``tmpfs`` of a size taken out of ``--memory``) and its own ``/proc``; the old root is
  detached (``pivot_root``) and the new one made read-only. So no checkout, build folder,
  ``.git``, other user's file or the grader's private folder (the checking kernel's connection file)
  exists for the student's code; every ``*.ipynb`` inside the visible folders but the system's reads as
  empty, and ``--hide`` folders are covered by an empty ``tmpfs``. With ``--package`` the package there is
  that folder, a student version of it (:mod:`course.teaching.student_package`), bound where the package is
  (without a root of its own: first on ``PYTHONPATH``, and ``sandbox.json`` says the real one is reachable).
  Its processes see only each other, and the first of them ends them all when the kernel ends. Where neither
  root nor user namespaces are available, none of this holds and ``sandbox.json`` in its home says why;
- **another user** when the grader runs as root: the kernel runs as ``nobody``, so it can read only
  what every user may read and write only its own home (``--home``), and cannot signal, trace or
  read the memory of the grader or of the checking kernel.

It does not stop network access; notebooks under the system's folders are not looked for; without root
a kernel of the grader's own user could still write to the grader's files it can see: the grader
then checks afterwards that neither the teacher's notebooks nor any code the checks loaded changed
while grading, and refuses the grade if one did (see :mod:`course.teaching.grading`).

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

from ..core.errors import SettingError

CLONE_NEWNS, CLONE_NEWUSER = 0x00020000, 0x10000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_BIND, MS_REC, MS_PRIVATE = 1, 2, 4, 4096, 0x4000, 1 << 18
MS_NOEXEC, MS_REMOUNT, MNT_DETACH, CLONE_NEWPID = 8, 32, 2, 0x20000000
PR_SET_PDEATHSIG, PR_SET_DUMPABLE, PR_SET_CHILD_SUBREAPER = 1, 4, 36
PIVOT_ROOT = {"x86_64": 155, "aarch64": 41}  # the system call's number
SYSTEM_FOLDERS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc")
STATUS_FILE = "sandbox.json"
CONFIG_FOLDER = ".config-read-only"  # IPython's and Jupyter's configuration folder, an empty read-only tmpfs


SCRATCH_SHARE = 4  # /tmp and /dev/shm together may hold a quarter of the memory limit
# The least memory a student kernel is given. The sandboxed kernel with numpy and torch imported (and one torch
# operation run) starts with 1.3 GiB of address space and fails with 1.2 GiB (measured on two cores); 3G leaves
# it 2.25 GiB once the quarter for /tmp and /dev/shm is taken out. Below it no kernel starts and nothing is graded.
MIN_MEMORY = 3 << 30
MIN_MEMORY_TEXT = f"{MIN_MEMORY >> 30}G (a student kernel with numpy and torch needs about 1.3G of address space, " \
                  f"and a quarter of the limit holds /tmp and /dev/shm)"


@dataclass(frozen=True)
class Limits:
    """What one student kernel may use: bytes of memory, CPU seconds, processes and threads (of its user),
    and bytes per file written.

    ``memory`` bounds what each of its processes can put in memory: files in ``/tmp`` and ``/dev/shm`` live
    in memory (a ``tmpfs``), so the two share one of :attr:`scratch` bytes, a ``1/SCRATCH_SHARE`` of
    ``memory``, and each process's address space is limited to the rest (:attr:`address_space`). The two
    together never exceed ``memory``.
    """

    memory: int = 8 << 30
    cpu_seconds: int = 1_800
    processes: int = 256
    file_size: int = 2 << 30

    def __post_init__(self):
        if self.memory < MIN_MEMORY:
            raise SettingError(f"a memory limit of {self.memory:,} bytes is too small: it must be at least "
                               f"{MIN_MEMORY_TEXT}")

    @property
    def scratch(self) -> int:
        """Bytes that ``/tmp`` and ``/dev/shm`` may hold together."""
        return self.memory // SCRATCH_SHARE

    @property
    def address_space(self) -> int:
        """Bytes of address space of each process: ``memory`` less :attr:`scratch`."""
        return self.memory - self.scratch


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


def _namespaces() -> bool:
    """Private mount and process-id namespaces for the children of this process (with a user namespace of
    its own when not root); False where the kernel allows neither."""
    if not sys.platform.startswith("linux"):
        return False
    libc = _libc()
    uid, gid = os.getuid(), os.getgid()
    if uid == 0:
        return libc.unshare(CLONE_NEWNS | CLONE_NEWPID) == 0
    if libc.unshare(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID) != 0:
        return False
    try:
        Path("/proc/self/setgroups").write_text("deny")
        Path("/proc/self/uid_map").write_text(f"{uid} {uid} 1")
        Path("/proc/self/gid_map").write_text(f"{gid} {gid} 1")
    except OSError:
        return False
    return True


def _mount(source, target: str, kind=None, flags: int = 0, options=None) -> None:
    def encode(text):
        return None if text is None else os.fsencode(text)

    if _libc().mount(encode(source), encode(target), encode(kind), flags, encode(options)) != 0:
        error = ctypes.get_errno()
        raise OSError(error, f"mount {source} on {target}: {os.strerror(error)}")


def _visible_paths(allowed: list[str]) -> list[str]:
    """What the student kernel sees of the file system: the system's folders, Python (its prefixes and the
    folders on ``sys.path``, but no folder that holds this package's checkout: of a checkout only the package
    itself), the folders in ``allowed`` (the corpora's cache)."""
    package = Path(__file__).resolve().parents[1]
    paths = [*SYSTEM_FOLDERS, sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix,
             os.path.dirname(os.path.realpath(sys.executable)), str(package), *allowed]
    for entry in sys.path:
        if entry and os.path.isabs(entry) and not package.is_relative_to(os.path.realpath(entry)):
            paths.append(entry)
    return sorted({p for p in paths if os.path.lexists(p)})


def _enclose(stage: str, visible: list[str], home: str, hidden: list[str], scratch: int) -> None:
    """Make a new root in ``stage`` (a tmpfs) holding only ``visible`` (read-only), ``home`` (writable), a fresh
    ``/tmp`` and ``/dev/shm`` (two folders of one tmpfs of ``scratch`` bytes), ``/dev``, ``/sys`` and this
    process-id namespace's own ``/proc``; hide ``hidden`` folders and every notebook inside the visible folders
    that are not the system's; then make it the root (``pivot_root``), read-only, and detach the old one, so
    nothing else of the file system can be reached again. Raises OSError."""
    _mount("none", "/", None, MS_REC | MS_PRIVATE)
    _mount("tmpfs", stage, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755")

    def inside(path: str) -> str:
        return os.path.join(stage, path.lstrip("/"))

    def bind(source: str, read_only: bool) -> None:
        target = inside(source)
        if os.path.islink(source) and source in SYSTEM_FOLDERS:  # /bin -> usr/bin on a merged /usr
            os.makedirs(os.path.dirname(target), exist_ok=True)
            os.symlink(os.readlink(source), target)
            return
        real = os.path.realpath(source)
        if os.path.isdir(real):
            os.makedirs(target, exist_ok=True)
        else:
            os.makedirs(os.path.dirname(target), exist_ok=True)
            open(target, "a").close()
        _mount(real, target, None, MS_BIND | MS_REC)
        if read_only:
            try:
                _mount(None, target, None, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID)
            except OSError:  # a mount whose flags are locked: the user's permissions still hold
                pass

    temporary = _scratch(inside("/.scratch"), scratch)
    os.makedirs(inside("/tmp"), exist_ok=True)
    _mount(temporary["tmp"], inside("/tmp"), None, MS_BIND)
    for path in visible:
        bind(path, read_only=True)
    for special in ("/dev", "/sys"):
        bind(special, read_only=special == "/sys")
    _mount(temporary["shm"], inside("/dev/shm"), None, MS_BIND)  # over the system's /dev/shm, bound with /dev
    if _libc().umount2(os.fsencode(inside("/.scratch")), MNT_DETACH) != 0:
        raise OSError(ctypes.get_errno(), "detaching the scratch tmpfs")
    os.rmdir(inside("/.scratch"))
    os.makedirs(inside("/proc"), exist_ok=True)
    _mount("proc", inside("/proc"), "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    bind(home, read_only=False)
    _mount("tmpfs", inside(os.path.join(home, CONFIG_FOLDER)), "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV,
           "size=4k,mode=0555")
    for folder in hidden:
        if os.path.isdir(inside(folder)):
            _mount("tmpfs", inside(folder), "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV, "size=4k,mode=0555")
    for path in visible:
        if path not in SYSTEM_FOLDERS and os.path.isdir(path) and not os.path.islink(path):
            for notebook in Path(path).rglob("*.ipynb"):
                if notebook.is_file():
                    _mount("/dev/null", inside(str(notebook)), None, MS_BIND)
    os.chdir(stage)
    if _libc().syscall(PIVOT_ROOT.get(os.uname().machine, -1), b".", b".") != 0:
        raise OSError(ctypes.get_errno(), "pivot_root")
    if _libc().umount2(b".", MNT_DETACH) != 0:
        raise OSError(ctypes.get_errno(), "detaching the old root")
    os.chdir("/")
    # Nothing more is made in the root itself: read-only, it cannot hold what the scratch tmpfs may not.
    _mount(None, "/", None, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV)


def _scratch(where: str, size: int) -> dict[str, str]:
    """A tmpfs of ``size`` bytes at ``where`` holding the folders ``tmp`` and ``shm`` (writable by all, sticky),
    for ``/tmp`` and ``/dev/shm``: bound there, they share its size."""
    os.makedirs(where)
    _mount("tmpfs", where, "tmpfs", MS_NOSUID | MS_NODEV, f"size={size},mode=0755")
    folders = {}
    for name in ("tmp", "shm"):
        folders[name] = os.path.join(where, name)
        os.mkdir(folders[name])
        os.chmod(folders[name], 0o1777)
    return folders


def _show_package(copy: str) -> None:
    """Bind ``copy``, the student version of the package (:mod:`course.teaching.student_package`), over this
    package in this process's mount namespace (made private first, so that nothing reaches the grader's), so
    that the root :func:`_enclose` makes holds the copy where the package is. Raises OSError."""
    _mount("none", "/", None, MS_REC | MS_PRIVATE)
    _mount(os.path.realpath(copy), str(Path(__file__).resolve().parents[1]), None, MS_BIND | MS_REC)


def _package_status(copy: str | None, enclosed: bool) -> dict:
    """What ``sandbox.json`` says of the package the kernel imports as ``course``."""
    if not copy:
        return {"student_version": False, "real_package_reachable": True, "how": "the real package"}
    if enclosed:
        return {"student_version": True, "real_package_reachable": False,
                "how": f"{copy} bound in place of the package; the real package is nowhere in the kernel's root"}
    return {"student_version": True, "real_package_reachable": True,
            "how": f"{copy} first on PYTHONPATH; with no root of its own the real package is still reachable"}


def _init(kernel: int) -> None:
    """The first process of the student's process-id namespace: wait for the kernel, reap what it leaves
    behind, and end with the kernel's exit status (which ends every process of the namespace)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the interrupt is the kernel's: its process group gets it
    signal.signal(signal.SIGTERM, lambda *_: os.kill(kernel, signal.SIGKILL))
    while True:
        try:
            pid, status = os.wait()
        except ChildProcessError:
            os._exit(1)
        if pid == kernel:
            os._exit(os.waitstatus_to_exitcode(status) % 256)


def _wait_for(child: int) -> None:
    """This process stays outside the namespace, as the kernel the grader started: it ends when the namespace
    does, and takes it down if it is killed itself."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    while True:
        try:
            _, status = os.waitpid(child, 0)
            os._exit(os.waitstatus_to_exitcode(status) % 256)
        except InterruptedError:
            continue


def _limit(limits: Limits, uid: int) -> None:
    resource.setrlimit(resource.RLIMIT_AS, (limits.address_space, limits.address_space))
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
    parser.add_argument("--allow", action="append", default=[])
    parser.add_argument("--connection-file", required=True)
    parser.add_argument("--package", default=None)
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
    (home / CONFIG_FOLDER).mkdir(mode=0o555, exist_ok=True)
    user = None
    if os.getuid() == 0:
        import pwd

        user = pwd.getpwnam("nobody")
        for path in (home, connection):
            os.chown(path, user.pw_uid, user.pw_gid)
    visible = _visible_paths(args.allow)
    limits = Limits(args.memory, args.cpu_time, args.processes, args.file_size)
    namespaces = enclosed = _namespaces()
    why = "" if namespaces else "no mount and process-id namespaces here"
    if namespaces:
        child = os.fork()
        if child:
            _wait_for(child)
        prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        prctl(PR_SET_DUMPABLE, 0)
        stage = home.parent / "root"
        stage.mkdir(exist_ok=True)
        try:
            if args.package:
                _show_package(args.package)
            _enclose(str(stage), visible, str(home), args.hide, limits.scratch)
        except OSError as exc:
            enclosed, why = False, str(exc)
        kernel_pid = os.fork()
        if kernel_pid:
            _init(kernel_pid)
    if not enclosed:
        user = None  # no root of its own: Python may be out of reach of other users
    if user is not None:
        os.setgroups([])
        os.setgid(user.pw_gid)
        os.setuid(user.pw_uid)
    _limit(limits, os.getuid())
    status = {"uid": os.getuid(), "enclosed": enclosed, "why_not": why, "visible": visible, "hidden": args.hide,
              "limits": {**asdict(limits), "address_space": limits.address_space, "scratch": limits.scratch},
              "package": _package_status(args.package, enclosed),
              "temporary": f"/tmp and /dev/shm: one tmpfs of {limits.scratch:,} bytes" if enclosed else
              f"/tmp and /dev/shm: the system's, not bounded by the memory limit ({why})"}
    (home / STATUS_FILE).write_text(json.dumps(status), encoding="utf-8")
    for name in ("HOME", "MPLCONFIGDIR", "JUPYTER_RUNTIME_DIR", "JUPYTER_DATA_DIR", "XDG_CACHE_HOME",
                 "XDG_CONFIG_HOME", "TMPDIR"):
        os.environ[name] = str(home)
    for name in ("IPYTHONDIR", "JUPYTER_CONFIG_DIR"):  # read-only: no start-up file or config for the next kernel
        os.environ[name] = str(home / CONFIG_FOLDER)
    os.environ["PYTHONNOUSERSITE"] = "1"
    if args.package and not enclosed:  # no root of its own: the student version comes first on the path
        os.environ["PYTHONPATH"] = os.pathsep.join([str(Path(args.package).parent),
                                                    *filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep))])
    os.environ["COURSE_BUILD"] = str(home / "build")
    if namespaces:  # its parent is the namespace's first process, which ipykernel would take for a dead parent
        os.environ.pop("JPY_PARENT_PID", None)
    if args.allow:
        os.environ["COURSE_CACHE"] = args.allow[0]
    os.chdir(home)
    kernel = [str(connection) if part == args.connection_file else part for part in kernel]
    os.execv(kernel[0], kernel)


def kernel_spec(folder: Path, home: Path, connection_file: Path, hide: list[Path], limits: Limits,
                allow: list[Path] = (), package: Path | None = None) -> Path:
    """Write ``folder/kernels/course-sandbox/kernel.json`` for a kernel started through this module: ``hide``
    folders stay out of its sight even inside what it may see, ``allow`` folders are added to what it may read
    (the first, the corpora's cache, becomes its ``COURSE_CACHE``); ``package``, a student version of the
    ``course`` folder, is what it imports as ``course``."""
    argv = [sys.executable, "-m", "course.teaching.sandbox", "--memory", str(limits.memory), "--cpu-time",
            str(limits.cpu_seconds), "--processes", str(limits.processes), "--file-size", str(limits.file_size),
            "--home", str(home), "--connection-file", str(connection_file)]
    for path in hide:
        argv += ["--hide", str(path)]
    for path in allow:
        argv += ["--allow", str(path)]
    if package is not None:
        argv += ["--package", str(package)]
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
        alive = new - {pid for pid in new if gone(pid)}
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


def gone(pid: int) -> bool:
    """Whether process ``pid`` has ended (no such process, or a zombie not yet waited for)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return stat[stat.rindex(")") + 2:].split()[0] in ("Z", "X")


if __name__ == "__main__":
    _run(sys.argv[1:])
