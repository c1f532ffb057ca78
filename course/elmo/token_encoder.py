"""ELMo's context-free token vectors: a character CNN, highway layers and a linear projection.

For a word spelled c_1 .. c_m (begin and end marks included), each character gets an embedding;
a convolution of width w slides over them, and its maximum over the positions (max-pooling) is one
feature, whatever the word's length. Filters of several widths see character n-grams of several
lengths. Two highway layers (Srivastava et al., 2015) mix the features,

    y = g * x + (1 - g) * relu(W_H x + b_H),   g = sigmoid(W_T x + b_T),

and a linear projection brings them to the biLM's size d. The output is the same for a word in any
sentence: it is ELMo's layer 0, and it works for words never seen in training.

Two ways to pool, by ``config.character_ids``:

- ``"course"``: each word's convolutions see its own characters, zeros after them, and are pooled
  over the windows that start inside the word, so the result does not depend on the row's width;
- ``"bilm-tf"``: as the published ELMo (bilm-tf's ``_build_word_char_embeddings``), every row is
  ``max_characters`` wide, filled up with the padding character, which has an embedding of its own;
  a convolution of width w has ``max_characters - w + 1`` windows ("VALID" padding), and all of
  them are pooled. The activation comes after the max (``relu``, or ``tanh`` where the options say
  so), as in both.
"""

from __future__ import annotations

import torch
from torch import nn

from .config import ElmoConfig


def halves(char_ids: torch.Tensor) -> list[torch.Tensor]:
    """``(U, C)`` the distinct words of a training batch -> their first and second halves (the words
    as they are when there are fewer than two). Training encodes the two apart, and the biLM's
    directions side by side (:mod:`~course.elmo.side_by_side`) encode each on a thread of its own:
    the same operations either way, so the same numbers."""
    if len(char_ids) < 2:
        return [char_ids]
    middle = (len(char_ids) + 1) // 2
    return [char_ids[:middle], char_ids[middle:]]


class Highway(nn.Module):
    """One highway layer on ``(N, D)`` vectors; the gate's bias starts at +1, so it starts by carrying x."""

    def __init__(self, dim: int):
        super().__init__()
        self.transform = nn.Linear(dim, dim)
        self.gate = nn.Linear(dim, dim)
        nn.init.constant_(self.gate.bias, 1.0)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """``(N, D) -> (N, D)``."""
        g = torch.sigmoid(self.gate(x))
        return g * x + (1 - g) * torch.relu(self.transform(x))


class TokenEncoder(nn.Module):
    """Character ids of words -> token vectors.

    Args:
        config: uses ``char_dim``, ``filters``, ``highway_layers`` and ``projection_dim``.
        num_characters: size of the character vocabulary (id 0 is padding).
    """

    def __init__(self, config: ElmoConfig, num_characters: int):
        super().__init__()
        self.char_embedding = nn.Embedding(num_characters, config.char_dim, padding_idx=0)
        self.convolutions = nn.ModuleList(nn.Conv1d(config.char_dim, number, width)
                                          for width, number in config.filters)
        self.widths = [width for width, _ in config.filters]
        self.pool_every_window = config.character_ids == "bilm-tf"
        self.activation = torch.tanh if config.cnn_activation == "tanh" else torch.relu
        self.highways = nn.ModuleList(Highway(config.num_filters) for _ in range(config.highway_layers))
        self.projection = nn.Linear(config.num_filters, config.projection_dim)

    def forward(self, char_ids: torch.Tensor) -> torch.Tensor:
        """``char_ids`` ``(..., C)`` int64 (0 = padding) -> ``(..., d)`` token vectors.

        Each distinct row is encoded once. A row of padding only (a padded position of a sentence)
        gives some vector; callers mask it. The result does not depend on ``C``: each word's
        convolutions see its own characters and zeros after them, and pool only over windows that
        start inside the word.
        """
        shape = char_ids.shape
        rows = char_ids.reshape(-1, shape[-1])
        if not self.pool_every_window:
            lengths = (rows != 0).sum(1)
            width = max(int(lengths.max()) if len(rows) else 1, 1)
            rows = rows[:, :width]  # nothing but padding after the longest word
        distinct, inverse = torch.unique(rows, dim=0, return_inverse=True)
        encoded = self.encode_distinct(distinct)
        return encoded[inverse].reshape(*shape[:-1], -1)

    def encode_distinct(self, char_ids: torch.Tensor) -> torch.Tensor:
        """``(N, C)`` int64 -> ``(N, d)``: the char-CNN, highway layers and projection."""
        if self.pool_every_window:
            return self._project(self._pool_every_window(char_ids))
        lengths = (char_ids != 0).sum(1, keepdim=True).clamp(min=1)  # (N, 1)
        x = self.char_embedding(char_ids).transpose(1, 2)  # (N, char_dim, C)
        pooled = []
        for width, convolution in zip(self.widths, self.convolutions, strict=True):
            features = convolution(nn.functional.pad(x, (0, width - 1)))  # (N, filters, C): one window per start
            starts = torch.arange(features.shape[2], device=features.device)
            features = features.masked_fill((starts[None, :] >= lengths)[:, None, :], float("-inf"))
            pooled.append(self.activation(features.max(dim=2).values))  # (N, filters)
        return self._project(torch.cat(pooled, dim=1))

    def _pool_every_window(self, char_ids: torch.Tensor) -> torch.Tensor:
        """``(N, C)`` -> ``(N, num_filters)``: each filter's maximum over all ``C - w + 1`` windows."""
        x = self.char_embedding(char_ids).transpose(1, 2)  # (N, char_dim, C)
        return torch.cat([self.activation(convolution(x).max(dim=2).values) for convolution in self.convolutions], 1)

    def _project(self, h: torch.Tensor) -> torch.Tensor:
        """``(N, num_filters)`` pooled features -> ``(N, d)``: highway layers, then the projection."""
        for highway in self.highways:
            h = highway(h)
        return self.projection(h)
