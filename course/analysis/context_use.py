"""How far back a left-to-right language model looks: the loss of a word when its far context is
perturbed (Khandelwal, He, Qi and Jurafsky, 2018, "Sharp Nearby, Fuzzy Far Away").

A sentence w_1 .. w_n is read as ``<bos> w_1 .. w_n``; the target w_k has the context
c_k = w_1 .. w_{k-1}. For a distance d, the nearest d words of c_k are kept and the ones farther
back, w_1 .. w_{k-1-d}, are perturbed, giving c_k^{(d)}:

- ``shuffle``: the far words in a random order (their words kept, their order lost);
- ``replace``: each far word replaced by a word drawn uniformly from a vocabulary.

The measure at d is the mean increase of the target's negative log-likelihood,

    Delta(d) = (1/N_d) sum_{(s, k)} [ -log p(w_k | <bos> c_k^{(d)}) + log p(w_k | <bos> c_k) ],

over the N_d targets of the sentences s that have far context at d: more than d words before
them (at least two far words for ``shuffle``, which cannot change one). A model that uses the
words more than d back loses when they are perturbed: Delta(d) > 0; one that does not has
Delta(d) = 0 (exactly, where the perturbation leaves the input as it was). The spread is a
bootstrap over sentences (the ratio of the resampled sums).

The perturbations are drawn from ``seed``, the sentence's number and d, so the same call gives the
same figures, and the figure at one d does not depend on which other distances are asked for.

A model is an :class:`~course.elmo.Elmo` (its forward LM), a causal
:class:`~course.transformer.Transformer` (GPT), or any object with a method
``next_word_nll(contexts, targets) -> (N,) array`` of -log p(target | <bos> context), in nats.
Sentences longer than the model reads at once are cut to that length (``max_sentence_length``
words for the biLM, ``max_words`` for a Transformer).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch

PERTURBATIONS = ("shuffle", "replace")


def _kind(model) -> str:
    if hasattr(model, "bilm") and hasattr(model, "characters"):
        return "elmo"
    if hasattr(model, "network") and hasattr(model, "config"):
        if model.config.objective != "causal":
            raise ValueError("a masked (BERT-style) model sees both sides of a word: it is not a left-to-right "
                             "language model, so 'how far back it looks' does not apply")
        return "transformer"
    if callable(getattr(model, "next_word_nll", None)):
        return "custom"
    raise TypeError(f"{type(model).__name__} is not a language model this module reads: give an Elmo, a causal "
                    "Transformer, or an object with next_word_nll(contexts, targets)")


def max_context(model) -> int | None:
    """The most words of a sentence the model reads at once (None: no limit)."""
    kind = _kind(model)
    if kind == "elmo":
        return int(model.config.max_sentence_length)
    if kind == "transformer":
        return int(model.config.max_words)
    return None


def vocabulary_words(model) -> list[str]:
    """The words of the model's vocabulary, special tokens left out (the default ``replace`` pool)."""
    if _kind(model) == "custom":
        raise ValueError("give the replacement words (vocabulary=...) for a model without a vocabulary")
    words = model.words
    return [w for w in words.words if w not in words.specials]


