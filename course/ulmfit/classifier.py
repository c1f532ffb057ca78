"""ULMFiT's classifier: the language model's states, concat pooling, and a small head.

For a review of n words the LM's top layer gives states h_1 .. h_n (one per word). The last one
has read the whole review, but a review's signal may sit anywhere in it, and the LM's state
forgets; so the classifier sees the last state beside the maximum and the mean of all of them
(*concat pooling*, the paper's section 3.3):

    h_c = [h_n; maxpool(h_1 .. h_n); meanpool(h_1 .. h_n)]          (B, 3 d)

then two blocks of batch normalisation, dropout and a linear layer, ReLU between them:

    logits = W_2 drop(BN(ReLU(W_1 drop(BN(h_c))))) + b_2              (B, classes)

:class:`FeatureClassifier` puts the same pooling and head on a frozen biLM's layers mixed by a
:class:`~course.elmo.ScalarMix` (feature-based transfer, as ELMo is used).
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from ..elmo.scalar_mix import ScalarMix
from .language_model import ForwardLM


def concat_pool(states: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """``states`` ``(B, T, D)``, ``mask`` ``(B, T)`` True at real words -> ``(B, 3 D)``
    ``[last real state; max over real states; mean over real states]``; padding never counts."""
    mask = mask.to(torch.bool)
    lengths = mask.sum(1)  # (B,)
    last = states[torch.arange(states.shape[0], device=states.device), lengths - 1]
    largest = states.masked_fill(~mask[..., None], float("-inf")).max(dim=1).values
    mean = (states * mask[..., None]).sum(1) / lengths[:, None].to(states.dtype)
    return torch.cat([last, largest, mean], dim=-1)


class PoolingHead(nn.Module):
    """Concat pooling, then BN, dropout, linear (to ``hidden_dim``), ReLU, BN, dropout, linear."""

    def __init__(self, dim: int, hidden_dim: int, classes: int, dropout: float):
        super().__init__()
        self.layers = nn.Sequential(nn.BatchNorm1d(3 * dim), nn.Dropout(dropout), nn.Linear(3 * dim, hidden_dim),
                                    nn.ReLU(), nn.BatchNorm1d(hidden_dim), nn.Dropout(dropout),
                                    nn.Linear(hidden_dim, classes))

    def forward(self, states: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        return self.layers(concat_pool(states.float(), mask))


def cut(sentences, max_tokens: int) -> list[list[str]]:
    """Each sentence's first ``max_tokens`` words."""
    return [list(sentence)[:max_tokens] for sentence in sentences]


class Classifier(nn.Module):
    """The LM's top states under a :class:`PoolingHead`.

    Args:
        lm: the :class:`ForwardLM` (its weights are trained along, as groups unfreeze).
        classes: how many labels.
        hidden_dim, dropout: the head's.
        max_tokens: a text is cut to its first ``max_tokens`` words.
    """

    def __init__(self, lm: ForwardLM, classes: int = 2, hidden_dim: int = 50, dropout: float = 0.2,
                 max_tokens: int = 100):
        super().__init__()
        self.lm = lm
        self.head = PoolingHead(lm.dim, hidden_dim, classes, dropout)
        self.max_tokens = max_tokens

    def layer_groups(self) -> list[nn.Module]:
        """Bottom first: the LM's groups (token encoder, each LSTM layer), then the head."""
        return [*self.lm.layer_groups(), self.head]

    def forward(self, sentences) -> torch.Tensor:
        """Lists of words -> ``(B, classes)`` logits."""
        states, mask = self.lm(cut(sentences, self.max_tokens))  # positions <bos> w_1 .. w_n <eos>
        words = mask.clone()
        words[:, 0] = False  # <bos>
        words[torch.arange(len(words)), mask.sum(1) - 1] = False  # <eos>
        return self.head(states, words)

    @torch.no_grad()
    def predict(self, sentences, batch_size: int = 128) -> np.ndarray:
        """The most likely label of each text, as an int array."""
        return predict_in_batches(self, sentences, batch_size)


class FeatureClassifier(nn.Module):
    """The same head on ``gamma * sum_j s_j h_{k,j}``: a frozen biLM's L + 1 layers mixed by a
    learned :class:`~course.elmo.ScalarMix` (only the mix and the head train).

    Args:
        features: a :class:`course.tagger.inputs.ElmoFeatures` of the frozen biLM (``(L + 1, B, T,
            2 d)`` per batch of texts, computed once per text and kept).
    """

    def __init__(self, features, classes: int = 2, hidden_dim: int = 50, dropout: float = 0.2,
                 max_tokens: int = 100):
        super().__init__()
        self.features = features
        self.mix = ScalarMix(features.num_layers)
        self.head = PoolingHead(features.dim, hidden_dim, classes, dropout)
        self.max_tokens = max_tokens

    def layer_groups(self) -> list[nn.Module]:
        return [nn.ModuleList([self.mix, self.head])]

    def forward(self, sentences) -> torch.Tensor:
        sentences = cut(sentences, self.max_tokens)
        device = self.mix.gamma.device
        lengths = torch.tensor([len(s) for s in sentences], device=device)
        mask = torch.arange(int(lengths.max()), device=device)[None, :] < lengths[:, None]
        return self.head(self.mix(self.features(sentences).to(device), mask), mask)

    @torch.no_grad()
    def predict(self, sentences, batch_size: int = 128) -> np.ndarray:
        return predict_in_batches(self, sentences, batch_size)


def predict_in_batches(model: nn.Module, sentences, batch_size: int) -> np.ndarray:
    """``model``'s most likely label per text, in eval mode (then back to the mode it was in);
    texts of similar length are batched together."""
    sentences = [list(s) for s in sentences]
    was_training = model.training
    model.eval()
    out = np.zeros(len(sentences), dtype=np.int64)
    order = np.argsort([len(s) for s in sentences], kind="stable")
    try:
        for start in range(0, len(order), batch_size):
            rows = order[start:start + batch_size]
            out[rows] = model([sentences[i] for i in rows]).argmax(-1).cpu().numpy()
    finally:
        model.train(was_training)
    return out
