"""Our word2vec against gensim's, same corpus, same settings, one process, one table.

    python benchmarks/word2vec_vs_gensim.py [--corpus wiki-en] [--epochs 5 20] [--repeats 3] [--variants sg-neg ...]
                                            [--batch-size N ...] [--undamped] [--device cpu]
    python benchmarks/word2vec_vs_gensim.py --processes [--corpora lee wiki-en] [--repeats 3] [--variants ...]

For each variant (skip-gram or CBOW, negative sampling or hierarchical softmax) and each number of
epochs, trains ours and gensim.models.Word2Vec with dim 100, window 5, negative 5, min_count 5,
sample 1e-3 and 2 threads, and prints wall seconds, raw words per second (corpus tokens times
epochs over the training time), the peak growth of resident memory during training, analogy
accuracy (semantic / syntactic / total, with coverage), WordSim-353 and SimLex-999 Spearman, and
the ratios ours / gensim. Each pair of runs is repeated with seeds 1, 2, ... (ours and gensim
alternately, so both see the same load on a shared machine, and with the same seed) and every figure
is the median over the repeats: on this small corpus one run's scores move with its seed by more
than the differences the table is read for.

With ``--processes`` each training is a whole process, as a user runs it: ours is
``python -m course train word2vec --corpus FILE --out VECTORS`` (with an empty cache: the text is
read and tokenised), gensim a ``python -c`` of ``Word2Vec(LineSentence(FILE), ...)`` with the
same settings, saving its vectors; the wall seconds run from the process's start to its exit:
interpreter, imports, reading, vocabulary, training and the vectors file. Both read the same text
file, the course's export of the corpus (``lee``: gensim's ``lee_background.cor``, which gensim's
own tests train on; ``wiki-en``). Quality comes from the vectors files: analogies and WordSim-353,
and on ``lee`` gensim's own sanity check, the rank of 'bombings' among the nearest words of
'attacks' (gensim's tests want it below 50). Before the table, one run of ours is timed phase by
phase on each corpus.
"""

from __future__ import annotations

import argparse
import math
import statistics
import threading
import time

import numpy as np

from course.core.runtime import setup_cpu

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


def run_ours(corpus, arch, loss, epochs, seed, device="cpu", batch_size=None, damped=True):
    """Ours in this process; ``damped=False``: neither the tree's nodes nor the input words damped."""
    config = Word2VecConfig(arch=arch, loss=loss, epochs=epochs, threads=2, negative=5 if loss == "neg" else 0,
                            seed=seed, device=device, batch_size=batch_size, damp_tree_steps=damped,
                            damp_input_steps=damped)
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


GENSIM_PROCESS = """
import sys
from gensim.models import Word2Vec
from gensim.models.word2vec import LineSentence
path, out, sg, hs, seed = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
model = Word2Vec(LineSentence(path), vector_size=100, window=5, min_count=5, sample=1e-3, workers=2, seed=seed,
                 sg=sg, hs=hs, negative=0 if hs else 5, epochs=5)
model.wv.save_word2vec_format(out)
"""

PHASES = """
import json, sys, time
marks = [("start", time.perf_counter())]
def mark(name):
    marks.append((name, time.perf_counter()))
import torch
mark("import torch")
from course.core.runtime import setup_cpu
setup_cpu()
from course.text.corpus import load_corpus
from course.word2vec import Word2Vec, Word2VecConfig
from course.word2vec.trainer import FastTrainer
mark("import course")
corpus = load_corpus(sys.argv[1], progress=False)
mark("read and tokenise")
arch, loss = sys.argv[2], sys.argv[3]
config = Word2VecConfig(arch=arch, loss=loss, negative=0 if loss == "hs" else 5)
model = Word2Vec.start(corpus, config)
mark("vocabulary and tables")
trainer = FastTrainer(model)
mark("noise table or tree")
trainer.train(corpus, progress=False)
mark("training")
model.save_vectors(sys.argv[4])
mark("vectors file")
print(json.dumps([(name, b - a) for (_, a), (name, b) in zip(marks, marks[1:])]))
"""


def corpus_file(name: str, folder) -> str:
    """The text file both implementations read: the course's export of corpus ``name``."""
    import subprocess
    import sys

    source = name
    if name == "lee":
        from gensim.test.utils import datapath

        source = datapath("lee_background.cor")
    path = f"{folder}/{name}.txt"
    subprocess.run([sys.executable, "-m", "course", "corpus", "export", source, "--out", path, "--quiet"],
                   check=True, env=_fresh_cache(folder))
    return path


