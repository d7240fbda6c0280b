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

Exercises 2.1-2.5 draw their inputs from the student's variant and add hidden checks
(see the block that opens them); a page's distinction they test (k > n refused vs
clipped, per problem then the mean) caps an answer that gets it wrong at a third.

Surprising: between two unbiased runs a different ``n`` is no reason to refuse (the
estimator is unbiased for every n >= k); between two plug-in runs it is, and the report
names each run's n either way.

>>> _rank_report({"model": "a", "pass_at_k": 0.6, "n": 10, "k": 1, "temperature": 0.8,
...               "tests": "v1", "estimator": "unbiased"},
...              {"model": "b", "pass_at_k": 0.5, "n": 200, "k": 1, "temperature": 0.8,
...               "tests": "v1", "estimator": "unbiased"})["n"]
{'a': 10, 'b': 200}
"""

import itertools
import math
import re
from fractions import Fraction

from reasoneval_mini.course_map import exercise_notebook_for
from reasoneval_mini.estimators import mean_pass_at_k, pass_at_k, pass_at_k_by_enumeration
from reasoneval_mini.exercises.checks import (
    Exercise, bundle, case, rejects, same_set, same_value, show)
from reasoneval_mini.support.i18n import N_, _, join_items, ngettext

#: This exercise set's notebook, as the course map names it.
NOTEBOOK = exercise_notebook_for(__name__).notebook


# ---------------------------------------------------------------------------
# Exercises 2.1-2.5 draw their inputs from the student's variant (issue 23): the
# public checks from ``Variant.rng``, the grader's hidden ones from ``hidden_rng``, on
# inputs never in the public ones, so a table of what check() printed answers nothing
# there. Every reference below is private and refused while an answer runs.

#: The library's functions that compute pass@k (reasoneval_mini.estimators, exported by
#: the package). The call watch matches code objects, so a lesson helper or a report
#: that calls one of them is caught through it.
PASS_AT_K_FUNCTIONS = tuple(f"reasoneval_mini.estimators.{name}" for name in (
    "pass_at_k", "pass_at_k_by_enumeration", "plugin_pass_at_k", "mean_pass_at_k",
    "pass_at_k_interval", "paired_pass_at_k_difference"))


def _exact_pass_at_k(n, c, k):
    """``1 - C(n-c, k) / C(n, k)`` as an exact Fraction (math.comb is 0 when k > n-c)."""
    return 1 - Fraction(math.comb(n - c, k), math.comb(n, k))


def _plug_in(n, c, k):
    """``1 - (1 - c/n)**k`` as an exact Fraction: k draws *with* replacement (the plug-in)."""
    return 1 - (1 - Fraction(c, n)) ** k


def _fresh(make, taken):
    """``make()`` until it gives a value not in *taken*; the value is added to *taken*."""
    while True:
        value = make()
        if value not in taken:
            taken.add(value)
            return value


# --- 2.1 two_subsets ---------------------------------------------------------------

#: The worked example's pool: five completions (lesson 02, section 2).
WORKED_N = 5


def _pairs_as_sets(value):
    return {frozenset(pair) for pair in value}


def _draw_two_subsets(rng):
    n = rng.randint(6, 9)
    return {"n": n, "passing": tuple(sorted(rng.sample(range(n), rng.randint(1, n - 2))))}


def _subset_checks(ns):
    # One bundle per n: a list of the right length but with ordered pairs, or (i, i),
    # or indices from 1, fails the whole n.
    return tuple(
        bundle(f"two_subsets({n})", [
            case(f"len(two_subsets({n}))", lambda f, n=n: len(f(n)), math.comb(n, 2)),
            case(_("every entry of two_subsets({n}) is a tuple (i, j) with 0 <= i < j <= "
                   "{last}").format(n=n, last=n - 1),
                 lambda f, n=n: all(isinstance(p, tuple) and len(p) == 2 and 0 <= p[0] < p[1] < n
                                    for p in f(n)), True),
            case(_("set of the pairs of two_subsets({n})").format(n=n),
                 lambda f, n=n: _pairs_as_sets(f(n)),
                 {frozenset(pair) for pair in itertools.combinations(range(n), 2)},
                 compare=same_set)])
        for n in ns)


def _two_subsets_statement(data):
    return _(
        "Completions are numbered 0 to n - 1. Complete `two_subsets(n)` so that it returns "
        "a list of every way to choose 2 of the n completions, each as a tuple `(i, j)` with "
        "`i < j`. The worked example's five completions give ten such pairs. In your "
        "variant there are n = {n} completions, and completions {passing} pass: mark in a "
        "comment which of the pairs of `two_subsets({n})` hold a pass, and count them: that "
        "count over the total is pass@2.").format(
            n=data["n"], passing=join_items(map(str, data["passing"])))


def _hidden_subset_ns(rng, data):
    return rng.sample([n for n in range(2, 13) if n not in (WORKED_N, data["n"])], 3)


_TWO_SUBSETS = Exercise(
    id="kp2_two_subsets", notebook=NOTEBOOK, answer_name="two_subsets", points=1,
    title=N_("Warm-up: every 2-subset of n completions"),
    statement=_two_subsets_statement,
    # A catalogue id is a fixed text: the 5 below is WORKED_N.
    checks_what=N_(
        "`two_subsets(5)` and `two_subsets(n)` for your variant's n: each list has "
        "C(n, 2) entries, each a sorted pair of distinct indices 0..n-1, no repeats, none "
        "missing. The grader adds other n of its own."),
    hint=N_("(0, 1) and (1, 0) are the same subset: how do you list each pair exactly once? "
            "Two nested loops can, if the second starts in the right place; the standard "
            "library also has a tool for it."),
    draw=_draw_two_subsets,
    checks=lambda data: _subset_checks((WORKED_N, data["n"])),
    hidden=lambda rng, data: _subset_checks(_hidden_subset_ns(rng, data)),
)

# --- 2.2 pass_at_k_by_subsets --------------------------------------------------------


def _pools(rng, count, taken):
    """*count* (outcomes, k) pools, each new to *taken*: none passing, k = n, k = 1, then any."""
    kinds = ("none pass", "k = n", "k = 1") + ("any",) * (count - 3)

    def pool(kind):
        n = rng.randint(3, 8)
        c = 0 if kind == "none pass" else rng.randint(1, n - 1)
        k = n if kind == "k = n" else 1 if kind == "k = 1" else rng.randint(2, n - 1)
        outcomes = [True] * c + [False] * (n - c)
        rng.shuffle(outcomes)
        return tuple(outcomes), k
    return tuple(_fresh(lambda kind=kind: pool(kind), taken) for kind in kinds)


def _enumeration_checks(pools):
    return tuple(
        case(f"pass_at_k_by_subsets({list(outcomes)!r}, {k})",
             lambda f, o=outcomes, k=k: f(list(o), k), pass_at_k_by_enumeration(list(outcomes), k))
        for outcomes, k in pools)


_ENUMERATE = Exercise(
    id="kp2_pass_at_k_by_subsets", notebook=NOTEBOOK, answer_name="pass_at_k_by_subsets", points=2,
    title=N_("pass@k by counting subsets"),
    statement=N_(
        "Complete `pass_at_k_by_subsets(outcomes, k)`: *outcomes* is a list of booleans (True = "
        "the sample passed). Go through every k-subset of the samples, count those holding at "
        "least one pass, and return the exact `Fraction` hits / subsets. For five completions "
        "with two successes and k = 2 you should get 7/10 (3 of the 10 pairs hold no pass). "
        "Count the subsets yourself: the library's `pass_at_k` and its relatives are refused "
        "here."),
    checks_what=N_("Five sample pools of your variant (one where nothing passes, one with "
                    "k = n, one with k = 1), each compared exactly with an enumeration of the "
                    "subsets (a float 0.7 fails); the grader adds pools of its own. A call to "
                    "the library's pass@k functions earns nothing."),
    hint=N_("List every subset of k samples (as positions, so that equal outcomes stay "
            "apart), count the subsets with at least one pass, and divide without rounding: "
            "which type keeps hits / total exact?"),
    draw=lambda rng: _pools(rng, 5, set()),
    checks=_enumeration_checks,
    hidden=lambda rng, pools: _enumeration_checks(_pools(rng, 5, set(pools))),
    refuses=PASS_AT_K_FUNCTIONS + (f"{__name__}._exact_pass_at_k", f"{__name__}._plug_in"),
)

# --- 2.3 exact_pass_at_k ---------------------------------------------------------------

#: A catalogue id (N_), shown through _(); no "; " inside: a bundle splits reasons on it.
PLUG_IN_LESSON = N_("this is the plug-in 1 - (1 - c/n)**k, k draws with replacement, every "
                    "draw failing with probability (n - c)/n. Here no sample is put back: after "
                    "a failing draw, n - c - 1 of the n - 1 samples left fail")

#: The page's distinction the k > n check tests (an id: the grader caps on it).
K_ABOVE_N = N_("k > n refused vs clipped")


def _is_plug_in(actual, expected):
    plug_in = expected.plug_in
    return plug_in != expected.exact and (same_value(actual, plug_in) == "" or (
        isinstance(actual, float) and same_value(actual, float(plug_in)) == ""))


def _exact_mismatch(actual, expected):
    """:func:`same_value` with the exact value, and the lesson when *actual* is the plug-in."""
    why = same_value(actual, expected.exact)
    return f"{why}; {_(PLUG_IN_LESSON)}" if why and _is_plug_in(actual, expected) else why


class _ExactExpected:
    """The exact value, shown as itself, with the plug-in kept for the lesson on it."""

    def __init__(self, n, c, k):
        self.args = (n, c, k)
        self.exact, self.plug_in = _exact_pass_at_k(n, c, k), _plug_in(n, c, k)

    def __repr__(self):
        return show(self.exact)


def _exact_draw(rng, taken):
    """Four bundles ``(valid, refused)`` and the k > n refusals, every (n, c, k) new to *taken*.

    Refused triples are ``(n, c, k, the value the error must name, values it must not
    name)``. Each bundle holds a refusal, and c is refused in three of them, so that an
    answer that never checks c, or whose error names every value, fails most of them.
    """
    def small():  # the plug-in differs here: 0 < c < n and k >= 2
        n = rng.randint(4, 9)
        c = rng.randint(1, n - 2)
        return n, c, rng.randint(2, n - c)

    def k_one():
        n = rng.randint(3, 12)
        return n, rng.randint(0, n), 1

    def no_pass():
        n = rng.randint(3, 12)
        return n, 0, rng.randint(1, n)

    def certain():  # fewer failing samples than draws: pass@k is 1
        n = rng.randint(3, 9)
        k = rng.randint(2, n)
        return n, rng.randint(n - k + 1, n), k

    def large():  # Fractions of hundreds of digits
        n = rng.randint(150, 250)
        return n, rng.randint(3, 15), n // 2 + rng.randint(-5, 5)

    def k_above(offset):
        n = rng.randint(2, 9)
        return n, rng.randint(0, n), n + offset

    def c_above():
        n = rng.randint(2, 9)
        return n, n + rng.randint(1, 3), rng.randint(1, n)

    def c_below():
        n = rng.randint(2, 9)
        return n, -rng.randint(1, 3), rng.randint(1, n)

    def k_below():
        n = rng.randint(2, 9)
        return n, rng.randint(0, n), -rng.randint(0, 2)

    def new(make):
        return _fresh(make, taken)

    bundles = (
        ((new(small), new(k_one)), (new(lambda: k_above(rng.randint(1, 3))) + ("k", ("c",)),)),
        ((new(no_pass), new(certain), new(small)), (new(c_above) + ("c", ("k",)),)),
        ((new(large), new(small)), (new(k_below) + ("k", ("c",)), new(c_above) + ("c", ("k",)))),
        ((new(certain), new(k_one)), (new(c_below) + ("c", ("k",)),)),
    )
    # The k > n check asks only for the ValueError: how it names the value is the bundles'
    # business, so its mark (and cap) is about refusing, not about the wording.
    return {"bundles": bundles, "k_above_n": (new(lambda: k_above(1)), new(lambda: k_above(
        rng.randint(2, 6))))}


def _exact_checks(data):
    return tuple(
        bundle(_("exact_pass_at_k on {valid}, refusing {refused}").format(
                   valid=", ".join(map(str, valid)),
                   refused=_(" and ").join(str(bad[:3]) for bad in refused)),
               [case(f"exact_pass_at_k{args}", lambda f, a=args: f(*a), _ExactExpected(*args),
                     compare=_exact_mismatch) for args in valid]
               + [rejects(f"exact_pass_at_k{(n, c, k)}", lambda f, a=(n, c, k): f(*a), ValueError,
                          mentions=name, avoids=avoids) for n, c, k, name, avoids in refused])
        for valid, refused in data["bundles"]
    ) + (bundle(_("exact_pass_at_k refuses k > n: {triples}").format(
                    triples=_(" and ").join(map(str, data["k_above_n"]))),
                [rejects(f"exact_pass_at_k{args}", lambda f, a=args: f(*a), ValueError)
                 for args in data["k_above_n"]], distinction=K_ABOVE_N),)


def _used_triples(data):
    return {bad[:3] for _, refused in data["bundles"] for bad in refused} | {
        args for valid, _ in data["bundles"] for args in valid} | set(data["k_above_n"])


_EXACT = Exercise(
    id="kp2_exact_pass_at_k", notebook=NOTEBOOK, answer_name="exact_pass_at_k", points=3,
    title=N_("Derive pass@k by drawing one sample at a time, and refuse k > n"),
    statement=N_(
        "Of n judged samples of a problem, c pass. Draw k of them one at a time, each draw "
        "uniformly among the samples still left (no sample is put back). Complete "
        "`exact_pass_at_k(n, c, k)` by working it out yourself, not by looking up a formula: "
        "compute, as an exact `Fraction`, the probability that **all k draws fail** (one "
        "factor per draw), and return pass@k, the probability that at least one draw passes. "
        "Raise `ValueError` unless 1 <= k <= n and 0 <= c <= n, naming the bad value "
        "(`k` or `c`, and not the other one) in the message: with k > n there is nothing to "
        "draw, and clipping the answer to 1 would hide the bug. For n = 5, c = 2, k = 2 the "
        "answer is 7/10, as in the worked example. The library's `pass_at_k` and its "
        "relatives are refused here; `math` and `fractions` are yours to use."),
    checks_what=N_(
        "Four tests, each of a few valid (n, c, k) of your variant and at least one invalid "
        "one, and a fifth that asks for the ValueError when k > n. The valid ones are "
        "compared exactly with an independent count of subsets, including c = 0, n - c < k "
        "(answer 1) and n in the hundreds with k about n/2; a float, the with-replacement "
        "value (the plug-in, which the feedback recognises) or a factor off by one fails. The "
        "invalid ones must raise ValueError, whose message names k or c where one of them is "
        "out of range, and not the one that is fine. k > n answered with a number (clipped "
        "to 1) caps the exercise at a third of its points. The grader adds tests of its own, "
        "on other (n, c, k)."),
    hint=N_("The first draw fails with probability (n - c)/n. If it failed, how many failing "
            "samples and how many samples are left for the second draw? Multiply as "
            "Fraction(a, b), never a / b (a float), and check the ranges first."),
    draw=lambda rng: _exact_draw(rng, set()),
    checks=_exact_checks,
    hidden=lambda rng, data: _exact_checks(_exact_draw(rng, _used_triples(data))),
    refuses=PASS_AT_K_FUNCTIONS + (f"{__name__}._exact_pass_at_k",),
)

# --- 2.4 average_pass_at_k -------------------------------------------------------------

#: The page's distinction the value checks test (an id: the grader caps on it).
PER_PROBLEM = N_("per problem, then the mean")


def _pooled(counts, k):
    return pass_at_k(sum(n for n, _ in counts.values()), sum(c for _, c in counts.values()), k)


def _weighted_by_n(counts, k):
    return (math.fsum(n * pass_at_k(n, c, k) for n, c in counts.values())
            / sum(n for n, _ in counts.values()))


def _apart(x, y):
    return abs(x - y) > 1e-6 * max(abs(x), abs(y), 1e-9)


def _benchmark(rng, k, size):
    """Problems with distinct n >= k on which pooling and weighting by n both miss the mean."""
    while True:
        ns = rng.sample(range(max(k, 2), 41), size)
        counts = {f"p{index}": (n, rng.randint(0, n)) for index, n in enumerate(ns, 1)}
        mean = mean_pass_at_k(counts, k)
        if _apart(_pooled(counts, k), mean) and _apart(_weighted_by_n(counts, k), mean):
            return counts


def _short_benchmark(rng, size):
    """*size* problems of which one, at a drawn position, has n < k (a skip would hide it)."""
    k = rng.randint(2, 6)
    items = [(f"p{index}", (n, rng.randint(0, n)))
             for index, n in enumerate(rng.sample(range(k, 41), size - 1), 1)]
    short = rng.randint(1, k - 1)
    items.insert(rng.randint(0, len(items)), (f"p{size}", (short, rng.randint(0, short))))
    return dict(items), k


def _mean_draw(rng, taken):
    def new(make):
        return _fresh(make, taken)
    valid = tuple(new(lambda: _frozen(*_valid_benchmark(rng))) for _ in range(3))
    short = tuple(new(lambda: _frozen(*_short_benchmark(rng, rng.randint(2, 4)))) for _ in range(3))
    return {"valid": tuple(_thawed(b) for b in valid), "short": tuple(_thawed(b) for b in short)}


def _valid_benchmark(rng):
    k = rng.choice((1, 2, 3, 5))
    return _benchmark(rng, k, rng.randint(2, 4)), k


def _frozen(counts, k):
    return tuple(counts.items()), k


def _thawed(frozen):
    items, k = frozen
    return dict(items), k


def _mean_checks(data):
    return tuple(
        case(f"average_pass_at_k({counts!r}, {k})", lambda f, c=counts, k=k: f(dict(c), k),
             mean_pass_at_k(counts, k), distinction=PER_PROBLEM)
        for counts, k in data["valid"]
    ) + tuple(
        rejects(f"average_pass_at_k({counts!r}, {k})", lambda f, c=counts, k=k: f(dict(c), k),
                ValueError, distinction=K_ABOVE_N)
        for counts, k in data["short"]
    )


def _used_benchmarks(data):
    return {_frozen(counts, k) for counts, k in data["valid"] + data["short"]}


_MEAN = Exercise(
    id="kp2_average_pass_at_k", notebook=NOTEBOOK, answer_name="average_pass_at_k", points=2,
    title=N_("Per problem first, then average"),
    statement=N_(
        "Complete `average_pass_at_k(counts, k)`: *counts* maps a problem id to `(n, c)`. "
        "Estimate pass@k for each problem with `pass_at_k`, then return the plain mean over "
        "problems as a float. Do not pool the samples of all problems: that weights problems "
        "with more samples more. A problem with n < k must raise `ValueError`: skipping it "
        "would quietly average over a different set of problems. `pass_at_k` is yours to "
        "use; the library's `mean_pass_at_k` (and the interval functions built on it) are "
        "refused here."),
    checks_what=N_("Three benchmarks of your variant with different n per problem (floats, "
                    "tolerance rel 1e-9), on which pooling the samples or weighting by n gives "
                    "another number, and three with one problem of n < k, which must raise "
                    "ValueError rather than be skipped; the grader adds benchmarks of its own. "
                    "Pooling, or skipping a problem with n < k, caps the exercise at a third of "
                    "its points."),
    hint=N_("One pass_at_k(n, c, k) per problem, then the mean of those numbers (each problem "
            "counts once); pass_at_k already refuses a problem with n < k."),
    draw=lambda rng: _mean_draw(rng, set()),
    checks=_mean_checks,
    hidden=lambda rng, data: _mean_checks(_mean_draw(rng, _used_benchmarks(data))),
    refuses=tuple(f"reasoneval_mini.estimators.{name}" for name in (
        "mean_pass_at_k", "pass_at_k_interval", "paired_pass_at_k_difference",
        "_per_problem_estimates")),
)

# --- 2.5 better_run ---------------------------------------------------------------------

#: What must match before two pass@k numbers may be ranked, whatever n is: each changes
#: the quantity measured (the plug-in is biased low, so it is not the unbiased number).
BUDGET_KEYS = ("k", "temperature", "tests", "estimator")
ESTIMATOR_NAMES = ("unbiased", "plug-in")
_MODELS = ("alpha", "beta", "gamma", "delta", "heron", "lynx", "orca", "otter", "puma", "wren")
_NS = (10, 20, 25, 50, 100, 200)
_KS = (1, 5, 10)
_TEMPERATURES = (0.2, 0.6, 0.8, 1.0)
_TESTS = ("v1", "v2", "v3")
#: The refusals each refusal check holds: a budget key that differs, and n between plug-ins
#: (the keys are code; the last is a catalogue id, shown through _()).
REFUSAL_KINDS = BUDGET_KEYS + (N_("n between plug-in runs"),)


def _rank_report(run_a, run_b):
    """The report of two comparable runs: the better model (None for a tie), the shared
    budget, and each run's n by model."""
    if run_a["pass_at_k"] == run_b["pass_at_k"]:
        better = None
    else:
        better = max(run_a, run_b, key=lambda run: run["pass_at_k"])["model"]
    return {"better": better, **{key: run_a[key] for key in BUDGET_KEYS},
            "n": {run_a["model"]: run_a["n"], run_b["model"]: run_b["n"]}}


