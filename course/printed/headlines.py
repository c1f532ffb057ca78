"""The names of the headline numbers the notebooks show (:func:`course.teaching.report.headline`), in each edition.
A notebook's code cell names a headline in English, the same in both editions; each key is ``headline`` and the
English name, whose ``{fields}`` stand for the parts a code cell fills in (a corpus, a count), so that the name
is found whatever they are and said with them in the edition's words. The English name stays the headline's key
in the index; the notebook shows the edition's."""

PRINTED: dict[str, dict[str, str]] = {
    # how a headline is shown, and the units that are words
    "headline shown markdown": {"en": "**{name}:** {value}", "zh": "**{name}：** {value}"},
    "headline shown plain": {"en": "{name}: {value}", "zh": "{name}：{value}"},
    "headline unit s": {"en": "s", "zh": "秒"},
    "headline unit bits": {"en": "bits", "zh": "比特"},
    # notebooks 00-01
    "headline Tokens in wiki-en": {"en": "Tokens in wiki-en", "zh": "wiki-en 的词元数"},
    "headline Tokens in People's Daily": {"en": "Tokens in People's Daily", "zh": "《人民日报》语料的词元数"},
    "headline Zipf slope, {corpus}": {"en": "Zipf slope, {corpus}", "zh": "齐普夫斜率，{corpus}"},
    "headline Vocabulary at min_count 5, {corpus}": {"en": "Vocabulary at min_count 5, {corpus}",
                                                     "zh": "min_count 为 5 时的词表大小，{corpus}"},
    "headline Non-zero entries in a one-hot vector": {"en": "Non-zero entries in a one-hot vector",
                                                      "zh": "独热向量中非零元素的比例"},
    "headline Non-zero cells in the co-occurrence matrix": {"en": "Non-zero cells in the co-occurrence matrix",
                                                            "zh": "共现矩阵中非零单元的比例"},
    "headline WordSim-353 Spearman, count + SVD": {"en": "WordSim-353 Spearman, count + SVD",
                                                   "zh": "WordSim-353 上的 Spearman 相关系数，计数 + SVD"},
    "headline Google analogies, 3CosAdd accuracy, count + SVD": {
        "en": "Google analogies, 3CosAdd accuracy, count + SVD",
        "zh": "Google 类比题，3CosAdd 准确率，计数 + SVD"},
    "headline Google analogies answered (coverage)": {"en": "Google analogies answered (coverage)",
                                                      "zh": "能作答的 Google 类比题（覆盖率）"},
    # notebooks 02-05
    "headline Negative sampling (k = 5) vs full softmax, speed-up per pair": {
        "en": "Negative sampling (k = 5) vs full softmax, speed-up per pair",
        "zh": "负采样（k = 5）相对完整 softmax，每个词对的加速比"},
    "headline Tokens dropped per pass by subsampling (sample = 1e-3)": {
        "en": "Tokens dropped per pass by subsampling (sample = 1e-3)",
        "zh": "每轮被下采样丢弃的词元比例（sample = 1e-3）"},
    "headline Training time, our skip-gram": {"en": "Training time, our skip-gram", "zh": "训练时间，我们的跳字模型"},
    "headline WordSim-353 Spearman, our skip-gram": {"en": "WordSim-353 Spearman, our skip-gram",
                                                     "zh": "WordSim-353 上的 Spearman 相关系数，我们的跳字模型"},
    "headline WordSim-353 Spearman, gensim skip-gram": {"en": "WordSim-353 Spearman, gensim skip-gram",
                                                        "zh": "WordSim-353 上的 Spearman 相关系数，gensim 的跳字模型"},
    "headline Google analogies, 3CosAdd, our skip-gram": {"en": "Google analogies, 3CosAdd, our skip-gram",
                                                          "zh": "Google 类比题，3CosAdd，我们的跳字模型"},
    "headline Mean Huffman code length (weighted by counts)": {"en": "Mean Huffman code length (weighted by counts)",
                                                               "zh": "霍夫曼编码的平均长度（按频次加权）"},
    "headline Entropy of the unigram distribution": {"en": "Entropy of the unigram distribution", "zh": "一元分布的熵"},
    "headline Full softmax / hierarchical softmax, time per example at |V| = {size}": {
        "en": "Full softmax / hierarchical softmax, time per example at |V| = {size}",
        "zh": "完整 softmax / 层序 softmax，|V| = {size} 时每个样本的用时之比"},
    "headline WordSim-353 Spearman, our CBOW-HS": {"en": "WordSim-353 Spearman, our CBOW-HS",
                                                   "zh": "WordSim-353 上的 Spearman 相关系数，我们的 CBOW-HS"},
    "headline WordSim-353 Spearman, gensim CBOW-HS": {"en": "WordSim-353 Spearman, gensim CBOW-HS",
                                                      "zh": "WordSim-353 上的 Spearman 相关系数，gensim 的 CBOW-HS"},
    "headline WordSim-353 Spearman, our skip-gram-HS": {
        "en": "WordSim-353 Spearman, our skip-gram-HS",
        "zh": "WordSim-353 上的 Spearman 相关系数，我们的层序 softmax 跳字模型"},
    "headline Training time, our CBOW-HS": {"en": "Training time, our CBOW-HS", "zh": "训练时间，我们的 CBOW-HS"},
    "headline Held-out tokens outside a min_count-5 word vocabulary": {
        "en": "Held-out tokens outside a min_count-5 word vocabulary",
        "zh": "留出词元中不在 min_count 为 5 的词表里的比例"},
    "headline BPE pieces per held-out word after {merges} merges": {
        "en": "BPE pieces per held-out word after {merges} merges",
        "zh": "{merges} 次合并后每个留出词的 BPE 片段数"},
    "headline Held-out tokens never seen, jieba words": {"en": "Held-out tokens never seen, jieba words",
                                                         "zh": "留出词元中从未见过的比例，jieba 分词"},
    "headline Held-out tokens never seen, single characters": {"en": "Held-out tokens never seen, single characters",
                                                               "zh": "留出词元中从未见过的比例，单个汉字"},
    "headline Non-zero co-occurrence entries (window 15)": {"en": "Non-zero co-occurrence entries (window 15)",
                                                            "zh": "非零的共现条目数（窗口 15）"},
    "headline Training time, our GloVe": {"en": "Training time, our GloVe", "zh": "训练时间，我们的 GloVe"},
    "headline Correlation of counted and modelled log ratios ({first}/{second})": {
        "en": "Correlation of counted and modelled log ratios ({first}/{second})",
        "zh": "计数得到的与模型给出的对数比之间的相关系数（{first}/{second}）"},
    "headline WordSim-353 Spearman, our GloVe": {"en": "WordSim-353 Spearman, our GloVe",
                                                 "zh": "WordSim-353 上的 Spearman 相关系数，我们的 GloVe"},
    "headline SimLex-999 Spearman, our GloVe": {"en": "SimLex-999 Spearman, our GloVe",
                                                "zh": "SimLex-999 上的 Spearman 相关系数，我们的 GloVe"},
    "headline Google analogies, 3CosAdd, our GloVe": {"en": "Google analogies, 3CosAdd, our GloVe",
                                                      "zh": "Google 类比题，3CosAdd，我们的 GloVe"},
    "headline Google analogies, 3CosAdd, best of five models": {"en": "Google analogies, 3CosAdd, best of five models",
                                                                "zh": "Google 类比题，3CosAdd，五个模型中最好的"},
    "headline Google analogies correct (% of all questions), gensim skip-gram on {source}": {
        "en": "Google analogies correct (% of all questions), gensim skip-gram on {source}",
        "zh": "Google 类比题答对的比例（占全部题目），{source} 上的 gensim 跳字模型"},
    # notebooks 06-11
    "headline Held-out perplexity, forward LM (wiki-en)": {"en": "Held-out perplexity, forward LM (wiki-en)",
                                                           "zh": "留出困惑度，前向语言模型（wiki-en）"},
    "headline Held-out perplexity, backward LM (wiki-en)": {"en": "Held-out perplexity, backward LM (wiki-en)",
                                                            "zh": "留出困惑度，后向语言模型（wiki-en）"},
    "headline Held-out perplexity, Kneser-Ney bigram (wiki-en)": {
        "en": "Held-out perplexity, Kneser-Ney bigram (wiki-en)",
        "zh": "留出困惑度，Kneser-Ney 二元模型（wiki-en）"},
    "headline Held-out perplexity, Kneser-Ney trigram (wiki-en)": {
        "en": "Held-out perplexity, Kneser-Ney trigram (wiki-en)",
        "zh": "留出困惑度，Kneser-Ney 三元模型（wiki-en）"},
    "headline Sense 1-NN accuracy, ELMo top layer (wiki-en test, mean of {words} words)": {
        "en": "Sense 1-NN accuracy, ELMo top layer (wiki-en test, mean of {words} words)",
        "zh": "词义 1-NN 准确率，ELMo 顶层（wiki-en 测试集，{words} 个词的平均）"},
    "headline Sense 1-NN accuracy, same biLM untrained, top layer": {
        "en": "Sense 1-NN accuracy, same biLM untrained, top layer",
        "zh": "词义 1-NN 准确率，同一个双向语言模型未经训练，顶层"},
    "headline Sense 1-NN accuracy, bag of context (skip-gram vectors of the other words)": {
        "en": "Sense 1-NN accuracy, bag of context (skip-gram vectors of the other words)",
        "zh": "词义 1-NN 准确率，上下文词袋（其他词的 skip-gram 词向量）"},
    "headline Sense 1-NN accuracy for 包袱 (three senses), top layer (People's Daily test)": {
        "en": "Sense 1-NN accuracy for 包袱 (three senses), top layer (People's Daily test)",
        "zh": "“包袱”（三个词义）的词义 1-NN 准确率，顶层（《人民日报》测试集）"},
    "headline ELMo layer chosen on the dev sentences (wiki-en)": {
        "en": "ELMo layer chosen on the dev sentences (wiki-en)",
        "zh": "在验证集句子上选出的 ELMo 层（wiki-en）"},
    "headline Sense 1-NN accuracy of that layer (wiki-en test)": {
        "en": "Sense 1-NN accuracy of that layer (wiki-en test)",
        "zh": "这一层的词义 1-NN 准确率（wiki-en 测试集）"},
    "headline POS probe, best layer on dev (People's Daily)": {"en": "POS probe, best layer on dev (People's Daily)",
                                                               "zh": "词性探针，验证集上最好的层（《人民日报》）"},
    "headline POS probe accuracy of that layer on test": {"en": "POS probe accuracy of that layer on test",
                                                          "zh": "这一层的词性探针在测试集上的准确率"},
    "headline POS most-frequent-tag baseline on test": {"en": "POS most-frequent-tag baseline on test",
                                                        "zh": "“最常见词性”基线在测试集上的准确率"},
    "headline POS probe on unseen words, that layer / baseline": {
        "en": "POS probe on unseen words, that layer / baseline",
        "zh": "未见过的词上的词性探针，这一层 / 基线"},
    "headline Sense probe, best layer on dev (People's Daily biLM)": {
        "en": "Sense probe, best layer on dev (People's Daily biLM)",
        "zh": "词义探针，验证集上最好的层（《人民日报》双向语言模型）"},
    "headline Sense probe, best layer on dev (wiki-en biLM)": {
        "en": "Sense probe, best layer on dev (wiki-en biLM)",
        "zh": "词义探针，验证集上最好的层（wiki-en 双向语言模型）"},
    "headline ScalarMix weights, POS task": {"en": "ScalarMix weights, POS task", "zh": "ScalarMix 权重，词性任务"},
    "headline ScalarMix weights, sense task": {"en": "ScalarMix weights, sense task", "zh": "ScalarMix 权重，词义任务"},
    "headline NER F1, {name}, {labels} labels": {"en": "NER F1, {name}, {labels} labels",
                                                 "zh": "命名实体识别 F1，{name}，{labels} 个标注句子"},
    "headline NER ScalarMix weights": {"en": "NER ScalarMix weights", "zh": "命名实体识别的 ScalarMix 权重"},
    "headline NER F1, ELMo at the output as well minus at the input only": {
        "en": "NER F1, ELMo at the output as well minus at the input only",
        "zh": "命名实体识别 F1，输出端也加 ELMo 减去只在输入端加"},
    "headline Held-out perplexity, GPT (wiki-en)": {"en": "Held-out perplexity, GPT (wiki-en)",
                                                    "zh": "留出困惑度，GPT（wiki-en）"},
    "headline Held-out perplexity, BERT masked positions (wiki-en; not comparable)": {
        "en": "Held-out perplexity, BERT masked positions (wiki-en; not comparable)",
        "zh": "留出困惑度，BERT 被遮住的位置（wiki-en；不可直接比较）"},
}
