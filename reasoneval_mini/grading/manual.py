"""Hand grading of written tasks: the scores sheet, reading it back, and merging its levels.

After ``reasoneval-course grade``, for a registry with written tasks
(``WRITTEN_TASKS``), the folder ``<out>_written/`` (``grades_written/``
next to ``grades.csv``) holds one review page per task
(:mod:`reasoneval_mini.grading.review_pages`) and ``scores.csv``, written
once and never overwritten, so a rerun cannot lose what was typed.

The sheet has one of two layouts, told apart by its header:

* **by criterion** (:data:`CRITERION_COLUMNS`: student, task, criterion,
  level, comment), written when the rubrics have criteria with levels
  (``Criterion``, levels 0, 1, 2): one line per student, task and
  criterion. The task's points are the sum of its levels, once every
  criterion has one;
* **by task** (:data:`SCORE_COLUMNS`: student, task, score, comment), for
  rubrics of ``(criterion, points)`` pairs: one total per task.

Every line is pre-filled blank. A blank or missing answer is already
``failed``/``missing`` with 0 in grades.csv ("not answered"); its lines say
so in the comment and stay blank: it is never counted as graded by hand,
unless a level is typed on it (a copy the instructor read instead). An
answer with no level or score yet stays ``awaiting_instructor``.

``grade ... --manual scores.csv`` reads the sheet before grading
(:func:`read_manual_scores`: every bad line is named, all in one error)
and merges it (:func:`apply_manual_scores`): a scored answer becomes
``graded_by_instructor`` with its score, its levels and their anchors in
the feedback, and the comment in its message. Merging is a pure function
of the grades and the sheet: the same inputs give the same bytes.

>>> read_score_text("2.5", 3), read_score_text("", 3)
(Fraction(5, 2), None)

Surprising: a decimal comma is refused rather than guessed (``2,5`` could be
two scores run together), and so is a score above the task's points.

>>> read_score_text("2,5", 3)
Traceback (most recent call last):
...
ValueError: '2,5' is not a number; write it with a dot, e.g. 2.5
"""

import csv
import io
import re
from dataclasses import dataclass, replace
from fractions import Fraction
from pathlib import Path

from reasoneval_mini.exercises.checks import RUBRIC_LEVELS
from reasoneval_mini.support.text import shorten
from reasoneval_mini.grading.escaping import csv_field, csv_text, printable
from reasoneval_mini.grading.reports import format_score
from reasoneval_mini.grading.statuses import GRADE_INSTRUCTOR_GRADED
from reasoneval_mini.grading.submissions import is_unanswered, written_answer

SCORE_COLUMNS = ("student", "task", "score", "comment")
CRITERION_COLUMNS = ("student", "task", "criterion", "level", "comment")
SCORES_NAME = "scores.csv"
#: Ends the pre-filled comment of a blank answer's lines; never merged into feedback.
NO_ANSWER_NOTE = "(0 points already, not graded by hand; a level typed here replaces them)"
#: How many bad lines one error names at most (the rest are counted).
BAD_LINES_SHOWN = 50
_NUMBER = re.compile(r"^\d+(\.\d+)?$")


class ManualScoresError(ValueError):
    """The scores sheet cannot be merged; the message names the file and every bad line."""


@dataclass(frozen=True)
class RubricCriterion:
    """One criterion of a task's rubric, as the sheet grades it: *levels* allowed, *anchors* by level."""

    name: str
    levels: tuple
    anchors: tuple = ()  # one anchor answer per level, when the rubric has them
    looks_for: str = ""


def task_criteria(task):
    """The :class:`RubricCriterion` list of *task*'s rubric; empty when it has no criteria.

    A ``Criterion`` (``name``, ``anchors``) is graded at one of the rubric
    levels (0, 1, 2); a legacy ``(text, points)`` item all or nothing.
    """
    criteria = []
    for item in getattr(task, "rubric", ()):
        if hasattr(item, "anchors") and hasattr(item, "name"):
            criteria.append(RubricCriterion(item.name, RUBRIC_LEVELS, tuple(item.anchors),
                                            str(getattr(item, "looks_for", ""))))
        elif isinstance(item, (tuple, list)) and len(item) == 2:
            criteria.append(RubricCriterion(str(item[0]), (0, item[1])))
    return criteria


def graded_by_criterion(tasks):
    """True when every task's rubric has levelled criteria: the sheet is then by criterion."""
    return bool(tasks) and all(
        task_criteria(t) and all(c.anchors for c in task_criteria(t)) for t in tasks.values())


