"""How PyTorch shares this machine's CPU: one explicit call, made before torch is first imported.

PyTorch's CPU kernels use OpenMP, whose threads by default spin while they wait for work. On a
2-core machine that anything else also uses, the spinning threads take the cores from the ones with
work: measured here, a projected LSTM ran 8 times slower. Sleeping instead costs little on an idle
machine. OpenMP reads ``OMP_WAIT_POLICY`` once, when PyTorch is first imported, so
:func:`setup_cpu` must come before that: the command line (``python -m course``) calls it first
thing, each notebook that trains with PyTorch in its first cell, the tests in their conftest.
Importing the course's packages sets nothing.
"""

from __future__ import annotations

import os
import sys

WAIT_POLICY = "PASSIVE"


def setup_cpu(wait_policy: str = WAIT_POLICY) -> bool:
    """Let OpenMP's threads sleep while they wait (``OMP_WAIT_POLICY``; a value the user set is kept).

    Returns whether the setting takes effect: False when torch is already imported, which has read
    the policy it will keep (restart the kernel and run this first).
    """
    os.environ.setdefault("OMP_WAIT_POLICY", wait_policy)
    return "torch" not in sys.modules
