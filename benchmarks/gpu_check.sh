#!/usr/bin/env bash
# The GPU checks in one command, under ten minutes on one GPU, and one table of the figures that
# docs/measurements.md's "On a GPU" quotes.
#
#     bash benchmarks/gpu_check.sh [--skip-tests]
#
#  1. the test files that train models or choose devices, on CUDA (tests/test_elmo.py,
#     test_transformer.py, test_word2vec.py, test_glove.py, test_tagger.py, test_cli.py,
#     test_cli_trainers.py and the other files in TEST_FILES below), TEST_WORKERS (8) at a time where
#     pytest-xdist is installed; the notebooks' own tests need Jupyter and stay on the CPU;
#     then torchrun on NCCL: one process on the GPU trains one epoch of the `cpu` preset's biLM and
#     of a causal Transformer on wiki-en, and must leave one model file each;
#  2. the biLM's training speed on wiki-en (benchmarks/elmo_throughput.py's run): the `cpu` preset on
#     one CPU thread and on CUDA, and the `gpu` preset on CUDA for STEPS steps (100), with its
#     held-out perplexity where it stopped beside the Kneser-Ney bigram's, and its peak GPU memory;
#     then what each setting gives the `gpu` preset: its tokens/s as it is (bfloat16, batches of
#     32,768 tokens), in float16, and with batches of 16,384 and 8,192 tokens (8,192 also in float16
#     and float32), SETTING_STEPS steps each (50), timed after the first 10, in two rounds;
#  3. the LSTM biLM against a Transformer of the same size on CUDA (course/transformer/throughput.py);
#  4. word2vec on CUDA against gensim with 2 workers on the CPU (benchmarks/word2vec_vs_gensim.py's
#     runs), EPOCHS epochs (5) of wiki-en, one run each: speed ratio and analogy accuracy.
#
# It needs the repository and `make setup` (with a CUDA build of PyTorch), and no network: wiki-en
# ships with gensim. Where there is no CUDA GPU it says so in one line and exits with status 2.
# The figures also go to build/gpu-check/ (GPU_CHECK_OUT): figures.json and the tests' log.
# Exit status: 0 when every test passed, 1 when one failed (the figures are printed either way).
set -euo pipefail

cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-.venv/bin/python}
OUT=${GPU_CHECK_OUT:-build/gpu-check}
STEPS=${STEPS:-100}
SETTING_STEPS=${SETTING_STEPS:-50}
EPOCHS=${EPOCHS:-5}
run_tests=1
for argument in "$@"; do
    case "$argument" in
        --skip-tests) run_tests=0 ;;
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) echo "error: unknown argument '$argument': use --skip-tests or nothing" >&2; exit 2 ;;
    esac
done
if [ ! -x "$PYTHON" ]; then
    echo "error: no Python at $PYTHON: run make setup first (or set PYTHON)" >&2
    exit 2
fi
if ! "$PYTHON" -c 'import sys, torch; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null; then
    echo "error: no CUDA GPU here (torch.cuda.is_available() is False: no GPU, or a CPU-only PyTorch): run this on a machine with one" >&2
    exit 2
fi
mkdir -p "$OUT"
start=$SECONDS

tests_status=0
tests_line="not run (--skip-tests)"
if [ "$run_tests" = 1 ]; then
    echo "== 1. the device tests on CUDA (log: $OUT/tests.log)"
    workers=()  # pytest-xdist, where installed: TEST_WORKERS processes share the GPU
    if "$PYTHON" -c 'import xdist' 2>/dev/null; then workers=(-n "${TEST_WORKERS:-8}"); fi
    TEST_FILES=(elmo transformer word2vec glove tagger cli cli_trainers lm side_by_side shared_models distributed
                parallel ulmfit transformer_classifier probes context_use supervised ner hogwild glove_reference
                evaluate gpu_check)
    COURSE_PROFILE=smoke "$PYTHON" -m pytest -q -p no:cacheprovider "${workers[@]}" \
        $(printf 'tests/test_%s.py ' "${TEST_FILES[@]}") >"$OUT/tests.log" 2>&1 || tests_status=1
    tests_line=$(grep -E '^(=+ )?[0-9]+ (passed|failed|error)' "$OUT/tests.log" | tail -n 1 | tr -d '=' | xargs || true)
    grep -E '^(FAILED|ERROR) ' "$OUT/tests.log" || true
    echo "   ${tests_line:-no summary: see $OUT/tests.log} ($((SECONDS - start)) s)"
fi

