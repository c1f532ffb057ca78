"""Hogwild training in forked worker processes that update the same tables without locks.

Python threads share one interpreter lock, and a trainer built of many small tensor operations
holds it between operations, so two threads train at well under twice the speed of one. Forked
processes have an interpreter each. The tables they train live in memory shared by all of them
(:func:`shared_tensor`), and a worker reports its progress to the parent through a queue.

Workers die with their parent, however it ends: on Linux the kernel kills a worker when the parent
dies (``PR_SET_PDEATHSIG``), even by SIGKILL; elsewhere a worker stops at its next report once it
sees another parent.
"""

from __future__ import annotations

import functools
import mmap
import multiprocessing
import os
import pickle
import queue as queue_module
import signal
import sys
import time
from collections.abc import Callable


@functools.cache
def can_fork() -> bool:
    """Whether worker processes can be forked here and share a lock (Linux and macOS; not Windows,
    nor a sandbox without POSIX semaphores)."""
    if "fork" not in multiprocessing.get_all_start_methods():
        return False
    try:
        shared_lock()
    except OSError:
        return False
    return True


def shared_tensor(tensor):
    """A copy of the CPU ``tensor`` (any shape and dtype) in memory that forked processes share.

    The memory is an anonymous shared mapping, so it is not limited by the size of ``/dev/shm``
    (64 MB in a default Docker container). The returned tensor keeps the mapping alive.
    """
    import torch

    size = tensor.numel() * tensor.element_size()
    buffer = mmap.mmap(-1, max(size, 1))  # MAP_SHARED | MAP_ANONYMOUS
    shared = torch.frombuffer(buffer, dtype=tensor.dtype, count=tensor.numel()).view(tensor.shape)
    return shared.copy_(tensor)


def shared_lock():
    """A lock that forked worker processes share."""
    return multiprocessing.get_context("fork").Lock()


def die_with_parent(parent: int) -> None:
    """In a forked worker: be killed (SIGKILL) when the parent process ``parent`` dies, and end at
    once if it has died already. Linux only (``prctl(PR_SET_PDEATHSIG)``); a no-op elsewhere."""
    if sys.platform.startswith("linux"):
        import ctypes

        pr_set_pdeathsig = 1
        try:
            ctypes.CDLL(None, use_errno=True).prctl(pr_set_pdeathsig, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):
            pass
    if os.getppid() != parent:  # it died before the request took effect
        os._exit(1)


class WorkerFailed(RuntimeError):
    """A worker process ended without reporting (killed, or it crashed)."""


def run_workers(count: int, work: Callable[[Callable[[object], None]], None], receive: Callable[[object], None],
                poll: Callable[[], None] | None = None, poll_seconds: float = 1.0) -> None:
    """Run ``work(send)`` in ``count`` forked processes and wait for all of them.

    Each worker calls ``send(message)`` (any picklable object) to report; this process calls
    ``receive(message)`` for each one, in arrival order, and ``poll()`` about every
    ``poll_seconds`` while it waits. The first exception raised in a worker is raised here (its
    type kept when it can be pickled); the other workers are then stopped. An exception here
    (Ctrl-C, one from ``receive`` or ``poll``) also stops them.
    """
    context = multiprocessing.get_context("fork")
    messages = context.Queue()
    parent = os.getpid()

    def send(message) -> None:
        if os.getppid() != parent:  # orphaned (where the kernel does not kill orphans for us): stop
            os._exit(1)
        messages.put(("message", message))

    def run() -> None:
        die_with_parent(parent)
        try:
            work(send)
            messages.put(("done", None))
        except BaseException as exc:  # noqa: BLE001 - handed to the parent
            try:
                pickle.dumps(exc)
            except Exception:  # noqa: BLE001 - an exception that cannot travel: send its text
                exc = RuntimeError(f"{type(exc).__name__}: {exc}")
            messages.put(("error", exc))
        finally:
            messages.close()
            messages.join_thread()

    workers = [context.Process(target=run, daemon=True) for _ in range(count)]
    try:
        for worker in workers:
            worker.start()
        running, last_poll = count, time.monotonic()
        while running:
            if poll is not None and time.monotonic() - last_poll >= poll_seconds:
                poll()
                last_poll = time.monotonic()
            try:
                kind, payload = messages.get(timeout=poll_seconds)
            except queue_module.Empty:
                dead = [w for w in workers if w.exitcode not in (None, 0)]
                if dead and messages.empty():
                    raise WorkerFailed(f"a training process ended with exit code {dead[0].exitcode} "
                                       "(out of memory?)") from None
                continue
            if kind == "message":
                receive(payload)
            elif kind == "error":
                raise payload
            else:
                running -= 1
        for worker in workers:
            worker.join()
    finally:
        for worker in workers:
            if worker.is_alive():
                worker.terminate()
            if worker.pid is not None:
                worker.join()
        messages.close()
