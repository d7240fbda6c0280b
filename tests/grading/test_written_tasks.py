"""Written tasks: manually graded markdown answers, listed by ``grade`` as awaiting the instructor.

A registry with one written task next to the fake registry's exercises is
graded through the command line; the nbgrader metadata of the course's own
notebooks is checked against nbgrader's schema-3 rules (nbgrader is not
installed here, so the rules are written out).
"""

import csv
import json
from pathlib import Path

import pytest
from submission_class import (
    ADD, FAKE_REGISTRY, SHOUT, WORDS, add_notebook, cell, main, words_notebook, write_notebook)

from reasoneval_mini.exercises.registry import NOTEBOOKS, WRITTEN_TASKS
from reasoneval_mini.grading.statuses import (
    ALL_GRADE_STATUSES, GRADE_AWAITING_INSTRUCTOR, GRADE_FAILED, GRADE_INSTRUCTOR_GRADED,
    GRADE_MISSING, GRADE_PASSED, GRADE_STATUSES)

ROOT = Path(__file__).resolve().parents[2]

REGISTRY_WITH_WRITTEN = FAKE_REGISTRY.read_text(encoding="utf-8") + '''
from reasoneval_mini.exercises.checks import WrittenTask

WRITTEN_TASKS = {
    "explain_words": WrittenTask("explain_words", "ex02_words.ipynb", 4, "Why split?",
                                 "Explain why str.split() with no argument is used.",
                                 (("Whitespace: runs of spaces", 2), ("Edges: empty text", 2))),
}
'''


def _answer_cell(text):
    data = cell("markdown", text)
    data["metadata"]["nbgrader"] = {"grade": True, "solution": True, "locked": False,
                                    "points": 4, "grade_id": "explain_words", "schema_version": 3}
    return data


def write_written_class(subs, answers):
    """One folder per student of *answers* (``{student: written answer or None}``).

    Each holds ex01_add and ex02_words answered in full, ex02_words with the
    written answer of ``explain_words``; ``None`` leaves ex02_words out.
    """
    for student, answer in answers.items():
        folder = subs / student
        folder.mkdir(parents=True)
        write_notebook(folder / "ex01_add.ipynb", add_notebook(ADD))
        if answer is not None:
            write_notebook(folder / "ex02_words.ipynb",
                           words_notebook(WORDS, SHOUT) + [_answer_cell(answer)])
    return subs


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    root = tmp_path_factory.mktemp("written")
    registry = root / "registry_with_written.py"
    registry.write_text(REGISTRY_WITH_WRITTEN, encoding="utf-8")
    subs = root / "subs"
    for student, words_cells in (
            ("answered", words_notebook(WORDS, SHOUT) + [_answer_cell("Because runs of spaces...")]),
            ("unanswered", words_notebook(WORDS, SHOUT) + [_answer_cell("YOUR ANSWER HERE")]),
            ("no_words", None)):
        (subs / student).mkdir(parents=True)
        write_notebook(subs / student / "ex01_add.ipynb", add_notebook(ADD))
        if words_cells is not None:
            write_notebook(subs / student / "ex02_words.ipynb", words_cells)
    out = root / "out"
    code = main(["grade", str(subs), "--out", str(out / "grades.csv"), "--feedback",
                 str(out / "feedback"), "--registry", str(registry), "--timeout", "5",
                 "--no-progress"])
    assert code == 0
    return out


