"""What the labelled data sets share: drawing ``count`` labelled examples for a learning curve."""

from __future__ import annotations

import numpy as np

from ..errors import SettingError


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


def length_batches(lengths: np.ndarray, batch_size: int, rng: np.random.Generator) -> list[np.ndarray]:
    """One epoch's batches of example indexes: shuffled, sorted by length within pools of 20 batches (less
    padding), cut into batches, the batches shuffled."""
    order = rng.permutation(len(lengths))
    pool = 20 * batch_size
    out = []
    for start in range(0, len(order), pool):
        part = order[start:start + pool]
        part = part[np.argsort(lengths[part], kind="stable")]
        out.extend(part[i:i + batch_size] for i in range(0, len(part), batch_size))
    return [out[i] for i in rng.permutation(len(out))]
