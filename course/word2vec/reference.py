"""The reference word2vec trainer: one window at a time, the public losses, plain SGD.

This is word2vec as the notebooks teach it, in a loop a reader can follow:

    for each epoch:
        subsample the corpus, cut it into windows (each centre word with its dynamic window)
        for each window, at a learning rate falling linearly from lr to min_lr:
            skip-gram: each context word's input vector h predicts the centre word
            CBOW:      the mean h of the context words' input vectors predicts it
            loss and gradients: negative_sampling_loss or hierarchical_softmax_loss
            step every vector the window touched by -lr times its gradient

Skip-gram's context words share the window's k noise words, as in the fast trainer, and CBOW's
context words each take the whole gradient of the mean, as in word2vec.c. The fast trainer
(:mod:`course.word2vec.trainer`) computes the same steps for hundreds of windows at once, on
several workers; this one trains a few thousand windows a second, and is the tests' yardstick:
the fast trainer must reach its quality.
"""

from __future__ import annotations

import numpy as np

from .config import Word2VecConfig
from .examples import cbow_windows, subsample, training_text
from .losses import hierarchical_softmax_loss, negative_sampling_loss
from .model import Word2Vec


def train_reference(corpus, config: Word2VecConfig = Word2VecConfig()) -> Word2Vec:
    """Build the vocabulary of ``corpus`` and train word2vec on it, window by window (one thread,
    on the CPU, with ``config.seed``: the same vectors every time). ``model.state.history`` holds
    the mean loss per example of each epoch.

    Raises:
        SettingError: the corpus gives no training example (no two vocabulary words share a sentence).
    """
    import torch

    model = Word2Vec.start(corpus, config)
    ids, _, sentence = training_text(model.vocab, corpus, config.min_count)
    rng = np.random.default_rng(config.seed)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # a window's tensors are tiny: more threads only wait for each other
    try:
        for epoch in range(config.epochs):
            model.state.record(len(ids), train_epoch(model, ids, sentence, epoch, rng))
            model.state.epochs_done = epoch + 1
    finally:
        torch.set_num_threads(threads)
    return model


def train_epoch(model: Word2Vec, ids: np.ndarray, sentence: np.ndarray, epoch: int,
                rng: np.random.Generator) -> float | None:
    """One pass over the corpus ``ids`` ``(n,)`` (``sentence`` ``(n,)``: the sentence of each word):
    subsample it, cut it into windows and train them one by one; the mean loss per example."""
    import torch

    config, vocab = model.config, model.vocab
    centres, contexts = cbow_windows(*subsample(ids, sentence, vocab.keep_probabilities(config.sample), rng),
                                     config.window, rng)
    negatives = (vocab.sample_noise((len(centres), config.negative), rng, config.ns_exponent)
                 if config.loss == "neg" else [None] * len(centres))
    tree = vocab.huffman()
    losses = []
    with torch.no_grad():
        for number, (centre, context) in enumerate(zip(centres, contexts, strict=True)):
            lr = config.learning_rate((epoch + number / len(centres)) / config.epochs)
            path = tree.points[centre, :tree.lengths[centre]], tree.codes[centre, :tree.lengths[centre]]
            losses.append(train_window(model, centre, context[context >= 0], lr, negatives[number], path))
    return float(np.mean(losses)) if losses else None


def train_window(model: Word2Vec, centre: int, context: np.ndarray, lr: float, negatives: np.ndarray | None = None,
                 path: tuple[np.ndarray, np.ndarray] | None = None) -> float:
    """One SGD step on one window; returns its mean loss per example (context word for skip-gram,
    the window for CBOW).

    Args:
        centre: the centre word's id; ``context`` ``(C,)`` the ids of the words around it.
        negatives: ``(k,)`` noise word ids (negative sampling); a draw equal to the centre word
            teaches nothing.
        path: ``(points (L,), codes (L,))`` the centre word's Huffman path (hierarchical softmax).
    """
    import torch

    context = torch.as_tensor(context, dtype=torch.int64)
    inputs = model.input_vectors.index_select(0, context)  # (C, d)
    if model.config.arch == "skipgram":
        hidden = inputs.unsqueeze(0)  # (1, C, d): C examples that share the target and the noise words
    else:
        hidden = inputs.mean(0, keepdim=True)  # (1, d)
    if model.config.loss == "neg":
        rows = torch.as_tensor(np.concatenate([[centre], negatives]), dtype=torch.int64)  # (1 + k,)
        valid = (rows != centre).to(hidden.dtype)
        valid[0] = 1
        loss, grad_hidden, grad_rows = negative_sampling_loss(hidden, model.output_vectors[rows].unsqueeze(0),
                                                              valid.unsqueeze(0))
        table = model.output_vectors
    else:
        rows, codes = (torch.as_tensor(array, dtype=torch.int64) for array in path)  # (L,) each
        loss, grad_hidden, grad_rows = hierarchical_softmax_loss(hidden, model.inner_node_vectors[rows].unsqueeze(0),
                                                                 codes.unsqueeze(0), torch.ones(1, len(rows)))
        table = model.inner_node_vectors
    table.index_add_(0, rows, grad_rows[0], alpha=-lr)
    # skip-gram: each context word its own gradient; CBOW: each the whole gradient of the mean
    model.input_vectors.index_add_(0, context, grad_hidden[0].expand(len(context), -1), alpha=-lr)
    return float(loss.sum()) / loss.numel()
