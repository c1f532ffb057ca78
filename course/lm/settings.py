"""The training settings the biLM and the Transformers share, and their checks: one frozen dataclass
that :class:`~course.elmo.config.ElmoConfig` and :class:`~course.transformer.config.TransformerConfig`
extend, so that each setting has one default, one description and one check.

- ``batch_tokens``: B * T padded positions a batch holds at most (:func:`course.text.sentences.length_batches`);
- ``final_lr_share``: where the learning rate's decay ends, a share of ``lr``;
- ``clip_norm``: the gradients' norm is clipped to it;
- ``heldout_every``: sentence i is held out when i % heldout_every == heldout_every - 1
  (:func:`course.lm.heldout.split_heldout`);
- ``device``; ``checkpoint_every``, ``patience`` and ``eval_every``: when a :class:`course.lm.run.Run`
  checkpoints and measures, and when it stops early (:class:`course.lm.best.KeepBest`).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..core.fields import BATCH, PATIENCE, STEPS, check_settings, setting


@dataclass(frozen=True)
class TrainingSettings:
    """What every language model of the course trains with, whatever its network."""

    batch_tokens: int = setting(2_000, "padded positions per batch (sentences of about equal length)", range=BATCH)
    final_lr_share: float = 0.1
    clip_norm: float = 1.0
    heldout_every: int = 20  # sentence i is held out when i % heldout_every == heldout_every - 1
    device: str = setting("auto", "auto (CUDA if present), cpu or cuda")
    checkpoint_every: int = setting(200, "steps between checkpoints (with --checkpoint)", range=STEPS)
    patience: int = setting(3, "stop after this many held-out measurements (one per epoch, or per --eval-every "
                               "steps) without a better perplexity, keeping the best one's weights; 0: never stop "
                               "early", range=PATIENCE)
    eval_every: int | None = setting(None, "measure the held-out perplexity and keep the best weights every this "
                                           "many steps and after the last epoch, each time saving a checkpoint (with "
                                           "--checkpoint); none: after every epoch", range=STEPS)

    def __post_init__(self):
        check_settings(self)

    def training_checks(self) -> list[tuple[bool, str]]:
        """``(ok, message)`` for each of these settings, and for ``epochs``, ``lr`` and ``threads``, which
        every language model has with its own default and description."""
        return [
            (self.epochs >= 1, f"epochs must be at least 1, got {self.epochs}"),
            (self.batch_tokens >= 1, f"batch_tokens must be at least 1, got {self.batch_tokens}"),
            (self.lr > 0, f"lr must be positive, got {self.lr}"),
            (0 <= self.final_lr_share <= 1, f"final_lr_share must be in [0, 1], got {self.final_lr_share}"),
            (self.clip_norm > 0, f"clip_norm must be positive, got {self.clip_norm}"),
            (self.heldout_every >= 2, f"heldout_every must be at least 2, got {self.heldout_every}"),
            (self.threads >= 1, f"threads must be at least 1, got {self.threads}"),
            (self.checkpoint_every >= 1, f"checkpoint_every must be at least 1, got {self.checkpoint_every}"),
            (self.patience >= 0, f"patience must not be negative, got {self.patience}"),
            (self.eval_every is None or self.eval_every >= 1,
             f"eval_every must be at least 1 (or none: after every epoch), got {self.eval_every}"),
        ]
