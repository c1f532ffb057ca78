"""The NER tagger: padding changes nothing, the loss falls, pretrained vectors carry a tagger to names its labels
never showed (the task built to need them), ELMo's inputs (the frozen features are the biLM's own layers; fine-tuning
trains the biLM, features leave it alone), unseen-entity scores, and the transfer claims."""

import numpy as np
import pytest
import torch

from course.claims import FAILS, HOLDS, transfer_claims
from course.core.checkpoints import read_checkpoint
from course.core.errors import SettingError
from course.elmo import ElmoConfig, train_elmo
from course.tagger import ElmoFeatures, TaggerConfig, build_tagger, epochs_for, evaluate, train_tagger
from course.tagger.curves import unseen_entity_scores
from course.tagger.inputs import ElmoInput, LearnedEmbeddings
from course.tagger.model import reversal
from course.tagger.training import CHECKPOINT_FORMAT
from course.tasks.ner import TaggedSentence, entity_spans
from course.text.corpus import from_sentences


class Vectors:
    """The two attributes of a gensim KeyedVectors the tagger reads."""

    def __init__(self, words, vectors):
        self.index_to_key, self.vectors = list(words), np.asarray(vectors, dtype=np.float32)


def toy_task(seed=0):
    """Sentences of four words, one of them (anywhere) a name: the training names are 10 of 40, the test names
    the other 30, and no context tells a name. Pretrained vectors put every name near the others; learned
    embeddings know only the 10."""
    rng = np.random.default_rng(seed)
    names, others = [f"name{i}" for i in range(40)], [f"word{i}" for i in range(30)]

    def sentences(pool, count):
        out = []
        for _ in range(count):
            words = [str(word) for word in rng.choice(others, 4)]
            at = int(rng.integers(0, 4))
            words[at] = str(rng.choice(pool))
            out.append(TaggedSentence(tuple(words), tuple("B-PER" if i == at else "O" for i in range(4))))
        return out

    vectors = np.concatenate([rng.normal(0, 0.3, (40, 16)) + np.eye(16)[0] * 3, rng.normal(0, 0.3, (30, 16))])
    return sentences(names[:10], 200), sentences(names[:10], 50), sentences(names[10:], 200), Vectors(names + others,
                                                                                                     vectors)


def test_epochs_fall_with_more_labels():
    assert epochs_for(100) > epochs_for(1_000) >= epochs_for(40_000) >= 1


def test_reversal_turns_each_sentence_within_its_length():
    index = reversal(torch.tensor([3, 1, 4]))[..., 0]
    assert index.tolist() == [[2, 1, 0, 3], [0, 1, 2, 3], [3, 2, 1, 0]]


def test_a_padded_batch_tags_as_single_sentences_do():
    train, _, _, vectors = toy_task()
    for name in ("learned", "word2vec"):
        tagger = build_tagger(train, TaggerConfig(input=name, seed=2), vectors=vectors).eval()
        batch = [("word1", "name3"), ("word2", "name1", "word3", "word4", "word5"), ("name9",)]
        with torch.no_grad():
            together = tagger(batch)
            for row, sentence in enumerate(batch):
                alone = tagger([sentence])[0]
                assert torch.allclose(together[row, :len(sentence)], alone, atol=1e-6)


def test_the_loss_falls_and_the_tagger_learns_its_names():
    train, dev, _, _ = toy_task()
    tagger = build_tagger(train, TaggerConfig(seed=1))
    words, labels = [s.words for s in train[:32]], [s.labels for s in train[:32]]
    before = tagger.loss(words, labels).item()
    tagger = train_tagger(train, dev, TaggerConfig(epochs=8, seed=1))
    assert tagger.loss(words, labels).item() < before / 3
    assert evaluate(tagger, dev)["f1"] > 0.95
    assert tagger.best_epoch in {entry["epoch"] for entry in tagger.history}


