"""The published ELMo's format run by the course's biLM: ``elmo convert`` and ``elmo embed`` reproduce
bilm-tf's own outputs for allennlp's tiny ELMo (``tests/fixtures/elmo/``), and models of other shapes
equal bilm-tf's equations written out here in numpy."""

import json
from pathlib import Path

import h5py
import numpy as np
import pytest
import torch
from conftest import assert_one_line_error
from conftest import run_course as run

from course.core.errors import CourseError
from course.elmo import Elmo
from course.elmo.bilm_tf import convert
from course.elmo.characters import ByteCharacters
from course.elmo.embedder import embed_sentences, embed_stateful
from course.elmo.lstm import ClippedLSTMP

FIXTURES = Path(__file__).parent / "fixtures" / "elmo"
OPTIONS, WEIGHTS = FIXTURES / "options.json", FIXTURES / "lm_weights.hdf5"
TOLERANCE = 1e-5  # float32 through two LSTM layers: the fixtures agree to about 1e-6


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    """allennlp's tiny ELMo converted by the command line: the model file's path."""
    out = tmp_path_factory.mktemp("tiny") / "tiny-elmo.pt"
    result = run("elmo", "convert", OPTIONS, WEIGHTS, "--out", out)
    assert result.returncode == 0, result.stderr
    assert "wrote" in result.stderr
    return out


def rows_of_sentences():
    return json.loads((FIXTURES / "sentences.json").read_text(encoding="utf-8"))


def expected_top_layer(row: int) -> list[np.ndarray]:
    with h5py.File(FIXTURES / f"lm_embeddings_{row}.hdf5", "r") as handle:
        return [np.concatenate([handle[str(i)][0], handle[str(i)][1]], axis=-1) for i in range(len(handle))]


@pytest.mark.parametrize("row", [0, 1, 2])
def test_elmo_embed_stateful_reproduces_bilm_tfs_top_layer(tiny, tmp_path, row):
    sentences = rows_of_sentences()[row]
    text = tmp_path / "row.txt"
    text.write_text("\n".join(sentences) + "\n", encoding="utf-8")
    out = tmp_path / "row.hdf5"
    result = run("elmo", "embed", text, out, "--model", tiny, "--stateful", "--quiet")
    assert result.returncode == 0, result.stderr
    expected = expected_top_layer(row)
    with h5py.File(out, "r") as handle:
        index = json.loads(handle["sentence_to_index"][0])
        assert index == {sentence: str(i) for i, sentence in enumerate(sentences)}
        for i, sentence in enumerate(sentences):
            layers = handle[str(i)][...]
            assert layers.dtype == np.float32 and layers.shape == (3, len(sentence.split()), 32)
            np.testing.assert_allclose(layers[2], expected[i], atol=TOLERANCE, rtol=0)
            np.testing.assert_array_equal(layers[0][:, :16], layers[0][:, 16:])  # [x; x]


def test_token_embeddings_equal_bilm_tfs_for_the_vocabulary(tiny):
    words = (FIXTURES / "vocab_test.txt").read_text(encoding="utf-8").strip().split("\n")
    with h5py.File(FIXTURES / "elmo_token_embeddings.hdf5", "r") as handle:
        expected = handle["embedding"][...]
    model = Elmo.load(tiny, device="cpu")
    got = model.token_vectors(words)
    assert "<S>" in words[:300] and "</S>" in words[:300]  # bilm-tf spells them as the sentence marks
    np.testing.assert_allclose(got[:300, :16], expected[:300], atol=TOLERANCE, rtol=0)
    np.testing.assert_allclose(got[:, :16], expected[: len(words)], atol=TOLERANCE, rtol=0)


def test_without_stateful_each_sentence_is_what_it_gives_first_in_a_row(tiny, tmp_path):
    sentences = rows_of_sentences()[1][:5]
    text = tmp_path / "five.txt"
    text.write_text("\n".join(sentences) + "\n", encoding="utf-8")
    result = run("elmo", "embed", text, tmp_path / "five.hdf5", "--model", tiny, "--quiet")
    assert result.returncode == 0, result.stderr
    model = Elmo.load(tiny, device="cpu")
    carried = embed_stateful(model.bilm, model.characters, [s.split() for s in sentences])
    with h5py.File(tmp_path / "five.hdf5", "r") as handle:
        for i, sentence in enumerate(sentences):
            alone = embed_stateful(model.bilm, model.characters, [sentence.split()])[0]
            np.testing.assert_allclose(handle[str(i)][...], alone, atol=1e-6, rtol=0)
            if i == 0:
                np.testing.assert_allclose(carried[0], alone, atol=1e-6, rtol=0)
            else:  # the carried state does change the later sentences of a row
                assert np.abs(carried[i][2] - alone[2]).max() > 1e-3


