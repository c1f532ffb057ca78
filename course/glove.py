"""GloVe from scratch: co-occurrence counts, and word vectors fitted to their logarithms.

GloVe (Pennington, Socher and Manning, 2014) first counts, for every pair of words, how often they
appear near each other, and then fits vectors to those counts.

- Counting, as the reference ``cooccur.c`` does: inside a sentence, a word ``d`` places after
  another (``1 <= d <= window``) adds ``1/d`` to ``X[a, b]`` and to ``X[b, a]`` (a word repeated
  within the window adds ``2/d`` to its diagonal cell). Words outside the vocabulary are removed
  before counting, so they do not take up room in the window; counts never cross a sentence.
- The model: word vectors ``w_i`` and context vectors ``w~_j`` (``dim`` each), a word bias ``b_i``
  and a context bias ``b~_j``. For every non-zero ``X_ij`` the loss is

      J = 1/2 * sum_ij f(X_ij) * (w_i . w~_j + b_i + b~_j - log X_ij)^2,
      f(x) = (x / x_max)^alpha if x < x_max, else 1.

  The paper writes J without the 1/2; ``glove.c`` reports and differentiates the 1/2 form (its
  gradient is ``f * diff * w~_j``), and so do we, so that ``lr`` means what ``-eta`` means there.
- Optimisation: AdaGrad over shuffled mini-batches of the non-zero entries. As in ``glove.c``,
  parameters start uniform in ``[-0.5, 0.5] / (dim + 1)`` and each one has an accumulator that
  starts at 1 and adds the square of the *scaled* step ``(lr * g)^2``; the update is
  ``-lr * g / sqrt(accumulator)``. ``glove.c`` updates after every single entry and divides by the
  accumulator before adding the new square; here ``g`` is the sum of a batch's gradients, and its
  square is added first, which bounds every step (with the old accumulator, a frequent word's
  summed gradient makes the first step explode). A row that no entry of a batch touches does not
  move, so this is sparse AdaGrad.
- The vectors kept: ``w + w~`` by default (``glove.c``'s ``-model 2``), or ``w`` or ``w~`` alone.

A batch's gradients are computed with sparse matrices: the batch's per-entry coefficients
``f * diff`` form a sparse ``(rows touched, V)`` matrix ``S``, so the word-vector gradient is
``S @ W~`` and the context-vector gradient ``S' @ W`` (``S'`` the same entries the other way
round), and the dot products ``w_i . w~_j`` are a sampled matrix product; no ``(B, dim)`` copies
of vectors are made. Each epoch shuffles the entries and cuts them into batches of ``batch_size``.
On the CPU, ``threads`` Python threads take batches in turn and update the shared tables without
locks ("Hogwild", as ``glove.c``'s threads do); on a GPU one thread does. The same torch code runs
on both. One thread and one seed give identical vectors every time; with two or more threads the
order in which they update shared rows changes from run to run, and so do the vectors.
"""

from __future__ import annotations

import math
import os
import warnings
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from . import devices, hogwild
from .checkpoints import corpus_key
from .errors import SettingError, TrainingDivergedError
from .fields import setting
from .static import StaticVectorModel, TrainingState, run_epochs
from .vocab import Vocabulary

# The sparse CSR tensors below are stable for what they do here; torch warns about all of them.
warnings.filterwarnings("ignore", message="Sparse CSR tensor support is in beta state", category=UserWarning)

VECTORS = ("sum", "word", "context")
CHUNK_TOKENS = 4_000_000  # tokens per counting step: memory grows with it, not with the corpus
# Memory per non-zero co-occurrence while GloVe trains on it: the counts, the entries with log X,
# f(X) and their column order, and an epoch's shuffle (measured: 76 bytes before the first epoch).
ENTRY_BYTES = 96
# Hogwild workers as forked processes (course.hogwild) rather than threads. Measured on wiki-en-articles
# with 2 workers on 2 cores, processes trained 0.78-0.87 times as many entries per second as threads:
# a batch is a few large sparse products, which release the interpreter lock, so threads already run
# in parallel, and processes add a fork per epoch. So GloVe keeps threads.
IN_PROCESSES = False


