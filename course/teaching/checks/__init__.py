"""Checks for the notebooks' assignments: each calls your function on fresh random inputs and
compares it with the course's own implementation.

One check per assignment, all called the same way::

    check_noise_distribution(noise_distribution)              # new random inputs every call
    check_noise_distribution(noise_distribution, seed=1)      # the same inputs every time

A check that passes prints one line starting with ``Right:``. One that fails raises
:class:`CheckFailed` with a sentence or two on what is wrong (a wrong sign, a missing term, the
paper's formula where word2vec.c's is asked for, ...) and the input size where it showed. A
``NotImplementedError`` from your function comes through unchanged: the assignment is not done yet.

Several sizes are tried, the smallest first (one noise word, two entries, a vocabulary of one
word), then random ones; ``trials`` sets how many inputs in all. When several inputs fail, the
message names the mistake they have in common.

One module per topic, named after the notebooks' subjects: :mod:`~course.teaching.checks.word2vec`
(notebooks 02-03), :mod:`~course.teaching.checks.glove` (04), :mod:`~course.teaching.checks.analogy`
(05), :mod:`~course.teaching.checks.elmo` (07-08) and :mod:`~course.teaching.checks.transfer`
(09-10); :mod:`~course.teaching.checks.common` holds the machinery they share.
"""

from .analogy import check_analogy_3cosadd
from .common import CheckFailed
from .elmo import check_scalar_mix, check_sense_knn_accuracy
from .glove import check_glove_loss, check_glove_weighting
from .transfer import check_discriminative_rates, check_entity_f1, check_entity_spans, check_slanted_triangular
from .transformer import check_masked_attention
from .word2vec import (
    check_huffman_code,
    check_keep_probabilities,
    check_negative_sampling_loss,
    check_noise_distribution,
)

__all__ = [
    "CheckFailed",
    "check_analogy_3cosadd",
    "check_discriminative_rates",
    "check_entity_f1",
    "check_entity_spans",
    "check_glove_loss",
    "check_glove_weighting",
    "check_huffman_code",
    "check_keep_probabilities",
    "check_masked_attention",
    "check_negative_sampling_loss",
    "check_noise_distribution",
    "check_scalar_mix",
    "check_sense_knn_accuracy",
    "check_slanted_triangular",
]
