"""BERT's masked-language-model corruption (Devlin et al., 2019, section 3.1).

Each word position is chosen for prediction with probability ``share`` (15%), independently;
special positions (padding, ``<bos>``, ``<eos>``, ...) never are. Of the chosen positions

- 80% are replaced by ``<mask>``,
- 10% by a word drawn uniformly from the vocabulary (special tokens excepted),
- 10% keep their word,

so the model cannot tell from the input which positions it will be asked about, and must keep
a good vector for every word, not only for ``<mask>``. The loss is the cross-entropy at the
chosen positions only; every other target is :data:`IGNORE` (-100, ``cross_entropy``'s
``ignore_index``).
"""

from __future__ import annotations

from collections.abc import Sequence

import torch

IGNORE = -100  # the target of a position that is not predicted
MASK_SHARE, RANDOM_SHARE = 0.8, 0.1  # of the chosen positions; the remaining 0.1 keep their word


def mask_tokens(ids: torch.Tensor, mask_id: int, vocab_size: int, special_ids: Sequence[int] = (),
                share: float = 0.15, generator: torch.Generator | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """Corrupt a batch for the masked objective.

    Args:
        ids: ``(B, T)`` int64 token ids.
        mask_id: the id of ``<mask>``.
        vocab_size: V; random replacements are drawn from ``0 .. V - 1`` less ``special_ids``.
        special_ids: ids that are never chosen (padding among them) nor drawn as a replacement.
        share: the probability that a position (not special) is chosen.
        generator: the random numbers (a ``torch.Generator`` on ``ids``'s device), for repeatable masks.

    Returns:
        ``(inputs, targets)``, both ``(B, T)`` int64: the corrupted ids, and the original id at the
        chosen positions and :data:`IGNORE` elsewhere.
    """
    specials = torch.as_tensor(list(special_ids) + [mask_id], dtype=ids.dtype, device=ids.device)
    eligible = ~torch.isin(ids, specials)
    chosen = eligible & (torch.rand(ids.shape, generator=generator, device=ids.device) < share)
    how = torch.rand(ids.shape, generator=generator, device=ids.device)
    to_mask = chosen & (how < MASK_SHARE)
    to_random = chosen & (how >= MASK_SHARE) & (how < MASK_SHARE + RANDOM_SHARE)
    words = torch.arange(vocab_size, device=ids.device)
    words = words[~torch.isin(words, specials)]
    random_words = words[torch.randint(len(words), ids.shape, generator=generator, device=ids.device)]
    inputs = torch.where(to_mask, torch.full_like(ids, mask_id), ids)
    inputs = torch.where(to_random, random_words, inputs)
    targets = torch.where(chosen, ids, torch.full_like(ids, IGNORE))
    return inputs, targets
