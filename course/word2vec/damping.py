"""Damped summed steps: a row of a table that many examples of one batch update takes the sum of
their steps, all computed from the same stale vectors, where one-example-at-a-time SGD (word2vec.c,
gensim) takes as many small steps, each from the vectors the last one left.

On a small corpus, or without subsampling, a frequent word is a context word of hundreds of the
512 windows of a batch. Its summed step is hundreds of times one window's, and so is the output
rows' next step, which grows with it: without damping, CBOW with negative sampling at gensim's own
test settings (lr 0.05, 15 noise words, no subsampling) diverges on gensim's ``lee_background.cor``
within its first twenty batches, and skip-gram at the same settings a little later. Sequential steps cannot: each one
sees the loss the last one lowered.

So a row's summed step in a batch is scaled to at most a quarter of a Newton step on the batch's
loss along it (:func:`damped_scale`): 1 / (lr c) where lr c > 1, with c four times the curvature
(at s' = 1/4, the sigmoid's steepest), summed over the row's examples (:func:`damped_factors`).
A row that few examples of a batch update, and every row while the vectors are short, keeps its
plain step, as SGD would take it. The tree's inner nodes (hierarchical softmax,
:mod:`~course.word2vec.tree`) are damped by a bound over every direction, the examples' summed
|h|^2; negative sampling's input words by the curvature along each example's own step
(:func:`input_step_curvature`). Negative sampling's output rows are not damped: damping them too
cost CBOW its neighbours on the Lee corpus (gensim's sanity check failed on all three seeds), and
the divergence stops without it.
"""

from __future__ import annotations


def damped_scale(curvature, lr: float):
    """-lr * min(1, 1 / (lr * c)) for each row's summed curvature bound c (any shape).

    A row takes the summed step of the examples that update it; where the curvature of the batch's
    loss along it is at most c / 4, a step of this scale times the summed gradient goes at most a
    quarter of a Newton step. (Allowing a whole Newton step helped less at 20 epochs in
    ``benchmarks/word2vec_vs_gensim.py``.)
    """
    return curvature.mul(lr).clamp_(min=1).reciprocal_().mul_(-lr)


def damped_factors(ids, curvature, rows: int, lr: float):
    """``(n,)`` min(1, 1 / (lr * c)) for each entry i of a batch's steps into a table of ``rows``
    rows, where c sums ``curvature`` ``(n,)`` over the entries with the same row ``ids[i]``
    (``ids`` ``(n,)``): the factors that damp each row's summed step (:func:`damped_scale`); None
    where no row is damped (most batches of a large corpus), which saves scaling the steps."""
    import torch

    total = torch.zeros(rows, dtype=curvature.dtype, device=curvature.device).index_add_(0, ids, curvature)
    if float(total.max()) * lr <= 1:
        return None
    return total.index_select(0, ids).mul_(lr).clamp_(min=1).reciprocal_()


def input_step_curvature(step, weights):
    """Four times the curvature of each example's loss along its input's step, at s' = 1/4, from
    below: for the step g = sum_r w_r u_r ``(..., d)`` over the example's output rows u_r, with
    its weights w_r ``(..., R)`` (d loss / d score, times -lr, 0 on padding),
    sum_r (u_r . g/|g|)^2 >= |g|^2 / sum_r w_r^2 (Cauchy-Schwarz on |g| = sum_r w_r u_r . g/|g|).

    From the step and its weights alone: the products u_r . g themselves, a second product against
    the rows, made a batch a quarter (skip-gram) to two thirds (CBOW) slower. The two are equal
    where those products are in proportion to the weights, as where the rows point one way, which
    is where summed steps overshoot. A CBOW context word's step moves its window's mean by 1 / C
    of it (C context words), and each takes the window's whole gradient, so the caller divides by C.
    """
    return step.square().sum(-1) / weights.square().sum(-1).clamp_(min=1e-30)
