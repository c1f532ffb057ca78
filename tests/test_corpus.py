import numpy as np
import pytest

from course import corpus as corpus_module
from course.corpus import export, from_sentences, load_corpus
from course.errors import CorpusDecodeError, CorpusNotFoundError, EmptyCorpusError, UnknownCorpusError


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
    from course.vocab import Vocabulary

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

    def broken_save(corpus, path):
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