def _fresh_cache(folder) -> dict:
    import os
    import tempfile

    return {**os.environ, "COURSE_CACHE": tempfile.mkdtemp(dir=folder)}


def timed_process(command, env=None) -> float:
    """Wall seconds of ``command`` as a process of its own, from its start to its exit."""
    import subprocess

    start = time.perf_counter()
    subprocess.run(command, check=True, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def process_quality(path, lee: bool) -> dict:
    """Analogy total, WordSim-353 and (``lee``) the rank of 'bombings' for 'attacks' of a vectors file."""
    from course.analysis.vectors import load_vectors

    kv = load_vectors(path)
    row = summary_row(evaluate_all(kv, methods=("3cosadd",)))
    rank = float("nan")
    if lee and "attacks" in kv and "bombings" in kv:
        rank = [word for word, _ in kv.most_similar("attacks", topn=len(kv))].index("bombings")
    return {"analogy total": row["analogy total"], "WordSim-353": row["WordSim-353"], "rank": rank}


def compare_processes(args) -> None:
    """The ``--processes`` tables: ours and gensim as whole processes, medians over the seeds."""
    import json
    import os
    import subprocess
    import sys
    import tempfile

    print(f"machine load before (uptime): {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} "
          f"{os.getloadavg()[2]:.2f}; 2 worker threads each; 5 epochs, gensim's defaults\n")
    start = timed_process([sys.executable, "-c", "pass"])
    print(f"a bare interpreter: {start:.2f} s")
    with tempfile.TemporaryDirectory() as folder:
        files = {name: corpus_file(name, folder) for name in args.corpora}
        for name, path in files.items():
            out = f"{folder}/phases.txt"
            result = subprocess.run([sys.executable, "-c", PHASES, path, "cbow", "neg", out], check=True,
                                    capture_output=True, text=True, env=_fresh_cache(folder))
            phases = json.loads(result.stdout.strip().splitlines()[-1])
            print(f"ours, cbow-neg on {name}, in one process (s): "
                  + ", ".join(f"{phase} {seconds:.2f}" for phase, seconds in phases))
        header = (f"{'corpus':<8}{'variant':<10}{'impl':<8}{'seconds':>8}{'analogy':>9}{'WS353':>7}{'rank':>6}"
                  f"{'  ours / gensim, time':>22}")
        print("\n" + header + "\n" + "-" * len(header))
        for name, path in files.items():
            for variant in args.variants:
                arch, loss = VARIANTS[variant]
                runs = {"ours": [], "gensim": []}
                for seed in range(1, args.repeats + 1):
                    for impl in runs:
                        out = f"{folder}/{impl}.txt"
                        if impl == "ours":
                            command = [sys.executable, "-m", "course", "train", "word2vec", "--corpus", path,
                                       "--arch", arch, "--loss", loss, "--seed", str(seed), "--out", out, "--quiet"]
                            seconds = timed_process(command, _fresh_cache(folder))
                        else:
                            command = [sys.executable, "-c", GENSIM_PROCESS, path, out, str(int(arch == "skipgram")),
                                       str(int(loss == "hs")), str(seed)]
                            seconds = timed_process(command)
                        runs[impl].append({"seconds": seconds, **process_quality(out, name == "lee")})
                medians = {impl: {key: statistics.median(run[key] for run in done) for key in done[0]}
                           for impl, done in runs.items()}
                for impl, row in medians.items():
                    ratio = row["seconds"] / medians["gensim"]["seconds"]
                    rank = "-" if math.isnan(row["rank"]) else f"{row['rank']:.0f}"
                    print(f"{name:<8}{variant:<10}{impl:<8}{row['seconds']:>8.2f}{100 * row['analogy total']:>8.1f}%"
                          f"{row['WordSim-353']:>7.3f}{rank:>6}"
                          f"{'' if impl == 'gensim' else f'{ratio:>20.2f}x'}", flush=True)
    print(f"\nmachine load after (uptime): {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} "
          f"{os.getloadavg()[2]:.2f}")


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
                        help="also run ours without damping the summed steps (HS: the tree nodes'; negative "
                             "sampling: the input words') ('ours-undamped')")
    parser.add_argument("--gensim-our-tree", action="store_true",
                        help="HS: also run gensim on our Huffman tree ('gensim-ourtree'): ties make trees differ")
    parser.add_argument("--processes", action="store_true",
                        help="whole processes, as a user runs them: wall time from start to exit, and quality")
    parser.add_argument("--corpora", nargs="+", default=["lee", "wiki-en"],
                        help="--processes: lee (gensim's lee_background.cor) and/or course corpora")
    args = parser.parse_args()
    if args.processes:
        return compare_processes(args)
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
            if args.undamped:
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
