"""The assignment checks: right answers pass, the usual mistakes fail with a message that names them."""

import heapq
import itertools
from pathlib import Path

import numpy as np
import pytest

from course.teaching import checks
from course.teaching.checks import CheckFailed
from course.teaching.checks import word2vec as word2vec_checks
from course.ulmfit import discriminative_rates, slanted_triangular

SEEDS = (0, 1, 2)


# ---------------------------------------------------------------------------------- right answers


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


def negative_sampling_loss(center, context, noise, *, loss_sign=1, noise_term=True, noise_sign=-1,
                           grad_sign=1, center_noise=True, context_factor=1.0, noise_shift=0.0, squeeze=False,
                           items=4):
    """The right answer with flags that introduce one mistake each."""
    true_score, noise_scores = context @ center, noise @ center
    loss = -np.log(sigmoid(true_score))
    if noise_term:
        loss = loss - np.log(sigmoid(noise_sign * noise_scores)).sum()
    grad_center = (sigmoid(true_score) - 1) * context
    if center_noise:
        grad_center = grad_center + sigmoid(noise_scores) @ noise
    grad_context = context_factor * (sigmoid(true_score) - 1) * center
    grad_noise = np.outer(sigmoid(noise_scores) + noise_shift, center)
    if squeeze:
        grad_noise = grad_noise.squeeze()
    result = (loss_sign * loss, grad_sign * grad_center, grad_sign * grad_context, grad_sign * grad_noise)
    return result[:items]


def noise_distribution(counts, power=0.75, normalise=True):
    powered = np.asarray(counts, dtype=float) ** power
    return powered / powered.sum() if normalise else powered


def keep_probabilities(counts, sample):
    f = counts / counts.sum()
    return np.minimum(1.0, (np.sqrt(f / sample) + 1) * sample / f)


def huffman_code(counts, lightest=True):
    """Merge the two lightest nodes (or, with lightest=False, the two heaviest) until one is left."""
    tiebreak = itertools.count()
    sign = 1 if lightest else -1
    heap = [(sign * count, next(tiebreak), {word: ""}) for word, count in counts.items()]
    heapq.heapify(heap)
    while len(heap) > 1:
        weight0, _, codes0 = heapq.heappop(heap)
        weight1, _, codes1 = heapq.heappop(heap)
        merged = {word: "0" + code for word, code in codes0.items()} | {w: "1" + c for w, c in codes1.items()}
        heapq.heappush(heap, (weight0 + weight1, next(tiebreak), merged))
    return heap[0][2]


def glove_weighting(x, x_max=100.0, alpha=0.75):
    return np.where(x < x_max, (x / x_max) ** alpha, 1.0)


def glove_loss(w, w_context, b, b_context, x, x_max=100.0, alpha=0.75, *, weighted=True, biases=True, log=True,
               scale=1.0, mean=False):
    weights = glove_weighting(x, x_max, alpha) if weighted else 1.0
    residual = (w * w_context).sum(1) + (b + b_context if biases else 0) - (np.log(x) if log else x)
    terms = scale * weights * residual**2
    return terms.mean() if mean else terms.sum()


def analogy_3cosadd(kv, a, b, c):
    return kv.most_similar(positive=[b, c], negative=[a], topn=1)[0][0]


def analogy_numpy(kv, a, b, c, *, exclude=True, unit=True, signs=(-1, 1, 1)):
    vectors = kv.vectors.astype(np.float64)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    base = vectors / norms if unit else vectors
    ids = [kv.key_to_index[word] for word in (a, b, c)]
    scores = (base @ (np.asarray(signs, dtype=float) @ base[ids]))
    if exclude:
        scores[ids] = -np.inf
    return kv.index_to_key[int(np.argmax(scores))]


def sense_knn_accuracy(vectors, senses, *, leave_out=True, cosine=True, fraction=True):
    senses = np.asarray(senses)
    if cosine:
        unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
        similarity = unit @ unit.T
    else:
        similarity = -np.linalg.norm(vectors[:, None] - vectors[None], axis=2)
    if leave_out:
        np.fill_diagonal(similarity, -np.inf)
    correct = (senses[similarity.argmax(1)] == senses).sum()
    return correct / len(senses) if fraction else correct


def entity_spans(labels):
    from course.tasks.ner import entity_spans as reference

    return reference(labels)


