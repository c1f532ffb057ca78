"""Notebook pages that work offline: nothing on a built page is fetched from the network.

nbconvert's ``lab`` template loads require.js, MathJax and mermaid from a CDN, and the Jupyter widgets
(the progress bars of training loops) from unpkg. Here a page is rendered with

- MathJax 2.7 from the ``jupyter-server-mathjax`` package, copied once per build into ``static/mathjax/``
  (:data:`MATHJAX_PARTS`: the TeX input, the HTML-CSS output and its STIX-Web fonts, the extensions loaded
  on demand; 172 files, 1.9 MB of the package's 9.5 MB) and linked by a relative URL, so that a page works
  from a web server and from the file system alike;
- each widget drawn from its saved final state as plain HTML (:func:`static_widgets`): a finished
  progress bar needs no JavaScript, so neither require.js nor the widget manager is loaded;
- no mermaid loader (no notebook of the course draws a mermaid diagram).

:func:`external_references` lists what a page would still fetch from the network; the build's tests
assert that it is nothing.
"""

from __future__ import annotations

import html
import os
import re
import shutil
import tempfile
from html.parser import HTMLParser
from pathlib import Path

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"

#: What MathJax 2.7 may fetch for ``config=TeX-AMS-MML_HTMLorMML-full`` (TeX in, HTML-CSS out, STIX-Web fonts),
#: relative to the package's ``static/``: a file, or a folder copied whole. The configuration file holds the
#: input and output code and the menu; the rest is loaded on demand: glyph tables and fonts by the characters
#: a page uses, operator tables, TeX extensions by the macros (``\boldsymbol``, ``\cancel``, ...), the help
#: dialog and the font warning by what the reader does. Left out: localisations (MathJax speaks English unless
#: the reader picks another language in its menu), the SVG output, MathML input, accessibility maps.
MATHJAX_PARTS = (
    "LICENSE",
    "MathJax.js",
    "config/TeX-AMS-MML_HTMLorMML-full.js",
    "extensions/AssistiveMML.js",
    "extensions/FontWarnings.js",
    "extensions/HelpDialog.js",
    "extensions/Safe.js",
    "extensions/TeX",
    "jax/element/mml",
    "jax/output/HTML-CSS",
    "fonts/HTML-CSS/STIX-Web/woff",
)
MATHJAX_CONFIG = "TeX-AMS-MML_HTMLorMML-full"

# The lab template's head, less what it would fetch: no require.js, no widget manager, no mermaid; MathJax
# from ``resources.mathjax_url`` (relative), set up as the lab template sets it up, but with the fonts the
# package ships (STIX-Web) and the HTML-CSS output in every browser.
OFFLINE_TEMPLATE = r"""{%- extends 'index.html.j2' -%}
{%- block html_head_js_requirejs -%}{%- endblock html_head_js_requirejs -%}
{% block jupyter_widgets %}{% endblock jupyter_widgets %}
{%- block html_head_js_mermaidjs -%}{%- endblock html_head_js_mermaidjs -%}
{%- block html_head_js_mathjax -%}
<script type="text/x-mathjax-config">
MathJax.Hub.Config({
  jax: ["input/TeX", "output/HTML-CSS"],
  extensions: ["tex2jax.js", "MathEvents.js", "MathMenu.js", "MathZoom.js", "Safe.js"],
  TeX: {extensions: ["AMSmath.js", "AMSsymbols.js", "noErrors.js", "noUndefined.js"],
        equationNumbers: {autoNumber: "AMS", useLabelIds: true}},
  tex2jax: {inlineMath: [["$", "$"], ["\\(", "\\)"]], displayMath: [["$$", "$$"], ["\\[", "\\]"]],
            processEscapes: true, processEnvironments: true},
  displayAlign: "center",
  messageStyle: "none",
  showMathMenu: true,
  "fast-preview": {disabled: true},
  menuSettings: {CHTMLpreview: false},
  "HTML-CSS": {availableFonts: [], preferredFont: null, webFont: "STIX-Web", imageFont: null,
               linebreaks: {automatic: true}}
});
</script>
<script src="{{ resources.mathjax_url }}"></script>
<style>
/* the hidden MathML copy kept for screen readers would ask for MathJax's TeX fonts, which the package lacks */
.MJX_Assistive_MathML, .MJX_Assistive_MathML * { font-family: serif !important; }
</style>
{%- endblock html_head_js_mathjax -%}
"""


