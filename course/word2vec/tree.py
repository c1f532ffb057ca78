"""Hierarchical softmax in the fast trainer: the Huffman paths as tensors, and the inner nodes'
summed steps of a batch, damped.

With hierarchical softmax a batch sums the steps of hundreds of examples on the tree's top nodes,
which lie on almost every path, all computed from the same stale vector. Late in training, when
the word vectors are long, that sum overshoots where word2vec.c's one-pair-at-a-time steps would
correct each other, and the vectors come out worse after many epochs. With ``damp_tree_steps``
a node's summed step is scaled down to at most a quarter of a Newton step on the batch's loss
(:func:`~course.word2vec.damping.damped_scale`); nodes with few examples in the batch, and every
node early on, when the vectors are short, keep their plain sum.
"""

from __future__ import annotations

import numpy as np

from .damping import damped_scale
from .kernels import run_starts, scatter_add


class HuffmanPaths:
    """The Huffman tree of a vocabulary as tensors on ``device``, worked out once.

    Attributes:
        points: ``(V, L)`` int64, the inner nodes on each word's path (padded).
        targets_and_mask: ``(V, 2, L)`` float: 1 - code, the probability each node should give its
            left branch; and 1 on the path, 0 on its padding (one tensor: one gather for both).
        lengths: ``(V,)`` int64 (numpy), each word's code length.
        leaf_ranks: ``(V,)`` int64 (numpy), each word's place among the leaves from left to right
            (its code's place in lexicographic order): the words below any one inner node have
            consecutive places.
    """

    def __init__(self, tree, device):
        import torch

        mask = torch.arange(tree.points.shape[1]) < torch.as_tensor(tree.lengths)[:, None]
        self.points = torch.as_tensor(tree.points).to(device)
        self.targets_and_mask = torch.stack([1 - torch.as_tensor(tree.codes).float(), mask.float()], dim=1).to(device)
        self.lengths = np.asarray(tree.lengths)
        self._device_lengths = torch.as_tensor(tree.lengths).to(device)
        codes = tree.codes  # padded with 0s, which keeps the order of prefix-free codes
        self.leaf_ranks = np.empty(len(codes), dtype=np.int64)
        self.leaf_ranks[np.lexsort(codes.T[::-1])] = np.arange(len(codes))

    def paths(self, words):
        """The paths of ``words`` ``(B,)``, trimmed to the longest: points ``(B, L)``, targets ``(B, L)``
        and mask ``(B, L)``."""
        longest = int(self._device_lengths.index_select(0, words).max())  # one number from the device
        targets, mask = self.targets_and_mask.index_select(0, words)[:, :, :longest].unbind(1)
        return self.points.index_select(0, words)[:, :longest], targets, mask


def add_node_steps(inner_node_vectors, points, d_scores, hidden, mask, lr: float, damp: bool) -> None:
    """Add to each inner node on a batch's paths its step: -lr times the sum of d_score * h over
    the examples whose path runs through it (damped with ``damp``).

    ``points`` ``(B, L)``; ``d_scores`` and ``mask`` ``(B, [C,] L)``; ``hidden`` ``(B, [C,] d)``.
    For one input per window (``hidden`` ``(B, d)``, CBOW) the windows must come in the tree's
    leaf order (:attr:`HuffmanPaths.leaf_ranks`).
    """
    import torch

    if hidden.dim() == 2:
        return _add_node_steps_by_node(inner_node_vectors, points, d_scores, hidden, mask, lr, damp)
    batch, longest = points.shape
    node_ids = points.reshape(-1)
    scale = -lr
    if damp:
        # each node's summed |h|^2 over its examples: 4 times a bound on the curvature along it
        sq_norms = (torch.linalg.vector_norm(hidden, dim=2).square_().unsqueeze(2) * mask).sum(1)  # (B, L)
        curvature = torch.zeros(inner_node_vectors.shape[0], dtype=hidden.dtype, device=hidden.device)
        curvature.index_add_(0, node_ids, sq_norms.view(-1))
        scale = damped_scale(curvature.index_select(0, node_ids), lr).view(batch, 1, longest)
    steps = torch.bmm((d_scores * scale).transpose(1, 2), hidden)  # (B, L, d), summed over the C inputs
    # Padding steps of a path are zero rows (masked); adding them to node 0 costs less than
    # gathering the steps on the paths.
    scatter_add(inner_node_vectors, node_ids, steps.view(batch * longest, -1))


def _add_node_steps_by_node(inner_node_vectors, points, d_scores, hidden, mask, lr: float, damp: bool) -> None:
    """:func:`add_node_steps` for one input per window, node by node.

    In the tree's leaf order the windows through one node are consecutive at each depth, so each
    node's step is one bag of an ``embedding_bag`` over the inputs, weighted by their d_scores,
    taken depth by depth: no ``(B, L, d)`` tensor of per-window steps is formed, and each node's
    row is written once.
    """
    import torch

    batch, longest = points.shape
    node_ids = points.t().reshape(-1)  # (L * B,) depth by depth
    members = torch.arange(batch, device=points.device).repeat(longest)  # the window of each entry
    starts = run_starts(node_ids)
    steps = torch.nn.functional.embedding_bag(members, hidden, starts, mode="sum",
                                              per_sample_weights=d_scores.t().reshape(-1))  # (nodes, d)
    scale = -lr
    if damp:
        sq_norms = torch.linalg.vector_norm(hidden, dim=1).square_().unsqueeze(1)  # (B, 1)
        curvature = torch.nn.functional.embedding_bag(members, sq_norms, starts, mode="sum",
                                                      per_sample_weights=mask.t().reshape(-1))  # (nodes, 1)
        scale = damped_scale(curvature, lr)
    scatter_add(inner_node_vectors, node_ids.index_select(0, starts), steps, scale)
