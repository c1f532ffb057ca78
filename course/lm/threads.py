"""How many CPU threads torch trains a language model with."""

from __future__ import annotations

from contextlib import contextmanager

import torch


@contextmanager
def cpu_threads(device: torch.device, threads: int):
    """On the CPU, train with ``threads`` threads, and give back the number there was afterwards."""
    before = torch.get_num_threads()
    if device.type == "cpu":
        torch.set_num_threads(threads)
    try:
        yield
    finally:
        if device.type == "cpu":
            torch.set_num_threads(before)
