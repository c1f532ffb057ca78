"""One projected LSTM layer of the biLM's ``cpu`` preset, forward and backward, three ways on one CPU thread:
PyTorch's own kernels as the course runs them, the same with the weights cast to bfloat16 once per batch, and an
LSTMP written out by hand (weights cast once, each weight's gradient one product over all the time steps).

    python benchmarks/lstm_kernels.py [--corpus wiki-en] [--batches 20] [--repeats 5]

The LSTMs are about three quarters of a biLM step on a CPU (``benchmarks/elmo_threads.py``), so a faster
LSTM would be the way to the same model in fewer minutes. The three ways, each on the same batches (the shapes
``B x T`` of the ``cpu`` preset's first batches of the corpus, inputs of 128 dimensions, LSTMs of 512 cells
projected to 128) and the same weights:

- ``PyTorch, autocast``: ``torch.nn.LSTM(128, 512, proj_size=128)`` under bfloat16 autocast without its cache of
  cast weights (:func:`course.lm.precision.autocast` with ``cache=False``, as the biLM's directions run side by
  side): each time step casts the weights it multiplies by, and each step's weight gradients come back to
  float32 one by one;
- ``PyTorch, weights cast once``: the same kernels, called with bfloat16 copies of the weights made once per
  batch, so the time steps' weight gradients add up in bfloat16;
- ``by hand``: :class:`ProjectedLSTM`, the LSTMP's forward and backward written out (the cell in float32,
  products in bfloat16 with float32 accumulation), each weight gradient one product over the batch's B x T
  positions after the time loop.

The table gives each way's median milliseconds per batch over interleaved repeats, its ratio to PyTorch's
autocast, and how far its gradients are from that way's (the largest difference over the weights, relative to
the largest gradient). The machine is shared and noisy: read the ratios.
"""

from __future__ import annotations

import argparse
import statistics
import time

from course.core.runtime import setup_cpu

setup_cpu()  # before anything imports PyTorch: how its CPU threads wait

import warnings

import numpy as np
import torch
from torch import nn

from course import load_corpus
from course.elmo import preset
from course.elmo.model import Elmo
from course.elmo.training import language_model_data, vocabularies
from course.lm import split_heldout


class ProjectedLSTM(torch.autograd.Function):
    """One LSTMP layer over ``x`` ``(B, T, D)`` from zero states -> ``(B, T, P)``, by hand:

        (i, f, g, o) = (sigmoid, sigmoid, tanh, sigmoid)(x_t W_ih^T + b_ih + r_{t-1} W_hh^T + b_hh)
        c_t = f * c_{t-1} + i * g,   h_t = o * tanh(c_t),   r_t = h_t W_hr^T

    and its backward pass through time; the products in ``dtype``, the cell in float32.
    """

    @staticmethod
    def forward(ctx, x, w_ih, w_hh, b_ih, b_hh, w_hr, dtype):
        B, T, D = x.shape
        H = w_ih.shape[0] // 4
        P = w_hr.shape[0]
        xd, wih, whh, whr = x.to(dtype), w_ih.to(dtype), w_hh.to(dtype), w_hr.to(dtype)
        pre = torch.addmm((b_ih + b_hh).to(dtype), xd.reshape(B * T, D), wih.t()).view(B, T, 4 * H)
        gates = torch.empty(B, T, 4 * H)  # i, f, g, o after their nonlinearities
        cells = torch.zeros(B, T + 1, H)
        hs = torch.empty(B, T, H, dtype=dtype)
        rs = torch.zeros(B, T + 1, P, dtype=dtype)
        for t in range(T):
            a = torch.addmm(pre[:, t], rs[:, t], whh.t()).float()
            a[:, :2 * H].sigmoid_()
            a[:, 2 * H:3 * H].tanh_()
            a[:, 3 * H:].sigmoid_()
            c = torch.addcmul(a[:, H:2 * H] * cells[:, t], a[:, :H], a[:, 2 * H:3 * H])
            cells[:, t + 1] = c
            h = (a[:, 3 * H:] * torch.tanh(c)).to(dtype)
            gates[:, t], hs[:, t] = a, h
            rs[:, t + 1] = h @ whr.t()
        ctx.save_for_backward(xd, wih, whh, whr, gates, cells, hs, rs)
        ctx.dtype = dtype
        return rs[:, 1:].float()

    @staticmethod
    def backward(ctx, grad):
        xd, wih, whh, whr, gates, cells, hs, rs = ctx.saved_tensors
        dtype = ctx.dtype
        B, T, H4 = gates.shape
        H, P = H4 // 4, whr.shape[0]
        grad = grad.to(dtype)
        dgates = torch.empty(B, T, H4, dtype=dtype)
        drs = torch.empty(B, T, P, dtype=dtype)
        dr_next, dc_next = torch.zeros(B, P, dtype=dtype), torch.zeros(B, H)
        for t in reversed(range(T)):
            dr = grad[:, t] + dr_next
            drs[:, t] = dr
            dh = (dr @ whr).float()
            a = gates[:, t]
            i, f, g, o = a[:, :H], a[:, H:2 * H], a[:, 2 * H:3 * H], a[:, 3 * H:]
            tc = torch.tanh(cells[:, t + 1])
            dc = torch.addcmul(dc_next, dh * o, 1 - tc * tc)
            d = torch.cat([dc * g * i * (1 - i), dc * cells[:, t] * f * (1 - f), dc * i * (1 - g * g),
                           dh * tc * o * (1 - o)], dim=1).to(dtype)
            dc_next = dc * f
            dgates[:, t] = d
            dr_next = d @ whh
        G = dgates.reshape(B * T, H4)
        dw_ih = (G.t() @ xd.reshape(B * T, -1)).float()
        dw_hh = (G.t() @ rs[:, :T].reshape(B * T, P)).float()
        db = G.float().sum(0)
        dw_hr = (drs.reshape(B * T, P).t() @ hs.reshape(B * T, H)).float()
        return (G @ wih).view(B, T, -1).float(), dw_ih, dw_hh, db, db, dw_hr, None


