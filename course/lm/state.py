"""Where a language model's training stands, and what it measured: one record for the biLM of
:mod:`course.elmo`, the Transformers of :mod:`course.transformer` and ULMFiT's fine-tuning."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class TrainingState:
    """Where training stands, and what it measured.

    Attributes:
        step: optimizer steps taken; ``epoch``: epochs finished; ``batch_in_epoch``: batches of
            the current epoch's order taken, by all processes (N a step with N processes);
            ``tokens``: words trained on; ``seconds``: time spent in steps.
        history: one entry per logging interval: ``step``, ``tokens``, ``seconds``, ``loss``, and
            the training perplexity: for the biLM ``loss`` is the sum of the two directions' mean
            negative log-likelihoods, with ``forward_perplexity`` and ``backward_perplexity``; for
            a Transformer the mean per prediction, with ``perplexity`` and ``lr``.
        heldout: held-out perplexity after every epoch: ``epoch``, ``step``, ``tokens``, and
            ``forward`` and ``backward`` for the biLM, ``perplexity`` and ``predictions`` for a
            Transformer; the last is the last measurement.
        best: the best of them (its entry, with the ``perplexity`` compared: for the biLM the
            geometric mean of the two directions'), whose weights the trained model has
            (:class:`course.lm.best.KeepBest`); ``since_best``: measurements since it.
        stopped_early: training stopped after ``patience`` measurements without a better one.
        finished: all epochs done, or stopped early.
    """

    step: int = 0
    epoch: int = 0
    batch_in_epoch: int = 0
    tokens: int = 0
    seconds: float = 0.0
    history: list[dict] = field(default_factory=list)
    heldout: list[dict] = field(default_factory=list)
    best: dict | None = None
    since_best: int = 0
    stopped_early: bool = False
    finished: bool = False

    @property
    def last(self) -> dict | None:
        """The last held-out measurement (None before the first)."""
        return self.heldout[-1] if self.heldout else None

    @property
    def kept(self) -> dict | None:
        """The measurement whose weights the model has: the best, or the last for a model saved
        before training kept its best (None before the first)."""
        return self.best or self.last

    @property
    def tokens_per_second(self) -> float:
        return self.tokens / self.seconds if self.seconds > 0 else 0.0
