from pathlib import Path

import nbformat
import pytest
import torch

from course.shared.files import SHARED_FILES, shared_files
from course.teaching.report import shared_files_table

ROOT = Path(__file__).resolve().parents[1]


def notebook(number: str):
    return nbformat.read(next((ROOT / "notebooks").glob(f"{number}_*.ipynb")), as_version=4)


def code_of(number: str) -> str:
    return "\n".join(cell.source for cell in notebook(number).cells if cell.cell_type == "code")


def test_each_shared_file_is_named_as_the_code_that_makes_it_names_it():
    from course.shared.bilm import model_path
    from course.shared.vectors import vectors_path

    expected = {vectors_path(kind, corpus, "full").name for kind in ("skipgram-neg", "glove")
                for corpus in ("wiki-en", "peoples-daily-zh")}
    expected |= {model_path(corpus, "full").name for corpus in ("wiki-en", "peoples-daily-zh")}
    for shared in SHARED_FILES:
        if shared.model:
            assert shared.name in expected, shared
        else:  # a result: the notebook that makes it and those that read it name it
            for number in (shared.made_in, *shared.used_in):
                assert f'"{shared.name}"' in code_of(number), (shared.name, number)


def test_a_file_is_made_before_every_notebook_that_loads_it_and_each_shows_its_table():
    for shared in SHARED_FILES:
        assert all(shared.made_in < user for user in shared.used_in), shared
        for number in (shared.made_in, *shared.used_in):
            assert f'shared_files_table("{number}", PROFILE)' in code_of(number), (shared.name, number)


@pytest.mark.parametrize("edition", ["en", "zh"])
def test_the_table_says_what_is_loaded_made_here_or_missing(tmp_path, monkeypatch, edition):
    from course import use_edition
    from course.shared.bilm import course_config

    monkeypatch.setenv("COURSE_BUILD", str(tmp_path))
    use_edition(edition)
    try:
        models = tmp_path / "models" / "smoke"
        models.mkdir(parents=True)
        (models / "elmo-cpu-wiki-en.pt").write_bytes(b"x")
        unreadable = shared_files_table("11", "smoke").data
        config = course_config("wiki-en", "smoke").to_dict()
        torch.save({"format": "course.elmo/1", "config": config | {"threads": 2, "device": "cuda"}},
                   models / "elmo-cpu-wiki-en.pt")
        table = shared_files_table("11", "smoke").data
        torch.save({"format": "course.elmo/1", "config": config | {"epochs": config["epochs"] + 1}},
                   models / "elmo-cpu-wiki-en.pt")
        stale = shared_files_table("11", "smoke").data
    finally:
        use_edition("en")
    rows = {line.split("|")[1].strip(" `"): line for line in table.splitlines()[2:] if line.startswith("|")}
    assert set(rows) == {f.name for f in shared_files("11")}
    loaded, missing = {"en": ("saved: loaded", "run notebook 09 first"),
                       "zh": ("已保存：直接加载", "先运行笔记本 09")}[edition]
    assert loaded in rows["elmo-cpu-wiki-en.pt"] and ("notebook 06" in rows["elmo-cpu-wiki-en.pt"]
                                                       or "笔记本 06" in rows["elmo-cpu-wiki-en.pt"])
    assert missing in rows["ner-curve-peoples-daily-zh.json"]
    again = {"en": ("cannot be read: trained again here", "other settings (epochs="),
             "zh": ("无法读取：在这里重新训练", "设置与现在不同（epochs=")}[edition]
    assert again[0] in unreadable.split("elmo-cpu-wiki-en.pt")[1].splitlines()[0]
    row = stale.split("elmo-cpu-wiki-en.pt")[1].splitlines()[0]  # only the epochs count: not threads or device
    assert again[1] in row and "threads" not in row and loaded not in row
    made = shared_files_table("07", "smoke").data
    assert "this notebook" in made and "made here now" not in made.split("elmo-cpu-peoples-daily-zh.pt")[1]


@pytest.mark.parametrize("edition", ["en", "zh"])
def test_the_full_profile_table_says_how_an_archive_spares_the_training(tmp_path, monkeypatch, edition):
    from course import use_edition
    from course.shared.bilm import course_config

    monkeypatch.setenv("COURSE_BUILD", str(tmp_path))
    hint = {"en": "python -m course models get", "zh": "python -m course models get"}[edition]
    use_edition(edition)
    try:
        assert hint in shared_files_table("06", "full").data  # the biLM is not saved: trained here
        assert hint not in shared_files_table("06", "smoke").data  # seconds of training: no advice
        models = tmp_path / "models"
        models.mkdir(parents=True)
        torch.save({"format": "course.elmo/1", "config": course_config("wiki-en", "full").to_dict()},
                   models / "elmo-cpu-wiki-en.pt")
        loaded = shared_files_table("06", "full").data
        assert hint not in loaded  # saved with the course's settings: loaded, nothing to spare
        assert hint in shared_files_table("11", "full").data  # the Chinese biLM it also loads is missing
        torch.save({"format": "course.elmo/1", "config": course_config("peoples-daily-zh", "full").to_dict()},
                   models / "elmo-cpu-peoples-daily-zh.pt")
        assert hint not in shared_files_table("11", "full").data.split("|")[-1]  # a missing result is no model
    finally:
        use_edition("en")