def autocast_way(lstm, x, grad, dtype):
    with torch.autocast("cpu", dtype=dtype, cache_enabled=False):
        out = lstm(x)[0]
    out.float().backward(grad)


def cast_once_way(lstm, x, grad, dtype):
    weights = [w.to(dtype) for w in lstm._flat_weights]
    B = x.shape[0]
    zeros = (torch.zeros(1, B, lstm.proj_size, dtype=dtype), torch.zeros(1, B, lstm.hidden_size, dtype=dtype))
    out = torch._VF.lstm(x.to(dtype), zeros, weights, True, 1, 0.0, True, False, True)[0]
    out.float().backward(grad)


def by_hand_way(lstm, x, grad, dtype):
    out = ProjectedLSTM.apply(x, lstm.weight_ih_l0, lstm.weight_hh_l0, lstm.bias_ih_l0, lstm.bias_hh_l0,
                              lstm.weight_hr_l0, dtype)
    out.backward(grad)


WAYS = {"PyTorch, autocast": autocast_way, "PyTorch, weights cast once": cast_once_way, "by hand": by_hand_way}


def gradients(way, lstm, inputs, dtype) -> list[torch.Tensor]:
    lstm.zero_grad(set_to_none=True)
    for x, grad in inputs:
        way(lstm, x, grad, dtype)
    return [p.grad.clone() for p in lstm.parameters()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", default="wiki-en")
    parser.add_argument("--batches", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    warnings.filterwarnings("ignore", message="LSTM with projections is not supported with oneDNN")
    torch.set_num_threads(1)

    corpus = load_corpus(args.corpus, progress=False)
    config = preset("cpu")
    train, _ = split_heldout(corpus, config)
    words, characters = vocabularies(corpus, train, config)
    data = language_model_data(corpus, train, Elmo(config, words, characters))
    groups = data.batches(config.batch_tokens, np.random.default_rng(config.seed))[:args.batches]
    shapes = [tuple(data.batch(group).mask.shape) for group in groups]
    d, dtype = config.projection_dim, torch.bfloat16
    torch.manual_seed(0)
    lstm = nn.LSTM(d, config.lstm_dim, proj_size=d, batch_first=True)
    inputs = [(torch.randn(B, T, d), torch.randn(B, T, d)) for B, T in shapes]
    positions = sum(B * T for B, T in shapes)

    reference = gradients(WAYS["PyTorch, autocast"], lstm, inputs, dtype)
    scale = max(float(g.abs().max()) for g in reference)
    differences = {name: max(float((g - r).abs().max()) for g, r in zip(gradients(way, lstm, inputs, dtype),
                                                                         reference, strict=True)) / scale
                   for name, way in WAYS.items()}
    times: dict[str, list[float]] = {name: [] for name in WAYS}
    for _ in range(args.repeats):
        for name, way in WAYS.items():
            start = time.perf_counter()
            gradients(way, lstm, inputs, dtype)
            times[name].append((time.perf_counter() - start) / len(inputs))
    base = statistics.median(times["PyTorch, autocast"])
    print(f"{args.corpus}: {len(shapes)} batches of the cpu preset, {positions / len(shapes):,.0f} positions each "
          f"on average; one LSTMP layer ({d} -> {config.lstm_dim} cells -> {d}), forward and backward, bfloat16, "
          f"1 thread; medians of {args.repeats} interleaved repeats\n")
    print("| way | ms per batch | vs PyTorch, autocast | gradients' largest difference (of the largest) |")
    print("|---|---:|---:|---:|")
    for name in WAYS:
        median = statistics.median(times[name])
        print(f"| {name} | {median * 1000:.1f} | {base / median:.2f}x | {differences[name]:.4f} |")


if __name__ == "__main__":
    main()
