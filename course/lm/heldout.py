"""The held-out sentences of a corpus: every ``heldout_every``-th one, the same split for every
language model of the course, so that their held-out perplexities are measured on the same text."""

from __future__ import annotations

import numpy as np


def split_heldout(corpus, config) -> tuple[np.ndarray, np.ndarray]:
    """Sentence numbers ``(training, held_out)``: sentence i is held out when
    ``i % heldout_every == heldout_every - 1`` (``config.heldout_every``)."""
    numbers = np.arange(corpus.num_sentences)
    held = numbers % config.heldout_every == config.heldout_every - 1
    return numbers[~held], numbers[held]