def test_a_sentence_gets_the_same_layers_in_any_batch(tiny):
    model = Elmo.load(tiny, device="cpu")
    sentences = [s.split() for s in rows_of_sentences()[2]]
    together = embed_sentences(model.bilm, model.characters, sentences, batch_tokens=10_000)
    for sentence, layers in zip(sentences, together, strict=True):
        alone = embed_sentences(model.bilm, model.characters, [sentence])[0]
        np.testing.assert_allclose(layers, alone, atol=1e-5, rtol=0)


def test_byte_characters_spell_as_bilm_tf():
    chars = ByteCharacters(10)
    np.testing.assert_array_equal(chars.word_row("ab"), np.array([258, 97, 98, 259] + [260] * 6) + 1)
    np.testing.assert_array_equal(chars.word_row("包"), np.array([258, *"包".encode(), 259] + [260] * 5) + 1)
    np.testing.assert_array_equal(chars.word_row("<S>"), chars.word_row("<bos>"))
    np.testing.assert_array_equal(chars.word_row("</S>"), np.array([258, 257, 259] + [260] * 7) + 1)
    assert len(chars.word_row("x" * 40)) == 10 and chars.word_row("x" * 40)[-1] == 260  # cut to 8 bytes + marks
    char_ids, mask = chars.encode_sentences([["a"], ["a", "b"]])
    assert char_ids.shape == (2, 4, 10) and not char_ids[0, 3].any() and mask.tolist()[0] == [True] * 3 + [False]


@pytest.mark.filterwarnings("ignore:LSTM with projections is not supported with oneDNN")
def test_the_clipped_lstm_is_torchs_lstm_where_nothing_is_clipped():
    torch.manual_seed(0)
    reference = torch.nn.LSTM(5, 7, proj_size=3, batch_first=True)
    ours = ClippedLSTMP(5, 7, 3)
    ours.load_state_dict(reference.state_dict())
    x = torch.randn(2, 6, 5)
    state = (torch.randn(1, 2, 3), torch.randn(1, 2, 7))
    expected, (h, c) = reference(x, state)
    got, (h2, c2) = ours(x, state)
    torch.testing.assert_close(got, expected)
    torch.testing.assert_close(h2, h)
    torch.testing.assert_close(c2, c)
    clipped = ClippedLSTMP(5, 7, 3, cell_clip=0.05, proj_clip=0.01)
    clipped.load_state_dict(reference.state_dict())
    out, (_, cell) = clipped(x * 10)
    assert out.abs().max() <= 0.01 + 1e-7 and cell.abs().max() <= 0.05 + 1e-7
    assert not torch.allclose(out, ours(x * 10)[0])


# ---------------------------------------------------------------------- other shapes, against bilm-tf's equations

