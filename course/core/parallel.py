"""Independent runs on every core: one function over a list of jobs, the results in job order.

The course's experiments train many small models that share nothing but their inputs (a tagger per
input, count and seed; a classifier per variant, count and seed). One training run keeps about one
core busy, so :func:`run_jobs` runs up to ``workers`` of them at once, each in a process of its own
with one PyTorch thread.

The worker processes are *forked* from this one: they inherit what it holds (the data, a trained
biLM or Transformer, features computed once), so nothing big is copied or computed again per job;
only each job's result comes back (pickled).

The results do not depend on ``workers``: every job draws its randomness from its own seed, and runs
on one PyTorch thread, in a worker or, with ``workers=1``, in the plain loop in this process. The
thread count matters: a sum split over two threads is added in another order, and an ELMo tagger of
notebook 09 trained on two threads ended with another F1 in the fourth decimal than on one.

Forking is what the course does where PyTorch sees no GPU. Where it sees one, CUDA does not survive a
fork, nor do autograd's per-device threads once a backward pass has started them ("Unable to handle
autograd's threading in combination with fork-based multiprocessing"). There the workers are *spawned*,
started afresh, up to :data:`GPU_WORKERS` of them sharing the GPU: the course's models are small, and one
process alone keeps the GPU busy a quarter of the time, launching one small kernel after another. Each
worker receives the function and the jobs pickled once, tensors shared rather than copied (PyTorch's
``torch.multiprocessing``: a tensor on the GPU stays where it is, one in memory moves to shared memory).
Jobs that cannot travel that way (a function defined in a notebook, a lambda) run one by one in this
process, with its threads, as they did before, and a note says so.
"""

from __future__ import annotations

import multiprocessing
import os
import pickle
import signal
import sys
import traceback
from collections.abc import Callable, Sequence
from contextlib import contextmanager, nullcontext
from multiprocessing.connection import wait
from typing import Any

import torch
import torch.multiprocessing  # noqa: F401 - how tensors travel to spawned workers: shared, not copied

from .errors import SettingError

GPU_WORKERS = 4  # jobs at once where they share one GPU (workers=None), each in a spawned process
START_ENV = "COURSE_WORKER_START"  # "fork", "spawn", or "none" (no workers: the jobs one by one, here)


def available_cores() -> int:
    """The number of cores this process may run on (its CPU affinity, not the machine's count)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # no affinity on this system
        return os.cpu_count() or 1


def start_method() -> str | None:
    """How jobs run in processes of their own here: ``"fork"`` where PyTorch sees no GPU (the workers
    inherit what this process holds), ``"spawn"`` where it sees one (started afresh: CUDA does not survive
    a fork), None within a worker (a job that runs jobs of its own runs them in its worker, one by one) or
    where the system has neither. ``$COURSE_WORKER_START`` (:data:`START_ENV`) chooses: ``spawn`` runs
    the jobs on a CPU as they run where there is a GPU, to check that they can be sent to such workers;
    ``none`` runs them one by one in this process (as jobs ran on a GPU before they were spawned).

    Raises:
        SettingError: that variable set to something else, or to ``fork`` where PyTorch sees a GPU.
    """
    if multiprocessing.current_process().daemon:
        return None
    method = os.environ.get(START_ENV, "").strip() or ("spawn" if torch.cuda.is_available() else "fork")
    if method not in ("fork", "spawn", "none"):
        raise SettingError(f"{START_ENV}={method} is not a way to start workers: use fork (no GPU), spawn, or none "
                           f"(the jobs one by one in this process), or unset it")
    if method == "none":
        return None
    if method == "fork" and torch.cuda.is_available():
        raise SettingError(f"{START_ENV}=fork where PyTorch sees a GPU: CUDA does not survive a fork; use spawn, or "
                           f"unset it")
    return method if method in multiprocessing.get_all_start_methods() else None


def can_fork() -> bool:
    """Whether jobs may run in forked processes: a system with ``fork``, no GPU that PyTorch sees, and
    not within a worker (:func:`start_method`)."""
    return start_method() == "fork"


def worker_count(workers: int | None, jobs: int) -> int:
    """How many processes run ``jobs`` jobs: ``workers`` (None: :func:`available_cores`, and at most
    :data:`GPU_WORKERS` where they share a GPU), at most one per job, and 1 where the jobs cannot run in
    processes of their own (:func:`start_method`).

    Raises:
        SettingError: ``workers`` that is not a positive whole number.
    """
    if workers is not None and (not isinstance(workers, int) or isinstance(workers, bool) or workers < 1):
        raise SettingError(f"workers must be a positive whole number (or None: every core), got {workers!r}")
    method = start_method()
    count = min(available_cores() if workers is None else workers, max(jobs, 1))
    if method == "spawn" and workers is None:
        count = min(count, GPU_WORKERS)
    return count if count > 1 and method is not None else 1


@contextmanager
def one_thread():
    """PyTorch on one CPU thread within the block, and the number there was afterwards."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def run_jobs(function: Callable, jobs: Sequence, workers: int | None = None,
             on_result: Callable[[int, Any], None] | None = None, order: Sequence[int] | None = None) -> list:
    """``[function(*job) for job in jobs]`` (``function(**job)`` for a dict), on up to ``workers`` processes.

    Args:
        function: what each job runs; its result must pickle (it comes back from a worker process).
        jobs: argument tuples or keyword dicts, one per run.
        workers: processes to run them on (None: every core this process may use, at most one per
            job, and at most :data:`GPU_WORKERS` where they share a GPU); 1 runs them one after the other
            in this process (on one PyTorch thread where there is no GPU).
        on_result: called here with ``(index, result)`` of each job in job order, as soon as the job
            and all the jobs before it are done (to print progress).
        order: the job indices in the order the workers take them (default: as listed). Longest first
            keeps every core busy to the end: a long job handed out last runs alone while the other
            cores wait. Only when the jobs start changes; the results, ``on_result`` and the exception
            raised are the same as without it.

    Returns:
        The results, in the order of ``jobs``.

    Raises:
        The exception of the first job in job order that fails (the one the plain loop would raise,
        after ``on_result`` for every job before it), of its own type, with a note that names the job
        (and, from a worker, the worker's traceback); the workers are stopped, as on an interrupt
        (KeyboardInterrupt), and no process is left behind.
    """
    jobs = list(jobs)
    order = _check_order(order, len(jobs))
    count, method = worker_count(workers, len(jobs)), start_method()
    if count > 1 and method == "spawn":
        try:
            return _run_in_processes(function, jobs, count, on_result, order, method)
        except _CannotSend as reason:
            print(f"note: these {len(jobs)} jobs cannot be sent to processes of their own ({reason}): they run one "
                  f"after the other here", file=sys.stderr, flush=True)
            count = 1
    if count == 1:
        results = []
        with one_thread() if not torch.cuda.is_available() else nullcontext():  # on a CPU, as in a worker
            for index, job in enumerate(jobs):
                try:
                    results.append(_call(function, job))
                except Exception as error:
                    error.add_note(_describe(index, jobs))
                    raise
                if on_result is not None:
                    on_result(index, results[-1])
        return results
    return _run_in_processes(function, jobs, count, on_result, order, method)


