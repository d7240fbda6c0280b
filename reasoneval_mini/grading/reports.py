"""Write grades.csv, its per-student totals and Markdown feedback, atomically.

Outputs depend only on the grades: rows in the order given (students sorted,
exercises in course order), no timestamps, ``\\n`` line endings, so grading
the same submissions twice gives byte-identical files. Each file is written
with :func:`reasoneval_mini.support.files.write_atomically` (a temporary file
in the same folder, then ``os.replace``): a reader never sees half a file, and
an interrupted run leaves the previous file intact.

A written answer that awaits the instructor (score ``None``) has a blank
score in grades.csv, not 0; it is left out of every automatic total, and
when the grades hold written answers the totals file adds the columns
:data:`WRITTEN_COLUMNS`: how many answers were graded by hand, how many and
how many points still await it. A written answer the instructor scored
(``graded_by_instructor``) counts in the totals like any other score.

Every CSV cell goes through :func:`.escaping.csv_cell` (printable, no
control character, and no formula start: OWASP's quote), the feedback through
:func:`.escaping.printable` and its student values through
:func:`.escaping.code_span` or :func:`.escaping.markdown_text`.
"""

import math
from fractions import Fraction
from pathlib import Path

from reasoneval_mini.exercises.checks import raised_prefix
from reasoneval_mini.support.files import write_atomically
from reasoneval_mini.support.i18n import DEFAULT_LANGUAGE, _, language
from reasoneval_mini.support.interrupts import interrupts_deferred
from reasoneval_mini.grading.escaping import code_span, csv_text, markdown_text, printable
from reasoneval_mini.grading.statuses import (
    GRADE_AWAITING_INSTRUCTOR, GRADE_INSTRUCTOR_GRADED, GRADE_PASSED, GRADE_STATUSES)

GRADE_COLUMNS = ("student", "exercise", "score", "max_score", "status", "message")
TOTAL_COLUMNS = ("student", "score", "max_score") + GRADE_STATUSES
#: Added to the totals when the grades hold written answers (graded by hand or awaiting it).
WRITTEN_COLUMNS = (GRADE_INSTRUCTOR_GRADED, GRADE_AWAITING_INSTRUCTOR,
                   "points_awaiting_instructor")


def format_score(value):
    """A score as text: whole numbers bare, others rounded half up to at most two decimals.

    The value is taken exactly (a ``Fraction``, an ``int``, or a float's
    exact binary value) and rounded once, in integer arithmetic.

    >>> format_score(2), format_score(1.5), format_score(Fraction(2, 3))
    ('2', '1.5', '0.67')

    ``None`` (a written answer awaiting the instructor) is blank, not 0:

    >>> format_score(None)
    ''

    Surprising: an eighth is ``0.13``, not float rounding's ``0.12`` (half
    to even), and a score just below a whole number rounds to it.

    >>> format_score(Fraction(1, 8)), format_score(Fraction(1999, 1000))
    ('0.13', '2')
    """
    if value is None:
        return ""
    exact = Fraction(value)
    sign = "-" if exact < 0 else ""
    hundredths = math.floor(abs(exact) * 100 + Fraction(1, 2))
    whole, cents = divmod(hundredths, 100)
    if not cents:
        return f"{sign}{whole}" if whole else "0"
    return f"{sign}{whole}.{cents:02d}".rstrip("0")


def totals_path(out):
    """Where the totals of *out* go: ``grades.csv`` -> ``grades_totals.csv``."""
    out = Path(out)
    return out.with_name(f"{out.stem}_totals{out.suffix or '.csv'}")


def prepare_outputs(out, feedback_dir=None):
    """Make the folders the reports go to, before grading; ``ValueError`` if *out* is a folder.

    *out* is the grades CSV file (its folder is made); *feedback_dir*, if
    given, is made too. Checked first so that a bad path costs no grading.
    """
    if Path(out).is_dir():
        raise ValueError(f"--out {str(out)!r} is a folder; expected a CSV file name")
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    if feedback_dir:
        Path(feedback_dir).mkdir(parents=True, exist_ok=True)


def write_grades(grades, out):
    """Write grades.csv to *out* and the totals next to it; return both paths.

    A Ctrl-C while writing is held back until both files are written.
    """
    with interrupts_deferred():
        return _write_grades(grades, Path(out))


def _write_grades(grades, out):
    rows = [(g.student, g.exercise, format_score(g.score), g.max_score, g.status, g.message)
            for g in grades]
    write_atomically(out, csv_text([GRADE_COLUMNS, *rows]))
    totals = {}
    for g in grades:
        row = totals.setdefault(g.student, {"score": 0, "max_score": 0, "awaiting_points": 0,
                                            **dict.fromkeys(GRADE_STATUSES, 0),
                                            GRADE_AWAITING_INSTRUCTOR: 0,
                                            GRADE_INSTRUCTOR_GRADED: 0})
        row[g.status] += 1
        if g.score is None:  # a written answer: the instructor's, not the automatic total
            row["awaiting_points"] += g.max_score
            continue
        row["score"] += g.score
        row["max_score"] += g.max_score
    written = any(g.status in (GRADE_AWAITING_INSTRUCTOR, GRADE_INSTRUCTOR_GRADED)
                  for g in grades)
    columns = TOTAL_COLUMNS + (WRITTEN_COLUMNS if written else ())
    total_rows = [(student, format_score(row["score"]), row["max_score"],
                   *(row[s] for s in GRADE_STATUSES),
                   *((row[GRADE_INSTRUCTOR_GRADED], row[GRADE_AWAITING_INSTRUCTOR],
                      row["awaiting_points"]) if written else ()))
                  for student, row in totals.items()]
    write_atomically(totals_path(out), csv_text([columns, *total_rows]))
    return out, totals_path(out)


