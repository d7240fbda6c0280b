"""The public t quantile against the two closed forms Student's t has (df = 1 and df = 2)."""

import math

import pytest

from reasoneval_mini.estimators import student_t_quantile


@pytest.mark.parametrize("probability", [0.6, 0.75, 0.9, 0.975, 0.995])
def test_df_1_is_the_cauchy_quantile(probability):
    assert student_t_quantile(probability, 1) == pytest.approx(
        math.tan(math.pi * (probability - 0.5)), rel=1e-12)


@pytest.mark.parametrize("probability", [0.6, 0.75, 0.9, 0.975, 0.995])
def test_df_2_has_its_closed_form(probability):
    alpha = 4 * probability * (1 - probability)
    assert student_t_quantile(probability, 2) == pytest.approx(
        (2 * probability - 1) * math.sqrt(2 / alpha), rel=1e-12)


def test_the_multiplier_falls_towards_the_normal_one_as_df_grows():
    multipliers = [student_t_quantile(0.975, df) for df in (1, 2, 5, 30, 2000)]
    assert multipliers == sorted(multipliers, reverse=True)
    assert multipliers[-1] == pytest.approx(1.959964, abs=2e-3)


@pytest.mark.parametrize("probability, df", [(0.5, 3), (1, 3), (0.2, 3), ("0.9", 3), (True, 3),
                                             (0.9, 0), (0.9, 2.5), (0.9, True)])
def test_bad_arguments_name_the_value(probability, df):
    with pytest.raises(ValueError, match="must be"):
        student_t_quantile(probability, df)