def _pair(rng, *, estimator="unbiased", tie=False, n_differs=False, differ=None):
    """Two runs of two models; *differ* names the one budget key that differs.

    Where the budgets differ, the run with the larger budget (larger k, larger n between
    plug-ins, the unbiased estimator beside the biased-low plug-in) has the higher pass@k:
    it looks better, which is why such numbers are not ranked.
    """
    models = rng.sample(_MODELS, 2)
    budget = {"n": rng.choice(_NS), "k": rng.choice(_KS), "temperature": rng.choice(_TEMPERATURES),
              "tests": rng.choice(_TESTS), "estimator": estimator}
    low = round(rng.uniform(0.05, 0.85), 3)
    high = low if tie else round(low + rng.uniform(0.01, 0.14), 3)
    small, big = dict(budget), dict(budget)
    if n_differs:
        small["n"], big["n"] = sorted(rng.sample(_NS, 2))
    if differ == "k":
        small["k"], big["k"] = sorted(rng.sample(_KS, 2))
    elif differ == "estimator":
        small["estimator"], big["estimator"] = "plug-in", "unbiased"
    elif differ in ("temperature", "tests"):
        choices = _TEMPERATURES if differ == "temperature" else _TESTS
        small[differ], big[differ] = rng.sample(choices, 2)
    runs = [{"model": models[0], "pass_at_k": low, **small},
            {"model": models[1], "pass_at_k": high, **big}]
    rng.shuffle(runs)
    return tuple(runs)


