"""The biLMs the notebooks share: one setting per corpus and profile, trained once and kept.

Notebook 06 trains the English biLM step by step; notebooks 07 and 08 need it and the Chinese one.
:func:`course_elmo` loads a corpus's model from ``build/models/`` (``build/models/smoke/`` in the
smoke profile), or trains it with :func:`course_config` (resuming from a checkpoint there if a run
was cut short) and saves it, so every notebook and ``python -m course claims`` see the same model.

- full profile: the ``cpu`` preset on the whole corpus, for whole epochs (``EPOCHS``), the two
  directions side by side where the process has two cores or more (the same weights as on one);
- smoke profile: a tiny biLM on the corpus's first 300 sentences, trained in seconds, which tests
  the mechanics and shows nothing about what a biLM learns.

A biLM of real size, trained elsewhere (the ``gpu`` preset on WikiText-103 or text8, say), stands in
for the course's biLM of its language when an environment variable names its file:
``COURSE_ELMO_EN`` for ``wiki-en`` and ``COURSE_ELMO_ZH`` for ``peoples-daily-zh``
(:data:`GIVEN`). :func:`course_elmo` then loads that file instead of training, and says so in one
line. Notebook 06, whose subject is training the course's own biLM and comparing its perplexity with
counting, asks for its own (``given=False``); notebooks 07-11 and the claims' probes use the given one.
"""

from __future__ import annotations

import os
import sys
from dataclasses import replace
from pathlib import Path

from ..core.errors import SettingError
from ..core.paths import models_dir
from ..core.settings import by_profile
from ..elmo.config import ElmoConfig, preset
from ..elmo.model import Elmo
from ..lm.resume import resumed_or_afresh
from ..text.corpus import NAMED_CORPORA
from .corpus import course_corpus
from .saved import load_saved

EPOCHS = {"wiki-en": 8, "peoples-daily-zh": 5}  # full profile: whole epochs per corpus (others: the preset's)
GIVEN = {"en": "COURSE_ELMO_EN", "zh": "COURSE_ELMO_ZH"}  # language -> variable naming a biLM file to use
MIN_CHARACTERS = 0.5  # a given biLM must read at least this share of the corpus's characters
_NOTED: set[tuple[str, str]] = set()  # (corpus, file) pairs already announced in this process
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


def given_file(corpus_name: str) -> Path | None:
    """The biLM file that stands in for the course's biLM of ``corpus_name``: the one named by the
    variable of its language in :data:`GIVEN` (``COURSE_ELMO_EN``, ``COURSE_ELMO_ZH``), or None.

    Raises:
        SettingError: the variable names no file.
    """
    named = NAMED_CORPORA.get(corpus_name)
    variable = GIVEN.get(named.language) if named is not None else None
    value = os.environ.get(variable, "").strip() if variable else ""
    if not value:
        return None
    path = Path(value).expanduser()
    if not path.is_file():
        raise SettingError(f"{variable}={value} names no file: give the path of a biLM file (python -m course train "
                           f"elmo ... --out FILE writes one), or unset {variable} to use the course's own biLM")
    return path


def _given_elmo(corpus_name: str, path: Path, profile: str | None, device: str) -> Elmo:
    """The biLM file ``path`` in place of the course's biLM of ``corpus_name``, checked to read the
    corpus's characters, announced once per process on standard error."""
    from ..elmo.characters import character_coverage

    variable = GIVEN[NAMED_CORPORA[corpus_name].language]
    model = Elmo.load(path, device=device)
    sentences = list(course_corpus(corpus_name, profile).head(300))
    share = character_coverage(model, sentences)
    if share < MIN_CHARACTERS:
        raise SettingError(f"{variable}={path} is a biLM that reads {share:.1%} of the characters of {corpus_name} "
                           f"(at least {MIN_CHARACTERS:.0%} needed): it was trained on another language; give a "
                           f"biLM of {NAMED_CORPORA[corpus_name].language} text")
    if (corpus_name, str(path)) not in _NOTED:
        _NOTED.add((corpus_name, str(path)))
        weights = sum(p.numel() for p in model.bilm.parameters())
        print(f"note: the biLM for {corpus_name} is {path} ({variable}: {len(model.words):,} words, "
              f"{weights:,} weights, preset {model.config.preset!r}), not the course's own",
              file=sys.stderr, flush=True)
    return model


def course_elmo(corpus_name: str, profile: str | None = None, progress: bool = True, device: str = "auto",
                given: bool = True) -> Elmo:
    """The course's biLM of ``corpus_name``: loaded if a build saved it with the settings of
    :func:`course_config`, else trained now and saved; or, with ``given`` (the default), the biLM
    file that ``COURSE_ELMO_EN`` or ``COURSE_ELMO_ZH`` names for the corpus's language, where set
    (:func:`given_file`).

    Training writes a checkpoint beside the model file every few hundred steps and resumes from
    it, so an interrupted run loses minutes, not the whole training. ``device`` is where the model
    is trained, when it is, and loaded (``"auto"``: CUDA if present; the file records a device named here).

    Raises:
        SettingError: the variable names no file, or a biLM of another language.
        ModelFileError: the file it names is not a biLM file.
    """
    from ..elmo.training import train_elmo

    named = given_file(corpus_name) if given else None
    if named is not None:
        return _given_elmo(corpus_name, named, profile, device)
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
