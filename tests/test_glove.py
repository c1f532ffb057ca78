import dataclasses

import numpy as np
import pytest
import torch

from course.core.errors import SettingError
from course.glove import GloVe, GloVeConfig, cooccurrence_counts, glove_loss, train_glove, weighting
from course.text.corpus import from_sentences
from course.text.vocab import Vocabulary, VocabularyConfig

pytestmark = pytest.mark.filterwarnings("ignore:Sparse CSR tensor support is in beta state:UserWarning")


def _reference_counts(sentences, word_to_id, size, window):
    """cooccur.c's loop, one word at a time: each in-vocabulary word pairs with the last ``window``
    in-vocabulary words of its sentence, adding 1/distance both ways."""
    counts = np.zeros((size, size))
    for sentence in sentences:
        history = []
        for word in sentence:
            if word not in word_to_id:
                continue  # out-of-vocabulary words are dropped before the window is laid
            current = word_to_id[word]
            for distance, earlier in enumerate(reversed(history[-window:]), start=1):
                counts[earlier, current] += 1 / distance
                counts[current, earlier] += 1 / distance
            history.append(current)
    return counts


def test_cooccurrence_counts_equal_a_plain_loop():
    sentences = [
        "the cat sat on the mat with the other cat".split(),
        "a dog and a cat".split(),
        "the the the dog".split(),  # a word repeated within the window counts on the diagonal
        "rare1 cat rare2 dog rare3".split(),  # out-of-vocabulary words close the gaps between the others
        "dog".split(),
        "cat mat".split(),
    ]
    corpus = from_sentences(sentences, name="small")
    vocab = Vocabulary.from_corpus(corpus, VocabularyConfig(min_count=2, specials=()))
    assert "rare1" not in vocab and "cat" in vocab
    ids, offsets = vocab.encode_corpus(corpus)
    for window in (1, 2, 4, 15):
        expected = _reference_counts(sentences, vocab.word_to_id, len(vocab), window)
        for chunk_tokens in (3, 7, 10_000):  # chunks that cut sentences in two, and one chunk for all
            counts = cooccurrence_counts(ids, offsets, len(vocab), window, chunk_tokens=chunk_tokens)
            assert counts.has_canonical_format
            np.testing.assert_allclose(counts.toarray(), expected, rtol=1e-12, atol=0)
    counts = cooccurrence_counts(ids, offsets, len(vocab), 2).toarray()
    cat, dog, the = vocab["cat"], vocab["dog"], vocab["the"]
    assert counts[cat, dog] == counts[dog, cat] == pytest.approx(1 / 2 + 1)  # "dog (and) a cat", "cat (rare2) dog"
    assert counts[the, the] == pytest.approx(2 * (1 / 2 + 1 / 2 + 1 + 1 + 1 / 2))  # both ways: 2/d per pair
    assert counts[dog, vocab["mat"]] == 0  # "dog" ends one sentence, "cat mat" is the next: no pair across


def test_across_sentences_counts_the_corpus_as_one_stream():
    sentences = ["the cat sat".split(), "a dog and a cat".split(), "dog".split(), "cat mat".split()]
    corpus = from_sentences(sentences, name="small")
    across = GloVe(Vocabulary.from_corpus(corpus, VocabularyConfig(min_count=1, specials=())),
                   GloVeConfig(dim=4, window=3, min_count=1, across_sentences=True))
    within = GloVe(across.vocab, dataclasses.replace(across.config, across_sentences=False))
    stream = [[word for sentence in sentences for word in sentence]]
    expected = _reference_counts(stream, across.vocab.word_to_id, len(across.vocab), 3)
    np.testing.assert_allclose(across.cooccurrences(corpus).toarray(), expected, rtol=1e-12)
    dog, mat = across.vocab["dog"], across.vocab["mat"]
    assert across.cooccurrences(corpus)[dog, mat] == pytest.approx(1 / 2)  # "dog" ends a sentence, "cat mat" next
    assert within.cooccurrences(corpus)[dog, mat] == 0


