"""The bidirectional language model (biLM) under ELMo.

A sentence is wrapped as ``<bos> w_1 .. w_n <eos>`` (positions 0 .. n + 1). Every position gets a
token vector x_k from the :class:`~course.elmo.token_encoder.TokenEncoder`. Then

- the forward LM reads x_0 .. x_k and its top state at k predicts the next word, w_{k+1};
- the backward LM reads x_{n+1} .. x_k (right to left) and its top state at k predicts w_{k-1}.

Each direction is L LSTM layers (``torch.nn.LSTM``, cuDNN on a GPU) whose outputs are projected to
d (LSTMP), with a residual connection between the layers: h^{(j)} = LSTM_j(h^{(j-1)}) + h^{(j-1)}
for j >= 2 (``config.residual``; bilm-tf's skip connections). Where the config clips the cells or
the outputs (the published ELMo does), each layer is a :class:`~course.elmo.lstm.ClippedLSTMP`
instead, with the same weights. A config with ``softmax="none"`` (a converted model, published
without its softmax) embeds but predicts nothing. The token encoder and the softmax are shared by
both directions, the LSTMs are not.
The loss is the sum of the two directions' negative log-likelihoods,

    - sum_k [ log p(w_{k+1} | w_0 .. w_k) + log p(w_{k-1} | w_k .. w_{n+1}) ],

counted over the n + 1 predictions of each direction (the words, and ``<eos>`` or ``<bos>``).

Padding comes after each sentence's last position. Running the backward LSTMs on each sentence
reversed within its own length keeps it there, so no state of a real token ever depends on
padding, and the same sentence gives the same states in any batch.

In training, the loss is computed one direction at a time (:meth:`BiLM.direction_nll`) with the
dropout masks of the whole batch drawn first (:func:`draw_dropout_masks`): the two directions share
only the token vectors and the softmax, so they can run side by side, each on a core of its own
(:mod:`~course.elmo.side_by_side`), and draw what one after the other draws.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import torch
from torch import nn

from ..core.errors import SettingError
from .config import FULL_SOFTMAX_LIMIT, ElmoConfig
from .lstm import ClippedLSTMP
from .token_encoder import TokenEncoder, halves

ONEDNN_NOTE = "LSTM with projections is not supported with oneDNN"


ADAPTIVE_DIV = 4.0  # the adaptive softmax's i-th tail cluster works in d / 4^i dimensions


def _cutoffs(config: ElmoConfig, vocab_size: int) -> list[int]:
    """The adaptive softmax's cluster boundaries that fit ``vocab_size`` words and leave every
    tail cluster at least one dimension."""
    cutoffs = [c for c in config.adaptive_cutoffs if 0 < c < vocab_size - 1] or [max(1, vocab_size // 4)]
    clusters = 1
    while config.projection_dim // ADAPTIVE_DIV ** (clusters + 1) >= 1:
        clusters += 1
    return cutoffs[:clusters]


@dataclass
class BiLMStates:
    """What the biLM computes for a batch of ``B`` sentences of at most ``T`` positions.

    Attributes:
        tokens: ``(B, T, d)`` the token encoder's vectors x_k (layer 0).
        forward: L tensors ``(B, T, d)``: the forward LM's layers, bottom first.
        backward: L tensors ``(B, T, d)``: the backward LM's layers, bottom first, aligned with the
            positions (``backward[j][b, k]`` has read positions k .. end of sentence b).
        mask: ``(B, T)`` bool, True at real positions (``<bos>`` and ``<eos>`` included).
        final: ``{"forward": [...], "backward": [...]}``, each direction's ``(h, c)`` per layer after
            its last step (position ``T - 1`` forward, position 0 backward): the states a stateful
            reader carries into the next sentence. Exact for a batch of one sentence; rows of a
            padded batch also read their padding before these.
    """

    tokens: torch.Tensor
    forward: list[torch.Tensor]
    backward: list[torch.Tensor]
    mask: torch.Tensor
    final: dict | None = None


@dataclass
class DropoutMasks:
    """Dropout's keep-masks of one training batch of ``B`` sentences of ``T`` positions, 1 (kept) or 0,
    each scaled by 1 / (1 - p) where it is used (:func:`dropped`).

    Attributes:
        forward, backward: L masks ``(B, T, d)`` each: the inputs of each direction's LSTM layers
            (layer 1's input is the token vectors; the backward LM's are in its reading order).
        top_forward, top_backward: ``(B, T - 1, d)``: the top states that predict the next
            (previous) word.
    """

    forward: list[torch.Tensor]
    backward: list[torch.Tensor]
    top_forward: torch.Tensor
    top_backward: torch.Tensor


def draw_dropout_masks(batch: int, length: int, dim: int, layers: int, p: float,
                       device: torch.device) -> DropoutMasks | None:
    """The masks of one training batch, drawn from torch's generator in the order the directions use
    them one after the other (forward layers, backward layers, forward top, backward top), each laid
    out in row-major order (``torch.nn.functional.dropout`` follows its input's memory layout, which
    for an LSTM's output is not row-major, so the draws are not the ones it would make). None when
    ``p`` is 0 (nothing is dropped and nothing drawn)."""
    if p == 0:
        return None
    keep = 1 - p

    def draw(*shape):
        return torch.empty(shape, device=device).bernoulli_(keep)

    forward = [draw(batch, length, dim) for _ in range(layers)]
    backward = [draw(batch, length, dim) for _ in range(layers)]
    return DropoutMasks(forward, backward, draw(batch, length - 1, dim), draw(batch, length - 1, dim))


def dropped(x: torch.Tensor, mask: torch.Tensor | None, p: float) -> torch.Tensor:
    """Inverted dropout of ``x`` with a drawn keep-mask: x * mask / (1 - p) (``x`` itself without a mask)."""
    if mask is None:
        return x
    return x * mask.to(x.dtype).div_(1 - p)


def reverse_within_lengths(mask: torch.Tensor) -> torch.Tensor:
    """``(B, T)`` int64 index that reverses each row's first ``length`` positions and leaves padding
    in place: ``x.gather(1, index)`` reverses, and applying it twice gives ``x`` back."""
    lengths = mask.sum(1, keepdim=True)
    positions = torch.arange(mask.shape[1], device=mask.device).expand_as(mask)
    return torch.where(positions < lengths, lengths - 1 - positions, positions)


def _gather_time(x: torch.Tensor, index: torch.Tensor) -> torch.Tensor:
    """``x`` ``(B, T, D)`` reordered along T by ``index`` ``(B, T)``."""
    return x.gather(1, index.unsqueeze(2).expand_as(x))


class DirectionalLM(nn.Module):
    """The L LSTM layers of one direction, with projection, residual connections and dropout."""

    def __init__(self, config: ElmoConfig):
        super().__init__()
        d = config.projection_dim
        if config.cell_clip is None and config.proj_clip is None:
            self.layers = nn.ModuleList(nn.LSTM(d, config.lstm_dim, proj_size=d, batch_first=True)
                                        for _ in range(config.num_layers))
        else:
            self.layers = nn.ModuleList(ClippedLSTMP(d, config.lstm_dim, d, config.cell_clip, config.proj_clip)
                                        for _ in range(config.num_layers))
        self.residual = config.residual
        self.dropout = nn.Dropout(config.dropout)

    def forward(self, x: torch.Tensor, state=None, masks: list[torch.Tensor] | None = None):
        """``x`` ``(B, T, d)`` in reading order -> (L tensors ``(B, T, d)``, the final (h, c) of each layer).

        ``state``: per layer ``(h, c)`` to start from (for generating word by word), or None.
        ``masks``: per layer the dropout keep-mask of its input (:class:`DropoutMasks`), or None:
        dropout draws its own (in training mode).
        """
        outputs, finals = [], []
        h = x
        for j, lstm in enumerate(self.layers):
            h_in = self.dropout(h) if masks is None else dropped(h, masks[j], self.dropout.p)
            # On the CPU, PyTorch runs projected LSTMs with its own kernels instead of oneDNN's, and says so;
            # that is expected here (and measured faster than an unprojected LSTM).
            with warnings.catch_warnings():
                warnings.filterwarnings("ignore", message=ONEDNN_NOTE)
                out, final = lstm(h_in, None if state is None else state[j])
            h = out + h if j > 0 and self.residual else out  # the residual connection between layers
            outputs.append(h)
            finals.append(final)
        return outputs, finals


class BiLM(nn.Module):
    """Forward and backward LSTM language models over a shared token encoder and softmax.

    Args:
        config: the sizes (see :class:`~course.elmo.config.ElmoConfig`).
        num_characters: size of the character vocabulary.
        vocab_size: V, words of the softmax.
        seed: the weights are drawn from this seed (the global random state is left alone), so the
            same seed gives the same untrained model.
    """

    def __init__(self, config: ElmoConfig, num_characters: int, vocab_size: int, seed: int | None = None):
        super().__init__()
        self.config = config
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(config.seed if seed is None else seed)
            self.token_encoder = TokenEncoder(config, num_characters)
            self.forward_lm = DirectionalLM(config)
            self.backward_lm = DirectionalLM(config)
            self.dropout = nn.Dropout(config.dropout)
            adaptive = config.softmax == "adaptive" or (config.softmax == "auto" and vocab_size > FULL_SOFTMAX_LIMIT)
            if config.softmax == "none":
                self.softmax = None
            elif adaptive:
                self.softmax = nn.AdaptiveLogSoftmaxWithLoss(config.projection_dim, vocab_size,
                                                             _cutoffs(config, vocab_size), div_value=ADAPTIVE_DIV)
            else:
                self.softmax = nn.Linear(config.projection_dim, vocab_size)
        self.adaptive = adaptive

    def forward(self, char_ids: torch.Tensor, mask: torch.Tensor, index: torch.Tensor | None = None,
                initial: dict | None = None) -> BiLMStates:
        """States of ``<bos> w_1 .. w_n <eos>`` sentences.

        Args:
            char_ids: ``(B, T, C)`` the characters at each position; or, with ``index``, ``(U, C)``
                the characters of the U distinct words of the batch.
            mask: ``(B, T)`` bool, True at real positions.
            index: ``(B, T)`` int64, the row of ``char_ids`` at each position (any row at padding).
            initial: the states to start each direction from (a previous call's
                ``BiLMStates.final``), or None: zeros.
        """
        x = self.token_vectors(char_ids, index)
        initial = initial or {}
        forward, forward_final = self.forward_lm(x, initial.get("forward"))
        reverse = reverse_within_lengths(mask)
        backward, backward_final = self.backward_lm(_gather_time(x, reverse), initial.get("backward"))
        backward = [_gather_time(h, reverse) for h in backward]
        return BiLMStates(x, forward, backward, mask, {"forward": forward_final, "backward": backward_final})

    def target_log_probabilities(self, hidden: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        """``hidden`` ``(N, d)``, ``targets`` ``(N,)`` -> ``(N,)`` log p(target | hidden), in float32."""
        self._needs_softmax()
        if self.adaptive:  # in float32: AdaptiveLogSoftmaxWithLoss mixes dtypes under autocast
            with torch.autocast(hidden.device.type, enabled=False):
                return self.softmax(hidden.float(), targets).output
        logits = self.softmax(hidden).float()  # (N, V)
        return -nn.functional.cross_entropy(logits, targets, reduction="none")

    def log_probabilities(self, hidden: torch.Tensor) -> torch.Tensor:
        """``(N, d)`` -> ``(N, V)`` log p(w | hidden) of every word."""
        self._needs_softmax()
        if self.adaptive:
            with torch.autocast(hidden.device.type, enabled=False):
                return self.softmax.log_prob(hidden.float())
        return torch.log_softmax(self.softmax(hidden).float(), dim=-1)

    def _needs_softmax(self) -> None:
        if self.softmax is None:
            raise SettingError("this biLM has no softmax (it was converted from weights published without one): it "
                               "gives ELMo's layers, but no word probabilities, perplexity or sampled text")

    def negative_log_likelihoods(self, states: BiLMStates, targets: torch.Tensor):
        """Per-prediction losses of both directions.

        Args:
            states: from :meth:`forward` (training mode applies dropout to the top states).
            targets: ``(B, T)`` vocabulary ids of the same positions (``<bos>`` ... ``<eos>``; any
                valid id at padding).

        Returns:
            ``(forward_nll, backward_nll)``, each ``(B, T - 1)`` float32, zero where there is no
            prediction: ``forward_nll[b, k]`` = -log p(w_{k+1} | w_0 .. w_k) and
            ``backward_nll[b, k]`` = -log p(w_k | w_{k+1} .. end). The valid entries are
            ``mask[:, 1:]`` (position k + 1 is real). Padded positions are computed and zeroed
            rather than gathered out, so that nothing waits for the GPU.
        """
        pairs = states.mask[:, 1:].float()  # (B, T - 1)
        d = states.forward[-1].shape[-1]
        forward_hidden = self.dropout(states.forward[-1][:, :-1]).reshape(-1, d)  # state at k predicts k + 1
        backward_hidden = self.dropout(states.backward[-1][:, 1:]).reshape(-1, d)  # state at k + 1 predicts k
        forward_nll = -self.target_log_probabilities(forward_hidden, targets[:, 1:].reshape(-1))
        backward_nll = -self.target_log_probabilities(backward_hidden, targets[:, :-1].reshape(-1))
        return forward_nll.view_as(pairs) * pairs, backward_nll.view_as(pairs) * pairs

    def token_vectors(self, char_ids: torch.Tensor, index: torch.Tensor | None = None) -> torch.Tensor:
        """``(B, T, d)`` the token encoder's vectors x_k (layer 0); ``char_ids`` and ``index`` as in :meth:`forward`.

        With ``index``, the distinct words are encoded in two halves (:func:`~course.elmo.token_encoder.halves`),
        as the directions side by side encode them, one half per thread."""
        if index is None:
            return self.token_encoder(char_ids)
        return torch.cat([self.token_encoder.encode_distinct(part) for part in halves(char_ids)])[index]

    def dropout_masks(self, x: torch.Tensor) -> DropoutMasks | None:
        """The dropout masks of a training batch whose token vectors are ``x`` ``(B, T, d)`` (None in
        evaluation mode, or without dropout)."""
        if not self.training:
            return None
        batch, length, dim = x.shape
        return draw_dropout_masks(batch, length, dim, len(self.forward_lm.layers), self.dropout.p, x.device)

    def direction_nll(self, x: torch.Tensor, mask: torch.Tensor, targets: torch.Tensor, direction: str,
                      masks: DropoutMasks | None = None) -> torch.Tensor:
        """One direction's summed negative log-likelihood of a batch (a scalar, float32).

        Args:
            x: ``(B, T, d)`` token vectors (:meth:`token_vectors`).
            mask, targets: ``(B, T)`` as in :meth:`loss`.
            direction: ``"forward"`` (the state at k predicts w_{k+1}) or ``"backward"`` (the state at
                k + 1 predicts w_k).
            masks: the batch's dropout masks (:meth:`dropout_masks`), or None: no dropout.
        """
        p = self.dropout.p
        if direction == "forward":
            layers, _ = self.forward_lm(x, masks=None if masks is None else masks.forward)
            hidden = dropped(layers[-1][:, :-1], None if masks is None else masks.top_forward, p)
            wanted = targets[:, 1:]
        else:
            reverse = reverse_within_lengths(mask)
            layers, _ = self.backward_lm(_gather_time(x, reverse), masks=None if masks is None else masks.backward)
            hidden = dropped(_gather_time(layers[-1], reverse)[:, 1:], None if masks is None else masks.top_backward,
                             p)
            wanted = targets[:, :-1]
        nll = -self.target_log_probabilities(hidden.reshape(-1, hidden.shape[-1]), wanted.reshape(-1))
        return (nll.view_as(wanted) * mask[:, 1:].float()).sum()

    def loss(self, char_ids: torch.Tensor, mask: torch.Tensor, targets: torch.Tensor,
             index: torch.Tensor | None = None, predictions: int | None = None):
        """The biLM loss of a batch: ``(loss, forward_sum, backward_sum)``, all tensors.

        ``loss`` is the sum of the two directions' mean negative log-likelihoods per prediction (the
        tensor to call ``backward()`` on); ``forward_sum`` and ``backward_sum`` (detached) are the
        summed negative log-likelihoods, so that with ``predictions`` = ``mask[:, 1:].sum()`` (pass it
        to spare a GPU round trip) the perplexity of a direction is exp(sum / predictions).
        """
        x = self.token_vectors(char_ids, index)
        masks = self.dropout_masks(x)
        forward_sum = self.direction_nll(x, mask, targets, "forward", masks)
        backward_sum = self.direction_nll(x, mask, targets, "backward", masks)
        if predictions is None:
            predictions = int(mask[:, 1:].sum())
        loss = (forward_sum + backward_sum) / max(predictions, 1)
        return loss, forward_sum.detach(), backward_sum.detach()

    @torch.no_grad()
    def next_word_log_probabilities(self, char_ids: torch.Tensor, state=None):
        """One step of the forward LM, for generating text.

        ``char_ids`` ``(B, 1, C)``: the latest word of each of B sequences; ``state``: what the
        previous call returned (None at ``<bos>``). Returns ``((B, V) log-probabilities, state)``.
        """
        outputs, state = self.forward_lm(self.token_encoder(char_ids), state)
        return self.log_probabilities(outputs[-1][:, -1]), state
