"""Lesson 04's exercises (ex04), played as students would: the solution, the stub, each
misconception, a lookup table of the public inputs, the library doing the work.

Numbers are checked against independent references: the t quantile against a numeric
integration of Student's density, standard deviations against exact fractions.
"""

import math
from fractions import Fraction

import pytest

from assessment_play import IDENTITIES, check_results, grade_score
from reasoneval_mini import paired_pass_at_k_difference, pass_at_k_interval
from reasoneval_mini.estimators import student_t_quantile
from reasoneval_mini.exercises import ex04_uncertainty as ex04
from reasoneval_mini.exercises.registry import STATE_NOT_ATTEMPTED, exercise_state, get_exercise
from reasoneval_mini.exercises.variants import Variant

import statistics
from statistics import NormalDist

from reasoneval_mini import pass_at_k  # noqa: E402
from reasoneval_mini.estimators import student_t_quantile

pytestmark = pytest.mark.slow  # every identity and misconception of ex04, graded on real variants


def t_interval(counts, k):
    values = [pass_at_k(n, c, k) for n, c in counts.values()]
    m = len(values)
    if m < 2:
        raise ValueError(f"a standard error over problems needs at least two problems, got {m}")
    estimate = sum(values) / m
    standard_error = statistics.stdev(values) / math.sqrt(m)
    t = student_t_quantile(0.975, m - 1)
    return (estimate, standard_error, max(0.0, estimate - t * standard_error),
            min(1.0, estimate + t * standard_error))


def paired_verdict(counts_a, counts_b, k):
    if counts_a.keys() != counts_b.keys():
        raise ValueError(
            "a paired comparison needs the same problems in both runs; only in A: "
            f"{sorted(counts_a.keys() - counts_b.keys())}, only in B: "
            f"{sorted(counts_b.keys() - counts_a.keys())}")
    differences = [pass_at_k(*counts_a[p], k) - pass_at_k(*counts_b[p], k) for p in counts_a]
    m = len(differences)
    if m < 2:
        raise ValueError(f"a standard error over problems needs at least two problems, got {m}")
    estimate = sum(differences) / m
    standard_error = statistics.stdev(differences) / math.sqrt(m)
    t = student_t_quantile(0.975, m - 1)
    if estimate - t * standard_error > 0:
        verdict = "A better"
    elif estimate + t * standard_error < 0:
        verdict = "B better"
    else:
        verdict = "no clear difference"
    return estimate, standard_error, verdict


def problems_needed(pilot_a, pilot_b, k, gain):
    if not gain > 0:
        raise ValueError(f"gain must be > 0, got gain={gain!r}")
    differences = [pass_at_k(*pilot_a[p], k) - pass_at_k(*pilot_b[p], k) for p in pilot_a]
    sigma_d = statistics.stdev(differences)
    return sigma_d, math.ceil(((1.96 + 0.84) * sigma_d / gain) ** 2)


def bonferroni_survivors(comparisons, alpha):
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1), got alpha={alpha!r}")
    level = 1 - alpha / len(comparisons)
    survivors = set()
    for name, differences in comparisons.items():
        m = len(differences)
        mean = sum(differences) / m
        se = statistics.stdev(differences) / math.sqrt(m)
        t = student_t_quantile((1 + level) / 2, m - 1)
        if mean - t * se > 0 or mean + t * se < 0:
            survivors.add(name)
    return level, survivors


SOLUTIONS = {"kp4_t_interval": t_interval, "kp4_paired_difference": paired_verdict,
             "kp4_problems_needed": problems_needed, "kp4_bonferroni": bonferroni_survivors}


def _t_density(x, df):
    return math.gamma((df + 1) / 2) / (math.sqrt(df * math.pi) * math.gamma(df / 2)) * (
        1 + x * x / df) ** (-(df + 1) / 2)


def _cdf_by_simpson(t, df, steps=4000):
    h = t / steps
    total = _t_density(0, df) + _t_density(t, df)
    total += sum((4 if i % 2 else 2) * _t_density(i * h, df) for i in range(1, steps))
    return 0.5 + total * h / 3


