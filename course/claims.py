"""The course's claims, each measured in the course's own runs: does it hold here?

The course teaches claims from the Chinese introductions to word vectors and ELMo it started
from, and from the ELMo paper (Peters et al., 2018). Each claim is a :class:`Claim` row: what was
measured, against which controls, by how much it won (the margin), how much that margin moves
when the test data are drawn again (the spread), and a verdict:

- ``holds``: the claim's condition is met and the margin is larger than the spread;
- ``does not hold here``: measured, and the condition fails or the margin is not larger than
  the spread;
- ``not measured: <reason>``: a model or file it needs is missing (the reason names it and says
  how to make it).

The rules, claim by claim:

1. *A neural language model beats counting* (notebook 06), for each corpus with a saved biLM:
   the held-out perplexity in each direction of the weights the biLM kept (``state.kept``: the
   best epoch's; the last measurement for a model saved before it kept its best) against
   interpolated Kneser-Ney bigram and trigram models (:class:`course.ngram.KneserNeyLM`) counted
   on the biLM's own training sentences, over its vocabulary, and measured on its held-out
   sentences. Holds when both directions are below both n-gram models. Margin: the smaller
   relative gain of the two directions, ``1 - biLM / best n-gram``. No spread: one trained model
   on one held-out set of tens of thousands of predictions. The ratio to the bigram is shown
   beside the course's target of at most 0.75.
2. *A static vector gives one vector per word type: it cannot tell senses apart* (07): the biLM's
   layer 0 (the target word's vector as the network gives it in each test sentence) and the
   skip-gram vector, on the probe files' test split. Holds when the mean 1-NN sense accuracy over
   words is chance and the separation 0, both to 1e-5 (rounding). Chance: when every other
   occurrence is equally near, an occurrence of a sense that has ``n_s`` of the word's ``n``
   occurrences scores ``(n_s - 1) / (n - 1)``. Margin: the largest deviation from chance or 0.
3. *Contextual vectors separate word senses beyond every control* (07), per language: the top
   layer's mean 1-NN sense accuracy over the words of the probe file's test split, against the
   untrained network (the same vocabularies, weights drawn with seeds 1-5; their mean), the
   static vector (layer 0) and the bag of context (the mean of the static vectors of the
   sentence's other words: skip-gram's where a build saved them, else, for Chinese, the biLM's
   own layer-0 vectors). Margin: the top layer minus the strongest control. Holds when the margin
   is larger than the spread (below).
4. *Syntax is learned low, senses high* (08), on the Chinese biLM: the layer where a linear POS
   probe (logistic regression per layer, trained on People's Daily sentences, tested on others)
   scores best against the layer where the Chinese sense probe does. Holds when the POS probe
   peaks at a lower layer than the sense probe, and each peak is above that probe's next-best
   layer by more than its spread. The margin and spread shown are those of the peak that clears
   its spread by less. Beside it, *a linear probe on the biLM's vectors tags parts of speech
   better than the most-frequent-tag baseline*: margin, the best layer minus the baseline
   (each word's most frequent tag in the training sentences).

5. The transfer claims (09), from the learning curve notebook 09 saves
   (``ner-curve-peoples-daily-zh.json``: entity F1 on the test sentences of People's Daily's
   named entities, per input, number of labelled sentences and seed). Differences are paired by
   seed (the same labelled sentences), and their spread is half their range over the seeds.
   *Pretrained vectors help most when labels are few*: for each pretrained input (word2vec,
   GloVe, ELMo features), its gain over learned embeddings at the fewest labels minus its gain at
   the most; margin, the smallest of these. *Contextual features beat static ones*: ELMo features
   minus the better of word2vec and GloVe, at every count; margin, the smallest. *Fine-tuning the
   biLM beats using its layers as features*: fine-tuned minus features, at the counts where both
   ran; margin, the smallest.
6. The ULMFiT claims (10), from the comparison notebook 10 saves (``ulmfit-curve-reviews-zh.json``:
   test error on the reviews' test split per variant, number of labelled reviews and seed), paired
   by seed as in 5, a gain being the control's error minus ULMFiT's. *A pretrained language model
   lets a classifier learn from few labels*: ULMFiT (all three stages) against the same network
   trained from scratch, at the fewest labels. *Fine-tuning the language model on the target
   domain adds to general pretraining*: ULMFiT against stages 1+3 (no stage 2), at the fewest
   labels. *Fine-tuning the language model beats using its layers as features*: ULMFiT against
   ELMo's frozen layers under the same head, at every count; margin, the smallest. *With few
   labels, ULMFiT beats a bag-of-words classifier*: against a logistic regression on word counts,
   at the fewest labels.
7. The Transformer claims (11), on wiki-en. *A Transformer trains faster per token than an LSTM at
   equal size*: from the training steps notebook 11 times and saves (``transformers-wiki-en.json``),
   the Transformer's tokens/s over the biLM's, repeat by repeat, per sentence length, judged on the
   two networks' bodies on one thread (the char-CNN and LSTMs against the Transformer blocks: what
   the claim is about, recurrence against attention), the whole LMs, whose softmaxes differ, shown
   beside; margin, the smallest ratio less 1; spread, the largest half range of the ratios over the
   repeats. *A masked LM sees both sides at once*: accuracy@5 on the same blanked held-out words,
   BERT against the stronger of GPT (the left side) and CBOW (a bag of both sides); spread, the
   bootstrap over the blanks. *A Transformer's top layer separates word senses beyond every
   control* (GPT, BERT): claim 3's rule and figures on the saved ``gpt-wiki-en.pt`` and
   ``bert-wiki-en.pt``, with each layer's accuracy beside ELMo's for the pattern.

The spread. The probes are measured on small test sets, so a margin counts only when it is larger
than what drawing the test set again would move it by: a paired bootstrap (1,000 resamples,
seed 0) of the difference between the two figures compared, the test sentences drawn with
replacement (within each word for the sense probe; whole sentences with all their tokens for the
POS probe); the spread is half the width of the central 95% interval. For the sense claim the
spread is the larger of that and the range (max - min) of the untrained control over the seeds,
so that the margin must also exceed what another random initialisation gives. A probe claim given
no spread is not measured.

:func:`measure_claims` reads the models a build saved in :func:`course.paths.models_dir` and
measures every row; the ``*_claim`` functions make one row from figures a notebook already has.
"""

