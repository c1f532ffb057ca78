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
    NOT_MEASURED,
    POS_BASELINE,
    SENSES,
    STATIC,
    Claim,
    _by_layer,
    _judge,
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
        f"biLM held-out perplexity {bilm['forward']:,.0f} / {bilm['backward']:,.0f} (forward / backward); "
        f"{ratios} the bigram's (the course's target: at most {TARGET_RATIO}x)",
        f"interpolated Kneser-Ney bigram {bigram['forward']:,.0f} / {bigram['backward']:,.0f}, trigram "
        f"{trigram['forward']:,.0f} / {trigram['backward']:,.0f}, on the same split and vocabulary",
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
    measurement = "; ".join(f"{name}: 1-NN {v['knn_accuracy']:.3f}, separation {v['separation']:+.3f}"
                            for name, v in static.items())
    chances = " / ".join(f"{v['chance']:.3f}" for v in static.values())
    return Claim(STATIC, "07", f"{measurement} (probe test split, mean over words)",
                 f"chance 1-NN {chances} (every other occurrence equally near), separation 0; margin: the "
                 f"largest deviation, held to {TOLERANCE:g}",
                 deviation, None, HOLDS if deviation <= TOLERANCE else FAILS)


def sense_claim(corpus_name: str, top_layer: float, untrained: Sequence[float], static: float,
                bag_of_context: float | None, spread: float | None = None, *, test_set: str = "probe test split",
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
        test_set: what the figures were measured on, for the row's text.
        bag_source: whose static vectors made the bag of context.
    """
    untrained = [float(value) for value in untrained]
    if not untrained:
        raise ValueError("the untrained control needs at least one seed")
    seeds = f"{len(untrained)} seed{'s' if len(untrained) > 1 else ''}"
    controls = {f"untrained (mean of {seeds})": float(np.mean(untrained)), "static (layer 0)": float(static)}
    if bag_of_context is not None:
        controls[f"bag of context ({bag_source})"] = float(bag_of_context)
    strongest = max(controls, key=controls.get)
    margin = float(top_layer) - controls[strongest]
    seed_range = max(untrained) - min(untrained) if len(untrained) > 1 else None
    spreads = [value for value in (spread, seed_range) if value is not None]
    range_text = f" (seeds: {min(untrained):.3f}-{max(untrained):.3f})" if seed_range is not None else ""
    text = ", ".join(f"{name} {value:.3f}{range_text if name.startswith('untrained') else ''}"
                     for name, value in controls.items())
    row = Claim(f"{SENSES} ({corpus_name})", "07",
                f"top layer mean 1-NN sense accuracy {top_layer:.3f} ({test_set})",
                f"{text}; strongest: {strongest.split(' (')[0]}", margin, max(spreads) if spreads else None)
    if bag_of_context is None:
        row.verdict = f"{NOT_MEASURED}: no bag-of-context control" + (f" ({missing})" if missing else "")
    elif not spreads:
        row.verdict = f"{NOT_MEASURED}: no spread (untrained control over several seeds, or a bootstrap)"
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
                f"POS probe accuracy by layer {_by_layer(pos_by_layer)} (peak: layer {pos_peak}, "
                f"{pos_margin:+.3f} over the next); sense 1-NN by layer {_by_layer(sense_by_layer)} "
                f"(peak: layer {sense_peak}, {sense_margin:+.3f})",
                "each probe's peak against its own next-best layer; spread: POS "
                + (f"{pos_spread:.3f}" if pos_spread is not None else "-") + ", senses "
                + (f"{sense_spread:.3f}" if sense_spread is not None else "-"))
    if pos_spread is None or sense_spread is None:
        row.margin = min(pos_margin, sense_margin)
        row.verdict = f"{NOT_MEASURED}: no spread for each probe's peak (a bootstrap over its test sentences)"
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
                f"POS probe accuracy by layer {_by_layer(pos_by_layer)} (best: layer {best})",
                f"most frequent tag of each word {most_frequent_tag:.3f}", margin, spread)
    row.verdict = (_judge(margin, spread) if spread is not None
                   else f"{NOT_MEASURED}: no spread (a bootstrap over the test sentences)")
    return row
