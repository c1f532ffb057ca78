"""Data-parallel training of the language models under ``torchrun``: N processes, each with a copy
of the network, each stepping on its own share of every global batch, the gradients averaged by
PyTorch's :class:`~torch.nn.parallel.DistributedDataParallel` (NCCL on GPUs, gloo on CPUs).

With the length-bucketed batches g_0 .. g_{M-1} of an epoch (already shuffled with the seed), step
s of the epoch takes the N batches g_{sN} .. g_{sN+N-1}, process r the batch g_{sN+r}; the last
M mod N batches are left out of the epoch, so that every process takes the same number of steps,

    steps per epoch = floor(M / N),   tokens of step s = sum_r words(g_{sN+r}).

Where training stands within an epoch is counted in batches of its order taken (``batch_in_epoch``,
N per step), so that a checkpoint resumes with another number of processes N': the epoch goes on from
the first batch not yet taken, b, N' per step (:meth:`World.shard` with ``start=b``), for
floor((M - b) / N') steps; the learning-rate schedule goes on from the same share of training
(:func:`course.lm.run.schedule_step`), and the random generators of processes that the old run did not
have are drawn afresh (:func:`course.lm.generators.start_random_state`).

Every process keeps the same weights (DDP starts them from rank 0's and all-reduces the mean
gradient, so every optimizer step is the same), so only rank 0 writes checkpoints and the model
and shows progress; where a decision rests on a measurement (keeping the best, stopping early),
rank 0's measurement is sent to every process so that all of them decide alike.

A mistake refused in one process ends every process alike: the checks only rank 0 makes (the
output it claims, the checkpoint it reads and writes) and the corpus each process reads are agreed
(:meth:`World.together`, :meth:`World.writer_first`), so that where any process refuses, every
process raises, rank 0 prints the one line, and all leave the process group together with status 2
(:func:`refuse`), none left waiting in a collective whose peer is gone.

Without torchrun's environment (``WORLD_SIZE`` unset) :func:`from_env` gives one process and
nothing here changes what the trainers do.
"""

from __future__ import annotations

import os
import signal
import sys
import time
from dataclasses import dataclass

import torch

from . import errors
from .errors import CourseError, SettingError

GRACE = 10.0  # seconds a process other than rank 0 waits, on a refusal met before joining, for rank 0 to say it


class RefusedElsewhere(CourseError):
    """Another process refused the run; this one leaves with it (rank 0 prints the refusal's line)."""