def _ranked(rng, tie):
    """Three pairs to rank: same n (a tie when *tie*), two plug-ins with the same n, and
    two unbiased runs whose n differs (the page refuses, the lesson ranks: both count)."""
    return (_pair(rng, tie=tie), _pair(rng, estimator="plug-in"), _pair(rng, n_differs=True))


def _refused(rng):
    """One pair per :data:`REFUSAL_KINDS`, with the key its error must name."""
    return tuple((_pair(rng, differ=key), key) for key in BUDGET_KEYS) + (
        (_pair(rng, estimator="plug-in", n_differs=True), "n"),)


def _draw_runs(rng):
    tie = rng.randrange(3)
    return {"example": _pair(rng), "ranked": tuple(_ranked(rng, i == tie) for i in range(3)),
            "refused": tuple(_refused(rng) for _ in range(3))}


def _shown_run(run):
    return _("{model} {pass_at_k} ({estimator}, n={n}, k={k}, T={temperature}, "
             "tests {tests})").format(**run)


def _label(run_a, run_b):
    return f"better_run({_shown_run(run_a)}, {_shown_run(run_b)})"


class _Refusal:
    """A ValueError an answer raised where either reading is right; shown as the error."""

    def __init__(self, message):
        self.message = message

    def __repr__(self):
        return f"ValueError: {self.message}"


