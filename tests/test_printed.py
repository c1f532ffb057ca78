"""The sentences the notebooks print (course.printed): each English template and its Chinese take the same
placeholders with the same conversions and format specs, the Chinese is Chinese, every key is used by a code cell
of its notebooks in both editions, and every text(...) a notebook asks for is in the catalogue."""

import re
import string
from pathlib import Path

import nbformat
import pytest

from course.core.edition import CATALOGUE, text
from course.printed import checks, claims, context_models, counting, headlines, static_models

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"
GROUPS = {"counting": (counting.PRINTED, ("00", "01")),
          "static_models": (static_models.PRINTED, ("02", "03", "04", "05")),
          "context_models": (context_models.PRINTED, ("06", "07", "08", "09", "10", "11"))}
CJK = re.compile(r"[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]")   # ideographs, CJK and full-width punctuation
KEYS = [(group, key) for group, (printed, _) in GROUPS.items() for key in sorted(printed)]


def placeholders(template: str) -> list[tuple[str, str, str]]:
    """The (field, conversion, format spec) triples of a template, sorted: "{n:,} of {w!r}" gives
    [("n", "", ","), ("w", "r", "")]."""
    return sorted((field, conversion or "", spec or "")
                  for _, field, spec, conversion in string.Formatter().parse(template) if field is not None)


def code_of(numbers, edition: str = "") -> str:
    cells = []
    for number in numbers:
        for path in sorted((NOTEBOOKS / edition).glob(f"{number}_*.ipynb")):
            cells += [cell.source for cell in nbformat.read(path, as_version=4).cells if cell.cell_type == "code"]
    return "\n".join(cells)


@pytest.mark.parametrize(("group", "key"), KEYS)
def test_both_editions_take_the_same_placeholders(group, key):
    printed, numbers = GROUPS[group]
    entry = printed[key]
    assert set(entry) == {"en", "zh"}, key
    assert key[:2] in numbers, f"{key}: a key starts with the number of a notebook of {group}"
    assert placeholders(entry["en"]) == placeholders(entry["zh"]), key
    assert CJK.search(entry["zh"]), f"{key}: the Chinese template holds no Chinese"


@pytest.mark.parametrize("group", GROUPS)
@pytest.mark.parametrize("edition", ["", "zh"])
def test_every_key_is_used_by_a_notebook(group, edition):
    printed, numbers = GROUPS[group]
    code = code_of(numbers, edition)
    unused = [key for key in printed if f'"{key}"' not in code and f"'{key}'" not in code]
    assert not unused, f"keys no code cell of notebooks {', '.join(numbers)} ({edition or 'en'}) uses: {unused}"


def test_the_notebooks_ask_only_for_keys_the_catalogue_has():
    code = code_of([f"{n:02d}" for n in range(100)])
    asked = set(re.findall(r"""\btext\(\s*["']([^"']+)["']""", code))
    assert asked, "no text(...) call found in the notebooks"
    assert not asked - set(CATALOGUE), sorted(asked - set(CATALOGUE))


def test_the_catalogue_gives_each_edition_its_sentence():
    values = {"name": "our CBOW", "words": 1628, "seconds": 0.14}
    assert text("05 trained", "en", **values) == "our CBOW          1,628 words,   0.1 s"
    assert text("05 trained", "zh", **values) == "our CBOW          1,628 个词，  0.1 秒"
    assert text("10 classifiers", "en", n=3, seconds=41.6) == "3 classifiers in 42 s"
    assert text("10 classifiers", "zh", n=3, seconds=41.6) == "训练了 3 个分类器，用时 42 秒"


# ------------------------------------------------------------------ what the graded checks say (course.printed.checks)

CHECKS_SOURCE = "\n".join(path.read_text(encoding="utf-8") for path in
                          sorted((Path(__file__).resolve().parents[1] / "course" / "teaching" / "checks").glob("*.py")))
ENGLISH_RUN = re.compile(r"\b[A-Za-z]{2,}(?: [A-Za-z]{2,}){2,}\b")  # three English words in a row


@pytest.mark.parametrize("key", sorted(checks.PRINTED))
def test_each_check_message_takes_the_same_placeholders_in_both_editions_and_the_chinese_is_chinese(key):
    entry = checks.PRINTED[key]
    assert set(entry) == {"en", "zh"} and key.startswith("check "), key
    assert placeholders(entry["en"]) == placeholders(entry["zh"]), key
    assert CJK.search(entry["zh"]), f"{key}: the Chinese template holds no Chinese"
    prose = re.sub(r"\{[^{}]*\}", "", entry["zh"]).replace("Mikolov et al", "")  # a citation is a name
    assert not ENGLISH_RUN.search(prose), f"{key}: English words in the Chinese: {ENGLISH_RUN.findall(prose)}"
    assert not CJK.search(entry["en"]), f"{key}: Chinese in the English template"


