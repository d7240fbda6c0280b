"""pass_at_k_interval and paired_pass_at_k_difference against an exact, independent computation."""

import math
import statistics
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reasoneval_mini import (
    PassAtKInterval,
    mean_pass_at_k,
    paired_pass_at_k_difference,
    pass_at_k_interval,
)

pytestmark = pytest.mark.slow  # Monte Carlo checks of the intervals' coverage


def exact_estimate(n, c, k):
    return 1 - Fraction(math.comb(n - c, k), math.comb(n, k))


def reference_interval(values, confidence, lowest, highest):
    """Mean and standard error in exact fractions; only the square root and z are floats."""
    m = len(values)
    mean = sum(values, Fraction(0)) / m
    variance = sum(((v - mean) ** 2 for v in values), Fraction(0)) / (m - 1)
    standard_error = math.sqrt(variance / m)
    z = statistics.NormalDist().inv_cdf((1 + confidence) / 2)
    return (float(mean), standard_error,
            max(lowest, float(mean) - z * standard_error),
            min(highest, float(mean) + z * standard_error))


def counts_for(k):
    pair = st.integers(min_value=k, max_value=60).flatmap(
        lambda n: st.tuples(st.just(n), st.integers(min_value=0, max_value=n)))
    return st.dictionaries(st.text(min_size=1, max_size=4), pair, min_size=2, max_size=12)


@settings(max_examples=150, deadline=None)
@given(k=st.integers(min_value=1, max_value=5), data=st.data(),
       confidence=st.sampled_from([0.5, 0.9, 0.95, 0.99]))
def test_interval_matches_the_exact_computation(k, data, confidence):
    counts = data.draw(counts_for(k))
    result = pass_at_k_interval(counts, k, confidence=confidence)
    values = [exact_estimate(n, c, k) for n, c in counts.values()]
    expected = reference_interval(values, confidence, 0.0, 1.0)
    got = (result.estimate, result.standard_error, result.low, result.high)
    assert got == pytest.approx(expected, abs=1e-12)
    assert result.problems == len(counts) and result.confidence == confidence
    assert 0.0 <= result.low <= result.estimate <= result.high <= 1.0


@settings(max_examples=100, deadline=None)
@given(k=st.integers(min_value=1, max_value=5), data=st.data())
def test_the_estimate_is_exactly_mean_pass_at_k(k, data):
    counts = data.draw(counts_for(k))
    assert pass_at_k_interval(counts, k).estimate == mean_pass_at_k(counts, k)


@settings(max_examples=100, deadline=None)
@given(k=st.integers(min_value=1, max_value=4), data=st.data())
def test_paired_difference_matches_the_exact_computation(k, data):
    counts_a = data.draw(counts_for(k))
    counts_b = {problem: data.draw(st.integers(min_value=k, max_value=60).flatmap(
        lambda n: st.tuples(st.just(n), st.integers(min_value=0, max_value=n))))
        for problem in counts_a}
    result = paired_pass_at_k_difference(counts_a, counts_b, k)
    differences = [exact_estimate(*counts_a[p], k) - exact_estimate(*counts_b[p], k)
                   for p in counts_a]
    expected = reference_interval(differences, 0.95, -1.0, 1.0)
    got = (result.estimate, result.standard_error, result.low, result.high)
    assert got == pytest.approx(expected, abs=1e-12)


def test_a_constant_difference_has_zero_standard_error_although_each_run_is_uncertain():
    a = {f"p{i}": (10, c + 1) for i, c in enumerate([0, 3, 5, 8])}
    b = {f"p{i}": (10, c) for i, c in enumerate([0, 3, 5, 8])}
    paired = paired_pass_at_k_difference(a, b, 1)
    assert paired.standard_error == pytest.approx(0.0, abs=1e-15)
    assert paired.low == pytest.approx(0.1) and paired.high == pytest.approx(0.1)
    separate_a, separate_b = pass_at_k_interval(a, 1), pass_at_k_interval(b, 1)
    assert separate_a.low < separate_b.high  # the separate intervals overlap


def test_the_interval_is_clipped_to_the_unit_range():
    result = pass_at_k_interval({"a": (5, 5), "b": (5, 5), "c": (5, 0)}, 1)
    assert result.high == 1.0 and result.estimate + 1.96 * result.standard_error > 1.0


def test_result_is_a_frozen_record_with_the_contract_fields():
    result = pass_at_k_interval({"a": (4, 1), "b": (4, 3)}, 2)
    assert isinstance(result, PassAtKInterval)
    with pytest.raises(AttributeError):
        result.estimate = 1.0


