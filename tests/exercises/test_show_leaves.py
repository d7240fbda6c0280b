"""``show`` of a single value: ``repr`` of it, except what must be shown otherwise.

``show`` takes a short path for the common leaves (texts, floats, bools,
None, ints under 10**18); these hold that it shows each as the general path
does (``repr``), and leaves the others to that path: long numbers shortened,
subclasses and numpy-like scalars unwrapped or shown by their own repr.
"""

import math
from fractions import Fraction

import pytest

from reasoneval_mini.exercises.compare import MAX_NUMBER_CHARS, show


class Text(str):
    def __repr__(self):
        return "Text(...)"


class Count(int):
    def __repr__(self):
        return "Count(...)"


@pytest.mark.parametrize("value", [
    "", "a'b\"c", "\u200fsara", 0.1, -0.0, math.inf, -math.inf, math.nan, 1e308, True, False,
    None, 0, -1, 10 ** 18 - 1, -(10 ** 18 - 1), 10 ** 18, -(10 ** 18), 10 ** 39, Fraction(1, 3),
])
def test_a_short_leaf_is_shown_as_its_repr(value):
    assert show(value) == repr(value)


@pytest.mark.parametrize("value", [10 ** MAX_NUMBER_CHARS, -(10 ** MAX_NUMBER_CHARS),
                                   Fraction(10 ** 50 - 1, 10 ** 50)])
def test_a_long_number_is_shortened_whatever_its_sign(value):
    assert len(show(value)) < len(repr(value)) and "…" in show(value)


def test_subclasses_are_shown_by_their_own_repr_not_as_the_builtin():
    assert show(Text("x")) == "Text(...)"
    assert show(Count(3)) == "Count(...)"
    assert show([Count(3), "a", 1.5, None]) == "[Count(...), 'a', 1.5, None]"
