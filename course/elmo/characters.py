"""Words as rows of character ids: the input of ELMo's token encoder.

Every word becomes ``max_characters`` ids: a begin-of-word mark, its characters (the first
``max_characters - 2`` of a longer word), an end-of-word mark, then padding (id 0). A Chinese word
is spelled with its Chinese characters, exactly as an English word with its letters.

The sentence boundaries ``<bos>`` and ``<eos>`` are words of their own, spelled with one mark
character each, so that the token encoder gives them a vector like any other word. Characters
never seen in training share the id of ``<unk-char>``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

import numpy as np

PAD, UNKNOWN, BEGIN_OF_WORD, END_OF_WORD, BEGIN_OF_SENTENCE, END_OF_SENTENCE = range(6)
SPECIAL_CHARACTERS = ("<pad-char>", "<unk-char>", "<bow>", "<eow>", "<bos-char>", "<eos-char>")
BOUNDARY_WORDS = {"<bos>": BEGIN_OF_SENTENCE, "<eos>": END_OF_SENTENCE}


class CharacterVocabulary:
    """Character <-> id mapping, and words -> ``(n, max_characters)`` id rows.

    Args:
        characters: the characters in id order after the six special ones (most frequent first).
        max_characters: the width of a word's row, marks included (at least 3).
    """

    def __init__(self, characters: Sequence[str], max_characters: int = 50):
        if max_characters < 3:
            raise ValueError(f"max_characters must be at least 3 (two marks and a character), got {max_characters}")
        self.characters = list(characters)
        self.max_characters = int(max_characters)
        self.char_to_id = {ch: i + len(SPECIAL_CHARACTERS) for i, ch in enumerate(self.characters)}
        self._rows: dict[str, np.ndarray] = {}

    @classmethod
    def from_words(cls, words: Iterable[str], counts: Iterable[int] | None = None, max_characters: int = 50,
                   min_count: int = 1) -> CharacterVocabulary:
        """The characters of ``words`` seen at least ``min_count`` times (each word weighted by its
        count when ``counts`` is given), most frequent first."""
        words = list(words)
        weights = list(counts) if counts is not None else [1] * len(words)
        tally: Counter[str] = Counter()
        for word, weight in zip(words, weights, strict=True):
            if word in BOUNDARY_WORDS:
                continue
            for ch in word:
                tally[ch] += int(weight)
        kept = sorted((ch for ch, n in tally.items() if n >= min_count), key=lambda ch: (-tally[ch], ch))
        return cls(kept, max_characters)

    def __len__(self) -> int:
        """Number of character ids, the six special ones included."""
        return len(SPECIAL_CHARACTERS) + len(self.characters)

    def __repr__(self) -> str:
        return f"CharacterVocabulary({len(self)} ids, max_characters={self.max_characters})"

    def word_row(self, word: str) -> np.ndarray:
        """``(max_characters,)`` int64: the ids of one word (computed once, then remembered)."""
        row = self._rows.get(word)
        if row is None:
            row = np.zeros(self.max_characters, dtype=np.int64)
            if word in BOUNDARY_WORDS:
                ids = [BOUNDARY_WORDS[word]]
            else:
                ids = [self.char_to_id.get(ch, UNKNOWN) for ch in word[: self.max_characters - 2]]
            row[: len(ids) + 2] = [BEGIN_OF_WORD, *ids, END_OF_WORD]
            if len(self._rows) < 1_000_000:
                self._rows[word] = row
        return row

    def encode(self, words: Sequence[str]) -> np.ndarray:
        """``(len(words), max_characters)`` int64 character ids, one row per word.

        Loops once per word given: pass the distinct words (a corpus's types, or the set of words of
        a batch) and index the result with token ids, as :meth:`encode_sentences` does.
        """
        if not len(words):
            return np.zeros((0, self.max_characters), dtype=np.int64)
        return np.stack([self.word_row(word) for word in words])

    def encode_sentences(self, sentences: Sequence[Sequence[str]], boundaries: bool = True):
        """Sentences of words -> ``(char_ids (B, T, max_characters) int64, mask (B, T) bool)``.

        With ``boundaries`` each sentence is wrapped in ``<bos>`` ... ``<eos>``, so ``T`` is the
        longest sentence's length plus 2. Padding positions have all-zero character rows and a
        False mask. Each distinct word is spelled once.
        """
        if boundaries:
            sentences = [["<bos>", *sentence, "<eos>"] for sentence in sentences]
        lengths = np.asarray([len(sentence) for sentence in sentences], dtype=np.int64)
        flat = [word for sentence in sentences for word in sentence]
        types, token_ids = np.unique(np.asarray(flat, dtype=object), return_inverse=True) if flat else ([], [])
        table = np.concatenate([np.zeros((1, self.max_characters), np.int64), self.encode(list(types))])
        width = int(lengths.max()) if len(lengths) else 0
        mask = np.arange(width)[None, :] < lengths[:, None]
        index = np.zeros(mask.shape, dtype=np.int64)
        index[mask] = np.asarray(token_ids, dtype=np.int64) + 1
        return table[index], mask


class _AnyCharacter:
    """A container holding every character: what a reader of UTF-8 bytes can spell."""

    def __contains__(self, character) -> bool:
        return isinstance(character, str)


# bilm-tf's character ids (bilm/data.py, UnicodeCharsVocabulary): the UTF-8 bytes 0-255, then five marks
BYTE_BEGIN_OF_SENTENCE, BYTE_END_OF_SENTENCE, BYTE_BEGIN_OF_WORD, BYTE_END_OF_WORD, BYTE_PADDING = range(256, 261)
BYTE_SENTENCE_WORDS = {"<bos>": BYTE_BEGIN_OF_SENTENCE, "<eos>": BYTE_END_OF_SENTENCE,
                       "<S>": BYTE_BEGIN_OF_SENTENCE, "</S>": BYTE_END_OF_SENTENCE}


class ByteCharacters:
    """Words as the published ELMo spells them (bilm-tf's ``UnicodeCharsVocabulary`` and ``Batcher``).

    A word is its UTF-8 bytes, cut to ``max_characters - 2`` bytes (a character may be cut in the
    middle), between a begin-of-word mark (258) and an end-of-word mark (259), and the rest of the
    row is the padding character (260). Every id is then shifted by one, so that 0 means "no word
    here" (a padded position of a sentence, whose row is all zeros): the ids run from 1 to 261, and
    the char-CNN's embedding has 262 rows, row 0 for that empty row.

    The sentence marks are words of one mark character each: ``<bos>`` (and bilm-tf's own ``<S>``)
    is ``[258, 256, 259, 260, ...] + 1``, ``<eos>`` (and ``</S>``) ``[258, 257, 259, 260, ...] + 1``.
    Every character has bytes, so none is unknown: ``char_to_id`` holds them all.

    The same interface as :class:`CharacterVocabulary`; ``characters`` is empty (nothing is learned).
    """

    SIZE = 262

    def __init__(self, max_characters: int = 50):
        if max_characters < 3:
            raise ValueError(f"max_characters must be at least 3 (two marks and a byte), got {max_characters}")
        self.max_characters = int(max_characters)
        self.characters: list[str] = []
        self.char_to_id = _AnyCharacter()
        self._rows: dict[str, np.ndarray] = {}

    def __len__(self) -> int:
        return self.SIZE

    def __repr__(self) -> str:
        return f"ByteCharacters(UTF-8 bytes, max_characters={self.max_characters})"

    def word_row(self, word: str) -> np.ndarray:
        """``(max_characters,)`` int64: the shifted ids of one word."""
        row = self._rows.get(word)
        if row is None:
            row = np.full(self.max_characters, BYTE_PADDING, dtype=np.int64)
            if word in BYTE_SENTENCE_WORDS:
                ids = [BYTE_SENTENCE_WORDS[word]]
            else:
                ids = list(word.encode("utf-8", "ignore")[: self.max_characters - 2])
            row[: len(ids) + 2] = [BYTE_BEGIN_OF_WORD, *ids, BYTE_END_OF_WORD]
            row += 1
            if len(self._rows) < 1_000_000:
                self._rows[word] = row
        return row

    encode = CharacterVocabulary.encode
    encode_sentences = CharacterVocabulary.encode_sentences


def character_ids(config, characters: Sequence[str] = ()) -> CharacterVocabulary | ByteCharacters:
    """The character ids a model of ``config`` reads: its learned ``characters`` (``character_ids="course"``)
    or UTF-8 bytes (``"bilm-tf"``)."""
    if config.character_ids == "bilm-tf":
        return ByteCharacters(config.max_characters)
    return CharacterVocabulary(characters, config.max_characters)


def character_coverage(lm, sentences) -> float:
    """The share of the characters of ``sentences``' words that the character vocabulary of ``lm``
    (a :class:`ForwardLM` or an :class:`~course.elmo.Elmo`) holds: what its input side can read."""
    known = lm.characters.char_to_id
    characters = [ch for sentence in sentences for word in sentence for ch in word]
    return sum(ch in known for ch in characters) / max(len(characters), 1)
