"""Choosing where tensors live: ``auto`` picks CUDA when a GPU is there, else the CPU."""

from __future__ import annotations

from .errors import SettingError


def resolve_device(device: str = "auto"):
    """A ``torch.device`` for ``"auto"``, ``"cpu"``, ``"cuda"`` or ``"cuda:N"``.

    Raises:
        SettingError: CUDA was asked for and there is none, or the name is unknown.
    """
    import torch

    name = (device or "auto").lower()
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if name == "cpu":
        return torch.device("cpu")
    if name.startswith("cuda"):
        if not torch.cuda.is_available():
            raise SettingError(f"device {device!r} asked for, but this machine has no CUDA GPU: "
                               "use --device cpu or auto")
        return torch.device(name)
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
