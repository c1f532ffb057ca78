import numpy as np
import pytest
import torch

from course.core.errors import OutputFileError, SettingError
from course.text.corpus import from_sentences
from course.text.vocab import Vocabulary, VocabularyConfig
from course.word2vec import (
    Batch,
    FastTrainer,
    Word2Vec,
    Word2VecConfig,
    cbow_windows,
    hierarchical_softmax_loss,
    hierarchical_softmax_probabilities,
    negative_sampling_loss,
    skipgram_pairs,
    train_reference,
    train_window,
    train_word2vec,
)


def _finite_difference(function, tensor, eps=1e-6):
    grad = torch.zeros_like(tensor)
    flat, out = tensor.view(-1), grad.view(-1)
    for i in range(flat.numel()):
        keep = flat[i].item()
        flat[i] = keep + eps
        plus = function()
        flat[i] = keep - eps
        minus = function()
        flat[i] = keep
        out[i] = (plus - minus) / (2 * eps)
    return grad


def test_negative_sampling_gradients_match_finite_differences():
    generator = torch.Generator().manual_seed(0)
    hidden = torch.randn(3, 4, dtype=torch.float64, generator=generator)
    rows = torch.randn(3, 4, 4, dtype=torch.float64, generator=generator)  # true word + 3 noise words
    valid = torch.tensor([[1, 1, 1, 1], [1, 0, 1, 1], [1, 1, 1, 0]], dtype=torch.float64)
    loss, grad_hidden, grad_rows = negative_sampling_loss(hidden, rows, valid)

    def total():
        return negative_sampling_loss(hidden, rows, valid)[0].sum().item()

    expected = -torch.nn.functional.logsigmoid(torch.einsum("bkd,bd->bk", rows, hidden) *
                                              torch.tensor([1.0, -1, -1, -1], dtype=torch.float64))
    torch.testing.assert_close(loss, (expected * valid).sum(1))
    torch.testing.assert_close(grad_hidden, _finite_difference(total, hidden), atol=1e-7, rtol=1e-6)
    torch.testing.assert_close(grad_rows, _finite_difference(total, rows), atol=1e-7, rtol=1e-6)
    assert torch.all(grad_rows[1, 1] == 0)  # a noise draw equal to the true word teaches nothing


def test_hierarchical_softmax_gradients_match_finite_differences():
    generator = torch.Generator().manual_seed(1)
    hidden = torch.randn(2, 5, dtype=torch.float64, generator=generator)
    nodes = torch.randn(2, 3, 5, dtype=torch.float64, generator=generator)
    codes = torch.tensor([[0, 1, 1], [1, 0, 0]])
    mask = torch.tensor([[1, 1, 1], [1, 1, 0]], dtype=torch.float64)  # the second path is shorter
    _, grad_hidden, grad_nodes = hierarchical_softmax_loss(hidden, nodes, codes, mask)

    def total():
        return hierarchical_softmax_loss(hidden, nodes, codes, mask)[0].sum().item()

    torch.testing.assert_close(grad_hidden, _finite_difference(total, hidden), atol=1e-7, rtol=1e-6)
    torch.testing.assert_close(grad_nodes, _finite_difference(total, nodes), atol=1e-7, rtol=1e-6)
    assert torch.all(grad_nodes[1, 2] == 0)


def test_hierarchical_softmax_probabilities_sum_to_one():
    rng = np.random.default_rng(2)
    counts = {f"w{i}": int(c) for i, c in enumerate(sorted(rng.zipf(1.5, 50).clip(1, 10_000), reverse=True))}
    vocab = Vocabulary.from_counts(counts, VocabularyConfig(min_count=1))
    tree = vocab.huffman()
    nodes = torch.randn(tree.num_inner_nodes, 8, dtype=torch.float64)
    probabilities = hierarchical_softmax_probabilities(torch.randn(4, 8, dtype=torch.float64), nodes, tree)
    torch.testing.assert_close(probabilities.sum(1), torch.ones(4, dtype=torch.float64))
    assert torch.all(probabilities[:, : vocab.num_specials] == 0)
    # and the loss is -log of that probability
    word = vocab.num_specials + 7
    length = int(tree.lengths[word])
    hidden = torch.randn(1, 8, dtype=torch.float64)
    loss, _, _ = hierarchical_softmax_loss(hidden, nodes[torch.as_tensor(tree.points[word, :length])][None],
                                           torch.as_tensor(tree.codes[word, :length])[None],
                                           torch.ones(1, length, dtype=torch.float64))
    p = hierarchical_softmax_probabilities(hidden, nodes, tree)[0, word]
    torch.testing.assert_close(loss[0], -torch.log(p))