from __future__ import annotations

import html
import sys
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import numpy as np

from .edition import CATALOGUE, text
from .errors import CourseError, ModelFileError
from .paths import data_dir, models_dir, project_root
from .settings import by_profile, resolve_profile

HOLDS = "holds"
FAILS = "does not hold here"
NOT_MEASURED = "not measured"
TARGET_RATIO = 0.75  # the course's target for the biLM's perplexity, as a share of the bigram's
TOLERANCE = 1e-5  # a static vector's deviation from chance (or from 0) that is only rounding
UNTRAINED_SEEDS = (1, 2, 3, 4, 5)
RESAMPLES = 1_000
LEVEL = 0.95
SMOKE_SENTENCES = 300  # notebooks 06-08 train the smoke profile's biLMs on each corpus's first 300 sentences
DIRECTIONS = ("forward", "backward")
# What a build saves into models_dir(profile) (notebooks 01-04, 06 and 07/08).
BUILD_FILES = ("count-svd-wiki-en.txt", "skipgram-neg-wiki-en.txt", "cbow-hs-wiki-en.txt", "glove-wiki-en.txt",
               "elmo-cpu-wiki-en.pt", "elmo-cpu-peoples-daily-zh.pt")
CORPORA = {"wiki-en": ("en", "06"), "peoples-daily-zh": ("zh", "07 or 08")}  # probe file prefix, notebook saving it
LM_NOTEBOOK = {"wiki-en": "06", "peoples-daily-zh": "07"}  # where each biLM's perplexity meets Kneser-Ney's

