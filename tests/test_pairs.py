"""The sentence-pair task (same paragraph or not), GPT's and BERT's inputs for a pair, and BERT
pretrained with segments and next-sentence prediction. Tiny corpora built here, so the file runs in
seconds."""

import numpy as np
import pytest
import torch

from course.core.errors import SettingError
from course.tasks.pairs import (
    MIN_WORDS,
    SentencePair,
    draw_pairs,
    overlap_baseline,
    overlap_features,
    pair_data,
    split_of,
)
from course.text.corpus import from_sentences, load_corpus, peoples_daily_paragraphs
from course.transformer import Transformer, TransformerConfig, train_transformer
from course.transformer.classifier import FineTuneConfig, TransformerClassifier, fine_tune, pair_task_runs
from course.transformer.next_sentence import next_sentence_examples, train_pair_bert

TOPICS = [[f"t{topic}w{i}" for i in range(6)] for topic in range(30)]


pytestmark = pytest.mark.usefixtures("one_torch_thread")


def topic_corpus(paragraphs: int = 400, seed: int = 0):
    """Paragraphs of 2 to 4 sentences, each paragraph on one topic of 30 (its sentences draw their words
    from the topic's 6): sentences of one paragraph share their words, two paragraphs seldom do."""
    rng = np.random.default_rng(seed)
    sentences, numbers = [], []
    for p in range(paragraphs):
        topic = TOPICS[int(rng.integers(len(TOPICS)))]
        for _ in range(int(rng.integers(2, 5))):
            sentences.append([str(w) for w in rng.choice(topic, int(rng.integers(MIN_WORDS, 7)))])
            numbers.append(p)
    return from_sentences(sentences, name="topics"), np.asarray(numbers)


@pytest.fixture(scope="module")
def corpus():
    return topic_corpus()


# ------------------------------------------------------------------------------ the task's data


def test_pairs_are_balanced_distinct_and_labelled_by_their_paragraph(corpus):
    text, paragraphs = corpus
    where = {}
    for i in range(text.num_sentences):
        where.setdefault(tuple(text[i]), set()).add(int(paragraphs[i]))
    pairs = draw_pairs(text, paragraphs, "train", 300, seed=1)
    assert len(pairs) == 300 and sum(p.label for p in pairs) == 150
    assert len({(p.first, p.second) for p in pairs}) == 300
    for pair in pairs:
        assert len(pair.first) >= MIN_WORDS and len(pair.second) >= MIN_WORDS
        assert pair.first != pair.second or pair.label == 1
        shared = where[pair.first] & where[pair.second]
        if pair.label == 0:  # from two paragraphs (a sentence repeated elsewhere may share one by chance)
            assert len(where[pair.first] | where[pair.second]) >= 2
        else:
            assert shared and all(split_of(p) == "train" for p in shared)
    assert draw_pairs(text, paragraphs, "train", 300, seed=1) == pairs
    assert draw_pairs(text, paragraphs, "train", 300, seed=2) != pairs


def test_splits_never_share_a_paragraph_and_follow_the_paragraph_number(corpus):
    text, paragraphs = corpus
    data = pair_data(text, paragraphs, train=200, dev=20, test=20, seed=0)
    where = {}
    for i in range(text.num_sentences):  # a short sentence may stand in several paragraphs
        where.setdefault(tuple(text[i]), set()).add(split_of(int(paragraphs[i])))
    for name in ("train", "dev", "test"):
        for pair in getattr(data, name):
            for sentence in (pair.first, pair.second):
                assert name in where[sentence]
    assert sum(name in where[p.first] for p in data.test for name in ("train", "dev")) < len(data.test) / 2
    assert [row["pairs"] for row in data.info()] == [200, 20, 20]
    assert all(row["same"] == 0.5 for row in data.info())


def test_a_split_too_small_is_refused_in_one_line(corpus):
    text, paragraphs = corpus
    with pytest.raises(SettingError) as excinfo:
        draw_pairs(text.head(12), paragraphs, "test", 10)
    assert "\n" not in str(excinfo.value) and "test split" in str(excinfo.value)


