"""ULMFiT's language model: the forward half of the course's biLM.

ULMFiT (Howard and Ruder, 2018) fine-tunes a left-to-right LSTM language model. The course's biLM
has one: its token encoder (char-CNN, highway, projection: x_k), the forward LSTM layers
(h_{k,1} .. h_{k,L}) and the softmax, which together give p(w_{k+1} | w_1 .. w_k). The backward
LSTMs are not used here (the paper trains a backward model too and averages the two classifiers;
this course keeps to one).

Because the input side reads characters, the LM takes any word, also one it never saw; only the
softmax has a vocabulary (People's Daily's, for the Chinese biLM), so when the LM is fine-tuned on
reviews, a word outside it is predicted as ``<unk>``.

Layer groups, bottom first, are what discriminative rates and gradual unfreezing work on: the
token encoder, then each LSTM layer.
"""

from __future__ import annotations

import copy

import torch
from torch import nn

from ..core.errors import SettingError
from ..elmo.batching import SentenceBatch
from ..elmo.bilm import BiLM
from ..elmo.characters import character_coverage

MIN_COVERAGE = 0.5  # a classifier's LM must read at least this share of the labelled texts' characters


class ForwardLM(nn.Module):
    """The forward LM of an :class:`~course.elmo.Elmo`: token encoder, LSTM layers and softmax.

    Args:
        elmo: the pretrained biLM and its vocabularies.
        pretrained: True: a copy of its weights; False: the same network with weights drawn at
            random from ``seed`` (training from scratch).
        seed: for the random weights.
        shared: use ``elmo``'s own biLM, not a copy (for measuring, never for training).
    """

    def __init__(self, elmo, pretrained: bool = True, seed: int = 1, shared: bool = False):
        super().__init__()
        if shared:
            bilm = elmo.bilm
        elif pretrained:
            bilm = copy.deepcopy(elmo.bilm)
        else:
            bilm = BiLM(elmo.config, len(elmo.characters), len(elmo.words), seed=seed).to(elmo.device)
        if not shared:
            bilm.backward_lm.requires_grad_(False)
        self.bilm = bilm
        self.characters, self.words, self.elmo_config = elmo.characters, elmo.words, elmo.config
        self.dim = elmo.config.projection_dim

    @property
    def device(self) -> torch.device:
        return next(self.parameters()).device

    def layer_groups(self) -> list[nn.Module]:
        """Bottom first: the token encoder, then each forward LSTM layer (L + 1 groups)."""
        return [self.bilm.token_encoder, *self.bilm.forward_lm.layers]

    def forward(self, sentences) -> tuple[torch.Tensor, torch.Tensor]:
        """``<bos> w_1 .. w_n <eos>`` of each sentence -> ``(h, mask)``: ``h`` ``(B, T, d)`` the top
        LSTM layer at every position, ``mask`` ``(B, T)`` True at real positions (T = longest n + 2)."""
        char_ids, mask = self.characters.encode_sentences([list(s) for s in sentences])
        device = self.device
        x = self.bilm.token_encoder(torch.from_numpy(char_ids).to(device))  # (B, T, d)
        layers, _ = self.bilm.forward_lm(x)
        return layers[-1], torch.from_numpy(mask).to(device)

    def batch_loss(self, batch: SentenceBatch) -> tuple[torch.Tensor, torch.Tensor]:
        """Mean and sum of -log p(w_{k+1} | w_0 .. w_k) over a batch from
        :class:`~course.elmo.batching.LanguageModelData` (every word and ``<eos>`` predicted)."""
        x = self.bilm.token_encoder.encode_distinct(batch.char_ids)[batch.index]
        layers, _ = self.bilm.forward_lm(x)
        d = layers[-1].shape[-1]
        hidden = self.bilm.dropout(layers[-1][:, :-1]).reshape(-1, d)  # the state at k predicts k + 1
        nll = -self.bilm.target_log_probabilities(hidden, batch.targets[:, 1:].reshape(-1))
        total = (nll.view(batch.mask.shape[0], -1) * batch.mask[:, 1:]).sum()
        return total / max(batch.predictions, 1), total.detach()


def coverage(lm, sentences) -> float:
    """The share of the words of ``sentences`` that the softmax vocabulary of ``lm`` (a
    :class:`ForwardLM` or an :class:`~course.elmo.Elmo`) holds."""
    known = lm.words.word_to_id
    words = [word for sentence in sentences for word in sentence]
    return sum(word in known for word in words) / max(len(words), 1)


def check_vocabulary(lm, sentences, where: str = "the LM") -> float:
    """Refuse an LM of another vocabulary: one that can read less than :data:`MIN_COVERAGE` of the
    characters of ``sentences`` (an English LM under Chinese reviews reads almost none; a small
    Chinese LM whose softmax lacks many review words still reads their characters).

    ``lm``: a :class:`ForwardLM` or an :class:`~course.elmo.Elmo`. Returns the character coverage.

    Raises:
        SettingError: one line with the coverage and what to do.
    """
    share = character_coverage(lm, sentences)
    if share < MIN_COVERAGE:
        raise SettingError(f"{where} knows {share:.1%} of the characters of these texts (at least {MIN_COVERAGE:.0%} "
                           f"needed): it was trained on another vocabulary (another language or corpus); pretrain "
                           f"it on text like these, e.g. the Chinese biLM of python -m course train elmo --corpus "
                           f"peoples-daily-zh")
    return share
