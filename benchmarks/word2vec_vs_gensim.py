"""Our word2vec against gensim's, same corpus, same settings, one process, one table.

    python benchmarks/word2vec_vs_gensim.py [--corpus wiki-en] [--epochs 5 20] [--repeats 3] [--variants sg-neg ...]
                                            [--batch-size N ...] [--undamped] [--device cpu]

For each variant (skip-gram or CBOW, negative sampling or hierarchical softmax) and each number of
epochs, trains ours and gensim.models.Word2Vec with dim 100, window 5, negative 5, min_count 5,
sample 1e-3 and 2 threads, and prints wall seconds, raw words per second (corpus tokens times
epochs over the training time), the peak growth of resident memory during training, analogy
accuracy (semantic / syntactic / total, with coverage), WordSim-353 and SimLex-999 Spearman, and
the ratios ours / gensim. Each pair of runs is repeated with seeds 1, 2, ... (ours and gensim
alternately, so both see the same load on a shared machine, and with the same seed) and every figure
is the median over the repeats: on this small corpus one run's scores move with its seed by more
than the differences the table is read for.
"""

from __future__ import annotations

import argparse
import statistics
import threading
import time

import numpy as np

from course.runtime import setup_cpu

setup_cpu()  # before anything imports PyTorch: how its CPU threads wait

from course import load_corpus
from course.analysis.evaluate import evaluate_all, summary_row
from course.text.vocab import Vocabulary
from course.word2vec import Word2VecConfig, train_word2vec

VARIANTS = {"sg-neg": ("skipgram", "neg"), "cbow-neg": ("cbow", "neg"), "sg-hs": ("skipgram", "hs"),
            "cbow-hs": ("cbow", "hs")}


def _rss_bytes() -> int:
    with open("/proc/self/statm") as handle:
        return int(handle.read().split()[1]) * 4096


class PeakMemory:
    """Samples resident memory every 20 ms in a thread; ``peak`` is the largest growth seen."""

    def __enter__(self):
        self.start, self.peak, self._stop = _rss_bytes(), 0, threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()
        return self

    def _sample(self):
        while not self._stop.wait(0.02):
            self.peak = max(self.peak, _rss_bytes() - self.start)

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, _rss_bytes() - self.start)


def run_ours(corpus, arch, loss, epochs, seed, device="cpu", batch_size=None, damp_tree_steps=True):
    config = Word2VecConfig(arch=arch, loss=loss, epochs=epochs, threads=2, negative=5 if loss == "neg" else 0,
                            seed=seed, device=device, batch_size=batch_size, damp_tree_steps=damp_tree_steps)
    train_word2vec(corpus.head(1000), config, progress=False)  # imports and first calls, outside the clock
    with PeakMemory() as memory:
        start = time.perf_counter()
        model = train_word2vec(corpus, config, progress=False)
        seconds = time.perf_counter() - start
    return model.keyed_vectors(), seconds, memory.peak


