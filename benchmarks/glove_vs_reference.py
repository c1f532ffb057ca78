"""Our GloVe with the reference implementation's settings, beside the reference's own figures.

    python benchmarks/glove_vs_reference.py [--corpus wiki-en-articles wiki-en] [--lr 0.05 0.1]
                                            [--repeats 3] [--device auto] [--span sentence corpus]
                                            [--synthetic-tokens 17000000]

Counts co-occurrences and trains GloVe with dim 100, window 15, min_count 5, x_max 10, alpha 0.75,
15 epochs and 2 threads (on a CPU), on each corpus, and prints two tables:

- counting: seconds, the peak of memory allocated while counting (as tracemalloc sees numpy and
  scipy) and the number of non-zero pairs, on each corpus and on a larger synthetic one (tokens
  drawn independently from a Zipf law over 71,000 words, as many tokens as text8: every pair is
  as unpredictable as it can be, so this is a worst case for the number of non-zeros);
- training, for each corpus and learning rate: seconds, entries per second (non-zeros times epochs
  over the seconds), memory (the largest growth of resident memory while training; on a GPU, the
  peak of GPU memory allocated), the mean loss per entry in the last epoch, analogy accuracy
  (semantic / syntactic / total, 3CosAdd, with coverage), WordSim-353 and SimLex-999 Spearman.

The reference rows quote the reference C implementation (vocab_count, cooccur, shuffle, glove) as
measured with the same settings on the same machine: about 1 s to count, 50 s to train, about 3.2M
non-zero pairs, analogy total 2.6%, WordSim-353 0.25 and SimLex-999 0.15. Its input was gensim's
reading of the Wikipedia sample, one article a line: the corpus ``wiki-en-articles``, on which
counting gives those 3.2M pairs. ``wiki-en`` (our sentences, windows stopping at sentence ends)
comes second. ``--span corpus`` also counts each corpus as one stream of words whose windows run
across sentence ends. Each figure is the median over ``--repeats`` runs (training: with seeds 1, 2,
...). ``--device cuda`` (or ``auto`` on a machine with a GPU) trains on the GPU.
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import time
import tracemalloc

import numpy as np
from word2vec_vs_gensim import PeakMemory  # resident-memory sampler, in this folder

from course.core.runtime import setup_cpu

setup_cpu()  # before anything imports PyTorch: how its CPU threads wait

from course import load_corpus
from course.analysis.evaluate import evaluate_all, summary_row
from course.core.devices import resolve_device
from course.glove import GloVe, GloVeConfig, cooccurrence_counts
from course.text.vocab import Vocabulary

REFERENCE = {"count seconds": 1.0, "train seconds": 50.0, "non-zeros": 3_200_000, "analogy total": 0.026,
             "WordSim-353": 0.25, "SimLex-999": 0.15}
REFERENCE_INPUT = "wiki-en-articles"  # the text the reference figures were measured on, one article a line
SETTINGS = {"dim": 100, "window": 15, "min_count": 5, "x_max": 10.0, "alpha": 0.75, "epochs": 15}


def timed_count(ids, offsets, vocab_size, window):
    """``(counts, seconds, peak bytes allocated)`` of one counting run."""
    tracemalloc.start()
    start = time.perf_counter()
    counts = cooccurrence_counts(ids, offsets, vocab_size, window)
    seconds = time.perf_counter() - start
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return counts, seconds, peak


def synthetic_corpus(tokens: int, vocab_size: int = 71_000, sentence: int = 1_000, seed: int = 0):
    """``(ids, offsets)``: ``tokens`` ids drawn from a Zipf law (p ~ 1/rank), cut every ``sentence`` tokens."""
    rng = np.random.default_rng(seed)
    probabilities = 1.0 / np.arange(1, vocab_size + 1)
    ids = rng.choice(vocab_size, size=tokens, p=probabilities / probabilities.sum()).astype(np.int32)
    return ids, np.append(np.arange(0, tokens, sentence), tokens)


def train_once(vocab, counts, config):
    """Train on ``counts``; returns the figures of one run (``peak``: bytes of GPU memory on a GPU, else
    the growth of resident memory)."""
    import torch

    model = GloVe(vocab, config)
    on_gpu = model.device.type == "cuda"
    if on_gpu:
        torch.cuda.reset_peak_memory_stats(model.device)
    with PeakMemory() as memory:
        model.train(cooccurrences=counts, progress=False)
    peak = torch.cuda.max_memory_allocated(model.device) if on_gpu else memory.peak
    row = summary_row(evaluate_all(model.keyed_vectors(), methods=("3cosadd",)))
    history = model.state.history
    last_epoch = [loss for _, loss in history[-max(1, len(history) // config.epochs):]]
    return {"seconds": model.state.seconds, "peak": peak, "loss": float(np.mean(last_epoch)), **row}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", nargs="+", default=["wiki-en-articles", "wiki-en"],
                        help="corpora to count and train on (default: the reference's input, then ours)")
    parser.add_argument("--lr", type=float, nargs="+", default=[0.05, 0.1], help="learning rates to train with")
    parser.add_argument("--batch-size", type=int, default=GloVeConfig.batch_size, help="non-zero entries per update")
    parser.add_argument("--epochs", type=int, default=SETTINGS["epochs"])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--device", default="auto", help="auto (CUDA if present), cpu or cuda")
    parser.add_argument("--repeats", type=int, default=3, help="runs of each; medians are printed")
    parser.add_argument("--span", nargs="+", choices=("sentence", "corpus"), default=["sentence"],
                        help="windows stop at sentence ends (default), or run across them (the corpus as one "
                             "stream); both: --span sentence corpus")
    parser.add_argument("--synthetic-tokens", type=int, default=17_000_000,
                        help="tokens of the synthetic corpus for the counting table (0: skip it)")
    args = parser.parse_args()

    base = GloVeConfig(**{**SETTINGS, "epochs": args.epochs}, threads=args.threads, device=args.device,
                       batch_size=args.batch_size)
    print(f"dim {base.dim}, window {base.window}, min_count {SETTINGS['min_count']}, x_max {base.x_max:g}, "
          f"alpha {base.alpha}, {base.epochs} epochs, {base.threads} threads, batches of {base.batch_size:,}; "
          f"device {resolve_device(base.device)}; medians of {args.repeats} runs")
    inputs = {}  # (corpus name, span) -> (vocabulary, counts)
    for name in args.corpus:
        corpus = load_corpus(name, progress=False)
        vocab = Vocabulary.from_corpus(corpus, min_count=SETTINGS["min_count"], specials=())
        ids, offsets = vocab.encode_corpus(corpus)
        print(f"{corpus.name}: {corpus.num_tokens:,} tokens in {corpus.num_sentences:,} sentences, "
              f"{len(vocab):,} words at min_count {SETTINGS['min_count']}")
        for span in args.span:
            inputs[name, span] = vocab, ids, offsets if span == "sentence" else np.array([0, len(ids)])

    print(f"\n{'counting':<13}{'corpus':<18}{'windows':>9}{'seconds':>9}{'peak MB':>9}{'non-zeros':>13}")
    print("-" * 71)
    for (name, span), (vocab, ids, offsets) in inputs.items():
        runs = [timed_count(ids, offsets, len(vocab), base.window) for _ in range(args.repeats)]
        inputs[name, span] = vocab, runs[0][0]
        print(f"{'ours':<13}{name:<18}{span:>9}{statistics.median(r[1] for r in runs):>9.2f}"
              f"{statistics.median(r[2] for r in runs) / 2**20:>9.0f}{runs[0][0].nnz:>13,}", flush=True)
    if args.synthetic_tokens:
        synthetic_ids, synthetic_offsets = synthetic_corpus(args.synthetic_tokens)
        synthetic, seconds, peak = timed_count(synthetic_ids, synthetic_offsets, 71_000, base.window)
        label = f"Zipf {args.synthetic_tokens / 1e6:g}M tokens"
        print(f"{'ours':<13}{label:<18}{'1000':>9}{seconds:>9.2f}{peak / 2**20:>9.0f}{synthetic.nnz:>13,}", flush=True)
        del synthetic, synthetic_ids, synthetic_offsets
    print(f"{'reference C':<13}{REFERENCE_INPUT:<18}{'line':>9}{REFERENCE['count seconds']:>9.1f}{'':>9}"
          f"{REFERENCE['non-zeros']:>13,}\n")

    header = (f"{'training':<13}{'corpus':<18}{'windows':>9}{'lr':>6}{'seconds':>9}{'entries/s':>12}{'mem MB':>8}"
              f"{'loss':>8}{'sem':>7}{'syn':>7}{'total':>7}{'cover':>7}{'WS353':>7}{'SL999':>7}")
    print(header)
    print("-" * len(header))
    on_reference_input = []  # training seconds on the text the reference was measured on
    for (name, span), (vocab, counts) in inputs.items():
        for lr in args.lr:
            config = dataclasses.replace(base, lr=lr)
            done = [train_once(vocab, counts, dataclasses.replace(config, seed=seed))
                    for seed in range(1, args.repeats + 1)]
            row = {key: statistics.median(run[key] for run in done) for key in done[0]}
            row["peak"] = max(run["peak"] for run in done)  # later CPU runs reuse the memory the first one freed
            speed = config.epochs * counts.nnz / row["seconds"]
            if name == REFERENCE_INPUT:
                on_reference_input.append(row["seconds"])
            print(f"{'ours':<13}{name:<18}{span:>9}{lr:>6g}{row['seconds']:>9.1f}{speed:>12,.0f}"
                  f"{row['peak'] / 2**20:>8.0f}{row['loss']:>8.4f}"
                  f"{100 * row['analogy semantic']:>6.1f}%{100 * row['analogy syntactic']:>6.1f}%"
                  f"{100 * row['analogy total']:>6.1f}%{100 * row['analogy coverage']:>6.1f}%"
                  f"{row['WordSim-353']:>7.3f}{row['SimLex-999']:>7.3f}", flush=True)
    speed = SETTINGS["epochs"] * REFERENCE["non-zeros"] / REFERENCE["train seconds"]
    print(f"{'reference C':<13}{REFERENCE_INPUT:<18}{'line':>9}{0.05:>6g}{REFERENCE['train seconds']:>9.1f}"
          f"{speed:>12,.0f}{'':>8}{'':>8}{'':>7}{'':>7}"
          f"{100 * REFERENCE['analogy total']:>6.1f}%{'':>7}{REFERENCE['WordSim-353']:>7.3f}"
          f"{REFERENCE['SimLex-999']:>7.3f}")
    if on_reference_input:
        slowest = max(on_reference_input)
        print(f"\nthe course's target, training in at most half the reference's time on {REFERENCE_INPUT}: "
              f"{'met' if slowest <= REFERENCE['train seconds'] / 2 else 'NOT met'} ({slowest:.1f} s against "
              f"{REFERENCE['train seconds']:.0f} s of the reference on a CPU)")


if __name__ == "__main__":
    main()
