"""Hand grading of written answers, end to end: review pages, the scores sheet, --manual, exports.

A class with one written task (the fake registry plus ``explain_words``) goes
from ``grade`` through hand grading to a Canvas and a Moodle import, as an
instructor would: the scores typed into the pre-filled sheet are the only
scores typed. Expected totals are added by hand from the fixture's points.
"""

import csv
import shutil
from pathlib import Path

import pytest
from submission_class import ADD, SHOUT, WORDS, add_notebook, main, words_notebook, write_notebook
from test_written_tasks import REGISTRY_WITH_WRITTEN, _answer_cell, write_written_class

from reasoneval_mini.grading.manual import (
    ManualScoresError, SCORE_COLUMNS, read_manual_scores, review_folder)
from reasoneval_mini.grading.statuses import (
    GRADE_AWAITING_INSTRUCTOR, GRADE_FAILED, GRADE_INSTRUCTOR_GRADED, GRADE_MISSING)

pytestmark = pytest.mark.slow  # grade, hand-grade and merge, end to end

HOSTILE = "Because <script>alert(1)</script> and ![x](http://evil.example/p.png) `tick"
ROSTER = ("folder,name,id,email\n"
          "answered,\"Lovelace, Ada\",1001,ada@example.org\n"
          "hostile,Bob,1002,bob@example.org\n"
          "unanswered,Cy,1003,cy@example.org\n"
          "no_words,Dee,1004,dee@example.org\n")


def _class(root):
    registry = root / "registry_with_written.py"
    registry.write_text(REGISTRY_WITH_WRITTEN, encoding="utf-8")
    subs = write_written_class(root / "subs", {
        "answered": "Runs of spaces count once.\n\nAnd '' has no words.", "hostile": HOSTILE,
        "unanswered": "YOUR ANSWER HERE", "no_words": None})
    (root / "roster.csv").write_text(ROSTER, encoding="utf-8")
    return registry, subs


def _grade(root, registry, subs, *extra):
    return main(["grade", str(subs), "--out", str(root / "out" / "grades.csv"), "--feedback",
                 str(root / "out" / "feedback"), "--registry", str(registry), "--timeout", "5",
                 "--no-progress", *extra])