def entity_f1(gold, predicted):
    from seqeval.metrics import f1_score, precision_score, recall_score

    return (precision_score(gold, predicted, zero_division=0), recall_score(gold, predicted, zero_division=0),
            f1_score(gold, predicted, zero_division=0))


def scalar_mix(layers, s, gamma, *, weights="softmax", with_gamma=True, summed=True, how="torch"):
    import torch

    if how == "numpy":
        w = np.exp(s.detach().numpy()) / np.exp(s.detach().numpy()).sum()
        return gamma.item() * np.tensordot(w, layers.numpy(), axes=1)
    w = {"softmax": torch.softmax(s, 0), "raw": s, "sum": s / s.sum()}[weights]
    mixed = w[:, None, None] * layers
    mixed = mixed.sum(0) if summed else mixed
    if how == "item":
        return gamma.item() * mixed
    mixed = gamma * mixed if with_gamma else mixed
    return mixed.detach() if how == "detach" else mixed


def masked_attention(q, k, v, mask=None, *, scale="sqrt", axis=-1, mask_how="add", values="v", transpose=False):
    """softmax(q k^T / sqrt(d_k) + M) v and the weights, with flags that introduce one mistake each."""
    scores = q @ k.T / {"sqrt": np.sqrt(q.shape[1]), "none": 1.0, "d": q.shape[1]}[scale]
    if mask is not None and mask_how in ("add", "inverted"):
        scores = np.where(mask if mask_how == "add" else ~mask, scores, -np.inf)
    with np.errstate(invalid="ignore"):
        weights = np.exp(scores - scores.max(axis=axis, keepdims=True))
        weights = weights / weights.sum(axis=axis, keepdims=True)
    if mask is not None and mask_how == "multiply":
        weights = weights * mask
    output = weights @ (v if values == "v" else k)
    return output, weights.T if transpose else weights


def wrong(function, **flags):
    def student(*args, **kwargs):
        return function(*args, **kwargs, **flags)

    return student


RIGHT = {
    "negative_sampling_loss": negative_sampling_loss,
    "noise_distribution": noise_distribution,
    "keep_probabilities": keep_probabilities,
    "huffman_code": huffman_code,
    "glove_weighting": glove_weighting,
    "glove_loss": glove_loss,
    "analogy_3cosadd": analogy_3cosadd,
    "sense_knn_accuracy": sense_knn_accuracy,
    "scalar_mix": scalar_mix,
    "entity_spans": entity_spans,
    "entity_f1": entity_f1,
    "slanted_triangular": slanted_triangular,
    "discriminative_rates": discriminative_rates,
    "masked_attention": masked_attention,
}


def test_entity_mistakes_are_named():
    def inclusive(labels):
        return [(kind, start, end - 1) for kind, start, end in entity_spans(labels)]

    def strict(labels):  # drops an I- that continues nothing
        return [span for span in entity_spans(labels) if labels[span[1]].startswith("B-")]

    for student, fragment in [(inclusive, "ends are one short"), (strict, "starts a new entity")]:
        with pytest.raises(CheckFailed, match=fragment):
            checks.check_entity_spans(student, seed=3)

    def by_words(gold, predicted):
        pairs = [(g == p) for gs, ps in zip(gold, predicted, strict=True) for g, p in zip(gs, ps, strict=True)
                 if g != "O" or p != "O"]
        value = float(np.mean(pairs)) if pairs else 0.0
        return value, value, value

    def swapped(gold, predicted):
        precision, recall, f1 = entity_f1(gold, predicted)
        return recall, precision, f1

    for student, fragment in [(by_words, "You count words"), (swapped, "swapped")]:
        with pytest.raises(CheckFailed, match=fragment):
            checks.check_entity_f1(student, seed=3)


def check_of(name):
    return getattr(checks, f"check_{name}")


@pytest.mark.parametrize("name", sorted(RIGHT))
def test_a_right_answer_passes_with_one_line(name, capsys):
    check_of(name)(RIGHT[name], seed=11)
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 1 and lines[0].startswith("Right:"), lines


@pytest.mark.parametrize("name", sorted(RIGHT))
def test_a_right_answer_passes_on_fresh_inputs(name, capsys):
    check_of(name)(RIGHT[name])
    check_of(name)(RIGHT[name], seed=2026, trials=50)
    assert capsys.readouterr().out.count("Right:") == 2


