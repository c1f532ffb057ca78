"""ELMo's vectors for the tokens of sentences: the L + 1 layers of the biLM.

For a sentence of n tokens (wrapped in ``<bos>`` .. ``<eos>`` inside, unwrapped outside) and a
biLM of L layers per direction, each token k gets

- layer 0: the token encoder's vector x_k, duplicated to [x_k; x_k] so that it has the 2 d of
  the other layers (as in the paper);
- layer j = 1 .. L: [forward h_{k,j}; backward h_{k,j}], the two directions side by side.

Each sentence is embedded on its own: nothing is carried from one sentence to the next, and
padding never reaches a real token, so a sentence gets the same vectors in any batch.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch

from .bilm import BiLM, BiLMStates
from .characters import CharacterVocabulary


def layers_of(states: BiLMStates) -> torch.Tensor:
    """``(L + 1, B, T, 2 d)``: layer 0 ``[x; x]``, then ``[forward_j; backward_j]``."""
    layers = [torch.cat([states.tokens, states.tokens], dim=-1)]
    layers += [torch.cat([f, b], dim=-1) for f, b in zip(states.forward, states.backward, strict=True)]
    return torch.stack(layers)


@torch.no_grad()
def embed_sentences(bilm: BiLM, characters: CharacterVocabulary, sentences: Sequence[Sequence[str]],
                    batch_tokens: int = 4_000) -> list[np.ndarray]:
    """ELMo's layers for every token of every sentence.

    Args:
        bilm: the biLM (put in eval mode while embedding, then back).
        characters: its character vocabulary.
        sentences: lists of tokens (already tokenised as the training corpus was).
        batch_tokens: padded positions per batch (sentences of similar length go together).

    Returns:
        One ``(L + 1, n_i, 2 d)`` float32 array per sentence, in the order given.
    """
    sentences = [list(sentence) for sentence in sentences]
    device = next(bilm.parameters()).device
    was_training = bilm.training
    bilm.eval()
    out: list[np.ndarray | None] = [None] * len(sentences)
    order = np.argsort([len(sentence) for sentence in sentences], kind="stable")
    try:
        start = 0
        while start < len(order):
            end = start + 1
            while end < len(order) and (end - start + 1) * (len(sentences[order[end]]) + 2) <= batch_tokens:
                end += 1
            group = order[start:end]
            char_ids, mask = characters.encode_sentences([sentences[i] for i in group])
            states = bilm(torch.from_numpy(char_ids).to(device), torch.from_numpy(mask).to(device))
            layers = layers_of(states).float().cpu().numpy()  # (L + 1, B, T, 2 d)
            for row, i in enumerate(group):
                out[i] = np.ascontiguousarray(layers[:, row, 1:len(sentences[i]) + 1])
            start = end
    finally:
        bilm.train(was_training)
    return out


@torch.no_grad()
def token_vectors(bilm: BiLM, characters: CharacterVocabulary, words: Sequence[str]) -> np.ndarray:
    """``(len(words), 2 d)`` float32: layer 0 of each word, ``[x; x]``, which no context changes."""
    if not words:
        return np.zeros((0, 2 * bilm.config.projection_dim), np.float32)
    was_training = bilm.training
    bilm.eval()
    try:
        rows = torch.from_numpy(characters.encode(list(words))).to(next(bilm.parameters()).device)
        x = bilm.token_encoder(rows)
        return torch.cat([x, x], dim=-1).float().cpu().numpy()
    finally:
        bilm.train(was_training)