@dataclass(frozen=True)
class ManualScore:
    """One scored answer of the sheet: *score* (exact), *comment*, first *line*, and *levels*.

    *levels* is ``((criterion, level), ...)`` in rubric order for a sheet by
    criterion, ``()`` for a total.
    """

    student: str
    task: str
    score: Fraction
    comment: str
    line: int
    levels: tuple = ()


@dataclass(frozen=True)
class WrittenAnswer:
    """One student's answer to one written task, as read before grading.

    *text* is ``None`` when there is nothing to read (*note* says why);
    *blank* when the answer cell is empty or still the stub; *copy_note*
    names look-alike copies of the notebook when the answer is blank.
    """

    student: str
    task: str
    text: str | None
    blank: bool
    note: str = ""
    copy_note: str = ""


def review_folder(grades_out):
    """Where the review pages and the sheet go: ``grades.csv`` -> ``grades_written/``."""
    out = Path(grades_out)
    return out.with_name(f"{out.stem}_written")


def read_score_text(text, points):
    """The exact score written as *text* (``None`` if blank); ``ValueError`` unless in [0, points]."""
    text = text.strip()
    if not text:
        return None
    if text.startswith("-") and _NUMBER.match(text[1:].strip()):
        raise ValueError(f"{text!r} is below 0; expected a number from 0 to {points}")
    if not _NUMBER.match(text):
        hint = (f"write it with a dot, e.g. {text.replace(',', '.')}" if "," in text
                else f"expected a number from 0 to {points}")
        raise ValueError(f"{text!r} is not a number; {hint}")
    score = Fraction(text)
    if score > points:
        raise ValueError(f"{text!r} is more than the task's {points} points")
    return score


def read_level_text(text, criterion):
    """The level written as *text* (``None`` if blank); ``ValueError`` unless one of its levels.

    >>> read_level_text("2", RubricCriterion("Edges", (0, 1, 2)))
    2
    >>> read_level_text("1.5", RubricCriterion("Edges", (0, 1, 2)))
    Traceback (most recent call last):
    ...
    ValueError: '1.5' is not a level of 'Edges'; expected one of 0, 1, 2
    """
    text = text.strip()
    if not text:
        return None
    if text.isascii() and text.isdigit() and int(text) in criterion.levels:
        return int(text)
    raise ValueError(f"{text!r} is not a level of {criterion.name!r}; expected one of "
                     f"{', '.join(map(str, criterion.levels))}")


def _swallowed_line(row, tasks):
    """The first sheet line read into a field of *row* by an unclosed quote, else None.

    A comment may hold line breaks (a spreadsheet cell with Alt+Enter); a
    line inside a field that reads ``student,<task id>,...`` is a line of the
    sheet that an unclosed quote swallowed.
    """
    for field in row:
        for line in field.splitlines()[1:]:
            parts = next(csv.reader([line]), [])
            if len(parts) >= 3 and parts[1].strip() in tasks:
                return line
    return None


def sheet_student(student):
    """How the scores sheet writes *student* (a name as in grades.csv): the one spelling read back."""
    return printable(student)


def _sheet_students(students):
    """``{sheet spelling: student}``: a folder ``"zoe "`` or one holding a control character
    or a right-to-left mark is found again by the text the sheet holds for it."""
    return {sheet_student(student): student for student in students}


def _student_of(field, known):
    # The spelling written first; then without the spaces a spreadsheet may strip
    # (a folder "zoe " and a folder "zoe" are told apart while both are kept).
    for text in (field, field.strip()):
        if text in known:
            return known[text]
    return None


def _sheet_rows(path):
    """``(header line, header, rows)`` of the sheet; :class:`ManualScoresError` if unreadable."""
    try:
        data = path.read_bytes()
    except OSError as error:
        raise ManualScoresError(f"scores sheet {str(path)!r} cannot be read: {error}") from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        raise ManualScoresError(f"scores sheet {path.name} line {line}: not UTF-8; save it as "
                                "UTF-8 (in Excel: 'CSV UTF-8 (Comma delimited)')") from None
    reader = csv.reader(io.StringIO(text, newline=""))
    # csv_field: each cell as the grader meant it, without the quote that kept it inert.
    rows = [(n, [csv_field(f) for f in row]) for n, row in enumerate(reader, start=1)
            if any(f.strip() for f in row)]
    if not rows:
        raise ManualScoresError(f"scores sheet {path.name} is empty; expected the header "
                                f"{','.join(CRITERION_COLUMNS)} or {','.join(SCORE_COLUMNS)}")
    header_line, header = rows[0]
    header = [name.strip() for name in header]
    for columns in (CRITERION_COLUMNS, SCORE_COLUMNS):
        if len(header) > len(columns) and sorted(filter(None, header)) == sorted(columns):
            # A spreadsheet saves every line as wide as its widest: something typed in a
            # column after 'comment' pads every line. Not guessed away: "2,5," under such
            # a header could be a decimal comma or a score and a note.
            raise ManualScoresError(
                f"scores sheet {path.name} line {header_line}: an empty extra column beside "
                f"{','.join(columns)} (something typed in a column after them?); delete "
                "that column in the spreadsheet and save again")
    if sorted(header) not in (sorted(CRITERION_COLUMNS), sorted(SCORE_COLUMNS)):
        raise ManualScoresError(
            f"scores sheet {path.name} line {header_line}: columns {','.join(header)!r}; "
            f"expected {','.join(CRITERION_COLUMNS)} or {','.join(SCORE_COLUMNS)} "
            "(comma separated)")
    return header_line, header, rows[1:]


