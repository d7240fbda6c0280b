"""The ex02 checks catch the wrong answers they are written for, and say what is wrong.

Each wrong answer below is a mistake a learner makes; the test runs it through
the real checks and names the check that must fail. References are computed
here independently (enumeration of subsets, the library's interval functions).
"""

import math
import re
import statistics
from fractions import Fraction

import pytest

from reasoneval_mini import paired_pass_at_k_difference, pass_at_k, pass_at_k_interval
from reasoneval_mini.estimators import pass_at_k_by_enumeration
from reasoneval_mini.exercises import ex02_pass_at_k as ex02
from reasoneval_mini.exercises.registry import STATE_FAILED, exercise_state, get_exercise, run_checks
from reasoneval_mini.exercises.variants import DEFAULT_IDENTITY, Variant

from assessment_play import grade_score

#: The shipped variant's (n, c, k): the calls the feedback shows in exercises/.
_EXACT_DATA = get_exercise("kp2_exact_pass_at_k").data(Variant(DEFAULT_IDENTITY))
_FIRST = _EXACT_DATA["bundles"][0][0][0]          # valid, 0 < c < n, k >= 2: the plug-in differs
_K_ABOVE = _EXACT_DATA["bundles"][0][1][0][:3]     # a k > n refusal
_C_ABOVE = _EXACT_DATA["bundles"][1][1][0][:3]     # a c > n refusal

Z = statistics.NormalDist().inv_cdf(0.975)


def _failed(exercise_id, answer):
    results = run_checks(exercise_id, answer)
    assert exercise_state(results) == STATE_FAILED
    return [result for result in results if not result.passed]


def _said(result):
    """What a learner reads of a failed check: the call, and (for a bundle) each part's call and why."""
    return f"{result.call} {result.message}"


def _share_passed(exercise_id, answer):
    results = run_checks(exercise_id, answer)
    return Fraction(sum(result.passed for result in results), len(results))


def _share_graded(exercise_id, answer):
    """The share of the points the grader gives on the shipped variant (hidden checks, caps)."""
    return grade_score(exercise_id, answer, DEFAULT_IDENTITY) / get_exercise(exercise_id).points


# --- kp2_exact_pass_at_k: the derivation -------------------------------------------

def _in_range(n, c, k):
    if not 1 <= k <= n:
        raise ValueError(f"k={k}")
    if not 0 <= c <= n:
        raise ValueError(f"c={c}")


def _product(n, c, k, factor):
    _in_range(n, c, k)
    all_fail = Fraction(1)
    for i in range(k):
        all_fail *= factor(n, c, i)
    return 1 - all_fail


EXACT_MISTAKES = {
    "plug_in": (lambda n, c, k: (_in_range(n, c, k), 1 - (1 - Fraction(c, n)) ** k)[1],
                f"exact_pass_at_k{_FIRST}"),
    "with_replacement_product": (lambda n, c, k: _product(n, c, k, lambda n, c, i: Fraction(n - c, n)),
                                 f"exact_pass_at_k{_FIRST}"),
    "float_product": (lambda n, c, k: float(_product(n, c, k, lambda n, c, i: Fraction(n - c - i, n - i))),
                      f"exact_pass_at_k{_FIRST}"),
    "off_by_one_factor": (lambda n, c, k: _product(
        n, c, k, lambda n, c, i: Fraction(max(n - c - i - 1, 0), max(n - i - 1, 1))),
        f"exact_pass_at_k{_FIRST}"),
    "all_fail_instead_of_pass": (lambda n, c, k: 1 - _product(
        n, c, k, lambda n, c, i: Fraction(n - c - i, n - i)), f"exact_pass_at_k{_FIRST}"),
    "clips_k_above_n_to_1": (lambda n, c, k: Fraction(1) if k > n else _product(
        n, c, k, lambda n, c, i: Fraction(n - c - i, n - i)), f"exact_pass_at_k{_K_ABOVE}"),
    "no_check_of_c": (lambda n, c, k: (_ for _ in ()).throw(ValueError(f"k={k}")) if not 1 <= k <= n
                      else 1 - math.prod(Fraction(n - c - i, n - i) for i in range(k)),
                      f"exact_pass_at_k{_C_ABOVE}"),
    "message_names_nothing": (lambda n, c, k: (_ for _ in ()).throw(ValueError("bad input"))
                              if not (1 <= k <= n and 0 <= c <= n) else Fraction(0),
                              f"exact_pass_at_k{_K_ABOVE}"),
}


