"""Choosing where tensors live (``auto`` picks CUDA when a GPU is there, else the CPU), and how much
memory there is for them: a trainer refuses a run that cannot fit before it allocates anything."""

from __future__ import annotations

from pathlib import Path

from .errors import SettingError


def resolve_device(device: str = "auto"):
    """A ``torch.device`` for ``"auto"``, ``"cpu"``, ``"cuda"`` or ``"cuda:N"``.

    Every command that takes ``--device`` calls it before any other work, so that a machine
    without the GPU asked for is told so at once, not after a corpus is read or a model loaded.

    Raises:
        SettingError: CUDA was asked for and there is none (or not GPU ``N``), or the name is unknown.
    """
    import torch

    name = (device or "auto").lower()
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if name == "cpu":
        return torch.device("cpu")
    if name.startswith("cuda"):
        try:
            chosen = torch.device(name)
        except RuntimeError:  # "cudax", "cuda:-1", "cuda:one"
            raise SettingError(f"unknown device {device!r}: use auto, cpu, cuda or cuda:N") from None
        if not torch.cuda.is_available():
            raise SettingError(f"device {device!r} asked for, but this machine has no CUDA GPU: "
                               "use --device cpu or auto")
        count = torch.cuda.device_count()
        if chosen.index is not None and chosen.index >= count:
            raise SettingError(f"device {device!r} asked for, but this machine has {count} CUDA "
                               f"GPU{'s' if count > 1 else ''} (cuda:0 to cuda:{count - 1}): use one of them, or auto")
        return chosen
    raise SettingError(f"unknown device {device!r}: use auto, cpu or cuda")


def keep_work_memory() -> bool:
    """Ask glibc's allocator to keep freed memory for reuse instead of handing it back to the OS.

    Training on the CPU allocates and frees tensors of a few megabytes thousands of times a second.
    By default glibc returns such blocks to the operating system at once, and every new one then
    costs page faults: measured here, that halves the speed of CBOW with hierarchical softmax.
    Raising the thresholds (as ``MALLOC_MMAP_THRESHOLD_`` and ``MALLOC_TRIM_THRESHOLD_`` would)
    keeps at most a few hundred megabytes in reserve. Returns False where there is no glibc.
    """
    import ctypes
    import ctypes.util

    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False
    m_trim_threshold, m_mmap_threshold = -1, -3
    return bool(mallopt(m_mmap_threshold, 32 << 20)) and bool(mallopt(m_trim_threshold, 256 << 20))


def available_memory() -> int | None:
    """Bytes this process can still allocate without swapping, where the system says (Linux).

    The kernel's estimate (``MemAvailable`` in ``/proc/meminfo``), lowered to what the control
    group's limit leaves (a container's ``memory.max`` less its ``memory.current``); None when
    neither is known (macOS, Windows), and then nothing is refused.
    """
    found = []
    try:
        with open("/proc/meminfo", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("MemAvailable:"):
                    found.append(int(line.split()[1]) * 1024)
    except (OSError, ValueError, IndexError):
        pass
    for limit_file, usage_file in _cgroup_memory_files():
        try:
            limit = int(Path(limit_file).read_text().strip())
            usage = int(Path(usage_file).read_text().strip())
        except (OSError, ValueError):  # no such file, or "max": no limit
            continue
        if limit < 1 << 60:  # cgroup v1 writes "no limit" as a huge number
            found.append(max(0, limit - usage))
    return min(found) if found else None


def _cgroup_memory_files() -> list[tuple[str, str]]:
    """(limit, usage) file pairs of this process's memory control group, v2 and v1: at the group's
    path, and at the root of the mount (where a container sees its own group)."""
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        lines = []
    pairs = []
    for line in lines:
        number, controllers, where = (line.split(":", 2) + ["", ""])[:3]
        if number == "0" and controllers == "":
            for base in {Path("/sys/fs/cgroup") / where.lstrip("/"), Path("/sys/fs/cgroup")}:
                pairs.append((str(base / "memory.max"), str(base / "memory.current")))
        elif "memory" in controllers.split(","):
            for base in {Path("/sys/fs/cgroup/memory") / where.lstrip("/"), Path("/sys/fs/cgroup/memory")}:
                pairs.append((str(base / "memory.limit_in_bytes"), str(base / "memory.usage_in_bytes")))
    return pairs


def format_bytes(size: float) -> str:
    """``size`` bytes as a person reads it: ``"3.1 MB"``, ``"512 MB"``, ``"23.4 GB"``, ``"1,200 GB"``."""
    if size < 1e8:
        return f"{max(size, 0) / 1e6:.1f} MB"
    if size < 1e9:
        return f"{size / 1e6:,.0f} MB"
    return f"{size / 1e9:,.1f} GB" if size < 1e12 else f"{size / 1e9:,.0f} GB"


def check_memory(what: str, host_bytes: int, advice: str, device=None, device_bytes: int = 0) -> None:
    """Refuse, before anything is allocated, a run that would need more memory than there is.

    ``host_bytes`` are needed in the computer's memory and ``device_bytes`` on ``device`` (a
    ``torch.device``; on the CPU both count against the same memory). ``what`` names the run and
    ``advice`` says which settings to lower.

    Raises:
        SettingError: "<what> would need about X of memory, and Y is available: <advice>".
    """
    on_gpu = device is not None and device.type == "cuda"
    checks = [("memory", host_bytes + (0 if on_gpu else device_bytes), available_memory())]
    if on_gpu and device_bytes:
        import torch

        checks.append((f"memory on {device}", device_bytes, torch.cuda.mem_get_info(device)[0]))
    for where, need, available in checks:
        if available is not None and need > available:
            raise SettingError(f"{what} would need about {format_bytes(need)} of {where}, and "
                               f"{format_bytes(available)} is available: {advice}")


def describe_machine() -> str:
    """One line on what computes here: the CPU's model, the cores this process may use, the vector
    instructions PyTorch's kernels use (``AVX512``, ``AVX2``), and each CUDA GPU. Results repeat to the
    last digit on the same kind of machine only: kernels for other instructions add in another order."""
    import platform

    import torch

    from .parallel import available_cores

    model = platform.processor() or platform.machine()
    try:
        names = [line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                 if line.startswith("model name")]
        model = names[0] if names else model
    except OSError:  # not Linux
        pass
    line = f"{model}, {available_cores()} cores, PyTorch's CPU kernels: {torch.backends.cpu.get_cpu_capability()}"
    if torch.cuda.is_available():
        line += "; " + ", ".join(torch.cuda.get_device_name(i) for i in range(torch.cuda.device_count()))
    return line
