"""The class report: how the whole class did, as a web page and as Markdown, with two figures.

:func:`write_class_report` writes ``DIR/class_report.html`` (open it in a
browser: the report rendered, both figures embedded, nothing loaded or run),
``DIR/class_report.md`` (the same, as Markdown for a Markdown viewer),
``DIR/score_distribution.png`` (a histogram of the students' totals) and
``DIR/exercise_statuses.png`` (per exercise, the share of students in each
status). Each figure has a one-line description beside it. It holds the totals, the statuses per exercise, the
share of students passing each check, the hardest checks with their most
common wrong outputs, and, given the submissions folder, pairs of students
whose answer code is nearly identical once names and layout are normalised:
a hint for the instructor to look at, never a verdict, computed locally.

A check is known by its exercise and its position among that exercise's
checks (the grader gives every student the same checks); its label is the
check's ``name``. A student whose exercise ended ``timeout``, ``error`` or
``missing`` ran no check and counts as not passing it.

The files depend only on the grades (and the notebooks): no timestamp, and
the PNGs carry no "Software" metadata, so the same class gives the same bytes
(with the same matplotlib).

Student names, check names and wrong values are escaped
(:mod:`reasoneval_mini.grading.escaping`): a value holding a backtick or
``<img src=...>`` shows as text, never as live Markdown. The similarity
pass (:mod:`reasoneval_mini.grading.similarity`) reads the submissions the
grader read into memory before any student code ran; the disk is not read
again, so no student's code can change what the report says about another.
Written answers count in the totals once scored by hand, and have a section
of their own.
"""

import base64
import html
import io
from collections import Counter
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

from reasoneval_mini.support.files import write_atomically
from reasoneval_mini.support.text import shorten
from reasoneval_mini.grading.escaping import code_span, markdown_text
from reasoneval_mini.grading.rendering import markdown_html
from reasoneval_mini.grading.reports import format_score
from reasoneval_mini.grading.similarity import (
    MIN_ANSWER_TOKENS, SIMILARITY_THRESHOLD, SimilarPair, normalised_tokens, similar_answers,
    variant_bound_exercises)
from reasoneval_mini.grading.statuses import (
    GRADE_AWAITING_INSTRUCTOR,
    GRADE_ERROR,
    GRADE_FAILED,
    GRADE_INSTRUCTOR_GRADED,
    GRADE_INTERRUPTED,
    GRADE_MISSING,
    GRADE_PASSED,
    GRADE_STATUSES,
    GRADE_TIMEOUT,
)

__all__ = ["SimilarPair", "normalised_tokens", "similar_answers", "write_class_report",
           "report_markdown", "check_stats", "hardest_checks", "status_counts",
           "student_totals"]

REPORT_NAME = "class_report.md"
REPORT_PAGE_NAME = "class_report.html"
DISTRIBUTION_FIGURE = "score_distribution.png"
STATUS_FIGURE = "exercise_statuses.png"
#: Figures are this size (inches) at this resolution, whatever the class.
FIGURE_SIZE = (8.0, 4.5)
FIGURE_DPI = 100
#: Okabe and Ito's colour-blind-safe palette, one colour per grade status.
STATUS_COLOURS = {GRADE_PASSED: "#009E73", GRADE_FAILED: "#E69F00", GRADE_TIMEOUT: "#CC79A7",
                  GRADE_ERROR: "#D55E00", GRADE_MISSING: "#999999", GRADE_INTERRUPTED: "#56B4E9"}
HISTOGRAM_COLOUR = "#0072B2"

#: How many of the hardest checks the report details, and how many wrong outputs each.
HARDEST_CHECKS = 5
WRONG_OUTPUTS = 3
#: Longest wrong output shown, in characters.
OUTPUT_CHARS = 60


@dataclass(frozen=True)
class CheckStats:
    """One check across the class: *passed* of *students*, and its failures."""

    exercise: str
    position: int
    name: str
    passed: int
    students: int
    wrong_outputs: tuple  # ((shortened actual value, count), ...), most common first
    not_attempted: int
    not_run: int

    @property
    def share(self):
        return Fraction(self.passed, self.students) if self.students else Fraction(0)


def student_totals(grades):
    """``{student: total score}`` (exact), students in the order of *grades*.

    A written answer still awaiting the instructor (no score) adds nothing.
    """
    totals = {}
    for grade in grades:
        totals[grade.student] = totals.get(grade.student, Fraction(0)) + Fraction(
            grade.score or 0)
    return totals