@pytest.mark.parametrize("df", [1, 2, 3, 5, 7, 11])
@pytest.mark.parametrize("probability", [0.975, 0.99, 1 - 0.05 / 20])
def test_the_t_quantile_matches_a_numeric_integration_of_the_density(df, probability):
    assert _cdf_by_simpson(student_t_quantile(probability, df), df) == pytest.approx(
        probability, abs=1e-7)


def test_closed_forms_of_t_for_one_and_two_degrees_of_freedom():
    assert student_t_quantile(0.975, 1) == pytest.approx(math.tan(math.pi * 0.475), rel=1e-9)
    p = 0.975
    assert student_t_quantile(p, 2) == pytest.approx((2 * p - 1) / math.sqrt(2 * p * (1 - p)),
                                                     rel=1e-9)


def _exact_sd(values):
    values = [Fraction(v) for v in values]
    mean = sum(values) / len(values)
    return math.sqrt(sum((v - mean) ** 2 for v in values) / (len(values) - 1))


@pytest.mark.parametrize("identity", IDENTITIES[:10])
def test_the_references_agree_with_the_library_and_exact_fractions(identity):
    variant = Variant(identity)
    for counts, k, _ in get_exercise("kp4_t_interval").data(variant):
        library = pass_at_k_interval(counts, k, distribution="t")
        assert ex04.t_interval_reference(counts, k) == pytest.approx(
            (library.estimate, library.standard_error, library.low, library.high), rel=1e-9)
        values = [Fraction(math.comb(n, k) - math.comb(n - c, k), math.comb(n, k))
                  for n, c in counts.values()]
        assert ex04.t_interval_reference(counts, k)[1] == pytest.approx(
            _exact_sd(values) / math.sqrt(len(values)), rel=1e-9)
    for cases, _ in get_exercise("kp4_paired_difference").data(variant):
        for a, b, k in cases:
            library = paired_pass_at_k_difference(a, b, k, distribution="t")
            estimate, se, verdict = ex04.paired_reference(a, b, k)
            assert (estimate, se) == pytest.approx((library.estimate, library.standard_error))
            assert verdict == ("A better" if library.low > 0 else "B better" if library.high < 0
                               else "no clear difference")
    for (a, b, k, gain), _ in get_exercise("kp4_problems_needed").data(variant):
        sigma = paired_pass_at_k_difference(a, b, k).standard_error * math.sqrt(len(a))
        assert ex04.problems_needed_reference(a, b, k, gain) == (
            pytest.approx(sigma), math.ceil((2.8 * sigma / gain) ** 2))


@pytest.mark.parametrize("exercise_id", list(SOLUTIONS))
def test_the_solution_earns_full_marks_on_every_identity(exercise_id):
    points = get_exercise(exercise_id).points
    for identity in IDENTITIES:
        assert grade_score(exercise_id, SOLUTIONS[exercise_id], identity) == points, identity
        assert all(r.passed for r in check_results(exercise_id, SOLUTIONS[exercise_id], identity))


@pytest.mark.parametrize("exercise_id", list(SOLUTIONS))
def test_the_untouched_stub_earns_nothing_and_is_not_attempted(exercise_id):
    def stub(*args):
        raise NotImplementedError
    assert grade_score(exercise_id, stub, "self-study") == 0
    assert exercise_state(check_results(exercise_id, stub, "self-study")) == STATE_NOT_ATTEMPTED


def _with_z(counts, k):
    values = [pass_at_k(n, c, k) for n, c in counts.values()]
    if len(values) < 2:
        raise ValueError("two problems at least")
    mean, se = sum(values) / len(values), statistics.stdev(values) / math.sqrt(len(values))
    return mean, se, max(0.0, mean - 1.96 * se), min(1.0, mean + 1.96 * se)


def _pooled(counts, k):
    # Every sample pooled into one (n, c) for the estimate; the rest as the lesson says.
    mean = pass_at_k(sum(n for n, _ in counts.values()), sum(c for _, c in counts.values()), k)
    se = t_interval(counts, k)[1]
    t = student_t_quantile(0.975, len(counts) - 1)
    return mean, se, max(0.0, mean - t * se), min(1.0, mean + t * se)


