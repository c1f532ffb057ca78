"""The built pages work offline: MathJax from the build's own copy, widgets drawn without JavaScript, and, in a
real headless Chromium with the network blocked, a page with a formula and a word map draws both and asks the
network for nothing.

The browser test needs Debian's Chromium (``apt-get install -y chromium``) and skips without it.
"""

import fcntl
import html
import json
import os
import queue
import re
import shutil
import socketserver
import subprocess
import sys
import threading
import time
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from course.teaching.pages import MATHJAX_PARTS, copy_mathjax, external_references, mathjax_source, static_widgets

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
FORMULA = r"J = -\log \sigma(u_o^\top v_c) - \sum_{k=1}^{K} \log \sigma(-u_k^\top v_c)"
WORDS = ["king", "queen", "man", "woman", "paris", "france", "berlin", "germany"]
# What Chromium itself asks for whatever the page shows (its component updater, its sign-in, its optimisation
# hints), not the page: left out of what the proxy saw. A page's own request to any other host is not.
CHROMIUMS_OWN = {"update.googleapis.com", "accounts.google.com", "optimizationguide-pa.googleapis.com"}


# ------------------------------------------------------------------ what a page would fetch


def test_external_references_lists_what_the_lab_template_fetches_and_not_the_links():
    page = """<html><head>
    <script src="https://cdnjs.cloudflare.com/ajax/libs/require.js/2.1.10/require.min.js"></script>
    <script src="../static/mathjax/MathJax.js?config=TeX-AMS-MML_HTMLorMML-full"></script>
    <link rel="stylesheet" href="//fonts.example.org/font.css"><link rel="icon" href="favicon.png">
    <style>@import url("https://example.org/a.css"); .x { background: url('data:image/png;base64,AAAA') }
    @font-face { font-family: F; src: url(http://example.org/f.woff2) }</style></head>
    <body><a href="https://arxiv.org/abs/1310.4546">the paper</a><img src="figures/00-01.png">
    <img srcset="small.png 1x, https://example.org/big.png 2x"><div style="background: url(//example.org/b.png)"></div>
    <iframe srcdoc="&lt;script src=&quot;https://cdn.example.org/bokeh.min.js&quot;&gt;&lt;/script&gt;"></iframe>
    <svg><image href="https://example.org/c.svg"/></svg></body></html>"""
    assert external_references(page) == [
        "https://cdnjs.cloudflare.com/ajax/libs/require.js/2.1.10/require.min.js",
        "//fonts.example.org/font.css", "https://example.org/a.css", "http://example.org/f.woff2",
        "https://example.org/big.png", "//example.org/b.png", "https://cdn.example.org/bokeh.min.js",
        "https://example.org/c.svg"]
    assert external_references("<p>See <a href='https://nlp.stanford.edu/projects/glove/'>GloVe</a>.</p>") == []


# ------------------------------------------------------------------ MathJax and widgets


def test_the_mathjax_copy_is_the_parts_it_needs_and_is_made_once(tmp_path):
    folder = copy_mathjax(tmp_path / "static")
    assert folder == tmp_path / "static" / "mathjax"
    source = mathjax_source()
    for part in MATHJAX_PARTS:
        assert (folder / part).exists(), part
    copied = [path for path in folder.rglob("*") if path.is_file() and path.name != ".complete"]
    assert all((path.read_bytes() == (source / path.relative_to(folder)).read_bytes()) for path in copied[:50])
    size, whole = (sum(p.stat().st_size for p in paths) for paths in (copied, source.rglob("*.*")))
    assert size < whole / 3  # no localisations, no SVG output, no accessibility maps
    assert not (folder / "localization").exists() and not (folder / "jax" / "output" / "SVG").exists()
    stamp = (folder / "MathJax.js").stat().st_mtime_ns
    assert copy_mathjax(tmp_path / "static") == folder and (folder / "MathJax.js").stat().st_mtime_ns == stamp
    (folder / ".complete").unlink()  # a copy that never finished is made again
    copy_mathjax(tmp_path / "static")
    assert (folder / ".complete").is_file() and [p.name for p in (tmp_path / "static").iterdir()] == ["mathjax"]


