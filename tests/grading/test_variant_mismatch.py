"""A typed answer graded on another variant than its notebook's is not graded: no 0 nobody earned.

Found by running the instructor guide's commands: a class built as ``ada``
but collected as ``lovelaceada`` (the name ``collect`` makes), or
``exercises/`` handed out as it ships (variant ``self-study``) and graded by
folder, had every right prediction marked wrong. Each test grades real
notebooks with the real grader.
"""

import subprocess
import sys
from pathlib import Path

from assessment_play import TEST_KEY
from reasoneval_mini.exercises.build import dumps_notebook, master_for
from reasoneval_mini.exercises.registry import EXERCISES
from reasoneval_mini.exercises.variants import Variant
from reasoneval_mini.grading.grader import OTHER_VARIANT, grade_class
from reasoneval_mini.grading.statuses import GRADE_FAILED, GRADE_INTERRUPTED, GRADE_PASSED

ROOT = Path(__file__).resolve().parents[2]
EX01 = "ex01_answer_equivalence.ipynb"
TYPED = "kp1_practice_verdicts"


def _hand_in(submissions, folder, built_for):
    path = submissions / folder / EX01
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(dumps_notebook(master_for(ROOT / "solutions" / EX01, Variant(built_for))),
                    encoding="utf-8")


def _grades(submissions, **options):
    grades = grade_class(submissions, grading_key=TEST_KEY, progress=False, workers=2, **options)
    return {(grade.student, grade.exercise): grade for grade in grades}


def test_a_class_collected_under_other_folder_names_is_not_marked_wrong(tmp_path):
    assert EXERCISES[TYPED].data(Variant("ada")) != EXERCISES[TYPED].data(Variant("lovelaceada"))
    _hand_in(tmp_path, "lovelaceada", "ada")
    _hand_in(tmp_path, "bob", "bob")
    grades = _grades(tmp_path)
    moved = grades["lovelaceada", TYPED]
    assert moved.status == GRADE_INTERRUPTED and moved.message.startswith(OTHER_VARIANT)
    assert "'ada'" in moved.message and "'lovelaceada'" in moved.message
    assert grades["bob", TYPED].status == GRADE_PASSED
    # A function exercise answers any variant: it is graded as usual in the moved folder.
    assert grades["lovelaceada", "kp1_classify_outcome"].status == GRADE_PASSED


def test_the_shipped_exercises_graded_with_variant_self_study_earn_their_points(tmp_path):
    _hand_in(tmp_path, "zoe", "self-study")
    by_folder = _grades(tmp_path)["zoe", TYPED]
    assert by_folder.status == GRADE_INTERRUPTED
    assert "--variant 'self-study'" in by_folder.message
    shipped = _grades(tmp_path, identity="self-study")["zoe", TYPED]
    assert shipped.status == GRADE_PASSED and shipped.score == shipped.max_score


def test_a_wrong_typed_answer_of_the_right_variant_is_still_failed(tmp_path):
    _hand_in(tmp_path, "ada", "ada")
    notebook = tmp_path / "ada" / EX01
    text = notebook.read_text(encoding="utf-8")
    right = EXERCISES[TYPED].solve(EXERCISES[TYPED].data(Variant("ada")))
    first = next(iter(right))
    wrong = dict(right, **{first: None if right[first] is not None else True})
    notebook.write_text(text.replace(_literal(right), _literal(wrong)), encoding="utf-8")
    assert _literal(wrong) in notebook.read_text(encoding="utf-8")
    grade = _grades(tmp_path)["ada", TYPED]
    assert grade.status == GRADE_FAILED and grade.score == 0


def _literal(value):
    # How the build types the answer into the master's JSON (a str inside a JSON string).
    import json
    return json.dumps(repr(value))[1:-1]


def test_the_command_says_whose_notebooks_were_not_judged_and_exits_1(tmp_path):
    submissions = tmp_path / "submissions"
    _hand_in(submissions, "lovelaceada", "ada")
    key = tmp_path / "key"
    key.write_text(TEST_KEY.hex())
    done = subprocess.run([sys.executable, "-m", "reasoneval_mini", "grade", str(submissions),
                           "--out", str(tmp_path / "grades.csv"), "--key", str(key),
                           "--no-progress", "--workers", "1"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 1, done.stderr
    assert "built for another variant" in done.stderr and "lovelaceada" in done.stderr
    again = subprocess.run([sys.executable, "-m", "reasoneval_mini", "grade", str(submissions),
                            "--out", str(tmp_path / "grades2.csv"), "--key", str(key),
                            "--no-progress", "--workers", "1", "--variant", "ada"],
                           capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr
    assert "built for another variant" not in again.stderr


def test_an_untouched_stub_built_for_another_variant_is_still_0_not_attempted(tmp_path):
    stub = ROOT / "exercises" / EX01  # the shipped learner copy: self-study, every answer a stub
    (tmp_path / "bob").mkdir()
    (tmp_path / "bob" / EX01).write_bytes(stub.read_bytes())
    grade = _grades(tmp_path)["bob", TYPED]
    assert grade.status == GRADE_FAILED and grade.score == 0
    assert not any(check.get("attempted", True) for check in grade.checks)
