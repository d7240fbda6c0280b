"""Benchmark: the grader's own CPU per student (the trusted side, not the grading children).

Grades the synthetic class of ``benchmarks/grading.py`` (correct, partial and
blank students in turn) with :func:`grade_class` on one worker, several times,
and reports this process's CPU time per student (``time.process_time``: every
thread of the grader, none of its children) and the wall time per student.

With ``--out DIR`` it also writes the last run's ``grades.csv`` (with its
totals) and ``checks.json`` (every check of every grade) there, so that two
versions of the package can be compared byte for byte, each imported through
``PYTHONPATH``::

    PYTHONPATH=/path/to/main python benchmarks/grader_cpu.py --out /tmp/before
    PYTHONPATH=$PWD python benchmarks/grader_cpu.py --out /tmp/after
    cmp /tmp/before/grades.csv /tmp/after/grades.csv && cmp /tmp/before/checks.json /tmp/after/checks.json

Run:  python benchmarks/grader_cpu.py [--students 6] [--repeat 3] [--per-folder] [--out DIR]
"""

import argparse
import json
import tempfile
import time
from pathlib import Path

from grading import build_class

#: A fixed grading key, so that two runs draw the same hidden checks.
KEY = bytes(range(32))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=6)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--per-folder", action="store_true",
                        help="judge each student on their folder's variant (default: everyone "
                             "on the shipped one, as benchmarks/grading.py does)")
    parser.add_argument("--out", help="write grades.csv and checks.json of the last run here")
    args = parser.parse_args(argv)
    import reasoneval_mini
    from reasoneval_mini.exercises.variants import DEFAULT_IDENTITY
    from reasoneval_mini.grading.grader import grade_class
    from reasoneval_mini.grading.reports import write_grades

    print(f"package: {Path(reasoneval_mini.__file__).parent}")
    with tempfile.TemporaryDirectory(prefix="grader-cpu-") as tmp:
        root = Path(tmp) / "submissions"
        build_class(root, args.students)
        cpu, wall = [], []
        for _ in range(args.repeat):
            cpu_start, wall_start = time.process_time(), time.perf_counter()
            grades = grade_class(root, workers=1, progress=False, grading_key=KEY,
                                 identity=None if args.per_folder else DEFAULT_IDENTITY)
            cpu.append((time.process_time() - cpu_start) / args.students)
            wall.append((time.perf_counter() - wall_start) / args.students)
    print(f"grader CPU per student: {', '.join(f'{c * 1000:.0f}' for c in cpu)} ms "
          f"(least {min(cpu) * 1000:.0f} ms); wall per student: least {min(wall) * 1000:.0f} ms "
          f"({args.students} students x {args.repeat}, 1 worker)")
    if args.out:
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        write_grades(grades, out / "grades.csv")
        (out / "checks.json").write_text(json.dumps(
            [[g.student, g.exercise, g.language, list(g.checks)] for g in grades],
            indent=0, sort_keys=True, default=str) + "\n", encoding="utf-8")
        print(f"wrote {out / 'grades.csv'}, its totals and {out / 'checks.json'}")


if __name__ == "__main__":
    main()
