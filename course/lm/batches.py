"""Sentences grouped into batches of about equal length, for every language model of the course:
a batch of B sentences padded to the longest, T = max n_i + 2 positions (``<bos>`` and ``<eos>``),
holds B * T <= ``batch_tokens`` positions, so few of them are padding."""

from __future__ import annotations

import numpy as np


def length_batches(lengths: np.ndarray, batch_tokens: int, rng: np.random.Generator | None = None) -> list[np.ndarray]:
    """Indexes of sentences of ``lengths`` words, grouped into batches of about ``batch_tokens``
    padded positions each (``<bos>`` and ``<eos>`` counted; at least one sentence a batch): sorted by
    length (ties in random order when ``rng`` is given), cut into consecutive groups, the groups
    shuffled. How many batches depends only on the lengths, never on ``rng``."""
    tiebreak = rng.random(len(lengths)) if rng is not None else np.arange(len(lengths))
    order = np.lexsort((tiebreak, lengths))
    width = lengths[order] + 2  # positions with <bos> and <eos>; sorted, so the last is the widest
    groups, start = [], 0
    for end, w in enumerate(width.tolist()):
        if end > start and (end - start + 1) * w > batch_tokens:
            groups.append(order[start:end])
            start = end
    groups.append(order[start:])
    if rng is not None:
        groups = [groups[i] for i in rng.permutation(len(groups))]
    return groups
