import numpy as np
import pytest

from course.core.errors import (
    CorpusDecodeError,
    CorpusNotFoundError,
    EmptyCorpusError,
    SettingError,
    UnknownCorpusError,
)
from course.text import corpus as corpus_module
from course.text.corpus import export, from_sentences, load_corpus


def test_wiki_en_is_the_cleaned_gensim_sample(wiki):
    info = wiki.info()
    assert 20_000 < info["sentences"] < 30_000
    assert 400_000 < info["tokens"] < 520_000
    assert 8_000 < info["vocabulary_min_count_5"] < 11_000
    assert wiki.language == "en"
    words = set(wiki.types[:2000])
    assert {"the", "anarchism", "philosophy", "france"} <= words
    assert not any("[" in word or "|" in word or "=" in word for word in wiki.types)  # no wiki markup


def test_wiki_en_articles_is_the_glove_reference_input():
    import re

    from course.glove import cooccurrence_counts
    from course.text.vocab import Vocabulary

    articles = load_corpus("wiki-en-articles", progress=False)
    assert 100 <= articles.num_sentences <= 120 and 400_000 < articles.num_tokens < 500_000
    assert all(re.fullmatch(r"[^\W\d]{2,15}", word) and word == word.lower() for word in articles.types)
    assert np.diff(articles.offsets).min() >= 50  # WikiCorpus leaves out articles under 50 tokens
    # counted with the reference's settings, the pairs the reference pipeline reported: about 3.2M
    vocab = Vocabulary.from_corpus(articles, min_count=5, specials=())
    counts = cooccurrence_counts(*vocab.encode_corpus(articles), len(vocab), window=15)
    assert 3_150_000 < counts.nnz < 3_250_000


def test_peoples_daily_has_words_and_aligned_tags():
    corpus = load_corpus("peoples-daily-zh", progress=False)
    assert 900_000 < corpus.num_tokens < 1_000_000
    assert corpus.tag_ids is not None and len(corpus.tag_ids) == corpus.num_tokens
    first = next(corpus.tagged_sentences())
    assert first[:3] == [("迈向", "v"), ("充满", "v"), ("希望", "n")]
    assert "w" not in corpus.tag_types  # punctuation was dropped
    assert "包袱" in corpus.types


def test_types_are_sorted_by_frequency_and_ids_round_trip():
    corpus = from_sentences([["b", "a", "b"], ["c", "b", "a"]], name="toy")
    assert corpus.types == ["b", "a", "c"]
    assert list(corpus) == [["b", "a", "b"], ["c", "b", "a"]]
    assert corpus[1] == ["c", "b", "a"] and corpus[-1] == corpus[1]
    assert corpus.counts().tolist() == [3, 2, 1]
    assert corpus.head(1).types == ["b", "a"]
    with pytest.raises(IndexError):
        corpus[2]


def test_english_file_and_second_load_from_cache(tmp_path, private_cache):
    text = tmp_path / "story.txt"
    text.write_text("The cat sat on the mat. The dog sat too!\n\nA bird sang.\n", encoding="utf-8")
    first = load_corpus(text, progress=False)
    assert list(first) == [["the", "cat", "sat", "on", "the", "mat"], ["the", "dog", "sat", "too"],
                           ["a", "bird", "sang"]]
    cached = list((private_cache / "corpora").glob("*.npz"))
    assert len(cached) == 1
    second = load_corpus(text, progress=False)
    assert list(second) == list(first) and second.types == first.types
    text.write_text("Changed text here.\n", encoding="utf-8")
    assert list(load_corpus(text, progress=False)) == [["changed", "text", "here"]]


def test_chinese_folder_is_segmented_with_jieba(tmp_path, private_cache):
    folder = tmp_path / "zh"
    (folder / "sub").mkdir(parents=True)
    (folder / "a.txt").write_text("他背起包袱向远方走去。\n", encoding="utf-8")
    (folder / "sub" / "b.txt").write_text("相声演员抖了一个包袱，观众都笑了。\n", encoding="utf-8")
    (folder / ".hidden").write_text("ignored", encoding="utf-8")
    corpus = load_corpus(folder, progress=False)
    assert corpus.language == "zh" and corpus.num_sentences == 2
    assert "包袱" in corpus[0] and "包袱" in corpus[1]


