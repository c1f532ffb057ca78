"""What the language models share (course.lm): one resume check with one error type per mistake, the
one autocast, one model file, and one run's bookkeeping, for the biLM and the Transformer alike.
Tiny models, so the whole file runs in seconds."""

import shutil

import numpy as np
import pytest
import torch
from conftest import toy_corpus

from course.core.errors import ModelFileError, SettingError
from course.elmo import Elmo, ElmoConfig, train_elmo
from course.lm import RESUMABLE_CHANGES, autocast, autocast_dtype, check_same_run, cpu_has_bfloat16
from course.lm.run import LOG_EVERY
from course.text.corpus import from_sentences
from course.transformer import Transformer, TransformerConfig, train_transformer
from course.transformer.perplexity import precision_dtype

# PyTorch says once that projected LSTMs skip oneDNN on the CPU: expected, see course/elmo/bilm.py
pytestmark = pytest.mark.filterwarnings("ignore:LSTM with projections is not supported:UserWarning")

ELMO = ElmoConfig(min_count=1, max_characters=12, char_dim=4, filters=((1, 4), (2, 4), (3, 8)), projection_dim=8,
                  lstm_dim=16, dropout=0.1, epochs=3, batch_tokens=120, lr=2e-2, heldout_every=5,
                  checkpoint_every=4, device="cpu", threads=1)
TRANSFORMER = TransformerConfig(min_count=1, dim=16, heads=2, layers=2, ff_dim=32, max_positions=16, dropout=0.1,
                                epochs=3, batch_tokens=120, lr=1e-2, warmup_share=0.1, heldout_every=5,
                                checkpoint_every=4, device="cpu", threads=1)
TRAINERS = {"elmo": (train_elmo, ELMO, Elmo), "transformer": (train_transformer, TRANSFORMER, Transformer)}
OTHER = {"elmo": "transformer", "transformer": "elmo"}


pytestmark = pytest.mark.usefixtures("one_torch_thread")


def one_line(excinfo) -> str:
    message = str(excinfo.value)
    assert message and "\n" not in message
    return message


def weights(model) -> dict:
    return getattr(model, type(model).NETWORK).state_dict()


def without_time(history: list[dict]) -> list[dict]:
    return [{k: v for k, v in entry.items() if k != "seconds"} for entry in history]


@pytest.fixture(scope="module")
def checkpoints(tmp_path_factory):
    """Each trainer's checkpoint of a run stopped at step 5 (mid-epoch 2 of 3: 4 steps an epoch), and
    the run's model, with the uninterrupted run's model."""
    folder, corpus = tmp_path_factory.mktemp("lm"), toy_corpus(80)
    made = {}
    for name, (train, config, _) in TRAINERS.items():
        path = folder / f"{name}.ckpt"
        stopped = train(corpus, config, progress=False, checkpoint=path, max_steps=5)
        made[name] = {"path": path, "stopped": stopped, "whole": train(corpus, config, progress=False)}
    return made


# ------------------------------------------------------------------------------ one resume check


@pytest.mark.parametrize("name", TRAINERS)
def test_each_resume_mistake_gives_one_error_type_for_every_trainer(name, checkpoints, tmp_path):
    train, config, _ = TRAINERS[name]
    corpus, saved = toy_corpus(80), checkpoints[name]["path"]

    def resume(path, **changes):
        copy = shutil.copy(path, tmp_path / f"copy-{path.name}")
        return train(corpus, type(config)(**{**config.to_dict(), **changes}), progress=False, checkpoint=copy,
                     resume=True)

    with pytest.raises(SettingError, match=r"was trained with other settings \(lr=") as excinfo:  # settings
        resume(saved, lr=0.5)
    one_line(excinfo)
    with pytest.raises(SettingError, match="was trained on another corpus") as excinfo:  # corpus
        other = from_sentences([["w1", "w2", "w3"]] * 40, name="other")
        train(other, config, progress=False, checkpoint=shutil.copy(saved, tmp_path / "c.ckpt"), resume=True)
    one_line(excinfo)
    payload = torch.load(saved, weights_only=True)  # a checkpoint that does not record its corpus
    payload.pop("identity")
    torch.save(payload, tmp_path / "old.ckpt")
    with pytest.raises(SettingError, match="an older checkpoint that does not record the corpus") as excinfo:
        resume(tmp_path / "old.ckpt")
    one_line(excinfo)
    payload = torch.load(saved, weights_only=True)  # an epoch whose order, drawn again, is another
    assert payload["state"]["batch_in_epoch"] > 0
    payload["batch_order"] = "0" * 64
    torch.save(payload, tmp_path / "order.ckpt")
    with pytest.raises(SettingError, match="the epoch's batch order drawn again") as excinfo:
        resume(tmp_path / "order.ckpt")
    one_line(excinfo)
    (tmp_path / "damaged.ckpt").write_bytes(saved.read_bytes()[:500])  # truncated
    with pytest.raises(ModelFileError, match="truncated") as excinfo:
        resume(tmp_path / "damaged.ckpt")
    one_line(excinfo)
    with pytest.raises(ModelFileError, match=f"is {'a Transformer' if name == 'elmo' else 'an ELMo'} model file "
                                             f"\\('course.{OTHER[name]}/1'\\), not") as excinfo:  # another kind
        resume(checkpoints[OTHER[name]]["path"])
    one_line(excinfo)


