"""Data-parallel training under torchrun's environment: two gloo processes on the CPU against one
process with the same global batch; rank 0 alone writes; the same seed repeats the run; a run
resumed mid-epoch ends where an uninterrupted one does; a run resumed with another number of
processes takes every batch of the epoch once and ends close to an uninterrupted one."""

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

from course.core.distributed import World, from_env
from course.core.errors import SettingError
from course.elmo import train_elmo
from course.elmo import training as elmo_training
from course.lm.run import schedule_step
from course.transformer import TransformerConfig, train_transformer
from course.transformer import training as transformer_training

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
    later = World(1, 2, distributed=True).shard(groups, start=1)  # a run of 1 process took batch 0
    assert later == [([2], [[1], [2]]), ([4], [[3], [4]])]
    assert World(0, 3, distributed=True).shard(groups, start=3) == []  # 2 left: fewer than a step


def test_a_checkpoint_counts_the_batches_its_processes_took_and_older_ones_counted_steps():
    from course.core.distributed import batches_taken, processes, resume_note

    now, older = {"state": {"epoch": 0, "batch_in_epoch": 6}, "processes": 2}, {"state": {"batch_in_epoch": 3},
                                                                                "world_size": 2}
    assert (processes(now), batches_taken(now)) == (2, 6) and (processes(older), batches_taken(older)) == (2, 6)
    assert processes({"state": {"batch_in_epoch": 3}}) == 1 and batches_taken({"state": {"batch_in_epoch": 3}}) == 3
    assert resume_note(now, World(0, 2, distributed=True), 41, 0.1) is None
    assert resume_note(None, World(), 41, 0) is None
    assert resume_note(now, World(), 41, 0.125) == ("resuming a run of 2 processes with 1: epoch 1 goes on from "
                                                   "batch 6 of 41 of its order, 1 a step; the learning rate from "
                                                   "12.5% of training")


