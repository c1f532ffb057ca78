"""Counted n-gram language models with interpolated Kneser-Ney smoothing: the yardstick for the biLM.

An n-gram model predicts a word from the n - 1 words before it. Counting alone gives zero to every
n-gram the training text lacks, so the counts are *discounted* and the saved probability is spread
by a lower-order model. Interpolated Kneser-Ney (Kneser and Ney, 1995; Chen and Goodman, 1999) is
the best-known way to do it, and the standard baseline a neural language model has to beat:

    p_k(w | h) = max(c_k(h, w) - D, 0) / c_k(h)  +  D * T_k(h) / c_k(h) * p_{k-1}(w | h'),

where h is the last k - 1 words, h' is h without its first word, c_k(h) = sum_w c_k(h, w),
T_k(h) the number of distinct words w with c_k(h, w) > 0, and D the discount (0.75 here). At the
highest order c_k counts n-grams. At lower orders c_k(h, w) is the **continuation count**: the
number of distinct words seen *before* the k-gram (h, w). A word such as "francisco" is frequent
but follows almost only "san", so as a back-off guess after an unseen context it should be rare:
its continuation count is 1. The lowest order falls back on the uniform distribution 1 / V, so
every word of the vocabulary gets a probability; when c_k(h) = 0 (a context never seen), p_k is
p_{k-1}. For every context, the probabilities over the vocabulary sum to 1.

Sentences are padded with n - 1 ``<bos>`` in front and end with ``<eos>``, which is predicted;
``<bos>`` is never predicted. A backward model (``direction="backward"``) reads every sentence
right to left, as the biLM's backward LM does.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

import numpy as np

from ..core.errors import SettingError

BOS, EOS, UNK = "<bos>", "<eos>", "<unk>"
DIRECTIONS = ("forward", "backward")


class _Order:
    """The counts of one order k, keyed by integer codes of (h, w) and of h."""

    def __init__(self, grams: np.ndarray, vocab_size: int):
        # grams: (N, k) distinct or repeated k-grams; each row counted once per occurrence.
        self.k = grams.shape[1]
        keys = _encode(grams, vocab_size)
        self.keys, self.counts = np.unique(keys, return_counts=True)  # c_k(h, w)
        contexts = self.keys // vocab_size  # code of h
        self.contexts, first = np.unique(contexts, return_index=True)
        self.totals = np.add.reduceat(self.counts, first)  # c_k(h)
        self.types = np.diff(np.append(first, len(self.keys)))  # T_k(h)

    def lookup(self, grams: np.ndarray, vocab_size: int):
        """``(c_k(h, w), c_k(h), T_k(h))`` of each row of ``grams`` ``(N, k)``, zeros where unseen."""
        keys = _encode(grams, vocab_size)
        count = _find(self.keys, self.counts, keys)
        contexts = keys // vocab_size
        return count, _find(self.contexts, self.totals, contexts), _find(self.contexts, self.types, contexts)


def _encode(grams: np.ndarray, vocab_size: int) -> np.ndarray:
    """One int64 code per row of ``grams``: the ids as digits in base ``vocab_size``."""
    codes = np.zeros(len(grams), dtype=np.int64)
    for column in grams.T:
        codes = codes * vocab_size + column
    return codes


def _find(sorted_keys: np.ndarray, values: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """``values`` at ``keys`` in ``sorted_keys``, 0 where a key is absent."""
    where = np.minimum(np.searchsorted(sorted_keys, keys), len(sorted_keys) - 1)
    return np.where(sorted_keys[where] == keys, values[where], 0)


class KneserNeyLM:
    """An interpolated Kneser-Ney n-gram language model over a fixed vocabulary.

    Args:
        sentences: training sentences, lists of words. Words outside ``vocabulary`` count as
            ``<unk>``.
        order: n (2: bigram, 3: trigram, ...).
        vocabulary: the words the model predicts (``<unk>`` and ``<eos>`` are added); default:
            every word of ``sentences``.
        discount: D, the same at every order.
        direction: ``"forward"`` (predict each word from those before it) or ``"backward"``
            (from those after it).

    ``model.vocabulary`` lists the V words it predicts; :meth:`probabilities` gives a context's
    distribution over them, :meth:`perplexity` the perplexity of new sentences.
    """

    def __init__(self, sentences: Iterable[Sequence[str]], order: int = 2, vocabulary: Iterable[str] | None = None,
                 discount: float = 0.75, direction: str = "forward"):
        if order < 1:
            raise SettingError(f"order must be at least 1, got {order}")
        if not 0 < discount < 1:
            raise SettingError(f"discount must be in (0, 1), got {discount}")
        if direction not in DIRECTIONS:
            raise SettingError(f"direction must be forward or backward, got {direction!r}")
        self.order, self.discount, self.direction = order, discount, direction
        sentences = [list(sentence) for sentence in sentences]
        if vocabulary is None:
            vocabulary = sorted({word for sentence in sentences for word in sentence})
        words = [word for word in dict.fromkeys(vocabulary) if word not in (BOS, EOS, UNK)]
        self.vocabulary = [*words, UNK, EOS]  # what the model predicts: V words
        self._ids = {word: i for i, word in enumerate(self.vocabulary)}
        self._bos = len(self.vocabulary)  # a context-only id
        self._base = len(self.vocabulary) + 1
        grams = self._grams(sentences)
        if len(grams) == 0:
            raise SettingError("no training sentences to count")
        # Highest order: raw counts. Lower orders: continuation counts, i.e. the distinct
        # (k + 1)-grams ending in each k-gram, counted once each.
        self._orders = [None] * (order + 1)
        self._orders[order] = _Order(grams, self._base)
        distinct = grams
        for k in range(order - 1, 0, -1):
            distinct = np.unique(distinct, axis=0)[:, 1:]  # the (k + 1)-gram types, first word dropped
            self._orders[k] = _Order(distinct, self._base)

    def __len__(self) -> int:
        return len(self.vocabulary)

    def _encode_sentence(self, sentence: Sequence[str]) -> list[int]:
        unk = self._ids[UNK]
        ids = [self._ids.get(word, unk) for word in sentence]
        if self.direction == "backward":
            ids.reverse()
        return [self._bos] * (self.order - 1) + ids + [self._ids[EOS]]

    def _grams(self, sentences) -> np.ndarray:
        """``(N, order)``: every n-gram of the padded sentences whose last word is predicted."""
        rows = []
        for sentence in sentences:
            ids = np.asarray(self._encode_sentence(sentence), dtype=np.int64)
            n = len(ids) - self.order + 1
            rows.append(np.stack([ids[i:i + n] for i in range(self.order)], axis=1))
        return np.concatenate(rows) if rows else np.zeros((0, self.order), np.int64)

    def _probabilities(self, grams: np.ndarray) -> np.ndarray:
        """p(w | h) for each row ``(h, w)`` of ``grams`` ``(N, order)``, interpolated from order 1 up."""
        p = np.full(len(grams), 1.0 / len(self.vocabulary))
        d = self.discount
        for k in range(1, self.order + 1):
            count, total, types = self._orders[k].lookup(grams[:, self.order - k:], self._base)
            seen = total > 0
            safe = np.where(seen, total, 1)
            p = np.where(seen, np.maximum(count - d, 0) / safe + d * types / safe * p, p)
        return p

    def probabilities(self, context: Sequence[str] = ()) -> np.ndarray:
        """``(V,)``: p(w | context) for every word of :attr:`vocabulary`.

        ``context`` is in the model's reading order, the word next to the predicted one last (for a
        backward model: the words after it, right to left). A context shorter than n - 1 words is
        padded with ``<bos>``; a longer one is cut to its last n - 1 words.
        """
        unk = self._ids[UNK]
        ids = [self._bos] * (self.order - 1) + [self._bos if word == BOS else self._ids.get(word, unk)
                                                for word in context]
        ids = ids[len(ids) - (self.order - 1):]
        V = len(self.vocabulary)
        grams = np.column_stack([np.tile(np.asarray(ids, np.int64), (V, 1)), np.arange(V)])
        return self._probabilities(grams)

    def log_likelihood(self, sentences: Iterable[Sequence[str]]) -> tuple[float, int]:
        """``(sum of log p, number of predictions)`` over ``sentences`` (each word and ``<eos>``)."""
        grams = self._grams([list(sentence) for sentence in sentences])
        if len(grams) == 0:
            return 0.0, 0
        return float(np.log(self._probabilities(grams)).sum()), len(grams)

    def perplexity(self, sentences: Iterable[Sequence[str]]) -> float:
        """exp of the mean negative log-probability per prediction (words and ``<eos>``)."""
        total, n = self.log_likelihood(sentences)
        if n == 0:
            raise SettingError("no sentences to measure the perplexity on")
        return math.exp(-total / n)

    def __repr__(self) -> str:
        return (f"KneserNeyLM(order={self.order}, {self.direction}, V={len(self.vocabulary):,}, "
                f"discount={self.discount})")
