"""ULMFiT (Howard and Ruder, 2018): fine-tuning a pretrained language model for classification.

Three stages: (1) a language model pretrained on general text (the forward half of the course's
People's Daily biLM), (2) fine-tuned on the target domain's text, (3) a classifier head on it,
fine-tuned on the labels. One job per file:

- :mod:`~course.ulmfit.schedules`: discriminative rates, the slanted triangular schedule, gradual
  unfreezing, each a small function;
- :mod:`~course.ulmfit.config`: the settings of stages 2 and 3;
- :mod:`~course.ulmfit.language_model`: :class:`ForwardLM`, the biLM's forward LM and its layer groups;
- :mod:`~course.ulmfit.classifier`: concat pooling, the head, :class:`Classifier` and the
  feature-based :class:`FeatureClassifier`;
- :mod:`~course.ulmfit.training`: stage 2, stage 3, error rate and perplexity;
- :mod:`~course.ulmfit.experiments`: the comparisons notebook 10 draws.

The language model is the biLM's own forward LM (:class:`course.elmo.bilm.BiLM`, its batches and its
data), so it is built from :mod:`course.elmo`; the training state, precision, CPU threads, keeping
the best and the resume check it shares with every language model come from :mod:`course.lm`.
"""

from ..core.lazy import lazy_attributes
from .config import ClassifierConfig, LanguageModelConfig, epochs_for
from .schedules import discriminative_rates, slanted_triangular, unfrozen_groups

# The rest is imported on first use: it loads torch, which the settings do not need.
__getattr__ = lazy_attributes(__name__, {
    "Classifier": "classifier", "FeatureClassifier": "classifier", "concat_pool": "classifier",
    "ForwardLM": "language_model", "check_vocabulary": "language_model",
    "coverage": "language_model", "error_rate": "training", "fine_tune_lm": "training",
    "forward_perplexity": "training", "parameter_groups": "training", "train_classifier": "training",
    "train_feature_classifier": "training"})

__all__ = [
    "Classifier",
    "ClassifierConfig",
    "FeatureClassifier",
    "ForwardLM",
    "LanguageModelConfig",
    "check_vocabulary",
    "concat_pool",
    "coverage",
    "discriminative_rates",
    "epochs_for",
    "error_rate",
    "fine_tune_lm",
    "forward_perplexity",
    "parameter_groups",
    "slanted_triangular",
    "train_classifier",
    "train_feature_classifier",
    "unfrozen_groups",
]
