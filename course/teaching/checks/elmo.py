"""Checks of the ELMo assignments (notebooks 07 and 08): the sense 1-NN probe and the scalar mix."""

from __future__ import annotations

import warnings
from itertools import product

import numpy as np

from ...analysis.probes import sense_probe
from ...core.edition import text
from .harness import (
    GENERIC,
    TORCH_ATOL,
    CheckFailed,
    answer_number,
    call_answer,
    close_to,
    compares_with,
    describe,
    how_many,
    say_right,
    sentence_at,
    span_of,
    start_check,
    trial_inputs,
    worst_difference,
)

# ---------------------------------------------------------------------------- sense 1-NN probe


def _knn_accuracy(similarity: np.ndarray, labels: np.ndarray, leave_out: bool = True,
                  largest: bool = True) -> float:
    """Share of rows whose most similar (``largest``) column has the row's label; ``(n, n)``, ``(n,)``."""
    similarity = similarity.copy() if largest else -similarity
    if leave_out:
        np.fill_diagonal(similarity, -np.inf)
    return float((labels[similarity.argmax(1)] == labels).mean())


def _sense_case(rng: np.random.Generator, n: int) -> tuple[np.ndarray, list[str]]:
    """``(n, d)`` vectors and n sense labels: directions by sense, lengths spread over 2.5 orders of magnitude,
    so cosine and Euclidean distance disagree; every occurrence's nearest neighbour stands clear."""
    names = ("river", "money", "rely")
    if n <= 3:
        labels = np.asarray(list(names[:2]) + list(names[: n - 2]))
        return rng.normal(size=(n, 4)) * np.exp(rng.normal(0, 1.5, (n, 1))), list(labels)
    for _ in range(100):
        d, senses = int(rng.integers(2, 17)), int(rng.integers(2, 4))
        labels = np.asarray(names)[rng.integers(0, senses, n)]
        if len(set(labels)) < 2:
            continue
        directions = dict(zip(names, rng.normal(size=(3, d)), strict=True))
        noisy = np.stack([directions[label] for label in labels]) + rng.normal(0, rng.uniform(0.5, 1.5), (n, d))
        vectors = noisy / np.linalg.norm(noisy, axis=1, keepdims=True) * np.exp(rng.uniform(-3, 3, (n, 1)))
        cosines = _cosines(vectors)
        np.fill_diagonal(cosines, -np.inf)
        top_two = np.sort(cosines, axis=1)[:, -2:]
        reference = _knn_accuracy(_cosines(vectors), labels)
        if (np.all(top_two[:, 1] - top_two[:, 0] > 1e-4) and 0 < reference < 1
                and _knn_accuracy(-_squared_distances(vectors), labels) != reference):
            break
    return vectors, list(labels)


def _cosines(vectors: np.ndarray) -> np.ndarray:
    unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    return unit @ unit.T


def _squared_distances(vectors: np.ndarray) -> np.ndarray:
    return ((vectors[:, None, :] - vectors[None, :, :]) ** 2).sum(-1)


@compares_with("course.analysis.probes:sense_probe", "course.claims.scores:sense_scores")
def check_sense_knn_accuracy(function, *, seed: int | None = None, trials: int = 20) -> None:
    """Check ``function(vectors, senses) -> accuracy``.

    Inputs: ``vectors`` ``(n, d)`` one vector per occurrence of a word, ``senses`` a list of n labels.
    Expected: a float in [0, 1], the leave-one-out 1-nearest-neighbour accuracy with cosine similarity:
    each occurrence takes the sense of its most similar OTHER occurrence (``knn_accuracy`` of
    :func:`course.analysis.probes.sense_probe`).
    """
    rng, failures = start_check(function, "sense_knn_accuracy", seed, trials)
    sizes = trial_inputs(trials, [2, 3], lambda: int(rng.integers(6, 41)))
    for n in sizes:
        vectors, senses = _sense_case(rng, n)
        where = text("check knn where", occurrences=how_many(n, "occurrence"), d=vectors.shape[1],
                     senses=len(set(senses)))
        result = call_answer(function, (vectors.copy(), list(senses)),
                             shapes=text("check knn shapes", shape=vectors.shape, n=n))
        accuracy = answer_number(result, text("check knn the accuracy"), where)
        reference = _sense_reference(vectors, senses)
        if not close_to(accuracy, reference):
            failures.add(where, _sense_findings(vectors, np.asarray(senses), accuracy, reference))
    failures.raise_if_any()
    say_right(text("check knn right", trials=trials, span=span_of(sizes)))


