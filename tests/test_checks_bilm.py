"""The biLM assignments' checks (notebook 06): right answers pass, the usual mistakes fail with a message that
names them, and the teacher's solutions in the notebook pass."""

import math

import nbformat
import numpy as np
import pytest
import torch
import torch.nn.functional as F
from conftest import toy_corpus

from course.counts.ngram import KneserNeyLM
from course.elmo import CharacterVocabulary, ElmoConfig, TokenEncoder
from course.teaching.checks import CheckFailed
from course.teaching.checks.bilm import (
    _encoder_reference,
    _highway,
    _perplexity_reference,
    _pool,
    _random_words,
    check_char_cnn_highway,
    check_char_cnn_highway_on_encoder,
    check_perplexity,
    check_perplexity_on_model,
    kneser_ney_log_probs,
)
from tests.conftest import failure_message

SEEDS = (0, 1, 2)
NOTEBOOK = "notebooks/06_elmo_bilm.ipynb"

# ----------------------------------------------------------------------------------- perplexity


def perplexity(log_probs, *, tokens="all", how="corpus", power="exp"):
    """The right answer, with switches that make one mistake each."""
    if tokens == "no end":
        log_probs = [sentence[:-1] for sentence in log_probs]
    raise_to = {"exp": np.exp, "2": lambda h: 2.0**h, "10": lambda h: 10.0**h,
                "bits": lambda h: np.exp(h / math.log(2)), "none": lambda h: h, "sign": lambda h: np.exp(-h)}[power]
    if how == "corpus":
        return float(raise_to(-np.concatenate(log_probs).mean()))
    if how == "sentence means":
        return float(raise_to(np.mean([-sentence.mean() for sentence in log_probs])))
    if how == "mean of perplexities":
        return float(np.mean([raise_to(-sentence.mean()) for sentence in log_probs]))
    if how == "product":  # exact in real numbers, 0 ** (-1 / N) = inf in float64 once the product underflows
        with np.errstate(divide="ignore"):
            return float(np.prod(np.exp(np.concatenate(log_probs))) ** (-1 / sum(map(len, log_probs))))
    raise ValueError(how)


def wrong(function, **switches):
    def student(*args):
        return function(*args, **switches)

    return student


PERPLEXITY_MISTAKES = [  # (the wrong function, phrases its message must contain)
    (wrong(perplexity, how="mean of perplexities"), ["mean of the sentences' perplexities"]),
    (wrong(perplexity, how="sentence means"), ["averages within each sentence first"]),
    (wrong(perplexity, power="2"), ["raises 2", "natural logs"]),
    (wrong(perplexity, power="10"), ["raises 10", "natural logs"]),
    (wrong(perplexity, power="bits"), ["ln 2", "base and unit must match"]),
    (wrong(perplexity, tokens="no end"), ["leaves out the end of each sentence", "<eos>"]),
    (wrong(perplexity, tokens="no end", how="mean of perplexities"), ["<eos>", "mean of the sentences' perplexities"]),
    (wrong(perplexity, power="none"), ["cross-entropy", "exp(H)"]),
    (wrong(perplexity, power="sign"), ["sign flipped"]),
    (wrong(perplexity, how="product"), ["underflows", "stay in logs"]),
    (lambda log_probs: [perplexity([sentence]) for sentence in log_probs], ["one number"]),
]


def test_a_right_perplexity_passes_with_one_line(capsys):
    check_perplexity(perplexity, seed=11)
    check_perplexity(perplexity)
    check_perplexity(perplexity, seed=2026, trials=50)
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 3 and all(line.startswith("Right:") for line in lines), lines


@pytest.mark.parametrize("seed", [*SEEDS, None])
@pytest.mark.parametrize(("function", "phrases"), PERPLEXITY_MISTAKES,
                         ids=[f"perplexity-{i}" for i in range(len(PERPLEXITY_MISTAKES))])
def test_a_perplexity_mistake_is_named(function, phrases, seed, capsys):
    message = failure_message(check_perplexity, function, capsys, seed=seed)
    for phrase in phrases:
        assert phrase in message, message
    assert "(with " in message


def test_the_perplexity_check_starts_small_and_reaches_thousands_of_predictions():
    seen = []

    def student(log_probs):
        seen.append([len(sentence) for sentence in log_probs])
        return perplexity(log_probs)

    check_perplexity(student, seed=0, trials=20)
    assert seen[:3] == [[2], [2, 5], [3, 2, 8]]
    assert all(min(lengths) >= 2 for lengths in seen)
    assert max(sum(lengths) for lengths in seen) > 1000


