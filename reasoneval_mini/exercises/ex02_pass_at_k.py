"""Exercises for knowledge point 2: pass@k (ex02).

Expected values come from independent references: :func:`itertools.combinations`,
:func:`math.comb` with exact fractions, and the library's enumeration and
per-problem average (which are tested against each other).
"""

import itertools
import math
from fractions import Fraction

from reasoneval_mini.estimators import pass_at_k_by_enumeration
from reasoneval_mini.exercises.checks import Exercise, case, rejects, same_set
from reasoneval_mini.estimators import mean_pass_at_k
from reasoneval_mini.course_map import exercise_notebook_for

#: This exercise set's notebook, as the course map names it.
NOTEBOOK = exercise_notebook_for(__name__).notebook


def exact_pass_at_k_reference(n, c, k):
    """``1 - C(n-c, k) / C(n, k)`` as an exact Fraction (math.comb is 0 when k > n-c)."""
    return 1 - Fraction(math.comb(n - c, k), math.comb(n, k))


#: What must match before two pass@k numbers may be compared.
BUDGET_KEYS = ("n", "k", "temperature", "tests")


def reference_better_run(run_a, run_b):
    """Model with the higher pass@k, ``None`` for a tie; ValueError if budgets differ."""
    for key in BUDGET_KEYS:
        if run_a[key] != run_b[key]:
            raise ValueError(f"budgets differ in {key}: {run_a[key]!r} vs {run_b[key]!r}")
    if run_a["pass_at_k"] == run_b["pass_at_k"]:
        return None
    return max(run_a, run_b, key=lambda run: run["pass_at_k"])["model"]


def _run(model, pass_at_k_value, **budget):
    run = {"model": model, "n": 20, "k": 5, "temperature": 0.8, "tests": "v1"}
    run.update(budget, pass_at_k=pass_at_k_value)
    return run


_COMPARABLE = (
    (_run("alpha", 0.61), _run("beta", 0.55)),
    (_run("alpha", 0.40), _run("beta", 0.72)),
    (_run("alpha", 0.50), _run("beta", 0.50)),
)
_NOT_COMPARABLE = (
    (_run("alpha", 0.61), _run("beta", 0.70, temperature=0.2), "temperature"),
    (_run("alpha", 0.61), _run("beta", 0.70, n=200), "n"),
    (_run("alpha", 0.61), _run("beta", 0.70, tests="v2"), "tests"),
    (_run("alpha", 0.61), _run("beta", 0.70, k=10), "k"),
)


def _pairs_as_sets(value):
    return {frozenset(pair) for pair in value}


_TEN_PAIRS = {frozenset(pair) for pair in itertools.combinations(range(5), 2)}

_TWO_SUBSETS = Exercise(
    id="kp2_two_subsets", notebook=NOTEBOOK, answer_name="two_subsets", points=1,
    title="Warm-up: the ten 2-subsets of five completions",
    statement=(
        "Five completions are numbered 0 to 4. Complete `two_subsets()` so that it returns "
        "a list of every way to choose 2 of them, each as a tuple `(i, j)` with `i < j`. "
        "Completions 0 and 1 pass: mark in a comment which subsets hold a pass, and count "
        "them: that count over the total is pass@2."),
    checks_what="The list has C(5, 2) = 10 entries, each a sorted pair of distinct indices, no repeats, none missing.",
    hint="itertools.combinations(range(5), 2), or two nested loops with j starting at i + 1.",
    checks=(
        case("len(two_subsets())", lambda f: len(f()), math.comb(5, 2)),
        case("every entry is a tuple (i, j) with 0 <= i < j <= 4",
             lambda f: all(isinstance(p, tuple) and len(p) == 2 and 0 <= p[0] < p[1] <= 4
                           for p in f()), True),
        case("set of the pairs", lambda f: _pairs_as_sets(f()), _TEN_PAIRS, compare=same_set),
    ),
)

_ENUMERATION_CASES = (
    ([True, True, False, False, False], 2),
    ([True, True, False, False, False], 1),
    ([False, False, False, False], 2),
    ([True, False, False], 3),
    ([False, True, False, True, False, False], 3),
)

_ENUMERATE = Exercise(
    id="kp2_pass_at_k_by_subsets", notebook=NOTEBOOK, answer_name="pass_at_k_by_subsets", points=2,
    title="pass@k by counting subsets",
    statement=(
        "Complete `pass_at_k_by_subsets(outcomes, k)`: *outcomes* is a list of booleans (True = "
        "the sample passed). Go through every k-subset of the samples, count those holding at "
        "least one pass, and return the exact `Fraction` hits / subsets. For five completions "
        "with two successes and k = 2 you should get 7/10 (3 of the 10 pairs hold no pass)."),
    checks_what="Five sample pools, each compared exactly with the library's enumeration (a float 0.7 fails).",
    hint="itertools.combinations(outcomes, k) and any(subset); Fraction(hits, total).",
    checks=tuple(
        case(f"pass_at_k_by_subsets({outcomes!r}, {k})", lambda f, o=outcomes, k=k: f(list(o), k),
             pass_at_k_by_enumeration(outcomes, k))
        for outcomes, k in _ENUMERATION_CASES
    ),
)

