"""ELMo's biLM: training speed, held-out perplexity and minutes to beat counting, per preset, one table.

    python benchmarks/elmo_throughput.py [--corpus wiki-en] [--presets cpu gpu] [--device auto]
                                         [--minutes 10 | --max-steps N] [--epochs N] [--eval-every 100]
                                         [--save-dir DIR] [--probes FILE] [--threads N]
                                         [--set FIELD=VALUE ...]

For each preset, trains the biLM on the corpus from its seed (every 20th sentence held out) and
prints the device, the steps and training tokens done, the time spent in training steps (the
held-out evaluations are not counted), training tokens per second, the held-out perplexity of the
forward and the backward LM where training stopped, and **minutes to target**: the training time
until the held-out perplexity of both directions first fell below the interpolated Kneser-Ney
bigram model's on the same split (and, second figure, below 0.75 of it), measured every
``--eval-every`` steps. By default a preset trains for all its epochs; ``--minutes`` or
``--max-steps`` stop it early (the learning rate still follows the schedule of all its epochs).
With ``--probes`` (a probe file such as ``en_polysemy.tsv``, one the course ships), every evaluation also
runs the sense probe on the file's dev sentences, and a second table follows the run: perplexity
and the mean leave-one-out 1-NN sense accuracy of layers 1 and 2 as training goes on, beside the
untrained network's; it shows whether a better language model separates senses better.
``--set`` changes a setting of every preset (a JSON value: ``--set lstm_dim=256 --set
'filters=[[1,32],[2,32],[3,64],[4,64]]'``), to measure a smaller or larger biLM against the same bigram;
``--threads 2`` trains the two directions side by side, as the course's full profile does on 2 cores.
For reference: a plain forward two-layer LSTM language model (embedding 256, hidden 512,
full softmax over ~9,000 words) trains at about 2,000 tokens/second on a 2-core CPU and reaches a
validation perplexity of about 680 after one epoch of wiki-en.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from course.core.runtime import setup_cpu

setup_cpu()  # before anything imports PyTorch: how its CPU threads wait

from course import load_corpus
from course.analysis.probes import probe_model, probe_summary, read_probes
from course.counts.ngram import KneserNeyLM
from course.elmo import evaluate_perplexity, preset, train_elmo
from course.elmo.training import language_model_data, vocabularies
from course.lm import split_heldout

REFERENCE_PERPLEXITY = 680
TARGET = 0.75  # the course's target: held-out perplexity at most 0.75 of the Kneser-Ney bigram's


def kneser_ney_bigram(corpus, config) -> dict:
    """Held-out perplexity of the Kneser-Ney bigram model per direction, on the biLM's own split."""
    train_numbers, heldout_numbers = split_heldout(corpus, config)
    words, _ = vocabularies(corpus, train_numbers, config)
    train = [corpus[int(i)] for i in train_numbers]
    heldout = [corpus[int(i)] for i in heldout_numbers]
    vocabulary = [word for word in words.words if word not in words.specials]
    return {d: KneserNeyLM(train, 2, vocabulary, direction=d).perplexity(heldout) for d in ("forward", "backward")}


def run(corpus, name: str, device: str, epochs: int | None, max_steps: int | None, minutes: float | None,
        seed: int, save_dir: str | None, eval_every: int, probes=None, settings: dict | None = None) -> dict:
    overrides = {"device": device, "seed": seed, **({"epochs": epochs} if epochs else {}), **(settings or {})}
    config = preset(name, **overrides)
    bigram = kneser_ney_bigram(corpus, config)
    train_elmo(corpus.head(200), config, progress=False, max_steps=2)  # imports and first calls, off the clock
    heldout_numbers = split_heldout(corpus, config)[1]
    reached = {1.0: None, TARGET: None}  # share of the bigram's perplexity -> training seconds when first below
    heldout_data, progress = {}, []

    def measure(model):  # every eval_every steps: held-out perplexity (not on the training clock)
        if model.state.step % eval_every or (progress and progress[-1]["step"] == model.state.step):
            return
        if "data" not in heldout_data:
            heldout_data["data"] = language_model_data(corpus, heldout_numbers, model)
        measured = evaluate_perplexity(model.bilm, heldout_data["data"], model.config)
        for share in reached:
            if reached[share] is None and all(measured[d] < share * bigram[d] for d in bigram):
                reached[share] = model.state.seconds
        row = {"step": model.state.step, "minutes": model.state.seconds / 60,
               "forward": measured["forward"], "backward": measured["backward"]}
        if probes:
            if "untrained" not in heldout_data:
                heldout_data["untrained"] = model.untrained()
            summary = probe_summary(probe_model(model, probes, untrained=heldout_data["untrained"]))
            row["sense_by_layer"] = [entry["trained"] for entry in summary["layers"]]
            row["sense_untrained"] = summary["layers"][-1]["untrained"]
        progress.append(row)

    start = time.perf_counter()
    model = train_elmo(corpus, config, max_steps=max_steps, max_seconds=minutes * 60 if minutes else None,
                       callback=measure)
    wall = time.perf_counter() - start
    if save_dir:
        model.save(Path(save_dir) / f"elmo-{name}-{Path(corpus.name).stem}.pt")
    state = model.state
    heldout = state.kept or {"forward": float("nan"), "backward": float("nan")}
    label = name + "".join(f" {key}={json.dumps(value)}" for key, value in (settings or {}).items()
                           if key not in ("device", "seed"))
    return {"preset": label, "device": str(model.device), "parameters": sum(p.numel() for p in model.bilm.parameters()),
            "vocabulary": len(model.words), "epochs": round(state.tokens / max(1, _train_tokens(corpus, config)), 2),
            "steps": state.step, "tokens": state.tokens, "train_seconds": state.seconds, "wall_seconds": wall,
            "tokens_per_second": state.tokens_per_second, "forward_perplexity": heldout["forward"],
            "backward_perplexity": heldout["backward"], "bigram_perplexity": bigram,
            "minutes_to_bigram": None if reached[1.0] is None else reached[1.0] / 60,
            "minutes_to_target": None if reached[TARGET] is None else reached[TARGET] / 60,
            "progress": progress}


