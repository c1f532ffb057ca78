"""Checks of the gradients derived by hand (notebooks 02 and 04): the gradients of skip-gram's negative-sampling loss
with respect to its two tables when noise words repeat or equal the context word, and those of GloVe's weighted
least-squares loss over a batch of entries that share words.

Both checks compare your gradients with central finite differences of the loss, computed here in float64 for every
entry of every table, and with the course's own hand-written gradients (:mod:`course.word2vec.losses`,
:func:`course.glove.glove_loss`). The tolerance comes from the step: see :func:`_tolerance`.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import product

import numpy as np

from ...core.edition import text
from .harness import (
    GENERIC,
    RTOL,
    CheckFailed,
    answer_array,
    call_answer,
    compares_with,
    describe,
    how_many,
    say_right,
    sentence_at,
    span_of,
    start_check,
    trial_inputs,
)

STEP = 1e-5  # h of the central differences (J(θ + h) - J(θ - h)) / 2h
EPSILON = float(np.finfo(np.float64).eps)  # 2.2e-16, float64's relative rounding
SAFETY = 100.0  # how far above the estimated error of the differences the tolerance lies


def _tolerance(loss: float) -> float:
    """How far a right gradient may lie from the central differences of a loss of size ``loss``.

    The differences err by h²/6·|J'''| (truncation of the Taylor series; J''' is of order 1 to 10 for these losses, and
    0 for GloVe's, which is quadratic in each single parameter) plus about ε·|J|/h (the rounding of the two losses,
    divided by the step 2h). With h = 1e-5 both are of order 1e-10·max(1, |J|) (measured: the course's gradients lie
    within about their sum of the differences); SAFETY times their sum, about 1e-8 for a loss of order 1, is far
    above that and far below any mistake, which changes a gradient by its own size. Comparisons also allow RTOL, room
    for float32 arithmetic.
    """
    return SAFETY * (STEP**2 + EPSILON * max(1.0, abs(loss)) / STEP)


def _central_differences(loss: Callable[..., float], tables: list[np.ndarray], *rest) -> list[np.ndarray]:
    """d loss / d every entry of each of ``tables``, by central differences of ``loss(*tables, *rest)``; the tables
    are moved in place and put back."""
    gradients = []
    for table in tables:
        gradient = np.zeros_like(table)
        for index in np.ndindex(table.shape):
            kept = table[index]
            table[index] = up = kept + STEP
            above = loss(*tables, *rest)
            table[index] = down = kept - STEP
            below = loss(*tables, *rest)
            table[index] = kept
            gradient[index] = (above - below) / (up - down)  # the steps as float64 takes them
        gradients.append(gradient)
    return gradients


def _agrees(value: np.ndarray, reference: np.ndarray, tolerance: float) -> bool:
    return value.shape == reference.shape and bool(np.allclose(value, reference, rtol=RTOL, atol=tolerance))


def _largest(value: np.ndarray, reference: np.ndarray) -> tuple[tuple[int, ...], float]:
    index = np.unravel_index(np.argmax(np.abs(value - reference)), reference.shape)
    return tuple(int(i) for i in index), float(abs(value[index] - reference[index]))


def _tuple_of(result, names: tuple[str, ...], where: str) -> tuple:
    if not isinstance(result, tuple | list) or len(result) != len(names):
        raise CheckFailed(sentence_at(text("check gradients returns", names=", ".join(names), n=len(names),
                                           got=describe(result)), where))
    return tuple(result)


def _compare_with_course(grads, course, tolerance: float, names: tuple[str, ...], function: str, failures,
                         where: str) -> None:
    """Gradients that match the finite differences are also compared with the course's hand-written ones."""
    for grad, reference, name in zip(grads, course, names, strict=True):
        if not _agrees(grad, reference, tolerance):
            (row, *_), difference = _largest(grad, reference)
            failures.add(where, [(GENERIC, text("check gradients not the course's", name=name, function=function,
                                                difference=difference, row=row))])
            return


def _times(number: int) -> str:
    return text({1: "check times once", 2: "check times twice"}.get(number, "check times"), n=number)


# ------------------------------------------------------------------- skip-gram with negative sampling