def test_skipgram_pairs_and_cbow_windows_match_plain_loops():
    ids = np.array([5, 6, 7, 8, 9, 10, 11, 12])
    sentence = np.array([0, 0, 0, 0, 0, 1, 1, 1])
    pairs = skipgram_pairs(ids, sentence, 3, np.random.default_rng(4))
    reach = np.random.default_rng(4).integers(1, 4, size=len(ids))
    expected = {(ids[p], ids[q]) for p in range(len(ids)) for q in range(len(ids))
                if p != q and sentence[p] == sentence[q] and abs(p - q) <= reach[p]}
    assert sorted(zip(*map(list, pairs), strict=True)) == sorted(expected)
    centres, contexts = cbow_windows(ids, sentence, 3, np.random.default_rng(4))
    for centre, row in zip(centres, contexts, strict=True):
        p = int(np.flatnonzero(ids == centre)[0])
        window = {ids[q] for q in range(len(ids)) if q != p and sentence[q] == sentence[p] and abs(p - q) <= reach[p]}
        assert set(row[row >= 0]) == window


def _topics(seed=0, sentences=300):
    rng = np.random.default_rng(seed)
    animals, tools = [f"animal{i}" for i in range(10)], [f"tool{i}" for i in range(10)]
    text = [list(rng.choice(topic, size=10)) for _ in range(sentences) for topic in (animals, tools)]
    return from_sentences(text, name="topics"), animals, tools


def _topic_gap(kv, animals, tools):
    within = np.mean([kv.similarity(a, b) for a in animals for b in animals if a != b])
    across = np.mean([kv.similarity(a, t) for a in animals for t in tools])
    return within - across


@pytest.mark.parametrize("arch,loss,damp", [("skipgram", "neg", False), ("cbow", "neg", False),
                                            ("skipgram", "hs", False), ("cbow", "hs", False), ("skipgram", "hs", True)])
def test_the_fast_trainer_learns_planted_topics_as_well_as_the_reference(arch, loss, damp, monkeypatch):
    """The reference trainer (one window at a time, plain SGD) is the yardstick: the fast trainer, in
    batches on two worker processes, must separate the topics as well and end at the same loss."""
    from course.word2vec import trainer

    monkeypatch.setattr(trainer, "CHUNK_WORDS", 250)  # many loss readings, the first five early on
    corpus, animals, tools = _topics(sentences=150)
    settings = dict(arch=arch, loss=loss, dim=16, window=3, min_count=1, sample=0, epochs=4, lr=0.05, device="cpu",
                    damp_tree_steps=damp)
    reference = train_reference(corpus, Word2VecConfig(**settings, threads=1))
    model = train_word2vec(corpus, Word2VecConfig(**settings, threads=2, batch_size=64), progress=False)
    gap, reference_gap = _topic_gap(model.keyed_vectors(), animals, tools), _topic_gap(reference.keyed_vectors(),
                                                                                       animals, tools)
    assert gap > 0.5 and gap > reference_gap - 0.15, (gap, reference_gap)
    words = len(Vocabulary.from_corpus(corpus, min_count=1, specials=()).encode_corpus(corpus)[0])
    last_epoch = [loss for done, loss in model.state.history if done > 3 * words]
    assert np.mean(last_epoch) < 1.05 * reference.state.history[-1][1], (last_epoch, reference.state.history)
    losses = [loss for _, loss in model.state.history]
    assert np.mean(losses[-5:]) < np.mean(losses[:5]) - 0.2


def _window_batch(centre, context, negatives):
    return Batch(torch.tensor([context]), torch.tensor([centre]),
                 None if negatives is None else torch.tensor([negatives]))