@pytest.mark.parametrize("name", TRAINERS)
def test_the_resumable_changes_are_allowed_and_the_run_ends_as_the_uninterrupted_one(name, checkpoints, tmp_path):
    train, config, _ = TRAINERS[name]
    copy = shutil.copy(checkpoints[name]["path"], tmp_path / "run.ckpt")
    assert {"device", "threads", "checkpoint_every", "preset"} == RESUMABLE_CHANGES
    # (the threads may change too, but other threads sum in another order: not bit for bit)
    changed = type(config)(**{**config.to_dict(), "checkpoint_every": 3, "preset": "other"})
    resumed = train(toy_corpus(80), changed, progress=False, checkpoint=copy, resume=True)
    whole = checkpoints[name]["whole"]
    assert resumed.state.finished and resumed.state.step == whole.state.step
    assert without_time(resumed.state.history) == without_time(whole.state.history)
    assert resumed.state.heldout == whole.state.heldout
    for a, b in zip(weights(whole).values(), weights(resumed).values(), strict=True):
        assert torch.equal(a, b)


@pytest.mark.parametrize("name", TRAINERS)
def test_a_checkpoint_records_its_processes_and_an_older_one_without_them_resumes_alike(name, checkpoints, tmp_path,
                                                                                      capfd):
    train, config, _ = TRAINERS[name]
    payload = torch.load(checkpoints[name]["path"], weights_only=True)
    assert payload["processes"] == 1 and payload["state"]["batch_in_epoch"] == 1  # step 5: batch 1 of epoch 2
    payload.pop("processes")  # as a checkpoint written before they were recorded
    torch.save(payload, tmp_path / "older.ckpt")
    resumed = train(toy_corpus(80), config, progress=False, checkpoint=tmp_path / "older.ckpt", resume=True)
    whole = checkpoints[name]["whole"]
    assert without_time(resumed.state.history) == without_time(whole.state.history)
    for a, b in zip(weights(whole).values(), weights(resumed).values(), strict=True):
        assert torch.equal(a, b)
    assert "resuming a run of" not in capfd.readouterr().err  # the same number of processes: nothing to say


def test_check_same_run_names_what_differs_and_lets_the_resumable_changes_through():
    from course.core.checkpoints import run_identity

    corpus = from_sentences([["a", "b"], ["b", "c"]], name="small")
    identity = run_identity(corpus, ["a", "b", "c"])
    saved = {"identity": identity, "config": {"lr": 0.1, "threads": 1, "device": "cpu"}}
    check_same_run("run.ckpt", saved, identity, {"lr": 0.1, "threads": 4, "device": "cuda"})
    with pytest.raises(SettingError, match=r"run.ckpt: was trained with other settings \(lr=0.1 \(now 0.2\)\)"):
        check_same_run("run.ckpt", saved, identity, {"lr": 0.2, "threads": 1, "device": "cpu"})
    with pytest.raises(SettingError, match="with another vocabulary"):
        check_same_run("run.ckpt", saved, run_identity(corpus, ["a", "b"]), saved["config"])


# ------------------------------------------------------------------------------ where a run stops


@pytest.mark.parametrize("name", TRAINERS)
def test_both_trainers_read_the_loss_out_where_training_stops_and_the_checkpoint_resumes_before_it(name, checkpoints):
    stopped, saved = checkpoints[name]["stopped"], torch.load(checkpoints[name]["path"], weights_only=True)
    assert 5 % LOG_EVERY and stopped.state.step == 5
    assert [entry["step"] for entry in stopped.state.history] == [4, 5]  # the epoch's end, then where it stopped
    assert [entry["step"] for entry in saved["state"]["history"]] == [4]  # the checkpoint: as the whole run at step 5
    assert saved["interval"]["predictions"] > 0  # with the loss of step 5, not yet read out
    whole = checkpoints[name]["whole"]
    assert without_time(saved["state"]["history"]) == without_time(whole.state.history[:1])


# ------------------------------------------------------------------------------ one model file