class _ReportOrRefusal:
    def __init__(self, report):
        self.report = report

    def __repr__(self):
        return _("{report}, or ValueError naming n (and no other key)").format(
            report=show(self.report))


def _names(message, key):
    # A whole word: "n" must not be found inside "cannot".
    return re.search(rf"(?<![A-Za-z0-9_]){re.escape(key)}(?![A-Za-z0-9_])", message,
                     re.IGNORECASE) is not None


def _report_or_refusal(answer, run_a, run_b):
    try:
        return answer(dict(run_a), dict(run_b))
    except ValueError as error:
        return _Refusal(str(error))


def _report_or_refusal_mismatch(actual, expected):
    if not isinstance(actual, _Refusal):
        return same_value(actual, expected.report)
    if not _names(actual.message, "n"):
        return _("the ValueError does not name n, the one budget key that differs")
    others = [key for key in BUDGET_KEYS if _names(actual.message, key)]
    if others:
        return _("the ValueError also names {keys}, which were fine").format(
            keys=", ".join(map(repr, others)))
    return ""


def _rank_check(pair):
    run_a, run_b = pair
    if run_a["n"] != run_b["n"]:
        return case(_label(*pair), lambda f, a=run_a, b=run_b: _report_or_refusal(f, a, b),
                    _ReportOrRefusal(_rank_report(*pair)), compare=_report_or_refusal_mismatch)
    return case(_label(*pair), lambda f, a=run_a, b=run_b: f(dict(a), dict(b)), _rank_report(*pair))