@pytest.mark.parametrize("arch,loss", [("skipgram", "neg"), ("cbow", "neg"), ("skipgram", "hs"), ("cbow", "hs")])
def test_the_fast_trainers_steps_equal_the_references_window_by_window(arch, loss):
    """A batch of one window: the fast trainer's step (sampled products, bags, scatter-adds, the
    tree's nodes by bags) equals the reference's, made of the public losses."""
    corpus = from_sentences([list("abcdefghij") * 3, list("aabbbcccdd") * 4], name="letters")
    config = Word2VecConfig(arch=arch, loss=loss, dim=6, window=3, min_count=1, negative=4, device="cpu",
                            damp_tree_steps=False, damp_input_steps=False)  # plain steps: damping is tested below
    vocab = Vocabulary.from_corpus(corpus, min_count=1, specials=())
    reference, fast = Word2Vec(vocab, config), Word2Vec(vocab, config)
    generator = torch.Generator().manual_seed(3)
    for model in (reference, fast):
        model.output_table.copy_(torch.randn(model.output_table.shape, generator=torch.Generator().manual_seed(3)))
    tree, rng = vocab.huffman(), np.random.default_rng(6)
    fast_trainer = FastTrainer(fast)
    for _ in range(12):
        centre = int(rng.integers(len(vocab)))
        context = [int(word) for word in rng.integers(len(vocab), size=int(rng.integers(1, 6)))]  # repeats too
        negatives = [int(word) for word in rng.integers(len(vocab), size=4)] if loss == "neg" else None
        lr = float(torch.rand(1, generator=generator)) * 0.5
        path = tree.points[centre, :tree.lengths[centre]], tree.codes[centre, :tree.lengths[centre]]
        train_window(reference, centre, np.array(context), lr, negatives and np.array(negatives), path)
        fast_trainer.train_batch(_window_batch(centre, context, negatives), lr)
    torch.testing.assert_close(fast.input_vectors, reference.input_vectors)
    torch.testing.assert_close(fast.output_table, reference.output_table)
    assert not torch.equal(fast.input_vectors, Word2Vec(vocab, config).input_vectors)


@pytest.mark.parametrize("arch", ["skipgram", "cbow"])
@pytest.mark.parametrize("damp", [False, True])
def test_a_batchs_tree_steps_are_the_summed_gradients_damped_to_a_quarter_newton_step(arch, damp):
    """A batch of windows through the tree: each inner node moves by -lr times the summed gradients of
    hierarchical_softmax_loss over the windows whose path runs through it, times min(1, 1 / (lr * c)),
    c the node's summed |h|^2 (damped), or times 1 (not damped); every input vector by its gradient."""
    corpus = from_sentences([list("abcdefghij") * 3, list("aabbbcccdd") * 4], name="letters")
    config = Word2VecConfig(arch=arch, loss="hs", dim=5, window=2, min_count=1, device="cpu", damp_tree_steps=damp)
    vocab = Vocabulary.from_corpus(corpus, min_count=1, specials=())
    model = Word2Vec(vocab, config)
    generator = torch.Generator().manual_seed(3)
    model.inner_node_vectors.copy_(torch.randn(model.inner_node_vectors.shape, generator=generator))
    model.input_vectors.copy_(3 * torch.randn(model.input_vectors.shape, generator=generator))  # long: damped
    fast_trainer = FastTrainer(model)
    words = torch.arange(len(vocab))
    centres = words[torch.from_numpy(np.argsort(fast_trainer.tree.leaf_ranks))].repeat_interleave(3)  # leaf order
    contexts = torch.randint(len(vocab), (len(centres), 4), generator=generator)
    tree, lr = vocab.huffman(), 0.05
    longest = int(tree.lengths.max())
    points = torch.as_tensor(tree.points)[centres]
    codes, mask = torch.as_tensor(tree.codes)[centres].long(), (torch.arange(longest) < torch.as_tensor(
        tree.lengths)[centres, None]).float()
    inputs = model.input_vectors[contexts]  # (B, 4, d)
    hidden = inputs if arch == "skipgram" else inputs.mean(1)
    node_mask = mask.unsqueeze(1).expand(-1, 4, -1) if arch == "skipgram" else mask
    _, grad_hidden, grad_nodes = hierarchical_softmax_loss(hidden, model.inner_node_vectors[points], codes, node_mask)
    per_node = torch.zeros_like(model.inner_node_vectors).index_add_(0, points.view(-1), grad_nodes.view(-1, 5))
    if damp:
        sq_norms = hidden.square().sum(-1) if arch == "cbow" else hidden.square().sum(-1).sum(1)
        curvature = torch.zeros(len(per_node)).index_add_(0, points.view(-1), (sq_norms.unsqueeze(1) * mask).view(-1))
        assert (lr * curvature > 1).any()  # some node is damped
        per_node *= (1 / (lr * curvature).clamp(min=1)).unsqueeze(1)
    grad_inputs = grad_hidden if arch == "skipgram" else grad_hidden.unsqueeze(1).expand(-1, 4, -1)
    expected_nodes = model.inner_node_vectors - lr * per_node
    expected_inputs = model.input_vectors.index_add(0, contexts.view(-1), grad_inputs.reshape(-1, 5), alpha=-lr)
    fast_trainer.train_batch(Batch(contexts, centres), lr)
    torch.testing.assert_close(model.inner_node_vectors, expected_nodes)
    torch.testing.assert_close(model.input_vectors, expected_inputs)