# The checks whose right and wrong answers are tested in a file of their own.
TESTED_APART = {"oov_rate_estimate": "corpus", "positive_pmi": "corpus", "negative_sampling_gradients": "gradients",
                "glove_gradients": "gradients", "entropy_bound": "bounds", "perplexity": "bilm",
                "char_cnn_highway": "bilm", "padded_attention": "attention", "bpe_merges": "subwords",
                "weat_effect_size": "bias"}


def test_the_public_names():
    assert sorted(checks.__all__) == sorted(["CheckFailed", *(f"check_{name}" for name in [*RIGHT, *TESTED_APART])])
    for name, topic in TESTED_APART.items():
        assert (Path(__file__).parent / f"test_checks_{topic}.py").read_text().count(f"check_{name}") > 1, name
    assert issubclass(CheckFailed, AssertionError)


# ------------------------------------------------------------------------------- mistakes found


def huffman_missing_word(counts):
    codes = huffman_code(counts)
    codes.pop(next(iter(codes)))
    return codes


def huffman_extra_word(counts):
    return huffman_code(counts) | {"not-a-word": "1" * 40}


def huffman_bit_lists(counts):
    return {word: [int(bit) for bit in code] for word, code in huffman_code(counts).items()}


def huffman_not_prefix_free(counts):
    return {word: bin(rank + 2)[3:] or "0" for rank, word in enumerate(sorted(counts, key=counts.get))}


def huffman_fixed_length(counts):
    width = max(1, int(np.ceil(np.log2(len(counts)))))
    return {word: format(i, f"0{width}b") for i, word in enumerate(counts)}


def weighting_plus_one(x, x_max=100.0, alpha=0.75):
    return np.minimum(1.0, ((x + 1) / x_max) ** alpha)


def weighting_fixed_x_max(x, x_max=100.0, alpha=0.75):
    return glove_weighting(x, 100.0, alpha)


def analogy_index(kv, a, b, c):
    return kv.key_to_index[analogy_3cosadd(kv, a, b, c)]


def analogy_pair(kv, a, b, c):
    return kv.most_similar(positive=[b, c], negative=[a], topn=1)[0]