LANGUAGE_MODEL = "A neural language model beats counting"
STATIC = "A static vector gives one vector per word type: it cannot tell senses apart"
SENSES = "Contextual vectors separate word senses beyond every control"
LAYERS = "Syntax is learned low, senses high"
POS_BASELINE = "A linear probe on the biLM's vectors tags parts of speech better than the most-frequent-tag baseline"
FEW_LABELS = "Pretrained vectors help most when labels are few"
CONTEXTUAL = "Contextual features beat static ones"
FINE_TUNING = "Fine-tuning the biLM with the task beats using its layers as features"
NER_CURVE = "ner-curve-peoples-daily-zh.json"  # what notebook 09 saves into models_dir(profile)
PRETRAINED_LM = "A pretrained language model lets a classifier learn from few labels"
TARGET_DOMAIN = "Fine-tuning the language model on the target domain adds to general pretraining"
LM_FINE_TUNING = "Fine-tuning the language model beats using its layers as features"
BAG_OF_WORDS = "With few labels, ULMFiT beats a bag-of-words classifier"
ULMFIT_CURVE = "ulmfit-curve-reviews-zh.json"  # what notebook 10 saves into models_dir(profile)
ULMFIT = "ULMFiT (1+2+3)"
TRANSFORMER_SPEED = "A Transformer trains faster per token than an LSTM at equal size"
BOTH_SIDES = "A masked LM fills in blanks better than a causal LM"
TRANSFORMER_SENSES = "A Transformer's top layer separates word senses beyond every control"
FINE_TUNING_GAIN = "Fine-tuning gains more for BERT than for the LSTM biLM"
TRANSFORMER_RESULTS = "transformers-wiki-en.json"  # what notebook 11 saves into models_dir(profile)
TRANSFORMERS = {"gpt": "GPT", "bert": "BERT"}  # model file prefix -> name in the rows (notebook 11)
STATIC_INPUTS = ("word2vec", "glove")


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
    """

    claim: str
    notebook: str
    measurement: str
    controls: str
    margin: float | None = None
    spread: float | None = None
    verdict: str = NOT_MEASURED


def not_measured(claim: str, notebook: str, reason: str) -> Claim:
    """A row for a claim that could not be measured, and why."""
    return Claim(claim, notebook, "-", "-", None, None, f"{NOT_MEASURED}: {reason}")


def _judge(margin: float, spread: float | None, condition: bool = True) -> str:
    return HOLDS if condition and margin > (spread or 0.0) else FAILS


def _by_layer(values: Sequence[float]) -> str:
    return " / ".join(f"{value:.3f}" for value in values)


# ------------------------------------------------------------------------ one row per claim


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


# ----------------------------------------------------------------- scores and their spread


def _curve(rows: Sequence[Mapping], name: str = "input", score: str = "f1",
           sign: float = 1.0) -> dict[str, dict[int, dict[int, float]]]:
    """``{input: {labels: {seed: f1}}}`` (``sign=-1`` with ``score="error"``: higher is better, as for F1)."""
    curve: dict[str, dict[int, dict[int, float]]] = {}
    for row in rows:
        curve.setdefault(row[name], {}).setdefault(int(row["labels"]), {})[int(row["seed"])] = sign * float(row[score])
    return curve


def _paired(curve, better, worse, labels) -> np.ndarray:
    """Seed by seed, ``better``'s F1 minus ``worse``'s (or the best of several ``worse``) at ``labels``."""
    worse = (worse,) if isinstance(worse, str) else worse
    seeds = set(curve[better][labels]).intersection(*(curve[name][labels] for name in worse))
    return np.array([curve[better][labels][seed] - max(curve[name][labels][seed] for name in worse)
                     for seed in sorted(seeds)])


def _half_range(values) -> float:
    values = np.asarray(values, dtype=float)
    return float((values.max() - values.min()) / 2) if len(values) else 0.0


def few_labels_claim(rows: Sequence[Mapping]) -> Claim:
    """Pretrained inputs gain more over learned embeddings at the fewest labels than at the most."""
    curve = _curve(rows)
    pretrained = [name for name in (*STATIC_INPUTS, "elmo") if name in curve]
    if "learned" not in curve or not pretrained:
        return not_measured(FEW_LABELS, "09", "the learning curve has no learned input or no pretrained one")
    counts = sorted(set(curve["learned"]).intersection(*(curve[name] for name in pretrained)))
    if len(counts) < 2:
        return not_measured(FEW_LABELS, "09", "the learning curve needs at least two numbers of labels")
    few, most = counts[0], counts[-1]
    gains = {name: (_paired(curve, name, "learned", few), _paired(curve, name, "learned", most)) for name in pretrained}
    margins = {name: float(a.mean() - b.mean()) for name, (a, b) in gains.items()}
    spread = max(_half_range(a) + _half_range(b) for a, b in gains.values())
    margin = min(margins.values())
    shown = "; ".join(f"{name} {a.mean():+.3f} at {few:,} labels, {b.mean():+.3f} at {most:,}"
                      for name, (a, b) in gains.items())
    return Claim(FEW_LABELS, "09", f"F1 gain over learned embeddings: {shown}",
                 f"learned embeddings, seeds {_seeds(curve)}, the same labelled sentences per seed",
                 margin, spread, _judge(margin, spread))


def _at_every_count(curve, better: str, worse) -> tuple[float, float, str]:
    """``better`` minus ``worse`` at every count both have: (smallest mean difference, largest half range over
    seeds, the differences as text)."""
    worse = (worse,) if isinstance(worse, str) else tuple(worse)
    counts = sorted(set(curve[better]).intersection(*(curve[name] for name in worse)))
    differences = {count: _paired(curve, better, worse, count) for count in counts}
    margin = min(float(d.mean()) for d in differences.values())
    spread = max(_half_range(d) for d in differences.values())
    return margin, spread, ", ".join(f"{d.mean():+.3f} ({count:,})" for count, d in differences.items())


def contextual_claim(rows: Sequence[Mapping]) -> Claim:
    """ELMo features beat the better static input at every number of labels."""
    curve = _curve(rows)
    static = [name for name in STATIC_INPUTS if name in curve]
    if "elmo" not in curve or not static:
        return not_measured(CONTEXTUAL, "09", "the learning curve has no ELMo input or no static one")
    margin, spread, shown = _at_every_count(curve, "elmo", static)
    return Claim(CONTEXTUAL, "09", f"ELMo features minus the better of {' and '.join(static)}, F1 by labels: {shown}",
                 f"{' and '.join(static)} vectors trained by the course on People's Daily, seeds {_seeds(curve)}",
                 margin, spread, _judge(margin, spread))


def fine_tuning_claim(rows: Sequence[Mapping]) -> Claim:
    """The biLM fine-tuned with the tagger against its frozen layers as features."""
    curve = _curve(rows)
    if "elmo" not in curve or "elmo-finetuned" not in curve:
        return not_measured(FINE_TUNING, "09", "the learning curve has no fine-tuned or no feature-based ELMo input")
    margin, spread, shown = _at_every_count(curve, "elmo-finetuned", "elmo")
    return Claim(FINE_TUNING, "09", f"fine-tuned minus features, F1 by labels: {shown}",
                 f"the same biLM frozen, with the same tagger and ScalarMix, seeds {_seeds(curve)}",
                 margin, spread, _judge(margin, spread))


def _seeds(curve) -> str:
    seeds = sorted({seed for by_count in curve.values() for by_seed in by_count.values() for seed in by_seed})
    return ", ".join(map(str, seeds))


def fine_tuning_gain_claim(ner_rows: Sequence[Mapping], bert_rows: Sequence[Mapping]) -> Claim:
    """Peters, Ruder and Smith (2019): ELMo's features are about as good as fine-tuning it, while BERT
    gains from fine-tuning. BERT's gain (fine-tuned minus features, entity F1) against the biLM's, at
    the fewest labels both ran, paired by seed (the same seed means the same labelled sentences)."""
    curve = _curve([*ner_rows, *bert_rows])
    wanted = ("elmo", "elmo-finetuned", "bert", "bert-finetuned")
    missing = [name for name in wanted if name not in curve]
    if missing:
        return not_measured(FINE_TUNING_GAIN, "11", f"no {', '.join(missing)} rows (notebooks 09 and 11 save them)")
    counts = sorted(set.intersection(*(set(curve[name]) for name in wanted)))
    if not counts:
        return not_measured(FINE_TUNING_GAIN, "11", "the biLM's and BERT's taggers never ran on the same labels")
    labels = counts[0]
    seeds = sorted(set.intersection(*(set(curve[name][labels]) for name in wanted)))
    if not seeds:
        return not_measured(FINE_TUNING_GAIN, "11", f"no seed ran every input at {labels:,} labels")
    gain = {model: np.array([curve[f"{model}-finetuned"][labels][seed] - curve[model][labels][seed] for seed in seeds])
            for model in ("bert", "elmo")}
    difference = gain["bert"] - gain["elmo"]
    margin, spread = float(difference.mean()), _half_range(difference)
    return Claim(FINE_TUNING_GAIN, "11",
                 f"BERT's entity F1, fine-tuned minus features, at {labels:,} labels: {gain['bert'].mean():+.3f}",
                 f"the biLM's gain on the same labels and seeds ({', '.join(map(str, seeds))}): "
                 f"{gain['elmo'].mean():+.3f}", margin, spread, _judge(margin, spread))


def transfer_claims(rows: Sequence[Mapping]) -> list[Claim]:
    """The three rows of notebook 09 from its learning curve's rows."""
    return [few_labels_claim(rows), contextual_claim(rows), fine_tuning_claim(rows)]


def _ulmfit_row(claim: str, curve, control: str, every_count: bool, controls: str) -> Claim:
    """ULMFiT against ``control``: the control's test error minus ULMFiT's, paired by seed, at the fewest
    labels both ran (or at every count, margin the smallest)."""
    missing = [name for name in (ULMFIT, control) if name not in curve]
    if missing:
        return not_measured(claim, "10", f"the comparison has no {' and no '.join(map(repr, missing))} rows")
    counts = sorted(set(curve[ULMFIT]) & set(curve[control]))
    if not counts:
        return not_measured(claim, "10", f"{ULMFIT!r} and {control!r} never ran on the same number of labels")
    differences = {count: _paired(curve, ULMFIT, control, count) for count in (counts if every_count else counts[:1])}
    margin = min(float(d.mean()) for d in differences.values())
    spread = max(_half_range(d) for d in differences.values())
    errors = "; ".join(f"{count:,} labels: ULMFiT {-np.mean(list(curve[ULMFIT][count].values())):.3f}, {control} "
                       f"{-np.mean(list(curve[control][count].values())):.3f}" for count in differences)
    return Claim(claim, "10", f"test error, {errors} (error lower by "
                 f"{', '.join(f'{d.mean():+.3f}' for d in differences.values())})",
                 f"{controls}, seeds {_seeds(curve)}, the same labelled reviews per seed", margin, spread,
                 _judge(margin, spread))