def test_pretrained_vectors_tag_names_the_labels_never_showed():
    """The 'durian' effect: on test names absent from the labels, frozen vectors that put names together win."""
    train, dev, test, vectors = toy_task()
    scores = {}
    for name in ("learned", "word2vec"):
        tagger = train_tagger(train, dev, TaggerConfig(input=name, epochs=10, seed=1), vectors=vectors)
        predicted = tagger.predict([s.words for s in test])
        scores[name] = unseen_entity_scores(test, predicted, {w for s in train for w in s.words})
    assert scores["word2vec"]["entities"] == 200
    assert scores["word2vec"]["f1"] > 0.9 and scores["word2vec"]["f1"] > scores["learned"]["f1"] + 0.3


def test_unseen_entity_scores_count_only_entities_of_unseen_words():
    test = [TaggedSentence(("a", "b", "c", "d"), ("B-PER", "O", "B-LOC", "I-LOC"))]
    predicted = [["B-PER", "O", "B-LOC", "O"]]
    scores = unseen_entity_scores(test, predicted, known_words={"b"})
    assert scores["entities"] == 2 and scores["precision"] == 0.5 and scores["recall"] == 0.5
    assert unseen_entity_scores(test, predicted, known_words={"a", "c"}) == {"precision": 0.0, "recall": 0.0,
                                                                              "f1": 0.0, "entities": 0}


@pytest.fixture(scope="module")
def tiny_elmo():
    rng = np.random.default_rng(0)
    sentences = [[f"w{int(i)}" for i in rng.integers(0, 30, 6)] for _ in range(60)]
    config = ElmoConfig(char_dim=4, filters=((1, 8), (2, 8)), highway_layers=1, projection_dim=8, lstm_dim=16,
                        num_layers=2, softmax="full", min_count=1, epochs=1, batch_tokens=200, device="cpu",
                        heldout_every=20)
    return train_elmo(from_sentences(sentences), config, progress=False)


def test_frozen_features_are_the_biLMs_layers_and_fine_tuning_gives_the_same_at_the_start(tiny_elmo):
    sentences = [("w1", "w2", "w3"), ("w4",), ("w5", "w6")]
    embeddings = LearnedEmbeddings(sentences, 4)
    frozen = ElmoInput(tiny_elmo, embeddings, features=ElmoFeatures(tiny_elmo)).eval()
    tuned = ElmoInput(tiny_elmo, embeddings, fine_tune=True).eval()
    with torch.no_grad():
        layers, tuned_layers = frozen.layers(sentences), tuned.layers(sentences)
    assert layers.shape == (3, 3, 3, tiny_elmo.dim)
    for row, sentence in enumerate(sentences):
        own = tiny_elmo.embed([list(sentence)])[0]
        assert np.allclose(layers[:, row, :len(sentence)].numpy(), own, atol=1e-2)   # kept as float16
        assert np.allclose(tuned_layers[:, row, :len(sentence)].numpy(), own, atol=1e-5)
        assert not layers[:, row, len(sentence):].any()


def test_fine_tuning_trains_the_biLM_and_features_leave_it_alone(tiny_elmo):
    rng = np.random.default_rng(1)
    train = [TaggedSentence(tuple(f"w{int(i)}" for i in rng.integers(0, 30, 5)), ("B-PER", "O", "O", "O", "O"))
             for _ in range(40)]
    original = {k: v.clone() for k, v in tiny_elmo.bilm.state_dict().items()}
    config = dict(epochs=2, seed=1, evaluations=1)
    frozen = train_tagger(train, train[:5], TaggerConfig(input="elmo", **config), elmo=tiny_elmo)
    tuned = train_tagger(train, train[:5], TaggerConfig(input="elmo-finetuned", **config), elmo=tiny_elmo)
    assert all(torch.equal(v, original[k]) for k, v in tiny_elmo.bilm.state_dict().items())
    assert not hasattr(frozen.inputs, "network")
    moved = [k for k, v in tuned.inputs.network.state_dict().items() if not torch.equal(v.cpu(), original[k])]
    assert moved
    weights = tuned.mix_weights()
    assert weights.shape == (3,) and np.isclose(weights.sum(), 1) and not np.allclose(weights, 1 / 3)


