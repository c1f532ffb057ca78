"""Data-parallel training under torchrun's environment: two gloo processes on the CPU against one
process with the same global batch; rank 0 alone writes; the same seed repeats the run; a run
resumed mid-epoch ends where an uninterrupted one does."""

import math
import os
import shutil
import socket
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
import torch
import torch.multiprocessing as mp
from conftest import toy_corpus
from test_elmo import TINY

from course.distributed import World, from_env
from course.elmo import train_elmo
from course.errors import SettingError

pytestmark = pytest.mark.filterwarnings("ignore:LSTM with projections is not supported:UserWarning")

CONFIG = replace(TINY, epochs=1, heldout_every=5)  # batch_tokens (per process) 120
SENTENCES = 1200


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _heldout(model) -> float:
    entry = model.state.heldout[-1]
    return math.sqrt(entry["forward"] * entry["backward"])


def _record(model) -> dict:
    return {"weights": {k: v.clone() for k, v in model.bilm.state_dict().items()}, "heldout": _heldout(model),
            "step": model.state.step, "tokens": model.state.tokens}


def _worker(rank: int, world: int, port: int, folder: str) -> None:
    """One of ``world`` processes, with the environment torchrun gives: three runs of one epoch, the
    third stopped after 5 steps and resumed; each process saves what it ended with."""
    os.environ.update(RANK=str(rank), WORLD_SIZE=str(world), LOCAL_RANK=str(rank), LOCAL_WORLD_SIZE=str(world),
                      MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    corpus, checkpoint = toy_corpus(SENTENCES), Path(folder) / "elmo.ckpt"
    first = train_elmo(corpus, CONFIG, progress=False)
    again = train_elmo(corpus, CONFIG, progress=False)
    train_elmo(corpus, CONFIG, progress=False, checkpoint=checkpoint, max_steps=5)
    resumed = train_elmo(corpus, CONFIG, progress=False, checkpoint=checkpoint, resume=True)
    torch.save({"first": _record(first), "again": _record(again), "resumed": _record(resumed)},
               Path(folder) / f"rank{rank}.pt")


@pytest.fixture(scope="module")
def two_processes(tmp_path_factory):
    folder = tmp_path_factory.mktemp("ddp")
    mp.spawn(_worker, args=(2, _free_port(), str(folder)), nprocs=2)
    return folder, [torch.load(folder / f"rank{rank}.pt") for rank in (0, 1)]


def test_without_torchrun_one_process_and_nothing_shared(monkeypatch):
    for name in ("RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE"):
        monkeypatch.delenv(name, raising=False)
    world = from_env()
    assert world == World() and not world.distributed and world.writer
    assert world.agree(3) == 3 and world.gather(3) == [3] and world.threads(2) == 2
    groups = [[0], [1], [2], [3], [4]]
    assert world.shard(groups) == [(g, [g]) for g in groups]


def test_batches_are_shared_out_by_rank_and_every_rank_takes_as_many_steps():
    groups = [[0], [1], [2], [3], [4]]
    zero, one = World(0, 2, distributed=True).shard(groups), World(1, 2, distributed=True).shard(groups)
    assert [mine for mine, _ in zero] == [[0], [2]] and [mine for mine, _ in one] == [[1], [3]]
    assert [everyone for _, everyone in zero] == [[[0], [1]], [[2], [3]]]


def test_two_processes_match_one_with_the_same_global_batch(two_processes):
    _, ranks = two_processes
    single = train_elmo(toy_corpus(SENTENCES), replace(CONFIG, batch_tokens=2 * CONFIG.batch_tokens), progress=False)
    ddp = ranks[0]["first"]
    assert abs(ddp["step"] - single.state.step) <= 1  # a step takes a batch from each process
    assert ddp["heldout"] == pytest.approx(_heldout(single), rel=0.05)
    assert ddp["heldout"] < 0.5 * len(single.words.words)  # it learned: far below a uniform guess


def test_the_ranks_keep_the_same_weights_and_the_seed_repeats_the_run(two_processes):
    _, ranks = two_processes
    for run in ("first", "resumed"):
        for name, tensor in ranks[0][run]["weights"].items():
            assert torch.equal(tensor, ranks[1][run]["weights"][name]), (run, name)
    for name, tensor in ranks[0]["first"]["weights"].items():
        assert torch.equal(tensor, ranks[0]["again"]["weights"][name]), name
    assert ranks[0]["first"]["heldout"] == ranks[0]["again"]["heldout"]


def test_a_resumed_run_ends_as_an_uninterrupted_one_and_another_world_is_refused(two_processes):
    folder, ranks = two_processes
    first, resumed = ranks[0]["first"], ranks[0]["resumed"]
    assert resumed["step"] == first["step"] and resumed["tokens"] == first["tokens"]
    assert resumed["heldout"] == pytest.approx(first["heldout"], rel=1e-5)
    for name, tensor in first["weights"].items():
        torch.testing.assert_close(resumed["weights"][name], tensor, rtol=1e-4, atol=1e-6)
    with pytest.raises(SettingError, match="was trained with 2 processes, now 1"):
        train_elmo(toy_corpus(SENTENCES), CONFIG, progress=False,
                   checkpoint=folder / "elmo.ckpt", resume=True)


def test_torchrun_writes_one_model_file_from_rank_zero(tmp_path):
    corpus = tmp_path / "toy.txt"
    corpus.write_text("".join(" ".join(sentence) + "\n" for sentence in toy_corpus(200)), encoding="utf-8")
    out = tmp_path / "out"
    out.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE")}
    result = subprocess.run(
        [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node", "2", "-m", "course",
         "train", "transformer", "--corpus", str(corpus), "--min-count", "1", "--epochs", "1", "--batch-tokens",
         "120", "--device", "cpu", "--quiet", "--out", str(out / "model.pt")],
        capture_output=True, text=True, env=env, cwd=Path(__file__).parent.parent, timeout=300)
    assert result.returncode == 0, result.stderr
    assert sorted(path.name for path in out.iterdir()) == ["model.pt"]
    assert result.stderr.count("wrote ") == 1


OVERFITS = replace(TINY, epochs=25, dropout=0.0, heldout_every=4, patience=3, eval_every=2, checkpoint_every=100)


def _measuring_worker(rank: int, world: int, port: int, folder: str) -> None:
    """One of ``world`` processes: a run measured every 2 steps until the patience stops it, its checkpoint
    copied where a measurement within an epoch saved it (as a crash there would leave it), and the run
    resumed from that copy."""
    from test_elmo import noise_corpus

    from course.elmo import training

    os.environ.update(RANK=str(rank), WORLD_SIZE=str(world), LOCAL_RANK=str(rank), LOCAL_WORLD_SIZE=str(world),
                      MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    corpus, checkpoint, copy = noise_corpus(240), Path(folder) / "elmo.ckpt", Path(folder) / "copy.ckpt"
    save = training._Run.save_checkpoint

    def save_and_copy(run):
        save(run)
        state = run.state
        if run.checkpoint is not None and not copy.exists() and state.batch_in_epoch and state.heldout[-1]["step"] == \
                state.step > 6:
            shutil.copy(run.checkpoint, copy)

    training._Run.save_checkpoint = save_and_copy
    whole = train_elmo(corpus, OVERFITS, progress=False, checkpoint=checkpoint)
    training._Run.save_checkpoint = save
    copied = torch.load(copy, weights_only=True)["state"] if rank == 0 else None
    resumed = train_elmo(corpus, OVERFITS, progress=False, checkpoint=copy, resume=True)
    record = lambda model: {**_record(model), "state": model.state}  # noqa: E731
    torch.save({"whole": record(whole), "resumed": record(resumed), "copied": copied}, Path(folder) / f"rank{rank}.pt")


def test_measurements_within_epochs_decide_alike_in_every_process_and_resume_there(tmp_path):
    mp.spawn(_measuring_worker, args=(2, _free_port(), str(tmp_path)), nprocs=2)
    ranks = [torch.load(tmp_path / f"rank{rank}.pt", weights_only=False) for rank in (0, 1)]
    whole = ranks[0]["whole"]["state"]
    assert [entry["step"] for entry in whole.heldout] == list(range(2, whole.step + 1, 2))
    assert whole.stopped_early and len(whole.heldout) > 1 + OVERFITS.patience
    assert ranks[0]["copied"]["batch_in_epoch"] > 0  # the copy was saved within an epoch
    for run in ("whole", "resumed"):
        assert ranks[1][run]["state"].heldout == ranks[0][run]["state"].heldout
        assert ranks[1][run]["state"].best == ranks[0][run]["state"].best
        assert ranks[1][run]["state"].stopped_early == ranks[0][run]["state"].stopped_early
        for name, tensor in ranks[0][run]["weights"].items():
            assert torch.equal(tensor, ranks[1][run]["weights"][name]), (run, name)
    resumed = ranks[0]["resumed"]["state"]
    assert resumed.step == whole.step and resumed.stopped_early and resumed.best["step"] == whole.best["step"]
    for a, b in zip(resumed.heldout, whole.heldout, strict=True):
        assert a == pytest.approx(b, rel=1e-5)
    for name, tensor in ranks[0]["whole"]["weights"].items():
        torch.testing.assert_close(ranks[0]["resumed"]["weights"][name], tensor, rtol=1e-4, atol=1e-6)
