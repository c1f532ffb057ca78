"""The text the course's language models are trained on, in each profile: one function, so that the
biLM, the Transformers and the notebooks that measure them read the same sentences."""

from __future__ import annotations

from ..core.settings import by_profile

SMOKE_SENTENCES = 300


def course_corpus(corpus_name: str, profile: str | None = None):
    """The text the course's language models of ``corpus_name`` are trained on: all of it, or its first
    300 sentences in the smoke profile (``profile`` None: the current one)."""
    from ..text.corpus import load_corpus

    corpus = load_corpus(corpus_name, progress=False)
    return by_profile(profile, full=corpus, smoke=corpus.head(SMOKE_SENTENCES))