def _batch_loss(model, arch, batch):
    """The summed negative-sampling loss of a batch's windows on the model's tables as they are."""
    rows = torch.cat([batch.centres.unsqueeze(1), batch.negatives], 1)
    valid = (rows != batch.centres.unsqueeze(1)).float()
    valid[:, 0] = 1
    inputs = model.input_vectors[batch.contexts]
    if arch == "cbow":
        return float(negative_sampling_loss(inputs.mean(1), model.output_vectors[rows], valid)[0].sum())
    valid = valid.unsqueeze(1).expand(-1, batch.contexts.shape[1], -1)
    return float(negative_sampling_loss(inputs, model.output_vectors[rows], valid)[0].sum())


@pytest.mark.parametrize("arch", ["skipgram", "cbow"])
def test_a_word_in_every_window_of_a_batch_steps_no_further_than_sequential_sgd(arch):
    """The cause of the divergence on small corpora: a word in all 300 windows of a batch takes their
    300 steps summed, all from the same stale vectors. Undamped that step goes four times as far as
    the 300 steps one window at a time (the reference trainer) and raises the batch's loss; damped
    it goes no further than they do and lowers the loss. A window alone keeps its plain step."""
    corpus = from_sentences([list("abcdefghij") * 3, list("aabbbcccdd") * 4], name="letters")
    vocab = Vocabulary.from_corpus(corpus, min_count=1, specials=())
    generator = torch.Generator().manual_seed(0)
    windows, lr = 300, 0.025
    contexts = torch.cat([torch.zeros(windows, 1, dtype=torch.long),  # word 0 in every window
                          torch.randint(1, len(vocab), (windows, 3), generator=generator)], 1)
    batch = Batch(contexts, torch.randint(1, len(vocab), (windows,), generator=generator),
                  torch.randint(len(vocab), (windows, 4), generator=generator))

    def trained(how, batch):
        config = Word2VecConfig(arch=arch, dim=8, negative=4, min_count=1, device="cpu",
                                damp_input_steps=how != "plain")
        model = Word2Vec(vocab, config)
        model.output_vectors.copy_(torch.randn(model.output_vectors.shape, generator=torch.Generator().manual_seed(1)))
        start, loss = model.input_vectors[0].clone(), _batch_loss(model, arch, batch)
        if how == "sequential":
            for context, centre, negatives in zip(batch.contexts.numpy(), batch.centres.tolist(),
                                                  batch.negatives.numpy(), strict=True):
                train_window(model, centre, context, lr, negatives)
        else:
            FastTrainer(model).train_batch(batch, lr)
        return float((model.input_vectors[0] - start).norm()), loss, _batch_loss(model, arch, batch), model

    sequential, plain, damped = (trained(how, batch) for how in ("sequential", "plain", "damped"))
    assert sequential[2] < sequential[1]  # one window at a time lowers the batch's loss
    assert plain[0] > 4 * sequential[0] and plain[2] > plain[1], (plain, sequential)
    assert damped[0] <= sequential[0] and damped[2] < damped[1], (damped, sequential)
    one = Batch(batch.contexts[:1], batch.centres[:1], batch.negatives[:1])
    torch.testing.assert_close(trained("plain", one)[3].input_vectors, trained("damped", one)[3].input_vectors)


LEE_GENSIM_TESTS = {  # gensim's test_word2vec.py: its settings for each variant, and its threshold
    ("cbow", "neg"): dict(lr=0.05, window=5, negative=15, sample=0, epochs=10),
    ("skipgram", "neg"): dict(window=4, negative=15, epochs=10),
    ("skipgram", "hs"): dict(window=4, negative=0, epochs=10),
    ("cbow", "hs"): dict(lr=0.1, window=2, negative=0, epochs=60),
}


@pytest.fixture(scope="module")
def lee():
    """gensim's Lee background corpus (300 news documents, 60,000 words), which gensim's own tests train on."""
    from gensim.test.utils import datapath

    from course.text.corpus import load_corpus

    return load_corpus(datapath("lee_background.cor"), cache=False, progress=False)


@pytest.mark.parametrize("arch,loss,seeds", [("cbow", "neg", (1, 2, 3)), ("skipgram", "neg", (1,)),
                                             ("skipgram", "hs", (1,)), ("cbow", "hs", (1,))])
