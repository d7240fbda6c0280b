"""``reasoneval-course grade`` on the fixture class (see submission_class.py): grades and reports."""

import os
from fractions import Fraction

import pytest
from submission_class import (
    CLASS, EXPECTED, FAKE_REGISTRY, REGISTRY, SHOUT, build_class, grade, read_csv, words_notebook,
    write_notebook)

from reasoneval_mini.grading.reports import GRADE_COLUMNS, TOTAL_COLUMNS
from reasoneval_mini.grading.statuses import GRADE_FAILED, GRADE_PASSED, GRADE_STATUSES


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    root = tmp_path_factory.mktemp("grading")
    submissions = build_class(root / "submissions")
    out_dir = root / "out"
    assert grade(submissions, out_dir) == 0
    return submissions, out_dir


def test_fixture_expectations_are_not_trivial():
    # The independent path must give partial credit where the class says so.
    assert 0 < EXPECTED["partial"]["add"][1] < REGISTRY.EXERCISES["add"].points
    assert 0 < EXPECTED["partial"]["count_words"][1] < REGISTRY.EXERCISES["count_words"].points


def test_every_student_and_exercise_has_one_row_in_sorted_order(graded):
    rows = read_csv(graded[1] / "grades.csv")
    assert tuple(rows[0]) == GRADE_COLUMNS
    keys = [(row[0], row[1]) for row in rows[1:]]
    assert keys == [(s, e) for s in sorted(CLASS) for e in REGISTRY.EXERCISES]


@pytest.mark.parametrize("student", sorted(CLASS))
def test_status_and_score_of_each_case(graded, student):
    rows = {row[1]: row for row in read_csv(graded[1] / "grades.csv")[1:] if row[0] == student}
    for exercise_id, (status, score) in EXPECTED[student].items():
        row = rows[exercise_id]
        assert (row[4], Fraction(row[2]).limit_denominator(100)) == (status, score), row
        assert int(row[3]) == REGISTRY.EXERCISES[exercise_id].points
        assert row[4] in GRADE_STATUSES and row[5], row


@pytest.mark.parametrize("student, exercise_id, words", [
    ("blank", "add", "not attempted"),
    ("invalid_json", "add", "not valid notebook JSON"),
    ("missing_notebook", "shout", "no notebook ex02_words.ipynb"),
    ("renamed_notebook", "shout", "ex02_words (1).ipynb; renamed?"),
    ("deleted_cell", "add", "no code cell defines it"),
    ("retyped_cell", "add", "non-code cell"),
    ("infinite_loop", "count_words", "did not finish within 2 s"),
    ("stubborn_loop", "count_words", "was stopped while checking this exercise"),
    ("crash", "add", "exited with code 3"),
    ("cheater", "add", "0 of 2 checks passed"),
    ("stubborn_cell", "shout", "not run: the grading process made no progress for over 2 s"),
    ("two_copies", "shout", "2 copies of ex02_words.ipynb in two_copies/ (new/ex02_words.ipynb, "
                            "old/ex02_words.ipynb); keep one"),
    pytest.param("segfault", "shout", "killed by signal SIGSEGV", marks=pytest.mark.skipif(
        os.name != "posix", reason="signals are POSIX only")),
    pytest.param("memory_hog", "add", "MemoryError", marks=pytest.mark.skipif(
        os.name != "posix", reason="the memory ceiling is an rlimit")),
])
def test_messages_explain_the_status(graded, student, exercise_id, words):
    rows = read_csv(graded[1] / "grades.csv")
    message = next(r[5] for r in rows if r[0] == student and r[1] == exercise_id)
    assert words in message


def test_totals_add_up_per_student(graded):
    rows = read_csv(graded[1] / "grades_totals.csv")
    assert tuple(rows[0]) == TOTAL_COLUMNS
    assert [row[0] for row in rows[1:]] == sorted(CLASS)
    max_total = sum(e.points for e in REGISTRY.EXERCISES.values())
    for row in rows[1:]:
        expected = EXPECTED[row[0]]
        assert Fraction(row[1]).limit_denominator(100) == sum(s for _, s in expected.values())
        assert int(row[2]) == max_total
        counts = [sum(got == s for got, _ in expected.values()) for s in GRADE_STATUSES]
        assert [int(n) for n in row[3:]] == counts