def test_missing_unknown_empty_and_undecodable(tmp_path, private_cache):
    with pytest.raises(CorpusNotFoundError, match="no-such.txt: no such file"):
        load_corpus(tmp_path / "no-such.txt")
    with pytest.raises(UnknownCorpusError, match="unknown corpus 'wikipedia'"):
        load_corpus("wikipedia")
    empty = tmp_path / "empty.txt"
    empty.write_text("")
    with pytest.raises(EmptyCorpusError, match="empty.txt: is empty"):
        load_corpus(empty)
    punctuation = tmp_path / "dots.txt"
    punctuation.write_text("... !!! ???\n")
    with pytest.raises(EmptyCorpusError, match="no words"):
        load_corpus(punctuation)
    gbk = tmp_path / "gbk.txt"
    gbk.write_bytes("第一行\n".encode() + "中文".encode("gbk"))
    with pytest.raises(CorpusDecodeError, match=r"gbk.txt: not UTF-8 text \(byte 0x\w\w at offset 10, line 2\)"):
        load_corpus(gbk)
    empty_folder = tmp_path / "nothing"
    empty_folder.mkdir()
    with pytest.raises(EmptyCorpusError, match="holds no files"):
        load_corpus(empty_folder)
    assert not (private_cache / "corpora").exists() or not any((private_cache / "corpora").iterdir())


def test_failed_preprocessing_leaves_no_cache_file(tmp_path, private_cache, monkeypatch):
    text = tmp_path / "t.txt"
    text.write_text("Some words here.\n", encoding="utf-8")

    def broken_save(corpus, path, source):
        path.parent.mkdir(parents=True, exist_ok=True)
        with corpus_module.atomic_path(path) as temporary:
            temporary.write_bytes(b"half")
            raise KeyboardInterrupt  # the user pressed Ctrl-C while the cache was being written

    monkeypatch.setattr(corpus_module, "_save", broken_save)
    with pytest.raises(KeyboardInterrupt):
        load_corpus(text, progress=False)
    assert list((private_cache / "corpora").iterdir()) == []


def test_export_is_what_the_trainers_see(tmp_path, wiki):
    out = export(wiki.head(500), tmp_path / "out" / "wiki.txt")
    lines = out.read_text(encoding="utf-8").splitlines()
    assert lines == [" ".join(sentence) for sentence in wiki.head(500)]
    assert all("  " not in line and line == line.strip() for line in lines)


def test_fraction_takes_leading_sentences(wiki):
    half = wiki.fraction(0.5)
    assert half.num_sentences == round(wiki.num_sentences / 2)
    assert half[0] == wiki[0]
    assert np.all(half.counts() > 0)


def test_is_available_tells_what_loads_offline_without_downloading(tmp_path, private_cache, monkeypatch):
    def no_network(*args, **kwargs):
        raise AssertionError("is_available must not download")

    monkeypatch.setattr(corpus_module, "fetch", no_network)
    assert corpus_module.is_available("wiki-en")
    assert not corpus_module.is_available("text8")
    assert not corpus_module.is_available(tmp_path / "missing.txt")
    (tmp_path / "mine.txt").write_text("some text\n", encoding="utf-8")
    assert corpus_module.is_available(tmp_path / "mine.txt")
    downloads = private_cache / "downloads"
    downloads.mkdir(parents=True)
    (downloads / corpus_module.TEXT8.filename).write_bytes(b"")
    assert corpus_module.is_available("text8") and not corpus_module.is_available("wikitext-2")