MISTAKES = [  # (check, the wrong function, phrases the message must contain)
    ("negative_sampling_loss", wrong(negative_sampling_loss, items=3), ["4 items"]),
    ("negative_sampling_loss", wrong(negative_sampling_loss, squeeze=True), ["grad_noise", "shape"]),
    ("negative_sampling_loss", wrong(negative_sampling_loss, loss_sign=-1), ["loss has the wrong sign"]),
    ("negative_sampling_loss", wrong(negative_sampling_loss, noise_term=False), ["missing the noise term"]),
    ("negative_sampling_loss", wrong(negative_sampling_loss, noise_sign=1), ["wrong sign inside σ"]),
    ("negative_sampling_loss", wrong(negative_sampling_loss, grad_sign=-1), ["wrong sign", "ascent"]),
    ("negative_sampling_loss", wrong(negative_sampling_loss, center_noise=False), ["grad_center", "noise"]),
    ("negative_sampling_loss", wrong(negative_sampling_loss, context_factor=2.0), ["grad_context"]),
    ("negative_sampling_loss", wrong(negative_sampling_loss, noise_shift=-1.0), ["grad_noise"]),
    ("noise_distribution", wrong(noise_distribution, power=1.0), ["3/4 power is missing"]),
    ("noise_distribution", wrong(noise_distribution, normalise=False), ["not normalised", "sum to"]),
    ("noise_distribution", wrong(noise_distribution, power=0.5), ["power 0.5"]),
    ("noise_distribution", lambda counts: (counts / counts.sum()) ** 0.75, ["not normalised"]),
    ("noise_distribution", lambda counts: np.full(len(counts), 1 / len(counts)), ["same probability"]),
    ("keep_probabilities", lambda counts, t: np.sqrt(t / (counts / counts.sum())), ["paper", "sqrt(t/f)"]),
    ("keep_probabilities", lambda counts, t: 1 - np.sqrt(t / (counts / counts.sum())), ["paper", "discard"]),
    ("keep_probabilities", lambda counts, t: 1 - keep_probabilities(counts, t), ["discarding"]),
    ("keep_probabilities", lambda counts, t: (np.sqrt(counts / counts.sum() / t) + 1) * t / (counts / counts.sum()),
     ["not capped at 1"]),
    ("keep_probabilities", lambda counts, t: np.minimum(1, (np.sqrt(counts / t) + 1) * t / counts), ["raw counts"]),
    ("keep_probabilities", lambda counts, t: keep_probabilities(counts, 1e-3), ["ignore the sample"]),
    ("huffman_code", huffman_missing_word, ["without a code"]),
    ("huffman_code", huffman_extra_word, ["not in the counts"]),
    ("huffman_code", huffman_bit_lists, ["strings of '0' and '1'"]),
    ("huffman_code", huffman_not_prefix_free, ["not prefix-free"]),
    ("huffman_code", huffman_fixed_length, ["not optimal", "bits per word"]),
    ("huffman_code", wrong(huffman_code, lightest=False), ["not optimal", "two lightest"]),
    ("glove_weighting", lambda x, x_max=100.0, alpha=0.75: (x / x_max) ** alpha, ["not capped at 1"]),
    ("glove_weighting", lambda x, x_max=100.0, alpha=0.75: np.minimum(1, x / x_max), ["no power alpha"]),
    ("glove_weighting", weighting_plus_one, ["f(0) should be 0"]),
    ("glove_weighting", weighting_fixed_x_max, ["ignores the x_max argument"]),
    ("glove_weighting", lambda x, x_max=10.0, alpha=0.75: glove_weighting(x, x_max, alpha), ["default is 100"]),
    ("glove_loss", wrong(glove_loss, weighted=False), ["weighting f(x_n) is missing"]),
    ("glove_loss", wrong(glove_loss, biases=False), ["biases", "missing"]),
    ("glove_loss", wrong(glove_loss, log=False), ["log x_n"]),
    ("glove_loss", wrong(glove_loss, mean=True), ["mean"]),
    ("glove_loss", wrong(glove_loss, scale=0.5), ["exactly half", "glove.c"]),
    ("glove_loss", lambda *args, **kwargs: np.zeros(len(args[4])), ["one number"]),
    ("analogy_3cosadd", wrong(analogy_numpy, exclude=False), ["one of the question words"]),
    ("analogy_3cosadd", wrong(analogy_numpy, unit=False), ["not unit length"]),
    ("analogy_3cosadd", wrong(analogy_numpy, signs=(1, -1, 1)), ["offset a - b + c"]),
    ("analogy_3cosadd", analogy_index, ["index", "index_to_key"]),
    ("analogy_3cosadd", analogy_pair, ["only the word"]),
    ("sense_knn_accuracy", wrong(sense_knn_accuracy, leave_out=False), ["leave it out"]),
    ("sense_knn_accuracy", wrong(sense_knn_accuracy, cosine=False), ["Euclidean", "cosine"]),
    ("sense_knn_accuracy", wrong(sense_knn_accuracy, fraction=False), ["fraction"]),
    ("scalar_mix", wrong(scalar_mix, weights="raw"), ["softmax"]),
    ("scalar_mix", wrong(scalar_mix, weights="sum"), ["divides s by its sum", "softmax"]),
    ("scalar_mix", wrong(scalar_mix, with_gamma=False), ["leaves out gamma"]),
    ("scalar_mix", wrong(scalar_mix, summed=False), ["shape", "sum the weighted layers"]),
    ("scalar_mix", wrong(scalar_mix, how="numpy"), ["torch tensor"]),
    ("scalar_mix", wrong(scalar_mix, how="detach"), ["No gradient reaches s or gamma"]),
    ("scalar_mix", wrong(scalar_mix, how="item"), ["No gradient reaches gamma"]),
]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize(("name", "function", "phrases"), MISTAKES,
                         ids=[f"{name}-{i}" for i, (name, _, _) in enumerate(MISTAKES)])
def test_a_mistake_fails_with_a_message_that_names_it(name, function, phrases, seed, capsys):
    with pytest.raises(CheckFailed) as failure:
        check_of(name)(function, seed=seed)
    message = str(failure.value)
    for phrase in phrases:
        assert phrase in message, message
    assert "(with " in message and message.endswith(".")
    assert "Right:" not in capsys.readouterr().out


@pytest.mark.parametrize(("name", "function", "phrases"), MISTAKES[:1] + MISTAKES[9:10] + MISTAKES[-4:-3],
                         ids=["ns", "noise", "mix"])
