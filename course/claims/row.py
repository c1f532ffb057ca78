"""One row of the claims table: :class:`Claim`, its verdicts, and each claim's sentence as the course states it.

A verdict is ``holds`` (the condition is met and the margin is larger than the spread), ``does not hold here``
or ``not measured: <reason>``; :func:`not_measured` makes the last kind of row.

A row's figures (its measurement, controls and verdict) are English strings, as its JSON and the README give them;
most are :class:`Phrase` objects, which also know their catalogue key and values (``course/printed/claims.py``),
so that the table says them in either edition (:meth:`Phrase.said`) however they were measured.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ..core.edition import text

HOLDS = "holds"
FAILS = "does not hold here"
NOT_MEASURED = "not measured"

LANGUAGE_MODEL = "A neural language model beats counting"
STATIC = "A static vector gives one vector per word type: it cannot tell senses apart"
SENSES = "Contextual vectors separate word senses beyond every control"
LAYERS = "Syntax is learned low, senses high"
POS_BASELINE = "A linear probe on the biLM's vectors tags parts of speech better than the most-frequent-tag baseline"
FEW_LABELS = "Pretrained vectors help most when labels are few"
CONTEXTUAL = "Contextual features beat static ones"
FINE_TUNING = "Fine-tuning the biLM with the task beats using its layers as features"

PRETRAINED_LM = "A pretrained language model lets a classifier learn from few labels"
TARGET_DOMAIN = "Fine-tuning the language model on the target domain adds to general pretraining"
LM_FINE_TUNING = "Fine-tuning the language model beats using its layers as features"
BAG_OF_WORDS = "With few labels, ULMFiT beats a bag-of-words classifier"

TRANSFORMER_SPEED = "A Transformer trains faster per token than an LSTM at equal size"
BOTH_SIDES = "A masked LM fills in blanks better than a causal LM"
TRANSFORMER_SENSES = "A Transformer's top layer separates word senses beyond every control"
FINE_TUNING_GAIN = "Fine-tuning gains more for BERT than for the LSTM biLM"


@dataclass
class Claim:
    """One row of the claims table (plain fields, so that ``dataclasses.asdict`` gives its JSON).

    Attributes:
        claim: the claim in one sentence, as the course states it.
        notebook: the notebook that teaches it (``"06"``).
        measurement: what was measured, with the figures.
        controls: what it was measured against, with their figures.
        margin: by how much the measurement beat the strongest control (None: not measured).
        spread: how much the margin moves over seeds or resamples; the margin must exceed it
            (None: the claim has none, or it was not measured).
        verdict: ``"holds"``, ``"does not hold here"`` or ``"not measured: <reason>"``.
        at_scale: the same rule on a model its publisher trained on billions of words
            (:mod:`course.shared.at_scale`): its verdict with the figures, ``"not measured: run ..."``
            where that model is not fetched, or ``"-"`` where no published model fits the claim.
    """

    claim: str
    notebook: str
    measurement: str
    controls: str
    margin: float | None = None
    spread: float | None = None
    verdict: str = NOT_MEASURED
    at_scale: str = "-"


def not_measured(claim: str, notebook: str, reason: str) -> Claim:
    """A row for a claim that could not be measured, and why."""
    return Claim(claim, notebook, "-", "-", None, None, Phrase("claims not measured because", reason=reason))


def _judge(margin: float, spread: float | None, condition: bool = True) -> str:
    return HOLDS if condition and margin > (spread or 0.0) else FAILS


class Phrase(str):
    """A sentence of the claims table: the English one (the string itself), and the catalogue's ``key`` with the
    ``values`` it was made from, so that :meth:`said` gives it in any edition. A value may be a phrase itself (or
    :func:`joined` phrases); the rest are formatted as the template says."""

    key: str
    values: dict

    def __new__(cls, key: str, **values) -> Phrase:
        phrase = super().__new__(cls, text(key, "en", **values) if values else text(key, "en"))
        phrase.key, phrase.values = key, values
        return phrase

    def said(self, edition: str | None = None) -> str:
        """The sentence in ``edition`` (default the current one, :mod:`course.core.edition`)."""
        values = {name: said(value, edition) for name, value in self.values.items()}
        return text(self.key, edition, **values) if values else text(self.key, edition)

    def __reduce__(self):
        return _phrase, (self.key, self.values)

    def __deepcopy__(self, memo) -> Phrase:  # immutable, as a str is
        return self


class _Joined(str):
    """Phrases (or plain strings) joined by the catalogue's separator ``key``."""

    def __new__(cls, key: str, items: Sequence) -> _Joined:
        joined = super().__new__(cls, text(key, "en").join(items))
        joined.key, joined.items = key, tuple(items)
        return joined

    def said(self, edition: str | None = None) -> str:
        return text(self.key, edition).join(said(item, edition) for item in self.items)

    def __reduce__(self):
        return _Joined, (self.key, self.items)

    def __deepcopy__(self, memo) -> _Joined:
        return self


def _phrase(key: str, values: dict) -> Phrase:
    return Phrase(key, **values)


def joined(key: str, items: Iterable) -> str:
    """``items`` joined by the separator the catalogue's ``key`` gives in each edition (``"claims semicolon"``)."""
    return _Joined(key, list(items))


def said(value, edition: str | None = None):
    """A cell of the table in ``edition``: a :class:`Phrase` (or joined phrases) said in it; anything else as it is."""
    return value.said(edition) if isinstance(value, Phrase | _Joined) else value


def _by_layer(values: Sequence[float]) -> str:
    return " / ".join(f"{value:.3f}" for value in values)