def progress_notebook(value: float, total: float):
    """A notebook whose output is a finished tqdm bar, as nbclient saves it: a view and the widgets' state."""
    def model(name, **state):
        return {"model_name": name, "model_module": "@jupyter-widgets/controls", "model_module_version": "2.0.0",
                "state": state}

    states = {"box": model("HBoxModel", children=["IPY_MODEL_left", "IPY_MODEL_bar", "IPY_MODEL_right"]),
              "left": model("HTMLModel", value="epochs: 100%"),
              "bar": model("FloatProgressModel", value=value, min=0, max=total, bar_style="success"),
              "right": model("HTMLModel", value=" 5/5 [00:03&lt;00:00]")}
    cell = new_code_cell("for epoch in tqdm(range(5)): ...")
    cell.outputs = [nbformat.v4.new_output("display_data", data={
        "application/vnd.jupyter.widget-view+json": {"model_id": "box", "version_major": 2, "version_minor": 0},
        "text/plain": "epochs:   0%|          | 0/5 [00:00<?, ?it/s]"})]
    notebook = new_notebook(cells=[cell])
    notebook.metadata["widgets"] = {"application/vnd.jupyter.widget-state+json": {
        "state": states, "version_major": 2, "version_minor": 0}}
    return notebook


def test_a_progress_bar_is_drawn_in_its_final_state_without_the_widget_manager():
    notebook = static_widgets(progress_notebook(5, 5))
    assert "widgets" not in notebook.metadata
    (output,) = notebook.cells[0].outputs
    drawn = output.data["text/html"]
    assert "application/vnd.jupyter.widget-view+json" not in output.data
    assert drawn.index("epochs: 100%") < drawn.index("aria-valuenow='5'") < drawn.index("5/5 [00:03&lt;00:00]")
    assert "width:100.0%" in drawn and "#5cb85c" in drawn
    half = static_widgets(progress_notebook(2, 8)).cells[0].outputs[0].data["text/html"]
    assert "width:25.0%" in half and "aria-valuemax='8'" in half
    unknown = progress_notebook(5, 5)
    unknown.metadata["widgets"]["application/vnd.jupyter.widget-state+json"]["state"]["bar"]["model_name"] = "Slider"
    kept = static_widgets(unknown).cells[0].outputs[0].data  # a widget it cannot draw keeps its text
    assert "text/html" not in kept and kept["text/plain"].startswith("epochs:")


# ------------------------------------------------------------------ the page in a browser