def test_gensims_lee_corpus_trains_to_gensims_own_sanity_check(arch, loss, seeds, lee):
    """gensim's model_sanity on its Lee corpus, at the settings of gensim's test of each variant:
    'bombings' among the 50 nearest words of 'attacks'. CBOW with negative sampling diverged there
    (lr 0.05, 15 noise words, no subsampling) before the input words' steps were damped: it on three
    seeds, the others, which trained there before, on one (1 thread: the same vectors every run;
    skip-gram's divergence at lr 0.05 has the test below)."""
    for seed in seeds:
        config = Word2VecConfig(arch=arch, loss=loss, seed=seed, threads=1, device="cpu",
                                **LEE_GENSIM_TESTS[arch, loss])
        kv = train_word2vec(lee, config, progress=False).keyed_vectors()
        ranked = [word for word, _ in kv.most_similar("attacks", topn=len(kv))]
        assert ranked.index("bombings") < 50, (seed, ranked[:20])


@pytest.mark.parametrize("arch,loss", [("skipgram", "neg"), ("cbow", "neg"), ("skipgram", "hs"), ("cbow", "hs")])
def test_small_corpora_train_at_the_defaults_and_at_gensims_test_settings(arch, loss, lee):
    """The Lee corpus and its first 200 sentences (4,351 words), at the defaults and at gensim's CBOW
    test settings, seeds 1-3: every run trains (no divergence), and the whole corpus at the defaults
    and, with negative sampling, the 4,351 words at gensim's settings lower their loss; its first 20
    sentences (250 words, a vocabulary of fewer words than a window's 16 output rows) train too.
    Without the damping both negative-sampling variants diverged on the 4,351 words at those
    settings, and CBOW's sparse product failed on the 250."""
    defaults = {"negative": 5 if loss == "neg" else 0}
    stressed = dict(LEE_GENSIM_TESTS["cbow", "neg"], negative=15 if loss == "neg" else 0)
    runs = [(lee, defaults, True), (lee.head(200), stressed, loss == "neg"),  # HS's few readings: noise
            (lee.head(200), defaults, False),  # 5 epochs at lr 0.025 barely move 4,351 words' loss
            (lee.head(20), stressed, False)]  # on 250 words the noise words are mostly the true ones
    for corpus, settings, falls in runs:
        for seed in (1, 2, 3):
            config = Word2VecConfig(arch=arch, loss=loss, seed=seed, threads=1, device="cpu", **settings)
            losses = [value for _, value in train_word2vec(corpus, config, progress=False).state.history]
            assert np.isfinite(losses).all(), (corpus.num_tokens, settings, seed)
            assert not falls or np.mean(losses[-3:]) < losses[0], (corpus.num_tokens, settings, seed, losses)


@pytest.mark.parametrize("arch,loss", [("skipgram", "neg"), ("cbow", "neg"), ("skipgram", "hs"), ("cbow", "hs")])
def test_a_chunk_trains_each_window_once_whatever_the_batching(arch, loss, wiki):
    """Batches are sorted (path length, context words) and skip-gram's contexts moved to the front and
    trimmed: every (centre, context word) pair of the chunk's windows must still be trained once."""
    from collections import Counter

    corpus = wiki.head(300)
    config = Word2VecConfig(arch=arch, loss=loss, dim=8, min_count=2, device="cpu", batch_size=64)
    model = Word2Vec(Vocabulary.from_corpus(corpus, min_count=2, specials=()), config)
    ids, offsets = model.vocab.encode_corpus(corpus, unknown="drop")
    sentence = np.repeat(np.arange(len(offsets) - 1), np.diff(offsets))
    fast_trainer, seen = FastTrainer(model), Counter()
    for batch in fast_trainer.batches(ids, sentence, np.random.default_rng(5)):
        if arch == "cbow" and loss == "hs":  # a batch's windows in the tree's leaf order
            assert (np.diff(fast_trainer.tree.leaf_ranks[batch.centres.numpy()]) >= 0).all()
        if loss == "neg":
            assert batch.negatives.shape == (len(batch.centres), config.negative)
        for centre, row in zip(batch.centres.tolist(), batch.contexts.tolist(), strict=True):
            seen.update((centre, context) for context in row if context >= 0)
    rng = np.random.default_rng(5)  # the same draws, in the same order: the windows of the chunk
    keep = model.vocab.keep_probabilities(config.sample)
    kept = rng.random(len(ids)) < keep[ids]
    centres, contexts = cbow_windows(ids[kept], sentence[kept], config.window, rng)
    expected = Counter((int(centre), int(context)) for centre, row in zip(centres, contexts, strict=True)
                       for context in row if context >= 0)
    assert seen == expected and len(expected) > 1000


