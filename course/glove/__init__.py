"""GloVe from scratch (Pennington, Socher and Manning, 2014): co-occurrence counts, and word vectors
fitted to their logarithms.

One job per file, in the order of notebook 04:

- :mod:`~course.glove.config`: :class:`GloVeConfig`, the settings (the reference's demo settings),
  and its presets (:func:`preset`);
- :mod:`~course.glove.counting`: :func:`cooccurrence_counts`, ``cooccur.c``'s counts with the
  1/distance weighting, their non-zero entries and each epoch's order of them;
- :mod:`~course.glove.loss`: the weighting :func:`weighting` and the weighted least-squares loss
  :func:`glove_loss` with its gradients, written entry by entry;
- :mod:`~course.glove.reference`: :func:`train_reference`, the plain trainer: one entry at a time,
  AdaGrad, as ``glove.c`` trains; read it first;
- :mod:`~course.glove.model`: :class:`GloVe`, its tables of vectors and files, and :func:`train_glove`;
- :mod:`~course.glove.trainer`: :class:`FastTrainer`, the same steps for batches of entries on
  several workers, what :func:`train_glove` uses, with its sparse batches
  (:mod:`~course.glove.batches`).
"""

from ..core.lazy import lazy_attributes
from .config import PRESETS, VECTORS, GloVeConfig, preset
from .counting import CHUNK_TOKENS, ENTRY_BYTES, cooccurrence_counts, entry_order, nonzero_entries
from .loss import glove_loss, glove_loss_terms, targets, weighting

# The rest is imported on first use: it loads torch, which the settings do not need.
__getattr__ = lazy_attributes(__name__, {
    "GloVe": "model", "GloVeState": "model", "train_glove": "model", "train_entry": "reference",
    "train_reference": "reference", "FastTrainer": "trainer", "IN_PROCESSES": "trainer"})

__all__ = [
    "CHUNK_TOKENS", "ENTRY_BYTES", "IN_PROCESSES", "PRESETS", "VECTORS", "FastTrainer", "GloVe", "GloVeConfig",
    "GloVeState", "cooccurrence_counts", "entry_order", "glove_loss", "glove_loss_terms", "nonzero_entries", "preset",
    "targets", "train_entry", "train_glove", "train_reference", "weighting",
]
