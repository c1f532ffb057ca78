"""BERT's input, one pretraining example at a time (Devlin et al., 2019, section 3 and figure 2).

BERT reads a *pair* of sentences A and B as one sequence,

    [CLS] a_1 .. a_m [SEP] b_1 .. b_n [SEP]                        (T = m + n + 3 positions)

and the input vector of position t is the sum of three learned rows,

    x_t = E[token_t] + P[t] + S[segment_t],     E (V, d), P (max_positions, d), S (2, d),

with ``segment_t`` = 0 (A) from ``[CLS]`` to the first ``[SEP]`` and 1 (B) after it. Half the time B is
the sentence that follows A in the text (``IsNext``), half the time a sentence drawn at random
(``NotNext``); next-sentence prediction (NSP) is a binary classifier on the top state of ``[CLS]``,
trained beside the masked LM. RoBERTa (Liu et al., 2019) found NSP unnecessary: trained on the masked
LM alone, with full sentences, it did as well or better. The course's BERT
(:func:`~course.shared.transformers.course_transformer`) is pretrained that way, on the masked LM alone, one
sentence at a time as ``<bos> w_1 .. w_n <eos>`` (its ``[CLS]`` and ``[SEP]``), so it has no segment
table; :func:`bert_example` shows what BERT's input looks like, and
:mod:`~course.transformer.next_sentence` pretrains a BERT on such pairs, with NSP or without.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..core.errors import SettingError

CLS, SEP = "[CLS]", "[SEP]"
SEGMENT_A, SEGMENT_B = 0, 1


def bert_example(sentence: Sequence[str], next_sentence: Sequence[str], others: Sequence[Sequence[str]],
                 seed: int = 0) -> dict:
    """One NSP pretraining example: ``sentence`` as A, and as B either ``next_sentence`` (is-next, with
    probability 1/2, drawn from ``seed``) or a sentence drawn at random from ``others`` (not next).

    Args:
        sentence, next_sentence: lists of tokens, the second following the first in a text.
        others: the sentences a "not next" B is drawn from (those equal to ``next_sentence`` are skipped).
        seed: draws is-next and the random sentence.

    Returns:
        ``{"tokens", "segments", "positions", "is_next"}``: T tokens ``[CLS] A [SEP] B [SEP]``, their
        T segment ids (0 for A, 1 for B), positions 0 .. T - 1, and whether B is the next sentence.

    Raises:
        SettingError: an empty sentence, or no sentence in ``others`` to draw a "not next" from.
    """
    first, following = list(sentence), list(next_sentence)
    if not first or not following:
        raise SettingError("both sentences need at least one token")
    candidates = [list(s) for s in others if list(s) and list(s) != following]
    if not candidates:
        raise SettingError("others holds no sentence other than next_sentence to draw a 'not next' B from")
    rng = np.random.default_rng(seed)
    is_next = bool(rng.random() < 0.5)
    second = following if is_next else candidates[int(rng.integers(len(candidates)))]
    tokens = [CLS, *first, SEP, *second, SEP]
    segments = [SEGMENT_A] * (len(first) + 2) + [SEGMENT_B] * (len(second) + 1)
    return {"tokens": tokens, "segments": segments, "positions": list(range(len(tokens))), "is_next": is_next}
