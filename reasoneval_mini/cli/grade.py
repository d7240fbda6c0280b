"""``reasoneval-course grade``: grade a folder of student submissions, write the reports.

Exit code 0 when the batch completed, failing students included; a usage
error (2) naming the bad value when the arguments are unusable (no such
folder, no student folders, a broken hidden tests file, ``--out`` a folder,
``--export`` without ``--roster`` or the reverse, a roster with a bad line).
Every argument is checked, the roster read, before any grading; so is the
sandbox: ``--sandbox required`` on a kernel that lacks part of it is a usage
error naming the missing feature. 1 when some student could not be graded
(their rows are ``interrupted``, "not graded: ..."; the gradebook export is
then not written, so it never carries a zero nobody earned). 130 after a
Ctrl-C, once complete files are written (unfinished grades ``interrupted``;
further Ctrl-Cs are ignored while they are written).

The isolation level (e.g. ``landlock ABI 7: files, network, signals``) is
printed with the summary and written under the class report's title; a
warning on stderr says what is not enforced.
"""

import importlib.util
import signal
import sys
from pathlib import Path

from reasoneval_mini.cli import UsageError
from reasoneval_mini.grading.grader import GradingInterrupted, grade_class
from reasoneval_mini.grading.instructor_checks import DEFAULT_REGISTRY, load_registry
from reasoneval_mini.grading.reports import prepare_outputs, write_feedback, write_grades
from reasoneval_mini.grading.statuses import ALL_GRADE_STATUSES, GRADE_INTERRUPTED
from reasoneval_mini.sandbox import SandboxUnavailable, plan_isolation


def _export_plan(args):
    """``(roster, export path)`` for ``--export``, or ``(None, None)``; checked before grading."""
    from reasoneval_mini.grading.gradebook import default_export_path, read_roster

    if bool(args.export) != bool(args.roster):
        given, needed = ("--export", "--roster") if args.export else ("--roster", "--export")
        raise UsageError(f"{given} needs {needed}; e.g. --roster roster.csv --export canvas")
    if args.export_out and not args.export:
        raise UsageError(f"--export-out {args.export_out!r} needs --export canvas or --export moodle")
    if not args.export:
        return None, None
    out = Path(args.export_out or default_export_path(args.out, args.export))
    if out.is_dir():
        raise UsageError(f"--export-out {str(out)!r} is a folder; expected a CSV file name")
    if out.resolve() == Path(args.out).resolve():
        raise UsageError(f"--export-out {str(out)!r} is also --out; choose another file name")
    try:
        return read_roster(args.roster, args.export), out
    except ValueError as error:
        raise UsageError(error) from None


def _names(folders):
    return ", ".join(folders) if folders else "none"


def run(args):
    """Grade ``args.submissions_dir``, write the reports, print a summary."""
    registry = args.registry or DEFAULT_REGISTRY
    roster, export_out = _export_plan(args)
    for option, folder in (("--class-report", args.class_report), ("--feedback", args.feedback)):
        if folder and Path(folder).exists() and not Path(folder).is_dir():
            raise UsageError(f"{option} {folder!r} is a file; expected a folder (it is made "
                             "if it does not exist)")
    if args.class_report and importlib.util.find_spec("matplotlib") is None:
        raise UsageError("--class-report draws its figures with matplotlib, which is not "
                         "installed; pip install 'reasoneval-course[course]'")
    try:
        isolation = plan_isolation(args.sandbox)
    except SandboxUnavailable as error:
        raise UsageError(error) from None
    if isolation.warning():
        print(f"warning: {isolation.warning()}", file=sys.stderr)
    # Everything the reports need is imported before any student code runs.
    try:
        exercises = dict(load_registry(registry).EXERCISES)
    except OSError as error:
        raise UsageError(error) from None
    if roster is not None:
        from reasoneval_mini.grading.gradebook import write_gradebook
    if args.class_report:
        from reasoneval_mini.grading.class_report import write_class_report
    interrupted = False
    try:
        prepare_outputs(args.out, args.feedback)  # fail before grading
        grades = grade_class(args.submissions_dir, registry=registry,
                             hidden_tests=args.hidden_tests, workers=args.workers,
                             timeout=args.timeout, progress=not args.no_progress,
                             isolation=isolation)
    except GradingInterrupted as stop:
        grades, interrupted = stop.grades, True
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # the files must be written now
    except (ValueError, OSError) as error:
        raise UsageError(error) from None
    out, totals = write_grades(grades, args.out)
    written = [str(out), str(totals)]
    if args.feedback:
        paths = write_feedback(grades, exercises, args.feedback,
                               reveal_hidden=args.reveal_hidden)
        written.append(f"{len(paths)} feedback files in {args.feedback}")
    students = len({g.student for g in grades})
    counts = ", ".join(f"{s} {sum(g.status == s for g in grades)}" for s in ALL_GRADE_STATUSES)
    print(f"graded {students} students, {len(grades)} exercise grades ({counts})")
    print(f"isolation: {isolation}")
    not_graded = sorted({g.student for g in grades if g.status == GRADE_INTERRUPTED})
    if not_graded and not interrupted:
        print(f"not graded (see their rows; grade them again): {_names(not_graded)}",
              file=sys.stderr)
    if roster is not None and not_graded:
        print(f"--export {args.export}: not written, {len(not_graded)} students are not "
              "graded and would be exported with 0", file=sys.stderr)
    elif roster is not None:
        export = write_gradebook(grades, roster, exercises, args.export, export_out)
        written.append(f"{export.path} ({args.export}, {export.exported} students)")
        print(f"on the roster but no folder (exported with 0): {_names(export.without_folder)}")
        print(f"folders not on the roster (not exported): {_names(export.not_on_roster)}")
    if args.class_report:
        report = write_class_report(grades, exercises, args.class_report, args.submissions_dir,
                                    isolation=isolation)
        written.append(f"{report} and its figures")
    print("wrote " + "; ".join(written))
    return 130 if interrupted else 1 if not_graded else 0
