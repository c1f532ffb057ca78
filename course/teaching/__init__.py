"""What delivers the course, apart from the models it teaches: one job per module.

- :mod:`~course.teaching.report`: headline numbers and small tables a notebook shows;
- :mod:`~course.teaching.checks`: the checks a student runs on an assignment's answer, one module per topic;
- :mod:`~course.teaching.assignments`: nbgrader's markers in the notebooks, and the student versions;
- :mod:`~course.teaching.grading`: ``grade``: a returned notebook run in a student kernel, checked in another;
- :mod:`~course.teaching.sandbox` and :mod:`~course.teaching.remote`: the student kernel's limits, and the
  calls from the checking kernel into it;
- :mod:`~course.teaching.build`: ``make course``: every notebook run, the student versions, ``build/index.html``.

Nothing here is imported with the package: each module loads what it needs when it is imported.
"""
