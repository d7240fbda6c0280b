"""``reasoneval-course grade``: grade a folder of student submissions, write the reports.

Exit code 0 when the batch completed, failing students included; a usage
error (2) naming the bad value when the arguments are unusable (no such
folder, no student folders, a broken hidden tests file, ``--out`` a folder,
``--export`` without ``--roster`` or the reverse, a roster or a ``--manual``
scores sheet with a bad line). Every argument is checked, the roster and
the scores sheet read, before any grading; so is the sandbox: ``--sandbox
required`` on a kernel that lacks part of it is a usage error naming the
missing feature. 1 when some student could not be graded (their rows are
``interrupted``, "not graded: ...", and the export leaves them out). 130
after a Ctrl-C, once complete files are written (unfinished grades
``interrupted``; further Ctrl-Cs are ignored while they are written).

With written tasks in the registry, ``<out>_written/`` gets one review page
per task and a pre-filled ``scores.csv`` (see
:mod:`reasoneval_mini.grading.manual`); ``--manual`` merges the scores, and
later runs merge the same sheet by default
(:mod:`reasoneval_mini.grading.merge_record`). A run that would write an
export with fewer hand scores than the file it replaces exits 2: before
grading when the sheet shows it, else with every other file written and
the export alone held back (``--replace-hand-scores`` replaces it on
purpose).

The isolation level (e.g. ``landlock ABI 7: files, network, signals``) is
printed with the summary and written under the class report's title; a
warning on stderr says what is not enforced.
"""

import importlib.util
import os
import signal
import sys
from pathlib import Path

from reasoneval_mini.cli import UsageError, planned_sandbox
from reasoneval_mini.grading.grader import GradingInterrupted, grade_class, other_variant_prefixes
from reasoneval_mini.grading.instructor_checks import DEFAULT_REGISTRY, load_registry
from reasoneval_mini.grading.gradebook import default_export_path, exported_hand_scores
from reasoneval_mini.grading.manual import review_folder
from reasoneval_mini.grading.merge_record import (
    MergeRecord, check_exports, read_record, remembered_sheet, write_record)
from reasoneval_mini.grading.reports import prepare_outputs, write_feedback, write_grades
from reasoneval_mini.grading.review_pages import write_review
from reasoneval_mini.grading.statuses import (
    ALL_GRADE_STATUSES, GRADE_AWAITING_INSTRUCTOR, GRADE_INTERRUPTED)


def _grading_key(args):
    """The hidden checks' key: ``--key FILE`` or the instructor's own; a bad file is a usage error."""
    from reasoneval_mini.grading.keys import load_grading_key

    try:
        return load_grading_key(args.key)
    except (ValueError, OSError) as error:
        raise UsageError(f"--key: {error}") from None


def _export_plan(args):
    """``(roster, export path)`` for ``--export``, or ``(None, None)``; checked before grading."""
    from reasoneval_mini.grading.gradebook import read_roster

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


def _manual_plan(args, written, record):
    """``(sheet, scores)``: the ``--manual`` sheet, or the one merged last time, read before grading.

    ``(None, {})`` when there is no sheet to merge.
    """
    sheet = args.manual or (remembered_sheet(record) if written else None)
    if not sheet:
        return None, {}
    from reasoneval_mini.grading.manual import read_manual_scores
    from reasoneval_mini.grading.submissions import discover_students, display_name

    if not written:
        raise UsageError(f"--manual {args.manual!r}: this registry has no written tasks to score")
    try:
        students = [display_name(name) for name in discover_students(args.submissions_dir)]
        return sheet, read_manual_scores(sheet, students, written)
    except ValueError as error:
        raise UsageError(error) from None


def _hand_score_loss(record, counts, sheet, replace):
    """Why an export of this run would lose hand scores (``None`` if none would, or *replace*)."""
    losses = [] if replace else check_exports(record, counts)
    if not losses:
        return None
    path, before, after = losses[0]
    merged = f"this run merges {sheet}" if sheet else "this run merges no scores sheet"
    return (f"{path} holds {_plural(before, 'hand score')} and this run would write it with "
            f"{after} ({merged}): merge your scores sheet with --manual "
            f"{record.sheet or 'SCORES.csv'}, or add --replace-hand-scores to replace the file "
            "on purpose")


