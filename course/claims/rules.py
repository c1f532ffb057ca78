"""What claims 1-4 assert and when they hold, from figures a notebook (06, 07, 08) or :func:`measure_claims`
has: the biLM against Kneser-Ney (1), static vectors at chance (2), contextual senses beyond every control (3),
syntax low and senses high, and the POS probe against the most-frequent-tag baseline (4). Each function makes
one :class:`~course.claims.row.Claim`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from .row import (
    FAILS,
    HOLDS,
    LANGUAGE_MODEL,
    LAYERS,
    POS_BASELINE,
    SENSES,
    STATIC,
    Claim,
    Phrase,
    _by_layer,
    _judge,
    joined,
)

DIRECTIONS = ("forward", "backward")
LM_NOTEBOOK = {"wiki-en": "06", "peoples-daily-zh": "07"}  # where each biLM's perplexity meets Kneser-Ney's

TARGET_RATIO = 0.75  # the course's target for the biLM's perplexity, as a share of the bigram's
TOLERANCE = 1e-5  # a static vector's deviation from chance (or from 0) that is only rounding


def language_model_claim(corpus_name: str, bilm_perplexities: Mapping[str, float], kneser_ney: Mapping) -> Claim:
    """Claim 1: the biLM's held-out perplexity against Kneser-Ney bigram and trigram models.

    Args:
        corpus_name: the corpus (``"wiki-en"``).
        bilm_perplexities: ``{"forward": p, "backward": q}``, e.g. ``model.state.kept``.
        kneser_ney: ``{(order, direction): perplexity}`` for orders 2 and 3 and both directions
            (notebook 06's ``kneser_ney``), measured on the same held-out sentences.
    """
    bigram = {d: float(kneser_ney[2, d]) for d in DIRECTIONS}
    trigram = {d: float(kneser_ney[3, d]) for d in DIRECTIONS}
    bilm = {d: float(bilm_perplexities[d]) for d in DIRECTIONS}
    margin = min(1 - bilm[d] / min(bigram[d], trigram[d]) for d in DIRECTIONS)
    ratios = " / ".join(f"{bilm[d] / bigram[d]:.2f}x" for d in DIRECTIONS)
    return Claim(
        f"{LANGUAGE_MODEL} ({corpus_name})", LM_NOTEBOOK.get(corpus_name, "06"),
        Phrase("claims lm measurement", forward=bilm["forward"], backward=bilm["backward"], ratios=ratios,
               target=TARGET_RATIO),
        Phrase("claims lm controls", bigram_forward=bigram["forward"], bigram_backward=bigram["backward"],
               trigram_forward=trigram["forward"], trigram_backward=trigram["backward"]),
        margin, None, _judge(margin, None))


def static_vector_claim(static: Mapping[str, Mapping[str, float]]) -> Claim:
    """Claim 2: static vectors score chance on the sense probe.

    Args:
        static: ``{name: {"knn_accuracy", "separation", "chance"}}``, each the mean over the
            probe words of one kind of static vector (``"biLM layer 0 (wiki-en)"``, ``"skip-gram"``);
            ``chance`` is the mean of :func:`chance_scores`.
    """
    if not static:
        raise ValueError("no static vectors measured")
    deviation = max(max(abs(v["knn_accuracy"] - v["chance"]), abs(v["separation"])) for v in static.values())
    measurement = joined("claims semicolon", (Phrase("claims static item", name=name, knn=v["knn_accuracy"],
                                                     separation=v["separation"]) for name, v in static.items()))
    chances = " / ".join(f"{v['chance']:.3f}" for v in static.values())
    return Claim(STATIC, "07", Phrase("claims static measurement", items=measurement),
                 Phrase("claims static controls", chances=chances, tolerance=TOLERANCE),
                 deviation, None, HOLDS if deviation <= TOLERANCE else FAILS)


def sense_claim(corpus_name: str, top_layer: float, untrained: Sequence[float], static: float,
                bag_of_context: float | None, spread: float | None = None, *, test_set: str | None = None,
                bag_source: str = "skip-gram", missing: str = "") -> Claim:
    """Claim 3: the top layer's sense 1-NN accuracy beats every control by more than the spread.

    Args:
        corpus_name: the biLM's corpus.
        top_layer: the top layer's mean 1-NN accuracy over the probe words.
        untrained: the untrained control's mean 1-NN accuracy (same layer), one per seed.
        static: the static control's (layer 0).
        bag_of_context: the bag-of-context control's, or None when it was not measured (the row
            is then not measured, for the reason ``missing``).
        spread: the bootstrap spread of the top layer minus the strongest control
            (:func:`bootstrap_spread`); the spread used is the larger of it and the range of
            ``untrained`` over its seeds. With neither, the row is not measured.
        test_set: what the figures were measured on, for the row's text (default: the probe test split).
        bag_source: whose static vectors made the bag of context.
    """
    untrained = [float(value) for value in untrained]
    if not untrained:
        raise ValueError("the untrained control needs at least one seed")
    seeds = Phrase("claims one seed" if len(untrained) == 1 else "claims seeds", n=len(untrained))
    controls = {"untrained": (Phrase("claims untrained", seeds=seeds), float(np.mean(untrained))),
                "static": (Phrase("claims static layer 0"), float(static))}
    if bag_of_context is not None:
        source = Phrase("claims skip-gram") if bag_source == "skip-gram" else bag_source
        controls["bag"] = (Phrase("claims bag of context", source=source), float(bag_of_context))
    strongest = max(controls, key=lambda name: controls[name][1])
    margin = float(top_layer) - controls[strongest][1]
    seed_range = max(untrained) - min(untrained) if len(untrained) > 1 else None
    spreads = [value for value in (spread, seed_range) if value is not None]
    range_text = Phrase("claims seeds range", low=min(untrained), high=max(untrained)) if seed_range is not None \
        else ""
    shown = joined("claims comma", (Phrase("claims control", name=name, value=value,
                                           seeds=range_text if key == "untrained" else "")
                                    for key, (name, value) in controls.items()))
    row = Claim(f"{SENSES} ({corpus_name})", "07",
                Phrase("claims sense measurement", accuracy=top_layer,
                       test_set=test_set if test_set is not None else Phrase("claims probe test split")),
                Phrase("claims sense controls", controls=shown, strongest=Phrase(f"claims strongest {strongest}")),
                margin, max(spreads) if spreads else None)
    if bag_of_context is None:
        row.verdict = Phrase("claims no bag of context",
                             missing=Phrase("claims in parentheses", what=missing) if missing else "")
    elif not spreads:
        row.verdict = Phrase("claims no spread over seeds")
    else:
        row.verdict = _judge(margin, row.spread)
    return row


def _peak(values: Sequence[float]) -> tuple[int, int, float]:
    """``(best layer, next-best layer, best minus next best)``."""
    order = np.argsort(-np.asarray(values, dtype=float), kind="stable")
    return int(order[0]), int(order[1]), float(values[order[0]] - values[order[1]])


def layer_claim(corpus_name: str, pos_by_layer: Sequence[float], sense_by_layer: Sequence[float],
                pos_spread: float | None = None, sense_spread: float | None = None) -> Claim:
    """Claim 4: the POS probe peaks at a lower layer than the sense probe, each peak clear of its
    probe's next-best layer by more than its spread.

    Args:
        pos_by_layer: POS probe test accuracy per layer (0, 1, ..., L).
        sense_by_layer: mean sense 1-NN accuracy per layer.
        pos_spread, sense_spread: the bootstrap spread of each probe's best layer minus its next
            best (:func:`bootstrap_spread`).
    """
    if len(pos_by_layer) != len(sense_by_layer) or len(pos_by_layer) < 2:
        raise ValueError("need both probes on the same two or more layers")
    pos_peak, _, pos_margin = _peak(pos_by_layer)
    sense_peak, _, sense_margin = _peak(sense_by_layer)
    row = Claim(f"{LAYERS} ({corpus_name})", "08",
                Phrase("claims layers measurement", pos=_by_layer(pos_by_layer), pos_peak=pos_peak,
                       pos_margin=pos_margin, senses=_by_layer(sense_by_layer), sense_peak=sense_peak,
                       sense_margin=sense_margin),
                Phrase("claims layers controls", pos=f"{pos_spread:.3f}" if pos_spread is not None else "-",
                       senses=f"{sense_spread:.3f}" if sense_spread is not None else "-"))
    if pos_spread is None or sense_spread is None:
        row.margin = min(pos_margin, sense_margin)
        row.verdict = Phrase("claims no spread for the peaks")
        return row
    # The peak that clears its spread by less is the one the verdict hangs on.
    row.margin, row.spread = min((pos_margin, pos_spread), (sense_margin, sense_spread), key=lambda p: p[0] - p[1])
    row.verdict = HOLDS if pos_peak < sense_peak and pos_margin > pos_spread and sense_margin > sense_spread else FAILS
    return row


def pos_baseline_claim(corpus_name: str, pos_by_layer: Sequence[float], most_frequent_tag: float,
                       spread: float | None = None) -> Claim:
    """The POS probe's best layer against the most-frequent-tag-per-word baseline.

    Args:
        pos_by_layer: POS probe test accuracy per layer.
        most_frequent_tag: the baseline's accuracy on the same test tokens.
        spread: the bootstrap spread of the best layer minus the baseline.
    """
    best = int(np.argmax(pos_by_layer))
    margin = float(pos_by_layer[best]) - float(most_frequent_tag)
    row = Claim(f"{POS_BASELINE} ({corpus_name})", "08",
                Phrase("claims pos measurement", layers=_by_layer(pos_by_layer), best=best),
                Phrase("claims pos controls", accuracy=most_frequent_tag), margin, spread)
    row.verdict = _judge(margin, spread) if spread is not None else Phrase("claims no spread over sentences")
    return row
