"""The fast word2vec trainer: the same model and losses as the reference trainer
(:mod:`course.word2vec.reference`), trained in batches with hand-written gradients.

- A chunk of about :data:`CHUNK_WORDS` words of text becomes an array of windows at once
  (numpy: each kept word with the words around it), and its windows are trained in batches, read
  from the tables with ``index_select`` and added with ``scatter_add_``.
- Skip-gram trains the window's words one by one against its centre word, as word2vec.c does,
  with one difference: the k noise words are drawn once per window and shared by its pairs, so
  that the output vectors of a window are fetched and updated once rather than once per pair
  (about three times faster, with vectors of the same quality). Its batches hold windows with as
  many context words, so that little of a batch is padding.
- CBOW's one input per window is scored against the output rows where they lie in the table
  (:mod:`~course.word2vec.kernels`); with hierarchical softmax a batch's windows have paths of
  the same length and come in the tree's leaf order, so that each node's summed step is one bag
  of an ``embedding_bag`` and its row is written once (:mod:`~course.word2vec.tree`, which also
  damps the tree nodes' summed steps).
- On the CPU, ``threads`` Hogwild workers train different chunks at once on the shared tables
  without locks (:func:`course.static.run_epochs`): forked processes where the system can fork,
  else Python threads.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np

from ..core.checkpoints import corpus_key
from ..core.devices import check_memory, format_bytes
from ..core.errors import TrainingDivergedError
from ..static import hogwild, run_epochs
from .damping import damped_factors, input_step_curvature
from .examples import cbow_windows, chunks, subsample, training_text
from .kernels import scatter_add, table_scores, table_sums
from .losses import backward, hierarchical_softmax_terms, negative_sampling_terms, scores
from .tree import HuffmanPaths, add_node_steps

CHUNK_WORDS = 20_000  # words per chunk of work: the unit of randomness, of the workers and of lr updates
NOISE_TABLE_SIZE = 10_000_000
# Memory, for refusing a run that cannot fit before anything is allocated: numpy's peak per cell of
# a chunk's (windows, 2 * window) array of context words while it is built and sorted (measured: 41).
WINDOW_CELL_BYTES = 48
LOSS_EVERY = 8  # the loss shown and recorded is the mean over every 8th batch


@dataclass
class Batch:
    """Windows trained in one step.

    ``contexts`` ``(B, W)`` int64: each window's context words, -1 for padding; ``centres``
    ``(B,)`` int64; ``negatives`` ``(B, k)`` int64, the noise words of each window (negative
    sampling; None for hierarchical softmax); ``need_loss``: measure the loss of this batch.
    """

    contexts: object
    centres: object
    negatives: object = None
    need_loss: bool = False


def noise_table(vocab, exponent: float, device):
    """word2vec.c's unigram table, ``(NOISE_TABLE_SIZE,)`` int32: each word fills a share
    P(w) ~ count^exponent of the slots, so that a uniform slot is a noise word."""
    import torch

    probabilities = vocab.noise_distribution(exponent)
    slots = np.floor(np.cumsum(probabilities) * NOISE_TABLE_SIZE).astype(np.int64)
    table = np.repeat(np.arange(len(probabilities), dtype=np.int32), np.diff(np.concatenate([[0], slots])))
    return torch.from_numpy(table).to(device)


class FastTrainer:
    """Trains a :class:`~course.word2vec.model.Word2Vec` in batches; worked out once: the workers,
    the batch size, the keep probabilities of subsampling, the noise table (negative sampling)
    and the Huffman paths as tensors (hierarchical softmax)."""

    def __init__(self, model):
        config = model.config
        self.model, self.config, self.device = model, config, model.device
        on_cpu = self.device.type == "cpu"
        self.workers = config.threads if on_cpu else 1
        self.in_processes = on_cpu and self.workers > 1 and hogwild.can_fork()
        self.batch_size = config.batch_size or (512 if on_cpu else 4_096 if config.loss == "neg" else 1_024)
        self.keep = model.vocab.keep_probabilities(config.sample)
        self.noise = noise_table(model.vocab, config.ns_exponent, self.device) if config.loss == "neg" else None
        self.tree = HuffmanPaths(model.vocab.huffman(), self.device) if config.loss == "hs" else None

    def train(self, corpus, progress: bool = True, checkpoint: str | os.PathLike | None = None, callback=None,
              callback_seconds: float = 1.0) -> None:
        """Train the model on ``corpus`` until ``config.epochs`` epochs are done (see
        :meth:`Word2Vec.train <course.word2vec.model.Word2Vec.train>`)."""
        model, config = self.model, self.config
        ids, offsets, sentence = training_text(model.vocab, corpus, config.min_count)
        spans = chunks(offsets, CHUNK_WORDS)
        self.check_memory(corpus, offsets, spans)
        model.trained_on = corpus_key(corpus)
        total = config.epochs * len(ids)

        def epoch_work(epoch: int):
            def train_unit(index: int, words_done: Callable[[], int]) -> tuple[int, float | None]:
                begin, end = spans[index]
                rng = np.random.default_rng([config.seed, epoch, index])
                losses = self.train_chunk(ids[begin:end], sentence[begin:end], rng,
                                          lambda: config.learning_rate(words_done() / max(1, total)))
                if losses and not np.isfinite(losses).all():
                    raise TrainingDivergedError(
                        f"training diverged (the loss became {float(np.sum(losses))}) in epoch {epoch + 1}: "
                        f"use a smaller --lr (now {config.lr}) or --batch-size (now {self.batch_size})")
                return end - begin, float(np.mean(losses)) if losses else None

            return len(spans), train_unit

        run_epochs(model, epoch_work, total, "word", f"{config.arch}/{config.loss}", self.workers,
                   self.in_processes, progress, checkpoint, callback, callback_seconds)

    def train_chunk(self, ids, sentence, rng: np.random.Generator, learning_rate: Callable[[], float]) -> list[float]:
        """Train the windows of a span of text (:meth:`batches`), each batch at ``learning_rate()``;
        the losses of the batches that measured one."""
        import torch

        losses = []
        with torch.no_grad():
            for batch in self.batches(ids, sentence, rng):
                loss = self.train_batch(batch, learning_rate())
                if loss is not None:
                    losses.append(loss)
        return losses

    def batches(self, ids: np.ndarray, sentence: np.ndarray, rng: np.random.Generator) -> Iterator[Batch]:
        """A span of text ``ids`` ``(n,)`` with the ``sentence`` ``(n,)`` of each word, subsampled
        and cut into windows, in batches of about ``batch_size`` examples (pairs for skip-gram,
        windows for CBOW). Each window is in exactly one batch.

        Batches of windows that need the same padding waste little on it: CBOW's with Huffman
        paths of the same length (HS), in the tree's leaf order; skip-gram's with as many context
        words (moved to the front, the padding columns dropped). The batches then come in random
        order. Skip-gram's are not sorted by path length: that would fill a batch with the windows
        of one frequent centre word, all stepping the same few tree nodes at once, which cost
        quality and saved no time.
        """
        import torch

        config, skipgram, hs = self.config, self.config.arch == "skipgram", self.config.loss == "hs"
        centres, contexts = cbow_windows(*subsample(ids, sentence, self.keep, rng), config.window, rng)
        if len(centres) == 0:
            return
        batch_size = self.batch_size
        if skipgram:  # batch_size counts pairs: about that many per batch of windows
            batch_size = max(1, round(batch_size * len(centres) / int((contexts >= 0).sum())))
        order = rng.permutation(len(centres))
        starts = np.arange(0, len(centres), batch_size)
        sort_keys = []
        if hs and not skipgram:
            sort_keys.append(self.tree.lengths[centres[order]])
        if skipgram:
            contexts = -np.sort(-contexts, axis=1)  # ids in descending order: the -1 padding last
            sort_keys.append((contexts[order] >= 0).sum(1))
        if sort_keys:
            order = order[np.lexsort(sort_keys)]  # stable: ties keep their random order
            starts = rng.permutation(starts)
        if hs and not skipgram:  # within a batch in the tree's leaf order, for tree.add_node_steps
            order = order[np.lexsort((self.tree.leaf_ranks[centres[order]], np.arange(len(order)) // batch_size))]
        contexts = contexts[order]
        filled = (contexts >= 0).sum(1)  # context words per window (skip-gram's come first)
        centres = torch.from_numpy(centres[order]).to(self.device)
        contexts = torch.from_numpy(contexts).to(self.device)
        negatives = None
        if self.noise is not None:
            draws = rng.integers(0, len(self.noise), size=(len(centres), config.negative))
            draws = torch.from_numpy(draws.reshape(-1)).to(self.device)
            negatives = self.noise.index_select(0, draws).view(len(centres), -1).long()  # (windows, k)
        # the loss is measured on every LOSS_EVERY-th batch in the sorted order, which spans the
        # batches' kinds (numbers of context words, path lengths) evenly
        for start in starts:
            stop = start + batch_size
            width = int(filled[start:stop].max()) if skipgram else contexts.shape[1]
            yield Batch(contexts[start:stop, :width], centres[start:stop],
                        None if negatives is None else negatives[start:stop],
                        need_loss=start // batch_size % LOSS_EVERY == 0)

    def train_batch(self, batch: Batch, lr: float) -> float | None:
        """One SGD step on a batch of windows; the mean loss per training example if ``batch.need_loss``.

        Skip-gram trains each context word on its own against the centre word (the window shares
        its k noise words); CBOW trains their mean, and every context word takes the whole error
        of the mean, as word2vec.c and gensim do (the exact gradient would divide it by the number
        of context words). All the batch's gradients are computed from the tables as they are,
        then added: for windows that share no rows, the step of each window alone. An input word in
        many of them takes their summed steps damped (:mod:`~course.word2vec.damping`). CBOW with
        hierarchical softmax needs the windows in the tree's leaf order, as :meth:`batches` gives
        them.
        """
        import torch

        model, config = self.model, self.config
        contexts, centres, need_loss = batch.contexts, batch.centres, batch.need_loss
        size, width = contexts.shape
        dim = config.dim
        present = contexts >= 0  # (B, W)
        context_ids = contexts.clamp(min=0)
        real = present.view(-1).nonzero().squeeze(1)  # positions of real context words in the (B * W) grid
        padded = len(real) < size * width
        real_ids = context_ids.view(-1).index_select(0, real) if padded else context_ids.view(-1)
        cbow = config.arch == "cbow"
        if cbow:
            counts = present.sum(1)
            offsets = counts.cumsum(0) - counts
            hidden = torch.nn.functional.embedding_bag(real_ids, model.input_vectors, offsets, mode="mean")  # (B, d)
            inputs = torch.ones(size, 1, dtype=hidden.dtype, device=hidden.device)  # one example per window
        else:
            hidden = model.input_vectors.index_select(0, context_ids.view(-1)).view(size, width, dim)
            inputs = present.to(hidden.dtype).unsqueeze(2)  # (B, W, 1): W examples per window, some padding
        # CBOW's one input per window is scored against the output table's rows where they lie;
        # skip-gram's window of inputs against gathered rows. Steps: -lr times the gradients.
        if config.loss == "neg":
            rows = torch.cat([centres.unsqueeze(1), batch.negatives], dim=1)  # (B, 1 + k)
            valid = (rows != centres.unsqueeze(1)).to(hidden.dtype)
            valid[:, 0] = 1
            damp = config.damp_input_steps
            if cbow:
                loss, d_scores = negative_sampling_terms(table_scores(hidden, model.output_vectors, rows), valid,
                                                         need_loss)
                input_step = table_sums(d_scores.mul_(-lr), model.output_vectors, rows)
                if damp:  # (B,): a context word's step moves the mean by 1 / C of it
                    curvature = input_step_curvature(input_step, d_scores) / counts
                output_steps = d_scores.unsqueeze(2) * hidden.unsqueeze(1)  # (B, 1 + k, d)
            else:
                output_rows = model.output_vectors.index_select(0, rows.view(-1)).view(size, -1, dim)
                loss, d_scores = negative_sampling_terms(scores(hidden, output_rows), inputs * valid.unsqueeze(1),
                                                         need_loss)
                input_step, output_steps = backward(d_scores.mul_(-lr), hidden, output_rows)
                if damp:  # (B, W)
                    curvature = input_step_curvature(input_step, d_scores)
            scatter_add(model.output_vectors, rows.view(-1), output_steps.view(-1, dim))
        else:
            points, targets, mask = self.tree.paths(centres)
            if cbow:
                loss, d_scores = hierarchical_softmax_terms(table_scores(hidden, model.inner_node_vectors, points),
                                                            targets, mask, need_loss)
                input_step = table_sums(d_scores * -lr, model.inner_node_vectors, points)
            else:
                node_rows = model.inner_node_vectors.index_select(0, points.reshape(-1)).view(size, -1, dim)
                mask = inputs * mask.unsqueeze(1)
                loss, d_scores = hierarchical_softmax_terms(scores(hidden, node_rows), targets, mask, need_loss)
                input_step, _ = backward(d_scores * -lr, hidden, node_rows, rows_too=False)
            add_node_steps(model.inner_node_vectors, points, d_scores, hidden, mask, lr, config.damp_tree_steps)
        if cbow:
            input_steps = input_step.index_select(0, real // width)
        elif padded:
            input_steps = input_step.view(-1, dim).index_select(0, real)
        else:
            input_steps = input_step.view(-1, dim)
        if config.loss == "neg" and damp:  # each input word's summed step at most a quarter of a Newton step
            per_input = curvature.index_select(0, real // width) if cbow else curvature.view(-1).index_select(0, real)
            factors = damped_factors(real_ids, per_input, len(model.input_vectors), lr)
            if factors is not None:
                input_steps = input_steps * factors.unsqueeze(1)
        scatter_add(model.input_vectors, real_ids, input_steps)
        return float(loss.sum() / inputs.sum()) if need_loss else None

    def check_memory(self, corpus, offsets: np.ndarray, spans: list[tuple[int, int]]) -> None:
        """Refuse, before it starts, a run whose working memory cannot fit: each worker's windows of
        its largest chunk (``(words, 2 * window)`` context ids, numpy's temporaries included) and
        its batch's rows of vectors, the noise table, the copies of the tables that worker
        processes share, and the copy of the vectors made for saving them."""
        config, workers = self.config, self.workers
        longest = int(np.diff(offsets).max())
        span = max(0, min(config.window, longest - 1))  # cbow_windows: no window runs past its sentence
        cells = max(end - begin for begin, end in spans) * 2 * span
        rows = 1 + config.negative if config.loss == "neg" else int(self.tree.lengths.max())
        # vectors per example at once: inputs and their steps, output rows and their steps, and
        # for CBOW one step per context word
        batch = self.batch_size * config.dim * 4 * (4 + 2 * rows + (2 * span if config.arch == "cbow" else 0))
        table = len(self.model.vocab) * config.dim * 4
        windows = workers * cells * WINDOW_CELL_BYTES
        on_device = workers * batch + (2 * table if self.in_processes else 0)
        if self.device.type == "cuda":  # the chunk's windows are on the GPU too, as int64
            on_device += cells * 8
        check_memory(f"training word2vec on {corpus.name!r} with window={config.window} (its longest sentence "
                     f"has {longest:,} words: up to {2 * span:,} context words per window, "
                     f"{format_bytes(windows)} for {workers} worker{'s' if workers > 1 else ''}' windows), "
                     f"dim={config.dim:,} and batch_size={self.batch_size:,}",
                     windows + 12 * NOISE_TABLE_SIZE + 2 * table,
                     "use a smaller window, dim or batch_size, or fewer threads", self.device, on_device)