@dataclass(frozen=True)
class GloVeConfig:
    """Hyperparameters; the defaults are the reference implementation's demo settings, with
    100 dimensions."""

    dim: int = setting(100, "size of each word vector")
    window: int = setting(15, "words counted on each side, weighted 1/distance")
    min_count: int = setting(5, "vocabulary: words seen at least this often")
    max_vocab: int | None = setting(None, "vocabulary: at most this many words, the most frequent")
    x_max: float = setting(10.0, "counts from here on get full weight in the loss")
    alpha: float = setting(0.75, "f(x) = (x / x_max)^alpha below x_max")
    epochs: int = setting(15, "passes over the non-zero co-occurrence counts")
    lr: float = setting(0.05, "AdaGrad's initial learning rate")
    vectors: str = setting("sum", "keep word + context vectors (sum), or one of them", VECTORS)
    seed: int = setting(1, "draws the first vectors and the order of the counts")
    # One thread and one seed give the same vectors every time; with two or more, the threads'
    # updates of shared rows interleave differently in each run, and so do the vectors.
    threads: int = setting(2, "Hogwild threads on a CPU; only 1 is repeatable: the same --seed gives the same "
                              "vectors, with 2 or more they change from run to run")
    device: str = setting("auto", "auto (CUDA if present), cpu or cuda")
    batch_size: int = setting(65_536, "non-zero entries per AdaGrad step")
    # False: a window stops at the end of its sentence. True: the corpus is one stream of words and
    # windows run across sentence ends, as cooccur.c counts a file whose lines are whole documents.
    across_sentences: bool = setting(False, "let windows run across sentence ends, as cooccur.c does on a file "
                                            "of whole documents")

    def __post_init__(self):
        def finite_positive(value) -> bool:
            return isinstance(value, int | float) and math.isfinite(value) and value > 0

        checks = [
            (self.dim >= 1, f"dim must be at least 1, got {self.dim}"),
            (self.window >= 1, f"window must be at least 1, got {self.window}"),
            (self.min_count >= 1, f"min_count must be at least 1, got {self.min_count}"),
            (self.max_vocab is None or self.max_vocab >= 1, f"max_vocab must be at least 1, got {self.max_vocab}"),
            (finite_positive(self.x_max), f"x_max must be a number above 0, got {self.x_max}"),
            (isinstance(self.alpha, int | float) and math.isfinite(self.alpha) and self.alpha >= 0,
             f"alpha must be a number >= 0, got {self.alpha}"),
            (self.epochs >= 1, f"epochs must be at least 1, got {self.epochs}"),
            (finite_positive(self.lr), f"lr must be a number above 0, got {self.lr}"),
            (self.vectors in VECTORS, f"vectors must be one of {', '.join(VECTORS)}, got {self.vectors!r}"),
            (self.threads >= 1, f"threads must be at least 1, got {self.threads}"),
            (self.batch_size >= 1, f"batch_size must be at least 1, got {self.batch_size}"),
        ]
        for ok, message in checks:
            if not ok:
                raise SettingError(message)


# ----------------------------------------------------------------------------------- counting


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


# ---------------------------------------------------------------------------------- the loss


@dataclass
class _Batch:
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
    def build(cls, rows, cols, log_counts, weights, order_by_col=None):
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


def _loss_and_gradients(word_vectors, context_vectors, word_biases, context_biases, batch: _Batch):
    """Loss and gradients of one batch, for the rows it touches.

    Returns ``loss`` (0-dim, the 1/2-weighted sum over the batch), then, in the order of the
    parameters, ``grad_words`` ``(R, d)``, ``grad_contexts`` ``(K, d)``, ``grad_word_biases``
    ``(R,)`` and ``grad_context_biases`` ``(K,)``: rows ``batch.touched_rows`` (R of them) and
    ``batch.touched_cols`` (K of them) of the full gradients.
    """
    import torch

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


def glove_loss(word_vectors, context_vectors, word_biases, context_biases, rows, cols, counts,
               x_max: float = 10.0, alpha: float = 0.75):
    """The GloVe loss of some entries and its gradient with respect to every parameter.

    Args:
        word_vectors, context_vectors: ``(V, d)``; word_biases, context_biases: ``(V,)``.
        rows, cols: ``(B,)`` int64, the entries ``(i, j)`` (each pair at most once); counts: ``(B,)`` X_ij > 0.

    Returns:
        ``loss`` (0-dim) = 1/2 sum f(X_ij) (w_i . w~_j + b_i + b~_j - log X_ij)^2, and the dense
        gradients ``(V, d)``, ``(V, d)``, ``(V,)``, ``(V,)`` in the order of the arguments.
    """
    import torch

    order = torch.from_numpy(np.lexsort((cols.cpu().numpy(), rows.cpu().numpy()))).to(rows.device)
    rows, cols, counts = rows[order], cols[order], counts[order]
    batch = _Batch.build(rows, cols, counts.log(), weighting(counts, x_max, alpha))
    loss, *touched = _loss_and_gradients(word_vectors, context_vectors, word_biases, context_biases, batch)
    grads = []
    for parameter, grad, index in zip((word_vectors, context_vectors, word_biases, context_biases), touched,
                                      (batch.touched_rows, batch.touched_cols) * 2, strict=True):
        grads.append(torch.zeros_like(parameter).index_copy_(0, index, grad))
    return (loss, *grads)


