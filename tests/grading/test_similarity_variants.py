"""The class report's similarity and per-student variants (issue 23, item 8).

Two students whose variants draw the same items type the same right answer into a typed
exercise by necessity: that must not make them look alike. An answer typed for a
classmate's items, and a copied function answer, must still show. Played with the real
registry, real notebooks in student folders, and the grader's reading of them.
"""

from fractions import Fraction

import pytest

from reasoneval_mini.exercises.registry import EXERCISES
from reasoneval_mini.exercises.variants import Variant
from reasoneval_mini.grading.class_report import write_class_report
from reasoneval_mini.grading.grader import Grade
from reasoneval_mini.grading.similarity import (
    MIN_ANSWER_TOKENS, normalised_tokens, similar_answers, variant_bound_exercises)
from reasoneval_mini.grading.statuses import GRADE_PASSED
from reasoneval_mini.grading.submissions import discover_students, read_student
from submission_class import write_notebook

pytest.importorskip("matplotlib")

TYPED = EXERCISES["kp1_practice_verdicts"]
FUNCTION = EXERCISES["kp1_classify_outcome"]
ONLY = {exercise.id: exercise for exercise in (TYPED, FUNCTION)}

#: One honest function answer, long enough to be compared; the copy only renames it.
CLASSIFY = '''\
def classify_outcome(prediction, reference):
    """Who owns the outcome."""
    try:
        verdict = numeric_equivalence(prediction, reference)
    except ValueError:
        return "broken reference"
    if verdict is None:
        return "format failure"
    return "correct" if verdict else "wrong"
'''
CLASSIFY_COPY = CLASSIFY.replace("verdict", "outcome").replace('"""Who owns the outcome."""',
                                                               "# mine")


def _right_answer(identity):
    return TYPED.solve(TYPED.data(Variant(identity)))


def _typed(answer):
    return (f"def {TYPED.answer_name}():\n    \"\"\"My predictions.\"\"\"\n"
            f"    return {answer!r}\n")


def _twins_and_other():
    """Two identities whose variants give the same typed answer, and one whose differs."""
    seen = {}
    for number in range(5000):
        identity = f"student{number:04d}"
        answer = repr(_right_answer(identity))
        if answer in seen:
            first = seen[answer]
            other = next(i for i in seen.values() if repr(_right_answer(i)) != answer)
            return first, identity, other
        seen[answer] = identity
    raise AssertionError("no two of 5000 identities share a variant: pick another exercise")


def _class(root, answers):
    """Student folders holding *answers* (``{student: [cell source, ...]}``), read as grade does."""
    for student, sources in answers.items():
        (root / student).mkdir()
        write_notebook(root / student / TYPED.notebook, [
            {"cell_type": "code", "metadata": {}, "source": source, "outputs": [],
             "execution_count": None} for source in sources])
    submissions = [read_student(root / name, ONLY) for name in discover_students(root)]
    grades = [Grade(student, exercise_id, Fraction(1), 1, GRADE_PASSED, "",
                    ({"name": "c0", "passed": True, "attempted": True, "actual": "ok"},))
              for student in answers for exercise_id in ONLY]
    return submissions, grades


def test_the_exercises_bound_to_a_variant_are_the_typed_and_keyed_ones():
    bound = set(variant_bound_exercises(EXERCISES))
    assert bound == {i for i, e in EXERCISES.items() if e.typed or e.keyed}
    assert TYPED.id in bound and FUNCTION.id not in bound


def test_two_students_with_the_same_variants_typed_answers_are_not_flagged(tmp_path):
    ann, bob, _ = _twins_and_other()
    assert TYPED.data(Variant(ann)) == TYPED.data(Variant(bob))
    source = _typed(_right_answer(ann))
    assert len(normalised_tokens(source)) >= MIN_ANSWER_TOKENS  # long enough to be compared
    submissions, grades = _class(tmp_path, {ann: [source], bob: [source]})
    pairs, skipped = similar_answers(submissions, grades, ONLY)
    assert [p for p in pairs if p.exercise == TYPED.id] == [] and TYPED.id not in skipped


def test_an_answer_typed_for_a_classmates_items_is_still_flagged(tmp_path):
    ann, bob, other = _twins_and_other()
    source = _typed(_right_answer(ann))
    submissions, grades = _class(tmp_path, {ann: [source], bob: [source], other: [source]})
    pairs, _ = similar_answers(submissions, grades, ONLY)
    found = sorted((p.first, p.second) for p in pairs if p.exercise == TYPED.id)
    assert found == sorted(tuple(sorted(pair)) for pair in ((ann, other), (bob, other)))


def test_two_students_who_copied_a_function_answer_are_still_flagged(tmp_path):
    ann, bob, other = _twins_and_other()
    submissions, grades = _class(tmp_path, {ann: [CLASSIFY], bob: [CLASSIFY_COPY],
                                            other: [CLASSIFY_COPY]})
    pairs, skipped = similar_answers(submissions, grades, ONLY)
    found = sorted((p.first, p.second) for p in pairs if p.exercise == FUNCTION.id)
    assert found == sorted(tuple(sorted(pair)) for pair in ((ann, bob), (ann, other),
                                                            (bob, other)))
    assert FUNCTION.id not in skipped


def test_the_class_report_says_typed_answers_are_compared_only_across_different_items(tmp_path):
    ann, bob, _ = _twins_and_other()
    source = _typed(_right_answer(ann))
    submissions, grades = _class(tmp_path, {ann: [source, CLASSIFY], bob: [source, CLASSIFY]})
    text = write_class_report(grades, ONLY, tmp_path / "report", submissions).read_text(
        encoding="utf-8")
    assert f"Typed-in and keyed answers (`{TYPED.id}`) are compared only between students" in text
    assert f"- `{FUNCTION.id}`: {ann} and {bob}, 100% alike" in text
    assert f"- `{TYPED.id}`:" not in text
