"""The fast trainer's tensor kernels: scores against the rows of a table where they lie, weighted
sums of rows, and steps added into a table.

CBOW has one input vector per window. Scoring it against output rows gathered first into a
``(B, R, d)`` tensor writes those rows and reads them twice; a sampled matrix product
(:func:`table_scores`) and ``embedding_bag`` (:func:`table_sums`) read them once, in the table.
"""

from __future__ import annotations

import warnings

from .losses import scores


def table_scores(hidden, table, ids):
    """``(B, R)`` table[ids[b, r]] . hidden[b] for hidden ``(B, d)``, table ``(V, d)``, ids ``(B, R)``.

    On a CPU as a sampled matrix product (``hidden @ table.T`` only where a sparse matrix with
    the ids as columns has entries); elsewhere from gathered rows, and so where a row has more ids
    than the table has rows (a vocabulary of fewer words than 1 + k noise words), which that sparse
    product refuses.
    """
    import torch

    batch, width = ids.shape
    if hidden.device.type != "cpu" or width > table.shape[0]:
        return scores(hidden, table.index_select(0, ids.reshape(-1)).view(batch, width, -1))
    rows = torch.arange(0, batch * width + 1, width, device=ids.device)
    with warnings.catch_warnings():  # "sparse CSR tensor support is in beta state"
        warnings.simplefilter("ignore", UserWarning)
        pattern = torch.sparse_csr_tensor(rows, ids.reshape(-1), torch.zeros(batch * width, dtype=hidden.dtype),
                                          size=(batch, table.shape[0]), check_invariants=False)
    return torch.sparse.sampled_addmm(pattern, hidden, table.t(), beta=0.0).values().view(batch, width)


def table_sums(weights, table, ids):
    """``(B, d)`` sum_r weights[b, r] * table[ids[b, r]] (one bag of ``embedding_bag`` per row)."""
    import torch

    batch, width = ids.shape
    starts = torch.arange(0, batch * width, width, device=ids.device)
    return torch.nn.functional.embedding_bag(ids.reshape(-1), table, starts, mode="sum",
                                             per_sample_weights=weights.reshape(-1))


def scatter_add(table, index, rows, alpha=None) -> None:
    """``table[index[i]] += alpha * rows[i]`` for every i, repeated indices summed (in place).

    ``table`` ``(V, d)``, ``index`` ``(n,)``, ``rows`` ``(n, d)`` (scaled in place); ``alpha`` a
    number or an ``(n, 1)`` tensor of factors, or None: rows already scaled. ``scatter_add_`` is
    used rather than ``index_add_``: on the CPU it costs far less per index.
    """
    table.scatter_add_(0, index.unsqueeze(1).expand(-1, table.shape[1]), rows if alpha is None else rows.mul_(alpha))


def run_starts(values):
    """``(R,)`` the positions in ``values`` ``(n,)`` where a run of equal consecutive values begins."""
    import torch

    change = torch.ones_like(values, dtype=torch.bool)
    torch.ne(values[1:], values[:-1], out=change[1:])
    return change.nonzero().squeeze(1)
