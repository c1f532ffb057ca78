"""The biLM's two directions side by side on two threads: the same loss, the same gradients and the same
trained weights as one direction after the other, to the last bit, in float32 and in bfloat16."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
import torch
from conftest import toy_corpus

from course.elmo import ElmoConfig, train_elmo
from course.elmo.bilm import draw_dropout_masks, dropped
from course.elmo.model import Elmo
from course.elmo.side_by_side import direction_worker, side_by_side_backward
from course.elmo.training import intra_op_threads, language_model_data, side_by_side, vocabularies
from course.lm import split_heldout
from course.lm.precision import autocast, cpu_has_bfloat16

pytestmark = pytest.mark.filterwarnings("ignore:LSTM with projections is not supported:UserWarning")

SMALL = ElmoConfig(min_count=1, max_characters=12, char_dim=4, filters=((1, 4), (2, 8)), projection_dim=8,
                   lstm_dim=16, dropout=0.2, epochs=2, batch_tokens=150, lr=2e-2, heldout_every=5, device="cpu",
                   softmax="adaptive", adaptive_cutoffs=(6,), threads=1)
PRECISIONS = ["fp32"] + (["bf16"] if cpu_has_bfloat16() else [])


def batch_and_model(config: ElmoConfig):
    corpus = toy_corpus(60)
    train, _ = split_heldout(corpus, config)
    words, characters = vocabularies(corpus, train, config)
    model = Elmo(config, words, characters)
    data = language_model_data(corpus, train, model)
    groups = data.batches(config.batch_tokens, np.random.default_rng(0))
    return model, data.batch(max(groups, key=len))


def gradients(bilm) -> dict[str, torch.Tensor]:
    return {name: p.grad.clone() for name, p in bilm.named_parameters()}


@pytest.mark.parametrize("precision", PRECISIONS)
def test_one_step_side_by_side_has_the_loss_and_gradients_of_one_direction_after_the_other(precision):
    model, batch = batch_and_model(replace(SMALL, precision=precision))
    bilm, dtype = model.bilm.train(), {"fp32": None, "bf16": torch.bfloat16}[precision]
    device = torch.device("cpu")
    torch.manual_seed(3)
    with autocast(device, dtype, cache=False):
        loss, forward_sum, backward_sum = bilm.loss(batch.char_ids, batch.mask, batch.targets, batch.index,
                                                    batch.predictions)
    loss.backward()
    one_after_the_other = gradients(bilm)
    bilm.zero_grad(set_to_none=True)
    torch.manual_seed(3)
    with direction_worker() as worker:
        sums = side_by_side_backward(bilm, batch, device, dtype, worker)
    assert torch.equal(sums[0], forward_sum) and torch.equal(sums[1], backward_sum)
    side_by_side_grads = gradients(bilm)
    assert one_after_the_other.keys() == side_by_side_grads.keys()
    for name, grad in one_after_the_other.items():
        assert torch.equal(grad, side_by_side_grads[name]), name
    assert any(grad.abs().sum() > 0 for grad in side_by_side_grads.values())


@pytest.mark.parametrize("precision", PRECISIONS)
def test_training_with_two_threads_gives_the_weights_of_one(precision):
    config = replace(SMALL, precision=precision)
    one = train_elmo(toy_corpus(60), config, progress=False)
    two = train_elmo(toy_corpus(60), replace(config, threads=2), progress=False)
    assert one.state.step == two.state.step > 4
    assert one.state.heldout == two.state.heldout
    for (name, a), (_, b) in zip(one.bilm.state_dict().items(), two.bilm.state_dict().items(), strict=True):
        assert torch.equal(a, b), name
    assert one.state.history[-1]["loss"] < one.state.history[0]["loss"]


def test_a_failure_in_the_other_direction_is_raised_here():
    model, batch = batch_and_model(SMALL)
    batch.targets[:, 0] = 10_000  # an id past the vocabulary at <bos>, which only the backward LM predicts
    with direction_worker() as worker, pytest.raises(RuntimeError, match="Target values should be in"):
        side_by_side_backward(model.bilm.train(), batch, torch.device("cpu"), None, worker)


def test_dropout_masks_keep_the_share_asked_for_and_scale_to_the_same_mean():
    torch.manual_seed(0)
    masks = draw_dropout_masks(20, 30, 16, 2, 0.25, torch.device("cpu"))
    assert [m.shape for m in masks.forward + masks.backward] == [(20, 30, 16)] * 4
    assert masks.top_forward.shape == masks.top_backward.shape == (20, 29, 16)
    kept = torch.cat([m.flatten() for m in masks.forward + masks.backward])
    assert set(kept.unique().tolist()) == {0.0, 1.0} and abs(kept.mean().item() - 0.75) < 0.01
    x = torch.ones(20, 30, 16)
    assert abs(dropped(x, masks.forward[0], 0.25).mean().item() - 1.0) < 0.03
    assert dropped(x, None, 0.25) is x
    state = torch.get_rng_state()
    assert draw_dropout_masks(20, 30, 16, 2, 0.0, torch.device("cpu")) is None
    assert torch.equal(state, torch.get_rng_state())  # nothing dropped, nothing drawn


def test_side_by_side_only_on_a_cpu_with_two_threads_or_more():
    cpu, cuda = torch.device("cpu"), torch.device("cuda")
    assert not side_by_side(SMALL, cpu) and side_by_side(replace(SMALL, threads=2), cpu)
    assert not side_by_side(replace(SMALL, threads=2), cuda)
    assert intra_op_threads(SMALL, cpu) == 1
    assert intra_op_threads(replace(SMALL, threads=2), cpu) == 1
    more = replace(SMALL, threads=2)
    object.__setattr__(more, "threads", 4)  # more than a 2-core machine allows a config: the range would refuse it
    assert intra_op_threads(more, cpu) == 2


def test_the_worker_thread_is_one_for_the_run_and_gone_after_it():
    import threading

    before = {thread.ident for thread in threading.enumerate()}
    names = []
    with direction_worker() as worker:
        for _ in range(3):
            names.append(worker.submit(lambda: threading.current_thread().ident).result())
    assert len(set(names)) == 1 and names[0] not in before
    assert {thread.ident for thread in threading.enumerate()} == before
