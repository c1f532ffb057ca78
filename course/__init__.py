"""Word Vectors, Hands-On: the reusable code behind the course's notebooks.

The public pieces, each in a module of its own:

- :mod:`course.text.corpus`: named corpora and user files as sentences of tokens (:func:`load_corpus`);
- :mod:`course.text.vocab`: :class:`Vocabulary` with subsampling, the noise distribution and Huffman codes;
- :mod:`course.analysis.evaluate`: analogies, word similarity and neighbours on gensim ``KeyedVectors``;
- :mod:`course.figures.plots`: figures, with a CJK font for Chinese labels;
- :mod:`course.glove`: co-occurrence counting and GloVe (:class:`GloVe`, :func:`train_glove`);
- :mod:`course.elmo`: ELMo's biLM, its embeddings and training (:class:`Elmo`, :func:`train_elmo`);
- :mod:`course.analysis.probes`: sense probes, nearest contexts and the POS probe per layer;
- :mod:`course.core.settings`: the ``full`` / ``smoke`` profile;
- :mod:`course.core.edition`: the edition, English or Chinese, and the words figures and tables use in it;
- :mod:`course.teaching`: what delivers the course: notebook tables, assignments and their checks, grading, the build;
- :mod:`course.cli`: ``python -m course ...``.

The modules are grouped by what they do: :mod:`course.text` (text in; tokens, corpora out), :mod:`course.tasks`
(the labelled data sets), :mod:`course.counts` (the count-based models), :mod:`course.analysis` (measuring what
vectors hold) and :mod:`course.figures` (pictures, maps, diagrams); the models each have a package of their own.
"""

from .core.edition import current_edition, use_edition
from .core.errors import CourseError
from .core.paths import models_dir
from .core.settings import by_profile, resolve_profile
from .teaching.report import headline, markdown_table
from .text.corpus import Corpus, from_sentences, list_corpora, load_corpus
from .text.vocab import Vocabulary, VocabularyConfig

__version__ = "0.1.0"

_ELMO_NAMES = ("Elmo", "ElmoConfig", "ScalarMix", "load_elmo", "train_elmo")
_GLOVE_NAMES = ("GloVe", "GloVeConfig", "cooccurrence_counts", "train_glove")


def __getattr__(name: str):
    """The ELMo and GloVe names, imported on first use (they need torch or scipy, which the rest need not load)."""
    if name in _ELMO_NAMES:
        from . import elmo

        return getattr(elmo, name)
    if name in _GLOVE_NAMES:
        from . import glove

        return getattr(glove, name)
    raise AttributeError(f"module 'course' has no attribute {name!r}")


__all__ = [
    "Corpus",
    "CourseError",
    "Elmo",
    "ElmoConfig",
    "GloVe",
    "GloVeConfig",
    "ScalarMix",
    "Vocabulary",
    "VocabularyConfig",
    "by_profile",
    "cooccurrence_counts",
    "current_edition",
    "from_sentences",
    "headline",
    "list_corpora",
    "load_corpus",
    "load_elmo",
    "markdown_table",
    "models_dir",
    "resolve_profile",
    "train_elmo",
    "train_glove",
    "use_edition",
]
