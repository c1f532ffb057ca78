"""word2vec from scratch: skip-gram and CBOW, with negative sampling or hierarchical softmax.

The model (Mikolov et al., 2013) has two tables of vectors: ``input_vectors`` (the word vectors we
keep) and, for the output layer, ``output_vectors`` (negative sampling) or ``inner_node_vectors``
(one per inner node of the Huffman tree, for hierarchical softmax).

- Skip-gram: each word in a window predicts the centre word; CBOW: the mean of the window's input
  vectors predicts the centre word.
- Negative sampling: for an input vector h and the true word o, with k noise words n_i drawn from
  P(w) ~ count(w)^0.75, the loss is  -log s(u_o . h) - sum_i log s(-u_{n_i} . h)  (s = sigmoid).
- Hierarchical softmax: P(w | h) = prod_j s(sign_j * u_{node_j} . h) over the inner nodes on w's
  Huffman path, sign_j = +1 for a 0 bit and -1 for a 1 bit; the loss is -log P(w | h).
- The word2vec details: a dynamic window (each centre word draws its window size from 1..window),
  frequent-word subsampling, and a learning rate falling linearly from ``lr`` to ``min_lr``.

Training is vectorised: a chunk of the corpus becomes an array of windows at once (numpy: each
kept word with the words around it), and windows are trained in batches with hand-written
gradients, read from the tables with ``index_select`` and added with ``scatter_add_``. CBOW's one
input per window is scored against the output rows where they lie in the table (a sampled matrix
product, and ``embedding_bag`` for the weighted sums), which moves far less memory than gathering
them; with hierarchical softmax a batch's windows come in the tree's leaf order, so that each
node's summed step is one bag of an ``embedding_bag`` and its row is written once. Skip-gram
trains the window's words one by one against its centre word, as word2vec.c does, with one
difference: the k noise words are drawn once per window and shared by its pairs, so that the
output vectors of a window are fetched and updated once rather than once per pair (about three
times faster, with vectors of the same quality; see ``benchmarks/word2vec_vs_gensim.py``); its
batches hold windows with as many context words, so that little of a batch is padding. With
hierarchical softmax a batch sums many examples' steps on the inner nodes near the root; with
``damp_tree_steps`` (the default) each node's summed step is damped to at most a quarter of a
Newton step (``Word2Vec._step``), which keeps the vectors improving over many epochs. On the CPU, ``threads``
workers train different chunks at once on the shared tables without locks ("Hogwild", as
word2vec.c and gensim do): forked processes where the system can fork (:mod:`course.hogwild`),
else Python threads. One thread and one seed give identical vectors every time; with two or more
workers the order in which they update shared rows changes from run to run, and so do the vectors.
"""

from __future__ import annotations

import math
import os
import threading
import time
import warnings
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from . import hogwild
from .checkpoints import check_resumable, checkpoint_errors, corpus_key, read_checkpoint, resumes, write_checkpoint
from .devices import check_memory, format_bytes, keep_work_memory
from .errors import SettingError, TrainingDivergedError
from .vocab import Vocabulary, VocabularyConfig

ARCHITECTURES = ("skipgram", "cbow")
LOSSES = ("neg", "hs")
CHUNK_WORDS = 20_000  # words per chunk of work: the unit of randomness, threading and lr updates
NOISE_TABLE_SIZE = 10_000_000
# Memory, for refusing a run that cannot fit before anything is allocated: numpy's peak per cell of
# a chunk's (windows, 2 * window) array of context words while it is built and sorted (measured: 41).
WINDOW_CELL_BYTES = 48
LOSS_EVERY = 8  # the loss shown and recorded is the mean over every 8th batch


@dataclass(frozen=True)
class Word2VecConfig:
    """Hyperparameters; the defaults are gensim's."""

    arch: str = "skipgram"
    loss: str = "neg"
    dim: int = 100
    window: int = 5
    negative: int = 5
    ns_exponent: float = 0.75
    min_count: int = 5
    max_vocab: int | None = None
    sample: float = 1e-3
    epochs: int = 5
    lr: float = 0.025
    min_lr: float = 0.0001
    seed: int = 1
    threads: int = 2  # Hogwild workers on a CPU (processes; one: in this process, repeatable)
    device: str = "auto"
    # Pairs (skip-gram) or windows (CBOW) per update. None: 512 on a CPU; on a GPU 4,096 with negative
    # sampling and 1,024 with hierarchical softmax, whose top nodes take a summed step from every
    # example of a batch and diverge beyond that.
    batch_size: int | None = None
    # Hierarchical softmax only: scale each tree node's summed step in a batch down to at most a
    # quarter of a Newton step. Closes the gap to gensim after many epochs, at about nine tenths of
    # the speed.
    damp_tree_steps: bool = True

    def __post_init__(self):
        def finite(value) -> bool:
            try:
                return math.isfinite(float(value))
            except (TypeError, ValueError):
                return False

        checks = [
            (self.arch in ARCHITECTURES, f"arch must be one of {', '.join(ARCHITECTURES)}, got {self.arch!r}"),
            (self.loss in LOSSES, f"loss must be 'neg' (negative sampling) or 'hs' (hierarchical softmax), "
                                  f"got {self.loss!r}"),
            (self.dim >= 1, f"dim must be at least 1, got {self.dim}"),
            (self.window >= 1, f"window must be at least 1, got {self.window}"),
            (self.negative >= 1 or self.loss == "hs", f"negative must be at least 1, got {self.negative}"),
            (self.negative >= 0, f"negative must not be negative, got {self.negative}"),
            (self.min_count >= 1, f"min_count must be at least 1, got {self.min_count}"),
            (finite(self.sample) and self.sample >= 0, f"sample must be a number >= 0, got {self.sample}"),
            (finite(self.ns_exponent), f"ns_exponent must be a number, got {self.ns_exponent}"),
            (self.epochs >= 1, f"epochs must be at least 1, got {self.epochs}"),
            (finite(self.lr) and finite(self.min_lr) and self.lr > 0 and 0 <= self.min_lr <= self.lr,
             f"need 0 <= min_lr <= lr and lr > 0, both finite, got lr={self.lr}, min_lr={self.min_lr}"),
            (self.threads >= 1, f"threads must be at least 1, got {self.threads}"),
            (self.batch_size is None or self.batch_size >= 1, f"batch_size must be at least 1, got {self.batch_size}"),
        ]
        for ok, message in checks:
            if not ok:
                raise SettingError(message)