def test_the_perplexity_reference_is_the_ngram_models():
    corpus = [list(sentence) for sentence in toy_corpus(80)]
    for order, direction in ((1, "forward"), (2, "forward"), (3, "backward")):
        model = KneserNeyLM(corpus[:60], order=order, direction=direction)
        log_probs = kneser_ney_log_probs(model, corpus[60:])
        assert [len(array) for array in log_probs] == [len(sentence) + 1 for sentence in corpus[60:]]
        assert _perplexity_reference(log_probs) == pytest.approx(model.perplexity(corpus[60:]), rel=1e-12)


def test_the_perplexity_check_on_a_real_model(capsys):
    corpus = [list(sentence) for sentence in toy_corpus(80)]
    model = KneserNeyLM(corpus[:60], order=2)
    check_perplexity_on_model(perplexity, model, corpus[60:])
    assert capsys.readouterr().out.startswith("Right:")
    with pytest.raises(CheckFailed, match="leaves out the end of each sentence"):
        check_perplexity_on_model(wrong(perplexity, tokens="no end"), model, corpus[60:])


# ----------------------------------------------------------------------- char-CNN and highway layer


def char_cnn_highway(embedded, mask, filters, W_H, b_H, W_T, b_T, *, masked=True, windows="word", axis=2,
                     transpose=True, relu=True, gate="carry", linear=True, transform_relu=True, highway=True):
    """The right answer, with switches that make one mistake each (as a student would write them)."""
    x = embedded.transpose(1, 2) if transpose else embedded
    pooled = []
    for weight, bias in filters:
        width = weight.shape[2]
        if windows == "unpadded":
            scores = F.conv1d(x, weight, bias)
            keep = mask[:, : scores.shape[2]]
        else:
            scores = F.conv1d(F.pad(x, (0, width - 1)), weight, bias)
            keep = mask
            if windows == "inside":
                keep = torch.arange(scores.shape[2])[None, :] + width <= mask.sum(1, keepdim=True)
        if masked:
            scores = scores.masked_fill(~keep[:, None, :], float("-inf"))
        features = scores.max(dim=axis).values
        pooled.append(torch.relu(features) if relu else features)
    x = torch.cat(pooled, dim=1)
    if not highway:
        return x
    w_t, w_h = (W_T.T, W_H.T) if linear else (W_T, W_H)
    g = torch.sigmoid(x @ w_t + b_T)
    h = x @ w_h + b_H
    h = torch.relu(h) if transform_relu else h
    return g * x + (1 - g) * h if gate == "carry" else g * h + (1 - g) * x


CNN_MISTAKES = [  # (the wrong function, phrases its message must contain)
    (wrong(char_cnn_highway, gate="transform"), ["gate the wrong way round"]),
    (wrong(char_cnn_highway, masked=False), ["lets the padding into the max-pool"]),
    (wrong(char_cnn_highway, axis=1), ["wrong axis, the filters"]),
    (wrong(char_cnn_highway, transpose=False), ["wrong axis, the embedding", "transpose"]),
    (wrong(char_cnn_highway, windows="inside"), ["wholly inside the word"]),
    (wrong(char_cnn_highway, windows="unpadded"), ["right end"]),
    (wrong(char_cnn_highway, relu=False), ["no ReLU after the max-pool"]),
    (wrong(char_cnn_highway, linear=False), ["transposed", "x @ W.T"]),
    (wrong(char_cnn_highway, transform_relu=False), ["no ReLU in the highway's transformed part"]),
    (wrong(char_cnn_highway, highway=False), ["highway layer", "is missing"]),
    (wrong(char_cnn_highway, masked=False, gate="transform"), ["padding into the max-pool", "gate the wrong way"]),
    (lambda *args: char_cnn_highway(*args)[:, :-1], ["shape (N, D)"]),
]


def test_a_right_char_cnn_passes_with_one_line(capsys):
    check_char_cnn_highway(char_cnn_highway, seed=11)
    check_char_cnn_highway(char_cnn_highway)
    check_char_cnn_highway(char_cnn_highway, seed=2026, trials=50)
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 3 and all(line.startswith("Right:") for line in lines), lines


@pytest.mark.parametrize("seed", [*SEEDS, None])
@pytest.mark.parametrize(("function", "phrases"), CNN_MISTAKES, ids=[f"cnn-{i}" for i in range(len(CNN_MISTAKES))])
def test_a_char_cnn_mistake_is_named(function, phrases, seed, capsys):
    message = failure_message(check_char_cnn_highway, function, capsys, seed=seed)
    for phrase in phrases:
        assert phrase in message, message
    assert "(with " in message


