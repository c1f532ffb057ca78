"""ELMo from scratch: a character-aware bidirectional LSTM language model and its deep,
contextual word vectors (Peters et al., 2018).

One job per file:

- :mod:`~course.elmo.config`: :class:`ElmoConfig` and the ``cpu`` and ``gpu`` presets;
- :mod:`~course.elmo.characters`: words as rows of character ids;
- :mod:`~course.elmo.token_encoder`: char-CNN, highway layers and projection (layer 0);
- :mod:`~course.elmo.bilm`: the forward and backward LSTM language models and their loss;
- :mod:`~course.elmo.scalar_mix`: the task-weighted mix gamma * sum_j softmax(w)_j h_j;
- :mod:`~course.elmo.batching`: a corpus as batches of equal-length sentences;
- :mod:`~course.elmo.precision`: float32, bfloat16 or float16 (autocast) per device;
- :mod:`~course.elmo.perplexity`: the perplexity of each direction over a set of sentences;
- :mod:`~course.elmo.training`: :func:`train_elmo`: the learning-rate schedule, resuming,
  held-out perplexity after each epoch, checkpoints;
- :mod:`~course.elmo.embedder`: the L + 1 layers of each token of a sentence;
- :mod:`~course.elmo.sampling`: sentences drawn from the forward LM;
- :mod:`~course.elmo.model`: :class:`Elmo`, everything above in one object, and its file;
- :mod:`~course.elmo.course_models`: the biLMs the notebooks share, per corpus and profile.
"""

import os

# PyTorch's CPU kernels use OpenMP, whose threads by default spin while they wait for work. On a
# 2-core machine that anything else also uses, the spinning threads take the cores from the ones
# with work: measured here, a projected LSTM ran 8 times slower. Sleeping instead costs little on
# an idle machine. OpenMP reads this once, when PyTorch is first imported, so it only takes effect
# when this package is imported before torch (as the command line and the notebooks do); an
# OMP_WAIT_POLICY set by the user is kept.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

from ..lazy import lazy_attributes  # noqa: E402
from .config import ElmoConfig, preset  # noqa: E402

# The rest is imported on first use: it loads torch, which the settings do not need.
__getattr__ = lazy_attributes(__name__, {
    "BiLM": "bilm", "BiLMStates": "bilm", "CharacterVocabulary": "characters", "course_config": "course_models",
    "course_corpus": "course_models", "course_elmo": "course_models", "Elmo": "model", "TrainingState": "model",
    "load_elmo": "model", "ScalarMix": "scalar_mix", "TokenEncoder": "token_encoder",
    "evaluate_perplexity": "training", "train_elmo": "training"})

__all__ = [
    "BiLM",
    "BiLMStates",
    "CharacterVocabulary",
    "Elmo",
    "ElmoConfig",
    "ScalarMix",
    "TokenEncoder",
    "TrainingState",
    "course_config",
    "course_corpus",
    "course_elmo",
    "evaluate_perplexity",
    "load_elmo",
    "preset",
    "train_elmo",
]