@pytest.fixture(scope="module")
def tiny_bert():
    from course.transformer import TransformerConfig, train_transformer

    rng = np.random.default_rng(0)
    sentences = [[f"w{int(i)}" for i in rng.integers(0, 30, int(rng.integers(3, 7)))] for _ in range(150)]  # fit: 6
    config = TransformerConfig(objective="masked", dim=16, heads=2, layers=2, ff_dim=32, max_positions=8,
                               min_count=1, epochs=1, batch_tokens=200, device="cpu", precision="fp32")
    return train_transformer(from_sentences(sentences), config, progress=False)


def test_a_transformers_layers_are_features_or_fine_tuned_like_the_biLMs(tiny_bert):
    """BERT in the biLM's place: frozen features are its own layers (a sentence longer than its position table
    in pieces, as embed runs it); fine-tuning gives the same layers at the start, then trains its copy only."""
    sentences = [("w1", "w2", "w3"), ("w4",), tuple(f"w{i}" for i in range(9))]  # 9 words: two pieces of 6 and 3
    embeddings = LearnedEmbeddings(sentences, 4)
    with pytest.warns(UserWarning, match="split into pieces"):
        frozen = ElmoInput(tiny_bert, embeddings, features=ElmoFeatures(tiny_bert)).eval()
        with torch.no_grad():
            layers = frozen.layers(sentences)
        expected = tiny_bert.embed([list(s) for s in sentences])
    tuned = ElmoInput(tiny_bert, embeddings, fine_tune=True).eval()
    with torch.no_grad():
        tuned_layers = tuned.layers(sentences)
    assert layers.shape == tuned_layers.shape == (3, 3, 9, 16)
    for row, sentence in enumerate(sentences):
        assert np.allclose(layers[:, row, :len(sentence)].numpy(), expected[row], atol=1e-2)   # kept as float16
        assert np.allclose(tuned_layers[:, row, :len(sentence)].numpy(), expected[row], atol=1e-5)
        assert not tuned_layers[:, row, len(sentence):].any()
    rng = np.random.default_rng(1)
    train = [TaggedSentence(tuple(f"w{int(i)}" for i in rng.integers(0, 30, 5)), ("B-PER", "O", "O", "O", "O"))
             for _ in range(40)]
    original = {k: v.clone() for k, v in tiny_bert.network.state_dict().items()}
    config = dict(epochs=2, seed=1, evaluations=1)
    with pytest.raises(SettingError, match="needs a pretrained Transformer"):
        train_tagger(train, train[:5], TaggerConfig(input="bert", **config))
    train_tagger(train, train[:5], TaggerConfig(input="bert", **config), bert=tiny_bert)
    tuned = train_tagger(train, train[:5], TaggerConfig(input="bert-finetuned", **config), bert=tiny_bert)
    assert all(torch.equal(v, original[k]) for k, v in tiny_bert.network.state_dict().items())
    assert [k for k, v in tuned.inputs.network.state_dict().items() if not torch.equal(v.cpu(), original[k])]


def test_the_mix_penalty_pulls_the_weights_back_to_even(tiny_elmo):
    sentences = [("w1", "w2"), ("w3",)]
    tagger = build_tagger([TaggedSentence(s, ("O",) * len(s)) for s in sentences],
                          TaggerConfig(input="elmo", mix_penalty=10.0, dropout=0.0, elmo_dropout=0.0), elmo=tiny_elmo)
    with torch.no_grad():
        tagger.inputs.mix.scalar_parameters.copy_(torch.tensor([1.0, 0.0, -1.0]))
    tagger.loss(sentences, [("O", "O"), ("O",)]).backward()
    gradient = tagger.inputs.mix.scalar_parameters.grad
    assert gradient[0] > 0 > gradient[2]   # descent moves w_0 down and w_2 up, towards 0


