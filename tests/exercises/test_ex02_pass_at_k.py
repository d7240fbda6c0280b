"""The ex02 checks catch the wrong answers they are written for, and say what is wrong.

Each wrong answer below is a mistake a learner makes; the test runs it through
the real checks and names the check that must fail. References are computed
here independently (enumeration of subsets).
"""

import math
import re
from fractions import Fraction

import pytest

from reasoneval_mini import pass_at_k
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

def _failed(exercise_id, answer):
    results = run_checks(exercise_id, answer, variant=Variant(DEFAULT_IDENTITY))
    assert exercise_state(results) == STATE_FAILED
    return [result for result in results if not result.passed]


def _said(result):
    """What a learner reads of a failed check: the call, and (for a bundle) each part's call and why."""
    return f"{result.call} {result.message}"


def _share_passed(exercise_id, answer):
    results = run_checks(exercise_id, answer, variant=Variant(DEFAULT_IDENTITY))
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


# The interval and the paired comparison moved to lesson 04's notebook (ex04): their tests
# are in tests/exercises/test_kp4_assessment.py.

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
    shipped = Variant(DEFAULT_IDENTITY)
    assert exercise_state(run_checks("kp2_better_run", _ranks, variant=shipped)) == "passed"


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
