"""What the graded checks (:mod:`course.teaching.checks`) say, in each edition: the line of a check that
passes, and the sentences of one that fails (what was passed, what was expected, where the answers differ
most). The keys start with ``check``; the formulas and code names in them are the same in both editions."""

PRINTED: dict[str, dict[str, str]] = {
    # course.teaching.checks.harness: the pieces every check's messages are made of
    "check with": {"en": "{message} (with {where}).", "zh": "{message}（输入：{where}）。"},
    "check right": {"en": "Right: {message}", "zh": "正确：{message}"},
    "check takes a function": {
        "en": "check_{name} takes your function itself, e.g. check_{name}({name}); got {got}",
        "zh": "check_{name} 接受的是你的函数本身，例如 check_{name}({name})；实际传入的是 {got}"},
    "check trials": {"en": "trials must be a whole number of at least 1, got {trials!r}",
                     "zh": "trials 必须是不小于 1 的整数，实际为 {trials!r}"},
    "check raised": {"en": "Your function raised {error}: {detail} on inputs of shape {shapes}.",
                     "zh": "输入的形状为 {shapes} 时，你的函数抛出了 {error}：{detail}。"},
    "check described shape": {"en": "{kind} of shape {shape}", "zh": "形状为 {shape} 的 {kind}"},
    "check described items": {"en": "a {kind} of {n} items", "zh": "含 {n} 项的 {kind}"},
    "check not numbers": {"en": "{name} should be an array of numbers, got {got} ({error})",
                          "zh": "{name}应当是数值数组，实际得到 {got}（{error}）"},
    "check wrong shape": {"en": "{name} should have shape {wanted}, got {shape}{hint}",
                          "zh": "{name}的形状应为 {wanted}，实际为 {shape}{hint}"},
    "check not finite": {"en": "{name} contains nan or inf", "zh": "{name}中含有 nan 或 inf"},
    "check not one number": {"en": "{name} should be one number, got {got} ({error})",
                             "zh": "{name}应当是一个数，实际得到 {got}（{error}）"},
    "check not one number shape": {"en": "{name} should be one number, got an array of shape {shape}",
                                   "zh": "{name}应当是一个数，实际得到形状为 {shape} 的数组"},
    "check number is": {"en": "{name} is {number}", "zh": "{name}为 {number}"},
    "check span": {"en": "{low} to {high}", "zh": "{low} 到 {high}"},
    "check worst": {"en": "the largest difference is {difference:.3g} at index {at}",
                    "zh": "差异最大处在下标 {at}，相差 {difference:.3g}"},
    "check the result": {"en": "The result", "zh": "返回值"},
    "check the loss": {"en": "The loss", "zh": "损失"},
    # counts of things, singular and plural (Chinese has one form)
    "check count word": {"en": "{n} word", "zh": "{n} 个词"},
    "check count words": {"en": "{n} words", "zh": "{n} 个词"},
    "check count type": {"en": "{n} type", "zh": "{n} 个词型"},
    "check count types": {"en": "{n} types", "zh": "{n} 个词型"},
    "check count sentence": {"en": "{n} sentence", "zh": "{n} 个句子"},
    "check count sentences": {"en": "{n} sentences", "zh": "{n} 个句子"},
    "check count held-out sentence": {"en": "{n} held-out sentence", "zh": "{n} 个留出句子"},
    "check count held-out sentences": {"en": "{n} held-out sentences", "zh": "{n} 个留出句子"},
    "check count character": {"en": "{n} character", "zh": "{n} 个字符"},
    "check count characters": {"en": "{n} characters", "zh": "{n} 个字符"},
    "check count position": {"en": "{n} position", "zh": "{n} 个位置"},
    "check count positions": {"en": "{n} positions", "zh": "{n} 个位置"},
    "check count filter": {"en": "{n} filter", "zh": "{n} 个卷积核"},
    "check count filters": {"en": "{n} filters", "zh": "{n} 个卷积核"},
    "check count real word": {"en": "{n} real word", "zh": "{n} 个真实的词"},
    "check count real words": {"en": "{n} real words", "zh": "{n} 个真实的词"},
    "check count occurrence": {"en": "{n} occurrence", "zh": "{n} 个词元"},
    "check count occurrences": {"en": "{n} occurrences", "zh": "{n} 个词元"},
    "check count input": {"en": "{n} input", "zh": "{n} 组输入"},
    "check count inputs": {"en": "{n} inputs", "zh": "{n} 组输入"},
    "check got expected": {"en": "got {got:.6g}, expected {expected:.6g}",
                           "zh": "实际为 {got:.6g}，应为 {expected:.6g}"},
    "check and also": {"en": "{first}; and {second}", "zh": "{first}；另外，{second}"},
    "check dict of words": {"en": "a dict of {n} words", "zh": "含 {n} 个词的 dict"},
    # course.teaching.checks.word2vec: the negative-sampling loss and its gradients (notebook 02)
    "check ns returns": {
        "en": "Your function should return a tuple (loss, grad_center, grad_context, grad_noise) of 4 items, got "
              "{got}",
        "zh": "你的函数应当返回含 4 项的元组 (loss, grad_center, grad_context, grad_noise)，实际返回的是 {got}"},
    "check ns right": {
        "en": "the loss and its three gradients match on {trials} random inputs (d from {d}, k from {k}).",
        "zh": "在 {trials} 组随机输入上（d 取 {d}，k 取 {k}），损失及其三个梯度都与参考实现一致。"},
    "check ns all signs": {
        "en": "All three gradients have the wrong sign: they point uphill, the direction of gradient ascent; return "
              "d loss / d v_c, d loss / d u_o and d loss / d u_k (the update subtracts them)",
        "zh": "三个梯度的符号都反了：它们指向上坡，即梯度上升的方向；应返回 d loss / d v_c、d loss / d u_o 和 d loss "
              "/ d u_k（更新时减去它们）"},
    "check ns swapped": {
        "en": "grad_center and grad_context are swapped: grad_center is d loss / d v_c, the derivative with respect "
              "to the centre word's input vector",
        "zh": "grad_center 与 grad_context 弄反了：grad_center 是 d loss / d v_c，即损失对中心词输入向量的导数"},
    "check ns sign": {
        "en": "grad_{name} has the wrong sign: it is -d loss / d {symbol}, the direction of gradient ascent; return "
              "the gradient itself",
        "zh": "grad_{name} 的符号反了：它是 -d loss / d {symbol}，即梯度上升的方向；应返回梯度本身"},
    "check ns center noise": {
        "en": "grad_center is missing the noise words' part: every noise term -log σ(-u_k·v_c) depends on v_c too",
        "zh": "grad_center 缺少噪声词的部分：每个噪声项 -log σ(-u_k·v_c) 也依赖于 v_c"},
    "check ns center true": {"en": "grad_center is missing the true context word's part, from -log σ(u_o·v_c)",
                             "zh": "grad_center 缺少真实上下文词的部分，即来自 -log σ(u_o·v_c) 的那一项"},
    "check ns context sigma": {"en": "grad_context is off by v_c: the derivative of -log σ(x) is σ(x) - 1, not σ(x)",
                               "zh": "grad_context 差了一个 v_c：-log σ(x) 的导数是 σ(x) - 1，不是 σ(x)"},
    "check ns noise sigma": {
        "en": "grad_noise treats the noise words like the true word: the derivative of -log σ(-x) with respect to x "
              "is σ(x), not σ(x) - 1",
        "zh": "grad_noise 把噪声词当成了真实的上下文词：-log σ(-x) 对 x 的导数是 σ(x)，不是 σ(x) - 1"},
    "check ns gradient": {
        "en": "grad_{name} does not match the gradient of the loss with respect to {symbol}: {worst}; compare it "
              "with finite differences",
        "zh": "grad_{name} 与损失对 {symbol} 的梯度不符：{worst}；请用有限差分对照检查"},
    "check ns loss sign": {
        "en": "The loss has the wrong sign: -log σ(u_o·v_c) - Σ_k log σ(-u_k·v_c) is a positive number to minimise "
              "({got})",
        "zh": "损失的符号反了：-log σ(u_o·v_c) - Σ_k log σ(-u_k·v_c) 是一个要最小化的正数（{got}）"},
    "check ns loss noise term": {"en": "The loss is missing the noise term -Σ_k log σ(-u_k·v_c) ({got})",
                                 "zh": "损失缺少噪声项 -Σ_k log σ(-u_k·v_c)（{got}）"},
    "check ns loss noise sign": {
        "en": "The noise term has the wrong sign inside σ: each noise word adds -log σ(-u_k·v_c), not -log "
              "σ(u_k·v_c) ({got})",
        "zh": "噪声项中 σ 里面的符号反了：每个噪声词贡献的是 -log σ(-u_k·v_c)，而不是 -log σ(u_k·v_c)（{got}）"},
    "check ns loss true term": {"en": "The loss is missing the true context word's term -log σ(u_o·v_c) ({got})",
                                "zh": "损失缺少真实上下文词的项 -log σ(u_o·v_c)（{got}）"},
    "check ns loss noise mean": {"en": "The loss averages the k noise terms; it sums them ({got})",
                                 "zh": "损失对 k 个噪声项取了平均；应当求和（{got}）"},
    "check ns loss wrong": {"en": "The loss is wrong: {got}; it is -log σ(u_o·v_c) - Σ_k log σ(-u_k·v_c)",
                            "zh": "损失不对：{got}；它应为 -log σ(u_o·v_c) - Σ_k log σ(-u_k·v_c)"},
    # the noise distribution (notebook 02)
    "check noise right": {
        "en": "the noise distribution matches count^(3/4) / Σ count^(3/4) on {trials} random inputs (V from {span} "
              "words).",
        "zh": "在 {trials} 组随机输入上（V 取 {span} 个词），噪声分布都与 count^(3/4) / Σ count^(3/4) 一致。"},
    "check noise differs": {"en": "The probabilities differ from count^(3/4) / Σ count^(3/4): {worst}",
                            "zh": "概率与 count^(3/4) / Σ count^(3/4) 不符：{worst}"},
    "check noise negative": {"en": "Some probabilities are negative", "zh": "有些概率是负的"},
    "check noise sum": {"en": "they sum to {total:.6g}, not 1: divide by their sum",
                        "zh": "它们的和为 {total:.6g}，不是 1：应除以它们的和"},
    "check noise unigram": {
        "en": "The 3/4 power is missing: this is the plain unigram distribution count / total; word2vec draws noise "
              "words with probability proportional to count^(3/4)",
        "zh": "缺少 3/4 次方：这是普通的一元分布 count / total；word2vec 抽取噪声词的概率与 count^(3/4) 成正比"},
    "check noise uniform": {
        "en": "Every word gets the same probability; word2vec's noise distribution is proportional to count^(3/4)",
        "zh": "每个词的概率都一样；word2vec 的噪声分布与 count^(3/4) 成正比"},
    "check noise power": {"en": "The counts are raised to the power {power:.4g} instead of 3/4",
                          "zh": "频次被取了 {power:.4g} 次方，而不是 3/4 次方"},
    "check noise not normalised": {"en": "The probabilities are not normalised: {why}", "zh": "概率没有归一化：{why}"},
    # the keep probabilities of subsampling (notebook 02)
    "check keep shapes": {"en": "counts {shape}, sample a float", "zh": "counts {shape}，sample 为浮点数"},
    "check keep right": {
        "en": "the keep probabilities match word2vec.c's min(1, (sqrt(f/t) + 1)·t/f) on {trials} random inputs (V "
              "from {span} words).",
        "zh": "在 {trials} 组随机输入上（V 取 {span} 个词），保留概率都与 word2vec.c 的 min(1, (sqrt(f/t) + 1)·t/f) "
              "一致。"},
    "check keep uncapped": {
        "en": "are not capped at 1: for rare words (sqrt(f/t) + 1)·t/f is above 1, so take {formula}",
        "zh": "没有在 1 处截断：对罕见词，(sqrt(f/t) + 1)·t/f 大于 1，所以要取 {formula}"},
    "check keep discard": {
        "en": "are the probabilities of discarding an occurrence, 1 - keep; return the probability of keeping it",
        "zh": "是丢弃一个词元的概率 1 - keep；应返回保留它的概率"},
    "check keep discard uncapped": {
        "en": "are the probabilities of discarding an occurrence, 1 - keep; return the probability of keeping it, "
              "{formula}",
        "zh": "是丢弃一个词元的概率 1 - keep；应返回保留它的概率，即 {formula}"},
    "check keep paper": {
        "en": "use the paper's formula sqrt(t/f) (Mikolov et al., 2013); word2vec.c and gensim keep an occurrence "
              "with probability {formula}",
        "zh": "用的是论文的公式 sqrt(t/f)（Mikolov et al., 2013）；word2vec.c 和 gensim 以概率 {formula} 保留一个词元"},
    "check keep paper capped": {
        "en": "use the paper's formula sqrt(t/f) (Mikolov et al., 2013); word2vec.c and gensim use {formula}",
        "zh": "用的是论文的公式 sqrt(t/f)（Mikolov et al., 2013）；word2vec.c 和 gensim 用的是 {formula}"},
    "check keep paper discard": {
        "en": "are the paper's discard probability 1 - sqrt(t/f); return word2vec.c's keep probability {formula}",
        "zh": "是论文中的丢弃概率 1 - sqrt(t/f)；应返回 word2vec.c 的保留概率 {formula}"},
    "check keep raw counts": {"en": "use the raw counts as f; f is the frequency count / total",
                              "zh": "把原始频次当成了 f；f 是频率 count / total"},
    "check keep sample ignored": {"en": "ignore the sample argument (they use t = 1e-3)",
                                  "zh": "忽略了参数 sample（用的是 t = 1e-3）"},
    "check keep yours": {"en": "Your keep probabilities {parts}", "zh": "你的保留概率{parts}"},
    "check keep and they": {"en": "; and they ", "zh": "；而且"},
    "check keep above one": {
        "en": "Some keep probabilities are above 1 (up to {largest:.4g}): cap them at 1, {formula}",
        "zh": "有些保留概率大于 1（最大为 {largest:.4g}）：应在 1 处截断，即 {formula}"},
    "check keep negative": {"en": "Some keep probabilities are negative (down to {smallest:.4g})",
                            "zh": "有些保留概率是负的（最小为 {smallest:.4g}）"},
    "check keep differs": {
        "en": "The keep probabilities differ from word2vec.c's {formula} with f = count / total: {worst}",
        "zh": "保留概率与 word2vec.c 的 {formula}（f = count / total）不符：{worst}"},
    # Huffman codes (notebook 03)
    "check huffman right": {
        "en": "the codes are prefix-free and as short as a Huffman code on {trials} random inputs (W from {span} "
              "words).",
        "zh": "在 {trials} 组随机输入上（W 取 {span} 个词），编码都是前缀码，而且和霍夫曼编码一样短。"},
    "check huffman returns": {"en": "Your function should return a dict {{word: code}}, got {got}",
                              "zh": "你的函数应当返回 dict {{word: code}}，实际返回的是 {got}"},
    "check huffman missing": {"en": "{words} without a code, e.g. {example!r}",
                              "zh": "有 {words}没有编码，例如 {example!r}"},
    "check huffman extra": {"en": "There are codes for words not in the counts, e.g. {example!r}",
                            "zh": "有些编码属于不在 counts 中的词，例如 {example!r}"},
    "check huffman not a string": {
        "en": "The code of {word!r} is {got}; codes should be strings of '0' and '1' such as '0110'",
        "zh": "{word!r} 的编码是 {got}；编码应当是由 '0' 和 '1' 组成的字符串，例如 '0110'"},
    "check huffman not bits": {
        "en": "The code of {word!r} is {code!r}; codes should be non-empty strings of '0' and '1'",
        "zh": "{word!r} 的编码是 {code!r}；编码应当是由 '0' 和 '1' 组成的非空字符串"},
    "check huffman same code": {"en": "the same code", "zh": "相同"},
    "check huffman prefix": {"en": "codes where one is a prefix of the other", "zh": "一个是另一个的前缀"},
    "check huffman not prefix-free": {
        "en": "The codes are not prefix-free: {first!r} and {second!r} have {what} ({short!r} and {long!r}), so a "
              "bit string cannot be decoded",
        "zh": "编码不是前缀码：{first!r} 和 {second!r} 的编码{what}（{short!r} 与 {long!r}），因此比特串无法唯一解码"},
    "check huffman not optimal": {
        "en": "The codes are prefix-free but not optimal: the expected code length is {cost:.4f} bits per word, a "
              "Huffman code reaches {optimal:.4f}; merge the two lightest nodes at every step",
        "zh": "编码是前缀码，但不是最优的：期望编码长度为每词 {cost:.4f} 比特，霍夫曼编码能达到 {optimal:.4f}；每一步"
              "都要合并权重最小的两个节点"},
    "check semicolon": {"en": "; ", "zh": "；"},
    # course.teaching.checks.glove: the weighting function and the loss (notebook 04)
    "check glove defaults": {"en": "{size}, the default x_max and alpha", "zh": "{size}，x_max 和 alpha 取默认值"},
    "check glove weighting right": {
        "en": "f(x) matches GloVe's weighting on {trials} random inputs (n from {span}, with and without x_max and "
              "alpha).",
        "zh": "在 {trials} 组随机输入上（n 取 {span}，有的传入 x_max 和 alpha，有的用默认值），f(x) 都与 GloVe 的加权"
              "函数一致。"},
    "check glove default x_max": {"en": "uses x_max = 10 by default; the default is 100",
                                  "zh": "默认用的是 x_max = 10；默认值应为 100"},
    "check glove x_max ignored": {"en": "ignores the x_max argument (uses 100)",
                                  "zh": "忽略了参数 x_max（用的是 100）"},
    "check glove no power": {
        "en": "has no power alpha: below x_max, f(x) = (x/x_max)^alpha, not x/x_max (alpha={alpha:g})",
        "zh": "没有取 alpha 次方：在 x_max 以下，f(x) = (x/x_max)^alpha，而不是 x/x_max（alpha={alpha:g}）"},
    "check glove alpha ignored": {"en": "ignores the alpha argument (uses 0.75)",
                                  "zh": "忽略了参数 alpha（用的是 0.75）"},
    "check glove f(0)": {
        "en": "f(0) should be 0 (a pair never seen together carries no weight), got f(0) = {value:.4g}",
        "zh": "f(0) 应为 0（从未共同出现的词对不带权重），实际 f(0) = {value:.4g}"},
    "check glove uncapped": {"en": "is not capped at 1: f(x) = 1 for x >= x_max",
                             "zh": "没有在 1 处截断：x >= x_max 时 f(x) = 1"},
    "check glove yours": {"en": "Your f(x) {parts}", "zh": "你的 f(x) {parts}"},
    "check glove and it": {"en": "; and it ", "zh": "；而且"},
    "check glove above one": {
        "en": "Your f(x) goes above 1 (f({x:.4g}) = {value:.4g}): cap it at 1, f(x) = 1 for x >= x_max",
        "zh": "你的 f(x) 超过了 1（f({x:.4g}) = {value:.4g}）：应在 1 处截断，x >= x_max 时 f(x) = 1"},
    "check glove weighting differs": {
        "en": "f(x) differs from (x/x_max)^alpha capped at 1: at x = {x:.4g} you return {got:.6g}, expected "
              "{expected:.6g}",
        "zh": "f(x) 与在 1 处截断的 (x/x_max)^alpha 不符：在 x = {x:.4g} 处你返回 {got:.6g}，应为 {expected:.6g}"},
    "check glove loss right": {
        "en": "J matches Σ f(x)(w·w̃ + b + b̃ - log x)² on {trials} random inputs (n from {n}, d from {d}).",
        "zh": "在 {trials} 组随机输入上（n 取 {n}，d 取 {d}），J 都与 Σ f(x)(w·w̃ + b + b̃ - log x)² 一致。"},
    "check glove no weighting": {"en": "the weighting f(x_n) is missing", "zh": "缺少加权 f(x_n)"},
    "check glove weighting default x_max": {"en": "the weighting uses x_max = 10 by default; the default is 100",
                                            "zh": "加权默认用的是 x_max = 10；默认值应为 100"},
    "check glove weighting arguments ignored": {"en": "the weighting ignores the x_max and alpha arguments",
                                                "zh": "加权忽略了参数 x_max 和 alpha"},
    "check glove no biases": {"en": "the biases b_n + b̃_n are missing", "zh": "缺少偏置 b_n + b̃_n"},
    "check glove no context bias": {"en": "the context bias b̃_n is missing", "zh": "缺少上下文偏置 b̃_n"},
    "check glove no word bias": {"en": "the word bias b_n is missing", "zh": "缺少词的偏置 b_n"},
    "check glove fits x": {"en": "it fits x_n where the paper fits log x_n",
                           "zh": "拟合的是 x_n，而论文拟合的是 log x_n"},
    "check glove half": {
        "en": "it is exactly half of J: that is glove.c's convention, with 1/2 in front; this assignment asks for "
              "the paper's J = Σ f(x_n)(...)², without the 1/2",
        "zh": "它恰好是 J 的一半：这是 glove.c 的约定，前面带 1/2；本作业要求的是论文中的 J = Σ f(x_n)(...)²，不带 "
              "1/2"},
    "check glove mean": {"en": "it takes the mean over the n entries where J is a sum",
                         "zh": "它对 n 个条目取了平均，而 J 是求和"},
    "check glove loss yours": {"en": "Your loss: {parts} ({got})", "zh": "你的损失：{parts}（{got}）"},
    "check glove loss differs": {
        "en": "The loss differs from Σ_n f(x_n)(w_n·w̃_n + b_n + b̃_n - log x_n)²: {got}; w_n·w̃_n is the dot "
              "product of row n of w and row n of w_context",
        "zh": "损失与 Σ_n f(x_n)(w_n·w̃_n + b_n + b̃_n - log x_n)² 不符：{got}；w_n·w̃_n 是 w 的第 n 行与 w_context "
              "的第 n 行的点积"},
    # course.teaching.checks.corpus: the OOV rate that leave-one-out predicts (notebook 00)
    "check oov where": {"en": "V={types}, N={tokens} tokens, min_counts={min_counts}",
                        "zh": "V={types}，N={tokens} 个词元，min_counts={min_counts}"},
    "check oov above the largest": {
        "en": "{failure} Here min_count {min_count} is above the largest count, {largest}: no type reaches it, and "
              "the estimate is 1.",
        "zh": "{failure}这里 min_count {min_count} 大于最大的频次 {largest}：没有哪个词型能达到它，估计值就是 1。"},
    "check oov right": {
        "en": "the estimates match leave-one-out (Good–Turing) on {trials} random inputs (V from {span} types, "
              "min_count up to {largest}).",
        "zh": "在 {trials} 组随机输入上（V 取 {span} 个词型，min_count 最大到 {largest}），估计值都与留一法（"
              "Good–Turing）一致。"},
    "check oov training": {
        "en": "Your estimate is the share of the training text that the vocabulary leaves out, Σ over c(w) < m of "
              "c(w) / N, which is 0 at min_count 1. A new token is not among the counts that make the vocabulary: "
              "take one token out of the training text first, and ask whether its type still reaches min_count",
        "zh": "你的估计是训练文本中被词表排除的比例，即对 c(w) < m 求和 c(w) / N，它在 min_count 为 1 时等于 0。可新"
              "的词元并不在构成词表的那些频次里：应先从训练文本中拿掉一个词元，再看它的词型是否仍然达到 min_count"},
    "check oov one too many": {
        "en": "Your estimate also counts the types seen exactly m + 1 times: with one of their occurrences taken "
              "away they still have m and stay in the vocabulary",
        "zh": "你的估计把恰好出现 m + 1 次的词型也算了进去：拿掉其中一个词元后它们仍有 m 次，依然留在词表中"},
    "check oov unseen only": {
        "en": "Your estimate is N_1 / N at every min_count: that is Good–Turing's share of the types never seen (r = "
              "0) only; a vocabulary cut at m also leaves out the types seen 1 to m − 1 times",
        "zh": "你的估计在每个 min_count 下都是 N_1 / N：这只是 Good–Turing 给从未见过的词型（r = 0）的份额；在 m 处截"
              "断的词表还会排除出现 1 到 m − 1 次的词型"},
    "check oov no unseen": {
        "en": "Your estimate leaves out the types never seen in training (r = 0): Good–Turing gives them the share "
              "N_1 / N of new text, the whole OOV rate at min_count 1",
        "zh": "你的估计漏掉了训练中从未见过的词型（r = 0）：Good–Turing 给它们新文本中 N_1 / N 的份额，这就是 "
              "min_count 为 1 时的全部未登录词率"},
    "check oov types": {
        "en": "Your estimate counts types, not tokens: the OOV rate is a share of the running text, so every type "
              "weighs as much as its count",
        "zh": "你的估计数的是词型，不是词元：未登录词率是连续文本中的比例，所以每个词型的权重等于它的频次"},
    "check oov types and zeros": {
        "en": "Your estimate counts types, not tokens (and the zero entries as types): the OOV rate is a share of "
              "the running text, so every type weighs as much as its count",
        "zh": "你的估计数的是词型，不是词元（还把频次为 0 的条目也算作词型）：未登录词率是连续文本中的比例，所以每个"
              "词型的权重等于它的频次"},
    "check oov N - 1": {
        "en": "Your estimate divides by N − 1: each of the N training tokens is left out once, so the share is over N",
        "zh": "你的估计除以了 N − 1：N 个训练词元各被留出一次，所以比例的分母是 N"},
    "check oov not a share": {
        "en": "Your estimate is a number of tokens, not a share: divide by N, the number of training tokens",
        "zh": "你的估计是词元的个数，不是比例：应除以训练词元数 N"},
    "check oov coverage": {
        "en": "Your estimate is the share of new tokens that the vocabulary covers; return the share it misses",
        "zh": "你的估计是词表覆盖的新词元比例；应返回它没有覆盖的比例"},
    "check oov order": {"en": "Your rates are in the order of the sorted min_counts; return them in the order given",
                        "zh": "你返回的比率按排序后的 min_counts 排列；应按给定的顺序返回"},
    "check oov range": {
        "en": "Some estimates are outside [0, 1] (from {low:.4g} to {high:.4g}); an OOV rate is a share of tokens",
        "zh": "有些估计值不在 [0, 1] 之内（从 {low:.4g} 到 {high:.4g}）；未登录词率是词元的比例"},
    "check oov differs": {
        "en": "The estimates differ from the leave-one-out (Good–Turing) estimate: at min_count {min_count} you "
              "return {got:.6g}, expected {expected:.6g}",
        "zh": "估计值与留一法（Good–Turing）的估计不符：在 min_count 为 {min_count} 时你返回 {got:.6g}，应为 "
              "{expected:.6g}"},
    # positive PMI with a smoothed context distribution (notebook 01)
    "check ppmi default alpha": {"en": "the default alpha", "zh": "alpha 取默认值"},
    "check ppmi broadcast": {
        "en": "{failure} The matrix has V = {rows} rows (words) and C = {columns} columns (contexts): P(w) sums each "
              "row (axis=1), P(c) each column (axis=0), and a (V,) vector meets the (V, C) matrix as a column, [:, "
              "None].",
        "zh": "{failure}矩阵有 V = {rows} 行（词）和 C = {columns} 列（上下文）：P(w) 对每一行求和（axis=1），P(c) 对"
              "每一列求和（axis=0）；(V,) 向量要作为列向量 [:, None] 与 (V, C) 矩阵运算。"},
    "check ppmi warned": {
        "en": "Your values are right, but numpy warned on the way: \"{warning}\". Zero counts are the case to "
              "handle, not to compute through: take the logarithm of the cells with X_wc > 0 only, and divide only "
              "by marginals that are not 0",
        "zh": "你的数值是对的，但 numpy 在计算中发出了警告：“{warning}”。零频次是要专门处理的情形，不能硬算过去：只对"
              " X_wc > 0 的单元取对数，也只除以不为 0 的边缘概率"},
    "check ppmi right": {
        "en": "PPMI matches the course's ppmi on {trials} random count matrices (V×C from {smallest} to {largest}, "
              "with all-zero rows and columns, the default alpha and others), with no nan, inf or warning.",
        "zh": "在 {trials} 个随机频次矩阵上（V×C 从 {smallest} 到 {largest}，含全零的行和列，alpha 取默认值和其他值）"
              "，PPMI 都与课程的 ppmi 一致，且没有 nan、inf 或警告。"},
    "check ppmi and": {"en": " and ", "zh": "和"},
    "check ppmi not finite seen": {"en": "The result contains {kinds} in cells where X_wc > 0",
                                   "zh": "返回值在 X_wc > 0 的单元中含有 {kinds}"},
    "check ppmi not finite empty": {
        "en": "The result contains {kinds} in the rows or columns whose counts are all 0 (a word or a context that "
              "never occurs: P(w) = 0 or P(c) = 0, and 0/0 is nan); the pair was never seen, so its PPMI is 0",
        "zh": "返回值在频次全为 0 的行或列中含有 {kinds}（从不出现的词或上下文：P(w) = 0 或 P(c) = 0，而 0/0 是 nan）"
              "；这样的词对从未出现过，它的 PPMI 是 0"},
    "check ppmi not finite zero": {
        "en": "The result contains {kinds} in cells where X_wc = 0 (log 0 = -inf, and 0/0 is nan); a pair never seen "
              "has PPMI 0",
        "zh": "返回值在 X_wc = 0 的单元中含有 {kinds}（log 0 = -inf，0/0 是 nan）；从未出现过的词对 PPMI 为 0"},
    "check ppmi zero cell": {
        "en": "A cell with X_wc = 0 should have PPMI 0 (the pair was never seen); at {at} you return {value:.4g} (is "
              "something added to the counts or to the probabilities to keep the logarithm finite?)",
        "zh": "X_wc = 0 的单元的 PPMI 应为 0（这个词对从未出现过）；你在 {at} 处返回了 {value:.4g}（是不是为了让对数"
              "有限，给频次或概率加了什么？）"},
    "check ppmi no smoothing default": {
        "en": "has no context smoothing: P_α(c) ∝ (Σ_w X_wc)^α, with α = 0.75 by default",
        "zh": "没有对上下文分布做平滑：P_α(c) ∝ (Σ_w X_wc)^α，默认 α = 0.75"},
    "check ppmi no smoothing": {"en": "has no context smoothing: P_α(c) ∝ (Σ_w X_wc)^α with α = {alpha:g}",
                                "zh": "没有对上下文分布做平滑：P_α(c) ∝ (Σ_w X_wc)^α，其中 α = {alpha:g}"},
    "check ppmi smooths words": {
        "en": "smooths the word distribution P(w) (the row sums); the power α goes on the context distribution P(c), "
              "the column sums",
        "zh": "平滑的是词的分布 P(w)（行和）；α 次方应作用在上下文分布 P(c)，即列和上"},
    "check ppmi smooths both": {
        "en": "smooths the word distribution P(w) too; only the context distribution P(c) is raised to the power α",
        "zh": "把词的分布 P(w) 也平滑了；只有上下文分布 P(c) 要取 α 次方"},
    "check ppmi alpha ignored": {"en": "ignores the alpha argument (uses 0.75)",
                                 "zh": "忽略了参数 alpha（用的是 0.75）"},
    "check ppmi not normalised again": {
        "en": "raises P(c) to the power α but does not normalise again: the powered values must be divided by their "
              "own sum to make a distribution",
        "zh": "对 P(c) 取了 α 次方，却没有重新归一化：取幂后的值要除以它们自己的和，才是一个分布"},
    "check ppmi powered sums": {
        "en": "uses the powered column sums (Σ_w X_wc)^α as P_α(c) without dividing by their sum",
        "zh": "直接把取幂后的列和 (Σ_w X_wc)^α 当作 P_α(c)，没有除以它们的和"},
    "check ppmi divided by total": {
        "en": "divides the powered column sums (Σ_w X_wc)^α by the total count; P_α(c) divides them by their own sum",
        "zh": "把取幂后的列和 (Σ_w X_wc)^α 除以了总频次；P_α(c) 应除以它们自己的和"},
    "check ppmi log2": {"en": "uses log base 2 (bits); the course's PPMI uses the natural logarithm, np.log",
                        "zh": "用的是以 2 为底的对数（比特）；课程的 PPMI 用自然对数 np.log"},
    "check ppmi log10": {"en": "uses log base 10; the course's PPMI uses the natural logarithm, np.log",
                         "zh": "用的是以 10 为底的对数；课程的 PPMI 用自然对数 np.log"},
    "check ppmi negative kept": {"en": "keeps the negative values: this is PMI, not PPMI = max(0, PMI)",
                                 "zh": "保留了负值：这是 PMI，而不是 PPMI = max(0, PMI)"},
    "check ppmi yours": {"en": "Your PPMI {parts}", "zh": "你的 PPMI {parts}"},
    "check ppmi negative": {
        "en": "Some values are negative (down to {smallest:.4g}): PPMI keeps only the positive part, max(0, PMI)",
        "zh": "有些值是负的（最小为 {smallest:.4g}）：PPMI 只保留正的部分，即 max(0, PMI)"},
    "check ppmi differs": {"en": "The values differ from the course's ppmi(counts, context_smoothing=alpha): {worst}",
                           "zh": "数值与课程的 ppmi(counts, context_smoothing=alpha) 不符：{worst}"},
    # course.teaching.checks.analogy: 3CosAdd (notebook 05)
    "check analogy unit offset": {
        "en": "builds the offset from vectors that are not unit length: normalise a, b and c first, b̂ - â + ĉ",
        "zh": "用未归一化的向量构造了偏移：应先把 a、b、c 归一化为单位向量，即 b̂ - â + ĉ"},
    "check analogy dot product": {
        "en": "scores the candidates by dot product with vectors that are not unit length; 3CosAdd takes the cosine "
              "(normalise the candidates to unit vectors)",
        "zh": "用未归一化向量的点积给候选词打分；3CosAdd 取的是余弦（应把候选词归一化为单位向量）"},
    "check analogy not unit": {
        "en": "uses vectors that are not unit length, both in the offset and for the candidates; 3CosAdd takes the "
              "cosine with b̂ - â + ĉ (all unit vectors)",
        "zh": "偏移和候选词用的都是未归一化的向量；3CosAdd 取的是与 b̂ - â + ĉ 的余弦（全部是单位向量）"},
    "check analogy a - b + c": {"en": "uses the offset a - b + c; for 'a is to b as c is to d', d ≈ b - a + c",
                                "zh": "用的偏移是 a - b + c；对“a 之于 b 犹如 c 之于 d”，d ≈ b - a + c"},
    "check analogy a + b - c": {"en": "uses the offset a + b - c; for 'a is to b as c is to d', d ≈ b - a + c",
                                "zh": "用的偏移是 a + b - c；对“a 之于 b 犹如 c 之于 d”，d ≈ b - a + c"},
    "check analogy b + c": {"en": "uses b + c without subtracting a; d ≈ b - a + c",
                            "zh": "用的是 b + c，没有减去 a；d ≈ b - a + c"},
    "check analogy b - a": {"en": "uses b - a without adding c; d ≈ b - a + c",
                            "zh": "用的是 b - a，没有加上 c；d ≈ b - a + c"},
    "check analogy where": {"en": "V={size} words, d={dim}, the question {a} : {b} :: {c} : ?",
                            "zh": "V={size} 个词，d={dim}，问题 {a} : {b} :: {c} : ?"},
    "check analogy shapes": {"en": "a KeyedVectors of {size} words × {dim} dimensions",
                             "zh": "{size} 个词 × {dim} 维的 KeyedVectors"},
    "check analogy right": {
        "en": "the answers match 3CosAdd on {trials} random sets of vectors (V from {size} words, d from {dim}).",
        "zh": "在 {trials} 组随机向量上（V 取 {size} 个词，d 取 {dim}），答案都与 3CosAdd 一致。"},
    "check analogy not in kv": {"en": "Your answer {answer!r} is not a word of kv",
                                "zh": "你的答案 {answer!r} 不是 kv 中的词"},
    "check analogy got a sequence": {"en": "{got} starting with {first!r}; return only the word (a str)",
                                     "zh": "以 {first!r} 开头的 {got}；只需返回这个词（一个 str）"},
    "check analogy got an index": {"en": "the index {index}; return the word itself, kv.index_to_key[{index}]",
                                   "zh": "下标 {index}；应返回词本身，即 kv.index_to_key[{index}]"},
    "check analogy got something else": {"en": "{got}; return the word (a str)",
                                         "zh": "{got}；应返回这个词（一个 str）"},
    "check analogy returns": {"en": "Your function should return a word, got {hint}",
                              "zh": "你的函数应当返回一个词，实际返回的是{hint}"},
    "check analogy question word": {
        "en": "Your answer {answer!r} is one of the question words a, b, c; exclude a, b and c from the candidates "
              "(they are usually the closest to b̂ - â + ĉ)",
        "zh": "你的答案 {answer!r} 是问题中的词 a、b、c 之一；应把 a、b、c 排除在候选词之外（它们通常离 b̂ - â + ĉ 最"
              "近）"},
    "check analogy mistake": {
        "en": "Your answer {answer!r} is what 3CosAdd gives when it {wrong}; the answer is {right!r}",
        "zh": "你的答案 {answer!r} 正是 3CosAdd 在这种情况下给出的：{wrong}；正确答案是 {right!r}"},
    "check analogy differs": {
        "en": "Your answer {answer!r} is not the word whose unit vector has the largest cosine with b̂ - â + ĉ: that "
              "is {right!r} (cosine {best:.4f}; yours {yours:.4f})",
        "zh": "你的答案 {answer!r} 不是单位向量与 b̂ - â + ĉ 余弦最大的词：那个词是 {right!r}（余弦 {best:.4f}；你的"
              "答案为 {yours:.4f}）"},
    # course.teaching.checks.bias: WEAT's effect size and p-value (notebook 05)
    "check weat d x only": {
        "en": "Your effect size divides by the standard deviation of s(x, A, B) over X only; d takes it over all the "
              "target words, X ∪ Y",
        "zh": "你的效应量除以的是 s(x, A, B) 只在 X 上的标准差；d 取的是全部目标词 X ∪ Y 上的标准差"},
    "check weat d two groups": {
        "en": "Your effect size divides by Cohen's pooled standard deviation of the two groups; WEAT's d takes one "
              "standard deviation over X ∪ Y together",
        "zh": "你的效应量除以的是两组的 Cohen 合并标准差；WEAT 的 d 取的是 X ∪ Y 合在一起的一个标准差"},
    "check weat d not standardised": {
        "en": "Your effect size is the difference of the means without dividing by the standard deviation over X ∪ "
              "Y: that is not standardised, and it is not d",
        "zh": "你的效应量是均值之差，却没有除以 X ∪ Y 上的标准差：这样没有标准化，也就不是 d"},
    "check weat d population": {
        "en": "Your effect size uses the population standard deviation (ddof=0); the assignment asks for the sample "
              "standard deviation, ddof=1",
        "zh": "你的效应量用的是总体标准差（ddof=0）；本作业要求样本标准差，即 ddof=1"},
    "check weat d dot": {
        "en": "Your effect size uses raw dot products w · a where WEAT takes the cosine cos(w, a): normalise the "
              "vectors to unit length first",
        "zh": "你的效应量用的是原始点积 w · a，而 WEAT 取的是余弦 cos(w, a)：应先把向量归一化为单位长度"},
    "check weat d sums": {
        "en": "Your association s(w, A, B) sums the cosines over A and over B; it is the mean over A minus the mean "
              "over B (they differ when |A| ≠ |B|)",
        "zh": "你的关联度 s(w, A, B) 对 A 和 B 上的余弦求了和；它应是 A 上的均值减去 B 上的均值（|A| ≠ |B| 时两者不同"
              "）"},
    "check weat p strict": {
        "en": "Your p-value counts only the splits whose statistic is strictly above the observed one, so the "
              "observed split itself is missing: count those at least as large (≥), with a tolerance for rounding, "
              "since the observed split added up again may differ in the last bits",
        "zh": "你的 p 值只数了统计量严格大于观测值的划分，漏掉了观测到的那个划分本身：应数不小于观测值（≥）的划分，并"
              "留一点舍入误差的余量，因为重新求和的观测划分可能在最后几位上有出入"},
    "check weat p two-sided": {
        "en": "Your p-value is two-sided (|statistic| ≥ |observed|); WEAT's is one-sided: the share of splits whose "
              "difference of means is at least the observed one",
        "zh": "你的 p 值是双侧的（|统计量| ≥ |观测值|）；WEAT 的是单侧的：均值之差不小于观测值的划分所占的比例"},
    "check weat p other tail": {
        "en": "Your p-value counts the splits whose statistic is at most the observed one: the other tail. Count "
              "those at least as large as the observed one",
        "zh": "你的 p 值数的是统计量不大于观测值的划分，也就是另一侧的尾部。应数不小于观测值的划分"},
    "check weat p complement": {
        "en": "Your p-value is 1 minus the right one: count the splits whose statistic is at least the observed one, "
              "not those below it",
        "zh": "你的 p 值是 1 减去正确值：应数统计量不小于观测值的划分，而不是小于它的"},
    "check weat returns": {"en": "Your function should return a tuple (effect_size, p_value) of 2 numbers, got {got}",
                           "zh": "你的函数应当返回含 2 个数的元组 (effect_size, p_value)，实际返回的是 {got}"},
    "check weat the effect size": {"en": "The effect size", "zh": "效应量"},
    "check weat the p-value": {"en": "The p-value", "zh": "p 值"},
    "check weat right": {
        "en": "the effect size and the exact p-value match WEAT on {trials} random sets of vectors (n_X + n_Y from "
              "{span} target words, up to {splits} splits).",
        "zh": "在 {trials} 组随机向量上（n_X + n_Y 取 {span} 个目标词，最多 {splits} 种划分），效应量和精确 p 值都与 "
              "WEAT 一致。"},
    "check weat d sign": {
        "en": "Your effect size has the sign turned round: d is mean over X minus mean over Y of s(w, A, B), with s "
              "= mean cos to A minus mean cos to B",
        "zh": "你的效应量符号反了：d 是 s(w, A, B) 在 X 上的均值减去在 Y 上的均值，其中 s = 与 A 的平均余弦减去与 B "
              "的平均余弦"},
    "check weat d differs": {"en": "Your effect size is {value:.6g}; WEAT's d is {right:.6g}",
                             "zh": "你的效应量为 {value:.6g}；WEAT 的 d 为 {right:.6g}"},
    "check weat p range": {"en": "Your p-value {value:.6g} is not between 0 and 1",
                           "zh": "你的 p 值 {value:.6g} 不在 0 和 1 之间"},
    "check weat p fraction": {
        "en": "Your p-value {value:.6g} is not a whole number of splits out of the {splits} ways to choose {chosen} "
              "of the {targets} target words as X_i: enumerate every split once",
        "zh": "你的 p 值 {value:.6g} 不是整数个划分除以 {splits}（从 {targets} 个目标词中选 {chosen} 个作为 X_i 的方"
              "法数）：应把每种划分恰好枚举一次"},
    "check weat p differs": {
        "en": "Your p-value is {value:.6g}; the exact one-sided p-value over the {splits} splits is {right:.6g}",
        "zh": "你的 p 值为 {value:.6g}；在 {splits} 种划分上精确的单侧 p 值为 {right:.6g}"},
    # course.teaching.checks.bounds: the entropy bound (notebook 03)
    "check bound the entropy": {"en": "the entropy", "zh": "熵"},
    "check bound the mean code length": {"en": "the mean code length", "zh": "平均编码长度"},
    "check bound the balanced length": {"en": "the balanced tree's code length", "zh": "平衡树的编码长度"},
    "check bound two words": {"en": "two words", "zh": "两个词"},
    "check bound dominant": {"en": "one word with {top:,} of the occurrences", "zh": "一个词占了其中 {top:,} 个词元"},
    "check bound equal": {"en": "every count the same", "zh": "所有频次都相同"},
    "check bound halves": {"en": "every p(w) a power of 1/2", "zh": "每个 p(w) 都是 1/2 的幂"},
    "check bound ties": {"en": "small counts with ties", "zh": "有并列的小频次"},
    "check bound zipf": {"en": "Zipf counts", "zh": "齐普夫分布的频次"},
    "check bound returns": {
        "en": "Your function should return a tuple (entropy, mean_length, balanced_length) of 3 numbers, got {got}",
        "zh": "你的函数应当返回含 3 个数的元组 (entropy, mean_length, balanced_length)，实际返回的是 {got}"},
    "check bound right": {
        "en": "the entropy, the Huffman code's mean length and the balanced tree's match on {trials} random inputs "
              "(W from {span} words), and H <= L < H + 1 held on every one.",
        "zh": "在 {trials} 组随机输入上（W 取 {span} 个词），熵、霍夫曼编码的平均长度和平衡树的编码长度都一致，而且每"
              "一组都满足 H <= L < H + 1。"},
    "check bound said": {"en": " ({said})", "zh": "（{said}）"},
    "check bound values now": {"en": "here H = {entropy:.6g} bits and the Huffman code's L = {length:.6g}",
                               "zh": "这里 H = {entropy:.6g} 比特，霍夫曼编码的 L = {length:.6g}"},
    "check bound assertion equality": {
        "en": "Your function's assertion failed{said}, on counts where every p(w) is a power of 1/2: {values}, "
              "equal. The left side of the bound holds with equality here (H <= L, not H < L), and an entropy "
              "computed in floats may land a rounding error above L; state the bound so that it survives that",
        "zh": "你的函数中的断言失败了{said}，失败在每个 p(w) 都是 1/2 的幂的频次上：{values}，两者相等。这时界的左边"
              "取等号（H <= L，而不是 H < L），而用浮点数算出的熵可能因舍入误差略高于 L；写断言时要让它经得起这一点"},
    "check bound assertion numbers": {
        "en": "Your function's assertion failed{said}: {values}, and H <= L < H + 1 holds for every Huffman code, so "
              "one of the numbers it compares is wrong. The usual causes: the entropy in nats (natural log) instead "
              "of bits, or the plain mean of the code lengths instead of the mean weighted by the counts",
        "zh": "你的函数中的断言失败了{said}：{values}，而任何霍夫曼编码都满足 H <= L < H + 1，所以断言比较的某个数算"
              "错了。常见原因：熵用了奈特（自然对数）而不是比特，或者编码长度取了简单平均而不是按频次加权的平均"},
    "check bound nats": {
        "en": "Your entropy is in nats: you used the natural log. A code's length is counted in bits, so the entropy "
              "takes log base 2",
        "zh": "你的熵以奈特为单位：用的是自然对数。编码长度以比特计，所以熵要取以 2 为底的对数"},
    "check bound log10": {"en": "Your entropy uses log base 10; bits take log base 2",
                          "zh": "你的熵用的是以 10 为底的对数；比特要用以 2 为底的对数"},
    "check bound entropy sign": {"en": "Your entropy has the wrong sign: H = -Σ p log2 p is never negative",
                                 "zh": "你的熵符号反了：H = -Σ p log2 p 从不为负"},
    "check bound entropy of counts": {
        "en": "Your entropy uses the counts where the probabilities p(w) = count / total belong",
        "zh": "你的熵用的是频次，而这里应当用概率 p(w) = count / total"},
    "check bound entropy unweighted": {
        "en": "Your entropy is the plain mean of -log2 p(w) over the words; weight each by p(w)",
        "zh": "你的熵是 -log2 p(w) 在各词上的简单平均；每一项都应以 p(w) 加权"},
    "check bound entropy uniform": {
        "en": "Your entropy is log2 W, the entropy of W equally frequent words, the largest there is; these words "
              "are not equally frequent",
        "zh": "你的熵是 log2 W，即 W 个等频词的熵，也是熵可能的最大值；而这些词并不等频"},
    "check bound length unweighted": {
        "en": "Your mean code length is the plain mean over the words, each counted once; the mean that decides the "
              "cost per example weights each word's code length by its count: Σ c(w) L(w) / Σ c(w)",
        "zh": "你的平均编码长度是各词的简单平均，每个词只算一次；决定每个样本计算量的平均要按频次给每个词的编码长度加"
              "权：Σ c(w) L(w) / Σ c(w)"},
    "check bound length total": {"en": "Your mean code length is not divided by the total count",
                                 "zh": "你的平均编码长度没有除以总频次"},
    "check bound length shannon": {
        "en": "Your mean code length is that of Shannon's code, ceil(-log2 p(w)) bits per word: it satisfies the "
              "bound too, but it is not optimal; a Huffman code is",
        "zh": "你的平均编码长度是香农编码的，每个词 ceil(-log2 p(w)) 比特：它也满足这个界，但不是最优的；霍夫曼编码才"
              "是"},
    "check bound length entropy": {
        "en": "Your mean code length is the entropy itself; a code spends a whole number of bits on each word, so "
              "measure the lengths of a Huffman code",
        "zh": "你的平均编码长度就是熵本身；编码给每个词的比特数是整数，所以要量出一个霍夫曼编码的长度"},
    "check bound length balanced": {
        "en": "Your mean code length is the balanced tree's; the Huffman tree gives the frequent words shorter codes",
        "zh": "你的平均编码长度是平衡树的；霍夫曼树给高频词更短的编码"},
    "check bound length longest": {"en": "Your mean code length is the longest code's length",
                                   "zh": "你的平均编码长度是最长编码的长度"},
    "check bound balanced ceil": {
        "en": "Your balanced tree's code length is log2 W, which is not a whole number of bits unless W is a power "
              "of two: the ceil is missing, ceil(log2 W)",
        "zh": "你的平衡树编码长度是 log2 W，除非 W 是 2 的幂，否则它不是整数个比特：缺少向上取整，应为 ceil(log2 W)"},
    "check bound balanced floor": {
        "en": "Your balanced tree's code length is floor(log2 W): that many bits give fewer than W different codes",
        "zh": "你的平衡树编码长度是 floor(log2 W)：这么多比特给出的不同编码少于 W 个"},
    "check bound balanced plus one": {
        "en": "Your balanced tree's code length is floor(log2 W) + 1 (or W.bit_length()), one bit too many when W is "
              "a power of two: 2^k words need k bits",
        "zh": "你的平衡树编码长度是 floor(log2 W) + 1（或 W.bit_length()），W 是 2 的幂时多了一个比特：2^k 个词只需要"
              " k 比特"},
    "check bound balanced nearly": {
        "en": "Your balanced tree's code length is the mean of a nearly balanced tree whose codes have floor or "
              "ceil(log2 W) bits; the balanced tree here gives every word the same code length, ceil(log2 W)",
        "zh": "你的平衡树编码长度是一棵近似平衡树的平均长度，其编码有 floor(log2 W) 或 ceil(log2 W) 比特；这里的平衡"
              "树给每个词相同的编码长度 ceil(log2 W)"},
    "check bound order": {
        "en": "Your three numbers are right but in the wrong order: return (entropy, mean_length, balanced_length)",
        "zh": "你的三个数都对，但顺序错了：应返回 (entropy, mean_length, balanced_length)"},
    "check bound broken": {
        "en": "; and your function returned H = {entropy:.6g}, L = {length:.6g}, which break H <= L < H + 1: assert "
              "the bound before returning, and it will stop such numbers",
        "zh": "；另外，你的函数返回了 H = {entropy:.6g}、L = {length:.6g}，违反了 H <= L < H + 1：在返回之前断言这个"
              "界，就能拦住这样的数"},
    "check bound wrong value": {"en": "{name} is {value:.6g}, expected {expected:.6g}",
                                "zh": "{name}为 {value:.6g}，应为 {expected:.6g}"},
    "check bound differs": {
        "en": "Your numbers differ from H = -Σ p log2 p, the Huffman code's Σ p(w) L(w) and ceil(log2 W): "
              "{wrong}{note}",
        "zh": "你的数与 H = -Σ p log2 p、霍夫曼编码的 Σ p(w) L(w) 以及 ceil(log2 W) 不符：{wrong}{note}"},
    # course.teaching.checks.subwords: the merges of BPE (notebook 03)
    "check bpe unweighted": {
        "en": "Your pair counts are not weighted by the word counts: each word's pairs count once, however often the "
              "word occurs. f(a, b) adds the count c(w) of the word for every occurrence of the pair in it",
        "zh": "你的词对频次没有按词的频次加权：无论一个词出现多少次，它的词对都只算一次。词对每在词 w 中出现一次，"
              "f(a, b) 就要加上这个词的频次 c(w)"},
    "check bpe marker": {
        "en": "Your merges never contain the end-of-word marker {end!r}: each word's symbols should start as its "
              "characters followed by {end!r}, so that a piece ending a word ('est{end}') is learned apart from the "
              "same letters inside one",
        "zh": "你的合并里从来没有词尾标记 {end!r}：每个词的符号序列一开始应是它的字符再加上 {end!r}，这样位于词尾的片"
              "段（'est{end}'）才能与词中间的同样字母分开学习"},
    "check bpe across": {
        "en": "Your merges glue the end of one word to the start of the next (a symbol with {end!r} in its middle): "
              "count pairs within each word only, never across word boundaries",
        "zh": "你的合并把一个词的结尾和下一个词的开头粘在了一起（出现了中间含 {end!r} 的符号）：只在每个词内部统计词"
              "对，绝不跨越词的边界"},
    "check bpe right to left": {
        "en": "You merge overlapping occurrences from the right: with the pair (a, a), 'a a a' should become 'aa a' "
              "(scan left to right, and an occurrence that overlaps one just merged is not merged), not 'a aa'",
        "zh": "你从右边开始合并相互重叠的出现：对词对 (a, a)，'a a a' 应变成 'aa a'（从左往右扫描，与刚合并的那次出现"
              "重叠的不再合并），而不是 'a aa'"},
    "check bpe overlaps": {
        "en": "You count overlapping occurrences of a pair once: 'a a a' holds the adjacent pair (a, a) twice (at "
              "positions 1-2 and 2-3), and f(a, b) counts every adjacent position, although only one of the two can "
              "be merged",
        "zh": "你把一个词对相互重叠的出现只算了一次：'a a a' 中相邻的词对 (a, a) 出现了两次（位置 1-2 和 2-3），f(a, "
              "b) 要数每一个相邻位置，尽管两者之中只有一个能被合并"},
    "check bpe replace": {
        "en": "Your merge glues parts of longer symbols: replacing the text 'a b' in 'xa b' also merges the symbol "
              "'xa' with 'b'. Compare whole symbols (or, with a regular expression, only at symbol boundaries)",
        "zh": "你的合并把较长符号的一部分也粘上了：在 'xa b' 中替换文本 'a b'，会把符号 'xa' 和 'b' 也合并起来。应比"
              "较完整的符号（若用正则表达式，只在符号边界处匹配）"},
    "check bpe ties first": {
        "en": "Your ties are broken differently: among pairs of equal count take the smallest in string order "
              "(compare the left symbols, then the right ones), not the first pair met while counting",
        "zh": "你打破平局的方式不同：在频次相同的词对中，应取按字符串顺序最小的（先比较左边的符号，再比较右边的），而"
              "不是统计时最先遇到的那个"},
    "check bpe ties largest": {
        "en": "Your ties are broken differently: among pairs of equal count take the smallest in string order "
              "(compare the left symbols, then the right ones), not the largest",
        "zh": "你打破平局的方式不同：在频次相同的词对中，应取按字符串顺序最小的（先比较左边的符号，再比较右边的），而"
              "不是最大的"},
    "check bpe one word": {"en": "one word, a run of one letter", "zh": "一个词，由同一个字母连成"},
    "check bpe runs": {"en": "runs of one letter such as 'aaa'", "zh": "由同一个字母连成的词，如 'aaa'"},
    "check bpe ties": {"en": "every count 1: many ties", "zh": "频次都是 1：平局很多"},
    "check bpe skewed": {"en": "one frequent word and rare ones", "zh": "一个高频词和一些罕见词"},
    "check bpe random words": {"en": "random words", "zh": "随机的词"},
    "check bpe form": {"en": "a list of pairs (a, b) of strings, e.g. [('e', 's'), ('es', 't{end}')]",
                       "zh": "由字符串对 (a, b) 组成的列表，例如 [('e', 's'), ('es', 't{end}')]"},
    "check bpe returns": {"en": "Your function should return {form}; got {got}",
                          "zh": "你的函数应当返回{form}；实际返回的是 {got}"},
    "check bpe returns item": {"en": "Your function should return {form}; one item is {got}",
                               "zh": "你的函数应当返回{form}；其中有一项是 {got}"},
    "check bpe too many": {
        "en": "Your function returned {got} merges where {possible} are possible: after merge {step} every word is a "
              "single symbol, and the loop should stop there",
        "zh": "你的函数返回了 {got} 次合并，而只可能有 {possible} 次：第 {step} 次合并之后每个词都只剩一个符号，循环"
              "应当在那里停下"},
    "check bpe too few": {
        "en": "Your function returned {got} merges; {possible} were asked for and possible (merge {step} should be "
              "{expected})",
        "zh": "你的函数返回了 {got} 次合并；要求的是 {possible} 次，而且都能做到（第 {step} 次合并应为 {expected}）"},
    "check bpe at": {"en": "merge {step} is {mine} where it should be {right}",
                     "zh": "第 {step} 次合并是 {mine}，而应为 {right}"},
    "check bpe not adjacent": {
        "en": "Your {at}, but after the first {step} merges {mine} is not a pair of adjacent symbols in any word "
              "(each merge glues two adjacent symbols of a word, left to right, and nothing else)",
        "zh": "你的{at}；但在前 {step} 次合并之后，{mine} 在任何词中都不是相邻的两个符号（每次合并只把一个词中相邻的"
              "两个符号从左到右粘起来，别的什么也不做）"},
    "check bpe tied": {
        "en": "Your {at}: both pairs occur {times} times there. Among pairs of equal count take the smallest in "
              "string order (compare the left symbols, then the right ones)",
        "zh": "你的{at}：这时两个词对都出现 {times} 次。在频次相同的词对中，应取按字符串顺序最小的（先比较左边的符号"
              "，再比较右边的）"},
    "check bpe overlapping": {
        "en": "Your {at}. {right} occurs {times} times there, counting every adjacent position: {overlaps}",
        "zh": "你的{at}。数上每一个相邻位置，{right} 这时出现 {times} 次：{overlaps}"},
    "check bpe not the most frequent": {
        "en": "Your {at}: after the first {step} merges {mine} occurs {mine_times} times (each occurrence weighted "
              "by its word's count) and {right} {right_times} times; merge the most frequent pair",
        "zh": "你的{at}：在前 {step} 次合并之后，{mine} 出现 {mine_times} 次（每出现一次都按所在词的频次加权），"
              "{right} 出现 {right_times} 次；应合并最常见的词对"},
    "check bpe where": {"en": "{words}, {described}, merges={merges}", "zh": "{words}，{described}，merges={merges}"},
    "check bpe right": {
        "en": "the merges match course.text.subwords.learn_bpe on {trials} random count tables ({span} words each), "
              "ties and runs such as 'aaa' among them.",
        "zh": "在 {trials} 个随机频次表上（每个 {span} 个词，其中有平局，也有 'aaa' 这样的连续字母），合并都与 "
              "course.text.subwords.learn_bpe 一致。"},
    # course.teaching.checks.elmo: the sense 1-NN probe (notebook 07)
    "check knn where": {"en": "n={occurrences}, d={d}, {senses} senses",
                        "zh": "n={occurrences}，d={d}，{senses} 个词义"},
    "check knn shapes": {"en": "vectors {shape}, senses {n} labels", "zh": "vectors {shape}，senses 为 {n} 个标签"},
    "check knn the accuracy": {"en": "The accuracy", "zh": "准确率"},
    "check knn right": {"en": "the leave-one-out 1-NN accuracy matches on {trials} random inputs (n from {span}).",
                        "zh": "在 {trials} 组随机输入上（n 取 {span}），留一法 1-NN 准确率都一致。"},
    "check knn got": {"en": "got {got:.4g}, expected {expected:.4g}", "zh": "实际为 {got:.4g}，应为 {expected:.4g}"},
    "check knn itself": {
        "en": "Every occurrence is its own nearest neighbour: leave it out (exclude the diagonal of the similarity "
              "matrix) and take the most similar OTHER occurrence ({got})",
        "zh": "每个词元都成了自己的最近邻：要把它自己留出（排除相似度矩阵的对角线），取与它最相似的另一个词元（{got}"
              "）"},
    "check knn euclidean": {
        "en": "Your nearest neighbours are by Euclidean distance; the probe compares occurrences by cosine "
              "similarity, which ignores the vectors' lengths ({got})",
        "zh": "你的最近邻是按欧氏距离找的；这个探针用余弦相似度比较词元，它不受向量长度影响（{got}）"},
    "check knn dot": {
        "en": "Your nearest neighbours are by dot product; the probe uses cosine similarity: normalise the vectors "
              "to unit length first ({got})",
        "zh": "你的最近邻是按点积找的；这个探针用余弦相似度：应先把向量归一化为单位长度（{got}）"},
    "check knn least": {
        "en": "Your neighbour is the LEAST similar occurrence: with cosine similarity the nearest neighbour has the "
              "largest value ({got})",
        "zh": "你取的是最不相似的词元：用余弦相似度时，最近邻是值最大的那个（{got}）"},
    "check knn count": {
        "en": "You return the number of occurrences labelled right ({got:g}) instead of the fraction of the n={n} "
              "occurrences ({expected:.4g})",
        "zh": "你返回的是标对的词元个数（{got:g}），而不是它在 n={n} 个词元中所占的比例（{expected:.4g}）"},
    "check knn found itself": {
        "en": "An accuracy of 1.0 where leave-one-out gives {expected:.4g} suggests every occurrence found itself: "
              "leave it out",
        "zh": "留一法给出 {expected:.4g}，而你得到 1.0，说明每个词元都找到了它自己：要把它自己留出"},
    "check knn range": {"en": "An accuracy must lie in [0, 1], {got}", "zh": "准确率必须在 [0, 1] 之内，{got}"},
    "check knn differs": {"en": "The accuracy differs from leave-one-out 1-NN with cosine similarity: {got}",
                          "zh": "准确率与基于余弦相似度的留一法 1-NN 不符：{got}"},
    # the scalar mix (notebook 08)
    "check mix not a tensor": {
        "en": "Your function returns {got}; return a torch tensor made with torch operations, so that gradients "
              "reach s and gamma",
        "zh": "你的函数返回的是 {got}；应返回用 torch 运算得到的 torch 张量，这样梯度才能传到 s 和 gamma"},
    "check mix sum over j": {"en": ": sum the weighted layers over j", "zh": "：应对加权后的各层在 j 上求和"},
    "check mix shape": {"en": "The mix should have shape (n, d) = {wanted}, got {shape}{hint}",
                        "zh": "混合结果的形状应为 (n, d) = {wanted}，实际为 {shape}{hint}"},
    "check mix right": {
        "en": "the mix and its gradients for s and gamma match ScalarMix on {trials} random inputs (L from {layers}, "
              "n from {n}).",
        "zh": "在 {trials} 组随机输入上（L 取 {layers}，n 取 {n}），混合结果及其对 s 和 gamma 的梯度都与 ScalarMix 一"
              "致。"},
    "check mix s as weights": {
        "en": "uses s itself as the layer weights; ELMo turns them into softmax(s)_j = exp(s_j) / Σ_i exp(s_i)",
        "zh": "直接把 s 当作各层的权重；ELMo 要把它们变成 softmax(s)_j = exp(s_j) / Σ_i exp(s_i)"},
    "check mix s over its sum": {
        "en": "divides s by its sum; the weights are softmax(s) (exp first, then normalise), which keeps them "
              "positive",
        "zh": "把 s 除以它的和；权重应是 softmax(s)（先取 exp 再归一化），这样权重始终为正"},
    "check mix half a softmax": {"en": "uses exp(s) without dividing by Σ_i exp(s_i): that is half a softmax",
                                 "zh": "用了 exp(s)，却没有除以 Σ_i exp(s_i)：这只是半个 softmax"},
    "check mix ignores s": {"en": "ignores s: every layer gets the same weight", "zh": "忽略了 s：每一层的权重都一样"},
    "check mix no weights": {"en": "adds the layers up without weights", "zh": "把各层直接相加，没有加权"},
    "check mix no gamma": {"en": "leaves out gamma: scale the mix by gamma",
                           "zh": "漏掉了 gamma：应把混合结果乘以 gamma"},
    "check mix yours": {"en": "Your mix {parts}", "zh": "你的混合{parts}"},
    "check mix and": {"en": "; and ", "zh": "；而且"},
    "check mix differs": {"en": "The mix differs from gamma · Σ_j softmax(s)_j layers_j: {worst}",
                          "zh": "混合结果与 gamma · Σ_j softmax(s)_j layers_j 不符：{worst}"},
    "check mix detached": {
        "en": "No gradient reaches s or gamma: the mix is detached from them (made with numpy, .item(), .detach(), "
              "torch.no_grad() or torch.tensor(...) of computed values); keep to torch operations on s and gamma",
        "zh": "梯度传不到 s 和 gamma：混合结果与它们断开了（用了 numpy、.item()、.detach()、torch.no_grad()，或对算好"
              "的值调用 torch.tensor(...)）；对 s 和 gamma 只用 torch 运算"},
    "check mix no gradient": {
        "en": "No gradient reaches {name}: the mix uses a detached copy of it (.item(), .detach(), .numpy() or "
              "float(...))",
        "zh": "梯度传不到 {name}：混合用的是它断开计算图的副本（.item()、.detach()、.numpy() 或 float(...)）"},
    "check mix wrong gradient": {
        "en": "The gradient reaching {name} is wrong: {worst}; build the mix from {name} with torch operations only",
        "zh": "传到 {name} 的梯度不对：{worst}；从 {name} 出发构造混合结果时只用 torch 运算"},
    # course.teaching.checks.transfer: entity spans and entity F1 (notebook 09)
    "check spans returns": {"en": "Return a list of (type, start, end) tuples, got {got}",
                            "zh": "应返回由 (type, start, end) 元组组成的列表，实际返回的是 {got}"},
    "check spans item": {"en": "Each entity should be a (type, start, end) tuple, got {item!r}",
                         "zh": "每个实体都应是一个 (type, start, end) 元组，实际为 {item!r}"},
    "check spans whole numbers": {"en": "start and end should be whole numbers, got {item!r}",
                                  "zh": "start 和 end 应当是整数，实际为 {item!r}"},
    "check spans inclusive": {
        "en": "Your ends are one short: return `end` exclusive, as Python slices are, so that labels[start:end] is "
              "the whole entity",
        "zh": "你的 end 少了 1：end 应像 Python 的切片那样不含在内，这样 labels[start:end] 才是整个实体"},
    "check spans strict": {
        "en": "An I-X that does not continue an entity of type X starts a new entity (the CoNLL rule, as seqeval "
              "reads it); you drop it",
        "zh": "不接在类型 X 的实体后面的 I-X 开始一个新实体（CoNLL 的规则，seqeval 也这样读）；你把它丢掉了"},
    "check spans types": {
        "en": "An I-Y right after an entity of type X starts a new entity of type Y; you continue the old one",
        "zh": "紧跟在类型 X 的实体之后的 I-Y 开始一个类型为 Y 的新实体；你却把它接在了原来的实体上"},
    "check spans differ": {"en": "For labels {labels} the entities are {reference}, your function gives {spans}",
                           "zh": "对标签 {labels}，实体应为 {reference}，你的函数给出的是 {spans}"},
    "check spans where": {"en": "labels {labels}", "zh": "标签 {labels}"},
    "check spans shapes": {"en": "({n},) labels", "zh": "({n},) 个标签"},
    "check spans right": {
        "en": "the entities of {trials} label sequences (well-formed and not, up to 15 labels) match the CoNLL rule.",
        "zh": "{trials} 个标签序列（有合乎规范的，也有不合规范的，最长 15 个标签）的实体都符合 CoNLL 的规则。"},
    "check f1 tokens": {
        "en": "You count words; F1 counts entities: an entity is found only when its type and both ends are right",
        "zh": "你数的是词；F1 数的是实体：只有类型和两端都对，才算找到了一个实体"},
    "check f1 types": {"en": "An entity with the right ends but the wrong type is not found: compare the type too",
                       "zh": "两端对而类型错的实体不算找到：类型也要比较"},
    "check f1 swapped": {
        "en": "Precision and recall are swapped: precision divides by the predicted entities, recall by the gold ones",
        "zh": "精确率和召回率弄反了：精确率除以预测出的实体数，召回率除以标准答案中的实体数"},
    "check f1 differs": {
        "en": "Expected (precision, recall, F1) = ({p:.4f}, {r:.4f}, {f:.4f}), your function gives ({your_p:.4f}, "
              "{your_r:.4f}, {your_f:.4f})",
        "zh": "(precision, recall, F1) 应为 ({p:.4f}, {r:.4f}, {f:.4f})，你的函数给出的是 ({your_p:.4f}, "
              "{your_r:.4f}, {your_f:.4f})"},
    "check f1 where": {"en": "gold {gold} and predicted {predicted}", "zh": "标准答案 {gold}，预测 {predicted}"},
    "check f1 right": {"en": "precision, recall and F1 of {trials} taggings match the entity-level (CoNLL) measure.",
                       "zh": "{trials} 次标注的精确率、召回率和 F1 都与实体级（CoNLL）的度量一致。"},
    # ULMFiT's slanted triangular and discriminative learning rates (notebook 10)
    "check stlr where": {
        "en": "step {step} of {total}, max_rate {top:.4g}, cut_frac {cut_frac:.3g}, ratio {ratio:.3g}",
        "zh": "第 {step} 步（共 {total} 步），max_rate {top:.4g}，cut_frac {cut_frac:.3g}，ratio {ratio:.3g}"},
    "check stlr shapes": {"en": "five numbers", "zh": "五个数"},
    "check stlr the rate": {"en": "the rate", "zh": "学习率"},
    "check stlr no ratio": {
        "en": "Your rate falls to 0: the lowest rate is max_rate / ratio, eta_t = max_rate (1 + p (ratio - 1)) / "
              "ratio",
        "zh": "你的学习率降到了 0：最低的学习率是 max_rate / ratio，eta_t = max_rate (1 + p (ratio - 1)) / ratio"},
    "check stlr no fall": {"en": "After the cut the rate must fall: p = 1 - (t - cut) / (cut (1/cut_frac - 1))",
                           "zh": "过了 cut 之后学习率必须下降：p = 1 - (t - cut) / (cut (1/cut_frac - 1))"},
    "check stlr differs": {"en": "Your rate is {value:.6g}; it should be {reference:.6g}",
                           "zh": "你的学习率为 {value:.6g}；应为 {reference:.6g}"},
    "check stlr right": {
        "en": "the slanted triangular rates of {trials} steps (rise, peak, fall, both ends) match ULMFiT's formula.",
        "zh": "{trials} 个步数（上升段、峰值、下降段和两端）的斜三角学习率都与 ULMFiT 的公式一致。"},
    "check rates where": {"en": "top_rate {top:.4g}, {groups} groups, factor {factor:.3g}",
                          "zh": "top_rate {top:.4g}，{groups} 组，factor {factor:.3g}"},
    "check rates shapes": {"en": "three numbers", "zh": "三个数"},
    "check rates the rates": {"en": "the rates", "zh": "各组学习率"},
    "check rates order": {
        "en": "Your rates are top group first: give the bottom group (the token encoder) first and the top group "
              "(the head) last",
        "zh": "你的学习率把最上面的一组排在了最前：应先给最下面的一组（词元编码器），最后给最上面的一组（分类头）"},
    "check rates subtract": {"en": "Each group down divides by the factor; it does not subtract",
                             "zh": "每往下一组是除以 factor，而不是减去"},
    "check rates differ": {"en": "Your rates are {value}; they should be {reference}",
                           "zh": "你的学习率为 {value}；应为 {reference}"},
    "check rates right": {
        "en": "the rates of {trials} stacks of layer groups match eta^(l-1) = eta^l / factor, bottom group first.",
        "zh": "{trials} 组层组的学习率都符合 eta^(l-1) = eta^l / factor，且最下面的一组在前。"},
    # course.teaching.checks.transformer: scaled dot-product attention with a mask (notebook 11)
    "check attention no scale": {
        "en": "Your scores are not scaled: divide q k^T by sqrt(d_k), the square root of the keys' size, before the "
              "softmax",
        "zh": "你的注意力分数没有缩放：在 softmax 之前要把 q k^T 除以 sqrt(d_k)，即键的维数的平方根"},
    "check attention by d": {"en": "You divide the scores by d_k; divide by its square root, sqrt(d_k)",
                             "zh": "你把分数除以了 d_k；应除以它的平方根 sqrt(d_k)"},
    "check attention queries axis": {
        "en": "Your softmax runs over the queries (down each column); it must run over the keys, along each row, so "
              "that each query's weights sum to 1",
        "zh": "你的 softmax 是在查询上做的（沿每一列往下）；它必须在键上做，即沿每一行，这样每个查询的权重之和才为 1"},
    "check attention inverted": {
        "en": "Your mask is inverted: True means the query MAY look at that key; put -inf where the mask is False",
        "zh": "你的掩码用反了：True 表示查询可以看那个键；应在掩码为 False 的地方填 -inf"},
    "check attention multiply": {
        "en": "You multiply the weights by the mask after the softmax, so the rows no longer sum to 1: put -inf in "
              "the scores where the mask is False, before the softmax",
        "zh": "你在 softmax 之后把权重乘以掩码，于是每行之和不再是 1：应在 softmax 之前，在掩码为 False 的地方把分数"
              "设为 -inf"},
    "check attention keys as values": {"en": "Your output averages the keys: the output is weights @ v, the values",
                                       "zh": "你的输出是对键求的加权平均：输出应为 weights @ v，即对值求平均"},
    "check attention transposed": {
        "en": "Your weights are transposed: return them as (T_q, T_k), one row per query, its weights over the keys",
        "zh": "你的权重转置了：应以 (T_q, T_k) 返回，每个查询一行，是它在各个键上的权重"},
    "check attention rows": {
        "en": "Each query's weights (a row) should sum to 1 over the keys it may look at; yours sum to {sums}",
        "zh": "每个查询的权重（一行）在它可以看的键上之和应为 1；你的各行之和为 {sums}"},
    "check attention masked": {"en": "A key the mask forbids (mask False) must get weight exactly 0",
                               "zh": "掩码禁止的键（mask 为 False）的权重必须恰好为 0"},
    "check attention weights differ": {"en": "Your weights differ from softmax(q k^T / sqrt(d_k) + M): {worst}",
                                       "zh": "你的权重与 softmax(q k^T / sqrt(d_k) + M) 不符：{worst}"},
    "check attention output differs": {"en": "Your weights are right but your output is not weights @ v: {worst}",
                                       "zh": "你的权重是对的，但输出不是 weights @ v：{worst}"},
    "check attention nan": {
        "en": "Your weights contain nan or inf. Every query here may look at one key at least, so no row of scores "
              "should be all -inf: is your mask inverted? True means the query MAY look at that key; put -inf where "
              "the mask is False",
        "zh": "你的权重中含有 nan 或 inf。这里每个查询至少可以看一个键，所以分数不应有整行都是 -inf 的：是不是掩码用"
              "反了？True 表示查询可以看那个键；应在掩码为 False 的地方填 -inf"},
    "check attention no mask": {"en": "no mask", "zh": "无掩码"},
    "check attention returns": {"en": "Return two arrays, (output, weights); got {got}",
                                "zh": "应返回两个数组 (output, weights)；实际返回的是 {got}"},
    "check attention keys' width": {
        "en": "Your output has the keys' width d, not the values' d_v: the output is weights @ v, not weights @ k",
        "zh": "你的输出宽度是键的维数 d，而不是值的维数 d_v：输出应为 weights @ v，而不是 weights @ k"},
    "check attention right": {
        "en": "output and weights of {trials} attentions (1 x 1 up to 8 x 8, with and without a mask) match "
              "softmax(q k^T / sqrt(d_k) + M) v.",
        "zh": "{trials} 次注意力计算（从 1 x 1 到 8 x 8，有掩码和无掩码）的输出和权重都与 softmax(q k^T / sqrt(d_k) "
              "+ M) v 一致。"},
    # course.teaching.checks.attention: attention over a padded batch (notebook 11)
    "check padded after": {
        "en": "You apply the mask after the softmax (the weights times the mask), so a real query's weights no "
              "longer sum to 1: the forbidden keys already took their share of the softmax's denominator. Put -inf "
              "in the scores where a key is forbidden, before the softmax",
        "zh": "你在 softmax 之后才用掩码（权重乘以掩码），于是真实查询的权重之和不再是 1：被禁止的键已经在 softmax 的"
              "分母里占了一份。应在 softmax 之前，把被禁止的键的分数设为 -inf"},
    "check padded query_only": {
        "en": "You mask the padding on the query axis only: a real position still gives weight to padded keys. A "
              "padded position must never be looked at, so mask it as a key too (along the last axis); with padding "
              "before the words, or without the causal mask, it shows",
        "zh": "你只在查询这一维上屏蔽了填充：真实位置仍然给填充的键分了权重。填充位置绝不能被看到，所以作为键也要屏蔽"
              "（沿最后一维）；填充在词之前、或者不用因果掩码时，这个错误就会显现"},
    "check padded diagonal:strict": {
        "en": "Your causal mask is off by one: position t may look at s <= t, itself included; yours allows s < t "
              "only, so the first word of a sentence has nothing to look at",
        "zh": "你的因果掩码差了一位：位置 t 可以看 s <= t，包括它自己；你的只允许 s < t，于是句子的第一个词什么也看不"
              "到"},
    "check padded diagonal:next": {
        "en": "Your causal mask is off by one: it lets position t look at s = t + 1, the next word; allow s <= t only",
        "zh": "你的因果掩码差了一位：它让位置 t 看到了 s = t + 1，即下一个词；只应允许 s <= t"},
    "check padded diagonal:upper": {
        "en": "Your causal mask is the wrong triangle: position t looks at s >= t, the words after it; it must look "
              "at s <= t",
        "zh": "你的因果掩码取错了三角：位置 t 看的是 s >= t，即它后面的词；它只能看 s <= t"},
    "check padded no_causal": {
        "en": "You ignore causal=True: every position sees the words after it too; with causal=True position t may "
              "look at s <= t only",
        "zh": "你忽略了 causal=True：每个位置也看到了它后面的词；causal=True 时位置 t 只能看 s <= t"},
    "check padded always_causal": {
        "en": "You apply the causal mask although causal=False: then every real position may look at every real "
              "position, before it or after it (as in BERT)",
        "zh": "causal=False 时你仍然用了因果掩码：这时每个真实位置都可以看所有真实位置，无论在前还是在后（和 BERT 一"
              "样）"},
    "check padded no_padding": {
        "en": "The padding is not masked at all: real positions look at padded keys, and padded positions come out "
              "as if they were words. Mask padded keys, and give padded queries zeros",
        "zh": "填充完全没有屏蔽：真实位置看了填充的键，填充位置的结果也像词一样算了出来。应屏蔽填充的键，并让填充的查"
              "询输出全零"},
    "check padded nan": {
        "en": "Your padded query positions come out as nan: once padding is masked on the query axis too, a padded "
              "position has no key left, its scores are all -inf, and the softmax of a row of -inf is 0/0. A padded "
              "query must come out as zeros (its weights and its output), never nan",
        "zh": "你的填充查询位置得到了 nan：在查询这一维上也屏蔽填充之后，填充位置就没有可看的键了，它的分数全是 -inf"
              "，而一整行 -inf 的 softmax 是 0/0。填充的查询必须输出全零（权重和输出都是），绝不能是 nan"},
    "check padded padded_queries": {
        "en": "Your padded query positions are not zeros: they attend to the real keys they are allowed (the "
              "course's module leaves them so, as its loss never reads them). Here a padded query must come out as "
              "zeros, its weights and its output",
        "zh": "你的填充查询位置不是全零：它们关注了允许看的真实键（课程的模块就是这样留着的，因为损失从不读取它们）。"
              "这里填充的查询必须输出全零，权重和输出都是"},
    "check padded padded_queries+nan": {
        "en": "Your padded query positions are not zeros: they attend to the keys they are allowed, and where none "
              "is allowed (padding before the first word, with the causal mask) they come out as nan. A padded query "
              "must come out as zeros, its weights and its output, never nan",
        "zh": "你的填充查询位置不是全零：它们关注了允许看的键；在一个键也不允许看的地方（第一个词之前的填充，且用了因"
              "果掩码）它们得到了 nan。填充的查询必须输出全零，权重和输出都是，绝不能是 nan"},
    "check padded where": {"en": "B={batch}, T={width}, d={d}, d_v={d_v}, causal={causal}, real positions {real}",
                           "zh": "B={batch}，T={width}，d={d}，d_v={d_v}，causal={causal}，真实位置 {real}"},
    "check padded right": {
        "en": "output and weights of {trials} batches (B from {batch} sentences, T from {width}, padding before and "
              "after the words, with and without the causal mask) match the course's scaled_dot_product_attention, "
              "with zeros at the padded queries.",
        "zh": "{trials} 个批次（B 取 {batch} 个句子，T 取 {width}，填充在词之前和之后，有因果掩码和无因果掩码）的输出"
              "和权重都与课程的 scaled_dot_product_attention 一致，填充的查询处为全零。"},
    "check padded one matrix": {"en": ": one (T, T) matrix for the whole batch; return one per sentence",
                                "zh": "：整个批次只有一个 (T, T) 矩阵；应每个句子返回一个"},
    "check padded nan at a padded position": {
        "en": "Your padded query positions come out as nan or inf (sentence {b}, position {t}): a padded query must "
              "come out as zeros, its weights and its output",
        "zh": "你的填充查询位置得到了 nan 或 inf（第 {b} 个句子，位置 {t}）：填充的查询必须输出全零，权重和输出都是"},
    "check padded diagonal missing": {
        "en": ": is the diagonal missing from your causal mask (s < t instead of s <= t)?",
        "zh": "：是不是你的因果掩码缺了对角线（用了 s < t 而不是 s <= t）？"},
    "check padded nan at a real position": {
        "en": "Your output or weights have nan or inf at a real position (sentence {b}, position {t}): every real "
              "position may look at one key at least, itself{hint}",
        "zh": "你的输出或权重在真实位置上有 nan 或 inf（第 {b} 个句子，位置 {t}）：每个真实位置至少可以看一个键，即它"
              "自己{hint}"},
    "check padded a padded key": {"en": "a padded key", "zh": "一个填充的键"},
    "check padded a later position": {"en": "a later position", "zh": "一个靠后的位置"},
    "check padded forbidden": {
        "en": "Real position {t} of sentence {b} gives weight {weight:.3g} to position {s}, {what}; it must get "
              "exactly 0",
        "zh": "第 {b} 个句子的真实位置 {t} 给位置 {s}（{what}）分了 {weight:.3g} 的权重；它必须恰好是 0"},
    "check padded not zeros": {
        "en": "Padded position {t} of sentence {b} does not come out as zeros (its weights and its output)",
        "zh": "第 {b} 个句子的填充位置 {t} 没有输出全零（它的权重和输出）"},
    "check padded rows": {
        "en": "A real position's weights should sum to 1 over the keys it may look at; yours sum to {sums}",
        "zh": "真实位置的权重在它可以看的键上之和应为 1；你的和为 {sums}"},
    "check padded output differs": {"en": "Your weights are right but your output is not weights @ v",
                                    "zh": "你的权重是对的，但输出不是 weights @ v"},
    "check padded weights differ": {
        "en": "Your weights differ from the course's softmax(q k^T / sqrt(d) + M): at sentence {b}, query {t}, key "
              "{s} yours is {yours:.4g}, the course's {reference:.4g}",
        "zh": "你的权重与课程的 softmax(q k^T / sqrt(d) + M) 不符：在第 {b} 个句子、查询 {t}、键 {s} 处，你的是 "
              "{yours:.4g}，课程的是 {reference:.4g}"},
    # course.teaching.checks.bilm: the corpus perplexity (notebook 06)
    "check ppl no end": {
        "en": "leaves out the end of each sentence (its last log-probability, that of <eos>): the model predicts the "
              "end like any word, and the course counts it, N = the words plus one <eos> per sentence",
        "zh": "漏掉了每个句子的结尾（最后一个对数概率，即 <eos> 的）：模型像预测词一样预测句子的结尾，课程也把它算进"
              "去，N = 词数加上每句一个 <eos>"},
    "check ppl base 2": {
        "en": "raises 2 to the mean negative log-probability, but the log-probabilities are natural logs: take exp "
              "of it (2 ** H is right only when H is in bits, from log2 probabilities)",
        "zh": "对平均负对数概率取了 2 的幂，但这些对数概率是自然对数：应对它取 exp（只有当 H 以比特为单位、来自 log2 "
              "概率时，2 ** H 才对）"},
    "check ppl base 10": {
        "en": "raises 10 to the mean negative log-probability, but the log-probabilities are natural logs: take exp "
              "of it",
        "zh": "对平均负对数概率取了 10 的幂，但这些对数概率是自然对数：应对它取 exp"},
    "check ppl bits": {
        "en": "divides the mean by ln 2 (nats to bits) and then takes exp: base and unit must match, exp(H) with H "
              "in nats or 2 ** H with H in bits",
        "zh": "先把平均值除以 ln 2（奈特换成比特）再取 exp：底和单位必须对应，H 以奈特计就用 exp(H)，以比特计就用 2 "
              "** H"},
    "check ppl log10": {
        "en": "divides the mean by ln 10 and then takes exp: base and unit must match, and the log-probabilities are "
              "natural logs, so the perplexity is exp(H)",
        "zh": "先把平均值除以 ln 10 再取 exp：底和单位必须对应，而这些对数概率是自然对数，所以困惑度是 exp(H)"},
    "check ppl no exp": {
        "en": "is the mean negative log-probability itself (the cross-entropy H, in nats): the perplexity is exp(H)",
        "zh": "就是平均负对数概率本身（交叉熵 H，以奈特计）：困惑度是 exp(H)"},
    "check ppl sign": {
        "en": "has the sign flipped: exp(+mean log p) is 1 / perplexity, at most 1; the perplexity is exp(-(1/N) Σ "
              "log p)",
        "zh": "符号反了：exp(+mean log p) 是 1 / 困惑度，不超过 1；困惑度是 exp(-(1/N) Σ log p)"},
    "check ppl per sentence": {
        "en": "averages within each sentence first and then over the sentences, so a sentence of 2 predictions "
              "weighs as much as one of 40; average over all N predictions of the corpus at once",
        "zh": "先在每个句子内部取平均，再对句子取平均，于是只有 2 次预测的句子与有 40 次预测的句子权重相同；应对整个"
              "语料的全部 N 次预测一次取平均"},
    "check ppl mean of perplexities": {
        "en": "is the mean of the sentences' perplexities; the corpus perplexity is exp of the mean negative "
              "log-probability over all N predictions at once, not an average of perplexities",
        "zh": "是各句困惑度的平均；语料的困惑度是全部 N 次预测的平均负对数概率的 exp，而不是困惑度的平均"},
    "check ppl underflow": {
        "en": "Your perplexity is {value} on {n} predictions whose log-probabilities add up to {total:.0f}: the "
              "product of the probabilities (or exp of that sum) underflows to 0 in float64, which stops near "
              "1e-308; stay in logs, exp(-(Σ log p) / N)",
        "zh": "在 {n} 次预测上你的困惑度为 {value}，这些预测的对数概率之和为 {total:.0f}：概率的乘积（或这个和的 exp"
              "）在 float64 中下溢为 0，float64 在 1e-308 附近就到头了；应始终在对数域中计算，即 exp(-(Σ log p) / N)"},
    "check ppl not finite": {"en": "Your perplexity is {value}, expected {expected:.6g}",
                             "zh": "你的困惑度为 {value}，应为 {expected:.6g}"},
    "check ppl yours": {"en": "Your perplexity {parts} ({got})", "zh": "你的困惑度{parts}（{got}）"},
    "check ppl at least 1": {"en": "A perplexity is at least 1, since no probability is above 1 ({got})",
                             "zh": "困惑度至少为 1，因为没有哪个概率大于 1（{got}）"},
    "check ppl differs": {
        "en": "Your perplexity differs from exp(-(1/N) Σ log p) over all N predictions of all sentences ({got})",
        "zh": "你的困惑度与在所有句子全部 N 次预测上的 exp(-(1/N) Σ log p) 不符（{got}）"},
    "check ppl not a number": {"en": "The perplexity should be one number, got {got} ({error})",
                               "zh": "困惑度应当是一个数，实际得到 {got}（{error}）"},
    "check ppl not one number": {
        "en": "The perplexity should be one number for the whole held-out set, got an array of shape {shape}",
        "zh": "困惑度应当是整个留出集上的一个数，实际得到形状为 {shape} 的数组"},
    "check ppl shapes": {"en": "a list of {n} arrays of {span} log-probabilities",
                         "zh": "由 {n} 个数组组成的列表，每个数组有 {span} 个对数概率"},
    "check ppl where": {"en": "{sentences}, N={n} predictions", "zh": "{sentences}，N={n} 次预测"},
    "check ppl right": {
        "en": "the perplexity matches exp(-(1/N) Σ log p) over all N predictions on {trials} random held-out sets "
              "({sentences} sentences, N from {n}).",
        "zh": "在 {trials} 个随机留出集上（{sentences} 个句子，N 取 {n}），困惑度都与全部 N 次预测上的 exp(-(1/N) Σ "
              "log p) 一致。"},
    "check ppl no sentences": {"en": "no sentences to measure the perplexity on", "zh": "没有可用来计算困惑度的句子"},
    "check ppl model where": {"en": "{model} on {sentences}, N={n} predictions",
                              "zh": "{model}，{sentences}，N={n} 次预测"},
    "check ppl model right": {
        "en": "your perplexity of the {sentences} ({n:,} predictions, <eos> included) is {reference:,.2f}, as the "
              "model's own perplexity().",
        "zh": "你算出的这 {sentences}的困惑度（{n:,} 次预测，含 <eos>）为 {reference:,.2f}，与模型自己的 "
              "perplexity() 相同。"},
    # the char-CNN and its highway layer (notebook 06)
    "check cnn characters": {"en": "{low} to {high} characters", "zh": "{low} 到 {high} 个字符"},
    "check cnn where": {"en": "N={words} of {characters}, C={positions}, c={c}, filter widths {widths}, D={features}",
                        "zh": "N={words}，每词 {characters}，C={positions}，c={c}，卷积核宽度 {widths}，D={features}"},
    "check cnn wrong axis": {
        "en": "convolves along the wrong axis, the embedding's c numbers instead of the C positions: conv1d wants "
              "(N, channels, length) = (N, c, C), so transpose the (N, C, c) embeddings first",
        "zh": "沿错误的轴做了卷积，用的是嵌入的 c 个数而不是 C 个位置：conv1d 要求 (N, channels, length) = (N, c, C)"
              "，所以要先把 (N, C, c) 的嵌入转置"},
    "check cnn padding": {
        "en": "lets the padding into the max-pool: a window that starts on padding sees only zeros and scores the "
              "filter's bias b_i, which beats every window of a short word whenever b_i is larger; give the windows "
              "that start on padding -inf before the max",
        "zh": "让填充进入了最大池化：从填充处开始的窗口只看到零，得分就是卷积核的偏置 b_i，只要 b_i 更大，它就胜过短"
              "词的所有窗口；应在取最大值之前，把从填充处开始的窗口设为 -inf"},
    "check cnn inside": {
        "en": "keeps only the windows that lie wholly inside the word; a window may start at any character of the "
              "word and run past its end into zeros (pad the right end with w - 1 zero columns), so that a word "
              "shorter than the filter still gets a feature",
        "zh": "只保留了完全落在词内的窗口；窗口可以从词的任一字符开始，越过词尾伸进零里（在右端补 w - 1 列零），这样"
              "比卷积核还短的词也能得到特征"},
    "check cnn right end": {
        "en": "has no zero columns at the right end, so a word that fills its row loses its last w - 1 windows: pad "
              "the right end with w - 1 zeros before the convolution, so that every character starts a window",
        "zh": "右端没有补零列，于是占满整行的词丢掉了最后 w - 1 个窗口：卷积之前应在右端补 w - 1 个零，让每个字符都开"
              "始一个窗口"},
    "check cnn mean": {
        "en": "averages the scores over the positions; the char-CNN max-pools: each filter keeps its best match "
              "anywhere in the word",
        "zh": "对各位置的得分取了平均；字符 CNN 用的是最大池化：每个卷积核保留它在词中任意位置的最佳匹配"},
    "check cnn pooling axis": {
        "en": "max-pools over the wrong axis, the filters: the convolution gives (N, n_i, C), one score per filter "
              "and window start, and the max runs over the last axis, the C window positions, leaving (N, n_i)",
        "zh": "沿错误的轴（卷积核）做了最大池化：卷积给出 (N, n_i, C)，每个卷积核、每个窗口起点一个得分，最大值要沿最"
              "后一维，即 C 个窗口位置取，得到 (N, n_i)"},
    "check cnn gate": {
        "en": "has the highway gate the wrong way round: g = σ(W_T x + b_T) is the share of the input x carried "
              "through, y = g ⊙ x + (1 - g) ⊙ ReLU(W_H x + b_H); yours gives g to the transformed part",
        "zh": "高速网络层的门用反了：g = σ(W_T x + b_T) 是输入 x 直接通过的份额，y = g ⊙ x + (1 - g) ⊙ ReLU(W_H x + "
              "b_H)；你的把 g 给了变换的部分"},
    "check cnn layout": {
        "en": "uses W_H and W_T transposed: they are stored as nn.Linear stores its weight, (out, in), so W x is x @ "
              "W.T",
        "zh": "把 W_H 和 W_T 转置着用了：它们按 nn.Linear 存权重的方式存放，即 (out, in)，所以 W x 是 x @ W.T"},
    "check cnn transform relu": {"en": "has no ReLU in the highway's transformed part, ReLU(W_H x + b_H)",
                                 "zh": "高速网络层的变换部分缺少 ReLU，应为 ReLU(W_H x + b_H)"},
    "check cnn no highway": {
        "en": "stops after the pooling: the highway layer y = g ⊙ x + (1 - g) ⊙ ReLU(W_H x + b_H) is missing",
        "zh": "池化之后就停了：缺少高速网络层 y = g ⊙ x + (1 - g) ⊙ ReLU(W_H x + b_H)"},
    "check cnn no relu": {"en": "has no ReLU after the max-pool: each feature is ReLU(max over the windows)",
                          "zh": "最大池化之后缺少 ReLU：每个特征是 ReLU(各窗口上的最大值)"},
    "check cnn yours": {"en": "Your function {parts}", "zh": "你的函数{parts}"},
    "check cnn differs": {
        "en": "Your features differ from TokenEncoder's char-CNN and highway layer on the same weights: {worst}",
        "zh": "在相同的权重上，你的特征与 TokenEncoder 的字符 CNN 和高速网络层不符：{worst}"},
    "check cnn shapes": {"en": "embedded {embedded}, mask {mask}, {filters} and highway weights {highway}",
                         "zh": "embedded {embedded}，mask {mask}，{filters}，高速网络层权重 {highway}"},
    "check cnn conv1d said": {"en": "Your function {wrong} (conv1d said: {said})",
                              "zh": "你的函数{wrong}（conv1d 报告：{said}）"},
    "check cnn kernel too large": {
        "en": "Your function raised RuntimeError: {said}. A word here is shorter than a filter: pad the right end "
              "with w - 1 zero columns before the convolution, so that every character starts a window",
        "zh": "你的函数抛出了 RuntimeError：{said}。这里有一个词比卷积核还短：卷积之前应在右端补 w - 1 列零，让每个字"
              "符都开始一个窗口"},
    "check cnn axes": {
        "en": "{failure}. Check the axes: conv1d wants (N, c, C), channels first; max-pool each filter's (N, n_i, C) "
              "scores over the last axis, the window positions, to get (N, n_i), and put the widths' features side "
              "by side, (N, D).",
        "zh": "{failure}。请检查各个轴：conv1d 要求 (N, c, C)，通道在前；每个卷积核的 (N, n_i, C) 得分沿最后一维（窗"
              "口位置）做最大池化，得到 (N, n_i)，再把各宽度的特征并排拼起来，得到 (N, D)。"},
    "check cnn right": {
        "en": "the pooled features and the highway layer match TokenEncoder's on {trials} random batches of words (N "
              "from {words} words, C from {positions} positions, D from {features} features).",
        "zh": "在 {trials} 个随机的词批次上（N 取 {words} 个词，C 取 {positions} 个位置，D 取 {features} 个特征），池"
              "化后的特征和高速网络层都与 TokenEncoder 一致。"},
    "check cnn no highway layer": {"en": "the encoder has no highway layer", "zh": "这个编码器没有高速网络层"},
    "check cnn char ids": {"en": "char_ids should be (N, C) with a character in every row, got shape {shape}",
                           "zh": "char_ids 应为 (N, C)，且每行至少有一个字符，实际形状为 {shape}"},
    "check cnn model right": {
        "en": "on {words} and the model's own char-CNN ({filters} filters) and first highway layer, your features "
              "are those of its TokenEncoder.",
        "zh": "在 {words}以及模型自己的字符 CNN（{filters} 个卷积核）和第一个高速网络层上，你的特征与它的 "
              "TokenEncoder 相同。"},
    # course.teaching.checks.gradients: the gradients against finite differences (notebooks 02 and 04)
    "check gradients returns": {"en": "Your function should return a tuple ({names}) of {n} arrays, got {got}",
                                "zh": "你的函数应当返回含 {n} 个数组的元组 ({names})，实际返回的是 {got}"},
    "check gradients not the course's": {
        "en": "{name} matches the central finite differences but not the course's {function}: the largest difference "
              "is {difference:.3g}, in row {row}",
        "zh": "{name} 与中心有限差分一致，却与课程的 {function} 不符：差异最大处在第 {row} 行，相差 {difference:.3g}"},
    "check times once": {"en": "once", "zh": "1 次"},
    "check times twice": {"en": "twice", "zh": "2 次"},
    "check times": {"en": "{n} times", "zh": "{n} 次"},
    "check sgns shapes": {"en": "inputs {tables}, outputs {tables}, center an int, context an int, noise {noise}",
                          "zh": "inputs {tables}，outputs {tables}，center 和 context 为整数，noise {noise}"},
    "check sgns right": {
        "en": "both gradients match central differences of the loss and the course's gradients on {trials} random "
              "inputs (V from {size}, d from {d}, k from {k}; {repeated} with a noise word drawn more than once, "
              "{both} with the context word among the noise words).",
        "zh": "在 {trials} 组随机输入上（V 取 {size}，d 取 {d}，k 取 {k}；其中 {repeated}有噪声词被抽到不止一次，"
              "{both} 组的上下文词也在噪声词之中），两个梯度都与损失的中心差分以及课程的梯度一致。"},
    "check sgns center noise": {
        "en": "is missing the noise words' part: every noise term -log σ(-u_{draw}·v_c) depends on v_c too",
        "zh": "缺少噪声词的部分：每个噪声项 -log σ(-u_{draw}·v_c) 也依赖于 v_c"},
    "check sgns center true": {"en": "is missing the true context word's part, from -log σ(u_o·v_c)",
                               "zh": "缺少真实上下文词的部分，即来自 -log σ(u_o·v_c) 的那一项"},
    "check sgns center label": {
        "en": "treats the noise words like the true word: the derivative of -log σ(-x) is σ(x), not σ(x) - 1",
        "zh": "把噪声词当成了真实的上下文词：-log σ(-x) 的导数是 σ(x)，不是 σ(x) - 1"},
    "check sgns center distinct": {
        "en": "counts a noise word drawn several times only once: each draw is a term of the loss of its own",
        "zh": "被抽到多次的噪声词只算了一次：每一次抽取都是损失中单独的一项"},
    "check sgns center dropped": {
        "en": "leaves out the noise draws equal to the context word: word2vec.c skips them, but the loss here, as "
              "written, counts every draw",
        "zh": "漏掉了与上下文词相同的噪声抽样：word2vec.c 会跳过它们，但这里写出的损失计入每一次抽取"},
    "check sgns all signs": {
        "en": "Both gradients have the wrong sign: they point uphill, the direction of gradient ascent; return d "
              "loss / d table (the update subtracts it)",
        "zh": "两个梯度的符号都反了：它们指向上坡，即梯度上升的方向；应返回 d loss / d table（更新时减去它）"},
    "check sgns swapped": {
        "en": "grad_inputs and grad_outputs are swapped: grad_inputs is d loss / d inputs, the table of input "
              "vectors v_w, where only the centre word's row is non-zero",
        "zh": "grad_inputs 与 grad_outputs 弄反了：grad_inputs 是 d loss / d inputs，即对输入向量表 v_w 的梯度，其中"
              "只有中心词那一行非零"},
    "check sgns the centre word's": {"en": "the centre word's", "zh": "中心词的行"},
    "check sgns not the centre word": {"en": "a word that is not the centre word", "zh": "不是中心词的词"},
    "check sgns the context word": {"en": "the context word", "zh": "上下文词"},
    "check sgns drawn": {"en": "drawn {times} as a noise word", "zh": "作为噪声词被抽到 {times}"},
    "check sgns neither": {"en": "a word that is neither the context word nor a noise word",
                           "zh": "既不是上下文词也不是噪声词的词"},
    "check sgns generic": {
        "en": "{name} does not match the central finite differences of the loss: the largest difference is "
              "{difference:.3g}, in row {row} ({role})",
        "zh": "{name} 与损失的中心有限差分不符：差异最大处在第 {row} 行（{role}），相差 {difference:.3g}"},
    "check sgns the context word's": {"en": "the context word's", "zh": "上下文词的行"},
    "check sgns a noise word's": {"en": "a noise word's", "zh": "一个噪声词的行"},
    "check sgns another word's": {"en": "another word's", "zh": "另一个词的行"},
    "check sgns inputs row": {
        "en": "grad_inputs has a non-zero row {row} ({where}): only v_c, the centre word's row {center} of the input "
              "table, enters the loss, so every other row of grad_inputs is zero",
        "zh": "grad_inputs 的第 {row} 行（{where}）不为零：只有 v_c，即输入表中中心词的第 {center} 行进入损失，所以 "
              "grad_inputs 的其他行都是零"},
    "check sgns inputs sign": {
        "en": "grad_inputs has the wrong sign: it is -d loss / d v_c, the direction of gradient ascent; return the "
              "gradient itself",
        "zh": "grad_inputs 的符号反了：它是 -d loss / d v_c，即梯度上升的方向；应返回梯度本身"},
    "check sgns in the centre row": {"en": "grad_inputs, in the centre word's row, {wrong}",
                                     "zh": "grad_inputs 在中心词那一行{wrong}"},
    "check sgns outputs sign": {
        "en": "grad_outputs has the wrong sign: it is -d loss / d U, the direction of gradient ascent; return the "
              "gradient itself",
        "zh": "grad_outputs 的符号反了：它是 -d loss / d U，即梯度上升的方向；应返回梯度本身"},
    "check sgns outputs true label": {
        "en": "grad_outputs is off by v_c in the context word's row: the derivative of -log σ(x) is σ(x) - 1, not "
              "σ(x)",
        "zh": "grad_outputs 在上下文词那一行差了一个 v_c：-log σ(x) 的导数是 σ(x) - 1，不是 σ(x)"},
    "check sgns outputs noise label": {
        "en": "grad_outputs treats the noise words like the true word: the derivative of -log σ(-x) with respect to "
              "x is σ(x), not σ(x) - 1",
        "zh": "grad_outputs 把噪声词当成了真实的上下文词：-log σ(-x) 对 x 的导数是 σ(x)，不是 σ(x) - 1"},
    "check sgns outputs stray row": {
        "en": "grad_outputs has a non-zero row {row}, a word that is neither the context word {context} nor one of "
              "the noise words {noise}: the loss does not depend on that row",
        "zh": "grad_outputs 的第 {row} 行不为零，而这个词既不是上下文词 {context}，也不是噪声词 {noise} 之一：损失并"
              "不依赖于这一行"},
    "check sgns add each draw": {
        "en": "add each draw's part, e.g. with np.add.at(grad_outputs, noise, ...) or a loop over the draws",
        "zh": "应把每次抽取的部分都加上，例如用 np.add.at(grad_outputs, noise, ...)，或对各次抽取写一个循环"},
    "check sgns repeat": {
        "en": "Row {row} of grad_outputs holds the part of one draw, but word {row} was drawn {times} as a noise "
              "word, and each draw is a term of the loss of its own: their gradients add up. numpy's "
              "grad_outputs[noise] = ... and grad_outputs[noise] += ... write a repeated row once and keep one "
              "value; {add}",
        "zh": "grad_outputs 的第 {row} 行只有一次抽取的部分，但词 {row} 作为噪声词被抽到 {times}，每次抽取都是损失中"
              "单独的一项：它们的梯度要相加。numpy 的 grad_outputs[noise] = ... 和 grad_outputs[noise] += ... 对重复"
              "的行只写一次、只留一个值；{add}"},
    "check sgns context kept": {
        "en": "Row {row} of grad_outputs, the context word's, holds only the true word's part (σ(u_o·v_c) - 1) v_c, "
              "but the context word was also drawn {times} as a noise word, and each draw adds σ(u_o·v_c) v_c: "
              "either the context's part overwrote the noise part, or the draws equal to the context word were left "
              "out (word2vec.c skips them; the loss here, as written, counts every draw); {add}",
        "zh": "grad_outputs 的第 {row} 行（上下文词的行）只有真实词的部分 (σ(u_o·v_c) - 1) v_c，但上下文词也作为噪声"
              "词被抽到 {times}，每次抽取都要加上 σ(u_o·v_c) v_c：要么上下文的部分覆盖了噪声的部分，要么漏掉了与上下"
              "文词相同的抽样（word2vec.c 会跳过它们；这里写出的损失计入每一次抽取）；{add}"},
    "check sgns context lost": {
        "en": "Row {row} of grad_outputs, the context word's, is missing the true word's part (σ(u_o·v_c) - 1) v_c: "
              "the context word was also drawn {times} as a noise word, and the noise part overwrote the context's, "
              "where the two add up; write grad_outputs[context] += ... and add the noise parts, e.g. with "
              "np.add.at(grad_outputs, noise, ...)",
        "zh": "grad_outputs 的第 {row} 行（上下文词的行）缺少真实词的部分 (σ(u_o·v_c) - 1) v_c：上下文词也作为噪声词"
              "被抽到 {times}，噪声的部分覆盖了上下文的部分，而两者本应相加；应写 grad_outputs[context] += ...，再把"
              "噪声的部分加上，例如用 np.add.at(grad_outputs, noise, ...)"},
    "check gg no weighting": {
        "en": "the weighting f(x_n) is missing: each entry's squared error is multiplied by f(x_n), and so is its "
              "gradient",
        "zh": "缺少加权 f(x_n)：每个条目的平方误差都要乘以 f(x_n)，它的梯度也一样"},
    "check gg uncapped": {
        "en": "entries above x_max get the weight (x_n/x_max)^alpha, more than 1: f(x) = 1 from x_max on",
        "zh": "大于 x_max 的条目得到的权重是 (x_n/x_max)^alpha，超过了 1：从 x_max 起 f(x) = 1"},
    "check gg half": {
        "en": "a factor 2 is missing: that is the gradient of J/2, glove.c's convention and the course's "
              "glove_loss_and_gradients; the J here has no 1/2, and the derivative of e² is 2e",
        "zh": "少了因子 2：这是 J/2 的梯度，即 glove.c 的约定，也是课程的 glove_loss_and_gradients 的做法；这里的 J "
              "没有 1/2，而 e² 的导数是 2e"},
    "check gg sign": {
        "en": "the sign is wrong: with e = w_i·w~_k + b_i + b~_k - log x, d(e²)/dw_i = 2e w~_k; an error written the "
              "other way round, log x - w_i·w~_k - ..., brings a factor -1 from the chain rule",
        "zh": "符号反了：设 e = w_i·w~_k + b_i + b~_k - log x，则 d(e²)/dw_i = 2e w~_k；把误差反过来写成 log x - "
              "w_i·w~_k - ...，链式法则就会带出一个因子 -1"},
    "check gg sign and half": {"en": "the sign is wrong; and {half}", "zh": "符号反了；而且{half}"},
    "check gg mean": {"en": "divided by the number of entries: J is a sum over the entries, not a mean",
                      "zh": "除以了条目数：J 是对条目求和，不是求平均"},
    "check gg overwrite": {
        "en": "a word in several entries gets the gradient of one of them only: the entries' gradients add up. "
              "numpy's grad[rows] = ... and grad[rows] += ... write a repeated row once and keep one value; add them "
              "with np.add.at(grad, rows, ...), or np.bincount for the biases",
        "zh": "出现在多个条目中的词只得到了其中一个条目的梯度：各条目的梯度要相加。numpy 的 grad[rows] = ... 和 "
              "grad[rows] += ... 对重复的行只写一次、只留一个值；应用 np.add.at(grad, rows, ...) 累加，偏置可用 "
              "np.bincount"},
    "check gg partner": {
        "en": "built from the parameter's own vector: the derivative of w_i·w~_k with respect to w_i is w~_k, and "
              "with respect to w~_k it is w_i",
        "zh": "用参数自己的向量构造了梯度：w_i·w~_k 对 w_i 的导数是 w~_k，对 w~_k 的导数是 w_i"},
    "check gg log": {"en": "the error uses x_n where the loss has log x_n",
                     "zh": "误差中用的是 x_n，而损失中是 log x_n"},
    "check gg all four": {"en": "All four gradients", "zh": "四个梯度"},
    "check gg subject": {"en": "{subject}: {what}", "zh": "{subject}：{what}"},
    "check gg entry": {"en": "{n} entry", "zh": "{n} 个条目"},
    "check gg entries": {"en": "{n} entries", "zh": "{n} 个条目"},
    "check gg word i": {"en": "the word i of {entries}", "zh": "批次中 {entries}的词 i"},
    "check gg context word k": {"en": "the context word k of {entries}", "zh": "批次中 {entries}的上下文词 k"},
    "check gg generic": {
        "en": "{name} does not match the central finite differences of J: the largest difference is "
              "{difference:.3g}, in row {row} ({role} of the batch)",
        "zh": "{name} 与 J 的中心有限差分不符：差异最大处在第 {row} 行（{role}），相差 {difference:.3g}"},
    "check gg side i": {"en": "i (rows)", "zh": "i（rows）"},
    "check gg side k": {"en": "k (cols)", "zh": "k（cols）"},
    "check gg stray row": {
        "en": "{name} has a non-zero row {row}, but no entry of the batch has word {row} as its {side}: J does not "
              "depend on that row",
        "zh": "{name} 的第 {row} 行不为零，但批次中没有哪个条目以词 {row} 作为它的 {side}：J 并不依赖于这一行"},
    "check gg right": {
        "en": "the four gradients match central differences of J and the course's gradients on {trials} random "
              "batches (V from {size}, d from {d}, n from {n} entries; words in several entries, values above x_max).",
        "zh": "在 {trials} 个随机批次上（V 取 {size}，d 取 {d}，n 取 {n} 个条目；有的词出现在多个条目中，也有大于 "
              "x_max 的值），四个梯度都与 J 的中心差分以及课程的梯度一致。"},
}