# ----------------------------------------------------------------------------- the two output layers


def _scores(hidden, rows):
    """``(B, R)`` u . h for hidden ``(B, d)``, or ``(B, C, R)`` for hidden ``(B, C, d)``; rows ``(B, R, d)``."""
    import torch

    if hidden.dim() == 2:  # one input per example: a broadcast product beats a batch of tiny matrix products
        return (rows * hidden.unsqueeze(1)).sum(2)
    return torch.bmm(hidden, rows.transpose(1, 2))


def _backward(d_scores, hidden, rows, rows_too: bool = True):
    """Gradients of the hidden vectors (shaped as ``hidden``) and of the rows ``(B, R, d)``, summed over
    the C inputs, from ``d_scores`` = d loss / d scores shaped as :func:`_scores`'s result (the rows'
    may be skipped: None)."""
    import torch

    grad_rows = None
    if hidden.dim() == 2:
        if rows_too:
            grad_rows = d_scores.unsqueeze(2) * hidden.unsqueeze(1)
        return torch.bmm(d_scores.unsqueeze(1), rows).squeeze(1), grad_rows
    if rows_too:
        grad_rows = torch.bmm(d_scores.transpose(1, 2), hidden)
    return torch.bmm(d_scores, rows), grad_rows


def _table_scores(hidden, table, ids):
    """``(B, R)`` table[ids[b, r]] . hidden[b] for hidden ``(B, d)``, table ``(V, d)``, ids ``(B, R)``.

    On a CPU as a sampled matrix product (``hidden @ table.T`` only where a sparse matrix with
    the ids as columns has entries), which reads the table rows where the gathered ``(B, R, d)``
    rows would be written and read twice.
    """
    import torch

    batch, width = ids.shape
    if hidden.device.type != "cpu":
        return _scores(hidden, table.index_select(0, ids.reshape(-1)).view(batch, width, -1))
    rows = torch.arange(0, batch * width + 1, width, device=ids.device)
    with warnings.catch_warnings():  # "sparse CSR tensor support is in beta state"
        warnings.simplefilter("ignore", UserWarning)
        pattern = torch.sparse_csr_tensor(rows, ids.reshape(-1), torch.zeros(batch * width, dtype=hidden.dtype),
                                          size=(batch, table.shape[0]), check_invariants=False)
    return torch.sparse.sampled_addmm(pattern, hidden, table.t(), beta=0.0).values().view(batch, width)


def _table_sums(weights, table, ids):
    """``(B, d)`` sum_r weights[b, r] * table[ids[b, r]] (one bag of ``embedding_bag`` per row)."""
    import torch

    batch, width = ids.shape
    starts = torch.arange(0, batch * width, width, device=ids.device)
    return torch.nn.functional.embedding_bag(ids.reshape(-1), table, starts, mode="sum",
                                             per_sample_weights=weights.reshape(-1))


def negative_sampling_loss(hidden, output_rows, valid=None, need_loss: bool = True):
    """Loss and gradients of negative sampling for a batch.

    Args:
        hidden: ``(B, d)`` input vectors h (a word's vector, or CBOW's mean), or ``(B, C, d)``:
            C input vectors that share one target and one set of noise words (skip-gram's window).
        output_rows: ``(B, 1 + k, d)`` output vectors: the true word first, then k noise words.
        valid: optional 0/1 weights, ``(B, 1 + k)``, or ``(B, C, 1 + k)`` for 3-D ``hidden`` (a noise
            draw equal to the true word gets 0; so does every score of a padded input vector).
        need_loss: compute the loss (the trainer skips it on most batches to save time).

    Returns:
        ``loss`` ``(B,)`` or ``(B, C)`` (None without ``need_loss``); ``grad_hidden``, shaped as
        ``hidden``; ``grad_output`` ``(B, 1 + k, d)``, summed over the C inputs: the gradients of the
        loss (the update is minus the learning rate times these).
    """
    loss, d_scores = _negative_sampling_terms(_scores(hidden, output_rows), valid, need_loss)
    return loss, *_backward(d_scores, hidden, output_rows)


def _negative_sampling_terms(scores, valid, need_loss: bool):
    """The loss and d loss / d scores of negative sampling from its scores ``(B, [C,] 1 + k)``."""
    import torch

    d_scores = torch.sigmoid(scores)  # d loss / d score = s(score) - label
    d_scores[..., 0] -= 1
    if valid is not None:
        d_scores.mul_(valid)
    loss = None
    if need_loss:
        signed = scores.clone()
        signed[..., 1:].neg_()
        terms = -torch.nn.functional.logsigmoid(signed)
        loss = (terms * valid if valid is not None else terms).sum(-1)
    return loss, d_scores


