"""What notebooks 02-05 (word2vec, GloVe, the comparison) print, in each edition."""

PRINTED: dict[str, dict[str, str]] = {
    # notebook 02, skip-gram with negative sampling
    "02 vocabulary tokens": {
        "en": "{tokens:,} tokens of vocabulary words (out-of-vocabulary tokens are dropped, as word2vec does)",
        "zh": "词表中的词共有 {tokens:,} 个词元（和 word2vec 一样，丢弃词表之外的词元）"},
    "02 centre word": {"en": "centre word c", "zh": "中心词 c"},
    "02 farthest context": {"en": "farthest context used", "zh": "用到的最远上下文"},
    "02 context words": {"en": "context words o, in sentence order", "zh": "上下文词 o（按句中顺序）"},
    "02 measured window": {"en": "measured: dynamic / fixed window", "zh": "实测：动态窗口 / 固定窗口"},
    "02 distance": {"en": "distance δ between centre and context word", "zh": "中心词与上下文词的距离 δ"},
    "02 share of pairs": {"en": "share of pairs used", "zh": "用到的词对比例"},
    "02 dynamic window title": {"en": "The dynamic window, m = {m}", "zh": "动态窗口，m = {m}"},
    "02 pairs per pass": {
        "en": "{pairs:,} pairs per pass over the corpus ({per_token:.1f} per token); a fixed window would give "
              "{fixed:,} ({fixed_per_token:.1f} per token)",
        "zh": "遍历一次语料得到 {pairs:,} 个词对（每个词元 {per_token:.1f} 个）；固定窗口会得到 {fixed:,} "
              "个（每个词元 {fixed_per_token:.1f} 个）"},
    "02 multiply adds": {
        "en": "|V| = {words:,} words, d = {dim}: {per_pair:,} multiply-adds per pair for the scores alone",
        "zh": "|V| = {words:,} 个词，d = {dim}：仅计算得分，每个词对就要 {per_pair:,} 次乘加"},
    "02 one pass cost": {
        "en": "one pass = {pairs:,} pairs = {total:,.1f} x 10^12 multiply-adds (scores and gradient)",
        "zh": "遍历一次 = {pairs:,} 个词对 = {total:,.1f} x 10^12 次乘加（得分与梯度）"},
    "02 true pair": {
        "en": "true pair: $-\\log\\sigma(u_o^\\top v_c)$",
        "zh": "真实词对：$-\\log\\sigma(u_o^\\top v_c)$"},
    "02 noise word": {
        "en": "noise word: $-\\log\\sigma(-u_n^\\top v_c)$",
        "zh": "噪声词：$-\\log\\sigma(-u_n^\\top v_c)$"},
    "02 score": {"en": "score $u^\\top v_c$", "zh": "得分 $u^\\top v_c$"},
    "02 two terms": {"en": "The two terms of the negative-sampling loss", "zh": "负采样损失的两项"},
    "02 loss agrees": {"en": "loss agrees:           ", "zh": "损失一致：            "},
    "02 hidden agrees": {"en": "d loss / d v_c agrees: ", "zh": "d loss / d v_c 一致： "},
    "02 output agrees": {"en": "d loss / d u agrees:   ", "zh": "d loss / d u 一致：   "},
    "02 one step": {"en": "one step of 512 pairs", "zh": "一步（512 个词对）"},
    "02 output vectors": {"en": "output vectors per pair", "zh": "每个词对用到的输出向量数"},
    "02 microseconds": {"en": "µs per pair", "zh": "每个词对的耗时（µs）"},
    "02 one pass seconds": {"en": "one pass over our pairs (s)", "zh": "遍历一次全部词对（秒）"},
    "02 power 1": {"en": "power 1: the unigram distribution", "zh": "幂 1：一元分布"},
    "02 power 3/4": {"en": "power 3/4: word2vec", "zh": "幂 3/4：word2vec"},
    "02 power 0": {"en": "power 0: uniform", "zh": "幂 0：均匀分布"},
    "02 noise probability": {"en": "probability of being drawn as noise", "zh": "被抽作噪声词的概率"},
    "02 noise title": {"en": "Noise distributions over the vocabulary", "zh": "词表上的噪声分布"},
    "02 p power": {"en": "P, power {power}", "zh": "P，幂 {power}"},
    "02 ratio": {"en": "ratio 3/4 : 1", "zh": "比值 3/4 : 1"},
    "02 noise distribution": {"en": "noise distribution", "zh": "噪声分布"},
    "02 frequent draws": {"en": "draws among the 10 most frequent words", "zh": "抽中最常见 10 个词的比例"},
    "02 rare draws": {"en": "draws of words seen < 20 times", "zh": "抽中出现 < 20 次的词的比例"},
    "02 corpus frequency": {"en": "corpus frequency f(w)", "zh": "语料中的频率 f(w)"},
    "02 keep probability": {"en": "probability of keeping an occurrence", "zh": "保留一个词元的概率"},
    "02 subsampling title": {"en": "Subsampling frequent words", "zh": "对高频词下采样"},
    "02 subsampled words": {
        "en": "words that are subsampled at all: {n} of {total:,}",
        "zh": "会被下采样的词：{total:,} 个中有 {n} 个"},
    "02 dropped share": {
        "en": "expected share of tokens dropped per pass: {expected:.1%}; in one random pass: {measured:.1%}",
        "zh": "每遍预计丢弃的词元比例：{expected:.1%}；随机的一遍中实际丢弃：{measured:.1%}"},
    "02 p keep": {"en": "P(keep)", "zh": "P(保留)"},
    "02 words processed": {"en": "words processed (millions)", "zh": "已处理的词（百万）"},
    "02 mean loss": {"en": "mean loss per pair", "zh": "每个词对的平均损失"},
    "02 training title": {
        "en": "Skip-gram with negative sampling on {corpus}: {millions:.2f}M words",
        "zh": "{corpus} 上的负采样 skip-gram：{millions:.2f}M 个词"},
    "02 trained": {
        "en": "{epochs} epochs in {seconds:.1f} s, {rate:,.0f} words/s",
        "zh": "{epochs} 轮，用时 {seconds:.1f} 秒，每秒 {rate:,.0f} 个词"},
    "02 tsne title": {
        "en": "t-SNE of {n} skip-gram vectors ({corpus})",
        "zh": "{n} 个 skip-gram 向量的 t-SNE（{corpus}）"},
    "02 gensim and ours": {
        "en": "gensim: {gensim:.1f} s; ours: {ours:.1f} s; both {n_gensim:,} = {n_ours:,} words",
        "zh": "gensim：{gensim:.1f} 秒；我们的：{ours:.1f} 秒；两者都是 {n_gensim:,} = {n_ours:,} 个词"},
    "02 neighbours shared": {
        "en": "top-10 neighbours shared, over {n} frequent words:",
        "zh": "前 10 个近邻的重合比例（{n} 个高频词上的平均）："},
    "02 ours against gensim": {
        "en": "  ours   vs gensim (seed 1):   {share:.0%}",
        "zh": "  我们的 vs gensim（种子 1）：   {share:.0%}"},
    "02 gensim against gensim": {
        "en": "  gensim (seed 1) vs (seed 2): {share:.0%}",
        "zh": "  gensim（种子 1）vs（种子 2）：{share:.0%}"},
    "02 daily trained": {
        "en": "{words:,} words, {epochs} epochs in {seconds:.1f} s",
        "zh": "{words:,} 个词，{epochs} 轮，用时 {seconds:.1f} 秒"},
    "02 daily similarity": {
        "en": "Cosine similarity, skip-gram on People's Daily",
        "zh": "余弦相似度：《人民日报》语料上的 skip-gram"},
    # notebook 03, CBOW and hierarchical softmax
    "03 centre word": {"en": "centre word c (the target)", "zh": "中心词 c（预测目标）"},
    "03 reach": {"en": "reach b", "zh": "窗口半径 b"},
    "03 context averaged": {"en": "context C, averaged into h", "zh": "上下文 C（取平均得到 h）"},
    "03 tokens before subsampling": {
        "en": "{tokens:,} tokens (before subsampling)",
        "zh": "{tokens:,} 个词元（下采样之前）"},
    "03 cbow examples": {
        "en": "CBOW:      {examples:,} examples, each with {mean:.1f} context words on average",
        "zh": "CBOW：     {examples:,} 个样本，平均每个样本有 {mean:.1f} 个上下文词"},
    "03 skipgram pairs": {
        "en": "skip-gram: {pairs:,} pairs, {ratio:.1f} per CBOW example",
        "zh": "skip-gram：{pairs:,} 个词对，每个 CBOW 样本对应 {ratio:.1f} 个"},
    "03 huffman tree title": {
        "en": "The Huffman tree of {n} words of {corpus}; the path of '{word}' in red",
        "zh": "{corpus} 中 {n} 个词的哈夫曼树；“{word}”的路径标为红色"},
    "03 code": {"en": "code", "zh": "编码"},
    "03 code length": {"en": "code length", "zh": "编码长度"},
    "03 code of": {
        "en": "code of '{word}': {code}; inner nodes visited: {nodes}",
        "zh": "“{word}”的编码：{code}；经过的内部节点：{nodes}"},
    "03 three ways": {
        "en": "P({word} | h): product along the path {product:.6f}, hierarchical_softmax_probabilities "
              "{probability:.6f}, exp(-hierarchical_softmax_loss) {loss:.6f}",
        "zh": "P({word} | h)：沿路径的乘积为 {product:.6f}，hierarchical_softmax_probabilities 给出 "
              "{probability:.6f}，exp(-hierarchical_softmax_loss) 给出 {loss:.6f}"},
    "03 sum over words": {"en": "sum over all {n} words: {total:.12f}", "zh": "对全部 {n} 个词求和：{total:.12f}"},
    "03 step j": {"en": "step j", "zh": "第 j 步"},
    "03 inner node": {"en": "inner node n_j", "zh": "内部节点 n_j"},
    "03 bit": {"en": "bit", "zh": "编码位"},
    "03 product so far": {"en": "product so far", "zh": "到此为止的乘积"},
    "03 tree size": {
        "en": "|V| = {words:,} words, {nodes:,} inner nodes",
        "zh": "|V| = {words:,} 个词，{nodes:,} 个内部节点"},
    "03 sums": {"en": "sums of P(w | h) over the vocabulary: {sums}", "zh": "P(w | h) 在整个词表上的和：{sums}"},
    "03 largest deviation": {
        "en": "largest deviation from 1: {deviation:.1e}",
        "zh": "与 1 的最大偏差：{deviation:.1e}"},
    "03 code length legend": {"en": "Huffman code length L(w)", "zh": "哈夫曼编码长度 L(w)"},
    "03 ideal length": {"en": "−log2 p(w): the ideal length", "zh": "−log2 p(w)：理想长度"},
    "03 balanced tree": {"en": "log2 |V|: a balanced tree", "zh": "log2 |V|：平衡树"},
    "03 frequency rank": {"en": "frequency rank of the word", "zh": "词的频次排名"},
    "03 bits": {"en": "bits (= dot products per example)", "zh": "比特数（= 每个样本的点积次数）"},
    "03 code lengths title": {
        "en": "Code lengths of the Huffman tree of {corpus}",
        "zh": "{corpus} 的哈夫曼树的编码长度"},
    "03 full softmax": {"en": "full softmax", "zh": "完整 softmax"},
    "03 hierarchical softmax": {"en": "hierarchical softmax (Huffman tree)", "zh": "层序 softmax（哈夫曼树）"},
    "03 negative sampling": {"en": "negative sampling, k = 5", "zh": "负采样，k = 5"},
    "03 vocabulary size": {"en": "vocabulary size |V|", "zh": "词表大小 |V|"},
    "03 microseconds": {"en": "µs per training example", "zh": "每个训练样本的耗时（µs）"},
    "03 one step title": {
        "en": "One step, batch of {batch}, d = {dim}, {threads} CPU threads",
        "zh": "一步训练：批大小 {batch}，d = {dim}，{threads} 个 CPU 线程"},
    "03 ours": {"en": "ours", "zh": "我们的"},
    "03 ours trained": {
        "en": "ours,   {name:<14} {epochs} epochs in {seconds:5.1f} s",
        "zh": "我们的，{name:<14} {epochs} 轮，用时 {seconds:5.1f} 秒"},
    "03 gensim trained": {
        "en": "gensim, {name:<14} {epochs} epochs in {seconds:5.1f} s",
        "zh": "gensim，{name:<14} {epochs} 轮，用时 {seconds:5.1f} 秒"},
    "03 ours over gensim": {
        "en": "{name:<14} ours / gensim: {ratio:.2f}",
        "zh": "{name:<14} 我们的 / gensim：{ratio:.2f}"},
    "03 speed ratios": {
        "en": "{who:<6} CBOW / skip-gram: with NS {ns:.1f}, with HS {hs:.1f};  HS / NS: skip-gram {skipgram:.2f}, "
              "CBOW {cbow:.2f}",
        "zh": "{who:<6} CBOW / skip-gram：NS 下 {ns:.1f}，HS 下 {hs:.1f}；HS / NS：skip-gram {skipgram:.2f}，CBOW "
              "{cbow:.2f}"},
    "03 four variants": {
        "en": "Four variants of word2vec on {corpus}, {epochs} epochs",
        "zh": "{corpus} 上 word2vec 的四种变体，{epochs} 轮"},
    "03 saved vectors": {
        "en": "saved {n:,} vectors of {dim} dimensions to {path}",
        "zh": "已把 {n:,} 个 {dim} 维向量保存到 {path}"},
    "03 pairs in band": {"en": "({n} pairs)", "zh": "（{n} 个词对）"},
    "03 rarer word count": {"en": "count of the rarer word of the pair", "zh": "词对中较罕见的那个词的出现次数"},
    "03 by frequency band": {"en": "WordSim-353 by frequency band, {who}", "zh": "按频次分段的 WordSim-353，{who}"},
    "03 rho within band": {"en": "Spearman ρ within the band", "zh": "段内的 Spearman ρ"},
    "03 pairs in vocabulary": {
        "en": "{pairs} of the WordSim-353 pairs have both words in the vocabulary; the rarer word occurs a median of "
              "{median:.0f} times",
        "zh": "WordSim-353 中有 {pairs} 个词对的两个词都在词表中；较罕见的那个词，出现次数的中位数为 {median:.0f}"},
    "03 training part": {
        "en": "training part: {tokens:,} tokens, {types:,} types, {known:,} seen 5+ times",
        "zh": "训练部分：{tokens:,} 个词元，{types:,} 个类型，其中 {known:,} 个出现 5 次及以上"},
    "03 held out": {
        "en": "held out: {sentences:,} sentences, {tokens:,} tokens, {types:,} types",
        "zh": "留出部分：{sentences:,} 个句子，{tokens:,} 个词元，{types:,} 个类型"},
    "03 outside vocabulary": {
        "en": "{outside:.1%} of the held-out tokens are outside the vocabulary (count >= 5), {never:.1%} were never "
              "seen in the training part at all",
        "zh": "留出词元中有 {outside:.1%} 在词表之外（词表要求出现次数 >= 5），有 {never:.1%} 在训练部分中从未出现过"},
    "03 ngram count": {"en": "{n} n-grams; '{word}' has {m}", "zh": "共 {n} 个 n-gram；“{word}”有 {m} 个"},
    "03 fasttext trained": {
        "en": "fastText: {epochs} epochs in {seconds:.1f} s (word2vec, the same settings: {word2vec_seconds:.1f} s); "
              "{words:,} words and {buckets:,} n-gram buckets of {dim} numbers",
        "zh": "fastText：{epochs} 轮，用时 {seconds:.1f} 秒（相同设置的 word2vec：{word2vec_seconds:.1f} 秒）；"
              "{words:,} 个词，{buckets:,} 个 n-gram 桶，每个 {dim} 维"},
    "03 interval contains zero": {
        "en": "The interval contains 0: on these pairs this corpus cannot tell the two apart.",
        "zh": "这个区间包含 0：在这些词对上，这个语料库分不出两者的高下。"},
    "03 interval excludes zero": {
        "en": "The interval excludes 0: {model} is ahead on these pairs.",
        "zh": "这个区间不包含 0：在这些词对上 {model} 领先。"},
    "03 pairs verdict": {
        "en": "{benchmark}: word2vec answers {shared} of {every} pairs and skips {skipped}; fastText answers all "
              "{every}. On the shared pairs fastText's ρ is {rho_ft:.3f} against word2vec's {rho_w2v:.3f} (the "
              "difference's 5th-95th percentiles: {low:+.3f} to {high:+.3f}); on the pairs word2vec skips fastText "
              "reaches {skipped_rho:.3f}. {verdict}",
        "zh": "{benchmark}：{every} 个词对中，word2vec 回答了 {shared} 个，跳过了 {skipped} 个；fastText 全部 "
              "{every} 个都能回答。在共同的词对上，fastText 的 ρ 为 {rho_ft:.3f}，word2vec 为 "
              "{rho_w2v:.3f}（差值的第 5 到第 95 百分位数：{low:+.3f} 到 {high:+.3f}）；在 word2vec 跳过的词对上，"
              "fastText 达到 {skipped_rho:.3f}。{verdict}"},
    "03 merge": {"en": "merge {k:2}: {a} + {b} -> {merged}", "zh": "第 {k:2} 次合并：{a} + {b} -> {merged}"},
    "03 merges learned": {
        "en": "{merges:,} merges learned from {types:,} word types in {seconds:.1f} s; {symbols} starting symbols "
              "(characters and the marker)",
        "zh": "从训练部分的 {types:,} 个类型中学到 {merges:,} 次合并，用时 {seconds:.1f} 秒；初始符号 {symbols} "
              "个（各个字符加上词尾标记）"},
    "03 first merges": {"en": "the first {n}: {merges}", "zh": "前 {n} 次：{merges}"},
    "03 bpe summary": {
        "en": "With {merges:,} merges ({symbols:,} symbols) a held-out word is written with {pieces:.2f} pieces on "
              "average and {split:.1f}% of the held-out tokens are split; a word vocabulary of the same size leaves "
              "{oov:.1f}% of them unknown, where BPE leaves none.",
        "zh": "经过 {merges:,} 次合并（{symbols:,} 个符号），一个留出词平均写成 {pieces:.2f} 个片段，{split:.1f}% "
              "的留出词元被切开；同样大小的整词词表会让其中 {oov:.1f}% 成为未知词，而 BPE 一个也不会留下。"},
    "03 jieba held out": {
        "en": "{corpus}: {sentences:,} sentences held out; jieba segmented them in {seconds:.1f} s",
        "zh": "{corpus}：留出 {sentences:,} 个句子；jieba 分词用时 {seconds:.1f} 秒"},
    "03 words against characters": {
        "en": "jieba's words need {types:,} types and leave {unseen:.2f}% of the held-out tokens unseen; characters "
              "need {char_types:,} types and leave {char_unseen:.2f}% unseen, at the price of {ratio:.2f} times as "
              "many tokens per sentence ({char_length:.1f} against {length:.1f}).",
        "zh": "jieba 分出的词需要 {types:,} 个类型，留出词元中有 {unseen:.2f}% 从未见过；单个汉字需要 {char_types:,} "
              "个类型，从未见过的占 {char_unseen:.2f}%，代价是每句的词元数变为 {ratio:.2f} 倍（{char_length:.1f} 对 "
              "{length:.1f}）。"},
    "03 jieba against annotated": {
        "en": "jieba's words: {types:,} types, {unseen:.2f}% of the held-out tokens unseen; the hand-checked words: "
              "{checked_types:,} types, {checked_unseen:.2f}% unseen.",
        "zh": "jieba 分出的词：{types:,} 个类型，留出词元中 {unseen:.2f}% 从未见过；人工校对的词：{checked_types:,} "
              "个类型，{checked_unseen:.2f}% 从未见过。"},
    "03 bits per word": {"en": "bits per word", "zh": "每个词的比特数"},
    "03 balanced tree row": {"en": "balanced tree: log2 |V|", "zh": "平衡树：log2 |V|"},
    "03 weighted mean row": {
        "en": "Huffman tree: mean code length, weighted by counts",
        "zh": "哈夫曼树：按出现次数加权的平均编码长度"},
    "03 entropy row": {"en": "entropy H of the unigram distribution", "zh": "一元分布的熵 H"},
    "03 plain mean row": {
        "en": "Huffman tree: plain mean over the vocabulary (every word once)",
        "zh": "哈夫曼树：在词表上直接求平均（每个词算一次）"},
    "03 longest code row": {"en": "Huffman tree: longest code", "zh": "哈夫曼树：最长的编码"},
    "03 microseconds of": {"en": "{method} (µs)", "zh": "{method}（µs）"},
    "03 mean path": {"en": "mean path (bits)", "zh": "平均路径长度（比特）"},
    "03 longest path": {"en": "longest path in the batch", "zh": "批内最长的路径"},
    "03 words per second": {"en": "words/s", "zh": "词/秒"},
    "03 analogies": {"en": "analogies, 3CosAdd", "zh": "类比题，3CosAdd"},
    "03 who variant": {"en": "{who}: {name}", "zh": "{who}：{name}"},
    # notebook 04, GloVe
    "04 loop same": {"en": "the loop gives the same matrix:", "zh": "循环算出的矩阵相同："},
    "04 symmetric": {"en": "the matrix is symmetric:       ", "zh": "矩阵是对称的：      "},
    "04 toy x title": {
        "en": "X for the toy corpus, window {window}, weights 1/d",
        "zh": "玩具语料的 X，窗口 {window}，权重 1/d"},
    "04 nonzero entries": {
        "en": "{nnz:,} non-zero entries of {cells:,} cells ({share:.2%}), counted in {seconds:.1f} s",
        "zh": "{cells:,} 个格子中有 {nnz:,} 个非零元素（{share:.2%}），计数用时 {seconds:.1f} 秒"},
    "04 sparse size": {
        "en": "sparse: {sparse:.0f} MiB; a dense float64 matrix would take {dense:,.0f} MiB",
        "zh": "稀疏存储：{sparse:.0f} MiB；稠密的 float64 矩阵要占 {dense:,.0f} MiB"},
    "04 undefined": {"en": "undefined", "zh": "无定义"},
    "04 context word k": {"en": "context word k", "zh": "上下文词 k"},
    "04 context words title": {
        "en": "Context words of '{i}' and '{j}' ({n} words)",
        "zh": "“{i}”和“{j}”的上下文词（{n} 个）"},
    "04 context words near both": {
        "en": "{n} context words occur at least twice near both; {share:.0%} of them have a ratio between 1/2 and 2",
        "zh": "有 {n} 个上下文词在两者附近都至少出现两次；其中 {share:.0%} 的比值在 1/2 到 2 之间"},
    "04 x max line": {"en": "x_max = 10 (section 5)", "zh": "x_max = 10（第 5 节）"},
    "04 weighted count": {"en": "X_ik (weighted count)", "zh": "X_ik（加权计数）"},
    "04 nonzero count": {"en": "non-zero entries", "zh": "非零元素个数"},
    "04 entries title": {
        "en": "The {nnz:,} non-zero entries of X ({corpus}, window {window})",
        "zh": "X 的 {nnz:,} 个非零元素（{corpus}，窗口 {window}）"},
    "04 largest entries": {"en": "largest entries: {entries}", "zh": "最大的元素：{entries}"},
    "04 entries below": {
        "en": "entries below 1: {below_1:.0%}; below 10: {below_10:.0%}; the largest is {ratio:,.0f} times the median",
        "zh": "小于 1 的元素：{below_1:.0%}；小于 10 的：{below_10:.0%}；最大的元素是中位数的 {ratio:,.0f} 倍"},
    "04 weighting title": {"en": "GloVe's weighting, x_max = {x_max:g}", "zh": "GloVe 的权重函数，x_max = {x_max:g}"},
    "04 below 1": {"en": "below 1", "zh": "小于 1"},
    "04 band": {"en": "{low} to {high}", "zh": "{low} 到 {high}"},
    "04 100 and more": {"en": "100 and more", "zh": "100 及以上"},
    "04 share of entries": {"en": "share of entries", "zh": "元素占比"},
    "04 share of weight": {"en": "share of weight, α = {alpha:g}", "zh": "权重占比，α = {alpha:g}"},
    "04 weight title": {"en": "Where the weight of the loss goes", "zh": "损失的权重落在哪里"},
    "04 loss agrees": {"en": "loss agrees:", "zh": "损失一致："},
    "04 gradient agrees": {"en": "d J / d {name:<3} agrees:", "zh": "d J / d {name:<3} 一致："},
    "04 epochs axis": {"en": "epochs (passes over the non-zero entries)", "zh": "轮次（遍历全部非零元素的次数）"},
    "04 mean loss": {"en": "mean loss per entry", "zh": "每个元素的平均损失"},
    "04 training title": {
        "en": "GloVe on {corpus}: {millions:.1f}M entries",
        "zh": "{corpus} 上的 GloVe：已处理 {millions:.1f}M 个元素"},
    "04 trained": {
        "en": "{epochs} epochs in {seconds:.1f} s, {rate:,.0f} entries/s; final mean loss per entry {loss:.4f}",
        "zh": "{epochs} 轮，用时 {seconds:.1f} 秒，每秒 {rate:,.0f} 个元素；最终每个元素的平均损失为 {loss:.4f}"},
    "04 parameters": {
        "en": "{parameters:,} parameters for {equations:,} equations",
        "zh": "{parameters:,} 个参数，对应 {equations:,} 个方程"},
    "04 smaller count": {"en": "log10 of the smaller count", "zh": "较小计数的 log10"},
    "04 counted ratio": {
        "en": "log X({i}, k) − log X({j}, k): counted",
        "zh": "log X({i}, k) − log X({j}, k)：由计数得到"},
    "04 modelled ratio": {
        "en": "(w_{i} − w_{j}) · w~_k + b_{i} − b_{j}: the model",
        "zh": "(w_{i} − w_{j}) · w~_k + b_{i} − b_{j}：由模型得到"},
    "04 ratios title": {
        "en": "Ratios from the counts and from the vectors",
        "zh": "由计数得到的比值与由向量得到的比值"},
    "04 correlation": {
        "en": "correlation over {n} context words: {correlation:.2f}",
        "zh": "在 {n} 个上下文词上的相关系数：{correlation:.2f}"},
    "04 word vectors": {"en": "w: word vectors", "zh": "w：词向量"},
    "04 context vectors": {"en": "w~: context vectors", "zh": "w~：上下文向量"},
    "04 kept vectors": {"en": "w + w~ (kept)", "zh": "w + w~（保留的）"},
    "04 rho with humans": {"en": "Spearman ρ with human scores", "zh": "与人工评分的 Spearman ρ"},
    "04 which vectors": {"en": "Which vectors to keep", "zh": "保留哪些向量"},
    "04 vectors": {"en": "vectors", "zh": "向量"},
    "04 nearest neighbours": {"en": "nearest neighbours (cosine similarity)", "zh": "最近邻（余弦相似度）"},
    "04 analogies answered": {"en": "analogies answered", "zh": "作答的类比题"},
    "04 tsne title": {"en": "t-SNE of {n} GloVe vectors ({corpus})", "zh": "{n} 个 GloVe 向量的 t-SNE（{corpus}）"},
    "04 frequency band": {"en": "frequency band", "zh": "频次段"},
    "04 nearest cosine": {"en": "cosine of the nearest neighbour (mean)", "zh": "与最近邻的余弦（均值）"},
    "04 same band share": {"en": "share of the 5 neighbours in the same band", "zh": "5 个近邻中属于同一频次段的比例"},
    "04 words": {"en": "words", "zh": "词数"},
    "04 daily trained": {
        "en": "{corpus:17} {words:>6,} words, {epochs} epochs in {seconds:.1f} s",
        "zh": "{corpus:17} {words:>6,} 个词，{epochs} 轮，用时 {seconds:.1f} 秒"},
    # notebook 05, static vectors compared
    "05 trained": {
        "en": "{name:<17} {words:,} words, {seconds:5.1f} s",
        "zh": "{name:<17} {words:,} 个词，{seconds:5.1f} 秒"},
    "05 training time": {"en": "training time (s), two CPU threads", "zh": "训练时间（秒），两个 CPU 线程"},
    "05 five models": {"en": "Five models on {corpus}", "zh": "{corpus} 上的五个模型"},
    "05 seconds": {"en": "{seconds:.0f} s", "zh": "{seconds:.0f} 秒"},
    "05 model": {"en": "model", "zh": "模型"},
    "05 corpus": {"en": "corpus", "zh": "语料库"},
    "05 counts in corpus": {"en": "counts in the corpus: {counts}", "zh": "在语料库中的出现次数：{counts}"},
    "05 share of section": {"en": "share of the section's questions", "zh": "占该类题目的比例"},
    "05 coverage title": {
        "en": "Coverage of the Google analogy set by {corpus} (blue: semantic, orange: syntactic)",
        "zh": "{corpus} 对 Google 类比题集的覆盖（蓝：语义题，橙：句法题）"},
    "05 section counts": {
        "en": "{answered:,} of {questions:,}, {supported:,} supported",
        "zh": "{questions:,} 道中 {answered:,} 道可答，{supported:,} 道可支撑"},
    "05 all four in vocabulary": {"en": "all four words in the vocabulary", "zh": "四个词都在词表中"},
    "05 supported legend": {
        "en": "supported: each word seen ≥ {min_count} times",
        "zh": "可支撑：每个词至少出现 {min_count} 次"},
    "05 answerable": {
        "en": "{answered:,} of {questions:,} questions answerable ({share:.0%}); {supported:,} supported, every word "
              "seen at least {min_count} times ({supported_share:.1%})",
        "zh": "{questions:,} 道题中有 {answered:,} 道可以作答（{share:.0%}）；可支撑的题目有 {supported:,} 道，"
              "其中每个词都至少出现 {min_count} 次（{supported_share:.1%}）"},
    "05 share answered": {
        "en": "{share:.1%} ({correct:,} of {answered:,})",
        "zh": "{share:.1%}（{answered:,} 道中答对 {correct:,} 道）"},
    "05 best supported": {
        "en": "{supported:,} supported questions (each word seen at least {min_count} times); best on them with "
              "3CosAdd: {model}, {p:.1%} ± {error:.1%} (one standard error)",
        "zh": "可支撑的题目共 {supported:,} 道（每个词都至少出现 {min_count} 次）；用 3CosAdd "
              "在这些题目上得分最高的是 {model}：{p:.1%} ± {error:.1%}（一个标准误）"},
    "05 all answered": {"en": "{method}, all answered", "zh": "{method}，全部已答题目"},
    "05 supported": {"en": "{method}, supported", "zh": "{method}，可支撑的题目"},
    "05 right answers": {
        "en": "{model} answers {right} of the {supported} supported questions correctly with 3CosAdd",
        "zh": "{model} 用 3CosAdd 答对了 {supported} 道可支撑题目中的 {right} 道"},
    "05 and more": {"en": "; and {n} more", "zh": "；另有 {n} 道"},
    "05 rule for question": {
        "en": "{question}, and the rule: every word seen at least {min_count} times in {corpus}",
        "zh": "{question}，规则：每个词在 {corpus} 中至少出现 {min_count} 次"},
    "05 passes": {"en": "passes", "zh": "满足"},
    "05 falls short": {"en": "falls short", "zh": "不满足"},
    "05 king queen questions": {
        "en": "the family section pairs king with queen in {questions} questions; the rule keeps {kept} of them",
        "zh": "亲属称谓类中有 {questions} 道题把 king 与 queen 配成一对；规则保留了其中 {kept} 道"},
    "05 occurrences first": {
        "en": "{word}: {n} occurrences, the first {most}:",
        "zh": "{word}：出现 {n} 次，以下是前 {most} 次："},
    "05 occurrences": {"en": "{word}: {n} occurrences:", "zh": "{word}：出现 {n} 次："},
    "05 neighbours of": {"en": "neighbours of {word} (count)", "zh": "{word} 的近邻（出现次数）"},
    "05 neighbours shared with": {"en": "neighbours shared with", "zh": "与之共有的近邻"},
    "05 pair": {"en": "pair", "zh": "词对"},
    "05 cosine of": {"en": "cosine, {model}", "zh": "余弦，{model}"},
    "05 human score": {"en": "human score", "zh": "人工评分"},
    "05 cosine similarity": {"en": "cosine similarity", "zh": "余弦相似度"},
    "05 similarity title": {
        "en": "{benchmark}: ρ = {rho:.2f} on {pairs} pairs ({model})",
        "zh": "{benchmark}：{pairs} 个词对上 ρ = {rho:.2f}（{model}）"},
    "05 summary": {
        "en": "{corpus}: {tokens:,} tokens; analogies answered: {coverage:.0%} of the set",
        "zh": "{corpus}：{tokens:,} 个词元；作答的类比题占题集的 {coverage:.0%}"},
    "05 training seconds": {"en": "training (s)", "zh": "训练（秒）"},
    "05 semantic": {"en": "{method} semantic", "zh": "{method} 语义题"},
    "05 syntactic": {"en": "{method} syntactic", "zh": "{method} 句法题"},
    "05 total": {"en": "{method} total", "zh": "{method} 总计"},
    "05 word similarity": {"en": "Word similarity", "zh": "词语相似度"},
    "05 percent correct": {"en": "% of answered questions correct", "zh": "已答题目中答对的比例（%）"},
    "05 analogies total": {"en": "Google analogies, total", "zh": "Google 类比题，总计"},
    "05 best": {
        "en": "best on WordSim-353: {similarity}; best on analogies (3CosAdd): {analogies}",
        "zh": "WordSim-353 上最好的：{similarity}；类比题（3CosAdd）上最好的：{analogies}"},
    "05 gender pairs": {"en": "gender pairs: {pairs}", "zh": "性别词对：{pairs}"},
    "05 capital pairs": {"en": "capital -> country: {pairs}", "zh": "首都 -> 国家：{pairs}"},
    "05 male to female": {"en": "male → female", "zh": "男 → 女"},
    "05 capital to country": {"en": "capital → country", "zh": "首都 → 国家"},
    "05 offset agreement": {"en": "offset agreement, {pairs}", "zh": "偏移一致度，{pairs}"},
    "05 pairs kept": {
        "en": "{corpus}, N = {n}: {kept} pairs kept: {pairs}",
        "zh": "{corpus}，N = {n}：保留 {kept} 对：{pairs}"},
    "05 pairs dropped": {"en": "dropped, seen fewer than N times: {dropped}", "zh": "舍去（出现不足 N 次）：{dropped}"},
    "05 first component": {"en": "1st component", "zh": "第 1 主成分"},
    "05 second component": {"en": "2nd component", "zh": "第 2 主成分"},
    "05 random median first": {"en": "random pairs: median 1st", "zh": "随机词对：第 1 主成分的中位数"},
    "05 random 95th": {"en": "random pairs: 95th percentile", "zh": "随机词对：第 95 百分位数"},
    "05 cos pca mean": {"en": "cos(PCA, mean difference)", "zh": "cos(PCA, 平均差)"},
    "05 first component verdict": {
        "en": "The first component explains more than 95% of random pair sets do in {above} of {models} models: "
              "{named}.",
        "zh": "{models} 个模型中有 {above} 个，第 1 主成分解释的比例超过了 95% 的随机词对集合：{named}。"},
    "05 no direction": {
        "en": "{model} on {corpus}: {share:.1%}, no more than random pairs give ({random_95:.1%} at the 95th "
              "percentile): no single direction stands out.",
        "zh": "{corpus} 上的 {model}：{share:.1%}，不超过随机词对给出的比例（第 95 百分位数为 {random_95:.1%}）："
              "没有哪一个方向特别突出。"},
    "05 occupations seen": {
        "en": "{corpus}: {seen} of {total} occupations seen at least {n} times; left out: {left_out}",
        "zh": "{corpus}：{total} 个职业词中有 {seen} 个至少出现 {n} 次；未收入：{left_out}"},
    "05 actress": {"en": "actress, female by definition: {models}", "zh": "actress（女演员）按定义是女性：{models}"},
    "05 actress rank": {
        "en": "{model} {projection:+.3f} (rank {rank} of {n} from the female end)",
        "zh": "{model} {projection:+.3f}（从女性一端数起，{n} 个中排第 {rank}）"},
    "05 projection agreement": {
        "en": "{corpus}: Spearman correlation of the occupations' projections between two models trained on the same "
              "text: mean {mean:+.2f}, from {low:+.2f} to {high:+.2f} ({pairs} pairs of models)",
        "zh": "{corpus}：在同一文本上训练的两个模型之间，职业词投影的 Spearman 相关系数平均为 {mean:+.2f}，范围 "
              "{low:+.2f} 到 {high:+.2f}（{pairs} 对模型）"},
    "05 weat skipped": {
        "en": "{corpus}, {test}: too few words seen {n} times; skipped",
        "zh": "{corpus}，{test}：出现 {n} 次的词太少，跳过"},
    "05 exact": {"en": "exact", "zh": "精确"},
    "05 monte carlo": {"en": "Monte-Carlo", "zh": "蒙特卡罗"},
    "05 yes": {"en": "yes", "zh": "是"},
    "05 no": {"en": "no", "zh": "否"},
    "05 weat significant": {
        "en": "{significant} of {tests} tests have p < 0.05; with {tests} tests and no association at all, about "
              "{chance:.1f} would by chance.",
        "zh": "{tests} 项检验中有 {significant} 项 p < 0.05；做 {tests} 项检验，即使完全没有关联，也约有 "
              "{chance:.1f} 项会偶然达到。"},
    "05 not significant": {
        "en": "not significant: {model} on {corpus}, {test} (d = {d:+.2f}, p = {p:.2f})",
        "zh": "不显著：{corpus} 上的 {model}，{test}（d = {d:+.2f}，p = {p:.2f}）"},
    "05 weat test": {"en": "X / Y against male / female", "zh": "X / Y 对 male / female"},
    "05 words per set": {"en": "words per set", "zh": "每组词数"},
    "05 effect size": {"en": "effect size d", "zh": "效应量 d"},
    "05 p value": {"en": "p-value", "zh": "p 值"},
    "05 splits": {"en": "splits", "zh": "划分数"},
    "05 swapped": {"en": "A and B swapped", "zh": "A 与 B 互换"},
    "05 random targets": {
        "en": "random X, Y ({draws} draws): p < 0.05; as large a |d|",
        "zh": "随机 X、Y（{draws} 次抽取）：p < 0.05；同样大的 |d|"},
    "05 random attributes": {
        "en": "random A, B ({draws} draws): p < 0.05; as large a |d|",
        "zh": "随机 A、B（{draws} 次抽取）：p < 0.05；同样大的 |d|"},
    "05 random draws share": {
        "en": "{significant:.0%}; |d| ≥ {d:.2f} in {share:.0%}",
        "zh": "{significant:.0%}；|d| ≥ {d:.2f} 的占 {share:.0%}"},
    "05 weat beyond random": {
        "en": "significant, and larger than random attribute sets give in 95% of draws",
        "zh": "显著，并且大于随机属性词集合在 95% 的抽取中给出的效应"},
    "05 weat not singled out": {
        "en": "significant by the permutation test, but random attribute sets give an effect as large in {share:.0%} "
              "of draws: the test does not single out gender",
        "zh": "置换检验显著，但随机属性词集合在 {share:.0%} 的抽取中给出同样大的效应：这项检验并没有专门指向性别"},
    "05 weat not significant": {
        "en": "not significant: no evidence of a career / family association with gender in these vectors",
        "zh": "不显著：在这些向量中看不出事业 / 家庭与性别之间的关联"},
    "05 weat verdict": {
        "en": "{model} on {corpus}: d = {d:+.2f}, p = {p:.3f}; {verdict}.",
        "zh": "{corpus} 上的 {model}：d = {d:+.2f}，p = {p:.3f}；{verdict}。"},
    "05 neutralised projections": {
        "en": "{model} on {corpus}: occupations' projections before, largest |ŵ·ĝ| = {before:.3f}; after "
              "neutralising {after:.1e}; the vectors kept {length:.1%} of their length on average",
        "zh": "{corpus} 上的 {model}：中和之前，职业词投影的最大 |ŵ·ĝ| = {before:.3f}；中和之后为 {after:.1e}；"
              "向量平均保留了原长度的 {length:.1%}"},
    "05 furthest words": {
        "en": "{model} on {corpus}, the 15 words that lean furthest to each side:\n  male: {male}\n  female: {female}",
        "zh": "{corpus} 上的 {model}，向两侧偏得最远的各 15 个词：\n  男：{male}\n  女：{female}"},
    "05 male": {"en": "male", "zh": "男性"},
    "05 female": {"en": "female", "zh": "女性"},
    "05 m": {"en": "m", "zh": "男"},
    "05 f": {"en": "f", "zh": "女"},
    "05 nearest after neutralising": {
        "en": "after neutralising, the nearest of {word!r} ({side}-leaning): {nearest}",
        "zh": "中和之后，{word!r}（偏{side}）的最近邻：{nearest}"},
    "05 knn": {"en": "k-NN", "zh": "k 近邻"},
    "05 logistic": {"en": "logistic", "zh": "逻辑回归"},
    "05 before": {"en": "{classifier}: before", "zh": "{classifier}：中和前"},
    "05 neutralised": {"en": "{classifier}: neutralised", "zh": "{classifier}：中和后"},
    "05 random neutralised": {"en": "{classifier}: random direction neutralised", "zh": "{classifier}：中和随机方向后"},
    "05 recovered": {
        "en": "{model} on {corpus}: after neutralising the gender direction, a 5-NN vote recovers which side a word "
              "leaned to for {knn:.0%} of them and a logistic regression for {logistic:.0%} (chance 50%); for the "
              "two ends of a random direction, neutralised the same way: {knn_random:.0%} and {logistic_random:.0%}.",
        "zh": "{corpus} 上的 {model}：中和性别方向之后，5 近邻投票仍能判断出 {knn:.0%} 的词原本偏向哪一侧，"
              "逻辑回归为 {logistic:.0%}（随机猜测为 50%）；对一个随机方向的两端做同样的中和：{knn_random:.0%} 和 "
              "{logistic_random:.0%}。"},
    "05 gender against random": {
        "en": "gender against the random direction: at most {points:.0f} points apart",
        "zh": "性别方向与随机方向相比：最多相差 {points:.0f} 个百分点"},
    "05 fraction done": {
        "en": "{corpus}, first {fraction:.3g}: {tokens:,} tokens done",
        "zh": "{corpus} 的前 {fraction:.3g}（{tokens:,} 个词元）：完成"},
    "05 text8 not loaded": {
        "en": "text8 is in the cache but could not be loaded: {error}",
        "zh": "text8 已在缓存中，但无法加载：{error}"},
    "05 text8 missing": {
        "en": "text8 is not in the cache; `python -m course corpus info text8` downloads it (31 MB) and extends the "
              "curve to 17 million words",
        "zh": "text8 不在缓存中；运行 `python -m course corpus info text8` 即可下载（31 MB），把曲线延伸到 1700 万词"},
    "05 curve correct": {
        "en": "analogies correct, 3CosAdd (% of the whole set)",
        "zh": "答对的类比题，3CosAdd（占整个题集的 %）"},
    "05 curve answered": {"en": "analogy questions answered (%)", "zh": "作答的类比题（%）"},
    "05 curve tokens": {"en": "tokens in the training corpus", "zh": "训练语料的词元数"},
    "05 curve title": {"en": "Learning curves: the same models on more text", "zh": "学习曲线：同样的模型，更多的文本"},
    "05 tokens": {"en": "tokens", "zh": "词元数"},
    "05 correct of all": {"en": "correct, % of all questions", "zh": "答对（占全部题目的 %）"},
    "05 answered": {"en": "answered", "zh": "已作答"},
    "05 correct of answered": {"en": "correct, % of answered", "zh": "答对（占已答题目的 %）"},
    "05 benchmark pairs": {"en": "{benchmark} pairs", "zh": "{benchmark} 词对数"},
    "05 curve ends": {
        "en": "gensim skip-gram answers {small:.2%} of all questions correctly on {small_tokens:,} tokens and "
              "{large:.2%} on {large_tokens:,} ({source})",
        "zh": "gensim skip-gram 在 {small_tokens:,} 个词元上答对全部题目的 {small:.2%}，在 {large_tokens:,} "
              "个词元（{source}）上答对 {large:.2%}"},
    "05 times": {"en": "x {ratio:.1f}", "zh": "{ratio:.1f} 倍"},
    "05 from none": {"en": "from none", "zh": "此前为零"},
    "05 last doubling": {
        "en": "{model}: correct answers {times} from {half:,} to {full:,} tokens",
        "zh": "{model}：词元从 {half:,} 增加到 {full:,}，前后答对题数之比：{times}"},
    "05 count against skipgram": {
        "en": "count + SVD against gensim skip-gram on {tokens:,} tokens of {corpus}: {times}",
        "zh": "在 {corpus} 的 {tokens:,} 个词元上，count + SVD 与 gensim skip-gram 答对题数之比：{times}"},
    "05 section": {"en": "section", "zh": "类别"},
    "05 supported questions": {"en": "supported", "zh": "可支撑"},
    "05 vocabulary size": {"en": "words", "zh": "词数"},
    "05 ca8 morphological": {"en": "CA8 morphological, 3CosAdd", "zh": "CA8 形态类，3CosAdd"},
    "05 ca8 semantic": {"en": "CA8 semantic, 3CosAdd", "zh": "CA8 语义类，3CosAdd"},
    "05 ca8 coverage": {"en": "CA8 answered", "zh": "CA8 可作答比例"},
    "05 at scale gap": {
        "en": "On the {n:,} questions {corpus} supports, {big} answers {big_share:.1%} and our best, {ours}, "
              "{ours_share:.1%}; on the whole set {big} answers {big_answered:,} questions, our best "
              "{ours_answered:,}.",
        "zh": "在 {corpus} 可支撑的 {n:,} 道题上，{big} 答对 {big_share:.1%}，我们最好的 {ours} 答对 "
              "{ours_share:.1%}；在全部题目上，{big} 能作答 {big_answered:,} 道，"
              "我们最好的模型只能作答 {ours_answered:,} 道。"},
}