@torch.no_grad()
def next_word_nll(model, contexts: Sequence[Sequence[str]], targets: Sequence[str],
                  batch_tokens: int = 8_000) -> np.ndarray:
    """``(N,)`` float64 -log p(targets[i] | <bos> contexts[i]) in nats, measured without dropout.

    Unknown words are the model's ``<unk>`` (as input and as target), as in its perplexity; the
    target ``"<eos>"`` gives the probability that the sentence ends there. Contexts are batched by
    length, about ``batch_tokens`` positions a batch, padding after each one: the forward LM and the
    causal Transformer never read padding, so a context gets the same figure in any batch.
    """
    if len(contexts) != len(targets):
        raise ValueError(f"{len(contexts)} contexts but {len(targets)} targets")
    kind = _kind(model)
    if kind == "custom":
        return np.asarray(model.next_word_nll([list(c) for c in contexts], list(targets)), dtype=np.float64)
    module = model.bilm if kind == "elmo" else model.network
    device = next(module.parameters()).device
    words = model.words
    target_ids = np.asarray([words.word_to_id.get(t, words.unk_id) for t in targets], dtype=np.int64)
    out = np.zeros(len(contexts), dtype=np.float64)
    order = np.argsort([len(c) for c in contexts], kind="stable")
    was_training = module.training
    module.eval()
    try:
        start = 0
        while start < len(order):
            end = start + 1
            while end < len(order) and (end - start + 1) * (len(contexts[order[end]]) + 1) <= batch_tokens:
                end += 1
            group = order[start:end]
            rows = [["<bos>", *contexts[i]] for i in group]
            last = torch.as_tensor([len(r) - 1 for r in rows], device=device)  # (B,) the state that predicts
            if kind == "elmo":
                char_ids, _ = model.characters.encode_sentences(rows, boundaries=False)  # (B, T, C)
                outputs, _ = module.forward_lm(module.token_encoder(torch.from_numpy(char_ids).to(device)))
                top = outputs[-1][torch.arange(len(group), device=device), last]  # (B, d)
                log_p = module.target_log_probabilities(top, torch.from_numpy(target_ids[group]).to(device))
            else:
                width = max(len(r) for r in rows)
                ids = torch.full((len(rows), width), words.pad_id, dtype=torch.long)
                mask = torch.zeros((len(rows), width), dtype=torch.bool)
                for b, i in enumerate(group):
                    ids[b, 0] = words.bos_id
                    ids[b, 1:len(contexts[i]) + 1] = torch.as_tensor(words.encode(list(contexts[i])), dtype=torch.long)
                    mask[b, :len(contexts[i]) + 1] = True
                top = module(ids.to(device), mask.to(device)).layers[-1]  # (B, T, d)
                top = top[torch.arange(len(group), device=device), last]  # (B, d)
                log_p = module.target_log_probabilities(top, torch.from_numpy(target_ids[group]).to(device))
            out[group] = -log_p.double().cpu().numpy()
            start = end
    finally:
        module.train(was_training)
    return out


def _cut(model, sentences) -> list[list[str]]:
    limit = max_context(model)
    return [list(s)[:limit] if limit else list(s) for s in sentences]


def _bootstrap(sums: np.ndarray, counts: np.ndarray, samples: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """``sums``, ``counts`` ``(S, K)`` per sentence -> the 2.5% and 97.5% points ``(K,)`` of
    sum(sums) / sum(counts) over ``samples`` resamplings of the S sentences."""
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, len(sums), size=(samples, len(sums)))  # (samples, S)
    totals = counts[picks].sum(1)  # (samples, K)
    ratios = sums[picks].sum(1) / np.maximum(totals, 1)
    ratios[totals == 0] = np.nan  # a resample without a target says nothing
    low, high = np.full(sums.shape[1], np.nan), np.full(sums.shape[1], np.nan)
    some = ~np.isnan(ratios).all(0)
    low[some] = np.nanpercentile(ratios[:, some], 2.5, axis=0)
    high[some] = np.nanpercentile(ratios[:, some], 97.5, axis=0)
    return low, high


def _perturb(far: list[str], perturb: str, rng: np.random.Generator, vocabulary: list[str]) -> list[str]:
    if perturb == "shuffle":
        return [far[i] for i in rng.permutation(len(far))]
    return [vocabulary[i] for i in rng.integers(0, len(vocabulary), size=len(far))]