@pytest.mark.parametrize("name", TRAINERS)
def test_one_model_file_for_both_models(name, checkpoints, tmp_path):
    _, _, model_class = TRAINERS[name]
    model = checkpoints[name]["whole"]
    path = model.save(tmp_path / "model.pt")
    loaded = model_class.load(path, device="cpu")
    assert type(loaded) is model_class and loaded.config == model.config and loaded.words.words == model.words.words
    assert loaded.state == model.state
    for a, b in zip(weights(model).values(), weights(loaded).values(), strict=True):
        assert torch.equal(a, b)
    with pytest.raises(ModelFileError, match="no such model file; train one with") as excinfo:
        model_class.load(tmp_path / "none.pt")
    one_line(excinfo)
    with pytest.raises(ModelFileError, match="is a folder: give a file name for the model"):
        model.save(tmp_path)
    torch.save({"format": "course.other/1"}, tmp_path / "other.pt")
    with pytest.raises(ModelFileError, match="is a file marked 'course.other/1', not") as excinfo:
        model_class.load(tmp_path / "other.pt")
    one_line(excinfo)
    payload = torch.load(path, weights_only=True)
    payload["weights"].pop(next(iter(payload["weights"])))
    torch.save(payload, tmp_path / "damaged.pt")
    with pytest.raises(ModelFileError, match=f"a damaged {model_class.KIND} model file") as excinfo:
        model_class.load(tmp_path / "damaged.pt")
    one_line(excinfo)


# ------------------------------------------------------------------------------ one autocast


def test_autocast_runs_the_passes_in_the_dtype_asked_for_and_float32_without_one():
    a, b = torch.randn(4, 8), torch.randn(8, 3)
    cpu = torch.device("cpu")
    with autocast(cpu, None):
        assert (a @ b).dtype == torch.float32
    with autocast(cpu, torch.bfloat16):
        product = a @ b
    assert product.dtype == torch.bfloat16
    torch.testing.assert_close(product.float(), a @ b, rtol=2e-2, atol=5e-2)  # bfloat16 keeps 8 bits of mantissa


def test_autocast_dtype_per_precision_and_device(monkeypatch):
    cpu, cuda = torch.device("cpu"), torch.device("cuda")  # choosing touches no GPU
    assert autocast_dtype("fp32", cpu) is None and autocast_dtype("bf16", cpu) is torch.bfloat16
    assert autocast_dtype("auto", cpu) is (torch.bfloat16 if cpu_has_bfloat16() else None)
    with pytest.raises(SettingError, match="precision fp16 needs a CUDA GPU") as excinfo:
        autocast_dtype("fp16", cpu)
    one_line(excinfo)
    assert autocast_dtype("fp16", cuda) is torch.float16 and autocast_dtype("fp32", cuda) is None
    assert autocast_dtype("auto", cuda) is torch.float16  # the biLM: float16 with a loss scaler
    for native, expected in ((True, torch.bfloat16), (False, None)):  # the Transformers: bfloat16 where native
        monkeypatch.setattr(torch.cuda, "is_bf16_supported", lambda native=native: native)
        assert autocast_dtype("auto", cuda, cuda_auto="bf16") is expected
        assert precision_dtype(TRANSFORMER, cuda) is expected
    assert precision_dtype(TRANSFORMER, cpu) is autocast_dtype("auto", cpu)


def test_long_sentences_are_cut_into_pieces_as_a_plain_loop_cuts_them():
    from course.text.sentences import split_offsets

    def plain(offsets, most):
        starts = []
        for start, end in zip(offsets[:-1].tolist(), offsets[1:].tolist(), strict=True):
            starts.extend(range(start, max(end, start + 1), most))
        return [*starts, int(offsets[-1])]

    assert split_offsets(np.array([0, 5, 7]), 2).tolist() == [0, 2, 4, 5, 7]
    rng = np.random.default_rng(0)
    for _ in range(200):
        offsets = np.concatenate([[0], np.cumsum(rng.integers(0, 30, size=rng.integers(1, 12)))])
        most = int(rng.integers(1, 12))
        assert split_offsets(offsets, most).tolist() == plain(offsets, most)


def test_a_checkpoint_that_cannot_be_resumed_is_set_aside_and_other_mistakes_are_not(tmp_path, capsys):
    from course.lm.resume import resumed_or_afresh

    checkpoint = tmp_path / "m.checkpoint.pt"
    checkpoint.write_bytes(b"state")
    calls = []

    def train(resume):
        calls.append(resume)
        if resume and checkpoint.exists():
            raise SettingError(f"{checkpoint}: was trained with other settings (lr=0.1 (now 0.2)); use the same ...")
        return "model"

    assert resumed_or_afresh(train, checkpoint, "biLM") == "model" and calls == [True, False]
    assert not checkpoint.exists()
    assert capsys.readouterr().err.strip() == (f"note: the biLM's checkpoint {checkpoint} cannot be resumed (was "
                                               "trained with other settings (lr=0.1 (now 0.2))); training afresh")

    checkpoint.write_bytes(b"state")

    def refused(resume):
        raise SettingError("epochs must be at least 1, got 0")

    with pytest.raises(SettingError, match="epochs must be"):
        resumed_or_afresh(refused, checkpoint, "biLM")
    assert checkpoint.exists()  # kept: the mistake is not the checkpoint's
