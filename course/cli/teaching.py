"""``build``, ``assignments``, ``grade`` and ``models``: the course run and indexed, its student notebooks,
a student's notebook scored, and a build's models packed into one file and unpacked from it.
"""

from __future__ import annotations

import sys
from pathlib import Path

from ..core.edition import EDITIONS
from .arguments import _size, declare_paths, jobs, processes, seconds
from .output import format_value, table, write_json


def build(args) -> int:
    from ..teaching.build import build_course

    runs = build_course(profile=args.profile, out=args.out, notebooks=args.notebooks, only=args.only,
                        edition=args.edition, jobs=args.jobs)
    failed = [run for run in runs if run.error]
    for run in failed:
        print(f"error: {run.name} failed: {run.error}", file=sys.stderr)
    return 1 if failed else 0


def assignments_command(args) -> int:
    from ..core.paths import build_dir
    from ..teaching.assignments import course_assignments, write_student_versions
    from ..teaching.editions import edition_folder
    from ..teaching.student_package import course_references, write_student_package

    folder = edition_folder(args.edition, args.notebooks)
    out = args.out or build_dir() / ("zh" if args.edition == "zh" else "") / "assignments"
    written = write_student_versions(out=out, notebooks=folder)
    found = course_assignments(folder)
    rows = [("notebook", "assignments", "points")]
    for path in written:
        items = found.get(path.name, [])
        rows.append((path.name, ", ".join(a.id for a in items) or "-", format_value(sum(a.points for a in items))))
    print(table(rows))
    print(f"wrote {len(written)} student notebooks to {written[0].parent}", file=sys.stderr)
    package = write_student_package(Path(out) / "package", course_references(folder)).parent
    print(f"wrote the student version of the course package to {package} (pip install {package})", file=sys.stderr)
    return 0


def nbgrader_init_command(args) -> int:
    from ..teaching.nbgrader_course import CELL_TIMEOUT, init_course

    names = init_course(args.folder, args.notebooks, only=args.only, edition=args.edition, profile=args.profile)
    print("\n".join(names))
    print(f"wrote an nbgrader course of {len(names)} assignments to {args.folder} ({args.profile} profile, "
          f"{CELL_TIMEOUT} s a cell); next: cd {args.folder} && nbgrader generate_assignment {names[0]}",
          file=sys.stderr)
    return 0


def grade_command(args) -> int:
    from ..core.io import check_writable
    from ..teaching.grading import grade_notebook
    from ..teaching.sandbox import Limits

    if args.json and args.json != "-":
        check_writable(args.json, "report")  # before grading, not after it
    limits = Limits(memory=args.memory, cpu_seconds=args.cpu_time, processes=args.processes)
    report = grade_notebook(args.notebook, timeout=args.timeout, profile=args.profile, source_dir=args.source,
                            limits=limits, notebook_timeout=args.notebook_timeout)
    rows = [("assignment", "points", "score", "result")]
    rows += [(r.id, f"{r.points:g}", f"{r.score:g}", r.reason) for r in report.results]
    rows.append(("total", f"{report.points:g}", f"{report.score:g}",
                 f"{report.seconds:.0f} s, {report.profile} profile"))
    rows += [(w.id, f"{w.points:g}", "-", "written: to grade by hand" if w.answered else "written: not answered")
             for w in report.written]
    print(f"{report.notebook}: {report.score:g} of {report.points:g} points"
          + (f", and {report.written_points:g} for written work to grade by hand" if report.written else ""))
    print(table(rows))
    if args.json:
        write_json(report.to_json(), args.json)
    return 0


def models_command(args) -> int:
    from ..teaching import handout

    if args.models_command == "pack":
        archive = handout.pack_models(args.out, args.profile)
        count = len(archive.files)
        print(f"wrote {archive.path}: {count} file{'s' if count != 1 else ''}, {archive.size / 1e6:.1f} MB")
        print(f"SHA-256 {archive.sha256}")
        print(f"a class unpacks it into its clones with: python -m course models get {archive.path}")
        print(f"or, from a web server: python -m course models get URL --sha256 {archive.sha256}")
        return 0
    actions = handout.unpack_models(args.source, args.sha256, args.replace, progress=not args.quiet)
    for name, what in actions:
        print(f"{name}: {what}")
    counts = {what: sum(w == what for _, w in actions) for what in ("written", "replaced", "already there")}
    done = ", ".join(f"{n} {what}" for what, n in counts.items() if n)
    print(f"{len(actions)} file{'s' if len(actions) != 1 else ''}: {done}", file=sys.stderr)
    return 0