def test_mistakes_are_found_without_a_seed(name, function, phrases):
    for _ in range(3):
        with pytest.raises(CheckFailed, match="|".join(phrases)):
            check_of(name)(function)


# ------------------------------------------------------------------------ errors and repeatability


@pytest.mark.parametrize("name", sorted(RIGHT))
def test_not_implemented_comes_through_unchanged(name):
    error = NotImplementedError()

    def student(*args, **kwargs):
        raise error

    with pytest.raises(NotImplementedError) as raised:
        check_of(name)(student)
    assert raised.value is error


@pytest.mark.parametrize("name", sorted(RIGHT))
def test_other_exceptions_become_check_failed(name):
    def student(*args, **kwargs):
        raise TypeError("unsupported operand")

    with pytest.raises(CheckFailed, match=r"^Your function raised TypeError: unsupported operand on inputs of shape"):
        check_of(name)(student)


def as_plain(value):
    """Inputs as something == can compare: numbers and lists."""
    if isinstance(value, dict | str | list):
        return value
    if hasattr(value, "detach"):
        value = value.detach().numpy()
    return np.asarray(getattr(value, "vectors", value)).tolist()  # a KeyedVectors by its vectors


def recorder(name):
    seen = []

    def student(*args, **kwargs):
        seen.append(([as_plain(arg) for arg in args], kwargs))
        return RIGHT[name](*args, **kwargs)

    return student, seen


@pytest.mark.parametrize("name", sorted(RIGHT))
def test_a_seed_repeats_the_inputs(name, capsys):
    runs = []
    for seed in (5, 5, None):
        student, seen = recorder(name)
        check_of(name)(student, seed=seed, trials=6)
        runs.append(seen)
    assert len(runs[0]) == 6
    assert runs[0] == runs[1]
    assert runs[0] != runs[2]


def test_the_smallest_inputs_come_first():
    shapes = []

    def student(center, context, noise):
        shapes.append(noise.shape)
        return negative_sampling_loss(center, context, noise)

    checks.check_negative_sampling_loss(student, seed=0, trials=3)
    assert shapes == [(1, 1), (1, 4), (2, 3)]


def test_a_check_wants_the_function_itself():
    with pytest.raises(TypeError, match="function itself"):
        checks.check_noise_distribution(noise_distribution(np.array([3, 1])))
    with pytest.raises(ValueError, match="trials"):
        checks.check_noise_distribution(noise_distribution, trials=0)


# -------------------------------------------------------------------- agreement with the package


def test_the_negative_sampling_reference_matches_finite_differences():
    rng = np.random.default_rng(0)
    center, context, noise = rng.normal(size=5), rng.normal(size=5), rng.normal(size=(3, 5))
    loss, *grads = word2vec_checks._negative_sampling_reference(center, context, noise)
    inputs = [center, context, noise]
    for which, grad in enumerate(grads):
        numeric = np.zeros_like(grad)
        for index in np.ndindex(grad.shape):
            shifted = [array.copy() for array in inputs]
            shifted[which][index] += 1e-6
            up = word2vec_checks._negative_sampling_reference(*shifted)[0]
            shifted[which][index] -= 2e-6
            numeric[index] = (up - word2vec_checks._negative_sampling_reference(*shifted)[0]) / 2e-6
        np.testing.assert_allclose(grad, numeric, rtol=1e-6, atol=1e-8)


def test_the_trainers_negative_sampling_passes():
    import torch

    from course.word2vec import negative_sampling_loss as trainer_loss

    def student(center, context, noise):
        hidden = torch.from_numpy(center)[None]
        rows = torch.from_numpy(np.vstack([context, noise]))[None]
        loss, grad_hidden, grad_rows = trainer_loss(hidden, rows)
        return float(loss[0]), grad_hidden[0].numpy(), grad_rows[0, 0].numpy(), grad_rows[0, 1:].numpy()

    checks.check_negative_sampling_loss(student, seed=3)


@pytest.mark.filterwarnings("ignore:Sparse CSR tensor support:UserWarning")
def test_twice_the_trainers_glove_loss_passes():
    import torch

    from course.glove import glove_loss as trainer_loss

    def student(w, w_context, b, b_context, x, x_max=100.0, alpha=0.75):
        entries = torch.arange(len(x))
        tensors = [torch.from_numpy(array) for array in (w, w_context, b, b_context, x)]
        return 2 * float(trainer_loss(*tensors[:4], entries, entries, tensors[4], x_max, alpha)[0])

    checks.check_glove_loss(student, seed=3)