# --------------------------------------------------------------------------------------- model


@dataclass
class GloVeState(TrainingState):
    """:class:`~course.static.TrainingState` counting ``entries_done``, the non-zero entries trained on
    over all epochs, beside ``entries_per_epoch``; ``history`` holds (entries done, mean loss per
    entry) of each batch."""

    entries_done: int = 0
    entries_per_epoch: int = 0

    @property
    def done(self) -> int:
        return self.entries_done

    def count(self, examples: int) -> None:
        self.entries_done += examples


class GloVe(StaticVectorModel):
    """A GloVe model over a :class:`~course.vocab.Vocabulary` (built without special tokens).

    Attributes:
        word_vectors, context_vectors: ``(V, d)`` float32, w and w~.
        word_biases, context_biases: ``(V,)`` float32, b and b~.
        gradsq: AdaGrad's accumulators, one tensor of the same shape per parameter, in that order.
        state: a :class:`GloVeState`.
    """

    FORMAT, NAME, Config, State = "course.glove/1", "GloVe", GloVeConfig, GloVeState
    # AdaGrad follows no schedule, so a larger ``epochs`` simply trains on
    RESUME_FREE = frozenset({"device", "threads", "vectors", "epochs"})

    def __init__(self, vocab: Vocabulary, config: GloVeConfig):
        import torch

        from .devices import resolve_device

        self.vocab, self.config = vocab, config
        self.device = resolve_device(config.device)
        table = len(vocab) * (config.dim + 1) * 4  # a (V, d) table and its biases
        devices.check_memory(f"GloVe with {len(vocab):,} words of {config.dim:,} dimensions", 2 * table,
                             "use a smaller dim, or a larger min_count", self.device, 4 * table)
        rng = np.random.default_rng(config.seed)
        size, scale = len(vocab), config.dim + 1

        def uniform(*shape):
            return torch.from_numpy((rng.random(shape, dtype=np.float32) - 0.5) / scale).to(self.device)

        self.word_vectors = uniform(size, config.dim)
        self.context_vectors = uniform(size, config.dim)
        self.word_biases = uniform(size)
        self.context_biases = uniform(size)
        self.gradsq = [torch.ones_like(p) for p in self.parameters()]
        self.state = GloVeState()
        self.trained_on: dict | None = None

    def parameters(self) -> list:
        """``[word_vectors, context_vectors, word_biases, context_biases]``."""
        return [self.word_vectors, self.context_vectors, self.word_biases, self.context_biases]

    # -------------------------------------------------------------------------------- results

    def vectors(self):
        """``(V, d)`` the vectors kept: ``w + w~``, ``w`` or ``w~`` as ``config.vectors`` says."""
        if self.config.vectors == "word":
            return self.word_vectors
        if self.config.vectors == "context":
            return self.context_vectors
        return self.word_vectors + self.context_vectors

    def loss(self, cooccurrences: sp.csr_matrix, batch_size: int = 65_536) -> float:
        """Mean loss per non-zero entry of ``cooccurrences`` ``(V, V)`` under the current parameters."""
        import torch

        total, entries = 0.0, _entries(cooccurrences)
        with torch.no_grad():
            for start in range(0, len(entries[0]), batch_size):
                rows, cols, counts = (torch.from_numpy(a[start:start + batch_size]).to(self.device) for a in entries)
                dots = (self.word_vectors.index_select(0, rows) * self.context_vectors.index_select(0, cols)).sum(1)
                diff = dots + self.word_biases[rows] + self.context_biases[cols] - counts.log()
                weights = weighting(counts, self.config.x_max, self.config.alpha)
                total += 0.5 * float((weights * diff * diff).sum())
        return total / max(1, len(entries[0]))

    def checkpoint_tensors(self) -> dict:
        return {"parameters": [p.cpu() for p in self.parameters()], "gradsq": [g.cpu() for g in self.gradsq]}

    def restore_tensors(self, payload: dict) -> None:
        for mine, saved in zip(self.parameters() + self.gradsq, payload["parameters"] + payload["gradsq"], strict=True):
            mine.copy_(saved)

    def share_memory(self) -> None:
        self.word_vectors, self.context_vectors, self.word_biases, self.context_biases = (
            hogwild.shared_tensor(p) for p in self.parameters())
        self.gradsq = [hogwild.shared_tensor(g) for g in self.gradsq]

    # ------------------------------------------------------------------------------- training

    def cooccurrences(self, corpus) -> sp.csr_matrix:
        """The ``(V, V)`` co-occurrence counts of ``corpus`` over this model's vocabulary.

        Raises:
            SettingError: the counts would hold more non-zero entries than there is memory to train on.
        """
        ids, offsets = self.vocab.encode_corpus(corpus, unknown="drop")
        if self.config.across_sentences:
            offsets = np.array([0, len(ids)])
        available = devices.available_memory()
        return cooccurrence_counts(ids, offsets, len(self.vocab), self.config.window,
                                   max_entries=None if available is None else available // ENTRY_BYTES)

    def train(self, corpus=None, cooccurrences: sp.csr_matrix | None = None, progress: bool = True,
              checkpoint: str | os.PathLike | None = None, callback=None, callback_seconds: float = 1.0) -> GloVe:
        """Train until ``config.epochs`` epochs are done (continuing a resumed model).

        Give the ``corpus`` (counted here) or its ``cooccurrences`` ``(V, V)`` (from
        :func:`cooccurrence_counts`). A checkpoint is written after every epoch when ``checkpoint``
        is given. ``callback(model)``, if given, is called from the calling thread about every
        ``callback_seconds`` while training runs (for a live loss curve: ``model.state.history``)
        and after every epoch.

        Raises:
            SettingError: no two vocabulary words occur within ``window`` of each other.
        """
        import torch

        config = self.config
        if cooccurrences is None:
            if corpus is None:
                raise ValueError("give a corpus or its co-occurrence counts")
            cooccurrences = self.cooccurrences(corpus)
        if cooccurrences.shape != (len(self.vocab), len(self.vocab)):
            raise ValueError(f"co-occurrences of shape {cooccurrences.shape} for a vocabulary of {len(self.vocab)}")
        on_cpu = self.device.type == "cpu"
        workers = config.threads if on_cpu else 1
        in_processes = IN_PROCESSES and on_cpu and workers > 1 and hogwild.can_fork()
        self._check_work_fits(corpus, cooccurrences.nnz, workers, in_processes)
        entries = _device_entries(cooccurrences, config, self.device)
        size = len(entries.rows)
        if size == 0:
            name = getattr(corpus, "name", "the corpus")
            raise SettingError(f"corpus {name!r} is too small to train on: no two vocabulary words occur within "
                               f"window={config.window} of each other in a sentence (min_count={config.min_count})")
        self.state.entries_per_epoch = size
        if corpus is not None:
            self.trained_on = corpus_key(corpus)

        def epoch_work(epoch: int):
            order = torch.from_numpy(np.random.default_rng([config.seed, epoch]).permutation(size)).to(self.device)

            def train_batch(index: int, done) -> tuple[int, float]:
                with torch.no_grad():
                    batch = entries.batch(order[index * config.batch_size:(index + 1) * config.batch_size])
                    loss = self._step(batch)
                if not math.isfinite(loss):
                    raise TrainingDivergedError(
                        f"training diverged (the loss became {loss}) in epoch {epoch + 1}: use a smaller "
                        f"lr (now {config.lr}) or batch_size (now {config.batch_size})")
                return len(batch.rows), loss / len(batch.rows)

            return math.ceil(size / config.batch_size), train_batch

        run_epochs(self, epoch_work, config.epochs * size, "entry", "GloVe", workers, in_processes, progress,
                   checkpoint, callback, callback_seconds)
        return self

    def _check_work_fits(self, corpus, entries: int, workers: int, in_processes: bool) -> None:
        """Refuse, before they are made, training arrays that cannot fit: :data:`ENTRY_BYTES` per
        non-zero co-occurrence, each worker's batch (its entries, and rows of vectors and
        gradients for the words it touches), the copies of the tables that worker processes share
        and the copy of the vectors made for saving them."""
        config = self.config
        table = len(self.vocab) * config.dim * 4
        rows = min(config.batch_size, len(self.vocab))
        batch = config.batch_size * 80 + rows * config.dim * 4 * 8
        on_device = workers * batch + (40 * entries if self.device.type == "cuda" else 0)
        on_device += 4 * table if in_processes else 0  # the parameters and AdaGrad's accumulators
        name = getattr(corpus, "name", "the counts")
        devices.check_memory(f"training GloVe on {name!r} ({entries:,} non-zero co-occurrences at window="
                             f"{config.window}, dim={config.dim:,}, batch_size={config.batch_size:,})",
                             entries * ENTRY_BYTES + 2 * table,
                             "use a smaller window, dim or batch_size, or a larger min_count", self.device, on_device)

    def _step(self, batch: _Batch) -> float:
        """One AdaGrad step on the rows a batch touches; returns the batch's loss.

        Each touched row adds the square of its scaled step to its accumulator, then moves by the
        step over the square root of the accumulator. Threads share the parameters without locks
        (Hogwild): two threads touching the same row at once may, rarely, lose one's update.
        """
        loss, *grads = _loss_and_gradients(*self.parameters(), batch)
        where = (batch.touched_rows, batch.touched_cols, batch.touched_rows, batch.touched_cols)
        for parameter, gradsq, grad, index in zip(self.parameters(), self.gradsq, grads, where, strict=True):
            step = grad.mul_(self.config.lr)
            squared = step * step
            accumulated = gradsq.index_select(0, index).add_(squared)
            gradsq.index_add_(0, index, squared)
            parameter.index_add_(0, index, step.div_(accumulated.sqrt_()), alpha=-1)
        return float(loss)


@dataclass
class _DeviceEntries:
    """Every non-zero entry, on the training device, numbered in row order (then column).

    ``rows``, ``cols`` ``(N,)`` int64; ``log_counts``, ``weights`` ``(N,)`` float32: log X and f(X);
    ``column_rank`` ``(N,)`` int64: each entry's place when the entries are sorted by (column, row).
    """

    rows: object
    cols: object
    log_counts: object
    weights: object
    column_rank: object

    def batch(self, numbers) -> _Batch:
        """A :class:`_Batch` of the entries ``numbers`` ``(B,)`` (any order, no repeats)."""
        by_row = numbers.sort().values  # entries are numbered in row order, so this sorts them by row
        by_col = self.column_rank.index_select(0, by_row).argsort()
        return _Batch.build(*(t.index_select(0, by_row) for t in (self.rows, self.cols, self.log_counts,
                                                                    self.weights)), by_col)


def _device_entries(cooccurrences: sp.csr_matrix, config: GloVeConfig, device) -> _DeviceEntries:
    """The entries of ``cooccurrences`` with log X and f(X), moved to ``device``."""
    import torch

    rows, cols, counts = _entries(cooccurrences)
    column_rank = np.empty(len(rows), dtype=np.int64)
    column_rank[np.lexsort((rows, cols))] = np.arange(len(rows))
    arrays = (rows, cols, np.log(counts).astype(np.float32),
              weighting(counts, config.x_max, config.alpha).astype(np.float32), column_rank)
    return _DeviceEntries(*(torch.from_numpy(a).to(device) for a in arrays))


def _entries(cooccurrences: sp.csr_matrix):
    """The non-zero entries in row order: rows ``(N,)`` int64, cols ``(N,)`` int64, counts ``(N,)`` float64."""
    matrix = sp.csr_matrix(cooccurrences)
    if not matrix.has_canonical_format or (matrix.data == 0).any():
        matrix = matrix.copy()  # leave the caller's matrix as it was
        matrix.sum_duplicates()
        matrix.eliminate_zeros()  # a stored zero is no co-occurrence (and has no logarithm)
    rows = np.repeat(np.arange(matrix.shape[0], dtype=np.int64), np.diff(matrix.indptr))
    return rows, matrix.indices.astype(np.int64), matrix.data.astype(np.float64)


def train_glove(corpus, config: GloVeConfig = GloVeConfig(), progress: bool = True,
                checkpoint: str | os.PathLike | None = None, resume: bool = False, callback=None) -> GloVe:
    """Build the vocabulary of ``corpus``, count its co-occurrences and train GloVe on them.

    With ``resume=True`` and an existing ``checkpoint``, training continues from the last finished
    epoch; a checkpoint is written after every epoch. The corpus and the settings must be the same,
    except ``device``, ``threads``, ``vectors`` and ``epochs``: AdaGrad follows no schedule, so a
    larger ``epochs`` simply trains on.

    Raises:
        SettingError: ``resume`` without a ``checkpoint``; a ``checkpoint`` trained on another
            corpus or with other settings; a run that would need more memory than there is.
        OutputFileError: a ``checkpoint`` that cannot be written (a folder, ...), before counting.
    """
    model = GloVe.start(corpus, config, checkpoint, resume)
    return model.train(corpus, progress=progress, checkpoint=checkpoint, callback=callback)
