"""One Transformer block, in the pre-LN arrangement (layer norm before each sub-layer, as GPT-2
and most models since; the 2017 paper put it after the residual sum, post-LN, which needs a
careful warm-up to train):

    a = x + Dropout(MultiHead(LN_1(x)))
    y = a + Dropout(FFN(LN_2(a))),         FFN(z) = W_2 GELU(W_1 z + b_1) + b_2

for x, a, y ``(B, T, d_model)`` and W_1 ``(d_model, d_ff)``, W_2 ``(d_ff, d_model)``. The
feed-forward network is applied to every position on its own ("position-wise"); only the
attention mixes positions. The residual stream x -> y is what :class:`~course.transformer.lm.
TransformerLM` reports as the block's layer.
"""

from __future__ import annotations

import torch
from torch import nn

from .attention import MultiHeadSelfAttention


class TransformerBlock(nn.Module):
    """Pre-LN self-attention and feed-forward sub-layers, each with a residual connection.

    Args:
        dim: d_model; heads: h; ff_dim: d_ff; dropout: on the attention weights and on each
            sub-layer's output before it is added to the residual stream.
    """

    def __init__(self, dim: int, heads: int, ff_dim: int, dropout: float = 0.0):
        super().__init__()
        self.norm_1 = nn.LayerNorm(dim)
        self.attention = MultiHeadSelfAttention(dim, heads, dropout)
        self.norm_2 = nn.LayerNorm(dim)
        self.feed_forward = nn.Sequential(nn.Linear(dim, ff_dim), nn.GELU(), nn.Linear(ff_dim, dim))
        self.dropout = nn.Dropout(dropout)

    def forward(self, x: torch.Tensor, key_padding_mask: torch.Tensor | None = None, causal: bool = False,
                need_weights: bool = False) -> tuple[torch.Tensor, torch.Tensor | None]:
        """``x`` ``(B, T, d_model)`` -> ``(y, weights)``: ``(B, T, d_model)`` and ``(B, h, T, T)`` or None."""
        attended, weights = self.attention(self.norm_1(x), key_padding_mask, causal, need_weights)
        a = x + self.dropout(attended)
        y = a + self.dropout(self.feed_forward(self.norm_2(a)))
        return y, weights