class RecordingProxy(socketserver.ThreadingTCPServer):
    """An HTTP proxy that forwards nothing: it records the first line of every request that reaches it
    (``CONNECT host:443 ...`` for https, ``GET http://...`` for http) and answers 403."""

    daemon_threads = True

    def __init__(self):
        self.requests: list[str] = []

        class Handler(socketserver.StreamRequestHandler):
            def handle(handler):
                line = handler.rfile.readline(65536).decode("latin-1").strip()
                if line:
                    self.requests.append(line)
                handler.wfile.write(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")

        super().__init__(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.serve_forever, daemon=True).start()


class Browser:
    """Headless Chromium driven over the DevTools protocol on a pipe (file descriptors 3 and 4), every
    request sent to a :class:`RecordingProxy` and no host name resolved."""

    def __init__(self, profile: Path, proxy: RecordingProxy, width: int = 1100, height: int = 1000):
        to_browser, self._to_browser = os.pipe()
        self._from_browser, from_browser = os.pipe()
        # the browser reads commands on its fd 3 and writes answers on its fd 4: a small Python puts the pipes
        # there (from fds of 10 and above, so that neither end is moved onto the other) and starts the browser
        reading, writing = (fcntl.fcntl(fd, fcntl.F_DUPFD, 10) for fd in (to_browser, from_browser))
        for fd in (to_browser, from_browser):
            os.close(fd)
        flags = ["--headless", "--remote-debugging-pipe", f"--user-data-dir={profile}", "--disable-gpu",
                 f"--proxy-server=http://127.0.0.1:{proxy.server_address[1]}", "--proxy-bypass-list=<-loopback>",
                 "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1", "--no-first-run",
                 "--no-default-browser-check", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--disable-extensions", "--disable-default-apps", "--hide-scrollbars",
                 "--disable-features=NetworkTimeServiceQuerying,OptimizationHints",
                 "--force-device-scale-factor=1", f"--window-size={width},{height}"]
        if os.geteuid() == 0:
            flags.append("--no-sandbox")  # Chromium refuses to run as root with its sandbox
        self.process = subprocess.Popen(
            [sys.executable, "-c", f"import os, sys; os.dup2({reading}, 3); os.dup2({writing}, 4); "
             f"os.close({reading}); os.close({writing}); os.execv(sys.argv[1], sys.argv[1:])", CHROMIUM,
             *flags, "about:blank"], pass_fds=(reading, writing), stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(reading)
        os.close(writing)
        self.events: list[dict] = []
        self._answers: dict[int, queue.Queue] = {}
        self._next = 0
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        target = next(t for t in self.send("Target.getTargets")["targetInfos"] if t["type"] == "page")
        self.session = self.send("Target.attachToTarget", {"targetId": target["targetId"], "flatten": True})[
            "sessionId"]
        for domain in ("Network", "Page", "Runtime"):
            self.send(f"{domain}.enable", session=self.session)

    def _read(self):
        buffer = b""
        while chunk := os.read(self._from_browser, 1 << 20):
            buffer += chunk
            *messages, buffer = buffer.split(b"\0")
            for message in map(json.loads, messages):
                if "id" in message:
                    self._answers.setdefault(message["id"], queue.Queue()).put(message)
                else:
                    self.events.append(message)

    def send(self, method: str, params: dict | None = None, session: str | None = None, timeout: float = 30):
        self._next += 1
        message = {"id": self._next, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        answers = self._answers.setdefault(self._next, queue.Queue())
        os.write(self._to_browser, json.dumps(message).encode() + b"\0")
        answer = answers.get(timeout=timeout)
        if "error" in answer:
            raise RuntimeError(f"{method}: {answer['error']}")
        return answer["result"]

    def evaluate(self, expression: str, timeout: float = 30):
        """The value of a JavaScript expression in the page (a promise is awaited)."""
        result = self.send("Runtime.evaluate", {"expression": expression, "awaitPromise": True, "returnByValue": True,
                                                "timeout": int(timeout * 1000)}, self.session, timeout + 5)
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression[:60]}...: {result['exceptionDetails']}")
        return result["result"].get("value")

    def wait_for(self, expression: str, timeout: float = 15):
        end = time.monotonic() + timeout
        while not (value := self.evaluate(expression)):
            if time.monotonic() > end:
                raise TimeoutError(f"still false after {timeout} s: {expression}")
            time.sleep(0.05)
        return value

    def open(self, url: str):
        self.send("Page.navigate", {"url": url}, self.session)
        self.wait_for("document.readyState === 'complete'")

    def screenshot(self, clip: dict | None = None) -> bytes:
        import base64

        params = {"format": "png"} | ({"clip": clip | {"scale": 1}} if clip else {})
        return base64.b64decode(self.send("Page.captureScreenshot", params, self.session)["data"])

    def fonts_of(self, selector: str) -> tuple[list[dict], int]:
        """The fonts the first element ``selector`` finds has its own text drawn in (each with how many glyphs it
        drew), and how many CJK characters that text holds."""
        self.send("DOM.enable", session=self.session)
        self.send("CSS.enable", session=self.session)
        document = self.send("DOM.getDocument", session=self.session)["root"]["nodeId"]
        node = self.send("DOM.querySelector", {"nodeId": document, "selector": selector}, self.session)["nodeId"]
        fonts = self.send("CSS.getPlatformFontsForNode", {"nodeId": node}, self.session)["fonts"]
        characters = self.evaluate(f"[...document.querySelector({selector!r}).childNodes].filter(n => n.nodeType == 3)"
                                   ".map(n => n.textContent).join('').match(/[\u2e80-\u9fff\uff00-\uffef]/g)"
                                   "?.length || 0")
        return fonts, characters

    def hover(self, x: float, y: float):
        self.send("Input.dispatchMouseEvent", {"type": "mouseMoved", "x": x, "y": y}, self.session)

    def requests(self) -> list[str]:
        """The URL of every request the page made (its frames' too)."""
        return [e["params"]["request"]["url"] for e in self.events if e.get("method") == "Network.requestWillBeSent"]

    def failures(self) -> list[str]:
        sent = {e["params"]["requestId"]: e["params"]["request"]["url"] for e in self.events
                if e.get("method") == "Network.requestWillBeSent"}
        return [f"{sent.get(e['params']['requestId'])}: {e['params']['errorText']}" for e in self.events
                if e.get("method") == "Network.loadingFailed"]

    def exceptions(self) -> list[str]:
        return [e["params"]["exceptionDetails"].get("exception", {}).get("description", str(e["params"]))
                for e in self.events if e.get("method") == "Runtime.exceptionThrown"]

    def close(self):
        try:
            self.send("Browser.close", timeout=5)
        except (RuntimeError, queue.Empty, OSError):
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        os.close(self._to_browser)
        self._reader.join(timeout=10)  # the browser is gone: its end of the pipe is closed
        os.close(self._from_browser)


def map_notebook(folder: Path) -> Path:
    """A notebook with a formula in its text and a word map of eight words on fixed points."""
    parameters = new_code_cell("PROFILE = None\nEDITION = None")
    parameters.metadata["tags"] = ["parameters"]
    notebook = new_notebook(cells=[
        new_markdown_cell(f"# A page with a map\n\nThe sigmoid $\\sigma(x) = \\frac{{1}}{{1 + e^{{-x}}}}$, and\n\n"
                          f"$${FORMULA}$$"),
        parameters,
        new_code_cell("import numpy as np\nfrom course.figures.maps import word_map\n\n"
                      f"words = {WORDS!r}\n"
                      "vectors = np.array([[1, 0, 0], [0.9, 0.2, 0], [0.8, 0, 0.1], [0.7, 0.2, 0.1],\n"
                      "                    [0, 1, 0], [0.1, 0.9, 0], [0, 0.9, 0.3], [0.1, 0.8, 0.3]])\n"
                      "points = np.array([[0, 0], [1, 0], [0, 1], [1, 1], [4, 3], [5, 3], [4, 4], [5, 4]])\n"
                      "word_map(vectors, words, points=points, neighbours=2, title='eight words')"),
    ])
    for index, cell in enumerate(notebook.cells):
        cell.id = f"c{index}"
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    folder.mkdir(parents=True, exist_ok=True)
    nbformat.write(notebook, folder / "00_map.ipynb")
    return folder / "00_map.ipynb"


# The word map's points on the page: each glyph's screen position inside its canvas, moved by where the canvas
# and the frame holding the map's page lie.
POINTS_ON_PAGE = """(() => {
  const frame = document.querySelector("iframe");
  const views = [];
  const walk = (view) => { views.push(view); for (const child of view.children()) { walk(child); } };
  for (const root of frame.contentWindow.Bokeh.index) { walk(root); }
  const renderer = views.find((view) => view.model.constructor.__name__ == "GlyphRenderer" &&
                                        view.model.data_source.name == "words");
  const canvas = renderer.parent.canvas_view.el.getBoundingClientRect();
  const outer = frame.getBoundingClientRect();
  const glyph = renderer.glyph;
  return Array.from(glyph.sx, (sx, i) => [outer.left + frame.clientLeft + canvas.left + sx,
                                         outer.top + frame.clientTop + canvas.top + glyph.sy[i]]);
})()"""

# All the text of the map's frame, shadow roots included (Bokeh draws its tooltips in them).
FRAME_TEXT = """(() => {
  const parts = [];
  const walk = (node) => {
    if (node.nodeType === Node.TEXT_NODE) { parts.push(node.textContent); }
    if (node.shadowRoot) { walk(node.shadowRoot); }
    for (const child of node.childNodes) { walk(child); }
  };
  walk(document.querySelector("iframe").contentDocument.body);
  return parts.join(" ");
})()"""


def render_map_page(tmp_path: Path) -> Path:
    from course.teaching.build import run_notebook

    run = run_notebook(map_notebook(tmp_path / "notebooks"), tmp_path / "build", "smoke")
    assert run.error is None, run.error
    return run.html


def requested_host(line: str) -> str:
    """The host a request line that reached the proxy names: ``CONNECT host:443 HTTP/1.1`` or ``GET http://host/...``."""
    from urllib.parse import urlsplit

    method, target = line.split()[:2]
    return target.rsplit(":", 1)[0] if method == "CONNECT" else (urlsplit(target).hostname or target)


def looks_drawn(png: bytes, colour=(31, 119, 180)) -> int:
    """How many pixels of ``png`` are the map's points: its blue, laid at 75 % over white (within 12 a channel)."""
    from io import BytesIO

    import numpy as np
    from PIL import Image

    pixels = np.asarray(Image.open(BytesIO(png)).convert("RGB"), dtype=np.int16)       # (height, width, 3)
    target = np.array([round(0.75 * c + 0.25 * 255) for c in colour], dtype=np.int16)
    return int((np.abs(pixels - target) <= 12).all(axis=-1).sum())


@pytest.mark.skipif(CHROMIUM is None, reason="needs Chromium (Debian: apt-get install -y chromium)")
def test_a_built_page_draws_its_formula_and_its_map_offline_in_a_browser(tmp_path):
    page = render_map_page(tmp_path)
    source = page.read_text(encoding="utf-8")
    assert external_references(source) == [] and 'src="../static/mathjax/MathJax.js' in source
    proxy = RecordingProxy()
    browser = Browser(tmp_path / "profile", proxy)
    try:
        browser.open(page.as_uri())
        browser.wait_for("window.MathJax && new Promise((done) => MathJax.Hub.Register.StartupHook('End', "
                         "() => done(true)))")
        typeset = browser.evaluate("[...document.querySelectorAll('script[type^=\"math/tex\"]')].map(s => s.text)")
        rendered = browser.evaluate("document.querySelectorAll('.jp-MarkdownCell span.MathJax').length")
        text = browser.evaluate("document.querySelector('.jp-MarkdownCell').innerText")
        fonts = browser.evaluate("[...document.fonts].filter(f => f.status == 'loaded').map(f => f.family)")
        browser.wait_for("(() => { const b = document.querySelector('iframe').contentWindow.Bokeh; "
                         "return b && b.documents.length > 0 && b.documents[0].is_idle; })()")
        browser.evaluate("document.querySelector('iframe').scrollIntoView()")
        points = browser.evaluate(POINTS_ON_PAGE)
        box = browser.evaluate("(() => { const r = document.querySelector('iframe').getBoundingClientRect(); "
                               "return {x: r.left + window.scrollX, y: r.top + window.scrollY, width: r.width, "
                               "height: r.height}; })()")
        drawn = looks_drawn(browser.screenshot(box))
        x, y = points[WORDS.index("paris")]
        browser.hover(x, y)
        tooltip = browser.wait_for(f"(() => {{ const t = {FRAME_TEXT}; return t.includes('france') && t; }})()")
        requests, failures, exceptions = browser.requests(), browser.failures(), browser.exceptions()
    finally:
        browser.close()
        proxy.shutdown()
        proxy.server_close()
    assert [tex.strip() for tex in typeset] == [r"\sigma(x) = \frac{1}{1 + e^{-x}}", FORMULA] and rendered == 2
    assert "$" not in text and r"\frac" not in text  # no raw TeX left on the page
    assert any(family.strip("'\"").startswith("STIXMathJax") for family in fonts), fonts  # its web fonts, from file:
    assert len(points) == len(WORDS) and drawn > 20 * len(WORDS), drawn  # eight points of about 28 pixels each
    assert "paris" in tooltip and "france" in tooltip
    assert [line for line in proxy.requests if requested_host(line) not in CHROMIUMS_OWN] == []
    assert [url for url in requests if not url.startswith(("file:", "data:", "about:", "blob:"))] == []
    # MathJax's blank font is url('about:blank'), failing on purpose; anything else missing is a file left out
    assert [failure for failure in failures if not failure.startswith("about:blank:")] == [] and exceptions == []


def test_framed_pages_keep_their_short_quoting():
    from course.teaching.pages import compact_frames

    framed = """<html><body><script>if (a < b && c > "d") { e = 'f'; }</script></body></html>"""
    double = f'<iframe srcdoc="{html.escape(framed, quote=True)}" style="border: 0"></iframe>'
    compact = compact_frames(f"<p>before</p>{double}<p>after</p>")
    assert compact.startswith("<p>before</p><iframe srcdoc='")
    assert compact.endswith(' style="border: 0"></iframe><p>after</p>')
    value = re.search(r"srcdoc='([^']*)'", compact).group(1)
    assert html.unescape(value) == framed and len(value) < len(html.escape(framed, quote=True))
    assert compact_frames("<p>no frame</p>") == "<p>no frame</p>"


# ------------------------------------------------------------------ the pages as a site

# Two notebooks in both editions, with a table and a printout holding Chinese words among their outputs.
SITE_NOTEBOOKS = {
    "00_counting": {
        "en": ["# 00 · Counting words", "## 1 · Tokens and types\n\nA corpus is a list of sentences; each sentence "
               "a list of tokens.", "## 2 · Frequent words\n\nThe most frequent words of the People's Daily."],
        "zh": ["# 00 · 数词", "## 1 · 词元与词型\n\n语料库是句子的列表，每个句子是词元的列表。",
               "## 2 · 高频词\n\n人民日报里最常见的词。"],
    },
    "01_sampling": {
        "en": ["# 01 · Negative sampling",
               "## 1 · The sigmoid\n\nThe logistic function $\\sigma(x) = 1 / (1 + e^{-x})$",
               "## 2 · Drawing noise words\n\nNoise words come from the unigram distribution raised to the power 3/4."],
        "zh": ["# 01 · 负采样", "## 1 · S 型函数\n\n逻辑函数 $\\sigma(x) = 1 / (1 + e^{-x})$",
               "## 2 · 抽取噪声词\n\n噪声词取自一元分布的四分之三次方。"],
    },
}
CHINESE_TABLE = "<table><tr><th>词</th><th>次数</th></tr><tr><td>北京</td><td>1024</td></tr></table>"


def site_notebook(stem: str, edition: str):
    cells = []
    for index, text in enumerate(SITE_NOTEBOOKS[stem][edition]):
        cells.append(new_markdown_cell(text))
        code = new_code_cell(f"counts = top_words(corpus, {index + 3})  # 最常见的词\ncounts")
        code.outputs = [nbformat.v4.new_output("stream", name="stdout", text="北京 上海 广州\n"),
                        nbformat.v4.new_output("execute_result", execution_count=index + 1,
                                               data={"text/html": CHINESE_TABLE, "text/plain": "词 次数"})]
        cells.append(code)
    notebook = new_notebook(cells=cells)
    for index, cell in enumerate(notebook.cells):
        cell.id = f"c{index}"
    return notebook


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """Both editions' pages of :data:`SITE_NOTEBOOKS`, the indexes and the site's files, in ``build/``."""
    from course.teaching.build import NotebookRun, write_index
    from course.teaching.pages import render_page
    from course.teaching.site import write_site

    root = tmp_path_factory.mktemp("site") / "build"
    static = root / "static"
    for edition, out in (("en", root), ("zh", root / "zh")):
        runs = []
        for stem in SITE_NOTEBOOKS:
            page = out / "notebooks" / f"{stem}.html"
            page.parent.mkdir(parents=True, exist_ok=True)
            page.write_text(render_page(site_notebook(stem, edition), page, static, edition), encoding="utf-8")
            runs.append(NotebookRun(stem, SITE_NOTEBOOKS[stem][edition][0][2:], 1.0, page.with_suffix(".ipynb"), page))
        os.environ["COURSE_BUILD"], before = str(root), os.environ.get("COURSE_BUILD")
        try:
            write_index(runs, out, "smoke", None, edition)
        finally:
            os.environ.pop("COURSE_BUILD") if before is None else os.environ.update(COURSE_BUILD=before)
    started = time.perf_counter()
    data = write_site(static)
    return root, data, time.perf_counter() - started


def test_the_site_lists_each_editions_notebooks_with_their_sections_and_fetches_nothing(site):
    root, data, _ = site
    en, zh = data["editions"]["en"], data["editions"]["zh"]
    assert [page["url"] for page in en["pages"]] == ["notebooks/00_counting.html", "notebooks/01_sampling.html"]
    assert [page["url"] for page in zh["pages"]] == ["zh/notebooks/00_counting.html", "zh/notebooks/01_sampling.html"]
    assert (en["index"], zh["index"]) == ("index.html", "zh/index.html")
    assert [page["title"] for page in zh["pages"]] == ["00 · 数词", "01 · 负采样"]
    assert [title for _, title in en["pages"][1]["sections"]] == ["1 · The sigmoid", "2 · Drawing noise words"]
    page = (root / en["pages"][1]["url"]).read_text(encoding="utf-8")
    for section_id, _ in en["pages"][1]["sections"]:
        assert f'id="{section_id}"' in page  # the sidebar's anchors are the page's own
    search = (root / "static" / "site" / "search.js").read_text(encoding="utf-8")
    records = json.loads(search.removeprefix("window.COURSE_SEARCH = ").rstrip().removesuffix(";"))
    text = {(edition, where, title): body for edition, where, _, title, body in records}
    assert "unigram distribution raised" in text["en", 1, "2 · Drawing noise words"]
    assert "top_words(corpus, 5)" in text["en", 1, "2 · Drawing noise words"]  # code is searched
    assert "一元分布的四分之三次方" in text["zh", 1, "2 · 抽取噪声词"]
    assert all("1024" not in body and "¶" not in body for body in text.values())  # outputs and anchor marks are not
    for html_page in [*root.glob("notebooks/*.html"), *root.glob("zh/notebooks/*.html"), root / "index.html",
                      root / "zh" / "index.html"]:
        assert external_references(html_page.read_text(encoding="utf-8")) == [], html_page


def test_the_served_font_holds_the_pages_chinese_and_is_cut_again_only_when_it_changes(site):
    from fontTools.ttLib import TTFont

    from course.teaching.site import CJK, write_font

    root, _, seconds = site
    font_path = root / "static" / "site" / "cjk.woff"
    covered = set(TTFont(font_path).getBestCmap())
    used = {ch for path in root.rglob("*.html") for ch in CJK.findall(path.read_text(encoding="utf-8"))}
    assert {"负", "噪", "北", "，"} <= used and all(ord(ch) in covered for ch in used)
    assert font_path.stat().st_size < 60_000 and seconds < 30  # a few dozen glyphs of the font's 16 MB
    stamp = font_path.stat().st_mtime_ns
    assert write_font(used, font_path) == font_path and font_path.stat().st_mtime_ns == stamp
    write_font(used | {"词", "嵌"}, font_path)
    assert font_path.stat().st_mtime_ns != stamp and ord("嵌") in TTFont(font_path).getBestCmap()


SIDEBAR_LINK = "[...document.querySelectorAll('#course-sidebar .course-toc > li > a')].find(a => a.textContent == {!r})"
# The same two characters drawn in the served font on a canvas: a box stands in for each where the font lacks
# them, the same box for both.
GLYPHS_DIFFER = """(async () => {
  await document.fonts.load('40px "Course CJK"', '负采');
  const draw = (ch, font) => { const c = document.createElement('canvas'); c.width = c.height = 48;
    const g = c.getContext('2d'); g.font = font; g.fillText(ch, 2, 40); return g.getImageData(0, 0, 48, 48).data; };
  const differ = (a, b) => a.some((v, i) => v != b[i]);
  const inked = (a) => a.some((v, i) => i % 4 == 3 && v > 0);
  const a = draw('负', '40px "Course CJK"'), b = draw('采', '40px "Course CJK"');
  return {served: inked(a) && differ(a, b), system: differ(draw('负', '40px monospace'), draw('采', '40px monospace'))};
})()"""


@pytest.mark.skipif(CHROMIUM is None, reason="needs Chromium (Debian: apt-get install -y chromium)")
def test_the_site_navigates_searches_switches_editions_and_renders_chinese_offline(site, tmp_path):
    root, _, _ = site
    proxy = RecordingProxy()
    browser = Browser(tmp_path / "profile", proxy)

    def follow(expression: str, page: str):
        """Click the link ``expression`` finds and wait for ``page`` (relative to the site) to load."""
        browser.evaluate(f"({expression}).click()")
        loaded = (f"location.href.split('#')[0] == {(root / page).as_uri()!r} && document.readyState == 'complete' "
                  "&& document.getElementById('course-sidebar') !== null")
        end = time.monotonic() + 15
        while True:
            try:
                if browser.evaluate(loaded):
                    return
            except RuntimeError as exc:  # asked while the old page was leaving
                if "navigated" not in str(exc) and "context" not in str(exc):
                    raise
            if time.monotonic() > end:
                raise TimeoutError(f"{page} did not load")
            time.sleep(0.05)

    def search(query: str):
        browser.evaluate(f"(() => {{ const box = document.getElementById('course-search'); box.value = {query!r}; "
                         "box.dispatchEvent(new Event('input')); })()")
        return browser.wait_for("(() => { const hits = [...document.querySelectorAll('#course-results a')]; "
                                "return hits.length && hits.map(a => [a.dataset.edition, a.dataset.notebook, "
                                "a.getAttribute('href')]); })()")

    try:
        browser.open((root / "notebooks" / "00_counting.html").as_uri())
        browser.wait_for("document.getElementById('course-sidebar') !== null")
        sections = browser.evaluate("[...document.querySelectorAll('.course-here .course-sections a')]"
                                    ".map(a => [a.textContent, !!document.getElementById(a.hash.slice(1))])")
        follow(SIDEBAR_LINK.format("01 · Negative sampling"), "notebooks/01_sampling.html")
        first_h1 = browser.evaluate("document.querySelector('h1').firstChild.textContent")
        no_next = browser.evaluate("document.querySelector('.course-pager a[rel=next]') === null")
        follow("document.querySelector('.course-pager a[rel=prev]')", "notebooks/00_counting.html")
        follow("document.querySelector('.course-pager a[rel=next]')", "notebooks/01_sampling.html")
        english_hits = search("noise words")
        chinese_hits = search("噪声词")
        follow("document.querySelector('#course-results a')", "zh/notebooks/01_sampling.html")
        zh_h1 = browser.evaluate("document.querySelector('h1').firstChild.textContent")
        browser.wait_for("document.fonts.status == 'loaded'")
        faces = browser.evaluate("[...document.fonts].map(f => [f.family.replace(/\"/g, ''), f.status])")
        drawn_with = {selector: browser.fonts_of(selector) for selector in (
            "h1", ".jp-MarkdownCell p", ".jp-InputArea .highlight .c1", ".jp-OutputArea pre", ".jp-OutputArea td",
            "#course-sidebar .course-here > a")}
        glyphs = browser.evaluate(GLYPHS_DIFFER)
        follow("document.getElementById('course-edition-switch')", "notebooks/01_sampling.html")
        follow("document.querySelector('#course-sidebar .course-home')", "index.html")
        listed = browser.evaluate("[...document.querySelectorAll('#course-editions [data-edition] a')]"
                                  ".map(a => [a.closest('[data-edition]').dataset.edition, a.textContent])")
        follow("document.querySelector('#course-editions [data-edition=zh] li a')", "zh/notebooks/00_counting.html")
        requests, failures, exceptions = browser.requests(), browser.failures(), browser.exceptions()
    finally:
        browser.close()
        proxy.shutdown()
        proxy.server_close()
    assert [text for text, _ in sections] == ["1 · Tokens and types", "2 · Frequent words"] and all(
        found for _, found in sections)
    assert first_h1 == "01 · Negative sampling" and no_next
    assert english_hits[0][:2] == ["en", "01_sampling"] and english_hits[0][2].endswith(
        "notebooks/01_sampling.html#2-·-Drawing-noise-words".replace("·", "%C2%B7"))
    assert chinese_hits[0][:2] == ["zh", "01_sampling"] and len(chinese_hits) == 1
    assert zh_h1 == "01 · 负采样"
    assert ["Course CJK", "loaded"] in faces, faces  # the page's Chinese asked for it, and it came from the disk
    for selector, (fonts, characters) in drawn_with.items():  # text, code, printouts, tables, the sidebar
        served = sum(font["glyphCount"] for font in fonts if font["isCustomFont"] and
                     font["familyName"].startswith("Noto Sans CJK"))
        assert characters > 0 and served == characters, (selector, fonts, characters)
    assert glyphs["served"], glyphs  # two characters, two glyphs: not the box of a missing one
    assert ["en", "00 · Counting words"] in listed and ["zh", "01 · 负采样"] in listed and len(listed) == 6
    assert [line for line in proxy.requests if requested_host(line) not in CHROMIUMS_OWN] == []
    assert [url for url in requests if not url.startswith(("file:", "data:", "about:", "blob:"))] == []
    assert [failure for failure in failures if not failure.startswith("about:blank:")] == [] and exceptions == []


def test_a_build_of_one_edition_elsewhere_is_a_site_of_that_edition(tmp_path):
    from course.teaching.site import with_site, write_site

    root = tmp_path / "out"  # python -m course build --edition zh --out out: its pages in out/notebooks/
    static = root / "static"
    (root / "notebooks").mkdir(parents=True)
    for name, page, stem in (("00_a.html", root / "notebooks" / "00_a.html", "00_a"),
                             ("index", root / "index.html", "")):
        bare = f"<!doctype html><html lang='en'><head><title>{name}</title></head><body><h1 id='t'>标题 {name}</h1>"
        page.write_text(with_site(bare + "</body></html>", page, static, "zh", stem), encoding="utf-8")
    (root / "notebooks" / "01_old.html").write_text("<html><head></head><body><h1 id='o'>old</h1></body></html>")
    data = write_site(static, font=False)
    assert data["editions"]["zh"] == {"index": "index.html", "pages": [
        {"stem": "00_a", "title": "标题 00_a.html", "url": "notebooks/00_a.html", "sections": []}]}
    assert data["editions"]["en"] == {"index": None, "pages": []}  # a page without the site's tags is not listed
    page = (root / "notebooks" / "00_a.html").read_text(encoding="utf-8")
    assert "<html lang='zh-Hans'>" in page and "<meta name='course-root' content='../'>" in page
    assert "src='../static/site/site.js'" in page
