"""What the course's neural language models share: the biLM of :mod:`course.elmo`, the
Transformers of :mod:`course.transformer` and ULMFiT's fine-tuned language model of
:mod:`course.ulmfit`. One job per file:

- :mod:`~course.lm.state`: :class:`TrainingState`, where training stands and what it measured;
- :mod:`~course.lm.heldout`: :func:`split_heldout`, every ``heldout_every``-th sentence held out;
- :mod:`~course.lm.generators`: the random generators started from the seed or a checkpoint;
- :mod:`~course.lm.threads`: :func:`cpu_threads`, torch's CPU threads while training;
- :mod:`~course.lm.precision`: :func:`autocast_dtype` and the one :func:`autocast`;
- :mod:`~course.lm.model_file`: :class:`ModelFile`, one ``save`` and ``load`` for a model with a config;
- :mod:`~course.lm.resume`: resuming a checkpoint, one check and one error type per mistake;
- :mod:`~course.lm.best`: :class:`KeepBest`, the weights of the best held-out measurement;
- :mod:`~course.lm.run`: :class:`Run`, the epochs, read-outs, measurements and checkpoints of a call.
"""

from ..core.lazy import lazy_attributes

# Imported on first use: they load torch.
__getattr__ = lazy_attributes(__name__, {
    "KeepBest": "best", "epoch_position": "best",
    "measures": "best",
    "split_heldout": "heldout", "ModelFile": "model_file", "autocast": "precision", "autocast_dtype": "precision",
    "cpu_has_bfloat16": "precision", "random_state": "generators", "start_random_state": "generators",
    "RESUMABLE_CHANGES": "resume", "batch_order": "resume", "check_batch_order": "resume",
    "check_same_run": "resume", "resume_checkpoint": "resume", "Limits": "run", "Run": "run",
    "TrainingState": "state", "cpu_threads": "threads"})

__all__ = [
    "RESUMABLE_CHANGES",
    "KeepBest",
    "Limits",
    "ModelFile",
    "Run",
    "TrainingState",
    "autocast",
    "autocast_dtype",
    "batch_order",
    "check_batch_order",
    "check_same_run",
    "cpu_has_bfloat16",
    "cpu_threads",
    "epoch_position",
    "measures",
    "random_state",
    "resume_checkpoint",
    "split_heldout",
    "start_random_state",
]
