"""The built pages as one site a reader browses from the disk (``file://``), with nothing fetched from the network.

Each page a build writes (a notebook's, :mod:`course.teaching.pages`, and each edition's ``index.html``) carries
a few ``<meta>`` tags (its edition, its stem, the site's root relative to it) and loads two files of the package
(``site_files/site.css`` and ``site_files/site.js``, copied into ``static/site/``). At the end of each build
:func:`write_site` reads every page of both editions under the site's root (``build/notebooks/*.html`` and
``build/zh/notebooks/*.html``) and writes beside those files

- ``pages.js``: each edition's notebooks in order, with their titles and sections (the ``h2`` headings and
  their ids), from which the script draws the sidebar, previous and next, the switch to the same notebook in
  the other edition and the index's list of both editions;
- ``search.js``: the text of every section of every page (markdown and code, not outputs), loaded by a
  ``<script>`` tag the first time the reader types into the search box: a browser does not let a page
  ``fetch()`` a file beside it, and a script tag works from the disk. A query matches a section that holds
  each of its words (split at spaces) as a substring, so a Chinese query needs no word boundaries;
- ``cjk.woff``: Noto Sans CJK SC (the font ``mplfonts`` ships, which the figures use) cut down with fontTools
  to the CJK characters the pages hold (about 1,400 for the whole course: 0.4 MB of the font's 16 MB), so
  that Chinese in text, code and tables renders where the system has no CJK font. It is made again only when
  those characters change.

Each page is written with the site's files it needs in place; a page built before the other edition's shows
that edition's notebooks from the next build of either on.
"""

from __future__ import annotations

import hashlib
import html
import json
import os
import re
import shutil
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import quote

from ..core.io import atomic_path

SITE_FILES = Path(__file__).parent / "site_files"
ASSETS = ("site.css", "site.js")
FONT_NAME = "cjk.woff"
FONT_SOURCE = "NotoSansCJKsc-Regular.otf"  # in mplfonts/fonts/
#: The characters the served font covers when the pages hold them (its CSS ``unicode-range`` is the same):
#: CJK radicals, punctuation, kana, the unified ideographs and their extensions, compatibility forms,
#: full-width forms.
CJK = re.compile("[\u2e80-\u9fff\uf900-\ufaff\ufe30-\ufe4f\uff00-\uffef\U00020000-\U0002fa1f]")
EDITION_PAGES = {"en": Path("notebooks"), "zh": Path("zh") / "notebooks"}
EDITION_INDEX = {"en": Path("index.html"), "zh": Path("zh") / "index.html"}



def relative_url(path: Path, page: Path) -> str:
    """The URL of ``path`` relative to the folder of ``page`` (both on the file system)."""
    return quote(Path(os.path.relpath(Path(path).absolute(), Path(page).absolute().parent)).as_posix())


def site_root(static: Path) -> Path:
    """The site's root: the folder holding ``static/`` (``build/`` for the course's own build)."""
    return Path(static).parent


def site_head(page: Path, static: Path, edition: str, stem: str = "") -> str:
    """What a page saved as ``page`` carries in its ``<head>`` to be part of the site whose files are in ``static``:
    its edition, its notebook (``stem``; empty for an index) and the root, the style sheet and the scripts."""
    folder = Path(static) / "site"
    root = relative_url(site_root(static), page)  # the root, relative to the page's folder
    meta = (f"<meta name='course-edition' content='{html.escape(edition)}'>"
            f"<meta name='course-notebook' content='{html.escape(stem)}'>"
            f"<meta name='course-root' content='{html.escape(root)}/'>")
    scripts = "".join(f"<script defer src='{relative_url(folder / name, page)}'></script>"
                      for name in ("pages.js", "site.js"))
    return f"{meta}<link rel='stylesheet' href='{relative_url(folder / 'site.css', page)}'>{scripts}"


def with_site(page_html: str, page: Path, static: Path, edition: str, stem: str = "") -> str:
    """``page_html`` with :func:`site_head` before its ``</head>`` and its ``lang`` set to ``edition``; the files
    it loads are put into ``static/site/`` (:func:`install_site_files`)."""
    install_site_files(static)
    head = site_head(page, static, edition, stem)
    at = page_html.find("</head>")
    if at < 0:
        raise ValueError("the page has no </head>")
    page_html = page_html[:at] + head + "\n" + page_html[at:]
    lang = "zh-Hans" if edition == "zh" else "en"
    return re.sub(r"<html([^>]*?)\slang=(['\"])[^'\"]*\2", rf"<html\1 lang='{lang}'", page_html, count=1)