def test_cooccurrence_counts_of_random_text_equal_a_plain_loop():
    rng = np.random.default_rng(3)
    ids = rng.zipf(1.6, size=3000).clip(1, 40).astype(np.int32) - 1
    offsets = np.unique(np.concatenate([[0, len(ids)], rng.integers(0, len(ids), 200)]))
    sentences = [[str(i) for i in ids[a:b]] for a, b in zip(offsets[:-1], offsets[1:], strict=True)]
    expected = _reference_counts(sentences, {str(i): i for i in range(40)}, 40, 5)
    counts = cooccurrence_counts(ids, offsets, 40, 5, chunk_tokens=500)
    np.testing.assert_allclose(counts.toarray(), expected, rtol=1e-12)
    assert (counts != counts.T).nnz == 0


def test_weighting_function():
    x = np.array([0.0, 1.0, 5.0, 9.999, 10.0, 11.0, 1e6])
    expected = np.array([0.0, 0.1 ** 0.75, 0.5 ** 0.75, 0.9999 ** 0.75, 1.0, 1.0, 1.0])
    np.testing.assert_allclose(weighting(x, x_max=10, alpha=0.75), expected)
    np.testing.assert_allclose(weighting(torch.from_numpy(x), x_max=10, alpha=0.75).numpy(), expected)
    assert weighting(5.0, x_max=10, alpha=1.0) == pytest.approx(0.5)
    np.testing.assert_allclose(weighting(np.array([0.0, 0.01, 50.0]), x_max=100, alpha=0.0), [0.0, 1.0, 1.0])


