"""The sentences the notebooks print, in each edition, one module per group of notebooks: a notebook's
code cells are the same in both editions, so what they print comes from here through
:func:`course.core.edition.text` (keys are unique across the modules; :data:`course.core.edition.CATALOGUE`
holds them all).

- :mod:`~course.printed.counting`: notebooks 00-01 (corpora, one-hot and count vectors);
- :mod:`~course.printed.static_models`: notebooks 02-05 (word2vec, GloVe, the comparison);
- :mod:`~course.printed.context_models`: notebooks 06-11 (the biLM, polysemy, layers, transfer, ULMFiT, Transformers);
- :mod:`~course.printed.checks`: the graded checks' feedback (:mod:`course.teaching.checks`), keys ``check ...``;
- :mod:`~course.printed.claims`: the claims table's cells (:mod:`course.claims`), keys ``claims ...``;
- :mod:`~course.printed.headlines`: the names of the notebooks' headline numbers, keys ``headline ...``.
"""

from .checks import PRINTED as CHECKS
from .claims import PRINTED as CLAIMS
from .context_models import PRINTED as CONTEXT_MODELS
from .counting import PRINTED as COUNTING
from .headlines import PRINTED as HEADLINES
from .static_models import PRINTED as STATIC_MODELS

GROUPS = (COUNTING, STATIC_MODELS, CONTEXT_MODELS, CHECKS, CLAIMS, HEADLINES)
PRINTED: dict[str, dict[str, str]] = {key: entry for group in GROUPS for key, entry in group.items()}
if len(PRINTED) != sum(len(group) for group in GROUPS):
    raise ValueError("a printed sentence's key is in two modules of course.printed")
