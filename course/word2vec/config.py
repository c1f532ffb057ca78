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

from dataclasses import dataclass

from ..core.errors import SettingError
from ..core.fields import BATCH, COUNT, EPOCHS, RATE, SEED, THREADS, VECTOR_SIZE, WINDOW, Range, check_settings, setting

ARCHITECTURES = ("skipgram", "cbow")
LOSSES = ("neg", "hs")


@dataclass(frozen=True)
class Word2VecConfig:
    """Hyperparameters; the defaults are gensim's."""

    arch: str = setting("skipgram", "skipgram: each context word predicts the centre word; cbow: their mean does",
                        ARCHITECTURES)
    loss: str = setting("neg", "neg: negative sampling; hs: hierarchical softmax over the Huffman tree", LOSSES)
    dim: int = setting(100, "size of each word vector", range=VECTOR_SIZE)
    window: int = setting(5, "the dynamic window's largest reach: each centre word draws 1..window", range=WINDOW)
    negative: int = setting(5, "noise words per example (negative sampling)", range=Range(0, 100))
    ns_exponent: float = setting(0.75, "noise distribution P(w) ~ count(w)^ns_exponent", range=Range(-10, 10))
    min_count: int = setting(5, "vocabulary: words seen at least this often", range=COUNT)
    max_vocab: int | None = setting(None, "vocabulary: at most this many words, the most frequent", range=COUNT)
    sample: float = setting(1e-3, "subsampling threshold of frequent words (0: none)", range=Range(0, 1))
    epochs: int = setting(5, "passes over the corpus", range=EPOCHS)
    lr: float = setting(0.025, "learning rate at the start, falling linearly to min_lr", range=RATE)
    min_lr: float = setting(0.0001, "learning rate at the end", range=Range(0, 10))
    seed: int = setting(1, "draws the first vectors, the windows, the noise words and subsampling", range=SEED)
    threads: int = setting(2, "Hogwild workers on a CPU (forked processes); only 1 is repeatable: the same --seed "
                              "gives the same vectors, with 2 or more they change from run to run", range=THREADS)
    device: str = setting("auto", "auto (CUDA if present), cpu or cuda")
    # None: 512 on a CPU; on a GPU 4,096 with negative sampling and 1,024 with hierarchical softmax,
    # whose top nodes take a summed step from every example of a batch and diverge beyond that.
    batch_size: int | None = setting(None, "pairs (skip-gram) or windows (CBOW) per update (none: 512 on a CPU, "
                                           "more on a GPU)", range=BATCH)
    # Scales each tree node's summed step in a batch down to at most a quarter of a Newton step.
    # Closes the gap to gensim after many epochs, at about nine tenths of the speed.
    damp_tree_steps: bool = setting(True, "hierarchical softmax: damp each tree node's summed step in a batch "
                                          "(better after many epochs, about 9/10 of the speed)")

    # Scales each input word's summed step in a batch down to at most a quarter of a Newton step
    # along the steps: a word in hundreds of a batch's windows (a small corpus, no subsampling)
    # otherwise takes hundreds of stale steps at once, and training diverges.
    damp_input_steps: bool = setting(True, "negative sampling: damp each input word's summed step in a batch "
                                           "(a frequent word on a small corpus: no divergence)")

    def __post_init__(self):
        check_settings(self)
        checks = [
            (self.arch in ARCHITECTURES, f"arch must be one of {', '.join(ARCHITECTURES)}, got {self.arch!r}"),
            (self.loss in LOSSES, f"loss must be 'neg' (negative sampling) or 'hs' (hierarchical softmax), "
                                  f"got {self.loss!r}"),
            (self.negative >= 1 or self.loss == "hs", f"negative must be at least 1, got {self.negative}"),
            (self.min_lr <= self.lr, f"min_lr must not be above lr, got lr={self.lr}, min_lr={self.min_lr}"),
        ]
        for ok, message in checks:
            if not ok:
                raise SettingError(message)

    def learning_rate(self, share_done: float) -> float:
        """The learning rate when ``share_done`` of all epochs' words are trained: ``lr`` falling
        linearly to ``min_lr``."""
        return max(self.min_lr, self.lr - (self.lr - self.min_lr) * min(1.0, share_done))