def status_counts(grades, exercises):
    """``{exercise id: {status: number of students}}``, exercises in registry order."""
    counts = {i: dict.fromkeys(GRADE_STATUSES, 0) for i in exercises}
    for grade in grades:
        counts[grade.exercise][grade.status] += 1
    return counts


def check_stats(grades, exercises):
    """One :class:`CheckStats` per check, exercises in registry order, checks in order."""
    by_exercise = {i: [] for i in exercises}
    for grade in grades:
        by_exercise[grade.exercise].append(grade)
    stats = []
    for exercise_id, rows in by_exercise.items():
        width = max((len(g.checks) for g in rows), default=0)
        for position in range(width):
            ran = [g.checks[position] for g in rows if len(g.checks) > position]
            failed = [c for c in ran if not c.get("passed")]
            wrong = Counter(shorten(c.get("actual", ""), OUTPUT_CHARS)
                            for c in failed if c.get("attempted", True))
            stats.append(CheckStats(
                exercise_id, position, str(ran[0].get("name", f"check {position + 1}")),
                sum(bool(c.get("passed")) for c in ran), len(rows),
                tuple(sorted(wrong.items(), key=lambda item: (-item[1], item[0]))[:WRONG_OUTPUTS]),
                sum(not c.get("attempted", True) for c in failed), len(rows) - len(ran)))
    return stats


def hardest_checks(stats, limit=HARDEST_CHECKS):
    """The hardest check of each exercise, the *limit* fewest passed first (ties in course order).

    One per exercise, so that one hard exercise cannot fill the list; fully
    passed checks are left out.
    """
    hardest = {}
    for check in sorted((s for s in stats if s.passed < s.students), key=lambda s: s.share):
        hardest.setdefault(check.exercise, check)  # sorted is stable: course order on ties
    return list(hardest.values())[:limit]


def _percent(part, whole):
    return f"{round(100 * Fraction(part, whole))}%" if whole else "-"


def _cell(text):
    # A table cell or list item: one line, shown as written ("|" would end a cell).
    return markdown_text(shorten(text, OUTPUT_CHARS))


def _written_section(grades, written):
    lines = ["", "## Written answers (graded by hand)", "",
             "| task | points | graded by instructor | awaiting | other | mean of graded |",
             "|---|---:|---:|---:|---:|---:|"]
    for task_id, task in written.items():
        rows = [g for g in grades if g.exercise == task_id]
        graded = [g for g in rows if g.status == GRADE_INSTRUCTOR_GRADED]
        waiting = sum(g.status == GRADE_AWAITING_INSTRUCTOR for g in rows)
        mean = (format_score(sum(Fraction(g.score) for g in graded) / len(graded))
                if graded else "-")
        lines.append(f"| {task_id} | {task.points} | {len(graded)} | {waiting} | "
                     f"{len(rows) - len(graded) - waiting} | {mean} |")
    if any(g.status == GRADE_AWAITING_INSTRUCTOR for g in grades):
        lines += ["", "Answers still awaiting hand grading count 0 in the totals above "
                  "until they are scored (reasoneval-course grade ... --manual scores.csv)."]
    return lines


def _similar_section(similar, skipped, bound=()):
    pairs, skipped = similar, tuple(skipped)
    lines = ["", "## Answers that look alike (a hint, not a verdict)", "",
             f"Pairs of students whose answer code is at least "
             f"{round(100 * SIMILARITY_THRESHOLD)}% alike once comments, layout and "
             "variable names are set aside (fingerprints of the code's tokens pick the "
             "candidates, then difflib compares them; computed on this machine, nothing is "
             "uploaded). Short answers are alike by necessity and are skipped (under "
             f"{MIN_ANSWER_TOKENS} tokens). Similar code has many innocent causes: a shared "
             "hint, a textbook idiom, working together as allowed. Read the notebooks before "
             "concluding anything.", ""]
    if bound:
        lines += [f"Typed-in and keyed answers ({', '.join(f'`{i}`' for i in bound)}) are "
                  "compared only between students whose variants draw different items: with "
                  "the same items, the right answer is the same literal.", ""]
    if skipped:
        lines += [f"Skipped, because they have a single right answer (the answer function "
                  f"takes no parameters and returns one fixed value, so every correct answer "
                  f"is the same code): {', '.join(f'`{i}`' for i in skipped)}.", ""]
    lines += ([f"- `{p.exercise}`: {markdown_text(p.first)} and {markdown_text(p.second)}, "
               f"{round(100 * p.ratio)}% alike" for p in pairs]
              or ["No pair above the threshold."])
    return lines