def test_peoples_daily_paragraphs_number_every_sentence_in_order():
    corpus, paragraphs = load_corpus("peoples-daily-zh"), peoples_daily_paragraphs()
    assert len(paragraphs) == corpus.num_sentences
    assert paragraphs[0] == 0 and np.all(np.diff(paragraphs) >= 0) and np.all(np.diff(paragraphs) <= 1)
    assert 2 <= np.bincount(paragraphs).mean() < 4  # most lines hold one to a few sentences


def test_the_overlap_baseline_reads_the_words_the_two_sentences_share(corpus):
    text, paragraphs = corpus
    data = pair_data(text, paragraphs, train=300, dev=20, test=200)
    features = overlap_features([SentencePair(("a", "b", "c"), ("b", "c", "d"), 1)])
    np.testing.assert_allclose(features, [[2 / 4, 2, np.log(3)]])
    assert overlap_baseline(data.train, data.test) < 0.2  # topics here: shared words give the label away


# ------------------------------------------------------------------------------ inputs of a pair


@pytest.fixture(scope="module")
def pretrained(corpus):
    text, _ = corpus
    config = TransformerConfig(min_count=1, dim=32, heads=2, layers=2, ff_dim=64, max_positions=24, epochs=2,
                               batch_tokens=400, lr=5e-3, heldout_every=10, patience=0, device="cpu", threads=1)
    return {objective: train_transformer(text, TransformerConfig(**{**config.to_dict(), "objective": objective}),
                                         progress=False)
            for objective in ("causal", "masked")}


FAST = FineTuneConfig(epochs=6, lr=3e-3, batch_size=16, dropout=0.0, device="cpu", max_tokens=50)
A, B = ["t1w0", "t1w1", "t1w2"], ["t2w3", "t2w4"]


def test_gpt_reads_both_orders_with_a_delimiter_and_is_symmetric_in_them(pretrained):
    classifier = TransformerClassifier(pretrained["causal"], 2, FAST).eval()
    words = pretrained["causal"].words
    ids, segments = classifier.sequences([(A, B)])
    delimiter = classifier.delimiter_id
    assert delimiter not in (classifier.start_id, classifier.end_id) and delimiter >= len(words)
    assert ids == [[classifier.start_id, *words.encode(A), delimiter, *words.encode(B), classifier.end_id],
                   [classifier.start_id, *words.encode(B), delimiter, *words.encode(A), classifier.end_id]]
    assert segments == [[0] * 8, [0] * 8]
    with torch.no_grad():
        forward, backward, other = classifier([(A, B), (B, A), (A, A)])
    torch.testing.assert_close(forward, backward)  # h = h_AB + h_BA
    assert not torch.allclose(forward, other)


def test_bert_reads_one_sequence_with_segments_and_its_order_matters(pretrained):
    model = pretrained["masked"]
    classifier = TransformerClassifier(model, 2, FAST).eval()
    words = model.words
    ids, segments = classifier.sequences([(A, B)])
    assert ids == [[words.bos_id, *words.encode(A), words.eos_id, *words.encode(B), words.eos_id]]
    assert segments == [[0, 0, 0, 0, 0, 1, 1, 1]]
    with torch.no_grad():
        classifier.segment_embedding.weight[1] = 0.5  # as fine-tuning would make it: B marked
        forward, backward = classifier([(A, B), (B, A)])
    assert not torch.allclose(forward, backward)


def test_pairs_and_single_texts_are_not_mixed_in_one_batch(pretrained):
    classifier = TransformerClassifier(pretrained["masked"], 2, FAST)
    with pytest.raises(SettingError) as excinfo:
        classifier([(A, B), A])
    assert "\n" not in str(excinfo.value)


@pytest.mark.parametrize("objective", ["causal", "masked"])
def test_fine_tuned_on_pairs_each_style_beats_the_majority_class(corpus, pretrained, objective):
    text, paragraphs = corpus
    data = pair_data(text, paragraphs, train=800, dev=60, test=200, seed=3)
    config = FineTuneConfig(epochs=8, lr=1e-3, batch_size=16, dropout=0.0, device="cpu", max_tokens=50)
    (row,) = pair_task_runs({objective: pretrained[objective]}, data, [1], config, workers=1)
    assert row["error"] < 0.4, row  # chance: 0.5
    assert row["labels"] == 800 and 1 <= row["best_epoch"] <= row["epochs"]


