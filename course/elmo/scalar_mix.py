"""The task-specific mix of ELMo's layers (Peters et al., 2018, equation 1):

    ELMo_k^task = gamma^task * sum_j s_j^task h_{k,j},   s^task = softmax(w^task),

with learnable w (one number per layer) and gamma (a scale). With ``layer_norm=True`` each layer is
first normalised to mean 0 and variance 1 over the real (unpadded) tokens of the batch and all
dimensions, as the paper suggests for some tasks.
"""

from __future__ import annotations

import torch
from torch import nn


class ScalarMix(nn.Module):
    """gamma * sum_j softmax(w)_j h_j over ``num_layers`` layers.

    Args:
        num_layers: L + 1, the layers to mix (3 for a two-layer biLM).
        layer_norm: normalise each layer over the unpadded tokens first.
        initial_weights: w before the softmax (default: all 0, an even mix).
        initial_gamma: gamma's start value.
    """

    def __init__(self, num_layers: int, layer_norm: bool = False, initial_weights=None, initial_gamma: float = 1.0):
        super().__init__()
        weights = torch.zeros(num_layers) if initial_weights is None else torch.as_tensor(initial_weights,
                                                                                          dtype=torch.float32)
        if weights.shape != (num_layers,):
            raise ValueError(f"need {num_layers} initial weights, got shape {tuple(weights.shape)}")
        self.num_layers = num_layers
        self.layer_norm = layer_norm
        self.scalar_parameters = nn.Parameter(weights.clone())  # w: s = softmax(w)
        self.gamma = nn.Parameter(torch.tensor(float(initial_gamma)))

    @property
    def weights(self) -> torch.Tensor:
        """``(num_layers,)`` s = softmax(w): non-negative, summing to 1."""
        return torch.softmax(self.scalar_parameters, dim=0)

    def forward(self, layers: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
        """Mix the layers.

        Args:
            layers: ``(num_layers, ..., D)``, e.g. ``(3, B, T, D)`` or ``(3, n, D)`` (one sentence),
                or a list of ``num_layers`` tensors ``(..., D)``.
            mask: ``(...)`` bool, True at real tokens (needed for ``layer_norm`` with padding;
                without it every token counts).

        Returns:
            ``(..., D)``, the mixed vectors.
        """
        if isinstance(layers, (list, tuple)):
            layers = torch.stack(list(layers))
        if layers.shape[0] != self.num_layers:
            raise ValueError(f"ScalarMix was made for {self.num_layers} layers, got {layers.shape[0]}")
        if self.layer_norm:
            layers = _normalise(layers, mask)
        s = self.weights.to(layers.dtype).view(-1, *([1] * (layers.dim() - 1)))
        return self.gamma * (s * layers).sum(0)


def _normalise(layers: torch.Tensor, mask: torch.Tensor | None, eps: float = 1e-12) -> torch.Tensor:
    """Each layer of ``(num_layers, ..., D)`` to mean 0, variance 1 over the masked tokens and all D."""
    dims = tuple(range(1, layers.dim()))
    if mask is None:
        weight = torch.ones(layers.shape[1:-1], dtype=layers.dtype, device=layers.device)
    else:
        weight = mask.to(layers.dtype)
    weight = weight.unsqueeze(0).unsqueeze(-1)  # (1, ..., 1)
    count = weight.sum() * layers.shape[-1]
    mean = (layers * weight).sum(dims, keepdim=True) / count
    variance = (((layers - mean) * weight) ** 2).sum(dims, keepdim=True) / count
    return (layers - mean) / torch.sqrt(variance + eps) * weight
