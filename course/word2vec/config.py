"""word2vec's settings in one dataclass; the defaults are gensim's.

- ``arch``: ``"skipgram"`` (each context word predicts the centre word) or ``"cbow"`` (the mean
  of the context words' input vectors predicts it);
- ``loss``: ``"neg"`` (negative sampling, ``negative`` noise words drawn from
  P(w) ~ count(w)^``ns_exponent``) or ``"hs"`` (hierarchical softmax over the Huffman tree);
- ``window``: the largest reach of the dynamic window (each centre word draws its own, 1..window);
- ``sample``: frequent-word subsampling's threshold; ``min_count``, ``max_vocab``: the vocabulary;
- ``lr`` falls linearly to ``min_lr`` over the ``epochs``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..errors import SettingError

ARCHITECTURES = ("skipgram", "cbow")
LOSSES = ("neg", "hs")


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

    def learning_rate(self, share_done: float) -> float:
        """The learning rate when ``share_done`` of all epochs' words are trained: ``lr`` falling
        linearly to ``min_lr``."""
        return max(self.min_lr, self.lr - (self.lr - self.min_lr) * min(1.0, share_done))
