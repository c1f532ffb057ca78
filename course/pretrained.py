"""Models trained at scale by their publishers, fetched once into the course's cache and stored in the
course's formats: an ELMo as a course biLM file, static vectors as a word2vec binary file.

    python -m course pretrained list
    python -m course pretrained get small            # allennlp's ELMo, 2x1024_128_2048cnn_1xhighway
    python -m course pretrained get glove-6b-100     # through gensim's downloader
    python -m course pretrained get fasttext-zh --limit 200000

Where each comes from and what is checked:

- **ELMo** (``small``, ``medium``, ``original``, ``original-5.5b``): bilm-tf's ``options.json`` and
  ``weights.hdf5`` from allennlp's public model storage. allennlp publishes no checksums: each file's
  size is checked against the server's ``Content-Length``, a cut download is resumed, and the
  conversion (:mod:`course.elmo.bilm_tf`) checks every dataset's shape against the options.
- **GloVe 6B and word2vec GoogleNews** through gensim's own downloader (``gensim.downloader``),
  which checks each file's MD5 against gensim-data's list; the vectors are then written, the
  first ``limit`` (most frequent) words, as a word2vec binary file.
- **fastText's Chinese vectors** (``cc.zh.300.vec.gz``, Grave et al., 2018): a text file sorted by
  frequency, 2 million words. It is read as a stream and stopped after the first ``limit`` words,
  so most of it is never downloaded, and fastText publishes no checksum for it: what is checked is
  the header (``words dimensions``), that each of those lines has a word and 300 finite numbers,
  and that no word comes twice; what is not is the rest of the file.

Everything goes under ``<cache>/pretrained/`` (:func:`course.core.paths.cache_dir`), written whole or not at
all. ``COURSE_PRETRAINED_MIRROR`` replaces every publisher's address by one URL holding the same files
under ``allennlp/models/elmo/...``, ``gensim-data/...`` and ``fasttext/...`` (:func:`source_url`): a
class's own server, or the tests' local one.
"""

from __future__ import annotations

import gzip
import json
import os
import sys
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .core.errors import ChecksumError, DownloadError, SettingError
from .core.io import atomic_path
from .core.paths import cache_dir

MIRROR = "COURSE_PRETRAINED_MIRROR"
PUBLISHERS = {  # the first part of each source's path -> where its publisher keeps it
    "allennlp": "https://s3-us-west-2.amazonaws.com/allennlp",
    "gensim-data": "https://github.com/RaRe-Technologies/gensim-data",
    "gensim-data-list": "https://raw.githubusercontent.com/RaRe-Technologies/gensim-data/master/list.json",
    "fasttext": "https://dl.fbaipublicfiles.com/fasttext",
}
ONE_BILLION = "1 Billion Word Benchmark (about 800 million tokens of news)"


@dataclass(frozen=True)
class Pretrained:
    """One published model: ``kind`` is ``"elmo"``, ``"gensim"`` or ``"fasttext"``; ``source`` the
    ELMo's folder, gensim-data's name or fastText's file; ``limit`` the words kept of static vectors."""

    name: str
    kind: str
    source: str
    language: str
    corpus: str
    licence: str
    size: str
    limit: int | None = None

    @property
    def path(self) -> Path:
        """Where the course keeps it once fetched."""
        return pretrained_dir() / f"{self.name}{'.pt' if self.kind == 'elmo' else '.bin'}"


CATALOGUE = {model.name: model for model in [
    Pretrained("small", "elmo", "2x1024_128_2048cnn_1xhighway", "en", ONE_BILLION, "Apache-2.0",
               "13.6M weights, about 55 MB"),
    Pretrained("medium", "elmo", "2x2048_256_2048cnn_1xhighway", "en", ONE_BILLION, "Apache-2.0",
               "28.0M weights, about 112 MB"),
    Pretrained("original", "elmo", "2x4096_512_2048cnn_2xhighway", "en", ONE_BILLION, "Apache-2.0",
               "93.6M weights, about 375 MB"),
    Pretrained("original-5.5b", "elmo", "2x4096_512_2048cnn_2xhighway_5.5B", "en",
               "Wikipedia (1.9 billion tokens) and WMT 2008-2012 news (3.6 billion)", "Apache-2.0",
               "93.6M weights, about 375 MB"),
    Pretrained("glove-6b-100", "gensim", "glove-wiki-gigaword-100", "en",
               "Wikipedia 2014 and Gigaword 5 (6 billion tokens)", "PDDL", "400,000 words x 100, 128 MB download"),
    Pretrained("glove-6b-300", "gensim", "glove-wiki-gigaword-300", "en",
               "Wikipedia 2014 and Gigaword 5 (6 billion tokens)", "PDDL", "400,000 words x 300, 376 MB download"),
    Pretrained("word2vec-google-news", "gensim", "word2vec-google-news-300", "en",
               "Google News (about 100 billion tokens)", "not stated by the publisher",
               "3 million words x 300, 1.66 GB download; the first 1,000,000 kept", limit=1_000_000),
    Pretrained("fasttext-zh", "fasttext", "vectors-crawl/cc.zh.300.vec.gz", "zh",
               "Common Crawl and Wikipedia, Chinese", "CC BY-SA 3.0",
               "2 million words x 300, about 1.3 GB; read until the first 200,000 words", limit=200_000),
]}