torchrun_line="not run (--skip-tests)"
if [ "$run_tests" = 1 ]; then
    echo "== 1b. torchrun on NCCL, one process on the GPU (log: $OUT/torchrun.log)"
    rm -rf "$OUT/torchrun"
    torchrun_status=0
    for model in elmo transformer; do
        "$PYTHON" -m torch.distributed.run --standalone --nproc_per_node 1 -m course train "$model" \
            --corpus wiki-en --preset cpu --epochs 1 --device cuda --out "$OUT/torchrun/$model.pt" --quiet \
            >>"$OUT/torchrun.log" 2>&1 || torchrun_status=1
    done
    files=$(find "$OUT/torchrun" -type f 2>/dev/null | wc -l)
    if [ "$torchrun_status" = 0 ] && [ -f "$OUT/torchrun/elmo.pt" ] && [ -f "$OUT/torchrun/transformer.pt" ]; then
        torchrun_line="biLM and Transformer trained, $files files written"
    else
        torchrun_line="failed (see $OUT/torchrun.log)"
        tests_status=1
        tail -n 5 "$OUT/torchrun.log"
    fi
    echo "   $torchrun_line ($((SECONDS - start)) s)"
fi

echo "== 2-4. biLM presets, LSTM against Transformer, word2vec against gensim"
"$PYTHON" - "$OUT" "$STEPS" "$EPOCHS" "$tests_line" "$torchrun_line" "$SETTING_STEPS" <<'PY'
import functools
import json
import platform
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, "benchmarks")
import elmo_throughput  # noqa: E402
import word2vec_vs_gensim  # noqa: E402

from course import load_corpus  # noqa: E402
from course.analysis.evaluate import evaluate_all, summary_row  # noqa: E402
from course.elmo import preset, train_elmo  # noqa: E402
from course.transformer.throughput import median_table, training_throughput  # noqa: E402

elmo_throughput.train_elmo = functools.partial(train_elmo, progress=False)  # no progress bars in the log

out, steps, epochs, tests = Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
torchrun, setting_steps = sys.argv[5], int(sys.argv[6])
CPU_PRESET_ON_2_CORES = 4_030  # the `cpu` preset's tokens/s on one thread of a 2-core CPU (course/elmo/config.py)
gpu_device = "cuda"
on_gpu = gpu_device == "cuda"
corpus = load_corpus("wiki-en", progress=False)
figures = {"gpu": torch.cuda.get_device_name(0) if on_gpu else "none", "torch": torch.__version__,
           "cuda": torch.version.cuda,
           "cpu": platform.processor() or platform.machine(), "tests": tests, "elmo": {}}


def say(text):
    print(f"   {text}", flush=True)


def elmo(preset, device, max_steps, eval_every):
    if on_gpu:
        torch.cuda.reset_peak_memory_stats()
    clock = time.perf_counter()
    row = elmo_throughput.run(corpus, preset, device, None, max_steps, None, 1, None, eval_every)
    row["peak_gpu_bytes"] = torch.cuda.max_memory_allocated() if device == "cuda" else 0  # weights, Adam, activations
    figures["elmo"][f"{preset} on {device}"] = row
    say(f"ELMo {preset} preset on {device}: {row['tokens_per_second']:,.0f} tokens/s, {row['steps']} steps "
        f"({time.perf_counter() - clock:.0f} s)")
    return row


cpu_on_cpu = elmo("cpu", "cpu", 40, 10**9)
cpu_on_cuda = elmo("cpu", gpu_device, 200, 10**9)
gpu = elmo("gpu", gpu_device, steps, 25)


def setting_speed(overrides):
    """The `gpu` preset's training tokens/s with ``overrides`` (a dict of settings), timed from the
    read-out after step 10 (cuDNN's first calls come before it) to the last."""
    config = preset("gpu", device=gpu_device, seed=1, **overrides)
    seen = []
    torch.cuda.reset_peak_memory_stats()
    train_elmo(corpus, config, progress=False, max_steps=setting_steps,
               callback=lambda model: seen.append((model.state.step, model.state.tokens, model.state.seconds)))
    after_warm_up = [entry for entry in seen if entry[0] >= 10]
    (_, tokens0, seconds0), (_, tokens1, seconds1) = after_warm_up[0], after_warm_up[-1]
    return (tokens1 - tokens0) / (seconds1 - seconds0), torch.cuda.max_memory_allocated()


# Two rounds, the settings interleaved: in the first, each new batch shape still grows PyTorch's
# allocator and the GPU's clocks may still be rising (on an H200 the second round ran up to 3x faster);
# the second is the speed of a long run.
variants = [{}, {"precision": "fp16"}, {"batch_tokens": 16_384}, {"batch_tokens": 8_192},
            {"batch_tokens": 8_192, "precision": "fp16"}, {"batch_tokens": 8_192, "precision": "fp32"}]
rounds = [[setting_speed(overrides) for overrides in variants] for _ in range(2)]
figures["gpu_settings"] = []
for number, overrides in enumerate(variants):
    (first, _), (second, peak) = rounds[0][number], rounds[1][number]
    figures["gpu_settings"].append({"settings": overrides, "tokens_per_second": second,
                                    "first_round_tokens_per_second": first, "peak_gpu_bytes": peak})
    say(f"`gpu` preset {overrides or '(as it is)'}: {second:,.0f} tokens/s (first round {first:,.0f}), "
        f"{peak / 1e9:.1f} GB")