def _run_checks(data):
    return tuple(
        bundle(ngettext("better_run reports {count} pair of comparable runs",
                        "better_run reports {count} pairs of comparable runs",
                        len(pairs)).format(count=len(pairs)), [
            _rank_check(pair) for pair in pairs])
        for pairs in data["ranked"]
    ) + tuple(
        bundle(ngettext("better_run refuses {count} pair: {kinds}",
                        "better_run refuses {count} pairs: {kinds}", len(pairs)).format(
                            count=len(pairs), kinds=join_items(map(_, REFUSAL_KINDS))), [
            rejects(_label(*pair), lambda f, p=pair: f(dict(p[0]), dict(p[1])), ValueError,
                    mentions=key, avoids=tuple(other for other in ("n",) + BUDGET_KEYS
                                               if other != key))
            for pair, key in pairs])
        for pairs in data["refused"]
    )


def _runs_statement(data):
    run_a, run_b = data["example"]
    # One id for the whole statement: the report's braces are doubled for format().
    return _(
        "A run is a dict with `model`, `pass_at_k` (averaged over problems), `estimator` "
        "(`\"unbiased\"`, the lesson's estimator, or `\"plug-in\"`, 1 - (1 - c/n)**k) and its "
        "budget: `n` (samples per problem), `k`, `temperature` and `tests` (the test-suite "
        "version). Complete `better_run(run_a, run_b)`: return a report, the dict "
        "`{{\"better\": ..., \"k\": ..., \"temperature\": ..., \"tests\": ..., "
        "\"estimator\": ..., \"n\": {{model: n, ...}}}}` with the model of the higher pass@k "
        "(`None` for a tie), the budget both runs share, and each run's n by model, so that a "
        "reader sees how many samples stand behind each number. If `k`, `temperature`, "
        "`tests` or `estimator` differ, raise `ValueError` naming the key that differs (and "
        "no other key): a larger k, another test suite or temperature, or the unbiased number "
        "beside the plug-in (biased low) can make a run look better when the model is not. "
        "About n, the source page and lesson 02 (section 8) differ, and both readings earn "
        "full marks here. The page says not to compare pass@k across a different n (不同n); "
        "the lesson relaxes this for the unbiased estimator, whose expectation is the same "
        "for every n >= k, while n still sets how noisy each number is. So when only n "
        "differs and both runs are unbiased, either return the report (it shows both n) or "
        "raise `ValueError` naming `n`. Between two plug-in runs a different n must be "
        "refused, naming `n`: the plug-in's bias depends on n, so the run with more samples "
        "looks better. For example, in your variant `better_run(run_a, run_b)` for\n\n"
        "`run_a = {run_a}`\n\n`run_b = {run_b}`\n\nreturns `{report}`.").format(
            run_a=show(run_a), run_b=show(run_b), report=show(_rank_report(run_a, run_b)))


