"""t-SNE maps of the course's word vectors with scikit-learn's 1,000 iterations and with fewer: the
time each takes, and how many of each word's nearest neighbours (cosine, in the vectors) stay among
its nearest on the map.

    python benchmarks/tsne_iterations.py [--vectors build/models/skipgram-neg-wiki-en.txt] [--words 5000]
        [--iterations 1000 750 500] [--seeds 0 1]

Run ``make course`` (or notebook 02) first for the vectors. "kept" is the mean share of each word's
``--neighbours`` nearest words in the vectors that are also among its nearest on the map (1: every
neighbourhood kept; a random map keeps about neighbours / words). Medians over the seeds. The
machine is shared and noisy: compare the rows of one run.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
from gensim.models import KeyedVectors
from sklearn.neighbors import NearestNeighbors

from course.figures.plots import tsne


def kept(vectors: np.ndarray, points: np.ndarray, neighbours: int) -> float:
    """Mean share of each row's ``neighbours`` nearest rows (cosine) that are also nearest on the map."""
    def nearest(x, metric):
        found = NearestNeighbors(n_neighbors=neighbours + 1, metric=metric).fit(x)
        return found.kneighbors(x, return_distance=False)[:, 1:]

    before, after = nearest(vectors, "cosine"), nearest(points, "euclidean")
    return float(np.mean([len(set(a) & set(b)) / neighbours for a, b in zip(before, after, strict=True)]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vectors", default="build/models/skipgram-neg-wiki-en.txt")
    parser.add_argument("--words", type=int, default=5_000, help="the most frequent words, as notebook 02's map")
    parser.add_argument("--iterations", type=int, nargs="+", default=[1_000, 750, 500])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1])
    parser.add_argument("--neighbours", type=int, default=10)
    args = parser.parse_args()
    vectors = np.asarray(KeyedVectors.load_word2vec_format(args.vectors).vectors[:args.words], dtype=np.float64)
    print(f"{args.vectors}: {len(vectors):,} words, seeds {args.seeds}, {args.neighbours} neighbours")
    print(f"{'iterations':>10} {'seconds':>8} {'kept':>6}")
    for iterations in args.iterations:
        seconds, shares = [], []
        for seed in args.seeds:
            start = time.perf_counter()
            points = tsne(vectors, seed=seed, iterations=iterations)
            seconds.append(time.perf_counter() - start)
            shares.append(kept(vectors, points, args.neighbours))
        print(f"{iterations:>10,} {statistics.median(seconds):>8.1f} {statistics.median(shares):>6.3f}", flush=True)


if __name__ == "__main__":
    main()
