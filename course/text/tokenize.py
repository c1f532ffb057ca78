"""Turning raw text into sentences of tokens, for English and for Chinese.

English: lower-cased runs of letters and digits (an apostrophe may join two runs: ``don't``),
punctuation dropped, sentences split after ``.``, ``!`` or ``?`` before a capital or a digit.
Chinese: jieba's word segmentation, punctuation dropped, sentences split after 。！？ .
"""

from __future__ import annotations

import logging
import re
import unicodedata
from functools import lru_cache

ENGLISH_TOKEN = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")
ENGLISH_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[\"'(\[]?[A-Z0-9])")
CHINESE_SENTENCE_END = frozenset("。！？!?；;")
CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
LETTER = re.compile(r"[^\W\d_]")

# Words the polysemy probes look at: jieba must always cut them out whole. Its dictionary has
# compounds such as 背包袱, 甩包袱 and 思想包袱, which would hide 包袱 inside a longer token, so
# every dictionary word that contains one of these (and is longer) is removed.
KEEP_WHOLE = ("包袱",)


def english_tokens(text: str) -> list[str]:
    """Lower-cased word tokens of ``text``, punctuation dropped."""
    return ENGLISH_TOKEN.findall(text.lower())


def english_sentences(text: str, min_tokens: int = 1) -> list[list[str]]:
    """Split a paragraph of English into sentences and tokenise each one."""
    sentences = []
    for piece in ENGLISH_SENTENCE_END.split(text):
        tokens = english_tokens(piece)
        if len(tokens) >= min_tokens:
            sentences.append(tokens)
    return sentences


def is_punctuation(token: str) -> bool:
    """True for a token made only of punctuation, symbols and spaces (Unicode categories P, S, Z)."""
    return all(unicodedata.category(ch)[0] in "PSZ" or ch.isspace() for ch in token)


@lru_cache(maxsize=1)
def _jieba():
    """The course's own jieba tokenizer (jieba's global one, used by other code, is left alone)."""
    import jieba

    jieba.setLogLevel(logging.WARNING)
    tokenizer = jieba.Tokenizer()
    tokenizer.initialize()
    compounds = [word for word, freq in tokenizer.FREQ.items()
                 if freq and word not in KEEP_WHOLE and any(kept in word for kept in KEEP_WHOLE)]
    for word in compounds:
        tokenizer.del_word(word)
    return tokenizer


def segment_chinese(text: str) -> list[str]:
    """jieba's segmentation of ``text`` (precise mode, HMM on), with 包袱 always a token of its own."""
    return _jieba().lcut(text)


def chinese_sentences(text: str, min_tokens: int = 1) -> list[list[str]]:
    """Segment a paragraph of Chinese with jieba and split it into sentences, punctuation dropped."""
    return split_segmented(segment_chinese(text), min_tokens)


def split_segmented(tokens: list[str], min_tokens: int = 1) -> list[list[str]]:
    """Split already segmented Chinese tokens into sentences at 。！？； and drop punctuation."""
    sentences, current = [], []
    for token in tokens:
        token = token.strip()
        if token in CHINESE_SENTENCE_END:
            if len(current) >= min_tokens:
                sentences.append(current)
            current = []
        elif token and not is_punctuation(token):
            current.append(token)
    if len(current) >= min_tokens:
        sentences.append(current)
    return sentences


def guess_language(text: str) -> str:
    """``"zh"`` when more than a third of the letters in ``text`` are CJK ideographs, else ``"en"``."""
    sample = text[:200_000]
    letters = len(LETTER.findall(sample))
    if letters == 0:
        return "en"
    return "zh" if len(CJK.findall(sample)) / letters > 1 / 3 else "en"
