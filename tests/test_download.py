"""Downloads against a real HTTP server on 127.0.0.1 serving files the tests make."""

import hashlib
import io
import threading
import zipfile

import pytest

from course.core.errors import ChecksumError, DownloadError
from course.text import corpus as corpus_module
from course.text.download import RemoteFile, fetch, sha256_of


def _zip(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def test_fetch_verifies_and_caches(server, tmp_path, requests_seen):
    root, url = server
    payload = b"hello world\n" * 1000
    (root / "file.bin").write_bytes(payload)
    remote = RemoteFile(f"{url}/file.bin", "file.bin", size=len(payload), sha256=hashlib.sha256(payload).hexdigest())
    path = fetch(remote, tmp_path / "cache", progress=False)
    assert path.read_bytes() == payload and sha256_of(path) == remote.sha256
    again = fetch(remote, tmp_path / "cache", progress=False)
    assert again == path and requests_seen == ["/file.bin"]  # the second call did not download


def test_wrong_checksum_keeps_nothing(server, tmp_path):
    root, url = server
    (root / "file.bin").write_bytes(b"tampered")
    remote = RemoteFile(f"{url}/file.bin", "file.bin", sha256="0" * 64)
    with pytest.raises(ChecksumError, match="does not match"):
        fetch(remote, tmp_path / "cache", progress=False)
    assert list((tmp_path / "cache").iterdir()) == []


def test_short_download_keeps_nothing(server, tmp_path):
    root, url = server
    (root / "file.bin").write_bytes(b"short")
    with pytest.raises(ChecksumError, match="received 5 bytes, expected 100"):
        fetch(RemoteFile(f"{url}/file.bin", "file.bin", size=100), tmp_path / "cache", progress=False)
    assert list((tmp_path / "cache").iterdir()) == []


def test_http_error_is_a_download_error(server, tmp_path):
    _, url = server
    with pytest.raises(DownloadError, match="could not download .*missing.zip"):
        fetch(RemoteFile(f"{url}/missing.zip", "missing.zip"), tmp_path / "cache", progress=False)


def test_text8_end_to_end_from_a_local_mirror(server, private_cache, monkeypatch, requests_seen):
    root, url = server
    words = " ".join(f"w{i % 37}" for i in range(2500)).encode()
    archive = _zip({"text8": b" " + words})
    (root / "text8.zip").write_bytes(archive)
    mirror = corpus_module.RemoteFile(f"{url}/text8.zip", "text8.zip", size=len(archive),
                                      members={"text8": hashlib.sha256(b" " + words).hexdigest()})
    monkeypatch.setattr(corpus_module, "TEXT8", mirror)
    corpus = corpus_module.load_corpus("text8", progress=False)
    assert corpus.num_tokens == 2500 and corpus.num_sentences == 3  # cut every 1000 words
    assert corpus.lengths().tolist() == [1000, 1000, 500]
    corpus_module.load_corpus("text8", progress=False)
    assert requests_seen == ["/text8.zip"]


def test_wikitext_member_checksum_is_enforced(server, private_cache, monkeypatch):
    root, url = server
    raw = b" = Title = \n\n The first sentence here . The second one @-@ here .\n"
    archive = _zip({"wikitext-2-raw/wiki.train.raw": raw})
    (root / "wt2.zip").write_bytes(archive)
    good = corpus_module.RemoteFile(f"{url}/wt2.zip", "wt2.zip", sha256=hashlib.sha256(archive).hexdigest())
    monkeypatch.setattr(corpus_module, "WIKITEXT_2", good)
    corpus = corpus_module.load_corpus("wikitext-2", progress=False)
    assert list(corpus) == [["the", "first", "sentence", "here"], ["the", "second", "one", "here"]]
    bad = corpus_module.RemoteFile(f"{url}/wt2.zip", "wt2.zip",
                                   members={"wikitext-2-raw/wiki.train.raw": "f" * 64})
    monkeypatch.setattr(corpus_module, "WIKITEXT_2", bad)
    with pytest.raises(ChecksumError, match="wrong SHA-256"):
        corpus_module.load_corpus("wikitext-2", progress=False, cache=False)


def test_a_stalled_download_names_its_url_and_keeps_nothing(tmp_path):
    import socket

    listener = socket.create_server(("127.0.0.1", 0))
    release = threading.Event()

    def stall():  # headers and 10 of 100 bytes, then silence
        connection, _ = listener.accept()
        with connection:
            connection.recv(65536)
            connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n" + b"x" * 10)
            release.wait(10)

    thread = threading.Thread(target=stall, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{listener.getsockname()[1]}/slow.bin"
    try:
        with pytest.raises(DownloadError, match=r"download of .*/slow.bin failed after 10 bytes "
                                                r"\(nothing arrived for 0.3 s\); nothing was kept"):
            fetch(RemoteFile(url, "slow.bin", size=100), tmp_path / "cache", progress=False, timeout=0.3)
    finally:
        release.set()
        thread.join()
        listener.close()
    assert list((tmp_path / "cache").iterdir()) == []


def test_a_mirror_is_tried_when_the_first_place_fails_and_an_md5_is_checked(server, tmp_path, requests_seen):
    root, url = server
    payload = b"mirrored bytes\n" * 500
    (root / "good").mkdir()
    (root / "good" / "file.bin").write_bytes(payload)
    (root / "bad").mkdir()
    (root / "bad" / "file.bin").write_bytes(payload[:-1] + b"?")  # same size, other bytes
    md5 = hashlib.md5(payload).hexdigest()
    remote = RemoteFile(f"{url}/gone/file.bin", "file.bin", size=len(payload), md5=md5,
                        mirrors=(f"{url}/bad/file.bin", f"{url}/good/file.bin"))
    path = fetch(remote, tmp_path / "cache", progress=False)
    assert path.read_bytes() == payload
    assert requests_seen == ["/gone/file.bin", "/bad/file.bin", "/good/file.bin"]
    assert fetch(remote, tmp_path / "cache", progress=False) == path and len(requests_seen) == 3
    nowhere = RemoteFile(f"{url}/gone/file.bin", "other.bin", md5=md5, mirrors=(f"{url}/bad/file.bin",))
    with pytest.raises(DownloadError, match="every place failed.*File not found.*MD5 .* does not match"):
        fetch(nowhere, tmp_path / "cache", progress=False)
    assert not (tmp_path / "cache" / "other.bin").exists()
    with pytest.raises(ChecksumError, match="MD5"):
        fetch(RemoteFile(f"{url}/bad/file.bin", "third.bin", md5=md5), tmp_path / "cache", progress=False)


def test_wikitext_103_end_to_end_from_a_mirror_read_as_a_stream(server, private_cache, monkeypatch, requests_seen):
    root, url = server
    raw = (" = Title = \n\n The first sentence here . The second one @-@ here .\n"
           " = = Section = = \n\n Über alles , the third .\n")
    archive = _zip({"wikitext-103-raw/wiki.train.raw": raw.encode()})
    (root / "wt103.zip").write_bytes(archive)
    mirror = RemoteFile(f"{url}/missing.zip", "wt103.zip", size=len(archive), md5=hashlib.md5(archive).hexdigest(),
                        mirrors=(f"{url}/wt103.zip",))
    monkeypatch.setattr(corpus_module, "WIKITEXT_103", mirror)
    assert not corpus_module.is_available("wikitext-103")
    corpus = corpus_module.load_corpus("wikitext-103", progress=False)
    assert list(corpus) == [["the", "first", "sentence", "here"], ["the", "second", "one", "here"],
                            ["über", "alles", "the", "third"]]
    assert corpus_module.is_available("wikitext-103")
    corpus_module.load_corpus("wikitext-103", progress=False)
    assert requests_seen == ["/missing.zip", "/wt103.zip"]
    bad = RemoteFile(f"{url}/wt103.zip", "wt103.zip", members={"wikitext-103-raw/wiki.train.raw": "f" * 64})
    monkeypatch.setattr(corpus_module, "WIKITEXT_103", bad)
    with pytest.raises(ChecksumError, match="wrong SHA-256"):
        corpus_module.load_corpus("wikitext-103", progress=False, cache=False)