def report_markdown(grades, exercises, similar=None, written=None, skipped=(), isolation=None):
    """The Markdown of the class report (figures referenced by their file names).

    *grades* may hold written tasks' rows (*written* maps their ids to
    tasks); *similar* is a list of :class:`SimilarPair` (``None``: no
    similarity section) and *skipped* the exercises it left out;
    *isolation* the grading run's isolation level, shown under the title.
    """
    written = dict(written or {})
    totals = student_totals(grades)
    checked = [g for g in grades if g.exercise in exercises]
    maximum = sum(e.points for e in exercises.values()) + sum(t.points for t in written.values())
    values = sorted(totals.values())
    n = len(values)
    median = (values[(n - 1) // 2] + values[n // 2]) / 2 if n else 0
    mean = sum(values) / n if n else 0
    parts = f"{len(exercises)} exercises" + (f" and {len(written)} written tasks" if written else "")
    lines = ["# Class report", "",
             f"{n} students, {parts}, {maximum} points in all.", "",
             *([f"Student code ran with isolation: {isolation}.", ""] if isolation else []),
             "## Scores", "",
             f"Total score: mean {format_score(mean)}, median {format_score(median)}, "
             f"lowest {format_score(values[0]) if n else '-'}, "
             f"highest {format_score(values[-1]) if n else '-'} (of {maximum}).", "",
             f"![Histogram of the students' total scores]({DISTRIBUTION_FIGURE})", "",
             f"Figure: how many students have each total score (rounded to whole points, 0 to {maximum}).",
             "", "## Statuses per exercise", "",
             f"![Share of students in each status, per exercise]({STATUS_FIGURE})", "",
             "Figure: one bar per exercise, split by the share of students whose grade ended "
             "in each status.", "",
             "| exercise | points | " + " | ".join(GRADE_STATUSES) + " | share passed |",
             "|---|---:|" + "---:|" * len(GRADE_STATUSES) + "---:|"]
    for exercise_id, counts in status_counts(checked, exercises).items():
        lines.append(f"| {exercise_id} | {exercises[exercise_id].points} | "
                     + " | ".join(str(counts[s]) for s in GRADE_STATUSES)
                     + f" | {_percent(counts[GRADE_PASSED], n)} |")
    if written:
        lines += _written_section(grades, written)
    stats = check_stats(checked, exercises)
    lines += ["", "## Hardest checks", "",
              "The hardest check of each exercise, those the fewest students pass first, with "
              "the wrong values most often returned (\"not attempted\": the function was still "
              "the stub; \"not run\": the exercise ended timeout, error or missing).", ""]
    hardest = hardest_checks(stats)
    for number, check in enumerate(hardest, start=1):
        lines.append(f"{number}. `{check.exercise}` / {_cell(check.name)}: "
                     f"{check.passed} of {check.students} students pass "
                     f"({_percent(check.passed, check.students)}); "
                     f"not attempted {check.not_attempted}, not run {check.not_run}.")
        for actual, count in check.wrong_outputs:
            lines.append(f"   - {count} × got {code_span(actual)}")
    if not hardest:
        lines.append("Every student passes every check.")
    lines += ["", "## Share of students passing each check", "",
              "| exercise | check | passed | share |", "|---|---|---:|---:|"]
    lines += [f"| {s.exercise} | {_cell(s.name)} | {s.passed} of {s.students} | "
              f"{_percent(s.passed, s.students)} |" for s in stats]
    if similar is not None:
        lines += _similar_section(similar, skipped, variant_bound_exercises(exercises))
    return "\n".join(lines) + "\n"


def _write_png(figure, path):
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=FIGURE_DPI, metadata={"Software": None})
    write_atomically(path, buffer.getvalue())
    return buffer.getvalue()


_PAGE_STYLE = ("body{font-family:sans-serif;max-width:60em;margin:2em auto;padding:0 1em;"
               "line-height:1.4}table{border-collapse:collapse}"
               "td,th{border:1px solid #ccc;padding:.2em .5em}img{max-width:100%}")


def report_page(markdown, figures):
    """The report's web page: *markdown* rendered inert, *figures* (``{name: PNG bytes}``) embedded.

    Student text in the report is already escaped Markdown; rendering shows
    it as written, and only the report's own figures become images.
    """
    images = {name: "data:image/png;base64," + base64.b64encode(data).decode("ascii")
              for name, data in figures.items()}
    return "\n".join([
        "<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
        # The page's own figures are data: URIs; nothing else may load or run.
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
        'img-src data:; style-src \'unsafe-inline\'">',
        "<title>Class report</title>", f"<style>{_PAGE_STYLE}</style>", "</head>", "<body>",
        # The Markdown writes < > & as entities (escaping.markdown_text); mistune with
        # escape=True would show the entity itself, so they go back to characters,
        # which it escapes as text: a student's "<img ...>" reads as written.
        markdown_html(html.unescape(markdown), images=images), "</body>", "</html>"]) + "\n"


def _figures(grades, exercises, out_dir, written):
    # A bare Figure with the default style: no pyplot state, no global backend
    # switch, and the user's matplotlibrc cannot change the bytes.
    import matplotlib.style
    from matplotlib.figure import Figure

    maximum = sum(e.points for e in exercises.values()) + sum(t.points for t in written.values())
    totals = [float(t) for t in student_totals(grades).values()]
    counts = status_counts([g for g in grades if g.exercise in exercises], exercises)
    students = len(totals)
    with matplotlib.style.context("default"):
        figure = Figure(figsize=FIGURE_SIZE)
        axes = figure.add_subplot()
        # One bar per whole point, centred on it: a total of 2.67 counts as 3.
        edges = [k - 0.5 for k in range(0, maximum + 2)]
        axes.hist(totals, bins=edges, color=HISTOGRAM_COLOUR, edgecolor="white")
        axes.set_xlim(edges[0], edges[-1])
        axes.xaxis.get_major_locator().set_params(integer=True)
        axes.set(title=f"Total scores of {students} students", xlabel=f"total (of {maximum} points)",
                 ylabel="students")
        axes.yaxis.get_major_locator().set_params(integer=True)
        figure.tight_layout()
        distribution = _write_png(figure, out_dir / DISTRIBUTION_FIGURE)

        figure = Figure(figsize=FIGURE_SIZE)
        axes = figure.add_subplot()
        names = list(counts)[::-1]  # first exercise on top
        left = [0.0] * len(names)
        for status in GRADE_STATUSES:
            colour = STATUS_COLOURS[status]
            shares = [counts[i][status] / students if students else 0 for i in names]
            axes.barh(names, shares, left=left, color=colour, label=status)
            left = [a + b for a, b in zip(left, shares)]
        axes.set(title="Statuses per exercise", xlabel="share of students", xlim=(0, 1))
        axes.legend(ncols=len(GRADE_STATUSES), loc="lower center", bbox_to_anchor=(0.5, 1.06),
                    frameon=False, fontsize="small")
        axes.tick_params(axis="y", labelsize="small")
        figure.tight_layout()
        statuses = _write_png(figure, out_dir / STATUS_FIGURE)
    return {DISTRIBUTION_FIGURE: distribution, STATUS_FIGURE: statuses}


def write_class_report(grades, exercises, out_dir, submissions=None, written=None,
                       isolation=None):
    """Write the report (page and Markdown) and its figures into *out_dir*; return the Markdown's path.

    The page is beside it (:data:`REPORT_PAGE_NAME`).

    *exercises* maps ids to the registry's exercises (``points``,
    ``notebook``, ``answer_name``); *written* the written tasks (their rows
    count once scored). With *submissions* (the
    :class:`~reasoneval_mini.grading.submissions.Submission` objects the
    grader read before running any student code), the report lists similar
    answers. *isolation*: the grading run's
    :class:`~reasoneval_mini.sandbox.Isolation`, named in the report.
    """
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    written = dict(written or {})
    grades = [g for g in grades if g.exercise in exercises or g.exercise in written]
    checked = [g for g in grades if g.exercise in exercises]
    similar, skipped = (similar_answers(submissions, checked, exercises)
                        if submissions is not None else (None, ()))
    figures = _figures(grades, exercises, out_dir, written)
    markdown = report_markdown(grades, exercises, similar, written, skipped, isolation)
    write_atomically(out_dir / REPORT_PAGE_NAME, report_page(markdown, figures))
    path = out_dir / REPORT_NAME
    write_atomically(path, markdown)
    return path
