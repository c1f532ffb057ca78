"""The settings of ULMFiT's second and third stages, one dataclass each.

:class:`LanguageModelConfig`, stage 2 (the pretrained forward LM fine-tuned on the target domain's
text): ``epochs`` over the review texts, ``batch_tokens`` per batch, ``lr`` the top layer
group's highest rate (Adam), ``discriminative`` and ``slanted`` to switch the two tricks off
(then every group gets ``lr`` and the rate stays constant), ``threads`` on the CPU; with held-out
texts, ``patience``: held-out measurements without a better perplexity before fine-tuning stops
(0: never), one measurement after every epoch, or every ``eval_every`` steps and after the last
epoch.

:class:`ClassifierConfig`, stage 3 (a classifier head on the LM, fine-tuned on the labels):

- ``max_tokens``: a review is cut to its first ``max_tokens`` words (94% of them are shorter);
- ``hidden_dim``, ``dropout``: the head's hidden layer and its dropout (the paper: 50, and dropout
  on both of the head's layers);
- ``epochs``: passes over the labelled reviews; None takes :func:`epochs_for` their number;
- ``batch_size``, ``lr``: reviews per step and the head's highest rate (Adam);
- ``evaluations``: dev-set evaluations over the run, evenly spread, the last epoch's included;
  the weights of the best one are kept;
- ``discriminative``, ``factor``: each layer group down gets ``factor`` times less;
- ``slanted``, ``cut_frac``, ``ratio``: the slanted triangular schedule over the whole run
  (without it, a constant ``lr``);
- ``gradual_unfreezing``: the head alone in epoch 1, one more group each epoch;
- ``pretrained``: start from the given LM's weights (False: the same network drawn at random,
  training from scratch);
- ``threads``: CPU threads while training (one: measured faster than two for these small
  bfloat16 steps on a 2-core machine, as for the biLM).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

from ..core.errors import SettingError
from ..core.fields import (
    BATCH,
    EPOCHS,
    EVALUATIONS,
    FRACTION,
    RATE,
    SEED,
    SHARE,
    SIZE,
    THREADS,
    Range,
    check_settings,
    setting,
)

PASSES = 3_000  # labelled reviews seen in training, about, when epochs is None (see epochs_for)
MIN_EPOCHS, MAX_EPOCHS = 5, 20


def epochs_for(num_reviews: int) -> int:
    """Epochs for ``num_reviews`` labelled reviews: about ``PASSES`` reviews seen, between 5 and 20
    epochs (100 reviews: 20; 300: 10; 1,000 and more: 5); at least 5, so gradual unfreezing has
    reached every layer group (4 of them) before the last epoch."""
    return min(MAX_EPOCHS, max(MIN_EPOCHS, math.ceil(PASSES / max(1, num_reviews))))


def _check(checks) -> None:
    for ok, message in checks:
        if not ok:
            raise SettingError(message)


def _whole(config, name: str) -> tuple[bool, str]:
    """The check that ``config.name`` is a positive whole number, and its message."""
    value = getattr(config, name)
    ok = isinstance(value, int) and not isinstance(value, bool) and value >= 1
    return ok, f"{name} must be a positive whole number, got {value!r}"


@dataclass(frozen=True)
class _Rates:
    """What both stages set their learning rates with: the top group's highest rate, the two tricks,
    and where and how the training runs."""

    lr: float = setting(4e-3, "the top layer group's highest learning rate (Adam)", range=RATE)
    discriminative: bool = setting(True, "discriminative rates: each layer group down gets factor times less")
    factor: float = setting(2.6, "discriminative rates: the ratio between neighbouring groups", range=Range(1, 100))
    slanted: bool = setting(True, "the slanted triangular schedule (without it, a constant rate)")
    cut_frac: float = setting(0.1, "slanted triangle: the share of the steps spent rising", range=FRACTION)
    ratio: float = setting(32.0, "slanted triangle: how much smaller the lowest rate is than the highest",
                           range=Range(1, 1e6))
    threads: int = setting(1, "CPU threads while training", range=THREADS)
    seed: int = setting(1, "draws the labelled examples, the first weights and dropout", range=SEED)
    device: str = setting("auto", "auto (CUDA if present), cpu or cuda")

    def __post_init__(self):
        check_settings(self)

    def _rate_checks(self) -> list[tuple[bool, str]]:
        return [_whole(self, "threads"),
                (self.lr > 0, f"lr must be positive, got {self.lr}"),
                (self.factor >= 1, f"factor must be at least 1, got {self.factor}"),
                (0 < self.cut_frac < 1, f"cut_frac must be between 0 and 1, got {self.cut_frac}"),
                (self.ratio >= 1, f"ratio must be at least 1, got {self.ratio}")]

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class LanguageModelConfig(_Rates):
    """Stage 2: fine-tuning the forward LM on the target domain's text."""

    epochs: int = 1
    batch_tokens: int = 1_000
    patience: int = 3  # with held-out texts: measurements without a better perplexity before stopping (0: never)
    eval_every: int | None = None  # steps between held-out measurements (None: after every epoch)

    def __post_init__(self):
        check_settings(self)
        _check([_whole(self, "epochs"), _whole(self, "batch_tokens"), *self._rate_checks(),
                (isinstance(self.patience, int) and self.patience >= 0,
                 f"patience must not be negative, got {self.patience!r}"),
                (self.eval_every is None or _whole(self, "eval_every")[0],
                 f"eval_every must be a positive whole number or None, got {self.eval_every!r}")])


@dataclass(frozen=True)
class ClassifierConfig(_Rates):
    """Stage 3: a classifier head with concat pooling, fine-tuned with the LM under it."""

    lr: float = setting(1e-2, "the head's highest learning rate (Adam); each group below gets less", range=RATE)
    max_tokens: int = setting(100, "a review is cut to its first max_tokens words", range=Range(1, 100_000))
    hidden_dim: int = setting(50, "the head's hidden layer", range=SIZE)
    dropout: float = setting(0.2, "dropout on both of the head's layers", range=SHARE)
    epochs: int | None = setting(None, "passes over the labelled reviews (none: by their number, about 3,000 "
                                       "reviews seen, 5 to 20 epochs)", range=EPOCHS)
    batch_size: int = setting(32, "reviews per step", range=BATCH)
    evaluations: int = setting(5, "dev evaluations over the run; the best one's weights are kept", range=EVALUATIONS)
    gradual_unfreezing: bool = setting(True, "the head alone in epoch 1, one more layer group each epoch")
    pretrained: bool = setting(True, "start from the LM's weights (no: the same network drawn at random)")

    def __post_init__(self):
        check_settings(self)
        _check([_whole(self, "max_tokens"),
                _whole(self, "hidden_dim"),
                (0 <= self.dropout < 1, f"dropout must be in [0, 1), got {self.dropout}"),
                (self.epochs is None or _whole(self, "epochs")[0],
                 f"epochs must be a positive whole number or None, got {self.epochs!r}"),
                _whole(self, "batch_size"),
                _whole(self, "evaluations"),
                *self._rate_checks()])