def _sigmoid(x):
    return 0.5 * (1 + np.tanh(0.5 * np.asarray(x)))


def _sgns_loss(inputs: np.ndarray, outputs: np.ndarray, center: int, context: int, noise: np.ndarray) -> float:
    """-log σ(u_o·v_c) - Σ_i log σ(-u_{n_i}·v_c), with v_c = inputs[center], u_w = outputs[w]."""
    vector = inputs[center]
    return float(np.logaddexp(0, -(outputs[context] @ vector)) + np.logaddexp(0, outputs[noise] @ vector).sum())


def _sgns_package(inputs, outputs, center, context, noise) -> tuple[np.ndarray, np.ndarray]:
    """The gradients of :func:`course.word2vec.losses.negative_sampling_loss`, one row slot each, added into tables
    shaped as ``inputs`` and ``outputs``."""
    import torch

    from ...word2vec.losses import negative_sampling_loss

    rows = np.concatenate([[context], noise])
    _, grad_hidden, grad_rows = negative_sampling_loss(torch.from_numpy(inputs[[center]]),
                                                       torch.from_numpy(outputs[rows][None]))
    grad_inputs, grad_outputs = np.zeros_like(inputs), np.zeros_like(outputs)
    grad_inputs[center] = grad_hidden[0].numpy()
    np.add.at(grad_outputs, rows, grad_rows[0].numpy())
    return grad_inputs, grad_outputs


def _sgns_draws(rng: np.random.Generator, size: int, k: int, context: int) -> np.ndarray:
    """``(k,)`` noise ids drawn with replacement from a skewed distribution, so that words repeat; the context word
    among them half of the time."""
    weights = 1.0 / (1 + rng.permutation(size)) ** 1.5
    noise = rng.choice(size, k, p=weights / weights.sum())
    if rng.random() < 0.5:
        noise[rng.integers(k)] = context
    return noise.astype(np.int64)


@compares_with("course.word2vec.losses:negative_sampling_loss", "course.word2vec.losses:negative_sampling_terms")
def check_negative_sampling_gradients(function, *, seed: int | None = None, trials: int = 20) -> None:
    """Check ``function(inputs, outputs, center, context, noise) -> (grad_inputs, grad_outputs)``.

    Inputs: ``inputs``, ``outputs`` ``(V, d)`` float64, the tables of input vectors v_w and output vectors u_w;
    ``center`` c and ``context`` o, word ids; ``noise`` ``(k,)`` int64 ids n_1..n_k, drawn with replacement: they may
    repeat and may equal o (and c may equal o). Expected: the ``(V, d)`` gradients of
    -log σ(u_o·v_c) - Σ_i log σ(-u_{n_i}·v_c) with respect to the two tables, every draw counted.
    """
    rng, failures = start_check(function, "negative_sampling_gradients", seed, trials)
    edges = [(1, 1, 1), (3, 2, 2), (4, 3, 3)]  # one word; a noise word drawn twice; the context word drawn too
    sizes = trial_inputs(trials, edges, lambda: (int(rng.integers(2, 31)), int(rng.integers(1, 17)),
                                                 int(rng.integers(1, 11))))
    repeated = both = 0
    for trial, (size, d, k) in enumerate(sizes):
        scale = rng.uniform(0.6, 1.3) / d**0.25  # scores u·v of order 1: σ neither 0 nor 1
        inputs, outputs = rng.normal(0, scale, (size, d)), rng.normal(0, scale, (size, d))
        if trial == 0:
            center, context, noise = 0, 0, np.array([0])
        elif trial == 1:
            center, context, noise = 0, 1, np.array([2, 2])
        elif trial == 2:
            center, context, noise = 2, 1, np.array([1, 3, 3])
        else:
            center, context = int(rng.integers(size)), int(rng.integers(size))
            noise = _sgns_draws(rng, size, k, context)
        repeated += len(set(noise.tolist())) < k
        both += context in noise
        where = f"V={size}, d={d}, center={center}, context={context}, noise={noise.tolist()}"
        result = call_answer(function, (inputs.copy(), outputs.copy(), center, context, noise.copy()),
                             shapes=text("check sgns shapes", tables=(size, d), noise=(k,)))
        grads = _tuple_of(result, ("grad_inputs", "grad_outputs"), where)
        grads = (answer_array(grads[0], "grad_inputs", (size, d), "(V, d)", where),
                 answer_array(grads[1], "grad_outputs", (size, d), "(V, d)", where))
        loss = _sgns_loss(inputs, outputs, center, context, noise)
        numeric = _central_differences(_sgns_loss, [inputs, outputs], center, context, noise)
        tolerance = _tolerance(loss)
        if not all(_agrees(g, n, tolerance) for g, n in zip(grads, numeric, strict=True)):
            failures.add(where, _sgns_findings(inputs, outputs, center, context, noise, grads, numeric, tolerance))
        else:
            _compare_with_course(grads, _sgns_package(inputs, outputs, center, context, noise), tolerance,
                                 ("grad_inputs", "grad_outputs"), "negative_sampling_loss", failures, where)
    failures.raise_if_any()
    say_right(text("check sgns right", trials=trials, size=span_of([s for s, _, _ in sizes]),
                   d=span_of([d for _, d, _ in sizes]), k=span_of([k for _, _, k in sizes]),
                   repeated=how_many(repeated, "input"), both=both))


