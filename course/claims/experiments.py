"""What claims 5-7 assert and when they hold, judged on the rows notebooks 09, 10 and 11 save: the
transfer learning curve (entity F1 per input, labels and seed), ULMFiT's comparison (test error per
variant, labels and seed), the Transformer's timed training steps and the blanks it fills in.
Differences are paired by seed; their spread is half their range over the seeds (the blanks: a bootstrap).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from .row import (
    BAG_OF_WORDS,
    BOTH_SIDES,
    CONTEXTUAL,
    FEW_LABELS,
    FINE_TUNING,
    FINE_TUNING_GAIN,
    LM_FINE_TUNING,
    PRETRAINED_LM,
    TARGET_DOMAIN,
    TRANSFORMER_SPEED,
    Claim,
    Phrase,
    _judge,
    joined,
    not_measured,
)
from .scores import bootstrap_spread

ULMFIT = "ULMFiT (1+2+3)"

STATIC_INPUTS = ("word2vec", "glove")


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
        return not_measured(FEW_LABELS, "09", Phrase("claims no learned or pretrained input"))
    counts = sorted(set(curve["learned"]).intersection(*(curve[name] for name in pretrained)))
    if len(counts) < 2:
        return not_measured(FEW_LABELS, "09", Phrase("claims two numbers of labels"))
    few, most = counts[0], counts[-1]
    gains = {name: (_paired(curve, name, "learned", few), _paired(curve, name, "learned", most)) for name in pretrained}
    margins = {name: float(a.mean() - b.mean()) for name, (a, b) in gains.items()}
    spread = max(_half_range(a) + _half_range(b) for a, b in gains.values())
    margin = min(margins.values())
    shown = joined("claims semicolon", (Phrase("claims gain item", name=name, few_gain=a.mean(), few=few,
                                               most_gain=b.mean(), most=most) for name, (a, b) in gains.items()))
    return Claim(FEW_LABELS, "09", Phrase("claims few labels measurement", shown=shown),
                 Phrase("claims few labels controls", seeds=_seeds(curve)), margin, spread, _judge(margin, spread))


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
        return not_measured(CONTEXTUAL, "09", Phrase("claims no elmo or static input"))
    margin, spread, shown = _at_every_count(curve, "elmo", static)
    return Claim(CONTEXTUAL, "09", Phrase("claims contextual measurement", static=joined("claims and", static),
                                          shown=shown),
                 Phrase("claims contextual controls", static=joined("claims and", static), seeds=_seeds(curve)),
                 margin, spread, _judge(margin, spread))


def fine_tuning_claim(rows: Sequence[Mapping]) -> Claim:
    """The biLM fine-tuned with the tagger against its frozen layers as features."""
    curve = _curve(rows)
    if "elmo" not in curve or "elmo-finetuned" not in curve:
        return not_measured(FINE_TUNING, "09", Phrase("claims no fine-tuned or feature input"))
    margin, spread, shown = _at_every_count(curve, "elmo-finetuned", "elmo")
    return Claim(FINE_TUNING, "09", Phrase("claims fine-tuning measurement", shown=shown),
                 Phrase("claims fine-tuning controls", seeds=_seeds(curve)), margin, spread, _judge(margin, spread))


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
        return not_measured(FINE_TUNING_GAIN, "11", Phrase("claims no rows of", names=", ".join(missing)))
    counts = sorted(set.intersection(*(set(curve[name]) for name in wanted)))
    if not counts:
        return not_measured(FINE_TUNING_GAIN, "11", Phrase("claims never on the same labels"))
    labels = counts[0]
    seeds = sorted(set.intersection(*(set(curve[name][labels]) for name in wanted)))
    if not seeds:
        return not_measured(FINE_TUNING_GAIN, "11", Phrase("claims no seed ran every input", labels=labels))
    gain = {model: np.array([curve[f"{model}-finetuned"][labels][seed] - curve[model][labels][seed] for seed in seeds])
            for model in ("bert", "elmo")}
    difference = gain["bert"] - gain["elmo"]
    margin, spread = float(difference.mean()), _half_range(difference)
    return Claim(FINE_TUNING_GAIN, "11",
                 Phrase("claims gain measurement", labels=labels, gain=gain["bert"].mean()),
                 Phrase("claims gain controls", seeds=", ".join(map(str, seeds)), gain=gain["elmo"].mean()),
                 margin, spread, _judge(margin, spread))


def transfer_claims(rows: Sequence[Mapping]) -> list[Claim]:
    """The three rows of notebook 09 from its learning curve's rows."""
    return [few_labels_claim(rows), contextual_claim(rows), fine_tuning_claim(rows)]