def _warn_unmerged_sheet(sheet, grades, written):
    """Say so when the kept scores sheet holds scores this run (without --manual) left out.

    Without the warning a rerun of the first command quietly puts every hand
    score back to awaiting_instructor in grades.csv, the feedback and the export.
    """
    from reasoneval_mini.grading.manual import read_manual_scores

    try:
        scores = read_manual_scores(sheet, sorted({g.student for g in grades}), written)
    except ValueError as error:
        print(f"warning: your scores sheet was not merged (no --manual) and could not be "
              f"read either: {error}", file=sys.stderr)
        return
    awaiting = {(g.student, g.exercise) for g in grades if g.status == GRADE_AWAITING_INSTRUCTOR}
    unmerged = sum(key in awaiting for key in scores)
    if unmerged:
        print(f"warning: {sheet} holds {_plural(unmerged, 'hand score')} that this run did not "
              f"merge (those answers stay awaiting_instructor here and in any export); "
              f"add --manual {sheet} to merge them", file=sys.stderr)


def _plural(count, noun):
    return f"{count} {noun}{'' if count == 1 else 's'}"


def _names(folders):
    return ", ".join(folders) if folders else "none"


def _check_folders(args):
    for option, folder in (("--class-report", args.class_report), ("--feedback", args.feedback)):
        if folder and Path(folder).exists() and not Path(folder).is_dir():
            raise UsageError(f"{option} {folder!r} is a file; expected a folder (it is made "
                             "if it does not exist)")
    _check_not_in_submissions(args, (("--feedback", args.feedback),
                                     ("--class-report", args.class_report)))
    if args.class_report and importlib.util.find_spec("matplotlib") is None:
        raise UsageError("--class-report draws its figures with matplotlib, which is not "
                         "installed; pip install 'reasoneval-course[course]'")


def _check_not_in_submissions(args, folders):
    """Refuse an output folder made directly inside SUBMISSIONS_DIR.

    The next run would take it for a student folder and grade it as a student
    with every notebook missing (a loose file there, such as grades.csv, is ignored).
    """
    root = Path(args.submissions_dir).resolve()
    for option, folder in folders:
        if folder and Path(folder).resolve().parent == root:
            given = args.out if option == "--out" else folder
            what = (f"{str(given)!r} writes its review folder {str(folder)!r}"
                    if option == "--out" else f"{str(folder)!r} is a folder")
            instead = os.path.relpath(root.parent / Path(given).name)
            raise UsageError(f"{option} {what} inside {str(args.submissions_dir)!r}, where the "
                             "next run would grade it as a student; write it next to the "
                             f"submissions folder instead, e.g. {option} {instead}")


def _print_export(export, written):
    print(f"on the roster but no folder (left out of the export, no 0 written): "
          f"{_names(export.without_folder)}")
    print(f"folders not on the roster (not exported): {_names(export.not_on_roster)}")
    # A roster folder typed in another letter case (or with a stray space) leaves a
    # student out of the export while their folder sits in the other list.
    loose = {}
    for folder in export.not_on_roster:
        loose.setdefault(folder.strip().casefold(), []).append(folder)
    for wanted in export.without_folder:
        for folder in loose.get(wanted.strip().casefold(), ()):
            print(f"the roster's folder {wanted!r} is not the folder {folder!r} (folder names "
                  f"must match exactly): correct the roster's folder column to export them")
    if export.not_graded:
        print(f"grading was interrupted for (left out of the export, no 0 written): "
              f"{_names(export.not_graded)}")
    shown = ", ".join(f"{column} {points}" for column, points in export.points)
    print("points per column (Canvas: the Points Possible row; Moodle: set each grade "
          f"item's maximum grade to these): {shown}")
    if export.awaiting:
        cells = ", ".join(f"{folder} {column} ({', '.join(tasks)})"
                          for folder, column, tasks in export.awaiting)
        print(f"awaiting hand grading, left blank in the export (no score written, not a 0; "
              f"everyone else's scores are in it): {cells}; score them in the scores sheet "
              "and rerun")
    elif written:
        print("the export holds every exercise and every written task (all scored)")


def _merge_plan(args, written):
    """``(record, sheet, scores)`` before grading: what to merge, and a refusal if it cannot do.

    The sheet is ``--manual`` or the one the record remembers; with an
    export, a sheet holding fewer scores than that file's hand scores stops
    the command here, before any grading.
    """
    record = read_record(review_folder(args.out)) if written else MergeRecord()
    if record.problem:
        print(f"warning: {record.problem}", file=sys.stderr)
    sheet, manual = _manual_plan(args, written, record)
    if args.export:
        export_out = Path(args.export_out or default_export_path(args.out, args.export))
        loss = _hand_score_loss(record, {str(export_out.resolve()): len(manual)}, sheet,
                                args.replace_hand_scores)
        if loss:
            raise UsageError(f"{loss}; nothing was graded or written")
    return record, sheet, manual


def _export_check(args, grades, roster, export_out, record, sheet):
    """``(hand scores per export, refusal or None)`` once grading is done.

    A refusal holds back the export alone: the other files are still written.
    """
    if roster is None:
        return {}, None
    counts = {str(export_out.resolve()): exported_hand_scores(grades, roster)}
    refused = _hand_score_loss(record, counts, sheet, args.replace_hand_scores)
    return ({} if refused else counts), refused