def ulmfit_claims(rows: Sequence[Mapping]) -> list[Claim]:
    """The four rows of notebook 10 from its comparison's rows (``variant``, ``labels``, ``seed``, ``error``)."""
    curve = _curve(rows, name="variant", score="error", sign=-1.0)
    return [_ulmfit_row(PRETRAINED_LM, curve, "from scratch", False,
                        "the same network from random weights (rate 0.003, chosen on dev)"),
            _ulmfit_row(TARGET_DOMAIN, curve, "stages 1+3", False,
                        "the general LM fine-tuned as a classifier directly (no stage 2)"),
            _ulmfit_row(LM_FINE_TUNING, curve, "ELMo features", True,
                        "the fine-tuned biLM's three layers frozen, mixed by ScalarMix, under the same head"),
            _ulmfit_row(BAG_OF_WORDS, curve, "bag of words", False,
                        "logistic regression on word counts (scikit-learn)")]


def speed_claim(rows: Sequence[Mapping]) -> Claim:
    """The Transformer's training tokens/s over the LSTM biLM's, from :func:`course.transformer.throughput.
    training_throughput`'s rows (``model``, ``length``, ``repeat``, ``tokens_per_second``, ``threads``,
    ``softmax``): judged on the bodies on one thread, the whole LMs shown beside."""
    def ratios(softmax: bool) -> dict[int, np.ndarray]:
        speed: dict = {}
        for row in rows:
            if bool(row["softmax"]) == softmax and int(row["threads"]) == 1:
                speed.setdefault(int(row["length"]), {}).setdefault(row["model"], {})[int(row["repeat"])] = \
                    float(row["tokens_per_second"])
        out = {}
        for length, by_model in sorted(speed.items()):
            repeats = sorted(set(by_model.get("transformer", {})) & set(by_model.get("lstm", {})))
            if repeats:
                out[length] = np.array([by_model["transformer"][r] / by_model["lstm"][r] for r in repeats])
        return out

    body, whole = ratios(False), ratios(True)
    if not body:
        return not_measured(TRANSFORMER_SPEED, "11", "no timed steps of the two bodies on one thread")
    margin = min(float(np.median(r)) - 1 for r in body.values())
    spread = max(_half_range(r) for r in body.values())

    def shown(by_length: dict) -> str:
        return ", ".join(f"{np.median(r):.2f}x ({length})" for length, r in by_length.items())

    whole_text = f"; whole LMs (adaptive against full softmax): {shown(whole)}" if whole else ""
    return Claim(TRANSFORMER_SPEED, "11", f"Transformer / LSTM training tokens/s by words per sentence, bodies on "
                 f"one CPU thread: {shown(body)}{whole_text}",
                 "the cpu biLM (char-CNN, 2 projected LSTM layers each way) against a causal Transformer of about "
                 "as many weights (d_model 192, 4 blocks), the same batches of equal-length sentences, median over "
                 "repeats",
                 margin, spread, _judge(margin, spread))


def both_sides_claim(rows: Sequence[Mapping], at: str = "correct_at_5") -> Claim:
    """BERT against the stronger of GPT and CBOW on the same blanks (``model``, ``blank``, ``correct_at_5``)."""
    answers: dict[str, dict[int, float]] = {}
    for row in rows:
        answers.setdefault(row["model"], {})[int(row["blank"])] = float(row[at])
    controls = [name for name in ("GPT", "CBOW") if name in answers]
    if "BERT" not in answers or not controls:
        return not_measured(BOTH_SIDES, "11", "the blanks were not answered by BERT and by GPT or CBOW")
    blanks = sorted(set(answers["BERT"]).intersection(*(answers[name] for name in controls)))
    accuracy = {name: float(np.mean([answers[name][b] for b in blanks])) for name in ("BERT", *controls)}
    strongest = max(controls, key=accuracy.get)
    differences = np.array([answers["BERT"][b] - answers[strongest][b] for b in blanks])
    margin = float(differences.mean())
    spread = bootstrap_spread(differences)
    return Claim(BOTH_SIDES, "11", f"BERT's accuracy@5 on {len(blanks):,} blanked held-out words "
                 f"{accuracy['BERT']:.3f}",
                 ", ".join(f"{name} {accuracy[name]:.3f}" for name in controls) + f" (GPT: the left side only; "
                 f"CBOW: a bag of 5 words each side); strongest: {strongest}", margin, spread, _judge(margin, spread))


def transformer_claims(results: Mapping) -> list[Claim]:
    """The two rows of notebook 11 that its saved results give (speed, both sides)."""
    return [speed_claim(results["throughput"]), both_sides_claim(results["fill_in"])]


def _saved_rows(folder: Path, filename: str, notebook: str, claims: Sequence[str], measure) -> list[Claim]:
    """The rows a notebook's saved results give, or rows that say why there are none."""
    import json

    path = folder / filename
    if not path.is_file():
        reason = f"no {_shown(path)}: run notebook {notebook} (it saves its results there)"
        return [not_measured(claim, notebook, reason) for claim in claims]
    try:
        return measure(json.loads(path.read_text(encoding="utf-8")))
    except (ValueError, KeyError, TypeError) as exc:
        reason = f"{_shown(path)} is damaged ({type(exc).__name__}): run notebook {notebook} again"
        return [not_measured(claim, notebook, reason) for claim in claims]


def sense_scores(vectors: np.ndarray, senses) -> np.ndarray:
    """``(n,)``: each occurrence's leave-one-out 1-NN score, the share of its equally nearest other
    occurrences (cosine, ties within :data:`course.probes.TIE`) that have its sense. Their mean is
    :func:`course.probes.sense_probe`'s ``knn_accuracy``."""
    from .probes import TIE, cosine_matrix

    labels = np.asarray(senses)
    similarity = cosine_matrix(vectors)
    np.fill_diagonal(similarity, -np.inf)
    tied = similarity >= similarity.max(axis=1, keepdims=True) - TIE
    return (tied & (labels[:, None] == labels)).sum(axis=1) / tied.sum(axis=1)