def read_manual_scores(path, students, tasks):
    """``{(student, task id): ManualScore}`` from the sheet at *path*: the answers fully scored.

    *students* are the student names (as in grades.csv); *tasks* maps
    written task ids to tasks (``points``, ``rubric``). A task of a sheet by
    criterion is scored once each of its criteria has a level. Raises
    :class:`ManualScoresError` for a file that is not UTF-8, a missing or
    unknown column, and, naming every bad line at once: a quote left open
    that swallowed later lines, an unknown student, task or criterion, a
    score or level out of range, or a line repeated (both named).
    """
    path = Path(path)
    _, header, rows = _sheet_rows(path)
    by_criterion = "criterion" in header
    known = _sheet_students(students)
    seen, levels, comments, problems = {}, {}, {}, []
    for number, row in rows:
        try:
            key, value, comment = _read_line(row, header, tasks, known, by_criterion)
        except ValueError as error:
            problems.append(f"scores sheet {path.name} line {number}{error}")
            continue
        if key in seen:
            what = " / ".join(repr(part) for part in key)
            problems.append(f"scores sheet {path.name} line {number}: {what} is already on "
                            f"line {seen[key]}; one line per "
                            + ("student, task and criterion" if by_criterion else "student and task"))
            continue
        seen[key] = number
        answer = key[:2]
        levels.setdefault(answer, {})[key[2] if by_criterion else None] = value
        if comment and not comment.endswith(NO_ANSWER_NOTE):  # the sheet's note, not yours
            comments.setdefault(answer, []).append(comment)
    if problems:
        shown = problems[:BAD_LINES_SHOWN]
        more = len(problems) - len(shown)
        if len(problems) == 1:
            raise ManualScoresError(problems[0])
        raise ManualScoresError(
            f"scores sheet {path.name}: {len(problems)} bad lines (nothing merged):\n  "
            + "\n  ".join(shown) + (f"\n  ... and {more} more" if more else ""))
    return _scores(levels, comments, seen, tasks, by_criterion)


def _read_line(row, header, tasks, known, by_criterion):
    """``(key, level or score, comment)`` of one line; ``ValueError(", column ...: why")``."""
    swallowed = _swallowed_line(row, tasks)
    if swallowed is not None:
        raise ValueError(f": a quote (\") opened in this line is never closed, so the lines "
                         f"after it were read as part of one field (the next is {swallowed!r}) "
                         "and their scores would be lost; close the quote")
    if len(row) != len(header):
        raise ValueError(f": {len(row)} fields, expected {len(header)} ({','.join(header)}); "
                         "quote a comment that holds a comma")
    fields = dict(zip(header, row))
    student, task_id = _student_of(fields["student"], known), fields["task"].strip()
    if student is None:
        raise ValueError(f": unknown student {fields['student']!r}; expected a student folder "
                         "name as in grades.csv")
    if task_id not in tasks:
        raise ValueError(f": unknown task {task_id!r}; written tasks: {', '.join(tasks) or 'none'}")
    comment = fields["comment"].strip()
    if not by_criterion:
        try:
            return (student, task_id), read_score_text(fields["score"], tasks[task_id].points), comment
        except ValueError as error:
            raise ValueError(f", column 'score': {error}") from None
    criteria = {c.name: c for c in task_criteria(tasks[task_id])}
    name = fields["criterion"].strip()
    if name not in criteria:
        raise ValueError(f", column 'criterion': {name!r} is not a criterion of {task_id!r}; "
                         f"its criteria: {', '.join(criteria) or 'none'}")
    try:
        return (student, task_id, name), read_level_text(fields["level"], criteria[name]), comment
    except ValueError as error:
        raise ValueError(f", column 'level': {error}") from None