def test_a_file_that_is_not_utf8_gets_advice_for_what_it_is(tmp_path, private_cache):
    files = {
        "latin1.txt": ("Le café et la crème brûlée.\n".encode("latin-1"), "Latin-1 or Windows-1252", "WINDOWS-1252"),
        "utf16.txt": ("A sentence in UTF-16.\n".encode("utf-16"), "UTF-16", "iconv -f UTF-16"),
        "utf16le.txt": ("No byte-order mark.\n".encode("utf-16-le"), "UTF-16", "iconv -f UTF-16"),
        "binary.dat": (bytes(range(256)) * 8, "binary file", "give a UTF-8 text file"),
        "gbk.txt": ("人民日报的新闻。\n".encode("gbk"), "GBK", "iconv -f GBK"),
    }
    for name, (raw, kind, advice) in files.items():
        (tmp_path / name).write_bytes(raw)
        with pytest.raises(CorpusDecodeError, match=f"{name}: not UTF-8 text") as caught:
            load_corpus(tmp_path / name)
        message = str(caught.value)
        assert kind in message and advice in message, message
        assert "GBK" not in message or name == "gbk.txt", message


# ------------------------------------------------------------------------------ a damaged cache

STORY = ("The cat sat on the mat. The dog sat too!\nA bird sang, and the cat and the dog listened.\n"
         "Then the bird flew over the mat and the dog.\n")


def _cached_story(tmp_path):
    """A text file, its corpus loaded once (so cached), and the cache file."""
    text = tmp_path / "story.txt"
    text.write_text(STORY, encoding="utf-8")
    fresh = load_corpus(text, progress=False)
    [path] = (tmp_path / "cache" / "corpora").glob("*.npz")
    return text, fresh, path


def _arrays(path):
    with np.load(path) as data:
        return {name: data[name] for name in data.files}


def _rewrite(path, **changes):
    """Write the cache file again with some arrays replaced, its header kept as it was."""
    arrays = {**_arrays(path), **changes}
    with open(path, "wb") as handle:
        np.savez(handle, **arrays)


def _rewrite_with_header(path, **changes):
    """Write the cache file again with some arrays replaced and a header that agrees with them, so
    that only the checks of the arrays against one another can tell."""
    import json

    from course.text.corpus_cache import write_cached

    arrays = _arrays(path)
    meta = json.loads(arrays.pop("meta").tobytes())
    write_cached(path, {**arrays, **changes}, {key: meta[key] for key in ("name", "language", "source")})


def _member_data(raw, name):
    """``(start, end)``: where the stored bytes of the zip member ``name`` lie in ``raw``."""
    import io
    import struct
    import zipfile

    with zipfile.ZipFile(io.BytesIO(bytes(raw))) as archive:
        member = archive.getinfo(name)
    name_length, extra_length = struct.unpack("<HH", raw[member.header_offset + 26:member.header_offset + 30])
    start = member.header_offset + 30 + name_length + extra_length
    return start, start + member.compress_size


