"""How word2vec cuts its training examples from text.

- The dynamic window: each centre word draws its reach b uniformly from 1..window and sees the
  words at most b away in its sentence, so that near words are seen more often than far ones.
- Subsampling: each occurrence of a word is kept with the probability
  :meth:`~course.text.vocab.Vocabulary.keep_probabilities` gives (frequent words are dropped often),
  drawn anew in every epoch, before the windows are cut.
- Skip-gram trains on (centre, context word) pairs (:func:`skipgram_pairs`); CBOW on a centre
  word and its whole window (:func:`cbow_windows`). Both trainers cut windows, and skip-gram
  trains each window's pairs.
"""

from __future__ import annotations

import numpy as np

from ..core.errors import SettingError


def skipgram_pairs(ids: np.ndarray, sentence: np.ndarray, window: int, rng: np.random.Generator):
    """Skip-gram training pairs with word2vec's dynamic window.

    Each position p draws b_p uniformly from 1..window and pairs with every word at most b_p away
    in the same sentence. Args: ``ids`` ``(n,)`` word ids (already subsampled), ``sentence``
    ``(n,)`` the sentence of each. Returns ``(centres, contexts)``, each ``(pairs,)`` int64.
    """
    reach = rng.integers(1, window + 1, size=len(ids))
    centres, contexts = [], []
    for distance in range(1, window + 1):
        left = np.arange(len(ids) - distance)
        same = sentence[left] == sentence[left + distance]
        right_of = left[same & (reach[left] >= distance)]  # p pairs with p + distance
        left_of = left[same & (reach[left + distance] >= distance)] + distance  # p pairs with p - distance
        centres += [ids[right_of], ids[left_of]]
        contexts += [ids[right_of + distance], ids[left_of - distance]]
    return np.concatenate(centres).astype(np.int64), np.concatenate(contexts).astype(np.int64)


def cbow_windows(ids: np.ndarray, sentence: np.ndarray, window: int, rng: np.random.Generator):
    """CBOW examples with word2vec's dynamic window.

    Returns ``(centres (m,), contexts (m, 2 * window))`` int64, contexts padded with -1; centres
    with no context word in their sentence are left out. A window larger than the longest sentence
    less one reaches no further than that, so the columns stop there: ``--window 100000`` on short
    sentences costs what the sentences need.
    """
    n = len(ids)
    reach = rng.integers(1, window + 1, size=n)
    span = min(window, longest_sentence(sentence) - 1)
    offsets = np.concatenate([np.arange(-span, 0), np.arange(1, span + 1)])
    positions = np.arange(n)[:, None] + offsets[None, :]
    inside = (positions >= 0) & (positions < n) & (np.abs(offsets)[None, :] <= reach[:, None])
    clipped = positions.clip(0, max(n - 1, 0))
    inside &= sentence[clipped] == sentence[:, None]
    contexts = np.where(inside, ids[clipped], -1)
    has_context = inside.any(axis=1)
    return ids[has_context].astype(np.int64), contexts[has_context].astype(np.int64)


def longest_sentence(sentence: np.ndarray) -> int:
    """The length of the longest run of equal values in ``sentence`` ``(n,)`` (each token's sentence,
    in order); 0 for no tokens."""
    if len(sentence) == 0:
        return 0
    starts = np.flatnonzero(np.concatenate([[True], sentence[1:] != sentence[:-1], [True]]))
    return int(np.diff(starts).max())


def subsample(ids: np.ndarray, sentence: np.ndarray, keep: np.ndarray, rng: np.random.Generator):
    """The occurrences kept by frequent-word subsampling: ``ids`` and ``sentence`` ``(n,)`` shortened,
    each occurrence of word w kept with probability ``keep[w]``."""
    kept = rng.random(len(ids)) < keep[ids]
    return ids[kept], sentence[kept]


def training_text(vocab, corpus, min_count: int):
    """``corpus`` as word2vec reads it: ``(ids (n,), offsets (sentences + 1,), sentence (n,))``, the
    vocabulary words' ids, where each sentence starts, and the sentence of each word.

    Raises:
        SettingError: no sentence has two vocabulary words (nothing to train on).
    """
    ids, offsets = vocab.encode_corpus(corpus, unknown="drop")
    if not np.any(np.diff(offsets) >= 2):
        raise SettingError(f"corpus {corpus.name!r} is too small to train on: no sentence has two words "
                           f"in the vocabulary (min_count={min_count})")
    return ids, offsets, np.repeat(np.arange(len(offsets) - 1), np.diff(offsets))


def chunks(offsets: np.ndarray, words: int) -> list[tuple[int, int]]:
    """Split the corpus at sentence boundaries into spans of about ``words`` tokens."""
    cuts = np.searchsorted(offsets, np.arange(0, offsets[-1], words), side="left")
    bounds = np.unique(np.concatenate([offsets[cuts], [offsets[-1]]]))
    return [(int(a), int(b)) for a, b in zip(bounds[:-1], bounds[1:], strict=True) if b > a]
