"""Our GloVe with the reference implementation's settings, beside the reference's own figures.

    python benchmarks/glove_vs_reference.py [--corpus wiki-en] [--lr 0.05 0.1] [--repeats 3] [--device auto]
                                            [--span sentence corpus] [--synthetic-tokens 17000000]

Counts co-occurrences and trains GloVe with dim 100, window 15, min_count 5, x_max 10, alpha 0.75,
15 epochs and 2 threads (on a CPU), and prints two tables:

- counting: seconds, the peak of memory allocated while counting (as tracemalloc sees numpy and
  scipy) and the number of non-zero pairs, on the corpus and on a larger synthetic one (tokens
  drawn independently from a Zipf law over 71,000 words, as many tokens as text8: every pair is
  as unpredictable as it can be, so this is a worst case for the number of non-zeros);
- training, for each learning rate: seconds, entries per second (non-zeros times epochs over the
  seconds), memory (the largest growth of resident memory while training; on a GPU, the peak of
  GPU memory allocated), the mean loss per entry in the last epoch, analogy accuracy (semantic /
  syntactic / total, 3CosAdd, with coverage), WordSim-353 and SimLex-999 Spearman.

Both counting and training run twice by default (``--span``): with windows that stop at the end of
each sentence, and with the corpus as one stream whose windows run across sentence ends, which is
what cooccur.c does on a file with one document per line. Each figure is the median over
``--repeats`` runs. The reference rows quote the reference C
implementation (vocab_count, cooccur, shuffle, glove) as measured with the same settings on the same
machine: about 1 s to count, 50 s to train, about 3.2M non-zero pairs, analogy total 2.6%,
WordSim-353 0.25 and SimLex-999 0.15. ``--device cuda`` (or ``auto`` on a machine with a GPU)
trains on the GPU.
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import time
import tracemalloc

import numpy as np
from word2vec_vs_gensim import PeakMemory  # resident-memory sampler, in this folder

from course import load_corpus
from course.devices import resolve_device
from course.evaluate import evaluate_all, summary_row
from course.glove import GloVe, GloVeConfig, cooccurrence_counts
from course.vocab import Vocabulary

REFERENCE = {"count seconds": 1.0, "train seconds": 50.0, "non-zeros": 3_200_000, "analogy total": 0.026,
             "WordSim-353": 0.25, "SimLex-999": 0.15}
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
    parser.add_argument("--corpus", default="wiki-en")
    parser.add_argument("--lr", type=float, nargs="+", default=[0.05, 0.1], help="learning rates to train with")
    parser.add_argument("--batch-size", type=int, default=GloVeConfig.batch_size, help="non-zero entries per update")
    parser.add_argument("--epochs", type=int, default=SETTINGS["epochs"])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--device", default="auto", help="auto (CUDA if present), cpu or cuda")
    parser.add_argument("--repeats", type=int, default=3, help="runs of each; medians are printed")
    parser.add_argument("--span", nargs="+", choices=("sentence", "corpus"), default=["sentence", "corpus"],
                        help="windows stop at sentence ends, or run across them (one stream, like cooccur.c on "
                             "a file of whole documents); default: both")
    parser.add_argument("--synthetic-tokens", type=int, default=17_000_000,
                        help="tokens of the synthetic corpus for the counting table (0: skip it)")
    args = parser.parse_args()

    corpus = load_corpus(args.corpus, progress=False)
    vocab = Vocabulary.from_corpus(corpus, min_count=SETTINGS["min_count"], specials=())
    ids, offsets = vocab.encode_corpus(corpus)
    base = GloVeConfig(**{**SETTINGS, "epochs": args.epochs}, threads=args.threads, device=args.device,
                       batch_size=args.batch_size)
    device = resolve_device(base.device)
    print(f"{corpus.name}: {corpus.num_tokens:,} tokens in {corpus.num_sentences:,} sentences, {len(vocab):,} words "
          f"at min_count {SETTINGS['min_count']}; dim {base.dim}, window {base.window}, x_max {base.x_max:g}, "
          f"alpha {base.alpha}, {base.epochs} epochs, {base.threads} threads, batches of {base.batch_size:,}; "
          f"device {device}; medians of {args.repeats} runs\n")

    print(f"{'counting':<32}{'seconds':>9}{'peak MB':>9}{'non-zeros':>13}")
    print("-" * 63)
    counts = {}
    for span in args.span:
        span_offsets = offsets if span == "sentence" else np.array([0, len(ids)])
        runs = [timed_count(ids, span_offsets, len(vocab), base.window) for _ in range(args.repeats)]
        counts[span] = runs[0][0]
        print(f"{f'ours, {corpus.name}, {span} windows':<32}{statistics.median(r[1] for r in runs):>9.2f}"
              f"{statistics.median(r[2] for r in runs) / 2**20:>9.0f}{counts[span].nnz:>13,}", flush=True)
    if args.synthetic_tokens:
        synthetic_ids, synthetic_offsets = synthetic_corpus(args.synthetic_tokens)
        synthetic, seconds, peak = timed_count(synthetic_ids, synthetic_offsets, 71_000, base.window)
        label = f"ours, Zipf {args.synthetic_tokens / 1e6:g}M tokens"
        print(f"{label:<32}{seconds:>9.2f}{peak / 2**20:>9.0f}{synthetic.nnz:>13,}", flush=True)
        del synthetic, synthetic_ids, synthetic_offsets
    print(f"{'reference C, ' + corpus.name:<32}{REFERENCE['count seconds']:>9.1f}{'':>9}"
          f"{REFERENCE['non-zeros']:>13,}\n")

    header = (f"{'training':<12}{'windows':>9}{'lr':>6}{'seconds':>9}{'entries/s':>12}{'mem MB':>8}{'loss':>8}"
              f"{'sem':>7}{'syn':>7}{'total':>7}{'cover':>7}{'WS353':>7}{'SL999':>7}")
    print(header)
    print("-" * len(header))
    for span, lr in [(span, lr) for span in args.span for lr in args.lr]:
        config = dataclasses.replace(base, lr=lr, across_sentences=span == "corpus")
        done = [train_once(vocab, counts[span], config) for _ in range(args.repeats)]
        row = {key: statistics.median(run[key] for run in done) for key in done[0]}
        row["peak"] = max(run["peak"] for run in done)  # later runs on a CPU reuse the memory the first one freed
        speed = config.epochs * counts[span].nnz / row["seconds"]
        print(f"{'ours':<12}{span:>9}{lr:>6g}{row['seconds']:>9.1f}{speed:>12,.0f}{row['peak'] / 2**20:>8.0f}"
              f"{row['loss']:>8.4f}"
              f"{100 * row['analogy semantic']:>6.1f}%{100 * row['analogy syntactic']:>6.1f}%"
              f"{100 * row['analogy total']:>6.1f}%{100 * row['analogy coverage']:>6.1f}%"
              f"{row['WordSim-353']:>7.3f}{row['SimLex-999']:>7.3f}", flush=True)
    speed = SETTINGS["epochs"] * REFERENCE["non-zeros"] / REFERENCE["train seconds"]
    print(f"{'reference C':<12}{'':>9}{0.05:>6g}{REFERENCE['train seconds']:>9.1f}{speed:>12,.0f}"
          f"{'':>8}{'':>8}{'':>7}{'':>7}"
          f"{100 * REFERENCE['analogy total']:>6.1f}%{'':>7}{REFERENCE['WordSim-353']:>7.3f}"
          f"{REFERENCE['SimLex-999']:>7.3f}")


if __name__ == "__main__":
    main()
