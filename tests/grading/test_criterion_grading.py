"""Hand grading by criterion: a level per rubric criterion, rendered review pages, no zero nobody gave.

Issue 26, item 2. A registry whose written task has three ``Criterion``s
(levels 0-2, an anchor answer per level, as the course's own tasks) goes
through ``grade``, a sheet with a level typed per criterion, and
``--manual``. Expected points are the sums of the levels typed here.
"""

import csv
import html
import re
import shutil

import pytest
from page_tags import page_tags
from submission_class import FAKE_REGISTRY, main
from test_written_tasks import write_written_class

from reasoneval_mini.grading.escaping import markdown_text
from reasoneval_mini.grading.manual import (
    CRITERION_COLUMNS, ManualScoresError, read_manual_scores, review_folder)
from reasoneval_mini.grading.statuses import (
    GRADE_AWAITING_INSTRUCTOR, GRADE_FAILED, GRADE_INSTRUCTOR_GRADED)

CRITERIA = {  # name -> (looks for, anchors at levels 0, 1, 2)
    "Whitespace": ("runs of spaces", ("not mentioned", "spaces, vaguely", "runs count once")),
    "Edges": ("the empty text", ("none", "an edge, unnamed", "'' has no words")),
    "Why": ("why split() and not split(' ')", ("no reason", "a reason, unsure", "'a  b' gives 3")),
}
REGISTRY = FAKE_REGISTRY.read_text(encoding="utf-8") + f'''
from reasoneval_mini.exercises.checks import Criterion, WrittenTask

WRITTEN_TASKS = {{
    "explain_words": WrittenTask(
        "explain_words", "ex02_words.ipynb", 6, "Why split?",
        "Explain **why** `str.split()` with no argument is used.",
        tuple(Criterion(name, looks_for, anchors)
              for name, (looks_for, anchors) in {CRITERIA!r}.items())),
}}
'''
HOSTILE = ("**Because** runs count once. <img src=x onerror=alert(1)> "
           "<a href=\"javascript:alert(2)\">me</a> [site](http://evil.example/) "
           "![p](http://evil.example/p.png) <svg onload=alert(3)></svg> <style>*{}</style>")
ANSWERS = {"answered": "Runs of spaces count *once*, and `''` has no words.",
           "hostile": HOSTILE, "unanswered": "YOUR ANSWER HERE", "partly": "Spaces."}


def _grade(root, *extra):
    return main(["grade", str(root / "subs"), "--out", str(root / "out" / "grades.csv"),
                 "--feedback", str(root / "out" / "feedback"), "--registry",
                 str(root / "registry.py"), "--timeout", "5", "--no-progress", *extra])


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    root = tmp_path_factory.mktemp("criteria")
    (root / "registry.py").write_text(REGISTRY, encoding="utf-8")
    write_written_class(root / "subs", ANSWERS)
    assert _grade(root) == 0
    return root


def _sheet(root):
    with open(review_folder(root / "out" / "grades.csv") / "scores.csv", encoding="utf-8",
              newline="") as handle:
        return list(csv.DictReader(handle))


