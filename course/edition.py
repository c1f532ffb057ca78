"""The edition, English (``en``) or Chinese (``zh``), and the catalogue of what the package prints in it.

The notebooks exist twice, ``notebooks/NN_*.ipynb`` and ``notebooks/zh/NN_*.ipynb``, with the same
code cells. What the package itself writes into a figure or a table header (an axis label, a legend,
the claims table's headings and verdicts) follows the edition the notebook runs in:

- a notebook's parameter cell has ``EDITION = None`` and calls ``course.use_edition(EDITION)``;
  papermill (``python -m course build --edition zh``) sets it;
- otherwise :func:`resolve_edition` falls back to ``$COURSE_EDITION``, then to ``zh`` when the
  working folder is called ``zh`` (JupyterLab starts a notebook's kernel in the notebook's folder, so
  a notebook opened from ``notebooks/zh/`` speaks Chinese), then to ``en``.

:func:`text` looks a string up in :data:`CATALOGUE` for the current edition; a key missing from one
edition falls back to English, so a new string can land before its translation.
"""

from __future__ import annotations

import os
from pathlib import Path

from .errors import SettingError

EDITIONS = ("en", "zh")

CATALOGUE: dict[str, dict[str, str]] = {
    # course.plots
    "rank": {"en": "rank", "zh": "排名"},
    "frequency": {"en": "frequency", "zh": "频次"},
    "words": {"en": "words", "zh": "词"},
    "zipf fit": {"en": "fit: slope {slope:.2f}", "zh": "拟合：斜率 {slope:.2f}"},
    "step": {"en": "step", "zh": "步数"},
    "loss": {"en": "loss", "zh": "损失"},
    "moving mean": {"en": "{what} (mean of {n})", "zh": "{what}（{n} 点滑动平均）"},
    "vocabulary size kept": {"en": "vocabulary size (types kept)", "zh": "词表大小（保留的词型数）"},
    "vocabulary size": {"en": "Vocabulary size", "zh": "词表大小"},
    "tokens covered": {"en": "tokens covered (%)", "zh": "覆盖的词元（%）"},
    "token coverage": {"en": "Token coverage", "zh": "词元覆盖率"},
    "depth code length": {"en": "depth = code length", "zh": "深度 = 编码长度"},
    "principal component": {"en": "principal component {n}", "zh": "主成分 {n}"},
    # notebook 05, bias in word vectors
    "gender projection": {"en": "cosine with the gender direction (← male · female →)",
                          "zh": "与性别方向的余弦（← 男 · 女 →）"},
    "occupations on the direction": {"en": "{model}, {corpus}: occupations seen ≥ {n} times",
                                     "zh": "{model}，{corpus}：出现至少 {n} 次的职业词"},
    "weat effect size": {"en": "WEAT effect size d", "zh": "WEAT 效应量 d"},
    "draws": {"en": "draws", "zh": "抽取次数"},
    "random targets": {"en": "random target words X, Y", "zh": "随机目标词 X、Y"},
    "random attributes": {"en": "random attribute words A, B", "zh": "随机属性词 A、B"},
    "observed d": {"en": "the test: d = {d:.2f}", "zh": "本检验：d = {d:.2f}"},
    "weat controls title": {"en": "{model}, {corpus}: {test} against chance",
                            "zh": "{model}，{corpus}：{test} 与随机对照"},
    "leaned male": {"en": "leaned male before", "zh": "中和前偏男性"},
    "leaned female": {"en": "leaned female before", "zh": "中和前偏女性"},
    "after neutralising": {"en": "{model}, {corpus}: after neutralising (k-NN {accuracy:.0%})",
                           "zh": "{model}，{corpus}：中和之后（k 近邻 {accuracy:.0%}）"},
    # notebook 03, section 7: subwords
    "subwords bpe vocabulary size": {"en": "vocabulary size: symbols + merges",
                                     "zh": "词表大小：初始符号数 + 合并次数"},
    "subwords bpe pieces per word": {"en": "pieces per held-out word", "zh": "每个留出词的平均片段数"},
    "subwords bpe pieces title": {"en": "BPE on {corpus}: pieces per word", "zh": "{corpus} 上的 BPE：每个词切成几段"},
    "subwords held-out tokens percent": {"en": "held-out tokens (%)", "zh": "留出词元（%）"},
    "subwords bpe split": {"en": "split into two or more BPE pieces", "zh": "被 BPE 切成两段或更多"},
    "subwords word vocabulary oov": {"en": "unknown to a word vocabulary of the same size",
                                     "zh": "不在同样大小的词表中（未登录词）"},
    "subwords bpe split title": {"en": "Held-out words: split by BPE, or unknown",
                                 "zh": "留出的词：被 BPE 切分，或成为未登录词"},
    "subwords benchmark": {"en": "benchmark", "zh": "基准"},
    "subwords pairs": {"en": "pairs", "zh": "词对"},
    "subwords pairs word2vec covers": {"en": "pairs word2vec covers", "zh": "word2vec 覆盖的词对"},
    "subwords rho shared": {"en": "{model} ρ, shared pairs", "zh": "{model} 的 ρ（共同词对）"},
    "subwords lead spread": {"en": "fastText − word2vec, 5–95%", "zh": "fastText − word2vec，5%–95%"},
    "subwords rho skipped": {"en": "{model} ρ, skipped pairs", "zh": "{model} 的 ρ（被跳过的词对）"},
    "subwords merges": {"en": "merges", "zh": "合并次数"},
    "subwords pairs word2vec skips": {"en": "pairs word2vec skips", "zh": "word2vec 跳过的词对"},
    "subwords rho on all": {"en": "{model} ρ on all", "zh": "{model} 在全部词对上的 ρ"},
    "subwords unseen word": {"en": "word outside word2vec's vocabulary", "zh": "word2vec 词表之外的词"},
    "subwords count in corpus": {"en": "count in {corpus}", "zh": "在 {corpus} 中的次数"},
    "subwords nearest neighbours of": {"en": "{model}'s nearest neighbours", "zh": "{model} 给出的最近邻"},
    "subwords word": {"en": "word", "zh": "词"},
    "subwords pieces after merges": {"en": "pieces after {merges:,} merges", "zh": "{merges:,} 次合并后的片段"},
    "subwords units": {"en": "units", "zh": "单位"},
    "subwords training types": {"en": "types in the training part", "zh": "训练部分的类型数"},
    "subwords types min count": {"en": "types seen 5+ times", "zh": "出现 5 次及以上的类型数"},
    "subwords oov unseen": {"en": "held-out tokens never seen (%)", "zh": "留出词元中从未见过的（%）"},
    "subwords oov min count": {"en": "held-out tokens outside the 5+ vocabulary (%)",
                               "zh": "留出词元中不在 5 次及以上词表的（%）"},
    "subwords tokens per sentence": {"en": "tokens per sentence", "zh": "每句词元数"},
    "subwords jieba words": {"en": "jieba's words", "zh": "jieba 分出的词"},
    "subwords annotated words": {"en": "the corpus's own words (hand-checked)", "zh": "语料自带的词（人工校对）"},
    "subwords characters": {"en": "single characters", "zh": "单个汉字"},
    # notebook 11, section 7b: how far back each language model looks
    "context use distance": {"en": "d: words kept intact before the word (the ones farther back perturbed)",
                             "zh": "d：目标词之前保持原样的词数（更远的被扰动）"},
    "context use increase": {"en": "loss increase (nats per word)", "zh": "损失的增加（每词，nats）"},
    "context use shuffle": {"en": "far context shuffled", "zh": "远处上下文被打乱"},
    "context use replace": {"en": "far context replaced by random words", "zh": "远处上下文被换成随机词"},
    "context use position": {"en": "position k of the word (k − 1 words of context)",
                             "zh": "词在句中的位置 k（前面有 k − 1 个词的上下文）"},
    "context use mean loss": {"en": "mean loss (nats per word)", "zh": "平均损失（每词，nats）"},
    "context use position title": {"en": "Loss by position ({n:,} held-out sentences)",
                                   "zh": "按位置的损失（{n:,} 个留出句子）"},
    # notebook 09, section 5: ELMo at the task RNN's output as well
    "elmo placement": {"en": "ELMo at", "zh": "ELMo 的位置"},
    "elmo placement input": {"en": "the input only", "zh": "只在输入端"},
    "elmo placement both": {"en": "the input and the output", "zh": "输入端和输出端"},
    "elmo placement f1": {"en": "entity F1 (mean ± half range)", "zh": "实体 F1（均值 ± 半极差）"},
    "elmo placement unseen f1": {"en": "F1, entities of unseen words", "zh": "F1，未见过的词构成的实体"},
    "elmo placement per seed": {"en": "F1 per seed", "zh": "各种子的 F1"},
    "elmo placement one seed": {
        "en": "At {labels:,} labels the output placement changes F1 by {margin:+.3f} with one seed: one seed has no "
              "spread, so this says nothing either way.",
        "zh": "在 {labels:,} 个标注句子下，输出端的 ELMo 使 F1 变化了 {margin:+.3f}，但只有一个种子："
              "一个种子没有波动可比，所以这个结果说明不了什么。"},
    "elmo placement helps": {
        "en": "At {labels:,} labels ELMo at the output as well helps beyond the spread: F1 {margin:+.3f} on average "
              "over {seeds} seeds, paired differences spread ± {spread:.3f}.",
        "zh": "在 {labels:,} 个标注句子下，在输出端也加入 ELMo 带来的提升超出了波动：{seeds} 个种子平均 F1 "
              "{margin:+.3f}，配对差值的波动为 ± {spread:.3f}。"},
    "elmo placement hurts": {
        "en": "At {labels:,} labels ELMo at the output as well hurts beyond the spread: F1 {margin:+.3f} on average "
              "over {seeds} seeds, paired differences spread ± {spread:.3f}.",
        "zh": "在 {labels:,} 个标注句子下，在输出端也加入 ELMo 反而有害，且超出了波动：{seeds} 个种子平均 F1 "
              "{margin:+.3f}，配对差值的波动为 ± {spread:.3f}。"},
    "elmo placement within": {
        "en": "At {labels:,} labels ELMo at the output as well does not help beyond the spread: F1 {margin:+.3f} on "
              "average over {seeds} seeds, within the paired differences' spread of ± {spread:.3f}.",
        "zh": "在 {labels:,} 个标注句子下，在输出端也加入 ELMo 的作用没有超出波动：{seeds} 个种子平均 F1 "
              "{margin:+.3f}，落在配对差值 ± {spread:.3f} 的波动之内。"},
    # course.claims and the build's index
    "claim": {"en": "claim", "zh": "论断"},
    "notebook": {"en": "notebook", "zh": "笔记本"},
    "measurement": {"en": "measurement", "zh": "测量"},
    "controls": {"en": "controls", "zh": "对照"},
    "margin": {"en": "margin", "zh": "差值"},
    "spread": {"en": "spread", "zh": "波动"},
    "verdict": {"en": "verdict", "zh": "结论"},
    "holds": {"en": "holds", "zh": "成立"},
    "does not hold here": {"en": "does not hold here", "zh": "在此不成立"},
    "not measured": {"en": "not measured", "zh": "未测量"},
    "claims heading": {"en": "Claims: do they hold here?", "zh": "论断：在这里成立吗？"},
    "claims intro": {
        "en": "Each claim the course teaches, measured on the models this build trained: the margin by which "
              "the measurement beats its strongest control, the spread that margin must exceed (a bootstrap over "
              "the test sentences; for the sense probe also the untrained network's range over seeds), and the "
              "verdict. <code>python -m course claims</code> prints the same table.",
        "zh": "课程讲授的每一条论断，都在本次构建训练出的模型上测量：测量值超过最强对照的差值、这个差值必须超过的波动"
              "（对测试句子做自助法重抽样；词义探针还要加上未训练网络在多个随机种子上的范围），以及结论。"
              "<code>python -m course claims</code> 打印的是同一张表。"},
    "claims missing": {"en": "The claims could not be measured: {why}", "zh": "无法测量这些论断：{why}"},
    "claims count": {"en": "{held} of {total} claims hold", "zh": "{total} 条论断中有 {held} 条成立"},
    "course title": {"en": "Word Vectors, Hands-On", "zh": "动手学词向量"},
    "profile line": {"en": "Profile <b>{profile}</b> · built {stamp} · {count} notebooks in {seconds:.0f} s",
                     "zh": "配置 <b>{profile}</b> · 构建于 {stamp} · {count} 个笔记本，共 {seconds:.0f} 秒"},
    "for teachers": {"en": "For teachers", "zh": "教师须知"},
    "ideas": {"en": "ideas", "zh": "知识点"},
    "assignments points": {"en": "assignments (points)", "zh": "作业（分值）"},
    "time to run": {"en": "time to run", "zh": "运行时间"},
    "student version": {"en": "student version", "zh": "学生版"},
    "none": {"en": "none", "zh": "无"},
    "executed notebook": {"en": "executed notebook", "zh": "运行后的笔记本"},
    "failed": {"en": "Failed: {why}", "zh": "运行失败：{why}"},
    "figure": {"en": "figure {n}", "zh": "图 {n}"},
    "teacher intro": {
        "en": "{count} assignments, {points:g} points. Hand out the student versions in <code>{folder}</code> "
              "(solutions replaced by <code>raise NotImplementedError()</code>, hidden tests removed; the same cells "
              "as <code>nbgrader generate_assignment</code>); each assignment has a check the student runs, which "
              "says what is wrong. Grade a returned notebook with <code>python -m course grade NOTEBOOK.ipynb</code>: "
              "it runs the notebook in a fresh kernel with the hidden tests put back and prints the points per "
              "assignment. The times are this build's.",
        "zh": "共 {count} 项作业，{points:g} 分。请分发 <code>{folder}</code> 中的学生版（参考答案换成了 "
              "<code>raise NotImplementedError()</code>，隐藏测试已删除，与 <code>nbgrader generate_assignment</code> "
              "生成的单元格相同）；每项作业都附有学生可以自行运行的检查，它会指出哪里出了错。用 "
              "<code>python -m course grade NOTEBOOK.ipynb</code> 批改交回的笔记本：它在一个全新的内核中运行笔记本，"
              "放回隐藏测试，并打印每项作业的得分。表中的时间来自本次构建。"},
    # the claims (course.claims), by their English sentence
    "A neural language model beats counting": {"zh": "神经语言模型胜过计数"},
    "A static vector gives one vector per word type: it cannot tell senses apart": {
        "zh": "静态词向量给每个词型一个向量：它分不开词义"},
    "Contextual vectors separate word senses beyond every control": {"zh": "上下文相关的词向量区分词义，胜过所有对照"},
    "Syntax is learned low, senses high": {"zh": "句法在低层学到，词义在高层学到"},
    "A linear probe on the biLM's vectors tags parts of speech better than the most-frequent-tag baseline": {
        "zh": "双向语言模型向量上的线性探针标注词性，胜过“最常见词性”基线"},
    "Pretrained vectors help most when labels are few": {"zh": "标注越少，预训练向量帮助越大"},
    "Contextual features beat static ones": {"zh": "上下文相关的特征胜过静态特征"},
    "Fine-tuning the biLM with the task beats using its layers as features": {
        "zh": "随任务微调双向语言模型，胜过把它的各层用作特征"},
    "A pretrained language model lets a classifier learn from few labels": {
        "zh": "预训练语言模型让分类器从少量标注中学会"},
    "Fine-tuning the language model on the target domain adds to general pretraining": {
        "zh": "在目标领域上微调语言模型，比只做通用预训练更好"},
    "Fine-tuning the language model beats using its layers as features": {"zh": "微调语言模型，胜过把它的各层用作特征"},
    "With few labels, ULMFiT beats a bag-of-words classifier": {"zh": "标注很少时，ULMFiT 胜过词袋分类器"},
    "A Transformer trains faster per token than an LSTM at equal size": {
        "zh": "同等规模下，Transformer 每个词元的训练比 LSTM 快"},
    "A masked LM fills in blanks better than a causal LM": {"zh": "掩码语言模型填空胜过因果语言模型"},
    "Fine-tuning gains more for BERT than for the LSTM biLM": {
        "zh": "微调给 BERT 带来的提升大于给 LSTM 双向语言模型的"},
    "A Transformer's top layer separates word senses beyond every control": {
        "zh": "Transformer 的顶层区分词义，胜过所有对照"},
}
"""Every string the package prints in a figure or a table header, by key, in each edition."""