def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def write_bilm_tf_model(folder: Path, options: dict, seed: int) -> tuple[Path, Path, dict]:
    """Random weights in bilm-tf's layout for ``options``: (options.json, weights.hdf5, the arrays)."""
    rng = np.random.default_rng(seed)
    cnn, lstm = options["char_cnn"], options["lstm"]
    dim, d, h = cnn["embedding"]["dim"], lstm["projection_dim"], lstm["dim"]
    features = sum(n for _, n in cnn["filters"])
    arrays = {"char_embed": rng.normal(0, 0.5, (261, dim))}
    for i, (width, number) in enumerate(cnn["filters"]):
        arrays[f"CNN/W_cnn_{i}"] = rng.normal(0, 0.5, (1, width, dim, number))
        arrays[f"CNN/b_cnn_{i}"] = rng.normal(0, 0.1, number)
    for k in range(cnn["n_highway"]):
        for part in ("carry", "transform"):
            arrays[f"CNN_high_{k}/W_{part}"] = rng.normal(0, 0.3, (features, features))
            arrays[f"CNN_high_{k}/b_{part}"] = rng.normal(0, 0.3, features)
    if features != d:
        arrays["CNN_proj/W_proj"] = rng.normal(0, 0.3, (features, d))
        arrays["CNN_proj/b_proj"] = rng.normal(0, 0.1, d)
    for direction in range(2):
        for layer in range(lstm["n_layers"]):
            where = f"RNN_{direction}/RNN/MultiRNNCell/Cell{layer}/LSTMCell"
            arrays[f"{where}/W_0"] = rng.normal(0, 0.4, (2 * d, 4 * h))
            arrays[f"{where}/B"] = rng.normal(0, 0.2, 4 * h)
            arrays[f"{where}/W_P_0"] = rng.normal(0, 0.4, (h, d))
    options_path, weights_path = folder / "options.json", folder / "weights.hdf5"
    options_path.write_text(json.dumps(options), encoding="utf-8")
    with h5py.File(weights_path, "w") as handle:
        for name, value in arrays.items():
            handle.create_dataset(name, data=value.astype(np.float32))
    return options_path, weights_path, {k: v.astype(np.float32).astype(np.float64) for k, v in arrays.items()}


def bilm_tf_ids(word: str, width: int) -> np.ndarray:
    """bilm-tf's UnicodeCharsVocabulary, then its Batcher's + 1."""
    marks = {"<S>": 256, "</S>": 257}
    body = [marks[word]] if word in marks else list(word.encode("utf-8"))[: width - 2]
    row = np.full(width, 260)
    row[: len(body) + 2] = [258, *body, 259]
    return row + 1


def bilm_tf_tokens(options: dict, w: dict, words: list[str]) -> np.ndarray:
    """bilm-tf's _build_word_char_embeddings: (n, d) token vectors, in float64."""
    cnn = options["char_cnn"]
    width = cnn["max_characters_per_token"]
    table = np.vstack([np.zeros((1, w["char_embed"].shape[1])), w["char_embed"]])
    chars = table[np.stack([bilm_tf_ids(word, width) for word in words])]  # (n, C, dim)
    act = np.tanh if cnn["activation"] == "tanh" else (lambda z: np.maximum(z, 0))
    pooled = []
    for i, (span, _) in enumerate(cnn["filters"]):
        kernel = w[f"CNN/W_cnn_{i}"][0]  # (span, dim, number)
        windows = [np.einsum("nsd,sdk->nk", chars[:, s:s + span], kernel) for s in range(width - span + 1)]
        pooled.append(act(np.max(np.stack(windows, 1) + w[f"CNN/b_cnn_{i}"], axis=1)))
    x = np.concatenate(pooled, axis=1)
    for k in range(cnn["n_highway"]):
        carry = _sigmoid(x @ w[f"CNN_high_{k}/W_carry"] + w[f"CNN_high_{k}/b_carry"])
        transform = np.maximum(x @ w[f"CNN_high_{k}/W_transform"] + w[f"CNN_high_{k}/b_transform"], 0)
        x = carry * transform + (1 - carry) * x
    if "CNN_proj/W_proj" in w:
        x = x @ w["CNN_proj/W_proj"] + w["CNN_proj/b_proj"]
    return x


def bilm_tf_lstm(options: dict, w: dict, direction: int, layer: int, x: np.ndarray, state):
    """TensorFlow's LSTMCell(num_proj, cell_clip, proj_clip) over (T, D) from state (c, m)."""
    lstm = options["lstm"]
    h = lstm["dim"]
    where = f"RNN_{direction}/RNN/MultiRNNCell/Cell{layer}/LSTMCell"
    c, m = state
    outputs = []
    for t in range(len(x)):
        z = np.concatenate([x[t], m]) @ w[f"{where}/W_0"] + w[f"{where}/B"]
        i, j, f, o = (z[k * h:(k + 1) * h] for k in range(4))
        c = _sigmoid(f + 1.0) * c + _sigmoid(i) * np.tanh(j)
        if lstm.get("cell_clip"):
            c = np.clip(c, -lstm["cell_clip"], lstm["cell_clip"])
        m = (_sigmoid(o) * np.tanh(c)) @ w[f"{where}/W_P_0"]
        if lstm.get("proj_clip"):
            m = np.clip(m, -lstm["proj_clip"], lstm["proj_clip"])
        outputs.append(m)
    return np.stack(outputs), (c, m)


