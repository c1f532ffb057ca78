"""Fine-tuning a pretrained Transformer with a classifier head (GPT's input transformation, BERT's
[CLS]) and BERT's pretraining input. Tiny models pretrained once per module, so the file runs in
seconds."""

import numpy as np
import pytest
import torch

from course.core.errors import SettingError
from course.text.corpus import from_sentences
from course.transformer import TransformerConfig, train_transformer
from course.transformer.bert_input import CLS, SEP, bert_example
from course.transformer.classifier import (
    MIN_COVERAGE,
    FineTuneConfig,
    TransformerClassifier,
    fine_tune,
    learning_rate,
    preset,
    word_coverage,
)

GROUPS = ([f"a{i}" for i in range(8)], [f"b{i}" for i in range(8)])


pytestmark = pytest.mark.usefixtures("one_torch_thread")


def one_line(excinfo) -> str:
    message = str(excinfo.value)
    assert message and "\n" not in message
    return message


def last_word_task(count: int, seed: int) -> tuple[list[list[str]], list[int]]:
    """Texts of 3 to 6 words drawn from both groups; the label is the group of the **last** word, so
    a head must read the position that has seen the end of the text (and the words before it are
    noise: the majority of a text's words says nothing about its label)."""
    rng = np.random.default_rng(seed)
    texts = [[str(w) for w in rng.choice(GROUPS[0] + GROUPS[1], int(rng.integers(3, 7)))] for _ in range(count)]
    return texts, [int(text[-1].startswith("b")) for text in texts]


@pytest.fixture(scope="module")
def pretrained():
    """A causal and a masked Transformer pretrained on sentences of one group each: the words of a
    group predict each other, so their embeddings come apart by group."""
    rng = np.random.default_rng(0)
    sentences = [[str(w) for w in rng.choice(GROUPS[g], int(rng.integers(4, 8)))]
                 for g in rng.integers(0, 2, size=300)]
    corpus = from_sentences(sentences, name="groups")
    config = TransformerConfig(min_count=1, dim=32, heads=2, layers=2, ff_dim=64, max_positions=16, epochs=4,
                               batch_tokens=300, lr=5e-3, heldout_every=10, patience=0, device="cpu", threads=1)
    return {objective: train_transformer(corpus, TransformerConfig(**{**config.to_dict(), "objective": objective}),
                                         progress=False)
            for objective in ("causal", "masked")}


FAST = FineTuneConfig(epochs=15, lr=3e-3, batch_size=16, dropout=0.0, device="cpu")


# ------------------------------------------------------------------------------ learning the task


@pytest.mark.parametrize("objective", ["causal", "masked"])
def test_fine_tuned_classifier_beats_the_majority_class_on_a_last_word_task(pretrained, objective):
    train, dev, test = last_word_task(120, 1), last_word_task(100, 2), last_word_task(300, 3)
    classifier = fine_tune(pretrained[objective], *train, *dev, FAST)
    majority = min(np.mean(test[1]), 1 - np.mean(test[1]))  # about 0.5
    error = classifier.error_rate(*test)
    assert error < majority - 0.1, (error, majority, classifier.history)
    measured = [h["dev_error"] for h in classifier.history if h["dev_error"] is not None]
    assert len(measured) == FAST.evaluations
    assert classifier.history[classifier.best_epoch - 1]["dev_error"] == min(measured)
    assert classifier.history[-1]["loss"] < classifier.history[0]["loss"]


def test_gpt_head_reads_the_extract_token_which_has_seen_the_whole_text(pretrained):
    classifier = TransformerClassifier(pretrained["causal"], 2, FAST).eval()
    ids, mask, _ = classifier.inputs([["a1", "b2", "a3"], ["b1"]])
    assert ids[0].tolist()[0] == classifier.start_id and ids[0].tolist()[4] == classifier.end_id
    assert classifier.read_positions(mask).tolist() == [4, 2]
    # changing the first word moves the state the head reads; the causal mask hides nothing from <extract>
    with torch.no_grad():
        before, after = classifier([["a1", "b2", "a3"], ["b1", "b2", "a3"]])
    assert not torch.allclose(before, after)


