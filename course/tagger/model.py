"""The task model: a BiLSTM that gives every word a score per BIO label.

For a batch of B sentences of up to T words, with an input giving D numbers per word::

    e = dropout(input(sentences))                   (B, T, D)
    h = [LSTM->(e); reverse(LSTM<-(reverse(e)))]     (B, T, 2 H)
    scores = W dropout(h) + b                       (B, T, labels)

``reverse`` turns each sentence around within its own length, so the backward LSTM starts at the
sentence's last word, never at padding (cheaper on a CPU than packing the batch).

With ``elmo_at_output`` (an ELMo input only; Peters et al., 2018, section 3.3) the pretrained layers
R_k = (h_{k,0}, ..., h_{k,L}), each (B, T, E), also reach the output, mixed by a second ScalarMix
with weights of its own::

    e = dropout([x_k; ELMo_k^in])                   (B, T, W + E)     ELMo_k^in  = gamma sum_j s_j h_{k,j}
    h = BiLSTM(e)                                   (B, T, 2 H)
    scores = W [dropout(h); ELMo_k^out] + b         (B, T, labels)    ELMo_k^out = gamma' sum_j s'_j h_{k,j}

(``ELMo_k^out`` with its own dropout, ``elmo_dropout``); the layers are computed once for both mixes.

and the loss is the mean cross-entropy of the gold labels over real words, plus lambda * ||w||^2
on each ELMo mix's weights when there is a mix. Each word's label is the highest score: no CRF
layer, so an ``I-PER`` after ``O`` can happen and is read as a new entity (the CoNLL rule); the
comparison here is of inputs, and every input gets the same tagger.
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from ..core.errors import SettingError
from ..elmo.scalar_mix import ScalarMix
from .config import TaggerConfig
from .inputs import ElmoInput, lengths_of, padding_mask


def reversal(lengths: torch.Tensor) -> torch.Tensor:
    """``(B, T, 1)`` positions that turn each sentence around within its length: position t of
    sentence b takes word ``lengths[b] - 1 - t``; padding (t >= length) stays where it is."""
    width = int(lengths.max())
    t = torch.arange(width)[None, :]
    index = torch.where(t < lengths[:, None], lengths[:, None] - 1 - t, t)
    return index[..., None]


class Tagger(nn.Module):
    """A BiLSTM tagger over any of the inputs of :mod:`course.tagger.inputs`.

    Args:
        inputs: the input module (``forward(sentences) -> (B, T, D)``, with a ``dim`` of D).
        labels: the label names, ``"O"`` first.
        config: the settings (``hidden_dim``, ``dropout``, ``mix_penalty``, ``elmo_at_output``).

    With ``config.elmo_at_output`` the output layer reads ``2 H + E`` numbers per word (E: the
    pretrained layers' size) and ``output_mix`` is the second :class:`~course.elmo.ScalarMix`.
    """

    def __init__(self, inputs: nn.Module, labels, config: TaggerConfig):
        super().__init__()
        self.inputs = inputs
        self.labels = list(labels)
        self.label_index = {label: i for i, label in enumerate(self.labels)}
        self.config = config
        self.dropout = nn.Dropout(config.dropout)
        self.forward_lstm = nn.LSTM(inputs.dim, config.hidden_dim, batch_first=True)
        self.backward_lstm = nn.LSTM(inputs.dim, config.hidden_dim, batch_first=True)
        self.output_mix = None
        elmo_dim = 0
        if config.elmo_at_output:
            if not isinstance(inputs, ElmoInput):
                raise SettingError("elmo_at_output needs an ELMo input (the elmo or bert inputs)")
            self.output_mix = ScalarMix(inputs.mix.num_layers)
            self.output_mix_dropout = nn.Dropout(config.elmo_dropout)
            elmo_dim = inputs.dim - inputs.embeddings.dim
        self.output = nn.Linear(2 * config.hidden_dim + elmo_dim, len(self.labels))

    @property
    def device(self) -> torch.device:
        return self.output.weight.device

    def forward(self, sentences) -> torch.Tensor:
        """``(B, T, labels)`` scores of each label for each word (T: the longest sentence)."""
        if self.output_mix is None:
            e = self.dropout(self.inputs(sentences))
        else:
            layers = self.inputs.layers(sentences)                          # (L + 1, B, T, E)
            mask = padding_mask(sentences).to(layers.device)
            elmo_in = self.inputs.mix_dropout(self.inputs.mix(layers, mask))
            e = self.dropout(torch.cat([self.inputs.embeddings(sentences), elmo_in], dim=-1))
        order = reversal(lengths_of(sentences)).to(e.device)
        forward = self.forward_lstm(e)[0]
        backward = self.backward_lstm(e.gather(1, order.expand_as(e)))[0]
        backward = backward.gather(1, order.expand_as(backward))
        h = self.dropout(torch.cat([forward, backward], dim=-1))              # (B, T, 2 H)
        if self.output_mix is not None:
            h = torch.cat([h, self.output_mix_dropout(self.output_mix(layers, mask))], dim=-1)  # (B, T, 2 H + E)
        return self.output(h)

    def loss(self, sentences, labels) -> torch.Tensor:
        """Mean cross-entropy of the gold ``labels`` (one list per sentence) + lambda ||w||^2."""
        scores = self(sentences)
        mask = padding_mask(sentences).to(self.device)
        gold = torch.zeros(mask.shape, dtype=torch.int64)
        for row, sentence_labels in enumerate(labels):
            gold[row, :len(sentence_labels)] = torch.tensor([self.label_index[label] for label in sentence_labels])
        loss = nn.functional.cross_entropy(scores[mask], gold.to(self.device)[mask])
        if isinstance(self.inputs, ElmoInput):
            loss = loss + self.config.mix_penalty * (self.inputs.mix.scalar_parameters ** 2).sum()
        if self.output_mix is not None:
            loss = loss + self.config.mix_penalty * (self.output_mix.scalar_parameters ** 2).sum()
        return loss

    @torch.no_grad()
    def predict(self, sentences, batch_size: int = 128) -> list[list[str]]:
        """The best label of every word of every sentence (in eval mode: no dropout)."""
        was_training = self.training
        self.eval()
        try:
            sentences = [list(sentence) for sentence in sentences]
            out: list[list[str]] = [[] for _ in sentences]
            order = np.argsort([len(sentence) for sentence in sentences], kind="stable")  # less padding
            for start in range(0, len(order), batch_size):
                rows = order[start:start + batch_size]
                best = self([sentences[i] for i in rows]).argmax(-1).cpu().numpy()
                for row, i in enumerate(rows):
                    out[i] = [self.labels[label] for label in best[row, :len(sentences[i])]]
            return out
        finally:
            self.train(was_training)

    def mix_weights(self) -> np.ndarray | None:
        """``(L + 1,)`` softmax(w), the learned weight of each ELMo layer; None without ELMo."""
        if not isinstance(self.inputs, ElmoInput):
            return None
        return self.inputs.mix.weights.detach().cpu().numpy()

    def output_mix_weights(self) -> np.ndarray | None:
        """``(L + 1,)`` softmax(w') of the output's mix; None without ``elmo_at_output``."""
        if self.output_mix is None:
            return None
        return self.output_mix.weights.detach().cpu().numpy()
