"""Word Vectors, Hands-On: the reusable code behind the course's notebooks.

The public pieces, each in a module of its own:

- :mod:`course.corpus`: named corpora and user files as sentences of tokens (:func:`load_corpus`);
- :mod:`course.vocab`: :class:`Vocabulary` with subsampling, the noise distribution and Huffman codes;
- :mod:`course.evaluate`: analogies, word similarity and neighbours on gensim ``KeyedVectors``;
- :mod:`course.plots`: figures, with a CJK font for Chinese labels;
- :mod:`course.settings`: the ``full`` / ``smoke`` profile;
- :mod:`course.cli`: ``python -m course ...``.
"""

from .corpus import Corpus, from_sentences, list_corpora, load_corpus
from .errors import CourseError
from .paths import models_dir
from .report import headline, markdown_table
from .settings import by_profile, resolve_profile
from .vocab import Vocabulary, VocabularyConfig

__version__ = "0.1.0"

__all__ = [
    "Corpus",
    "CourseError",
    "Vocabulary",
    "VocabularyConfig",
    "by_profile",
    "from_sentences",
    "headline",
    "list_corpora",
    "load_corpus",
    "markdown_table",
    "models_dir",
    "resolve_profile",
]
