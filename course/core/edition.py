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
    # course.figures.plots
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
    # course.figures.maps, the interactive word maps
    "maps page": {"en": "word map", "zh": "词图"},
    "maps word": {"en": "word", "zh": "词"},
    "maps count": {"en": "count", "zh": "频次"},
    "maps neighbours": {"en": "{k} nearest (cosine)", "zh": "最近的 {k} 个（余弦）"},
    "maps search": {"en": "Find a word", "zh": "查找一个词"},
    "maps search placeholder": {"en": "type a word", "zh": "输入一个词"},
    "maps found": {"en": "{query}: {n} point(s), with their nearest neighbours ringed",
                   "zh": "{query}：{n} 个点，其最近邻已圈出"},
    "maps not found": {"en": "{query}: not on this map", "zh": "{query}：不在这张图上"},
    "maps rank band": {"en": "ranks {low}–{high}", "zh": "排名 {low}–{high}"},
    "maps frequency band": {"en": "frequency rank", "zh": "频次排名"},
    "maps title": {"en": "{model} on {corpus}: the {n:,} most frequent words",
                   "zh": "{model}，{corpus}：最常见的 {n:,} 个词"},
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
    # notebooks 07 and 11: maps of the occurrences of the probe words
    # notebook 11, GPT and BERT fine-tuned on the reviews
    "finetune classifier": {"en": "classifier", "zh": "分类器"},
    "finetune error": {"en": "test error, {n:,} labels", "zh": "测试错误率，{n:,} 个标签"},
    "finetune one seed": {"en": "{a} {mean_a:.3f}, {b} {mean_b:.3f} (one seed: no spread, nothing told apart)",
                          "zh": "{a} {mean_a:.3f}，{b} {mean_b:.3f}（只有一个随机种子：没有波动范围，无从区分）"},
    "finetune within": {"en": "{a} and {b} are within each other's spread ({mean_a:.3f} and {mean_b:.3f})",
                        "zh": "{a} 与 {b} 在彼此的波动范围之内（{mean_a:.3f} 与 {mean_b:.3f}）"},
    "finetune beyond": {"en": "{better} makes fewer errors than {worse} ({low:.3f} against {high:.3f}, beyond the "
                                 "spreads)",
                        "zh": "{better} 的错误少于 {worse}（{low:.3f} 对 {high:.3f}，超出了波动范围）"},
    "finetune said": {"en": "{n:,} labels, seeds {seeds}: {said}.", "zh": "{n:,} 个标签，随机种子 {seeds}：{said}。"},
    "finetune joiner": {"en": "; ", "zh": "；"},
    "occurrence map static": {"en": "layer 0 (static)", "zh": "第 0 层（静态）"},
    "occurrence map layer": {"en": "layer {layer}", "zh": "第 {layer} 层"},
    "occurrence map bag": {"en": "bag of context", "zh": "上下文词袋"},
    "occurrence map model": {"en": "{model}, layer {layer}", "zh": "{model}，第 {layer} 层"},
    "occurrence map untrained": {"en": "{model} untrained, layer {layer}", "zh": "未训练的 {model}，第 {layer} 层"},
    "occurrence map colours": {"en": "word · sense", "zh": "词 · 词义"},
    "occurrence maps title": {"en": "{corpus}: the {n} dev occurrences of the probe words",
                              "zh": "{corpus}：探针词在验证集句子中的 {n} 个词元"},
    "occurrence map vectors": {"en": "map", "zh": "图"},
    "occurrence nearest word": {"en": "nearest other occurrence: same word", "zh": "最近的另一个词元：同一个词"},
    "occurrence nearest sense": {"en": "same word and sense", "zh": "同一个词、同一词义"},
    "occurrence maps layers": {
        "en": "In layer {top} the nearest other occurrence is one of the same word for {layer_word:.0%} of the {n} "
              "occurrences, in the bag of context for {bag_word:.0%}; one of the same word and sense for "
              "{layer_sense:.0%} and {bag_sense:.0%} (layer 0, one point per word, gives {static_sense:.0%}: chance "
              "within a word).",
        "zh": "在第 {top} 层，{n} 个词元中有 {layer_word:.0%} 的最近邻（另一个词元）是同一个词，在上下文词袋中是 "
              "{bag_word:.0%}；是同一个词、同一词义的，分别为 {layer_sense:.0%} 和 {bag_sense:.0%}（第 0 层每个词只有"
              "一个点，得到 {static_sense:.0%}，即一个词内部的随机水平）。"},
    "occurrence maps models": {
        "en": "The occurrences of a word stay together most in {most}'s map ({most_share:.0%} of the {n} have their "
              "nearest other occurrence among the same word's) and least in {least}'s ({least_share:.0%}).",
        "zh": "一个词的各个词元在 {most} 的图中聚得最紧（{n} 个词元中有 {most_share:.0%} 的最近邻是同一个词的另一个"
              "词元），在 {least} 的图中最松散（{least_share:.0%}）。"},
    # course.figures.diagrams: the models, drawn
    "diagram skipgram title": {"en": "Skip-gram with negative sampling: what one training pair touches",
                               "zh": "负采样的跳字模型：一个训练词对用到哪些行"},
    "diagram cbow title": {"en": "CBOW with negative sampling: what one training window touches",
                           "zh": "负采样的 CBOW：一个训练窗口用到哪些行"},
    "diagram skipgram pair": {"en": "centre word c = orange, one context word o = juice (reach b = {reach})",
                              "zh": "中心词 c = orange，一个上下文词 o = juice（窗口半径 b = {reach}）"},
    "diagram cbow window": {"en": "context C: the words at most b = {reach} away predict the centre word orange",
                            "zh": "上下文 C：距离不超过 b = {reach} 的词一起预测中心词 orange"},
    "diagram input table": {"en": "input vectors $v_w$ ($|V| \\times {dim}$)",
                            "zh": "输入向量 $v_w$（$|V| \\times {dim}$）"},
    "diagram output table": {"en": "output vectors $u_w$ ($|V| \\times {dim}$)",
                             "zh": "输出向量 $u_w$（$|V| \\times {dim}$）"},
    "diagram untouched rows": {"en": "grey rows: not read, not changed", "zh": "灰色的行：不读取，也不更新"},
    "diagram centre vector": {"en": "$v_c$: the centre word's row", "zh": "$v_c$：中心词的那一行"},
    "diagram cbow hidden": {"en": "$h = \\frac{{1}}{{|C|}}\\sum_{{w \\in C}} v_w$",
                            "zh": "$h = \\frac{{1}}{{|C|}}\\sum_{{w \\in C}} v_w$"},
    "diagram sigmoid scores": {"en": "$\\sigma(u^\\top \\cdot)$ for 1 + {k} rows\n(logistic regression)",
                               "zh": "对 1 + {k} 行求 $\\sigma(u^\\top \\cdot)$\n（逻辑回归）"},
    "diagram true word": {"en": "green: the true word {word}, pushed towards σ → 1",
                          "zh": "绿色：真实的词 {word}，推向 σ → 1"},
    "diagram noise words": {"en": "orange: k = {k} noise words drawn from $P_n$ (default k = {negative}), pushed "
                                  "towards σ → 0",
                            "zh": "橙色：从 $P_n$ 抽取的 k = {k} 个噪声词（默认 k = {negative}），推向 σ → 0"},
    "diagram rows updated": {"en": "one update changes {rows} rows out of 2 |V|",
                             "zh": "一次更新只改动 2 |V| 行中的 {rows} 行"},
    "diagram hs tree title": {"en": "the Huffman tree; the path of '{word}' in red",
                              "zh": "哈夫曼树；“{word}”的路径标为红色"},
    "diagram hs factors title": {"en": "P(w | h), one factor per inner node", "zh": "P(w | h)：每个内部节点一个因子"},
    "diagram hs step": {"en": "step {j}: node {node}, bit {bit} ({direction})",
                        "zh": "节点 {node}，第 {j} 位为 {bit}（{direction}）"},
    "diagram hs bit 0": {"en": "left", "zh": "向左"},
    "diagram hs bit 1": {"en": "right", "zh": "向右"},
    "diagram hs product": {"en": "P({word} | h) = product of these {length} factors",
                           "zh": "P({word} | h) = 这 {length} 个因子之积"},
    "diagram hs sum to one": {"en": "σ(x) + σ(−x) = 1 at every node: P sums to 1 over the leaves",
                              "zh": "每个节点上 σ(x) + σ(−x) = 1：所有叶节点的 P 之和为 1"},
    "diagram glove title": {"en": "GloVe: a weighted factorisation of log X", "zh": "GloVe：对 log X 的加权分解"},
    "diagram glove log x": {"en": "$\\log X$ ({size} × {size}, symmetric)", "zh": "$\\log X$（{size} × {size}，对称）"},
    "diagram glove w": {"en": "$W$: word vectors $w_i$\n(|V| × {dim})", "zh": "$W$：词向量 $w_i$\n（|V| × {dim}）"},
    "diagram glove w tilde": {"en": "$\\tilde W^\\top$: context vectors $\\tilde w_k$",
                              "zh": "$\\tilde W^\\top$：上下文向量 $\\tilde w_k$"},
    "diagram glove entry": {"en": "each non-zero entry: $w_i^\\top \\tilde w_k + b_i + \\tilde b_k \\approx \\log "
                                  "X_{{ik}}$",
                            "zh": "每个非零元素：$w_i^\\top \\tilde w_k + b_i + \\tilde b_k \\approx \\log X_{{ik}}$"},
    "diagram glove zeros": {"en": "white cells: $X_{{ik}} = 0$, left out of the loss ($f(0) = 0$)",
                            "zh": "白色格子：$X_{{ik}} = 0$，不计入损失（$f(0) = 0$）"},
    "diagram glove loss": {"en": "$J = \\sum_{{X_{{ik}} > 0}} f(X_{{ik}})\\,(w_i^\\top \\tilde w_k + b_i + \\tilde "
                                 "b_k - \\log X_{{ik}})^2$",
                           "zh": "$J = \\sum_{{X_{{ik}} > 0}} f(X_{{ik}})\\,(w_i^\\top \\tilde w_k + b_i + \\tilde "
                                 "b_k - \\log X_{{ik}})^2$"},
    "diagram glove weighting": {"en": "weighting f: $x_{{max}}$ = {x_max:g}, α = {alpha:g}",
                                "zh": "权重函数 f：$x_{{max}}$ = {x_max:g}，α = {alpha:g}"},
    "diagram bilm title": {"en": "The biLM ('{preset}' preset): one token encoder, two LSTM stacks, one softmax",
                           "zh": "双向语言模型（{preset} 预设）：一个词元编码器、两组 LSTM、一个 softmax"},
    "diagram bilm characters": {"en": "characters: <bow> r i v e r <eow>", "zh": "字符：<bow> r i v e r <eow>"},
    "diagram bilm char embeddings": {"en": "character embeddings\n({dim} numbers each)",
                                     "zh": "字符嵌入\n（每个 {dim} 维）"},
    "diagram bilm char cnn": {"en": "char-CNN: {filters} filters, widths {widths},\nmax-pooled over positions",
                              "zh": "字符卷积网络：{filters} 个滤波器，宽度 {widths}，\n沿位置做最大池化"},
    "diagram bilm highway": {"en": "{layers} highway layers ({size} → {size})",
                             "zh": "{layers} 个高速网络层（{size} → {size}）"},
    "diagram bilm projection": {"en": "projection to d = {dim}: token vector $x_k$\n(layer 0)",
                                "zh": "投影到 d = {dim}：词元向量 $x_k$\n（第 0 层）"},
    "diagram bilm encoder note": {"en": "the token encoder of one word:\nspelling only, the same in every sentence",
                                  "zh": "一个词的词元编码器：\n只看拼写，在任何句子里都一样"},
    "diagram bilm token vector": {"en": "{word} → $x_{{{k}}}$", "zh": "{word} → $x_{{{k}}}$"},
    "diagram bilm every word": {"en": "each word", "zh": "每个词"},
    "diagram bilm lstm layer": {"en": "layer {j}: LSTMs of\n{cells} cells,\nprojected to {dim}",
                                "zh": "第 {j} 层：{cells} 个\n记忆单元的 LSTM，\n投影到 {dim} 维"},
    "diagram bilm lstm layer residual": {"en": "layer {j}: LSTMs of\n{cells} cells,\nprojected to {dim},\n+ "
                                               "residual (dashed)",
                                         "zh": "第 {j} 层：{cells} 个\n记忆单元的 LSTM，\n投影到 {dim} 维，\n加残差"
                                               "（虚线）"},
    "diagram bilm softmax": {"en": "softmax over the vocabulary ({kind}), shared by both directions",
                             "zh": "词表上的 softmax（{kind}），两个方向共享"},
    "diagram softmax adaptive": {"en": "adaptive", "zh": "自适应"},
    "diagram softmax full": {"en": "full", "zh": "完整"},
    "diagram softmax auto": {"en": "full up to 50,000 words, else adaptive", "zh": "5 万词以内完整，否则自适应"},
    "diagram bilm predicts next": {"en": "forward state at k predicts\n$t_{{k+1}}$ = {word}",
                                   "zh": "位置 k 的前向状态预测\n$t_{{k+1}}$ = {word}"},
    "diagram bilm predicts previous": {"en": "backward state at k predicts\n$t_{{k-1}}$ = {word}",
                                       "zh": "位置 k 的后向状态预测\n$t_{{k-1}}$ = {word}"},
    "diagram bilm shared": {"en": "one softmax, drawn twice:\nthe same weights for\nboth directions",
                            "zh": "同一个 softmax 画了两次：\n两个方向共用\n同一组权重"},
    "diagram mix title": {"en": "ScalarMix: a task's own mix of the biLM's layers",
                          "zh": "ScalarMix：任务自己学的各层混合"},
    "diagram mix token layer": {"en": "token vector", "zh": "词元向量"},
    "diagram mix lstm layer": {"en": "biLSTM layer {j}", "zh": "第 {j} 层双向 LSTM"},
    "diagram mix softmax": {"en": "$s = \\mathrm{{softmax}}(w)$: positive, sum to 1",
                            "zh": "$s = \\mathrm{{softmax}}(w)$：为正，和为 1"},
    "diagram mix gamma": {"en": "ELMo$_k$ = γ Σ (γ = {gamma:g})", "zh": "ELMo$_k$ = γ Σ（γ = {gamma:g}）"},
    "diagram mix task": {"en": "w and γ are trained with the task's model", "zh": "w 和 γ 随任务模型一起训练"},
    "diagram block title": {"en": "A Transformer ('{preset}' preset): pre-LN blocks, and the masks",
                            "zh": "Transformer（{preset} 预设）：前置层规范化的块，以及掩码"},
    "diagram block embeddings": {"en": "word + position embeddings: E[$w_t$] + P[t] (d_model = {dim})",
                                 "zh": "词嵌入 + 位置嵌入：E[$w_t$] + P[t]（d_model = {dim}）"},
    "diagram block attention": {"en": "multi-head self-attention: {heads} heads of d_k = {dk}",
                                "zh": "多头自注意力：{heads} 个头，每个 d_k = {dk}"},
    "diagram block residual": {"en": "+ residual", "zh": "+ 残差"},
    "diagram block ffn": {"en": "feed-forward: {dim} → {ff}, GELU, → {dim}",
                          "zh": "前馈网络：{dim} → {ff}，GELU，→ {dim}"},
    "diagram block softmax": {"en": "LN, softmax tied to E: p(w | $h_t^{{(L)}}$)",
                              "zh": "LN，与 E 共享权重的 softmax：p(w | $h_t^{{(L)}}$)"},
    "diagram block repeat": {"en": "× {layers} blocks", "zh": "× {layers} 个块"},
    "diagram block mask here": {"en": "mask", "zh": "掩码"},
    "diagram mask causal": {"en": "causal: key s ≤ query t", "zh": "因果：键 s ≤ 查询 t"},
    "diagram mask padding": {"en": "padding: real keys only", "zh": "填充：只看真实的键"},
    "diagram mask gpt": {"en": "GPT: causal and padding", "zh": "GPT：因果 + 填充"},
    "diagram mask bert": {"en": "BERT: padding only", "zh": "BERT：只有填充"},
    "diagram mask legend": {"en": "rows: queries, columns: keys; filled: may look",
                            "zh": "行：查询，列：键；填色：可以看"},
    "diagram bert title": {"en": "BERT's masked LM: which words are hidden, and how",
                           "zh": "BERT 的掩码语言模型：遮住哪些词，怎样遮"},
    "diagram bert chosen": {"en": "each word is chosen with probability {share:.0%}; the chosen ones are then",
                            "zh": "每个词以 {share:.0%} 的概率被选中；选中的词再"},
    "diagram bert masked": {"en": "{share:.0%}: <mask>", "zh": "{share:.0%}：换成 <mask>"},
    "diagram bert random": {"en": "{share:.0%}: a random word", "zh": "{share:.0%}：换成随机词"},
    "diagram bert kept": {"en": "{share:.0%}: kept", "zh": "{share:.0%}：保持不变"},
    "diagram bert original": {"en": "sentence", "zh": "原句"},
    "diagram bert input": {"en": "input $\\tilde w$", "zh": "输入 $\\tilde w$"},
    "diagram bert target": {"en": "predicted", "zh": "预测目标"},
    "diagram bert loss": {"en": "the loss counts the chosen positions only (–: ignored)",
                          "zh": "损失只计选中的位置（–：忽略）"},
    "diagram ulmfit title": {"en": "ULMFiT: three stages, three ways of setting the learning rates",
                             "zh": "ULMFiT：三个阶段，三种设定学习率的方法"},
    "diagram ulmfit stage 1": {"en": "1 · general-domain LM\nthe forward LM of the\nPeople's Daily biLM\n(notebook "
                                     "07)",
                               "zh": "1 · 通用领域语言模型\n人民日报双向语言模型\n中的前向语言模型\n（笔记本 07）"},
    "diagram ulmfit stage 2": {"en": "2 · target-domain LM fine-tuning\nthe reviews' text, no "
                                     "labels\ndiscriminative rates + slanted triangle",
                               "zh": "2 · 目标领域语言模型微调\n评论文本，不用标注\n判别式学习率 + 斜三角学习率"},
    "diagram ulmfit stage 3": {"en": "3 · classifier fine-tuning\nconcat pooling + a small head, on the "
                                     "labels\nboth tricks + gradual unfreezing",
                               "zh": "3 · 分类器微调\n拼接池化 + 小分类头，用标注训练\n两个技巧 + 逐层解冻"},
    "diagram ulmfit group encoder": {"en": "token encoder", "zh": "词元编码器"},
    "diagram ulmfit group head": {"en": "head", "zh": "分类头"},
    "diagram ulmfit discriminative": {"en": "stage 3: rate per group (÷ {factor:g} per group down)",
                                      "zh": "阶段 3：每组的学习率（每往下一组 ÷ {factor:g}）"},
    "diagram ulmfit slanted": {"en": "stage 3: slanted triangle (cut_frac {cut:g}, ratio {ratio:g})",
                               "zh": "阶段 3：斜三角学习率（cut_frac {cut:g}，ratio {ratio:g}）"},
    "diagram ulmfit unfreezing": {"en": "stage 3: gradual unfreezing", "zh": "阶段 3：逐层解冻"},
    "diagram ulmfit epoch": {"en": "epoch", "zh": "轮次"},
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
    "at scale": {"en": "at scale", "zh": "大规模模型"},
    # course.shared.at_scale: a published model that is not fetched
    "at scale not fetched": {"en": "not measured: run `{command}` ({size})",
                             "zh": "未测量：请先运行 `{command}`（{size}）"},
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
    "site editions": {"en": "The notebooks, in both editions", "zh": "笔记本（两个版本）"},
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
    "written assignment": {"en": "{title} ({points:g}, written: graded by hand)",
                           "zh": "{title}（{points:g} 分，书面作业：人工评分）"},
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
    # course.shared.files
    "file": {"en": "file", "zh": "文件"},
    "what it holds": {"en": "what it holds", "zh": "内容"},
    "made by": {"en": "made by", "zh": "由谁生成"},
    "now": {"en": "now", "zh": "当前"},
    "this notebook": {"en": "this notebook", "zh": "本笔记本"},
    "notebook n": {"en": "notebook {n}", "zh": "笔记本 {n}"},
    "saved: loaded": {"en": "saved: loaded, not trained again", "zh": "已保存：直接加载，不再训练"},
    "saved: other settings": {"en": "saved, but trained with other settings ({changes}): trained again here",
                              "zh": "已保存，但训练时的设置与现在不同（{changes}）：在这里重新训练"},
    "saved: unreadable": {"en": "saved, but cannot be read: trained again here",
                          "zh": "已保存，但文件无法读取：在这里重新训练"},
    "made here": {"en": "made here and saved for later notebooks", "zh": "在这里生成，并保存给后面的笔记本"},
    "not saved yet: made here": {"en": "not saved yet: made here now and saved",
                                 "zh": "尚未保存：现在在这里生成并保存"},
    "shared: unpack an archive": {
        "en": "Models a teacher has handed out load instead of training: unpack the archive into this clone before "
              "running the notebook (`python -m course models get course-models.zip`).",
        "zh": "如果老师分发了训练好的模型，在运行本笔记本之前先把压缩包解压到这个仓库里"
              "（`python -m course models get course-models.zip`），这些模型就会直接加载，不必在这里训练。"},
    "not saved yet: run notebook n first": {"en": "not saved yet: run notebook {n} first for the rows that use it",
                                            "zh": "尚未保存：先运行笔记本 {n}，才有用到它的那几行"},
    "shared skipgram en": {"en": "skip-gram vectors of wiki-en", "zh": "wiki-en 上的 skip-gram 词向量"},
    "shared skipgram zh": {"en": "skip-gram vectors of People's Daily", "zh": "《人民日报》语料上的 skip-gram 词向量"},
    "shared glove zh": {"en": "GloVe vectors of People's Daily", "zh": "《人民日报》语料上的 GloVe 词向量"},
    "shared bilm en": {"en": "the English biLM (ELMo)", "zh": "英文双向语言模型（ELMo）"},
    "shared bilm zh": {"en": "the Chinese biLM (ELMo)", "zh": "中文双向语言模型（ELMo）"},
    "shared ner curve": {"en": "the NER learning curve (entity F1 per number of labelled sentences)",
                         "zh": "命名实体识别的学习曲线（每种标注句数下的实体 F1）"},
    "shared ulmfit curve": {"en": "ULMFiT's learning curve (accuracy per number of labelled reviews)",
                            "zh": "ULMFiT 的学习曲线（每种标注评论数下的准确率）"},
}
"""Every string the package prints in a figure or a table header, by key, in each edition."""

from ..printed import PRINTED  # noqa: E402  (what the notebooks print, kept apart)

if set(PRINTED) & set(CATALOGUE):
    raise ValueError(f"keys both in course.printed and the catalogue: {sorted(set(PRINTED) & set(CATALOGUE))}")
CATALOGUE.update(PRINTED)


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
