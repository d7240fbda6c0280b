"""Exercises for knowledge point 2: pass@k (ex02).

Expected values come from independent references: :func:`itertools.combinations`,
:func:`math.comb` with exact fractions, the library's enumeration and
per-problem average (which are tested against each other). The error-bar
exercises (the interval, the paired comparison) moved to lesson 04's own
notebook, :mod:`reasoneval_mini.exercises.ex04_uncertainty`.

Checks are built so that each listed misconception earns at most half of an
exercise's points (the grader gives ``points * passed / total``): where one
check per input would let an answer that is right on most inputs collect
most points, the inputs are :func:`~reasoneval_mini.exercises.checks.bundle`-d.
``tests/exercises`` holds the misconceptions and asserts it.

Surprising: a different ``n`` is no reason to refuse a comparison of two runs
(the estimator is unbiased for every n >= k); k, temperature and tests are.

>>> reference_better_run({"model": "a", "pass_at_k": 0.6, "n": 10, "k": 1,
...                       "temperature": 0.8, "tests": "v1"},
...                      {"model": "b", "pass_at_k": 0.5, "n": 200, "k": 1,
...                       "temperature": 0.8, "tests": "v1"})
'a'
"""

import itertools
import math
from fractions import Fraction

from reasoneval_mini.course_map import exercise_notebook_for
from reasoneval_mini.estimators import mean_pass_at_k, pass_at_k, pass_at_k_by_enumeration
from reasoneval_mini.exercises.checks import (
    Exercise, bundle, case, rejects, same_set, same_value, show)

#: This exercise set's notebook, as the course map names it.
NOTEBOOK = exercise_notebook_for(__name__).notebook


def exact_pass_at_k_reference(n, c, k):
    """``1 - C(n-c, k) / C(n, k)`` as an exact Fraction (math.comb is 0 when k > n-c)."""
    return 1 - Fraction(math.comb(n - c, k), math.comb(n, k))


#: What must match before two pass@k numbers may be ranked: each changes the quantity measured.
BUDGET_KEYS = ("k", "temperature", "tests")


def reference_better_run(run_a, run_b):
    """Model with the higher pass@k, ``None`` for a tie; ValueError naming a differing budget key.

    ``n`` may differ: :func:`pass_at_k` is unbiased for every n >= k, so two
    runs with different n estimate the same number. What n changes is the
    noise of the estimate (a run with small n is less sure) and the bias of
    the plug-in ``1 - (1 - c/n)**k``, which is not used here.
    """
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