def _write_review(args, grades, submissions, written, registry, sheet):
    """Write the review pages (and the sheet the first time); the summary's words for them."""
    review = write_review(grades, submissions, written, args.out, registry)
    if not sheet and review.sheet_kept:
        _warn_unmerged_sheet(review.sheet, grades, written)
    kept = (f"kept your scores sheet {review.sheet} (never overwritten)" if review.sheet_kept
            else f"a pre-filled scores sheet {review.sheet}")
    return f"{len(review.pages)} written-task review pages in {review.folder} and {kept}"


def run(args):
    """Grade ``args.submissions_dir``, write the reports, print a summary."""
    registry_spec = args.registry or DEFAULT_REGISTRY
    roster, export_out = _export_plan(args)
    _check_folders(args)
    isolation = planned_sandbox(args.sandbox)
    # Everything the reports need is imported before any student code runs.
    if roster is not None:
        from reasoneval_mini.grading.gradebook import write_gradebook
    if args.class_report:
        from reasoneval_mini.grading.class_report import REPORT_PAGE_NAME, write_class_report
    from reasoneval_mini.grading.manual import apply_manual_scores
    interrupted = False
    submissions = []
    try:
        prepare_outputs(args.out, args.feedback)  # fail before grading
        registry = load_registry(registry_spec)
        written = dict(getattr(registry, "WRITTEN_TASKS", {}))
        if written:  # only then is <out>_written/ made
            _check_not_in_submissions(args, (("--out", review_folder(args.out)),))
        record, sheet, manual = _merge_plan(args, written)
        grades = grade_class(args.submissions_dir, registry=registry_spec,
                             hidden_tests=args.hidden_tests, workers=args.workers,
                             timeout=args.timeout, progress=not args.no_progress,
                             submissions_out=submissions, isolation=isolation,
                             grading_key=_grading_key(args), answer_key=args.answer_key,
                             identity=args.variant)
    except GradingInterrupted as stop:
        grades, interrupted = stop.grades, True
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # the files must be written now
    except (ValueError, OSError) as error:
        raise UsageError(error) from None
    if manual:
        grades = apply_manual_scores(grades, manual, written)
    hand_counts, refused = _export_check(args, grades, roster, export_out, record, sheet)
    out, totals = write_grades(grades, args.out)
    written_files = [str(out), str(totals)]
    exercises = dict(registry.EXERCISES)
    if args.feedback:
        paths = write_feedback(grades, exercises, args.feedback,
                               reveal_hidden=args.reveal_hidden)
        written_files.append(f"{len(paths)} feedback files in {args.feedback}")
    students = len({g.student for g in grades})
    counts = ", ".join(f"{s} {sum(g.status == s for g in grades)}" for s in ALL_GRADE_STATUSES)
    print(f"graded {students} students, {len(grades)} exercise grades ({counts})")
    print(f"isolation: {isolation}")
    not_graded = sorted({g.student for g in grades if g.status == GRADE_INTERRUPTED})
    if not_graded and not interrupted:
        print(f"not graded (see their rows; grade them again): {_names(not_graded)}",
              file=sys.stderr)
    other_variant = sorted({g.student for g in grades
                            if g.message.startswith(other_variant_prefixes())})
    if other_variant:
        print(f"notebooks built for another variant than the one graded (their typed answers "
              f"were not judged): {_names(other_variant)}; grade with --variant NAME if everyone got "
              f"the same notebooks (exercises/ is self-study), else grade each under the "
              f"folder name their notebooks were built for", file=sys.stderr)
    if sheet:
        how = "" if args.manual else " (the sheet merged last time; --manual FILE merges another)"
        print(f"merged {_plural(len(manual), 'hand score')} from {sheet}{how}")
    if written:
        written_files.append(_write_review(args, grades, submissions, written, registry, sheet))
    if roster is not None and not refused:
        export = write_gradebook(grades, roster, exercises, args.export, export_out, written)
        written_files.append(f"{export.path} ({args.export}, {export.exported} students)")
        _print_export(export, written)
    if written:
        write_record(review_folder(args.out), sheet, hand_counts, record)
    if args.class_report:
        report = write_class_report(grades, exercises, args.class_report, submissions,
                                    written=written, isolation=isolation)
        page = report.with_name(REPORT_PAGE_NAME)
        written_files.append(f"{page} (open it in a browser), {report} and its figures")
    print("wrote " + "; ".join(written_files))
    if refused:
        print(f"error: the export was not written: {refused}", file=sys.stderr)
        return 2
    return 130 if interrupted else 1 if not_graded else 0