def test_bert_reads_cls_and_its_segment_table_starts_at_zero(pretrained):
    model = pretrained["masked"]
    classifier = TransformerClassifier(model, 2, FAST).eval()
    ids, mask, segments = classifier.inputs([["a1", "b2"]])
    assert ids[0].tolist() == [model.words.bos_id, *model.words.encode(["a1", "b2"]), model.words.eos_id]
    assert classifier.read_positions(mask).tolist() == [0]
    assert torch.count_nonzero(classifier.segment_embedding.weight) == 0
    # at step 0 the top states are the pretrained network's own
    with torch.no_grad():
        mine = classifier.top_states(ids, mask, segments)
        theirs = model.network(ids, mask).layers[-1]
    torch.testing.assert_close(mine, theirs)


# ------------------------------------------------------------------------------ the new rows, the auxiliary loss


def test_new_rows_are_appended_and_the_pretrained_rows_unchanged_at_step_0(pretrained):
    model = pretrained["causal"]
    before = {k: v.clone() for k, v in model.network.state_dict().items()}
    classifier = TransformerClassifier(model, 2, FAST)
    table = classifier.network.token_embedding.weight
    vocab = len(model.words)
    assert table.shape == (vocab + 3, model.config.dim)  # <start>, <extract>, <delim>
    assert (classifier.start_id, classifier.end_id) == (vocab, vocab + 1)
    assert torch.equal(table[:vocab], model.network.token_embedding.weight)
    assert 0 < table[vocab:].std() < 0.1  # the new rows are drawn, small
    fine_tune(model, *last_word_task(40, 1), *last_word_task(20, 2), preset("smoke", device="cpu"))
    for name, tensor in model.network.state_dict().items():  # the pretrained model itself is never changed
        assert torch.equal(tensor, before[name]), name


def gradients(classifier, texts, labels, lm_weight) -> dict[str, torch.Tensor]:
    classifier.zero_grad(set_to_none=True)
    classifier.loss(texts, labels, lm_weight).backward()
    return {name: p.grad.clone() for name, p in classifier.named_parameters() if p.grad is not None}


def test_the_auxiliary_lm_loss_changes_the_gradient_by_lambda_times_its_own(pretrained):
    classifier = TransformerClassifier(pretrained["causal"], 2, FAST).eval()  # no dropout: the same function
    texts, labels = last_word_task(8, 4)
    g0, g_half, g1 = (gradients(classifier, texts, labels, w) for w in (0.0, 0.5, 1.0))
    body = next(name for name in g0 if name.startswith("network.blocks") and name.endswith("weight"))
    assert not torch.allclose(g0[body], g_half[body])
    for name in g0:  # L_3 = L_2 + lambda L_1: linear in lambda
        torch.testing.assert_close(g_half[name], g0[name] + 0.5 * (g1[name] - g0[name]), rtol=1e-4, atol=1e-6)
    # the LM loss does not reach the head, nor the <extract> row (its state predicts no word)
    torch.testing.assert_close(g_half["head.weight"], g0["head.weight"])
    extract = classifier.end_id
    torch.testing.assert_close(g_half["network.token_embedding.weight"][extract],
                               g0["network.token_embedding.weight"][extract])


def test_bert_has_no_auxiliary_loss(pretrained):
    classifier = TransformerClassifier(pretrained["masked"], 2, FAST).eval()
    texts, labels = last_word_task(8, 4)
    torch.testing.assert_close(classifier.loss(texts, labels, 0.0), classifier.loss(texts, labels, 0.5))


