"""How long ``python -m course grade`` takes per submission, notebook by notebook, and how many an evening grades.

Each notebook's teacher's version is graded as a submission (the teacher's answers: full marks, and every cell
the grader runs), ``--repeats`` times, in the smoke profile, one grade at a time, exactly as
``python -m course grade NOTEBOOK --json OUT`` does it from this checkout. The table gives the median wall-clock
seconds of a grade, the score, and the submissions of that notebook one evening (4 hours) grades one after the
other; the last row is a whole course (every notebook once per
student): the class whose twelve notebooks an evening grades. Other work on the machine slows every figure:
the load average before and after is printed with the table.

    python benchmarks/grading_times.py [--repeats 2] [--only 03 10] [--edition en|zh]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EVENING = 4 * 3600  # seconds


def grade_once(notebook: Path, timeout: int) -> tuple[float, dict]:
    """``(wall-clock seconds, the JSON report)`` of one ``python -m course grade``."""
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "report.json"
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])}
        start = time.perf_counter()
        result = subprocess.run([sys.executable, "-m", "course", "grade", str(notebook), "--timeout", str(timeout),
                                 "--profile", "smoke", "--json", str(out)], cwd=ROOT, env=env, capture_output=True,
                                text=True)
        wall = time.perf_counter() - start
        if result.returncode != 0:
            raise SystemExit(f"{notebook.name}: grade failed: {result.stderr.strip().splitlines()[-1:]}")
        return wall, json.loads(out.read_text(encoding="utf-8"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=2, help="grades of each notebook (default 2; the median)")
    parser.add_argument("--only", nargs="*", default=None, help="notebook numbers, e.g. 03 10 (default: all)")
    parser.add_argument("--edition", choices=("en", "zh"), default="en")
    parser.add_argument("--timeout", type=int, default=600, help="seconds a cell may run (default 600)")
    args = parser.parse_args()
    folder = ROOT / "notebooks" / ("zh" if args.edition == "zh" else "")
    notebooks = [p for p in sorted(folder.glob("[0-9][0-9]_*.ipynb")) if not args.only or p.name[:2] in args.only]
    load = os.getloadavg()
    rows = []
    for notebook in notebooks:
        runs = [grade_once(notebook, args.timeout) for _ in range(args.repeats)]
        wall, report = statistics.median(r[0] for r in runs), runs[-1][1]
        rows.append((notebook.name, wall, f"{report['score']:g} / {report['points']:g}"))
        print(f"  {notebook.name}: {', '.join(f'{r[0]:.1f}' for r in runs)} s", file=sys.stderr, flush=True)
    total = sum(row[1] for row in rows)
    print(f"load average before: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; after: "
          + " ".join(f"{x:.2f}" for x in os.getloadavg()) + f"; {os.cpu_count()} cores; median of {args.repeats}")
    print("| notebook | seconds per submission | teacher's answers | submissions per evening |")
    print("|---|---:|---:|---:|")
    for name, wall, score in rows:
        print(f"| {name} | {wall:.0f} | {score} | {int(EVENING // wall)} |")
    print(f"| all {len(rows)}, one student | {total:.0f} | | {int(EVENING // total)} students |")


if __name__ == "__main__":
    main()