def test_the_char_cnn_check_starts_small_with_short_words_and_padding():
    seen = []

    def student(embedded, mask, filters, *highway):
        seen.append((tuple(embedded.shape), mask.sum(1).tolist(), [tuple(w.shape) for w, _ in filters]))
        assert embedded.dtype == torch.float32 and mask.dtype == torch.bool
        assert torch.all(embedded[~mask] == 0) and torch.all(mask[:, :1])
        lengths = mask.sum(1, keepdim=True)
        assert torch.equal(mask, torch.arange(mask.shape[1])[None, :] < lengths)  # characters first
        return char_cnn_highway(embedded, mask, filters, *highway)

    check_char_cnn_highway(student, seed=0, trials=20)
    assert seen[:4] == [((1, 1, 1), [1], [(1, 1, 1)]), ((2, 4, 4), [1, 2], [(4, 4, 3)]),
                        ((3, 6, 6), [6, 3, 1], [(6, 6, 2)]), ((3, 5, 2), [5, 3, 1], [(2, 2, 1), (3, 2, 2)])]
    assert any(shape[1] > max(lengths) for shape, lengths, _ in seen)  # rows with more padding than needed


def test_the_flagged_reference_without_flags_is_the_token_encoder():
    rng = np.random.default_rng(0)
    for lengths, positions, char_dim, filters in [((1,), 1, 1, ((1, 1),)), ((4, 1, 7), 9, 5, ((1, 3), (3, 4), (5, 2)))]:
        words = _random_words(rng, lengths, positions, char_dim, filters)
        mine = _highway(words, _pool(words))
        assert torch.allclose(mine, _encoder_reference(words), atol=1e-12)


def differs(args, switches):
    try:
        return not torch.allclose(char_cnn_highway(*args), char_cnn_highway(*args, **switches))
    except RuntimeError:  # a row shorter than the filter, without the padding at the right end
        return True


def test_the_usual_mistakes_show_in_many_of_the_random_inputs():
    """Each mistake changes the answer on a good share of the check's inputs, so that no seed misses it."""
    inputs = []

    def student(*args):
        inputs.append(args)
        return char_cnn_highway(*args)

    check_char_cnn_highway(student, seed=4, trials=100)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # tiny tensors: a second thread only waits
    try:
        shares = {f"{key}={value}": np.mean([differs(args, {key: value}) for args in inputs])
                  for key, value in [("masked", False), ("windows", "inside"), ("windows", "unpadded"),
                                     ("relu", False), ("gate", "transform"), ("transform_relu", False)]}
    finally:
        torch.set_num_threads(threads)
    assert min(shares.values()) > 0.25, shares  # besides the edge cases, 16 random inputs of 20 to show it


def test_the_char_cnn_check_on_a_real_encoder(capsys):
    config = ElmoConfig(char_dim=6, filters=((1, 4), (2, 4), (3, 8)), highway_layers=2, projection_dim=8, lstm_dim=16,
                        max_characters=12)
    words = ["a", "the", "cat", "sees", "unbelievable", "dog", "<bos>", "<eos>"]
    vocab = CharacterVocabulary.from_words(["".join(words)], max_characters=config.max_characters)
    torch.manual_seed(0)
    encoder = TokenEncoder(config, len(vocab))
    char_ids = vocab.encode(words)
    check_char_cnn_highway_on_encoder(char_cnn_highway, encoder, char_ids)
    assert capsys.readouterr().out.startswith("Right:")
    for flags, phrase in [({"gate": "transform"}, "wrong way round"), ({"masked": False}, "padding")]:
        with torch.no_grad():  # biases of either sign, so that padding can win, as in a trained model
            for convolution in encoder.convolutions:
                convolution.bias.uniform_(-1, 1)
        with pytest.raises(CheckFailed, match=phrase):
            check_char_cnn_highway_on_encoder(wrong(char_cnn_highway, **flags), encoder, char_ids)
    # the first highway layer and the rest of the encoder give the encoder's own token vectors
    with torch.no_grad():
        encoder.eval()
        ids = torch.from_numpy(char_ids)
        highway = encoder.highways[0]
        h = char_cnn_highway(encoder.char_embedding(ids), ids != 0,
                             [(c.weight, c.bias) for c in encoder.convolutions], highway.transform.weight,
                             highway.transform.bias, highway.gate.weight, highway.gate.bias)
        assert torch.allclose(encoder.projection(encoder.highways[1](h)), encoder(ids), atol=1e-5)


