"""GloVe's weighted least-squares loss and its gradients, written out entry by entry.

For the non-zero counts X_ij, with word vectors ``w_i``, context vectors ``w~_j`` (``d`` each),
word biases ``b_i`` and context biases ``b~_j``:

    diff_ij = w_i . w~_j + b_i + b~_j - log X_ij
    J       = 1/2 * sum_ij f(X_ij) * diff_ij^2
    f(x)    = (x / x_max)^alpha if x < x_max, else 1

The paper writes J without the 1/2; ``glove.c`` reports and differentiates the 1/2 form, and so do
we, so that ``lr`` means what ``-eta`` means there. With ``c_ij = f(X_ij) * diff_ij``:

    dJ/dw_i  = sum_j c_ij * w~_j        dJ/db_i  = sum_j c_ij
    dJ/dw~_j = sum_i c_ij * w_i         dJ/db~_j = sum_i c_ij

f depends on the counts alone, not on the parameters, so it takes no part in the gradients.
The fast trainer computes the same sums with sparse matrix products (:mod:`course.glove.batches`).
"""

from __future__ import annotations

import numpy as np


def weighting(counts, x_max: float = 10.0, alpha: float = 0.75):
    """GloVe's f(x) = (x / x_max)^alpha below ``x_max`` and 1 from there on (f(0) = 0).

    Takes and returns a numpy array or a torch tensor of any shape.
    """
    scaled = counts / x_max
    if isinstance(scaled, np.ndarray | float | int):
        scaled = np.asarray(scaled, dtype=np.float64)
        return np.where(scaled >= 1, 1.0, np.where(scaled > 0, np.power(np.clip(scaled, 0, 1), alpha), 0.0))
    import torch

    below = torch.where(scaled > 0, scaled.clamp(0, 1).pow(alpha), torch.zeros_like(scaled))
    return torch.where(scaled >= 1, torch.ones_like(scaled), below)


def targets(counts: np.ndarray, x_max: float = 10.0, alpha: float = 0.75) -> tuple[np.ndarray, np.ndarray]:
    """What training fits, from the counts ``(N,)`` float64: log X ``(N,)`` and f(X) ``(N,)``, both
    float32 (computed in float64, then rounded once), as both trainers use them."""
    return np.log(counts).astype(np.float32), weighting(counts, x_max, alpha).astype(np.float32)


def glove_loss_terms(word_rows, context_rows, word_biases, context_biases, log_counts, weights):
    """The loss of each of ``B`` entries and its gradients with respect to that entry's parameters.

    Args:
        word_rows: ``(B, d)`` w_i; context_rows: ``(B, d)`` w~_j; word_biases, context_biases:
            ``(B,)`` b_i and b~_j; log_counts: ``(B,)`` log X_ij; weights: ``(B,)`` f(X_ij).

    Returns:
        ``loss`` ``(B,)`` = 1/2 f diff^2; ``grad_word_rows`` ``(B, d)`` = c w~_j;
        ``grad_context_rows`` ``(B, d)`` = c w_i; ``grad_biases`` ``(B,)`` = c, the gradient of
        both b_i and b~_j; where c = f * diff.
    """
    diff = (word_rows * context_rows).sum(-1) + word_biases + context_biases - log_counts  # (B,)
    coefficient = weights * diff  # (B,) dJ/d(w_i . w~_j) = dJ/db_i = dJ/db~_j
    loss = 0.5 * coefficient * diff
    return loss, coefficient[:, None] * context_rows, coefficient[:, None] * word_rows, coefficient


def glove_loss(word_vectors, context_vectors, word_biases, context_biases, rows, cols, counts,
               x_max: float = 10.0, alpha: float = 0.75):
    """The GloVe loss of some entries and its gradient with respect to every parameter.

    Args:
        word_vectors, context_vectors: ``(V, d)``; word_biases, context_biases: ``(V,)``.
        rows, cols: ``(B,)`` int64, the entries ``(i, j)`` (each pair at most once); counts: ``(B,)`` X_ij > 0.

    Returns:
        ``loss`` (0-dim) = 1/2 sum f(X_ij) (w_i . w~_j + b_i + b~_j - log X_ij)^2, and the dense
        gradients ``(V, d)``, ``(V, d)``, ``(V,)``, ``(V,)`` in the order of the arguments: each
        entry's gradients (:func:`glove_loss_terms`) added into the rows ``i`` and ``j`` it touches.
    """
    import torch

    loss, grad_word_rows, grad_context_rows, grad_biases = glove_loss_terms(
        word_vectors[rows], context_vectors[cols], word_biases[rows], context_biases[cols], counts.log(),
        weighting(counts, x_max, alpha))
    return (loss.sum(),
            torch.zeros_like(word_vectors).index_add_(0, rows, grad_word_rows),
            torch.zeros_like(context_vectors).index_add_(0, cols, grad_context_rows),
            torch.zeros_like(word_biases).index_add_(0, rows, grad_biases),
            torch.zeros_like(context_biases).index_add_(0, cols, grad_biases))
