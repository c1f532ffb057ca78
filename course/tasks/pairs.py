"""Pairs of People's Daily sentences labelled by whether they stand in the same paragraph: the course's
sentence-pair task (notebook 11), built offline from the corpus the course's Chinese models read.

A pair is two sentences A and B of at least :data:`MIN_WORDS` words, both from paragraphs of two
sentences or more, and labelled

- 1 (same): two different sentences of one paragraph, in random order;
- 0 (different): A from one paragraph and B from another one of the same split.

Half the pairs of each split are of each kind, and A is drawn the same way for both, so neither
the length of A nor the kind of paragraph it comes from tells the label. B is from another
paragraph, most often another article, so most "different" pairs are on other topics too: the
task is about as much topic as it is discourse, and :func:`overlap_baseline`, a logistic
regression on how many words the two sentences share, says how far words shared alone go.

The split of a pair depends only on its paragraphs: paragraph p (a line of the file,
:func:`course.text.corpus.peoples_daily_paragraphs`) is in test when p % 20 == 0, in dev when
p % 20 == 1 and in train otherwise, so a sentence is never in two splits. Paragraphs of one
article fall in different splits; the labels, never the sentences, are what the test keeps apart.
The language models were pretrained on all these sentences (as BERT on the Wikipedia its tasks
are drawn from), never on the labels.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core.errors import SettingError

MIN_WORDS = 3  # shorter sentences (datelines, bylines) are never drawn
LABELS = ("different paragraphs", "same paragraph")
SPLIT_EVERY = 20  # paragraph p: test when p % 20 == 0, dev when p % 20 == 1, else train


@dataclass(frozen=True)
class SentencePair:
    """Two sentences (lists of words) and whether they are from the same paragraph (1) or not (0)."""

    first: tuple[str, ...]
    second: tuple[str, ...]
    label: int


@dataclass(frozen=True)
class PairData:
    """Labelled sentence pairs in three splits: lists of :class:`SentencePair`."""

    train: list[SentencePair]
    dev: list[SentencePair]
    test: list[SentencePair]

    def info(self) -> list[dict]:
        """Per split: pairs, share labelled "same", paragraphs drawn from and mean words per sentence."""
        return [{"split": name, "pairs": len(pairs), "same": float(np.mean([p.label for p in pairs])),
                 "words": float(np.mean([len(p.first) + len(p.second) for p in pairs]) / 2)}
                for name, pairs in (("train", self.train), ("dev", self.dev), ("test", self.test))]


def split_of(paragraph: int) -> str:
    """``"test"``, ``"dev"`` or ``"train"``: the split of a paragraph's sentences."""
    return {0: "test", 1: "dev"}.get(paragraph % SPLIT_EVERY, "train")


def draw_pairs(corpus, paragraphs: np.ndarray, split: str, count: int, seed: int = 0) -> list[SentencePair]:
    """``count`` distinct pairs of ``split`` (half "same", half "different", in random order).

    Args:
        corpus: the :class:`~course.text.corpus.Corpus` (People's Daily, or its first sentences).
        paragraphs: ``(S,)`` the paragraph of each of its sentences.
        split: ``"train"``, ``"dev"`` or ``"test"``.
        count: pairs wanted (an even number is split evenly; an odd one has one more "different").

    Raises:
        SettingError: a split with fewer than two paragraphs of two sentences, or fewer distinct
            pairs of a kind than asked for.
    """
    paragraphs = np.asarray(paragraphs)[:corpus.num_sentences]
    lengths = corpus.lengths()
    long_enough = np.flatnonzero(lengths >= MIN_WORDS)
    in_split = long_enough[[split_of(int(paragraphs[i])) == split for i in long_enough]]
    groups: dict[int, list[int]] = {}
    for sentence in in_split:
        groups.setdefault(int(paragraphs[sentence]), []).append(int(sentence))
    groups = {p: s for p, s in groups.items() if len(s) >= 2}
    if len(groups) < 2:
        raise SettingError(f"the {split} split has {len(groups)} paragraphs of two sentences of {MIN_WORDS} words "
                           f"or more; at least 2 are needed (a larger corpus)")
    keys = np.array(sorted(groups))
    sentences = np.array([s for p in keys for s in groups[p]])
    rng = np.random.default_rng([seed, ("train", "dev", "test").index(split)])
    wanted = {1: count // 2, 0: count - count // 2}
    chosen: dict[int, set] = {1: set(), 0: set()}
    for _ in range(50 * count + 100):
        if all(len(chosen[label]) >= wanted[label] for label in chosen):
            break
        paragraph = int(keys[rng.integers(len(keys))])
        first = int(rng.choice(groups[paragraph]))
        label = int(rng.random() < 0.5)
        if len(chosen[label]) >= wanted[label]:
            label = 1 - label
        if label:
            second = int(rng.choice([s for s in groups[paragraph] if s != first]))
            if rng.random() < 0.5:
                first, second = second, first
        else:
            second = int(sentences[rng.integers(len(sentences))])
            if int(paragraphs[second]) == paragraph:
                continue
        chosen[label].add((first, second))
    for label, pairs in chosen.items():
        if len(pairs) < wanted[label]:
            raise SettingError(f"the {split} split gives {len(pairs)} distinct '{LABELS[label]}' pairs, "
                               f"{wanted[label]} asked for")
    drawn = [(a, b, label) for label in (1, 0) for a, b in sorted(chosen[label])]
    order = rng.permutation(len(drawn))
    return [SentencePair(tuple(corpus[drawn[i][0]]), tuple(corpus[drawn[i][1]]), drawn[i][2]) for i in order]


def pair_data(corpus, paragraphs: np.ndarray, train: int = 2_000, dev: int = 500, test: int = 1_000,
              seed: int = 0) -> PairData:
    """The three splits of the same-paragraph task, drawn from ``seed`` (see :func:`draw_pairs`)."""
    return PairData(draw_pairs(corpus, paragraphs, "train", train, seed),
                    draw_pairs(corpus, paragraphs, "dev", dev, seed),
                    draw_pairs(corpus, paragraphs, "test", test, seed))


def overlap_features(pairs: list[SentencePair]) -> np.ndarray:
    """``(N, 3)`` per pair: the Jaccard index of the two sentences' sets of words, the number of words
    they share, and log(1 + that number)."""
    rows = []
    for pair in pairs:
        a, b = set(pair.first), set(pair.second)
        shared = len(a & b)
        rows.append([shared / max(len(a | b), 1), shared, np.log1p(shared)])
    return np.asarray(rows, dtype=np.float64)


def overlap_baseline(train: list[SentencePair], test: list[SentencePair]) -> float:
    """The test error of a logistic regression (scikit-learn) on :func:`overlap_features`, fitted on
    ``train``: what the words the two sentences share tell of the label, without any model of text."""
    from sklearn.linear_model import LogisticRegression

    model = LogisticRegression().fit(overlap_features(train), [p.label for p in train])
    return float(np.mean(model.predict(overlap_features(test)) != np.array([p.label for p in test])))
