"""Vectors exported for TensorBoard's Embedding Projector: the two TSV files read back as the
Projector reads them (rows split at newlines, fields at tabs), and the config as protobuf text format."""

import re
import subprocess
import sys

import numpy as np
import pytest

from course.analysis.vectors import keyed_vectors, load_vectors, save_vectors
from course.cli import main
from course.figures.projector import escape, export_projector, pbtxt_string, unescape

# the fields of tensorboard/plugins/projector/projector_config.proto: name -> (type, repeated)
PROJECTOR_CONFIG = {"model_checkpoint_path": ("string", False), "embeddings": ("EmbeddingInfo", True),
                    "model_checkpoint_dir": ("string", False)}
EMBEDDING_INFO = {"tensor_name": ("string", False), "metadata_path": ("string", False),
                  "bookmarks_path": ("string", False), "tensor_shape": ("uint32", True),
                  "sprite": ("SpriteMetadata", False), "tensor_path": ("string", False)}
SPRITE_METADATA = {"image_path": ("string", False), "single_image_dim": ("uint32", True)}
MESSAGES = {"ProjectorConfig": PROJECTOR_CONFIG, "EmbeddingInfo": EMBEDDING_INFO, "SpriteMetadata": SPRITE_METADATA}

TOKEN = re.compile(r'\s*(?:(?P<name>[A-Za-z_]\w*)|(?P<string>"(?:[^"\\\n]|\\.)*")|(?P<int>-?\d+)|(?P<punct>[:{}])'
                   r'|(?P<comment>#[^\n]*))')


def parse_pbtxt(text: str, message: str = "ProjectorConfig") -> dict:
    """Protobuf text format of ``message`` as ``{field: [values]}``, refusing a field the proto does not
    have, a value of the wrong type, or a repeat of a field that is not repeated."""
    tokens, position = [], 0
    while text[position:].strip():
        match = TOKEN.match(text, position)
        assert match, f"not protobuf text format at {text[position:position + 20]!r}"
        position = match.end()
        if match.lastgroup != "comment":
            tokens.append((match.lastgroup, match.group(match.lastgroup)))
    parsed, rest = _message(tokens, message)
    assert not rest, f"left over: {rest}"
    return parsed


def _message(tokens, message):
    fields, out = MESSAGES[message], {}
    while tokens and tokens[0] != ("punct", "}"):
        (kind, name), tokens = tokens[0], tokens[1:]
        assert kind == "name" and name in fields, f"{message} has no field {name!r}"
        kind_of, repeated = fields[name]
        if kind_of in MESSAGES:
            if tokens[0] == ("punct", ":"):
                tokens = tokens[1:]
            assert tokens[0] == ("punct", "{")
            value, tokens = _message(tokens[1:], kind_of)
            assert tokens[0] == ("punct", "}")
            tokens = tokens[1:]
        else:
            assert tokens[0] == ("punct", ":"), f"{name} needs a ':'"
            (kind, raw), tokens = tokens[1], tokens[2:]
            if kind_of == "string":
                assert kind == "string", f"{name} is a string, got {raw!r}"
                value = _unquote(raw)
            else:
                assert kind == "int" and int(raw) >= 0, f"{name} is a uint32, got {raw!r}"
                value = int(raw)
        assert repeated or name not in out, f"{name} is not a repeated field"
        out.setdefault(name, []).append(value)
    return out, tokens


def _unquote(literal: str) -> str:
    """A text-format string literal's text: C escapes and octal escapes of UTF-8 bytes."""
    named = {"n": b"\n", "r": b"\r", "t": b"\t", '"': b'"', "'": b"'", "\\": b"\\"}
    out, body, i = bytearray(), literal[1:-1], 0
    while i < len(body):
        if body[i] == "\\":
            if body[i + 1] in named:
                out += named[body[i + 1]]
                i += 2
            else:
                out.append(int(body[i + 1:i + 4], 8))
                i += 4
        else:
            out += body[i].encode("utf-8")
            i += 1
    return out.decode("utf-8")


def projector_rows(path):
    """The rows of a TSV file as the Projector splits them: lines at ``\\n``, blank ones skipped, fields at ``\\t``."""
    text = path.read_bytes().decode("utf-8")
    return [line.split("\t") for line in text.split("\n") if line.strip()]


def small_vectors(words, dims=8, seed=0):
    rng = np.random.default_rng(seed)
    return keyed_vectors(words, rng.normal(scale=0.3, size=(len(words), dims)).astype(np.float32))


WORDS = [f"w{i}" for i in range(40)]