@pytest.mark.parametrize("counts, match", [
    ({"only": (10, 3)}, "at least two problems, got 1"),
    ({}, "counts is empty"),
    ({"a": (10, 3), "b": (3, 1)}, "problem 'b': k must be in 1..n=3, got k=5"),
    ({"a": (10, 3), "b": (10, 11)}, "problem 'b': correct must be in 0..n=10"),
    ({"a": (10, 3), "b": "x"}, "problem 'b': expected a pair"),
    ([("a", (10, 3))], "counts must map problem id"),
])
def test_invalid_counts_raise_naming_the_problem(counts, match):
    with pytest.raises(ValueError, match=match):
        pass_at_k_interval(counts, 5)


@pytest.mark.parametrize("confidence", [0, 1, 1.5, -0.1, float("nan"), True, "0.95", None])
def test_confidence_outside_the_open_unit_interval_is_refused(confidence):
    with pytest.raises(ValueError, match="confidence"):
        pass_at_k_interval({"a": (10, 3), "b": (10, 4)}, 1, confidence=confidence)
    with pytest.raises(ValueError, match="confidence"):
        paired_pass_at_k_difference({"a": (10, 3), "b": (10, 4)}, {"a": (10, 3), "b": (10, 4)},
                                    1, confidence=confidence)


def test_paired_runs_must_cover_the_same_problems_and_the_message_names_them():
    with pytest.raises(ValueError, match=r"only in counts_a: 'c'; only in counts_b: 'd'"):
        paired_pass_at_k_difference({"a": (5, 1), "b": (5, 2), "c": (5, 3)},
                                    {"a": (5, 1), "b": (5, 2), "d": (5, 3)}, 1)


def test_paired_needs_two_problems_and_valid_counts_in_both_runs():
    with pytest.raises(ValueError, match="at least two problems"):
        paired_pass_at_k_difference({"a": (5, 1)}, {"a": (5, 2)}, 1)
    with pytest.raises(ValueError, match="problem 'b'"):
        paired_pass_at_k_difference({"a": (5, 1), "b": (5, 1)}, {"a": (5, 1), "b": (2, 1)}, 3)


# --- the t interval ---------------------------------------------------------------------------

def t_quantile_by_simulation(df, probability, draws=40_000, seed=3):
    """The quantile of a t statistic built from normal draws: mean / (s / sqrt(df + 1))."""
    import random

    generator = random.Random(seed)
    values = []
    for _ in range(draws):
        sample = [generator.gauss(0, 1) for _ in range(df + 1)]
        values.append(statistics.fmean(sample) / (statistics.stdev(sample) / math.sqrt(df + 1)))
    return sorted(values)[int(probability * draws)]


@pytest.mark.parametrize("df", [2, 5])
def test_the_t_interval_matches_a_simulated_t_distribution(df):
    counts = {f"p{i}": (4, i % 5) for i in range(df + 1)}
    result = pass_at_k_interval(counts, 1, confidence=0.9, distribution="t")
    assert result.multiplier == pytest.approx(t_quantile_by_simulation(df, 0.95), rel=0.04)


def test_the_t_interval_with_two_degrees_of_freedom_has_a_closed_form():
    # df = 2: P(T <= t) = 1/2 + t / (2 sqrt(2 + t^2)), solved for t.
    for confidence in (0.5, 0.9, 0.95, 0.99):
        a = confidence
        expected = math.sqrt(2 * a * a / (1 - a * a))
        result = pass_at_k_interval({"a": (4, 1), "b": (4, 2), "c": (4, 4)}, 1,
                                    confidence=confidence, distribution="t")
        assert result.multiplier == pytest.approx(expected, rel=1e-12)


def test_the_t_interval_approaches_the_normal_one_with_many_problems():
    counts = {f"p{i}": (10, i % 11) for i in range(2000)}
    t, z = (pass_at_k_interval(counts, 1, distribution=d).multiplier for d in ("t", "normal"))
    assert z < t < z * 1.001


def test_an_interval_says_when_it_was_clipped():
    clipped = pass_at_k_interval({"a": (5, 5), "b": (5, 5), "c": (5, 4)}, 1)
    assert clipped.high == 1.0 and clipped.clipped
    inside = pass_at_k_interval({"a": (10, 4), "b": (10, 5), "c": (10, 6)}, 1)
    assert not inside.clipped


def test_an_unknown_distribution_is_refused_by_name():
    with pytest.raises(ValueError, match="'cauchy'"):
        pass_at_k_interval({"a": (10, 3), "b": (10, 4)}, 1, distribution="cauchy")
    with pytest.raises(ValueError, match="distribution"):
        paired_pass_at_k_difference({"a": (10, 3), "b": (10, 4)}, {"a": (10, 3), "b": (10, 4)},
                                    1, distribution="z")


def test_a_paired_comparison_accepts_runs_with_different_n():
    result = paired_pass_at_k_difference({"a": (10, 5), "b": (10, 2)}, {"a": (20, 6), "b": (4, 1)}, 1)
    assert result.estimate == pytest.approx(((0.5 - 0.3) + (0.2 - 0.25)) / 2)
