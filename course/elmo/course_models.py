"""The biLMs the notebooks share: one setting per corpus and profile, trained once and kept.

Notebook 06 trains the English biLM step by step; notebooks 07 and 08 need it and the Chinese one.
:func:`course_elmo` loads a corpus's model from ``build/models/`` (``build/models/smoke/`` in the
smoke profile), or trains it with :func:`course_config` (resuming from a checkpoint there if a run
was cut short) and saves it, so every notebook and ``python -m course claims`` see the same model.

- full profile: the ``cpu`` preset on the whole corpus, for whole epochs (``EPOCHS``), the two
  directions side by side where the process has two cores or more (the same weights as on one);
- smoke profile: a tiny biLM on the corpus's first 300 sentences, trained in seconds, which tests
  the mechanics and shows nothing about what a biLM learns.
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

from ..lm.corpus import course_corpus
from ..lm.resume import resumed_or_afresh
from ..paths import load_saved, models_dir
from ..settings import by_profile
from .config import ElmoConfig, preset
from .model import Elmo

EPOCHS = {"wiki-en": 8, "peoples-daily-zh": 5}  # full profile: whole epochs per corpus (others: the preset's)
SMOKE_SIZES = dict(char_dim=8, filters=((1, 16), (2, 16), (3, 32)), projection_dim=32, lstm_dim=64,
                   batch_tokens=1_000, softmax="full", min_count=2, epochs=2)


def course_config(corpus_name: str, profile: str | None = None) -> ElmoConfig:
    """The settings of the course's biLM of ``corpus_name`` in ``profile`` (default: the current one)."""
    full = preset("cpu", threads=min(2, len(os.sched_getaffinity(0))),
                  **({"epochs": EPOCHS[corpus_name]} if corpus_name in EPOCHS else {}))
    return by_profile(profile, full=full, smoke=preset("cpu", **SMOKE_SIZES))


def model_path(corpus_name: str, profile: str | None = None) -> Path:
    """Where the course keeps that biLM: ``build/models/elmo-cpu-<corpus>.pt``."""
    return models_dir(profile) / f"elmo-cpu-{corpus_name}.pt"


def course_elmo(corpus_name: str, profile: str | None = None, progress: bool = True, device: str = "auto") -> Elmo:
    """The course's biLM of ``corpus_name``: loaded if a build saved it with the settings of
    :func:`course_config`, else trained now and saved.

    Training writes a checkpoint beside the model file every few hundred steps and resumes from
    it, so an interrupted run loses minutes, not the whole training. ``device`` is where the model
    is trained, when it is, and loaded (``"auto"``: CUDA if present; the file records a device named here).
    """
    from .training import train_elmo

    path = model_path(corpus_name, profile)
    config = course_config(corpus_name, profile)
    saved = load_saved(path, lambda p: Elmo.load(p, device=device), "biLM", settings=config.to_dict())
    if saved is not None:
        return saved
    if device != "auto":  # trained where it is asked for, as it is loaded there
        config = replace(config, device=device)
    checkpoint = path.with_suffix(".checkpoint.pt")
    corpus = course_corpus(corpus_name, profile)
    model = resumed_or_afresh(lambda resume: train_elmo(corpus, config, progress=progress, checkpoint=checkpoint,
                                                        resume=resume), checkpoint, "biLM")
    model.save(path)
    checkpoint.unlink(missing_ok=True)
    return model
