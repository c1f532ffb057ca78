"""The two editions: the Chinese notebooks kept in step with the English ones, the strings the package
prints in each edition, the Chinese build, student versions and grading."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from course.claims import FAILS, HOLDS, NOT_MEASURED, Claim, claims_html, claims_markdown, format_claims
from course.core.edition import CATALOGUE, current_edition, resolve_edition, text, use_edition
from course.core.errors import SettingError
from course.teaching.assignments import find_assignments, student_version
from course.teaching.build import build_course
from course.teaching.editions import (
    check_editions,
    check_pair,
    chinese_characters,
    edition_of,
    english_words,
    prose,
    source_sha,
    stamp,
    sync_notebook,
    translate,
    untranslated_comments,
)
from course.teaching.glossary import GLOSSARY, glossary_problems, glossary_table
from course.teaching.grading import grade_notebook
from course.teaching.pages import external_references
from tests.conftest import assert_one_line_error
from tests.test_assignments import DOUBLE, DOUBLE_CHECK, answer_cell

ROOT = Path(__file__).resolve().parents[1]
ENGLISH_TEXT = "## 1 · Doubling\n\nA function that doubles a number, and why we check it twice over."
CHINESE_TEXT = "## 1 · 加倍\n\n一个把数加倍的函数，以及为什么我们要把它检查两遍，每一遍都查得仔细认真。"


@pytest.fixture(autouse=True)
def english_by_default(monkeypatch):
    """Each test starts with no edition chosen and none in the environment."""
    monkeypatch.delenv("COURSE_EDITION", raising=False)
    monkeypatch.setattr("course.core.edition._chosen", None)


def run_course(*args, cwd=ROOT):
    return subprocess.run([sys.executable, "-m", "course", *args], capture_output=True, text=True, timeout=600,
                          cwd=cwd)


def english_notebook(folder: Path, name="00_toy.ipynb") -> Path:
    parameters = new_code_cell("PROFILE = None\nEDITION = None")
    parameters.metadata["tags"] = ["parameters"]
    notebook = new_notebook(cells=[
        new_markdown_cell("# 00 · A toy notebook"),
        parameters,
        new_code_cell("import course\nimport matplotlib\nmatplotlib.use('Agg')\n"
                      "course.use_edition(EDITION)\ncourse.headline('Edition', course.current_edition())"),
        new_markdown_cell(ENGLISH_TEXT),
        DOUBLE,
        DOUBLE_CHECK,
        new_markdown_cell("$$f(x) = 2x$$"),
    ])
    for index, cell in enumerate(notebook.cells):
        cell.id = f"c{index}"
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    folder.mkdir(parents=True, exist_ok=True)
    nbformat.write(notebook, folder / name)
    return folder / name


def translated_pair(tmp_path):
    english = english_notebook(tmp_path / "notebooks")
    report = sync_notebook(english)
    translate(report.path, {"c0": "# 00 · 一个小小的示例笔记本", "c3": CHINESE_TEXT})
    return english, report.path


def edit(path: Path, cell_id: str, source: str) -> None:
    notebook = nbformat.read(path, as_version=4)
    next(cell for cell in notebook.cells if cell.id == cell_id).source = source
    nbformat.write(notebook, path)


# ------------------------------------------------------------------------------- in step


def test_the_course_notebooks_and_their_chinese_edition_are_in_step():
    problems = check_editions(ROOT / "notebooks")
    assert not problems, "\n".join(problems)


def test_a_synced_notebook_has_the_english_code_and_lists_what_is_untranslated(tmp_path):
    english = english_notebook(tmp_path / "notebooks")
    report = sync_notebook(english)
    assert report.path == tmp_path / "notebooks" / "zh" / "00_toy.ipynb"
    assert report.added == ["c0", "c3", "c6"] and report.code_copied == 4
    chinese = nbformat.read(report.path, as_version=4)
    assert chinese.metadata["course"]["edition"] == "zh" and edition_of(chinese) == "zh"
    problems = check_pair(english, report.path)
    assert sum("not translated yet" in p for p in problems) == 2, problems  # the formula-only cell needs no words
    assert any("0.00 Chinese characters" in p for p in problems)
    english_cells = nbformat.read(english, as_version=4).cells
    assert [c.source for c in chinese.cells if c.cell_type == "code"] == \
        [c.source for c in english_cells if c.cell_type == "code"]


def test_a_translated_pair_passes_and_each_kind_of_drift_is_named_in_one_line(tmp_path):
    english, chinese = translated_pair(tmp_path)
    assert check_pair(english, chinese) == []
    recorded = next(c for c in nbformat.read(chinese, as_version=4).cells if c.id == "c3").metadata["edition"]
    assert recorded == {"renders": "c3", "sha": source_sha(ENGLISH_TEXT)}

    edit(english, "c3", ENGLISH_TEXT + " One more sentence.")
    (problem,) = check_pair(english, chinese)
    assert str(chinese) in problem and "cell 3 (c3)" in problem and "stale" in problem and "\n" not in problem
    stamp(chinese, ["c3"])  # the Chinese text was brought up to date by hand
    assert check_pair(english, chinese) == []

    edit(chinese, "c4", DOUBLE.source + "\n# a change in the Chinese edition only")
    (problem,) = check_pair(english, chinese)
    assert "cell 4 (c4)" in problem and "code source differs" in problem
    sync_notebook(english)
    assert check_pair(english, chinese) == []

    notebook = nbformat.read(english, as_version=4)
    notebook.cells.append(new_markdown_cell("## Exercises\n\nDouble a list.", id="new"))
    nbformat.write(notebook, english)
    (problem,) = check_pair(english, chinese)
    assert "the English markdown cell new has no Chinese cell" in problem
    report = sync_notebook(english)
    assert report.added == ["new"] and any("not translated yet" in p for p in check_pair(english, chinese))
    translate(chinese, {"new": "## 练习\n\n把一个列表加倍。"})
    assert check_pair(english, chinese) == []

    notebook = nbformat.read(english, as_version=4)
    notebook.cells.append(answer_cell("answers", "## Answers\n\n### BEGIN SOLUTION\n1. A comprehension.\n"
                                                 "### END SOLUTION"))
    notebook.cells[-1].id = "answers"
    nbformat.write(notebook, english)
    sync_notebook(english)
    translate(chinese, {"answers": "## 参考答案\n\n### BEGIN SOLUTION\n1. 用一个列表推导式，把每个元素都乘以二。\n"
                                   "### END SOLUTION"})
    assert check_pair(english, chinese) == []
    notebook = nbformat.read(english, as_version=4)
    notebook.cells[-1].metadata["nbgrader"]["grade_id"] = "answers_renamed"
    nbformat.write(notebook, english)
    (problem,) = check_pair(english, chinese)
    assert "cell 8 (answers)" in problem and "nbgrader metadata differs" in problem
    sync_notebook(english)  # the marks follow the English cell; the translation stays
    assert check_pair(english, chinese) == []
    assert "参考答案" in nbformat.read(chinese, as_version=4).cells[-1].source

    notebook = nbformat.read(chinese, as_version=4)
    notebook.cells.insert(1, new_markdown_cell("只在中文版里的一段。", id="zh-only"))
    nbformat.write(notebook, chinese)
    assert any("cell zh-only is in the Chinese edition only" in p for p in check_pair(english, chinese))
    assert sync_notebook(english).dropped == ["zh-only"] and check_pair(english, chinese) == []


def test_a_half_translated_notebook_does_not_pass(tmp_path):
    english, chinese = translated_pair(tmp_path)
    translate(chinese, {"c3": "## 1 · 加倍\n\nA function that doubles a number, and why we check it twice."})
    (problem,) = check_pair(english, chinese)
    assert "Chinese characters of markdown per English word" in problem and "at least 1.3" in problem


def test_words_and_characters_are_counted_in_the_prose_only():
    assert english_words("The `vocab.encode` call, $\\log p(w)$ and\n$$x_i$$ words [link](http://x.org/a)") == 5
    assert chinese_characters("词向量 `词` $词$ <b>词</b>") == 4
    assert english_words("inline maths across lines $a +\nb$ is not prose") == 7


def test_a_missing_chinese_notebook_or_an_orphan_is_named(tmp_path):
    english, chinese = translated_pair(tmp_path)
    english_notebook(tmp_path / "notebooks", "01_second.ipynb")
    (tmp_path / "notebooks" / "zh" / "07_orphan.ipynb").write_text(chinese.read_text(encoding="utf-8"))
    problems = check_editions(tmp_path / "notebooks")
    assert any("01_second.ipynb: missing" in p for p in problems)
    assert any("07_orphan.ipynb: no English notebook" in p for p in problems)


def test_the_editions_command_checks_syncs_and_stamps(tmp_path):
    english, chinese = translated_pair(tmp_path)
    notebooks = tmp_path / "notebooks"
    assert run_course("editions", "check", "--notebooks", str(notebooks)).returncode == 0
    edit(english, "c3", ENGLISH_TEXT + " More.")
    result = run_course("editions", "check", "--notebooks", str(notebooks))
    assert result.returncode == 1 and "stale" in result.stdout and len(result.stdout.strip().splitlines()) == 1
    result = run_course("editions", "stamp", str(chinese), "c3")
    assert result.returncode == 0, result.stderr
    assert run_course("editions", "check", "--notebooks", str(notebooks)).returncode == 0
    assert_one_line_error(run_course("editions", "stamp", str(chinese), "c1"), "no markdown cell 'c1'")


# --------------------------------------------------------------------- what the package prints


def test_the_edition_comes_from_the_setting_the_environment_or_the_folder(tmp_path, monkeypatch):
    assert resolve_edition() == "en" and resolve_edition("ZH ") == "zh"
    monkeypatch.setenv("COURSE_EDITION", "zh")
    assert resolve_edition() == "zh" and resolve_edition("en") == "en"
    monkeypatch.delenv("COURSE_EDITION")
    (tmp_path / "zh").mkdir()
    monkeypatch.chdir(tmp_path / "zh")  # JupyterLab starts a notebook's kernel in the notebook's folder
    assert resolve_edition() == "zh" and current_edition() == "zh"
    assert use_edition("en") == "en" and current_edition() == "en"
    with pytest.raises(SettingError, match="unknown edition 'fr'"):
        resolve_edition("fr")


def test_every_catalogue_string_exists_in_both_editions_and_formats():
    import string

    for key, entry in CATALOGUE.items():
        assert entry.get("zh"), key
        # a key with no English entry is its own English text; each field is asked for in the same format
        fields = {edition: {(name, spec or "", conversion or "") for _, name, spec, conversion
                            in string.Formatter().parse(entry.get(edition, key)) if name} for edition in ("en", "zh")}
        assert fields["en"] == fields["zh"], f"{key}: the editions ask for different values or formats {fields}"
        values = dict.fromkeys((name for name, _, _ in fields["en"]), 1)
        assert text(key, "en", **values) and text(key, "zh", **values)
    assert text("principal component", "en", n=1) == "principal component 1"
    assert text("principal component", "zh", n=2) == "主成分 2"
    assert text("A masked LM fills in blanks better than a causal LM", "en").startswith("A masked LM")


def test_figure_labels_follow_the_edition():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    from course.figures.plots import training_curve, zipf_plot

    use_edition("zh")
    ax = zipf_plot(np.arange(1000, 0, -1))
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("排名", "频次")
    assert ax.get_legend().get_texts()[1].get_text().startswith("拟合：斜率")
    ax = training_curve([3.0, 2.0, 1.0])
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("步数", "损失")
    use_edition("en")
    assert training_curve([3.0, 2.0]).get_ylabel() == "loss"
    plt.close("all")


def test_the_claims_table_speaks_the_edition():
    rows = [Claim("Syntax is learned low, senses high (peoples-daily-zh)", "08", "m", "c", 0.1, 0.05, HOLDS),
            Claim("Contextual features beat static ones", "09", "m", "c", -0.1, 0.05, FAILS),
            Claim("Some claim without a translation", "11", "-", "-", None, None, f"{NOT_MEASURED}: no file x")]
    page = claims_html(rows, "zh")
    assert "<th>结论</th>" in page and "<th>论断</th>" in page and ">成立<" in page and ">在此不成立<" in page
    assert "句法在低层学到，词义在高层学到 (peoples-daily-zh)" in page and "未测量: no file x" in page
    assert "Some claim without a translation" in page  # a sentence without a translation stays as it is
    assert "| 论断 | 笔记本 |" in claims_markdown(rows, "zh") and "结论" in format_claims(rows, "zh")
    assert "holds" in claims_html(rows, "en") and "成立" not in format_claims(rows, "en")


# ------------------------------------------------------------------ build, assignments, grading


def test_a_chinese_build_runs_the_chinese_notebooks_into_build_zh(tmp_path, monkeypatch):
    monkeypatch.setenv("COURSE_BUILD", str(tmp_path / "build"))  # no models: the claims say why
    english, chinese = translated_pair(tmp_path)
    runs = build_course(profile="smoke", notebooks=tmp_path / "notebooks", edition="zh")
    (run,) = runs
    assert run.error is None and [(h["name"], h["text"]) for h in run.headlines] == [("Edition", "zh")]
    index = (tmp_path / "build" / "zh" / "index.html").read_text(encoding="utf-8")
    assert "<html lang='zh-Hans'>" in index and "动手学词向量" in index and "一个小小的示例笔记本" in index
    assert index.index("论断：在这里成立吗？") < index.index("教师须知") and "无法测量这些论断" in index
    assert "加倍" in run.ideas[0]
    assert 'src="../../static/mathjax/MathJax.js' in run.html.read_text(encoding="utf-8")  # one copy for both editions
    assert (tmp_path / "build" / "static" / "mathjax" / "MathJax.js").is_file()
    student = nbformat.read(tmp_path / "build" / "zh" / "assignments" / "00_toy.ipynb", as_version=4)
    assert student.metadata["course"] == {"edition": "zh", "notebook": "00_toy.ipynb"}
    assert json.loads((tmp_path / "build" / "zh" / "summary.json").read_text())["edition"] == "zh"


def test_the_assignments_command_writes_chinese_student_versions_and_refuses_other_editions(tmp_path):
    out = tmp_path / "students"
    result = run_course("assignments", "--edition", "zh", "--out", str(out))
    assert result.returncode == 0, result.stderr
    written = sorted(out.glob("*.ipynb"))
    assert [p.name for p in written] == sorted(p.name for p in (ROOT / "notebooks" / "zh").glob("[0-9][0-9]_*.ipynb"))
    for path in written:
        notebook = nbformat.read(path, as_version=4)
        assert edition_of(notebook) == "zh" and find_assignments(notebook, path.name, strict=False) is not None
        markdown = "".join(c.source for c in notebook.cells if c.cell_type == "markdown")
        assert chinese_characters(markdown) > english_words(markdown)
    assert_one_line_error(run_course("assignments", "--edition", "fr"), "invalid choice: 'fr'")
    assert_one_line_error(run_course("build", "--edition", "de", "--only", "none"), "invalid choice: 'de'")


def test_a_chinese_notebook_is_graded_against_the_chinese_teachers_notebook(tmp_path):
    teacher = ROOT / "notebooks" / "zh" / "01_one_hot_to_embeddings.ipynb"  # 03's two grades take twice as long
    report = grade_notebook(teacher, timeout=300)
    expected = [a.id for a in find_assignments(nbformat.read(teacher, as_version=4), teacher.name)]
    assert report.teacher == teacher.name and [r.id for r in report.results] == expected
    assert "positive_pmi" in expected
    assert report.score == report.points > 0, [r.reason for r in report.results]
    student = student_version(nbformat.read(teacher, as_version=4), teacher.name)
    del student.metadata["course"]  # a student's copy that lost its metadata is still Chinese by its text
    path = tmp_path / "作业.ipynb"
    nbformat.write(student, path)
    assert edition_of(nbformat.read(path, as_version=4)) == "zh"
    report = grade_notebook(path, timeout=300)
    assert report.score == 0 and all(r.reason.endswith("not answered (NotImplementedError)") for r in report.results)


def test_the_chinese_edition_builds_in_the_smoke_profile(tmp_path):
    """Two Chinese notebooks executed as `make course EDITION=zh PROFILE=smoke` runs them: 00 and 07, whose
    pages hold Chinese figures, tables and interactive maps. The code cells are the English ones, which
    nbval runs whole; what differs is the text they print, whose every field and format is the English
    text's (the test above), so a sentence that formats in English formats in Chinese."""
    env = {**os.environ, "COURSE_PROFILE": "smoke"}
    result = subprocess.run([sys.executable, "-m", "course", "build", "--profile", "smoke", "--edition", "zh",
                             "--only", "00_", "--only", "07_", "--out", str(tmp_path / "zh")], capture_output=True,
                            text=True, timeout=1_200, cwd=ROOT, env=env)
    assert result.returncode == 0, result.stderr[-3000:] + result.stdout[-3000:]
    index = (tmp_path / "zh" / "index.html").read_text(encoding="utf-8")
    assert "论断：在这里成立吗？" in index and "运行失败" not in index
    pages = [tmp_path / "zh" / "index.html", *sorted((tmp_path / "zh" / "notebooks").glob("*.html"))]
    assert [page.name[:3] for page in pages[1:]] == ["00_", "07_"]
    fetched = {page.name: external_references(page.read_text(encoding="utf-8")) for page in pages}
    assert fetched == {page.name: [] for page in pages}  # every page works offline
    assert all('src="../static/mathjax/MathJax.js' in page.read_text(encoding="utf-8") for page in pages[1:])
    assert (tmp_path / "zh" / "static" / "mathjax" / "MathJax.js").is_file()
    polysemy = pages[2].read_text(encoding="utf-8")
    assert "词义" in polysemy and "<img" in polysemy  # Chinese prose and figures
    maps = re.findall(r"<iframe srcdoc='([^']*)'", polysemy)  # the notebooks a reader explores hold maps
    assert maps and all("Bokeh" in m and len(m.encode()) < 2_000_000 for m in maps), len(maps)