def _sgns_parts(inputs, outputs, center, context, noise):
    """The terms' gradients: (σ(s_o) - 1) and σ(s_i) ``(k,)``, each times v_c for the rows of U and times u for v_c."""
    vector = inputs[center]
    return vector, _sigmoid(outputs[context] @ vector) - 1, _sigmoid(outputs[noise] @ vector)


def _sgns_center_variants(inputs, outputs, center, context, noise):
    """``(key, what is wrong, d loss / d v_c as that mistake computes it)``."""
    _, true_error, noise_errors = _sgns_parts(inputs, outputs, center, context, noise)
    true_part, noise_part = true_error * outputs[context], noise_errors @ outputs[noise]
    distinct = np.unique(noise)
    distinct_part = _sigmoid(outputs[distinct] @ inputs[center]) @ outputs[distinct]
    kept = noise != context
    return [
        ("center:noise", text("check sgns center noise", draw="{n_i}"), true_part),
        ("center:true", text("check sgns center true"), noise_part),
        ("center:label", text("check sgns center label"), true_part + (noise_errors - 1) @ outputs[noise]),
        ("center:distinct", text("check sgns center distinct"), true_part + distinct_part),
        ("center:dropped", text("check sgns center dropped"), true_part + noise_errors[kept] @ outputs[noise[kept]]),
    ]


def _sgns_findings(inputs, outputs, center, context, noise, grads, numeric, tolerance) -> list[tuple[str, str]]:
    grad_inputs, grad_outputs = grads
    ref_inputs, ref_outputs = numeric
    findings = []
    if _agrees(grad_inputs, -ref_inputs, tolerance) and _agrees(grad_outputs, -ref_outputs, tolerance):
        return [("sign:all", text("check sgns all signs"))]
    if _agrees(grad_inputs, ref_outputs, tolerance) and _agrees(grad_outputs, ref_inputs, tolerance):
        return [("swap", text("check sgns swapped"))]
    if not _agrees(grad_inputs, ref_inputs, tolerance):
        findings += _sgns_input_findings(inputs, outputs, center, context, noise, grad_inputs, ref_inputs, tolerance)
    if not _agrees(grad_outputs, ref_outputs, tolerance):
        findings += _sgns_output_findings(inputs, outputs, center, context, noise, grad_outputs, ref_outputs,
                                          tolerance)
    return findings + [(GENERIC, _generic(name, value, reference, _sgns_roles(name, center, context, noise)))
                       for name, value, reference in (("grad_inputs", grad_inputs, ref_inputs),
                                                      ("grad_outputs", grad_outputs, ref_outputs))
                       if not _agrees(value, reference, tolerance)][:1]


