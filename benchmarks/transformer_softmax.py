"""The course's Transformers with a full softmax and with an adaptive one: training tokens per second
on one CPU thread, medians over interleaved repeats.

    python benchmarks/transformer_softmax.py [--corpus peoples-daily-zh wiki-en] [--steps 20] [--repeats 3]

For each corpus and objective, both networks take the same batches of the ``cpu`` preset (about 2,000
padded positions, from the corpus's training sentences, the masked ones corrupted the same way) in
AdamW steps, as ``train_transformer`` takes them. The table gives each softmax's median tokens per
second and the adaptive one's ratio to the full one, with the vocabulary's size and the share of the
batches' words outside the adaptive head (the rows that also pay for a cluster). The machine is shared
and noisy: read the ratios, which the interleaving keeps fair, rather than the absolute figures.
"""

from __future__ import annotations

import argparse
import statistics
import time
from dataclasses import replace

from course.core.runtime import setup_cpu

setup_cpu()  # before anything imports PyTorch: how its CPU threads wait

import numpy as np
import torch

from course import load_corpus
from course.lm import split_heldout
from course.lm.precision import autocast
from course.transformer import TransformerLM, preset
from course.transformer.data import SentenceIds
from course.transformer.perplexity import corrupt, generator, precision_dtype
from course.transformer.training import vocabulary

SOFTMAXES = ("full", "adaptive")


def timed_steps(network: TransformerLM, batches: list[tuple], dtype, lr: float) -> float:
    """AdamW steps of ``network`` on ``batches`` of ``(ids, mask, targets)``: tokens per second."""
    optimizer = torch.optim.AdamW(network.parameters(), lr=lr)
    tokens, start = 0, time.perf_counter()
    for ids, mask, targets in batches:
        with autocast(torch.device("cpu"), dtype):
            loss, _, _ = network.loss(ids, mask, targets)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(network.parameters(), 1.0)
        optimizer.step()
        tokens += int(mask.sum())
    return tokens / (time.perf_counter() - start)


def measure(corpus, objective: str, steps: int, repeats: int) -> dict:
    config = preset("cpu", objective=objective)
    train, _ = split_heldout(corpus, config)
    words = vocabulary(corpus, train, config)
    data = SentenceIds.from_corpus(corpus, train, words, config.max_words)
    groups = data.batches(config.batch_tokens, np.random.default_rng(config.seed))[:steps + 2]
    batches = []
    for number, group in enumerate(groups):
        batch = data.batch(group)
        ids, targets = batch.ids, None
        if objective == "masked":
            ids, targets = corrupt(batch, words, config, generator(config.seed, 0, number))
        batches.append((ids, batch.mask, targets))
    dtype = precision_dtype(config, torch.device("cpu"))
    networks = {softmax: TransformerLM(replace(config, softmax=softmax), len(words)) for softmax in SOFTMAXES}
    for network in networks.values():
        timed_steps(network, batches[:2], dtype, config.lr)  # first calls, off the clock
    speeds: dict[str, list[float]] = {softmax: [] for softmax in SOFTMAXES}
    for _ in range(repeats):
        for softmax, network in networks.items():
            speeds[softmax].append(timed_steps(network, batches[2:], dtype, config.lr))
    predicted = torch.cat([(ids[:, 1:][mask[:, 1:]] if targets is None else targets[targets >= 0])
                           for ids, mask, targets in batches[2:]])
    cutoffs = networks["adaptive"].cutoffs
    tail = float((predicted >= cutoffs[0]).double().mean()) if cutoffs else 0.0
    return {"words": len(words), "tail": tail, "dtype": dtype,
            **{softmax: statistics.median(measured) for softmax, measured in speeds.items()}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", nargs="+", default=["peoples-daily-zh", "wiki-en"])
    parser.add_argument("--objective", nargs="+", default=["causal", "masked"], choices=("causal", "masked"))
    parser.add_argument("--steps", type=int, default=20, help="training steps per softmax and repeat")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    torch.set_num_threads(1)  # as each of the course's Transformers trains
    cutoff = preset("cpu").adaptive_cutoffs
    print(f"cpu preset, one thread, {args.steps} steps of about {preset('cpu').batch_tokens:,} padded positions, "
          f"{args.repeats} repeats; adaptive cutoffs {list(cutoff)}")
    print(f"{'corpus':<18} {'objective':<9} {'words':>7} {'outside head':>13} {'full tok/s':>11} "
          f"{'adaptive tok/s':>15} {'ratio':>6}")
    for name in args.corpus:
        corpus = load_corpus(name, progress=False)
        for objective in args.objective:
            row = measure(corpus, objective, args.steps, args.repeats)
            print(f"{name:<18} {objective:<9} {row['words']:>7,} {row['tail']:>12.1%} {row['full']:>11,.0f} "
                  f"{row['adaptive']:>15,.0f} {row['adaptive'] / row['full']:>5.2f}x", flush=True)


if __name__ == "__main__":
    main()