_EXACT_CASES = ((5, 2, 2), (5, 4, 2), (10, 0, 3), (10, 3, 1), (6, 6, 6), (200, 10, 100))
_EXACT_REJECTED = ((5, 2, 6), (5, 6, 2), (5, 2, 0), (5, -1, 2), (0, 0, 1))

_EXACT = Exercise(
    id="kp2_exact_pass_at_k", notebook=NOTEBOOK, answer_name="exact_pass_at_k", points=3,
    title="Derive pass@k, and refuse k > n",
    statement=(
        "Complete `exact_pass_at_k(n, c, k)`: of the C(n, k) equally likely k-subsets, "
        "C(n - c, k) hold no passing sample; return `1 - C(n-c, k) / C(n, k)` as an exact "
        "`Fraction`. Raise `ValueError` unless 1 <= k <= n and 0 <= c <= n: with k > n there "
        "is no subset to draw, and clipping the answer to 1 would hide the bug."),
    checks_what="Six valid (n, c, k), exact, including n - c < k (answer 1); five invalid ones must raise ValueError.",
    hint="math.comb and fractions.Fraction; check the ranges first and put the bad value in the message.",
    checks=tuple(
        case(f"exact_pass_at_k{args}", lambda f, a=args: f(*a), exact_pass_at_k_reference(*args))
        for args in _EXACT_CASES
    ) + tuple(
        rejects(f"exact_pass_at_k{args}", lambda f, a=args: f(*a), ValueError)
        for args in _EXACT_REJECTED
    ),
)

_MEAN_CASES = (
    ({"easy": (20, 18), "hard": (20, 0)}, 5),
    ({"a": (10, 3), "b": (4, 1), "c": (6, 6)}, 2),
    ({"only": (5, 2)}, 2),
)

_MEAN = Exercise(
    id="kp2_average_pass_at_k", notebook=NOTEBOOK, answer_name="average_pass_at_k", points=2,
    title="Per problem first, then average",
    statement=(
        "Complete `average_pass_at_k(counts, k)`: *counts* maps a problem id to `(n, c)`. "
        "Estimate pass@k for each problem with `pass_at_k`, then return the plain mean over "
        "problems as a float. Do not pool the samples of all problems: that weights problems "
        "with more samples more. A problem with n < k must raise `ValueError`."),
    checks_what="Three sets of problems (floats, tolerance rel 1e-9) and one with n < k that must raise ValueError.",
    hint=("One pass_at_k(n, c, k) per problem, then the mean of those numbers (each problem "
          "counts once); pass_at_k already refuses a problem with n < k."),
    checks=tuple(
        case(f"average_pass_at_k({counts!r}, {k})", lambda f, c=counts, k=k: f(dict(c), k),
             mean_pass_at_k(counts, k))
        for counts, k in _MEAN_CASES
    ) + (
        rejects("average_pass_at_k({'a': (10, 3), 'b': (3, 1)}, 5)",
                lambda f: f({"a": (10, 3), "b": (3, 1)}, 5), ValueError),
    ),
)

def _label(run_a, run_b):
    differing = [f"{key}={run_b[key]!r}" for key in BUDGET_KEYS if run_a[key] != run_b[key]]
    return (f"better_run({run_a['model']} {run_a['pass_at_k']}, {run_b['model']} "
            f"{run_b['pass_at_k']}{', ' + ', '.join(differing) if differing else ''})")


_BUDGET = Exercise(
    id="kp2_better_run", notebook=NOTEBOOK, answer_name="better_run", points=3,
    title="Stretch: compare pass@k only under the same budget",
    statement=(
        "A run is a dict with `model`, `pass_at_k` and its budget: `n` (samples per "
        "problem), `k`, `temperature` and `tests` (the test-suite version). Complete "
        "`better_run(run_a, run_b)`: if the two budgets are identical, return the `model` "
        "with the higher pass@k (`None` for a tie); if any budget key differs, raise "
        "`ValueError` naming that key: such numbers measure different things and must "
        "not be ranked."),
    checks_what=("Three comparable pairs (winner or tie) and four pairs that differ in "
                 "temperature, n, tests or k, which must raise ValueError naming the key."),
    hint="Loop over the keys n, k, temperature, tests first; only then compare pass_at_k.",
    checks=tuple(
        case(_label(a, b), lambda f, a=a, b=b: f(dict(a), dict(b)), reference_better_run(a, b))
        for a, b in _COMPARABLE
    ) + tuple(
        rejects(_label(a, b), lambda f, a=a, b=b: f(dict(a), dict(b)), ValueError, mentions=key)
        for a, b, key in _NOT_COMPARABLE
    ),
)

#: Knowledge point 2, in course order (warm-up to stretch).
EXERCISES = (_TWO_SUBSETS, _ENUMERATE, _EXACT, _MEAN, _BUDGET)
