"""The torture class of the reports: student text and student files that attack the instructor.

One named test per attack found (issue 15, item 4, and issue 17): values that
would turn into live Markdown or HTML in a feedback file, the class report or
a review page; control characters in any output file; a student who rewrites
a classmate's notebook while being graded, to frame them in the similarity
list; a notebook replaced by a named pipe. The reference for each is what a
Markdown or HTML renderer would do with the text, checked by the rules it
follows (a code span ends at a backtick run of its own length; ``<img`` outside
a code span is live HTML).
"""

import csv
import os
import re
import shutil
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest
from submission_class import (
    ADD, FAKE_REGISTRY, REGISTRY, SHOUT, WORDS, add_notebook, cell, main, words_notebook,
    write_notebook)
from test_written_tasks import REGISTRY_WITH_WRITTEN, _answer_cell

from reasoneval_mini.grading.class_report import write_class_report
from reasoneval_mini.grading.escaping import code_span, markdown_text
from reasoneval_mini.grading.grader import Grade
from reasoneval_mini.grading.reports import feedback_markdown
from reasoneval_mini.grading.statuses import GRADE_FAILED

pytestmark = pytest.mark.slow  # hostile text through every report

ROOT = Path(__file__).resolve().parents[2]
POSIX = pytest.mark.skipif(os.name != "posix", reason="named pipes are POSIX")
IMAGE = "<img src=https://evil.example/track.png>"


def _outside_code_spans(markdown):
    """*markdown* with every code span removed, by CommonMark's rules: a backslash escapes the
    next character; a run of n backticks opens a span that only a run of exactly n closes,
    within the same paragraph (blocks are separated by blank lines)."""
    return "\n\n".join(_outside_in_block(block) for block in markdown.split("\n\n"))


def _outside_in_block(markdown):
    out, i = [], 0
    while i < len(markdown):
        if markdown[i] == "\\":
            out.append(markdown[i:i + 2])
            i += 2
            continue
        run = re.match(r"`+", markdown[i:])
        if run is None:
            out.append(markdown[i])
            i += 1
            continue
        fence = run.group()
        close = re.search(rf"(?<!`){fence}(?!`)", markdown[i + len(fence):])
        if close is None:
            out.append(fence)
            i += len(fence)
        else:
            i += len(fence) + close.end()
    return "".join(out)


@pytest.mark.parametrize("value", [
    "`" + IMAGE, "``" + IMAGE + "``", "x` " + IMAGE + " `y", "```" + IMAGE])
def test_a_backtick_in_a_returned_value_cannot_end_the_code_span_and_load_a_remote_image(value):
    checks = ({"name": "c0", "passed": False, "call": "f()", "expected": "1", "actual": value,
               "message": "different value"},)
    text = feedback_markdown("ann", [Grade("ann", "add", Fraction(0), 2, GRADE_FAILED,
                                           f"first failure: {value}", checks)],
                             REGISTRY.EXERCISES)
    assert "<img" not in _outside_code_spans(text)
    assert "<img" not in _outside_code_spans(code_span(value))
    assert "<img" not in markdown_text(value)


def test_a_hostile_value_in_the_class_report_stays_text(tmp_path):
    checks = tuple({"name": f"c{i}", "passed": False, "attempted": True, "actual": "`" + IMAGE}
                   for i in range(2))
    grades = [Grade(s, "add", Fraction(0), 2, GRADE_FAILED, "", checks) for s in ("a", "b")]
    grades += [Grade(s, e, Fraction(0), p, GRADE_FAILED, "", ()) for s in ("a", "b")
               for e, p in (("count_words", 3), ("shout", 1))]
    text = write_class_report(grades, REGISTRY.EXERCISES, tmp_path).read_text(encoding="utf-8")
    assert "<img" not in _outside_code_spans(text)


CONTROL = "\x1b[2J\x1b[31mred\rhidden\x07\u202eevil\x00"