clock = time.perf_counter()
rows = []
for kind in ("lstm", "transformer"):
    rows += training_throughput(kind, [8, 32, 128], batch_tokens=2_000, repeats=5, device=gpu_device)
figures["lstm_vs_transformer"] = median_table(rows)
say(f"LSTM against Transformer on CUDA ({time.perf_counter() - clock:.0f} s)")

sentences = list(corpus)
figures["word2vec"] = {}
for name in ("sg-neg", "cbow-neg", "sg-hs"):
    clock = time.perf_counter()
    arch, loss = word2vec_vs_gensim.VARIANTS[name]
    ours, our_seconds, _ = word2vec_vs_gensim.run_ours(corpus, arch, loss, epochs, 1, gpu_device)
    theirs, their_seconds, _ = word2vec_vs_gensim.run_gensim(sentences, arch, loss, epochs, 1)
    figures["word2vec"][name] = {
        "ours_seconds": our_seconds, "gensim_seconds": their_seconds, "speed": their_seconds / our_seconds,
        "ours_analogy": summary_row(evaluate_all(ours, methods=("3cosadd",)))["analogy total"],
        "gensim_analogy": summary_row(evaluate_all(theirs, methods=("3cosadd",)))["analogy total"]}
    say(f"word2vec {name}: {their_seconds / our_seconds:.2f}x gensim's speed ({time.perf_counter() - clock:.0f} s)")
(out / "figures.json").write_text(json.dumps(figures, indent=1, default=str), encoding="utf-8")

last = (gpu["progress"] or [{"step": gpu["steps"], "forward": gpu["forward_perplexity"],
                              "backward": gpu["backward_perplexity"]}])[-1]  # measured every 100 steps
at32 = next(entry for entry in figures["lstm_vs_transformer"] if entry["length"] == 32)
w2v = figures["word2vec"]
table = [
    ("GPU", f"{figures['gpu']} (PyTorch {figures['torch']}, CUDA {figures['cuda']}; CPU {figures['cpu']})"),
    ("device tests on CUDA", tests),
    ("torchrun on NCCL, one process", torchrun),
    ("biLM `gpu` preset: weights", f"{gpu['parameters'] / 1e6:.1f} million ({gpu['vocabulary']:,} words)"),
    (f"`gpu` preset on CUDA, {gpu['steps']} steps, the first included: training tokens/s",
     f"{gpu['tokens_per_second']:,.0f}"),
    ("`gpu` preset: peak GPU memory (allocated)", f"{gpu['peak_gpu_bytes'] / 1e9:.1f} GB"),
    (f"`gpu` preset after {last['step']} steps ({gpu['epochs']:.2f} epochs, {gpu['train_seconds']:.0f} s): "
     "held-out perplexity fwd / bwd",
     f"{last['forward']:.0f} / {last['backward']:.0f} (Kneser-Ney bigram "
     f"{gpu['bigram_perplexity']['forward']:.0f} / {gpu['bigram_perplexity']['backward']:.0f})"),
    ("`cpu` preset on one thread of this machine's CPU: training tokens/s", f"{cpu_on_cpu['tokens_per_second']:,.0f}"),
    ("`cpu` preset on CUDA: training tokens/s", f"{cpu_on_cuda['tokens_per_second']:,.0f}"),
    ("`gpu` preset on CUDA / `cpu` preset on one thread of this machine's CPU",
     f"{gpu['tokens_per_second'] / cpu_on_cpu['tokens_per_second']:.1f}x"),
    *((f"`gpu` preset, {', '.join(f'{k}={v}' for k, v in row['settings'].items()) or 'as it is'}: tokens/s, "
       "second round (first)",
       f"{row['tokens_per_second']:,.0f} ({row['first_round_tokens_per_second']:,.0f}); "
       f"{row['peak_gpu_bytes'] / 1e9:.1f} GB; {row['tokens_per_second'] / CPU_PRESET_ON_2_CORES:.0f}x the `cpu` preset "
       "on 2 CPU cores") for row in figures["gpu_settings"]),
    ("LSTM / Transformer tokens/s on CUDA, 32-word sentences",
     f"{at32['lstm']:,.0f} / {at32['transformer']:,.0f} ({at32['ratio']:.1f}x)"),
    *((f"word2vec {name} on CUDA against gensim (2 workers), {epochs} epochs",
       f"{w2v[name]['speed']:.1f}x its speed; analogies {100 * w2v[name]['ours_analogy']:.1f}% against "
       f"{100 * w2v[name]['gensim_analogy']:.1f}%") for name in w2v),
]
width = max(len(name) for name, _ in table)
print(f"\n| {'figure':<{width}} | value |\n|{'-' * (width + 2)}|-------|")
for name, value in table:
    print(f"| {name:<{width}} | {value} |")
PY
echo "== done in $((SECONDS - start)) s; figures in $OUT/figures.json"
exit "$tests_status"
