"""What the labelled data sets share: drawing ``count`` labelled examples for a learning curve."""

from __future__ import annotations

import numpy as np

from ..core.errors import SettingError


def draw_nested(pool: list, count: int | str, seed: int, noun: str, source: str) -> list:
    """``count`` items of ``pool`` drawn at random (``"all"``: every one, shuffled).

    Draws are nested: for one seed the first 100 are among the first 300, and so on, so a learning
    curve adds labels without swapping the ones it had.

    Raises:
        SettingError: more ``noun`` asked for than ``pool`` has (``source`` names it), or fewer than 1.
    """
    available = len(pool)
    if count == "all":
        count = available
    if not isinstance(count, (int, np.integer)) or isinstance(count, bool) or count < 1:
        raise SettingError(f"the number of labelled {noun} must be a positive whole number or 'all', got {count!r}")
    if count > available:
        raise SettingError(f"{count:,} labelled {noun} asked for, but the training split of {source} has "
                           f"{available:,}: ask for at most that, or 'all'")
    order = np.random.default_rng(seed).permutation(available)
    return [pool[i] for i in order[:count]]