def _sgns_roles(name: str, center: int, context: int, noise: np.ndarray) -> Callable[[int], str]:
    def role(row: int) -> str:
        if name == "grad_inputs":
            return text("check sgns the centre word's" if row == center else "check sgns not the centre word")
        drawn = int((noise == row).sum())
        parts = ([text("check sgns the context word")] if row == context else []) + (
            [text("check sgns drawn", times=_times(drawn))] if drawn else [])
        return text("check ppmi and").join(parts) if parts else text("check sgns neither")
    return role


def _generic(name: str, value: np.ndarray, reference: np.ndarray, role: Callable[[int], str]) -> str:
    (row, *_), difference = _largest(value, reference)
    return text("check sgns generic", name=name, difference=difference, row=row, role=role(row))


def _sgns_input_findings(inputs, outputs, center, context, noise, grad_inputs, ref_inputs, tolerance):
    findings = []
    others = np.delete(np.arange(len(inputs)), center)
    if np.abs(grad_inputs[others]).max(initial=0) > tolerance:
        row = int(others[np.argmax(np.abs(grad_inputs[others]).max(axis=1))])
        where = text("check sgns the context word's" if row == context else
                     "check sgns a noise word's" if row in noise else "check sgns another word's")
        findings.append(("inputs:row", text("check sgns inputs row", row=row, where=where, center=center)))
    row = grad_inputs[center]
    if _agrees(row, -ref_inputs[center], tolerance):
        findings.append(("sign:inputs", text("check sgns inputs sign")))
    for key, wrong, variant in _sgns_center_variants(inputs, outputs, center, context, noise):
        if _agrees(row, variant, tolerance) and not _agrees(variant, ref_inputs[center], tolerance):
            findings.append((key, text("check sgns in the centre row", wrong=wrong)))
    return findings


def _sgns_output_findings(inputs, outputs, center, context, noise, grad_outputs, ref_outputs, tolerance):
    vector, true_error, noise_errors = _sgns_parts(inputs, outputs, center, context, noise)
    findings = []
    if _agrees(grad_outputs, -ref_outputs, tolerance):
        findings.append(("sign:outputs", text("check sgns outputs sign")))
    labels = np.zeros_like(grad_outputs)  # the two label mix-ups: σ(s) for the true word, σ(s) - 1 for the noise
    labels[context] += (true_error + 1) * vector
    np.add.at(labels, noise, np.outer(noise_errors, vector))
    if _agrees(grad_outputs, labels, tolerance):
        findings.append(("outputs:true-label", text("check sgns outputs true label")))
    labels = ref_outputs.copy()
    np.add.at(labels, noise, -np.outer(np.ones(len(noise)), vector))
    if _agrees(grad_outputs, labels, tolerance):
        findings.append(("outputs:noise-label", text("check sgns outputs noise label")))
    touched = set(noise.tolist()) | {context}
    stray = [row for row in range(len(outputs)) if row not in touched and np.abs(grad_outputs[row]).max() > tolerance]
    if stray:
        findings.append(("fact:outputs:row", text("check sgns outputs stray row", row=stray[0], context=context,
                                                  noise=noise.tolist())))
    for row in sorted(touched):
        findings += _sgns_row_findings(row, context, noise, vector, true_error, noise_errors, grad_outputs[row],
                                       ref_outputs[row], tolerance)
    return findings


def _sgns_row_findings(row, context, noise, vector, true_error, noise_errors, value, reference, tolerance):
    """What went wrong in one row of grad_outputs that the context word or the noise words touch."""
    if _agrees(value, reference, tolerance):
        return []
    drawn = int((noise == row).sum())
    one_draw = noise_errors[noise == row][0] * vector if drawn else np.zeros_like(vector)  # σ(u_w·v_c) v_c
    true_part = true_error * vector if row == context else np.zeros_like(vector)
    add = text("check sgns add each draw")
    findings = []
    if drawn >= 2 and _agrees(value, true_part + one_draw, tolerance):
        findings.append(("fact:repeat", text("check sgns repeat", row=row, times=_times(drawn), add=add)))
    if row == context and drawn:
        if _agrees(value, true_part, tolerance):
            findings.append(("fact:context-kept", text("check sgns context kept", row=row, times=_times(drawn),
                                                       add=add)))
        if any(_agrees(value, times * one_draw, tolerance) for times in range(1, drawn + 1)):
            findings.append(("fact:context-lost", text("check sgns context lost", row=row, times=_times(drawn))))
    return findings


