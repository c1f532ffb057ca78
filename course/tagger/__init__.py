"""A named-entity tagger and the five inputs it can be given: what pretrained vectors carry into a task.

One job per file:

- :mod:`~course.tagger.config`: :class:`TaggerConfig` and the epochs for a number of labelled sentences;
- :mod:`~course.tagger.inputs`: learned embeddings, frozen static vectors, ELMo's mixed layers
  (frozen features or fine-tuned);
- :mod:`~course.tagger.model`: :class:`Tagger`, the BiLSTM over any input;
- :mod:`~course.tagger.training`: :func:`train_tagger` (epoch chosen on dev) and entity F1;
- :mod:`~course.tagger.curves`: the learning curve, unseen-entity F1 and the claims' figures.
"""

from ..core.lazy import lazy_attributes
from .config import INPUTS, TaggerConfig, epochs_for

# The rest is imported on first use: it loads torch, which the settings do not need.
__getattr__ = lazy_attributes(__name__, {
    "ElmoFeatures": "inputs", "Tagger": "model", "build_tagger": "training", "entity_scores": "training",
    "evaluate": "training", "train_tagger": "training"})

__all__ = ["INPUTS", "ElmoFeatures", "Tagger", "TaggerConfig", "build_tagger", "entity_scores", "epochs_for",
           "evaluate", "train_tagger"]
