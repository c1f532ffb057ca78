"""The tagger's settings in one dataclass.

One task model for every input, so that a difference in F1 is a difference of inputs:

- ``input``: what each word is given as (:data:`INPUTS`): ``learned`` embeddings trained on the
  labelled sentences alone; ``word2vec`` or ``glove``, frozen pretrained vectors; ``elmo``, the
  frozen biLM's layers mixed by a task's :class:`~course.elmo.ScalarMix` and concatenated to the
  learned embeddings (feature-based transfer, the paper's ``[x_k; ELMo_k]``); ``elmo-finetuned``,
  the same with the biLM's weights trained along with the tagger (fine-tuning); ``bert`` and
  ``bert-finetuned``, the same two with a Transformer's layers (notebook 11's BERT) in the biLM's place;
- ``elmo_at_output``: with an ``elmo`` or ``bert`` input, give the same layers to the BiLSTM's output
  too, ``[h_k; ELMo_k^task]`` with a second, separately learned mix (the paper's second placement);
- ``word_dim``: size of the learned embeddings; ``hidden_dim``: LSTM cells per direction;
- ``dropout``: on the input vectors and on the BiLSTM's output; ``elmo_dropout``: on the mixed
  ELMo vector (0.5 in the paper's taggers); ``mix_penalty``: lambda in the loss's lambda * ||w||^2
  on the mix's weights (the paper: 0.001 keeps the mix near an average of the layers);
- ``epochs``: passes over the labelled sentences; None takes :func:`epochs_for` their number;
- ``lr``: Adam's rate for the tagger; ``finetune_lr``: for the biLM's weights when fine-tuned.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

from ..core.errors import SettingError
from ..core.fields import (
    BATCH,
    EPOCHS,
    EVALUATIONS,
    RATE,
    SEED,
    SHARE,
    SIZE,
    VECTOR_SIZE,
    Range,
    check_settings,
    setting,
)

INPUTS = ("learned", "word2vec", "glove", "elmo", "elmo-finetuned", "bert", "bert-finetuned")
PASSES = 6_000  # sentences seen in training, about, when epochs is None (see epochs_for)
MIN_EPOCHS, MAX_EPOCHS = 3, 40


def epochs_for(num_sentences: int) -> int:
    """Epochs for ``num_sentences`` labelled sentences: about ``PASSES`` sentences seen in all, and
    between 3 and 40 epochs (100 sentences: 40 epochs; 300: 20; 1,000: 6; 2,000 and more: 3)."""
    return min(MAX_EPOCHS, max(MIN_EPOCHS, math.ceil(PASSES / max(1, num_sentences))))


@dataclass(frozen=True)
class TaggerConfig:
    """Everything that defines a tagger and its training."""

    input: str = setting("learned", "learned embeddings, frozen word2vec/GloVe vectors, ELMo features or the "
                                    "fine-tuned biLM", INPUTS)
    elmo_at_output: bool = setting(False, "also concatenate the layers, with a mix of their own, to the BiLSTM's "
                                          "output ([h_k; ELMo_k]; elmo and bert inputs only)")
    word_dim: int = setting(100, "size of the learned embeddings", range=VECTOR_SIZE)
    hidden_dim: int = setting(100, "LSTM cells per direction", range=SIZE)
    dropout: float = setting(0.5, "dropout on the input vectors and on the BiLSTM's output", range=SHARE)
    elmo_dropout: float = setting(0.5, "dropout on the mixed ELMo vector", range=SHARE)
    mix_penalty: float = setting(0.001, "lambda of lambda * ||w||^2 on the ELMo mix's weights", range=Range(0, 1e6))
    epochs: int | None = setting(None, "passes over the labelled sentences (none: by their number, about 6,000 "
                                       "sentences seen, 3 to 40 epochs)", range=EPOCHS)
    batch_size: int = setting(32, "sentences per step", range=BATCH)
    lr: float = setting(1e-2, "Adam's learning rate for the tagger", range=RATE)
    finetune_lr: float = setting(3e-4, "Adam's learning rate for the biLM's weights when fine-tuned", range=RATE)
    evaluations: int = setting(8, "dev evaluations over the run; the best one's weights are kept", range=EVALUATIONS)
    seed: int = setting(1, "draws the labelled sentences and the first weights", range=SEED)
    device: str = setting("auto", "auto (CUDA if present), cpu or cuda")

    def __post_init__(self):
        check_settings(self)
        if self.input not in INPUTS:
            raise SettingError(f"unknown tagger input {self.input!r}: use one of {', '.join(INPUTS)}")
        for name in ("word_dim", "hidden_dim", "batch_size", "evaluations"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise SettingError(f"{name} must be a positive whole number, got {value!r}")
        if self.epochs is not None and (not isinstance(self.epochs, int) or self.epochs < 1):
            raise SettingError(f"epochs must be a positive whole number (or None), got {self.epochs!r}")
        for name in ("dropout", "elmo_dropout"):
            value = getattr(self, name)
            if not 0 <= value < 1:
                raise SettingError(f"{name} must be in [0, 1), got {value!r}")
        for name in ("lr", "finetune_lr"):
            value = getattr(self, name)
            if not (isinstance(value, (int, float)) and math.isfinite(value) and value > 0):
                raise SettingError(f"{name} must be a positive number, got {value!r}")
        if not isinstance(self.elmo_at_output, bool):
            raise SettingError(f"elmo_at_output must be True or False, got {self.elmo_at_output!r}")
        if self.elmo_at_output and not self.uses_elmo:
            raise SettingError(f"elmo_at_output needs an elmo or bert input (the input is {self.input!r})")
        if not (math.isfinite(self.mix_penalty) and self.mix_penalty >= 0):
            raise SettingError(f"mix_penalty must be a number >= 0, got {self.mix_penalty!r}")

    @property
    def uses_elmo(self) -> bool:
        """Whether the input mixes a pretrained network's layers: the biLM's (``elmo``) or a
        Transformer's (``bert``), frozen or fine-tuned."""
        return self.input.startswith(("elmo", "bert"))

    @property
    def fine_tunes(self) -> bool:
        return self.input.endswith("-finetuned")

    def to_dict(self) -> dict:
        return asdict(self)
