"""The checks' copies of a result (``_replaced``) are ``dataclasses.replace``'s, field for field.

The checks copy a result to mark it with a distinction, to conceal it or to
rename it; ``_replaced`` builds the copy by keyword where ``replace`` would
look every field up again. Held against ``replace`` itself, on every result
the course's checks make for a few answers and on each kind of change.
"""

from dataclasses import FrozenInstanceError, dataclass, fields, replace

import pytest

from reasoneval_mini.exercises.checks import CheckResult, _replaced
from reasoneval_mini.exercises.registry import EXERCISES, run_checks
from reasoneval_mini.exercises.variants import Variant

CHANGES = [{}, {"withheld": True}, {"distinction": "None vs 0"}, {"name": "n", "call": "c()"},
           {"expected": "withheld", "message": "not yet", "withheld": True},
           {"passed": True, "attempted": False, "delegated": "parse_rational"}]


def _stub(*args, **kwargs):
    raise NotImplementedError


def _fields(result):
    return [(field.name, type(getattr(result, field.name)), getattr(result, field.name))
            for field in fields(result)]


def test_a_copy_of_every_course_result_is_the_one_replace_makes():
    results = [result for exercise_id in EXERCISES
               for answer in (_stub, lambda *a, **k: None, lambda *a, **k: a)
               for result in run_checks(exercise_id, answer, variant=Variant("ada"))]
    assert len(results) > 100
    for result in results:
        for changes in CHANGES:
            copy = _replaced(result, **changes)
            assert type(copy) is CheckResult and copy is not result
            assert _fields(copy) == _fields(replace(result, **changes))


def test_the_copy_is_frozen_and_the_original_unchanged():
    result = CheckResult("a", False, "a()", "1", "0", "different value")
    copy = _replaced(result, withheld=True)
    assert (result.withheld, copy.withheld) == (False, True)
    with pytest.raises(FrozenInstanceError):
        copy.passed = True


@dataclass(frozen=True)
class _Subclassed(CheckResult):
    extra: str = "kept"


def test_anything_but_a_check_result_is_copied_or_refused_as_replace_does():
    result = _Subclassed("a", False, "a()", "1", "0", "different value")
    assert _replaced(result, withheld=True) == replace(result, withheld=True)
    assert type(_replaced(result, withheld=True)) is _Subclassed
    with pytest.raises(TypeError):
        _replaced("not a result", withheld=True)
    with pytest.raises(TypeError):
        _replaced(CheckResult("a", True, "a()", "1", "1", "ok"), no_such_field=1)
