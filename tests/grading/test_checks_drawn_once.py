"""The grader draws each exercise's data once per student, for the count and the judge alike.

It used to draw it five times per exercise and student (the count drew the
public and the hidden checks, the judge the public ones again, then
``run_checks`` both again), most of the grader's own time per student. Each
student still gets their own draw: two students on one variant draw twice.
"""

from dataclasses import replace
from pathlib import Path

from assessment_play import TEST_KEY
from reasoneval_mini.exercises import registry
from reasoneval_mini.exercises.build import dumps_notebook, master_for
from reasoneval_mini.exercises.variants import DEFAULT_IDENTITY, Variant
from reasoneval_mini.grading.grader import grade_class
from reasoneval_mini.grading.statuses import GRADE_PASSED

ROOT = Path(__file__).resolve().parents[2]
EX01 = "ex01_answer_equivalence.ipynb"
EXERCISE = "kp1_classify_outcome"  # a function exercise of EX01, with hidden checks


def _count_draws(monkeypatch):
    exercise, draws = registry.EXERCISES[EXERCISE], []

    def counted(rng):
        draws.append(1)
        return exercise.draw(rng)
    monkeypatch.setitem(registry.EXERCISES, EXERCISE, replace(exercise, draw=counted))
    return draws


def _hand_in(submissions, folder):
    path = submissions / folder / EX01
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(dumps_notebook(master_for(ROOT / "solutions" / EX01, Variant(folder))),
                    encoding="utf-8")


def test_each_student_draws_each_exercise_once_and_is_graded_as_before(tmp_path, monkeypatch):
    draws = _count_draws(monkeypatch)
    _hand_in(tmp_path, "ada")
    _hand_in(tmp_path, "bob")
    grades = grade_class(tmp_path, grading_key=TEST_KEY, progress=False, workers=1)
    assert len(draws) == 2, f"{len(draws)} draws for 2 students"
    for student in ("ada", "bob"):
        grade = next(g for g in grades if (g.student, g.exercise) == (student, EXERCISE))
        assert grade.status == GRADE_PASSED and any(c["hidden"] for c in grade.checks)


def test_students_on_one_variant_still_draw_their_own(tmp_path, monkeypatch):
    draws = _count_draws(monkeypatch)
    _hand_in(tmp_path, DEFAULT_IDENTITY)
    (tmp_path / "twin").mkdir()
    (tmp_path / "twin" / EX01).write_bytes((tmp_path / DEFAULT_IDENTITY / EX01).read_bytes())
    grade_class(tmp_path, grading_key=TEST_KEY, progress=False, workers=1,
                identity=DEFAULT_IDENTITY)
    assert len(draws) == 2