def hierarchical_softmax_loss(hidden, node_rows, codes, mask, need_loss: bool = True):
    """Loss and gradients of hierarchical softmax for a batch.

    Args:
        hidden: ``(B, d)`` input vectors h, or ``(B, C, d)``: C inputs that share one target word.
        node_rows: ``(B, L, d)`` vectors of the inner nodes on each target word's path (padded).
        codes: ``(B, L)`` the path's bits (0 or 1).
        mask: ``(B, L)`` 1 on the path, 0 on padding; or ``(B, C, L)`` for 3-D ``hidden``, also 0
            for padded inputs.

    Returns:
        ``loss`` ``(B,)`` or ``(B, C)`` = -log P(word | h) (None without ``need_loss``);
        ``grad_hidden``, shaped as ``hidden``; ``grad_nodes`` ``(B, L, d)``, summed over the C inputs.
    """
    targets = 1 - codes.to(hidden.dtype)
    loss, d_scores = _hierarchical_softmax_terms(_scores(hidden, node_rows), targets, mask, need_loss)
    return loss, *_backward(d_scores, hidden, node_rows)


def _hierarchical_softmax_terms(scores, targets, mask, need_loss: bool):
    """The loss and d loss / d scores of hierarchical softmax from its scores ``(B, [C,] L)``;
    ``targets`` ``(B, L)`` = 1 - code, the probability each node should give its left branch."""
    import torch

    if scores.dim() == 3:
        targets = targets.unsqueeze(1)
    loss = None
    if need_loss:  # -log s(sign * score), sign = 2 * target - 1
        loss = -(torch.nn.functional.logsigmoid((2 * targets - 1) * scores) * mask).sum(-1)
    return loss, torch.sigmoid(scores).sub_(targets).mul_(mask)


def hierarchical_softmax_probabilities(hidden, inner_node_vectors, tree) -> torch.Tensor:  # noqa: F821
    """``(B, V)`` P(w | h) of every word under hierarchical softmax (zero for special tokens).

    ``hidden`` is ``(B, d)``, ``inner_node_vectors`` ``(V - 1, d)``; ``tree`` a :class:`~course.vocab.HuffmanTree`.
    For each h the probabilities of the coded words sum to 1. Costs O(V log V): for checks and figures.
    """
    import torch

    points = torch.as_tensor(tree.points)
    codes = torch.as_tensor(tree.codes).to(hidden.dtype)
    mask = (torch.arange(points.shape[1]) < torch.as_tensor(tree.lengths)[:, None]).to(hidden.dtype)
    scores = torch.einsum("vld,bd->bvl", inner_node_vectors[points], hidden)
    log_p = (torch.nn.functional.logsigmoid((1 - 2 * codes) * scores) * mask).sum(2)
    return torch.where(torch.as_tensor(tree.lengths) > 0, log_p.exp(), torch.zeros_like(log_p))


# ------------------------------------------------------------------------------ examples from text


def skipgram_pairs(ids: np.ndarray, sentence: np.ndarray, window: int, rng: np.random.Generator):
    """Skip-gram training pairs with word2vec's dynamic window.

    Each position p draws b_p uniformly from 1..window and pairs with every word at most b_p away
    in the same sentence. Args: ``ids`` ``(n,)`` word ids (already subsampled), ``sentence``
    ``(n,)`` the sentence of each. Returns ``(centres, contexts)``, each ``(pairs,)`` int64.
    """
    reach = rng.integers(1, window + 1, size=len(ids))
    centres, contexts = [], []
    for distance in range(1, window + 1):
        left = np.arange(len(ids) - distance)
        same = sentence[left] == sentence[left + distance]
        right_of = left[same & (reach[left] >= distance)]  # p pairs with p + distance
        left_of = left[same & (reach[left + distance] >= distance)] + distance  # p pairs with p - distance
        centres += [ids[right_of], ids[left_of]]
        contexts += [ids[right_of + distance], ids[left_of - distance]]
    return np.concatenate(centres).astype(np.int64), np.concatenate(contexts).astype(np.int64)


def cbow_windows(ids: np.ndarray, sentence: np.ndarray, window: int, rng: np.random.Generator):
    """CBOW examples with word2vec's dynamic window.

    Returns ``(centres (m,), contexts (m, 2 * window))`` int64, contexts padded with -1; centres
    with no context word in their sentence are left out. A window larger than the longest sentence
    less one reaches no further than that, so the columns stop there: ``--window 100000`` on short
    sentences costs what the sentences need.
    """
    n = len(ids)
    reach = rng.integers(1, window + 1, size=n)
    span = min(window, longest_sentence(sentence) - 1)
    offsets = np.concatenate([np.arange(-span, 0), np.arange(1, span + 1)])
    positions = np.arange(n)[:, None] + offsets[None, :]
    inside = (positions >= 0) & (positions < n) & (np.abs(offsets)[None, :] <= reach[:, None])
    clipped = positions.clip(0, max(n - 1, 0))
    inside &= sentence[clipped] == sentence[:, None]
    contexts = np.where(inside, ids[clipped], -1)
    has_context = inside.any(axis=1)
    return ids[has_context].astype(np.int64), contexts[has_context].astype(np.int64)


def longest_sentence(sentence: np.ndarray) -> int:
    """The length of the longest run of equal values in ``sentence`` ``(n,)`` (each token's sentence,
    in order); 0 for no tokens."""
    if len(sentence) == 0:
        return 0
    starts = np.flatnonzero(np.concatenate([[True], sentence[1:] != sentence[:-1], [True]]))
    return int(np.diff(starts).max())


# ------------------------------------------------------------------------------------------ model


@dataclass
class TrainingState:
    """Where training stands: finished epochs and the loss history (words seen, mean loss per chunk)."""

    epochs_done: int = 0
    words_done: int = 0
    history: list[tuple[int, float]] = field(default_factory=list)
    seconds: float = 0.0