def chance_scores(senses) -> np.ndarray:
    """``(n,)``: what :func:`sense_scores` gives when every occurrence has the same vector:
    ``(n_s - 1) / (n - 1)`` for an occurrence of a sense with ``n_s`` of the ``n`` occurrences."""
    labels = np.asarray(senses)
    same = (labels[:, None] == labels).sum(axis=1)
    return (same - 1) / (len(labels) - 1)


def bootstrap_spread(differences, sizes=None, strata=None, resamples: int = RESAMPLES, seed: int = 0,
                     level: float = LEVEL) -> float:
    """Half the width of the central ``level`` interval of a paired bootstrap of a difference.

    Args:
        differences: ``(n,)``, per test unit (a sentence) the sum of its items' score differences
            between the two things compared (one item per unit unless ``sizes`` says otherwise).
        sizes: ``(n,)`` items per unit (tokens of a sentence); default 1.
        strata: ``(n,)`` labels (the probe word of each sentence): units are drawn again within
            each stratum, and the statistic is the mean over strata of ``sum(differences) /
            sum(sizes)``. Default: one stratum.
        resamples, seed, level: the bootstrap's size, its random seed and the interval's level.
    """
    differences = np.asarray(differences, dtype=float)
    sizes = np.ones_like(differences) if sizes is None else np.asarray(sizes, dtype=float)
    strata = np.zeros(len(differences)) if strata is None else np.asarray(strata)
    rng = np.random.default_rng(seed)
    labels = np.unique(strata)
    statistic = np.zeros(resamples)
    for label in labels:
        rows = np.flatnonzero(strata == label)
        drawn = rows[rng.integers(0, len(rows), (resamples, len(rows)))]
        statistic += differences[drawn].sum(axis=1) / sizes[drawn].sum(axis=1)
    low, high = np.quantile(statistic / len(labels), [(1 - level) / 2, (1 + level) / 2])
    return float(high - low) / 2


def _word_mean(scores: np.ndarray, words: np.ndarray) -> float:
    """The mean over words of the mean score of each word's occurrences (how the probes summarise)."""
    return float(np.mean([scores[words == word].mean() for word in dict.fromkeys(words.tolist())]))


# ----------------------------------------------------------------------- tables of claims


def _cells(row: Claim) -> tuple[str, str]:
    margin = f"{row.margin:+.3f}" if row.margin is not None else "-"
    spread = f"{row.spread:.3f}" if row.spread is not None else "-"
    return margin, spread


def claim_text(name: str, edition: str | None = None) -> str:
    """A claim's sentence in ``edition`` (default the current one, :mod:`course.edition`); a suffix in
    parentheses (the corpus) is kept."""
    base, _, rest = name.partition(" (")
    if base not in CATALOGUE:
        return name
    return text(base, edition) + (f" ({rest}" if rest else "")


def verdict_text(verdict: str, edition: str | None = None) -> str:
    """A verdict in ``edition``: ``holds``, ``does not hold here`` or ``not measured: <reason>`` (the
    reason stays as measured)."""
    if verdict.startswith(NOT_MEASURED):
        reason = verdict[len(NOT_MEASURED):].lstrip(": ")
        return text(NOT_MEASURED, edition) + (f": {reason}" if reason else "")
    return text(verdict, edition) if verdict in (HOLDS, FAILS) else verdict


def format_claims(rows: Sequence[Claim], edition: str | None = None) -> str:
    """The claims as plain text: a block per claim with its measurement, controls, margin,
    spread and verdict; the claims, headings and verdicts in ``edition``'s words."""
    lines = []
    for number, row in enumerate(rows, start=1):
        margin, spread = _cells(row)
        lines += [f"{number}. {claim_text(row.claim, edition)}  [{text('notebook', edition)} {row.notebook}]",
                  f"   {text('measurement', edition)}   {row.measurement}",
                  f"   {text('controls', edition)}    {row.controls}",
                  f"   {text('margin', edition)}     {margin}   {text('spread', edition)} {spread}",
                  f"   {text('verdict', edition)}    {verdict_text(row.verdict, edition)}", ""]
    return "\n".join(lines).rstrip()


HEADER = ("claim", "notebook", "measurement", "controls", "margin", "spread", "verdict")


def claims_markdown(rows: Sequence[Claim], edition: str | None = None) -> str:
    """The claims as a Markdown table (for the README), in ``edition``'s words."""
    def cell(value: str) -> str:
        return value.replace("|", "\\|").replace("\n", " ")

    lines = ["| " + " | ".join(text(name, edition) for name in HEADER) + " |", "|---|---|---|---|---:|---:|---|"]
    for row in rows:
        lines.append("| " + " | ".join(cell(value) for value in (claim_text(row.claim, edition), row.notebook,
                                                                   row.measurement, row.controls, *_cells(row),
                                                                   verdict_text(row.verdict, edition))) + " |")
    return "\n".join(lines)


def claims_html(rows: Sequence[Claim], edition: str | None = None) -> str:
    """The claims as an HTML table (for ``build/index.html``), in ``edition``'s words; each row's class
    is its verdict's first word (``holds``, ``does``, ``not``)."""
    head = "".join(f"<th>{text(name, edition)}</th>" for name in HEADER)
    body = []
    for row in rows:
        margin, spread = _cells(row)
        cells = [html.escape(value) for value in (claim_text(row.claim, edition), row.notebook, row.measurement,
                                                  row.controls)]
        body.append(f"<tr class='{row.verdict.split()[0].rstrip(':')}'>" + "".join(f"<td>{c}</td>" for c in cells)
                    + f"<td class='value'>{margin}</td><td class='value'>{spread}</td>"
                    f"<td>{html.escape(verdict_text(row.verdict, edition))}</td></tr>")
    return f"<table class='claims'><tr>{head}</tr>{''.join(body)}</table>"


# ------------------------------------------------------------------- measuring a build


def _shown(path: Path) -> str:
    """``path`` relative to the project when it is inside it."""
    try:
        return str(path.relative_to(project_root()))
    except ValueError:
        return str(path)


def _remedy(profile: str) -> str:
    return "run make course" + (" PROFILE=smoke" if profile == "smoke" else "")


def training_corpus(corpus_name: str, profile: str):
    """The corpus a build's biLM of ``corpus_name`` was trained on: the whole corpus in the full
    profile, its first 300 sentences in the smoke one (notebooks 06-08)."""
    from .corpus import load_corpus

    corpus = load_corpus(corpus_name, progress=False)
    return by_profile(profile, full=corpus, smoke=corpus.head(SMOKE_SENTENCES))