def _overlap(counts_a, counts_b, k):
    estimate, se, _ = paired_verdict(counts_a, counts_b, k)
    a, b = t_interval(counts_a, k), t_interval(counts_b, k)
    overlap = a[2] <= b[3] and b[2] <= a[3]
    return estimate, se, ("no clear difference" if overlap else
                          "A better" if a[0] > b[0] else "B better")


def _paired_z(counts_a, counts_b, k):
    estimate, se, _ = paired_verdict(counts_a, counts_b, k)
    return estimate, se, ex04._verdict(estimate, se, 1.96)


def _unpaired_sigma(a, b, k, gain):
    if not gain > 0:
        raise ValueError("gain must be > 0")
    sigma = math.hypot(t_interval(a, k)[1], t_interval(b, k)[1]) * math.sqrt(len(a))
    return sigma, math.ceil((2.8 * sigma / gain) ** 2)


def _uncorrected(comparisons, alpha):
    # Each comparison at 1 - alpha, as if it were the only one.
    if not 0 < alpha < 1:
        raise ValueError("alpha must be in (0, 1)")
    return 1 - alpha, {
        name for name, d in comparisons.items()
        if abs(statistics.fmean(d)) > student_t_quantile(1 - alpha / 2, len(d) - 1)
        * statistics.stdev(d) / math.sqrt(len(d))}


MISCONCEPTIONS = [("kp4_t_interval", _with_z, ex04.T_MARK),
                  ("kp4_t_interval", _pooled, ex04.POOLING_MARK),
                  ("kp4_paired_difference", _overlap, ex04.PAIRED_MARK),
                  ("kp4_paired_difference", _paired_z, ex04.T_MARK),
                  ("kp4_problems_needed", _unpaired_sigma, ex04.PAIRED_MARK),
                  ("kp4_bonferroni", _uncorrected, ex04.CORRECTION_MARK)]


@pytest.mark.parametrize("exercise_id, answer, mark", MISCONCEPTIONS,
                         ids=[f"{e}-{a.__name__}" for e, a, _ in MISCONCEPTIONS])
def test_each_misconception_earns_at_most_a_third_and_is_named(exercise_id, answer, mark):
    points = get_exercise(exercise_id).points
    for identity in IDENTITIES:
        assert grade_score(exercise_id, answer, identity) <= Fraction(points, 3), identity
        assert any(r.distinction == mark for r in check_results(exercise_id, answer, identity))


@pytest.mark.parametrize("exercise_id", list(SOLUTIONS))
def test_a_lookup_table_of_the_public_inputs_earns_nothing(exercise_id):
    exercise = get_exercise(exercise_id)
    for identity in IDENTITIES[:10]:
        table = {}

        def recorder(*args):
            value = SOLUTIONS[exercise_id](*args)
            table[repr(args)] = value
            return value
        check_results(exercise_id, recorder, identity)

        def lookup(*args):
            return table[repr(args)]  # raises KeyError on an input it has not seen
        assert grade_score(exercise_id, lookup, identity) == 0, identity
    assert exercise.hidden is not None


@pytest.mark.parametrize("exercise_id, answer, refused", [
    ("kp4_t_interval", lambda counts, k: tuple(
        getattr(pass_at_k_interval(counts, k, distribution="t"), f)
        for f in ("estimate", "standard_error", "low", "high")), "pass_at_k_interval"),
    ("kp4_paired_difference", lambda a, b, k: (
        paired_pass_at_k_difference(a, b, k, distribution="t").estimate, 0.0, "A better"),
     "paired_pass_at_k_difference"),
    ("kp4_problems_needed", lambda a, b, k, gain: (
        paired_pass_at_k_difference(a, b, k).standard_error * math.sqrt(len(a)), 1),
     "paired_pass_at_k_difference"),
])
def test_delegating_to_the_library_earns_nothing_and_the_call_is_named(exercise_id, answer,
                                                                        refused):
    for identity in IDENTITIES[:5]:
        assert grade_score(exercise_id, answer, identity) == 0
        results = check_results(exercise_id, answer, identity)
        assert any(refused in r.delegated and refused in r.message for r in results)


def test_a_classmates_inputs_are_not_yours():
    data = [repr(get_exercise("kp4_t_interval").data(Variant(i))) for i in IDENTITIES]
    assert len(set(data)) == len(data)