# Each ranking check holds a pair with the same n and a pair with different n, and there
# are as many as refusals: an answer that refuses different n, and one whose error names
# every key, each earn at most half.
_RANKED = (
    ((_run("alpha", 0.61), _run("beta", 0.55)), (_run("alpha", 0.61), _run("beta", 0.70, n=200))),
    ((_run("alpha", 0.40), _run("beta", 0.72)), (_run("alpha", 0.66, n=50), _run("beta", 0.58, n=10))),
    ((_run("alpha", 0.50), _run("beta", 0.50)), (_run("alpha", 0.50, n=100), _run("beta", 0.50))),
)
_NOT_COMPARABLE = (
    (_run("alpha", 0.61), _run("beta", 0.70, temperature=0.2), "temperature"),
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

# Four bundles, each of valid (n, c, k) and at least one refusal, so that a misconception
# about the value (the plug-in, a float, a factor off by one) and one about the refusals
# (clipping k > n to 1, no check of c, an error naming every value) each fail at least
# half of them. (5, 2, 2) first: the feedback tests show it. Exactly one case has n = 200.
# ((valid (n, c, k), ...), ((n, c, k, the value the error must name, values it must not name), ...))
_EXACT_BUNDLES = (
    (((5, 2, 2), (10, 3, 1)), ((5, 2, 6, "k", ("c",)),)),
    (((10, 0, 3), (5, 4, 2), (6, 6, 6)), ((5, 6, 2, "c", ("k",)),)),
    (((8, 3, 3), (200, 10, 100)), ((5, 2, 0, "k", ("c",)),)),
    (((7, 3, 4),), ((5, -1, 2, "c", ("k",)), (0, 0, 1, None, ()))),
)
_EXACT_CASES = tuple(args for valid, _ in _EXACT_BUNDLES for args in valid)
_EXACT_REJECTED = tuple(bad for _, refused in _EXACT_BUNDLES for bad in refused)


def plug_in_pass_at_k(n, c, k):
    """``1 - (1 - c/n)**k`` as an exact Fraction: k draws *with* replacement (the plug-in)."""
    return 1 - (1 - Fraction(c, n)) ** k


PLUG_IN_LESSON = ("this is the plug-in 1 - (1 - c/n)**k, k draws *with* replacement, every "
                  "draw failing with probability (n - c)/n. Here no sample is put back: after "
                  "a failing draw, n - c - 1 of the n - 1 samples left fail")


def _is_plug_in(actual, expected):
    plug_in = expected.plug_in
    return plug_in != expected.exact and (same_value(actual, plug_in) == "" or (
        isinstance(actual, float) and same_value(actual, float(plug_in)) == ""))


def _exact_mismatch(actual, expected):
    """:func:`same_value` with the exact value, and the lesson when *actual* is the plug-in."""
    why = same_value(actual, expected.exact)
    return f"{why}; {PLUG_IN_LESSON}" if why and _is_plug_in(actual, expected) else why


class _ExactExpected:
    """The exact value, shown as itself, with the plug-in kept for the lesson on it."""

    def __init__(self, n, c, k):
        self.args = (n, c, k)
        self.exact, self.plug_in = exact_pass_at_k_reference(n, c, k), plug_in_pass_at_k(n, c, k)

    def __repr__(self):
        return show(self.exact)

_EXACT = Exercise(
    id="kp2_exact_pass_at_k", notebook=NOTEBOOK, answer_name="exact_pass_at_k", points=3,
    title="Derive pass@k by drawing one sample at a time, and refuse k > n",
    statement=(
        "Of n judged samples of a problem, c pass. Draw k of them one at a time, each draw "
        "uniformly among the samples still left (no sample is put back). Complete "
        "`exact_pass_at_k(n, c, k)` by working it out yourself, not by looking up a formula: "
        "compute, as an exact `Fraction`, the probability that **all k draws fail** (one "
        "factor per draw), and return pass@k, the probability that at least one draw passes. "
        "Raise `ValueError` unless 1 <= k <= n and 0 <= c <= n, naming the bad value "
        "(`k` or `c`, and not the other one) in the message: with k > n there is nothing to draw, and clipping the "
        "answer to 1 would hide the bug. For n = 5, c = 2, k = 2 the answer is 7/10, as in "
        "the worked example."),
    checks_what=(
        "Four tests, each of a few valid (n, c, k) and at least one invalid one. The valid "
        "ones are compared exactly with an independent count of subsets, including c = 0, "
        "n - c < k (answer 1) and n = 200, k = 100; a float, the with-replacement value (the "
        "plug-in, which the feedback recognises) or a factor off by one fails. The invalid "
        "ones must raise ValueError, whose message names k or c where one of them is out of "
        "range, and not the one that is fine."),
    hint=("The first draw fails with probability (n - c)/n. If it failed, how many failing "
          "samples and how many samples are left for the second draw? Multiply as "
          "Fraction(a, b), never a / b (a float), and check the ranges first."),
    checks=tuple(
        bundle(f"exact_pass_at_k on {', '.join(map(str, valid))}, refusing "
               f"{' and '.join(str(bad[:3]) for bad in refused)}",
               [case(f"exact_pass_at_k{args}", lambda f, a=args: f(*a), _ExactExpected(*args),
                     compare=_exact_mismatch) for args in valid]
               + [rejects(f"exact_pass_at_k{(n, c, k)}", lambda f, a=(n, c, k): f(*a), ValueError,
                          mentions=name or (), avoids=avoids) for n, c, k, name, avoids in refused])
        for valid, refused in _EXACT_BUNDLES
    ),
)

_MEAN_CASES = (
    ({"easy": (20, 18), "hard": (10, 0)}, 5),
    ({"a": (10, 3), "b": (4, 1), "c": (6, 6)}, 2),
    ({"long": (50, 5), "short": (5, 4)}, 1),
)
_MEAN_REJECTED = (
    ({"a": (10, 3), "b": (3, 1)}, 5),
    ({"few": (2, 2), "many": (40, 10), "more": (30, 3)}, 3),
    ({"x": (8, 1), "y": (8, 0), "z": (1, 1)}, 2),
)

_MEAN = Exercise(
    id="kp2_average_pass_at_k", notebook=NOTEBOOK, answer_name="average_pass_at_k", points=2,
    title="Per problem first, then average",
    statement=(
        "Complete `average_pass_at_k(counts, k)`: *counts* maps a problem id to `(n, c)`. "
        "Estimate pass@k for each problem with `pass_at_k`, then return the plain mean over "
        "problems as a float. Do not pool the samples of all problems: that weights problems "
        "with more samples more. A problem with n < k must raise `ValueError`: skipping it "
        "would quietly average over a different set of problems."),
    checks_what=("Three sets of problems with different n (floats, tolerance rel 1e-9) and three "
                 "with one problem of n < k, which must raise ValueError rather than be skipped."),
    hint=("One pass_at_k(n, c, k) per problem, then the mean of those numbers (each problem "
          "counts once); pass_at_k already refuses a problem with n < k."),
    checks=tuple(
        case(f"average_pass_at_k({counts!r}, {k})", lambda f, c=counts, k=k: f(dict(c), k),
             mean_pass_at_k(counts, k))
        for counts, k in _MEAN_CASES
    ) + tuple(
        rejects(f"average_pass_at_k({counts!r}, {k})", lambda f, c=counts, k=k: f(dict(c), k),
                ValueError)
        for counts, k in _MEAN_REJECTED
    ),
)

def _label(run_a, run_b):
    """``better_run(alpha 0.61, beta 0.7 temperature=0.2)``: each run with what sets it apart."""
    def shown(run):
        differing = [f" {key}={run[key]!r}" for key in ("n",) + BUDGET_KEYS
                     if run_a[key] != run_b[key]]
        return f"{run['model']} {run['pass_at_k']}{''.join(differing)}"
    return f"better_run({shown(run_a)}, {shown(run_b)})"


_BUDGET = Exercise(
    id="kp2_better_run", notebook=NOTEBOOK, answer_name="better_run", points=3,
    title="Rank pass@k only when it measures the same thing",
    statement=(
        "A run is a dict with `model`, `pass_at_k` (the unbiased estimate, averaged over "
        "problems) and its budget: `n` (samples per problem), `k`, `temperature` and `tests` "
        "(the test-suite version). Complete `better_run(run_a, run_b)`: return the `model` "
        "with the higher pass@k (`None` for a tie); but if `k`, `temperature` or `tests` "
        "differ, raise `ValueError` naming the key that differs (and no other key): such "
        "numbers measure different things and must not be ranked. A different `n` is no "
        "reason to refuse: the estimator is unbiased for every n >= k, so both runs estimate "
        "the same pass@k; what n changes is how noisy the estimate is (the run with small n "
        "is less sure, a question for the uncertainty lesson) and how far the plug-in "
        "1 - (1 - c/n)**k would be off, which is why it is not used."),
    checks_what=("Three checks that each rank two pairs of runs, one with the same n and one "
                 "with different n (winner or tie), and three pairs that differ in "
                 "temperature, tests or k, which must raise ValueError naming that key and "
                 "no other budget key."),
    hint=("Loop over the keys k, temperature, tests first; only then compare pass_at_k. Would "
          "more samples per problem change what pass@k is, or only how well you know it?"),
    checks=tuple(
        case(f"[{_label(*first)}, {_label(*second)}]",
             lambda f, pairs=(first, second): [f(dict(a), dict(b)) for a, b in pairs],
             [reference_better_run(*first), reference_better_run(*second)])
        for first, second in _RANKED
    ) + tuple(
        rejects(_label(a, b), lambda f, a=a, b=b: f(dict(a), dict(b)), ValueError, mentions=key,
                avoids=tuple(other for other in ("n",) + BUDGET_KEYS if other != key))
        for a, b, key in _NOT_COMPARABLE
    ),
)

#: Knowledge point 2, in course order (warm-up to stretch).
EXERCISES = (_TWO_SUBSETS, _ENUMERATE, _EXACT, _MEAN, _BUDGET)