# ------------------------------------------------------------------ what a page holds


class _PageReader(HTMLParser):
    """A notebook page's title, its sections (``h1`` and ``h2`` with an id start one) and each section's text:
    markdown and code as the reader sees them, without outputs, prompts, scripts, styles or anchor marks."""

    VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
    SKIPPED = ("jp-OutputArea", "jp-InputPrompt", "jp-OutputPrompt", "anchor-link")
    BLOCKS = {"p", "div", "li", "pre", "td", "th", "tr", "blockquote", "h3", "h4", "h5", "h6", "dt", "dd"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.sections: list[dict] = []
        self._stack: list[tuple[str, bool]] = []
        self._heading: dict | None = None

    def _skipping(self) -> bool:
        return any(skip for _, skip in self._stack)

    def handle_starttag(self, tag, attrs):
        if tag in self.VOID:
            return
        attributes = dict(attrs)
        classes = (attributes.get("class") or "").split()
        skip = tag in ("script", "style", "iframe", "svg", "head") or any(name in classes for name in self.SKIPPED)
        self._stack.append((tag, skip))
        if tag in self.BLOCKS and self.sections:  # "Heading" and "Text" are two words, not "HeadingText"
            self.sections[-1]["text"].append(" ")
        if tag in ("h1", "h2") and attributes.get("id") and not self._skipping():
            self._heading = {"id": attributes["id"], "level": int(tag[1]), "title": "", "text": []}
            self.sections.append(self._heading)

    def handle_endtag(self, tag):
        for depth in range(len(self._stack) - 1, -1, -1):
            if self._stack[depth][0] == tag:
                del self._stack[depth:]
                break
        if tag in ("h1", "h2") and self._heading is not None:
            self._heading["title"] = " ".join(self._heading["title"].split())
            self._heading = None

    def handle_data(self, data):
        if self._skipping() or not self.sections:
            return
        if self._heading is not None:  # a section's heading is its title, searched as such
            self._heading["title"] += data
        else:
            self.sections[-1]["text"].append(data)


def read_page(page_html: str) -> dict:
    """The title of a notebook page (its first ``h1``), its sections (``h2``: id and title) and the search
    records of its sections (id, title, text), from the HTML nbconvert wrote."""
    reader = _PageReader()
    reader.feed(page_html)
    reader.close()
    sections = reader.sections
    title = next((s["title"] for s in sections if s["level"] == 1), "")
    records = [{"id": s["id"], "title": s["title"], "text": " ".join("".join(s["text"]).split())}
               for s in sections]
    return {"title": title, "sections": [[s["id"], s["title"]] for s in sections if s["level"] == 2],
            "records": records}


def _meta(page_html: str, name: str) -> str | None:
    match = re.search(rf"<meta name='course-{name}' content='([^']*)'>", page_html)
    return html.unescape(match.group(1)) if match else None


def site_pages(root: Path) -> dict[str, list[tuple[Path, str]]]:
    """The notebook pages of each edition under ``root`` that belong to the site (they carry its ``<meta>``),
    in the notebooks' order, with their HTML."""
    found: dict[str, list[tuple[Path, str]]] = {"en": [], "zh": []}
    for folder in dict.fromkeys(Path(root) / folder for folder in EDITION_PAGES.values()):
        for page in sorted(folder.glob("[0-9][0-9]_*.html")):
            text = page.read_text(encoding="utf-8")
            edition = _meta(text, "edition")
            if edition in found:
                found[edition].append((page, text))
    return {edition: sorted(pages, key=lambda found: found[0].name) for edition, pages in found.items()}


# ------------------------------------------------------------------ the site's files


def install_site_files(static: Path) -> Path:
    """Put the style sheet and the script into ``static/site/`` (where they differ from the package's), and an
    empty ``pages.js`` and ``search.js`` where there are none yet, so that a page written before the build's end
    finds every file it loads. Returns that folder."""
    folder = Path(static) / "site"
    folder.mkdir(parents=True, exist_ok=True)
    for name in ASSETS:
        target = folder / name
        if not target.is_file() or target.read_bytes() != (SITE_FILES / name).read_bytes():
            with atomic_path(target) as temporary:
                shutil.copyfile(SITE_FILES / name, temporary)
    for name, variable, empty in (("pages.js", "COURSE_SITE", {"editions": {}}), ("search.js", "COURSE_SEARCH", [])):
        if not (folder / name).is_file():
            _write_script(folder / name, variable, empty)
    if not (folder / FONT_NAME).is_file():  # the script's own Chinese ("中文" on the switch), until write_site
        write_font(set(), folder / FONT_NAME)
    return folder


def write_site(static: Path, font: bool = True) -> dict:
    """Write the site's files into ``static/site/`` for the pages now under its root (:func:`site_root`): the
    style sheet and script, ``pages.js``, ``search.js`` and, with ``font``, the CJK font cut to the characters
    the pages and the script hold. Returns what ``pages.js`` holds."""
    root, folder = site_root(static), install_site_files(static)
    editions, records, characters = {}, [], set()
    indexes = {}
    for index in dict.fromkeys(root / path for path in EDITION_INDEX.values()):  # an index says which it is
        if index.is_file():
            text = index.read_text(encoding="utf-8")
            characters.update(CJK.findall(text))
            indexes.setdefault(_meta(text, "edition"), index.relative_to(root).as_posix())
    for edition, pages in site_pages(root).items():
        listed = []
        for page, text in pages:
            read = read_page(text)
            characters.update(CJK.findall(text))
            url = page.relative_to(root).as_posix()
            listed.append({"stem": page.stem, "title": read["title"] or page.stem, "url": url,
                           "sections": read["sections"]})
            records += [[edition, len(listed) - 1, r["id"], r["title"], r["text"]] for r in read["records"]]
        editions[edition] = {"index": indexes.get(edition), "pages": listed}
    data = {"editions": editions}
    _write_script(folder / "pages.js", "COURSE_SITE", data)
    _write_script(folder / "search.js", "COURSE_SEARCH", records)
    if font:
        write_font(characters, folder / FONT_NAME)
    return data


def _write_script(path: Path, name: str, value) -> None:
    # "</" and the line separators written out, so that the file is a script whatever the text holds
    encoded = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    encoded = encoded.replace("</", "<\\/").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
    with atomic_path(path) as temporary:
        temporary.write_text(f"window.{name} = {encoded};\n", encoding="utf-8")


def font_source() -> Path | None:
    """Noto Sans CJK SC as the installed ``mplfonts`` ships it, or None without it."""
    try:
        import mplfonts
    except ImportError:
        return None
    path = Path(mplfonts.__file__).parent / "fonts" / FONT_SOURCE
    return path if path.is_file() else None


def write_font(characters: set[str], target: Path) -> Path | None:
    """Write ``target``, a WOFF of :func:`font_source` holding only ``characters`` and those of the site's
    script (and the glyphs their shaping needs), unless the one there was cut from the same font for the same
    characters. Returns it, or None when there is no font to cut (the pages then show CJK in whatever font the
    system has)."""
    characters = set(characters) | set(CJK.findall((SITE_FILES / "site.js").read_text(encoding="utf-8")))
    source = font_source()
    if source is None:
        print("note: mplfonts is not installed: the pages' Chinese shows in the system's fonts (boxes "
              "where it has none)", flush=True)
        return None
    wanted = "".join(sorted(characters))
    stamp = hashlib.sha256(f"{source.name} {source.stat().st_size}\n{wanted}".encode()).hexdigest()
    marker = target.with_name(target.name + ".sha256")
    if target.is_file() and marker.is_file() and marker.read_text(encoding="utf-8").strip() == stamp:
        return target
    from fontTools import subset
    from fontTools.ttLib import TTFont

    options = subset.Options()
    options.flavor = "woff"
    options.hinting = False
    font = TTFont(source, lazy=True)
    cutter = subset.Subsetter(options)
    cutter.populate(text=wanted)
    cutter.subset(font)
    with atomic_path(target) as temporary:
        font.save(temporary)
    with atomic_path(marker) as temporary:
        temporary.write_text(stamp + "\n", encoding="utf-8")
    return target
