import multiprocessing
import os
import signal
import subprocess
import sys
import time

import pytest
import torch

from course.static import hogwild

pytestmark = pytest.mark.skipif(not hogwild.can_fork(), reason="needs fork")


def test_forked_workers_write_into_the_shared_tensor_and_report():
    table = hogwild.shared_tensor(torch.zeros(4, 3))
    received, polls = [], []

    def work(send):
        row = os.getpid() % 2  # either worker may take either row
        table[row + 2].add_(1.0)
        table[0, 0].add_(0.0)
        send(("pid", os.getpid()))

    hogwild.run_workers(2, work, received.append, poll=lambda: polls.append(1), poll_seconds=0.01)
    assert len(received) == 2 and len({pid for _, pid in received}) == 2
    assert os.getpid() not in {pid for _, pid in received}
    assert float(table.sum()) == 6.0  # both workers' writes are seen here
    assert multiprocessing.active_children() == []


def test_a_worker_exception_is_raised_here_with_its_type():
    def work(send):
        send("started")
        raise ValueError("bad chunk")

    with pytest.raises(ValueError, match="bad chunk"):
        hogwild.run_workers(2, work, lambda message: None)
    assert multiprocessing.active_children() == []


def test_an_exception_that_cannot_be_pickled_arrives_as_its_text():
    class Local(Exception):  # a local class cannot be pickled
        pass

    def work(send):
        raise Local("no way home")

    with pytest.raises(RuntimeError, match="Local: no way home"):
        hogwild.run_workers(1, work, lambda message: None)


def test_a_worker_that_dies_is_reported_and_the_others_stopped():
    tickets, lock = hogwild.shared_tensor(torch.zeros(1)), hogwild.shared_lock()

    def work(send):
        with lock:
            first = int(tickets.add_(1)[0]) == 1
        if first:
            os._exit(3)  # as if killed
        while True:  # the other worker would run for ever
            pass

    with pytest.raises(hogwild.WorkerFailed, match="exit code 3"):
        hogwild.run_workers(2, work, lambda message: None, poll_seconds=0.05)
    assert multiprocessing.active_children() == []


def test_an_exception_in_the_parent_stops_the_workers():
    def work(send):
        while True:
            send("tick")

    def receive(message):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        hogwild.run_workers(2, work, receive)
    assert multiprocessing.active_children() == []


def _alive(pid: int) -> bool:
    """Whether process ``pid`` still runs (a zombie, dead but not yet reaped, does not)."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError):
        return False


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="reads /proc (Linux)")
@pytest.mark.parametrize("signal_number", [signal.SIGTERM, signal.SIGKILL])
def test_workers_die_with_their_parent(signal_number):
    script = (
        "import os\n"
        "from course.static import hogwild\n"
        "def work(send):\n"
        "    os.write(1, f'{os.getpid()}\\n'.encode())  # one write: the two workers' lines never mix\n"
        "    while True:  # busy, as a trainer is, and never reporting\n"
        "        pass\n"
        "hogwild.run_workers(2, work, lambda message: None)\n"
    )
    parent = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        workers = [int(parent.stdout.readline()) for _ in range(2)]
        assert all(_alive(pid) for pid in workers)
        parent.send_signal(signal_number)
        parent.wait(timeout=10)
        deadline = time.monotonic() + 10
        while any(_alive(pid) for pid in workers) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not any(_alive(pid) for pid in workers), "a worker outlived its parent"
    finally:
        parent.kill()
        parent.wait()
