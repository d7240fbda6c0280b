"""The marks a check can carry have one home: a misspelt mark is refused when the check is built.

The page's five distinctions stay a set of their own (they are the page's words); lesson 04's
statistics misconceptions are marked, and capped, the same way.
"""

from fractions import Fraction

import pytest

from reasoneval_mini.exercises.checks import (
    DENOMINATOR_MISCONCEPTIONS, DISTINCTIONS, MARKS, STATISTICS_MISCONCEPTIONS, CheckResult, case)
from reasoneval_mini.exercises.registry import exercise_score


def test_a_misspelt_distinction_is_refused_with_the_valid_names():
    with pytest.raises(ValueError, match="None vs 0"):
        case("f()", lambda f: f(), 1, distinction="None vs zero")


def test_the_page_distinctions_are_the_pages_five():
    assert DISTINCTIONS == ("None vs 0", "None vs False",
                            "ValueError for a broken reference vs False",
                            "k > n refused vs clipped", "per problem, then the mean")


def test_the_marks_are_the_page_distinctions_and_the_statistics_misconceptions_once_each():
    assert MARKS == DISTINCTIONS + DENOMINATOR_MISCONCEPTIONS + STATISTICS_MISCONCEPTIONS
    assert len(set(MARKS)) == len(MARKS)
    # Pooling samples across problems is the page's own distinction, not a second name for it.
    assert not any("pool" in mark for mark in STATISTICS_MISCONCEPTIONS)


@pytest.mark.parametrize("distinction", MARKS)
def test_each_mark_marks_the_result(distinction):
    check = case("f()", lambda f: f(), 1, distinction=distinction)
    assert check(lambda: 2).distinction == distinction
    assert check(lambda: 1).passed


@pytest.mark.parametrize("misconception", STATISTICS_MISCONCEPTIONS)
def test_a_failed_statistics_mark_caps_at_a_third(misconception):
    ok = CheckResult("a", True, "a()", "1", "1", "ok")
    wrong = CheckResult("b", False, "b()", "1", "0", "different value", distinction=misconception)
    assert exercise_score(3, [ok], [ok, ok, ok, wrong]) == Fraction(1)
