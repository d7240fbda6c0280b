"""``reasoneval-course grade``: grade a folder of student submissions, write the reports.

Exit code 0 when the batch completed, failing students included; a usage
error (2) naming the bad value when the arguments are unusable (no such
folder, no student folders, a broken hidden tests file, ``--out`` a folder);
130 after a Ctrl-C, once complete files are written (unfinished grades
``interrupted``; further Ctrl-Cs are ignored while they are written).
"""

import signal

from reasoneval_mini.cli import UsageError
from reasoneval_mini.grading.grader import GradingInterrupted, grade_class
from reasoneval_mini.grading.instructor_checks import DEFAULT_REGISTRY, load_registry
from reasoneval_mini.grading.reports import prepare_outputs, write_feedback, write_grades
from reasoneval_mini.grading.statuses import GRADE_STATUSES


def run(args):
    """Grade ``args.submissions_dir``, write the reports, print a summary."""
    registry = args.registry or DEFAULT_REGISTRY
    interrupted = False
    try:
        prepare_outputs(args.out, args.feedback)  # fail before grading
        grades = grade_class(args.submissions_dir, registry=registry,
                             hidden_tests=args.hidden_tests, workers=args.workers,
                             timeout=args.timeout, progress=not args.no_progress)
    except GradingInterrupted as stop:
        grades, interrupted = stop.grades, True
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # the files must be written now
    except (ValueError, OSError) as error:
        raise UsageError(error) from None
    out, totals = write_grades(grades, args.out)
    written = [str(out), str(totals)]
    if args.feedback:
        exercises = dict(load_registry(registry).EXERCISES)
        paths = write_feedback(grades, exercises, args.feedback,
                               reveal_hidden=args.reveal_hidden)
        written.append(f"{len(paths)} feedback files in {args.feedback}")
    students = len({g.student for g in grades})
    counts = ", ".join(f"{s} {sum(g.status == s for g in grades)}" for s in GRADE_STATUSES)
    print(f"graded {students} students, {len(grades)} exercise grades ({counts})")
    print("wrote " + "; ".join(written))
    return 130 if interrupted else 0