def _damage(kind, path):
    arrays = _arrays(path)
    ids, offsets = arrays["token_ids"], arrays["offsets"]
    if kind == "empty file":
        path.write_bytes(b"")
    elif kind == "truncated zip":
        path.write_bytes(path.read_bytes()[:path.stat().st_size // 2])
    elif kind == "flipped byte":  # in the middle of the token ids' data: the zip's CRC tells
        raw = bytearray(path.read_bytes())
        start, end = _member_data(raw, "token_ids.npy")
        raw[(start + end) // 2] ^= 0xFF
        path.write_bytes(bytes(raw))
    elif kind == "cut token_ids":
        _rewrite(path, token_ids=ids[:10])
    elif kind == "cut token_ids and offsets, header to match":
        _rewrite_with_header(path, token_ids=ids[:10], offsets=offsets[offsets <= 10])
    elif kind == "out-of-range ids":
        _rewrite_with_header(path, token_ids=np.where(ids == 3, 10**9, ids).astype(np.int32))
    elif kind == "negative ids":
        _rewrite_with_header(path, token_ids=np.where(ids == 3, -5, ids).astype(np.int32))
    elif kind == "non-increasing offsets":  # from 0 to the last token, but back and forth on the way
        _rewrite_with_header(path, offsets=offsets[[0, 2, 1, *range(3, len(offsets))]])
    elif kind == "offsets past the tokens":
        _rewrite_with_header(path, offsets=offsets[::-1].copy())
    elif kind == "repeated offset":
        _rewrite_with_header(path, offsets=np.insert(offsets, 2, offsets[1]))
    elif kind == "wrong counts":  # every 'the' made the rarest type: the types are no longer most frequent first
        _rewrite_with_header(path, token_ids=np.where(ids == 0, ids.max(), ids).astype(np.int32))
    elif kind == "header counts":
        import json

        meta = json.loads(arrays["meta"].tobytes())
        meta["tokens"] += 1
        _rewrite(path, meta=np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8))
    elif kind == "wrong dtype":
        _rewrite(path, token_ids=ids.astype(np.int64))
    elif kind == "two-dimensional":
        _rewrite(path, offsets=offsets.reshape(1, -1))
    elif kind == "no header":  # as the course wrote its caches before they had one
        _rewrite(path, meta=np.frombuffer(b'{"name": "x", "language": "en"}', dtype=np.uint8))
    elif kind == "another source":
        other = path.parent.parent.parent / "other.txt"
        other.write_text("Quite another text.\n", encoding="utf-8")
        load_corpus(other, progress=False)
        [copy] = [p for p in path.parent.glob("*.npz") if p != path]
        copy.replace(path)
    else:
        raise ValueError(kind)


DAMAGE = ["empty file", "truncated zip", "flipped byte", "cut token_ids", "cut token_ids and offsets, header to match",
          "out-of-range ids", "negative ids", "non-increasing offsets", "offsets past the tokens", "repeated offset",
          "wrong counts", "header counts", "wrong dtype", "two-dimensional", "no header", "another source"]


@pytest.mark.parametrize("kind", DAMAGE)
def test_a_damaged_cache_is_rebuilt_with_a_note(kind, tmp_path, private_cache, capsys):
    text, fresh, path = _cached_story(tmp_path)
    capsys.readouterr()
    _damage(kind, path)
    healed = load_corpus(text, progress=False)
    note = capsys.readouterr().err.strip().splitlines()
    assert len(note) == 1 and note[0].startswith(f"note: the cached corpus {path} "), note
    assert note[0].endswith("rebuilding it from its source"), note
    assert (healed.name, healed.language, healed.types) == (fresh.name, fresh.language, fresh.types)
    assert np.array_equal(healed.token_ids, fresh.token_ids) and np.array_equal(healed.offsets, fresh.offsets)
    assert healed.token_ids.dtype == np.int32 and healed.offsets.dtype == np.int64
    again = load_corpus(text, progress=False)  # the cache is whole again: read without a note
    assert capsys.readouterr().err == "" and np.array_equal(again.token_ids, fresh.token_ids)


def test_the_note_says_what_is_wrong(tmp_path, private_cache, capsys):
    text, _, path = _cached_story(tmp_path)
    expected = {"empty file": "cannot be read", "cut token_ids": "its header says",
                "out-of-range ids": "token ids from 0 to 1,000,000,000", "offsets past the tokens": "offsets run from",
                "non-increasing offsets": "do not increase (sentence 1)",
                "repeated offset": "do not increase", "wrong counts": "counts do not match",
                "wrong dtype": "int64", "another source": "another source"}
    for kind, words in expected.items():
        _damage(kind, path)
        capsys.readouterr()
        load_corpus(text, progress=False)
        assert words in capsys.readouterr().err, kind


def test_a_damaged_tagged_cache_is_rebuilt(private_cache, capsys):
    fresh = load_corpus("peoples-daily-zh", progress=False)
    [path] = (private_cache / "corpora").glob("*.npz")
    tags = _arrays(path)["tag_ids"]
    _rewrite_with_header(path, tag_ids=np.where(tags == 0, 300, tags).astype(np.int16))
    capsys.readouterr()
    healed = load_corpus("peoples-daily-zh", progress=False)
    assert "tag ids outside" in capsys.readouterr().err
    assert np.array_equal(healed.tag_ids, fresh.tag_ids) and healed.tag_types == fresh.tag_types


def test_a_header_that_declares_a_huge_array_is_refused_before_it_is_read(tmp_path, private_cache, capsys):
    """A damaged ``.npy`` header asks for 8 TB: refused by its size in the zip, nothing allocated."""
    import zipfile

    text, fresh, path = _cached_story(tmp_path)
    arrays = _arrays(path)
    with zipfile.ZipFile(path, "w") as archive:
        for name, array in arrays.items():
            with archive.open(f"{name}.npy", "w") as handle:
                if name == "token_ids":
                    np.lib.format.write_array_header_1_0(handle, {"descr": "<i4", "fortran_order": False,
                                                                  "shape": (2 * 10**12,)})
                    handle.write(array.tobytes())
                else:
                    np.lib.format.write_array(handle, array)
    capsys.readouterr()
    healed = load_corpus(text, progress=False)
    assert "declares 8,000,000,000,000 bytes" in capsys.readouterr().err
    assert np.array_equal(healed.token_ids, fresh.token_ids)


def test_is_available_does_not_count_a_damaged_cache(private_cache, monkeypatch):
    def no_network(*args, **kwargs):
        raise AssertionError("is_available must not download")

    monkeypatch.setattr(corpus_module, "fetch", no_network)
    key, _ = corpus_module._named_source("wikitext-2")
    source = {"name": "wikitext-2", **key}
    path = corpus_module._cache_file("wikitext-2", source)
    path.parent.mkdir(parents=True)
    path.write_bytes(b"PK\x03\x04 cut short")
    assert not corpus_module.is_available("wikitext-2")
    corpus_module._save(from_sentences([["a", "b", "a"]], name="wikitext-2"), path, source)
    assert corpus_module.is_available("wikitext-2")


def test_damaged_course_vectors_are_trained_again(tmp_path, private_cache, monkeypatch, capsys):
    from course.analysis.vectors import keyed_vectors, save_vectors
    from course.shared.vectors import course_vectors, vectors_path

    monkeypatch.setenv("COURSE_BUILD", str(tmp_path / "build"))
    monkeypatch.chdir(tmp_path)
    (tmp_path / "story.txt").write_text(STORY * 20, encoding="utf-8")
    first = course_vectors("skipgram-neg", "story.txt", profile="smoke")
    path = vectors_path("skipgram-neg", "story.txt", profile="smoke")
    capsys.readouterr()
    for damage in ("cut short", "another size"):
        if damage == "cut short":
            path.write_bytes(path.read_bytes()[:path.stat().st_size // 2])
        else:
            save_vectors(keyed_vectors(["the", "cat"], np.ones((2, 3))), path)
        again = course_vectors("skipgram-neg", "story.txt", profile="smoke")
        note = capsys.readouterr().err.strip().splitlines()
        assert len(note) == 1 and note[0].startswith(f"note: the saved vectors {path} are damaged"), note
        assert note[0].endswith("training them again")
        assert ("truncated" in note[0]) if damage == "cut short" else ("3 dimensions, not 100" in note[0])
        assert again.index_to_key == first.index_to_key
        assert np.allclose(again.vectors, first.vectors, atol=1e-4)  # the same seed, one thread: the same vectors
        course_vectors("skipgram-neg", "story.txt", profile="smoke")
        assert capsys.readouterr().err == ""  # whole again: loaded, not trained


def test_course_vectors_all_train_side_by_side_what_each_would_be_alone(tmp_path, private_cache, monkeypatch):
    from course.shared.vectors import course_vectors, course_vectors_all, vectors_path

    monkeypatch.chdir(tmp_path)
    (tmp_path / "story.txt").write_text(STORY * 20, encoding="utf-8")
    wanted = [("glove", "story.txt"), ("skipgram-neg", "story.txt")]
    monkeypatch.setenv("COURSE_BUILD", str(tmp_path / "alone"))
    alone = [course_vectors(kind, corpus, profile="smoke") for kind, corpus in wanted]
    files = [vectors_path(kind, corpus, profile="smoke").read_bytes() for kind, corpus in wanted]
    monkeypatch.setenv("COURSE_BUILD", str(tmp_path / "together"))
    together = course_vectors_all(wanted, profile="smoke", workers=2)
    for (kind, corpus), one, other, saved in zip(wanted, alone, together, files, strict=True):
        assert vectors_path(kind, corpus, profile="smoke").read_bytes() == saved, kind
        assert other.index_to_key == one.index_to_key
    glove_file = vectors_path("glove", "story.txt", profile="smoke")
    before = glove_file.stat().st_mtime_ns
    again = course_vectors_all(wanted[:1], profile="smoke")  # saved: loaded, not trained
    assert glove_file.stat().st_mtime_ns == before and again[0].index_to_key == alone[0].index_to_key
    with pytest.raises(SettingError, match="unknown kind"):
        course_vectors_all([("fasttext", "story.txt")], profile="smoke")


def test_any_damage_to_the_cache_file_is_a_rebuild_never_a_traceback(tmp_path, private_cache, capsys):
    """300 random damages (a byte changed, the file cut, a run of zeros): each load returns the fresh corpus."""
    text, fresh, path = _cached_story(tmp_path)
    whole = path.read_bytes()
    rng = np.random.default_rng(0)
    for _ in range(300):
        raw = bytearray(whole)
        where = int(rng.integers(0, len(raw)))
        kind = int(rng.integers(0, 3))
        if kind == 0:
            raw[where] = (raw[where] + int(rng.integers(1, 256))) % 256
        elif kind == 1:
            del raw[where:]
        else:
            raw[where:where + 64] = bytes(len(raw[where:where + 64]))
        path.write_bytes(bytes(raw))
        healed = load_corpus(text, progress=False)
        assert healed.types == fresh.types and np.array_equal(healed.token_ids, fresh.token_ids)
        assert np.array_equal(healed.offsets, fresh.offsets)
    # most damage is seen and noted; the rest lies where nothing is read (a file date, a header's padding)
    assert capsys.readouterr().err.count("note: the cached corpus") >= 250


def _same_size_and_date(path, text):
    """Write ``text`` over the file at ``path``, which has as many bytes, and give it back its date."""
    import os

    before = path.stat()
    assert len(text.encode("utf-8")) == before.st_size
    path.write_text(text, encoding="utf-8")
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert (path.stat().st_size, path.stat().st_mtime_ns) == (before.st_size, before.st_mtime_ns)


def test_a_file_edited_in_place_with_its_size_and_date_kept_is_not_served_stale(tmp_path, private_cache):
    text = tmp_path / "story.txt"
    text.write_text("The cat sat on the mat.\n", encoding="utf-8")
    assert list(load_corpus(text, progress=False)) == [["the", "cat", "sat", "on", "the", "mat"]]
    _same_size_and_date(text, "The dog sat on the rug.\n")
    assert list(load_corpus(text, progress=False)) == [["the", "dog", "sat", "on", "the", "rug"]]


def test_a_folder_corpus_sees_an_edit_of_any_of_its_files(tmp_path, private_cache):
    folder = tmp_path / "texts"
    folder.mkdir()
    (folder / "a.txt").write_text("One fish swims.\n", encoding="utf-8")
    (folder / "b.txt").write_text("Two birds fly.\n", encoding="utf-8")
    assert list(load_corpus(folder, progress=False)) == [["one", "fish", "swims"], ["two", "birds", "fly"]]
    _same_size_and_date(folder / "b.txt", "Two crows fly.\n")
    assert list(load_corpus(folder, progress=False)) == [["one", "fish", "swims"], ["two", "crows", "fly"]]


def test_the_fingerprint_of_a_large_file_reads_its_ends_and_chunks_between(tmp_path):
    """Above 16 MiB a file is sampled: an edit of its first or last MiB, or of one of the chunks
    between, changes the fingerprint; a byte between two sampled chunks, size and all kept, does not
    (the limit its docstring states)."""
    from course.text.corpus_cache import FINGERPRINT_CHUNKS, FINGERPRINT_WHOLE, content_fingerprint

    path, mib = tmp_path / "large.txt", 1 << 20
    path.write_bytes(b"word " * ((FINGERPRINT_WHOLE + 4 * mib) // 5))
    size, original = path.stat().st_size, content_fingerprint(path)
    step = (size - mib) // (FINGERPRINT_CHUNKS - 1)  # where the sampled chunks start
    seen = {}
    for where in (0, size - 1, 8 * step + 10, mib + (step - mib) // 2):
        with open(path, "r+b") as handle:
            handle.seek(where)
            kept = handle.read(1)
            handle.seek(where)
            handle.write(b"X")
        seen[where] = content_fingerprint(path) != original
        with open(path, "r+b") as handle:
            handle.seek(where)
            handle.write(kept)
    assert content_fingerprint(path) == original
    assert list(seen.values()) == [True, True, True, False], seen
    small = tmp_path / "small.txt"
    small.write_bytes(b"word " * 1000)
    before = content_fingerprint(small)
    small.write_bytes(b"word " * 500 + b"ward " + b"word " * 499)
    assert content_fingerprint(small) != before


def test_a_folder_where_the_cache_file_goes_is_deleted_and_the_corpus_cached_again(tmp_path, private_cache, capsys):
    text, fresh, path = _cached_story(tmp_path)
    path.unlink()
    (path / "inside").mkdir(parents=True)
    (path / "inside" / "file").write_text("left by something else")
    capsys.readouterr()
    healed = load_corpus(text, progress=False)
    note = capsys.readouterr().err.strip().splitlines()
    assert len(note) == 1 and note[0].startswith(f"note: the cached corpus {path} was a folder"), note
    assert path.is_file() and healed.types == fresh.types
    again = load_corpus(text, progress=False)
    assert capsys.readouterr().err == "" and np.array_equal(again.token_ids, fresh.token_ids)


def test_a_link_to_a_folder_outside_the_cache_is_not_deleted(tmp_path, private_cache):
    from course.core.errors import OutputFileError

    text, _, path = _cached_story(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "precious.txt").write_text("keep me")
    path.unlink()
    path.symlink_to(elsewhere, target_is_directory=True)
    with pytest.raises(OutputFileError, match="outside the cache") as refused:
        load_corpus(text, progress=False)
    assert "\n" not in str(refused.value)
    assert (elsewhere / "precious.txt").read_text() == "keep me" and path.is_symlink()


def test_a_byte_flipped_anywhere_in_the_cache_is_caught_or_harmless(tmp_path, private_cache, capsys):
    """Every byte of the cache file flipped in turn: either the load says so in one note and
    rebuilds, or the byte was one the reading never depends on (a zip timestamp, say) and the
    corpus read is exactly the one cached. Never an error, never other tokens."""
    text, fresh, path = _cached_story(tmp_path)
    whole = path.read_bytes()
    start, end = _member_data(whole, "token_ids.npy")
    caught = 0
    for position in range(len(whole)):
        raw = bytearray(whole)
        raw[position] ^= 0xFF
        path.write_bytes(bytes(raw))
        capsys.readouterr()
        read = load_corpus(text, progress=False)
        note = capsys.readouterr().err.strip().splitlines()
        assert len(note) <= 1, (position, note)
        caught += len(note)
        if start <= position < end:
            assert note, position  # the data itself changed: the CRC or the checks must tell
        assert read.types == fresh.types, position
        assert np.array_equal(read.token_ids, fresh.token_ids) and np.array_equal(read.offsets, fresh.offsets), position
    assert caught > (end - start)  # more than the token ids' bytes were caught
