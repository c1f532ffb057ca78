"""The Chinese edition's glossary: one term per concept.

Each :class:`Term` gives the concept (in English), the Chinese term the course uses for it, and the
variants it does not use. :func:`glossary_problems` finds those variants in Chinese prose (code,
formulas and inline code aside), one line each; ``python -m course editions check`` applies it to
every markdown cell of ``notebooks/zh/``, and the tests apply it to the Chinese strings the course
prints. A variant named as such (``也称词汇表``, ``又称…``, ``或译…``) is not counted, so that a term can
be introduced with its synonyms. docs/glossary.md lists the same table (:func:`glossary_table`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Term:
    """``english``: the concept; ``chinese``: the course's term for it; ``refused``: regular
    expressions for the variants it does not use, ``shown`` those variants as docs/glossary.md lists
    them; ``note``: where the choice needs a word."""

    english: str
    chinese: str
    refused: tuple[str, ...] = ()
    shown: str = ""
    note: str = ""


GLOSSARY = (
    Term("token (one occurrence of a word or unit in the text)", "词元",
         (r"词例", r"(?<![第首])(?:每一?|另一|某一?|一|两|各|几|那几|这些|那些|[\d,]+\s*)次出现(?![了过在于])"),
         "词例; 每次出现, 另一次出现, 160 次出现 (as nouns)",
         "an occurrence is a 词元 too: 每个词元, 另一个词元, 160 个词元; a count stays 出现 160 次, the first "
         "occurrence 首次出现"),
    Term("type (a distinct word)", "词型"),
    Term("vocabulary", "词表", (r"词汇表",), "词汇表"),
    Term("context (the words around a word)", "上下文", (r"语境",), "语境"),
    Term("co-occurrence", "共现"),
    Term("skip-gram", "跳字模型"),
    Term("negative sampling", "负采样"),
    Term("subsampling (of frequent words)", "下采样", (r"二次采样", r"降采样", r"子采样"), "二次采样, 降采样, 子采样"),
    Term("hierarchical softmax", "层序 softmax", (r"层次\s*softmax", r"分层\s*softmax"), "层次 softmax, 分层 softmax"),
    Term("perplexity", "困惑度"),
    Term("hidden state", "隐状态", (r"隐藏状态", r"隐层状态"), "隐藏状态, 隐层状态"),
    Term("dropout", "随机失活", (r"暂退法", r"丢弃法"), "暂退法, 丢弃法"),
    Term("highway layer", "高速网络层（highway 层）", (r"高速公路",), "高速公路层"),
    Term("layer normalization", "层规范化", (r"层归一化", r"层标准化"), "层归一化, 层标准化"),
    Term("word sense", "词义"),
    Term("probe", "探针"),
    Term("development (validation) set", "验证集", (r"开发集",), "开发集"),
    Term("held-out", "留出"),
    Term("control (in an experiment)", "对照"),
    Term("pretraining", "预训练"),
    Term("fine-tuning", "微调", (r"精调",), "精调"),
    Term("discriminative fine-tuning", "判别式微调", (r"区分式微调", r"差异化微调"), "区分式微调, 差异化微调"),
    Term("slanted triangular learning rates", "斜三角学习率", (r"倾斜三角",), "倾斜三角学习率"),
    Term("gradual unfreezing", "逐层解冻", (r"渐进解冻", r"逐步解冻"), "渐进解冻, 逐步解冻"),
    Term("masked language model", "掩码语言模型", (r"遮蔽语言模型", r"掩蔽语言模型"), "遮蔽语言模型, 掩蔽语言模型"),
    Term("next-sentence prediction", "下一句预测", (r"下句预测",), "下句预测"),
    Term("segment embedding", "片段嵌入", (r"(?<!片)段嵌入", r"句段嵌入"), "段嵌入, 句段嵌入"),
)

_CONCEPT = re.compile(r"\s*\(.*?\)")
_NAMED_AS_VARIANT = re.compile(r"(?:也称|又称|或译|亦称|也叫|或称)[“「]?$")


def glossary_problems(text: str, glossary: tuple[Term, ...] = GLOSSARY) -> list[str]:
    """Each refused variant in ``text`` (prose), one line each: the fragment, the term to use instead."""
    problems = []
    for term in glossary:
        for pattern in term.refused:
            for match in re.finditer(pattern, text):
                if _NAMED_AS_VARIANT.search(text[max(0, match.start() - 4):match.start()]):
                    continue
                shown = text[max(0, match.start() - 8):match.end() + 8].replace("\n", " ").strip()
                problems.append(f"{match.group(0)!r} for {_CONCEPT.sub('', term.english)}: the glossary's term is "
                                f"{term.chinese} (…{shown}…; docs/glossary.md)")
    return problems


def glossary_table(glossary: tuple[Term, ...] = GLOSSARY) -> str:
    """The glossary as a Markdown table, as docs/glossary.md lists it."""
    rows = ["| concept | the course's term | not used | note |", "|---|---|---|---|"]
    rows += [f"| {term.english} | {term.chinese} | {term.shown} | {term.note} |" for term in glossary]
    return "\n".join(rows) + "\n"


__all__ = ["GLOSSARY", "Term", "glossary_problems", "glossary_table"]
