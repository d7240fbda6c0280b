from fractions import Fraction

import pytest

from reasoneval_mini import numeric_equivalence


def test_source_page_worked_example_half():
    assert numeric_equivalence("0.5", "1/2") is True
    assert numeric_equivalence("1/2", "0.5") is True


def test_close_is_not_equal():
    assert numeric_equivalence("0.5001", "1/2") is False


@pytest.mark.parametrize("prediction", ["100 cm", "1/0", "nan", "", "1e3", "half"])
def test_unparseable_prediction_is_none_not_false(prediction):
    assert numeric_equivalence(prediction, "1") is None


@pytest.mark.parametrize("prediction", [None, 0.5, 1, Fraction(1, 2), ["1"]])
def test_non_str_prediction_is_none(prediction):
    assert numeric_equivalence(prediction, "1/2") is None


@pytest.mark.parametrize("reference", [None, 0.5, 1, "", "   "])
def test_reference_that_is_not_a_non_empty_str_raises_naming_it(reference):
    with pytest.raises(ValueError, match="non-empty str") as info:
        numeric_equivalence("1", reference)
    assert repr(reference) in str(info.value)


@pytest.mark.parametrize("reference", ["1/0", "abc", "1,080", "nan", "3 / 4"])
def test_invalid_reference_raises_naming_it(reference):
    with pytest.raises(ValueError) as info:
        numeric_equivalence("1", reference)
    assert repr(reference) in str(info.value)


def test_broken_reference_raises_even_when_prediction_is_unparseable():
    # The data bug must surface; it must not hide behind the model's None.
    with pytest.raises(ValueError):
        numeric_equivalence("cat", "1/0")


@pytest.mark.parametrize(
    "prediction, reference, expected",
    [("-0", "0", True), ("5.00", "5", True), ("0.333333", "1/3", False),
     ("1/3", "1/2", False), ("2/6", "1/3", True), ("-1/2", "-0.5", True)],
)
def test_exact_rational_comparison(prediction, reference, expected):
    assert numeric_equivalence(prediction, reference) is expected
    # Independent oracle: Fraction arithmetic on forms both parsers accept.
    assert (Fraction(prediction) == Fraction(reference)) is expected