def test_control_characters_are_replaced_in_every_output_file(tmp_path):
    registry = tmp_path / "registry_with_written.py"
    registry.write_text(REGISTRY_WITH_WRITTEN, encoding="utf-8")
    name = "ann\x1b[31m"
    folder = tmp_path / "subs" / name
    folder.mkdir(parents=True)
    write_notebook(folder / "ex01_add.ipynb",
                   add_notebook(f"def add_numbers(a, b):\n    return {CONTROL!r}\n"))
    write_notebook(folder / "ex02_words.ipynb",
                   words_notebook(WORDS, SHOUT) + [_answer_cell("My answer " + CONTROL)])
    roster = tmp_path / "roster.csv"
    roster.write_text(f"folder,name,id\n\"{name}\",Ann{CONTROL[:5]},1\n", encoding="utf-8")
    out = tmp_path / "out"
    assert main(["grade", str(tmp_path / "subs"), "--out", str(out / "grades.csv"),
                 "--feedback", str(out / "feedback"), "--registry", str(registry),
                 "--roster", str(roster), "--export", "canvas", "--class-report",
                 str(out / "report"), "--timeout", "5", "--no-progress"]) == 0
    files = [p for p in out.rglob("*") if p.is_file() and p.suffix != ".png"]
    assert len(files) >= 7  # grades, totals, feedback, export, report, review page, sheet
    for path in files:
        text = path.read_text(encoding="utf-8")
        bad = [c for c in text if (ord(c) < 32 and c not in "\n\t") or 0x7f <= ord(c) < 0xa0
               or c == "\u202e"]
        assert not bad, (path.name, bad)
    assert "\\x1b[31m" in (out / "grades.csv").read_text(encoding="utf-8")


FRAMER = """\
import pathlib
victim = pathlib.Path({victim!r})
victim.write_text(pathlib.Path({mine!r}).read_text())
def count_words(text):
    words = []
    for part in text.split(' '):
        if part != '':
            words.append(part)
    return len(words)
"""
HONEST = ("def count_words(text):\n    total, inside = 0, False\n    for char in text:\n"
          "        if char.isspace():\n            inside = False\n"
          "        elif not inside:\n            total, inside = total + 1, True\n"
          "    return total\n")


def test_a_student_rewriting_a_classmates_notebook_cannot_frame_them_in_the_class_report(tmp_path):
    subs = tmp_path / "subs"
    for student in ("ann", "zed"):
        (subs / student).mkdir(parents=True)
        write_notebook(subs / student / "ex01_add.ipynb", add_notebook(ADD))
    victim, mine = subs / "zed" / "ex02_words.ipynb", subs / "ann" / "ex02_words.ipynb"
    write_notebook(mine, words_notebook(FRAMER.format(victim=str(victim), mine=str(mine))))
    write_notebook(victim, words_notebook(HONEST))
    out = tmp_path / "out"
    assert main(["grade", str(subs), "--out", str(out / "grades.csv"), "--registry",
                 str(FAKE_REGISTRY), "--class-report", str(out / "report"), "--workers", "1",
                 "--timeout", "5", "--no-progress"]) == 0
    report = (out / "report" / "class_report.md").read_text(encoding="utf-8")
    assert "ann and zed" not in report and "No pair above the threshold." in report