# ------------------------------------------------------------------------------- glossary


def test_a_chinese_cell_using_a_variant_the_glossary_does_not_use_is_named_with_the_term(tmp_path):
    english, chinese = translated_pair(tmp_path)
    before = nbformat.read(chinese, as_version=4).cells[3].source
    edit(chinese, "c3", before + "\n\n每次出现都以另一次出现的词义作为预测，训练时施加暂退法。")
    problems = check_pair(english, chinese)
    assert len(problems) == 3 and all("cell 3 (c3)" in p and "\n" not in p for p in problems), problems
    assert sum("'每次出现' for token: the glossary's term is 词元" in p for p in problems) == 1
    assert sum("'暂退法' for dropout: the glossary's term is 随机失活" in p for p in problems) == 1
    edit(chinese, "c3", before + "\n\n每个词元都以另一个词元的词义作为预测，训练时施加随机失活（也称暂退法）。")
    assert check_pair(english, chinese) == []


@pytest.mark.parametrize("sentence", ["它在语料库中出现 17 次", "一个词型在它第一次出现的位置上变为已见过",
                                      "首次出现的次数", "它的每个词元都以如下概率保留",
                                      "词表（vocabulary，也称词汇表）", "一次出现了三个错误"])
def test_what_the_glossary_allows(sentence):
    assert glossary_problems(sentence) == []


