"""Checks of the ELMo assignments (notebooks 07 and 08): the sense 1-NN probe and the scalar mix."""

from __future__ import annotations

import warnings
from itertools import product

import numpy as np

from ...analysis.probes import sense_probe
from .common import (
    GENERIC,
    TORCH_ATOL,
    CheckFailed,
    _call,
    _close,
    _count,
    _describe,
    _number,
    _right,
    _sentence,
    _sizes,
    _span,
    _start,
    _worst,
    compares_with,
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
    rng, failures = _start(function, "sense_knn_accuracy", seed, trials)
    sizes = _sizes(trials, [2, 3], lambda: int(rng.integers(6, 41)))
    for n in sizes:
        vectors, senses = _sense_case(rng, n)
        where = f"n={_count(n, 'occurrence')}, d={vectors.shape[1]}, {len(set(senses))} senses"
        result = _call(function, (vectors.copy(), list(senses)), shapes=f"vectors {vectors.shape}, senses {n} labels")
        accuracy = _number(result, "The accuracy", where)
        reference = _sense_reference(vectors, senses)
        if not _close(accuracy, reference):
            failures.add(where, _sense_findings(vectors, np.asarray(senses), accuracy, reference))
    failures.raise_if_any()
    _right(f"the leave-one-out 1-NN accuracy matches on {trials} random inputs (n from {_span(sizes)}).")


def _sense_reference(vectors: np.ndarray, senses: list[str]) -> float:
    """``knn_accuracy`` of :func:`course.analysis.probes.sense_probe` (quietly: its other figure may average
    nothing)."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        return sense_probe(vectors, senses)["knn_accuracy"]


def _sense_findings(vectors, labels, accuracy, reference) -> list[tuple[str, str]]:
    n = len(labels)
    got = f"got {accuracy:.4g}, expected {reference:.4g}"
    candidates = [
        ("leave", _knn_accuracy(_cosines(vectors), labels, leave_out=False),
         f"Every occurrence is its own nearest neighbour: leave it out (exclude the diagonal of the similarity "
         f"matrix) and take the most similar OTHER occurrence ({got})"),
        ("cosine", _knn_accuracy(-_squared_distances(vectors), labels),
         f"Your nearest neighbours are by Euclidean distance; the probe compares occurrences by cosine "
         f"similarity, which ignores the vectors' lengths ({got})"),
        ("cosine", _knn_accuracy(vectors @ vectors.T, labels),
         f"Your nearest neighbours are by dot product; the probe uses cosine similarity: normalise the vectors "
         f"to unit length first ({got})"),
        ("largest", _knn_accuracy(_cosines(vectors), labels, largest=False),
         f"Your neighbour is the LEAST similar occurrence: with cosine similarity the nearest neighbour has the "
         f"largest value ({got})"),
        ("fraction", reference * n, f"You return the number of occurrences labelled right ({accuracy:g}) instead of "
                                    f"the fraction of the n={n} occurrences ({reference:.4g})"),
    ]
    findings = [(key, message) for key, value, message in candidates if _close(accuracy, value)]
    if accuracy == 1.0 and reference < 1 and not any(key == "leave" for key, _ in findings):
        findings.append(("fact:leave", f"An accuracy of 1.0 where leave-one-out gives {reference:.4g} suggests every "
                                  "occurrence found itself: leave it out"))
    if not 0 <= accuracy <= 1:
        findings.append(("fact:range", f"An accuracy must lie in [0, 1], {got}"))
    return findings + [(GENERIC, f"The accuracy differs from leave-one-out 1-NN with cosine similarity: {got}")]


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
    from ...elmo.scalar_mix import ScalarMix  # noqa: I001 (course.elmo first: it sets OpenMP's policy for torch)
    import torch

    rng, failures = _start(function, "scalar_mix", seed, trials)
    sizes = _sizes(trials, [(1, 1, 1), (2, 1, 3), (3, 4, 2)],
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
        mixed = _call(function, (layers, s, gamma), shapes=f"layers {(layers_count, n, d)}, s {(layers_count,)}, "
                                                           "gamma ()")
        if not isinstance(mixed, torch.Tensor):
            raise CheckFailed(_sentence(f"Your function returns {_describe(mixed)}; return a torch tensor made with "
                                        "torch operations, so that gradients reach s and gamma", where))
        if tuple(mixed.shape) != (n, d):
            hint = ": sum the weighted layers over j" if tuple(mixed.shape) == (layers_count, n, d) else ""
            raise CheckFailed(_sentence(f"The mix should have shape (n, d) = {(n, d)}, got {tuple(mixed.shape)}{hint}",
                                        where))
        mix = ScalarMix(layers_count, initial_weights=s_np, initial_gamma=gamma_np).double()
        with torch.no_grad():  # the float64 copy keeps every digit of s and gamma
            mix.scalar_parameters.copy_(torch.from_numpy(s_np))
            mix.gamma.copy_(torch.tensor(gamma_np, dtype=torch.float64))
        reference = mix(torch.from_numpy(layers_np))
        value = mixed.detach().double().numpy()
        if not _close(value, reference.detach().numpy(), TORCH_ATOL):
            failures.add(where, _mix_findings(layers_np, s_np, gamma_np, value, reference.detach().numpy()))
            continue
        (reference * upstream).sum().backward()
        findings = _mix_gradient_findings(mixed, s, gamma, upstream, mix)
        if findings:
            failures.add(where, findings)
    failures.raise_if_any()
    _right(f"the mix and its gradients for s and gamma match ScalarMix on {trials} random inputs "
           f"(L from {_span([size[0] for size in sizes])}, n from {_span([size[1] for size in sizes])}).")


def _mix_findings(layers, s, gamma, value, reference) -> list[tuple[str, str]]:
    softmax = np.exp(s - s.max()) / np.exp(s - s.max()).sum()
    weightings = [
        ("", softmax, None),
        ("softmax", s, "uses s itself as the layer weights; ELMo turns them into softmax(s)_j = exp(s_j) / Σ_i "
                       "exp(s_i)"),
        ("softmax", s / s.sum(), "divides s by its sum; the weights are softmax(s) (exp first, then normalise), "
                                 "which keeps them positive"),
        ("softmax", np.exp(s), "uses exp(s) without dividing by Σ_i exp(s_i): that is half a softmax"),
        ("ignores s", np.full(len(s), 1 / len(s)), "ignores s: every layer gets the same weight"),
        ("weights", np.ones(len(s)), "adds the layers up without weights"),
    ]
    findings = []
    for (key, weights, wrong), with_gamma in product(weightings, (True, False)):
        parts = [part for part in (wrong, None if with_gamma else "leaves out gamma: scale the mix by gamma") if part]
        mixed = (gamma if with_gamma else 1.0) * np.tensordot(weights, layers, axes=1)
        if parts and _close(value, mixed, TORCH_ATOL * max(1.0, float(np.abs(mixed).max()))):
            keys = "+".join(k for k in (key, "" if with_gamma else "gamma") if k)
            findings.append((keys, "Your mix " + "; and ".join(parts)))
    return findings + [(GENERIC, f"The mix differs from gamma · Σ_j softmax(s)_j layers_j: {_worst(value, reference)}")]


def _mix_gradient_findings(mixed, s, gamma, upstream, mix) -> list[tuple[str, str]]:
    """Whether the gradients of (mixed · upstream).sum() reach s and gamma and match ``mix``'s (already computed)."""
    detached = ("gradient", "No gradient reaches s or gamma: the mix is detached from them (made with numpy, "
                            ".item(), .detach(), torch.no_grad() or torch.tensor(...) of computed values); keep to "
                            "torch operations on s and gamma")
    if not mixed.requires_grad:
        return [detached]
    (mixed.double() * upstream).sum().backward()
    findings = []
    for name, tensor, reference in (("s", s, mix.scalar_parameters.grad), ("gamma", gamma, mix.gamma.grad)):
        if tensor.grad is None:
            findings.append((f"gradient:{name}", f"No gradient reaches {name}: the mix uses a detached copy of it "
                                                 "(.item(), .detach(), .numpy() or float(...))"))
        elif not _close(tensor.grad.double().numpy(), reference.numpy(), TORCH_ATOL * reference.numel()):
            grad, wanted = tensor.grad.double().numpy().reshape(-1), reference.numpy().reshape(-1)
            findings.append((f"gradient:{name}", f"The gradient reaching {name} is wrong: "
                                                 f"{_worst(grad, wanted)}; build the mix from {name} with torch "
                                                 "operations only"))
    return findings