# ------------------------------------------------------------------------------------------ GloVe

GLOVE_NAMES = ("grad_word_vectors", "grad_context_vectors", "grad_word_biases", "grad_context_biases")


def _glove_weighting(x: np.ndarray, x_max: float, alpha: float) -> np.ndarray:
    from ...glove import weighting

    return weighting(x, x_max, alpha)


def _glove_loss(words, contexts, word_biases, context_biases, rows, cols, x, weights) -> float:
    """The paper's J = Σ_n f(x_n) (w_i·w~_k + b_i + b~_k - log x_n)², with (i, k) = (rows[n], cols[n])."""
    error = (np.einsum("nd,nd->n", words[rows], contexts[cols]) + word_biases[rows] + context_biases[cols]
             - np.log(x))
    return float(weights @ error**2)


def _glove_package(tables, rows, cols, x, x_max, alpha) -> list[np.ndarray]:
    """The gradients of J from :func:`course.glove.glove_loss`, which differentiates J/2."""
    import torch

    from ...glove import glove_loss

    _, *grads = glove_loss(*(torch.from_numpy(t) for t in tables), torch.from_numpy(rows), torch.from_numpy(cols),
                           torch.from_numpy(x), x_max=x_max, alpha=alpha)
    return [2 * grad.numpy() for grad in grads]


def _glove_variant(tables, rows, cols, x, weights, scale=2.0, accumulate="sum", partner=True, log=True):
    """The four gradients as a mistake computes them: ``scale`` · f · e per entry (2 is right), the partner's vector
    (w~_k for w_i; ``partner=False``: w_i itself), summed over the entries (``accumulate="sum"``) or one value per
    repeated word, the first or the last (numpy's grad[rows] = ... keeps one)."""
    words, contexts, word_biases, context_biases = tables
    target = np.log(x) if log else x
    error = np.einsum("nd,nd->n", words[rows], contexts[cols]) + word_biases[rows] + context_biases[cols] - target
    coefficient = scale * weights * error  # (n,)
    parts = [(rows, coefficient[:, None] * (contexts[cols] if partner else words[rows])),
             (cols, coefficient[:, None] * (words[rows] if partner else contexts[cols])),
             (rows, coefficient), (cols, coefficient)]
    grads = []
    for table, (index, values) in zip(tables, parts, strict=True):
        grad = np.zeros_like(table)
        if accumulate == "sum":
            np.add.at(grad, index, values)
        elif accumulate == "last":
            grad[index] = values
        else:
            grad[index[::-1]] = values[::-1]
        grads.append(grad)
    return grads


def _glove_settings(rng: np.random.Generator, trial: int) -> tuple[float, float, bool]:
    """(x_max, alpha, use the defaults): the defaults on the first trials and some others."""
    if trial < 2:
        return 100.0, 0.75, True
    options = [(100.0, 0.75, True), (10.0, 0.75, False), (50.0, 0.5, False), (3.5, 1.0, False)]
    return options[int(rng.integers(len(options)))]


def _glove_inputs(rng: np.random.Generator, trial: int, size: int, d: int, n: int, x_max: float):
    """The four tables, ``(n,)`` distinct entries (rows, cols) in which words repeat, and their values x, about a
    quarter of them above x_max."""
    tables = [rng.normal(0, 0.4, (size, d)), rng.normal(0, 0.4, (size, d)), rng.normal(0, 0.5, size),
              rng.normal(0, 0.5, size)]
    if trial == 0:
        return tables, np.array([0]), np.array([0]), np.array([2.5 * x_max])
    if trial == 1:
        return tables, np.array([0, 0, 1]), np.array([0, 1, 0]), np.array([0.4, 3.0, 0.05]) * x_max
    popularity = 1.0 / (1 + rng.permutation(size)) ** 0.8  # some words in many entries, as in X
    cells = np.outer(popularity, popularity).ravel()
    chosen = rng.choice(size * size, n, replace=False, p=cells / cells.sum())
    x = np.exp(rng.uniform(np.log(x_max / 200), np.log(x_max), n))
    above = rng.random(n) < 0.25
    above[rng.integers(n)] = True
    x[above] = x_max * rng.uniform(1, 20, int(above.sum()))  # at x_max and above: weight 1
    return tables, chosen // size, chosen % size, x


