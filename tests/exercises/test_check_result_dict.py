"""``CheckResult.to_dict`` is ``dataclasses.asdict``, whatever a check put in the fields."""

from dataclasses import asdict, dataclass

from reasoneval_mini.exercises.checks import CheckResult
from reasoneval_mini.exercises.registry import EXERCISES, run_checks
from reasoneval_mini.exercises.variants import Variant


def _stub(*args, **kwargs):
    raise NotImplementedError


def test_every_result_of_the_course_checks_gives_the_dict_asdict_gives():
    results = [result for exercise_id in EXERCISES
               for answer in (_stub, lambda *a, **k: None)
               for result in run_checks(exercise_id, answer, variant=Variant("ada"))]
    assert len(results) > 50
    for result in results:
        assert result.to_dict() == asdict(result)
        assert list(result.to_dict()) == list(asdict(result))


@dataclass
class _Point:
    x: int
    y: list


def test_a_hand_built_result_holding_other_values_gets_asdicts_copy():
    shown = [1, 2]
    result = CheckResult("c", False, "f()", shown, _Point(1, [3]), "different value")
    assert result.to_dict() == asdict(result)
    assert result.to_dict()["actual"] == {"x": 1, "y": [3]}
    assert result.to_dict()["expected"] is not shown
