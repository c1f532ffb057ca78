"""GloVe's settings in one dataclass; the defaults are the reference implementation's demo settings
(``demo.sh``), with 100 dimensions.

- ``window``, ``across_sentences``: how co-occurrences are counted (weighted 1/distance);
- ``x_max``, ``alpha``: the weighting f(x) = (x / x_max)^alpha below ``x_max``, 1 from there on;
- ``lr``: AdaGrad's initial learning rate (``glove.c``'s ``-eta``); ``epochs``: passes over the
  non-zero counts; ``batch_size``: entries per step (1: one step per entry, as ``glove.c``);
- ``vectors``: keep ``w + w~`` (``glove.c``'s ``-model 2``), ``w`` or ``w~``.

Presets (:func:`preset`): ``"demo"``, the defaults; ``"per-entry"``, one AdaGrad step per entry on
one thread, the steps of the reference trainer (:mod:`course.glove.reference`) and of ``glove.c``'s
single thread: exact but slow, for small corpora.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from ..core.errors import SettingError
from ..core.fields import (
    BATCH,
    COUNT,
    EPOCHS,
    RATE,
    SEED,
    THREADS,
    VECTOR_SIZE,
    WINDOW,
    Range,
    check_settings,
    choose_preset,
    setting,
)

VECTORS = ("sum", "word", "context")


@dataclass(frozen=True)
class GloVeConfig:
    """Hyperparameters; the defaults are the reference implementation's demo settings, with
    100 dimensions."""

    dim: int = setting(100, "size of each word vector", range=VECTOR_SIZE)
    window: int = setting(15, "words counted on each side, weighted 1/distance", range=WINDOW)
    min_count: int = setting(5, "vocabulary: words seen at least this often", range=COUNT)
    max_vocab: int | None = setting(None, "vocabulary: at most this many words, the most frequent", range=COUNT)
    x_max: float = setting(10.0, "counts from here on get full weight in the loss", range=Range(0, 1e9, low_open=True))
    alpha: float = setting(0.75, "f(x) = (x / x_max)^alpha below x_max", range=Range(0, 10))
    epochs: int = setting(15, "passes over the non-zero co-occurrence counts", range=EPOCHS)
    lr: float = setting(0.05, "AdaGrad's initial learning rate", range=RATE)
    vectors: str = setting("sum", "keep word + context vectors (sum), or one of them", VECTORS)
    seed: int = setting(1, "draws the first vectors and the order of the counts", range=SEED)
    # One thread and one seed give the same vectors every time; with two or more, the threads'
    # updates of shared rows interleave differently in each run, and so do the vectors.
    threads: int = setting(2, "Hogwild threads on a CPU; only 1 is repeatable: the same --seed gives the same "
                              "vectors, with 2 or more they change from run to run", range=THREADS)
    device: str = setting("auto", "auto (CUDA if present), cpu or cuda")
    batch_size: int = setting(65_536, "non-zero entries per AdaGrad step", range=BATCH)
    # False: a window stops at the end of its sentence. True: the corpus is one stream of words and
    # windows run across sentence ends, as cooccur.c counts a file whose lines are whole documents.
    across_sentences: bool = setting(False, "let windows run across sentence ends, as cooccur.c does on a file "
                                            "of whole documents")

    def __post_init__(self):
        check_settings(self)
        checks = [
            (self.vectors in VECTORS, f"vectors must be one of {', '.join(VECTORS)}, got {self.vectors!r}"),
        ]
        for ok, message in checks:
            if not ok:
                raise SettingError(message)


PRESETS: dict[str, GloVeConfig] = {
    "demo": GloVeConfig(),
    "per-entry": dataclasses.replace(GloVeConfig(), batch_size=1, threads=1),
}


def preset(name: str, **overrides) -> GloVeConfig:
    """The preset ``name`` (``"demo"`` or ``"per-entry"``), with any field replaced by ``overrides``.

    Raises:
        SettingError: an unknown preset or field, or a value that makes no sense.
    """
    return choose_preset(PRESETS, name, overrides, "GloVe")