def add_parser(subparsers) -> None:
    """``build``, ``assignments``, ``grade`` and ``models`` under ``subparsers`` (the top-level commands)."""
    builder = subparsers.add_parser("build", help="run every notebook and write build/index.html")
    builder.add_argument("--profile", choices=("full", "smoke"), default=None,
                         help="default: $COURSE_PROFILE, else full")
    builder.add_argument("--out", type=Path, default=None, help="default: build/")
    builder.add_argument("--notebooks", type=Path, default=None, help="default: notebooks/")
    builder.add_argument("--only", action="append", default=None,
                         help="run only notebooks whose name contains this (again for more: --only 00 --only 07)")
    builder.add_argument("--edition", choices=EDITIONS, default=None,
                         help="en (notebooks/, into build/) or zh (notebooks/zh/, into build/zh/); "
                              "default: $COURSE_EDITION, else en")
    builder.add_argument("--jobs", type=jobs, default=1,
                         help="notebooks run at a time, each waiting for the models an earlier one is still "
                              "training (default: 1, one after the other)")
    declare_paths(builder, inputs=("notebooks",), outputs=("out",), text=("only",))
    builder.set_defaults(handler=build)

    assigner = subparsers.add_parser("assignments", help="write the student version of every notebook")
    assigner.add_argument("--out", type=Path, default=None, help="default: build/assignments/")
    assigner.add_argument("--notebooks", type=Path, default=None,
                          help="the English teacher's notebooks (the Chinese ones are in its zh/); default: notebooks/")
    assigner.add_argument("--edition", choices=EDITIONS, default="en",
                          help="en or zh (student versions of notebooks/zh/ into build/zh/assignments/); default en")
    declare_paths(assigner, inputs=("notebooks",), outputs=("out",))
    assigner.set_defaults(handler=assignments_command)

    grader = subparsers.add_parser("grade", help="run a student's notebook and score each assignment")
    grader.add_argument("notebook", type=Path, help="the filled-in student notebook (it is never changed)")
    grader.add_argument("--timeout", type=seconds, default=120, help="seconds a cell may run (default 120)")
    grader.add_argument("--notebook-timeout", type=seconds, default=None, metavar="SECONDS",
                        help="seconds the whole notebook may take, both kernels (default 20 cell timeouts)")
    grader.add_argument("--profile", choices=("full", "smoke"), default="smoke",
                        help="the profile the notebook runs with (default smoke: the checks need no more)")
    grader.add_argument("--source", type=Path, default=None,
                        help="the teacher's notebooks, for the grade cells and hidden tests; default: notebooks/")
    grader.add_argument("--memory", type=_size, default="8G",
                        help="memory the student's kernel may use: a quarter for /tmp and /dev/shm, the rest as "
                             "address space (default 8G, at least 3G)")
    grader.add_argument("--cpu-time", type=seconds, default=1_800, metavar="SECONDS",
                        help="CPU seconds the student's kernel may use in all (default 1800)")
    grader.add_argument("--processes", type=processes, default=256,
                        help="processes and threads the student's kernel may run at once (default 256)")
    grader.add_argument("--json", nargs="?", const="-", metavar="OUT", help="JSON to standard output or OUT")
    declare_paths(grader, inputs=("notebook", "source"), outputs=("json",))
    grader.set_defaults(handler=grade_command)

    course = subparsers.add_parser("nbgrader", help="an nbgrader course folder of the notebooks, for nbgrader's own "
                                                    "generate_assignment and autograde")
    course_commands = course.add_subparsers(dest="nbgrader_command", required=True, metavar="ACTION")
    init = course_commands.add_parser("init", help="write nbgrader_config.py and source/<assignment>/ into DIR")
    init.add_argument("folder", type=Path, metavar="DIR", help="the course folder to make (missing or empty)")
    init.add_argument("--notebooks", type=Path, default=None,
                      help="the English teacher's notebooks (the Chinese ones are in its zh/); default: notebooks/")
    init.add_argument("--only", default=None, help="only the notebooks whose name contains this")
    init.add_argument("--edition", choices=EDITIONS, default="en", help="en or zh (notebooks/zh/); default en")
    init.add_argument("--profile", choices=("full", "smoke"), default="smoke",
                      help="the profile nbgrader's kernels run the notebooks in (default smoke)")
    declare_paths(init, inputs=("notebooks",), outputs=("folder",), text=("only",))
    init.set_defaults(handler=nbgrader_init_command)

    modeller = subparsers.add_parser("models", help="pack a build's models into one file, or unpack one handed out")
    model_commands = modeller.add_subparsers(dest="models_command", required=True, metavar="ACTION")
    packer = model_commands.add_parser("pack", help="build/models/ into one zip, with its SHA-256")
    packer.add_argument("--out", type=Path, default=None, help="default: build/course-models.zip")
    packer.add_argument("--profile", choices=("full", "smoke"), default=None,
                        help="whose models (build/models/ or build/models/smoke/); default: $COURSE_PROFILE, else full")
    getter = model_commands.add_parser("get", help="unpack a models archive (a file or a URL) into build/models/")
    getter.add_argument("source", help="the archive: a file, or an http(s) URL (then --sha256 is needed)")
    getter.add_argument("--sha256", default=None, help="the archive's SHA-256, as models pack printed it")
    getter.add_argument("--replace", action="store_true",
                        help="replace models already there with other contents (default: refuse, write nothing)")
    getter.add_argument("--quiet", action="store_true", help="no progress bar for a download")
    declare_paths(packer, outputs=("out",))
    declare_paths(getter, inputs=("source",), text=("sha256",))
    modeller.set_defaults(handler=models_command)