def test_every_check_message_is_used_by_a_check_and_every_one_a_check_names_exists():
    named = set(re.findall(r'"(check [^"{}]+)"', CHECKS_SOURCE))
    assert named, "no catalogue key found in course/teaching/checks"
    assert not named - set(checks.PRINTED), sorted(named - set(checks.PRINTED))
    counted = {noun for noun in re.findall(r"""how_many\([^,]+, ["']([a-z -]+)["']\)""", CHECKS_SOURCE)}
    built = {f"check count {noun}" for noun in counted} | {f"check count {noun}s" for noun in counted} | \
        {f"check padded {key}" for key in re.findall(r'"([a-z_:+]+)"', CHECKS_SOURCE)}  # how_many, padded mistakes
    unused = [key for key in checks.PRINTED if key not in named and key not in built]
    assert not unused, f"keys no check uses: {unused}"


# ------------------------------------------------------------------ the claims table's cells (course.printed.claims)

CLAIMS_SOURCE = "\n".join(path.read_text(encoding="utf-8") for path in
                          sorted((Path(__file__).resolve().parents[1] / "course" / "claims").glob("*.py")))


@pytest.mark.parametrize("key", sorted(claims.PRINTED))
def test_each_claims_cell_takes_the_same_placeholders_in_both_editions_and_the_chinese_is_chinese(key):
    entry = claims.PRINTED[key]
    assert set(entry) == {"en", "zh"} and key.startswith("claims "), key
    assert placeholders(entry["en"]) == placeholders(entry["zh"]), key
    words = re.sub(r"\{[^{}]*\}", "", entry["en"])
    if re.search(r"[a-z]{2,}", words):  # a template of figures and punctuation alone may be the same in both
        assert CJK.search(entry["zh"]), f"{key}: the Chinese template holds no Chinese"
    prose = re.sub(r"\{[^{}]*\}", "", entry["zh"])
    assert not ENGLISH_RUN.search(prose), f"{key}: English words in the Chinese: {ENGLISH_RUN.findall(prose)}"
    assert not CJK.search(entry["en"]), f"{key}: Chinese in the English template"


def test_every_claims_cell_is_used_by_the_claims_and_every_one_they_name_exists():
    named = set(re.findall(r'"(claims [^"{}]+)"', CLAIMS_SOURCE))
    built = {f"claims strongest {name}" for name in ("untrained", "static", "bag")}  # sense_claim's controls
    assert not named - set(claims.PRINTED), sorted(named - set(claims.PRINTED))
    unused = [key for key in claims.PRINTED if key not in named | built]
    assert not unused, f"keys course.claims does not use: {unused}"


# ------------------------------------------------------ the names of the headline numbers (course.printed.headlines)

NAMED = re.compile(r"""\bheadline\(\s*(f?)(["'])(.+?)\2""")  # a code cell's course.headline("...", ...)


@pytest.mark.parametrize("key", sorted(headlines.PRINTED))
def test_each_headline_name_is_keyed_by_its_english_and_takes_the_same_parts_in_chinese(key):
    entry = headlines.PRINTED[key]
    assert set(entry) == {"en", "zh"} and key.startswith("headline "), key
    assert key == f"headline {entry['en']}" or key.startswith(("headline unit ", "headline shown ")), key
    assert placeholders(entry["en"]) == placeholders(entry["zh"]), key
    assert all(spec == "" and conversion == "" for _, conversion, spec in placeholders(entry["en"])), key
    assert CJK.search(entry["zh"]), f"{key}: the Chinese holds no Chinese"
    assert not ENGLISH_RUN.search(re.sub(r"\{[^{}]*\}", "", entry["zh"])), key


@pytest.mark.parametrize("edition", ["", "zh"])
def test_every_headline_a_notebook_shows_has_a_chinese_name(edition):
    from course.teaching.report import headline_name

    named = NAMED.findall(code_of([f"{n:02d}" for n in range(100)], edition))
    assert len(named) > 40, "the notebooks' headlines were not found"
    for f_string, _, name in named:
        shown = re.sub(r"\{[^{}]*\}", "X", name) if f_string else name  # what the code fills in, as X
        chinese = headline_name(shown, "zh")
        assert chinese != shown and CJK.search(chinese), f"no Chinese name for the headline {name!r}"
        assert headline_name(shown, "en") == shown
        assert chinese.count("X") == shown.count("X") - name.count("X"), (name, chinese)


def test_a_headline_shows_its_chinese_name_and_unit_and_keeps_its_english_key(monkeypatch):
    import IPython.display

    from course.core.edition import use_edition
    from course.teaching.report import HEADLINE_MIME, headline

    shown = []
    monkeypatch.setattr(IPython.display, "display", lambda data, raw: shown.append(data))
    use_edition("zh")
    try:
        headline("Training time, our skip-gram", 12.5, "s")
        headline("Zipf slope, wiki-en", -1.05)
        headline("Something else", 3, "%")
    finally:
        use_edition("en")
    headline("Training time, our skip-gram", 12.5, "s")
    assert shown[0]["text/plain"] == "训练时间，我们的跳字模型：12.5 秒"
    assert shown[0]["text/markdown"] == "**训练时间，我们的跳字模型：** 12.5 秒"
    assert shown[0][HEADLINE_MIME] == {"name": "Training time, our skip-gram", "label": "训练时间，我们的跳字模型",
                                       "value": 12.5, "text": "12.5 秒"}
    assert shown[1]["text/plain"] == "齐普夫斜率，wiki-en：-1.05"
    assert shown[2]["text/plain"] == "Something else：3 %"  # a name the catalogue lacks stays as it is
    assert shown[3]["text/plain"] == "Training time, our skip-gram: 12.5 s"
