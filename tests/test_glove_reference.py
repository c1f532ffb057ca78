"""The plain GloVe loss and trainer, and the fast trainer held to them step by step."""

import numpy as np
import pytest
import torch

from course.core.errors import SettingError
from course.glove import GloVe, entry_order, glove_loss, glove_loss_terms, nonzero_entries, preset, targets
from course.glove.batches import Batch, DeviceEntries, batch_loss_and_gradients
from course.glove.model import train_glove
from course.glove.reference import train_entry, train_reference
from course.glove.trainer import FastTrainer
from course.text.corpus import from_sentences

pytestmark = pytest.mark.filterwarnings("ignore:Sparse CSR tensor support is in beta state:UserWarning")

UNIT_ROUNDOFF = 2.0 ** -24  # float32


@pytest.fixture
def one_torch_thread():
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def _topics(sentences=6, seed=0):
    rng = np.random.default_rng(seed)
    animals, tools = [f"animal{i}" for i in range(8)], [f"tool{i}" for i in range(8)]
    text = [list(rng.choice(topic, size=8)) for _ in range(sentences) for topic in (animals, tools)]
    return from_sentences(text, name="topics")


def _random_entries(generator, size=7, entries=15):
    """Float64 parameters and ``entries`` distinct (i, j) pairs with counts on both sides of x_max."""
    def random(*shape):
        return 0.5 * torch.randn(*shape, dtype=torch.float64, generator=generator)

    parameters = [random(size, 4), random(size, 4), random(size), random(size)]
    cells = torch.randperm(size * size, generator=generator)[:entries]
    counts = torch.rand(entries, dtype=torch.float64, generator=generator) * 30 + 0.1
    return parameters, cells // size, cells % size, counts


def test_loss_terms_gradients_are_the_derivatives_of_the_loss():
    parameters, rows, cols, counts = _random_entries(torch.Generator().manual_seed(1))
    inputs = [parameters[0][rows], parameters[1][cols], parameters[2][rows], parameters[3][cols]]
    inputs = [tensor.clone().requires_grad_() for tensor in inputs]
    log_counts, weights = counts.log(), torch.where(counts < 10, (counts / 10) ** 0.75, torch.ones_like(counts))
    loss, grad_words, grad_contexts, grad_biases = glove_loss_terms(*inputs, log_counts, weights)
    automatic = torch.autograd.grad(loss.sum(), inputs)
    for mine, theirs in zip((grad_words, grad_contexts, grad_biases, grad_biases), automatic, strict=True):
        torch.testing.assert_close(mine, theirs, rtol=1e-12, atol=1e-12)  # float64: the same products and sums

    def summed_loss(*rows):
        return glove_loss_terms(*rows, log_counts, weights)[0].sum()

    assert torch.autograd.gradcheck(summed_loss, inputs, eps=1e-6, atol=1e-6)  # central differences, float64


def test_sparse_batches_give_the_plain_loss_and_gradients():
    parameters, rows, cols, counts = _random_entries(torch.Generator().manual_seed(2), size=9, entries=40)
    order = torch.from_numpy(np.lexsort((cols.numpy(), rows.numpy())))
    rows, cols, counts = rows[order], cols[order], counts[order]
    batch = Batch.build(rows, cols, counts.log(), torch.where(counts < 10, (counts / 10) ** 0.75,
                                                               torch.ones_like(counts)))
    loss, *touched = batch_loss_and_gradients(*parameters, batch)
    plain_loss, *plain = glove_loss(*parameters, rows, cols, counts, x_max=10, alpha=0.75)
    torch.testing.assert_close(loss, plain_loss, rtol=1e-12, atol=0)
    for grad, index, dense in zip(touched, (batch.touched_rows, batch.touched_cols) * 2, plain, strict=True):
        torch.testing.assert_close(grad, dense[index], rtol=1e-12, atol=1e-14)
        untouched = torch.ones(len(dense), dtype=torch.bool)
        untouched[index] = False
        assert (dense[untouched] == 0).all()