@pytest.mark.parametrize("mistake", list(EXACT_MISTAKES))
def test_exact_pass_at_k_checks_catch(mistake):
    answer, call = EXACT_MISTAKES[mistake]
    assert any(f"{call}:" in result.message for result in _failed("kp2_exact_pass_at_k", answer))
    assert _share_graded("kp2_exact_pass_at_k", answer) <= Fraction(1, 2)


@pytest.mark.parametrize("as_type", [Fraction, float], ids=["fraction", "float"])
def test_the_plug_in_answer_is_recognised_and_taught(as_type):
    answer = lambda n, c, k: (_in_range(n, c, k), as_type(1 - (1 - Fraction(c, n)) ** k))[1]  # noqa: E731
    [first, *_] = [r.message for r in _failed("kp2_exact_pass_at_k", answer)]
    assert first.startswith(f"exact_pass_at_k{_FIRST}: ") and "plug-in" in first
    assert "n - c - 1 of the n - 1 samples left fail" in first


def test_an_unrelated_wrong_value_is_not_called_the_plug_in():
    answer = lambda n, c, k: (_in_range(n, c, k), Fraction(1, 3))[1]  # noqa: E731
    assert not any("plug-in" in r.message for r in _failed("kp2_exact_pass_at_k", answer))


def test_an_error_naming_both_k_and_c_does_not_pass_for_naming_the_bad_one():
    def both(n, c, k):
        if not (1 <= k <= n and 0 <= c <= n):
            raise ValueError(f"need 1 <= k <= n and 0 <= c <= n, got k={k}, c={c}")
        return 1 - math.prod(Fraction(n - c - i, n - i) for i in range(k))
    failed = [r for r in _failed("kp2_exact_pass_at_k", both)]
    # The four bundles ask for the bad value by name; the fifth asks only for the refusal.
    assert len(failed) == 4 and all("which was fine" in r.message for r in failed)
    assert _share_passed("kp2_exact_pass_at_k", both) == Fraction(1, 5)


def test_exact_pass_at_k_reference_equals_counting_subsets():
    for n in range(1, 8):
        for c in range(n + 1):
            for k in range(1, n + 1):
                samples = [True] * c + [False] * (n - c)
                assert ex02._exact_pass_at_k(n, c, k) == pass_at_k_by_enumeration(samples, k)


def test_exact_pass_at_k_task_does_not_state_the_closed_form():
    exercise = get_exercise("kp2_exact_pass_at_k")
    for text in (exercise.title, exercise.statement_for(Variant(DEFAULT_IDENTITY)), exercise.hint):
        assert not re.search(r"C\(|comb|binom|choose", text), text


# --- kp2_pass_at_k_interval ----------------------------------------------------------

def _interval(counts, k, *, spread=statistics.stdev, per_mean=True, z=Z, clip=True, pooled=False):
    values = [pass_at_k(n, c, k) for n, c in counts.values()]
    if len(values) < 2:
        raise ValueError("two problems")
    estimate = sum(values) / len(values)
    if pooled:
        estimate = pass_at_k(sum(n for n, _ in counts.values()), sum(c for _, c in counts.values()), k)
    error = spread(values) / (math.sqrt(len(values)) if per_mean else 1)
    low, high = estimate - z * error, estimate + z * error
    return (estimate, error, max(0.0, low), min(1.0, high)) if clip else (estimate, error, low, high)