def longest_first(costs: Sequence) -> list[int]:
    """The job indices by decreasing ``costs`` (numbers, or tuples compared item by item; equal costs in
    job order): an ``order`` for :func:`run_jobs`."""
    return sorted(range(len(costs)), key=costs.__getitem__, reverse=True)


def _check_order(order: Sequence[int] | None, jobs: int) -> list[int]:
    if order is None:
        return list(range(jobs))
    order = [int(index) for index in order]
    if sorted(order) != list(range(jobs)):
        raise SettingError(f"order must hold each job's index (0 to {jobs - 1}) once, got {order}")
    return order


def run_calls(calls: Sequence[tuple[Callable, Sequence]], workers: int | None = None,
              on_result: Callable[[int, Any], None] | None = None, order: Sequence[int] | None = None) -> list:
    """``[function(*args) for function, args in calls]`` on up to ``workers`` processes, as :func:`run_jobs`:
    jobs of different kinds on the same workers, so that a long job (fine-tuning a language model) runs on
    one core while the other trains the short ones that do not need its result. Put the longest first: the
    jobs are handed out in order, so it starts at once and the short ones fill the other cores around it."""
    return run_jobs(_apply, [(function, tuple(args)) for function, args in calls], workers, on_result, order)


def _apply(function: Callable, args: tuple) -> Any:
    return function(*args)


def _call(function: Callable, job) -> Any:
    return function(**job) if isinstance(job, dict) else function(*job)


def _describe(index: int, jobs: Sequence) -> str:
    job = jobs[index]
    if isinstance(job, tuple) and len(job) == 2 and callable(job[0]) and isinstance(job[1], tuple):  # run_calls
        job = (job[0], *job[1])
    shown = ", ".join(f"{key}={_short(value)}" for key, value in job.items()) if isinstance(job, dict) else \
        ", ".join(_short(value) for value in job)
    return f"in job {index + 1} of {len(jobs)}: ({shown})"


def _short(value) -> str:
    if callable(value) and hasattr(value, "__qualname__"):
        return value.__qualname__
    text = repr(value) if isinstance(value, (int, float, str, bool, type(None))) else type(value).__name__
    return text if len(text) <= 60 else text[:57] + "..."


