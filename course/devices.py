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
