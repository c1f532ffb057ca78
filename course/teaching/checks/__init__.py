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

One module per topic, named after the notebooks' subjects: :mod:`~course.teaching.checks.corpus`
(notebooks 00-01), :mod:`~course.teaching.checks.word2vec` (02-03), :mod:`~course.teaching.checks.gradients`
(the gradients of 02 and 04, against finite differences), :mod:`~course.teaching.checks.bounds` (03's
entropy bound), :mod:`~course.teaching.checks.subwords` (03's BPE), :mod:`~course.teaching.checks.glove` (04),
:mod:`~course.teaching.checks.analogy` and :mod:`~course.teaching.checks.bias` (05),
:mod:`~course.teaching.checks.bilm` (06), :mod:`~course.teaching.checks.elmo` (07-08),
:mod:`~course.teaching.checks.transfer` (09-10), :mod:`~course.teaching.checks.transformer` and
:mod:`~course.teaching.checks.attention` (11); :mod:`~course.teaching.checks.harness` holds the machinery
they share. Every check is importable from this package and from its module.
"""

from .analogy import check_analogy_3cosadd
from .attention import check_padded_attention
from .bias import check_weat_effect_size
from .bilm import check_char_cnn_highway, check_perplexity
from .bounds import check_entropy_bound
from .corpus import check_oov_rate_estimate, check_positive_pmi
from .elmo import check_scalar_mix, check_sense_knn_accuracy
from .glove import check_glove_loss, check_glove_weighting
from .gradients import check_glove_gradients, check_negative_sampling_gradients
from .harness import CheckFailed
from .subwords import check_bpe_merges
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
    "check_bpe_merges",
    "check_char_cnn_highway",
    "check_discriminative_rates",
    "check_entity_f1",
    "check_entity_spans",
    "check_entropy_bound",
    "check_glove_gradients",
    "check_glove_loss",
    "check_glove_weighting",
    "check_huffman_code",
    "check_keep_probabilities",
    "check_masked_attention",
    "check_negative_sampling_gradients",
    "check_negative_sampling_loss",
    "check_noise_distribution",
    "check_oov_rate_estimate",
    "check_padded_attention",
    "check_perplexity",
    "check_positive_pmi",
    "check_scalar_mix",
    "check_sense_knn_accuracy",
    "check_slanted_triangular",
    "check_weat_effect_size",
]
