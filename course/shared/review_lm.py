"""The language models notebook 10 shares with the command line: stage 1 and stage 2, kept.

- stage 1, the general-domain LM: the forward half of the course's People's Daily biLM
  (:func:`course.shared.bilm.course_elmo`, trained by notebook 07's build), or of the biLM file that
  ``COURSE_ELMO_ZH`` names in its place;
- stage 2, :func:`course_review_lm`: that LM fine-tuned on the training reviews' text, loaded from
  ``build/models/ulmfit-lm-reviews-zh.pt`` or trained now (about a minute on 2 cores) and saved.

In the smoke profile both are tiny and the reviews few: they test the mechanics only.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from ..core.paths import models_dir
from ..core.settings import by_profile
from ..ulmfit.config import LanguageModelConfig
from .saved import load_saved

GENERAL_CORPUS = "peoples-daily-zh"
SMOKE_TEXTS = 300


def review_lm_path(profile: str | None = None, general: Path | None = None) -> Path:
    """Where stage 2's LM is kept: ``ulmfit-lm-reviews-zh.pt``, or, fine-tuned from a biLM file
    ``general`` given in place of the course's (``COURSE_ELMO_ZH``), a file named after that one's
    path, size and date, so that each general LM has its own."""
    if general is None:
        return models_dir(profile) / "ulmfit-lm-reviews-zh.pt"
    stat = general.stat()
    key = hashlib.sha256(f"{general.resolve()}|{stat.st_size}|{stat.st_mtime_ns}".encode()).hexdigest()[:12]
    return models_dir(profile) / f"ulmfit-lm-reviews-zh-from-{key}.pt"


def course_review_lm(data, profile: str | None = None, progress: bool = True, device: str = "auto"):
    """Stage 2's LM: the course's People's Daily biLM with its forward LM fine-tuned on
    ``data``'s training reviews (one epoch; the first 300 in smoke), loaded if a build saved it from a
    biLM of the present settings."""
    from ..elmo import Elmo
    from ..ulmfit.training import fine_tune_lm
    from .bilm import course_config, course_elmo, given_file

    given = given_file(GENERAL_CORPUS)
    path = review_lm_path(profile, given)
    saved = load_saved(path, lambda p: Elmo.load(p, device=device), "language model",
                       settings=None if given else course_config(GENERAL_CORPUS, profile).to_dict())
    if saved is not None:
        return saved
    general = course_elmo(GENERAL_CORPUS, profile, progress=progress, device=device)
    texts = data.unlabelled_texts("train")
    texts = by_profile(profile, full=texts, smoke=texts[:SMOKE_TEXTS])
    model = fine_tune_lm(general, texts, LanguageModelConfig(device=device), progress=progress)
    model.save(path)
    return model