def _worker(function: Callable, jobs: Sequence, connection) -> None:
    """A forked process: run the jobs whose indices arrive on ``connection``, send back
    ``(index, True, result)`` or ``(index, False, (exception, traceback text))``; None ends it."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles an interrupt and stops the workers
    torch.set_num_threads(1)
    while (index := connection.recv()) is not None:
        try:
            message = pickle.dumps((index, True, _call(function, jobs[index])))
        except BaseException as error:  # noqa: BLE001 - every failure goes back to the parent
            message = pickle.dumps((index, False, (_portable(error), traceback.format_exc())))
        connection.send_bytes(message)


def _portable(error: BaseException) -> BaseException:
    """The exception itself if it survives pickling, else a RuntimeError with its type and message."""
    try:
        pickle.loads(pickle.dumps(error))
        return error
    except Exception:  # noqa: BLE001 - any exception that does not round-trip
        return RuntimeError(f"{type(error).__name__}: {error}")


class _CannotSend(Exception):
    """The jobs cannot be pickled for a spawned worker (before any job has run)."""


def _by_reference(function: Callable) -> bool:
    """Whether a spawned process can import ``function`` (pickle sends functions by name)."""
    module = sys.modules.get(getattr(function, "__module__", None) or "")
    if module is None or module.__name__ == "__main__":
        return False
    found = module
    for name in getattr(function, "__qualname__", "<>").split("."):
        found = getattr(found, name, None)
    return found is function


def _run_in_processes(function: Callable, jobs: list, count: int, on_result, order: list[int],
                      method: str = "fork") -> list:
    """The jobs on ``count`` worker processes, forked or spawned (``method``).

    Raises:
        _CannotSend: spawned workers cannot receive the function or the jobs (nothing has run yet).
    """
    context = multiprocessing.get_context(method)
    if method == "spawn":
        functions = [function] + [job[0] for job in jobs if function is _apply]
        unknown = next((f for f in functions if not _by_reference(f)), None)
        if unknown is not None:
            raise _CannotSend(f"{getattr(unknown, '__qualname__', unknown)!s} is not importable by name")
    processes, connections = [], []
    try:
        for _ in range(count):
            here, there = context.Pipe()
            process = context.Process(target=_worker, args=(function, jobs, there), daemon=True)
            try:
                process.start()
            except (pickle.PicklingError, AttributeError, TypeError) as error:
                here.close()
                there.close()
                if method != "spawn":
                    raise
                raise _CannotSend(f"{type(error).__name__}: {error}") from error
            there.close()
            processes.append(process)
            connections.append(here)
        results = _serve(jobs, processes, connections, on_result, order)
        for process in processes:  # each was told to stop
            process.join(timeout=10)
        return results
    finally:
        for process in processes:
            if process.is_alive():
                process.terminate()
        for process in processes:
            process.join()
        for connection in connections:
            connection.close()


def _serve(jobs: list, processes: list, connections: list, on_result, order: list[int]) -> list:
    """Hand out the jobs in ``order``, one at a time, to whichever worker is free; report in job order.

    After a failure only the jobs before it in job order are handed out and waited for, so the failure
    raised is the first in job order, the one the plain loop would raise."""
    results: dict[int, Any] = {}
    failures: dict[int, tuple] = {}  # index -> (payload or None, its worker's process)
    running: dict[int, int] = {}  # worker -> the index of its job
    waiting, reported = list(order), 0

    def before_failures(index: int) -> bool:
        return not failures or index < min(failures)

    def hand(worker: int) -> None:
        index = next((index for index in waiting if before_failures(index)), None)
        if index is not None:
            waiting.remove(index)
            connections[worker].send(index)
            running[worker] = index

    for worker in range(len(connections)):
        hand(worker)
    while running and any(before_failures(index) for index in running.values()):
        ready = wait([connections[w] for w in running] + [processes[w].sentinel for w in running])
        for worker in list(running):
            connection, index = connections[worker], running[worker]
            if connection in ready or connection.poll():
                try:
                    done, ok, payload = pickle.loads(connection.recv_bytes())
                except EOFError:  # the worker died
                    done, ok, payload = index, False, None
                del running[worker]
                if ok:
                    results[done] = payload
                else:
                    failures[done] = (payload, processes[worker])
                hand(worker)
            elif processes[worker].sentinel in ready:
                del running[worker]
                failures[index] = (None, processes[worker])
        while reported in results:
            if on_result is not None:
                on_result(reported, results[reported])
            reported += 1
    if failures:
        first = min(failures)
        _raise(*failures[first], first, jobs)
    for connection in connections:
        connection.send(None)
    return [results[index] for index in range(len(jobs))]


def _raise(payload, process, index: int, jobs: list) -> None:
    if payload is None:
        process.join(timeout=1)
        error: BaseException = RuntimeError(f"a worker process ended (exit code {process.exitcode}) without a "
                                            f"result: out of memory, killed, or, started afresh, unable to read "
                                            f"its jobs (its error is above)")
    else:
        error, remote = payload
        error.add_note("the worker's traceback:\n" + remote.rstrip())
    error.add_note(_describe(index, jobs))
    raise error