def pretrained_dir() -> Path:
    """``<cache>/pretrained/``: where fetched models are kept."""
    return cache_dir() / "pretrained"


def source_url(path: str) -> str:
    """The URL of ``path`` (``"allennlp/models/elmo/..."``, ``"fasttext/..."``): at its publisher, or
    under ``COURSE_PRETRAINED_MIRROR`` where that is set."""
    mirror = os.environ.get(MIRROR, "").strip().rstrip("/")
    if mirror:
        return f"{mirror}/{path}"
    head, _, rest = path.partition("/")
    return f"{PUBLISHERS[head]}/{rest}" if rest else PUBLISHERS[head]


def model(name: str) -> Pretrained:
    """The catalogue's entry ``name``.

    Raises:
        SettingError: no such model (the line lists them).
    """
    if name not in CATALOGUE:
        raise SettingError(f"no pretrained model {name!r}: choose one of {', '.join(CATALOGUE)} "
                           "(python -m course pretrained list)")
    return CATALOGUE[name]


def cached(name: str) -> Path | None:
    """The file of ``name`` if it has been fetched, else None."""
    path = model(name).path
    return path if path.is_file() else None


def fetch_hint(name: str) -> str:
    """One line saying how to fetch ``name`` and how large it is."""
    entry = model(name)
    return f"python -m course pretrained get {name} ({entry.size})"


def get(name: str, limit: int | None = None, progress: bool = True, replace: bool = False) -> Path:
    """Fetch the published model ``name`` into the cache in the course's format, once; its path.

    ``limit``: static vectors: keep the first (most frequent) this many words (default: the
    catalogue's, or all). ``replace``: fetch and convert again even if it is there.

    Raises:
        SettingError: an unknown name or a limit below 1.
        DownloadError, ChecksumError: the download failed or its bytes are not what was published.
        ModelFileError, VectorsFileError: what arrived is not a model of that kind.
    """
    entry = model(name)
    if limit is not None and limit < 1:
        raise SettingError(f"--limit must be at least 1, got {limit}")
    if entry.kind == "elmo" and limit is not None:
        raise SettingError(f"--limit is for static vectors; {name} is an ELMo")
    if entry.path.is_file() and not replace and limit is None:
        return entry.path
    if entry.kind == "elmo":
        return _get_elmo(entry, progress)
    if entry.kind == "gensim":
        return _get_gensim(entry, limit or entry.limit, progress)
    return _get_fasttext(entry, limit or entry.limit, progress)


def _server_size(url: str) -> int | None:
    """The ``Content-Length`` a server gives for ``url`` (a HEAD request), or None."""
    try:
        with urllib.request.urlopen(urllib.request.Request(url, method="HEAD"), timeout=60) as response:
            length = response.headers.get("Content-Length")
    except (urllib.error.URLError, OSError) as exc:
        raise DownloadError(f"could not reach {url} ({getattr(exc, 'reason', exc)}); check the network") from None
    return int(length) if length and length.isdigit() else None


def _get_elmo(entry: Pretrained, progress: bool) -> Path:
    from .elmo.bilm_tf import convert
    from .text.download import RemoteFile, fetch

    folder = pretrained_dir() / "downloads" / entry.name
    files = {}
    for part in ("options.json", "weights.hdf5"):
        url = source_url(f"allennlp/models/elmo/{entry.source}/elmo_{entry.source}_{part}")
        remote = RemoteFile(url, part, size=_server_size(url), resumable=True)
        files[part] = fetch(remote, folder, progress=progress)
    model = convert(files["options.json"], files["weights.hdf5"], name=f"elmo-{entry.name}")
    model.save(entry.path)
    return entry.path


