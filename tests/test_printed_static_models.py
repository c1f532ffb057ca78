"""The sentences notebooks 00-05 print: each English template and its Chinese take the same placeholders, the
Chinese is Chinese, and every key is used by a code cell of those notebooks."""

import re
import string
from pathlib import Path

import nbformat
import pytest

from course.edition import CATALOGUE, text
from course.printed.static_models import PRINTED

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"
NUMBERS = ("00", "01", "02", "03", "04", "05")
CJK = re.compile(r"[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]")   # ideographs, CJK and full-width punctuation


def placeholders(template: str) -> list[tuple[str, str, str]]:
    """The (field, conversion, format spec) triples of a template, sorted: "{n:,} of {w!r}" gives
    [("n", "", ","), ("w", "r", "")]."""
    return sorted((field, conversion or "", spec or "")
                  for _, field, spec, conversion in string.Formatter().parse(template) if field is not None)


def code_of_notebooks(edition: str = "") -> str:
    cells = []
    for number in NUMBERS:
        for path in sorted((NOTEBOOKS / edition).glob(f"{number}_*.ipynb")):
            notebook = nbformat.read(path, as_version=4)
            cells += [cell.source for cell in notebook.cells if cell.cell_type == "code"]
    return "\n".join(cells)


@pytest.mark.parametrize("key", sorted(PRINTED))
def test_both_editions_take_the_same_placeholders(key):
    entry = PRINTED[key]
    assert set(entry) == {"en", "zh"}, key
    assert key[:2] in NUMBERS, f"{key}: a key starts with the number of its notebook"
    assert placeholders(entry["en"]) == placeholders(entry["zh"]), key
    assert CJK.search(entry["zh"]), f"{key}: the Chinese template holds no Chinese"


@pytest.mark.parametrize("edition", ["", "zh"])
def test_every_key_is_used_by_a_notebook(edition):
    code = code_of_notebooks(edition)
    unused = [key for key in PRINTED if f'"{key}"' not in code and f"'{key}'" not in code]
    assert not unused, f"keys no code cell of notebooks {', '.join(NUMBERS)} ({edition or 'en'}) uses: {unused}"


def test_the_notebooks_ask_only_for_keys_the_catalogue_has():
    code = code_of_notebooks()
    asked = set(re.findall(r"""\btext\(\s*["']([^"']+)["']""", code))
    assert asked, "no text(...) call found in notebooks 00-05"
    assert not asked - set(CATALOGUE), sorted(asked - set(CATALOGUE))


def test_the_catalogue_gives_each_edition_its_sentence():
    key = "05 trained"
    assert text(key, "en", name="our CBOW", words=1628, seconds=0.14) == "our CBOW          1,628 words,   0.1 s"
    assert text(key, "zh", name="our CBOW", words=1628, seconds=0.14) == "our CBOW          1,628 个词，  0.1 秒"