def context_loss_increase(model, sentences: Sequence[Sequence[str]], distances: Sequence[int] = (1, 2, 4, 8, 16),
                          perturb: str = "shuffle", seed: int = 0, vocabulary: Sequence[str] | None = None,
                          bootstrap: int = 1_000, batch_tokens: int = 8_000) -> dict:
    """Delta(d), the mean increase of a word's loss when its context farther than d words back is
    perturbed (see the module's docstring), for each d of ``distances``.

    Args:
        model: an Elmo, a causal Transformer, or an object with ``next_word_nll``.
        sentences: lists of tokens (the held-out sentences); the targets are their words.
        distances: the d values, each >= 0 (d = 0 perturbs the whole context).
        perturb: ``"shuffle"`` or ``"replace"``.
        seed: the perturbations' seed (with the sentence's number and d), and the bootstrap's.
        vocabulary: the words ``replace`` draws from (default: the model's vocabulary).
        bootstrap: resamplings of the sentences for the spread.

    Returns:
        A dict of plain types, lists aligned with ``distances``: ``distances``, ``perturb``,
        ``seed``; ``increase`` Delta(d) in nats (nan where no target has far context), ``low`` and
        ``high`` its 95% bootstrap interval; ``intact`` the mean loss of the same targets with their
        context intact; ``targets`` N_d; ``sentences`` how many were given.
    """
    if perturb not in PERTURBATIONS:
        raise ValueError(f"unknown perturbation {perturb!r}: use one of {', '.join(PERTURBATIONS)}")
    distances = [int(d) for d in distances]
    if not distances or min(distances) < 0:
        raise ValueError(f"distances must be whole numbers >= 0, got {distances}")
    sentences = _cut(model, sentences)
    if perturb == "replace":
        vocabulary = list(vocabulary) if vocabulary is not None else vocabulary_words(model)
        if not vocabulary:
            raise ValueError("the replacement vocabulary is empty")
    min_far = 2 if perturb == "shuffle" else 1
    # every (sentence, d, k) whose far context is long enough, and its perturbed context
    jobs, contexts, targets = [], [], []
    for s, sentence in enumerate(sentences):
        for j, d in enumerate(distances):
            rng = np.random.default_rng([seed, s, d])
            for k in range(len(sentence)):  # target w_{k+1}, context sentence[:k]
                far = k - d
                if far < min_far:
                    continue
                changed = _perturb(sentence[:far], perturb, rng, vocabulary)
                jobs.append((s, j, k, changed != sentence[:far]))
                if jobs[-1][3]:
                    contexts.append(changed + sentence[far:k])
                    targets.append(sentence[k])
    needed = sorted({(s, k) for s, _, k, _ in jobs})
    intact = dict(zip(needed, next_word_nll(model, [sentences[s][:k] for s, k in needed],
                                            [sentences[s][k] for s, k in needed], batch_tokens), strict=True))
    perturbed = iter(next_word_nll(model, contexts, targets, batch_tokens))
    sums = np.zeros((len(sentences), len(distances)))
    intact_sums = np.zeros_like(sums)
    counts = np.zeros_like(sums)
    for s, j, k, moved in jobs:
        base = intact[(s, k)]
        sums[s, j] += (next(perturbed) - base) if moved else 0.0
        intact_sums[s, j] += base
        counts[s, j] += 1
    total = counts.sum(0)
    with np.errstate(invalid="ignore", divide="ignore"):
        increase = sums.sum(0) / total
        intact_mean = intact_sums.sum(0) / total
    low, high = _bootstrap(sums, counts, bootstrap, seed) if len(sentences) else (increase, increase)
    return {"distances": distances, "perturb": perturb, "seed": int(seed),
            "increase": [float(x) for x in increase], "low": [float(x) for x in low],
            "high": [float(x) for x in high], "intact": [float(x) for x in intact_mean],
            "targets": [int(x) for x in total], "sentences": len(sentences)}


def loss_by_position(model, sentences: Sequence[Sequence[str]], bootstrap: int = 1_000, seed: int = 0,
                     batch_tokens: int = 8_000) -> dict:
    """The mean loss of the k-th word of a sentence, -log p(w_k | <bos> w_1 .. w_{k-1}), by k: how
    the loss falls as the model has more context to read.

    Returns:
        A dict of plain types, lists over k = 1 .. the longest sentence: ``position`` k (k - 1
        words of context), ``loss`` the mean in nats, ``low`` and ``high`` its 95% bootstrap
        interval over sentences, ``targets`` the words at that position.
    """
    sentences = _cut(model, sentences)
    pairs = [(s, k) for s, sentence in enumerate(sentences) for k in range(len(sentence))]
    nll = next_word_nll(model, [sentences[s][:k] for s, k in pairs], [sentences[s][k] for s, k in pairs],
                        batch_tokens)
    longest = max((len(s) for s in sentences), default=0)
    sums = np.zeros((len(sentences), longest))
    counts = np.zeros_like(sums)
    for (s, k), value in zip(pairs, nll, strict=True):
        sums[s, k] += value
        counts[s, k] += 1
    total = counts.sum(0)
    loss = sums.sum(0) / np.maximum(total, 1)
    low, high = _bootstrap(sums, counts, bootstrap, seed) if len(sentences) else (loss, loss)
    return {"position": list(range(1, longest + 1)), "loss": [float(x) for x in loss],
            "low": [float(x) for x in low], "high": [float(x) for x in high], "targets": [int(x) for x in total]}
