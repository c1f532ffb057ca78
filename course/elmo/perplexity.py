"""Perplexity of each direction of the biLM over a whole set of sentences.

For N predictions (every word of every sentence, and its end: ``<eos>`` for the forward LM,
``<bos>`` for the backward one),

    perplexity = exp(-(1/N) sum_k log p(t_k | t_1 .. t_{k-1}))      (forward)
    perplexity = exp(-(1/N) sum_k log p(t_k | t_{k+1} .. t_n))      (backward),

measured without dropout. On a CPU the passes run in float32, on CUDA in the precision training uses.
"""

from __future__ import annotations

import torch

from ..core.divergence import perplexity
from ..lm.precision import autocast, autocast_dtype
from .batching import LanguageModelData
from .config import ElmoConfig


@torch.no_grad()
def evaluate_perplexity(bilm, data: LanguageModelData, config: ElmoConfig, batch_tokens: int | None = None) -> dict:
    """Perplexity of each direction over all of ``data``: ``{"forward", "backward", "predictions"}``,
    with exp(mean negative log-likelihood per prediction), ``<eos>`` and ``<bos>`` included.

    ``bilm`` is put in eval mode while measuring (no dropout), then back in the mode it was in;
    batches hold about ``batch_tokens`` tokens (default: twice the training batches).
    """
    device = next(bilm.parameters()).device
    dtype = autocast_dtype(config.precision, device) if device.type == "cuda" else None  # the CPU measures in float32
    was_training = bilm.training
    bilm.eval()
    sums = torch.zeros(2, dtype=torch.float64, device=device)
    predictions = 0
    try:
        for group in data.batches(batch_tokens or 2 * config.batch_tokens):
            batch = data.batch(group).to(device)
            with autocast(device, dtype):
                _, forward_sum, backward_sum = bilm.loss(batch.char_ids, batch.mask, batch.targets, batch.index,
                                                         batch.predictions)
            sums += torch.stack([forward_sum, backward_sum]).double()
            predictions += batch.predictions
    finally:
        bilm.train(was_training)
    forward, backward = (sums / max(predictions, 1)).tolist()
    return {"forward": perplexity(forward), "backward": perplexity(backward), "predictions": predictions}