def test_the_evaluation_code_answers_analogies_the_same_way():
    from course.analysis.evaluate import _answer, _SearchSpace

    def student(kv, a, b, c):
        space = _SearchSpace.of(kv, len(kv), case_insensitive=False)
        question = np.asarray([[kv.key_to_index[word] for word in (a, b, c)]])
        return kv.index_to_key[int(_answer(space, question, "3cosadd", None)[0])]

    checks.check_analogy_3cosadd(student, seed=3)
    checks.check_analogy_3cosadd(analogy_numpy, seed=3)


def test_importing_the_checks_loads_neither_torch_nor_gensim():
    import subprocess
    import sys

    code = "import sys, course.teaching.checks; print(sorted({'torch', 'gensim', 'scipy'} & set(sys.modules)))"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"


def test_check_slanted_triangular_passes_the_formula_and_names_the_usual_mistakes():
    import math

    checks.check_slanted_triangular(slanted_triangular, seed=5)

    def to_zero(step, total, top, cut_frac, ratio):  # forgets the ratio: falls to 0
        cut = max(1, math.floor(total * cut_frac))
        p = step / cut if step < cut else 1 - (step - cut) / (cut * (1 / cut_frac - 1))
        return top * max(p, 0.0)

    with pytest.raises(CheckFailed, match="falls to 0"):
        checks.check_slanted_triangular(to_zero, seed=5)

    def never_falls(step, total, top, cut_frac, ratio):
        cut = max(1, math.floor(total * cut_frac))
        return top * (1 + (step / cut) * (ratio - 1)) / ratio

    with pytest.raises(CheckFailed, match="must fall"):
        checks.check_slanted_triangular(never_falls, seed=5)


def test_check_discriminative_rates_passes_the_rule_and_catches_the_wrong_order():
    checks.check_discriminative_rates(discriminative_rates, seed=5)
    with pytest.raises(CheckFailed, match="top group first"):
        checks.check_discriminative_rates(lambda top, n, f: discriminative_rates(top, n, f)[::-1], seed=5)
    with pytest.raises(CheckFailed, match="does not subtract"):
        checks.check_discriminative_rates(lambda top, n, f: [top - (n - 1 - g) * top / f for g in range(n)], seed=5)


def test_check_masked_attention_passes_the_formula_and_names_the_usual_mistakes(capsys):
    import torch

    from course.transformer import scaled_dot_product_attention

    def with_torch(q, k, v, mask=None):  # the package's own attention passes
        out, weights = scaled_dot_product_attention(*(torch.from_numpy(a) for a in (q, k, v)),
                                                    None if mask is None else torch.from_numpy(mask))
        return out.numpy(), weights.numpy()

    checks.check_masked_attention(with_torch, seed=5)
    assert capsys.readouterr().out.startswith("Right:")
    mistakes = [(dict(scale="none"), "not scaled"), (dict(scale="d"), "divide by its square root"),
                (dict(axis=0), "over the queries"), (dict(mask_how="inverted"), "inverted"),
                (dict(mask_how="multiply"), "no longer sum to 1"), (dict(values="k"), "weights @ v"),
                (dict(transpose=True), "transposed")]
    for seed in SEEDS:
        for flags, phrase in mistakes:
            with pytest.raises(CheckFailed, match=phrase):
                checks.check_masked_attention(wrong(masked_attention, **flags), seed=seed)
    assert "Right:" not in capsys.readouterr().out


def test_check_masked_attention_tries_one_by_one_first_and_masks_that_leave_a_key():
    seen = []

    def student(q, k, v, mask=None):
        seen.append((q.shape, k.shape, v.shape, None if mask is None else mask.copy()))
        return masked_attention(q, k, v, mask)

    checks.check_masked_attention(student, seed=0, trials=40)
    assert seen[0][:3] == ((1, 1), (1, 1), (1, 1)) and seen[0][3] is None
    masks = [mask for *_, mask in seen if mask is not None]
    assert masks and all(mask.dtype == bool and mask.any(axis=1).all() for mask in masks)
    assert any(not mask.all() for mask in masks)