def _get_gensim(entry: Pretrained, limit: int | None, progress: bool) -> Path:
    import functools
    import logging

    import gensim.downloader as api
    from gensim.models import KeyedVectors

    from .analysis.vectors import save_vectors

    # gensim's downloader keeps its folder and addresses in module globals; its list's address is also the
    # default of the function that reads it, which is therefore pointed at the same place
    mirrored = bool(os.environ.get(MIRROR, "").strip())
    before = {name: getattr(api, name) for name in ("BASE_DIR", "DATA_LIST_URL", "DOWNLOAD_BASE_URL", "_load_info")}
    api.BASE_DIR = str(pretrained_dir() / "gensim-data")
    api.DATA_LIST_URL = source_url("gensim-data/list.json") if mirrored else PUBLISHERS["gensim-data-list"]
    api.DOWNLOAD_BASE_URL = source_url("gensim-data/releases/download") if mirrored else \
        f"{PUBLISHERS['gensim-data']}/releases/download"
    api._load_info = functools.partial(before["_load_info"], url=api.DATA_LIST_URL)

    quiet = logging.getLogger("gensim.downloader")
    level = quiet.level
    quiet.setLevel(logging.CRITICAL)  # its list is fetched anew each time; a failure is told in one line below
    try:
        path = api.load(entry.source, return_path=True)
    except urllib.error.ContentTooShortError as exc:
        raise ChecksumError(f"{entry.source}: the download was cut short ({exc}); nothing was kept, "
                            "try again") from None
    except (urllib.error.URLError, OSError) as exc:
        raise DownloadError(f"could not download {entry.source} through gensim's downloader "
                            f"({getattr(exc, 'reason', exc)}); check the network") from None
    except ValueError as exc:
        raise DownloadError(f"{entry.source}: gensim's downloader could not read its list of models ({exc})") from None
    except Exception as exc:  # noqa: BLE001 - gensim raises a bare Exception when the MD5 differs
        if "Checksum" in str(exc):
            raise ChecksumError(f"{entry.source}: the MD5 of the download does not match gensim-data's; nothing was "
                                "kept, try again") from None
        raise
    finally:
        quiet.setLevel(level)
        for name, value in before.items():  # gensim's downloader as it was, for whoever uses it next
            setattr(api, name, value)
    vectors = KeyedVectors.load_word2vec_format(path, binary=entry.source.startswith("word2vec"), limit=limit)
    save_vectors(vectors, entry.path, binary=True)
    return entry.path


def _get_fasttext(entry: Pretrained, limit: int, progress: bool) -> Path:
    from .analysis.vectors import keyed_vectors, save_vectors
    from .core.progress import progress_bar

    url = source_url(f"fasttext/{entry.source}")
    try:
        response = urllib.request.urlopen(url, timeout=60)
    except (urllib.error.URLError, OSError) as exc:
        raise DownloadError(f"could not download {url} ({getattr(exc, 'reason', exc)}); check the network") from None

    words, vectors = [], []
    try:
        with response, gzip.open(response, "rt", encoding="utf-8") as lines:  # a stalled read times out (60 s)
            header = lines.readline().split()
            if len(header) != 2 or not all(part.isdigit() for part in header):
                raise ChecksumError(f"{url}: the first line is not 'words dimensions'; not a fastText .vec file")
            total, dim = int(header[0]), int(header[1])
            seen: set[str] = set()
            with progress_bar(total=min(limit, total), unit="word", desc=entry.name, disable=not progress) as bar:
                for number, line in enumerate(lines, start=2):
                    fields = line.rstrip("\n").rstrip(" ").split(" ")
                    values = np.asarray(fields[1:], dtype=np.float32) if len(fields) == dim + 1 else None
                    if values is None or not np.isfinite(values).all() or not fields[0] or fields[0] in seen:
                        raise ChecksumError(f"{url}, line {number:,}: not a word and {dim} finite numbers, or a word "
                                            "seen before; the file is damaged")
                    seen.add(fields[0])
                    words.append(fields[0])
                    vectors.append(values)
                    bar.update(1)
                    if len(words) >= min(limit, total):
                        break
    except (EOFError, OSError, UnicodeDecodeError, ValueError) as exc:
        if isinstance(exc, DownloadError | ChecksumError):
            raise
        raise ChecksumError(f"{url}: the stream broke off or is not gzip'd UTF-8 text ({exc}); nothing was kept, "
                            "try again") from None
    if len(words) < min(limit, total):
        raise ChecksumError(f"{url}: the file ended after {len(words):,} words, its header says {total:,}; "
                            "nothing was kept, try again")
    save_vectors(keyed_vectors(words, np.stack(vectors)), entry.path, binary=True)
    _write_note(entry, {"source": url, "words": len(words), "of": total, "checked": "header, each line read, "
                        "distinct words; not the rest of the file"})
    return entry.path


def _write_note(entry: Pretrained, note: dict) -> None:
    with atomic_path(entry.path.with_suffix(".json")) as temporary:
        temporary.write_text(json.dumps(note, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def listing() -> list[dict]:
    """One row per catalogue entry: its name, kind, language, size, corpus, licence and where it is
    kept (None where it has not been fetched)."""
    return [{"name": entry.name, "kind": entry.kind, "language": entry.language, "size": entry.size,
             "corpus": entry.corpus, "licence": entry.licence,
             "path": str(entry.path) if entry.path.is_file() else None} for entry in CATALOGUE.values()]


def say_where(name: str, path: Path) -> None:
    """One line on standard error: what was fetched and where it is."""
    print(f"{name}: {path} ({path.stat().st_size / 1e6:,.1f} MB)", file=sys.stderr)
