"""What the static-vector trainers (word2vec and GloVe) share.

- :mod:`~course.static.state`: :class:`TrainingState`, where a run stands (epochs, loss history, seconds);
- :mod:`~course.static.model`: :class:`StaticVectorModel`, a model's vectors out as gensim
  ``KeyedVectors`` and word2vec files, its checkpoints, and how a run starts or resumes;
- :mod:`~course.static.epochs`: :func:`run_epochs`, the epoch loop, its units of work shared
  among Hogwild workers: forked processes (:mod:`~course.static.hogwild`) or Python threads;
- :mod:`~course.static.hogwild`: lock-free training in forked processes over tables in shared memory.

Which vectors each notebook trains or loads is :mod:`course.shared.vectors`' job.
"""

from .epochs import run_epochs
from .model import StaticVectorModel
from .state import TrainingState

__all__ = ["StaticVectorModel", "TrainingState", "run_epochs"]