def test_elmo_at_the_output_widens_the_output_layer_learns_its_own_mix_and_resumes_only_itself(tiny_elmo, tmp_path):
    """[h_k; ELMo_k]: the output layer reads 2 H + E numbers, the second mix's weights get gradients (the
    penalty's and the task's), a tiny tagger with it trains, and a checkpoint refuses a change of the option."""
    with pytest.raises(SettingError, match="elmo_at_output needs an elmo or bert input"):
        TaggerConfig(elmo_at_output=True)
    rng = np.random.default_rng(2)
    train = [TaggedSentence(tuple(f"w{int(i)}" for i in rng.integers(0, 30, 5)), ("B-PER", "O", "O", "O", "O"))
             for _ in range(40)]
    config = TaggerConfig(input="elmo", elmo_at_output=True, hidden_dim=6, word_dim=4, epochs=20, evaluations=1,
                          seed=1)
    plain = build_tagger(train, TaggerConfig(input="elmo", hidden_dim=6, word_dim=4, seed=1), elmo=tiny_elmo)
    tagger = build_tagger(train, config, elmo=tiny_elmo)
    assert plain.output.in_features == 12 and plain.output_mix_weights() is None
    assert tagger.output.in_features == 2 * 6 + tiny_elmo.dim
    assert tagger.forward_lstm.input_size == plain.forward_lstm.input_size == 4 + tiny_elmo.dim
    words, labels = [s.words for s in train], [s.labels for s in train]
    assert tagger(words[:3]).shape == (3, 5, len(tagger.labels))
    with torch.no_grad():
        tagger.output_mix.scalar_parameters.copy_(torch.tensor([0.5, 0.0, -0.5]))
    tagger.loss(words, labels).backward()
    assert tagger.output_mix.scalar_parameters.grad.abs().min() > 0 and tagger.output_mix.gamma.grad.abs() > 0
    assert tagger.inputs.mix.scalar_parameters.grad is not None   # both mixes learn
    before = tagger.eval().loss(words, labels).item()
    trained = train_tagger(train, train[:5], config, elmo=tiny_elmo, checkpoint=tmp_path / "tagger.pt")
    assert trained.eval().loss(words, labels).item() < before / 4
    weights = trained.output_mix_weights()
    assert weights.shape == (3,) and np.isclose(weights.sum(), 1) and not np.allclose(weights, trained.mix_weights())
    saved = read_checkpoint(tmp_path / "tagger.pt", CHECKPOINT_FORMAT)
    assert saved["identity"]["config"]["elmo_at_output"] is True
    with pytest.raises(SettingError, match=r"with other settings \(elmo_at_output=True \(now False\)\)"):
        train_tagger(train, train[:5], TaggerConfig(**{**config.to_dict(), "elmo_at_output": False}), elmo=tiny_elmo,
                     checkpoint=tmp_path / "tagger.pt", resume=True)


def rows_of(curves):
    return [{"input": name, "labels": labels, "seed": seed, "f1": f1}
            for name, by_labels in curves.items() for labels, by_seed in by_labels.items()
            for seed, f1 in enumerate(by_seed, 1)]


def test_transfer_claims_judge_margins_against_the_seeds_spread():
    curves = {"learned": {100: [0.30, 0.32, 0.31], 1000: [0.70, 0.72, 0.71]},
              "word2vec": {100: [0.60, 0.61, 0.62], 1000: [0.74, 0.75, 0.73]},
              "glove": {100: [0.55, 0.57, 0.56], 1000: [0.72, 0.74, 0.73]},
              "elmo": {100: [0.70, 0.72, 0.71], 1000: [0.80, 0.80, 0.81]},
              "elmo-finetuned": {100: [0.69, 0.73, 0.71]}}
    few, contextual, tuning = transfer_claims(rows_of(curves))
    assert few.verdict == HOLDS and few.margin == pytest.approx(min(0.30 - 0.02, 0.25 - 0.02, 0.40 - 0.093333),
                                                                abs=1e-6)
    assert contextual.verdict == HOLDS and contextual.margin == pytest.approx(0.06333, abs=1e-4)
    assert tuning.verdict == FAILS and tuning.margin == pytest.approx(0.0, abs=1e-9) and tuning.spread > 0
    curves["elmo"][1000] = [0.74, 0.76, 0.73]
    assert transfer_claims(rows_of(curves))[1].verdict == FAILS
    del curves["elmo-finetuned"]
    assert transfer_claims(rows_of(curves))[2].verdict.startswith("not measured")


