"""`make lab` works: JupyterLab starts headless on the notebooks, opens each, and runs one through its kernel."""

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
import uuid
from pathlib import Path

import nbformat
import pytest

from course.teaching.assignments import notebook_paths

websocket = pytest.importorskip("websocket")

TOKEN = uuid.uuid4().hex
RUN_THROUGH_KERNEL = "01_one_hot_to_embeddings.ipynb"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def request(port: int, path: str, method: str = "GET", body: dict | None = None):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=data, method=method,
                                 headers={"Authorization": f"token {TOKEN}", "Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=60) as response:
        payload = response.read()
        kind = response.headers.get("Content-Type", "")
        return response.status, (json.loads(payload) if "json" in kind else payload.decode("utf-8", "replace"))


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """`jupyter lab notebooks`, as `make lab` starts it, without a browser, on a free local port."""
    port = free_port()
    bin_dir = Path(sys.executable).parent
    home = tmp_path_factory.mktemp("jupyter")
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
           "COURSE_PROFILE": "smoke", "JUPYTER_RUNTIME_DIR": str(home / "runtime"),
           "JUPYTER_CONFIG_DIR": str(home / "config")}
    log = (home / "lab.log").open("w")
    server = subprocess.Popen([str(bin_dir / "jupyter"), "lab", "notebooks", "--no-browser", f"--port={port}",
                               "--ip=127.0.0.1", f"--IdentityProvider.token={TOKEN}", "--ServerApp.port_retries=0",
                               *(["--allow-root"] if os.geteuid() == 0 else [])],  # as the Makefile does
                              cwd=Path(__file__).resolve().parents[1], env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                request(port, "/api/status")
                break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"JupyterLab did not start: {(home / 'lab.log').read_text()[-2000:]}")
                time.sleep(0.5)
        yield port
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
        log.close()


def test_jupyterlab_serves_its_page_and_every_notebook(lab):
    status, page = request(lab, "/lab")
    assert status == 200 and "JupyterLab" in page
    for path in notebook_paths():
        status, model = request(lab, f"/api/contents/{path.name}")
        assert status == 200 and model["type"] == "notebook"
        assert model["content"]["metadata"]["kernelspec"]["name"] == "python3"


def execute(channel, session: str, code: str, timeout: float = 300) -> dict:
    """Send one execute_request over the kernel's websocket; the reply's content, with any error output."""
    msg_id = uuid.uuid4().hex
    channel.send(json.dumps({
        "header": {"msg_id": msg_id, "username": "test", "session": session, "msg_type": "execute_request",
                   "version": "5.3", "date": ""},
        "parent_header": {}, "metadata": {}, "channel": "shell", "buffers": [],
        "content": {"code": code, "silent": False, "store_history": True, "user_expressions": {},
                    "allow_stdin": False, "stop_on_error": True}}))
    deadline, errors = time.monotonic() + timeout, []
    while time.monotonic() < deadline:
        message = json.loads(channel.recv())
        if message.get("parent_header", {}).get("msg_id") != msg_id:
            continue
        if message["msg_type"] == "error":
            errors.append(f"{message['content']['ename']}: {message['content']['evalue']}")
        if message["msg_type"] == "execute_reply":
            return {**message["content"], "errors": errors}
    raise TimeoutError(f"no reply within {timeout} s to: {code[:80]}")


def test_a_notebook_runs_through_the_kernel_of_the_lab(lab):
    status, session = request(lab, "/api/sessions", "POST", {"path": RUN_THROUGH_KERNEL, "type": "notebook",
                                                             "name": RUN_THROUGH_KERNEL, "kernel": {"name": "python3"}})
    assert status == 201
    kernel = session["kernel"]["id"]
    channel = websocket.create_connection(f"ws://127.0.0.1:{lab}/api/kernels/{kernel}/channels?token={TOKEN}",
                                          timeout=300)
    try:
        notebook = nbformat.read(Path("notebooks") / RUN_THROUGH_KERNEL, as_version=4)
        cells = [cell for cell in notebook.cells if cell.cell_type == "code"]
        for number, cell in enumerate(cells):
            reply = execute(channel, session["id"], cell.source)
            assert reply["status"] == "ok" and not reply["errors"], (number, cell.source[:200], reply["errors"])
        reply = execute(channel, session["id"], "import os; print(os.environ['COURSE_PROFILE'])")
        assert reply["status"] == "ok"
    finally:
        channel.close()
        request(lab, f"/api/sessions/{session['id']}", "DELETE")