def _interval_of_plug_in(counts, k):
    estimate = sum(1 - (1 - c / n) ** k for n, c in counts.values()) / len(counts)
    right = _interval(counts, k)
    return (estimate, right[1], max(0.0, estimate - Z * right[1]), min(1.0, estimate + Z * right[1]))


INTERVAL_MISTAKES = {
    "population_sd": (lambda counts, k: _interval(counts, k, spread=statistics.pstdev),
                      "population standard deviation"),
    "sd_without_sqrt_m": (lambda counts, k: _interval(counts, k, per_mean=False),
                          "spread of single problems"),
    "pooled_samples": (lambda counts, k: _interval(counts, k, pooled=True), "pools every sample"),
    "plug_in_per_problem": (lambda counts, k: _interval_of_plug_in(counts, k), "plug-in"),
    "no_clipping": (lambda counts, k: _interval(counts, k, clip=False), "not clipped"),
    "z_of_a_90_percent_interval": (lambda counts, k: _interval(counts, k, z=1.6448536269514722),
                                   "z of a 90% interval"),
}


@pytest.mark.parametrize("mistake", list(INTERVAL_MISTAKES))
def test_interval_checks_catch_and_name(mistake):
    answer, explanation = INTERVAL_MISTAKES[mistake]
    messages = [result.message for result in _failed("kp2_pass_at_k_interval", answer)]
    assert any(explanation in message for message in messages), messages
    assert _share_passed("kp2_pass_at_k_interval", answer) <= Fraction(1, 2)


def test_the_lessons_z_of_1_96_passes_as_well_as_the_exact_quantile():
    # The lesson teaches 1.96; low and high are compared within INTERVAL_BOUND_TOL.
    for z in (1.96, Z):
        results = run_checks("kp2_pass_at_k_interval", lambda counts, k, z=z: _interval(counts, k, z=z))
        assert [r.message for r in results if not r.passed] == [], z


def test_the_bound_tolerance_covers_1_96_but_not_a_90_percent_z():
    # The widest shift 1.96 can cause (a standard error of 0.5) stays inside the tolerance;
    # the smallest shift a 90% z causes on the cases stays outside it.
    assert (1.96 - Z) * 0.5 < ex02.INTERVAL_BOUND_TOL
    smallest = min(pass_at_k_interval(c, k).standard_error for c, k in ex02._INTERVAL_CASES)
    assert (Z - 1.6448536269514722) * smallest > 10 * ex02.INTERVAL_BOUND_TOL


def test_paired_verdicts_do_not_change_with_z_1_96():
    for _, a, b, k in ex02._PAIRED_CASES:
        estimate, error, verdict = _paired(a, b, k)
        assert _verdict(estimate - 1.96 * error, estimate + 1.96 * error) == verdict


def test_interval_feedback_names_the_wrong_part_and_the_right_ones():
    [first, *_] = _failed("kp2_pass_at_k_interval", INTERVAL_MISTAKES["population_sd"][0])
    assert first.message.startswith("mean_pass_at_k_interval({'a': (10, 10), 'b': (10, 10), "
                                    "'c': (10, 10), 'd': (10, 0)}, 1): wrong: standard_error, "
                                    "low (estimate, high right)")
    assert "low follows from standard_error" in first.message


def test_interval_feedback_withholds_the_expected_numbers():
    answer = INTERVAL_MISTAKES["population_sd"][0]
    for result in _failed("kp2_pass_at_k_interval", answer):
        assert not re.search(r"\d\.\d", result.expected + result.message), result


def test_interval_checks_refuse_a_call_to_pass_at_k_interval():
    def shortcut(counts, k):
        result = pass_at_k_interval(counts, k)
        return result.estimate, result.standard_error, result.low, result.high

    failures = _failed("kp2_pass_at_k_interval", shortcut)
    assert len(failures) == 2 and all("calls pass_at_k_interval" in f.message for f in failures)