@pytest.mark.parametrize("binary", [False, True])
def test_round_trip_floats_and_rows_in_metadata_order(tmp_path, binary):
    source = save_vectors(small_vectors(WORDS), tmp_path / "small.vec", binary=binary)
    paths = export_projector(source, tmp_path / "out")
    assert set(paths) == {"vectors", "metadata", "config"}
    stored = load_vectors(source)
    rows = projector_rows(paths["vectors"])
    back = np.array([[np.float32(float(x)) for x in row] for row in rows], dtype=np.float32)
    np.testing.assert_array_equal(back, stored.vectors)  # every float32 written is read back exactly
    metadata = projector_rows(paths["metadata"])
    assert metadata[0] == ["word", "rank"]
    assert [row[0] for row in metadata[1:]] == stored.index_to_key
    assert [int(row[1]) for row in metadata[1:]] == list(range(1, len(WORDS) + 1))
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["metadata.tsv", "projector_config.pbtxt",
                                                                    "vectors.tsv"]


def test_config_is_projector_text_format_naming_the_files(tmp_path):
    source = save_vectors(small_vectors(WORDS, dims=5), tmp_path / "glove-small.txt")
    paths = export_projector(source, tmp_path / "out", limit=12)
    config = parse_pbtxt(paths["config"].read_text(encoding="utf-8"))
    assert list(config) == ["embeddings"] and len(config["embeddings"]) == 1
    embedding = config["embeddings"][0]
    assert embedding["tensor_name"] == ["glove-small"]
    assert (tmp_path / "out" / embedding["tensor_path"][0]) == paths["vectors"]
    assert (tmp_path / "out" / embedding["metadata_path"][0]) == paths["metadata"]
    assert embedding["tensor_shape"] == [12, 5]
    assert len(projector_rows(paths["vectors"])) == 12 and len(projector_rows(paths["vectors"])[0]) == 5


def test_tensor_names_of_any_text_are_quoted_for_the_text_format():
    for name in ['人民日报 "glove"', "a\\b\tc\nd", "plain-name"]:
        config = parse_pbtxt(f"embeddings {{ tensor_name: {pbtxt_string(name)} }}")
        assert config["embeddings"][0]["tensor_name"] == [name]
    assert pbtxt_string("plain-name") == '"plain-name"'
    with pytest.raises(AssertionError, match="no field"):
        parse_pbtxt('embeddings { tensor_file: "vectors.tsv" }')  # the parser refuses what the proto lacks


def test_limit_words_and_normalise(tmp_path):
    kv = small_vectors(WORDS)
    limited = export_projector(kv, tmp_path / "limit", limit=7)
    assert [row[0] for row in projector_rows(limited["metadata"])[1:]] == WORDS[:7]

    chosen = ["w30", "w2", "w17", "w2"]  # their order, the repeat once, the rank from the vectors' order
    picked = export_projector(kv, tmp_path / "words", words=chosen)
    metadata = projector_rows(picked["metadata"])[1:]
    assert [row[0] for row in metadata] == ["w30", "w2", "w17"]
    assert [row[1] for row in metadata] == ["31", "3", "18"]
    vectors = np.array(projector_rows(picked["vectors"]), dtype=np.float32)
    np.testing.assert_array_equal(vectors, kv[["w30", "w2", "w17"]])

    unit = export_projector(kv, tmp_path / "unit", words=chosen, limit=2, normalise=True)
    vectors = np.array(projector_rows(unit["vectors"]), dtype=np.float64)
    assert vectors.shape == (2, 8)
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-6)  # float32 rounding of each value
    original = kv[["w30", "w2"]].astype(np.float64)
    np.testing.assert_allclose(vectors, original / np.linalg.norm(original, axis=1, keepdims=True), atol=1e-7)


def test_chinese_words_stay_utf8(tmp_path):
    words = ["的", "人民", "中国", "经济", "发展", "改革开放", "北京"]
    source = save_vectors(small_vectors(words, dims=4), tmp_path / "glove-zh.txt")
    paths = export_projector(source, tmp_path / "zh")
    assert paths["metadata"].read_bytes().decode("utf-8") == "word\trank\n" + "".join(
        f"{word}\t{rank}\n" for rank, word in enumerate(words, start=1))


def test_tabs_and_line_breaks_in_words_are_escaped(tmp_path):
    words = ["tab\there", "line\nbreak", "carriage\rreturn", "back\\slash", "plain"]
    source = save_vectors(small_vectors(words), tmp_path / "odd.bin", binary=True)  # binary keeps such words
    assert load_vectors(source).index_to_key == words
    paths = export_projector(source, tmp_path / "out")
    metadata = projector_rows(paths["metadata"])
    assert len(metadata) == len(words) + 1 and all(len(row) == 2 for row in metadata)
    assert "\r" not in paths["metadata"].read_text(encoding="utf-8")
    assert [unescape(row[0]) for row in metadata[1:]] == words
    assert metadata[1][0] == "tab\\there" and metadata[4][0] == "back\\\\slash"
    for text in ["a\\tb", "\\", "x\\\\\t\n", "人\t民"]:
        assert unescape(escape(text)) == text


