"""Transformers from scratch: a GPT-style causal language model and a BERT-style masked one
(Vaswani et al., 2017; Radford et al., 2018; Devlin et al., 2019), whose layers the course's
probes read as they read ELMo's.

One job per file:

- :mod:`~course.transformer.config`: :class:`TransformerConfig` and the ``cpu`` and ``gpu`` presets;
- :mod:`~course.transformer.attention`: softmax(Q K^T / sqrt(d_k) + M) V written out, the causal
  mask, multi-head self-attention;
- :mod:`~course.transformer.block`: one pre-LN block: attention and feed-forward, each with a
  residual connection;
- :mod:`~course.transformer.masking`: BERT's 15% / 80-10-10 corruption;
- :mod:`~course.transformer.lm`: :class:`TransformerLM`, the network: embeddings, blocks, tied softmax, losses;
- :mod:`~course.transformer.data`: sentences as ids, split to the position table, and batches;
- :mod:`~course.transformer.perplexity`: the perplexity over a set of sentences, per objective;
- :mod:`~course.transformer.training`: :func:`train_transformer`: warm-up and cosine decay,
  held-out perplexity after each epoch, checkpoints, resuming;
- :mod:`~course.transformer.embedder`: the L + 1 layers of each token of a sentence;
- :mod:`~course.transformer.model`: :class:`Transformer`, everything above in one object, and its file;
- :mod:`~course.transformer.bert_input`: one BERT pretraining example, ``[CLS] A [SEP] B [SEP]`` with segments;
- :mod:`~course.transformer.classifier`: :func:`~course.transformer.classifier.fine_tune`, a pretrained model
  fine-tuned with a classifier head, GPT's input transformation or BERT's ``[CLS]``, on single texts or pairs;
- :mod:`~course.transformer.next_sentence`: BERT pretrained on pairs of sentences with segments, the masked LM
  and next-sentence prediction, or the masked LM alone on the same pairs.

Which Transformers each notebook trains or loads is :mod:`course.shared.transformers`' job.

What it shares with the biLM and ULMFiT (the training state, the held-out split, precision, the model
file, resuming, keeping the best, the bookkeeping of a run) is in :mod:`course.lm`.
"""

from ..core.lazy import lazy_attributes
from .config import TransformerConfig, preset

# The rest is imported on first use: it loads torch, which the settings do not need.
__getattr__ = lazy_attributes(__name__, {
    "MultiHeadSelfAttention": "attention", "causal_mask": "attention", "scaled_dot_product_attention": "attention",
    "TransformerBlock": "block",
    "TransformerLM": "lm", "TransformerStates": "lm", "IGNORE": "masking", "mask_tokens": "masking",
    "TrainingState": "model", "Transformer": "model", "load_transformer": "model", "learning_rate": "training",
    "train_transformer": "training"})

__all__ = [
    "IGNORE",
    "MultiHeadSelfAttention",
    "TrainingState",
    "Transformer",
    "TransformerBlock",
    "TransformerConfig",
    "TransformerLM",
    "TransformerStates",
    "causal_mask",
    "learning_rate",
    "load_transformer",
    "mask_tokens",
    "preset",
    "scaled_dot_product_attention",
    "train_transformer",
]
