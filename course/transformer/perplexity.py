"""Perplexity of a Transformer LM over a whole set of sentences, measured without dropout.

- causal: over every word of every sentence and its ``<eos>`` (N = n + 1 per sentence; ``<unk>``
  counted like any word), exactly what ELMo's forward direction counts, so the two compare:

      perplexity = exp(-(1/N) sum_k log p(w_k | <bos> w_1 .. w_{k-1}));

- masked: over the positions :func:`~course.transformer.masking.mask_tokens` chose (words of the
  vocabulary, never ``<unk>``), each
  predicted from the rest of its (corrupted) sentence. The masks are drawn from a fixed seed per
  batch, so the same sentences are always masked alike and the figure is repeatable. It is not
  a language model's perplexity (each word is guessed from both sides, with most of the sentence
  in view), so it does not compare with the causal one or with ELMo's.
"""

from __future__ import annotations

import numpy as np
import torch

from ..core.divergence import perplexity
from ..lm.precision import autocast, autocast_dtype
from .config import TransformerConfig
from .data import Batch, SentenceIds
from .masking import mask_tokens

EVALUATION_SEED = 12_345  # the masks of held-out sentences (with the batch number)


def precision_dtype(config: TransformerConfig, device: torch.device) -> torch.dtype | None:
    """The autocast dtype of a Transformer's passes (:func:`course.lm.precision.autocast_dtype`):
    bfloat16 with ``precision="bf16"``, and with ``"auto"`` where the device multiplies bfloat16
    natively (a GPU that has it; a CPU with AVX-512 BF16 or AMX, where it measured 1.6 to 1.8 times
    float32's tokens/s); else None (float32). Weights and softmax stay float32."""
    return autocast_dtype(config.precision, device, cuda_auto="bf16")


def generator(*parts: int) -> torch.Generator:
    """A CPU random generator seeded from the integers ``parts`` (seed, epoch, batch ...)."""
    seed = int(np.random.SeedSequence([int(p) for p in parts]).generate_state(1)[0])
    return torch.Generator().manual_seed(seed)


def corrupt(batch: Batch, words, config: TransformerConfig, rng: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
    """:func:`mask_tokens` on a batch (on the CPU): ``(inputs, targets)``. Only vocabulary words
    are chosen and drawn as replacements: never a special token, ``<unk>`` included (a word
    outside the vocabulary stays ``<unk>`` in the input and is never predicted)."""
    specials = [words.pad_id, words.unk_id, words.bos_id, words.eos_id]
    return mask_tokens(batch.ids, words.word_to_id["<mask>"], len(words), specials, config.mask_share, rng)


@torch.no_grad()
def evaluate_perplexity(network, data: SentenceIds, config: TransformerConfig,
                        batch_tokens: int | None = None) -> dict:
    """``{"perplexity", "predictions"}`` over all of ``data``, exp(mean negative log-likelihood per
    prediction). ``network`` is put in eval mode while measuring, then back in its mode; batches
    hold about ``batch_tokens`` positions (default: twice the training batches)."""
    device = next(network.parameters()).device
    dtype = precision_dtype(config, device) if device.type == "cuda" else None  # the CPU measures in float32
    was_training = network.training
    network.eval()
    total, predictions = torch.zeros((), dtype=torch.float64, device=device), 0
    try:
        for number, group in enumerate(data.batches(batch_tokens or 2 * config.batch_tokens)):
            batch = data.batch(group)
            ids, targets = batch.ids, None
            if config.objective == "masked":
                ids, targets = corrupt(batch, data.words, config, generator(EVALUATION_SEED, number))
                targets = targets.to(device)
            with autocast(device, dtype):
                _, nll, count = network.loss(ids.to(device), batch.mask.to(device), targets)
            total += nll.double()
            predictions += count
    finally:
        network.train(was_training)
    return {"perplexity": perplexity(float(total) / max(predictions, 1)), "predictions": predictions}