def _scores(levels, comments, lines, tasks, by_criterion):
    scores = {}
    for (student, task_id), given in levels.items():
        first = min(line for key, line in lines.items() if key[:2] == (student, task_id))
        comment = "; ".join(comments.get((student, task_id), ()))
        if not by_criterion:
            if given[None] is not None:
                scores[(student, task_id)] = ManualScore(student, task_id, given[None], comment, first)
            continue
        names = [c.name for c in task_criteria(tasks[task_id])]
        if all(given.get(name) is not None for name in names):  # every criterion levelled
            scores[(student, task_id)] = ManualScore(
                student, task_id, Fraction(sum(given[name] for name in names)), comment, first,
                tuple((name, given[name]) for name in names))
    return scores


def criterion_checks(task, levels):
    """The feedback rows of *levels*: ``{"criterion", "level", "points", "anchor"}`` per criterion."""
    criteria = {c.name: c for c in task_criteria(task)}
    rows = []
    for name, level in levels:
        criterion = criteria[name]
        anchor = criterion.anchors[criterion.levels.index(level)] if criterion.anchors else ""
        rows.append({"criterion": name, "level": level, "points": max(criterion.levels),
                     "anchor": anchor})
    return tuple(rows)


def apply_manual_scores(grades, scores, tasks=None):
    """*grades* with each scored written answer ``graded_by_instructor`` (a new list).

    The levels (with the anchor of each) go into the grade's ``checks`` and
    the message, which the feedback shows, with the comment. Rows without a
    scored line in *scores* are unchanged.
    """
    merged = []
    for grade in grades:
        entry = scores.get((grade.student, grade.exercise))
        if entry is None:
            merged.append(grade)
            continue
        message = (f"graded by your instructor: {format_score(entry.score)} of "
                   f"{grade.max_score} points")
        if entry.levels:
            message += " (" + ", ".join(f"{name}: {level}" for name, level in entry.levels) + ")"
        if entry.comment:
            message += f"; comment: {entry.comment}"
        checks = (criterion_checks(tasks[grade.exercise], entry.levels)
                  if entry.levels and tasks else ())
        merged.append(replace(grade, score=entry.score, status=GRADE_INSTRUCTOR_GRADED,
                              message=shorten(message, 2000), checks=checks))
    return merged


def written_answers(submissions, tasks):
    """One :class:`WrittenAnswer` per (student, task): students sorted, tasks in course order.

    *submissions* are :class:`~reasoneval_mini.grading.submissions.Submission`
    objects read before grading.
    """
    answers = []
    for submission in sorted(submissions, key=lambda s: s.student):
        for task in tasks.values():
            name = Path(task.notebook).name
            notebook = submission.notebook(name)
            if notebook is None or notebook.error:
                note = notebook.error if notebook is not None else f"no notebook {name}"
                answers.append(WrittenAnswer(submission.student, task.id, None, True, note))
                continue
            found = written_answer(notebook, task.id)
            if found is None:
                answers.append(WrittenAnswer(
                    submission.student, task.id, None, False,
                    f"answer cell not found in {name}: read the notebook"))
                continue
            cell, text = found
            copies = submission.copies.get(name, ())
            copy_note = ""
            if is_unanswered(text) and copies:
                # Only the original is graded; the page and the sheet say where the
                # work probably is, as grades.csv does, before anyone types a level.
                what = "is a copy" if len(copies) == 1 else "are copies"
                copy_note = f"{', '.join(copies)} {what} of {name} (only {name} is graded)"
            answers.append(WrittenAnswer(submission.student, task.id, text, is_unanswered(text),
                                         f"cell {cell} of {name}", copy_note))
    return answers


def _no_answer_comment(answer):
    why = answer.note if answer.text is None else "no answer: the cell is empty or the stub"
    if answer.copy_note:
        why += f"; {answer.copy_note}"
    return printable(f"{why} {NO_ANSWER_NOTE}")


def scores_sheet(answers, tasks):
    """The pre-filled scores sheet: every level or score blank; a blank answer's lines say so.

    By criterion (:func:`graded_by_criterion`) one line per criterion, else one per task.
    """
    by_criterion = graded_by_criterion(tasks)
    rows = [CRITERION_COLUMNS if by_criterion else SCORE_COLUMNS]
    for answer in answers:
        comment = _no_answer_comment(answer) if answer.blank else ""
        student = sheet_student(answer.student)
        if not by_criterion:
            rows.append([student, answer.task, "", comment])
            continue
        for criterion in task_criteria(tasks[answer.task]):
            rows.append([student, answer.task, criterion.name, "", comment])
    return csv_text(rows)