def _rows(path):
    with open(path, encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def _row(out, student):
    return next(r for r in _rows(out / "grades.csv")
                if r["student"] == student and r["exercise"] == "explain_words")


def test_a_written_answer_is_listed_as_awaiting_the_instructor_with_a_blank_score(graded):
    row = _row(graded, "answered")
    assert row["status"] == GRADE_AWAITING_INSTRUCTOR
    assert row["score"] == "" and row["max_score"] == "4"
    assert "awaits your instructor" in row["message"]


def test_an_untouched_answer_cell_is_failed_with_zero_and_names_its_own_cell(graded):
    row = _row(graded, "unanswered")
    assert row["status"] == GRADE_FAILED and row["score"] == "0"
    # The answer cell is the 6th: words_notebook has five cells before it.
    assert row["message"] == ("not answered: the answer cell of 'Why split?' (cell 6 of "
                              "ex02_words.ipynb) still reads 'YOUR ANSWER HERE'")


def test_an_answered_cell_awaits_the_instructor_naming_its_cell(graded):
    assert "(Why split?; cell 6 of ex02_words.ipynb): awaits your instructor" in _row(
        graded, "answered")["message"]


def test_a_written_answer_in_a_missing_notebook_is_missing_with_zero(graded):
    row = _row(graded, "no_words")
    assert row["status"] == GRADE_MISSING and row["score"] == "0"


def test_the_totals_leave_written_points_out_and_say_how_many_await(graded):
    totals = {r["student"]: r for r in _rows(graded / "grades_totals.csv")}
    answered = totals["answered"]
    assert answered["score"] == "6" and answered["max_score"] == "6"  # 2 + 3 + 1 checked points
    assert answered[GRADE_AWAITING_INSTRUCTOR] == "1"
    assert answered["points_awaiting_instructor"] == "4"
    assert totals["no_words"]["points_awaiting_instructor"] == "0"


def test_the_feedback_file_says_the_answer_awaits_the_instructor(graded):
    text = (graded / "feedback" / "answered.md").read_text(encoding="utf-8")
    assert "Total: 6 / 6 points. Another 4 points (written answers) await your instructor." in text
    assert "| explain_words | awaiting_instructor | – / 4 |" in text
    assert "this answer awaits your instructor" in text


def test_the_checked_exercises_are_graded_as_before(graded):
    rows = [r for r in _rows(graded / "grades.csv") if r["student"] == "answered"]
    assert [r["status"] for r in rows if r["exercise"] != "explain_words"] == [GRADE_PASSED] * 3


def test_the_written_statuses_are_in_the_closed_set_of_row_statuses_only():
    assert ALL_GRADE_STATUSES == GRADE_STATUSES + (GRADE_AWAITING_INSTRUCTOR,
                                                   GRADE_INSTRUCTOR_GRADED)
    assert GRADE_AWAITING_INSTRUCTOR not in GRADE_STATUSES  # no check can give it
    assert GRADE_INSTRUCTOR_GRADED not in GRADE_STATUSES


def test_the_course_registry_has_the_three_written_tasks_of_issue_11():
    assert set(WRITTEN_TASKS) == {"kp1_explain_answer_space", "kp3_explain_conditions",
                                  "kp4_capstone_report"}


# --- nbgrader schema 3, as nbgrader's validator (nbgraderformat/v3) applies it -------------

def _kind(cell_):
    """nbgrader's cell kinds: what ``nbgrader generate_assignment``/``autograde`` make of a cell."""
    meta = cell_["metadata"].get("nbgrader", {})
    grade, solution, locked = meta.get("grade", False), meta.get("solution", False), meta.get("locked", False)
    if grade and solution:
        return "manually graded answer"
    if solution:
        return "autograded answer"
    if grade:
        return "autograder tests"
    return "read-only" if locked else "plain"


def _schema_3_errors(cell_):
    meta = cell_["metadata"].get("nbgrader")
    if meta is None:
        return []
    errors = []
    if meta.get("schema_version") != 3:
        errors.append("schema_version must be 3")
    if (meta.get("grade") or meta.get("solution") or meta.get("locked")) and not meta.get("grade_id"):
        errors.append("grade_id required")
    if meta.get("grade") and not isinstance(meta.get("points"), (int, float)):
        errors.append("graded cells need points")
    if cell_["cell_type"] == "markdown" and meta.get("grade") and not meta.get("solution"):
        errors.append("markdown grade cells must be solution cells (manually graded answers)")
    if meta.get("solution") and meta.get("locked"):
        errors.append("solution cells cannot be locked")
    return errors


@pytest.mark.parametrize("folder", ["solutions", "exercises"])
@pytest.mark.parametrize("name", NOTEBOOKS)
def test_every_cell_follows_nbgrader_schema_3(folder, name):
    cells = json.loads((ROOT / folder / name).read_text(encoding="utf-8"))["cells"]
    assert [(c["id"], e) for c in cells for e in _schema_3_errors(c)] == []


@pytest.mark.parametrize("folder", ["solutions", "exercises"])
def test_nbgrader_sees_each_written_task_as_a_manually_graded_answer_with_its_points(folder):
    for task in WRITTEN_TASKS.values():
        cells = json.loads((ROOT / folder / task.notebook).read_text(encoding="utf-8"))["cells"]
        manual = {c["metadata"]["nbgrader"]["grade_id"]: c for c in cells
                  if _kind(c) == "manually graded answer"}
        assert task.id in manual
        assert manual[task.id]["cell_type"] == "markdown"
        assert manual[task.id]["metadata"]["nbgrader"]["points"] == task.points


def test_nbgrader_sees_no_other_manually_graded_answers():
    manual = {c["metadata"]["nbgrader"]["grade_id"] for name in NOTEBOOKS
              for c in json.loads((ROOT / "solutions" / name).read_text(encoding="utf-8"))["cells"]
              if _kind(c) == "manually graded answer"}
    assert manual == set(WRITTEN_TASKS)