def test_learning_rate_warms_up_then_falls_linearly_to_zero():
    config = FineTuneConfig(lr=1.0, warmup_share=0.1)
    rates = [learning_rate(config, t, 100) for t in range(100)]
    assert rates[0] == pytest.approx(0.1) and rates[9] == pytest.approx(1.0)
    assert rates[10] == pytest.approx(1.0) and rates[55] == pytest.approx(0.5)
    assert all(a >= b for a, b in zip(rates[9:], rates[10:], strict=False))


# ------------------------------------------------------------------------------ seeds, refusals


def test_a_run_repeats_with_its_seed_and_another_seed_differs(pretrained):
    train, dev = last_word_task(40, 1), last_word_task(30, 2)
    config = preset("smoke", device="cpu", dropout=0.1)
    runs = [fine_tune(pretrained["causal"], *train, *dev, config) for _ in range(2)]
    other = fine_tune(pretrained["causal"], *train, *dev, preset("smoke", device="cpu", dropout=0.1, seed=2))
    assert runs[0].history == runs[1].history
    for (name, a), b in zip(runs[0].state_dict().items(), runs[1].state_dict().values(), strict=True):
        assert torch.equal(a, b), name
    assert not torch.equal(runs[0].head.weight, other.head.weight)


def test_a_model_of_another_language_is_refused_in_one_line(pretrained):
    chinese = [["这", "本书", "很", "好看"], ["质量", "太", "差", "了"]]
    assert word_coverage(pretrained["causal"], chinese) == 0
    with pytest.raises(SettingError) as excinfo:
        fine_tune(pretrained["causal"], chinese, [1, 0], chinese, [1, 0], FAST)
    message = one_line(excinfo)
    assert "0.0% of the words" in message and f"{MIN_COVERAGE:.0%}" in message and "another language" in message


def test_a_negative_lambda_and_bad_settings_are_refused_in_one_line(pretrained):
    with pytest.raises(SettingError) as excinfo:
        FineTuneConfig(lm_weight=-0.5)
    assert "lm_weight must be from 0" in one_line(excinfo)
    classifier = TransformerClassifier(pretrained["causal"], 2, FAST)
    with pytest.raises(SettingError) as excinfo:
        classifier.loss([["a1"]], [0], lm_weight=-1)
    assert "must not be negative" in one_line(excinfo)
    with pytest.raises(SettingError) as excinfo:
        preset("gpu")
    assert "unknown fine-tuning preset 'gpu'" in one_line(excinfo)
    with pytest.raises(SettingError) as excinfo:
        fine_tune(pretrained["causal"], [["a1"], ["b1"]], [0], [["a1"]], [0], FAST)
    assert "one label per text" in one_line(excinfo)


# ------------------------------------------------------------------------------ BERT's input


def test_bert_example_has_cls_sep_segments_positions_and_is_next_half_the_time():
    a, b = ["the", "man", "went", "to", "the", "store"], ["he", "bought", "milk"]
    others = [["penguins", "are", "flightless"], b, ["it", "rained"]]
    examples = [bert_example(a, b, others, seed=s) for s in range(200)]
    for ex in examples:
        tokens, segments = ex["tokens"], ex["segments"]
        assert tokens[0] == CLS and tokens[len(a) + 1] == SEP and tokens[-1] == SEP
        assert tokens[1:len(a) + 1] == a
        second = tokens[len(a) + 2:-1]
        assert (second == b) == ex["is_next"]
        assert second in others
        assert segments == [0] * (len(a) + 2) + [1] * (len(second) + 1)
        assert ex["positions"] == list(range(len(tokens)))
    share = np.mean([ex["is_next"] for ex in examples])
    assert 0.4 < share < 0.6  # 200 draws of a fair coin: 0.5 +- 0.035 (one standard deviation)
    assert bert_example(a, b, others, seed=7) == bert_example(a, b, others, seed=7)
    with pytest.raises(SettingError) as excinfo:
        bert_example(a, b, [b], seed=0)
    assert "other than next_sentence" in one_line(excinfo)
