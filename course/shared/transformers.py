"""The Transformers the notebooks share: a GPT-style and a BERT-style model per corpus and profile,
trained once and kept beside the course's biLMs.

They are trained on the same sentences as the course's ELMo (:func:`course.shared.corpus.course_corpus`:
the whole corpus, or its first 300 sentences in the smoke profile), with the same held-out
sentences, so that the held-out perplexity of the causal model compares with the forward LM's.

- full profile: the ``cpu`` preset for 3 epochs on wiki-en and 2 on People's Daily, twice as many
  words (its 8 took about 21 minutes for the GPT-style model on 2 cores in float32, 13 in
  bfloat16: more than notebook 11's budget of 10 minutes, which also trains the models);
- smoke profile: a tiny model trained in seconds, which tests the mechanics and shows nothing
  about what a Transformer learns.

:func:`course_transformers` gets several at once: the ones not saved yet train side by side, one
per core (:func:`course.core.parallel.run_jobs`). Each trains on one thread, as the ``cpu`` preset does
alone, so each has the weights it would have had alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from ..core.errors import SettingError
from ..core.parallel import run_jobs, worker_count
from ..core.paths import models_dir
from ..core.settings import by_profile
from ..lm.resume import resumed_or_afresh
from ..transformer.config import OBJECTIVES, TransformerConfig, preset
from ..transformer.model import Transformer
from .corpus import course_corpus
from .saved import load_saved

NAMES = {"causal": "gpt", "masked": "bert"}  # the file name's prefix per objective
VARIANTS = {True: "bert-nsp", False: "bert-pairs"}  # file names' prefixes: with NSP, the masked LM alone
FULL_EPOCHS = {"wiki-en": 3, "peoples-daily-zh": 2}  # other corpora: 3
SMOKE_SIZES = dict(dim=32, heads=2, layers=2, ff_dim=64, batch_tokens=1_000, min_count=2, epochs=2, lr=3e-3,
                   adaptive_cutoffs=(200,))  # a few hundred words: a cutoff inside them, so the clusters run too


def course_config(corpus_name: str, objective: str = "causal", profile: str | None = None) -> TransformerConfig:
    """The settings of the course's Transformer of ``corpus_name`` and ``objective`` in ``profile``."""
    if objective not in OBJECTIVES:
        raise SettingError(f"objective must be one of {', '.join(OBJECTIVES)}, got {objective!r}")
    return by_profile(profile, full=preset("cpu", objective=objective, epochs=FULL_EPOCHS.get(corpus_name, 3)),
                      smoke=preset("cpu", objective=objective, **SMOKE_SIZES))


def model_path(corpus_name: str, objective: str = "causal", profile: str | None = None) -> Path:
    """Where the course keeps that model: ``build/models/gpt-<corpus>.pt`` or ``bert-<corpus>.pt``."""
    if objective not in NAMES:
        raise SettingError(f"objective must be one of {', '.join(OBJECTIVES)}, got {objective!r}")
    return models_dir(profile) / f"{NAMES[objective]}-{corpus_name}.pt"


def course_transformer(corpus_name: str, objective: str = "causal", profile: str | None = None,
                       progress: bool = True, device: str = "auto") -> Transformer:
    """The course's Transformer of ``corpus_name``: loaded if a build saved it with the settings of
    :func:`course_config`, else trained now and saved (resuming from the checkpoint beside it, if a
    run was cut short)."""
    from ..transformer.training import train_transformer

    path = model_path(corpus_name, objective, profile)
    saved = _saved(corpus_name, objective, profile, device)
    if saved is not None:
        return saved
    config = course_config(corpus_name, objective, profile)
    if device != "auto":
        config = TransformerConfig(**{**config.to_dict(), "device": device})
    checkpoint = path.with_suffix(".checkpoint.pt")
    corpus = course_corpus(corpus_name, profile)
    model = resumed_or_afresh(lambda resume: train_transformer(corpus, config, progress=progress,
                                                               checkpoint=checkpoint, resume=resume),
                              checkpoint, "Transformer")
    model.save(path)
    checkpoint.unlink(missing_ok=True)
    return model