def bilm_tf_layers(options: dict, w: dict, sentences: list[list[str]]) -> list[np.ndarray]:
    """bilm-tf's stateful biLM over one row of sentences: (L + 1, n, 2 d) each, marks removed."""
    lstm = options["lstm"]
    zeros = (np.zeros(lstm["dim"]), np.zeros(lstm["projection_dim"]))
    states = {(direction, layer): zeros for direction in range(2) for layer in range(lstm["n_layers"])}
    out = []
    for words in sentences:
        x = bilm_tf_tokens(options, w, ["<S>", *words, "</S>"])
        layers = [np.concatenate([x, x], axis=1)]
        per_direction = []
        for direction in range(2):
            h = x if direction == 0 else x[::-1]
            outputs = []
            for layer in range(lstm["n_layers"]):
                y, states[direction, layer] = bilm_tf_lstm(options, w, direction, layer, h, states[direction, layer])
                h = y + h if layer > 0 and lstm["use_skip_connections"] else y
                outputs.append(h if direction == 0 else h[::-1])
            per_direction.append(outputs)
        layers += [np.concatenate([f, b], axis=1) for f, b in zip(*per_direction, strict=True)]
        out.append(np.stack(layers)[:, 1:-1])
    return out


SHAPES = {
    "three layers, tanh, tight clips": {
        "lstm": {"cell_clip": 0.5, "proj_clip": 0.4, "use_skip_connections": True, "n_layers": 3,
                 "projection_dim": 6, "dim": 12},
        "char_cnn": {"embedding": {"dim": 3}, "filters": [[1, 4], [3, 6]], "n_highway": 1, "n_characters": 262,
                     "max_characters_per_token": 12, "activation": "tanh"}},
    "one layer, no projection of the filters, no highway, no clips": {
        "lstm": {"use_skip_connections": False, "n_layers": 1, "projection_dim": 8, "dim": 20},
        "char_cnn": {"embedding": {"dim": 2}, "filters": [[2, 3], [4, 5]], "n_highway": 0, "n_characters": 261,
                     "max_characters_per_token": 9, "activation": "relu"}},
}
WORDS = "Der Bär 包袱 a-b , supercalifragilistic ? 年".split()


@pytest.mark.parametrize("shape", list(SHAPES))
def test_models_of_other_shapes_equal_bilm_tfs_equations(tmp_path, shape):
    options = SHAPES[shape]
    options_path, weights_path, arrays = write_bilm_tf_model(tmp_path, options, seed=len(shape))
    model = convert(options_path, weights_path)
    rng = np.random.default_rng(3)
    sentences = [[str(word) for word in rng.choice(WORDS, size=n)] for n in (4, 1, 7)]
    expected = bilm_tf_layers(options, arrays, sentences)
    got = embed_stateful(model.bilm, model.characters, sentences)
    for ours, theirs in zip(got, expected, strict=True):
        np.testing.assert_allclose(ours, theirs, atol=TOLERANCE, rtol=0)
    if options["lstm"].get("cell_clip"):  # the clips are reached here, so they are tested
        unclipped = {**options, "lstm": {**options["lstm"], "cell_clip": None, "proj_clip": None}}
        assert np.abs(bilm_tf_layers(unclipped, arrays, sentences)[0] - expected[0]).max() > 1e-2
    first_alone = embed_sentences(model.bilm, model.characters, sentences)
    np.testing.assert_allclose(first_alone[0], expected[0], atol=TOLERANCE, rtol=0)


# ---------------------------------------------------------------------- mistakes

