"""The hand-grading review pages: one rendered HTML page per written task, and the scores sheet.

:func:`write_review` writes ``<out>_written/<task id>.html`` (rewritten on
every run, showing the scores merged so far) and, once, the scores sheet of
:mod:`reasoneval_mini.grading.manual`. A page (:func:`review_page`) holds
the task, its rubric with every level's anchor answer, and every
student's answer in student order, rendered as Markdown (emphasis, code,
lists, tables), with blank and missing answers marked and each answer's
status and levels once merged.

Student text is rendered by :func:`.rendering.markdown_html` (mistune, then
bleach): its own HTML is shown as text, a link or an image as its address.
The page's Content-Security-Policy (``default-src 'none'``) also forbids
every script, image and remote resource. Without mistune or bleach
installed, answers are shown as escaped text, as written.
"""

from dataclasses import dataclass
from pathlib import Path

from reasoneval_mini.support.files import write_atomically
from reasoneval_mini.support.text import plural
from reasoneval_mini.grading.escaping import html_text
from reasoneval_mini.grading.manual import (
    SCORES_NAME, review_folder, scores_sheet, task_criteria, written_answers)
from reasoneval_mini.grading.rendering import markdown_html
from reasoneval_mini.grading.reports import format_score
from reasoneval_mini.grading.statuses import GRADE_INSTRUCTOR_GRADED

#: Longest answer shown on a review page, in characters (the notebook has the rest).
ANSWER_CHARS = 20_000


def rubric_text(task, registry=None):
    """The rubric of *task* as Markdown, rendered by the registry when it can.

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
    ".answer{border-left:3px solid #ccc;padding-left:1em}.url{color:#555;font-size:90%}"
    ".blank{color:#8a4b00;font-weight:bold}.score{color:#555}"
    "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.2em .5em}"
    "section{border-top:1px solid #ccc;margin-top:1.2em}")


def rubric_html(task, rubric):
    """The rubric as HTML: a table of levels and anchor answers per criterion, when it has them.

    Otherwise *rubric* (the registry's Markdown) rendered like an answer.
    """
    criteria = task_criteria(task)
    if not criteria or not all(c.anchors for c in criteria):
        return markdown_html(rubric)
    lines = ["<table>", "<thead><tr><th>criterion</th><th>level</th><th>an answer at this level"
             "</th></tr></thead>", "<tbody>"]
    for criterion in criteria:
        rows = list(zip(criterion.levels, criterion.anchors))[::-1]  # the top level first
        for index, (level, anchor) in enumerate(rows):
            head = (f'<td rowspan="{len(rows)}"><strong>{html_text(criterion.name)}</strong>'
                    f"<br>{html_text(criterion.looks_for)}</td>" if index == 0 else "")
            lines.append(f"<tr>{head}<td>{level}</td><td>{html_text(anchor)}</td></tr>")
    lines += ["</tbody>", "</table>"]
    return "\n".join(lines)


def _status(grade):
    if grade is None:
        return ""
    if grade.score is None:
        return grade.status
    levels = "".join(f"; {c['criterion']}: {c['level']} of {c['points']}"
                     for c in grade.checks if "criterion" in c)
    return f"{grade.status}, score {format_score(grade.score)} / {grade.max_score}{levels}"


def _answer_section(number, answer, grade):
    status = _status(grade)
    lines = [f'<section id="answer-{number}">', f"<h3>{number}. {html_text(answer.student)}</h3>",
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
            answer.text[:ANSWER_CHARS] + f"\n\n[... cut at {ANSWER_CHARS} characters: "
            "read the rest in the notebook]")
        lines.append(f'<div class="answer">{markdown_html(text)}</div>')
    lines.append("</section>")
    return lines


def review_page(task, answers, grades_by_key, rubric):
    """The HTML page of one written task: statement, rubric, every answer rendered inert.

    *answers* are this task's :class:`~reasoneval_mini.grading.manual.WrittenAnswer`
    in student order; *grades_by_key* maps ``(student, task id)`` to the
    grade, to show a score already given; *rubric* is the rubric's Markdown.
    """
    blank = sum(a.blank for a in answers)
    # After a --manual merge the page is rewritten; it says how far the grading is.
    scored = sum(not a.blank and getattr(grades_by_key.get((a.student, a.task)), "status", None)
                 == GRADE_INSTRUCTOR_GRADED for a in answers)
    progress = f" ({scored} scored so far)" if scored else ""
    how = ("a level per criterion" if task_criteria(task) and all(
        c.anchors for c in task_criteria(task)) else "a score")
    lines = ["<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
             # Nothing on this page may load or run: student text is hostile input.
             '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
             'style-src \'unsafe-inline\'">',
             f"<title>{html_text(task.id)}: written answers</title>",
             f"<style>{_PAGE_STYLE}</style>", "</head>", "<body>",
             f"<h1>{html_text(task.title)} <small>({html_text(task.id)}, "
             f"{task.points} points)</small></h1>",
             f"<p>{plural(len(answers), 'student')}; {plural(len(answers) - blank, 'answer')} "
             f"to grade{progress}, {blank} blank or missing (0 points, marked below). Type "
             f"{how} into {SCORES_NAME}.</p>",
             "<h2>Task</h2>", markdown_html(task.statement),
             "<h2>Rubric</h2>", rubric_html(task, rubric), "<h2>Answers</h2>"]
    for number, answer in enumerate(answers, start=1):
        lines += _answer_section(number, answer, grades_by_key.get((answer.student, answer.task)))
    lines += ["</body>", "</html>"]
    return "\n".join(lines) + "\n"


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
        write_atomically(sheet, scores_sheet(answers, tasks))
    return ReviewFiles(folder, tuple(pages), sheet, kept)