def _setting(text: str) -> tuple[str, object]:
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"expected FIELD=VALUE, got {text!r}")
    try:
        return key, json.loads(value)
    except json.JSONDecodeError:
        return key, value


def _train_tokens(corpus, config) -> int:
    train, _ = split_heldout(corpus, config)
    return int(corpus.lengths()[train].sum())


def _progress_table(row: dict) -> list[tuple[str, ...]]:
    layers = len(row["progress"][0].get("sense_by_layer", []))
    header = ("step", "train min", "ppl fwd", "ppl bwd") + tuple(f"sense L{j}" for j in range(1, layers)) \
        + ((f"sense untrained L{layers - 1}",) if layers else ())
    table = [header]
    for p in row["progress"]:
        senses = tuple(f"{value:.3f}" for value in p.get("sense_by_layer", [])[1:])
        untrained = (f"{p['sense_untrained']:.3f}",) if layers else ()
        table.append((f"{p['step']:,}", f"{p['minutes']:.1f}", f"{p['forward']:.1f}", f"{p['backward']:.1f}")
                     + senses + untrained)
    return table


def _print_table(table, title: str, left: int = 2) -> None:
    widths = [max(len(row[i]) for row in table) for i in range(len(table[0]))]
    print(title)
    for number, row in enumerate(table):
        print("  ".join(cell.ljust(w) if i < left else cell.rjust(w) for i, (cell, w) in
                        enumerate(zip(row, widths, strict=True))))
        if number == 0:
            print("  ".join("-" * w for w in widths))


def _minutes(value) -> str:
    return "not reached" if value is None else f"{value:.1f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", default="wiki-en")
    parser.add_argument("--presets", nargs="+", choices=("cpu", "gpu"), default=["cpu"])
    parser.add_argument("--device", default="auto", help="auto (CUDA if present), cpu or cuda")
    parser.add_argument("--epochs", type=int, default=None, help="default: each preset's own")
    stop = parser.add_mutually_exclusive_group()
    stop.add_argument("--minutes", type=float, default=None, help="stop each preset after this long")
    stop.add_argument("--max-steps", type=int, default=None, help="stop each preset after this many steps")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--eval-every", type=int, default=100, metavar="STEPS",
                        help="held-out perplexity every this many steps, for the minutes to target")
    parser.add_argument("--json", default=None, metavar="FILE", help="also write the rows as JSON")
    parser.add_argument("--save-dir", default=None, metavar="DIR", help="also save each model there")
    parser.add_argument("--probes", default=None, metavar="FILE",
                        help="a probe file: the sense probe on its dev sentences at every evaluation")
    parser.add_argument("--threads", type=int, default=None,
                        help="CPU threads (2: the directions side by side); default: each preset's own")
    parser.add_argument("--set", dest="settings", type=_setting, action="append", default=[], metavar="FIELD=VALUE",
                        help="change a setting of every preset (a JSON value), e.g. lstm_dim=256")
    args = parser.parse_args()
    settings = dict(args.settings) | ({"threads": args.threads} if args.threads else {})

    corpus = load_corpus(args.corpus)
    probes = read_probes(args.probes, split="dev") if args.probes else None
    rows = [run(corpus, name, args.device, args.epochs, args.max_steps, args.minutes, args.seed,
                args.save_dir, args.eval_every, probes, settings)
            for name in args.presets]
    header = ("preset", "device", "params", "vocab", "epochs", "steps", "tokens", "train s", "tokens/s",
              "ppl fwd", "ppl bwd", "KN bigram", "min to < KN", "min to < 0.75 KN")
    table = [header] + [(r["preset"], r["device"], f"{r['parameters'] / 1e6:.1f}M", f"{r['vocabulary']:,}",
                         f"{r['epochs']:.2f}", f"{r['steps']:,}", f"{r['tokens']:,}", f"{r['train_seconds']:.0f}",
                         f"{r['tokens_per_second']:,.0f}", f"{r['forward_perplexity']:.1f}",
                         f"{r['backward_perplexity']:.1f}", f"{r['bigram_perplexity']['forward']:.1f}",
                         _minutes(r["minutes_to_bigram"]), _minutes(r["minutes_to_target"])) for r in rows]
    _print_table(table, f"\n{corpus.name}: {corpus.num_sentences:,} sentences, {corpus.num_tokens:,} tokens; "
          f"reference: a forward LSTM LM reaches perplexity ~{REFERENCE_PERPLEXITY} after one epoch on a 2-core CPU")
    for r in rows:
        if r["progress"]:
            _print_table(_progress_table(r), f"\n{r['preset']}: as training goes on (held-out perplexity"
                         + (f"; sense probe, dev sentences of {args.probes})" if probes else ")"), left=0)
    if len(rows) == 2:
        print(f"\n{rows[1]['preset']} / {rows[0]['preset']} tokens per second: "
              f"{rows[1]['tokens_per_second'] / max(rows[0]['tokens_per_second'], 1e-9):.1f}x")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(rows, handle, indent=2)


if __name__ == "__main__":
    main()
