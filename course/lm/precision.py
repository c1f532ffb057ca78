"""Which floating-point precision a language model's forward and backward passes run in, and the
one ``autocast`` every trainer enters.

The weights, the optimiser and the softmax stay in float32 in every case; only the passes run under
``torch.autocast`` in the dtype :func:`autocast_dtype` chooses (None: float32):

- ``fp32``: float32; ``bf16``: bfloat16; ``fp16``: float16, on CUDA only;
- ``auto`` on a CPU: bfloat16 where the processor multiplies bfloat16 matrices natively (AVX-512
  BF16 or AMX: measured 1.6 to 2 times float32's speed for the LSTMs and the Transformers), else
  float32; bfloat16 has float32's range, so no loss scaling is needed;
- ``auto`` on CUDA: the model's choice (``cuda_auto``). The biLM takes float16: under autocast
  PyTorch runs cuDNN LSTMs in float16 whatever the dtype asked for, so its trainer scales the loss
  (``GradScaler``) in both cases, which keeps small LSTM gradients from vanishing in float16. The
  Transformers take bfloat16 where the GPU has it, else float32.
"""

from __future__ import annotations

from contextlib import nullcontext

import torch

from ..core.errors import SettingError

CUDA_AUTO = ("fp16", "bf16")  # what "auto" means on CUDA: float16, or bfloat16 where the GPU has it


def cpu_has_bfloat16() -> bool:
    """Whether this CPU multiplies bfloat16 matrices in hardware (oneDNN's own test)."""
    try:
        return bool(torch.ops.mkldnn._is_mkldnn_bf16_supported())
    except (AttributeError, RuntimeError):
        return False


def autocast_dtype(precision: str, device: torch.device, cuda_auto: str = "fp16") -> torch.dtype | None:
    """The autocast dtype for ``precision`` (``auto``, ``fp32``, ``bf16`` or ``fp16``) on ``device``,
    or None for float32; ``cuda_auto``: what ``auto`` is on CUDA, ``"fp16"`` (float16) or ``"bf16"``
    (bfloat16 where the GPU multiplies it natively, else float32).

    Raises:
        SettingError: ``fp16`` asked for on a CPU.
    """
    if device.type != "cuda":
        if precision == "fp16":
            raise SettingError("precision fp16 needs a CUDA GPU: use precision auto, bf16 or fp32 on the CPU")
        if precision == "bf16" or (precision == "auto" and cpu_has_bfloat16()):
            return torch.bfloat16
        return None
    if precision == "auto":
        if cuda_auto == "fp16":
            return torch.float16
        return torch.bfloat16 if torch.cuda.is_bf16_supported() else None
    return {"fp32": None, "bf16": torch.bfloat16, "fp16": torch.float16}[precision]


def autocast(device: torch.device, dtype: torch.dtype | None, cache: bool = True):
    """``torch.autocast`` on ``device`` in ``dtype``; with ``dtype=None`` nothing (float32).

    ``cache=False``: each operation casts the weights it uses afresh. Autocast's cache of cast weights
    is one for the whole process, emptied whenever any thread leaves its autocast region, so threads
    that work at once must not rely on it: a weight cast twice within one pass gets its gradient
    summed in two parts, which rounds differently from run to run.
    """
    return torch.autocast(device.type, dtype=dtype, cache_enabled=cache) if dtype is not None else nullcontext()