def test_fast_trainer_takes_the_reference_steps_one_entry_at_a_time(one_torch_thread):
    corpus = _topics()
    config = preset("per-entry", dim=6, window=3, min_count=1, epochs=2, lr=0.1, device="cpu", seed=4)
    reference, fast = GloVe.start(corpus, config), GloVe.start(corpus, config)
    for mine, theirs in zip(reference.parameters(), fast.parameters(), strict=True):
        assert torch.equal(mine, theirs)
    counts = reference.cooccurrences(corpus)
    rows, cols, values = nonzero_entries(counts)
    log_counts, weights = targets(values, config.x_max, config.alpha)
    entries = DeviceEntries.from_counts(counts, config.x_max, config.alpha, fast.device)
    trainer = FastTrainer(fast)
    steps = 0
    with torch.no_grad():
        for epoch in range(config.epochs):
            for n in entry_order(config.seed, epoch, len(rows)):
                loss = train_entry(reference, rows[n], cols[n], log_counts[n], weights[n], config.lr)
                fast_loss = trainer.step(entries.batch(torch.tensor([n])))
                steps += 1
                # The two may sum w_i . w~_j in another order: at most about d float32 roundings
                # of values below 1 per step, and a step moves a parameter by less than the change
                # in its dot product (lr |w~| / sqrt(G) < 1), so k steps part them by k d u at most.
                tolerance = steps * config.dim * UNIT_ROUNDOFF
                assert fast_loss == pytest.approx(loss, rel=1e-5, abs=tolerance)
                for mine, theirs in zip(reference.parameters() + reference.gradsq, fast.parameters() + fast.gradsq,
                                        strict=True):
                    torch.testing.assert_close(theirs, mine, rtol=0, atol=tolerance)
    assert steps == 2 * len(rows) > 100
    moved = GloVe.start(corpus, config)
    assert (reference.word_vectors - moved.word_vectors).abs().max() > 100 * tolerance  # they did train


def test_batch_of_one_training_equals_the_reference_and_its_loss_falls(one_torch_thread):
    corpus = _topics()
    config = preset("per-entry", dim=8, window=3, min_count=1, epochs=4, lr=0.1, device="cpu", seed=2)
    reference = train_reference(corpus, config)
    fast = train_glove(corpus, config, progress=False)
    steps = config.epochs * reference.state.entries_per_epoch
    assert fast.state.entries_done == steps
    for mine, theirs in zip(reference.parameters() + reference.gradsq, fast.parameters() + fast.gradsq, strict=True):
        torch.testing.assert_close(theirs, mine, rtol=0, atol=steps * config.dim * UNIT_ROUNDOFF)
    losses = [loss for _, loss in reference.state.history]
    assert len(losses) == config.epochs and all(b < a for a, b in zip(losses, losses[1:], strict=False))
    assert losses[-1] < 0.5 * losses[0]
    torch.testing.assert_close(reference.vectors(), reference.word_vectors + reference.context_vectors)


def test_glove_c_divides_by_the_accumulator_before_adding():
    corpus = _topics(sentences=2)
    config = preset("per-entry", dim=4, window=3, min_count=1, device="cpu")
    steps = {}
    for old in (False, True):
        model = GloVe.start(corpus, config)
        before = [p.clone() for p in model.parameters()]
        i, j = 0, 1
        _, grad_w, grad_c, grad_b = glove_loss_terms(model.word_vectors[i:i + 1], model.context_vectors[j:j + 1],
                                                     model.word_biases[i:i + 1], model.context_biases[j:j + 1],
                                                     torch.tensor([0.5]), torch.tensor([0.3]))
        train_entry(model, i, j, 0.5, 0.3, lr=0.5, old_accumulator=old)
        steps[old] = before[0][i] - model.word_vectors[i]
        scaled = 0.5 * grad_w[0]
        torch.testing.assert_close(model.gradsq[0][i], 1 + scaled * scaled)
        torch.testing.assert_close(model.gradsq[3][j], 1 + (0.5 * grad_b[0]) ** 2)
        expected = scaled if old else scaled / (1 + scaled * scaled).sqrt()  # G starts at 1
        torch.testing.assert_close(steps[old], expected)
        assert torch.equal(model.word_vectors[2:], before[0][2:])  # other rows do not move
    assert (steps[True].abs() > steps[False].abs()).all()


def test_presets():
    assert preset("per-entry").batch_size == 1 and preset("per-entry").threads == 1
    assert preset("demo", dim=50).dim == 50 and preset("demo").batch_size == 65_536
    with pytest.raises(SettingError, match="unknown GloVe preset 'fast'"):
        preset("fast")
    with pytest.raises(SettingError, match="unknown GloVe setting"):
        preset("demo", size=3)