def _ulmfit_row(claim: str, curve, control: str, every_count: bool, controls: str) -> Claim:
    """ULMFiT against ``control``: the control's test error minus ULMFiT's, paired by seed, at the fewest
    labels both ran (or at every count, margin the smallest); ``controls`` the catalogue's key of what the
    control is."""
    missing = [name for name in (ULMFIT, control) if name not in curve]
    if missing:
        return not_measured(claim, "10", Phrase("claims comparison lacks", missing=joined("claims and no",
                                                                                           map(repr, missing))))
    counts = sorted(set(curve[ULMFIT]) & set(curve[control]))
    if not counts:
        return not_measured(claim, "10", Phrase("claims never on the same number", ulmfit=repr(ULMFIT),
                                                control=repr(control)))
    differences = {count: _paired(curve, ULMFIT, control, count) for count in (counts if every_count else counts[:1])}
    margin = min(float(d.mean()) for d in differences.values())
    spread = max(_half_range(d) for d in differences.values())
    errors = joined("claims semicolon", (Phrase("claims error item", count=count,
                                                ulmfit=-np.mean(list(curve[ULMFIT][count].values())), control=control,
                                                error=-np.mean(list(curve[control][count].values())))
                                         for count in differences))
    return Claim(claim, "10", Phrase("claims ulmfit measurement", errors=errors,
                                     lower=", ".join(f"{d.mean():+.3f}" for d in differences.values())),
                 Phrase("claims ulmfit controls", controls=Phrase(controls), seeds=_seeds(curve)), margin, spread,
                 _judge(margin, spread))


def ulmfit_claims(rows: Sequence[Mapping]) -> list[Claim]:
    """The four rows of notebook 10 from its comparison's rows (``variant``, ``labels``, ``seed``, ``error``)."""
    curve = _curve(rows, name="variant", score="error", sign=-1.0)
    return [_ulmfit_row(PRETRAINED_LM, curve, "from scratch", False, "claims ulmfit from scratch"),
            _ulmfit_row(TARGET_DOMAIN, curve, "stages 1+3", False, "claims ulmfit no stage 2"),
            _ulmfit_row(LM_FINE_TUNING, curve, "ELMo features", True, "claims ulmfit elmo features"),
            _ulmfit_row(BAG_OF_WORDS, curve, "bag of words", False, "claims ulmfit bag of words")]


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
        return not_measured(TRANSFORMER_SPEED, "11", Phrase("claims no timed steps"))
    margin = min(float(np.median(r)) - 1 for r in body.values())
    spread = max(_half_range(r) for r in body.values())

    def shown(by_length: dict) -> str:
        return ", ".join(f"{np.median(r):.2f}x ({length})" for length, r in by_length.items())

    whole_text = Phrase("claims speed whole", shown=shown(whole)) if whole else ""
    return Claim(TRANSFORMER_SPEED, "11", Phrase("claims speed measurement", shown=shown(body), whole=whole_text),
                 Phrase("claims speed controls"), margin, spread, _judge(margin, spread))


def both_sides_claim(rows: Sequence[Mapping], at: str = "correct_at_5") -> Claim:
    """BERT against the stronger of GPT and CBOW on the same blanks (``model``, ``blank``, ``correct_at_5``)."""
    answers: dict[str, dict[int, float]] = {}
    for row in rows:
        answers.setdefault(row["model"], {})[int(row["blank"])] = float(row[at])
    controls = [name for name in ("GPT", "CBOW") if name in answers]
    if "BERT" not in answers or not controls:
        return not_measured(BOTH_SIDES, "11", Phrase("claims blanks not answered"))
    blanks = sorted(set(answers["BERT"]).intersection(*(answers[name] for name in controls)))
    accuracy = {name: float(np.mean([answers[name][b] for b in blanks])) for name in ("BERT", *controls)}
    strongest = max(controls, key=accuracy.get)
    differences = np.array([answers["BERT"][b] - answers[strongest][b] for b in blanks])
    margin = float(differences.mean())
    spread = bootstrap_spread(differences)
    return Claim(BOTH_SIDES, "11", Phrase("claims blanks measurement", blanks=len(blanks), accuracy=accuracy["BERT"]),
                 Phrase("claims blanks controls", controls=joined("claims comma", (f"{name} {accuracy[name]:.3f}"
                                                                                   for name in controls)),
                        strongest=strongest), margin, spread, _judge(margin, spread))


def transformer_claims(results: Mapping) -> list[Claim]:
    """The two rows of notebook 11 that its saved results give (speed, both sides)."""
    return [speed_claim(results["throughput"]), both_sides_claim(results["fill_in"])]
