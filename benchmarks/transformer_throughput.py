"""Serial against parallel: training tokens per second of ELMo's LSTM biLM and of a Transformer of
about the same size, against sentence length, one table.

    python benchmarks/transformer_throughput.py [--lengths 8 16 32 64 128] [--batch-tokens 2000]
                                                [--repeats 5] [--threads 1 2] [--device cpu|cuda|auto]
                                                [--precision fp32|bf16] [--body] [--json FILE]

Each cell is the median over ``--repeats`` timed training steps (forward, backward, clipping, the
optimizer's update; one untimed step first; the two networks' steps in turn, one of each back to back,
so that both are timed under the same load) on random batches of ``--batch-tokens`` words made of
sentences of exactly that many words (see :mod:`course.transformer.throughput` for the two
networks: the ``cpu`` ELMo preset's biLM, 3.4 million weights, and a causal Transformer of 3.5
million). The last column is the Transformer's tokens/s over the LSTM's. On the CPU the table is
repeated for each ``--threads``; ``--device cuda`` runs on a GPU where there is one. With
``--body`` a second table times the networks without their softmaxes (the char-CNN and LSTMs against
the Transformer blocks, under a stand-in loss), which the two models do not share: the biLM's adaptive
softmax costs less per word than the Transformer's full softmax tied to its 8,874 word embeddings.
"""

from __future__ import annotations

import argparse
import json
import platform

from course.core.runtime import setup_cpu

setup_cpu()  # before anything imports PyTorch: how its CPU threads wait

from course.transformer.throughput import median_table, parameter_count, training_throughput


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lengths", type=int, nargs="+", default=[8, 16, 32, 64, 128])
    parser.add_argument("--batch-tokens", type=int, default=2_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--threads", type=int, nargs="+", default=[1], help="CPU threads (one table each)")
    parser.add_argument("--device", default="cpu", help="cpu, cuda or auto")
    parser.add_argument("--precision", choices=("fp32", "bf16"), default="fp32")
    parser.add_argument("--body", action="store_true", help="also time the networks without their softmaxes")
    parser.add_argument("--json", default=None, metavar="FILE", help="also write every timed step as JSON")
    args = parser.parse_args()

    rows = []
    threads = args.threads if args.device == "cpu" else [1]
    for softmax in (True, False) if args.body else (True,):
        for count in threads:
            rows += training_throughput(("lstm", "transformer"), args.lengths, args.batch_tokens, args.repeats,
                                        args.device, count, precision=args.precision, softmax=softmax)
    print(f"{platform.processor() or platform.machine()}, device {rows[0]['device']}, {args.precision}, batches of "
          f"{args.batch_tokens:,} words, median of {args.repeats} steps; weights: LSTM biLM "
          f"{parameter_count('lstm'):,}, Transformer {parameter_count('transformer'):,}")
    header = ("timed", "threads", "words/sentence", "LSTM tokens/s", "Transformer tokens/s", "Transformer / LSTM")
    table = [header] + [("whole LM" if e["softmax"] else "body only", str(e["threads"] or "-"), str(e["length"]),
                         f"{e['lstm']:,.0f}", f"{e['transformer']:,.0f}", f"{e['ratio']:.2f}")
                        for e in median_table(rows)]
    widths = [max(len(row[i]) for row in table) for i in range(len(header))]
    for number, row in enumerate(table):
        print("  ".join(cell.rjust(width) for cell, width in zip(row, widths, strict=True)))
        if number == 0:
            print("  ".join("-" * width for width in widths))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(rows, handle, indent=1)


if __name__ == "__main__":
    main()
