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
                "exact_pass_at_k(5, 2, 2)"),
    "with_replacement_product": (lambda n, c, k: _product(n, c, k, lambda n, c, i: Fraction(n - c, n)),
                                 "exact_pass_at_k(5, 2, 2)"),
    "float_product": (lambda n, c, k: float(_product(n, c, k, lambda n, c, i: Fraction(n - c - i, n - i))),
                      "exact_pass_at_k(5, 2, 2)"),
    "off_by_one_factor": (lambda n, c, k: _product(
        n, c, k, lambda n, c, i: Fraction(max(n - c - i - 1, 0), max(n - i - 1, 1))),
        "exact_pass_at_k(5, 2, 2)"),
    "all_fail_instead_of_pass": (lambda n, c, k: 1 - _product(
        n, c, k, lambda n, c, i: Fraction(n - c - i, n - i)), "exact_pass_at_k(5, 2, 2)"),
    "clips_k_above_n_to_1": (lambda n, c, k: Fraction(1) if k > n else _product(
        n, c, k, lambda n, c, i: Fraction(n - c - i, n - i)), "exact_pass_at_k(5, 2, 6)"),
    "no_check_of_c": (lambda n, c, k: (_ for _ in ()).throw(ValueError(f"k={k}")) if not 1 <= k <= n
                      else 1 - math.prod(Fraction(n - c - i, n - i) for i in range(k)),
                      "exact_pass_at_k(5, 6, 2)"),
    "message_names_nothing": (lambda n, c, k: (_ for _ in ()).throw(ValueError("bad input"))
                              if not (1 <= k <= n and 0 <= c <= n) else Fraction(0),
                              "exact_pass_at_k(5, 2, 6)"),
}


@pytest.mark.parametrize("mistake", list(EXACT_MISTAKES))
def test_exact_pass_at_k_checks_catch(mistake):
    answer, call = EXACT_MISTAKES[mistake]
    assert any(f"{call}:" in result.message for result in _failed("kp2_exact_pass_at_k", answer))
    assert _share_passed("kp2_exact_pass_at_k", answer) <= Fraction(1, 2)


@pytest.mark.parametrize("as_type", [Fraction, float], ids=["fraction", "float"])
def test_the_plug_in_answer_is_recognised_and_taught(as_type):
    answer = lambda n, c, k: (_in_range(n, c, k), as_type(1 - (1 - Fraction(c, n)) ** k))[1]  # noqa: E731
    [first, *_] = [r.message for r in _failed("kp2_exact_pass_at_k", answer)]
    assert first.startswith("exact_pass_at_k(5, 2, 2): ") and "plug-in" in first
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
    assert len(failed) == 4 and all("which was fine" in r.message for r in failed)
    assert _share_passed("kp2_exact_pass_at_k", both) == 0


def test_exact_pass_at_k_reference_equals_counting_subsets():
    for n in range(1, 8):
        for c in range(n + 1):
            for k in range(1, n + 1):
                samples = [True] * c + [False] * (n - c)
                assert ex02.exact_pass_at_k_reference(n, c, k) == pass_at_k_by_enumeration(samples, k)


def test_exact_pass_at_k_task_does_not_state_the_closed_form():
    exercise = get_exercise("kp2_exact_pass_at_k")
    for text in (exercise.title, exercise.statement, exercise.hint):
        assert not re.search(r"C\(|comb|binom|choose", text), text


# The interval and the paired comparison moved to lesson 04's notebook (ex04): their tests
# are in tests/exercises/test_kp4_assessment.py.

# --- kp2_better_run and kp2_average_pass_at_k ------------------------------------------

def test_better_run_ranks_runs_whose_n_differs():
    # pass_at_k is unbiased for every n >= k: a different n changes the noise, not the target.
    def ranks(a, b):
        for key in ("k", "temperature", "tests"):
            if a[key] != b[key]:
                raise ValueError(f"{key} differs")
        return None if a["pass_at_k"] == b["pass_at_k"] else max(a, b, key=lambda r: r["pass_at_k"])["model"]
    assert exercise_state(run_checks("kp2_better_run", ranks)) == "passed"


def test_the_unbiased_estimate_does_not_depend_on_n_which_is_why_n_may_differ():
    # Independent reference: the expectation of pass_at_k(n, C, k) over C ~ Binomial(n, p)
    # is 1 - (1 - p)**k for every n >= k (exact, with fractions).
    p, k = Fraction(3, 10), 3
    for n in (3, 5, 12):
        expectation = sum(Fraction(math.comb(n, c)) * p**c * (1 - p)**(n - c)
                          * ex02.exact_pass_at_k_reference(n, c, k) for c in range(n + 1))
        assert expectation == 1 - (1 - p) ** k


def test_better_run_errors_must_name_only_the_key_that_differs():
    def names_all(a, b):
        for key in ("k", "temperature", "tests"):
            if a[key] != b[key]:
                raise ValueError("budgets differ in n, k, temperature or tests")
        return None if a["pass_at_k"] == b["pass_at_k"] else max(a, b, key=lambda r: r["pass_at_k"])["model"]
    failed = _failed("kp2_better_run", names_all)
    assert len(failed) == 3 and all("which were fine" in r.message for r in failed)