@pytest.mark.parametrize("term", [term for term in GLOSSARY if term.refused], ids=lambda term: term.chinese)
def test_every_variant_the_glossary_lists_is_refused_and_its_own_term_is_not(term):
    shown = [variant.split(" (")[0] for variant in re.split(r"[,;] ", term.shown)]
    assert shown and all(glossary_problems(f"这里写的是{variant}。", (term,)) for variant in shown), shown
    assert glossary_problems(f"这里写的是{term.chinese}。") == []


def test_what_the_course_prints_in_chinese_and_the_chinese_readme_use_the_glossary():
    printed = [f"{key}: {problem}" for key, entry in CATALOGUE.items()
               for problem in glossary_problems(re.sub(r"\{[^}]*\}", "1", entry["zh"]))]
    assert not printed, "\n".join(printed)
    readme = glossary_problems(prose((ROOT / "README.zh.md").read_text(encoding="utf-8")))
    assert not readme, "\n".join(readme)


def test_the_glossary_document_lists_the_glossary():
    assert glossary_table() in (ROOT / "docs" / "glossary.md").read_text(encoding="utf-8")


# ------------------------------------------------------------------------------- comments of code cells


@pytest.mark.parametrize("source", [
    "x = f(y)  # the count of each word / 每个词的计数",
    "# 每个词的计数\nx = f(y)  # the count of each word",
    "# 先按计数排序，再取前 k 个\n# sort by count,\n# then keep the first k\nx = f(y)",
    "# sort by count, then keep the first k\n# 先按计数排序，再取前 k 个\nx = f(y)",
    "x = f(y)  # (V, d)", "x = f(y)  # sigma(u . v)", "z = g(x)  # np.exp(x_i)", "### BEGIN SOLUTION\nx = 1",
    "%timeit f(y)  # time it\nx = 1  # one", "s = 'a # string with words in it'",
    "x = f(y)  # (n,) ids of the words / 词的 id",
])
def test_comments_with_their_chinese_or_without_words_pass(source):
    assert untranslated_comments(source) == []


@pytest.mark.parametrize("source, found", [
    ("x = f(y)  # the count of each word", ["# the count of each word"]),
    ("# 每个词的计数\nx = f(y)\nz = g(x)  # the vector of each word", ["# the vector of each word"]),
    ("x = f(y)  # (n,) ids of the vocabulary words", ["# (n,) ids of the vocabulary words"]),
    ("def f(y):\n    # sort by count first\n    return sorted(y)", ["# sort by count first"]),
])
def test_a_comment_in_english_words_alone_is_found(source, found):
    assert untranslated_comments(source) == found


def test_an_english_only_comment_is_named_with_its_notebook_and_the_fix(tmp_path):
    english, chinese = translated_pair(tmp_path)
    edit(english, "c2", nbformat.read(english, as_version=4).cells[2].source + "  # print the edition's name")
    sync_notebook(english)
    (problem,) = check_pair(english, chinese)
    assert "cell 2 (c2)" in problem and "print the edition's name" in problem and "editions sync" in problem
    assert "\n" not in problem
    edit(english, "c2", nbformat.read(english, as_version=4).cells[2].source + " / 打印版本名")
    sync_notebook(english)
    assert check_pair(english, chinese) == []
