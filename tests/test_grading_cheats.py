"""Answers that borrow the course's own implementation score nothing, however they reach it: the kernel that runs a
student's notebook holds only stubs of what its checks compare with (course.teaching.student_package)."""

import inspect
from textwrap import dedent

import nbformat
from nbformat.v4 import new_code_cell

from course.teaching.grading import grade_notebook
from course.ulmfit import schedules
from tests.test_assignments import grade_cell, solution_cell, toy_notebook
from tests.test_grading import reasons, write

# Notebook 10's two assignments, as its cells have them, and a third whose reference is private to the checks;
# the last one asks the student's kernel whether any grade cell ran there (each grade cell leaves a mark).
SETUP = new_code_cell(dedent("""\
    import math
    import numpy as np

    from course.teaching.checks import (check_discriminative_rates, check_negative_sampling_loss,
                                        check_slanted_triangular)
    """))
SLANTED = dedent("""\
    def slanted_triangular(step, total_steps, max_rate, cut_frac=0.1, ratio=32):
        ### BEGIN SOLUTION
        cut = max(1, math.floor(total_steps * cut_frac))
        if step < cut:
            p = step / cut
        else:
            p = max(0.0, 1 - (step - cut) / (cut * (1 / cut_frac - 1)))
        return max_rate * (1 + p * (ratio - 1)) / ratio
        ### END SOLUTION""")
RATES = dedent("""\
    def discriminative_rates(top_rate, num_groups, factor=2.6):
        ### BEGIN SOLUTION
        return [top_rate / factor ** (num_groups - 1 - group) for group in range(num_groups)]
        ### END SOLUTION""")
LOSS = dedent("""\
    def negative_sampling_loss(center, context, noise):
        ### BEGIN SOLUTION
        true_score, noise_scores = context @ center, noise @ center
        loss = np.logaddexp(0, -true_score) + np.logaddexp(0, noise_scores).sum()
        true_error = np.exp(-np.logaddexp(0, -true_score)) - 1
        noise_error = np.exp(-np.logaddexp(0, -noise_scores))
        grad_center = true_error * context + noise_error @ noise
        return float(loss), grad_center, true_error * center, np.outer(noise_error, center)
        ### END SOLUTION""")
PROBE = dedent("""\
    def grade_cells_ran():
        ### BEGIN SOLUTION
        return sorted(name for name in globals() if name.startswith("GRADE_CELL_RAN"))
        ### END SOLUTION""")


def teacher_notebook():
    return toy_notebook(
        SETUP,
        solution_cell("slanted_triangular", SLANTED),
        grade_cell("slanted_triangular", "GRADE_CELL_RAN_1 = True\ncheck_slanted_triangular(slanted_triangular)\n"
                                         "### BEGIN HIDDEN TESTS\nassert abs(slanted_triangular(10, 100, 1.0) - 1.0) "
                                         "< 1e-12\n### END HIDDEN TESTS"),
        solution_cell("discriminative_rates", RATES),
        grade_cell("discriminative_rates", "GRADE_CELL_RAN_2 = True\ncheck_discriminative_rates(discriminative_rates)"),
        solution_cell("negative_sampling_loss", LOSS),
        grade_cell("negative_sampling_loss", "GRADE_CELL_RAN_3 = True\n"
                                             "check_negative_sampling_loss(negative_sampling_loss)", points=2),
        solution_cell("grade_cells_ran", PROBE),
        grade_cell("grade_cells_ran", "assert grade_cells_ran() == [], grade_cells_ran()"))


