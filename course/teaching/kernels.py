"""Running a notebook's cells in a kernel under a deadline this process keeps, for the grader.

:class:`Runner` runs one notebook's cells in one kernel at a time: each cell gets the cell timeout or what is
left of the notebook's own (:class:`Clock`), the smaller; at the deadline the kernel is interrupted, ``GRACE``
seconds later its process group is killed, and a kernel that was killed or died is replaced by a new one,
brought back to where the old one was by running the cells that had succeeded. :class:`Outcome` is what one
cell did; :func:`failure_of` reads a cell's error from its outputs.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from . import sandbox


@dataclass
class Outcome:
    """What running one cell did: nothing wrong (``None``), or the reason it failed, and the exception's name."""

    failure: str | None
    kernel_died: bool = False
    error: str = ""



def failure_of(cell) -> tuple[str | None, str]:
    for output in cell.get("outputs", []):
        if output.get("output_type") == "error":
            name, value = output.get("ename", "Error"), str(output.get("evalue", "")).strip()
            if name == "NotImplementedError":
                reason = "not answered (NotImplementedError)" if not value else f"NotImplementedError: {value}"
                return reason, name
            first = value.splitlines()[0] if value else ""
            return (f"{name}: {first}" if first else name), name
    return None, ""


GRACE = 2.0  # seconds an interrupted cell has to stop before its kernel's process group is killed
OUTPUT_LIMIT = 1 << 20  # characters of a cell's output kept (the rest is dropped as it arrives)


class Clock:
    """The notebook's deadline: every cell gets the cell timeout or what is left of the notebook's, the smaller."""

    def __init__(self, cell_seconds: float, notebook_seconds: float):
        self.cell_seconds, self.notebook_seconds = cell_seconds, notebook_seconds
        self.end = time.monotonic() + notebook_seconds

    def seconds(self) -> float:
        return min(self.cell_seconds, self.end - time.monotonic())

    def reason(self) -> str:
        return f"the notebook ran longer than {self.notebook_seconds:g} s in all and was stopped"


def client_class():
    from nbclient import NotebookClient

    class CappedClient(NotebookClient):
        """A notebook client that keeps every error but no more than ``OUTPUT_LIMIT`` characters of other output."""

        kept = 0

        def output(self, outs, msg, display_id, cell_index):
            if msg["msg_type"] != "error":
                size = len(json.dumps(msg.get("content", {}).get("data") or msg.get("content", {}).get("text", "")))
                self.kept += size
                if self.kept > OUTPUT_LIMIT:
                    return None
            return super().output(outs, msg, display_id, cell_index)

    return CappedClient


