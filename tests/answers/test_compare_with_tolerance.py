from fractions import Fraction

import pytest

from reasoneval_mini import compare_with_tolerance, numeric_equivalence


def test_absolute_tolerance_boundary_is_inclusive_and_exact():
    assert compare_with_tolerance("0.3", "0.2", abs_tol=0.1, rel_tol=0) is True
    assert compare_with_tolerance("0.30001", "0.2", abs_tol=0.1, rel_tol=0) is False


def test_relative_tolerance_is_relative_to_the_reference():
    assert compare_with_tolerance("101", "100", abs_tol=0, rel_tol=0.01) is True
    # Relative to the prediction (as math.isclose does) this would differ.
    assert compare_with_tolerance("100", "101", abs_tol=0, rel_tol=Fraction(1, 101)) is True
    assert compare_with_tolerance("99.99", "101", abs_tol=0, rel_tol=Fraction(1, 101)) is False


def test_the_larger_of_the_two_tolerances_applies():
    assert compare_with_tolerance("1.5", "1", abs_tol=0.5, rel_tol=0.01) is True
    assert compare_with_tolerance("1010", "1000", abs_tol=0.5, rel_tol=0.01) is True


def test_exact_contract_is_unchanged():
    assert compare_with_tolerance("0.5001", "1/2", abs_tol=0.001, rel_tol=0) is True
    assert numeric_equivalence("0.5001", "1/2") is False


def test_parsing_follows_the_exact_contract():
    assert compare_with_tolerance("100 cm", "1", abs_tol=1, rel_tol=0) is None
    with pytest.raises(ValueError, match="'1/0'"):
        compare_with_tolerance("1", "1/0", abs_tol=1, rel_tol=0)


@pytest.mark.parametrize("bad", [-0.1, float("nan"), float("inf"), "0.1", None, True])
def test_bad_tolerance_raises_naming_it(bad):
    with pytest.raises(ValueError, match="abs_tol"):
        compare_with_tolerance("1", "1", abs_tol=bad, rel_tol=0)


def test_tolerances_must_be_declared():
    with pytest.raises(TypeError):
        compare_with_tolerance("1", "1")
