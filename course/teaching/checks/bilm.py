"""Checks of the biLM assignments (notebook 06): the corpus perplexity from the log-probabilities of each
prediction, and the char-CNN's masked max-pooling followed by one highway layer."""

from __future__ import annotations

import copy
import math
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np

from ...core.edition import text
from .harness import (
    GENERIC,
    TORCH_ATOL,
    CheckFailed,
    Failures,
    answer_array,
    call_answer,
    close_to,
    compares_with,
    describe,
    how_many,
    say_right,
    sentence_at,
    span_of,
    start_check,
    trial_inputs,
    worst_difference,
)


class _Failures(Failures):
    """The common collector, which names a mistake that every failed input shares. Each input's findings come
    simplest first (one mistake before two), and the input named is the earliest where the shared mistake is the
    simplest explanation: a mistake of two parts is named on an input where both parts show."""

    def raise_if_any(self) -> None:
        if self.trials:
            shared = set.intersection(*({key for key, _ in findings} for _, findings in self.trials)) - {GENERIC}
            shown = [(j, i, where, message) for i, (where, findings) in enumerate(self.trials)
                     for j, (key, message) in enumerate(findings) if key in shared]
            if shown:
                *_, where, message = min(shown)
                raise CheckFailed(sentence_at(message, where))
        super().raise_if_any()