def test_a_shape_error_says_which_axes():
    def pools_over_filters(*args):  # (N, C) per width: right shape only where C is the number of filters
        return char_cnn_highway(*args, axis=1)

    with pytest.raises(CheckFailed, match="wrong axis, the filters"):  # named: the second input lets it through
        check_char_cnn_highway(pools_over_filters, seed=0)
    calls = []

    def right_at_first(*args):
        calls.append(args)
        return (char_cnn_highway if len(calls) <= 3 else pools_over_filters)(*args)

    with pytest.raises(CheckFailed, match="^Your function raised RuntimeError.*Check the axes: conv1d wants"):
        check_char_cnn_highway(right_at_first, seed=0)


# ------------------------------------------------------------------------------- both checks


CHECKS = [(check_perplexity, perplexity), (check_char_cnn_highway, char_cnn_highway)]


@pytest.mark.parametrize(("check", "right"), CHECKS, ids=["perplexity", "char_cnn_highway"])
def test_not_implemented_comes_through_unchanged(check, right):
    error = NotImplementedError()

    def student(*args):
        raise error

    with pytest.raises(NotImplementedError) as raised:
        check(student)
    assert raised.value is error


@pytest.mark.parametrize(("check", "right"), CHECKS, ids=["perplexity", "char_cnn_highway"])
def test_other_exceptions_become_check_failed(check, right):
    def student(*args):
        raise TypeError("unsupported operand")

    with pytest.raises(CheckFailed, match=r"^Your function raised TypeError: unsupported operand on inputs of shape"):
        check(student)


def plain(value):
    if isinstance(value, torch.Tensor):
        return value.tolist()
    if isinstance(value, list | tuple):
        return [plain(item) for item in value]
    return np.asarray(value).tolist()


@pytest.mark.parametrize(("check", "right"), CHECKS, ids=["perplexity", "char_cnn_highway"])
def test_a_seed_repeats_the_inputs(check, right, capsys):
    def recorder(seen):
        def student(*args):
            seen.append(plain(args))
            return right(*args)

        return student

    runs = []
    for seed in (5, 5, None):
        runs.append([])
        check(recorder(runs[-1]), seed=seed, trials=6)
    assert len(runs[0]) == 6 and runs[0] == runs[1] and runs[0] != runs[2]


@pytest.mark.parametrize(("check", "right"), CHECKS, ids=["perplexity", "char_cnn_highway"])
def test_a_check_wants_the_function_itself(check, right):
    with pytest.raises(TypeError, match="function itself"):
        check(3.0)
    with pytest.raises(ValueError, match="trials"):
        check(right, trials=0)


# ----------------------------------------------------------------------------- the notebook


def notebook_solution(grade_id):
    """The teacher's solution cell of ``grade_id`` in notebook 06, run with the notebook's imports."""
    cells = [cell for cell in nbformat.read(NOTEBOOK, as_version=4).cells
             if cell.get("metadata", {}).get("nbgrader", {}).get("grade_id") == grade_id]
    assert len(cells) == 1 and cells[0].metadata["nbgrader"]["solution"]
    namespace = {"np": np, "torch": torch}
    exec(cells[0].source, namespace)
    return namespace[grade_id]


def test_the_notebooks_perplexity_solution_passes(capsys):
    solution = notebook_solution("perplexity")
    check_perplexity(solution, seed=2026, trials=50)
    corpus = [list(sentence) for sentence in toy_corpus(80)]
    check_perplexity_on_model(solution, KneserNeyLM(corpus[:60], order=2), corpus[60:])
    assert capsys.readouterr().out.count("Right:") == 2


def test_the_notebooks_char_cnn_solution_passes(capsys):
    solution = notebook_solution("char_cnn_highway")
    check_char_cnn_highway(solution, seed=2026, trials=50)
    assert capsys.readouterr().out.startswith("Right:")


def test_the_notebook_grades_both_with_the_points_asked():
    cells = {cell.get("metadata", {}).get("nbgrader", {}).get("grade_id"): cell
             for cell in nbformat.read(NOTEBOOK, as_version=4).cells}
    assert cells["perplexity_check"].metadata["nbgrader"]["points"] == 1
    assert cells["char_cnn_highway_check"].metadata["nbgrader"]["points"] == 2
    assert cells["perplexity_check"].source.startswith("check_perplexity(perplexity)\n")
    assert cells["char_cnn_highway_check"].source.startswith("check_char_cnn_highway(char_cnn_highway)\n")
