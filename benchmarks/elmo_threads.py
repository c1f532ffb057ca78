"""The biLM's training steps on a CPU three ways: one thread, two threads splitting each product, and the
two directions side by side (one thread each); tokens per second, medians over interleaved repeats. A fourth
way trains two biLMs at once, one thread each in a process of its own, as a build that needs two of them could
(notebooks 06 and 07): its tokens per second are the two models' together.

    python benchmarks/elmo_threads.py [--corpus wiki-en] [--steps 30] [--repeats 3] [--precision auto]

Every way takes the same batches (the ``cpu`` preset's, from the corpus's training sentences) with the
same starting weights and Adam; the table gives each way's median tokens per second, its ratio to one
thread, and whether its weights after the steps equal one thread's to the last bit (side by side must:
``tests/test_side_by_side.py``; two threads sum in another order; each of the two models trained at once is
trained as one thread trains it alone). The machine is shared and noisy:
read the ratios, which the interleaving keeps fair, rather than the absolute figures. Tokens are counted as
training counts them, a sentence's words (before, ``<bos>`` and ``<eos>`` were counted too, 11% more on
``wiki-en``). These are bare steps on batches made beforehand, from the first ones of an epoch; ``train_elmo`` also
reads its progress out, and its first steps compile oneDNN's kernels.
"""

from __future__ import annotations

import argparse
import copy
import statistics
import time
from contextlib import nullcontext

from course.core.runtime import setup_cpu

setup_cpu()  # before anything imports PyTorch: how its CPU threads wait

import numpy as np
import torch

from course import load_corpus
from course.core.parallel import run_jobs
from course.elmo import preset
from course.elmo.model import Elmo
from course.elmo.side_by_side import direction_worker, side_by_side_backward
from course.elmo.training import language_model_data, vocabularies
from course.lm import split_heldout
from course.lm.precision import autocast, autocast_dtype

WAYS = {"1 thread": (1, False), "2 threads, each product split": (2, False), "directions side by side": (1, True)}
TWO_AT_ONCE = "two biLMs at once, 1 thread each"


def steps(bilm, batches, intra_op: int, side_by_side: bool, dtype) -> tuple[float, dict]:
    """Train a copy of ``bilm`` on ``batches``: (tokens per second, its weights after them)."""
    bilm = copy.deepcopy(bilm).train()
    optimizer = torch.optim.Adam(bilm.parameters(), lr=4e-3)
    device, before = torch.device("cpu"), torch.get_num_threads()
    torch.set_num_threads(intra_op)
    torch.manual_seed(1)
    tokens, start = 0, time.perf_counter()
    try:
        with direction_worker() if side_by_side else nullcontext() as worker:
            for batch in batches:
                optimizer.zero_grad(set_to_none=True)
                if side_by_side:
                    side_by_side_backward(bilm, batch, device, dtype, worker)
                else:
                    with autocast(device, dtype, cache=False):
                        loss, _, _ = bilm.loss(batch.char_ids, batch.mask, batch.targets, batch.index,
                                               batch.predictions)
                    loss.backward()
                torch.nn.utils.clip_grad_norm_(bilm.parameters(), 1.0)
                optimizer.step()
                tokens += batch.words  # as training counts them: no <bos>, no <eos>
    finally:
        torch.set_num_threads(before)
    return tokens / (time.perf_counter() - start), bilm.state_dict()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", default="wiki-en")
    parser.add_argument("--steps", type=int, default=30, help="training steps per way and repeat")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--precision", default="auto", choices=("auto", "fp32", "bf16"))
    args = parser.parse_args()

    corpus = load_corpus(args.corpus, progress=False)
    config = preset("cpu", precision=args.precision)
    train, _ = split_heldout(corpus, config)
    words, characters = vocabularies(corpus, train, config)
    model = Elmo(config, words, characters)
    data = language_model_data(corpus, train, model)
    groups = data.batches(config.batch_tokens, np.random.default_rng(config.seed))[:args.steps + 2]
    batches = [data.batch(group) for group in groups]
    dtype = autocast_dtype(config.precision, torch.device("cpu"))
    steps(model.bilm, batches[:2], 1, True, dtype)  # first calls, off the clock
    speeds: dict[str, list[float]] = {way: [] for way in WAYS}
    weights: dict[str, dict] = {}
    speeds[TWO_AT_ONCE] = []
    for _ in range(args.repeats):
        for way, (intra_op, side_by_side) in WAYS.items():
            speed, weights[way] = steps(model.bilm, batches[2:], intra_op, side_by_side, dtype)
            speeds[way].append(speed)
        start = time.perf_counter()  # the wall clock from the fork to both models' weights back here
        pair = run_jobs(steps, [(model.bilm, batches[2:], 1, False, dtype)] * 2, workers=2)
        speeds[TWO_AT_ONCE].append(2 * sum(b.words for b in batches[2:]) / (time.perf_counter() - start))
        weights[TWO_AT_ONCE] = pair[1][1]
    one = statistics.median(speeds["1 thread"])
    print(f"{corpus.name}, cpu preset ({sum(p.numel() for p in model.bilm.parameters()) / 1e6:.1f}M weights), "
          f"{'float32' if dtype is None else str(dtype).removeprefix('torch.')}, {args.steps} steps of about "
          f"{config.batch_tokens:,} tokens, {args.repeats} repeats, {torch.get_num_threads()} cores")
    print(f"{'way':<32} {'tokens/s':>9} {'vs 1 thread':>12}  same weights as 1 thread")
    for way, measured in speeds.items():
        same = all(torch.equal(a, b) for a, b in zip(weights[way].values(), weights["1 thread"].values(),
                                                      strict=True))
        print(f"{way:<32} {statistics.median(measured):>9,.0f} {statistics.median(measured) / one:>11.2f}x  "
              f"{'yes' if same else 'no'}")


if __name__ == "__main__":
    main()
