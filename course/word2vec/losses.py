"""The two output layers of word2vec and their losses, with hand-written gradients.

For an input vector h (a word's input vector, or CBOW's mean of them) and the target word o
(s = sigmoid):

- Negative sampling, with k noise words n_i drawn from P(w) ~ count(w)^0.75 and their output
  vectors u:   loss = -log s(u_o . h) - sum_i log s(-u_{n_i} . h).
- Hierarchical softmax, along the Huffman path of o through inner nodes j with vectors u_j and
  bits c_j:   P(o | h) = prod_j s(sign_j u_j . h), sign_j = +1 for a 0 bit and -1 for a 1 bit;
  loss = -log P(o | h).

Both are functions of the scores u . h, and d loss / d score = s(score) - label, with label 1
for the true word (or the left branch) and 0 for a noise word (or the right branch). The
gradients follow by the chain rule: d loss / d h = sum (s - label) u, d loss / d u = (s - label) h.

:func:`negative_sampling_loss` and :func:`hierarchical_softmax_loss` are what the notebooks show and
the reference trainer calls; the fast trainer calls the same maths in parts
(:func:`negative_sampling_terms`, :func:`hierarchical_softmax_terms` from the scores, which it
computes against the output table where the rows lie).
"""

from __future__ import annotations


def scores(hidden, rows):
    """``(B, R)`` u . h for hidden ``(B, d)``, or ``(B, C, R)`` for hidden ``(B, C, d)``; rows ``(B, R, d)``."""
    import torch

    if hidden.dim() == 2:  # one input per example: a broadcast product beats a batch of tiny matrix products
        return (rows * hidden.unsqueeze(1)).sum(2)
    return torch.bmm(hidden, rows.transpose(1, 2))


def backward(d_scores, hidden, rows, rows_too: bool = True):
    """Gradients of the hidden vectors (shaped as ``hidden``) and of the rows ``(B, R, d)``, summed over
    the C inputs, from ``d_scores`` = d loss / d scores shaped as :func:`scores`'s result (the rows'
    may be skipped: None)."""
    import torch

    grad_rows = None
    if hidden.dim() == 2:
        if rows_too:
            grad_rows = d_scores.unsqueeze(2) * hidden.unsqueeze(1)
        return torch.bmm(d_scores.unsqueeze(1), rows).squeeze(1), grad_rows
    if rows_too:
        grad_rows = torch.bmm(d_scores.transpose(1, 2), hidden)
    return torch.bmm(d_scores, rows), grad_rows


def negative_sampling_loss(hidden, output_rows, valid=None, need_loss: bool = True):
    """Loss and gradients of negative sampling for a batch.

    Args:
        hidden: ``(B, d)`` input vectors h (a word's vector, or CBOW's mean), or ``(B, C, d)``:
            C input vectors that share one target and one set of noise words (skip-gram's window).
        output_rows: ``(B, 1 + k, d)`` output vectors: the true word first, then k noise words.
        valid: optional 0/1 weights, ``(B, 1 + k)``, or ``(B, C, 1 + k)`` for 3-D ``hidden`` (a noise
            draw equal to the true word gets 0; so does every score of a padded input vector).
        need_loss: compute the loss (the trainer skips it on most batches to save time).

    Returns:
        ``loss`` ``(B,)`` or ``(B, C)`` (None without ``need_loss``); ``grad_hidden``, shaped as
        ``hidden``; ``grad_output`` ``(B, 1 + k, d)``, summed over the C inputs: the gradients of the
        loss (the update is minus the learning rate times these).
    """
    loss, d_scores = negative_sampling_terms(scores(hidden, output_rows), valid, need_loss)
    return loss, *backward(d_scores, hidden, output_rows)


def negative_sampling_terms(scores, valid, need_loss: bool):
    """The loss and d loss / d scores of negative sampling from its scores ``(B, [C,] 1 + k)``."""
    import torch

    d_scores = torch.sigmoid(scores)  # d loss / d score = s(score) - label
    d_scores[..., 0] -= 1
    if valid is not None:
        d_scores.mul_(valid)
    loss = None
    if need_loss:
        signed = scores.clone()
        signed[..., 1:].neg_()
        terms = -torch.nn.functional.logsigmoid(signed)
        loss = (terms * valid if valid is not None else terms).sum(-1)
    return loss, d_scores


def hierarchical_softmax_loss(hidden, node_rows, codes, mask, need_loss: bool = True):
    """Loss and gradients of hierarchical softmax for a batch.

    Args:
        hidden: ``(B, d)`` input vectors h, or ``(B, C, d)``: C inputs that share one target word.
        node_rows: ``(B, L, d)`` vectors of the inner nodes on each target word's path (padded).
        codes: ``(B, L)`` the path's bits (0 or 1).
        mask: ``(B, L)`` 1 on the path, 0 on padding; or ``(B, C, L)`` for 3-D ``hidden``, also 0
            for padded inputs.

    Returns:
        ``loss`` ``(B,)`` or ``(B, C)`` = -log P(word | h) (None without ``need_loss``);
        ``grad_hidden``, shaped as ``hidden``; ``grad_nodes`` ``(B, L, d)``, summed over the C inputs.
    """
    targets = 1 - codes.to(hidden.dtype)
    loss, d_scores = hierarchical_softmax_terms(scores(hidden, node_rows), targets, mask, need_loss)
    return loss, *backward(d_scores, hidden, node_rows)


def hierarchical_softmax_terms(scores, targets, mask, need_loss: bool):
    """The loss and d loss / d scores of hierarchical softmax from its scores ``(B, [C,] L)``;
    ``targets`` ``(B, L)`` = 1 - code, the probability each node should give its left branch."""
    import torch

    if scores.dim() == 3:
        targets = targets.unsqueeze(1)
    loss = None
    if need_loss:  # -log s(sign * score), sign = 2 * target - 1
        loss = -(torch.nn.functional.logsigmoid((2 * targets - 1) * scores) * mask).sum(-1)
    return loss, torch.sigmoid(scores).sub_(targets).mul_(mask)


def hierarchical_softmax_probabilities(hidden, inner_node_vectors, tree):
    """``(B, V)`` P(w | h) of every word under hierarchical softmax (zero for special tokens).

    ``hidden`` is ``(B, d)``, ``inner_node_vectors`` ``(V - 1, d)``; ``tree`` a :class:`~course.text.vocab.HuffmanTree`.
    For each h the probabilities of the coded words sum to 1. Costs O(V log V): for checks and figures.
    """
    import torch

    points = torch.as_tensor(tree.points)
    codes = torch.as_tensor(tree.codes).to(hidden.dtype)
    mask = (torch.arange(points.shape[1]) < torch.as_tensor(tree.lengths)[:, None]).to(hidden.dtype)
    scores = torch.einsum("vld,bd->bvl", inner_node_vectors[points], hidden)
    log_p = (torch.nn.functional.logsigmoid((1 - 2 * codes) * scores) * mask).sum(2)
    return torch.where(torch.as_tensor(tree.lengths) > 0, log_p.exp(), torch.zeros_like(log_p))