@pytest.fixture
def one_torch_thread():
    """Tiny sparse products spend most of their time waking OpenMP threads; the trainer uses one too."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def test_loss_gradients_match_finite_differences(one_torch_thread):
    generator = torch.Generator().manual_seed(0)

    def random(*shape):
        return 0.5 * torch.randn(*shape, dtype=torch.float64, generator=generator)

    parameters = [random(6, 4), random(6, 4), random(6), random(6)]
    rows = torch.tensor([0, 0, 1, 2, 3, 3, 5, 4, 5])  # repeated rows and columns, and diagonal cells
    cols = torch.tensor([1, 3, 0, 2, 5, 3, 0, 4, 1])
    counts = torch.tensor([0.5, 3.0, 12.0, 1.0, 25.0, 7.0, 2.0, 0.2, 10.0], dtype=torch.float64)
    loss, *grads = glove_loss(*parameters, rows, cols, counts, x_max=10, alpha=0.75)
    words, contexts, word_biases, context_biases = parameters
    diff = (words[rows] * contexts[cols]).sum(1) + word_biases[rows] + context_biases[cols] - counts.log()
    f = torch.where(counts < 10, (counts / 10) ** 0.75, torch.ones_like(counts))
    torch.testing.assert_close(loss, 0.5 * (f * diff ** 2).sum())

    def total():
        return glove_loss(*parameters, rows, cols, counts, x_max=10, alpha=0.75)[0].item()

    for tensor, grad in zip(parameters, grads, strict=True):
        numeric = torch.zeros_like(tensor)
        flat, out = tensor.view(-1), numeric.view(-1)
        for i in range(flat.numel()):
            keep = flat[i].item()
            flat[i] = keep + 1e-6
            plus = total()
            flat[i] = keep - 1e-6
            minus = total()
            flat[i] = keep
            out[i] = (plus - minus) / 2e-6
        torch.testing.assert_close(grad, numeric, atol=1e-7, rtol=1e-6)


def _topics(seed=0, sentences=200):
    rng = np.random.default_rng(seed)
    animals, tools = [f"animal{i}" for i in range(8)], [f"tool{i}" for i in range(8)]
    text = [list(rng.choice(topic, size=8)) for _ in range(sentences) for topic in (animals, tools)]
    return from_sentences(text, name="topics"), animals, tools


@pytest.mark.parametrize("in_processes", [False, True])  # True: the workers are forked processes
def test_planted_topics_are_learned_and_loss_falls(in_processes, monkeypatch):
    import course.glove.trainer
    from course.static import hogwild

    if in_processes and not hogwild.can_fork():
        pytest.skip("needs fork")
    monkeypatch.setattr(course.glove.trainer, "IN_PROCESSES", in_processes)
    corpus, animals, tools = _topics()
    config = GloVeConfig(dim=10, window=3, min_count=1, epochs=30, lr=0.1, batch_size=16, threads=2, device="cpu")
    model = train_glove(corpus, config, progress=False)
    kv = model.keyed_vectors()
    within = np.mean([kv.similarity(a, b) for a in animals for b in animals if a != b])
    across = np.mean([kv.similarity(a, t) for a in animals for t in tools])
    assert within > across + 0.3, (within, across)
    losses = [loss for _, loss in model.state.history]
    assert np.mean(losses[-8:]) < 0.2 * np.mean(losses[:8])
    assert model.state.epochs_done == 30 and model.state.entries_done == 30 * model.state.entries_per_epoch
    assert model.loss(model.cooccurrences(corpus)) < np.mean(losses[:8])


def test_one_thread_and_one_seed_give_identical_vectors(wiki):
    corpus = wiki.head(1000)
    config = GloVeConfig(dim=16, window=5, epochs=2, threads=1, device="cpu", min_count=2, batch_size=4096)
    first = train_glove(corpus, config, progress=False).vectors().clone()
    second = train_glove(corpus, config, progress=False).vectors()
    assert torch.equal(first, second)
    other = train_glove(corpus, GloVeConfig(dim=16, window=5, epochs=2, threads=1, device="cpu", min_count=2,
                                            batch_size=4096, seed=2), progress=False).vectors()
    assert not torch.equal(first, other)


def test_resume_continues_to_the_same_vectors(tmp_path, wiki):
    corpus = wiki.head(1000)
    config = GloVeConfig(dim=16, window=5, epochs=3, threads=1, device="cpu", min_count=2, batch_size=4096)
    uninterrupted = train_glove(corpus, config, progress=False)
    checkpoint = tmp_path / "glove.ckpt"

    def interrupt(model):
        if model.state.epochs_done == 1:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        train_glove(corpus, config, progress=False, checkpoint=checkpoint, callback=interrupt)
    resumed = train_glove(corpus, config, progress=False, checkpoint=checkpoint, resume=True)
    assert resumed.state.epochs_done == 3
    assert resumed.state.entries_done == uninterrupted.state.entries_done
    for mine, theirs in zip(resumed.parameters() + resumed.gradsq, uninterrupted.parameters() + uninterrupted.gradsq,
                            strict=True):
        assert torch.equal(mine, theirs)
    longer = train_glove(corpus, dataclasses.replace(config, epochs=4), progress=False, checkpoint=checkpoint,
                         resume=True)  # AdaGrad has no schedule: more epochs train on
    assert longer.state.epochs_done == 4 and not torch.equal(longer.vectors(), uninterrupted.vectors())
    with pytest.raises(SettingError, match="other settings .*dim"):
        train_glove(corpus, GloVeConfig(dim=8, window=5, epochs=3, threads=1, device="cpu", min_count=2,
                                        batch_size=4096), progress=False, checkpoint=checkpoint, resume=True)
    (tmp_path / "junk.ckpt").write_bytes(b"not a checkpoint")
    with pytest.raises(SettingError, match="junk.ckpt: not a readable GloVe checkpoint"):
        train_glove(corpus, config, progress=False, checkpoint=tmp_path / "junk.ckpt", resume=True)


def test_a_loss_that_is_not_finite_stops_training(monkeypatch):
    from course.core.errors import TrainingDivergedError
    from course.glove.trainer import FastTrainer

    corpus, _, _ = _topics(sentences=20)
    monkeypatch.setattr(FastTrainer, "step", lambda self, batch: float("nan"))
    with pytest.raises(TrainingDivergedError, match=r"became nan\) in epoch 1: use a smaller --lr .* or --batch-size"):
        train_glove(corpus, GloVeConfig(dim=4, min_count=1, device="cpu"), progress=False)


@pytest.mark.parametrize("settings,message", [
    ({"dim": 0}, "dim must be from 1"), ({"window": 0}, "window must be from 1"),
    ({"epochs": 0}, "epochs must be from 1"), ({"x_max": -1.0}, "x_max must be .*above 0"),
    ({"x_max": float("nan")}, "x_max must be"), ({"alpha": -0.5}, "alpha must be"), ({"lr": 0}, "lr must be"),
    ({"vectors": "both"}, "vectors must be one of"), ({"threads": 0}, "threads must be"),
    ({"batch_size": 0}, "batch_size must be"),
])
def test_nonsense_settings_are_refused(settings, message):
    with pytest.raises(SettingError, match=message):
        GloVeConfig(**settings)


def test_corpus_with_no_cooccurring_pair_and_missing_cuda():
    lonely = from_sentences([["one"], ["two"], ["one"]], name="lonely")
    with pytest.raises(SettingError, match="too small to train on"):
        train_glove(lonely, GloVeConfig(min_count=1, device="cpu"), progress=False)
    if not torch.cuda.is_available():
        with pytest.raises(SettingError, match="no CUDA GPU"):
            GloVe(Vocabulary(["one"], [1], specials=()), GloVeConfig(device="cuda"))


# --------------------------------------------------------------------------------- command line


def _write(path, text):
    path.write_text(text, encoding="utf-8")
    return str(path)


def _bad_inputs(tmp_path):
    lonely = _write(tmp_path / "lonely.txt", "one\ntwo\none\n")
    cases = [
        (["--corpus", lonely, "--dim", "0"], "--dim: must be from 1"),
        (["--corpus", lonely, "--epochs", "0"], "--epochs: must be from 1"),
        (["--corpus", lonely, "--x-max", "-10"], "--x-max: must be above 0"),
        (["--corpus", _write(tmp_path / "empty.txt", "  \n\n")], "holds no words"),
        (["--corpus", _write(tmp_path / "tiny.txt", "a few words\n")], "min_count=5"),
        (["--corpus", lonely, "--min-count", "1"], "too small to train on"),
        (["--corpus", str(tmp_path / "missing.txt")], "no such file"),
    ]
    if not torch.cuda.is_available():
        cases.append((["--corpus", lonely, "--min-count", "1", "--device", "cuda"], "no CUDA GPU"))
    return cases


def test_command_line_refuses_bad_input_with_one_line(tmp_path, capsys, private_cache):
    from course.cli import main

    out = tmp_path / "vectors.txt"
    for arguments, message in _bad_inputs(tmp_path):
        try:
            status = main(["train", "glove", *arguments, "--quiet", "--out", str(out)])
        except SystemExit as stop:  # a number out of range, refused by the parser
            status = stop.code
        lines = capsys.readouterr().err.strip().splitlines()
        assert status == 2, arguments
        assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0], (arguments, lines)
        assert not out.exists()
    assert main(["train", "glove", "--corpus", _write(tmp_path / "t.txt", "a b\n"), "--quiet",
                 "--out", str(tmp_path)]) == 2
    assert "is a folder" in capsys.readouterr().err


def test_command_line_exit_status_and_vectors_file(tmp_path, private_cache):
    import os
    import re
    import subprocess
    import sys

    from gensim.models import KeyedVectors

    corpus, animals, _ = _topics(sentences=30)
    text = _write(tmp_path / "topics.txt", "\n".join(" ".join(sentence) for sentence in corpus) + "\n")
    out = tmp_path / "glove.txt"
    command = [sys.executable, "-m", "course", "train", "glove", "--corpus", text, "--dim", "8", "--window", "3",
               "--min-count", "1", "--epochs", "2", "--device", "cpu", "--vectors", "word", "--quiet",
               "--out", str(out)]
    environment = {**os.environ, "COURSE_CACHE": str(private_cache)}
    result = subprocess.run(command, capture_output=True, text=True, env=environment, timeout=300)
    assert result.returncode == 0, result.stderr
    assert "wrote 16 vectors of 8 dimensions" in result.stderr
    kv = KeyedVectors.load_word2vec_format(str(out))
    assert kv.vector_size == 8 and set(animals) <= set(kv.index_to_key)
    within = result.stderr
    result = subprocess.run([*command, "--across-sentences"], capture_output=True, text=True, env=environment,
                            timeout=300)
    assert result.returncode == 0, result.stderr
    non_zeros = [int(re.search(r"\(([\d,]+) non-zero co-occurrences", text)[1].replace(",", ""))
                 for text in (within, result.stderr)]  # other lines may come first (a library's warning)
    assert non_zeros[1] > non_zeros[0]  # pairs across sentence ends are counted too
    result = subprocess.run([*command[:command.index("--dim")], "--dim", "0", "--out", str(tmp_path / "no.txt")],
                            capture_output=True, text=True, env=environment, timeout=300)
    assert result.returncode == 2 and len(result.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "no.txt").exists()


def test_runs_that_cannot_fit_in_memory_are_refused_before_they_are_made(monkeypatch):
    import course.core.devices

    rng = np.random.default_rng(0)
    corpus = from_sentences([[f"w{i}" for i in rng.integers(0, 300, size=200)] for _ in range(40)], name="many")
    with pytest.raises(SettingError, match=r"GloVe with 300 words of 1,000,000,000 dimensions would need about "
                                           r"[\d,.]+ GB of memory"):
        train_glove(corpus, GloVeConfig(dim=10**9, min_count=1, device="cpu"), progress=False)
    monkeypatch.setattr(course.core.devices, "available_memory", lambda: 3_000_000)  # room for 31,250 entries
    with pytest.raises(SettingError, match=r"the co-occurrence counts \(window=50\) hold more than [\d,]+ non-zero "
                                           r"pairs after counting words up to \d+ apart .* would need at least "
                                           r"[\d,.]+ MB of memory to train on, and 3.0 MB is available"):
        train_glove(corpus, GloVeConfig(dim=8, window=50, min_count=1, device="cpu"), progress=False)
    counts = cooccurrence_counts(np.arange(10) % 4, np.array([0, 10]), 4, window=3)
    with pytest.raises(SettingError, match="hold more than"):
        cooccurrence_counts(np.arange(10) % 4, np.array([0, 10]), 4, window=3, max_entries=counts.nnz // 2 - 1)


class _CreatesAFile:
    """Unpickled by a loader that runs code, it creates a file."""

    def __init__(self, path):
        self.path = str(path)

    def __reduce__(self):
        return open, (self.path, "w")


def test_a_crafted_or_foreign_checkpoint_is_refused(tmp_path):
    marker = tmp_path / "created-by-the-checkpoint"
    crafted = tmp_path / "crafted.ckpt"
    torch.save({"format": "course.glove/1", "parameters": [_CreatesAFile(marker)]}, crafted)
    corpus, _, _ = _topics(sentences=10)
    config = GloVeConfig(dim=4, window=3, min_count=1, epochs=1, threads=1, device="cpu")
    with pytest.raises(SettingError, match="crafted.ckpt: refused, it would build objects other than plain types"):
        train_glove(corpus, config, progress=False, checkpoint=crafted, resume=True)
    assert not marker.exists()
    checkpoint = tmp_path / "glove.ckpt"
    train_glove(corpus, config, progress=False, checkpoint=checkpoint)
    other = from_sentences([["a", "b", "c"], ["b", "c", "d"]] * 10, name="other")
    with pytest.raises(SettingError, match=r"glove.ckpt: was trained on another corpus \('topics', .*; now 'other'"):
        train_glove(other, dataclasses.replace(config, epochs=2), progress=False, checkpoint=checkpoint, resume=True)
    with pytest.raises(SettingError, match="resume needs a checkpoint"):
        train_glove(corpus, config, progress=False, resume=True)
