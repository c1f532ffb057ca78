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
- :mod:`~course.transformer.course_models`: the models the notebooks share, per corpus, objective and profile.
"""

import os

# As in course.elmo: OpenMP threads that sleep rather than spin while they wait, on a shared CPU.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

from .attention import MultiHeadSelfAttention, causal_mask, scaled_dot_product_attention  # noqa: E402
from .block import TransformerBlock  # noqa: E402
from .config import TransformerConfig, preset  # noqa: E402
from .course_models import course_config, course_transformer  # noqa: E402
from .lm import TransformerLM, TransformerStates  # noqa: E402
from .masking import IGNORE, mask_tokens  # noqa: E402
from .model import TrainingState, Transformer  # noqa: E402
from .training import learning_rate, train_transformer  # noqa: E402

load_transformer = Transformer.load

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
    "course_config",
    "course_transformer",
    "learning_rate",
    "load_transformer",
    "mask_tokens",
    "preset",
    "scaled_dot_product_attention",
    "train_transformer",
]