# ------------------------------------------------------------------------------ BERT with NSP


def test_next_sentence_examples_pair_each_sentence_with_its_successor_or_a_random_one(corpus):
    _, paragraphs = corpus
    sentences = np.arange(len(paragraphs))[np.arange(len(paragraphs)) % 7 != 6]  # some held out
    first, second, is_next = next_sentence_examples(paragraphs, sentences, np.random.default_rng(0))
    allowed = set(sentences.tolist())
    assert set(first.tolist()) <= allowed and set(second.tolist()) <= allowed
    assert np.all(paragraphs[first] == paragraphs[first + 1]) and np.all(np.isin(first + 1, sentences))
    assert np.all(second[is_next] == first[is_next] + 1) and np.all(second[~is_next] != first[~is_next] + 1)
    assert 0.4 < is_next.mean() < 0.6


@pytest.fixture(scope="module")
def pair_berts(corpus):
    text, paragraphs = corpus
    config = TransformerConfig(objective="masked", min_count=1, dim=32, heads=2, layers=2, ff_dim=64,
                               max_positions=24, epochs=12, batch_tokens=400, lr=5e-3, heldout_every=10,
                               patience=0, device="cpu", threads=1)
    return {nsp: train_pair_bert(text, paragraphs, config, nsp=nsp, progress=False) for nsp in (True, False)}


def test_nsp_is_learnt_only_when_trained_and_the_masked_lm_either_way(pair_berts):
    with_nsp, without = pair_berts[True], pair_berts[False]
    assert with_nsp.state.heldout[-1]["nsp_accuracy"] > 0.75, with_nsp.state.heldout
    assert abs(without.state.heldout[-1]["nsp_accuracy"] - 0.5) < 0.2  # its NSP head never trained
    for model in (with_nsp, without):
        history = model.state.history
        assert history[-1]["mlm_loss"] < history[0]["mlm_loss"]
        assert model.network.segment_embedding is not None
    assert with_nsp.state.history[-1]["nsp_loss"] < 0.6 < without.state.history[-1]["nsp_loss"]


def test_a_pair_bert_keeps_its_segment_table_in_its_file_and_in_fine_tuning(pair_berts, tmp_path):
    model = pair_berts[True]
    path = model.save(tmp_path / "bert-nsp.pt")
    again = Transformer.load(path, device="cpu")
    torch.testing.assert_close(again.network.segment_embedding.weight, model.network.segment_embedding.weight)
    classifier = TransformerClassifier(again, 2, FAST)
    torch.testing.assert_close(classifier.segment_embedding.weight, model.network.segment_embedding.weight)
    assert model.network.segment_embedding is not classifier.segment_embedding  # a copy: the model never changes
    ids = torch.tensor([[again.words.bos_id, *again.words.encode(A), again.words.eos_id]])
    with torch.no_grad():  # a single sentence reads as segment A, S[0] added
        torch.testing.assert_close(again.network(ids).layers[-1], model.network(ids).layers[-1])
        plain = again.network(ids, segments=torch.zeros_like(ids)).layers[-1]
    torch.testing.assert_close(again.network(ids).layers[-1], plain)


def test_a_causal_config_is_refused_for_nsp(corpus):
    text, paragraphs = corpus
    with pytest.raises(SettingError) as excinfo:
        train_pair_bert(text, paragraphs, TransformerConfig(objective="causal", device="cpu"), progress=False)
    assert "masked" in str(excinfo.value) and "\n" not in str(excinfo.value)


def test_fine_tune_accepts_sentence_pairs_as_given(corpus, pretrained):
    text, paragraphs = corpus
    data = pair_data(text, paragraphs, train=40, dev=20, test=20)
    classifier = fine_tune(pretrained["masked"], data.train, [p.label for p in data.train], data.dev,
                           [p.label for p in data.dev], FineTuneConfig(epochs=1, device="cpu"))
    assert classifier.predict(data.test).shape == (20,)