def _rows(path):
    with open(path, encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


@pytest.fixture(scope="module")
def first_run(tmp_path_factory):
    root = tmp_path_factory.mktemp("manual")
    registry, subs = _class(root)
    assert _grade(root, registry, subs) == 0
    return root, registry, subs


def test_grade_writes_one_review_page_per_task_and_a_sheet_with_no_zero_typed_for_anyone(first_run):
    root = first_run[0]
    folder = review_folder(root / "out" / "grades.csv")
    assert sorted(p.name for p in folder.iterdir()) == ["explain_words.html", "scores.csv"]
    sheet = _rows(folder / "scores.csv")
    assert tuple(sheet[0]) == SCORE_COLUMNS
    # Stable order (students sorted); every score blank: a blank or missing answer is
    # already 0 in grades.csv ("not answered"), and its line only says so.
    assert [(r["student"], r["score"]) for r in sheet] == [
        ("answered", ""), ("hostile", ""), ("no_words", ""), ("unanswered", "")]
    assert sheet[2]["comment"].startswith("no notebook ex02_words.ipynb")
    assert "0 points already, not graded by hand" in sheet[3]["comment"]


def test_the_review_page_shows_rubric_and_every_answer_escaped_with_blanks_marked(first_run):
    page = (review_folder(first_run[0] / "out" / "grades.csv") / "explain_words.html").read_text(
        encoding="utf-8")
    assert "Whitespace: runs of spaces" in page and "Edges: empty text" in page
    assert "<script>" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "<img" not in page and "default-src 'none'" in page
    assert page.index(">1. answered<") < page.index(">2. hostile<") < page.index(">3. no_words<")
    assert page.count("BLANK: no answer") == 2
    # Rendered Markdown: two paragraphs, not one escaped block.
    assert "<p>Runs of spaces count once.</p>\n<p>And '' has no words.</p>" in page


def _fill(sheet, scores):
    rows = _rows(sheet)
    for row in rows:
        if row["student"] in scores:
            row["score"], row["comment"] = scores[row["student"]]
    with open(sheet, "w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, SCORE_COLUMNS, lineterminator="\r\n")  # as Excel saves
        writer.writeheader()
        writer.writerows(rows)


def test_manual_scores_flow_into_grades_totals_feedback_report_and_both_exports(first_run, tmp_path,
                                                                             capsys):
    root = tmp_path
    shutil.copytree(first_run[0], root, dirs_exist_ok=True)
    registry, subs = root / "registry_with_written.py", root / "subs"
    sheet = review_folder(root / "out" / "grades.csv") / "scores.csv"
    _fill(sheet, {"answered": ("3.5", "Good: both edges. `See` <b>me</b>"),
                  "hostile": ("1", "")})
    for platform in ("canvas", "moodle"):
        assert _grade(root, registry, subs, "--manual", str(sheet), "--roster",
                      str(root / "roster.csv"), "--export", platform,
                      "--class-report", str(root / "out" / "report")) == 0
    printed = capsys.readouterr().out
    # The two typed; the blank and the missing answer are 0 already, never "graded by hand".
    assert "merged 2 hand scores" in printed
    assert "the export holds every exercise and every written task" in printed
    assert "set each grade item's maximum grade to these): ex01_add 2, ex02_words 8" in printed
    rows = {(r["student"], r["exercise"]): r for r in _rows(root / "out" / "grades.csv")}
    assert rows["answered", "explain_words"]["status"] == GRADE_INSTRUCTOR_GRADED
    assert rows["answered", "explain_words"]["score"] == "3.5"
    assert rows["no_words", "explain_words"]["score"] == "0"
    assert rows["no_words", "explain_words"]["status"] == GRADE_MISSING
    totals = {r["student"]: r for r in _rows(root / "out" / "grades_totals.csv")}
    # answered: add 2 + count_words 3 + shout 1 + written 3.5, of 2 + 3 + 1 + 4
    assert (totals["answered"]["score"], totals["answered"]["max_score"]) == ("9.5", "10")
    assert totals["answered"][GRADE_INSTRUCTOR_GRADED] == "1"
    feedback = (root / "out" / "feedback" / "answered.md").read_text(encoding="utf-8")
    assert "score 3.5 / 4" in feedback and "comment: Good: both edges." in feedback
    assert "<b>" not in feedback and "&lt;b&gt;me&lt;/b&gt;" in feedback
    canvas = (root / "out" / "grades_canvas.csv").read_text(encoding="utf-8").splitlines()
    assert canvas[1] == "    Points Possible,,,,,2,8"  # ex02_words: 3 + 1 + 4 written
    assert canvas[2] == '"Lovelace, Ada",1001,,,,2,7.5'
    assert canvas[-1] == "Dee,1004,,,,2,0"  # a real 0: the notebook is missing
    moodle = (root / "out" / "grades_moodle.csv").read_text(encoding="utf-8").splitlines()
    assert moodle[1] == 'ada@example.org,,"Lovelace, Ada",2,7.5'
    report = (root / "out" / "report" / "class_report.md").read_text(encoding="utf-8")
    # The mean of the graded is (3.5 + 1) / 2: the missing and the blank answer are "other".
    assert "| explain_words | 4 | 2 | 0 | 2 | 2.25 |" in report


def test_the_review_page_counts_the_answers_scored_so_far(first_run, tmp_path):
    root = tmp_path
    shutil.copytree(first_run[0], root, dirs_exist_ok=True)
    page = review_folder(root / "out" / "grades.csv") / "explain_words.html"
    assert "4 students; 2 answers to grade, 2 blank or missing" in page.read_text(encoding="utf-8")
    sheet = review_folder(root / "out" / "grades.csv") / "scores.csv"
    _fill(sheet, {"answered": ("3", "")})  # hostile's stays blank; the two 0s are not answers
    assert _grade(root, root / "registry_with_written.py", root / "subs", "--manual",
                  str(sheet)) == 0
    assert ("4 students; 2 answers to grade (1 scored so far), 2 blank or missing"
            in page.read_text(encoding="utf-8"))


def test_merging_twice_gives_byte_identical_files_and_keeps_the_sheet(first_run, tmp_path):
    root = tmp_path
    shutil.copytree(first_run[0], root, dirs_exist_ok=True)
    registry, subs = root / "registry_with_written.py", root / "subs"
    sheet = review_folder(root / "out" / "grades.csv") / "scores.csv"
    _fill(sheet, {"answered": ("2", "ok")})
    typed = sheet.read_bytes()
    names = ("grades.csv", "grades_totals.csv", "feedback/answered.md",
             "grades_written/explain_words.html")
    assert _grade(root, registry, subs, "--manual", str(sheet)) == 0
    first = {name: (root / "out" / name).read_bytes() for name in names}
    assert _grade(root, registry, subs, "--manual", str(sheet)) == 0
    assert {name: (root / "out" / name).read_bytes() for name in names} == first
    assert sheet.read_bytes() == typed  # the instructor's sheet is never rewritten


def test_an_unscored_answer_holds_back_its_own_cell_only_and_the_export_names_it(
        first_run, tmp_path, capsys):
    root = tmp_path
    shutil.copytree(first_run[0], root, dirs_exist_ok=True)
    sheet = review_folder(root / "out" / "grades.csv") / "scores.csv"
    _fill(sheet, {"answered": ("4", "")})  # hostile's stays blank
    assert _grade(root, root / "registry_with_written.py", root / "subs", "--manual",
                  str(sheet), "--roster", str(root / "roster.csv"), "--export", "canvas") == 0
    printed = capsys.readouterr().out
    assert ("awaiting hand grading, left blank in the export (no score written, not a 0; "
            "everyone else's scores are in it): hostile ex02_words (explain_words)") in printed
    rows = {(r["student"], r["exercise"]): r for r in _rows(root / "out" / "grades.csv")}
    assert rows["hostile", "explain_words"]["status"] == GRADE_AWAITING_INSTRUCTOR
    assert rows["unanswered", "explain_words"]["status"] == GRADE_FAILED  # no answer, not graded
    canvas = (root / "out" / "grades_canvas.csv").read_text(encoding="utf-8").splitlines()
    assert canvas[1] == "    Points Possible,,,,,2,8"  # the column and its full points stay
    assert canvas[2] == '"Lovelace, Ada",1001,,,,2,8'  # answered's 4 is not held back
    assert canvas[3] == "Bob,1002,,,,2,"  # hostile's own cell alone is blank


def test_a_rerun_without_manual_warns_that_the_typed_scores_were_not_merged(first_run, tmp_path,
                                                                          capsys):
    root = tmp_path
    shutil.copytree(first_run[0], root, dirs_exist_ok=True)
    sheet = review_folder(root / "out" / "grades.csv") / "scores.csv"
    _fill(sheet, {"answered": ("3", ""), "hostile": ("1", "")})
    # The instructor reruns the first command (no --manual) after typing two scores.
    assert _grade(root, root / "registry_with_written.py", root / "subs", "--roster",
                  str(root / "roster.csv"), "--export", "canvas") == 0
    captured = capsys.readouterr()
    assert (f"warning: {sheet} holds 2 hand scores that this run did not merge" in captured.err
            and f"add --manual {sheet}" in captured.err)
    rows = {(r["student"], r["exercise"]): r for r in _rows(root / "out" / "grades.csv")}
    assert rows["answered", "explain_words"]["status"] == GRADE_AWAITING_INSTRUCTOR
    # Merged, nothing is left to warn about; the pre-filled 0s alone never warn.
    assert _grade(root, root / "registry_with_written.py", root / "subs", "--manual",
                  str(sheet)) == 0
    assert "did not merge" not in capsys.readouterr().err
    _fill(sheet, {"answered": ("", ""), "hostile": ("", "")})
    assert _grade(root, root / "registry_with_written.py", root / "subs") == 0
    assert "did not merge" not in capsys.readouterr().err


def test_counts_in_the_summary_are_singular_for_one(first_run, tmp_path, capsys):
    root = tmp_path
    shutil.copytree(first_run[0], root, dirs_exist_ok=True)
    sheet = review_folder(root / "out" / "grades.csv") / "scores.csv"
    _fill(sheet, {"answered": ("4", "")})
    assert _grade(root, root / "registry_with_written.py", root / "subs", "--manual",
                  str(sheet), "--roster", str(root / "roster.csv"), "--export", "canvas") == 0
    printed = capsys.readouterr().out
    # answered typed; unanswered and no_words are not hand scores; hostile still awaits.
    assert "merged 1 hand score from" in printed
    assert "left blank in the export" in printed and ": hostile ex02_words (explain_words);" in printed


@pytest.mark.parametrize("platform", ["canvas", "moodle"])
def test_while_answers_await_the_columns_already_carry_their_full_points(
        first_run, tmp_path, capsys, platform):
    # A Moodle grade item set to partial points would refuse the later full scores
    # (up to 8); so the export's points are the full points from the first run on.
    root = tmp_path
    shutil.copytree(first_run[0], root, dirs_exist_ok=True)
    assert _grade(root, root / "registry_with_written.py", root / "subs", "--roster",
                  str(root / "roster.csv"), "--export", platform) == 0
    printed = capsys.readouterr().out
    # ex02_words in full: count_words 3 + shout 1 + explain_words 4.
    assert "maximum grade to these): ex01_add 2, ex02_words 8" in printed
    export = (root / "out" / f"grades_{platform}.csv").read_text(encoding="utf-8").splitlines()
    if platform == "canvas":
        assert export[1] == "    Points Possible,,,,,2,8"
    # answered and hostile await: their ex02_words cells are blank; Dee's missing notebook is 0.
    assert [line.rsplit(",", 2)[1:] for line in export[-4:]] == [
        ["2", ""], ["2", ""], ["2", "4"], ["2", "0"]]


def test_a_blank_answer_with_a_copy_beside_its_notebook_names_the_copy_on_page_and_sheet(
        tmp_path):
    # Work saved in -Copy1: the original's answer is the stub. Its 0 stays (only the
    # original is graded), but the instructor sees where the work is first.
    registry, subs = _class(tmp_path)
    copier = subs / "copier"
    copier.mkdir()
    write_notebook(copier / "ex01_add.ipynb", add_notebook(ADD))
    write_notebook(copier / "ex02_words.ipynb",
                   words_notebook(WORDS, SHOUT) + [_answer_cell("YOUR ANSWER HERE")])
    write_notebook(copier / "ex02_words-Copy1.ipynb",
                   words_notebook(WORDS, SHOUT) + [_answer_cell("Runs of spaces count once.")])
    assert _grade(tmp_path, registry, subs) == 0
    folder = review_folder(tmp_path / "out" / "grades.csv")
    sheet = {r["student"]: r for r in _rows(folder / "scores.csv")}
    assert sheet["copier"]["score"] == ""
    assert sheet["copier"]["comment"].startswith(
        "no answer: the cell is empty or the stub; ex02_words-Copy1.ipynb is a copy of "
        "ex02_words.ipynb (only ex02_words.ipynb is graded) (0 points already")
    assert sheet["unanswered"]["comment"].startswith("no answer: the cell is empty or the stub (")
    page = (folder / "explain_words.html").read_text(encoding="utf-8")
    copier_part = page.split("copier</h3>")[1].split("</section>")[0]
    assert "ex02_words-Copy1.ipynb is a copy of ex02_words.ipynb" in copier_part
    assert "is a copy" not in page.split("unanswered</h3>")[1].split("</section>")[0]


STUDENTS = ("answered", "hostile", "no_words", "unanswered")
TASKS = {"explain_words": __import__("types").SimpleNamespace(points=4)}


@pytest.mark.parametrize("text, words", [
    ("student,task,score,comment\nanswered,explain_words,5,\n",
     "line 2, column 'score': '5' is more than the task's 4 points"),
    ("student,task,score,comment\nanswered,explain_words,-1,\n",
     "line 2, column 'score': '-1' is below 0; expected a number from 0 to 4"),
    ("student,task,score,comment\nanswered,explain_words,-0.5,\n",
     "line 2, column 'score': '-0.5' is below 0; expected a number from 0 to 4"),
    ("student,task,score,comment\nanswered,explain_words,--1,\n",
     "line 2, column 'score': '--1' is not a number; expected a number from 0 to 4"),
    ("student,task,score,comment\nanswered,explain_words,2,5,\n",
     "line 2: 5 fields, expected 4"),
    ("student,task,score,comment\nanswered,explain_words,\"2,5\",\n",
     "line 2, column 'score': '2,5' is not a number; write it with a dot, e.g. 2.5"),
    ("student,task,score,comment\nzed,explain_words,1,\n", "line 2: unknown student 'zed'"),
    ("student,task,score,comment\nanswered,essay,1,\n",
     "line 2: unknown task 'essay'; written tasks: explain_words"),
    ("student,task,score,comment\nanswered,explain_words,1,\n\nanswered,explain_words,,\n",
     "line 4: 'answered' / 'explain_words' is already on line 2"),
    ("student;task;score;comment\n", "line 1: columns 'student;task;score;comment'"),
    # A spreadsheet pads every line when something was typed in column E.
    ("student,task,score,comment,\r\nanswered,explain_words,2,5,\r\n",
     "line 1: an empty extra column beside student,task,score,comment (something typed in a "
     "column after them?); delete that column"),
    # An unclosed quote in a comment swallowed the next lines: their scores were lost.
    ("student,task,score,comment\nanswered,explain_words,1,\"Good\nhostile,explain_words,2,\n",
     "line 2: a quote (\") opened in this line is never closed, so the lines after it were "
     "read as part of one field (the next is 'hostile,explain_words,2,')"),
    ("", "is empty"),
])
def test_a_bad_scores_line_is_refused_naming_the_line(tmp_path, text, words):
    path = tmp_path / "scores.csv"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ManualScoresError) as raised:
        read_manual_scores(path, STUDENTS, TASKS)
    assert words in str(raised.value)


def test_a_comment_on_two_lines_in_one_quoted_cell_is_kept(tmp_path):
    path = tmp_path / "scores.csv"
    path.write_text("student,task,score,comment\n"
                    "answered,explain_words,3,\"Good.\nSee the rubric, 2nd row.\"\n"
                    "hostile,explain_words,1,\n", encoding="utf-8")
    scores = read_manual_scores(path, STUDENTS, TASKS)
    assert scores["answered", "explain_words"].comment == "Good.\nSee the rubric, 2nd row."
    assert scores["hostile", "explain_words"].score == 1


def test_a_bad_scores_sheet_stops_grade_before_grading(first_run, tmp_path, capsys):
    sheet = tmp_path / "scores.csv"
    sheet.write_text("student,task,score,comment\nanswered,explain_words,9,\n", encoding="utf-8")
    out = tmp_path / "out"
    code = main(["grade", str(first_run[2]), "--out", str(out / "grades.csv"), "--registry",
                 str(first_run[1]), "--no-progress", "--manual", str(sheet)])
    assert code == 2
    assert "scores sheet scores.csv line 2, column 'score'" in capsys.readouterr().err
    assert not (out / "grades.csv").exists()


def test_a_missing_notebook_and_an_untouched_answer_are_zero_before_any_merge(first_run):
    rows = {(r["student"], r["exercise"]): r for r in _rows(first_run[0] / "out" / "grades.csv")}
    assert rows["no_words", "explain_words"]["status"] == GRADE_MISSING
    assert rows["unanswered", "explain_words"]["status"] == GRADE_FAILED
    assert rows["answered", "explain_words"]["status"] == GRADE_AWAITING_INSTRUCTOR


def test_the_rubric_is_read_through_the_registry_whatever_its_shape():
    from types import SimpleNamespace as NS
    from reasoneval_mini.grading.review_pages import rubric_text
    levels = NS(id="t", rubric=({"criterion": "Clarity", "levels": {0: "none", 1: "some", 2: "all"}},))
    registry = NS(render_rubric_markdown=lambda task_id: f"**Rubric of {task_id}**\n- levels 0/1/2")
    assert rubric_text(levels, registry) == "**Rubric of t**\n- levels 0/1/2"
    assert "Clarity" in rubric_text(levels, None)  # no renderer: each item shown as it is
    assert rubric_text(NS(id="u", rubric=(("Edges", 2),)), None) == "- Edges (2 points)"