@POSIX
def test_a_named_pipe_in_place_of_a_notebook_is_refused_and_named_without_hanging(tmp_path):
    subs = tmp_path / "subs"
    (subs / "ann").mkdir(parents=True)
    write_notebook(subs / "ann" / "ex01_add.ipynb", add_notebook(ADD))
    os.mkfifo(subs / "ann" / "ex02_words.ipynb")
    out = tmp_path / "out"
    done = subprocess.run(
        [sys.executable, "-m", "reasoneval_mini", "grade", str(subs), "--out",
         str(out / "grades.csv"), "--registry", str(FAKE_REGISTRY), "--class-report",
         str(out / "report"), "--timeout", "5", "--no-progress"],
        capture_output=True, text=True, timeout=120, cwd=ROOT,
        env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert done.returncode == 0, done.stderr
    with open(out / "grades.csv", encoding="utf-8", newline="") as handle:
        rows = {(r["student"], r["exercise"]): r for r in csv.DictReader(handle)}
    assert rows["ann", "count_words"]["status"] == "error"
    assert rows["ann", "count_words"]["message"] == (
        "ex02_words.ipynb refused: it is a named pipe, not a notebook file")
    assert rows["ann", "add"]["status"] == "passed"


def test_the_review_page_of_a_hostile_answer_runs_and_loads_nothing(tmp_path):
    from reasoneval_mini.grading.manual import WrittenAnswer
    from reasoneval_mini.grading.review_pages import review_page
    from types import SimpleNamespace as NS
    task = NS(id="essay", title="Essay <b>", points=2, statement="Say <i>why</i>")
    answers = [WrittenAnswer("<script>x</script>", "essay",
                             f"{IMAGE}<script>fetch('//evil')</script></pre><iframe>", False,
                             "cell 3 of ex.ipynb")]
    page = review_page(task, answers, {}, "- rubric <svg onload=x>")
    body = page.split("</style>", 1)[1]
    assert not re.search(r"<(img|script|iframe|svg|i|b)\b", body)
    assert "&lt;script&gt;fetch('//evil')&lt;/script&gt;&lt;/pre&gt;" in body  # shown, as text


@POSIX
def test_progress_names_a_named_pipe_in_place_of_a_notebook_without_hanging(tmp_path):
    folder = tmp_path / "mine"
    shutil.copytree(ROOT / "exercises", folder)
    (folder / "ex02_pass_at_k.ipynb").unlink()
    os.mkfifo(folder / "ex02_pass_at_k.ipynb")
    done = subprocess.run([sys.executable, "-m", "reasoneval_mini", "progress", str(folder)],
                          capture_output=True, text=True, timeout=300, cwd=ROOT,
                          env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert done.returncode == 0, done.stderr
    assert "ex02_pass_at_k.ipynb refused: it is a named pipe, not a notebook file" in done.stdout


# -- CSV formulas (issue 24, attack 5): no cell the course writes starts one -------------------

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")  # OWASP's list, written out independently


def _formula_cells(path):
    """Cells of the CSV at *path* a spreadsheet would run: a formula start, not a plain number."""
    with open(path, encoding="utf-8", newline="") as handle:
        cells = [cell for row in csv.reader(handle) for cell in row]
    return [cell for cell in cells if cell.startswith(FORMULA_STARTS)
            and not re.fullmatch(r"-?[0-9]+(\.[0-9]+)?", cell)]


def test_no_csv_cell_starts_a_formula_and_manual_reads_the_neutralised_sheet_back(tmp_path):
    registry = tmp_path / "registry_with_written.py"
    registry.write_text(REGISTRY_WITH_WRITTEN, encoding="utf-8")
    names = ['=HYPERLINK("evil.example","open")', "@SUM(1+1)", "+cmd", "-2+3", "'=x"]
    for name in names:
        folder = tmp_path / "subs" / name
        folder.mkdir(parents=True)
        write_notebook(folder / "ex01_add.ipynb",
                       add_notebook("def add_numbers(a, b):\n    return '=1+1'\n"))
        write_notebook(folder / "ex02_words.ipynb",
                       words_notebook(WORDS, SHOUT) + [_answer_cell("=cmd|' /C calc'!A0")])
    roster = tmp_path / "roster.csv"
    with open(roster, "w", encoding="utf-8", newline="") as handle:
        csv.writer(handle).writerows([("folder", "name", "id", "sis_user_id", "email")] + [
            (name, f"@SUM(A{i})", i, f"=x{i}", f"s{i}@example.com")
            for i, name in enumerate(names)])
    out = tmp_path / "out"
    command = ["grade", str(tmp_path / "subs"), "--out", str(out / "grades.csv"), "--feedback",
               str(out / "feedback"), "--registry", str(registry), "--roster", str(roster),
               "--timeout", "5", "--no-progress"]
    assert main(command + ["--export", "canvas"]) == 0
    sheet = out / "grades_written" / "scores.csv"
    csvs = sorted(out.rglob("*.csv"))
    assert {p.name for p in csvs} == {"grades.csv", "grades_totals.csv", "grades_canvas.csv",
                                      "scores.csv"}
    for path in csvs:
        assert _formula_cells(path) == [], path.name
    with open(sheet, encoding="utf-8", newline="") as handle:
        rows = list(csv.reader(handle))
    assert {row[0] for row in rows[1:]} == {"'" + name for name in names}  # OWASP's quote
    rows[1:] = [[who, task, "3", "fine"] for who, task, _, _ in rows[1:]]
    with open(sheet, "w", encoding="utf-8", newline="") as handle:
        csv.writer(handle, lineterminator="\r\n").writerows(rows)  # as a spreadsheet saves
    assert main(command + ["--manual", str(sheet), "--export", "moodle"]) == 0
    with open(out / "grades.csv", encoding="utf-8", newline="") as handle:
        graded = {(r["student"], r["exercise"]): r for r in csv.DictReader(handle)}
    for name in names:
        assert graded["'" + name, "explain_words"]["score"] == "3"
    for path in sorted(out.rglob("*.csv")):
        assert _formula_cells(path) == [], path.name


@pytest.mark.parametrize("text", ["=1+1", "+1", "-1+2", "@SUM(A1)", "\tx", "'=1", "''@x", "-"])
def test_every_formula_start_is_quoted_once_and_read_back_exactly(text):
    from reasoneval_mini.grading.escaping import csv_cell, csv_field
    written = csv_cell(text)
    assert written == "'" + text and csv_field(written) == text


@pytest.mark.parametrize("value", [3, 0, "0.67", "12", "-1.5", "ada", "'quoted", " =spaced"])
def test_numbers_and_text_without_a_formula_start_are_written_as_they_are(value):
    from reasoneval_mini.grading.escaping import csv_cell, csv_field
    assert csv_cell(value) == value and csv_field(str(value)) == str(value)
