"""Where a static-vector training run stands; saved in its checkpoints."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class TrainingState:
    """Finished epochs, the loss history and the seconds spent training.

    ``history`` holds ``(examples done, mean loss)`` per report: a chunk of text for word2vec, a
    batch of entries for GloVe. A trainer's subclass adds its count of examples (``words_done``,
    ``entries_done``) and says how it grows (:meth:`count`) and what it is (:attr:`done`).
    """

    epochs_done: int = 0
    history: list[tuple[int, float]] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def done(self) -> int:
        """The examples trained so far, over all epochs."""
        raise NotImplementedError

    def count(self, examples: int) -> None:
        """Add ``examples`` to :attr:`done`."""
        raise NotImplementedError

    def record(self, examples: int, loss: float | None) -> None:
        """A worker's report: ``examples`` trained, with a mean ``loss`` (None: not measured)."""
        self.count(examples)
        if loss is not None:
            self.history.append((self.done, loss))

    @classmethod
    def from_dict(cls, saved: dict) -> TrainingState:
        """The state saved as ``dataclasses.asdict`` gave it (the history's pairs came back as lists)."""
        return cls(**{**saved, "history": [tuple(item) for item in saved["history"]]})
