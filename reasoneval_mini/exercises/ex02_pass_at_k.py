"""Exercises for knowledge point 2: pass@k (ex02).

Expected values come from independent references: :func:`itertools.combinations`,
:func:`math.comb` with exact fractions, the library's enumeration and
per-problem average (which are tested against each other), and
:func:`pass_at_k_interval` / :func:`paired_pass_at_k_difference` for the
error-bar exercises.

The two error-bar exercises withhold their expected values
(:class:`~reasoneval_mini.exercises.checks.Withheld`):
the numbers would let a learner fit the formula by trial and error. Their
comparison names the part of the answer that differs and, when the answer
matches a known wrong computation (population standard deviation, pooled
samples, no clipping, unpaired standard errors, ...), says which one.

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
import statistics
import types
from fractions import Fraction

from reasoneval_mini.course_map import exercise_notebook_for
from reasoneval_mini.estimators import (
    mean_pass_at_k, paired_pass_at_k_difference, pass_at_k, pass_at_k_by_enumeration,
    pass_at_k_interval)
from reasoneval_mini.exercises.checks import (
    Exercise, Withheld, bundle, case, rejects, same_set, same_value, show)

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

# ---------------------------------------------------------------------------
# How sure are we? The interval and the paired comparison (lesson 02, section 9).

#: The normal quantile of a 95% interval, as :func:`pass_at_k_interval` computes it.
Z_95 = statistics.NormalDist().inv_cdf(0.975)
#: low and high are compared within this absolute tolerance, so that the rounded z = 1.96
#: the lesson teaches passes as well as ``Z_95`` (1.959964...): the two move a bound by at
#: most 0.00004 * standard_error, and a standard error is at most 0.5.
INTERVAL_BOUND_TOL = 1e-4

VERDICT_A_BETTER = "A better"
VERDICT_B_BETTER = "B better"
VERDICT_NO_CLEAR_DIFFERENCE = "no clear difference"
#: What a paired comparison can conclude.
VERDICTS = (VERDICT_A_BETTER, VERDICT_B_BETTER, VERDICT_NO_CLEAR_DIFFERENCE)

INTERVAL_FIELDS = ("estimate", "standard_error", "low", "high")
PAIRED_FIELDS = ("estimate", "standard_error", "verdict")


def library_shortcuts(function, forbidden):
    """Sorted names of the *forbidden* functions that *function*'s code refers to.

    Reads the global and attribute names of its code (nested functions and
    lambdas included) and catches a forbidden function bound to a global
    under another name. A determined learner can hide a call; this catches
    the honest shortcut, and the statement says why it is not allowed.

    >>> library_shortcuts(lambda counts, k: pass_at_k_interval(counts, k), [pass_at_k_interval])
    ['pass_at_k_interval']
    """
    names, codes = set(), [getattr(function, "__code__", None)]
    while codes:
        code = codes.pop()
        if code is not None:
            names.update(code.co_names)
            codes.extend(const for const in code.co_consts if isinstance(const, types.CodeType))
    bound = getattr(function, "__globals__", {})
    return sorted({wanted.__name__ for wanted in forbidden
                   for name in names if name == wanted.__name__ or bound.get(name) is wanted})


def _by_hand(call, run, forbidden):
    """A check that the answer works without calling the *forbidden* library functions."""
    banned = " or ".join(f.__name__ for f in forbidden)

    def compare(actual, expected):
        return "" if not actual else (f"your function calls {', '.join(actual)}: compute it "
                                      "yourself (pass_at_k per problem is allowed)")
    # The answer is called first, so that an untouched stub is "not attempted".
    return case(f"{call}: computed by hand", lambda f: (run(f), library_shortcuts(f, forbidden))[1],
                Withheld([], f"no call to {banned}"), compare=compare)


def _bounds_differ(actual, expected):
    # A different reason text than same_value's: the field names carry the message.
    if isinstance(actual, bool) or not isinstance(actual, (int, float)):
        return same_value(actual, expected)
    return "" if abs(actual - expected) <= INTERVAL_BOUND_TOL else "differs"


def _field_mismatch(actual, expected, fields, depends_on, compare_field=None):
    """Compare *actual* with ``expected.value`` field by field; say what is wrong and, if known, why.

    ``expected`` is a :class:`Withheld`; of its ``mistakes``, when
    the wrong fields hold a known wrong computation's values, its explanation
    is given. A field in *depends_on* is not diagnosed while a field it is
    computed from is wrong.
    """
    if not isinstance(actual, (tuple, list)) or len(actual) != len(fields):
        got = f"length {len(actual)}" if isinstance(actual, (tuple, list)) else type(actual).__name__
        return f"expected a tuple ({', '.join(fields)}), got {got}"
    compare_field = compare_field or {}
    wrong = [name for name, got, want in zip(fields, actual, expected.value)
             if compare_field.get(name, same_value)(got, want)]
    if not wrong:
        return ""
    right = [name for name in fields if name not in wrong]
    parts = [f"wrong: {', '.join(wrong)}" + (f" ({', '.join(right)} right)" if right else "")]
    upstream = {name: [source for source in depends_on.get(name, ()) if source in wrong]
                for name in wrong}
    for names, values, explanation in expected.mistakes:
        # The mistake explains the wrong fields it touches; its other fields may be right
        # (an unclipped interval is right on the side that needed no clipping).
        explains = [name for name in names if name in wrong and not upstream[name]]
        if explains and explanation not in parts and all(
                not compare_field.get(name, same_value)(actual[fields.index(name)],
                                                        values[fields.index(name)])
                for name in explains):
            parts.append(explanation)
    followers = sorted({name for name in wrong if upstream[name]}, key=fields.index)
    if followers:
        sources = sorted({s for name in followers for s in upstream[name]}, key=fields.index)
        verb = "follow" if len(followers) > 1 else "follows"
        parts.append(f"{' and '.join(followers)} {verb} from {' and '.join(sources)}: fix that first")
    return "; ".join(parts)


def _interval(estimate, standard_error, z=Z_95, clip=True):
    low, high = estimate - z * standard_error, estimate + z * standard_error
    return (estimate, standard_error, max(0.0, low), min(1.0, high)) if clip else (
        estimate, standard_error, low, high)


def interval_mistakes(counts, k):
    """``[(fields, values, explanation)]``: wrong computations of the interval, and what they did."""
    values = [pass_at_k(n, c, k) for n, c in counts.values()]
    m, samples = len(values), sum(n for n, _ in counts.values())
    mean = math.fsum(values) / m
    standard_error = statistics.stdev(values) / math.sqrt(m)
    mistakes = [
        (("standard_error",), _interval(mean, statistics.pstdev(values) / math.sqrt(m)),
         "standard_error uses the population standard deviation (divides by m), but the m "
         "problems are a sample of all problems"),
        (("standard_error",), _interval(mean, statistics.stdev(values)),
         "standard_error is the spread of single problems: a mean of m problems varies less"),
        (("estimate",), _interval(pass_at_k(samples, sum(c for _, c in counts.values()), k),
                                  standard_error),
         "estimate pools every sample into one (n, c): estimate per problem, then average"),
        (("estimate",), _interval(math.fsum(1 - (1 - c / n) ** k for n, c in counts.values()) / m,
                                  standard_error),
         "estimate averages the plug-in 1 - (1 - c/n)**k: use pass_at_k per problem"),
        (("low", "high"), _interval(mean, standard_error, clip=False),
         "low/high are not clipped, but pass@k cannot leave [0, 1]"),
        (("low", "high"), _interval(mean, standard_error, z=statistics.NormalDist().inv_cdf(0.95)),
         "low/high use the z of a 90% interval: a 95% interval leaves 2.5% out on each side"),
    ]
    if k == 1:  # every sample taken as one observation: 0 or 1 each
        outcomes = [1.0] * sum(c for _, c in counts.values())
        outcomes += [0.0] * (samples - len(outcomes))
        mistakes.append((("standard_error",),
                         _interval(mean, statistics.stdev(outcomes) / math.sqrt(samples)),
                         "standard_error counts every sample as an observation: the unit "
                         "that varies is the problem, one value per problem"))
    return mistakes


def reference_interval(counts, k):
    """``(estimate, standard_error, low, high)`` from :func:`pass_at_k_interval` (95%)."""
    result = pass_at_k_interval(counts, k)
    return (result.estimate, result.standard_error, result.low, result.high)


def _expected_interval(counts, k):
    return Withheld(reference_interval(counts, k),
                    "withheld: pass_at_k_interval's (estimate, standard_error, low, high); "
                    "the why line names the parts that differ", interval_mistakes(counts, k))


def _interval_mismatch(actual, expected):
    return _field_mismatch(actual, expected, INTERVAL_FIELDS,
                           {"low": ("estimate", "standard_error"),
                            "high": ("estimate", "standard_error")},
                           {"low": _bounds_differ, "high": _bounds_differ})


_INTERVAL_CASES = (
    ({"a": (10, 10), "b": (10, 10), "c": (10, 10), "d": (10, 0)}, 1),   # high clipped to 1
    ({"p1": (200, 200), "p2": (10, 0), "p3": (20, 5), "p4": (10, 3), "p5": (50, 20)}, 1),
    ({"p1": (20, 18), "p2": (20, 3), "p3": (20, 0), "p4": (20, 10), "p5": (15, 2),
      "p6": (10, 10)}, 5),
    ({"a": (10, 0), "b": (10, 0), "c": (10, 0), "d": (10, 0), "e": (10, 9)}, 2),  # low clipped to 0
)
# Refusals: fewer than two problems, and a problem with n < k (not to be skipped).
_INTERVAL_REFUSED = (
    ({"only": (10, 4)}, 1), ({"a": (10, 3), "b": (3, 1)}, 5),
    ({"x": (5, 5)}, 2), ({"few": (2, 2), "many": (40, 10), "more": (30, 3)}, 3),
)
# Two bundles: each holds a clipped interval, a benchmark with k > 1 and unequal n, both
# refusals and the by-hand check, so that pooling, the plug-in, no clipping, skipping
# n < k and calling the library each fail both (or at least half).
_INTERVAL_BUNDLES = ((0, 2), (1, 3))

_INTERVAL = Exercise(
    id="kp2_pass_at_k_interval", notebook=NOTEBOOK, answer_name="mean_pass_at_k_interval",
    points=3,
    title="How sure are we? The mean pass@k with its 95% interval",
    statement=(
        "Do this after lesson 04 (uncertainty), which teaches the interval. "
        "Complete `mean_pass_at_k_interval(counts, k)`: *counts* maps a problem id to "
        "`(n, c)` as in `average_pass_at_k`. Return a tuple `(estimate, standard_error, low, "
        "high)`: the mean pass@k over problems (per problem first, with `pass_at_k`), its "
        "standard error over problems as the lesson defines it, and the 95% normal "
        "interval `estimate -/+ z * standard_error` with z = 1.96 (or, unrounded, "
        "`statistics.NormalDist().inv_cdf(0.975)` = 1.95996...: both pass), clipped to "
        "[0, 1]. Write it "
        "yourself: do not call `pass_at_k_interval`. Raise `ValueError` for fewer than two "
        "problems (one value has no spread) and for a problem with n < k. For "
        "`{\"a\": (4, 4), \"b\": (4, 2), \"c\": (4, 0), \"d\": (4, 2)}` and k = 1 you "
        "should get 0.5, a standard error of about 0.204 and about (0.100, 0.900)."),
    checks_what=(
        "Two tests, each of two benchmarks (one clipped, one with k > 1 or unequal n), "
        "compared with `pass_at_k_interval` field by field (estimate and standard_error rel "
        "1e-9, low and high within 1e-4, so z = 1.96 passes; the expected numbers are "
        "withheld and the why line names the part that differs), a single problem and a "
        "problem with n < k, which must raise ValueError, and no call to "
        "`pass_at_k_interval`."),
    hint=("statistics has two standard deviations, stdev and pstdev: which one estimates the "
          "spread of all problems from a sample of them? And a mean of m problems varies "
          "less than one problem does: by how much?"),
    checks=tuple(
        bundle(f"mean_pass_at_k_interval on benchmarks {first + 1} and {second + 1}, with "
               f"refusals and no library call",
               [case(f"mean_pass_at_k_interval({counts!r}, {k})",
                     lambda f, c=counts, k=k: f(dict(c), k), _expected_interval(counts, k),
                     compare=_interval_mismatch)
                for counts, k in (_INTERVAL_CASES[first], _INTERVAL_CASES[second])]
               + [rejects(f"mean_pass_at_k_interval({counts!r}, {k})",
                          lambda f, c=counts, k=k: f(dict(c), k), ValueError)
                  for counts, k in _INTERVAL_REFUSED[2 * number:2 * number + 2]]
               + [_by_hand("mean_pass_at_k_interval(...)",
                           lambda f, c=_INTERVAL_CASES[first]: f(dict(c[0]), c[1]),
                           (pass_at_k_interval,))])
        for number, (first, second) in enumerate(_INTERVAL_BUNDLES)
    ),
)


def _verdict(low, high):
    if low > 0:
        return VERDICT_A_BETTER
    if high < 0:
        return VERDICT_B_BETTER
    return VERDICT_NO_CLEAR_DIFFERENCE


def reference_paired_verdict(counts_a, counts_b, k):
    """``(estimate, standard_error, verdict)`` from :func:`paired_pass_at_k_difference` (95%).

    The verdict names the better run only when the whole paired interval
    lies on one side of 0.
    """
    result = paired_pass_at_k_difference(counts_a, counts_b, k)
    return result.estimate, result.standard_error, _verdict(result.low, result.high)


def paired_mistakes(counts_a, counts_b, k):
    """``[(fields, values, explanation)]``: wrong paired comparisons, and what they did."""
    estimate, standard_error, verdict = reference_paired_verdict(counts_a, counts_b, k)
    a, b = pass_at_k_interval(counts_a, k), pass_at_k_interval(counts_b, k)
    differences = [pass_at_k(*counts_a[p], k) - pass_at_k(*counts_b[p], k) for p in counts_a]
    by_position = [pass_at_k(*pair_a, k) - pass_at_k(*pair_b, k)
                   for pair_a, pair_b in zip(counts_a.values(), counts_b.values())]
    m = len(differences)
    overlap = a.low <= b.high and b.low <= a.high
    separate = VERDICT_NO_CLEAR_DIFFERENCE if overlap else (
        VERDICT_A_BETTER if a.estimate > b.estimate else VERDICT_B_BETTER)
    return [
        (("estimate",), (-estimate, standard_error, verdict),
         "estimate is B - A: the difference is A - B"),
        (("standard_error",), (estimate, math.hypot(a.standard_error, b.standard_error), verdict),
         "standard_error combines the two runs' separate standard errors as if the runs were "
         "independent: they share their problems"),
        (("standard_error",), (estimate, statistics.stdev(by_position) / math.sqrt(m), verdict),
         "standard_error pairs the problems by their position in the dicts, not by problem id"),
        (("standard_error",), (estimate, statistics.pstdev(differences) / math.sqrt(m), verdict),
         "standard_error uses the population standard deviation (divides by m)"),
        (("standard_error",), (estimate, statistics.stdev(differences), verdict),
         "standard_error is the spread of single differences: their mean varies less"),
        (("verdict",), (estimate, standard_error, separate),
         "verdict compares the two separate intervals: decide from the paired interval"),
    ]


def _expected_paired(counts_a, counts_b, k):
    return Withheld(reference_paired_verdict(counts_a, counts_b, k),
                    "withheld: the paired difference's (estimate, standard_error, verdict); "
                    "the why line names the parts that differ", paired_mistakes(counts_a, counts_b, k))


def _paired_mismatch(actual, expected):
    why = _field_mismatch(actual, expected, PAIRED_FIELDS,
                          {"verdict": ("estimate", "standard_error")})
    if why and isinstance(actual, (tuple, list)) and len(actual) == 3 and actual[2] not in VERDICTS:
        return f"{why}; verdict must be one of {', '.join(map(repr, VERDICTS))}"
    if why.endswith("(estimate, standard_error right)"):
        why += ("; A is better only if the whole paired 95% interval lies above 0, "
                "B only if it lies below 0")
    return why


def _runs(prefix, n, correct):
    return {f"{prefix}{index}": (n, c) for index, c in enumerate(correct, 1)}


# The separate intervals of A and B overlap; the paired one lies above 0.
_OVERLAP_A = _runs("p", 10, (1, 2, 4, 6, 8, 10, 3, 6))
_OVERLAP_B = _runs("p", 10, (0, 1, 3, 5, 7, 9, 2, 6))
_Q_A = _runs("q", 20, (2, 0, 9, 5, 0, 16))
_Q_B = _runs("q", 20, (4, 0, 12, 7, 1, 18))


def _reversed(runs):
    return dict(reversed(list(runs.items())))


# Labels never name the verdict: that would hand it over. Two bundles of three cases; each
# bundle holds runs whose separate intervals overlap, runs listed in different orders,
# two identical runs (the interval [0, 0] does not exclude 0), runs with different problem
# ids and a single problem, so that each listed wrong comparison fails both bundles.
_PAIRED_CASES = (
    ("runs p1-p8 whose separate intervals overlap", _OVERLAP_A, _OVERLAP_B, 1),
    ("runs q1-q6, B listing its problems in reverse order", _Q_A, _reversed(_Q_B), 5),
    ("two identical runs p1-p8", _OVERLAP_A, dict(_OVERLAP_A), 1),
    ("runs p1-p8, B listing its problems in reverse order", _OVERLAP_A, _reversed(_OVERLAP_B), 1),
    ("runs r1-r6", _runs("r", 10, (3, 7, 1, 9, 5, 4)), _runs("r", 10, (5, 6, 2, 7, 6, 2)), 1),
    ("two identical runs q1-q6", _Q_A, dict(_Q_A), 5),
)
# (counts A, counts B, the ids the message must name, the ids it must not name)
_OTHER_IDS = (
    ({"p1": (10, 3), "p2": (10, 5), "p3": (10, 1), "p4": (10, 7)},
     {"p1": (10, 2), "p2": (10, 5), "p3": (10, 0), "p5": (10, 6)}, ("p4", "p5"), ("p1", "p2", "p3")),
    ({"r1": (8, 2), "r2": (8, 6), "r3": (8, 4)}, {"r1": (8, 1), "r2": (8, 6), "r4": (8, 3)},
     ("r3", "r4"), ("r1", "r2")),
)
_SINGLE_PROBLEMS = (({"p1": (10, 3)}, {"p1": (10, 2)}), ({"r1": (8, 8)}, {"r1": (8, 0)}))
_OTHER_IDS_A, _OTHER_IDS_B = _OTHER_IDS[0][:2]


def _paired_bundle(number):
    cases = _PAIRED_CASES[3 * number:3 * number + 3]
    ids_a, ids_b, named, fine = _OTHER_IDS[number]
    single_a, single_b = _SINGLE_PROBLEMS[number]
    return bundle(
        f"paired_verdict on {'; '.join(label for label, *_ in cases)}; different ids; "
        f"one problem; no library call",
        [case(f"paired_verdict(...): {label}, k = {k}",
              lambda f, a=a, b=b, k=k: f(dict(a), dict(b), k), _expected_paired(a, b, k),
              compare=_paired_mismatch)
         for label, a, b, k in cases]
        + [rejects(f"paired_verdict({ids_a!r}, {ids_b!r}, 1)",
                   lambda f, a=ids_a, b=ids_b: f(dict(a), dict(b), 1), ValueError,
                   mentions=named, avoids=fine),
           rejects(f"paired_verdict({single_a!r}, {single_b!r}, 1)",
                   lambda f, a=single_a, b=single_b: f(dict(a), dict(b), 1), ValueError),
           _by_hand("paired_verdict(...)",
                    lambda f, a=cases[0][1], b=cases[0][2], k=cases[0][3]: f(dict(a), dict(b), k),
                    (paired_pass_at_k_difference,))])


_PAIRED = Exercise(
    id="kp2_paired_difference", notebook=NOTEBOOK, answer_name="paired_verdict", points=4,
    title="Stretch: is A really better than B? Compare on the same problems",
    statement=(
        "Do this after lesson 04 (uncertainty), which teaches the paired comparison. "
        "Models A and B answered the same problems: *counts_a* and *counts_b* each map a "
        "problem id to `(n, c)`. Complete `paired_verdict(counts_a, counts_b, k)`: return "
        "`(estimate, standard_error, verdict)` for the **paired** difference A - B of the "
        "lesson: the estimate is the mean over problems of pass@k(A) - pass@k(B), the "
        "standard error is the paired one (not the two runs' separate ones), and the verdict "
        f"is {VERDICT_A_BETTER!r} or {VERDICT_B_BETTER!r} when the 95% interval "
        "`estimate -/+ z * standard_error` (z as in `mean_pass_at_k_interval`) lies entirely above "
        f"or below 0, else {VERDICT_NO_CLEAR_DIFFERENCE!r}. Raise `ValueError` naming the "
        "problem ids that are not in both runs (and no other id), and for a single problem. "
        "Do not call `paired_pass_at_k_difference`."),
    checks_what=(
        "Two tests, each of three pairs of runs compared with `paired_pass_at_k_difference` "
        "(numbers rel 1e-9, verdict exactly; withheld, the why line names the part that "
        "differs): runs whose separate intervals overlap, runs listing the problems in "
        "different orders, two identical runs; every verdict occurs. In each, runs with "
        "different problem ids (the message must name those, and no other) and a single "
        "problem must raise ValueError, and calling `paired_pass_at_k_difference` fails."),
    hint=("A hard problem is hard for both models: what is left of its difficulty in "
          "pass@k(A) - pass@k(B) on that problem? Look each problem up by its id in both "
          "runs, never by position."),
    checks=(_paired_bundle(0), _paired_bundle(1)),
)

#: Knowledge point 2, in course order (warm-up to stretch).
EXERCISES = (_TWO_SUBSETS, _ENUMERATE, _EXACT, _MEAN, _BUDGET, _INTERVAL, _PAIRED)