@compares_with("course.glove.loss:glove_loss", "course.glove.loss:glove_loss_terms", "course.glove.loss:weighting")
def check_glove_gradients(function, *, seed: int | None = None, trials: int = 20) -> None:
    """Check ``function(word_vectors, context_vectors, word_biases, context_biases, rows, cols, x, x_max=100.0,
    alpha=0.75) -> (grad_word_vectors, grad_context_vectors, grad_word_biases, grad_context_biases)``.

    Inputs: the tables ``(V, d)``, ``(V, d)``, ``(V,)``, ``(V,)`` float64 of w, w~, b and b~; a batch of n distinct
    non-zero entries X_ik given by ``rows`` ``(n,)`` i and ``cols`` ``(n,)`` k (int64; a word appears in several
    entries) and ``x`` ``(n,)`` their values (some above x_max). Expected: the gradients of the paper's
    J = Σ_n f(x_n) (w_i·w~_k + b_i + b~_k - log x_n)² with respect to the four tables, shaped as them.
    Some trials pass x_max and alpha, others use the defaults.
    """
    rng, failures = start_check(function, "glove_gradients", seed, trials)
    sizes = trial_inputs(trials, [(1, 1, 1), (2, 2, 3)], lambda: _glove_size(rng))
    for trial, (size, d, n) in enumerate(sizes):
        x_max, alpha, defaults = _glove_settings(rng, trial)
        tables, rows, cols, x = _glove_inputs(rng, trial, size, d, n, x_max)
        size_part = f"V={size}, d={d}, n={n}"
        where = text("check glove defaults", size=size_part) if defaults else \
            f"{size_part}, x_max={x_max:g}, alpha={alpha:g}"
        kwargs = {} if defaults else {"x_max": x_max, "alpha": alpha}
        result = call_answer(function, (*(t.copy() for t in tables), rows.copy(), cols.copy(), x.copy()), kwargs,
                             shapes=f"word_vectors {(size, d)}, context_vectors {(size, d)}, word_biases {(size,)}, "
                              f"context_biases {(size,)}, rows {(n,)}, cols {(n,)}, x {(n,)}")
        grads = _tuple_of(result, GLOVE_NAMES, where)
        symbols = ("(V, d)", "(V, d)", "(V,)", "(V,)")
        grads = [answer_array(g, name, t.shape, symbol, where)
                 for g, name, t, symbol in zip(grads, GLOVE_NAMES, tables, symbols, strict=True)]
        weights = _glove_weighting(x, x_max, alpha)
        loss = _glove_loss(*tables, rows, cols, x, weights)
        numeric = _central_differences(_glove_loss, tables, rows, cols, x, weights)
        tolerance = _tolerance(loss)
        if not all(_agrees(g, r, tolerance) for g, r in zip(grads, numeric, strict=True)):
            failures.add(where, _glove_findings(tables, rows, cols, x, x_max, alpha, defaults, grads, numeric,
                                                tolerance))
        else:
            _compare_with_course(grads, _glove_package(tables, rows, cols, x, x_max, alpha), tolerance, GLOVE_NAMES,
                                 "glove_loss", failures, where)
    failures.raise_if_any()
    say_right(text("check gg right", trials=trials, size=span_of([s for s, _, _ in sizes]),
                   d=span_of([d for _, d, _ in sizes]), n=span_of([n for _, _, n in sizes])))


def _glove_size(rng: np.random.Generator) -> tuple[int, int, int]:
    size = int(rng.integers(3, 16))
    return size, int(rng.integers(1, 9)), int(rng.integers(size, min(size * size, 4 * size) + 1))


