"""The POS probe: what each of ELMo's layers knows about a word's part of speech.

It trains a linear classifier (logistic regression) per layer to tell each token's
part-of-speech tag from its vector, on the sentences of a tagged corpus split into training and test
sentences (and dev sentences for choosing), beside the most-frequent-tag-per-word baseline. The
baseline is a table of every training word's tag, which one linear map of a few hundred numbers
need not be able to copy, and it knows nothing of a word it has not seen; so the figures come on the
test tokens whose word was seen in training and on the others too, each with a bootstrap standard
error over the test sentences.
"""

from __future__ import annotations

import warnings
from collections import Counter

import numpy as np

from ..core.errors import SettingError

BOOTSTRAP = 1_000  # resamples of the test sentences for a standard error


def most_frequent_tags(train: list[list[tuple[str, str]]],
                       test: list[list[tuple[str, str]]]) -> tuple[np.ndarray, np.ndarray]:
    """The most-frequent-tag baseline token by token: ``(right, seen)``, two ``(test tokens,)`` bool
    arrays: whether each test token gets its tag right when every word is tagged with its most
    frequent tag in ``train`` (words never seen in training: the most frequent tag overall), and
    whether its word was seen in ``train``."""
    by_word: dict[str, Counter] = {}
    overall: Counter = Counter()
    for sentence in train:
        for word, tag in sentence:
            by_word.setdefault(word, Counter())[tag] += 1
            overall[tag] += 1
    default = overall.most_common(1)[0][0]
    guesses = {word: counts.most_common(1)[0][0] for word, counts in by_word.items()}
    pairs = [(guesses.get(word, default), tag, word in guesses) for sentence in test for word, tag in sentence]
    return (np.asarray([guess == tag for guess, tag, _ in pairs], dtype=bool),
            np.asarray([seen for _, _, seen in pairs], dtype=bool))


def most_frequent_tag_accuracy(train: list[list[tuple[str, str]]], test: list[list[tuple[str, str]]]) -> float:
    """Accuracy on ``test`` of tagging each word with its most frequent tag in ``train`` (words
    never seen in training get the most frequent tag overall)."""
    return float(most_frequent_tags(train, test)[0].mean())


def _fit_probe(x: np.ndarray, tags: np.ndarray, C: float, max_iter: int):
    """A linear probe: logistic regression on standardised vectors, with one BLAS thread (these
    small fits run many times faster with one than with several)."""
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from threadpoolctl import threadpool_limits

    probe = make_pipeline(StandardScaler(), LogisticRegression(C=C, max_iter=max_iter))
    with threadpool_limits(1, user_api="blas"), warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # a probe stopped at max_iter is still a probe
        return probe.fit(x, tags)


def _figures(name: str, values: np.ndarray | None, seen: np.ndarray, starts: np.ndarray,
             draws: np.ndarray) -> dict:
    """``{name, name_seen, name_unseen}``: the mean of per-token ``values`` (1 for a right tag, or a
    difference of two such) over all the test tokens, the seen ones and the unseen ones, and a
    bootstrap standard error of each (``name_se``, ...): the test sentences drawn again (``draws``:
    ``(resamples, sentences)`` sentence numbers), the mean over the tokens drawn. None where there
    are no tokens."""
    figures: dict = {}
    for suffix, mask in (("", np.ones_like(seen)), ("_seen", seen), ("_unseen", ~seen)):
        if values is None or not mask.any():
            figures[name + suffix] = figures[name + suffix + "_se"] = None
            continue
        sums = np.add.reduceat(np.where(mask, values, 0.0), starts)  # per test sentence
        tokens = np.add.reduceat(mask.astype(float), starts)
        figures[name + suffix] = float(sums.sum() / tokens.sum())
        drawn = tokens[draws].sum(axis=1)
        resampled = sums[draws].sum(axis=1)[drawn > 0] / drawn[drawn > 0]
        figures[name + suffix + "_se"] = float(resampled.std(ddof=1)) if len(resampled) > 1 else 0.0
    return figures


