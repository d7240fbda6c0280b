"""The class report: how the whole class did, as Markdown with two figures.

:func:`write_class_report` writes ``DIR/class_report.md``,
``DIR/score_distribution.png`` (a histogram of the students' totals) and
``DIR/exercise_statuses.png`` (per exercise, the share of students in each
status). The Markdown reads as plain text; each figure has a one-line
description beside it. It holds the totals, the statuses per exercise, the
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

>>> normalised_tokens("def f(x):  # mine\\n    return len(x) + 1")
['def', 'v0', '(', 'v1', ')', ':', 'INDENT', 'return', 'len', '(', 'v1', ')', '+', '1', 'DEDENT']

Surprising: renaming every variable does not change the normalised code.

>>> mine, theirs = "def f(x):\\n    return x + 1", "def g(y):\\n    return y + 1"
>>> normalised_tokens(mine) == normalised_tokens(theirs)
True
"""

import builtins
import difflib
import io
import itertools
import keyword
import tokenize
from collections import Counter
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

from reasoneval_mini.support.files import write_atomically
from reasoneval_mini.support.text import shorten
from reasoneval_mini.grading.notebooks import cells_defining
from reasoneval_mini.grading.reports import format_score
from reasoneval_mini.grading.statuses import (
    GRADE_ERROR,
    GRADE_FAILED,
    GRADE_INTERRUPTED,
    GRADE_MISSING,
    GRADE_PASSED,
    GRADE_STATUSES,
    GRADE_TIMEOUT,
)
from reasoneval_mini.grading.submissions import discover_students, read_student

REPORT_NAME = "class_report.md"
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
#: Answers this alike (difflib ratio on normalised tokens) are listed as similar.
SIMILARITY_THRESHOLD = 0.9
#: Shorter answers are alike by necessity (``return a + b``) and are not compared.
MIN_ANSWER_TOKENS = 25


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


@dataclass(frozen=True)
class SimilarPair:
    """Two students whose answer to *exercise* is *ratio* alike (0 to 1) after normalising."""

    exercise: str
    first: str
    second: str
    ratio: float


def student_totals(grades):
    """``{student: total score}`` (exact), students in the order of *grades*."""
    totals = {}
    for grade in grades:
        totals[grade.student] = totals.get(grade.student, Fraction(0)) + Fraction(grade.score)
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
    """The *limit* checks fewest students pass (ties in course order), fully passed ones left out."""
    failing = [s for s in stats if s.passed < s.students]
    return sorted(failing, key=lambda s: s.share)[:limit]  # sorted is stable: course order


def normalised_tokens(source):
    """The tokens of *source* with comments and layout dropped and local names numbered.

    Names that are keywords, builtins or attributes (after ``.``) are kept;
    every other name becomes ``v0``, ``v1``, ... in order of first use.
    Raises ``SyntaxError`` for code that cannot be tokenised.
    """
    names, tokens, previous = {}, [], None
    skipped = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.ENCODING,
               tokenize.ENDMARKER}
    try:
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            if token.type in skipped:
                continue
            text = token.string
            if token.type == tokenize.INDENT:
                text = "INDENT"
            elif token.type == tokenize.DEDENT:
                text = "DEDENT"
            elif (token.type == tokenize.NAME and not keyword.iskeyword(text)
                  and not hasattr(builtins, text) and previous != "."):
                text = names.setdefault(text, f"v{len(names)}")
            tokens.append(text)
            previous = token.string
    except (tokenize.TokenError, IndentationError) as error:
        raise SyntaxError(str(error)) from None
    return tokens


def _answer_sources(submissions_dir, grades, exercises):
    """``{exercise id: {student: source of the last cell defining the answer}}``.

    Only answers the learner attempted (some check ran and was not a stub's).
    """
    attempted = {(g.student, g.exercise) for g in grades
                 if any(c.get("attempted", True) for c in g.checks)}
    sources = {i: {} for i in exercises}
    for folder in discover_students(submissions_dir):
        # Read and parsed as the grader reads them (nothing runs); folder
        # names that are not UTF-8 meet their grades under the same escaped name.
        submission = read_student(Path(submissions_dir) / folder, exercises)
        for notebook in submission.notebooks:
            code = {number: source for number, source, _ in notebook.cells}
            for exercise_id in notebook.exercises:
                numbers = cells_defining(notebook.cells, exercises[exercise_id].answer_name)
                if numbers and (submission.student, exercise_id) in attempted:
                    sources[exercise_id][submission.student] = code[numbers[-1]]
    return sources


def similar_answers(submissions_dir, grades, exercises, threshold=SIMILARITY_THRESHOLD):
    """Pairs of students whose attempted answers are at least *threshold* alike, most alike first.

    Reads the answer cells (never runs them); answers shorter than
    :data:`MIN_ANSWER_TOKENS` tokens, or that do not tokenise, are skipped.
    """
    pairs = []
    for exercise_id, by_student in _answer_sources(submissions_dir, grades, exercises).items():
        tokens = {}
        for student, source in by_student.items():
            try:
                found = normalised_tokens(source)
            except SyntaxError:
                continue
            if len(found) >= MIN_ANSWER_TOKENS:
                tokens[student] = found
        for first, second in itertools.combinations(sorted(tokens), 2):
            matcher = difflib.SequenceMatcher(None, tokens[first], tokens[second], autojunk=False)
            if matcher.real_quick_ratio() >= threshold and matcher.quick_ratio() >= threshold:
                ratio = matcher.ratio()
                if ratio >= threshold:
                    pairs.append(SimilarPair(exercise_id, first, second, ratio))
    order = list(exercises)
    return sorted(pairs, key=lambda p: (-p.ratio, order.index(p.exercise), p.first, p.second))