def test_the_schedule_counts_optimizer_steps_with_one_world_and_goes_on_from_the_same_share_with_another():
    batches, epochs = 41, 3
    for size in (1, 2, 3):
        per_epoch = batches // size
        steps = [schedule_step(epoch, size * s, per_epoch, size) for epoch in range(epochs) for s in range(per_epoch)]
        assert steps == list(range(epochs * per_epoch)) and all(isinstance(t, int) for t in steps)
    for taken in (1, 20, 39, 40):  # 2 processes stopped after `taken` batches of epoch 1, resumed with 1 or 3
        share = schedule_step(1, taken, 20, 2) / (epochs * 20)
        for size in (1, 3):
            again = schedule_step(1, taken, batches // size, size) / (epochs * (batches // size))
            assert abs(again - share) < size / batches / epochs  # by less than the batches an epoch leaves out


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


def test_a_resumed_run_ends_as_an_uninterrupted_one_and_another_run_is_refused(two_processes):
    folder, ranks = two_processes
    first, resumed = ranks[0]["first"], ranks[0]["resumed"]
    assert resumed["step"] == first["step"] and resumed["tokens"] == first["tokens"]
    assert resumed["heldout"] == pytest.approx(first["heldout"], rel=1e-5)
    for name, tensor in first["weights"].items():
        torch.testing.assert_close(resumed["weights"][name], tensor, rtol=1e-4, atol=1e-6)
    with pytest.raises(SettingError, match=r"was trained with other settings \(lr="):  # with 1 process, other settings
        train_elmo(toy_corpus(SENTENCES), replace(CONFIG, lr=0.5), progress=False,
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


def _refusing_worker(rank: int, world: int, port: int, folder: str) -> None:
    """One of 2 processes: a check that refuses in rank 0 alone, then one that refuses in rank 1 alone,
    each agreed (World.together); what each process raised is saved."""
    from course.core.distributed import start
    from course.core.errors import CourseError, OutputFileError

    os.environ.update(RANK=str(rank), WORLD_SIZE=str(world), LOCAL_RANK=str(rank), LOCAL_WORLD_SIZE=str(world),
                      MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    processes, raised = start(torch.device("cpu")), []

    def refuses_in(refusing: int):
        if processes.rank == refusing:
            raise OutputFileError(f"out.pt: refused in rank {refusing}")
        return "fine"

    for refusing in (0, 1):
        try:
            processes.together(lambda refusing=refusing: refuses_in(refusing))
        except CourseError as error:
            raised.append((type(error).__name__, str(error), error.everywhere))
    raised.append(processes.together(lambda: "agreed"))
    torch.distributed.destroy_process_group()
    torch.save(raised, Path(folder) / f"rank{rank}.pt")


def test_a_refusal_in_one_process_is_raised_in_every_process_and_rank_zero_has_its_line(tmp_path):
    from course.core.distributed import RefusedElsewhere
    from course.core.errors import CourseError

    assert issubclass(RefusedElsewhere, CourseError)  # the command line's exit 2
    mp.spawn(_refusing_worker, args=(2, _free_port(), str(tmp_path)), nprocs=2)
    zero, one = (torch.load(tmp_path / f"rank{rank}.pt") for rank in (0, 1))
    assert zero == [("OutputFileError", "out.pt: refused in rank 0", True),
                    ("RefusedElsewhere", "out.pt: refused in rank 1", True), "agreed"]
    assert one == [("RefusedElsewhere", "out.pt: refused in rank 0", True),
                   ("OutputFileError", "out.pt: refused in rank 1", True), "agreed"]


def _torchrun_env() -> dict:
    return {k: v for k, v in os.environ.items() if k not in ("RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE")}


def _transformer_args(tmp_path, *flags) -> list[str]:
    corpus = tmp_path / "toy.txt"
    corpus.write_text("".join(" ".join(sentence) + "\n" for sentence in toy_corpus(200)), encoding="utf-8")
    return ["-m", "course", "train", "transformer", "--corpus", str(corpus), "--min-count", "1", "--epochs", "1",
            "--batch-tokens", "120", "--device", "cpu", "--quiet", *map(str, flags)]


def _refusals(tmp_path) -> list[tuple[list, str, dict]]:
    """Mistakes only rank 0 meets (the output it claims, the checkpoint it reads), one in the corpus rank 0
    reads first, one every process refuses after joining (a corpus of fewer batches than processes) and
    one every process refuses before joining (CUDA where none is seen): the flags, the line's start and
    the environment."""
    (tmp_path / "a-file").write_text("x")
    (tmp_path / "one.txt").write_text("the cat sat\n", encoding="utf-8")
    (tmp_path / "junk.ckpt").write_bytes(b"not a checkpoint")
    out = tmp_path / "out" / "model.pt"
    return [(["--out", tmp_path / "a-file" / "model.pt"], f"error: {tmp_path / 'a-file' / 'model.pt'}: cannot write",
             {}),
            (["--out", out, "--checkpoint", tmp_path / "junk.ckpt", "--resume"],
             f"error: {tmp_path / 'junk.ckpt'}: not a readable Transformer model file", {}),
            (["--out", out, "--corpus", tmp_path / "missing.txt"], f"error: {tmp_path / 'missing.txt'}: no such file",
             {}),
            (["--out", out, "--corpus", tmp_path / "one.txt"], "error: the training sentences make 1 batch of "
             "--batch-tokens 120, fewer than the 2 processes", {}),
            (["--out", out, "--device", "cuda"], "error: device 'cuda' asked for, but this machine has no CUDA GPU",
             {"CUDA_VISIBLE_DEVICES": ""})]


def test_under_torchrun_a_refusal_ends_every_process_with_status_2_and_one_line(tmp_path):
    """torchrun itself exits 1 with its report of the processes' statuses; each process's own output is
    kept apart (--redirects) and read: rank 0's one line, nothing from rank 1, no traceback."""
    for flags, line, env in _refusals(tmp_path):
        logs = tmp_path / "logs"
        shutil.rmtree(logs, ignore_errors=True)
        result = subprocess.run(
            [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node", "2", "--log-dir",
             str(logs), "--redirects", "3", *_transformer_args(tmp_path, *flags)],
            capture_output=True, text=True, env={**_torchrun_env(), **env}, cwd=Path(__file__).parent.parent,
            timeout=300)
        assert result.returncode != 0 and result.stderr.count("exitcode  : 2 ") == 2, result.stderr  # both ranks
        said = {int(path.parent.name): path.read_text() for path in logs.glob("*/attempt_0/*/stderr.log")}
        printed = "".join(path.read_text() for path in logs.glob("*/attempt_0/*/stdout.log"))
        assert sorted(said) == [0, 1] and said[1] == "" and "Traceback" not in said[0] + printed, said
        assert len(said[0].splitlines()) == 1 and said[0].startswith(line), (said[0], line)
        assert not (tmp_path / "out").exists() or not list((tmp_path / "out").iterdir())


def test_two_processes_with_torchruns_environment_refuse_with_status_2_each(tmp_path):
    """The same processes without the launcher between them and the test: each one's status and output,
    for a refusal of rank 0 alone and one of every process before joining."""
    refusals = _refusals(tmp_path)
    for flags, line, env in (refusals[0], refusals[-1]):
        port = _free_port()
        processes = [subprocess.Popen([sys.executable, *_transformer_args(tmp_path, *flags)], stdout=subprocess.PIPE,
                                      stderr=subprocess.PIPE, text=True, cwd=Path(__file__).parent.parent,
                                      env={**_torchrun_env(), **env, "RANK": str(rank), "WORLD_SIZE": "2",
                                           "LOCAL_RANK": str(rank), "LOCAL_WORLD_SIZE": "2",
                                           "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(port)})
                     for rank in (0, 1)]
        (out0, err0), (out1, err1) = (process.communicate(timeout=300) for process in processes)
        assert [process.returncode for process in processes] == [2, 2], (err0, err1)
        assert err0.startswith(line) and len(err0.splitlines()) == 1 and err1 == "", (err0, err1)
        assert "Traceback" not in out0 + out1 + err0 + err1


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


# ------------------------------------------------------------------- another number of processes

STOP = 5  # steps of 1 process before its checkpoint, within the first epoch
TRANSFORMER = TransformerConfig(min_count=1, dim=16, heads=2, layers=2, ff_dim=32, max_positions=16, dropout=0.1,
                                epochs=2, batch_tokens=120, lr=2e-2, warmup_share=0.1, heldout_every=5,
                                checkpoint_every=100, device="cpu", threads=1)
# each trainer, its settings, and where 2 processes stop: within the first epoch, or at its end (None)
MIXED = {"elmo": (train_elmo, replace(CONFIG, epochs=2, lr=0.12), elmo_training, STOP),
         "transformer": (train_transformer, TRANSFORMER, transformer_training, None)}


def _independent_corpus():
    """Toy sentences 'ARTICLE NOUN VERB ARTICLE NOUN', every word drawn on its own: a language model's
    best held-out perplexity is exp((ln 2 + ln 6 + ln 4 + ln 2 + ln 6 + 0) / 6) = 2.88 (the end of the
    sentence is certain), and each run ends near it."""
    import numpy as np
    from conftest import NOUNS, VERBS

    from course.text.corpus import from_sentences

    rng = np.random.default_rng(0)
    draw = lambda words: str(rng.choice(words))  # noqa: E731
    return from_sentences([[draw(["the", "a"]), draw(NOUNS), draw(VERBS), draw(["the", "a"]), draw(NOUNS)]
                           for _ in range(SENTENCES)], name="independent")


def _heldout_perplexity(model) -> float:
    entry = model.state.heldout[-1]
    return math.sqrt(entry["forward"] * entry["backward"]) if "forward" in entry else entry["perplexity"]


def _recorder(module, patch=setattr) -> list[list]:
    """Every step of the trainer's runs, a list per call (append one before each): ``(batch, lr)``,
    the batch as its sentence numbers."""
    calls, step = [], module._Run.step

    def recording(run, group, lr):
        calls[-1].append((tuple(int(i) for i in group), lr))
        step(run, group, lr)

    patch(module._Run, "step", recording)
    return calls


def _mixed_worker(rank: int, world: int, port: int, folder: str, name: str, stop: int) -> None:
    """One of 2 processes: an uninterrupted run; a run stopped after ``stop`` steps (its checkpoint to
    be resumed with 1 process); and the 1-process checkpoint ``one.ckpt`` resumed to the end."""
    os.environ.update(RANK=str(rank), WORLD_SIZE=str(world), LOCAL_RANK=str(rank), LOCAL_WORLD_SIZE=str(world),
                      MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    train, config, module, _ = MIXED[name]
    corpus, folder = _independent_corpus(), Path(folder)
    calls = _recorder(module)
    calls.append([])
    whole = train(corpus, config, progress=False)
    calls.append([])
    train(corpus, config, progress=False, checkpoint=folder / "two.ckpt", max_steps=stop)
    calls.append([])
    resumed = train(corpus, config, progress=False, checkpoint=folder / "one.ckpt", resume=True)
    torch.save({"calls": calls, "whole": _heldout_perplexity(whole), "resumed": _heldout_perplexity(resumed),
                "steps": resumed.state.step}, folder / f"rank{rank}.pt")


def _interleaved(*ranks: list) -> list:
    """The batches of the steps of N processes, in the epochs' order: step by step, rank by rank."""
    return [taken for step in zip(*ranks, strict=True) for taken in step]


def _expected(orders: list[list], first: int, stop: int, then: int) -> list:
    """The batches a run takes over the epochs' ``orders`` with ``first`` processes for ``stop`` steps,
    then ``then`` processes: each epoch from its first batch not yet taken, as many a step as there
    are processes, until fewer are left."""
    taken, steps = [], 0
    for order in orders:
        b, size = 0, first if steps < stop else then
        while b + size <= len(order):
            taken, b, steps = taken + order[b:b + size], b + size, steps + 1
            if steps == stop:
                if b + first > len(order):  # the first run's epoch ended with its last step
                    break
                size = then
    return taken


def _jump_is_a_step(before: list[float], after: list[float]) -> None:
    """The learning rate goes on across the change: it moves by no more than one step moves it."""
    steps = [abs(b - a) for lrs in (before, after) for a, b in zip(lrs, lrs[1:], strict=False)]
    assert abs(after[0] - before[-1]) <= 1.01 * max(steps) + 1e-12, (before[-1], after[0], max(steps))


@pytest.mark.parametrize("name", MIXED)
def test_a_run_resumed_with_another_number_of_processes_takes_each_batch_once_and_ends_close(
        name, tmp_path, monkeypatch, capfd):
    train, config, module, stop_two = MIXED[name]
    corpus = _independent_corpus()
    calls = _recorder(module, monkeypatch.setattr)
    calls.append([])
    whole = train(corpus, config, progress=False)  # 1 process takes every batch of each epoch, in its order
    batches = len(calls[0]) // config.epochs
    orders = [[batch for batch, _ in calls[0][e * batches:(e + 1) * batches]] for e in range(config.epochs)]
    stop_two = stop_two or batches // 2  # None: at the end of the first epoch
    calls.append([])
    train(corpus, config, progress=False, checkpoint=tmp_path / "one.ckpt", max_steps=STOP)
    mp.spawn(_mixed_worker, args=(2, _free_port(), str(tmp_path), name, stop_two), nprocs=2)
    ranks = [torch.load(tmp_path / f"rank{rank}.pt", weights_only=False) for rank in (0, 1)]
    capfd.readouterr()
    calls.append([])
    two_to_one = train(corpus, config, progress=False, checkpoint=tmp_path / "two.ckpt", resume=True)
    epoch, taken = divmod(2 * stop_two, 2 * (batches // 2))
    assert capfd.readouterr().err.count(f"resuming a run of 2 processes with 1: epoch {epoch + 1} goes on from "
                                        f"batch {taken} of {batches} of its order, 1 a step; the learning rate") == 1

    # 2 processes, then 1; 1, then 2: every batch of each epoch once, in its order, but the last of an epoch
    # where fewer are left than the processes take in a step
    before, after = [[batch for batch, _ in ranks[r]["calls"][1]] for r in (0, 1)], calls[2]
    assert _interleaved(*before) + [batch for batch, _ in after] == _expected(orders, 2, stop_two, 1)
    one, later = [batch for batch, _ in calls[1]], [[batch for batch, _ in ranks[r]["calls"][2]] for r in (0, 1)]
    assert one + _interleaved(*later) == _expected(orders, 1, STOP, 2)
    assert ranks[0]["steps"] == STOP + len(later[0])
    _jump_is_a_step([lr for _, lr in ranks[0]["calls"][1]], [lr for _, lr in after])
    _jump_is_a_step([lr for _, lr in calls[1]], [lr for _, lr in ranks[0]["calls"][2]])

    uninterrupted = {"1 process": _heldout_perplexity(whole), "2 processes": ranks[0]["whole"]}
    for mixed in (_heldout_perplexity(two_to_one), ranks[0]["resumed"]):
        for reference in uninterrupted.values():  # all near the best, 2.88 (within 1% on this machine)
            assert mixed == pytest.approx(reference, rel=0.03), (mixed, uninterrupted)
    assert ranks[1]["resumed"] == ranks[0]["resumed"]