def mathjax_source() -> Path:
    """The ``static/`` folder of the installed ``jupyter-server-mathjax`` package (MathJax 2.7)."""
    import jupyter_server_mathjax

    return Path(jupyter_server_mathjax.__file__).parent / "static"


def copy_mathjax(static: Path) -> Path:
    """Copy :data:`MATHJAX_PARTS` into ``static/mathjax/`` (once: a complete copy is kept) and return that folder.

    The copy is made beside it and renamed into place, so the folder is whole or absent.
    """
    from importlib.metadata import version

    target = Path(static) / "mathjax"
    stamp = f"jupyter-server-mathjax {version('jupyter-server-mathjax')}\n" + "\n".join(MATHJAX_PARTS) + "\n"
    if _complete(target, stamp):
        return target
    source = mathjax_source()
    target.parent.mkdir(parents=True, exist_ok=True)
    made = Path(tempfile.mkdtemp(prefix=".mathjax-", dir=target.parent))
    try:
        for part in MATHJAX_PARTS:
            origin, copy = source / part, made / part
            copy.parent.mkdir(parents=True, exist_ok=True)
            if origin.is_dir():
                shutil.copytree(origin, copy)
            else:
                shutil.copy2(origin, copy)
        (made / ".complete").write_text(stamp, encoding="utf-8")
        if target.exists():
            shutil.rmtree(target)
        try:
            os.replace(made, target)
        except OSError:  # another build put its copy there first
            if not _complete(target, stamp):
                raise
    finally:
        shutil.rmtree(made, ignore_errors=True)
    return target


def _complete(target: Path, stamp: str) -> bool:
    marker = target / ".complete"
    return marker.is_file() and marker.read_text(encoding="utf-8") == stamp


def static_folder(out: Path) -> Path:
    """Where the pages a build writes under ``out`` find MathJax: ``build/static/`` for a build into ``build/``
    or a folder in it (both editions share one copy), else ``out/static/`` (a build elsewhere stands alone)."""
    from ..core.paths import build_dir

    out, root = Path(out).absolute(), build_dir().absolute()
    return root / "static" if out == root or root in out.parents else out / "static"


def render_page(notebook, page: Path, static: Path, edition: str = "en") -> str:
    """The HTML of an executed notebook that will be saved as ``page``, with MathJax from ``static/mathjax/``
    (copied there if it is not yet) and its widgets drawn in their final state; nothing is fetched from the
    network. The page is one of ``edition``'s on the site whose files are in ``static/site/``
    (:mod:`course.teaching.site`). ``notebook`` is left as it was."""
    import copy

    from jinja2 import DictLoader
    from nbconvert import HTMLExporter

    from .site import relative_url, with_site

    mathjax = copy_mathjax(static) / "MathJax.js"
    exporter = HTMLExporter(template_name="lab", template_file="course_offline.html.j2",
                            extra_loaders=[DictLoader({"course_offline.html.j2": OFFLINE_TEMPLATE})],
                            mathjax_url=f"{relative_url(mathjax, page)}?config={MATHJAX_CONFIG}")
    body, _ = exporter.from_notebook_node(static_widgets(copy.deepcopy(notebook)))
    return with_site(compact_frames(body), page, static, edition, Path(page).stem)


_DOUBLE_QUOTED_FRAME = re.compile(r'<iframe srcdoc="([^"]*)"')


def compact_frames(page: str) -> str:
    """The page with every ``<iframe srcdoc="...">`` quoted with ``'`` instead, escaping only ``&`` and ``'``.

    nbconvert writes an output's HTML out again in double quotes, which escapes every ``"``, ``<`` and ``>``
    of a framed page (a Bokeh map: its JavaScript is full of them) and makes it a third larger; the
    attribute's value, what the frame shows, is the same either way."""
    def single_quoted(match: re.Match) -> str:
        inner = html.unescape(match.group(1)).replace("&", "&amp;").replace("'", "&#39;")
        return f"<iframe srcdoc='{inner}'"

    return _DOUBLE_QUOTED_FRAME.sub(single_quoted, page)


# ------------------------------------------------------------------ widgets in their final state


