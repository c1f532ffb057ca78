"""The NER learning curve of notebook 09 at any size: entity F1 per input, number of labelled sentences and seed.

    python benchmarks/ner_learning_curve.py                                   # notebook 09's full profile
    python benchmarks/ner_learning_curve.py --counts 3000 all --inputs learned word2vec elmo

Prints one table of test entity F1 (mean ± half range over seeds), one of F1 on entities of words the labels never
showed, and the seconds per run. Uses the course's People's Daily vectors, biLM and BERT from build/models/ (each
trained and saved if missing, and only when an input needs it).
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
from course.shared.transformers import course_transformer
from course.shared.vectors import course_vectors
from course.tagger import INPUTS, TaggerConfig
from course.tagger.curves import curve_table, learning_curve
from course.tasks.ner import ner_data


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--inputs", nargs="+", default=list(INPUTS), choices=INPUTS)
    parser.add_argument("--counts", nargs="+", default=["100", "300", "1000"], help="labelled sentences, or all")
    parser.add_argument("--seeds", nargs="+", type=int, default=[1, 2, 3])
    parser.add_argument("--dev-sentences", type=int, default=500)
    parser.add_argument("--test-sentences", type=int, default=None, help="default: the whole test split")
    parser.add_argument("--epochs", type=int, default=None, help="default: by the number of labels")
    args = parser.parse_args()
    counts = [count if count == "all" else int(count) for count in args.counts]
    data = ner_data()
    dev, test = data.dev[:args.dev_sentences], data.test[:args.test_sentences]
    vectors = {"word2vec": course_vectors("skipgram-neg", "peoples-daily-zh"),
               "glove": course_vectors("glove", "peoples-daily-zh")}
    elmo = course_elmo("peoples-daily-zh") if any(name.startswith("elmo") for name in args.inputs) else None
    bert = (course_transformer("peoples-daily-zh", "masked") if any(name.startswith("bert") for name in args.inputs)
            else None)
    started = time.perf_counter()
    rows = learning_curve(data, args.inputs, counts, args.seeds, dev, test, vectors=vectors, elmo=elmo, bert=bert,
                          config=TaggerConfig(epochs=args.epochs, device="auto"),
                          on_run=lambda r: print(f"{r['input']} {r['labels']:,} seed {r['seed']}: F1 {r['f1']:.3f}, "
                                                 f"{r['seconds']:.0f} s", file=sys.stderr, flush=True))
    labels = sorted({row["labels"] for row in rows})
    for measure, title in [("f1", "test entity F1"), ("unseen_f1", "F1 on entities of unseen words"),
                           ("seconds", "seconds per run")]:
        table = curve_table(rows, measure)
        print(f"\n{title} ({len(test):,} test sentences, seeds {args.seeds})\n")
        print("| input | " + " | ".join(f"{n:,} labels" for n in labels) + " |")
        print("|---|" + "---|" * len(labels))
        for name in args.inputs:
            cells = [f"{table[name][n][0]:.3f} ± {table[name][n][1]:.3f}" if n in table.get(name, {}) else "-"
                     for n in labels]
            print(f"| {name} | " + " | ".join(cells) + " |")
    print(f"\n{len(rows)} runs in {time.perf_counter() - started:.0f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
