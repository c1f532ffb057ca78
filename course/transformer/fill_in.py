"""Fill in the blank: one word of a sentence hidden, and three models asked for it.

- a **masked** Transformer (BERT) reads the whole sentence with ``<mask>`` in the blank: both sides
  at once, in order, through every layer;
- a **causal** Transformer (GPT) reads only the words left of the blank and predicts the next word;
- **CBOW** (word2vec with negative sampling) averages the input vectors of the words within
  ``window`` of the blank, on both sides but as a bag, order lost, and scores every word w by
  ``output_vectors[w] . mean``: the same fill-in-the-blank it was trained on.

Every model ranks the words of its own vocabulary (its special tokens never); a blank whose word a
model does not know counts as wrong for that model, so compare models on blanks whose word all of
them know (:func:`fill_in_blanks` says which). Plain types in and out.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch

from .data import pad_batch

KINDS = ("masked", "causal", "cbow")


def _check_blanks(sentences, positions) -> None:
    if len(sentences) != len(positions):
        raise ValueError(f"{len(sentences)} sentences but {len(positions)} positions")
    for number, (sentence, position) in enumerate(zip(sentences, positions, strict=True)):
        if not 0 <= position < len(sentence):
            raise ValueError(f"sentence {number} has {len(sentence)} words; no position {position}")


def _top_words(scores: torch.Tensor, words, banned: Sequence[int], k: int) -> list[list[str]]:
    scores = scores.float().clone()
    scores[:, list(banned)] = float("-inf")
    top = torch.topk(scores, min(k, scores.shape[1] - len(banned)), dim=1).indices.cpu().numpy()
    return [[words[i] for i in row] for row in top]


@torch.no_grad()
def transformer_predictions(model, sentences: Sequence[Sequence[str]], positions: Sequence[int], k: int = 5,
                            batch_size: int = 64) -> list[list[str]]:
    """The top ``k`` words of a :class:`~course.transformer.model.Transformer` for the blank
    ``sentences[i][positions[i]]``: a masked model sees the sentence with ``<mask>`` there, a causal
    one the words before it only. Sentences must fit the position table."""
    _check_blanks(sentences, positions)
    words = model.words
    network, device = model.network, model.device
    masked = model.config.objective == "masked"
    banned = [words.word_to_id[token] for token in words.specials]
    was_training = network.training
    network.eval()
    out: list[list[str]] = []
    try:
        for start in range(0, len(sentences), batch_size):
            group = range(start, min(start + batch_size, len(sentences)))
            encoded = []
            for i in group:
                ids = words.encode(list(sentences[i]))
                if len(ids) > model.config.max_words:
                    raise ValueError(f"sentence {i} has {len(ids)} words; the position table holds "
                                     f"{model.config.max_words}")
                if masked:
                    ids = ids.copy()
                    ids[positions[i]] = words.word_to_id["<mask>"]
                else:
                    ids = ids[:positions[i]]  # the left side only (the causal mask would hide the rest anyway)
                encoded.append(ids)
            batch = pad_batch(encoded, words)
            top = network(batch.ids.to(device), batch.mask.to(device)).layers[-1]  # (B, T, d)
            # masked: the state at the blank (position + 1, after <bos>); causal: the state of the last word
            # read, at position (<bos> is 0), which predicts the next one
            rows = torch.tensor([positions[i] + 1 if masked else positions[i] for i in group], device=device)
            hidden = top[torch.arange(len(rows), device=device), rows]
            out.extend(_top_words(network.log_probabilities(hidden), words.words, banned, k))
    finally:
        network.train(was_training)
    return out


def cbow_predictions(model, sentences: Sequence[Sequence[str]], positions: Sequence[int], k: int = 5,
                     window: int | None = None) -> list[list[str]]:
    """The top ``k`` words of a CBOW model with negative sampling (:class:`~course.word2vec.Word2Vec`,
    ``loss="neg"``) for each blank: ``output_vectors @ mean(input vectors of the known words within
    window of it, either side)``; ``window`` defaults to the model's. A blank with no known word
    around it gets the most frequent words."""
    _check_blanks(sentences, positions)
    if model.output_vectors is None:
        raise ValueError("cbow_predictions needs a model trained with negative sampling (loss='neg'): "
                         "hierarchical softmax has no output vector per word")
    window = window or model.config.window
    index = model.vocab.word_to_id
    inputs = model.input_vectors.float().cpu().numpy()
    outputs = model.output_vectors.float().cpu().numpy()
    banned = [index[token] for token in model.vocab.specials if token in index]
    out = []
    for sentence, position in zip(sentences, positions, strict=True):
        around = [index[w] for j, w in enumerate(sentence)
                  if j != position and abs(j - position) <= window and w in index]
        if around:
            scores = outputs @ inputs[around].mean(axis=0)
        else:
            scores = model.vocab.counts.astype(np.float64)
        scores = scores.astype(np.float64)
        scores[banned] = -np.inf
        top = np.argsort(-scores, kind="stable")[:k]
        out.append([model.vocab.words[i] for i in top])
    return out


def _known(model, word: str) -> bool:
    vocab = getattr(model, "words", None) or model.vocab
    return word in vocab.word_to_id and word not in vocab.specials


def fill_in_blanks(models: dict, sentences: Sequence[Sequence[str]], positions: Sequence[int],
                   k: int = 5) -> list[dict]:
    """Ask every model for every blank.

    Args:
        models: name -> a :class:`~course.transformer.model.Transformer` (masked or causal) or a
            word2vec CBOW model with negative sampling.
        sentences: lists of tokens; positions: the blank of each (0-based).
        k: predictions kept per blank.

    Returns:
        One plain dict per model and blank, models in the order given, blanks in order: ``model``,
        ``blank`` (the blank's index), ``word`` (the hidden word), ``known`` (whether it is in
        that model's vocabulary), ``top`` (the ``k`` words, best first), ``correct_at_1``,
        ``correct_at_5`` (the word among the first 1 and the first ``min(5, k)``).
    """
    _check_blanks(sentences, positions)
    rows = []
    for name, model in models.items():
        if hasattr(model, "network"):
            top = transformer_predictions(model, sentences, positions, k)
        else:
            top = cbow_predictions(model, sentences, positions, k)
        for blank, (sentence, position, words) in enumerate(zip(sentences, positions, top, strict=True)):
            word = sentence[position]
            rows.append({"model": name, "blank": blank, "word": word, "known": _known(model, word),
                         "top": list(words), "correct_at_1": bool(words[:1] == [word]),
                         "correct_at_5": word in words[:5]})
    return rows


def choose_blanks(sentences: Sequence[Sequence[str]], vocabularies: Sequence, num_blanks: int, seed: int = 1,
                  max_words: int = 40, min_words: int = 5) -> list[tuple[int, int]]:
    """``num_blanks`` ``(sentence, position)`` pairs, one blank per sentence at most, drawn with
    ``seed`` among sentences of ``min_words`` to ``max_words`` words: the hidden word is known to
    every vocabulary of ``vocabularies`` (each a :class:`~course.text.vocab.Vocabulary` or anything with
    ``word_to_id`` and ``specials``) and has a word either side of it."""
    rng = np.random.default_rng(seed)
    chosen = []
    for number in rng.permutation(len(sentences)):
        sentence = sentences[int(number)]
        if not min_words <= len(sentence) <= max_words:
            continue
        candidates = [j for j in range(1, len(sentence) - 1)
                      if all(sentence[j] in v.word_to_id and sentence[j] not in v.specials for v in vocabularies)]
        if candidates:
            chosen.append((int(number), int(rng.choice(candidates))))
        if len(chosen) == num_blanks:
            break
    return chosen


def accuracy_table(rows: list[dict], resamples: int = 1_000, seed: int = 1) -> list[dict]:
    """Accuracy@1 and @5 per model of :func:`fill_in_blanks`'s rows, with a bootstrap spread over
    the blanks (the same resampled blanks for every model): ``[{"model", "blanks", "at_1",
    "at_1_low", "at_1_high", "at_5", "at_5_low", "at_5_high"}]``, the 2.5% and 97.5% quantiles."""
    models = list(dict.fromkeys(row["model"] for row in rows))
    blanks = sorted({row["blank"] for row in rows})
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, len(blanks), size=(resamples, len(blanks)))
    table = []
    for name in models:
        by_blank = {row["blank"]: row for row in rows if row["model"] == name}
        entry = {"model": name, "blanks": len(by_blank)}
        for key, label in (("correct_at_1", "at_1"), ("correct_at_5", "at_5")):
            values = np.array([float(by_blank[b][key]) for b in blanks])
            spread = values[draws].mean(axis=1)
            entry[label] = float(values.mean())
            entry[f"{label}_low"], entry[f"{label}_high"] = (float(q) for q in np.quantile(spread, [0.025, 0.975]))
        table.append(entry)
    return table