def _simplest_first(findings: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Findings of one mistake before those of two, and so on (facts and the generic finding stay last)."""
    return sorted(findings, key=lambda finding: finding[0].count("+"))


# ----------------------------------------------------------------------------------- perplexity


def _perplexity_reference(log_probs: Sequence[np.ndarray]) -> float:
    """exp(-(1/N) Σ log p) over all N predictions of all sentences: the sum of the log-probabilities over the
    number of predictions, as :meth:`course.counts.ngram.KneserNeyLM.perplexity` and
    :func:`course.elmo.perplexity.evaluate_perplexity` compute it."""
    total = math.fsum(float(value) for sentence in log_probs for value in sentence)
    return math.exp(-total / sum(len(sentence) for sentence in log_probs))


def _log_prob_case(rng: np.random.Generator, lengths: Sequence[int]) -> list[np.ndarray]:
    """One array of natural-log probabilities per sentence: its words, then its end (``<eos>``, predicted more
    surely than a word). Sentences differ in how well the model knows them, so that their weights matter."""
    sentences = []
    for length in lengths:
        mean = rng.uniform(1.5, 7.0)  # nats per word: perplexities of about 5 to 1,000
        words = -rng.gamma(2.0, mean / 2, length - 1)
        sentences.append(np.append(words, -rng.uniform(0.05, 2.5)))
    return sentences


_TOKENS = [  # (key, which predictions of a sentence are counted, what is wrong: its key in the catalogue)
    ("", lambda sentence: sentence, None),
    ("end", lambda sentence: sentence[:-1], "check ppl no end"),
]
_TRANSFORMS = [  # (key, the perplexity as a function of the mean negative log-probability h, what is wrong)
    ("", np.exp, None),
    ("base 2", lambda h: 2.0**h, "check ppl base 2"),
    ("base 10", lambda h: 10.0**h, "check ppl base 10"),
    ("bits", lambda h: np.exp(h / math.log(2)), "check ppl bits"),
    ("log10", lambda h: np.exp(h / math.log(10)), "check ppl log10"),
    ("exp", lambda h: h, "check ppl no exp"),
    ("sign", lambda h: np.exp(-h), "check ppl sign"),
]


def _aggregations(sentences: list[np.ndarray], transform):
    """(key, the perplexity, what is wrong) for the ways of putting the sentences together."""
    means = np.asarray([-np.mean(sentence) for sentence in sentences])
    everything = np.concatenate(sentences)
    return [
        ("", transform(-np.mean(everything)), None),
        ("per sentence", transform(means.mean()), "check ppl per sentence"),
        ("perplexities", np.mean(transform(means)), "check ppl mean of perplexities"),
    ]


def _perplexity_findings(log_probs: list[np.ndarray], value: float, reference: float) -> list[tuple[str, str]]:
    got = text("check got expected", got=value, expected=reference)
    findings = []
    if not math.isfinite(value):
        total = math.fsum(float(v) for sentence in log_probs for v in sentence)
        if total < -700:  # exp(total) is below 1e-304: float64 runs out
            findings.append(("fact:underflow", text("check ppl underflow", value=value,
                                                    n=sum(map(len, log_probs)), total=total)))
        return findings + [(GENERIC, text("check ppl not finite", value=value, expected=reference))]
    for token_key, counted, token_wrong in _TOKENS:
        sentences = [np.asarray(counted(sentence)) for sentence in log_probs]
        for transform_key, transform, transform_wrong in _TRANSFORMS:
            with np.errstate(over="ignore"):
                aggregations = _aggregations(sentences, transform)
            for aggregation_key, candidate, aggregation_wrong in aggregations:
                parts = [text(part) for part in (token_wrong, aggregation_wrong, transform_wrong) if part]
                if parts and np.isfinite(candidate) and close_to(value, candidate):
                    key = "+".join(k for k in (token_key, aggregation_key, transform_key) if k)
                    findings.append((key, text("check ppl yours", parts=text("check glove and it").join(parts),
                                               got=got)))
    findings = _simplest_first(findings)
    if value < 1:
        findings.append(("fact:at least 1", text("check ppl at least 1", got=got)))
    return findings + [(GENERIC, text("check ppl differs", got=got))]


def _perplexity_value(result, where: str) -> float:
    """``result`` as one float (nan and inf kept: the findings say where they come from)."""
    try:
        array = np.asarray(result, dtype=np.float64)
    except (TypeError, ValueError, RuntimeError) as exc:
        raise CheckFailed(sentence_at(text("check ppl not a number", got=describe(result), error=exc), where)) from None
    if array.size != 1:
        raise CheckFailed(sentence_at(text("check ppl not one number", shape=array.shape), where))
    return float(array.reshape(()))


def _perplexity_trial(function, log_probs: list[np.ndarray], reference: float, where: str, failures) -> None:
    copies = [sentence.copy() for sentence in log_probs]
    result = call_answer(function, (copies,), shapes=text("check ppl shapes", n=len(log_probs),
                                                          span=span_of([len(s) for s in log_probs])))
    value = _perplexity_value(result, where)
    if not (math.isfinite(value) and close_to(value, reference)):
        failures.add(where, _perplexity_findings(log_probs, value, reference))


@compares_with()
def check_perplexity(function, *, seed: int | None = None, trials: int = 20) -> None:
    """Check ``function(log_probs) -> perplexity``.

    Inputs: ``log_probs`` a list of S float64 arrays, one per sentence, the natural-log probability the model
    gave each of its predictions, the end of the sentence (``<eos>``) last; every sentence has a word and its end.
    Expected: one float, the corpus perplexity exp(-(1/N) Σ log p) over all N predictions of all sentences
    (what :meth:`course.counts.ngram.KneserNeyLM.perplexity` and :func:`course.elmo.perplexity.evaluate_perplexity`
    compute); a held-out set of thousands of predictions included.
    """
    rng, _ = start_check(function, "perplexity", seed, trials)
    failures = _Failures()

    def draw() -> tuple[int, ...]:
        count = int(np.exp(rng.uniform(0, np.log(300))))  # 1 to 300 sentences
        return tuple(int(n) for n in rng.integers(2, 41, count))

    sizes = trial_inputs(trials, [(2,), (2, 5), (3, 2, 8)], draw)
    for lengths in sizes:
        log_probs = _log_prob_case(rng, lengths)
        where = text("check ppl where", sentences=how_many(len(lengths), "sentence"), n=sum(lengths))
        _perplexity_trial(function, log_probs, _perplexity_reference(log_probs), where, failures)
    failures.raise_if_any()
    say_right(text("check ppl right", trials=trials, sentences=span_of([len(s) for s in sizes]),
                   n=span_of([sum(s) for s in sizes])))


def kneser_ney_log_probs(model, sentences) -> list[np.ndarray]:
    """The natural-log probability ``model`` (a :class:`course.counts.ngram.KneserNeyLM`) gives each of its predictions
    in each sentence: one array per sentence, its words and then ``<eos>``, as its perplexity counts them."""
    sentences = [list(sentence) for sentence in sentences]
    log_probs = np.log(model._probabilities(model._grams(sentences)))
    return np.split(log_probs, np.cumsum([len(sentence) + 1 for sentence in sentences])[:-1])


@compares_with()
def check_perplexity_on_model(function, model, sentences) -> None:
    """Check ``function(log_probs)`` on a real model: with the log-probabilities a
    :class:`course.counts.ngram.KneserNeyLM` gives held-out ``sentences`` it should return
    ``model.perplexity(sentences)``.
    """
    start_check(function, "perplexity", 0, 1)
    log_probs = kneser_ney_log_probs(model, sentences)
    if not log_probs:
        raise ValueError(text("check ppl no sentences"))
    reference = float(model.perplexity(sentences))
    failures = _Failures()
    where = text("check ppl model where", model=repr(model), sentences=how_many(len(log_probs), "held-out sentence"),
                 n=sum(map(len, log_probs)))
    _perplexity_trial(function, log_probs, reference, where, failures)
    failures.raise_if_any()
    say_right(text("check ppl model right", sentences=how_many(len(log_probs), "sentence"), n=sum(map(len, log_probs)),
                   reference=reference))


# --------------------------------------------------------------------- char-CNN and highway layer


@contextmanager
def _one_thread() -> Iterator[None]:
    """torch on one thread while a check runs: its tensors are tiny, and on a busy machine waking a second thread
    for every small operation made the checks many times slower. The setting is put back afterwards."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(threads)


@dataclass
class _Words:
    """A batch of words and the weights of the char-CNN and one highway layer, as float64 torch tensors (the
    values the student gets in float32).

    ``embedded`` ``(N, C, c)`` with zero vectors at padding, ``lengths`` ``(N,)`` characters per word, ``filters``
    ``[(weight (n_i, c, w_i), bias (n_i,))]``, ``highway`` ``(W_H, b_H, W_T, b_T)`` in nn.Linear's layout."""

    embedded: object
    lengths: object
    filters: list
    highway: tuple

    @property
    def shape(self) -> tuple[int, int, int]:
        return tuple(self.embedded.shape)

    @property
    def num_features(self) -> int:
        return sum(int(weight.shape[0]) for weight, _ in self.filters)

    def where(self) -> str:
        n, c_positions, c = self.shape
        widths = ", ".join(str(int(weight.shape[2])) for weight, _ in self.filters)
        low, high = int(self.lengths.min()), int(self.lengths.max())
        characters = how_many(low, "character") if low == high else text("check cnn characters", low=low, high=high)
        return text("check cnn where", words=how_many(n, "word"), characters=characters,
                    positions=how_many(c_positions, "position"), c=c, widths=widths, features=self.num_features)

    def arguments(self) -> tuple:
        """What the student's function gets: float32 copies, and the mask."""
        import torch

        mask = torch.arange(self.shape[1])[None, :] < self.lengths[:, None]
        return (self.embedded.float(), mask, [(weight.float(), bias.float()) for weight, bias in self.filters],
                *(tensor.float() for tensor in self.highway))


def _random_words(rng: np.random.Generator, lengths: Sequence[int], positions: int, char_dim: int,
                  filters: Sequence[tuple[int, int]]) -> _Words:
    """Character embeddings (zeros at padding) and weights at the scale of a real char-CNN, rounded to float32:
    scores of order 1, filter biases of either sign, so that on a short word the padding's windows (which score
    the bias) often beat the word's own and its pooled features are often negative."""
    import torch

    lengths = np.asarray(lengths, dtype=np.int64)
    embedded = rng.normal(size=(len(lengths), positions, char_dim))
    embedded[np.arange(positions)[None, :] >= lengths[:, None]] = 0.0
    weights = [(rng.normal(0, 1 / math.sqrt(char_dim * width), (number, char_dim, width)), rng.uniform(-1, 1, number))
               for width, number in filters]
    d = sum(number for _, number in filters)
    highway = (rng.normal(0, 1 / math.sqrt(d), (d, d)), rng.normal(0, 0.5, d),
               rng.normal(0, 1 / math.sqrt(d), (d, d)), rng.normal(0, 1.0, d))

    def tensor(array):
        return torch.from_numpy(np.asarray(array, dtype=np.float32)).double()  # float32 values, in float64

    return _Words(tensor(embedded), torch.from_numpy(lengths), [(tensor(w), tensor(b)) for w, b in weights],
                  tuple(tensor(array) for array in highway))


def _reference_from_encoder(encoder, char_ids):
    """``(N, D)``: the encoder's char-CNN and its FIRST highway layer, in float64 (its own modules, with the
    later highway layers and the projection taken off)."""
    from torch import nn

    one = copy.deepcopy(encoder).cpu().double()
    one.highways = one.highways[:1]
    one.projection = nn.Identity()
    return one.encode_distinct(char_ids).detach()


def _encoder_reference(words: _Words):
    """``(N, D)`` from :class:`course.elmo.token_encoder.TokenEncoder` given the same weights: one character id
    per position of each word, whose embedding is the given one; id 0, padding, embeds as zeros."""
    import torch

    from ...elmo.config import ElmoConfig
    from ...elmo.token_encoder import TokenEncoder

    n, positions, char_dim = words.shape
    d = words.num_features
    config = ElmoConfig(char_dim=char_dim, filters=tuple((int(w.shape[2]), int(w.shape[0])) for w, _ in words.filters),
                        highway_layers=1, projection_dim=d, lstm_dim=d + 1)
    encoder = TokenEncoder(config, n * positions + 1).double()
    char_ids = torch.arange(1, n * positions + 1).reshape(n, positions)
    char_ids = char_ids.masked_fill(torch.arange(positions)[None, :] >= words.lengths[:, None], 0)
    with torch.no_grad():
        encoder.char_embedding.weight.zero_()
        encoder.char_embedding.weight[1:] = words.embedded.reshape(n * positions, char_dim)
        for convolution, (weight, bias) in zip(encoder.convolutions, words.filters, strict=True):
            convolution.weight.copy_(weight)
            convolution.bias.copy_(bias)
        highway = encoder.highways[0]
        for parameter, value in zip((highway.transform.weight, highway.transform.bias, highway.gate.weight,
                                     highway.gate.bias), words.highway, strict=True):
            parameter.copy_(value)
    return _reference_from_encoder(encoder, char_ids)


_WRONG_AXIS = "check cnn wrong axis"  # each mistake's message: its key in the catalogue
# The usual mistakes, each a switch of _pool: (key, switches, what is wrong with the pooled features)
_POOLINGS = [
    ("", {}, None),
    ("padding", {"windows": "all"}, "check cnn padding"),
    ("inside", {"windows": "inside"}, "check cnn inside"),
    ("right end", {"windows": "unpadded"}, "check cnn right end"),
    ("mean", {"pool": "mean"}, "check cnn mean"),
    ("axis", {"axis": "filters"}, "check cnn pooling axis"),
    ("axis", {"transpose": True}, _WRONG_AXIS),
]
_HIGHWAYS = [
    ("", {}, None),
    ("gate", {"gate": "transform"}, "check cnn gate"),
    ("layout", {"layout": "transposed"}, "check cnn layout"),
    ("transform relu", {"transform_relu": False}, "check cnn transform relu"),
    ("no highway", {"highway": False}, "check cnn no highway"),
]
_NO_RELU = "check cnn no relu"


def _scores(words: _Words, transpose: bool = False) -> list | None:
    """Each filter's scores ``(N, n_i, length)`` at every window start, the right end padded with w - 1 zeros, in
    float64: over the C positions, or (``transpose``, a mistake) over the c numbers of the embeddings, which
    conv1d reads that way when they are not transposed (None where the shapes do not allow it)."""
    import torch.nn.functional as F

    x = words.embedded if transpose else words.embedded.transpose(1, 2)  # (N, channels, length)
    if x.shape[1] != words.shape[2]:
        return None
    return [F.conv1d(F.pad(x, (0, int(weight.shape[2]) - 1)), weight, bias) for weight, bias in words.filters]


def _pool(words: _Words, scores: list | None = None, *, windows: str = "word", pool: str = "max",
          axis: str = "positions", relu: bool = True, transpose: bool = False):
    """``(N, D)`` pooled features in float64 from ``scores`` (default: ``_scores(words, transpose)``), with
    switches that make one mistake each (None where the mistake gives no answer of that shape)."""
    import torch

    scores = _scores(words, transpose) if scores is None else scores
    if scores is None:
        return None
    pooled = []
    for (weight, _), filter_scores in zip(words.filters, scores, strict=True):
        width, (count, length) = int(weight.shape[2]), (len(filter_scores), filter_scores.shape[2])
        starts, lengths = torch.arange(length)[None, :], words.lengths[:, None]
        valid = {"word": starts < lengths,
                 "all": torch.ones(count, length, dtype=torch.bool),
                 "inside": starts + width <= lengths,
                 "unpadded": (starts < lengths) & (starts + width <= length)}[windows][:, None, :]
        if pool == "mean":
            features = (filter_scores * valid).sum(2) / valid.sum(2).clamp(min=1)
        else:
            features = filter_scores.masked_fill(~valid, float("-inf")).max(dim=1 if axis == "filters" else 2).values
        pooled.append(torch.relu(features) if relu else features)
    pooled = torch.cat(pooled, dim=1)
    return pooled if pooled.shape == (count, words.num_features) else None


def _highway(words: _Words, x, *, gate: str = "carry", layout: str = "linear", transform_relu: bool = True,
             highway: bool = True):
    """One highway layer on ``x`` ``(N, D)``, with switches that make one mistake each."""
    import torch

    if not highway:
        return x
    w_h, b_h, w_t, b_t = words.highway
    if layout == "linear":
        w_h, w_t = w_h.T, w_t.T
    g = torch.sigmoid(x @ w_t + b_t)
    h = x @ w_h + b_h
    h = torch.relu(h) if transform_relu else h
    return g * x + (1 - g) * h if gate == "carry" else g * h + (1 - g) * x


def _char_cnn_findings(words: _Words, value: np.ndarray, reference: np.ndarray) -> list[tuple[str, str]]:
    atol = TORCH_ATOL * max(1.0, float(np.abs(reference).max()))
    findings = []
    scores = {transpose: _scores(words, transpose) for transpose in (False, True)}  # the convolutions, once
    for (pool_key, pool_switches, pool_wrong), relu in ((pooling, relu) for pooling in _POOLINGS
                                                        for relu in (True, False)):
        transpose = pool_switches.get("transpose", False)
        pooled = None if scores[transpose] is None else _pool(words, scores[transpose], relu=relu, **pool_switches)
        if pooled is None:
            continue
        for highway_key, highway_switches, highway_wrong in _HIGHWAYS:
            parts = [text(part) for part in (pool_wrong, None if relu else _NO_RELU, highway_wrong) if part]
            if not parts:
                continue
            candidate = _highway(words, pooled, **highway_switches).numpy()
            if np.all(np.isfinite(candidate)) and close_to(value, candidate, atol):
                key = "+".join(k for k in (pool_key, "" if relu else "relu", highway_key) if k)
                findings.append((key, text("check cnn yours", parts=text("check glove and it").join(parts))))
    generic = text("check cnn differs", worst=worst_difference(value, reference))
    return _simplest_first(findings) + [(GENERIC, generic)]


def _char_cnn_trial(function, words: _Words, reference, failures) -> None:
    import torch

    where = words.where()
    n, positions, char_dim = words.shape
    d = words.num_features
    try:
        result = call_answer(function, words.arguments(),
                             shapes=text("check cnn shapes", embedded=(n, positions, char_dim), mask=(n, positions),
                                         filters=how_many(len(words.filters), "filter"), highway=(d, d)))
    except CheckFailed as failure:
        failures.raise_if_any()  # an earlier input showed what is wrong: that says more than the error
        cause = str(failure.__cause__)
        if positions != char_dim and f"to have {char_dim} channels, but got {positions} channels" in cause:
            raise CheckFailed(sentence_at(text("check cnn conv1d said", wrong=text(_WRONG_AXIS),
                                               said=cause.rstrip('.')), where)) from failure
        if "Kernel size can't be greater than actual input size" in cause:
            raise CheckFailed(sentence_at(text("check cnn kernel too large", said=cause.rstrip('.')), where)) \
                from failure
        if type(failure.__cause__).__name__ in ("RuntimeError", "IndexError", "ValueError"):  # graded: a stand-in
            raise CheckFailed(text("check cnn axes", failure=str(failure)[:-1])) from failure
        raise
    if isinstance(result, torch.Tensor):
        result = result.detach().cpu().double()
    value = answer_array(result, text("check the result"), (n, d), "(N, D)", where)
    reference = reference.numpy()
    if not close_to(value, reference, TORCH_ATOL * max(1.0, float(np.abs(reference).max()))):
        failures.add(where, _char_cnn_findings(words, value, reference))


@compares_with(
    "course.elmo.token_encoder:TokenEncoder.encode_distinct",
    "course.elmo.token_encoder:TokenEncoder._pool_every_window",
    "course.elmo.token_encoder:TokenEncoder._project",
    "course.elmo.token_encoder:Highway.forward",
)
def check_char_cnn_highway(function, *, seed: int | None = None, trials: int = 20) -> None:
    """Check ``function(embedded, mask, filters, W_H, b_H, W_T, b_T) -> (N, D)``.

    Inputs (torch float32): ``embedded`` ``(N, C, c)`` the character embeddings of N words (each word's
    characters first, then padding, which holds zero vectors), ``mask`` ``(N, C)`` bool, True at the
    characters; ``filters`` a list of ``(weight (n_i, c, w_i), bias (n_i,))``, as nn.Conv1d stores them;
    ``W_H, b_H, W_T, b_T`` ``(D, D), (D,), (D, D), (D,)`` with D = Σ n_i, as nn.Linear stores them. Expected: per
    filter ReLU of its largest score over the windows that start at the word's characters (windows run past the
    word's end into zeros), the widths side by side, then y = g x + (1 - g) ReLU(W_H x + b_H),
    g = σ(W_T x + b_T): :class:`course.elmo.token_encoder.TokenEncoder` with one highway layer and no projection.
    """
    with _one_thread():
        _check_char_cnn_highway(function, seed, trials)


def _check_char_cnn_highway(function, seed: int | None, trials: int) -> None:
    rng, _ = start_check(function, "char_cnn_highway", seed, trials)
    failures = _Failures()

    def draw():
        lengths = rng.integers(1, 11, int(rng.integers(1, 9)))
        positions = int(lengths.max()) + (0 if rng.random() < 0.5 else int(rng.integers(1, 5)))
        widths = np.sort(rng.choice(np.arange(1, 6), int(rng.integers(1, 4)), replace=False))
        return (tuple(int(n) for n in lengths), positions, int(rng.integers(1, 9)),
                tuple((int(w), int(rng.integers(1, 9))) for w in widths))

    # (lengths, C, c, filters): one character; words shorter than their filter; a word that fills its row; two
    # widths. In the second and third c = C = n_1, so that a pooling or a convolution over the wrong axis still
    # gives (N, D) and the check can say which it is
    edges = [((1,), 1, 1, ((1, 1),)), ((1, 2), 4, 4, ((3, 4),)), ((6, 3, 1), 6, 6, ((2, 6),)),
             ((5, 3, 1), 5, 2, ((1, 2), (2, 3)))]
    sizes = trial_inputs(trials, edges, draw)
    for lengths, positions, char_dim, filters in sizes:
        words = _random_words(rng, lengths, positions, char_dim, filters)
        _char_cnn_trial(function, words, _encoder_reference(words), failures)
    failures.raise_if_any()
    say_right(text("check cnn right", trials=trials, words=span_of([len(size[0]) for size in sizes]),
                   positions=span_of([size[1] for size in sizes]), features=span_of([sum(n for _, n in size[3])
                                                                                     for size in sizes])))


@compares_with(
    "course.elmo.token_encoder:TokenEncoder.encode_distinct",
    "course.elmo.token_encoder:TokenEncoder._pool_every_window",
    "course.elmo.token_encoder:TokenEncoder._project",
    "course.elmo.token_encoder:Highway.forward",
)
def check_char_cnn_highway_on_encoder(function, encoder, char_ids) -> None:
    """Check ``function`` on a real :class:`course.elmo.token_encoder.TokenEncoder` and real words: ``char_ids``
    ``(N, C)`` int64 (0 = padding, e.g. ``CharacterVocabulary.encode(words)``) embedded by the encoder, its
    filters and its first highway layer; the result should be what its own modules give."""
    import torch

    start_check(function, "char_cnn_highway", 0, 1)
    if not len(encoder.highways):
        raise ValueError(text("check cnn no highway layer"))
    char_ids = torch.as_tensor(np.asarray(char_ids), dtype=torch.int64)
    if char_ids.ndim != 2 or not len(char_ids) or not bool((char_ids != 0).any(1).all()):
        raise ValueError(text("check cnn char ids", shape=tuple(char_ids.shape)))
    encoder = copy.deepcopy(encoder).cpu().float()
    with torch.no_grad(), _one_thread():
        highway = encoder.highways[0]
        words = _Words(encoder.char_embedding(char_ids).double(), (char_ids != 0).sum(1),
                       [(conv.weight.double(), conv.bias.double()) for conv in encoder.convolutions],
                       tuple(p.double() for p in (highway.transform.weight, highway.transform.bias,
                                                  highway.gate.weight, highway.gate.bias)))
        reference = _reference_from_encoder(encoder, char_ids)
        failures = _Failures()
        _char_cnn_trial(function, words, reference, failures)
    failures.raise_if_any()
    say_right(text("check cnn model right", words=how_many(len(char_ids), "real word"), filters=words.num_features))

