"""Checks of the transfer assignments (notebooks 09 and 10): entity spans from BIO labels, entity F1, and
ULMFiT's slanted triangular and discriminative learning rates."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ...core.edition import text
from .harness import (
    GENERIC,
    CheckFailed,
    answer_array,
    answer_number,
    call_answer,
    close_to,
    compares_with,
    describe,
    how_many,
    say_right,
    sentence_at,
    start_check,
    trial_inputs,
)

# ------------------------------------------------------------------------------ named entities

ENTITY_KINDS = ("PER", "LOC", "ORG")


def _random_labels(rng: np.random.Generator, length: int, well_formed: bool) -> list[str]:
    """A BIO sequence; unless ``well_formed``, with ``I-`` after ``O`` and type changes inside a run."""
    labels = []
    for _ in range(length):
        draw = rng.random()
        if draw < 0.45:
            labels.append("O")
        elif labels and labels[-1] != "O" and draw < 0.8:
            kind = labels[-1][2:] if well_formed or rng.random() < 0.7 else str(rng.choice(ENTITY_KINDS))
            labels.append("I-" + kind)
        else:
            prefix = "B-" if well_formed or rng.random() < 0.7 else "I-"
            labels.append(prefix + str(rng.choice(ENTITY_KINDS)))
    return labels


def _spans_as_tuples(value, where: str) -> list[tuple[str, int, int]]:
    if not isinstance(value, list | tuple):
        raise CheckFailed(sentence_at(text("check spans returns", got=describe(value)), where))
    out = []
    for item in value:
        if not isinstance(item, list | tuple) or len(item) != 3:
            raise CheckFailed(sentence_at(text("check spans item", item=item), where))
        kind, start, end = item
        try:
            out.append((str(kind), int(start), int(end)))
        except (TypeError, ValueError):
            raise CheckFailed(sentence_at(text("check spans whole numbers", item=item), where)) from None
    return out


def _strict_spans(labels) -> list[tuple[str, int, int]]:
    """Only the entities that begin with ``B-`` (an ``I-`` run that continues nothing is dropped)."""
    from ...tasks.ner import entity_spans

    return [span for span in entity_spans(labels) if labels[span[1]].startswith("B-")]


def _typeless_spans(labels) -> list[tuple[str, int, int]]:
    """Runs of non-O labels, a ``B-`` starting a new one, whatever the types."""
    from ...tasks.ner import entity_spans

    plain = [label if label == "O" else label[:2] + "X" for label in labels]
    return [(labels[start][2:], start, end) for _, start, end in entity_spans(plain)]


def _span_findings(labels, spans, reference) -> list[tuple[str, str]]:
    findings = []
    if spans == [(kind, start, end - 1) for kind, start, end in reference]:
        findings.append(("inclusive", text("check spans inclusive")))
    if spans == _strict_spans(labels) != reference:
        findings.append(("strict", text("check spans strict")))
    if spans == _typeless_spans(labels) != reference:
        findings.append(("types", text("check spans types")))
    findings.append((GENERIC, text("check spans differ", labels=labels, reference=reference, spans=spans)))
    return findings


@compares_with("course.tasks.ner:entity_spans")
def check_entity_spans(function, *, seed: int | None = None, trials: int = 40) -> None:
    """Check ``function(labels) -> [(type, start, end), ...]``.

    Inputs: a list of BIO labels (``"O"``, ``"B-PER"``, ``"I-LOC"``, ...), well-formed or not.
    Expected: :func:`course.tasks.ner.entity_spans`: each entity's type, first position and the position
    after its last, in order; an entity starts at ``B-X`` or at an ``I-X`` that continues no entity
    of type X.
    """
    from ...tasks.ner import entity_spans

    rng, failures = start_check(function, "entity_spans", seed, trials)
    edges = [[], ["O", "I-PER", "I-PER"], ["B-PER", "I-PER", "O", "B-ORG", "B-ORG"], ["B-PER", "I-LOC"]]
    cases = trial_inputs(trials, edges, lambda: _random_labels(rng, int(rng.integers(1, 16)), bool(rng.random() < 0.5)))
    for labels in cases:
        where = text("check spans where", labels=labels)
        spans = _spans_as_tuples(call_answer(function, (list(labels),),
                                             shapes=text("check spans shapes", n=len(labels))),
                                 where)
        reference = entity_spans(labels)
        if spans != reference:
            failures.add(where, _span_findings(labels, spans, reference))
    failures.raise_if_any()
    say_right(text("check spans right", trials=trials))


def _micro_scores(gold_spans, predicted_spans) -> tuple[float, float, float]:
    from ...tasks.ner import entity_scores_from_counts

    right = sum(len(set(g) & set(p)) for g, p in zip(gold_spans, predicted_spans, strict=True))
    return entity_scores_from_counts(right, sum(map(len, predicted_spans)), sum(map(len, gold_spans)))


def _f1_findings(gold, predicted, value, reference) -> list[tuple[str, str]]:
    from ...tasks.ner import entity_spans

    findings = []
    tokens = [(g == p) for gs, ps in zip(gold, predicted, strict=True) for g, p in zip(gs, ps, strict=True)
              if g != "O" or p != "O"]
    if tokens and np.isclose(value[2], np.mean(tokens)):
        findings.append(("tokens", text("check f1 tokens")))
    typeless = _micro_scores([[(0, s, e) for _, s, e in entity_spans(g)] for g in gold],
                             [[(0, s, e) for _, s, e in entity_spans(p)] for p in predicted])
    if np.allclose(value, typeless) and not np.allclose(typeless, reference):
        findings.append(("types", text("check f1 types")))
    precision, recall = reference[0], reference[1]
    if np.allclose(value[:2], [recall, precision]) and not np.isclose(precision, recall):
        findings.append(("swapped", text("check f1 swapped")))
    findings.append((GENERIC, text("check f1 differs", p=reference[0], r=reference[1], f=reference[2], your_p=value[0],
                                   your_r=value[1], your_f=value[2])))
    return findings


@compares_with("course.tasks.ner:entity_spans", "course.tasks.ner:entity_scores_from_counts")
def check_entity_f1(function, *, seed: int | None = None, trials: int = 30) -> None:
    """Check ``function(gold, predicted) -> (precision, recall, f1)``.

    Inputs: two lists of label sequences, sentence by sentence of equal lengths. Expected: entity
    precision, recall and F1 over all sentences together (micro-averaged, as ``seqeval`` and the
    CoNLL script give them): an entity counts as found only when its type and both ends match; 0
    where there is nothing to divide by.
    """
    from ...tasks.ner import entity_spans

    rng, failures = start_check(function, "entity_f1", seed, trials)
    edges = [([["O", "O"]], [["O", "O"]]), ([["B-PER", "I-PER", "B-LOC"]], [["B-PER", "O", "B-ORG"]])]

    def draw():
        gold = [_random_labels(rng, int(rng.integers(1, 12)), True) for _ in range(int(rng.integers(1, 6)))]
        predicted = [[label if rng.random() < 0.75 else str(rng.choice(["O", "B-PER", "I-PER", "B-LOC", "I-ORG"]))
                      for label in sentence] for sentence in gold]
        return gold, predicted

    for gold, predicted in trial_inputs(trials, edges, draw):
        where = text("check f1 where", gold=gold, predicted=predicted)
        result = call_answer(function, ([list(s) for s in gold], [list(s) for s in predicted]),
                             shapes=how_many(len(gold), "sentence"))
        if isinstance(result, Mapping):
            result = [result.get(key) for key in ("precision", "recall", "f1")]
        value = answer_array(result, "(precision, recall, f1)", (3,), "", where)
        reference = np.array(_micro_scores([entity_spans(g) for g in gold], [entity_spans(p) for p in predicted]))
        if not close_to(value, reference):
            failures.add(where, _f1_findings(gold, predicted, value, reference))
    failures.raise_if_any()
    say_right(text("check f1 right", trials=trials))


# ----------------------------------------------------------------------------- ULMFiT schedules


@compares_with("course.ulmfit.schedules:slanted_triangular")
def check_slanted_triangular(function, *, seed: int | None = None, trials: int = 40) -> None:
    """Check ``function(step, total_steps, max_rate, cut_frac, ratio) -> rate``.

    Expected: :func:`course.ulmfit.slanted_triangular`, ULMFiT's slanted triangular learning rate:
    cut = floor(T cut_frac), a linear rise from ``max_rate / ratio`` to ``max_rate`` at step cut,
    then a linear fall back to ``max_rate / ratio`` at step T.
    """
    from ...ulmfit.schedules import slanted_triangular

    rng, failures = start_check(function, "slanted_triangular", seed, trials)
    edges = [(0, 1_000, 0.01, 0.1, 32.0), (100, 1_000, 0.01, 0.1, 32.0), (1_000, 1_000, 0.01, 0.1, 32.0),
             (55, 1_000, 0.01, 0.1, 32.0), (7, 25, 0.5, 0.3, 8.0)]

    def draw():
        total = int(rng.integers(10, 5_000))
        return (int(rng.integers(0, total + 1)), total, float(rng.uniform(1e-4, 0.1)), float(rng.uniform(0.05, 0.5)),
                float(rng.uniform(2, 64)))

    for case in trial_inputs(trials, edges, draw):
        step, total, top, cut_frac, ratio = case
        where = text("check stlr where", step=step, total=total, top=top, cut_frac=cut_frac, ratio=ratio)
        answer = call_answer(function, case, shapes=text("check stlr shapes"))
        value = answer_number(answer, text("check stlr the rate"), where)
        reference = slanted_triangular(*case)
        if not close_to(value, reference, atol=1e-12):
            cut = max(1, int(total * cut_frac))
            findings = []
            if np.isclose(value, top * (step / cut if step < cut else 1 - (step - cut) / (cut * (1 / cut_frac - 1)))):
                findings.append(("no_ratio", text("check stlr no ratio")))
            if step >= cut and np.isclose(value, top * (1 + (step / cut) * (ratio - 1)) / ratio):
                findings.append(("no_fall", text("check stlr no fall")))
            findings.append((GENERIC, text("check stlr differs", value=value, reference=reference)))
            failures.add(where, findings)
    failures.raise_if_any()
    say_right(text("check stlr right", trials=trials))


@compares_with("course.ulmfit.schedules:discriminative_rates")
def check_discriminative_rates(function, *, seed: int | None = None, trials: int = 30) -> None:
    """Check ``function(top_rate, num_groups, factor) -> list of rates``, bottom group first.

    Expected: :func:`course.ulmfit.discriminative_rates`: the top group gets ``top_rate``, each
    group below it ``factor`` times less.
    """
    from ...ulmfit.schedules import discriminative_rates

    rng, failures = start_check(function, "discriminative_rates", seed, trials)
    edges = [(0.01, 4, 2.6), (0.01, 1, 2.6), (0.004, 3, 1.0)]

    def draw():
        return float(rng.uniform(1e-4, 0.1)), int(rng.integers(1, 8)), float(rng.uniform(1, 4))

    for case in trial_inputs(trials, edges, draw):
        top, groups, factor = case
        where = text("check rates where", top=top, groups=groups, factor=factor)
        reference = discriminative_rates(*case)
        value = answer_array(call_answer(function, case, shapes=text("check rates shapes")),
                             text("check rates the rates"),
                             (groups,), "(num_groups,)", where)
        if not close_to(value, reference, atol=1e-12):
            findings = []
            if close_to(value[::-1], reference, atol=1e-12):
                findings.append(("order", text("check rates order")))
            subtracted = [top - (groups - 1 - g) * top / factor for g in range(groups)]
            if groups > 1 and close_to(value, subtracted, atol=1e-12):
                findings.append(("subtract", text("check rates subtract")))
            findings.append((GENERIC, text("check rates differ", value=np.round(value, 6).tolist(),
                                           reference=np.round(reference, 6).tolist())))
            failures.add(where, findings)
    failures.raise_if_any()
    say_right(text("check rates right", trials=trials))
