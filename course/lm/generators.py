"""The random numbers of a language model's training (dropout, and the masks where they are drawn
from torch's generator): started from the seed, or taken up where a checkpoint left them, so that a
resumed run draws what an uninterrupted one would have."""

from __future__ import annotations

import numpy as np
import torch

from ..core import distributed


def start_random_state(seed: int, device: torch.device, saved: dict | None,
                       world: distributed.World = distributed.World()) -> None:
    """The random numbers of dropout: drawn from ``seed`` (+ the rank, under torchrun), or, when
    resuming, from where the checkpoint ``saved`` left them (its ``rng`` and ``cuda_rng``, each
    process's own), so that a resumed run draws what an uninterrupted one would have.

    A checkpoint written by another number of processes carries over the generators of the ranks it
    has; a process of a rank it does not have cannot take one up, and draws its generators afresh
    from (seed, epoch, batches of the epoch taken, rank) (:func:`fresh_seed`). Dropout then differs
    from an uninterrupted run's, as it must with another number of processes."""
    ranks = saved.get("ranks", [saved]) if saved is not None else []
    if world.rank < len(ranks):
        mine = ranks[world.rank]
        torch.set_rng_state(mine["rng"])
        if device.type == "cuda" and mine.get("cuda_rng") is not None:
            torch.cuda.set_rng_state(mine["cuda_rng"], device)
        return
    start = (seed + world.rank if saved is None else
             fresh_seed(seed, saved["state"]["epoch"], distributed.batches_taken(saved), world.rank))
    torch.manual_seed(start)
    if device.type == "cuda":
        torch.cuda.manual_seed(start)


def fresh_seed(seed: int, epoch: int, batches: int, rank: int) -> int:
    """A seed for the generators of process ``rank`` that starts where ``batches`` batches of epoch
    ``epoch`` are taken: 64 bits of numpy's ``SeedSequence([seed, epoch, batches, rank])``."""
    return int(np.random.SeedSequence([seed, epoch, batches, rank]).generate_state(1, np.uint64)[0])


def random_state(device: torch.device, world: distributed.World = distributed.World()) -> dict:
    """What a checkpoint keeps of the random generators: ``{"rng", "cuda_rng"}`` (rank 0's), and
    under torchrun every process's in ``"ranks"`` with the number of processes (``"world_size"``).
    Every process must call it."""
    mine = {"rng": torch.get_rng_state(),
            "cuda_rng": torch.cuda.get_rng_state(device) if device.type == "cuda" else None}
    if not world.distributed:
        return mine
    return {**mine, "ranks": world.gather(mine), "world_size": world.size}