@dataclass(frozen=True)
class World:
    """This process's place among the training processes.

    Attributes:
        rank: 0 .. size - 1 over all machines; local_rank: on this machine (its GPU).
        size: processes in all; local_size: processes on this machine.
        distributed: started by torchrun (even with one process): the collectives below talk to the others.
    """

    rank: int = 0
    size: int = 1
    local_rank: int = 0
    local_size: int = 1
    distributed: bool = False

    @property
    def writer(self) -> bool:
        """Whether this process writes files and shows progress (rank 0)."""
        return self.rank == 0

    def steps(self, batches: int) -> int:
        """Optimizer steps in an epoch of ``batches`` batches: floor(M / N)."""
        return batches // self.size

    def shard(self, groups: list, start: int = 0) -> list[tuple]:
        """The epoch's steps from batch ``start`` of its order on (the batches already taken before
        it: 0 for a new epoch), as ``(mine, everyone's)``: step k takes the N batches
        g_{start+kN} .. g_{start+kN+N-1}, this process the one of its rank; floor((M - start) / N) steps."""
        rest = groups[start:]
        return [(rest[s * self.size + self.rank], rest[s * self.size:(s + 1) * self.size])
                for s in range(self.steps(len(rest)))]

    def threads(self, threads: int) -> int:
        """CPU threads for this process: ``threads``, but no more than its share of this machine's
        cores (``cpu_count / local_size``, at least 1), so that N processes do not oversubscribe them."""
        if not self.distributed:
            return threads
        return max(1, min(threads, (os.cpu_count() or 1) // self.local_size))

    def agree(self, value):
        """Rank 0's ``value`` (any picklable object), in every process."""
        if not self.distributed:
            return value
        box = [value]
        torch.distributed.broadcast_object_list(box, src=0)
        return box[0]

    def gather(self, value) -> list:
        """Every process's ``value``, by rank (one process: ``[value]``)."""
        if not self.distributed:
            return [value]
        values = [None] * self.size
        torch.distributed.all_gather_object(values, value)
        return values

    def barrier(self) -> None:
        if self.distributed:
            torch.distributed.barrier()

    def together(self, work):
        """``work()`` in every process, its outcome agreed: where it refused in any process (a
        :class:`~course.core.errors.CourseError` or an ``OSError``), every process raises, rank 0 the first
        refusal by rank (its own, or another's as :class:`RefusedElsewhere`), the others their own or
        :class:`RefusedElsewhere`; each error raised is marked ``everywhere`` (:func:`refuse`)."""
        if not self.distributed:
            return work()
        try:
            result, refusal = work(), None
        except (CourseError, OSError) as error:
            result, refusal = None, error
        said = self.gather(None if refusal is None else errors.refusal(refusal))
        first = next((line for line in said if line is not None), None)
        if first is None:
            return result
        if refusal is None or (self.writer and said[0] is None):
            refusal = RefusedElsewhere(first)
        refusal.everywhere = True
        raise refusal

    def writer_first(self, work):
        """``work()`` in rank 0 first, then in the other processes (so that a cache it builds is built
        once); a refusal in any of them ends every process (:meth:`together`)."""
        nothing = lambda: None  # noqa: E731
        mine = self.together(work if self.writer else nothing)
        theirs = self.together(nothing if self.writer else work)
        return mine if self.writer else theirs


def from_env() -> World:
    """The world torchrun describes in ``RANK``, ``WORLD_SIZE``, ``LOCAL_RANK`` and
    ``LOCAL_WORLD_SIZE``; one process where they are unset."""
    if "WORLD_SIZE" not in os.environ:
        return World()
    size = int(os.environ["WORLD_SIZE"])
    return World(int(os.environ.get("RANK", 0)), size, int(os.environ.get("LOCAL_RANK", 0)),
                 int(os.environ.get("LOCAL_WORLD_SIZE", size)), distributed=True)


def start(device: torch.device) -> World:
    """Join the process group torchrun set up (NCCL on CUDA, gloo on the CPU) and, on CUDA, take this
    process's GPU (``LOCAL_RANK``); where torchrun's environment is unset, one process, nothing joined.

    Raises:
        SettingError: more processes on this machine than GPUs.
    """
    world = from_env()
    if not world.distributed:
        return world
    if device.type == "cuda":
        if world.local_size > torch.cuda.device_count():  # the same in every process: all refuse alike
            raise SettingError(f"{world.local_size} processes on this machine but {torch.cuda.device_count()} "
                               f"GPUs: give --nproc_per_node {torch.cuda.device_count()} or fewer")
        torch.cuda.set_device(world.local_rank)
    if not torch.distributed.is_initialized():
        if device.type == "cuda":  # NCCL bound to this process's GPU: no guessing it from the rank
            torch.distributed.init_process_group(backend="nccl", device_id=torch.device("cuda", world.local_rank))
        else:
            torch.distributed.init_process_group(backend="gloo")
    return world


def refuse(error: BaseException) -> int:
    """End a run refused with ``error``: its line on stderr, under torchrun from rank 0 alone, and
    status 2 in every process. Without torchrun it returns 2; under torchrun the process ends here.

    Where every process raised it together (``error.everywhere``: :meth:`World.together`), they
    meet at a barrier and leave the process group, as :func:`stop` does, so that none tears its
    connections down while another still uses them. A refusal met before any process joined the
    group (a setting every process reads alike) is met by every process: they join the group on
    gloo to meet at that barrier (within :data:`GRACE` seconds; past it, rank 0 ends and the others
    wait as long for torchrun to stop them). Then each process ends at once (the outputs it claimed given back):
    torchrun stops the processes still running as soon as one has ended, and one still tearing
    Python down would end by that signal instead of with status 2; a SIGTERM received here ends the
    process with status 2 too, after rank 0 has said its line.
    """
    from .io import release_outputs

    world, line = from_env(), f"error: {errors.refusal(error)}"
    if not world.distributed:
        print(line, file=sys.stderr)
        return 2
    said = []

    def say() -> None:
        if world.writer and not said:
            print(line, file=sys.stderr, flush=True)
            said.append(line)

    def leave(*_) -> None:
        say()
        release_outputs()
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(2)

    signal.signal(signal.SIGTERM, leave)
    say()
    joined = torch.distributed.is_available() and torch.distributed.is_initialized()
    if not joined:
        joined = _join_to_leave()
        error.everywhere = joined
    if joined:
        if getattr(error, "everywhere", False):
            torch.distributed.barrier()
        torch.distributed.destroy_process_group()
    elif not world.writer:
        time.sleep(GRACE)  # until torchrun stops this process, rank 0 having said the line and ended
    leave()


def _join_to_leave() -> bool:
    """Join torchrun's process group on gloo (every process refusing alike does), to leave it together;
    False where that fails within :data:`GRACE` seconds."""
    from datetime import timedelta

    try:
        torch.distributed.init_process_group(backend="gloo", timeout=timedelta(seconds=GRACE))
    except (RuntimeError, ValueError, OSError):  # torch.distributed.DistError is a RuntimeError
        return False
    return True


def stop() -> None:
    """Leave the process group (where one was joined), once every process has got here: none tears its
    connections down while another still uses them."""
    if torch.distributed.is_available() and torch.distributed.is_initialized():
        torch.distributed.barrier()
        torch.distributed.destroy_process_group()


class _Loss(torch.nn.Module):
    """``network.loss`` as a module's forward, so that DDP sees the pass whose gradients it averages."""

    def __init__(self, network: torch.nn.Module):
        super().__init__()
        self.network = network

    def forward(self, *args):
        return self.network.loss(*args)


def loss_function(network: torch.nn.Module, world: World, device: torch.device):
    """``network.loss``, wrapped in DistributedDataParallel where there are several processes (its
    backward pass then leaves every process the mean gradient over all of them)."""
    if not world.distributed:
        return network.loss
    ids = [torch.cuda.current_device()] if device.type == "cuda" else None
    return torch.nn.parallel.DistributedDataParallel(_Loss(network), device_ids=ids)


def processes(saved: dict) -> int:
    """The number of processes that wrote the checkpoint ``saved`` (its ``processes``; a checkpoint
    written before it recorded them: its random state's ``world_size``, or 1)."""
    return saved.get("processes", saved.get("world_size", 1))


def batches_taken(saved: dict) -> int:
    """The batches of the current epoch's order that the run of the checkpoint ``saved`` took (all
    its processes together; a checkpoint written before ``processes`` was recorded counted steps)."""
    taken = saved["state"]["batch_in_epoch"]
    return taken if "processes" in saved else taken * processes(saved)


def resume_note(saved: dict | None, world: World, batches: int, share: float) -> str | None:
    """The line that says a run resumes with another number of processes (None: the same number, no
    checkpoint, or a finished one): ``batches``, M, the batches of an epoch's order; ``share``, of
    training done."""
    if saved is None or processes(saved) == world.size or saved["state"].get("finished"):
        return None
    before, epoch = processes(saved), saved["state"]["epoch"]
    plural = lambda n: f"{n} process{'es' if n != 1 else ''}"  # noqa: E731
    return (f"resuming a run of {plural(before)} with {world.size}: epoch {epoch + 1} goes on from batch "
            f"{batches_taken(saved)} of {batches} of its order, {world.size} a step; the learning rate from "
            f"{share:.1%} of training")
