"""``reasoneval-course grade``: grade a folder of student submissions.

Exit code 0 when the batch completed, failing students included; 2 with a
message naming the bad value when the arguments are unusable (no such folder,
no student folders, a broken hidden tests file, a bad --workers or --timeout).
"""

import argparse
import math
import os
import sys
from pathlib import Path

DEFAULT_OUT = "grades.csv"


def run_grade(args):
    """Grade ``args.submissions_dir``, write the reports, print a summary."""
    from reasoneval_mini.grading.statuses import GRADE_STATUSES
    from reasoneval_mini.grading.grader import grade_class
    from reasoneval_mini.grading.instructor_checks import load_registry
    from reasoneval_mini.grading.reports import write_feedback, write_grades

    try:
        for target in filter(None, (args.out, args.feedback)):  # fail before grading
            if args.feedback == target:
                Path(target).mkdir(parents=True, exist_ok=True)
            elif Path(target).is_dir():
                raise ValueError(f"--out {target!r} is a folder; expected a CSV file name")
            else:
                Path(target).parent.mkdir(parents=True, exist_ok=True)
        grades = grade_class(args.submissions_dir, registry=args.registry,
                             hidden_tests=args.hidden_tests, workers=args.workers,
                             timeout=args.timeout, progress=not args.no_progress)
    except (ValueError, OSError) as error:
        print(f"reasoneval-course grade: error: {error}", file=sys.stderr)
        return 2
    out, totals = write_grades(grades, args.out)
    written = [str(out), str(totals)]
    if args.feedback:
        exercises = dict(load_registry(args.registry).EXERCISES)
        paths = write_feedback(grades, exercises, args.feedback)
        written.append(f"{len(paths)} feedback files in {args.feedback}")
    students = len({g.student for g in grades})
    counts = ", ".join(f"{s} {sum(g.status == s for g in grades)}" for s in GRADE_STATUSES)
    print(f"graded {students} students, {len(grades)} exercise grades ({counts})")
    print("wrote " + "; ".join(written))
    return 0


def positive_seconds(text):
    """An argparse type: a finite number of seconds > 0 (``nan``, ``inf``, ``-1`` refused)."""
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not (value > 0 and math.isfinite(value)):
        raise argparse.ArgumentTypeError(
            f"expected a positive, finite number of seconds, got {text!r}")
    return value


def _positive_int(text):
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"expected a positive whole number, got {text!r}")
    return int(text)


def register(subparsers):
    from reasoneval_mini.grading.grader import DEFAULT_TIMEOUT
    from reasoneval_mini.grading.instructor_checks import DEFAULT_REGISTRY

    parser = subparsers.add_parser(
        "grade", help="grade a class: one folder of notebooks per student",
        description="Grade SUBMISSIONS_DIR/<student>/<notebook>.ipynb with the instructor's "
                    "checks; writes one row per (student, exercise) and per-student totals.")
    parser.add_argument("submissions_dir", metavar="SUBMISSIONS_DIR",
                        help="one folder per student, named after the student")
    parser.add_argument("--out", default=DEFAULT_OUT,
                        help="grades CSV (default: %(default)s); totals go to <name>_totals.csv")
    parser.add_argument("--feedback", metavar="DIR", help="write <student>.md feedback files here")
    parser.add_argument("--hidden-tests", metavar="PATH",
                        help="Python file defining HIDDEN_CHECKS = {exercise_id: [check, ...]}")
    parser.add_argument("--workers", type=_positive_int, default=None,
                        help=f"students graded in parallel (default: CPU count, {os.cpu_count()})")
    parser.add_argument("--timeout", type=positive_seconds, default=DEFAULT_TIMEOUT,
                        help="seconds one step may take: one notebook cell, or the checks of "
                             "one exercise (default: %(default)s)")
    # Undocumented: the tests grade against a small fake registry.
    parser.add_argument("--registry", default=DEFAULT_REGISTRY, help=argparse.SUPPRESS)
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.set_defaults(run=run_grade)

