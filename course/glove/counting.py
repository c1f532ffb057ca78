"""Co-occurrence counts, as the reference ``cooccur.c`` counts them, and their non-zero entries.

Inside a sentence, a word ``d`` places after another (``1 <= d <= window``) adds ``1/d`` to
``X[a, b]`` and to ``X[b, a]`` (a word repeated within the window adds ``2/d`` to its diagonal
cell). Words outside the vocabulary are removed before counting, so they do not take up room in
the window; counts never cross a sentence (unless the corpus is given as one sentence).

GloVe trains on the non-zero entries only (:func:`nonzero_entries`), visited in a new shuffled
order every epoch (:func:`entry_order`), the same order in both trainers.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ..core import devices
from ..core.errors import SettingError

CHUNK_TOKENS = 4_000_000  # tokens per counting step: memory grows with it, not with the corpus
# Memory per non-zero co-occurrence while GloVe trains on it: the counts, the entries with log X,
# f(X) and their column order, and an epoch's shuffle (measured: 76 bytes before the first epoch).
ENTRY_BYTES = 96


def cooccurrence_counts(ids: np.ndarray, offsets: np.ndarray, vocab_size: int, window: int = 15,
                        chunk_tokens: int = CHUNK_TOKENS, max_entries: int | None = None) -> sp.csr_matrix:
    """The symmetric ``(V, V)`` float64 co-occurrence matrix of ``cooccur.c``, as canonical CSR.

    Args:
        ids: ``(n,)`` word ids of every token, out-of-vocabulary tokens already removed.
        offsets: ``(num_sentences + 1,)`` where each sentence starts in ``ids``.
        vocab_size: ``V``; window: the largest distance counted.
        chunk_tokens: tokens handled per step.
        max_entries: stop as soon as the matrix is sure to hold more non-zero entries than this
            (the memory there is to train on them, :data:`ENTRY_BYTES` each).

    Two words ``d`` apart in a sentence add ``1/d`` to both ``X[a, b]`` and ``X[b, a]``. The work
    is one vectorised pass per distance over each chunk of tokens, and each pass becomes a sparse
    matrix of its own. Partial sums are kept on a stack, each more than twice the size of the one
    above it, and two are added as soon as the newer is at least half the size of the older (as a
    binary counter carries): every entry takes part in O(log) additions rather than one per pass,
    and memory grows with the number of non-zero pairs, never with V^2. The largest partial sum
    holds no more distinct pairs than the whole, so it is what ``max_entries`` is checked against.

    Raises:
        SettingError: the counts would hold more than ``max_entries`` non-zero entries.
    """
    if window < 1:
        raise SettingError(f"window must be at least 1, got {window}")
    ids = np.asarray(ids)
    offsets = np.asarray(offsets, dtype=np.int64)
    n = len(ids)
    if n and (ids.min() < 0 or ids.max() >= vocab_size):
        raise ValueError(f"word ids must lie in 0..{vocab_size - 1}")
    shape = (vocab_size, vocab_size)
    partial_sums: list[sp.csr_matrix] = []  # X[a, b] for b after a, summed over passes
    for start in range(0, n, max(1, chunk_tokens)):
        positions = np.arange(start, min(n, start + chunk_tokens))
        sentence_end = offsets[np.searchsorted(offsets, positions, side="right")]
        ahead = np.minimum(sentence_end - positions - 1, window).astype(np.int16 if window < 2**15 else np.int64)
        for distance in range(1, window + 1):
            left = positions[ahead >= distance]
            if len(left) == 0:
                break
            part = sp.csr_matrix((np.full(len(left), 1.0 / distance), (ids[left], ids[left + distance])), shape=shape)
            while partial_sums and partial_sums[-1].nnz <= 2 * part.nnz:
                part = partial_sums.pop() + part
            partial_sums.append(part)
            if max_entries is not None and partial_sums[0].nnz > max_entries:
                raise SettingError(
                    f"the co-occurrence counts (window={window}) hold more than {partial_sums[0].nnz:,} non-zero "
                    f"pairs after counting words up to {distance} apart in {min(n, start + chunk_tokens) / n:.0%} "
                    f"of the {n:,} words, which would need at least "
                    f"{devices.format_bytes(partial_sums[0].nnz * ENTRY_BYTES)} of memory to train on, and "
                    f"{devices.format_bytes(max_entries * ENTRY_BYTES)} is available: use a smaller window or a "
                    "larger min_count")
    forward = sp.csr_matrix(shape, dtype=np.float64)
    while partial_sums:
        forward = partial_sums.pop() + forward
    counts = (forward + forward.T).tocsr()
    counts.sum_duplicates()
    return counts


def nonzero_entries(cooccurrences: sp.csr_matrix) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The non-zero entries of ``cooccurrences`` ``(V, V)`` in row order (then column): rows ``(N,)``
    int64, cols ``(N,)`` int64 and counts X_ij ``(N,)`` float64. Stored zeros are left out (they are
    no co-occurrence, and have no logarithm), and the caller's matrix is left as it was."""
    matrix = sp.csr_matrix(cooccurrences)
    if not matrix.has_canonical_format or (matrix.data == 0).any():
        matrix = matrix.copy()
        matrix.sum_duplicates()
        matrix.eliminate_zeros()
    rows = np.repeat(np.arange(matrix.shape[0], dtype=np.int64), np.diff(matrix.indptr))
    return rows, matrix.indices.astype(np.int64), matrix.data.astype(np.float64)


def entry_order(seed: int, epoch: int, size: int) -> np.ndarray:
    """``(size,)`` int64: the order in which epoch ``epoch`` (from 0) visits the ``size`` entries of
    :func:`nonzero_entries`, a permutation drawn from ``seed`` and ``epoch`` alone."""
    return np.random.default_rng([seed, epoch]).permutation(size)