_BUDGET = Exercise(
    id="kp2_better_run", notebook=NOTEBOOK, answer_name="better_run", points=3,
    title=N_("Rank pass@k only when it measures the same thing, and report the budgets"),
    statement=_runs_statement,
    checks_what=N_("Three checks that each ask for the report of three pairs of your variant: "
                    "unbiased runs with the same n (one check holds a tie), plug-in runs with "
                    "the same n, and unbiased runs whose n differs (the report or a ValueError "
                    "naming n: both pass); and three checks that each hold five pairs to refuse "
                    "(k, temperature, tests or estimator differ; two plug-in runs whose n "
                    "differs), each with a ValueError naming that key and no other budget key. "
                    "The grader adds pairs of its own."),
    hint=N_("Check the keys k, temperature, tests and estimator first, then n between plug-in "
            "runs; only then compare pass_at_k. Would more samples per problem change what an "
            "unbiased pass@k estimates, or only how well you know it? And a plug-in's?"),
    draw=_draw_runs,
    checks=_run_checks,
    hidden=lambda rng, data: _run_checks(_draw_runs(rng)),
    refuses=(f"{__name__}._rank_report",),
)

#: Knowledge point 2, in course order (warm-up to stretch).
EXERCISES = (_TWO_SUBSETS, _ENUMERATE, _EXACT, _MEAN, _BUDGET)

