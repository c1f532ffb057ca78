"""ELMo from scratch: a character-aware bidirectional LSTM language model and its deep,
contextual word vectors (Peters et al., 2018).

One job per file:

- :mod:`~course.elmo.config`: :class:`ElmoConfig` and the ``cpu`` and ``gpu`` presets;
- :mod:`~course.elmo.characters`: words as rows of character ids;
- :mod:`~course.elmo.token_encoder`: char-CNN, highway layers and projection (layer 0);
- :mod:`~course.elmo.bilm`: the forward and backward LSTM language models and their loss;
- :mod:`~course.elmo.lstm`: an LSTM with projection whose cells and outputs are clipped (the published ELMo's);
- :mod:`~course.elmo.bilm_tf`: the published ELMo (bilm-tf's ``options.json`` and ``weights.hdf5``) as an
  :class:`Elmo`, each convention that decides equality with bilm-tf's outputs in its docstring;
- :mod:`~course.elmo.scalar_mix`: the task-weighted mix gamma * sum_j softmax(w)_j h_j;
- :mod:`~course.elmo.batching`: a corpus as batches of equal-length sentences;
- :mod:`~course.elmo.perplexity`: the perplexity of each direction over a set of sentences;
- :mod:`~course.elmo.training`: :func:`train_elmo`: the learning-rate schedule, resuming,
  held-out perplexity after each epoch, checkpoints;
- :mod:`~course.elmo.embedder`: the L + 1 layers of each token of a sentence, from zero or carried from the
  sentence before (stateful), and a file of sentences in allennlp's HDF5 layout;
- :mod:`~course.elmo.sampling`: sentences drawn from the forward LM;
- :mod:`~course.elmo.model`: :class:`Elmo`, everything above in one object, and its file.

Which biLM each notebook trains or loads is :mod:`course.shared.bilm`'s job.

What it shares with the Transformers and ULMFiT (the training state, the held-out split, precision,
the model file, resuming, keeping the best, the bookkeeping of a run) is in :mod:`course.lm`.
"""

from ..core.lazy import lazy_attributes
from .config import ElmoConfig, preset

# The rest is imported on first use: it loads torch, which the settings do not need.
__getattr__ = lazy_attributes(__name__, {
    "BiLM": "bilm", "BiLMStates": "bilm", "ByteCharacters": "characters", "CharacterVocabulary": "characters",
    "Elmo": "model", "TrainingState": "model",
    "load_elmo": "model", "ScalarMix": "scalar_mix", "TokenEncoder": "token_encoder",
    "evaluate_perplexity": "training", "train_elmo": "training"})

__all__ = [
    "BiLM",
    "BiLMStates",
    "ByteCharacters",
    "CharacterVocabulary",
    "Elmo",
    "ElmoConfig",
    "ScalarMix",
    "TokenEncoder",
    "TrainingState",
    "evaluate_perplexity",
    "load_elmo",
    "preset",
    "train_elmo",
]