def pos_probe(model, corpus, num_sentences: int = 2_500, test_share: float = 0.2, seed: int = 1,
              untrained=None, max_iter: int = 300, *, C=1.0, dev_share: float = 0.0,
              bootstrap: int = BOOTSTRAP, per_token: bool = False) -> dict:
    """Part-of-speech probe per layer on a tagged corpus (``peoples-daily-zh``).

    ``num_sentences`` sentences are drawn at random (``seed``) and split by sentence: a share
    ``test_share`` for testing, and of the rest a share ``dev_share`` of dev sentences, for choosing
    (none by default), and the probe's training sentences. For each layer a linear probe, a logistic regression on
    standardised vectors (scikit-learn, at most ``max_iter`` steps of L-BFGS), learns the tag of each
    token from its vector on the training sentences; the same is done for the untrained control
    (``untrained``, default ``model.untrained()``; pass ``False`` to skip it). Beside them: the
    most-frequent-tag-per-word baseline, from the same training sentences.

    The dev sentences are for choosing (a layer, a setting); the test sentences choose nothing. With
    ``dev_share=0`` the probe trains on all the sentences that are not test sentences and gives no
    dev figures. ``C`` is the inverse regularisation strength, or a sequence of them, which needs dev
    sentences: each layer's probe is then fitted once per value and keeps the one with the best dev
    accuracy (each value costs a fit). The default 1 was chosen so, on dev sentences of a biLM
    trained one epoch on People's Daily: among 0.1 to 10 it was within half a point of the best dev
    accuracy in every layer, where 0.1 lost one and a half.

    Every accuracy is reported on all the test tokens, on those whose word occurs in the training
    sentences (``_seen``: the baseline knows their tags) and on the others (``_unseen``: the baseline
    gives them the commonest tag), each with a standard error from ``bootstrap`` resamples of the
    test sentences (``_se``; seeded by ``seed``, the same resamples for every figure).

    Returns:
        ``{"layers": [{"layer": j, "trained", "untrained", "trained_seen", "trained_unseen",
        "untrained_seen", "untrained_unseen", "trained_margin", "trained_margin_seen",
        "trained_margin_unseen" (trained minus the baseline, on the same tokens), the ``_se`` of
        each (the margins' paired), "trained_dev", "untrained_dev" (dev accuracy, None without dev
        sentences), "trained_C", "untrained_C" (the C kept)}],
        "most_frequent_tag", "most_frequent_tag_seen", "most_frequent_tag_unseen" and their
        ``_se``, "seen_share" (of the test tokens), "train_tokens", "dev_tokens", "test_tokens",
        "test_sentences", "tags", "C" (the values tried)}``; untrained figures are None with
        ``untrained=False``. With ``per_token``, also ``"per_token": {"trained": (L + 1, test
        tokens) bool, "untrained": the same or None, "most_frequent_tag": bool, "seen": bool,
        "sizes": tokens per test sentence}``.

    Raises:
        SettingError: a corpus without tags, or several values of ``C`` and no dev sentences.
    """
    if corpus.tag_ids is None:
        raise SettingError(f"corpus {corpus.name!r} has no part-of-speech tags: use peoples-daily-zh")
    values = [float(value) for value in np.atleast_1d(C)]
    if len(values) > 1 and dev_share <= 0:
        raise SettingError(f"choosing C among {values} needs dev sentences: give dev_share > 0, or one C")
    rng = np.random.default_rng(seed)
    count = min(num_sentences, corpus.num_sentences)
    chosen = rng.choice(corpus.num_sentences, count, replace=False)
    num_test = max(1, round(count * test_share))
    rest = chosen[num_test:]
    num_dev = min(max(1, round(len(rest) * dev_share)), len(rest) - 1) if dev_share > 0 else 0
    test, dev, train = ([corpus.tagged_sentence(int(i)) for i in part]
                        for part in (chosen[:num_test], rest[:num_dev], rest[num_dev:]))
    tags = {name: np.asarray([tag for sentence in part for _, tag in sentence])
            for name, part in (("train", train), ("dev", dev), ("test", test))}

    def probes(elmo):
        """Per layer: (right per test token, dev accuracy or None, the C kept)."""
        x = {name: np.concatenate(elmo.embed([[word for word, _ in sentence] for sentence in part]), axis=1)
             for name, part in (("train", train), ("dev", dev), ("test", test)) if part}  # (L + 1, tokens, 2 d)
        layers = []
        for j in range(x["train"].shape[0]):
            fitted = [_fit_probe(x["train"][j], tags["train"], value, max_iter) for value in values]
            scores = [float((probe.predict(x["dev"][j]) == tags["dev"]).mean()) for probe in fitted] if dev else [None]
            best = int(np.argmax(scores)) if dev else 0  # ties: the first value
            layers.append((fitted[best].predict(x["test"][j]) == tags["test"], scores[best], values[best]))
        return layers

    trained = probes(model)
    control = None if untrained is False else probes(untrained if untrained is not None else model.untrained())
    baseline, seen = most_frequent_tags(train, test)
    sizes = np.asarray([len(sentence) for sentence in test])
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    draws = np.random.default_rng(seed).integers(0, len(test), (bootstrap, len(test)))
    layers = []
    for j, (right, dev_accuracy, best) in enumerate(trained):
        other = control[j] if control is not None else (None, None, None)
        layers.append({"layer": j, **_figures("trained", right, seen, starts, draws),
                       **_figures("untrained", other[0], seen, starts, draws),
                       **_figures("trained_margin", right.astype(float) - baseline, seen, starts, draws),
                       "trained_dev": dev_accuracy, "untrained_dev": other[1],
                       "trained_C": best, "untrained_C": other[2]})
    result = {"layers": layers, **_figures("most_frequent_tag", baseline, seen, starts, draws),
              "seen_share": float(seen.mean()), "train_tokens": len(tags["train"]), "dev_tokens": len(tags["dev"]),
              "test_tokens": len(tags["test"]), "test_sentences": len(test),
              "tags": sorted(set(tags["train"].tolist())), "C": values}
    if per_token:
        result["per_token"] = {"trained": np.stack([right for right, _, _ in trained]),
                               "untrained": None if control is None else np.stack([r for r, _, _ in control]),
                               "most_frequent_tag": baseline, "seen": seen, "sizes": sizes}
    return result

