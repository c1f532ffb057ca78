"""Which floating-point precision the biLM's forward and backward passes run in.

On CUDA they run under ``torch.autocast`` in float16 (or bfloat16 with ``precision="bf16"``), with
cuDNN's LSTMs and a gradient scaler; on a CPU with bfloat16 matrix units in bfloat16; elsewhere in
float32. The weights, the optimiser and the softmax stay in float32 in every case.
"""

from __future__ import annotations

from contextlib import nullcontext

import torch

from ..errors import SettingError
from .config import ElmoConfig


def autocast_dtype(config: ElmoConfig, device: torch.device):
    """The autocast dtype for ``config.precision`` on ``device``, or None for float32.

    CUDA: ``auto`` is float16. Under autocast PyTorch runs cuDNN LSTMs in float16 whatever the
    dtype asked for, so with ``bf16`` the LSTMs still compute in float16: training therefore
    scales the loss (``GradScaler``) in both cases, which keeps small LSTM gradients from
    vanishing in float16.

    CPU: ``auto`` is bfloat16 where the processor multiplies bfloat16 matrices natively (AVX-512
    BF16 or AMX; about twice as fast as float32 for the LSTMs), else float32. The weights, the
    optimiser and the softmax stay in float32, bfloat16 has float32's range (no loss scaling), and
    the held-out perplexity is measured in float32.

    Raises:
        SettingError: ``fp16`` asked for on a CPU.
    """
    if device.type != "cuda":
        if config.precision == "fp16":
            raise SettingError("precision fp16 needs a CUDA GPU: use precision auto, bf16 or fp32 on the CPU")
        if config.precision == "bf16" or (config.precision == "auto" and cpu_has_bfloat16()):
            return torch.bfloat16
        return None
    return {"fp32": None, "bf16": torch.bfloat16, "fp16": torch.float16, "auto": torch.float16}[config.precision]


def cpu_has_bfloat16() -> bool:
    """Whether this CPU multiplies bfloat16 matrices in hardware (oneDNN's own test)."""
    try:
        return bool(torch.ops.mkldnn._is_mkldnn_bf16_supported())
    except (AttributeError, RuntimeError):
        return False


def autocast(device: torch.device, dtype):
    """``torch.autocast`` on ``device`` in ``dtype``; with ``dtype=None`` nothing (float32)."""
    return torch.autocast(device.type, dtype=dtype) if dtype is not None else nullcontext()