class Word2Vec:
    """A word2vec model over a :class:`~course.vocab.Vocabulary` (built without special tokens).

    Attributes:
        input_vectors: ``(V, d)`` float32, the word vectors.
        output_vectors: ``(V, d)`` float32, negative sampling's output layer (``loss="neg"``).
        inner_node_vectors: ``(V - 1, d)`` float32, hierarchical softmax's output layer (``loss="hs"``).
    """

    def __init__(self, vocab: Vocabulary, config: Word2VecConfig):
        import torch

        from .devices import resolve_device

        self.vocab, self.config = vocab, config
        self.device = resolve_device(config.device)
        table = len(vocab) * config.dim * 4
        check_memory(f"word2vec with {len(vocab):,} words of {config.dim:,} dimensions", 2 * table,
                     "use a smaller dim, or a larger min_count", self.device, 2 * table)
        rng = np.random.default_rng(config.seed)
        size = (len(vocab), config.dim)
        initial = (rng.random(size, dtype=np.float32) - 0.5) / config.dim  # word2vec.c's initialisation
        self.input_vectors = torch.from_numpy(initial).to(self.device)
        rows = len(vocab) if config.loss == "neg" else max(1, len(vocab) - 1)
        output = torch.zeros(rows, config.dim, device=self.device)
        self.output_vectors = output if config.loss == "neg" else None
        self.inner_node_vectors = output if config.loss == "hs" else None
        self.state = TrainingState()
        self.trained_on: dict | None = None  # the corpus trained on (checkpoints.corpus_key), once training starts

    # -------------------------------------------------------------------------------- results

    def keyed_vectors(self):
        """The word vectors as a gensim ``KeyedVectors``, most frequent word first."""
        from .vectors import keyed_vectors

        return keyed_vectors(self.vocab.words, self.input_vectors.float().cpu().numpy())

    def save_vectors(self, path: str | os.PathLike, binary: bool = False) -> Path:
        """Write the word vectors in word2vec format (text, or binary), atomically."""
        from .vectors import save_vectors

        return save_vectors(self.keyed_vectors(), path, binary=binary)

    # ---------------------------------------------------------------------------- checkpoints

    def save_checkpoint(self, path: str | os.PathLike) -> Path:
        """Save everything needed to resume training (atomically)."""
        payload = {
            "format": "course.word2vec/1",
            "config": asdict(self.config),
            "words": [str(word) for word in self.vocab.words],  # plain str, never numpy.str_
            "counts": self.vocab.counts.tolist(),
            "input_vectors": self.input_vectors.cpu(),
            "output": (self.output_vectors if self.output_vectors is not None else self.inner_node_vectors).cpu(),
            "state": asdict(self.state),
            "corpus": self.trained_on,
        }
        return write_checkpoint(path, payload)

    @classmethod
    def load_checkpoint(cls, path: str | os.PathLike, device: str | None = None) -> Word2Vec:
        """Load a model saved by :meth:`save_checkpoint` (on ``device``, default: the saved one)."""
        with checkpoint_errors(path, "word2vec"):
            payload = read_checkpoint(path, "course.word2vec/1")
            config = Word2VecConfig(**{**payload["config"], **({"device": device} if device else {})})
            vocab = Vocabulary(payload["words"], payload["counts"], specials=())
            model = cls(vocab, config)
            model.input_vectors.copy_(payload["input_vectors"])
            (model.output_vectors if config.loss == "neg" else model.inner_node_vectors).copy_(payload["output"])
            state = payload["state"]
            model.state = TrainingState(state["epochs_done"], state["words_done"],
                                        [tuple(item) for item in state["history"]], state["seconds"])
            model.trained_on = payload.get("corpus")
            return model

    # ------------------------------------------------------------------------------- training

    def train(self, corpus, progress: bool = True, checkpoint: str | os.PathLike | None = None,
              callback=None, callback_seconds: float = 1.0) -> Word2Vec:
        """Train on ``corpus`` until ``config.epochs`` epochs are done (continuing a resumed model).

        A checkpoint is written after every epoch when ``checkpoint`` is given. ``callback(model)``,
        if given, is called from the calling thread about every ``callback_seconds`` while training
        runs (for a live loss curve: ``model.state.history``) and after every epoch.

        Raises:
            SettingError: the corpus gives no training example (no two vocabulary words share a sentence).
        """
        import torch
        from tqdm.auto import tqdm

        config = self.config
        ids, offsets = self.vocab.encode_corpus(corpus, unknown="drop")
        sentence = np.repeat(np.arange(len(offsets) - 1), np.diff(offsets))
        if not np.any(np.diff(offsets) >= 2):
            raise SettingError(f"corpus {corpus.name!r} is too small to train on: no sentence has two words "
                               f"in the vocabulary (min_count={config.min_count})")
        chunks = _chunks(offsets, CHUNK_WORDS)
        self.trained_on = corpus_key(corpus)
        total_words = config.epochs * len(ids)
        keep = self.vocab.keep_probabilities(config.sample)
        noise = self._noise_table() if config.loss == "neg" else None
        on_cpu = self.device.type == "cpu"
        threads = config.threads if on_cpu else 1
        batch_size = config.batch_size or (512 if on_cpu else 4_096 if config.loss == "neg" else 1_024)
        in_processes = on_cpu and threads > 1 and hogwild.can_fork()
        self._check_work_fits(corpus, offsets, chunks, threads, batch_size, in_processes)
        torch_threads = torch.get_num_threads()
        if on_cpu:
            keep_work_memory()
            torch.set_num_threads(1)  # parallelism comes from the Hogwild workers; one is deterministic
        bar = tqdm(total=total_words, initial=self.state.words_done, unit="word", unit_scale=True,
                   desc=f"{config.arch}/{config.loss}", disable=not progress)
        if in_processes:
            self._share_tables()

        def train_chunk(epoch, index, words_done) -> tuple[int, float | None]:
            """Train chunk ``index``; ``words_done()`` gives the words trained so far, for the learning rate.
            Returns the chunk's words and its mean loss (None when no batch measured it)."""
            begin, end = chunks[index]
            rng = np.random.default_rng([config.seed, epoch, index])
            losses = self._train_chunk(ids[begin:end], sentence[begin:end], keep, noise, rng, batch_size,
                                       total_words, words_done)
            if losses and not np.isfinite(losses).all():
                raise TrainingDivergedError(
                    f"training diverged (the loss became {float(np.sum(losses))}) in epoch {epoch + 1}: "
                    f"use a smaller --lr (now {config.lr}) or --batch-size (now {batch_size})")
            return end - begin, float(np.mean(losses)) if losses else None

        def record(report) -> None:
            words, loss = report
            self.state.words_done += words
            if loss is not None:
                self.state.history.append((self.state.words_done, loss))
                bar.set_postfix(loss=f"{loss:.3f}", refresh=False)
            bar.update(words)

        def poll() -> None:
            if callback is not None:
                callback(self)

        try:
            for epoch in range(self.state.epochs_done, config.epochs):
                start = time.perf_counter()
                if in_processes:
                    self._epoch_in_processes(epoch, len(chunks), threads, train_chunk, record, poll, callback_seconds)
                else:
                    self._epoch_in_threads(epoch, len(chunks), threads, train_chunk, record, poll, callback_seconds)
                self.state.epochs_done = epoch + 1
                self.state.seconds += time.perf_counter() - start
                if checkpoint is not None:
                    self.save_checkpoint(checkpoint)
                poll()
        finally:
            bar.close()
            if on_cpu:
                torch.set_num_threads(torch_threads)
        return self

    def _check_work_fits(self, corpus, offsets, chunks, workers: int, batch_size: int, in_processes: bool) -> None:
        """Refuse, before it starts, a run whose working memory cannot fit: each worker's windows of
        its largest chunk (``(words, 2 * window)`` context ids, numpy's temporaries included) and
        its batch's rows of vectors, the noise table, the copies of the tables that worker
        processes share, and the copy of the vectors made for saving them."""
        config = self.config
        longest = int(np.diff(offsets).max())
        span = max(0, min(config.window, longest - 1))  # cbow_windows: no window runs past its sentence
        cells = max(end - begin for begin, end in chunks) * 2 * span
        rows = 1 + config.negative if config.loss == "neg" else int(self.vocab.huffman().lengths.max())
        # vectors per example at once: inputs and their steps, output rows and their steps, and
        # for CBOW one step per context word
        batch = batch_size * config.dim * 4 * (4 + 2 * rows + (2 * span if config.arch == "cbow" else 0))
        table = len(self.vocab) * config.dim * 4
        windows = workers * cells * WINDOW_CELL_BYTES
        on_device = workers * batch + (2 * table if in_processes else 0)
        if self.device.type == "cuda":  # the chunk's windows are on the GPU too, as int64
            on_device += cells * 8
        check_memory(f"training word2vec on {corpus.name!r} with window={config.window} (its longest sentence "
                     f"has {longest:,} words: up to {2 * span:,} context words per window, "
                     f"{format_bytes(windows)} for {workers} worker{'s' if workers > 1 else ''}' windows), "
                     f"dim={config.dim:,} and batch_size={batch_size:,}",
                     windows + 12 * NOISE_TABLE_SIZE + 2 * table,
                     "use a smaller window, dim or batch_size, or fewer threads", self.device, on_device)

    def _epoch_in_threads(self, epoch, num_chunks, threads, train_chunk, record, poll, poll_seconds) -> None:
        """One epoch in ``threads`` Python threads (one thread: deterministic; on a GPU: one thread)."""
        import torch

        lock, work, failures = threading.Lock(), iter(range(num_chunks)), []

        def worker() -> None:
            # Far-out sigmoids give subnormal floats, which make CPU arithmetic many times slower;
            # flush them to zero (the setting is per thread, and these are ours).
            torch.set_flush_denormal(True)
            try:
                while not failures:
                    with lock:
                        index = next(work, None)
                    if index is None:
                        return
                    report = train_chunk(epoch, index, lambda: self.state.words_done)
                    with lock:
                        record(report)
            except BaseException as exc:  # noqa: BLE001 - handed to the calling thread
                failures.append(exc)

        pool = [threading.Thread(target=worker, daemon=True) for _ in range(threads)]
        for thread in pool:
            thread.start()
        for thread in pool:
            while thread.is_alive():
                thread.join(timeout=poll_seconds)
                poll()
        if failures:
            raise failures[0]

    def _epoch_in_processes(self, epoch, num_chunks, processes, train_chunk, record, poll, poll_seconds) -> None:
        """One epoch in ``processes`` forked processes that train the shared tables (see :mod:`course.hogwild`)."""
        import torch

        # the next chunk to take, and the words trained in this epoch (for the learning rate)
        counters = hogwild.shared_tensor(torch.zeros(2, dtype=torch.int64))
        lock = hogwild.shared_lock()
        words_before = self.state.words_done

        def work(send) -> None:
            torch.set_num_threads(1)
            torch.set_flush_denormal(True)
            while True:
                with lock:
                    index = int(counters[0])
                    counters[0] += 1
                if index >= num_chunks:
                    return
                report = train_chunk(epoch, index, lambda: words_before + int(counters[1]))
                with lock:
                    counters[1] += report[0]
                send(report)

        hogwild.run_workers(processes, work, record, poll, poll_seconds)

    def _share_tables(self) -> None:
        """Move the trained tables into memory that forked worker processes share."""
        self.input_vectors = hogwild.shared_tensor(self.input_vectors)
        if self.output_vectors is not None:
            self.output_vectors = hogwild.shared_tensor(self.output_vectors)
        if self.inner_node_vectors is not None:
            self.inner_node_vectors = hogwild.shared_tensor(self.inner_node_vectors)

    def _noise_table(self):
        """word2vec.c's unigram table: each word fills a share P(w) ~ count^0.75 of the slots."""
        import torch

        probabilities = self.vocab.noise_distribution(self.config.ns_exponent)
        slots = np.floor(np.cumsum(probabilities) * NOISE_TABLE_SIZE).astype(np.int64)
        table = np.repeat(np.arange(len(probabilities), dtype=np.int32), np.diff(np.concatenate([[0], slots])))
        return torch.from_numpy(table).to(self.device)

    def _learning_rate(self, total_words: int, words_done: int) -> float:
        config = self.config
        progress = min(1.0, words_done / max(1, total_words))
        return max(config.min_lr, config.lr - (config.lr - config.min_lr) * progress)

    def _train_chunk(self, ids, sentence, keep, noise, rng, batch_size, total_words, words_done) -> list[float]:
        """Subsample one chunk, cut it into windows, and train them batch by batch (``words_done()``: the
        words trained so far, for the learning rate)."""
        import torch

        kept = rng.random(len(ids)) < keep[ids]
        centres, contexts = cbow_windows(ids[kept], sentence[kept], self.config.window, rng)
        if len(centres) == 0:
            return []
        if self.config.arch == "skipgram":  # batch_size counts pairs: about that many per batch of windows
            batch_size = max(1, round(batch_size * len(centres) / int((contexts >= 0).sum())))
        order = rng.permutation(len(centres))
        starts = np.arange(0, len(centres), batch_size)
        # Batches of windows that need the same padding waste little on it: CBOW's with Huffman
        # paths of the same length (HS), skip-gram's with as many context words (moved to the
        # front). The batches are then trained in random order. Skip-gram's are not sorted by path
        # length: that would fill a batch with the windows of one frequent centre word, all stepping
        # the same few tree nodes at once, which cost quality and saved no time.
        sort_keys = []
        if self.config.loss == "hs" and self.config.arch == "cbow":
            sort_keys.append(self.vocab.huffman().lengths[centres[order]])
        if self.config.arch == "skipgram":
            contexts = -np.sort(-contexts, axis=1)  # ids in descending order: the -1 padding last
            sort_keys.append((contexts[order] >= 0).sum(1))
        if sort_keys:
            order = order[np.lexsort(sort_keys)]  # stable: ties keep their random order
            starts = rng.permutation(starts)
        if self.config.arch == "cbow" and self.config.loss == "hs":
            # within a batch in the tree's leaf order, for _add_node_steps_by_node
            order = order[np.lexsort((self._leaf_ranks()[centres[order]], np.arange(len(order)) // batch_size))]
        contexts = contexts[order]
        filled = (contexts >= 0).sum(1)  # context words per window (skip-gram's come first)
        centres = torch.from_numpy(centres[order]).to(self.device)
        contexts = torch.from_numpy(contexts).to(self.device)
        negatives = None
        if noise is not None:
            draws = rng.integers(0, len(noise), size=(len(centres), self.config.negative))
            draws = torch.from_numpy(draws.reshape(-1)).to(self.device)
            negatives = noise.index_select(0, draws).view(len(centres), -1).long()  # (windows, k)
        losses = []
        with torch.no_grad():
            # the loss is measured on every LOSS_EVERY-th batch in the sorted order, which spans the
            # batches' kinds (numbers of context words, path lengths) evenly
            for start in starts:
                stop = start + batch_size
                # skip-gram: only the columns the batch's windows fill
                width = int(filled[start:stop].max()) if self.config.arch == "skipgram" else contexts.shape[1]
                lr = self._learning_rate(total_words, words_done())
                batch_negatives = None if negatives is None else negatives[start:stop]
                loss = self._step(contexts[start:stop, :width], centres[start:stop], batch_negatives, lr,
                                  need_loss=start // batch_size % LOSS_EVERY == 0)
                if loss is not None:
                    losses.append(loss)
        return losses

    def _step(self, contexts, centres, negatives, lr: float, need_loss: bool) -> float | None:
        """One SGD step on a batch of windows: contexts ``(B, 2w)`` (-1 padded), centres ``(B,)``,
        negatives ``(B, k)``. Skip-gram trains each context word on its own against the centre word
        (the window shares its k noise words); CBOW trains their mean. Returns the mean loss per
        training example if ``need_loss``.

        With hierarchical softmax, the nodes near the root of the tree lie on almost
        every path, so one batch sums the steps of hundreds of examples on them, all taken from the
        same stale vector. Late in training, when the word vectors are long, that sum overshoots
        where word2vec.c's one-pair-at-a-time steps would correct each other, and the vectors come
        out worse after many epochs. With ``config.damp_tree_steps`` a node's summed step is scaled
        down to at most a quarter of a Newton step on the batch's loss (see :func:`_damped_scale`);
        nodes with few examples in the batch, and every node early on, when the vectors are short,
        keep their plain sum."""
        import torch

        batch, width = contexts.shape
        dim = self.config.dim
        present = contexts >= 0  # (B, 2w)
        context_ids = contexts.clamp(min=0)
        real = present.view(-1).nonzero().squeeze(1)  # positions of real context words in the (B * 2w) grid
        padded = len(real) < batch * width
        real_ids = context_ids.view(-1).index_select(0, real) if padded else context_ids.view(-1)
        if self.config.arch == "cbow":
            counts = present.sum(1)
            offsets = counts.cumsum(0) - counts
            hidden = torch.nn.functional.embedding_bag(real_ids, self.input_vectors, offsets, mode="mean")  # (B, d)
            inputs = torch.ones(batch, 1, dtype=hidden.dtype, device=hidden.device)  # one example per window
        else:
            hidden = self.input_vectors.index_select(0, context_ids.view(-1)).view(batch, width, dim)
            inputs = present.to(hidden.dtype).unsqueeze(2)  # (B, 2w, 1): 2w examples per window, some padding
        # CBOW's one input per window is scored against the output table's rows where they lie
        # (_table_scores, _table_sums); skip-gram's window of inputs against gathered rows.
        cbow = hidden.dim() == 2
        if self.config.loss == "neg":
            rows = torch.cat([centres.unsqueeze(1), negatives], dim=1)  # (B, 1 + k)
            valid = (rows != centres.unsqueeze(1)).to(hidden.dtype)
            valid[:, 0] = 1
            # steps: -lr times the gradients
            if cbow:
                loss, d_scores = _negative_sampling_terms(_table_scores(hidden, self.output_vectors, rows), valid,
                                                          need_loss)
                input_step = _table_sums(d_scores.mul_(-lr), self.output_vectors, rows)
                output_steps = d_scores.unsqueeze(2) * hidden.unsqueeze(1)  # (B, 1 + k, d)
            else:
                output_rows = self.output_vectors.index_select(0, rows.view(-1)).view(batch, -1, dim)
                scores = _scores(hidden, output_rows)
                loss, d_scores = _negative_sampling_terms(scores, inputs * valid.unsqueeze(1), need_loss)
                input_step, output_steps = _backward(d_scores.mul_(-lr), hidden, output_rows)
            _scatter_add(self.output_vectors, rows.view(-1), output_steps.view(-1, dim))
        else:
            points, targets, mask = self._paths(centres)
            longest = points.shape[1]
            if cbow:
                scores = _table_scores(hidden, self.inner_node_vectors, points)
                loss, d_scores = _hierarchical_softmax_terms(scores, targets, mask, need_loss)
                input_step = _table_sums(d_scores * -lr, self.inner_node_vectors, points)
            else:
                node_rows = self.inner_node_vectors.index_select(0, points.reshape(-1)).view(batch, longest, dim)
                mask = inputs * mask.unsqueeze(1)
                loss, d_scores = _hierarchical_softmax_terms(_scores(hidden, node_rows), targets, mask, need_loss)
                input_step, _ = _backward(d_scores * -lr, hidden, node_rows, rows_too=False)
            self._add_node_steps(points, d_scores, hidden, mask, lr)
        # With CBOW every context word takes the whole error of the mean, as word2vec.c and gensim
        # do (the exact gradient would divide it by the number of context words).
        if cbow:
            input_steps = input_step.index_select(0, real // width)
        elif padded:
            input_steps = input_step.view(-1, dim).index_select(0, real)
        else:  # no padding
            input_steps = input_step.view(-1, dim)
        _scatter_add(self.input_vectors, real_ids, input_steps)
        return float(loss.sum() / inputs.sum()) if need_loss else None

    def _add_node_steps(self, points, d_scores, hidden, mask, lr: float) -> None:
        """Add to each inner node on the batch's paths its step: -lr times the sum of d_score * h over
        the examples whose path runs through it (damped with ``config.damp_tree_steps``).

        ``points`` ``(B, L)``; ``d_scores`` and ``mask`` ``(B, [C,] L)``; ``hidden`` ``(B, [C,] d)``.
        """
        import torch

        if hidden.dim() == 2:
            return self._add_node_steps_by_node(points, d_scores, hidden, mask, lr)
        batch, longest = points.shape
        node_ids = points.reshape(-1)
        scale = -lr
        if self.config.damp_tree_steps:
            # each node's summed |h|^2 over its examples: 4 times a bound on the curvature along it
            sq_norms = (torch.linalg.vector_norm(hidden, dim=2).square_().unsqueeze(2) * mask).sum(1)  # (B, L)
            curvature = torch.zeros(self.inner_node_vectors.shape[0], dtype=hidden.dtype, device=hidden.device)
            curvature.index_add_(0, node_ids, sq_norms.view(-1))
            scale = _damped_scale(curvature.index_select(0, node_ids), lr).view(batch, 1, longest)
        steps = torch.bmm((d_scores * scale).transpose(1, 2), hidden)  # (B, L, d), summed over the C inputs
        # Padding steps of a path are zero rows (masked); adding them to node 0 costs less than
        # gathering the steps on the paths.
        _scatter_add(self.inner_node_vectors, node_ids, steps.view(batch * longest, -1))

    def _add_node_steps_by_node(self, points, d_scores, hidden, mask, lr: float) -> None:
        """:meth:`_add_node_steps` for one input per window, ``hidden`` ``(B, d)`` (CBOW), node by node.

        The windows come in the tree's leaf order (:meth:`_train_chunk`), so that at each depth the
        windows through one node are consecutive; each node's step is one bag of an
        ``embedding_bag`` over the inputs, weighted by their d_scores, taken depth by depth: no
        ``(B, L, d)`` tensor of per-window steps is formed, and each node's row is written once.
        """
        import torch

        batch, longest = points.shape
        node_ids = points.t().reshape(-1)  # (L * B,) depth by depth
        members = torch.arange(batch, device=points.device).repeat(longest)  # the window of each entry
        starts = _run_starts(node_ids)
        steps = torch.nn.functional.embedding_bag(members, hidden, starts, mode="sum",
                                                  per_sample_weights=d_scores.t().reshape(-1))  # (nodes, d)
        scale = -lr
        if self.config.damp_tree_steps:
            sq_norms = torch.linalg.vector_norm(hidden, dim=1).square_().unsqueeze(1)  # (B, 1)
            curvature = torch.nn.functional.embedding_bag(members, sq_norms, starts, mode="sum",
                                                          per_sample_weights=mask.t().reshape(-1))  # (nodes, 1)
            scale = _damped_scale(curvature, lr)
        _scatter_add(self.inner_node_vectors, node_ids.index_select(0, starts), steps, scale)

    def _leaf_ranks(self) -> np.ndarray:
        """``(V,)`` each word's place among the tree's leaves from left to right (its code's place in
        lexicographic order): the words below any one inner node have consecutive places."""
        if not hasattr(self, "_leaf_rank_array"):
            codes = self.vocab.huffman().codes  # padded with 0s, which keeps the order of prefix-free codes
            ranks = np.empty(len(codes), dtype=np.int64)
            ranks[np.lexsort(codes.T[::-1])] = np.arange(len(codes))
            self._leaf_rank_array = ranks
        return self._leaf_rank_array

    def _tree(self):
        """Huffman paths as tensors on the device: points ``(V, L)`` int64; ``(V, 2, L)`` float: the
        targets 1 - code, and 1 on the path, 0 on its padding; lengths ``(V,)`` int64."""
        import torch

        if not hasattr(self, "_tree_tensors"):
            tree = self.vocab.huffman()
            mask = torch.arange(tree.points.shape[1]) < torch.as_tensor(tree.lengths)[:, None]
            paths = torch.stack([1 - torch.as_tensor(tree.codes).float(), mask.float()], dim=1)
            self._tree_tensors = tuple(tensor.to(self.device) for tensor in (
                torch.as_tensor(tree.points), paths, torch.as_tensor(tree.lengths)))
        return self._tree_tensors

    def _paths(self, words):
        """Huffman paths of ``words`` ``(B,)``, trimmed to the longest: points ``(B, L)``, targets
        1 - code ``(B, L)`` and mask ``(B, L)``."""
        points, paths, lengths = self._tree()
        longest = int(lengths.index_select(0, words).max())  # one number from the device
        targets, mask = paths.index_select(0, words)[:, :, :longest].unbind(1)
        return points.index_select(0, words)[:, :longest], targets, mask


def _damped_scale(curvature, lr: float):
    """-lr * min(1, 1 / (lr * c)) for each row's summed squared input norm c (any shape).

    A row u takes the summed step of the examples e with inputs h_e that update it; the curvature
    of the batch's loss along u is at most 1/4 sum_e |h_e|^2 (s' <= 1/4), so a step of this scale
    times the summed gradient goes at most a quarter of a Newton step. (Allowing a whole Newton
    step helped less at 20 epochs in ``benchmarks/word2vec_vs_gensim.py``.)
    """
    return curvature.mul(lr).clamp_(min=1).reciprocal_().mul_(-lr)


def _run_starts(values):
    """``(R,)`` the positions in ``values`` ``(n,)`` where a run of equal consecutive values begins."""
    import torch

    change = torch.ones_like(values, dtype=torch.bool)
    torch.ne(values[1:], values[:-1], out=change[1:])
    return change.nonzero().squeeze(1)


def _scatter_add(table, index, rows, alpha=None) -> None:
    """``table[index[i]] += alpha * rows[i]`` for every i, repeated indices summed (in place).

    ``table`` ``(V, d)``, ``index`` ``(n,)``, ``rows`` ``(n, d)`` (scaled in place); ``alpha`` a
    number or an ``(n, 1)`` tensor of factors, or None: rows already scaled. ``scatter_add_`` is
    used rather than ``index_add_``: on the CPU it costs far less per index.
    """
    table.scatter_add_(0, index.unsqueeze(1).expand(-1, table.shape[1]), rows if alpha is None else rows.mul_(alpha))


def _chunks(offsets: np.ndarray, words: int) -> list[tuple[int, int]]:
    """Split the corpus at sentence boundaries into spans of about ``words`` tokens."""
    cuts = np.searchsorted(offsets, np.arange(0, offsets[-1], words), side="left")
    bounds = np.unique(np.concatenate([offsets[cuts], [offsets[-1]]]))
    return [(int(a), int(b)) for a, b in zip(bounds[:-1], bounds[1:], strict=True) if b > a]


def train_word2vec(corpus, config: Word2VecConfig = Word2VecConfig(), progress: bool = True,
                   checkpoint: str | os.PathLike | None = None, resume: bool = False, callback=None) -> Word2Vec:
    """Build the vocabulary of ``corpus`` and train word2vec on it.

    With ``resume=True`` and an existing ``checkpoint``, training continues from the last finished
    epoch (the corpus and the settings must be the same); a checkpoint is written after every epoch.

    Raises:
        SettingError: ``resume`` without a ``checkpoint``; a ``checkpoint`` trained on another
            corpus or with other settings; a run that would need more memory than there is.
        OutputFileError: a ``checkpoint`` that cannot be written (a folder, ...), before training.
    """
    if resumes(checkpoint, resume):
        model = Word2Vec.load_checkpoint(checkpoint, device=config.device)
        check_resumable(checkpoint, {"config": asdict(model.config), "corpus": model.trained_on}, corpus,
                        asdict(config))
    else:
        vocab = Vocabulary.from_corpus(corpus, VocabularyConfig(min_count=config.min_count,
                                                                max_size=config.max_vocab, specials=()))
        model = Word2Vec(vocab, config)
    return model.train(corpus, progress=progress, checkpoint=checkpoint, callback=callback)
