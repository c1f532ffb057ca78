"""An LSTM with a projection whose memory cells and outputs are clipped at every step, as the
published ELMo's (TensorFlow's ``LSTMCell`` with ``num_proj``, ``cell_clip`` and ``proj_clip``).

``torch.nn.LSTM`` has a projection (``proj_size``) but no clipping, and clipping changes the
numbers wherever a cell grows past the bound, so the biLM runs this loop instead when its config
asks for either clip. One step, for input x_t, output h_{t-1} and cell c_{t-1}, in PyTorch's gate
order (i, f, g, o) and with PyTorch's parameter names, so that its weights have the same shapes and
names as ``torch.nn.LSTM``'s:

    [i; f; g; o] = W_ih x_t + b_ih + W_hh h_{t-1} + b_hh                 (4 H)
    c_t = clip(sigmoid(f) * c_{t-1} + sigmoid(i) * tanh(g), cell_clip)   (H)
    h_t = clip(W_hr (sigmoid(o) * tanh(c_t)), proj_clip)                 (P)

TensorFlow orders the gates (i, j, f, o), with j the candidate g, and adds a forget bias of 1 to f
outside its weights; :mod:`course.elmo.bilm_tf` moves both into these weights when it converts a model.
"""

from __future__ import annotations

import math

import torch
from torch import nn


class ClippedLSTMP(nn.Module):
    """One LSTM layer with a projection and clipping, ``batch_first`` like the biLM's ``nn.LSTM``.

    Args:
        input_size: D, the size of x_t.
        hidden_size: H, memory cells.
        proj_size: P, the size of h_t.
        cell_clip, proj_clip: the bounds (None: no clipping there).
    """

    def __init__(self, input_size: int, hidden_size: int, proj_size: int, cell_clip: float | None = None,
                 proj_clip: float | None = None):
        super().__init__()
        self.input_size, self.hidden_size, self.proj_size = input_size, hidden_size, proj_size
        self.cell_clip, self.proj_clip = cell_clip, proj_clip
        self.weight_ih_l0 = nn.Parameter(torch.empty(4 * hidden_size, input_size))
        self.weight_hh_l0 = nn.Parameter(torch.empty(4 * hidden_size, proj_size))
        self.bias_ih_l0 = nn.Parameter(torch.empty(4 * hidden_size))
        self.bias_hh_l0 = nn.Parameter(torch.empty(4 * hidden_size))
        self.weight_hr_l0 = nn.Parameter(torch.empty(proj_size, hidden_size))
        bound = 1 / math.sqrt(hidden_size)  # torch.nn.LSTM's initialisation
        for weight in self.parameters():
            nn.init.uniform_(weight, -bound, bound)

    def forward(self, x: torch.Tensor, state=None):
        """``x`` ``(B, T, D)`` -> ``(out (B, T, P), (h_T (1, B, P), c_T (1, B, H)))``, as ``nn.LSTM``.

        ``state``: ``(h_0 (1, B, P), c_0 (1, B, H))`` to start from, or None (zeros).
        """
        batch, steps, _ = x.shape
        if state is None:
            h = x.new_zeros(batch, self.proj_size)
            c = x.new_zeros(batch, self.hidden_size)
        else:
            h, c = state[0][0], state[1][0]
        inputs = nn.functional.linear(x, self.weight_ih_l0, self.bias_ih_l0 + self.bias_hh_l0)  # (B, T, 4 H)
        outputs = []
        for t in range(steps):
            gates = inputs[:, t] + h @ self.weight_hh_l0.t()
            i, f, g, o = gates.chunk(4, dim=1)
            c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
            if self.cell_clip is not None:
                c = c.clamp(-self.cell_clip, self.cell_clip)
            h = (torch.sigmoid(o) * torch.tanh(c)) @ self.weight_hr_l0.t()
            if self.proj_clip is not None:
                h = h.clamp(-self.proj_clip, self.proj_clip)
            outputs.append(h)
        out = torch.stack(outputs, dim=1) if outputs else x.new_zeros(batch, 0, self.proj_size)
        return out, (h.unsqueeze(0), c.unsqueeze(0))