def test_a_library_function_bound_under_another_name_is_found():
    globals_alias = {"interval": pass_at_k_interval}
    answer = eval("lambda c, k: interval(c, k)", globals_alias)
    assert ex02.library_shortcuts(answer, [pass_at_k_interval]) == ["pass_at_k_interval"]


def test_interval_cases_clip_at_both_ends_and_pooling_changes_one():
    intervals = [pass_at_k_interval(counts, k) for counts, k in ex02._INTERVAL_CASES]
    assert any(r.high == 1.0 and r.estimate + Z * r.standard_error > 1 for r in intervals)
    assert any(r.low == 0.0 and r.estimate - Z * r.standard_error < 0 for r in intervals)
    assert any(_interval(c, k, pooled=True)[0] != r.estimate
               for (c, k), r in zip(ex02._INTERVAL_CASES, intervals))


# --- kp2_paired_difference -------------------------------------------------------------

def _verdict(low, high):
    return "A better" if low > 0 else "B better" if high < 0 else "no clear difference"


def _paired(counts_a, counts_b, k, *, by_position=False, unpaired=False, overlap_verdict=False,
            zero_excluded=False):
    if counts_a.keys() != counts_b.keys():
        raise ValueError(f"{sorted(counts_a.keys() ^ counts_b.keys())}")
    pairs = (zip(counts_a.values(), counts_b.values()) if by_position
             else ((counts_a[p], counts_b[p]) for p in counts_a))
    differences = [pass_at_k(*a, k) - pass_at_k(*b, k) for a, b in pairs]
    if len(differences) < 2:
        raise ValueError("two problems")
    estimate = sum(differences) / len(differences)
    error = statistics.stdev(differences) / math.sqrt(len(differences))
    a, b = pass_at_k_interval(counts_a, k), pass_at_k_interval(counts_b, k)
    if unpaired:
        error = math.hypot(a.standard_error, b.standard_error)
    verdict = _verdict(estimate - Z * error, estimate + Z * error)
    if zero_excluded and estimate - Z * error == 0:  # reads [0, 0] as "above 0"
        verdict = "A better"
    if overlap_verdict and a.low <= b.high and b.low <= a.high:
        verdict = "no clear difference"
    return estimate, error, verdict


PAIRED_MISTAKES = {
    "unpaired_standard_errors": (lambda a, b, k: _paired(a, b, k, unpaired=True),
                                 "separate intervals overlap"),
    "verdict_from_overlapping_intervals": (lambda a, b, k: _paired(a, b, k, overlap_verdict=True),
                                           "separate intervals overlap"),
    "pairs_by_position": (lambda a, b, k: _paired(a, b, k, by_position=True), "reverse order"),
    "b_minus_a": (lambda a, b, k: (-_paired(a, b, k)[0],) + _paired(a, b, k)[1:], "runs q1-q6"),
    "interval_touching_zero_counts_as_above": (lambda a, b, k: _paired(a, b, k, zero_excluded=True),
                                               "two identical runs"),
    "ignores_different_problem_ids": (
        lambda a, b, k: _paired(a, {p: b.get(p, a[p]) for p in a}, k), "'p4'"),
    "verdict_only": (lambda a, b, k: _paired(a, b, k)[2], "separate intervals overlap"),
}


@pytest.mark.parametrize("mistake", list(PAIRED_MISTAKES))
def test_paired_checks_catch(mistake):
    answer, call_part = PAIRED_MISTAKES[mistake]
    said = [_said(result) for result in _failed("kp2_paired_difference", answer)]
    assert any(call_part in text for text in said), said
    assert _share_passed("kp2_paired_difference", answer) <= Fraction(1, 2)


