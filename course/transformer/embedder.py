"""A Transformer's vectors for the tokens of sentences: its L + 1 layers, as the probes read them.

For a sentence of n tokens (wrapped in ``<bos>`` .. ``<eos>`` inside, unwrapped outside) each
token k gets

- layer 0: its word embedding E[w_k], without the position: the same in every sentence and at
  every position, a static vector (what :func:`token_vectors` gives, and what the probes take as
  the static control); a word outside the vocabulary gets ``<unk>``'s;
- layer j = 1 .. L: the output of block j at its position (the residual stream).

Each sentence is embedded on its own, the whole of it visible (no word is masked, and a causal
model sees each word's left context only). Padding is never attended to, so a sentence gets the
same vectors in any batch. A sentence longer than the position table (``max_positions - 2``
words) is split into pieces that are embedded on their own and put back together; a warning says
how many sentences were split.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence

import numpy as np
import torch

from ..text.vocab import Vocabulary
from .data import pad_batch
from .lm import TransformerLM


def layers_of(network: TransformerLM, ids: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """``(L + 1, B, T, d)``: layer 0 E[w], then each block's output."""
    states = network(ids, mask)
    return torch.stack([states.tokens, *states.layers])


def pieces_of(ids: np.ndarray, max_words: int) -> list[np.ndarray]:
    """A sentence's ids cut into pieces of at most ``max_words`` (one, possibly empty, when it fits)."""
    return [ids[start:start + max_words] for start in range(0, max(len(ids), 1), max_words)]


def warn_split(num_split: int, total: int, max_words: int, what: str) -> None:
    if num_split:
        warnings.warn(f"{num_split:,} of {total:,} {what} are longer than {max_words} words (the position table "
                      f"holds {max_words + 2} with <bos> and <eos>): each was split into pieces of at most "
                      f"{max_words} words", stacklevel=3)


def sentence_layers(network: TransformerLM, words: Vocabulary, sentences: Sequence[Sequence[str]]) -> torch.Tensor:
    """``(L + 1, B, T, d)``: every layer of every word of a batch of sentences, zeros after each
    sentence's end, with gradients (for fine-tuning the network with a task). A sentence longer
    than the position table is run in pieces, as :func:`embed_sentences` runs it."""
    encoded = [words.encode(list(sentence)) for sentence in sentences]
    pieces, owners = [], []
    for i, ids in enumerate(encoded):
        for piece in pieces_of(ids, network.config.max_words):
            pieces.append(piece)
            owners.append(i)
    device = next(network.parameters()).device
    batch = pad_batch(pieces, words)
    layers = layers_of(network, batch.ids.to(device), batch.mask.to(device)).float()  # (L + 1, P, T_p, d)
    width = max(len(ids) for ids in encoded)
    out = layers.new_zeros(layers.shape[0], len(encoded), width, layers.shape[-1])
    filled = [0] * len(encoded)
    for row, (owner, piece) in enumerate(zip(owners, pieces, strict=True)):
        out[:, owner, filled[owner]:filled[owner] + len(piece)] = layers[:, row, 1:len(piece) + 1]
        filled[owner] += len(piece)
    return out


@torch.no_grad()
def embed_sentences(network: TransformerLM, words: Vocabulary, sentences: Sequence[Sequence[str]],
                    batch_tokens: int = 4_000) -> list[np.ndarray]:
    """Every layer for every token of every sentence.

    Args:
        network: the Transformer (put in eval mode while embedding, then back).
        words: its vocabulary.
        sentences: lists of tokens (tokenised as the training corpus was).
        batch_tokens: padded positions per batch (pieces of similar length go together).

    Returns:
        One ``(L + 1, n_i, d)`` float32 array per sentence, in the order given.
    """
    max_words = network.config.max_words
    encoded = [words.encode(list(sentence)) for sentence in sentences]
    warn_split(sum(len(ids) > max_words for ids in encoded), len(encoded), max_words, "sentences")
    pieces, owners = [], []
    for i, ids in enumerate(encoded):
        for piece in pieces_of(ids, max_words):
            pieces.append(piece)
            owners.append(i)
    device = next(network.parameters()).device
    was_training = network.training
    network.eval()
    out: list[np.ndarray | None] = [None] * len(pieces)
    order = np.argsort([len(piece) for piece in pieces], kind="stable")
    try:
        start = 0
        while start < len(order):
            end = start + 1
            while end < len(order) and (end - start + 1) * (len(pieces[order[end]]) + 2) <= batch_tokens:
                end += 1
            group = order[start:end]
            batch = pad_batch([pieces[i] for i in group], words)
            layers = layers_of(network, batch.ids.to(device), batch.mask.to(device)).float().cpu().numpy()
            for row, i in enumerate(group):
                out[i] = layers[:, row, 1:len(pieces[i]) + 1]
            start = end
    finally:
        network.train(was_training)
    per_sentence: list[list[np.ndarray]] = [[] for _ in encoded]
    for owner, layers in zip(owners, out, strict=True):
        per_sentence[owner].append(layers)
    return [np.ascontiguousarray(np.concatenate(parts, axis=1)) for parts in per_sentence]


@torch.no_grad()
def token_vectors(network: TransformerLM, words: Vocabulary, tokens: Sequence[str]) -> np.ndarray:
    """``(len(tokens), d)`` float32: layer 0 of each word, E[w], which no context changes."""
    ids = torch.from_numpy(words.encode(list(tokens))).to(network.token_embedding.weight.device)
    return network.token_embedding(ids).float().cpu().numpy().reshape(len(tokens), network.config.dim)
