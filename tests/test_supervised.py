"""The supervised-training loop on a toy task built to need it: a logistic regression whose training
labels follow a strong feature x0 (flipped on a fifth of the examples) and, perfectly, a weak one x1
(a tenth of x0's size). Fitting the flipped fifth drives the weight of x1 up without bound; on dev x1
points the other way, so dev accuracy rises above the coin's 0.5, then falls as x1 takes over."""

import numpy as np
import pytest
import torch

from course.core.errors import SettingError
from course.supervised import Checkpoint, LoopConfig, better, fit


def toy_data(count: int, dev: bool, seed: int):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, count)
    sign = 2.0 * y - 1
    flipped = np.zeros(count) if dev else rng.random(count) < 0.2
    x0 = np.where(flipped, -sign, sign) + rng.normal(0, 0.3, count)
    x1 = (-0.1 if dev else 0.1) * sign
    return torch.tensor(np.stack([x0, x1], 1), dtype=torch.float32), torch.tensor(y)


TRAIN, DEV = toy_data(200, False, 0), toy_data(200, True, 1)


def accuracy(model, data) -> float:
    model.eval()
    with torch.no_grad():
        return float((model(data[0]).argmax(1) == data[1]).float().mean())


def run(epochs=40, patience=0, checkpoint=None, resume=False, evaluate=None, evaluated=None, lr=0.02):
    """Train the toy model with the loop; ``(model, state)``."""
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Dropout(0.1), torch.nn.Linear(2, 2))  # dropout: torch's generator matters
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    rng = np.random.default_rng(0)

    def train_epoch(epoch: int) -> dict:
        model.train()
        losses = []
        for rows in np.array_split(rng.permutation(len(TRAIN[1])), 10):
            loss = torch.nn.functional.cross_entropy(model(TRAIN[0][rows]), TRAIN[1][rows])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
        return {"loss": float(np.mean(losses))}

    config = LoopConfig(epochs, frozenset(evaluated or range(1, epochs + 1)), "accuracy", patience=patience,
                        every_epoch=evaluated is not None)
    saving = None if checkpoint is None else Checkpoint(
        checkpoint, "test.toy-checkpoint/1", "toy", {"identity": IDENTITY, "config": {"lr": lr}, "inputs": "same"},
        "inputs", "was trained on other inputs")
    state = fit(model, optimizer, train_epoch, lambda: (evaluate or accuracy)(model, DEV), config, saving, resume, rng)
    return model, state


IDENTITY = {"corpus": {"name": "toy", "sentences": 200, "tokens": 200, "sha256": "0" * 64},
            "vocabulary": {"words": 2, "sha256": "1" * 64}}


def test_the_weights_kept_are_the_best_dev_epochs_not_the_last():
    model, state = run()
    scores = [entry["dev_accuracy"] for entry in state.history]
    best = int(np.argmax(scores))  # the first of equal bests
    assert [entry["epoch"] for entry in state.history] == list(range(1, 41))
    assert scores[0] < 0.6 < 0.95 < scores[best] and scores[-1] < 0.4, scores  # from the coin's 0.5 up, then down
    assert scores.count(scores[best]) > 1  # later ties do not replace the first best
    assert state.best_epoch == best + 1 and state.best_score == scores[best] and not state.stopped_early
    assert accuracy(model, DEV) == scores[best]
    assert state.history[0]["loss"] > state.history[-1]["loss"]  # training still improves while dev gets worse


def test_patience_stops_after_that_many_evaluations_without_a_better_score():
    _, whole = run()
    model, state = run(patience=3)
    assert state.stopped_early and state.epoch == whole.best_epoch + 3 < 40
    assert state.history == whole.history[:state.epoch] and state.best_epoch == whole.best_epoch
    assert accuracy(model, DEV) == whole.best_score


def test_only_the_evaluated_epochs_are_scored_and_the_others_recorded_without_a_score(tmp_path):
    model, state = run(epochs=6, evaluated={3, 6})
    assert [entry["dev_accuracy"] is None for entry in state.history] == [True, True, False, True, True, False]
    assert state.best_epoch in (3, 6)
    run(epochs=2, evaluated={3, 6}, checkpoint=tmp_path / "toy.pt")  # a checkpoint before any evaluation
    resumed, again = run(epochs=6, evaluated={3, 6}, checkpoint=tmp_path / "toy.pt", resume=True)
    assert again.history == state.history and again.best_epoch == state.best_epoch
    assert all(torch.equal(value, model.state_dict()[name]) for name, value in resumed.state_dict().items())


def test_ties_keep_the_first_and_an_error_is_better_lower():
    assert better(0.5, None, True) and better(0.6, 0.5, True) and not better(0.5, 0.5, True)
    assert better(0.1, 0.2, False) and not better(0.2, 0.2, False) and not better(0.3, 0.2, False)
    with pytest.raises(SettingError, match="patience must not be negative"):
        LoopConfig(3, frozenset({3}), "f1", patience=-1)


def test_an_interrupted_run_resumes_to_the_weights_of_one_that_never_stopped(tmp_path):
    whole_model, whole = run(epochs=12, patience=4)
    checkpoint = tmp_path / "toy.pt"
    calls = []

    def stop_at_epoch_5(model, data):
        calls.append(1)
        if len(calls) == 5:
            raise KeyboardInterrupt
        return accuracy(model, data)

    with pytest.raises(KeyboardInterrupt):
        run(epochs=12, patience=4, checkpoint=checkpoint, evaluate=stop_at_epoch_5)
    model, state = run(epochs=12, patience=4, checkpoint=checkpoint, resume=True)
    assert state.history == whole.history and state.best_epoch == whole.best_epoch
    assert state.stopped_early and whole.stopped_early and state.epoch == whole.epoch < 12
    assert all(torch.equal(value, whole_model.state_dict()[name]) for name, value in model.state_dict().items())


def test_resuming_another_runs_checkpoint_or_a_damaged_file_is_one_line(tmp_path):
    checkpoint = tmp_path / "toy.pt"
    run(epochs=2, checkpoint=checkpoint)
    with pytest.raises(SettingError, match=r"toy.pt: was trained with other settings \(lr=0.02 \(now 0.2\)\)"):
        run(epochs=2, checkpoint=checkpoint, resume=True, lr=0.2)
    saved = torch.load(checkpoint, weights_only=True)
    saved["identity"]["inputs"] = "other"
    torch.save(saved, checkpoint)
    with pytest.raises(SettingError, match=r"toy.pt: was trained on other inputs$"):
        run(epochs=2, checkpoint=checkpoint, resume=True)
    checkpoint.write_bytes(checkpoint.read_bytes()[:100])
    with pytest.raises(SettingError, match=r"toy.pt: not a readable toy checkpoint, truncated or damaged"):
        run(epochs=2, checkpoint=checkpoint, resume=True)