# Each reaches the course's slanted_triangular or discriminative_rates, or the checks' own reference, in a way the
# student's kernel itself would have to see to catch; each, with the real package there, would score full marks.
CHEATS = {
    "called directly": "from course.ulmfit.schedules import slanted_triangular",
    "the tracer replaced": dedent("""\
        import course.teaching.remote as remote


        class Blind:
            def __enter__(self):
                return self

            def __exit__(self, *exc):
                pass

            def report(self):
                return {"course": [], "prints": [], "switched_off": False}


        remote._Trace = Blind
        from course.ulmfit.schedules import discriminative_rates"""),
    "the record filtered": dedent("""\
        import course.teaching.remote as remote

        answer = remote._answer


        def quiet(request, namespace, graphs):
            result = answer(request, namespace, graphs)
            result.pop("ran", None)
            return result


        remote._answer = quiet
        from course.ulmfit.schedules import slanted_triangular"""),
    "a thread started before tracing": dedent("""\
        import queue, threading
        from course.ulmfit import schedules

        asked, told = queue.Queue(), queue.Queue()


        def worker():
            while True:
                args = asked.get()
                try:
                    told.put((True, schedules.discriminative_rates(*args)))
                except Exception as exc:
                    told.put((False, exc))


        threading.Thread(target=worker, daemon=True).start()


        def discriminative_rates(*args):
            asked.put(args)
            ok, value = told.get()
            if not ok:
                raise value
            return value"""),
    "exec of its source with another docstring": dedent("""\
        import inspect
        from course.ulmfit import schedules

        source = inspect.getsource(schedules.slanted_triangular).replace("The slanted", "My slanted")
        namespace = dict(vars(schedules))
        exec(source, namespace)
        slanted_triangular = namespace["slanted_triangular"]"""),
    "a forked child": dedent("""\
        import os, pickle
        from course.ulmfit import schedules


        def discriminative_rates(*args):
            read, write = os.pipe()
            child = os.fork()
            if child == 0:
                try:
                    data = pickle.dumps(schedules.discriminative_rates(*args))
                except Exception as exc:
                    data = pickle.dumps(exc)
                os.write(write, data)
                os._exit(0)
            os.close(write)
            data = b""
            while chunk := os.read(read, 1 << 16):
                data += chunk
            os.waitpid(child, 0)
            value = pickle.loads(data)
            if isinstance(value, Exception):
                raise value
            return value"""),
    "the checks' private reference": "from course.teaching.checks.word2vec import _negative_sampling_reference as "
                                     "negative_sampling_loss",
}


def test_the_teachers_answers_score_full_marks_and_no_grade_cell_runs_in_the_students_kernel(tmp_path):
    teacher = write(teacher_notebook(), tmp_path / "teacher" / "10_toy.ipynb")
    report = grade_notebook(teacher, timeout=60, source_dir=teacher.parent)
    assert report.score == report.points == 5, reasons(report)


def submit(tmp_path, name: str, **answers) -> dict:
    """Grade the teacher's notebook with the solution cells of ``answers`` (by function) replaced."""
    teacher = write(teacher_notebook(), tmp_path / "teacher" / "10_toy.ipynb")
    student = nbformat.read(teacher, as_version=4)
    cells = {"slanted_triangular": 2, "discriminative_rates": 4, "negative_sampling_loss": 6}
    for function, source in answers.items():
        student.cells[cells[function]].source = source
    report = grade_notebook(write(student, tmp_path / name / teacher.name), timeout=60, source_dir=teacher.parent)
    return {result.id: (result.score, result.reason) for result in report.results}


def test_every_way_of_reaching_the_courses_implementation_scores_nothing(tmp_path):
    left_out = "is left out of the student version of the course"
    graded = [submit(tmp_path, "first", slanted_triangular=CHEATS["called directly"],
                     discriminative_rates=CHEATS["the tracer replaced"],
                     negative_sampling_loss=CHEATS["the checks' private reference"]),
              submit(tmp_path, "second", slanted_triangular=CHEATS["the record filtered"],
                     discriminative_rates=CHEATS["a thread started before tracing"]),
              submit(tmp_path, "third", slanted_triangular=CHEATS["exec of its source with another docstring"],
                     discriminative_rates=CHEATS["a forked child"])]
    for results in graded:
        assert results["slanted_triangular"][0] == results["discriminative_rates"][0] == 0, results
        assert left_out in results["slanted_triangular"][1] and left_out in results["discriminative_rates"][1], results
        assert results["grade_cells_ran"][0] == 1, results
    assert graded[0]["negative_sampling_loss"][0] == 0
    assert "ImportError: cannot import name '_negative_sampling_reference'" in graded[0]["negative_sampling_loss"][1]
    assert graded[1]["negative_sampling_loss"][0] == graded[2]["negative_sampling_loss"][0] == 2, "the rest graded"


def test_a_pasted_copy_of_the_courses_source_is_still_caught_by_its_bytecode(tmp_path):
    source = inspect.getsource(schedules.slanted_triangular).replace("CUT_FRAC", "0.1").replace("RATIO", "32")
    pasted = "from course.core.errors import SettingError\nimport math\n\n" + source
    results = submit(tmp_path, "pasted", slanted_triangular=pasted)
    assert scores_of(results) == {"slanted_triangular": 0, "discriminative_rates": 1, "negative_sampling_loss": 2,
                                  "grade_cells_ran": 1}, results
    assert "runs the course's own implementation" in results["slanted_triangular"][1]
    assert "course/ulmfit/schedules.py: slanted_triangular" in results["slanted_triangular"][1]


def scores_of(results: dict) -> dict:
    return {name: score for name, (score, _) in results.items()}

