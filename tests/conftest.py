import http.server
import threading
from functools import partial

import pytest

from course.core.runtime import setup_cpu

setup_cpu()  # before any test imports PyTorch

from course.text.corpus import load_corpus  # noqa: E402


@pytest.fixture(scope="module")
def one_torch_thread():
    """Torch on one thread for a module's tests (tiny models run faster so, beside other workers), then as before."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


@pytest.fixture(scope="session")
def wiki():
    return load_corpus("wiki-en", progress=False)


@pytest.fixture(scope="session")
def wiki_vectors(wiki):
    """gensim's Word2Vec on wiki-en, small and quick: real vectors to evaluate."""
    from gensim.models import Word2Vec

    model = Word2Vec(list(wiki), vector_size=40, window=5, min_count=5, workers=2, epochs=3, seed=7)
    return model.wv


@pytest.fixture
def private_cache(tmp_path, monkeypatch):
    """A cache folder of the test's own, so tests never touch data/cache."""
    cache = tmp_path / "cache"
    monkeypatch.setenv("COURSE_CACHE", str(cache))
    return cache


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    """Serves a folder without logging, and records each path asked for (``QuietHandler.requests``)."""

    requests: list[str] = []

    def log_message(self, *args):
        pass

    def do_GET(self):
        QuietHandler.requests.append(self.path)
        super().do_GET()


@pytest.fixture
def server(tmp_path):
    """A real HTTP server on 127.0.0.1 serving the test's folder ``www``: ``(folder, base URL)``."""
    root = tmp_path / "www"
    root.mkdir()
    QuietHandler.requests.clear()
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), partial(QuietHandler, directory=str(root)))
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield root, f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture
def requests_seen(server) -> list[str]:
    """The paths :func:`server` has been asked for, in order (a list the test may clear)."""
    return QuietHandler.requests


def run_course(*args, env=None):
    """``python -m course ARGS`` in a process of its own, with this environment (and ``env`` over it)."""
    import os
    import subprocess
    import sys

    return subprocess.run([sys.executable, "-m", "course", *map(str, args)], capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, timeout=300)


def assert_one_line_error(result, *fragments):
    """A command-line run that failed as a user's mistake should: exit status 2, one line on stderr."""
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    for fragment in fragments:
        assert fragment in lines[0]


NOUNS = "cat dog bird fish horse cow".split()
VERBS = "sees likes eats finds".split()


def toy_corpus(num_sentences=160, seed=0):
    """'the NOUN VERB a NOUN' and 'a NOUN VERB the NOUN': a pattern a small language model can learn."""
    import numpy as np

    from course.text.corpus import from_sentences

    rng = np.random.default_rng(seed)
    sentences = []
    for _ in range(num_sentences):
        first, second = ("the", "a") if rng.random() < 0.5 else ("a", "the")
        sentences.append([first, str(rng.choice(NOUNS)), str(rng.choice(VERBS)), second, str(rng.choice(NOUNS))])
    return from_sentences(sentences, name="toy")


def failure_message(check, function, capsys, **kwargs) -> str:
    """The message a check fails ``function`` with: a CheckFailed, one sentence ending in a full stop,
    and no "Right:" printed before it."""
    from course.teaching.checks import CheckFailed

    with pytest.raises(CheckFailed) as failure:
        check(function, **kwargs)
    message = str(failure.value)
    assert message.endswith("."), message
    assert "Right:" not in capsys.readouterr().out
    return message


def graded_cell(notebook, grade_id) -> str:
    """The source of the one cell of ``notebook`` whose nbgrader ``grade_id`` is ``grade_id``."""
    from course.teaching.assignments import read_notebook

    cells = [cell for cell in read_notebook(notebook).cells
             if cell.get("metadata", {}).get("nbgrader", {}).get("grade_id") == grade_id]
    assert len(cells) == 1, grade_id
    return cells[0].source