def test_damping_changes_only_hierarchical_softmax(wiki):
    corpus = wiki.head(800)
    for arch, loss, changes in (("skipgram", "hs", True), ("cbow", "hs", True), ("skipgram", "neg", False),
                                ("cbow", "neg", False)):
        vectors = []
        for damp in (False, True):
            config = Word2VecConfig(arch=arch, loss=loss, dim=16, epochs=1, threads=1, device="cpu", min_count=2,
                                    damp_tree_steps=damp)
            model = Word2Vec(Vocabulary.from_corpus(corpus, min_count=2), config)
            # long input vectors, as late in a long run: a batch's summed steps on the top nodes overshoot
            generator = torch.Generator().manual_seed(0)
            model.input_vectors.copy_(torch.randn(model.input_vectors.shape, generator=generator))
            vectors.append(model.train(corpus, progress=False).input_vectors)
        assert torch.equal(*vectors) is not changes, (arch, loss)


def test_one_thread_and_one_seed_give_identical_vectors(wiki):
    corpus = wiki.head(1500)
    config = Word2VecConfig(dim=20, epochs=2, threads=1, device="cpu", min_count=2)
    first = train_word2vec(corpus, config, progress=False).input_vectors.clone()
    second = train_word2vec(corpus, config, progress=False).input_vectors
    assert torch.equal(first, second)
    other = train_word2vec(corpus, Word2VecConfig(dim=20, epochs=2, threads=1, device="cpu", min_count=2, seed=2),
                           progress=False).input_vectors
    assert not torch.equal(first, other)


def test_resume_continues_to_the_same_vectors(tmp_path, wiki):
    corpus = wiki.head(1500)
    config = Word2VecConfig(arch="cbow", loss="hs", dim=20, epochs=3, threads=1, device="cpu", min_count=2)
    uninterrupted = train_word2vec(corpus, config, progress=False)
    checkpoint = tmp_path / "w2v.ckpt"

    def interrupt(model):
        if model.state.epochs_done == 1:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        train_word2vec(corpus, config, progress=False, checkpoint=checkpoint, callback=interrupt)
    resumed = train_word2vec(corpus, config, progress=False, checkpoint=checkpoint, resume=True)
    assert resumed.state.epochs_done == 3
    assert torch.equal(resumed.input_vectors, uninterrupted.input_vectors)
    assert torch.equal(resumed.inner_node_vectors, uninterrupted.inner_node_vectors)
    with pytest.raises(SettingError, match="other settings .*dim"):
        train_word2vec(corpus, Word2VecConfig(arch="cbow", loss="hs", dim=10, epochs=3, threads=1, device="cpu",
                                              min_count=2), progress=False, checkpoint=checkpoint, resume=True)
    (tmp_path / "junk.ckpt").write_bytes(b"not a checkpoint")
    with pytest.raises(SettingError, match="junk.ckpt: not a readable word2vec checkpoint"):
        train_word2vec(corpus, config, progress=False, checkpoint=tmp_path / "junk.ckpt", resume=True)


def test_vectors_files_are_gensims_bytes_and_training_does_not_import_gensim(tmp_path, wiki):
    """The word2vec files are written without gensim (whose import, through scipy, cost a training
    process about a second), byte for byte as gensim's save_word2vec_format writes them."""
    import subprocess
    import sys

    from course.analysis.vectors import save_vectors

    model = train_word2vec(wiki.head(300), Word2VecConfig(dim=12, epochs=1, min_count=2), progress=False)
    for binary in (False, True):
        ours = model.save_vectors(tmp_path / f"ours{int(binary)}", binary=binary)
        theirs = save_vectors(model.keyed_vectors(), tmp_path / f"gensim{int(binary)}", binary=binary)
        assert ours.read_bytes() == theirs.read_bytes()
    (tmp_path / "text.txt").write_text("a b c a b c d a b\n" * 20)
    script = ("import sys; from course.cli import main; code = main(['train', 'word2vec', '--corpus', sys.argv[1], "
              "'--min-count', '1', '--epochs', '1', '--quiet', '--out', sys.argv[2]]); "
              "print(code, 'gensim' in sys.modules)")
    result = subprocess.run([sys.executable, "-c", script, tmp_path / "text.txt", tmp_path / "v.txt"],
                            capture_output=True, text=True, timeout=300)
    assert result.stdout.split() == ["0", "False"], result.stdout + result.stderr