def test_paired_feedback_names_the_unpaired_standard_error():
    answer = PAIRED_MISTAKES["unpaired_standard_errors"][0]
    [first, *_] = _failed("kp2_paired_difference", answer)
    assert ": wrong: standard_error, verdict (estimate right)" in first.message
    assert "separate standard errors" in first.message and "verdict follows" in first.message


def test_paired_overlap_case_has_overlapping_separate_intervals_and_a_paired_one_above_zero():
    a, b = pass_at_k_interval(ex02._OVERLAP_A, 1), pass_at_k_interval(ex02._OVERLAP_B, 1)
    assert a.low < b.high and b.low < a.high
    assert paired_pass_at_k_difference(ex02._OVERLAP_A, ex02._OVERLAP_B, 1).low > 0


def test_paired_case_labels_do_not_name_the_verdict():
    for label, *_ in ex02._PAIRED_CASES:
        assert not any(verdict in label for verdict in ex02.VERDICTS), label


def test_paired_cases_reach_every_verdict():
    verdicts = {_paired(a, b, k)[2] for _, a, b, k in ex02._PAIRED_CASES}
    assert verdicts == set(ex02.VERDICTS)


def test_paired_checks_refuse_a_call_to_paired_pass_at_k_difference():
    def shortcut(counts_a, counts_b, k):
        result = paired_pass_at_k_difference(counts_a, counts_b, k)
        return result.estimate, result.standard_error, _verdict(result.low, result.high)

    failures = _failed("kp2_paired_difference", shortcut)
    assert len(failures) == 2 and all("calls paired_pass_at_k_difference" in f.message
                                      for f in failures)


def test_a_verdict_outside_the_three_is_named():
    answer = lambda a, b, k: (*_paired(a, b, k)[:2], "A wins")  # noqa: E731
    messages = [result.message for result in _failed("kp2_paired_difference", answer)]
    assert all("verdict must be one of 'A better', 'B better', 'no clear difference'" in m
               for m in messages)


# --- kp2_better_run and kp2_average_pass_at_k ------------------------------------------

def _ranks(a, b, *, message=None):
    for key in ("k", "temperature", "tests", "estimator"):
        if a[key] != b[key]:
            raise ValueError(message or f"{key} differs")
    if a["n"] != b["n"] and a["estimator"] == "plug-in":
        raise ValueError(message or "n differs between plug-in runs")
    better = None if a["pass_at_k"] == b["pass_at_k"] else max(
        a, b, key=lambda r: r["pass_at_k"])["model"]
    return {"better": better, "k": a["k"], "temperature": a["temperature"], "tests": a["tests"],
            "estimator": a["estimator"], "n": {a["model"]: a["n"], b["model"]: b["n"]}}


def test_better_run_ranks_unbiased_runs_whose_n_differs():
    # pass_at_k is unbiased for every n >= k: a different n changes the noise, not the target.
    assert exercise_state(run_checks("kp2_better_run", _ranks)) == "passed"


def test_the_unbiased_estimate_does_not_depend_on_n_which_is_why_n_may_differ():
    # Independent reference: the expectation of pass_at_k(n, C, k) over C ~ Binomial(n, p)
    # is 1 - (1 - p)**k for every n >= k (exact, with fractions).
    p, k = Fraction(3, 10), 3
    for n in (3, 5, 12):
        expectation = sum(Fraction(math.comb(n, c)) * p**c * (1 - p)**(n - c)
                          * ex02._exact_pass_at_k(n, c, k) for c in range(n + 1))
        assert expectation == 1 - (1 - p) ** k


def test_better_run_errors_must_name_only_the_key_that_differs():
    names_all = lambda a, b: _ranks(a, b, message="budgets differ in n, k, temperature, tests or estimator")  # noqa: E731
    failed = _failed("kp2_better_run", names_all)
    # The three refusal checks fail; the ranking checks' either-case refusals never run it.
    assert len(failed) == 3 and all("which were fine" in r.message for r in failed)