def resolve_edition(edition: str | None = None) -> str:
    """``edition`` if given, else ``$COURSE_EDITION``, else ``zh`` in a folder named ``zh``, else ``en``."""
    value = edition or os.environ.get("COURSE_EDITION") or ("zh" if Path.cwd().name == "zh" else "en")
    value = value.strip().lower()
    if value not in EDITIONS:
        raise SettingError(f"unknown edition {value!r}: use one of {', '.join(EDITIONS)} (--edition, EDITION= or "
                           "COURSE_EDITION)")
    return value


_chosen: str | None = None


def use_edition(edition: str | None = None) -> str:
    """Make ``edition`` (resolved by :func:`resolve_edition`) the one :func:`text` uses from now on;
    returns it. A notebook calls this once, with its ``EDITION`` parameter."""
    global _chosen
    _chosen = resolve_edition(edition)
    return _chosen


def current_edition() -> str:
    """The edition :func:`use_edition` chose, or :func:`resolve_edition`'s answer where none was chosen."""
    return _chosen or resolve_edition()


def text(key: str, edition: str | None = None, **values) -> str:
    """The catalogue's string ``key`` in ``edition`` (default :func:`current_edition`), formatted with
    ``values``: ``text("principal component", n=1)``. Raises ``KeyError`` for a key not in the catalogue."""
    entry = CATALOGUE[key]
    template = entry.get(resolve_edition(edition) if edition else current_edition()) or entry.get("en", key)
    return template.format(**values) if values else template