def course_transformers(models: Sequence[tuple[str, str]], profile: str | None = None, progress: bool = True,
                        device: str = "auto", workers: int | None = None) -> list[Transformer]:
    """The course's Transformers of several ``(corpus_name, objective)`` pairs, in that order.

    The saved ones are loaded; the others are trained at the same time, up to ``workers`` at once
    (None: one per core; on a GPU up to :data:`~course.core.parallel.GPU_WORKERS` sharing it), each as
    :func:`course_transformer` trains it alone, and saved. Put the longest first: the pairs are
    handed out in order to whichever worker is free. ``progress`` shows one bar over the models.

    Raises:
        SettingError: an unknown objective, or the same pair twice.
    """
    from ..core.progress import progress_bar

    models = [(corpus_name, objective) for corpus_name, objective in models]
    for corpus_name, objective in models:
        model_path(corpus_name, objective, profile)  # refuses an unknown objective before any work
    if len(set(models)) < len(models):
        raise SettingError(f"each (corpus, objective) pair once, got {models}")
    loaded = {pair: _saved(*pair, profile, device) for pair in models}
    missing = [pair for pair in models if loaded[pair] is None]
    if missing:
        if progress:
            at_once = worker_count(workers, len(missing))
            print(f"training {len(missing)} Transformer{'s' if len(missing) > 1 else ''} not saved yet, {at_once} at a "
                  f"time: {', '.join(model_path(*pair, profile).stem for pair in missing)}", flush=True)
        with progress_bar(total=len(missing), desc="Transformers", unit="model", disable=not progress) as bar:
            run_jobs(_train_and_save, [(*pair, profile, device) for pair in missing], workers=workers,
                     on_result=lambda index, path: bar.update(1))
        for pair in missing:
            loaded[pair] = Transformer.load(model_path(*pair, profile), device=device)
    return [loaded[pair] for pair in models]


def _saved(corpus_name: str, objective: str, profile: str | None, device: str) -> Transformer | None:
    """The saved model, or None when there is none, it is damaged, or it was trained with settings other
    than :func:`course_config`'s (then with a note)."""
    return load_saved(model_path(corpus_name, objective, profile), lambda p: Transformer.load(p, device=device),
                      "Transformer", settings=course_config(corpus_name, objective, profile).to_dict())


def _train_and_save(corpus_name: str, objective: str, profile: str | None, device: str) -> str:
    """One job of :func:`course_transformers`: train (or resume) and save; the model file's path."""
    course_transformer(corpus_name, objective, profile, progress=False, device=device)
    return str(model_path(corpus_name, objective, profile))


def pair_bert_path(corpus_name: str, nsp: bool, profile: str | None = None) -> Path:
    """``build/models/bert-nsp-<corpus>.pt`` (masked LM + NSP) or ``bert-pairs-<corpus>.pt`` (masked LM alone)."""
    return models_dir(profile) / f"{VARIANTS[bool(nsp)]}-{corpus_name}.pt"


def course_pair_bert(corpus_name: str, nsp: bool = True, profile: str | None = None,
                     progress: bool = True) -> Transformer:
    """The course's BERT of People's Daily pretrained on pairs of sentences, with NSP or without: loaded
    if saved with the settings of the course's BERT (:func:`course_config`),
    else trained now and saved. An epoch has one pair per sentence followed by another of its paragraph
    (a little over half of the sentences), each pair two sentences, so the same epochs read about as
    many words as that BERT did."""
    from ..text.corpus import peoples_daily_paragraphs
    from ..transformer.next_sentence import train_pair_bert

    if corpus_name != "peoples-daily-zh":
        raise SettingError(f"the sentence pairs need paragraphs, which only peoples-daily-zh records; got "
                           f"{corpus_name!r}")
    config = course_config(corpus_name, "masked", profile)
    path = pair_bert_path(corpus_name, nsp, profile)
    saved = load_saved(path, Transformer.load, "BERT", settings=config.to_dict())
    if saved is not None:
        return saved
    model = train_pair_bert(course_corpus(corpus_name, profile), peoples_daily_paragraphs(), config, nsp, progress)
    model.save(path)
    return model


def course_pair_berts(corpus_name: str, profile: str | None = None, progress: bool = True,
                      workers: int | None = None) -> dict[bool, Transformer]:
    """Both of :func:`course_pair_bert`'s models, ``{True: with NSP, False: masked LM alone}``: the saved
    ones loaded, the others trained side by side (one per core, :func:`~course.core.parallel.run_jobs`), each
    on one thread as it trains alone, and saved."""
    missing = [nsp for nsp in (True, False) if not pair_bert_path(corpus_name, nsp, profile).is_file()]
    if missing:
        if progress:
            print(f"training {len(missing)} BERT{'s' if len(missing) > 1 else ''} on pairs of sentences: "
                  f"{', '.join(pair_bert_path(corpus_name, nsp, profile).stem for nsp in missing)}", flush=True)
        run_jobs(_train_pair_bert_job, [(corpus_name, nsp, profile) for nsp in missing], workers=workers)
    return {nsp: course_pair_bert(corpus_name, nsp, profile, progress=False) for nsp in (True, False)}


def _train_pair_bert_job(corpus_name: str, nsp: bool, profile: str | None) -> str:
    course_pair_bert(corpus_name, nsp, profile, progress=False)
    return str(pair_bert_path(corpus_name, nsp, profile))
