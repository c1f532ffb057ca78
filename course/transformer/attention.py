"""Scaled dot-product attention, written out, and multi-head self-attention (Vaswani et al., 2017).

For queries Q ``(..., T_q, d_k)``, keys K ``(..., T_k, d_k)`` and values V ``(..., T_k, d_v)``,

    A = softmax(Q K^T / sqrt(d_k) + M)        (..., T_q, T_k), each row sums to 1 over the keys
    Attention(Q, K, V) = A V                  (..., T_q, d_v)

where M is 0 where a query may look at a key and -inf where it may not (a later word, for a
causal model; padding, for every model), so those weights are exactly 0.

Multi-head self-attention projects each position's vector x_t ``(d_model,)`` to h queries, keys
and values of d_k = d_model / h dimensions, attends in each head on its own, concatenates the h
results and projects them back:

    head_i = Attention(X W_i^Q, X W_i^K, X W_i^V),   MultiHead(X) = [head_1; ..; head_h] W^O.
"""

from __future__ import annotations

import math

import torch
from torch import nn


def causal_mask(length: int, device=None) -> torch.Tensor:
    """``(T, T)`` bool, True where query t may look at key s: s <= t (itself and the words before)."""
    return torch.ones(length, length, dtype=torch.bool, device=device).tril()


def scaled_dot_product_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor,
                                 mask: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """softmax(q k^T / sqrt(d_k) + M) v, and the weights.

    Args:
        q: ``(..., T_q, d_k)`` queries; k: ``(..., T_k, d_k)`` keys; v: ``(..., T_k, d_v)`` values.
        mask: None (every key), or bool broadcastable to ``(..., T_q, T_k)``, True where the query
            may attend to the key (as in ``torch.nn.functional.scaled_dot_product_attention``).
            Every query needs at least one key it may attend to.

    Returns:
        ``(output, weights)``: ``(..., T_q, d_v)`` and ``(..., T_q, T_k)`` (rows sum to 1, 0 on
        masked keys).
    """
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])  # (..., T_q, T_k)
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    return weights @ v, weights


class MultiHeadSelfAttention(nn.Module):
    """h heads of self-attention over the positions of a batch of sentences.

    Args:
        dim: d_model; heads: h (``dim`` must be divisible by it); dropout: on the attention weights.
    """

    def __init__(self, dim: int, heads: int, dropout: float = 0.0):
        super().__init__()
        self.heads, self.head_dim = heads, dim // heads
        self.qkv = nn.Linear(dim, 3 * dim)  # W^Q, W^K, W^V of all heads side by side
        self.out = nn.Linear(dim, dim)  # W^O
        self.dropout = dropout

    def forward(self, x: torch.Tensor, key_padding_mask: torch.Tensor | None = None, causal: bool = False,
                need_weights: bool = False) -> tuple[torch.Tensor, torch.Tensor | None]:
        """Attend.

        Args:
            x: ``(B, T, d_model)``.
            key_padding_mask: ``(B, T)`` bool, True at real positions (keys that may be looked at).
            causal: whether each position may only look at itself and the positions before it.
            need_weights: also return the weights (computed with the written-out
                :func:`scaled_dot_product_attention`; without them PyTorch's fused kernel, which
                gives the same numbers faster, does the work).

        Returns:
            ``(output, weights)``: ``(B, T, d_model)`` and ``(B, h, T, T)`` (or None).
        """
        batch, length, dim = x.shape
        q, k, v = self.qkv(x).view(batch, length, 3, self.heads, self.head_dim).permute(2, 0, 3, 1, 4)  # (B, h, T, d_k)
        mask = None
        if causal:
            mask = causal_mask(length, x.device)[None, None]  # (1, 1, T, T)
        if key_padding_mask is not None:
            keys = key_padding_mask[:, None, None, :]  # (B, 1, 1, T)
            mask = keys if mask is None else mask & keys
        dropout = self.dropout if self.training else 0.0
        if need_weights:
            heads, weights = scaled_dot_product_attention(q, k, v, mask)
            if dropout:
                heads = nn.functional.dropout(weights, dropout) @ v
        else:
            heads = nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=mask, dropout_p=dropout)
            weights = None
        heads = heads.transpose(1, 2).reshape(batch, length, dim)  # [head_1; ..; head_h]
        return self.out(heads), weights
