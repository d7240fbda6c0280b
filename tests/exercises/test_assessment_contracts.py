"""What every exercise promises an instructor, tested across the whole registry.

The per-exercise tests (``test_kp*_assessment.py``) play each misconception;
these hold the rules that no exercise may break: each function exercise is
graded on hidden inputs and refuses the function it asks to be written; each
prediction is typed in and answered only "right" or "not yet"; variants
differ between students; no answer sits in the installed package as data.
"""

import ast
import importlib
from pathlib import Path

import pytest

from assessment_play import IDENTITIES, TEST_KEY, typed_answer
from reasoneval_mini.exercises.checks import NOT_YET
from reasoneval_mini.exercises.registry import EXERCISES, run_checks
from reasoneval_mini.exercises.variants import Variant

PACKAGE = Path(__file__).resolve().parents[2] / "reasoneval_mini"
FUNCTIONS = [i for i, e in EXERCISES.items() if not e.typed]
TYPED = [i for i, e in EXERCISES.items() if e.typed]


#: Function exercises whose work no function of the package does, so there is nothing to
#: refuse; each says why. (The subsets come from itertools, which the hint offers; the
#: package's only Bonferroni is in lesson 04's text.)
NOTHING_TO_REFUSE = {
    "kp2_two_subsets": "the package lists no subsets (estimators enumerates them internally "
                       "and returns a probability)",
    "kp4_bonferroni": "the package has no multiple-comparison correction",
}


@pytest.mark.parametrize("exercise_id", FUNCTIONS)
def test_every_function_exercise_is_graded_on_hidden_inputs_and_refuses_its_shortcut(exercise_id):
    exercise = EXERCISES[exercise_id]
    assert exercise.hidden is not None, "no hidden checks: a lookup table of the public inputs passes"
    if exercise_id in NOTHING_TO_REFUSE:
        assert not exercise.refuses, "listed as refusing nothing, but it refuses: update the list"
    else:
        assert exercise.refuses, "nothing refused: the library's own function would do the exercise"
    hidden = exercise.hidden_checks(Variant("ada", key=TEST_KEY))
    assert len(hidden) >= 2


@pytest.mark.parametrize("exercise_id", TYPED)
def test_every_prediction_is_typed_withheld_and_explained_once_right(exercise_id):
    exercise = EXERCISES[exercise_id]
    assert not exercise.reveal_expected and exercise.solve is not None
    assert exercise.explain is not None and exercise.draw is not None


@pytest.mark.parametrize("exercise_id", list(EXERCISES))
def test_two_students_rarely_get_the_same_variant(exercise_id):
    exercise = EXERCISES[exercise_id]
    if exercise.draw is None:
        pytest.fail("no draw: every student gets the same inputs, and answers can be shared")
    draws = [repr(exercise.data(Variant(identity))) for identity in IDENTITIES]
    assert len(set(draws)) >= 0.75 * len(draws)


def _wrong_answers(exercise, data):
    """Typed answers of the right shape that are wrong in one item, in two, in all."""
    right = exercise.solve(data)
    if isinstance(right, dict):
        keys = list(right)
        alternatives = {key: [value for value in _choices(exercise, data, right)
                              if value != right[key]] for key in keys}
        wrong = []
        for count in (1, 2, len(keys)):
            answer = dict(right)
            for key in keys[:count]:
                if alternatives[key]:
                    answer[key] = alternatives[key][0]
            if answer != right:
                wrong.append(answer)
        return wrong
    if isinstance(right, (set, frozenset)):
        items = sorted(right, key=repr)
        return [set(items[1:]), set(items[:1]), set()] if items else []
    return []


def _choices(exercise, data, right):
    # The values seen across the right answers of many variants: the choices of the item.
    seen = []
    for identity in IDENTITIES[:20]:
        for value in exercise.solve(exercise.data(Variant(identity))).values():
            if value not in seen:
                seen.append(value)
    return seen


@pytest.mark.parametrize("exercise_id", TYPED)
def test_a_wrong_prediction_hears_only_not_yet_whichever_items_are_wrong(exercise_id):
    # The blind search of the review read "k of n are wrong" and found every answer in a
    # few dozen tries; now every wrong answer of the right shape gets the same words.
    exercise = EXERCISES[exercise_id]
    for identity in IDENTITIES[:10]:
        data = exercise.data(Variant(identity))
        messages = set()
        for wrong in _wrong_answers(exercise, data):
            results = run_checks(exercise_id, typed_answer(exercise_id, wrong),
                                 variant=Variant(identity))
            assert not any(result.passed for result in results if result.name != "refusals")
            messages |= {result.message for result in results if not result.passed}
        assert messages <= {NOT_YET}, messages


def _module_values(module):
    """Every literal value assigned at the top level of *module*'s source."""
    tree = ast.parse(Path(module.__file__).read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign):
            try:
                yield ast.literal_eval(node.value)
            except ValueError:
                for target in node.targets:
                    if isinstance(target, ast.Name) and hasattr(module, target.id):
                        yield getattr(module, target.id)


@pytest.mark.parametrize("exercise_id", [i for i in TYPED if EXERCISES[i].keyed])
def test_no_answer_of_a_choice_exercise_can_be_imported_from_the_package(exercise_id):
    exercise = EXERCISES[exercise_id]
    answers = [exercise.solve(exercise.data(Variant(identity))) for identity in IDENTITIES[:20]]
    items = {(item, repr(value)) for answer in answers if isinstance(answer, dict)
             for item, value in answer.items()}
    for path in sorted(PACKAGE.rglob("*.py")):
        name = ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if name.endswith("__main__") or ".cli" in name:
            continue
        module = importlib.import_module(name.removesuffix(".__init__"))
        for value in _module_values(module):
            assert value not in answers, f"{name} holds an answer of {exercise_id}"
            if isinstance(value, dict) and items:
                held = {(item, repr(v)) for item, v in value.items()} & items
                assert len(held) < len(items) / 2, (
                    f"{name} maps most items of {exercise_id} to their answers")
