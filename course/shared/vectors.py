"""The static vectors the notebooks share: skip-gram and GloVe per corpus, trained once and kept.

:func:`course_vectors` loads ``build/models/<kind>-<corpus>.txt`` (``build/models/smoke/`` in the
smoke profile) or trains it with :func:`course_settings` and saves it, so notebook 07's skip-gram
and notebook 09's word2vec and GloVe inputs are the same vectors; :func:`course_vectors_all` gets
several, training the missing ones side by side. The settings follow notebooks 02
and 04 (100 dimensions, minimum count 5); the smoke profile trains one or two epochs.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from ..core.errors import VectorsFileError
from ..core.paths import models_dir
from ..core.settings import by_profile
from .saved import wait_for_saved

KINDS = ("skipgram-neg", "glove")


def course_settings(kind: str, profile: str | None = None):
    """The ``Word2VecConfig`` or ``GloVeConfig`` of the course's ``kind`` of vectors in ``profile``."""
    if kind == "skipgram-neg":
        from ..word2vec import Word2VecConfig

        return Word2VecConfig(arch="skipgram", loss="neg", dim=100, window=5, min_count=5, seed=1, threads=1,
                              device="cpu", epochs=by_profile(profile, full=10, smoke=1))
    if kind == "glove":
        from ..glove import GloVeConfig

        return GloVeConfig(dim=100, window=10, min_count=5, seed=1, threads=1, device="cpu",
                           epochs=by_profile(profile, full=15, smoke=2))
    from ..core.errors import SettingError

    raise SettingError(f"unknown kind of course vectors {kind!r}: use one of {', '.join(KINDS)}")


def vectors_path(kind: str, corpus_name: str, profile: str | None = None) -> Path:
    """Where the course keeps them: ``build/models/<kind>-<corpus>.txt``."""
    return models_dir(profile) / f"{kind}-{corpus_name}.txt"


def course_vectors(kind: str, corpus_name: str, profile: str | None = None, progress: bool = False):
    """The course's ``kind`` vectors (``"skipgram-neg"`` or ``"glove"``) of a corpus, as gensim
    ``KeyedVectors``: loaded if saved, else trained on the whole corpus now and saved. A saved file
    that cannot be read (cut short, say) or holds vectors of another size is trained again, with a note."""
    saved = _saved(kind, corpus_name, profile)
    return saved if saved is not None else _train(kind, corpus_name, profile, progress).keyed_vectors()


def course_vectors_all(wanted: Sequence[tuple[str, str]], profile: str | None = None, workers: int | None = None):
    """:func:`course_vectors` of several ``(kind, corpus_name)`` pairs, in that order: the saved ones
    loaded, the others trained at the same time, one per core (:func:`course.core.parallel.run_jobs`). Each
    trains on one thread, as it does alone, so each gets the vectors it would get alone."""
    from ..analysis.vectors import load_vectors
    from ..core.parallel import run_jobs

    wanted = [(kind, corpus_name) for kind, corpus_name in wanted]
    for kind, _ in wanted:
        course_settings(kind, profile)  # refuses an unknown kind before any work
    vectors = {pair: _saved(*pair, profile) for pair in dict.fromkeys(wanted)}
    missing = [pair for pair, saved in vectors.items() if saved is None]
    run_jobs(_train_job, [(*pair, profile) for pair in missing], workers=workers)
    for pair in missing:
        vectors[pair] = load_vectors(vectors_path(*pair, profile))
    return [vectors[pair] for pair in wanted]


def _saved(kind: str, corpus_name: str, profile: str | None):
    """The saved vectors, or None when there are none or they are damaged (with a note)."""
    from ..analysis.vectors import load_vectors

    config = course_settings(kind, profile)
    path = wait_for_saved(vectors_path(kind, corpus_name, profile))
    if not path.is_file():
        return None
    try:
        vectors = load_vectors(path)
    except VectorsFileError as exc:
        problem = str(exc).removeprefix(f"{path}").lstrip(":, ")
    else:
        if vectors.vector_size == config.dim:
            return vectors
        problem = f"holds vectors of {vectors.vector_size} dimensions, not {config.dim}"
    problem = " ".join(problem.split())
    print(f"note: the saved vectors {path} are damaged ({problem}); training them again", file=sys.stderr,
          flush=True)
    return None


def _train(kind: str, corpus_name: str, profile: str | None, progress: bool):
    """Train the vectors on the whole corpus and save them; the trained model."""
    from ..text.corpus import load_corpus

    config = course_settings(kind, profile)
    corpus = load_corpus(corpus_name, progress=False)
    if kind == "glove":
        from ..glove import train_glove

        model = train_glove(corpus, config, progress=progress)
    else:
        from ..word2vec import train_word2vec

        model = train_word2vec(corpus, config, progress=progress)
    model.save_vectors(vectors_path(kind, corpus_name, profile))
    return model


def _train_job(kind: str, corpus_name: str, profile: str | None) -> str:
    """One job of :func:`course_vectors_all`: train and save; the file's path."""
    _train(kind, corpus_name, profile, progress=False)
    return str(vectors_path(kind, corpus_name, profile))
