"""ULMFiT's three ways of setting learning rates (Howard and Ruder, 2018, section 3), each a small
function a plot can draw.

**Discriminative fine-tuning** gives each layer group its own rate, the top one the highest and
each group below it 2.6 times less:

    eta^{l-1} = eta^l / 2.6.

The lower layers hold what is general (word shapes, syntax), the upper ones what is specific to
the pretraining task; the lower ones should move least.

**Slanted triangular learning rates** (STLR) rise linearly for a short while, then fall linearly
for much longer. Over T steps, with ``cut_frac`` the share of the rise and ``ratio`` how much
smaller the lowest rate is than the highest,

    cut = floor(T * cut_frac)
    p   = t / cut                                   if t < cut
          1 - (t - cut) / (cut * (1 / cut_frac - 1))  otherwise
    eta_t = eta_max * (1 + p * (ratio - 1)) / ratio

(the paper: cut_frac 0.1, ratio 32). The short rise lets the model settle in a good region of
the weights quickly; the long fall refines it there.

**Gradual unfreezing** trains the top group alone in the first epoch, then unfreezes one more
group each epoch, so that the new classifier head has learned something before the gradients
of a random head reach the pretrained layers.
"""

from __future__ import annotations

import math

from ..core.errors import SettingError

FACTOR = 2.6  # the paper's ratio between the rates of neighbouring layer groups
CUT_FRAC, RATIO = 0.1, 32


def discriminative_rates(top_rate: float, num_groups: int, factor: float = FACTOR) -> list[float]:
    """The rate of each of ``num_groups`` layer groups, bottom group first: the top group gets
    ``top_rate`` and each group below it ``factor`` times less (``factor=1``: one rate for all).

    >>> discriminative_rates(0.01, 3)
    [0.0014792899408284023, 0.0038461538461538464, 0.01]
    """
    if num_groups < 1:
        raise SettingError(f"need at least one layer group, got {num_groups}")
    if factor < 1:
        raise SettingError(f"the factor between layer groups' rates must be at least 1, got {factor}")
    return [top_rate / factor ** (num_groups - 1 - group) for group in range(num_groups)]


def slanted_triangular(step: int, total_steps: int, max_rate: float, cut_frac: float = CUT_FRAC,
                       ratio: float = RATIO) -> float:
    """The slanted triangular learning rate of step ``step`` (0-based) of ``total_steps``.

    It rises from ``max_rate / ratio`` at step 0 to ``max_rate`` at step ``cut`` =
    floor(``total_steps`` * ``cut_frac``), then falls back to ``max_rate / ratio`` at step
    ``total_steps``. With fewer than ``1 / cut_frac`` steps there is no rise (cut is at least 1).
    """
    if total_steps < 1:
        raise SettingError(f"the schedule needs at least one step, got {total_steps}")
    if not 0 < cut_frac < 1:
        raise SettingError(f"cut_frac must be between 0 and 1, got {cut_frac}")
    if ratio < 1:
        raise SettingError(f"ratio must be at least 1, got {ratio}")
    cut = max(1, math.floor(total_steps * cut_frac))
    if step < cut:
        p = step / cut
    else:
        p = max(0.0, 1 - (step - cut) / (cut * (1 / cut_frac - 1)))
    return max_rate * (1 + p * (ratio - 1)) / ratio


def unfrozen_groups(epoch: int, num_groups: int, gradual: bool = True) -> int:
    """How many layer groups, counted from the top, train in ``epoch`` (1-based): one in the first,
    one more each epoch after, all of them from epoch ``num_groups`` on; all at once without
    ``gradual``."""
    return num_groups if not gradual else min(num_groups, max(1, epoch))