def test_mistakes_are_one_line_and_write_nothing(tmp_path, tiny):
    out = tmp_path / "m.pt"
    assert_one_line_error(run("elmo", "convert", tmp_path / "none.json", WEIGHTS, "--out", out), "no such options")
    assert_one_line_error(run("elmo", "convert", OPTIONS, OPTIONS, "--out", out), "not an HDF5")
    other = dict(SHAPES["three layers, tanh, tight clips"])
    options_path, weights_path, _ = write_bilm_tf_model(tmp_path, other, seed=1)
    assert_one_line_error(run("elmo", "convert", OPTIONS, weights_path, "--out", out), "do not belong")
    assert_one_line_error(run("elmo", "convert", OPTIONS, WEIGHTS, "--out", OPTIONS), "over the input")
    assert not out.exists()
    text = tmp_path / "s.txt"
    text.write_text("one sentence\n\nanother\n", encoding="utf-8")
    assert_one_line_error(run("elmo", "embed", text, tmp_path / "e.hdf5", "--model", tiny), "empty line 2")
    text.write_bytes(b"\xff\xfe bad\n")
    assert_one_line_error(run("elmo", "embed", text, tmp_path / "e.hdf5", "--model", tiny), "not UTF-8")
    text.write_text("fine\n", encoding="utf-8")
    assert_one_line_error(run("elmo", "embed", text, tmp_path / "e.hdf5", "--model", WEIGHTS), "not a readable")
    assert_one_line_error(run("elmo", "embed", text, tiny, "--model", tiny), "over the input")
    assert not (tmp_path / "e.hdf5").exists()


def test_a_converted_model_embeds_but_has_no_softmax(tiny):
    model = Elmo.load(tiny, device="cpu")
    with pytest.raises(CourseError, match="no softmax"):
        model.perplexity([["a", "sentence"]])


def test_the_converted_model_is_probed_and_stands_in_for_the_english_bilm(tiny, tmp_path, monkeypatch, capsys):
    result = run("probe", "--model", tiny, "--probes", "en_polysemy.tsv")
    assert result.returncode == 0, result.stderr
    assert "ELMo" in result.stdout and "static" in result.stdout
    from course.shared.bilm import course_elmo

    monkeypatch.setenv("COURSE_ELMO_EN", str(tiny))
    model = course_elmo("wiki-en", profile="smoke", device="cpu")
    assert model.config.character_ids == "bilm-tf" and model.config.preset == "bilm-tf"
    assert "not the course's own" in capsys.readouterr().err


def test_elmo_embed_works_for_the_courses_own_bilm(tmp_path):
    from course.elmo import preset
    from course.elmo.characters import CharacterVocabulary
    from course.text.vocab import DEFAULT_SPECIALS, Vocabulary

    sentences = ["the cat sees a dog", "a bird eats the fish", "the horse likes a cow"]
    words = sorted({w for s in sentences for w in s.split()})
    vocabulary = Vocabulary([*DEFAULT_SPECIALS, *words], [0] * len(DEFAULT_SPECIALS) + [1] * len(words))
    config = preset("cpu", char_dim=4, filters=((1, 8), (2, 8)), projection_dim=8, lstm_dim=16, softmax="full",
                    dropout=0.0)
    model = Elmo(config, vocabulary, CharacterVocabulary.from_words(words, max_characters=config.max_characters),
                 device="cpu")
    model.save(tmp_path / "own.pt")
    text = tmp_path / "s.txt"
    text.write_text("\n".join(sentences) + "\n", encoding="utf-8")
    for flag in ([], ["--stateful"]):
        out = tmp_path / f"own{len(flag)}.hdf5"
        result = run("elmo", "embed", text, out, "--model", tmp_path / "own.pt", "--quiet", *flag)
        assert result.returncode == 0, result.stderr
        with h5py.File(out, "r") as handle:
            got = [handle[str(i)][...] for i in range(len(sentences))]
        expected = (embed_stateful(model.bilm, model.characters, [s.split() for s in sentences]) if flag
                    else model.embed([s.split() for s in sentences]))
        for ours, theirs in zip(got, expected, strict=True):
            assert ours.shape == (3, 5, 16)
            np.testing.assert_allclose(ours, theirs, atol=1e-6, rtol=0)
    with h5py.File(tmp_path / "own0.hdf5", "r") as alone, h5py.File(tmp_path / "own1.hdf5", "r") as carried:
        np.testing.assert_allclose(alone["0"][...], carried["0"][...], atol=1e-6)  # the first starts from zero
        assert np.abs(alone["2"][...][2] - carried["2"][...][2]).max() > 1e-4  # a later one carries a state