class Runner:
    """One notebook's cells in one kernel at a time, each under a deadline this process enforces.

    nbclient waits for a cell's reply and output in polls of its own; the deadline is kept outside them: at
    the deadline the kernel is interrupted, ``GRACE`` seconds later its process group is killed, and a
    thread of its own kills it even when the event loop does not come back (a flood of output). A killed or
    dead kernel is replaced by a new one, brought back by the cells that had succeeded.
    """

    def __init__(self, notebook, workdir: Path, clock: Clock, env: dict, kernel_name: str = "python3",
                 kernel_dirs: list[Path] | None = None, connection_file: Path | None = None, offset: int = 0):
        from jupyter_client import AsyncKernelManager
        from jupyter_client.kernelspec import KernelSpecManager

        options = {"kernel_name": kernel_name}
        if kernel_dirs:
            options["kernel_spec_manager"] = KernelSpecManager(kernel_dirs=[str(d) for d in kernel_dirs])
        if connection_file:
            options["connection_file"] = str(connection_file)
        self.make_km = lambda: AsyncKernelManager(**options)
        self.client = client_class()(notebook, timeout=None, kernel_name=kernel_name, allow_errors=True,
                                      interrupt_on_timeout=False, record_timing=False, shutdown_kernel="immediate",
                                      startup_timeout=60, resources={"metadata": {"path": str(workdir)}})
        self.clock, self.offset = clock, offset  # offset: cells put before the notebook's own
        self.env = env
        self.succeeded: list[int] = []
        self.cut_short = self.broken = self.killed = False

    # The kernel's own stderr (start-up warnings, a crash's last words) is not the student's output.
    async def _start(self) -> None:
        self.client.km = self.make_km()
        await self.client.async_start_new_kernel(env=self.env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        await self.client.async_start_new_kernel_client()

    def start(self) -> None:
        from jupyter_core.utils import run_sync

        # A kernel slow to start (a loaded machine) is not the cell's fault: start-up has up to a minute
        # of what is left of the notebook's time, whatever the cell timeout.
        # A kernel that dies as it starts is tried once more: on a loaded machine, or beside another
        # sandboxed kernel of the same user, one start can fail where the next succeeds.
        for attempt in range(2):
            self.client.startup_timeout = int(max(1, min(60, self.clock.end - time.monotonic())))
            try:
                run_sync(self._start)()
                return
            except Exception:
                self.stop()
                if attempt == 1 or self.clock.end - time.monotonic() < 1:
                    raise

    def _pid(self) -> int | None:
        provisioner = getattr(self.client.km, "provisioner", None)
        process = getattr(provisioner, "process", None)
        return getattr(process, "pid", None)

    def kill(self) -> None:
        """SIGKILL to the kernel's process group (the kernel leads its own session) and to the kernel."""
        pid = self._pid()
        if pid is None:
            return
        self.killed = True
        for send in (os.killpg, os.kill):
            try:
                send(pid, signal.SIGKILL)
            except OSError:
                pass

    async def _stop(self) -> None:
        if self.client.km is None:
            return
        self.kill()
        try:
            await asyncio.wait_for(self.client._async_cleanup_kernel(), 10)
        except Exception:  # a kernel that is already gone, or channels that will not close
            pass
        self.client.km = self.client.kc = None

    def stop(self) -> None:
        from jupyter_core.utils import run_sync

        run_sync(self._stop)()

    async def _execute(self, cell, index: int, seconds: float) -> str | None:
        """Run one cell for at most ``seconds``: None, ``"timeout"`` or ``"crash"`` (the kernel died)."""
        from nbclient.exceptions import DeadKernelError

        cell.outputs = []
        self.client.kept = 0
        self.killed = False
        before = asyncio.all_tasks()
        task = asyncio.ensure_future(self.client.async_execute_cell(cell, index, store_history=False))
        watchdog = threading.Timer(seconds + 2 * GRACE + 1, self.kill)
        watchdog.daemon = True
        watchdog.start()
        try:
            done, _ = await asyncio.wait({task}, timeout=max(seconds, 0.01))
            if done:
                failure = task.exception()
                if isinstance(failure, DeadKernelError):
                    return "crash"
                if failure is not None:
                    raise failure
                return None
            try:
                await asyncio.wait_for(self.client.km.interrupt_kernel(), GRACE)
                await asyncio.wait({task}, timeout=GRACE)
            except Exception:  # a kernel that cannot even be signalled
                pass
            if not task.done():
                self.kill()
            return "timeout"
        finally:
            watchdog.cancel()
            leftover = [t for t in asyncio.all_tasks() - before if not t.done()]
            for t in leftover:
                t.cancel()
            if leftover:
                await asyncio.wait(leftover, timeout=GRACE)
            for t in {task, *leftover}:  # what a stopped cell's polls raised is known already: the kernel died
                if t.done() and not t.cancelled():
                    t.exception()

    def _alive(self) -> bool:
        pid = self._pid()
        return pid is not None and not sandbox.gone(pid)

    def execute(self, cell, index: int) -> str | None:
        """Run one cell under the clock; a kernel that was killed or died is replaced. What went wrong, or None."""
        from jupyter_core.utils import run_sync

        seconds = self.clock.seconds()
        self.cut_short = seconds < self.clock.cell_seconds
        if seconds <= 0:
            return "late"
        if self.broken:
            return "crash"
        problem = run_sync(self._execute)(cell, index, seconds)
        # A SIGKILL is not delivered at once: a kernel just killed can still look alive here.
        if problem is not None and not (problem == "timeout" and not self.killed and self._alive()):
            self.restart()
        return problem

    def restart(self) -> None:
        """A new kernel, brought back to where the old one was by running the cells that had succeeded."""
        self.stop()
        if self.clock.seconds() <= 0 or self.broken:
            return
        try:
            self.start()
        except Exception:  # a kernel that dies or hangs as it starts (a start-up file the student left)
            self.broken = True
            return
        from jupyter_core.utils import run_sync

        for index in list(self.succeeded):
            seconds = self.clock.seconds()
            if seconds <= 0:
                return
            # A cell that fails now leaves the kernel as it is: the cells after it will say what is missing.
            if run_sync(self._execute)(self.client.nb.cells[index], index, seconds) is not None and \
                    (self.killed or not self._alive()):
                self.stop()
                try:
                    self.start()
                except Exception:
                    self.broken = True
                return

    def run(self, index: int) -> Outcome:
        cell = self.client.nb.cells[index]
        problem = self.execute(cell, index)
        if problem == "late":
            return Outcome(self.clock.reason(), error="timeout")
        if problem == "timeout":
            what = f"cell {index - self.offset}: {self.clock.reason()}" if self.cut_short else \
                f"cell {index - self.offset} ran longer than {self.clock.cell_seconds:g} s and was stopped"
            return Outcome(what, error="timeout")
        if problem == "crash":
            after = "no new kernel could be started" if self.broken else "a new kernel took over"
            return Outcome(f"cell {index - self.offset} crashed the kernel ({after})", kernel_died=True,
                            error="crash")
        failure, error = failure_of(cell)
        if failure is None:
            self.succeeded.append(index)
        else:
            failure = f"cell {index - self.offset}: {failure}"
        return Outcome(failure, error=error)

    def ask(self, code: str) -> str:
        """Run ``code`` as a cell of its own (not part of the notebook) and return what it printed."""
        from nbformat.v4 import new_code_cell

        cell = new_code_cell(code)
        self.client.nb.cells.append(cell)
        try:
            if self.client.kc is None or self.execute(cell, len(self.client.nb.cells) - 1) is not None:
                return ""
            return "".join(o.get("text", "") for o in cell.outputs if o.get("output_type") == "stream")
        finally:
            self.client.nb.cells.pop()

    def execute_quietly(self, code: str) -> None:
        """Send ``code`` to the kernel and return at once (it may run for ever: the student kernel's server)."""
        if self.client.kc is not None:
            self.client.kc.execute(code, store_history=False)