def _sense_reference(vectors: np.ndarray, senses: list[str]) -> float:
    """``knn_accuracy`` of :func:`course.analysis.probes.sense_probe` (quietly: its other figure may average
    nothing)."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        return sense_probe(vectors, senses)["knn_accuracy"]


def _sense_findings(vectors, labels, accuracy, reference) -> list[tuple[str, str]]:
    n = len(labels)
    got = text("check knn got", got=accuracy, expected=reference)
    candidates = [
        ("leave", _knn_accuracy(_cosines(vectors), labels, leave_out=False), text("check knn itself", got=got)),
        ("cosine", _knn_accuracy(-_squared_distances(vectors), labels), text("check knn euclidean", got=got)),
        ("cosine", _knn_accuracy(vectors @ vectors.T, labels), text("check knn dot", got=got)),
        ("largest", _knn_accuracy(_cosines(vectors), labels, largest=False), text("check knn least", got=got)),
        ("fraction", reference * n, text("check knn count", got=accuracy, n=n, expected=reference)),
    ]
    findings = [(key, message) for key, value, message in candidates if close_to(accuracy, value)]
    if accuracy == 1.0 and reference < 1 and not any(key == "leave" for key, _ in findings):
        findings.append(("fact:leave", text("check knn found itself", expected=reference)))
    if not 0 <= accuracy <= 1:
        findings.append(("fact:range", text("check knn range", got=got)))
    return findings + [(GENERIC, text("check knn differs", got=got))]


# ---------------------------------------------------------------------------------- scalar mix


@compares_with(
    "course.elmo.scalar_mix:ScalarMix.forward",
    "course.elmo.scalar_mix:ScalarMix.weights",
    "course.elmo.scalar_mix:_normalise",
)
def check_scalar_mix(function, *, seed: int | None = None, trials: int = 20) -> None:
    """Check ``function(layers, s, gamma) -> mixed``.

    Inputs (torch float32): ``layers`` ``(L, n, d)``, ``s`` ``(L,)`` unnormalised layer weights and
    ``gamma`` a 0-dim tensor, both requiring gradients. Expected: the ``(n, d)`` tensor
    gamma · Σ_j softmax(s)_j layers_j (:class:`course.elmo.scalar_mix.ScalarMix` without layer norm),
    with gradients reaching s and gamma.
    """
    import torch

    from ...elmo.scalar_mix import ScalarMix

    rng, failures = start_check(function, "scalar_mix", seed, trials)
    sizes = trial_inputs(trials, [(1, 1, 1), (2, 1, 3), (3, 4, 2)],
                         lambda: (int(rng.integers(2, 6)), int(rng.integers(1, 11)), int(rng.integers(1, 17))))
    for layers_count, n, d in sizes:
        layers_np = rng.normal(size=(layers_count, n, d))
        s_np, gamma_np = rng.normal(0, 1, layers_count), rng.uniform(0.5, 2.0)
        while abs(s_np.sum()) < 0.2:  # s / s.sum() (a mistake to recognise) would be float32 noise
            s_np = rng.normal(0, 1, layers_count)
        upstream = torch.from_numpy(rng.normal(size=(n, d)))  # d loss / d mixed, for the gradients
        where = f"L={layers_count}, n={n}, d={d}"
        layers = torch.tensor(layers_np, dtype=torch.float32)
        s = torch.tensor(s_np, dtype=torch.float32, requires_grad=True)
        gamma = torch.tensor(gamma_np, dtype=torch.float32, requires_grad=True)
        # the reference sees the same float32 values, in float64
        layers_np, s_np, gamma_np = layers.double().numpy(), s.detach().double().numpy(), float(gamma.detach())
        mixed = call_answer(function, (layers, s, gamma), shapes=f"layers {(layers_count, n, d)}, s {(layers_count,)}, "
                                                           "gamma ()")
        if not isinstance(mixed, torch.Tensor):
            raise CheckFailed(sentence_at(text("check mix not a tensor", got=describe(mixed)), where))
        if tuple(mixed.shape) != (n, d):
            hint = text("check mix sum over j") if tuple(mixed.shape) == (layers_count, n, d) else ""
            raise CheckFailed(sentence_at(text("check mix shape", wanted=(n, d), shape=tuple(mixed.shape), hint=hint),
                                          where))
        mix = ScalarMix(layers_count, initial_weights=s_np, initial_gamma=gamma_np).double()
        with torch.no_grad():  # the float64 copy keeps every digit of s and gamma
            mix.scalar_parameters.copy_(torch.from_numpy(s_np))
            mix.gamma.copy_(torch.tensor(gamma_np, dtype=torch.float64))
        reference = mix(torch.from_numpy(layers_np))
        value = mixed.detach().double().numpy()
        if not close_to(value, reference.detach().numpy(), TORCH_ATOL):
            failures.add(where, _mix_findings(layers_np, s_np, gamma_np, value, reference.detach().numpy()))
            continue
        (reference * upstream).sum().backward()
        findings = _mix_gradient_findings(mixed, s, gamma, upstream, mix)
        if findings:
            failures.add(where, findings)
    failures.raise_if_any()
    say_right(text("check mix right", trials=trials, layers=span_of([size[0] for size in sizes]),
                   n=span_of([size[1] for size in sizes])))


def _mix_findings(layers, s, gamma, value, reference) -> list[tuple[str, str]]:
    softmax = np.exp(s - s.max()) / np.exp(s - s.max()).sum()
    weightings = [
        ("", softmax, None),
        ("softmax", s, text("check mix s as weights")),
        ("softmax", s / s.sum(), text("check mix s over its sum")),
        ("softmax", np.exp(s), text("check mix half a softmax")),
        ("ignores s", np.full(len(s), 1 / len(s)), text("check mix ignores s")),
        ("weights", np.ones(len(s)), text("check mix no weights")),
    ]
    findings = []
    for (key, weights, wrong), with_gamma in product(weightings, (True, False)):
        parts = [part for part in (wrong, None if with_gamma else text("check mix no gamma")) if part]
        mixed = (gamma if with_gamma else 1.0) * np.tensordot(weights, layers, axes=1)
        if parts and close_to(value, mixed, TORCH_ATOL * max(1.0, float(np.abs(mixed).max()))):
            keys = "+".join(k for k in (key, "" if with_gamma else "gamma") if k)
            findings.append((keys, text("check mix yours", parts=text("check mix and").join(parts))))
    return findings + [(GENERIC, text("check mix differs", worst=worst_difference(value, reference)))]


def _mix_gradient_findings(mixed, s, gamma, upstream, mix) -> list[tuple[str, str]]:
    """Whether the gradients of (mixed · upstream).sum() reach s and gamma and match ``mix``'s (already computed)."""
    detached = ("gradient", text("check mix detached"))
    if not mixed.requires_grad:
        return [detached]
    (mixed.double() * upstream).sum().backward()
    findings = []
    for name, tensor, reference in (("s", s, mix.scalar_parameters.grad), ("gamma", gamma, mix.gamma.grad)):
        if tensor.grad is None:
            findings.append((f"gradient:{name}", text("check mix no gradient", name=name)))
        elif not close_to(tensor.grad.double().numpy(), reference.numpy(), TORCH_ATOL * reference.numel()):
            grad, wanted = tensor.grad.double().numpy().reshape(-1), reference.numpy().reshape(-1)
            findings.append((f"gradient:{name}", text("check mix wrong gradient", name=name,
                                                      worst=worst_difference(grad, wanted))))
    return findings