def _percent(part, whole):
    return f"{round(100 * Fraction(part, whole))}%" if whole else "-"


def _cell(text):
    # A table cell: one line, and a "|" would end the cell.
    return shorten(text, OUTPUT_CHARS).replace("|", "\\|")


def report_markdown(grades, exercises, similar=None, isolation=None):
    """The Markdown of the class report (figures referenced by their file names).

    *isolation*: the grading run's isolation level (its text is one line), shown under the title.
    """
    totals = student_totals(grades)
    maximum = sum(e.points for e in exercises.values())
    values = sorted(totals.values())
    n = len(values)
    median = (values[(n - 1) // 2] + values[n // 2]) / 2 if n else 0
    mean = sum(values) / n if n else 0
    lines = ["# Class report", "",
             f"{n} students, {len(exercises)} exercises, {maximum} points in all.", "",
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
    for exercise_id, counts in status_counts(grades, exercises).items():
        lines.append(f"| {exercise_id} | {exercises[exercise_id].points} | "
                     + " | ".join(str(counts[s]) for s in GRADE_STATUSES)
                     + f" | {_percent(counts[GRADE_PASSED], n)} |")
    stats = check_stats(grades, exercises)
    lines += ["", "## Hardest checks", "",
              "The checks the fewest students pass, with the wrong values most often returned "
              "(\"not attempted\": the function was still the stub; \"not run\": the exercise "
              "ended timeout, error or missing).", ""]
    hardest = hardest_checks(stats)
    for number, check in enumerate(hardest, start=1):
        lines.append(f"{number}. `{check.exercise}` / {_cell(check.name)}: "
                     f"{check.passed} of {check.students} students pass "
                     f"({_percent(check.passed, check.students)}); "
                     f"not attempted {check.not_attempted}, not run {check.not_run}.")
        for actual, count in check.wrong_outputs:
            lines.append(f"   - {count} × got `{_cell(actual)}`")
    if not hardest:
        lines.append("Every student passes every check.")
    lines += ["", "## Share of students passing each check", "",
              "| exercise | check | passed | share |", "|---|---|---:|---:|"]
    lines += [f"| {s.exercise} | {_cell(s.name)} | {s.passed} of {s.students} | "
              f"{_percent(s.passed, s.students)} |" for s in stats]
    if similar is not None:
        lines += ["", "## Answers that look alike (a hint, not a verdict)", "",
                  f"Pairs of students whose answer code is at least "
                  f"{round(100 * SIMILARITY_THRESHOLD)}% alike once comments, layout and "
                  "variable names are set aside (difflib on the code's tokens, computed on "
                  "this machine; nothing is uploaded). Short answers are alike by necessity "
                  f"and are skipped (under {MIN_ANSWER_TOKENS} tokens). Similar code has "
                  "many innocent causes: a shared hint, a textbook idiom, working together "
                  "as allowed. Read the notebooks before concluding anything.", ""]
        lines += ([f"- `{p.exercise}`: {p.first} and {p.second}, {round(100 * p.ratio)}% alike"
                   for p in similar] or ["No pair above the threshold."])
    return "\n".join(lines) + "\n"


def _write_png(figure, path):
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=FIGURE_DPI, metadata={"Software": None})
    write_atomically(path, buffer.getvalue())


def _figures(grades, exercises, out_dir):
    # A bare Figure with the default style: no pyplot state, no global backend
    # switch, and the user's matplotlibrc cannot change the bytes.
    import matplotlib.style
    from matplotlib.figure import Figure

    maximum = sum(e.points for e in exercises.values())
    totals = [float(t) for t in student_totals(grades).values()]
    counts = status_counts(grades, exercises)
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
        _write_png(figure, out_dir / DISTRIBUTION_FIGURE)

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
        _write_png(figure, out_dir / STATUS_FIGURE)


def write_class_report(grades, exercises, out_dir, submissions_dir=None, isolation=None):
    """Write the report and its figures into *out_dir* (made if needed); return the report's path.

    *exercises* maps ids to the registry's exercises (``points``,
    ``notebook``, ``answer_name``). With *submissions_dir*, the report lists
    similar answers read from the students' notebooks. *isolation*: the
    grading run's :class:`~reasoneval_mini.sandbox.Isolation`, named in the report.
    """
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    # Written answers (awaiting the instructor, no score yet) are not in this report.
    grades = [grade for grade in grades if grade.exercise in exercises]
    similar = (similar_answers(submissions_dir, grades, exercises)
               if submissions_dir is not None else None)
    _figures(grades, exercises, out_dir)
    path = out_dir / REPORT_NAME
    write_atomically(path, report_markdown(grades, exercises, similar, isolation))
    return path
