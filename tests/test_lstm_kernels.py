"""The hand-written LSTMP that ``benchmarks/lstm_kernels.py`` times beside PyTorch's: its outputs and every gradient
are PyTorch's projected LSTM's, so the benchmark compares two ways of computing the same layer."""

import importlib.util
from pathlib import Path

import torch
from torch import nn


def _benchmark():
    path = Path(__file__).parent.parent / "benchmarks" / "lstm_kernels.py"
    spec = importlib.util.spec_from_file_location("lstm_kernels", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_hand_written_lstmp_is_pytorchs_projected_lstm_forward_and_backward():
    benchmark = _benchmark()
    torch.manual_seed(0)
    lstm = nn.LSTM(6, 10, proj_size=4, batch_first=True).double()
    x = torch.randn(3, 7, 6, dtype=torch.float64, requires_grad=True)
    weights = torch.randn(3, 7, 4, dtype=torch.float64)
    expected = lstm(x)[0]
    expected_grads = torch.autograd.grad((expected * weights).sum(), [x, *lstm.parameters()])
    got = benchmark.ProjectedLSTM.apply(x, lstm.weight_ih_l0, lstm.weight_hh_l0, lstm.bias_ih_l0, lstm.bias_hh_l0,
                                        lstm.weight_hr_l0, torch.float64)
    got_grads = torch.autograd.grad((got.double() * weights).sum(), [x, *lstm.parameters()])
    # the products in float64, the cell in float32: agreement to float32's precision
    torch.testing.assert_close(got.double(), expected, atol=1e-6, rtol=1e-5)
    for g, e in zip(got_grads, expected_grads, strict=True):
        torch.testing.assert_close(g.double(), e, atol=1e-6, rtol=1e-5)
    assert float(expected_grads[2].abs().max()) > 1e-2  # the recurrent weights' gradient is not trivially small
