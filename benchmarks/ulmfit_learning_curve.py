"""Notebook 10's comparison at any size: test error per variant, number of labelled reviews and seed.

    python benchmarks/ulmfit_learning_curve.py                                  # notebook 10's learning curve
    python benchmarks/ulmfit_learning_curve.py --counts all --variants "from scratch" "ULMFiT (1+2+3)"

Prints one table of test error (mean ± half range over seeds) per variant and count, with the bag-of-words
regression beside it, and the seconds per run. Uses the course's People's Daily biLM and the LM fine-tuned on
the reviews from build/models/ (trained and saved if missing).
"""

from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from course.core.runtime import setup_cpu

setup_cpu()  # before anything imports PyTorch: how its CPU threads wait

from course.shared.bilm import course_elmo
from course.shared.review_lm import course_review_lm
from course.tasks.reviews import review_data
from course.ulmfit import ClassifierConfig
from course.ulmfit.experiments import VARIANTS, bag_of_words, compare, error_table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variants", nargs="+", default=["from scratch", "stages 1+3", "ULMFiT (1+2+3)"],
                        choices=list(VARIANTS))
    parser.add_argument("--counts", nargs="+", default=["100", "300", "1000"], help="labelled reviews, or all")
    parser.add_argument("--seeds", nargs="+", type=int, default=[1, 2, 3])
    parser.add_argument("--dev-reviews", type=int, default=500)
    parser.add_argument("--epochs", type=int, default=None, help="default: by the number of labels")
    args = parser.parse_args()
    counts = [count if count == "all" else int(count) for count in args.counts]
    data = review_data()
    dev, test = data.dev[:args.dev_reviews], data.test
    lms = {"general": course_elmo("peoples-daily-zh", "full"), "fine-tuned": course_review_lm(data, "full")}

    def report(row: dict) -> None:
        print(f"  {row['variant']}, {row['labels']:,} labels, seed {row['seed']}: error {row['error']:.3f} "
              f"(best epoch {row['best_epoch']} of {row['epochs']}, {row['seconds']:.0f} s)", flush=True)

    started = time.perf_counter()
    rows = compare(data, args.variants, counts, args.seeds, lms, dev, test, ClassifierConfig(epochs=args.epochs),
                   on_run=report)
    rows += bag_of_words(data, counts, args.seeds, test)
    table = error_table(rows)
    labels = sorted({row["labels"] for row in rows})
    print(f"\ntest error on {len(test):,} reviews, mean ± half range over seeds {args.seeds} "
          f"({time.perf_counter() - started:.0f} s in all)")
    print("| variant | " + " | ".join(f"{n:,} labels" for n in labels) + " |")
    print("|---|" + "---|" * len(labels))
    for name, by_count in table.items():
        cells = [f"{by_count[n][0]:.3f} ± {by_count[n][1]:.3f}" if n in by_count else "-" for n in labels]
        print(f"| {name} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