def test_metadata_columns_from_python_and_from_a_file(tmp_path):
    kv = small_vectors(WORDS)
    paths = export_projector(kv, tmp_path / "py", limit=3, metadata={"group": {"w0": "even", "w2": "even"}})
    assert projector_rows(paths["metadata"]) == [["word", "rank", "group"], ["w0", "1", "even"], ["w1", "2", ""],
                                                 ["w2", "3", "even"]]
    columns = tmp_path / "columns.tsv"
    columns.write_text("word\tgroup\tcount\nw1\todd\t12\nw0\teven\t40\n", encoding="utf-8")
    source = save_vectors(kv, tmp_path / "small.txt")
    assert main(["export", "projector", str(source), "--out", str(tmp_path / "cli"), "--limit", "2",
                 "--metadata", str(columns)]) == 0
    assert projector_rows(tmp_path / "cli" / "metadata.tsv") == [["word", "rank", "group", "count"],
                                                                 ["w0", "1", "even", "40"], ["w1", "2", "odd", "12"]]


def run_cli(*args):
    return subprocess.run([sys.executable, "-m", "course", "export", "projector", *map(str, args)],
                          capture_output=True, text=True, timeout=300)


def test_command_line_writes_the_folder(tmp_path):
    source = save_vectors(small_vectors(WORDS), tmp_path / "small.txt")
    words = tmp_path / "words.txt"
    words.write_text("w5\n\n  w1 \n", encoding="utf-8")
    result = run_cli(source, "--out", tmp_path / "deep" / "out", "--words", words, "--normalise")
    assert result.returncode == 0, result.stderr
    assert "wrote 2 words" in result.stderr
    assert [row[0] for row in projector_rows(tmp_path / "deep" / "out" / "metadata.tsv")] == ["word", "w5", "w1"]


def one_line_error(capsys, argv, *fragments):
    assert main(["export", "projector", *map(str, argv)]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), lines
    for fragment in fragments:
        assert fragment in lines[0]


def test_bad_inputs_give_one_line_status_2_and_write_nothing(tmp_path, capsys):
    source = save_vectors(small_vectors(WORDS), tmp_path / "small.txt")
    out = tmp_path / "out"
    one_line_error(capsys, [tmp_path / "missing.txt", "--out", out], "missing.txt", "no such vectors file")
    not_vectors = tmp_path / "notes.txt"
    not_vectors.write_text("these are notes, not vectors\n", encoding="utf-8")
    one_line_error(capsys, [not_vectors, "--out", out], "not a vectors file the course reads")
    one_line_error(capsys, [source, "--out", out, "--words", tmp_path / "nowords.txt"], "no such word list")
    unknown = tmp_path / "unknown.txt"
    unknown.write_text("w1\nqueen\nking\n", encoding="utf-8")
    one_line_error(capsys, [source, "--out", out, "--words", unknown], "2 of the 3 words", "'queen'", "'king'")
    flat = save_vectors(keyed_vectors(["a", "b"], np.ones((2, 1), np.float32)), tmp_path / "flat.txt")
    one_line_error(capsys, [flat, "--out", out], "1 dimension", "at least 2")
    assert not out.exists()

    a_file = tmp_path / "a_file"
    a_file.write_text("not a folder", encoding="utf-8")
    one_line_error(capsys, [source, "--out", a_file], "is a file")
    one_line_error(capsys, [source, "--out", a_file / "below"], "is a file")
    assert a_file.read_text(encoding="utf-8") == "not a folder"
    with pytest.raises(SystemExit) as exit_status:
        main(["export", "projector", str(source), "--out", str(out), "--limit", "0"])
    assert exit_status.value.code == 2 and capsys.readouterr().err.startswith("error: argument --limit")


def test_a_refused_export_leaves_the_previous_one_whole(tmp_path, capsys):
    kv = small_vectors(WORDS)
    zero = keyed_vectors(["z", "w"], np.array([[0.0, 0.0, 0.0], [1.0, 2.0, 2.0]], np.float32))
    paths = export_projector(kv, tmp_path / "out", limit=5)
    before = {key: path.read_bytes() for key, path in paths.items()}
    with pytest.raises(Exception, match="all zeros"):
        export_projector(zero, tmp_path / "out", normalise=True)
    assert {key: path.read_bytes() for key, path in paths.items()} == before
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == sorted(p.name for p in paths.values())
