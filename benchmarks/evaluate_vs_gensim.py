"""Our vectorised analogy and similarity evaluation against gensim's, on the same vectors.

    python benchmarks/evaluate_vs_gensim.py [--repeats 3] [--vectors FILE]

Without ``--vectors`` it trains gensim's Word2Vec on wiki-en twice (min_count 5 and 1, so the
search space has ~9,000 and ~36,000 words). For each set of vectors it times gensim's
``evaluate_word_analogies`` / ``evaluate_word_pairs`` and ours, checks that the figures agree,
and prints the median wall time of ``--repeats`` runs and the ratio gensim / ours.
"""

from __future__ import annotations

import argparse
import statistics
import time

from gensim.test.utils import datapath

from course.core.runtime import setup_cpu

setup_cpu()  # before anything imports PyTorch: how its CPU threads wait

from course import load_corpus
from course.analysis import evaluate
from course.analysis.vectors import load_vectors


def median_seconds(function, repeats: int) -> tuple[float, object]:
    times, result = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        result = function()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def compare(name: str, kv, repeats: int) -> list[tuple]:
    rows = []
    questions = datapath("questions-words.txt")
    gensim_time, (score, _) = median_seconds(lambda: kv.evaluate_word_analogies(questions), repeats)
    ours_time, ours = median_seconds(lambda: evaluate.evaluate_analogies(kv), repeats)
    assert abs(ours.total.accuracy - score) < 1e-12, "analogy scores differ"
    rows.append((name, len(kv), "analogies 3CosAdd", gensim_time, ours_time, f"{100 * score:.2f}%"))
    cosmul_time, cosmul = median_seconds(lambda: evaluate.evaluate_analogies(kv, method="3cosmul"), repeats)
    rows.append((name, len(kv), "analogies 3CosMul", float("nan"), cosmul_time, f"{100 * cosmul.total.accuracy:.2f}%"))
    for benchmark in ("wordsim353", "simlex999"):
        path = str(evaluate.benchmark_path(benchmark))
        gensim_time, (_, spearman, _) = median_seconds(lambda p=path: kv.evaluate_word_pairs(p), repeats)
        ours_time, result = median_seconds(lambda b=benchmark: evaluate.evaluate_similarity(kv, b), repeats)
        assert result.spearman == spearman.statistic, "similarity figures differ"
        rows.append((name, len(kv), benchmark, gensim_time, ours_time, f"{result.spearman:.4f}"))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--vectors", help="a word2vec-format file instead of training on wiki-en")
    args = parser.parse_args()
    if args.vectors:
        sets = [(args.vectors, load_vectors(args.vectors))]
    else:
        from gensim.models import Word2Vec

        sentences = list(load_corpus("wiki-en", progress=False))
        sets = [(f"wiki-en min_count={m}", Word2Vec(sentences, vector_size=100, min_count=m, workers=2, epochs=5,
                                                    seed=1).wv) for m in (5, 1)]
    rows = [row for name, kv in sets for row in compare(name, kv, args.repeats)]
    header = f"{'vectors':<22}{'words':>8}  {'task':<18}{'gensim s':>10}{'ours s':>9}{'gensim/ours':>13}  figure"
    print(header)
    print("-" * len(header))
    for name, words, task, theirs, ours, figure in rows:
        ratio = f"{theirs / ours:.1f}x" if theirs == theirs else "-"
        gensim_cell = f"{theirs:.3f}" if theirs == theirs else "-"
        print(f"{name:<22}{words:>8,}  {task:<18}{gensim_cell:>10}{ours:>9.3f}{ratio:>13}  {figure}")
    print(f"\nmedian of {args.repeats} runs; figures agree exactly between gensim and ours (asserted)")


if __name__ == "__main__":
    main()
