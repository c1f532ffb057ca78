"""The sentences the notebooks print, in each edition, one module per group of notebooks: a notebook's
code cells are the same in both editions, so what they print comes from here through
:func:`course.edition.text` (keys are unique across the modules; :data:`course.edition.CATALOGUE`
holds them all)."""

from .context_models import PRINTED as CONTEXT_MODELS
from .static_models import PRINTED as STATIC_MODELS

PRINTED: dict[str, dict[str, str]] = {**STATIC_MODELS, **CONTEXT_MODELS}
if len(PRINTED) != len(STATIC_MODELS) + len(CONTEXT_MODELS):
    raise ValueError("a printed sentence's key is in two modules of course.printed")