def test_feedback_file_per_student_shows_checks_and_hints(graded):
    feedback = graded[1] / "feedback"
    assert sorted(p.name for p in feedback.iterdir()) == sorted(f"{s}.md" for s in CLASS)
    text = (feedback / "partial.md").read_text(encoding="utf-8")
    assert "- [ ] `add_numbers(-1, 1)`: expected `0`, got `2`" in text
    assert "- [x] `add_numbers(1, 2)`: expected `3`, got `3`" in text
    assert f"Hint: {REGISTRY.EXERCISES['add'].hint}" in text
    assert f"Hint: {REGISTRY.EXERCISES['shout'].hint}" not in text  # shout passed


def test_regrading_gives_byte_identical_files_and_leaves_no_temporary_files(graded):
    submissions, out_dir = graded
    before = {p: p.read_bytes() for p in out_dir.rglob("*") if p.is_file()}
    assert grade(submissions, out_dir) == 0
    after = {p: p.read_bytes() for p in out_dir.rglob("*") if p.is_file()}
    assert after == before
    names = {p.name for p in out_dir.iterdir()}
    assert names == {"grades.csv", "grades_totals.csv", "feedback"}


def test_the_score_is_taken_on_the_hidden_checks_so_a_hardcoded_answer_earns_nothing(tmp_path):
    # The public check is the one the student saw: an answer written to pass it
    # (a lookup table) is worth what it earns on inputs it never saw.
    submissions = tmp_path / "submissions"
    write_hardcoded = "def shout(text):\n    return 'HI'\n"
    for student, shout in (("honest", SHOUT), ("hardcoded", write_hardcoded)):
        (submissions / student).mkdir(parents=True)
        write_notebook(submissions / student / "ex02_words.ipynb", words_notebook(shout=shout))
    hidden = tmp_path / "hidden.py"
    hidden.write_text("from grading_registry import case\n"
                      "HIDDEN_CHECKS = {'shout': [case(\"shout('ok')\", ('ok',), 'OK')]}\n")
    assert grade(submissions, tmp_path, "--hidden-tests", str(hidden)) == 0
    rows = {(r[0], r[1]): r for r in read_csv(tmp_path / "grades.csv")[1:]}
    assert rows["honest", "shout"][2:5] == ["1", "1", GRADE_PASSED]
    assert rows["hardcoded", "shout"][2:5] == ["0", "1", GRADE_FAILED]
    assert rows["hardcoded", "shout"][5].startswith(
        "1 of 1 public check passed; hidden checks: 0 of 1 passed")


def test_a_check_whose_call_raised_names_the_exception_once_in_the_feedback():
    from reasoneval_mini.grading.reports import _check_line

    line = _check_line({"call": "f(1)", "expected": "2", "passed": False,
                        "actual": "ZeroDivisionError: division by zero",
                        "message": "the call raised ZeroDivisionError (division by zero)"})
    assert line.count("division by zero") == 1 and "ZeroDivisionError" in line
    other = _check_line({"call": "f(1)", "expected": "2", "actual": "3", "passed": False,
                         "message": "expected an exact int"})
    assert other.endswith("(expected an exact int)")


def test_counting_a_students_checks_draws_them_once_for_the_judge_too(monkeypatch):
    # Counting builds every check (each draws its data), and the judge and run_checks built
    # them again. Each student's are drawn once (Checker.draw) and counted from that draw;
    # tests/grading/test_checks_drawn_once.py holds that the judge uses the same draw.
    from reasoneval_mini.grading.grader import Checker
    from reasoneval_mini.grading.process import GradingJob

    checker = Checker(GradingJob(str(FAKE_REGISTRY), None, 2.0, public_only=True))
    exercise_type = type(next(iter(checker.exercises.values())))
    built = []
    real = exercise_type.drawn_checks
    monkeypatch.setattr(exercise_type, "drawn_checks", lambda self, variant, **options: (
        built.append(self.id) or real(self, variant, **options)))
    ann = checker.draw("ann")
    first = checker.counts(ann)
    assert checker.counts(ann) == first and checker.counts(checker.draw("bob")) == first
    assert sorted(built) == sorted(list(checker.exercises) * 2)  # ann once, bob once
