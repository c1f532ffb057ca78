"""The network: a stack of Transformer blocks over word and position embeddings, with a softmax
tied to the word embeddings (GPT, Radford et al., 2018; BERT, Devlin et al., 2019).

A sentence is wrapped as ``<bos> w_1 .. w_n <eos>`` (positions 0 .. n + 1, at most
``max_positions``). With E ``(V, d)`` the word embeddings and P ``(max_positions, d)`` the
learned position embeddings,

    x_t^{(0)} = E[w_t]                                         layer 0: the word alone, no position
    h_t^{(0)} = Dropout(E[w_t] + P[t] (+ S[s_t]))              the input of the first block
    h^{(j)}   = Block_j(h^{(j-1)}),  j = 1 .. L                layer j (the residual stream)
    p(w | h_t^{(L)}) = softmax(LN(h_t^{(L)}) E^T + b)          the softmax shares E (tied weights)

A network pretrained on pairs of sentences (:mod:`~course.transformer.next_sentence`) also has
BERT's segment table S ``(2, d)``, s_t = 0 in the first sentence and 1 in the second; a single
sentence is all segment 0.

With ``softmax="adaptive"`` (Grave et al., 2017, tied to the input table as in Baevski and Auli,
2019) the words are split by frequency at the cutoffs c_0 < c_1 < ..: the head is a softmax over
the c_0 most frequent words and one row u_i per cluster of rarer words [c_i, c_{i+1}), and each
cluster has a softmax of its own over its words' rows of E. With z = LN(h),

    p(w) = softmax([z E[:c_0]^T + b[:c_0], z U^T + b_U])_w                      w < c_0
    p(w) = softmax([..])_{c_0 + i} * softmax(z E[c_i:c_{i+1}]^T + b[c_i:c_{i+1}])_{w - c_i}   w in cluster i

still a distribution over all V words, so perplexities compare with the full softmax's. A
position whose word is frequent pays for c_0 + k scores instead of V; only the rarer words' rows
pay for their cluster too (what makes a causal model's step several times cheaper on a CPU, where
scoring a vocabulary of 15,000 words costs three times the four blocks).

The two objectives differ in what a position may see and what it predicts:

- ``causal`` (GPT): position t attends to positions 0 .. t only (a causal mask), and its top state
  predicts the next word, w_{t+1}: n + 1 predictions per sentence (the words and ``<eos>``), as
  ELMo's forward LM makes, so their perplexities compare;
- ``masked`` (BERT): every position attends to every real position, the input has ~15% of its
  words corrupted (:mod:`~course.transformer.masking`), and the top state at a chosen position
  predicts the word that was there.

In both, padding comes after each sentence and is masked out as a key, so no real position ever
depends on it: a sentence gets the same states in any batch.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from torch import nn

from .block import TransformerBlock
from .config import TransformerConfig
from .masking import IGNORE


@dataclass
class TransformerStates:
    """What the network computes for a batch of ``B`` sentences of at most ``T`` positions.

    Attributes:
        tokens: ``(B, T, d)`` the word embeddings E[w_t] (layer 0; no position in them).
        layers: L tensors ``(B, T, d)``: the output of each block, bottom first.
        mask: ``(B, T)`` bool, True at real positions (``<bos>`` and ``<eos>`` included).
        weights: per block ``(B, h, T, T)`` attention weights, when asked for; else None.
    """

    tokens: torch.Tensor
    layers: list[torch.Tensor]
    mask: torch.Tensor
    weights: list[torch.Tensor] | None = None


def _widened(scores: torch.Tensor) -> torch.Tensor:
    """Scores in float32 at least (autocast's bfloat16 products are widened before the softmax)."""
    return scores.float() if scores.dtype in (torch.bfloat16, torch.float16) else scores


def adaptive_cutoffs(config: TransformerConfig, vocab_size: int) -> tuple[int, ...]:
    """The adaptive softmax's cutoffs c_0 < c_1 < .. that leave words in every cluster of a
    vocabulary of ``vocab_size`` words; () for the full softmax (also when no cutoff fits)."""
    if config.softmax != "adaptive":
        return ()
    return tuple(c for c in config.adaptive_cutoffs if c < vocab_size)


class TransformerLM(nn.Module):
    """Word and position embeddings, L pre-LN blocks, a final layer norm and a tied softmax (full
    or adaptive).

    Args:
        config: the sizes and the objective (see :class:`~course.transformer.config.TransformerConfig`).
        vocab_size: V, words of the vocabulary (special tokens included).
        seed: the weights are drawn from this seed (default ``config.seed``; the global random
            state is left alone), so the same seed gives the same untrained network.
    """

    def __init__(self, config: TransformerConfig, vocab_size: int, seed: int | None = None):
        super().__init__()
        self.config = config
        self.causal = config.objective == "causal"
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(config.seed if seed is None else seed)
            self.token_embedding = nn.Embedding(vocab_size, config.dim)  # E, also the softmax's weights
            self.position_embedding = nn.Embedding(config.max_positions, config.dim)  # P
            self.dropout = nn.Dropout(config.dropout)
            self.blocks = nn.ModuleList(TransformerBlock(config.dim, config.heads, config.ff_dim, config.dropout)
                                        for _ in range(config.layers))
            self.final_norm = nn.LayerNorm(config.dim)
            self.output_bias = nn.Parameter(torch.zeros(vocab_size))  # b
            self.cutoffs = adaptive_cutoffs(config, vocab_size)  # () for the full softmax
            self.clusters = nn.Linear(config.dim, len(self.cutoffs)) if self.cutoffs else None  # U, b_U
            self._initialise()
        self.segment_embedding: nn.Embedding | None = None  # S, for pairs of sentences: add_segments()

    def add_segments(self, std: float = 0.0) -> nn.Embedding:
        """Give the network BERT's segment table S ``(2, d)`` (drawn from N(0, std^2); 0: zeros, which leave
        its input as it was), if it has none; the table."""
        if self.segment_embedding is None:
            table = nn.Embedding(2, self.config.dim).to(self.token_embedding.weight.device)
            nn.init.normal_(table.weight, std=std) if std > 0 else nn.init.zeros_(table.weight)
            self.segment_embedding = table
        return self.segment_embedding

    def load_state_dict(self, state_dict, strict: bool = True, assign: bool = False):
        """As :meth:`torch.nn.Module.load_state_dict`, first adding the segment table if the weights have one."""
        if "segment_embedding.weight" in state_dict:
            self.add_segments()
        return super().load_state_dict(state_dict, strict=strict, assign=assign)

    def _initialise(self) -> None:
        """GPT-2's initialisation: weights ~ N(0, 0.02^2), biases 0, and the projections that add to
        the residual stream (W^O, W_2) scaled by 1 / sqrt(2 L), so the stream does not grow with depth."""
        for module in self.modules():
            if isinstance(module, nn.Linear | nn.Embedding):
                nn.init.normal_(module.weight, std=0.02)
            if isinstance(module, nn.Linear) and module.bias is not None:
                nn.init.zeros_(module.bias)
        for block in self.blocks:
            for linear in (block.attention.out, block.feed_forward[2]):
                nn.init.normal_(linear.weight, std=0.02 / math.sqrt(2 * self.config.layers))

    def forward(self, ids: torch.Tensor, padding_mask: torch.Tensor | None = None,
                need_weights: bool = False, segments: torch.Tensor | None = None) -> TransformerStates:
        """States of ``<bos> w_1 .. w_n <eos>`` sentences.

        Args:
            ids: ``(B, T)`` int64 word ids, T <= ``max_positions``.
            padding_mask: ``(B, T)`` bool, True at real positions (default: all real).
            need_weights: keep every block's attention weights.
            segments: ``(B, T)`` int64 segment ids s_t (0 or 1), for a network with a segment table
                (default: all 0); ignored by one without.
        """
        batch, length = ids.shape
        if padding_mask is None:
            padding_mask = torch.ones(batch, length, dtype=torch.bool, device=ids.device)
        tokens = self.token_embedding(ids)  # (B, T, d)
        positions = torch.arange(length, device=ids.device)
        x = tokens + self.position_embedding(positions)  # (B, T, d)
        if self.segment_embedding is not None:
            x = x + self.segment_embedding(torch.zeros_like(ids) if segments is None else segments)
        h = self.dropout(x)
        layers, weights = [], []
        for block in self.blocks:
            h, w = block(h, padding_mask, self.causal, need_weights)
            layers.append(h)
            weights.append(w)
        return TransformerStates(tokens, layers, padding_mask, weights if need_weights else None)

    @property
    def vocab_size(self) -> int:
        """V, the words of the softmax (a fine-tuned network may have more rows in its table)."""
        return self.output_bias.shape[0]

    def _scores(self, z: torch.Tensor, start: int, end: int) -> torch.Tensor:
        """``(N, d)`` normalised states -> ``(N, end - start)`` float32 scores z E[start:end]^T + b[start:end]."""
        return _widened(z @ self.token_embedding.weight[start:end].t()) + self.output_bias[start:end]

    def _head_log_probabilities(self, z: torch.Tensor) -> torch.Tensor:
        """``(N, d)`` -> ``(N, c_0 + k)``: the head's log-probabilities, words then clusters (all V
        words for the full softmax)."""
        if not self.cutoffs:
            return torch.log_softmax(self._scores(z, 0, self.vocab_size), dim=-1)
        head = torch.cat([self._scores(z, 0, self.cutoffs[0]), _widened(self.clusters(z))], dim=-1)
        return torch.log_softmax(head, dim=-1)

    def _cluster_bounds(self) -> list[tuple[int, int]]:
        return list(zip(self.cutoffs, [*self.cutoffs[1:], self.vocab_size], strict=True))

    def log_probabilities(self, hidden: torch.Tensor) -> torch.Tensor:
        """``(N, d)`` top states -> ``(N, V)`` float32 log p(w | h) of every word."""
        z = self.final_norm(hidden)
        head = self._head_log_probabilities(z)
        if not self.cutoffs:
            return head
        parts = [head[:, :self.cutoffs[0]]]
        for i, (start, end) in enumerate(self._cluster_bounds()):
            c = self.cutoffs[0] + i
            parts.append(head[:, c:c + 1] + torch.log_softmax(self._scores(z, start, end), dim=-1))
        return torch.cat(parts, dim=-1)

    def target_log_probabilities(self, hidden: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        """``(N, d)`` top states and ``(N,)`` words -> ``(N,)`` float32 log p(target | h). The adaptive
        softmax scores a cluster's words only for the rows whose target is in it."""
        z = self.final_norm(hidden)
        head = self._head_log_probabilities(z)
        if not self.cutoffs:
            return head.gather(1, targets[:, None])[:, 0]
        cluster = torch.bucketize(targets, torch.as_tensor(self.cutoffs, device=targets.device), right=True)
        symbol = torch.where(cluster == 0, targets, self.cutoffs[0] + cluster - 1)  # the word, or its cluster
        out = head.gather(1, symbol[:, None])[:, 0]
        for i, (start, end) in enumerate(self._cluster_bounds()):
            rows = (cluster == i + 1).nonzero()[:, 0]
            if len(rows):
                tail = torch.log_softmax(self._scores(z[rows], start, end), dim=-1)
                out = out.index_add(0, rows, tail.gather(1, (targets[rows] - start)[:, None])[:, 0])
        return out

    def predictions(self, ids: torch.Tensor, padding_mask: torch.Tensor,
                    targets: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        """The top states that make a prediction and the words they predict: ``(N, d)`` and ``(N,)``.

        Causal: the state at t predicts ``ids[:, t + 1]`` wherever t + 1 is a real position.
        Masked: ``ids`` is the corrupted input and ``targets`` ``(B, T)`` holds the word to predict
        at each chosen position (:data:`~course.transformer.masking.IGNORE` elsewhere).
        """
        top = self(ids, padding_mask).layers[-1]
        if self.causal:
            pairs = padding_mask[:, 1:]
            return top[:, :-1][pairs], ids[:, 1:][pairs]
        if targets is None:
            raise ValueError("the masked objective needs the targets of mask_tokens")
        chosen = targets != IGNORE
        return top[chosen], targets[chosen]

    def loss(self, ids: torch.Tensor, padding_mask: torch.Tensor,
             targets: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor, int]:
        """``(loss, nll_sum, predictions)``: the mean negative log-likelihood per prediction (the
        tensor to call ``backward()`` on), their sum (detached) and their number N, so that the
        perplexity is exp(nll_sum / N)."""
        hidden, words = self.predictions(ids, padding_mask, targets)
        nll = -self.target_log_probabilities(hidden, words).sum()
        count = int(words.numel())
        return nll / max(count, 1), nll.detach(), count
