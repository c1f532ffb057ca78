"""A slice of notebook 09's learning curve run one by one and on several processes: the time of each and their rows.

    python benchmarks/parallel_runs.py                       # learned, word2vec, elmo at 100 labels, seeds 1 and 2
    python benchmarks/parallel_runs.py --inputs learned --counts 100 300 --seeds 1 2 3 --workers 2
    python benchmarks/parallel_runs.py --inputs learned word2vec glove elmo elmo-finetuned --seeds 1 2 3 --orders

Full-profile settings (500 dev sentences, 2,000 test sentences, 8 dev evaluations, the course's People's Daily
word2vec and biLM from build/models/, trained and saved if missing). Runs :func:`course.tagger.curves.learning_curve`
with ``workers=1`` (the plain loop in this process) and then with ``--workers`` processes, prints both wall-clock
times and their ratio, and whether the rows are the same (every number and every predicted label; the seconds each
run took aside). Exits with status 1 if they are not. Beside each time it prints how many cores the run kept
busy on average (CPU seconds over wall-clock seconds) and the load average: where other programs use the cores
(Linux shares them between sessions first), the workers get fewer cores than there are and the times say so.
With ``--orders``, both runs are on ``--workers`` processes: the runs handed out in the rows' order, then the
fine-tuning runs first (``learning_curve``'s default), which keeps a long run from being the last one, alone on a core.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from course.core.runtime import setup_cpu

setup_cpu()  # before anything imports PyTorch: how its CPU threads wait

import torch  # noqa: E402

from course.core.parallel import available_cores, worker_count  # noqa: E402
from course.shared.bilm import course_elmo  # noqa: E402
from course.shared.vectors import course_vectors  # noqa: E402
from course.tagger import INPUTS, TaggerConfig  # noqa: E402
from course.tagger.curves import learning_curve  # noqa: E402
from course.tasks.ner import ner_data  # noqa: E402


def load() -> str:
    """The system's load average over the last minute: above the workers' number, other programs shared the cores
    and the times are not this code's alone."""
    return f"load average {os.getloadavg()[0]:.2f}"


def cpu_seconds() -> float:
    """CPU time (user and system) of this process and of its ended children (the workers, once joined)."""
    times = os.times()
    return times.user + times.system + times.children_user + times.children_system


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--inputs", nargs="+", default=["learned", "word2vec", "elmo"], choices=INPUTS)
    parser.add_argument("--counts", nargs="+", type=int, default=[100], help="labelled sentences")
    parser.add_argument("--seeds", nargs="+", type=int, default=[1, 2])
    parser.add_argument("--workers", type=int, default=2, help="processes of the parallel run")
    parser.add_argument("--orders", action="store_true",
                        help="compare the runs handed out in the rows' order and longest first, both on --workers")
    args = parser.parse_args()
    data = ner_data()
    dev, test = data.dev[:500], data.test[:2_000]
    vectors = {"word2vec": course_vectors("skipgram-neg", "peoples-daily-zh"),
               "glove": course_vectors("glove", "peoples-daily-zh")}
    elmo = course_elmo("peoples-daily-zh") if any(name.startswith("elmo") for name in args.inputs) else None
    config = TaggerConfig(evaluations=8, device="cpu")
    runs = len(args.inputs) * len(args.counts) * len(args.seeds)
    print(f"{runs} taggers ({', '.join(args.inputs)}; {args.counts} labels; seeds {args.seeds}); "
          f"{available_cores()} cores, torch {torch.get_num_threads()} threads here; {load()}", flush=True)
    ways = ({"as listed": (args.workers, False), "longest first": (args.workers, True)} if args.orders
            else {"one by one": (1, True), f"on {args.workers} workers": (args.workers, True)})
    rows, seconds = {}, {}
    for way, (workers, longest) in ways.items():
        started, cpu = time.perf_counter(), cpu_seconds()
        rows[way] = learning_curve(
            data, args.inputs, args.counts, args.seeds, dev, test, vectors=vectors, elmo=elmo, config=config,
            workers=workers, longest_first_order=longest,
            on_run=lambda r: print(f"  {r['input']} {r['labels']:,} seed {r['seed']}: F1 {r['f1']:.3f}, "
                                   f"{r['seconds']:.1f} s", flush=True))
        seconds[way] = time.perf_counter() - started
        busy = (cpu_seconds() - cpu) / seconds[way]
        print(f"{way}, workers={workers} ({worker_count(workers, runs)} process(es)): {seconds[way]:.1f} s, "
              f"{busy:.2f} cores busy on average; {load()}", flush=True)

    def strip(table):
        return [{key: value for key, value in row.items() if key != "seconds"} for row in table]

    first, second = ways
    same = strip(rows[first]) == strip(rows[second])
    print(f"{first} {seconds[first]:.1f} s, {second} {seconds[second]:.1f} s: "
          f"{seconds[first] / seconds[second]:.2f} times as fast; rows identical: {'yes' if same else 'NO'}")
    for one, other in zip(rows[first], rows[second], strict=True):
        for key in one:
            if key != "seconds" and one[key] != other[key]:
                print(f"  differ: {one['input']} {one['labels']:,} seed {one['seed']}: {key}")
    sys.exit(0 if same else 1)


if __name__ == "__main__":
    main()