def test_vectors_files_load_in_gensim(tmp_path, wiki):
    from gensim.models import KeyedVectors

    model = train_word2vec(wiki.head(800), Word2VecConfig(dim=12, epochs=1, min_count=2), progress=False)
    for binary in (False, True):
        path = model.save_vectors(tmp_path / f"v{int(binary)}", binary=binary)
        loaded = KeyedVectors.load_word2vec_format(str(path), binary=binary)
        assert loaded.index_to_key == model.vocab.words
        np.testing.assert_allclose(loaded.vectors, model.input_vectors.cpu().numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("settings,message", [
    ({"dim": 0}, "dim must be from 1"), ({"window": 0}, "window must be from 1"),
    ({"negative": -1}, "negative must"), ({"epochs": 0}, "epochs must be from 1"),
    ({"arch": "glove"}, "arch must be one of"), ({"loss": "softmax"}, "loss must be"),
    ({"lr": 0}, "lr must be above 0"), ({"lr": float("inf")}, "lr must be a finite number"),
    ({"lr": float("nan")}, "lr must be a finite number"),
    ({"sample": float("inf")}, "sample must be a finite number from 0 to 1"),
    ({"sample": float("nan")}, "sample must be"),
])
def test_nonsense_settings_are_refused(settings, message):
    with pytest.raises(SettingError, match=message):
        Word2VecConfig(**settings)


def test_corpus_too_small_and_missing_cuda():
    lonely = from_sentences([["one"], ["two"], ["one"]], name="lonely")
    with pytest.raises(SettingError, match="too small to train on"):
        train_word2vec(lonely, Word2VecConfig(min_count=1), progress=False)
    if not torch.cuda.is_available():
        with pytest.raises(SettingError, match="no CUDA GPU"):
            train_word2vec(lonely, Word2VecConfig(min_count=1, device="cuda"), progress=False)


def test_command_line_refuses_a_corpus_too_small_for_any_window(tmp_path):
    import os
    import subprocess
    import sys

    text = tmp_path / "lonely.txt"
    text.write_text("one\ntwo\none\n", encoding="utf-8")
    out = tmp_path / "vectors.txt"
    result = subprocess.run([sys.executable, "-m", "course", "train", "word2vec", "--corpus", str(text),
                             "--min-count", "1", "--quiet", "--out", str(out)], capture_output=True, text=True,
                            env={**os.environ, "COURSE_CACHE": str(tmp_path / "cache")}, timeout=300)
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "too small to train on" in lines[0], result.stderr
    assert not out.exists()


@pytest.mark.parametrize("threads", [1, 2])  # 2: in worker processes, whence the error must travel
def test_a_diverging_run_stops_with_a_clear_error(monkeypatch, threads):
    from course.core.errors import TrainingDivergedError
    from course.word2vec import trainer

    monkeypatch.setattr(trainer, "LOSS_EVERY", 1)
    config = Word2VecConfig(dim=16, window=3, min_count=1, epochs=2, threads=threads, lr=10, min_lr=10,
                            batch_size=64, damp_input_steps=False)  # damped, even lr 10 trains
    with pytest.raises(TrainingDivergedError, match="diverged .* smaller --lr .* or --batch-size"):
        train_word2vec(_topics()[0], config, progress=False)


def test_worker_processes_report_progress_and_stop_on_interrupt(wiki):
    import multiprocessing

    corpus = wiki.head(4000)
    config = Word2VecConfig(dim=16, epochs=3, threads=2, device="cpu", min_count=2)
    seen = []

    def watch(model):
        seen.append(model.state.words_done)
        if model.state.epochs_done == 1:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        train_word2vec(corpus, config, progress=False, callback=watch)
    assert multiprocessing.active_children() == []
    assert seen[-1] == len(Vocabulary.from_corpus(corpus, min_count=2, specials=()).encode_corpus(corpus)[0])
    done = train_word2vec(corpus, config, progress=False)
    assert done.state.words_done == 3 * seen[-1]  # every chunk of every epoch reported once
    losses = [loss for _, loss in done.state.history]
    assert np.mean(losses[-5:]) < np.mean(losses[:5])


def test_a_run_that_cannot_fit_in_memory_is_refused_before_anything_is_allocated():
    import tracemalloc

    rng = np.random.default_rng(0)
    one_long_sentence = from_sentences([[f"w{i}" for i in rng.integers(0, 500, size=60_000)]], name="long")
    tracemalloc.start()
    try:
        with pytest.raises(SettingError, match=r"window=100000 \(its longest sentence has 60,000 words.* would "
                                               r"need about [\d,.]+ GB of memory, and .* is available"):
            train_word2vec(one_long_sentence, Word2VecConfig(window=100_000, min_count=1, threads=1, device="cpu"),
                           progress=False)
        with pytest.raises(SettingError, match=r"500 words of 1,000,000,000 dimensions would need about"):
            train_word2vec(one_long_sentence, Word2VecConfig(dim=10**9, min_count=1, device="cpu"), progress=False)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 50e6, peak  # the windows alone would take hundreds of GB
    windows = Word2VecConfig(window=100_000, min_count=1, sample=0, epochs=1, dim=8, threads=1, device="cpu")
    short = train_word2vec(_topics(sentences=20)[0], windows, progress=False)  # a window longer than any sentence
    assert short.state.epochs_done == 1                                       # costs only what the sentences need


class _CreatesAFile:
    """Unpickled by a loader that runs code, it creates a file."""

    def __init__(self, path):
        self.path = str(path)

    def __reduce__(self):
        return open, (self.path, "w")


def test_a_crafted_checkpoint_is_refused_without_running_anything(tmp_path):
    marker = tmp_path / "created-by-the-checkpoint"
    crafted = tmp_path / "crafted.ckpt"
    torch.save({"format": "course.word2vec/1", "config": _CreatesAFile(marker)}, crafted)
    with pytest.raises(SettingError, match=r"crafted.ckpt: refused, it would build objects other than plain types "
                                           r"and tensors \(_?io.open\)"):  # _io.open from Python 3.12
        train_word2vec(_topics(sentences=5)[0], Word2VecConfig(min_count=1), progress=False, checkpoint=crafted,
                       resume=True)
    assert not marker.exists()
    torch.load(crafted, weights_only=False)  # what loading it as before did: run its code
    assert marker.exists()


def test_resuming_another_corpus_a_damaged_checkpoint_or_none_is_refused(tmp_path):
    config = Word2VecConfig(dim=8, window=3, min_count=1, epochs=1, threads=1, device="cpu")
    checkpoint = tmp_path / "w2v.ckpt"
    train_word2vec(_topics(sentences=10)[0], config, progress=False, checkpoint=checkpoint)
    other = from_sentences([["a", "b", "c"], ["b", "c", "d"]] * 10, name="other")
    with pytest.raises(SettingError, match=r"w2v.ckpt: was trained on another corpus \('topics', 20 sentences, "
                                           r"200 tokens; now 'other', 20 sentences, 60 tokens\)"):
        train_word2vec(other, config, progress=False, checkpoint=checkpoint, resume=True)
    whole = checkpoint.read_bytes()
    for share in (0.1, 0.5, 0.9, 0.999):
        damaged = tmp_path / "damaged.ckpt"
        damaged.write_bytes(whole[:int(len(whole) * share)])
        with pytest.raises(SettingError, match="damaged.ckpt: not a readable word2vec checkpoint, truncated or "
                                               "damaged"):
            train_word2vec(other, config, progress=False, checkpoint=damaged, resume=True)
    with pytest.raises(SettingError, match="resume needs a checkpoint"):
        train_word2vec(other, config, progress=False, resume=True)
    with pytest.raises(OutputFileError, match="is a folder: give a file name for the checkpoint"):
        train_word2vec(other, config, progress=False, checkpoint=tmp_path, callback=lambda model: pytest.fail())


def test_a_checkpoint_without_the_record_of_its_corpus_is_refused(tmp_path):
    config = Word2VecConfig(dim=8, window=3, min_count=1, epochs=1, threads=1, device="cpu")
    checkpoint = tmp_path / "w2v.ckpt"
    corpus = _topics(sentences=10)[0]
    train_word2vec(corpus, config, progress=False, checkpoint=checkpoint)
    payload = torch.load(checkpoint, weights_only=True)
    assert payload["identity"]["corpus"]["name"] == "topics" and payload["identity"]["vocabulary"]["words"] > 0
    payload["corpus"] = payload.pop("identity")["corpus"]  # as checkpoints recorded the corpus alone before
    torch.save(payload, checkpoint)
    with pytest.raises(SettingError, match="w2v.ckpt: an older checkpoint that does not record the corpus and "
                                           "vocabulary it was trained on"):
        train_word2vec(corpus, config, progress=False, checkpoint=checkpoint, resume=True)
