"""While a notebook runs, the build says every few minutes where it stands: the code cell, its heading,
how long it has run and what it printed last."""

import threading
import time

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

from course.teaching import heartbeat
from course.teaching.build import build_course
from course.teaching.heartbeat import Heartbeat, cell_sections, last_printed_line


def _lesson():
    return new_notebook(cells=[
        new_markdown_cell("# 06 · A lesson"),
        new_code_cell("setup = 1"),
        new_markdown_cell("## 1 · Counting\nSome words."),
        new_code_cell("count = 2"),
        new_code_cell("count += 1"),
        new_markdown_cell("## 2 · Training\n\n### Assignment · The loss\nMore words."),
        new_code_cell("train()"),
    ])


def test_each_code_cell_is_numbered_under_the_last_heading_above_it():
    lesson = _lesson()
    sections = cell_sections(lesson)
    code = [cell for cell in lesson.cells if cell.cell_type == "code"]
    assert [sections[("id", cell.id)] for cell in code] == [
        (1, "06 · A lesson"), (2, "1 · Counting"), (3, "1 · Counting"), (4, "Assignment · The loss")]
    assert sections[("source", "count += 1")] == (3, "1 · Counting")  # found again with another id


def test_the_last_printed_line_leaves_out_a_librarys_warnings():
    cell = new_code_cell("train()")
    warning = ("/x/torch/nn/modules/rnn.py:1124: UserWarning: LSTM with projections is not supported\n"
               "  result = _VF.lstm(input, hx, self._flat_weights)\n")
    cell.outputs = [new_output("stream", name="stdout", text="epoch 2 of 5\n"),
                    new_output("stream", name="stderr", text=warning)]
    assert last_printed_line(cell) == "epoch 2 of 5"
    cell.outputs = [new_output("stream", name="stderr",
                               text="resumed at step 40\n" + warning + "  indented, but no warning's\n")]
    assert last_printed_line(cell) == "indented, but no warning's"
    cell.outputs = [new_output("stream", name="stderr", text="resumed at step 40\n" + warning + warning)]
    assert last_printed_line(cell) == "resumed at step 40"
    cell.outputs = [new_output("stream", name="stderr", text=warning + "loss 3.2\n  indented after text\n")]
    assert last_printed_line(cell) == "indented after text"


def test_the_last_printed_line_is_a_progress_bars_latest_state():
    cell = new_code_cell("train()")
    assert last_printed_line(cell) == ""
    cell.outputs = [new_output("stream", name="stderr", text="note: resumed\n"),
                    new_output("stream", name="stderr", text="epoch 1:  10%\repoch 1:  55%\r  \n"),
                    new_output("display_data", data={"text/plain": "<Figure>"})]
    assert last_printed_line(cell) == "epoch 1:  55%"
    cell.outputs = [new_output("stream", name="stdout", text="x" * 500)]
    line = last_printed_line(cell)
    assert len(line) == heartbeat.TAIL_CHARACTERS and line.endswith("...")


def test_a_line_says_which_cell_runs_under_which_heading_for_how_long():
    lesson = _lesson()
    beat = Heartbeat("06_lesson", lesson, seconds=60)
    start = beat.started
    assert beat.line(start + 30) == "  06_lesson: 0.5 min; starting"
    training = lesson.cells[-1]
    beat.on_cell_execute(cell=training, cell_index=7)
    training.outputs = [new_output("stream", name="stderr", text="epoch 3 of 8\r")]
    moment = beat.cell_started + 6 * 60
    assert beat.line(moment) == (f"  06_lesson: {(moment - start) / 60:.1f} min; code cell 4 of 4, "
                                 f'"Assignment · The loss", for 6.0 min: epoch 3 of 8')
    beat.on_cell_executed(cell=lesson.cells[1], cell_index=1)  # another cell's answer changes nothing
    assert "for 6.0 min" in beat.line(moment)
    beat.on_cell_executed(cell=training, cell_index=7)
    assert beat.line(moment).endswith("; after code cell 4 of 4")
    injected = new_code_cell("PROFILE = 'full'")  # papermill's parameters: not a cell of the notebook
    beat.on_cell_execute(cell=injected, cell_index=2)
    assert "; its parameters, for" in beat.line()


def test_a_line_shows_the_progress_bar_the_kernel_wrote_rather_than_the_last_printed_line(tmp_path):
    lesson = _lesson()
    status = tmp_path / "progress"
    beat = Heartbeat("06_lesson", lesson, seconds=60, status=status)
    training = lesson.cells[-1]
    training.outputs = [new_output("stream", name="stderr", text="note: resumed\n")]
    beat.on_cell_execute(cell=training, cell_index=7)
    assert beat.line().endswith("min: note: resumed")  # no bar open: no file
    status.write_text("ELMo (cpu):  62%|######2   | 1.65M/2.67M [05:58<03:24, 4.96ktok/s]\n", encoding="utf-8")
    assert beat.line().endswith("min: ELMo (cpu):  62%|######2   | 1.65M/2.67M [05:58<03:24, 4.96ktok/s]")


def test_a_build_prints_where_a_long_notebook_stands_and_stops_when_it_ends(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(heartbeat, "HEARTBEAT_SECONDS", 0.5)
    monkeypatch.setenv("COURSE_BUILD", str(tmp_path / "build"))
    source = tmp_path / "notebooks"
    source.mkdir()
    parameters = new_code_cell("PROFILE = None\nEDITION = None")
    parameters.metadata["tags"] = ["parameters"]
    notebook = new_notebook(cells=[new_markdown_cell("# 02 · Sleeper"), parameters,
                                   new_markdown_cell("## 2 · Sleeping"),
                                   new_code_cell("import time\nprint('resting', flush=True)\ntime.sleep(2.5)"),
                                   new_markdown_cell("## 3 · Counting"),
                                   new_code_cell("import course.core.progress\n"
                                                 "course.core.progress.STATUS_SECONDS = 0.1\n"
                                                 "bar = course.core.progress.progress_bar(total=10, desc='steps')\n"
                                                 "bar.update(4)\ntime.sleep(2.5)\nbar.close()")])
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(notebook, source / "02_sleeper.ipynb")
    runs = build_course(profile="smoke", out=tmp_path / "build", notebooks=source, jobs=1)
    assert runs[0].error is None
    lines = [line for line in capsys.readouterr().out.splitlines() if line.startswith("  02_sleeper: ")]
    assert any(line.endswith('; code cell 2 of 3, "2 · Sleeping", for 0.0 min: resting') for line in lines), lines
    counting = [line for line in lines if '; code cell 3 of 3, "3 · Counting"' in line]
    assert any(": steps:  40%|████      | 4/10 [" in line for line in counting), lines
    time.sleep(1.2)
    assert not [line for line in capsys.readouterr().out.splitlines() if "02_sleeper" in line]
    assert not [thread for thread in threading.enumerate() if thread.name.startswith("heartbeat-")]
