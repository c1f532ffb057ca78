"""The fast trainer's batches: the loss of :mod:`course.glove.loss` and its gradients for many
entries at once, as sparse matrix products.

A batch's per-entry coefficients ``c_ij = f(X_ij) * diff_ij`` form a sparse ``(R, V)`` matrix ``S``
over the ``R`` rows the batch touches, so the word-vector gradient is ``S @ W~`` ``(R, d)`` and the
context-vector gradient ``S' @ W`` ``(K, d)`` (``S'`` the same entries the other way round, over
the ``K`` columns touched); the dot products ``w_i . w~_j`` are a sampled matrix product. No
``(B, d)`` copies of vectors are made.
"""

from __future__ import annotations

import threading
import warnings
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from .counting import nonzero_entries
from .loss import targets

BETA_NOTE = "Sparse CSR tensor support is in beta state"
_quieted = threading.Lock()  # held while the note is silenced, so Hogwild threads never share the filter
_quiet = False  # the note has been said, silenced, in this process


def _silence_beta_note() -> None:
    """Torch says :data:`BETA_NOTE` once a process, at its first sparse CSR tensor, and these are stable
    for what they do here: make that first tensor with the note silenced, for this call only."""
    global _quiet
    if _quiet:
        return
    import torch

    with _quieted:
        if not _quiet:
            with warnings.catch_warnings():
                warnings.filterwarnings("ignore", message=BETA_NOTE, category=UserWarning)
                torch.sparse_csr_tensor(torch.tensor([0, 1]), torch.tensor([0]), torch.tensor([0.0]), (1, 1),
                                        check_invariants=False)
            _quiet = True


@dataclass
class Batch:
    """Some non-zero entries laid out as two sparse matrices for the gradient products.

    ``rows`` ``(B,)``, ``cols`` ``(B,)``: the entries, sorted by row (then column); ``log_counts``
    and ``weights`` ``(B,)``: log X and f(X) of each. ``touched_rows`` ``(R,)`` and
    ``row_pointers`` ``(R + 1,)`` compress the rows into CSR over only the rows present;
    ``touched_cols`` ``(K,)``, ``col_pointers`` ``(K + 1,)``, ``by_col`` ``(B,)`` (the entries'
    positions in column order) and ``rows_by_col`` ``(B,)`` do the same for the transposed matrix.
    """

    rows: object
    cols: object
    log_counts: object
    weights: object
    touched_rows: object
    row_pointers: object
    touched_cols: object
    col_pointers: object
    by_col: object
    rows_by_col: object

    @classmethod
    def build(cls, rows, cols, log_counts, weights, order_by_col=None) -> Batch:
        """From ``(B,)`` int64 tensors sorted by (row, col); ``order_by_col`` ``(B,)`` sorts them by
        (col, row) (computed when not given)."""
        import torch

        if order_by_col is None:
            order_by_col = torch.from_numpy(np.lexsort((rows.cpu().numpy(), cols.cpu().numpy()))).to(rows.device)
        touched_rows, row_counts = torch.unique_consecutive(rows, return_counts=True)
        cols_sorted = cols.index_select(0, order_by_col)
        touched_cols, col_counts = torch.unique_consecutive(cols_sorted, return_counts=True)
        zero = torch.zeros(1, dtype=torch.int64, device=rows.device)
        return cls(rows, cols, log_counts, weights, touched_rows, torch.cat([zero, row_counts.cumsum(0)]),
                   touched_cols, torch.cat([zero, col_counts.cumsum(0)]), order_by_col,
                   rows.index_select(0, order_by_col))


def batch_loss_and_gradients(word_vectors, context_vectors, word_biases, context_biases, batch: Batch):
    """Loss and gradients of one batch, for the rows it touches.

    Returns ``loss`` (0-dim, the 1/2-weighted sum over the batch), then, in the order of the
    parameters, ``grad_words`` ``(R, d)``, ``grad_contexts`` ``(K, d)``, ``grad_word_biases``
    ``(R,)`` and ``grad_context_biases`` ``(K,)``: rows ``batch.touched_rows`` (R of them) and
    ``batch.touched_cols`` (K of them) of the full gradients.
    """
    import torch

    _silence_beta_note()
    size = len(batch.rows)
    pattern = torch.sparse_csr_tensor(batch.row_pointers, batch.cols,
                                      torch.zeros(size, dtype=word_vectors.dtype, device=word_vectors.device),
                                      (len(batch.touched_rows), len(context_vectors)), check_invariants=False)
    word_rows = word_vectors.index_select(0, batch.touched_rows)
    # w_i . w~_j for every entry: the product W[rows] @ W~^T, computed only where S has entries.
    dots = torch.sparse.sampled_addmm(pattern, word_rows, context_vectors.t(), beta=0).values()
    diff = dots + word_biases.index_select(0, batch.rows) + context_biases.index_select(0, batch.cols) \
        - batch.log_counts
    coefficient = batch.weights * diff  # d loss / d (w_i . w~_j) for each entry
    loss = 0.5 * torch.dot(coefficient, diff)
    coefficients = torch.sparse_csr_tensor(batch.row_pointers, batch.cols, coefficient, pattern.shape,
                                           check_invariants=False)
    grad_words = torch.sparse.mm(coefficients, context_vectors)
    grad_word_biases = torch.segment_reduce(coefficient, "sum", offsets=batch.row_pointers)
    by_col = coefficient.index_select(0, batch.by_col)
    transposed = torch.sparse_csr_tensor(batch.col_pointers, batch.rows_by_col, by_col,
                                         (len(batch.touched_cols), len(word_vectors)), check_invariants=False)
    grad_contexts = torch.sparse.mm(transposed, word_vectors)
    grad_context_biases = torch.segment_reduce(by_col, "sum", offsets=batch.col_pointers)
    return loss, grad_words, grad_contexts, grad_word_biases, grad_context_biases


@dataclass
class DeviceEntries:
    """Every non-zero entry, on the training device, numbered in row order (then column).

    ``rows``, ``cols`` ``(N,)`` int64; ``log_counts``, ``weights`` ``(N,)`` float32: log X and f(X);
    ``column_rank`` ``(N,)`` int64: each entry's place when the entries are sorted by (column, row).
    """

    rows: object
    cols: object
    log_counts: object
    weights: object
    column_rank: object

    @classmethod
    def from_counts(cls, cooccurrences: sp.csr_matrix, x_max: float, alpha: float, device) -> DeviceEntries:
        """The non-zero entries of ``cooccurrences`` ``(V, V)`` with log X and f(X), moved to ``device``."""
        import torch

        rows, cols, counts = nonzero_entries(cooccurrences)
        column_rank = np.empty(len(rows), dtype=np.int64)
        column_rank[np.lexsort((rows, cols))] = np.arange(len(rows))
        arrays = (rows, cols, *targets(counts, x_max, alpha), column_rank)
        return cls(*(torch.from_numpy(a).to(device) for a in arrays))

    def batch(self, numbers) -> Batch:
        """A :class:`Batch` of the entries ``numbers`` ``(B,)`` (any order, no repeats)."""
        by_row = numbers.sort().values  # entries are numbered in row order, so this sorts them by row
        by_col = self.column_rank.index_select(0, by_row).argsort()
        return Batch.build(*(t.index_select(0, by_row) for t in (self.rows, self.cols, self.log_counts,
                                                                   self.weights)), by_col)
