"""What notebooks 00-01 (corpora, one-hot and count vectors) print, in each edition."""

PRINTED: dict[str, dict[str, str]] = {
    # notebook 00, the corpora (and every notebook's first cell)
    "00 name": {"en": "name", "zh": "名称"},
    "00 language": {"en": "language", "zh": "语言"},
    "00 offline": {"en": "offline", "zh": "离线可用"},
    "00 yes": {"en": "yes", "zh": "是"},
    "00 download": {"en": "download", "zh": "需下载"},
    "00 wiki column": {"en": "wiki-en (English)", "zh": "wiki-en（英文）"},
    "00 daily column": {"en": "peoples-daily-zh (Chinese)", "zh": "peoples-daily-zh（中文）"},
    "00 every token new": {"en": "V = N (every token a new type)", "zh": "V = N（每个词元都是新词型）"},
    "00 tokens read": {"en": "tokens read, N", "zh": "已读词元数 N"},
    "00 types seen": {"en": "types seen, V(N)", "zh": "见到的词型数 V(N)"},
    "00 heaps title": {"en": "Vocabulary growth (Heaps' law)", "zh": "词表的增长（Heaps 定律）"},
    "00 zipf title": {
        "en": "Zipf's law: frequency against rank (log–log)",
        "zh": "齐普夫定律：频次与排名（双对数坐标）"},
    "00 rank times count": {"en": "rank × count", "zh": "排名 × 频次"},
    "00 top types cover": {
        "en": "{corpus:17}  the 100 most frequent types cover {cover:.0%} of the tokens; {once:.0%} of the types "
              "occur exactly once",
        "zh": "{corpus:17}  最常见的 100 个词型覆盖了 {cover:.0%} 的词元；{once:.0%} 的词型只出现一次"},
    "00 types kept": {
        "en": "{name}: {words:,} of {types:,} types kept ({share:.0%}), covering {coverage:.1%} of the tokens",
        "zh": "{name}：{types:,} 个词型中保留了 {words:,} 个（{share:.0%}），覆盖 {coverage:.1%} 的词元"},
    "00 special ids": {"en": "ids of <pad>, <unk>, <bos>, <eos>:", "zh": "<pad>、<unk>、<bos>、<eos> 的编号："},
    "00 first counts": {"en": "counts of the first {n} entries:", "zh": "前 {n} 个条目的频次："},
    "00 oov rate": {"en": "OOV rate on the last 10 %", "zh": "最后 10% 上的未登录词率"},
    "00 measured": {"en": "{corpus}: measured", "zh": "{corpus}：实测"},
    "00 predicted": {"en": "{corpus}: predicted", "zh": "{corpus}：预测"},
    "00 baofu count": {
        "en": "包袱 is a token {n} times; words containing it:",
        "zh": "包袱 作为词元出现了 {n} 次；含有它的词："},
    "00 tag": {"en": "tag", "zh": "词性标记"},
    "00 meaning": {"en": "meaning", "zh": "含义"},
    "00 tokens": {"en": "tokens", "zh": "词元数"},
    "00 share": {"en": "share", "zh": "占比"},
    "00 segmentation scores": {
        "en": "first {n:,} sentences: precision {precision:.1%}, recall {recall:.1%}, identical sentences "
              "{identical:.1%}",
        "zh": "前 {n:,} 个句子：精确率 {precision:.1%}，召回率 {recall:.1%}，完全相同的句子 {identical:.1%}"},
    "00 in vocabulary": {"en": "in the vocabulary (min_count 5)", "zh": "在词表中（min_count 5）"},
    "00 what it is": {"en": "what it is", "zh": "简介"},
    "00 profile": {"en": "profile: {profile}", "zh": "配置：{profile}"},
    # notebook 01, from one-hot to embeddings
    "01 id": {"en": "id (position of the 1)", "zh": "编号（1 所在的位置）"},
    "01 entries": {"en": "entries", "zh": "元素个数"},
    "01 ones": {"en": "ones", "zh": "1 的个数"},
    "01 zeros": {"en": "zeros", "zh": "0 的个数"},
    "01 one-hot dot products": {"en": "Dot products of one-hot vectors", "zh": "独热向量的点积"},
    "01 distances": {"en": "all distances between different words:", "zh": "不同词之间的所有距离："},
    "01 dense size": {
        "en": "dense:  {size:,} x {size:,} x 4 bytes = {mib:,.1f} MiB",
        "zh": "稠密：{size:,} x {size:,} x 4 字节 = {mib:,.1f} MiB"},
    "01 sparse size": {"en": "sparse: {kib:,.1f} KiB", "zh": "稀疏：{kib:,.1f} KiB"},
    "01 in vocabulary": {"en": "is '{word}' in the vocabulary?", "zh": "“{word}”在词表中吗？"},
    "01 hand-made similarity": {
        "en": "Cosine similarity of hand-made feature vectors",
        "zh": "手工特征向量的余弦相似度"},
    "01 difference": {"en": "difference", "zh": "差值"},
    "01 matrix size": {
        "en": "{rows:,} x {cols:,} matrix, {nnz:,} non-zero cells",
        "zh": "{rows:,} x {cols:,} 的矩阵，{nnz:,} 个非零格子"},
    "01 frequent neighbours": {
        "en": "most frequent neighbours within 5 words (weighted count)",
        "zh": "5 个词以内最常见的邻居（加权计数）"},
    "01 counts title": {
        "en": "Co-occurrence counts (window 5, weights 1/distance)",
        "zh": "共现计数（窗口 5，权重 1/距离）"},
    "01 tile density": {"en": "non-zero cells in the tile (%)", "zh": "小块中非零格子的比例（%）"},
    "01 context rank": {"en": "context word (rank by frequency)", "zh": "上下文词（按频次排名）"},
    "01 word rank": {"en": "word (rank by frequency)", "zh": "词（按频次排名）"},
    "01 nonzero title": {"en": "Non-zero cells of the co-occurrence matrix", "zh": "共现矩阵的非零格子"},
    "01 counts": {"en": "counts", "zh": "计数"},
    "01 by count": {"en": "strongest contexts by count", "zh": "按计数最强的上下文"},
    "01 by ppmi": {"en": "strongest contexts by PPMI", "zh": "按 PPMI 最强的上下文"},
    "01 same vectors": {"en": "count_vectors gives the same vectors:", "zh": "count_vectors 给出的向量相同："},
    "01 representation": {"en": "representation", "zh": "表示方法"},
    "01 numbers per word": {"en": "numbers per word", "zh": "每个词的数值个数"},
    "01 nonzero cells": {"en": "non-zero cells", "zh": "非零格子数"},
    "01 memory": {"en": "memory (KiB)", "zh": "内存（KiB）"},
    "01 one-hot sparse": {"en": "one-hot (sparse)", "zh": "独热（稀疏）"},
    "01 counts sparse": {"en": "co-occurrence counts (sparse)", "zh": "共现计数（稀疏）"},
    "01 ppmi sparse": {"en": "PPMI (sparse)", "zh": "PPMI（稀疏）"},
    "01 svd dense": {"en": "SVD vectors (dense, k = {k})", "zh": "SVD 向量（稠密，k = {k}）"},
    "01 svd similarity": {"en": "Cosine similarity, count + SVD vectors", "zh": "余弦相似度：count + SVD 向量"},
    "01 tsne title": {"en": "t-SNE of {n} count + SVD vectors", "zh": "{n} 个 count + SVD 向量的 t-SNE"},
    "01 daily sizes": {
        "en": "{corpus:17} {tokens:>9,} tokens, {words:>6,} words, {nnz:>10,} non-zero co-occurrence cells "
              "({share:.2%})",
        "zh": "{corpus:17} {tokens:>9,} 个词元，{words:>6,} 个词，{nnz:>10,} 个非零共现格子（{share:.2%}）"},
    "01 daily seconds": {
        "en": "counts, PPMI and SVD of {corpus}: {seconds:.1f} s",
        "zh": "{corpus} 的计数、PPMI 和 SVD：用时 {seconds:.1f} 秒"},
    "01 neighbours in": {"en": "nearest neighbours in {corpus}", "zh": "{corpus} 中的最近邻"},
    "01 not in vocabulary": {"en": "not in the vocabulary", "zh": "不在词表中"},
    "01 analogy set": {"en": "analogy questions", "zh": "类比题"},
    "01 analogy accuracy": {"en": "3CosAdd accuracy", "zh": "3CosAdd 准确率"},
    "01 word pairs": {"en": "word pairs, Spearman ρ", "zh": "词对，Spearman ρ"},
}