def _glove_mistakes(x, x_max, alpha, defaults):
    """The ways of getting each ingredient wrong: ``(key, what is wrong, the ingredient)``, the right one first."""
    n = len(x)
    weights = [("", None, _glove_weighting(x, x_max, alpha)),
               ("weight", text("check gg no weighting"), np.ones(n)),
               ("cap", text("check gg uncapped"), np.where(x > 0, (x / x_max) ** alpha, 0.0))]
    if defaults:
        weights.append(("x_max", text("check glove weighting default x_max"), _glove_weighting(x, 10.0, 0.75)))
    else:
        weights.append(("x_max", text("check glove weighting arguments ignored"), _glove_weighting(x, 100.0, 0.75)))
    half = text("check gg half")
    scales = [("", None, 2.0), ("half", half, 1.0),
              ("sign", text("check gg sign"), -2.0),
              ("sign+half", text("check gg sign and half", half=half), -1.0),
              ("mean", text("check gg mean"), 2.0 / n)]
    accumulations = [("", None, "sum"),
                     ("overwrite", text("check gg overwrite"), "last"),
                     ("overwrite", None, "first")]
    partners = [("", None, True),
                ("partner", text("check gg partner"), False)]
    logs = [("", None, True), ("log", text("check gg log"), False)]
    return weights, scales, accumulations, partners, logs


def _glove_findings(tables, rows, cols, x, x_max, alpha, defaults, grads, numeric, tolerance):
    """For each wrong gradient the simplest mistake, or set of mistakes, that gives it exactly; the gradients that
    share one are named together. Each mistake of a set is also a finding of its own, so that a trial that shows only
    one of them (no word repeats in the smallest batches) still agrees with the others."""
    choices = _glove_mistakes(x, x_max, alpha, defaults)
    variants = sorted(product(*choices), key=lambda parts: sum(bool(key) for key, _, _ in parts))
    found: dict[tuple[str, ...], list[str]] = {}
    messages: dict[str, str] = {}
    wrong = [i for i in range(4) if not _agrees(grads[i], numeric[i], tolerance)]
    computed = {}
    for index in wrong:
        for parts in variants:
            keys = tuple(key for key, _, _ in parts if key)
            if not keys:
                continue
            (_, _, weights), (_, _, scale), (_, _, accumulate), (_, _, partner), (_, _, log) = parts
            setting = (id(weights), scale, accumulate, partner, log)
            if setting not in computed:
                computed[setting] = _glove_variant(tables, rows, cols, x, weights, scale, accumulate, partner, log)
            variant = computed[setting][index]
            if _agrees(grads[index], variant, tolerance) and not _agrees(variant, numeric[index], tolerance):
                messages.update((key, message) for key, message, _ in parts if key)
                found.setdefault(keys, []).append(GLOVE_NAMES[index])
                break
    findings = []
    for keys, names in found.items():
        subject = text("check gg all four") if len(names) == 4 else text("check ppmi and").join(names)
        findings.append(("+".join(keys), text("check gg subject", subject=subject,
                                              what=text("check mix and").join(messages[key] for key in keys))))
        if len(keys) > 1:
            findings += [(key, text("check gg subject", subject=subject, what=messages[key])) for key in keys]
    stray = _glove_stray_rows(rows, cols, grads, tolerance)
    if stray:
        findings.append(("fact:row", stray))
    index = wrong[0] if wrong else 0
    (row, *_), difference = _largest(grads[index], numeric[index])
    entries = int(((rows if index in (0, 2) else cols) == row).sum())
    counted = text("check gg entry" if entries == 1 else "check gg entries", n=entries)
    role = text("check gg word i" if index in (0, 2) else "check gg context word k", entries=counted)
    return findings + [(GENERIC, text("check gg generic", name=GLOVE_NAMES[index], difference=difference, row=row,
                                      role=role))]


def _glove_stray_rows(rows, cols, grads, tolerance) -> str | None:
    """A message if some gradient is non-zero in the row of a word that no entry of the batch has in its place."""
    for index, name in enumerate(GLOVE_NAMES):
        used = set((rows if index in (0, 2) else cols).tolist())
        grad = grads[index].reshape(len(grads[index]), -1)
        for row in range(len(grad)):
            if row not in used and np.abs(grad[row]).max() > tolerance:
                side = text("check gg side i" if index in (0, 2) else "check gg side k")
                return text("check gg stray row", name=name, row=row, side=side)
    return None
