"""word2vec from scratch (Mikolov et al., 2013): skip-gram and CBOW, with negative sampling or
hierarchical softmax.

One job per file, in the order of notebooks 02 (skip-gram, negative sampling) and 03 (CBOW,
hierarchical softmax):

- :mod:`~course.word2vec.config`: :class:`Word2VecConfig`, the settings (gensim's defaults);
- :mod:`~course.word2vec.model`: :class:`Word2Vec`, its tables of vectors and files, and
  :func:`train_word2vec`;
- :mod:`~course.word2vec.examples`: how examples are cut from text: the dynamic window
  (:func:`skipgram_pairs`, :func:`cbow_windows`) and subsampling;
- :mod:`~course.word2vec.losses`: :func:`negative_sampling_loss`, :func:`hierarchical_softmax_loss`
  and their gradients, :func:`hierarchical_softmax_probabilities`;
- :mod:`~course.word2vec.reference`: :func:`train_reference`, the plain trainer: one window at a
  time, the losses above, plain SGD; read it first;
- :mod:`~course.word2vec.trainer`: :class:`FastTrainer`, the same steps in batches on several
  workers, what :func:`train_word2vec` uses; with its kernels (:mod:`~course.word2vec.kernels`)
  and hierarchical softmax's tree tensors and damped node steps (:mod:`~course.word2vec.tree`);
- :mod:`~course.word2vec.damping`: why and how a batch's summed steps on one row are damped (the
  tree's nodes; negative sampling's input words, without which small corpora diverge).
"""

from ..core.lazy import lazy_attributes
from .config import ARCHITECTURES, LOSSES, Word2VecConfig

# The rest is imported on first use: it loads torch, which the settings do not need.
__getattr__ = lazy_attributes(__name__, {
    "cbow_windows": "examples", "longest_sentence": "examples", "skipgram_pairs": "examples",
    "hierarchical_softmax_loss": "losses", "hierarchical_softmax_probabilities": "losses",
    "negative_sampling_loss": "losses", "Word2Vec": "model", "Word2VecState": "model", "train_word2vec": "model",
    "train_reference": "reference", "train_window": "reference", "Batch": "trainer", "FastTrainer": "trainer"})

__all__ = [
    "ARCHITECTURES", "LOSSES", "Batch", "FastTrainer", "Word2Vec", "Word2VecConfig", "Word2VecState",
    "cbow_windows", "hierarchical_softmax_loss", "hierarchical_softmax_probabilities", "longest_sentence",
    "negative_sampling_loss", "skipgram_pairs", "train_reference", "train_window", "train_word2vec",
]