def _untrained(model, seed: int):
    """The model's network with fresh random weights drawn with ``seed`` (same vocabularies)."""
    from .elmo import Elmo

    if not isinstance(model, Elmo):  # a Transformer draws its own
        return model.untrained(seed)
    return Elmo(replace(model.config, seed=seed), model.words, model.characters, device=str(model.device))


def _language_model_row(corpus_name: str, model, profile: str, say) -> Claim:
    from .elmo.training import split_heldout, vocabularies
    from .ngram import KneserNeyLM

    claim, notebook = f"{LANGUAGE_MODEL} ({corpus_name})", LM_NOTEBOOK.get(corpus_name, "06")
    if not model.state.heldout:
        return not_measured(claim, notebook, f"the {corpus_name} biLM has no held-out perplexity")
    corpus = training_corpus(corpus_name, profile)
    train_numbers, heldout_numbers = split_heldout(corpus, model.config)
    if vocabularies(corpus, train_numbers, model.config)[0].words != model.words.words:
        where = by_profile(profile, full="the whole corpus", smoke=f"its first {SMOKE_SENTENCES} sentences")
        return not_measured(claim, notebook, f"the {corpus_name} biLM's vocabulary is not that of {where}: it was "
                                         "trained on other sentences, so there is no split to count n-grams on")
    say(f"Kneser-Ney bigram and trigram models on {corpus_name} ...")
    train = [corpus[int(i)] for i in train_numbers]
    heldout = [corpus[int(i)] for i in heldout_numbers]
    vocabulary = [word for word in model.words.words if word not in model.words.specials]
    kneser_ney = {(order, d): KneserNeyLM(train, order=order, vocabulary=vocabulary, direction=d).perplexity(heldout)
                  for order in (2, 3) for d in DIRECTIONS}
    return language_model_claim(corpus_name, model.state.kept, kneser_ney)


def _sense_measurement(model, probes, bag_vectors) -> dict:
    """Per-occurrence sense scores on ``probes``: every layer, the top layer untrained per seed,
    the bag of context (or None), the chance level, and layer 0's separation."""
    from .probes import bag_of_context_vectors, sense_probe, target_vectors

    words = np.asarray([probe.word for probe in probes])
    senses = np.asarray([probe.sense for probe in probes])
    groups = [np.flatnonzero(words == word) for word in dict.fromkeys(words.tolist())]

    def scores(vectors: np.ndarray) -> np.ndarray:
        out = np.zeros(len(probes))
        for rows in groups:
            out[rows] = sense_scores(vectors[rows], senses[rows])
        return out

    layers = target_vectors(model, probes)
    top = layers.shape[0] - 1
    untrained = np.stack([scores(target_vectors(_untrained(model, seed), probes)[top]) for seed in UNTRAINED_SEEDS])
    chance = np.zeros(len(probes))
    for rows in groups:
        chance[rows] = chance_scores(senses[rows])
    separation = np.mean([sense_probe(layers[0][rows], senses[rows])["separation"] for rows in groups])
    return {"words": words, "senses": senses, "layers": np.stack([scores(layer) for layer in layers]),
            "untrained": untrained, "chance": chance, "separation": float(separation),
            "bag": scores(bag_of_context_vectors(probes, bag_vectors)) if bag_vectors is not None else None}


def _transformer_sense_row(name: str, measured: dict, elmo_layers: np.ndarray | None, probe_file: Path,
                           bag_source: str, missing: str) -> Claim:
    """Claim 3's rule on a Transformer of notebook 11, with its layers beside the biLM's."""
    row = _sense_row("wiki-en", measured, probe_file, bag_source, missing)
    words = measured["words"]
    pattern = f"; by layer {_by_layer([_word_mean(s, words) for s in measured['layers']])}"
    if elmo_layers is not None:
        pattern += f" (the biLM: {_by_layer([_word_mean(s, words) for s in elmo_layers])})"
    return replace(row, claim=f"{TRANSFORMER_SENSES} ({name}, wiki-en)", notebook="11",
                   measurement=row.measurement + pattern)


def _sense_row(corpus_name: str, measured: dict, probe_file: Path, bag_source: str, missing: str) -> Claim:
    words, layers = measured["words"], measured["layers"]
    top = layers[-1]
    controls = {"untrained": measured["untrained"].mean(axis=0), "static": layers[0]}
    if measured["bag"] is not None:
        controls["bag"] = measured["bag"]
    strongest = max(controls, key=lambda name: _word_mean(controls[name], words))
    spread = bootstrap_spread(top - controls[strongest], strata=words)
    return sense_claim(corpus_name, _word_mean(top, words),
                       [_word_mean(scores, words) for scores in measured["untrained"]], _word_mean(layers[0], words),
                       _word_mean(measured["bag"], words) if measured["bag"] is not None else None, spread,
                       test_set=f"{probe_file.name} test split, {len(set(words.tolist()))} words, "
                                f"{len(words)} sentences; layer {len(layers) - 1}",
                       bag_source=bag_source, missing=missing)


def _skipgram_static(kv, probes) -> dict | None:
    """Claim 2's figures for skip-gram vectors on ``probes`` (words the vectors lack are left out)."""
    from .probes import sense_probe

    figures = []
    for word in dict.fromkeys(probe.word for probe in probes):
        if word in kv:
            senses = [probe.sense for probe in probes if probe.word == word]
            figures.append({**sense_probe(np.repeat(kv[word][None], len(senses), axis=0), senses),
                            "chance": float(chance_scores(senses).mean())})
    return {key: float(np.mean([f[key] for f in figures])) for key in figures[0]} if figures else None


def _pos_scores(model, corpus, num_sentences: int, test_share: float = 0.2, seed: int = 1,
                max_iter: int = 300) -> dict:
    """:func:`course.probes.pos_probe`'s per-token results for the trained biLM alone.

    Returns:
        ``{"layers": (L + 1, tokens) bool, "most_frequent_tag": (tokens,) bool, "sizes": (test
        sentences,) tokens in each}`` over the test tokens, sentence by sentence.
    """
    from .probes import pos_probe

    tokens = pos_probe(model, corpus, num_sentences, test_share, seed, untrained=False, max_iter=max_iter,
                       per_token=True)["per_token"]
    return {"layers": tokens["trained"], "most_frequent_tag": np.asarray(tokens["most_frequent_tag"], dtype=bool),
            "sizes": tokens["sizes"]}


