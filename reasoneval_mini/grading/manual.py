"""Hand grading of written tasks: review pages, a scores sheet, and merging the sheet's scores.

After ``reasoneval-course grade``, for a registry with written tasks
(``WRITTEN_TASKS``), the folder ``<out>_written/`` (``grades_written/``
next to ``grades.csv``) holds:

* one HTML page per task (:func:`review_page`): the task, its rubric as the
  registry renders it, and every student's answer in student order, blank
  answers marked. Everything a student wrote is escaped
  (:func:`.escaping.html_text`) and the page allows no script, image or
  remote resource (a Content-Security-Policy), so it opens safely in any
  browser;
* ``scores.csv`` (:data:`SCORE_COLUMNS`: student, task, score, comment),
  one line per student and task: the score blank for a real answer (for the
  instructor to fill in) and 0 for an untouched or missing one. It is
  written once and never overwritten, so a rerun cannot lose a score typed
  into it.

``reasoneval-course grade ... --manual scores.csv`` reads the sheet before
grading (:func:`read_manual_scores`: any bad line stops the command, named)
and merges it (:func:`apply_manual_scores`): a scored answer becomes
``graded_by_instructor`` with its score and the comment in its message, and
counts in grades.csv, the totals, the feedback, the class report and the
exports. A blank score leaves the answer ``awaiting_instructor``. Merging is
a pure function of the grades and the sheet: the same inputs give the same
bytes.

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

from reasoneval_mini.support.files import write_atomically
from reasoneval_mini.support.text import plural, shorten
from reasoneval_mini.grading.escaping import html_text, printable
from reasoneval_mini.grading.reports import format_score
from reasoneval_mini.grading.statuses import GRADE_INSTRUCTOR_GRADED
from reasoneval_mini.grading.submissions import is_unanswered, written_answer

SCORE_COLUMNS = ("student", "task", "score", "comment")
SCORES_NAME = "scores.csv"
#: Longest answer shown on a review page, in characters (the notebook has the rest).
ANSWER_CHARS = 20_000
_NUMBER = re.compile(r"^\d+(\.\d+)?$")


class ManualScoresError(ValueError):
    """The scores sheet cannot be merged; the message names the file and the line."""


@dataclass(frozen=True)
class ManualScore:
    """One scored line of the sheet: *score* (exact) and *comment*, from line *line*."""

    student: str
    task: str
    score: Fraction
    comment: str
    line: int


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


def read_manual_scores(path, students, tasks):
    """``{(student, task id): ManualScore}`` from the sheet at *path*; blank scores are left out.

    *students* are the student names (as in grades.csv); *tasks* maps
    written task ids to tasks (``points``). Raises :class:`ManualScoresError`
    naming the line for: a file that is not UTF-8, a missing or unknown
    column, a quote left open that swallowed later lines, an unknown student or task, a score that is not a number from 0
    to the task's points, or a (student, task) on two lines (both named).
    """
    path = Path(path)
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
    rows = [(n, row) for n, row in enumerate(reader, start=1) if any(f.strip() for f in row)]
    if not rows:
        raise ManualScoresError(f"scores sheet {path.name} is empty; expected the header "
                                f"{','.join(SCORE_COLUMNS)}")
    header_line, header = rows[0]
    header = [name.strip() for name in header]
    if len(header) > len(SCORE_COLUMNS) and sorted(filter(None, header)) == sorted(SCORE_COLUMNS):
        # A spreadsheet saves every line as wide as its widest: something typed in a
        # column after 'comment' pads every line. Not guessed away: "2,5," under such a
        # header could be a decimal comma or a score and a note.
        raise ManualScoresError(
            f"scores sheet {path.name} line {header_line}: an empty extra column beside "
            f"{','.join(SCORE_COLUMNS)} (something typed in a column after them?); delete "
            "that column in the spreadsheet and save again")
    if sorted(header) != sorted(SCORE_COLUMNS):
        raise ManualScoresError(
            f"scores sheet {path.name} line {header_line}: columns {','.join(header)!r}; "
            f"expected {','.join(SCORE_COLUMNS)} (comma separated)")
    known = _sheet_students(students)
    scores = {}
    for number, row in rows[1:]:
        where = f"scores sheet {path.name} line {number}"
        swallowed = _swallowed_line(row, tasks)
        if swallowed is not None:
            raise ManualScoresError(
                f"{where}: a quote (\") opened in this line is never closed, so the lines "
                f"after it were read as part of one field (the next is {swallowed!r}) and "
                "their scores would be lost; close the quote")
        if len(row) != len(header):
            raise ManualScoresError(f"{where}: {len(row)} fields, expected {len(header)} "
                                    f"({','.join(header)}); quote a comment that holds a comma")
        fields = dict(zip(header, row))
        student, task_id = _student_of(fields["student"], known), fields["task"].strip()
        if student is None:
            raise ManualScoresError(f"{where}: unknown student {fields['student']!r}; expected "
                                    "a student folder name as in grades.csv")
        if task_id not in tasks:
            raise ManualScoresError(f"{where}: unknown task {task_id!r}; written tasks: "
                                    f"{', '.join(tasks) or 'none'}")
        if (student, task_id) in scores:
            first = scores[(student, task_id)].line
            raise ManualScoresError(f"{where}: {student!r} / {task_id!r} is already on line "
                                    f"{first}; one line per student and task")
        try:
            score = read_score_text(fields["score"], tasks[task_id].points)
        except ValueError as error:
            raise ManualScoresError(f"{where}, column 'score': {error}") from None
        # A blank score is recorded too, so that a duplicate of it is still caught.
        scores[(student, task_id)] = ManualScore(student, task_id, score,
                                                 fields["comment"].strip(), number)
    return {key: value for key, value in scores.items() if value.score is not None}


def apply_manual_scores(grades, scores):
    """*grades* with each scored written answer ``graded_by_instructor`` (a new list).

    The comment goes into the message, which the feedback file shows.
    Rows without a line in *scores* are unchanged.
    """
    merged = []
    for grade in grades:
        entry = scores.get((grade.student, grade.exercise))
        if entry is None:
            merged.append(grade)
            continue
        message = (f"graded by your instructor: {format_score(entry.score)} of "
                   f"{grade.max_score} points")
        if entry.comment:
            message += f"; comment: {entry.comment}"
        merged.append(replace(grade, score=entry.score, status=GRADE_INSTRUCTOR_GRADED,
                              message=shorten(message, 2000)))
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
                # work probably is, as grades.csv does, before anyone types a 0.
                what = "is a copy" if len(copies) == 1 else "are copies"
                copy_note = f"{', '.join(copies)} {what} of {name} (only {name} is graded)"
            answers.append(WrittenAnswer(submission.student, task.id, text, is_unanswered(text),
                                         f"cell {cell} of {name}", copy_note))
    return answers


def rubric_text(task, registry=None):
    """The rubric of *task* as text, rendered by the registry when it can.

    The registry's ``render_rubric_markdown(task_id)`` is used when it
    exists and knows the task (whatever shape its rubric has); otherwise
    each rubric item is one line.
    """
    render = getattr(registry, "render_rubric_markdown", None)
    if render is not None:
        try:
            return render(task.id)
        except (KeyError, ValueError, TypeError, AttributeError):
            pass
    lines = []
    for item in getattr(task, "rubric", ()):
        if isinstance(item, (tuple, list)) and len(item) == 2:
            lines.append(f"- {item[0]} ({item[1]} points)")
        else:
            lines.append(f"- {item}")
    return "\n".join(lines)


_PAGE_STYLE = (
    "body{font-family:sans-serif;max-width:60em;margin:2em auto;padding:0 1em;line-height:1.4}"
    "pre{white-space:pre-wrap;word-wrap:break-word;background:#f6f6f6;padding:.6em}"
    ".blank{color:#8a4b00;font-weight:bold}.score{color:#555}"
    "section{border-top:1px solid #ccc;margin-top:1.2em}")


def review_page(task, answers, grades_by_key, rubric):
    """The HTML page of one written task: statement, rubric, every answer (escaped), blanks marked.

    *answers* are this task's :class:`WrittenAnswer` in student order;
    *grades_by_key* maps ``(student, task id)`` to the grade, to show a
    score already given.
    """
    blank = sum(a.blank for a in answers)
    # After a --manual merge the page is rewritten; it says how far the grading is.
    scored = sum(not a.blank and getattr(grades_by_key.get((a.student, a.task)), "status", None)
                 == GRADE_INSTRUCTOR_GRADED for a in answers)
    progress = f" ({scored} scored so far)" if scored else ""
    lines = ["<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
             # Nothing on this page may load or run: student text is hostile input.
             '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
             'style-src \'unsafe-inline\'">',
             f"<title>{html_text(task.id)}: written answers</title>",
             f"<style>{_PAGE_STYLE}</style>", "</head>", "<body>",
             f"<h1>{html_text(task.title)} <small>({html_text(task.id)}, "
             f"{task.points} points)</small></h1>",
             f"<p>{plural(len(answers), 'student')}; {plural(len(answers) - blank, 'answer')} "
             f"to grade{progress}, {blank} blank or missing (pre-filled 0 in {SCORES_NAME}).</p>",
             "<h2>Task</h2>", f"<pre>{html_text(task.statement)}</pre>",
             "<h2>Rubric</h2>", f"<pre>{html_text(rubric)}</pre>", "<h2>Answers</h2>"]
    for number, answer in enumerate(answers, start=1):
        grade = grades_by_key.get((answer.student, answer.task))
        status = ""
        if grade is not None:
            status = (f"{grade.status}, score {format_score(grade.score)} / {grade.max_score}"
                      if grade.score is not None else grade.status)
        lines += [f'<section id="answer-{number}">',
                  f"<h3>{number}. {html_text(answer.student)}</h3>",
                  f'<p class="score">{html_text(answer.note)}'
                  + (f"; {html_text(status)}" if status else "") + "</p>"]
        if answer.copy_note:
            lines.append(f'<p class="blank">{html_text(answer.copy_note)}: read it before '
                         "scoring</p>")
        if answer.text is None or answer.blank:
            what = "BLANK: no answer" + ("" if answer.text is None else
                                         " (the cell is empty or still the stub)")
            lines.append(f'<p class="blank">{what}</p>')
        else:
            text = answer.text if len(answer.text) <= ANSWER_CHARS else (
                answer.text[:ANSWER_CHARS] + f"\n[... cut at {ANSWER_CHARS} characters: "
                "read the rest in the notebook]")
            lines.append(f"<pre>{html_text(text)}</pre>")
        lines.append("</section>")
    lines += ["</body>", "</html>"]
    return "\n".join(lines) + "\n"


def scores_sheet(answers):
    """The pre-filled scores sheet: blank score for a real answer, 0 for a blank or missing one."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(SCORE_COLUMNS)
    for answer in answers:
        if answer.blank:
            why = answer.note if answer.text is None else "no answer: the cell is empty or the stub"
            if answer.copy_note:
                why += f"; {answer.copy_note}"
            writer.writerow([sheet_student(answer.student), answer.task, "0", printable(why)])
        else:
            writer.writerow([sheet_student(answer.student), answer.task, "", ""])
    return buffer.getvalue()


@dataclass(frozen=True)
class ReviewFiles:
    """What :func:`write_review` wrote: the pages, the sheet, and whether the sheet was kept."""

    folder: Path
    pages: tuple
    sheet: Path
    sheet_kept: bool


def write_review(grades, submissions, tasks, grades_out, registry=None):
    """Write the review pages and, if not there yet, the scores sheet; return :class:`ReviewFiles`.

    Pages are rewritten on every run (they show the scores merged so far);
    an existing ``scores.csv`` is never overwritten.
    """
    folder = review_folder(grades_out)
    folder.mkdir(parents=True, exist_ok=True)
    answers = written_answers(submissions, tasks)
    by_key = {(g.student, g.exercise): g for g in grades}
    pages = []
    for task in tasks.values():
        mine = [a for a in answers if a.task == task.id]
        path = folder / f"{task.id}.html"
        write_atomically(path, review_page(task, mine, by_key, rubric_text(task, registry)))
        pages.append(path)
    sheet = folder / SCORES_NAME
    kept = sheet.exists()
    if not kept:
        write_atomically(sheet, scores_sheet(answers))
    return ReviewFiles(folder, tuple(pages), sheet, kept)