def _type_levels(root, levels):
    """Type {(student, criterion): level} into the sheet, as a spreadsheet saves it."""
    path = review_folder(root / "out" / "grades.csv") / "scores.csv"
    rows = _sheet(root)
    for row in rows:
        row["level"] = str(levels.get((row["student"], row["criterion"]), row["level"]))
    with open(path, "w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, CRITERION_COLUMNS, lineterminator="\r\n")
        writer.writeheader()
        writer.writerows(rows)
    return path


def test_the_sheet_has_one_blank_line_per_student_task_and_criterion(graded):
    rows = _sheet(graded)
    assert [(r["student"], r["criterion"]) for r in rows] == [
        (student, name) for student in sorted(ANSWERS) for name in CRITERIA]
    assert all(r["level"] == "" for r in rows)  # nobody's zero is typed for them


LEVELS = {("answered", "Whitespace"): 2, ("answered", "Edges"): 2, ("answered", "Why"): 1,
          ("hostile", "Whitespace"): 1, ("hostile", "Edges"): 0, ("hostile", "Why"): 0,
          ("partly", "Whitespace"): 1}  # partly: one criterion of three levelled so far


@pytest.fixture(scope="module")
def merged(graded, tmp_path_factory):
    root = tmp_path_factory.mktemp("merged")
    shutil.copytree(graded, root, dirs_exist_ok=True)
    sheet = _type_levels(root, LEVELS)
    (root / "roster.csv").write_text(
        "folder,name,id\n" + "".join(f"{s},{s.title()},{n}\n" for n, s in enumerate(ANSWERS, 1)),
        encoding="utf-8")
    assert _grade(root, "--manual", str(sheet), "--roster", str(root / "roster.csv"),
                  "--export", "canvas", "--class-report", str(root / "out" / "report")) == 0
    with open(root / "out" / "grades.csv", encoding="utf-8", newline="") as handle:
        rows = {(r["student"], r["exercise"]): r for r in csv.DictReader(handle)}
    return root, rows


def test_the_tasks_points_are_the_sum_of_its_criterion_levels(merged):
    _, rows = merged
    for student in ("answered", "hostile"):
        expected = sum(level for (who, _), level in LEVELS.items() if who == student)
        row = rows[student, "explain_words"]
        assert (row["status"], row["score"]) == (GRADE_INSTRUCTOR_GRADED, str(expected))


def test_an_answer_with_a_criterion_still_unlevelled_stays_awaiting(merged):
    _, rows = merged
    row = rows["partly", "explain_words"]
    assert (row["status"], row["score"]) == (GRADE_AWAITING_INSTRUCTOR, "")


def test_a_blank_answer_is_no_answer_with_zero_and_never_graded_by_hand(merged):
    root, rows = merged
    row = rows["unanswered", "explain_words"]
    assert (row["status"], row["score"]) == (GRADE_FAILED, "0")
    assert row["message"].startswith("not answered")
    report = (root / "out" / "report" / "class_report.md").read_text(encoding="utf-8")
    # graded 2 (answered 5, hostile 1: mean 3), awaiting 1 (partly), other 1 (the blank).
    assert "| explain_words | 6 | 2 | 1 | 1 | 3 |" in report


def test_the_export_blanks_only_the_awaiting_cell_and_says_which(merged):
    root, _ = merged
    canvas = (root / "out" / "grades_canvas.csv").read_text(encoding="utf-8").splitlines()
    assert canvas[1] == "    Points Possible,,,,,2,10"  # 3 + 1 + 6, full from the start
    by_id = {line.split(",")[1]: line.split(",")[-1] for line in canvas[2:]}
    # answered 4 + 5, hostile 4 + 1, unanswered 4 + 0, partly awaiting: blank.
    assert by_id == {"1": "9", "2": "5", "3": "4", "4": ""}


def test_the_feedback_shows_each_criterions_level_and_its_anchor(merged):
    root, _ = merged
    feedback = (root / "out" / "feedback" / "answered.md").read_text(encoding="utf-8")
    assert "score 5 / 6" in feedback
    for name, level in (("Whitespace", 2), ("Edges", 2), ("Why", 1)):
        anchor = markdown_text(CRITERIA[name][1][level])
        assert f"- {name}: level {level} of 2; an answer at this level reads: {anchor}" in feedback


@pytest.mark.parametrize("level, words", [
    ("3", "'3' is not a level of 'Edges'; expected one of 0, 1, 2"),
    ("1.5", "'1.5' is not a level of 'Edges'"),
    ("-1", "'-1' is not a level of 'Edges'"),
    ("two", "'two' is not a level of 'Edges'")])
def test_a_level_that_is_not_one_of_the_criterions_levels_is_refused(tmp_path, level, words):
    path = tmp_path / "scores.csv"
    path.write_text(f"student,task,criterion,level,comment\nada,explain_words,Edges,{level},\n",
                    encoding="utf-8")
    tasks = _tasks()
    with pytest.raises(ManualScoresError, match=re.escape(f"line 2, column 'level': {words}")):
        read_manual_scores(path, ["ada"], tasks)


def _tasks():
    namespace = {}
    exec(REGISTRY, namespace)  # noqa: S102 - the test's own registry text
    return namespace["WRITTEN_TASKS"]


def test_an_unknown_criterion_and_a_repeated_one_are_refused_in_one_run(tmp_path):
    path = tmp_path / "scores.csv"
    path.write_text("student,task,criterion,level,comment\n"
                    "ada,explain_words,Clarity,1,\n"
                    "ada,explain_words,Edges,1,\n"
                    "ada,explain_words,Edges,2,\n", encoding="utf-8")
    with pytest.raises(ManualScoresError) as raised:
        read_manual_scores(path, ["ada"], _tasks())
    assert "line 2, column 'criterion': 'Clarity' is not a criterion of 'explain_words'" in str(
        raised.value)
    assert "line 4: 'ada' / 'explain_words' / 'Edges' is already on line 3" in str(raised.value)


def _body(root):
    page = (review_folder(root / "out" / "grades.csv") / "explain_words.html").read_text(
        encoding="utf-8")
    return page, page.split("</head>", 1)[1]


def test_the_review_page_renders_the_rubric_with_levels_and_anchors(graded):
    page, body = _body(graded)
    for name, (looks_for, anchors) in CRITERIA.items():
        assert f"<strong>{name}</strong><br>{html.escape(looks_for)}</td>" in body
        for level, anchor in enumerate(anchors):
            assert f"<td>{level}</td><td>{html.escape(anchor)}</td>" in body
    assert "Type a level per criterion into scores.csv" in body
    # The task's Markdown is rendered, not shown raw.
    assert "<strong>why</strong>" in body and "<code>str.split()</code>" in body
    assert "**" not in body


def test_the_review_page_renders_an_answers_markdown(graded):
    _, body = _body(graded)
    assert "Runs of spaces count <em>once</em>, and <code>''</code> has no words." in body


def test_student_html_on_the_review_page_stays_inert(graded):
    page, body = _body(graded)
    assert "default-src 'none'" in page
    hostile = body.split("hostile</h3>")[1].split("</section>")[0]
    tags = page_tags(hostile.split('<div class="answer">', 1)[1])
    # What the browser builds from the hostile answer: text tags only, no attribute at all.
    assert {tag for tag, _ in tags} <= {"p", "strong", "span"}
    assert [attrs for _, attrs in tags if attrs] == []
    assert "<strong>Because</strong>" in hostile  # Markdown rendered
    assert "&lt;img src=x onerror=alert(1)&gt;" in hostile  # HTML shown as text
    assert "&lt;http://evil.example/&gt;" in hostile and "[image: p" in hostile


def test_without_mistune_or_bleach_an_answer_is_shown_as_escaped_text(monkeypatch):
    from reasoneval_mini.grading import rendering
    monkeypatch.setattr(rendering, "_RENDER", None)
    assert rendering.markdown_html("**x** <img src=y>") == "<pre>**x** &lt;img src=y&gt;</pre>"


def test_levels_typed_on_a_blank_answer_score_it_without_the_sheets_own_note(graded, tmp_path):
    # The instructor read the work in a copy and levels the blank answer on purpose.
    root = tmp_path
    shutil.copytree(graded, root, dirs_exist_ok=True)
    sheet = _type_levels(root, {("unanswered", name): 1 for name in CRITERIA})
    assert _grade(root, "--manual", str(sheet)) == 0
    with open(root / "out" / "grades.csv", encoding="utf-8", newline="") as handle:
        row = next(r for r in csv.DictReader(handle)
                   if (r["student"], r["exercise"]) == ("unanswered", "explain_words"))
    assert (row["status"], row["score"]) == (GRADE_INSTRUCTOR_GRADED, "3")
    assert "comment" not in row["message"] and "not graded by hand" not in row["message"]