def test_an_interrupted_tagger_resumes_to_the_same_weights(tmp_path, monkeypatch):
    import course.tagger.training as training
    from course.core.errors import SettingError

    train, dev, _, vectors = toy_task()
    config = TaggerConfig(epochs=5, evaluations=5, seed=3)  # dropout 0.5: the random states must be restored
    whole = train_tagger(train, dev, config)
    checkpoint = tmp_path / "tagger.pt"
    measured, calls = training.evaluate, []

    def stop_at_epoch_3(tagger, sentences):
        calls.append(1)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return measured(tagger, sentences)

    monkeypatch.setattr(training, "evaluate", stop_at_epoch_3)
    with pytest.raises(KeyboardInterrupt):
        train_tagger(train, dev, config, checkpoint=checkpoint)
    monkeypatch.setattr(training, "evaluate", measured)
    resumed = train_tagger(train, dev, config, checkpoint=checkpoint, resume=True)
    assert [h["epoch"] for h in resumed.history] == [1, 2, 3, 4, 5]
    assert resumed.history == whole.history and resumed.best_epoch == whole.best_epoch
    assert all(torch.equal(v, whole.state_dict()[k]) for k, v in resumed.state_dict().items())
    with pytest.raises(SettingError, match=r"tagger.pt: was trained with other settings \(lr=0.01 \(now 0.02\)\)"):
        train_tagger(train, dev, TaggerConfig(epochs=5, evaluations=5, seed=3, lr=0.02), checkpoint=checkpoint,
                     resume=True)
    with pytest.raises(SettingError, match=r"tagger.pt: was trained on another corpus \('labelled sentences', "
                                           rf"{len(train)} sentences, .*; now 'labelled sentences', {len(train) - 1} "):
        train_tagger(train[1:], dev, config, checkpoint=checkpoint, resume=True)
    with pytest.raises(SettingError, match=r"with other settings \(input='learned' \(now 'word2vec'\)\)"):
        train_tagger(train, dev, TaggerConfig(input="word2vec", epochs=5, evaluations=5, seed=3), vectors=vectors,
                     checkpoint=checkpoint, resume=True)


def test_bad_settings_are_refused():
    from course.core.errors import SettingError

    for kwargs, fragment in [({"input": "gpt"}, "unknown tagger input"), ({"lr": float("nan")}, "lr"),
                             ({"dropout": 1.0}, "dropout"), ({"epochs": 0}, "epochs")]:
        with pytest.raises(SettingError, match=fragment):
            TaggerConfig(**kwargs)
    train, dev, _, _ = toy_task()
    with pytest.raises(SettingError, match="needs its vectors"):
        train_tagger(train, dev, TaggerConfig(input="glove"))
    with pytest.raises(SettingError, match="no labelled sentences"):
        train_tagger([], dev)
    assert entity_spans(["B-PER"]) == [("PER", 0, 1)]


def test_a_tagger_that_cannot_fit_in_memory_is_refused_before_it_is_built():
    train, dev, _, _ = toy_task()
    with pytest.raises(SettingError, match=r"training the tagger with word_dim=1,000,000,000, hidden_dim=100 and "
                                           r"batch_size=32 \(.*\) would need about .* GB of memory( on cuda\S*)?, "
                                           r"and .* is available: use a smaller word_dim, hidden_dim or batch_size"):
        train_tagger(train, dev, TaggerConfig(word_dim=1_000_000_000))