def _per_sentence(values: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """Per-token values ``(tokens,)`` summed sentence by sentence ``(len(sizes),)``."""
    return np.add.reduceat(values.astype(float), np.concatenate([[0], np.cumsum(sizes)[:-1]]))


def _layer_rows(corpus_name: str, model, measured: dict | None, profile: str, say) -> list[Claim]:
    """Claim 4 and the POS baseline on the biLM of a tagged corpus."""
    from .corpus import load_corpus

    say(f"POS probe per layer on {corpus_name} ...")
    pos = _pos_scores(model, load_corpus(corpus_name, progress=False),
                      num_sentences=by_profile(profile, full=1_500, smoke=100),
                      max_iter=by_profile(profile, full=300, smoke=100))
    sizes, correct = pos["sizes"], pos["layers"]
    pos_by_layer = correct.mean(axis=1).tolist()
    pos_best, pos_next, _ = _peak(pos_by_layer)
    mft = pos["most_frequent_tag"]
    baseline = pos_baseline_claim(corpus_name, pos_by_layer, float(mft.mean()),
                                  bootstrap_spread(_per_sentence(correct[pos_best].astype(float) - mft, sizes), sizes))
    if measured is None:
        return [not_measured(f"{LAYERS} ({corpus_name})", "08", "no sense probe on the Chinese probe file's test "
                                                                "split (see the sense claim's row)"), baseline]
    words, sense_layers = measured["words"], measured["layers"]
    sense_by_layer = [_word_mean(scores, words) for scores in sense_layers]
    sense_best, sense_next, _ = _peak(sense_by_layer)
    pos_difference = _per_sentence(correct[pos_best].astype(float) - correct[pos_next], sizes)
    return [layer_claim(corpus_name, pos_by_layer, sense_by_layer, bootstrap_spread(pos_difference, sizes),
                        bootstrap_spread(sense_layers[sense_best] - sense_layers[sense_next], strata=words)),
            baseline]


def _probe_file(language: str) -> Path | None:
    """The probe file of a language: ``course/data/probes/<language>_*.tsv`` (the first, by name)."""
    found = sorted((data_dir() / "probes").glob(f"{language}_*.tsv"))
    return found[0] if found else None


def _test_split(language: str):
    """``(probe file, its test split)``; raises ProbeFileError when there is none."""
    from .errors import ProbeFileError
    from .probes import read_probes

    path = _probe_file(language)
    if path is None:
        raise ProbeFileError(f"no probe file {data_dir() / 'probes'}/{language}_*.tsv")
    return path, read_probes(path, split="test")


def _bag_vectors(model, probes, language: str, skipgram, skipgram_path: Path, profile: str):
    """``(static vectors for the bag of context or None, whose they are, why there are none)``."""
    from .vectors import keyed_vectors

    if skipgram is not None:
        return skipgram, "skip-gram", ""
    if language == "zh":  # no build saves Chinese skip-gram vectors: the biLM's own layer 0 stands in
        vocabulary = sorted({token for probe in probes for token in probe.tokens})
        return keyed_vectors(vocabulary, model.token_vectors(vocabulary)), "the biLM's layer-0 vectors", ""
    if skipgram_path.is_file():
        return None, "skip-gram", f"{_shown(skipgram_path)} cannot be read (cut short?): run notebook 02 again"
    return None, "skip-gram", f"no {_shown(skipgram_path)}: {_remedy(profile)} (notebook 02 saves it)"


def _saved_vectors(path: Path):
    """The vectors a build saved at ``path``, or None when there are none or they cannot be read (the rows
    that need them say which)."""
    from .vectors import load_vectors

    try:
        return load_vectors(path) if path.is_file() else None
    except CourseError:
        return None


def measure_claims(profile: str | None = None, device: str = "auto", progress: bool = False,
                   notebooks: Sequence[str] | None = None) -> list[Claim]:
    """Measure every claim on the models a build saved in ``models_dir(profile)``.

    Kneser-Ney models are counted again on each biLM's split (seconds), the sense probes run on
    the probe files' test split only, the untrained control with seeds 1-5, and the POS probe on
    1,500 People's Daily sentences (100 in the smoke profile), as notebook 08 does. A claim whose
    model or file is missing, or cannot be read, is a row that says so.

    Args:
        profile: ``"full"`` or ``"smoke"`` (default: ``$COURSE_PROFILE``, else full).
        device: where the biLMs run.
        progress: say on standard error what is being measured.
        notebooks: only the rows of these notebooks (``("07",)``: what notebook 07 prints), and
            only what they need is measured; default: all.

    Raises:
        SettingError: ``device`` names a GPU this machine does not have.
        ModelFileError: the folder holds none of the files a build saves (nothing was built).
    """
    from .devices import resolve_device
    from .elmo import Elmo

    resolve_device(device)  # no CUDA: say so at once, not only when a model is loaded
    profile = resolve_profile(profile)
    folder = models_dir(profile)
    if not any((folder / name).is_file() for name in BUILD_FILES):
        raise ModelFileError(f"{_shown(folder)} holds no trained models: build the course first with make course"
                             f"{' PROFILE=smoke' if profile == 'smoke' else ''} (or python -m course build "
                             f"--profile {profile})")

    def wanted(notebook: str) -> bool:
        return notebooks is None or notebook in notebooks

    def say(message: str) -> None:
        if progress:
            print(f"claims: {message}", file=sys.stderr, flush=True)

    language_rows, sense_rows, static, measured, models = [], [], {}, {}, {}
    for corpus_name, (language, notebook) in CORPORA.items():
        path = folder / f"elmo-cpu-{corpus_name}.pt"
        skipgram_path = folder / f"skipgram-neg-{corpus_name}.txt"
        measured[corpus_name] = None
        try:
            probe_file, probes = _test_split(language)
        except CourseError as exc:
            probe_file, probes, probe_error = None, None, str(exc)
        skipgram = _saved_vectors(skipgram_path)
        if skipgram is not None and probes is not None:
            figures = _skipgram_static(skipgram, probes)
            if figures is not None:
                static[f"skip-gram ({corpus_name})"] = figures
        try:
            if not path.is_file():
                raise ModelFileError(f"no {_shown(path)}: {_remedy(profile)} (notebook {notebook} saves it)")
            say(f"loading {_shown(path)} ...")
            model = models[corpus_name] = Elmo.load(path, device=device)
        except CourseError as exc:
            language_rows.append(not_measured(f"{LANGUAGE_MODEL} ({corpus_name})", LM_NOTEBOOK[corpus_name], str(exc)))
            sense_rows.append(not_measured(f"{SENSES} ({corpus_name})", "07", str(exc)))
            continue
        try:
            if wanted(LM_NOTEBOOK[corpus_name]):
                language_rows.append(_language_model_row(corpus_name, model, profile, say))
        except CourseError as exc:  # the corpus could not be read
            language_rows.append(not_measured(f"{LANGUAGE_MODEL} ({corpus_name})", LM_NOTEBOOK[corpus_name], str(exc)))
        if not (wanted("07") or (wanted("08") and corpus_name == "peoples-daily-zh")
                or (wanted("11") and corpus_name == "wiki-en")):
            continue
        if probes is None:
            sense_rows.append(not_measured(f"{SENSES} ({corpus_name})", "07", probe_error))
            continue
        say(f"sense probes on {probe_file.name} (test split), untrained with seeds {UNTRAINED_SEEDS[0]}-"
            f"{UNTRAINED_SEEDS[-1]} ...")
        bag, bag_source, missing = _bag_vectors(model, probes, language, skipgram, skipgram_path, profile)
        result = measured[corpus_name] = _sense_measurement(model, probes, bag)
        static[f"biLM layer 0 ({corpus_name})"] = {
            "knn_accuracy": _word_mean(result["layers"][0], result["words"]), "separation": result["separation"],
            "chance": _word_mean(result["chance"], result["words"])}
        sense_rows.append(_sense_row(corpus_name, result, probe_file, bag_source, missing))
    static_row = (static_vector_claim(static) if static else
                  not_measured(STATIC, "07", "no biLM and no skip-gram vectors to probe (see the rows above)"))
    tagged = "peoples-daily-zh"
    try:
        if not wanted("08"):
            layer_rows = []
        elif tagged not in models:  # why: the language model row of that corpus says it
            raise ModelFileError(next(row.verdict for row in language_rows
                                      if row.claim.endswith(f"({tagged})")).split(": ", 1)[1])
        else:
            layer_rows = _layer_rows(tagged, models[tagged], measured[tagged], profile, say)
    except CourseError as exc:
        layer_rows = [not_measured(f"{LAYERS} ({tagged})", "08", str(exc)),
                      not_measured(f"{POS_BASELINE} ({tagged})", "08", str(exc))]
    transfer_rows = (_saved_rows(folder, NER_CURVE, "09", (FEW_LABELS, CONTEXTUAL, FINE_TUNING), transfer_claims)
                     if wanted("09") else [])
    ulmfit_rows = (_saved_rows(folder, ULMFIT_CURVE, "10", (PRETRAINED_LM, TARGET_DOMAIN, LM_FINE_TUNING, BAG_OF_WORDS),
                               ulmfit_claims) if wanted("10") else [])
    transformer_rows = _transformer_rows(folder, profile, device, measured.get("wiki-en"), say) if wanted("11") else []
    rows = [*language_rows, static_row, *sense_rows, *layer_rows, *transfer_rows, *ulmfit_rows, *transformer_rows]
    return [row for row in rows if notebooks is None or any(n in row.notebook for n in notebooks)]


def _transformer_rows(folder: Path, profile: str, device: str, elmo_measured: dict | None, say) -> list[Claim]:
    """Notebook 11's rows: speed and both sides from its saved results, fine-tuning's gain from its and notebook
    09's taggers, the sense rule on its saved models."""
    import json

    from .transformer import Transformer

    rows = _saved_rows(folder, TRANSFORMER_RESULTS, "11", (TRANSFORMER_SPEED, BOTH_SIDES), transformer_claims)
    try:
        files = [folder / name for name in (NER_CURVE, TRANSFORMER_RESULTS)]
        absent = [path for path in files if not path.is_file()]
        if absent:
            raise ModelFileError(f"no {_shown(absent[0])}: run notebook 11 (it saves BERT's taggers) and notebook 09 "
                                 "(the biLM's)")
        ner_rows, results = (json.loads(path.read_text(encoding="utf-8")) for path in files)
        rows.append(fine_tuning_gain_claim(ner_rows, results["ner"]))
    except CourseError as exc:
        rows.append(not_measured(FINE_TUNING_GAIN, "11", str(exc)))
    except (ValueError, KeyError, TypeError) as exc:
        rows.append(not_measured(FINE_TUNING_GAIN, "11", f"a saved file is damaged ({type(exc).__name__}): run "
                                                          "notebooks 09 and 11 again"))
    for prefix, name in TRANSFORMERS.items():
        claim, path = f"{TRANSFORMER_SENSES} ({name}, wiki-en)", folder / f"{prefix}-wiki-en.pt"
        try:
            if not path.is_file():
                raise ModelFileError(f"no {_shown(path)}: run notebook 11 (it trains and saves it)")
            probe_file, probes = _test_split("en")
            model = Transformer.load(path, device=device)
            say(f"sense probes of {_shown(path)}, untrained with seeds {UNTRAINED_SEEDS[0]}-{UNTRAINED_SEEDS[-1]} ...")
            skipgram_path = folder / "skipgram-neg-wiki-en.txt"
            skipgram = _saved_vectors(skipgram_path)
            bag, bag_source, missing = _bag_vectors(model, probes, "en", skipgram, skipgram_path, profile)
            measured = _sense_measurement(model, probes, bag)
            rows.append(_transformer_sense_row(name, measured, None if elmo_measured is None else
                                               elmo_measured["layers"], probe_file, bag_source, missing))
        except CourseError as exc:
            rows.append(not_measured(claim, "11", str(exc)))
    return rows


def claims_json(rows: Sequence[Claim]) -> list[dict]:
    """The rows as plain dictionaries (for ``--json`` and the build's ``summary.json``)."""
    return [asdict(row) for row in rows]
