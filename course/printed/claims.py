"""What the claims table's cells say (:mod:`course.claims`), in each edition: each row's measurement and
controls, the reasons a row is not measured, and the pieces they are made of. A row keeps its English sentence
(its JSON, the README) and the key and values it was made from (:class:`course.claims.row.Phrase`), so that the
table is said in the edition it is shown in. The keys start with ``claims``."""

PRINTED: dict[str, dict[str, str]] = {
    # course.claims.row: the verdict of a row that is not measured, and the pieces cells are joined with
    "claims not measured because": {"en": "not measured: {reason}", "zh": "未测量：{reason}"},
    "claims semicolon": {"en": "; ", "zh": "；"},
    "claims comma": {"en": ", ", "zh": "，"},
    "claims and": {"en": " and ", "zh": "和"},
    # course.claims.rules: claims 1-4 (notebooks 06-08)
    "claims lm measurement": {
        "en": "biLM held-out perplexity {forward:,.0f} / {backward:,.0f} (forward / backward); {ratios} the bigram's "
              "(the course's target: at most {target}x)",
        "zh": "双向语言模型的留出困惑度 {forward:,.0f} / {backward:,.0f}（前向 / 后向）；是二元模型的 {ratios}（课程"
              "的目标：至多 {target}x）"},
    "claims lm controls": {
        "en": "interpolated Kneser-Ney bigram {bigram_forward:,.0f} / {bigram_backward:,.0f}, trigram "
              "{trigram_forward:,.0f} / {trigram_backward:,.0f}, on the same split and vocabulary",
        "zh": "插值 Kneser-Ney 二元模型 {bigram_forward:,.0f} / {bigram_backward:,.0f}，三元模型 "
              "{trigram_forward:,.0f} / {trigram_backward:,.0f}，用同样的数据划分和词表"},
    "claims static item": {"en": "{name}: 1-NN {knn:.3f}, separation {separation:+.3f}",
                           "zh": "{name}：1-NN {knn:.3f}，分离度 {separation:+.3f}"},
    "claims static measurement": {"en": "{items} (probe test split, mean over words)",
                                  "zh": "{items}（探针测试集，对各词取平均）"},
    "claims static controls": {
        "en": "chance 1-NN {chances} (every other occurrence equally near), separation 0; margin: the largest "
              "deviation, held to {tolerance:g}",
        "zh": "随机水平 1-NN {chances}（其他每个词元都一样近），分离度 0；差值：最大的偏离，要求不超过 {tolerance:g}"},
    "claims skip-gram": {"en": "skip-gram", "zh": "skip-gram 词向量"},
    "claims one seed": {"en": "{n} seed", "zh": "{n} 个随机种子"},
    "claims seeds": {"en": "{n} seeds", "zh": "{n} 个随机种子"},
    "claims untrained": {"en": "untrained (mean of {seeds})", "zh": "未训练（{seeds}的平均）"},
    "claims static layer 0": {"en": "static (layer 0)", "zh": "静态（第 0 层）"},
    "claims bag of context": {"en": "bag of context ({source})", "zh": "上下文词袋（{source}）"},
    "claims seeds range": {"en": " (seeds: {low:.3f}-{high:.3f})", "zh": "（各随机种子：{low:.3f}-{high:.3f}）"},
    "claims control": {"en": "{name} {value:.3f}{seeds}", "zh": "{name} {value:.3f}{seeds}"},
    "claims strongest untrained": {"en": "untrained", "zh": "未训练"},
    "claims strongest static": {"en": "static", "zh": "静态"},
    "claims strongest bag": {"en": "bag of context", "zh": "上下文词袋"},
    "claims probe test split": {"en": "probe test split", "zh": "探针测试集"},
    "claims sense measurement": {"en": "top layer mean 1-NN sense accuracy {accuracy:.3f} ({test_set})",
                                 "zh": "顶层的平均 1-NN 词义准确率 {accuracy:.3f}（{test_set}）"},
    "claims sense controls": {"en": "{controls}; strongest: {strongest}", "zh": "{controls}；最强的对照：{strongest}"},
    "claims in parentheses": {"en": " ({what})", "zh": "（{what}）"},
    "claims no bag of context": {"en": "not measured: no bag-of-context control{missing}",
                                 "zh": "未测量：没有上下文词袋对照{missing}"},
    "claims no spread over seeds": {
        "en": "not measured: no spread (untrained control over several seeds, or a bootstrap)",
        "zh": "未测量：没有波动（需要未训练对照的多个随机种子，或自助法）"},
    "claims layers measurement": {
        "en": "POS probe accuracy by layer {pos} (peak: layer {pos_peak}, {pos_margin:+.3f} over the next); sense "
              "1-NN by layer {senses} (peak: layer {sense_peak}, {sense_margin:+.3f})",
        "zh": "词性探针各层准确率 {pos}（峰值：第 {pos_peak} 层，比次高的层高 {pos_margin:+.3f}）；各层词义 1-NN "
              "{senses}（峰值：第 {sense_peak} 层，{sense_margin:+.3f}）"},
    "claims layers controls": {
        "en": "each probe's peak against its own next-best layer; spread: POS {pos}, senses {senses}",
        "zh": "每个探针的峰值与它自己次高的层相比；波动：词性 {pos}，词义 {senses}"},
    "claims no spread for the peaks": {
        "en": "not measured: no spread for each probe's peak (a bootstrap over its test sentences)",
        "zh": "未测量：没有每个探针峰值的波动（需要对其测试句子做自助法）"},
    "claims pos measurement": {"en": "POS probe accuracy by layer {layers} (best: layer {best})",
                               "zh": "词性探针各层准确率 {layers}（最好：第 {best} 层）"},
    "claims pos controls": {"en": "most frequent tag of each word {accuracy:.3f}",
                            "zh": "每个词最常见的词性 {accuracy:.3f}"},
    "claims no spread over sentences": {"en": "not measured: no spread (a bootstrap over the test sentences)",
                                        "zh": "未测量：没有波动（需要对测试句子做自助法）"},
    "claims and no": {"en": " and no ", "zh": "，也没有 "},
    # course.claims.experiments: claims 5-7, on the rows notebooks 09-11 save
    "claims no learned or pretrained input": {"en": "the learning curve has no learned input or no pretrained one",
                                              "zh": "学习曲线中没有从头学习的输入，或没有预训练的输入"},
    "claims two numbers of labels": {"en": "the learning curve needs at least two numbers of labels",
                                     "zh": "学习曲线至少需要两种标注数量"},
    "claims gain item": {"en": "{name} {few_gain:+.3f} at {few:,} labels, {most_gain:+.3f} at {most:,}",
                         "zh": "{name}：{few:,} 个标注时 {few_gain:+.3f}，{most:,} 个时 {most_gain:+.3f}"},
    "claims few labels measurement": {"en": "F1 gain over learned embeddings: {shown}",
                                      "zh": "相对从头学习的嵌入的 F1 提升：{shown}"},
    "claims few labels controls": {"en": "learned embeddings, seeds {seeds}, the same labelled sentences per seed",
                                   "zh": "从头学习的嵌入，随机种子 {seeds}，每个种子用同样的标注句子"},
    "claims no elmo or static input": {"en": "the learning curve has no ELMo input or no static one",
                                       "zh": "学习曲线中没有 ELMo 输入，或没有静态词向量输入"},
    "claims contextual measurement": {"en": "ELMo features minus the better of {static}, F1 by labels: {shown}",
                                      "zh": "ELMo 特征减去 {static} 中较好的一个，各标注数量下的 F1：{shown}"},
    "claims contextual controls": {"en": "{static} vectors trained by the course on People's Daily, seeds {seeds}",
                                   "zh": "课程在《人民日报》语料上训练的 {static} 词向量，随机种子 {seeds}"},
    "claims no fine-tuned or feature input": {
        "en": "the learning curve has no fine-tuned or no feature-based ELMo input",
        "zh": "学习曲线中没有微调的 ELMo 输入，或没有作为特征的 ELMo 输入"},
    "claims fine-tuning measurement": {"en": "fine-tuned minus features, F1 by labels: {shown}",
                                       "zh": "微调减去特征，各标注数量下的 F1：{shown}"},
    "claims fine-tuning controls": {"en": "the same biLM frozen, with the same tagger and ScalarMix, seeds {seeds}",
                                    "zh": "同一个双向语言模型保持冻结，用同样的标注器和 ScalarMix，随机种子 {seeds}"},
    "claims no rows of": {"en": "no {names} rows (notebooks 09 and 11 save them)",
                          "zh": "没有 {names} 的行（由笔记本 09 和 11 保存）"},
    "claims never on the same labels": {"en": "the biLM's and BERT's taggers never ran on the same labels",
                                        "zh": "双向语言模型和 BERT 的标注器从未在同样的标注上运行过"},
    "claims no seed ran every input": {"en": "no seed ran every input at {labels:,} labels",
                                       "zh": "在 {labels:,} 个标注下，没有哪个随机种子跑过所有输入"},
    "claims gain measurement": {"en": "BERT's entity F1, fine-tuned minus features, at {labels:,} labels: {gain:+.3f}",
                                "zh": "BERT 的实体 F1，微调减去特征，{labels:,} 个标注时：{gain:+.3f}"},
    "claims gain controls": {"en": "the biLM's gain on the same labels and seeds ({seeds}): {gain:+.3f}",
                             "zh": "双向语言模型在同样的标注和随机种子（{seeds}）上的提升：{gain:+.3f}"},
    "claims comparison lacks": {"en": "the comparison has no {missing} rows", "zh": "比较中没有 {missing} 的行"},
    "claims never on the same number": {"en": "{ulmfit} and {control} never ran on the same number of labels",
                                        "zh": "{ulmfit} 和 {control} 从未在同样数量的标注上运行过"},
    "claims error item": {"en": "{count:,} labels: ULMFiT {ulmfit:.3f}, {control} {error:.3f}",
                          "zh": "{count:,} 个标注：ULMFiT {ulmfit:.3f}，{control} {error:.3f}"},
    "claims ulmfit measurement": {"en": "test error, {errors} (error lower by {lower})",
                                  "zh": "测试错误率，{errors}（错误率低了 {lower}）"},
    "claims ulmfit controls": {"en": "{controls}, seeds {seeds}, the same labelled reviews per seed",
                               "zh": "{controls}，随机种子 {seeds}，每个种子用同样的标注评论"},
    "claims ulmfit from scratch": {"en": "the same network from random weights (rate 0.003, chosen on dev)",
                                   "zh": "同一个网络从随机权重开始训练（学习率 0.003，在验证集上选定）"},
    "claims ulmfit no stage 2": {"en": "the general LM fine-tuned as a classifier directly (no stage 2)",
                                 "zh": "通用语言模型直接作为分类器微调（没有阶段 2）"},
    "claims ulmfit elmo features": {
        "en": "the fine-tuned biLM's three layers frozen, mixed by ScalarMix, under the same head",
        "zh": "微调后的双向语言模型的三层保持冻结，由 ScalarMix 混合，接同样的分类头"},
    "claims ulmfit bag of words": {"en": "logistic regression on word counts (scikit-learn)",
                                   "zh": "基于词频的逻辑回归（scikit-learn）"},
    "claims no timed steps": {"en": "no timed steps of the two bodies on one thread",
                              "zh": "没有两个模型主体在单线程上计时的训练步"},
    "claims speed whole": {"en": "; whole LMs (adaptive against full softmax): {shown}",
                           "zh": "；完整的语言模型（自适应 softmax 对完整 softmax）：{shown}"},
    "claims speed measurement": {
        "en": "Transformer / LSTM training tokens/s by words per sentence, bodies on one CPU thread: {shown}{whole}",
        "zh": "Transformer / LSTM 每秒训练的词元数（按每句词数），模型主体在单个 CPU 线程上：{shown}{whole}"},
    "claims speed controls": {
        "en": "the cpu biLM (char-CNN, 2 projected LSTM layers each way) against a causal Transformer of about as "
              "many weights (d_model 192, 4 blocks), the same batches of equal-length sentences, median over repeats",
        "zh": "cpu 配置的双向语言模型（字符 CNN，每个方向 2 层带投影的 LSTM）对比权重数相当的因果 Transformer（"
              "d_model 192，4 个块），用同样的等长句子批次，取多次重复的中位数"},
    "claims blanks not answered": {"en": "the blanks were not answered by BERT and by GPT or CBOW",
                                   "zh": "这些填空没有同时由 BERT 以及 GPT 或 CBOW 回答"},
    "claims blanks measurement": {"en": "BERT's accuracy@5 on {blanks:,} blanked held-out words {accuracy:.3f}",
                                  "zh": "BERT 在 {blanks:,} 个被遮住的留出词上的 accuracy@5 为 {accuracy:.3f}"},
    "claims blanks controls": {
        "en": "{controls} (GPT: the left side only; CBOW: a bag of 5 words each side); strongest: {strongest}",
        "zh": "{controls}（GPT：只看左边；CBOW：两边各 5 个词的词袋）；最强的对照：{strongest}"},
    # course.claims.measurements: the rows measured on a build's models
    "claims the bilm by layer": {"en": " (the biLM: {layers})", "zh": "（双向语言模型：{layers}）"},
    "claims by layer": {"en": "{measurement}; by layer {layers}{bilm}", "zh": "{measurement}；各层 {layers}{bilm}"},
    "claims sense test set": {"en": "{file} test split, {words} words, {sentences} sentences; layer {layer}",
                              "zh": "{file} 测试集，{words} 个词，{sentences} 个句子；第 {layer} 层"},
    "claims no chinese sense probe": {
        "en": "no sense probe on the Chinese probe file's test split (see the sense claim's row)",
        "zh": "中文探针文件的测试集上没有词义探针（见词义论断那一行）"},
    "claims bilm layer-0 vectors": {"en": "the biLM's layer-0 vectors", "zh": "双向语言模型第 0 层的向量"},
    "claims unreadable skip-gram": {"en": "{path} cannot be read (cut short?): run notebook 02 again",
                                    "zh": "{path} 无法读取（文件不完整？）：请重新运行笔记本 02"},
    "claims no skip-gram": {"en": "no {path}: run make course{smoke} (notebook 02 saves it)",
                            "zh": "没有 {path}：请运行 make course{smoke}（由笔记本 02 保存）"},
    "claims static skip-gram": {"en": "skip-gram ({corpus})", "zh": "skip-gram 词向量（{corpus}）"},
    "claims static bilm layer 0": {"en": "biLM layer 0 ({corpus})", "zh": "双向语言模型第 0 层（{corpus}）"},
    "claims given bilm": {
        "en": "no {path}: the biLM {given} stands in for it, trained on other text than the bigram's, so there is no "
              "like-for-like comparison with counting",
        "zh": "没有 {path}：由双向语言模型 {given} 代替它，但它是在与二元模型不同的文本上训练的，所以无法与计数模型作"
              "同等条件的比较"},
    "claims nothing to probe": {"en": "no biLM and no skip-gram vectors to probe (see the rows above)",
                                "zh": "既没有双向语言模型，也没有 skip-gram 词向量可供探测（见上面几行）"},
    "claims run": {"en": "run {command}", "zh": "请运行 {command}"},
    "claims no english probes or bilm": {
        "en": "the English probe sentences or the course's biLM are missing (see its row)",
        "zh": "缺少英文探针句子或课程的双向语言模型（见它那一行）"},
    "claims margin part": {"en": "; margin {margin:+.3f}", "zh": "；差值 {margin:+.3f}"},
    "claims at scale cell": {"en": "{verdict} (ELMo {name}: {measurement}{margin})",
                             "zh": "{verdict}（ELMo {name}：{measurement}{margin}）"},
}