def run_gensim(sentences, arch, loss, epochs, seed, tree_vocab=None):
    """gensim's Word2Vec; with ``tree_vocab`` (HS only), on the Huffman tree of our Vocabulary instead of its own."""
    from gensim.models import Word2Vec

    with PeakMemory() as memory:
        start = time.perf_counter()
        model = Word2Vec(vector_size=100, window=5, min_count=5, sample=1e-3, workers=2, seed=seed,
                         sg=int(arch == "skipgram"), hs=int(loss == "hs"), negative=5 if loss == "neg" else 0,
                         epochs=epochs)
        model.build_vocab(sentences)
        if tree_vocab is not None:
            tree = tree_vocab.huffman()
            for word_id, word in enumerate(tree_vocab.words):
                length = tree.lengths[word_id]
                model.wv.set_vecattr(word, "code", tree.codes[word_id, :length].astype(np.uint8))
                model.wv.set_vecattr(word, "point", tree.points[word_id, :length].astype(np.uint32))
        model.train(sentences, total_examples=model.corpus_count, epochs=epochs)
        seconds = time.perf_counter() - start
    return model.wv, seconds, memory.peak


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", default="wiki-en")
    parser.add_argument("--epochs", type=int, nargs="+", default=[5, 20])
    parser.add_argument("--variants", nargs="+", choices=list(VARIANTS), default=list(VARIANTS))
    parser.add_argument("--repeats", type=int, default=3,
                        help="runs of each, with seeds 1, 2, ...; medians are printed")
    parser.add_argument("--device", default="cpu", help="where ours trains (cpu, cuda, auto); gensim uses the CPU")
    parser.add_argument("--batch-size", type=int, nargs="+", default=[None],
                        help="ours: pairs (skip-gram) or windows (CBOW) per update; several to compare")
    parser.add_argument("--undamped", action="store_true",
                        help="HS: also run ours without damping the tree nodes' steps ('ours-undamped')")
    parser.add_argument("--gensim-our-tree", action="store_true",
                        help="HS: also run gensim on our Huffman tree ('gensim-ourtree'): ties make trees differ")
    args = parser.parse_args()
    corpus = load_corpus(args.corpus, progress=False)
    sentences = list(corpus)
    our_vocab = Vocabulary.from_corpus(corpus, min_count=5, specials=())
    header = (f"{'variant':<9}{'ep':>3} {'impl':<14}{'seconds':>8}{'words/s':>10}{'mem MB':>8}"
              f"{'sem':>7}{'syn':>7}{'total':>7}{'cover':>7}{'WS353':>7}{'SL999':>7}")
    print(f"{corpus.name}: {corpus.num_tokens:,} tokens; dim 100, window 5, negative 5, min_count 5, "
          f"sample 1e-3, 2 threads; ours on {args.device}; medians of {args.repeats} runs\n")
    lowest = []  # (median speed ratio to gensim, which run)
    print(header)
    print("-" * len(header))
    keys = ("analogy semantic", "analogy syntactic", "analogy total", "analogy coverage", "WordSim-353",
            "SimLex-999")
    for name in args.variants:
        arch, loss = VARIANTS[name]
        for epochs in args.epochs:
            impls = {("ours" if size is None else f"ours/{size}"): (size, True) for size in args.batch_size}
            if args.undamped and loss == "hs":
                impls.update({f"{impl}-undamped": (size, False) for impl, (size, _) in list(impls.items())})
            others = ["gensim", *(["gensim-ourtree"] if args.gensim_our_tree and loss == "hs" else [])]
            runs = {impl: [] for impl in [*impls, *others]}
            for seed in range(1, args.repeats + 1):
                for impl in runs:
                    if impl in others:
                        tree_vocab = our_vocab if impl == "gensim-ourtree" else None
                        kv, seconds, peak = run_gensim(sentences, arch, loss, epochs, seed, tree_vocab)
                    else:
                        kv, seconds, peak = run_ours(corpus, arch, loss, epochs, seed, args.device, *impls[impl])
                    row = summary_row(evaluate_all(kv, methods=("3cosadd",)))
                    runs[impl].append({"seconds": seconds, "peak": peak, **{key: row[key] for key in keys}})
            figures = {impl: {key: statistics.median(run[key] for run in done) for key in done[0]}
                       for impl, done in runs.items()}
            for impl, row in figures.items():
                speed = epochs * corpus.num_tokens / row["seconds"]
                print(f"{name:<9}{epochs:>3} {impl:<14}{row['seconds']:>8.1f}{speed:>10,.0f}{row['peak'] / 2**20:>8.0f}"
                      f"{100 * row['analogy semantic']:>6.1f}%{100 * row['analogy syntactic']:>6.1f}%"
                      f"{100 * row['analogy total']:>6.1f}%{100 * row['analogy coverage']:>6.1f}%"
                      f"{row['WordSim-353']:>7.3f}{row['SimLex-999']:>7.3f}", flush=True)
            theirs = figures["gensim"]
            for impl in impls:
                ours = figures[impl]
                ratios = [t["seconds"] / o["seconds"] for o, t in zip(runs[impl], runs["gensim"], strict=True)]
                lowest.append((statistics.median(ratios), f"{name}, {epochs} epochs, {impl}"))
                print(f"{'':<13}{impl:<14}speed {statistics.median(ratios):.2f}x of gensim (runs: "
                      f"{', '.join(f'{r:.2f}' for r in ratios)}); analogy total "
                      f"{100 * (ours['analogy total'] - theirs['analogy total']):+.1f} points; WordSim-353 "
                      f"{ours['WordSim-353'] - theirs['WordSim-353']:+.3f}", flush=True)
                if "gensim-ourtree" in figures:
                    same_tree = figures["gensim-ourtree"]
                    print(f"{'':<27}against gensim on our tree: analogy total "
                          f"{100 * (ours['analogy total'] - same_tree['analogy total']):+.1f} points; WordSim-353 "
                          f"{ours['WordSim-353'] - same_tree['WordSim-353']:+.3f}", flush=True)

    if lowest:
        ratio, where = min(lowest)
        print(f"\nthe course's target, every variant at least half of gensim's words/s: "
              f"{'met' if ratio >= 0.5 else 'NOT met'} (slowest: {where}, {ratio:.2f}x)")


if __name__ == "__main__":
    main()