def static_widgets(notebook):
    """Replace each widget view among the outputs by HTML drawn from the widget state saved with the notebook
    (boxes, labels, HTML and progress bars; any other widget keeps its plain-text form), and drop the saved
    state, so that the page loads no widget manager. Returns ``notebook``, changed in place."""
    saved = notebook.metadata.pop("widgets", {}).get(WIDGET_STATE, {}).get("state", {})
    for cell in notebook.cells:
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            if WIDGET_VIEW not in data:
                continue
            drawn = _widget_html(data.pop(WIDGET_VIEW).get("model_id"), saved)
            if drawn is not None:
                data["text/html"] = f"<div class='course-widget'>{drawn}</div>"
    return notebook


_BAR_COLOURS = {"success": "#5cb85c", "info": "#5bc0de", "warning": "#f0ad4e", "danger": "#d9534f"}


def _widget_html(model_id: str | None, saved: dict) -> str | None:
    model = saved.get(model_id or "")
    if model is None:
        return None
    name, state = model.get("model_name", ""), model.get("state", {})
    if name in ("HBoxModel", "VBoxModel", "BoxModel"):
        children = [_widget_html(str(child).removeprefix("IPY_MODEL_"), saved) for child in state.get("children", [])]
        if any(child is None for child in children):
            return None
        direction = "column" if name == "VBoxModel" else "row"
        return (f"<div style='display:flex;flex-direction:{direction};align-items:center;gap:0.5em'>"
                + "".join(children) + "</div>")
    if name in ("HTMLModel", "HTMLMathModel"):
        return f"<span>{state.get('value', '')}</span>"
    if name == "LabelModel":
        return f"<span>{html.escape(str(state.get('value', '')))}</span>"
    if name in ("FloatProgressModel", "IntProgressModel"):
        low, high, value = (float(state.get(key) or 0) for key in ("min", "max", "value"))
        share = min(max((value - low) / (high - low), 0.0), 1.0) if high > low else 0.0
        colour = _BAR_COLOURS.get(state.get("bar_style") or "", "#2196f3")
        return (f"<span role='progressbar' aria-valuemin='{low:g}' aria-valuemax='{high:g}' aria-valuenow='{value:g}' "
                f"style='display:inline-block;width:20em;height:1em;background:#eee'>"
                f"<span style='display:block;height:100%;width:{100 * share:.1f}%;background:{colour}'></span></span>")
    return None


# ------------------------------------------------------------------ what a page would fetch

_NETWORK = re.compile(r"^\s*(?:https?:)?//", re.IGNORECASE)
_CSS_URL = re.compile(r"""@import\s+(?:url\(\s*)?["']?([^"')\s;]+)|url\(\s*["']?([^"')\s]+)""", re.IGNORECASE)
_FETCHED = {"src", "href", "xlink:href", "srcset", "poster", "data", "background"}
_LINKS = {"a", "area"}  # a link the reader follows, not something the page loads


def external_references(page: str) -> list[str]:
    """Every URL on the HTML ``page`` that a browser would fetch from the network, in the order they appear:
    ``src``/``href`` (and ``srcset``, ``poster``, ``data``) of scripts, stylesheets, fonts, frames and images
    that start with ``http:``, ``https:`` or ``//``; ``@import`` and ``url(...)`` in style sheets and ``style``
    attributes; and the same inside the page of an ``<iframe srcdoc>``. Links of ``<a>`` and ``<area>`` (to a
    paper, say) are not fetched and not listed; ``data:`` URLs and relative paths are not either.

    What a script fetches once it runs is not seen here (a browser sees it: ``tests/test_pages.py``)."""
    finder = _ReferenceFinder()
    finder.feed(page)
    finder.close()
    return finder.found


class _ReferenceFinder(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.found: list[str] = []
        self._inside: str | None = None

    def _add(self, url: str) -> None:
        if _NETWORK.match(url):
            self.found.append(url.strip())

    def handle_starttag(self, tag, attrs):
        self._inside = tag if tag in ("script", "style") else None
        for name, value in attrs:
            if value is None:
                continue
            if name == "style":
                self._css(value)
            elif name == "srcdoc":
                self.found.extend(external_references(value))
            elif name == "srcset":
                for candidate in value.split(","):
                    if candidate.strip():
                        self._add(candidate.split()[0])
            elif name in _FETCHED and not (name in ("href", "xlink:href") and tag in _LINKS):
                self._add(value)

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        self._inside = None

    def handle_endtag(self, tag):
        self._inside = None

    def handle_data(self, data):
        if self._inside == "style":
            self._css(data)

    def _css(self, text: str) -> None:
        for match in _CSS_URL.finditer(text):
            self._add(match.group(1) or match.group(2))
