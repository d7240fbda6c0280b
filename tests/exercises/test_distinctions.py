"""The page's distinctions have one home: a misspelt mark is refused when the check is built."""

import pytest

from reasoneval_mini.exercises.checks import DISTINCTIONS, case


def test_a_misspelt_distinction_is_refused_with_the_valid_names():
    with pytest.raises(ValueError, match="None vs 0"):
        case("f()", lambda f: f(), 1, distinction="None vs zero")


@pytest.mark.parametrize("distinction", DISTINCTIONS)
def test_each_distinction_marks_the_result(distinction):
    check = case("f()", lambda f: f(), 1, distinction=distinction)
    assert check(lambda: 2).distinction == distinction