def _check_line(check):
    mark = "x" if check.get("passed") else " "
    line = f"- [{mark}] " + _("{call}: expected {expected}, got {actual}").format(
        call=code_span(check.get('call', '')), expected=code_span(check.get('expected', '')),
        actual=code_span(check.get('actual', '')))
    message = check.get("message", "")
    # "the call raised X (...)" only repeats what the actual value already shows.
    if not check.get("passed") and message and not message.startswith(raised_prefix()):
        line += _(" ({message})").format(message=markdown_text(message))
    return line


def _criterion_lines(checks):
    """A written answer's levels, one line per rubric criterion, with the anchor of the level."""
    lines = [_("- {criterion}: level {level} of {points}").format(
                 criterion=markdown_text(_(c['criterion'])), level=c['level'], points=c['points'])
             + (_("; an answer at this level reads: {anchor}").format(
                 anchor=markdown_text(_(c['anchor']))) if c.get("anchor") else "")
             for c in checks if "criterion" in c]
    return ["", *lines] if lines else []


def _status(status):
    # The status is an id (grades.csv keeps it in English); the feedback shows its word.
    return _(status)


def _title(text):
    return _(text) if isinstance(text, str) and text else text


def feedback_markdown(student, grades, exercises, reveal_hidden=False):
    """The Markdown feedback for one student's grades (course order).

    Hidden checks appear only as a count ("hidden checks: 2 of 3 passed"),
    unless *reveal_hidden* (for the instructor) lists them like the others.
    It is written in the language of the student's grades (:attr:`Grade.language
    <reasoneval_mini.grading.grader.Grade.language>`, the notebooks'); the
    ids, points and scores are the same in every language.
    """
    spoken = next((getattr(g, "language", DEFAULT_LANGUAGE) for g in grades), DEFAULT_LANGUAGE)
    with language(spoken):
        return _feedback_markdown(student, grades, exercises, reveal_hidden)


def _feedback_markdown(student, grades, exercises, reveal_hidden):
    checked = [g for g in grades if g.score is not None]
    waiting = [g for g in grades if g.score is None]
    score = sum(g.score for g in checked)
    total = _("Total: {score} / {total} points.").format(
        score=format_score(score), total=sum(g.max_score for g in checked))
    if waiting:
        total += _(" Another {points} points (written answers) await your instructor.").format(
            points=sum(g.max_score for g in waiting))
    lines = [_("# Feedback for {student}").format(student=markdown_text(student)), "", total, "",
             _("| exercise | status | score |"), "|---|---|---|"]
    lines += [f"| {g.exercise} | {_status(g.status)} | {format_score(g.score) or '–'} / {g.max_score} |"
              for g in grades]
    for g in grades:
        exercise = exercises.get(g.exercise)
        if exercise is None:  # a written task: graded by hand, no checks, no hint
            status = _("Status: **{status}**").format(status=_status(g.status))
            lines += ["", _("## {exercise_id}: written answer").format(exercise_id=g.exercise), "",
                      status + (_(", {points} points: this answer awaits your instructor.").format(
                          points=g.max_score) if g.score is None else
                          _(", score {score} / {points}.").format(
                              score=format_score(g.score), points=g.max_score)),
                      "", markdown_text(g.message)]
            lines += _criterion_lines(g.checks)
            continue
        lines += ["", _("## {exercise_id}: {title}").format(exercise_id=g.exercise,
                                                            title=_title(exercise.title)), "",
                  _("Status: **{status}**, score {score} / {points}.").format(
                      status=_status(g.status), score=format_score(g.score), points=g.max_score)]
        if g.message:
            lines += ["", markdown_text(g.message)]
        attempted = any(check.get("attempted", True) for check in g.checks)
        if g.checks and attempted:
            lines.append("")
        shown = g.checks if attempted else ()  # a stub's checks all say the same
        hidden = [check for check in shown if check.get("hidden")]
        lines += [_check_line(check) for check in shown
                  if reveal_hidden or not check.get("hidden")]
        if hidden and not reveal_hidden:
            passed = sum(bool(check.get("passed")) for check in hidden)
            lines.append("- " + _("hidden checks: {passed} of {count} passed").format(
                passed=passed, count=len(hidden)))
        if g.status != GRADE_PASSED and exercise.hint:
            lines += ["", _("Hint: {hint}").format(hint=_title(exercise.hint))]
    return "\n".join(lines) + "\n"


def write_feedback(grades, exercises, feedback_dir, reveal_hidden=False):
    """Write ``<student>.md`` per student into *feedback_dir*; return the paths.

    A Ctrl-C while writing is held back until every file is written.
    """
    with interrupts_deferred():
        return _write_feedback(grades, exercises, feedback_dir, reveal_hidden)


def _write_feedback(grades, exercises, feedback_dir, reveal_hidden):
    feedback_dir = Path(feedback_dir)
    feedback_dir.mkdir(parents=True, exist_ok=True)
    by_student = {}
    for g in grades:
        by_student.setdefault(g.student, []).append(g)
    paths = []
    for student, rows in by_student.items():
        path = feedback_dir / f"{printable(student)}.md"
        write_atomically(path, printable(feedback_markdown(student, rows, exercises,
                                                          reveal_hidden)))
        paths.append(path)
    return paths
