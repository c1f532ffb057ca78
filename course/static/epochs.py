"""The epoch loop of the static-vector trainers, with its units of work shared among Hogwild
workers that update the model's tables without locks, as word2vec.c's and glove.c's threads do.

Python threads share one interpreter lock, which a trainer made of many small tensor operations
holds between them; forked processes (:mod:`course.static.hogwild`) have one each, and train at up to
twice the speed of one worker on two cores. One worker trains the units in order: with one seed,
the same vectors every time; with two or more the order in which they update shared rows
changes from run to run, and so do the vectors.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable

from ..core.devices import keep_work_memory
from . import hogwild

# train_unit(index, done) -> (examples, mean loss or None); done() -> examples trained so far
TrainUnit = Callable[[int, Callable[[], int]], tuple[int, float | None]]


def run_epochs(model, epoch_work: Callable[[int], tuple[int, TrainUnit]], total: int, unit: str, desc: str,
               workers: int = 1, in_processes: bool = False, progress: bool = True,
               checkpoint: str | os.PathLike | None = None, callback=None, callback_seconds: float = 1.0) -> None:
    """Train ``model`` from ``model.state.epochs_done`` until ``model.config.epochs`` epochs are done.

    ``epoch_work(epoch)`` gives the epoch's number of units of work (chunks of text, batches of
    entries) and ``train_unit(index, done)``, which trains unit ``index`` and returns the examples
    it trained and their mean loss (None when not measured); ``done()`` gives the examples trained
    so far, for a learning-rate schedule. ``workers`` share the units: forked processes with
    ``in_processes`` (the model's tables move to shared memory first), else threads.

    After every epoch the state is updated, a checkpoint written when ``checkpoint`` is given, and
    ``callback(model)`` called, as it also is about every ``callback_seconds`` while an epoch runs
    (from the calling thread: for a live loss curve of ``model.state.history``). ``total``,
    ``unit`` and ``desc`` are for the progress bar. Torch runs one thread per worker meanwhile.
    """
    import torch

    from ..core.progress import progress_bar

    state = model.state
    on_cpu = model.device.type == "cpu"
    torch_threads = torch.get_num_threads()
    if on_cpu:
        keep_work_memory()
        torch.set_num_threads(1)  # parallelism comes from the workers; one worker is deterministic
    bar = progress_bar(total=total, initial=state.done, unit=unit, unit_scale=True, desc=desc, disable=not progress)
    if in_processes:
        model.share_memory()

    def record(report) -> None:
        examples, loss = report
        state.record(examples, loss)
        if loss is not None:
            bar.set_postfix(loss=f"{loss:.4f}", refresh=False)
        bar.update(examples)

    def poll() -> None:
        if callback is not None:
            callback(model)

    epoch_in = _epoch_in_processes if in_processes else _epoch_in_threads
    try:
        for epoch in range(state.epochs_done, model.config.epochs):
            start = time.perf_counter()
            units, train_unit = epoch_work(epoch)
            epoch_in(workers, units, train_unit, record, state.done, poll, callback_seconds)
            state.epochs_done = epoch + 1
            state.seconds += time.perf_counter() - start
            if checkpoint is not None:
                model.save_checkpoint(checkpoint)
            poll()
    finally:
        bar.close()
        if on_cpu:
            torch.set_num_threads(torch_threads)


def _epoch_in_threads(threads: int, units: int, train_unit: TrainUnit, record, done_before: int, poll,
                      poll_seconds: float) -> None:
    """One epoch in ``threads`` Python threads; the first failure stops them all and is raised here,
    as is an exception of ``poll`` (Ctrl-C, a callback's) once they have stopped."""
    import torch

    lock, stop, work, failures = threading.Lock(), threading.Event(), iter(range(units)), []
    done = [done_before]

    def worker() -> None:
        # Far-out sigmoids give subnormal floats, which make CPU arithmetic many times slower;
        # flush them to zero (the setting is per thread, and these are ours).
        torch.set_flush_denormal(True)
        try:
            while not stop.is_set():
                with lock:
                    index = next(work, None)
                if index is None:
                    return
                report = train_unit(index, lambda: done[0])
                with lock:
                    done[0] += report[0]
                    record(report)
        except BaseException as exc:  # noqa: BLE001 - handed to the calling thread
            failures.append(exc)
            stop.set()

    pool = [threading.Thread(target=worker, daemon=True) for _ in range(threads)]
    try:
        for thread in pool:
            thread.start()
        for thread in pool:
            while thread.is_alive():
                thread.join(timeout=poll_seconds)
                poll()
    finally:
        stop.set()
        for thread in pool:
            thread.join()
    if failures:
        raise failures[0]


def _epoch_in_processes(processes: int, units: int, train_unit: TrainUnit, record, done_before: int, poll,
                        poll_seconds: float) -> None:
    """One epoch in ``processes`` forked processes that train the shared tables (:mod:`course.static.hogwild`)."""
    import torch

    # the next unit to take, and the examples trained in this epoch (for the learning rate)
    counters = hogwild.shared_tensor(torch.zeros(2, dtype=torch.int64))
    lock = hogwild.shared_lock()

    def work(send) -> None:
        torch.set_num_threads(1)
        torch.set_flush_denormal(True)
        while True:
            with lock:
                index = int(counters[0])
                counters[0] += 1
            if index >= units:
                return
            report = train_unit(index, lambda: done_before + int(counters[1]))
            with lock:
                counters[1] += report[0]
            send(report)

    hogwild.run_workers(processes, work, record, poll, poll_seconds)
