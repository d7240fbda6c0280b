"""Exercises for knowledge point 4: how sure a pass@k number is (ex04, after lesson 04).

Four checked exercises, one per objective of lesson 04 that a function can show:

* ``kp4_t_interval``: the mean pass@k with its standard error and the 95% t
  interval (t with m - 1 degrees of freedom, as the lesson's §5 teaches);
* ``kp4_paired_difference``: two runs on the same problems, compared problem
  by problem, with the t interval of the differences;
* ``kp4_problems_needed``: sigma_D from a pilot paired run, and the number of
  problems 80% power takes;
* ``kp4_bonferroni``: many comparisons, each at the Bonferroni level.

Ids: the two exercises that lived in ex02 as ``kp2_pass_at_k_interval`` and
``kp2_paired_difference`` are renamed ``kp4_*``. No grading record survives
the move under the old id anyway: the grader finds an exercise by its grade id
in *its* notebook, and these now sit in ex04, with a changed contract (t, not
z). ``kp4`` names lesson 04's knowledge point; the capstone's written task
keeps its older id ``kp4_capstone_report`` because hand scores are recorded
under it.

Every input is drawn from the variant (``draw=``), the grader adds checks on
inputs of its own (``hidden=``), each check holds a valid case and a refusal
(so that a table of the public inputs, or an answer that always raises, earns
nothing on the hidden ones), and the library's interval functions are
refused while an answer runs. Expected values come from independent
computations here (``statistics.stdev``, to the last bit (:func:`_sd`), :func:`math.fsum`,
:func:`~reasoneval_mini.estimators.student_t_quantile`), which
``tests/exercises/test_kp4_assessment.py`` checks against the library and
against exact fractions.

A failed check is marked (and the exercise capped at a third) when the answer
holds a known misconception: z where t is due, two separate intervals or
their standard errors where the pairing is due, pooled samples, an
uncorrected level. The mark is chosen from the value the answer returned
(:func:`_diagnosed`), so the note names the misconception the answer holds.

Surprising: with six problems the t multiplier is 2.571, not 1.96.

>>> round(_t(0.975, 5), 3)
2.571
"""

import functools
import math
import statistics
import sys

from reasoneval_mini.course_map import exercise_notebook_for
from reasoneval_mini.estimators import pass_at_k, student_t_quantile
from reasoneval_mini.exercises.checks import (
    Exercise, bundle, case, rejects, same_set, same_value, show, with_distinction)
from reasoneval_mini.support.i18n import N_, _, join_items

#: This exercise set's notebook, as the course map names it.
NOTEBOOK = exercise_notebook_for(__name__).notebook

# Marks are ids (the grader caps on them); feedback shows them through _().
T_MARK = N_("t with m - 1 degrees of freedom, not z, for few problems")
PAIRED_MARK = N_("the paired difference, not two separate intervals")
POOLING_MARK = N_("per problem, then the mean")
CORRECTION_MARK = N_("a corrected level for many comparisons")

#: Bounds are compared within this absolute tolerance, so that a t read from a printed
#: table (2.571 for 5 df, three decimals) passes as well as the unrounded quantile: the two
#: move a bound by at most 0.0005 * standard_error, and a standard error here is below 0.5.
BOUND_TOL = 1e-3
#: A drawn case keeps every misconception at least this far from the right value.
_APART = 20 * BOUND_TOL

VERDICT_A_BETTER = "A better"
VERDICT_B_BETTER = "B better"
VERDICT_NO_CLEAR_DIFFERENCE = "no clear difference"
#: What a paired comparison can conclude.
VERDICTS = (VERDICT_A_BETTER, VERDICT_B_BETTER, VERDICT_NO_CLEAR_DIFFERENCE)

#: The library functions that would do these exercises' work (an interval, a paired
#: interval, the shared helper both call).
_INTERVAL_FUNCTIONS = ("reasoneval_mini.estimators.pass_at_k_interval",
                       "reasoneval_mini.estimators.paired_pass_at_k_difference",
                       "reasoneval_mini.estimators._interval")

_Z = statistics.NormalDist()


@functools.lru_cache(maxsize=None)
def _t(probability, df):
    return student_t_quantile(probability, df)


@functools.lru_cache(maxsize=4096)
def _pass_at_k(n, c, k):
    """:func:`~reasoneval_mini.estimators.pass_at_k` of the drawn counts, each computed once.

    Why: a draw tries cases until one fits, and each try, then each recognised
    mistake, takes pass@k of the same few (n, c, k) again: about 4,000 calls
    per student for a few hundred distinct counts. It is a pure function of
    three ints (the drawn counts are never bools, whose key would be an int's).
    """
    return pass_at_k(n, c, k)


# --- the independent computations ------------------------------------------------------

#: From 3.11 on, ``statistics.stdev`` and ``pstdev`` round the exact square root once
#: (correctly); before, they rounded the variance first, and :func:`_sd` leaves them be.
_STATISTICS_ROUNDS_ONCE = sys.version_info >= (3, 11)
#: Bits of the square root taken before its one rounding: ``statistics``' own width.
_SQRT_BITS = 2 * sys.float_info.mant_dig + 3


def _sd(values, *, population=False):
    """``statistics.stdev(values)`` (``pstdev`` with *population*), the same float, faster.

    Why: the draws take a reference standard deviation hundreds of times per
    student (rejection sampling, then each recognised mistake), and
    ``statistics`` sums exact fractions as ``Fraction`` objects, about 50 us
    for ten values. For finite floats and ints this forms the same exact
    variance with plain integers (a finite float is an integer over a power
    of two, so one power of two is a common denominator), reduces it as
    ``Fraction`` does, and rounds its square root as ``statistics`` does:
    round to odd on :data:`_SQRT_BITS` bits, then one rounding to a float.
    Anything else (other types, inf or nan, too few values, Python 3.10) goes
    to ``statistics`` itself, which also raises its own errors.
    ``tests/exercises/test_kp4_standard_deviation.py`` compares the two on
    random data and on every call the draws of many variants make.

    >>> _sd([1.5, 2.5, 2.5, 2.75, 3.25, 4.75]) == statistics.stdev([1.5, 2.5, 2.5, 2.75, 3.25, 4.75])
    True
    """
    count = len(values)
    if (not _STATISTICS_ROUNDS_ONCE or count < 2
            or not all(type(v) is float or type(v) is int for v in values)
            or not all(map(math.isfinite, values))):
        return statistics.pstdev(values) if population else statistics.stdev(values)
    ratios = [v.as_integer_ratio() for v in values]
    scale = max(d for _, d in ratios)  # every d is a power of two
    scaled = [n * (scale // d) for n, d in ratios]
    total = sum(scaled)
    # The sum of squared deviations is (count * sum(x^2) - sum(x)^2) / count, in units of scale^2.
    return _exact_sd(count * sum(a * a for a in scaled) - total * total,
                     count * (count if population else count - 1) * scale * scale)


def _exact_sd(numerator, denominator):
    """The float ``statistics`` gives for the square root of the exact variance numerator / denominator.

    Reduced as ``Fraction`` reduces it, then rounded as ``statistics`` rounds:
    to odd on :data:`_SQRT_BITS` bits, then once to a float.
    """
    common = math.gcd(numerator, denominator)
    numerator, denominator = numerator // common, denominator // common
    shift = (numerator.bit_length() - denominator.bit_length() - _SQRT_BITS) // 2
    if shift >= 0:
        return float(_sqrt_to_odd(numerator, denominator << 2 * shift) << shift)
    return _sqrt_to_odd(numerator << -2 * shift, denominator) / (1 << -shift)


def _sqrt_to_odd(numerator, denominator):
    """The integer square root of numerator / denominator, its last bit set when inexact."""
    root = math.isqrt(numerator // denominator)
    return root | (root * root * denominator != numerator)


def _mean_se(values):
    m = len(values)
    return math.fsum(values) / m, _sd(values) / math.sqrt(m)


def t_interval_reference(counts, k, *, multiplier=None):
    """``(estimate, standard_error, low, high)``: per problem, then the mean, 95% t, in [0, 1]."""
    values = [_pass_at_k(n, c, k) for n, c in counts.values()]
    estimate, se = _mean_se(values)
    q = _t(0.975, len(values) - 1) if multiplier is None else multiplier
    return estimate, se, max(0.0, estimate - q * se), min(1.0, estimate + q * se)


def _differences(counts_a, counts_b, k):
    return [_pass_at_k(*counts_a[p], k) - _pass_at_k(*counts_b[p], k) for p in counts_a]


def _verdict(estimate, se, q):
    if estimate - q * se > 0:
        return VERDICT_A_BETTER
    if estimate + q * se < 0:
        return VERDICT_B_BETTER
    return VERDICT_NO_CLEAR_DIFFERENCE


def paired_reference(counts_a, counts_b, k, *, multiplier=None):
    """``(estimate, standard_error, verdict)`` of the paired difference A - B, 95% t."""
    differences = _differences(counts_a, counts_b, k)
    estimate, se = _mean_se(differences)
    q = _t(0.975, len(differences) - 1) if multiplier is None else multiplier
    return estimate, se, _verdict(estimate, se, q)


def _z_for_power(power):
    return _Z.inv_cdf(0.975) + _Z.inv_cdf(power)


def problems_needed_reference(pilot_a, pilot_b, k, gain, *, z_sum=None):
    """``(sigma_d, problems)``: the pilot's sd of paired differences, ceil(((z + z_0.8) sigma_d / gain)**2)."""
    sigma = _sd(_differences(pilot_a, pilot_b, k))
    z_sum = _z_for_power(0.8) if z_sum is None else z_sum
    return sigma, math.ceil((z_sum * sigma / gain) ** 2)


def bonferroni_reference(comparisons, alpha, *, corrected=True, normal=False):
    """``(level, survivors)``: each comparison's confidence 1 - alpha/K, and those whose interval excludes 0."""
    return _bonferroni_from(_summaries(comparisons), alpha, corrected=corrected, normal=normal)


def bonferroni_readings(comparisons, alpha):
    """``(right, uncorrected, with_z)``: :func:`bonferroni_reference` as due, with 1 - alpha, with z.

    Why one function: the draw and the check each read a leaderboard these
    three ways; each comparison's mean and standard error are taken once here.
    """
    summaries = _summaries(comparisons)
    return (_bonferroni_from(summaries, alpha),
            _bonferroni_from(summaries, alpha, corrected=False),
            _bonferroni_from(summaries, alpha, normal=True))


def _summaries(comparisons):
    """``{name: (estimate, standard_error, m)}`` of each comparison's differences."""
    return {name: (*_mean_se(differences), len(differences))
            for name, differences in comparisons.items()}


def _bonferroni_from(summaries, alpha, *, corrected=True, normal=False):
    count = len(summaries)
    level = 1 - alpha / count if corrected else 1 - alpha
    survivors = set()
    for name, (estimate, se, m) in summaries.items():
        tail = (1 + level) / 2
        q = _Z.inv_cdf(tail) if normal else _t(tail, m - 1)
        if abs(estimate) - q * se > 0:
            survivors.add(name)
    return level, survivors


# --- comparing, diagnosing ----------------------------------------------------------------

def _number_differs(actual, expected, tolerance=None):
    if isinstance(actual, bool) or not isinstance(actual, (int, float)):
        return True
    if tolerance is None:
        return same_value(float(actual), float(expected)) != ""
    return not abs(actual - expected) <= tolerance


def _fields(names, tolerances, explain):
    """A comparison of a tuple field by field: names the wrong fields, and a known mistake."""
    def compare(actual, expected):
        if not isinstance(actual, (tuple, list)) or len(actual) != len(names):
            if isinstance(actual, (tuple, list)):
                return _("expected a tuple ({names}), got length {length}").format(
                    names=", ".join(names), length=len(actual))
            return _("expected a tuple ({names}), got {type_name}").format(
                names=", ".join(names), type_name=type(actual).__name__)
        wrong = []
        for name, got, want in zip(names, actual, expected):
            tolerance = tolerances.get(name, "exact")
            if tolerance == "exact":
                if same_value(got, want):
                    wrong.append(name)
            elif _number_differs(got, want, tolerance):
                wrong.append(name)
        if not wrong:
            return ""
        right = [name for name in names if name not in wrong]
        why = (_("wrong: {wrong} ({right} right)").format(
                   wrong=join_items(wrong), right=join_items(right)) if right else
               _("wrong: {wrong}").format(wrong=join_items(wrong)))
        lesson = explain(actual)
        return f"{why}; {lesson}" if lesson else why
    return compare


def _matches(actual, candidate, tolerances):
    """True when *actual* equals the wrong computation *candidate* on every field."""
    if not isinstance(actual, (tuple, list)) or len(actual) != len(candidate):
        return False
    for got, want, tolerance in zip(actual, candidate, tolerances):
        if tolerance == "exact":
            if isinstance(want, set):
                try:
                    if set(got) != want:
                        return False
                except TypeError:
                    return False
            elif got != want:
                return False
        elif _number_differs(got, want, tolerance):
            return False
    return True


def _diagnosed(call, cases, refusals, diagnose):
    """A bundle of *cases* and *refusals*, marked with the misconception its values show.

    *cases* are ``(label, run, expected, compare)``; *diagnose* maps the
    list of ``(index, value)`` of the wrong values the answer returned to a
    mark (see :data:`~reasoneval_mini.exercises.checks.MARKS`) or ``""``. The parts are rebuilt on every call, so that the values
    seen belong to that call only (the grader checks several students at once).
    """
    def check(answer):
        seen = []

        def record(index, run, expected, compare):
            def recorded(f):
                value = run(f)
                try:
                    wrong = bool(compare(value, expected))
                except Exception:  # an odd value is simply not diagnosed
                    wrong = False
                if wrong:  # only a wrong value is diagnosed: a right one may equal a mistake
                    seen.append((index, value))
                return value
            return recorded
        parts = [case(label, record(index, run, expected, compare), expected, compare=compare)
                 for index, (label, run, expected, compare) in enumerate(cases)] + list(refusals)
        result = bundle(call, parts)(answer)
        if result.passed or not result.attempted:
            return result
        mark = diagnose(seen)
        return with_distinction(lambda _: result, mark)(answer) if mark else result
    # How it calls the answer: its cases' runs, then the refusals' (for the grader's plan).
    check.runs = (tuple(run for _, run, _, _ in cases)
                  + tuple(run for refusal in refusals for run in (getattr(refusal, "runs", None) or ())))
    return check


# --- drawing inputs ----------------------------------------------------------------------------

def _benchmark(rng, m, k, prefix):
    """*m* problems ``{id: (n, c)}`` with unequal n >= k, pass rates near 0, 1 and between."""
    counts = {}
    for index in rng.sample(range(1, 10 * m), m):
        n = rng.choice((5, 8, 10, 12, 20))
        rate = rng.choice((0.0, 0.1, 0.5, 0.8, 1.0, rng.random()))
        c = sum(rng.random() < rate for _ in range(n))
        counts[f"{prefix}{index}"] = (max(n, k), min(c, max(n, k)))
    return counts


def _pooled(counts, k):
    return _pass_at_k(sum(n for n, _ in counts.values()), sum(c for _, c in counts.values()), k)


def _per_sample_se(counts):
    """The standard error of every sample taken as one 0/1 outcome (a recognised mistake).

    What ``_sd`` gives for *passed* ones and *total - passed* zeros, without
    the list: the exact sum of squared deviations is passed * (total - passed)
    / total, so the variance is passed * (total - passed) / (total * (total - 1)),
    the same fraction ``_sd`` forms from the list (a test holds it).
    """
    passed = sum(c for _, c in counts.values())
    total = sum(n for n, _ in counts.values())
    if not _STATISTICS_ROUNDS_ONCE or total < 2 or not 0 <= passed <= total:
        outcomes = [1.0] * passed + [0.0] * (total - passed)
        return _sd(outcomes) / math.sqrt(len(outcomes))
    return _exact_sd(passed * (total - passed), total * (total - 1)) / math.sqrt(total)


def _interval_mistakes(counts, k):
    """``[(values, mark, lesson)]``: wrong intervals the feedback recognises."""
    right = t_interval_reference(counts, k)
    estimate, se = right[:2]
    z = _Z.inv_cdf(0.975)
    pooled = _pooled(counts, k)

    def bounds(e, s, q):
        return e, s, max(0.0, e - q * s), min(1.0, e + q * s)
    q = _t(0.975, len(counts) - 1)
    return [
        (bounds(estimate, se, z), T_MARK,
         _("low/high use z = 1.96; with {count} problems the lesson's t with "
           "{df} degrees of freedom is due (s is itself uncertain)").format(
               count=len(counts), df=len(counts) - 1)),
        (bounds(estimate, se, 1.96), T_MARK,
         _("low/high use z = 1.96; with {count} problems use t with {df} "
           "degrees of freedom").format(count=len(counts), df=len(counts) - 1)),
        (bounds(pooled, se, q), POOLING_MARK,
         _("estimate pools every sample into one (n, c): estimate per problem, then average")),
        (bounds(estimate, _per_sample_se(counts), q), POOLING_MARK,
         _("standard_error counts every sample as an observation: the unit that varies is the "
           "problem, one value per problem")),
        (bounds(estimate, _sd([_pass_at_k(n, c, k) for n, c in counts.values()],
                              population=True) / math.sqrt(len(counts)), q), "",
         _("standard_error uses the population standard deviation (divides by m)")),
        ((estimate, se, estimate - q * se, estimate + q * se), "",
         _("low/high are not clipped, but pass@k cannot leave [0, 1]")),
    ]


_INTERVAL_TOLERANCES = (None, None, BOUND_TOL, BOUND_TOL)


def _interval_case_ok(counts, k):
    """True when each recognised mistake differs from the right interval on *counts*, clearly."""
    right = t_interval_reference(counts, k)
    if right[1] < 0.05:
        return False
    for values, mark, _ in _interval_mistakes(counts, k):
        if mark and max(abs(a - b) for a, b in zip(values, right)) < _APART:
            return False
    return True


def _draw_benchmark(rng, m, k, prefix):
    while True:
        counts = _benchmark(rng, m, k, prefix)
        if _interval_case_ok(counts, k):
            return counts


def _interval_refusals(rng, k):
    """Two inputs to refuse: a single problem, and a problem with n < k (not to be skipped)."""
    one = {f"x{rng.randint(1, 99)}": (rng.choice((5, 10)), rng.randint(0, 5))}
    few = {f"y{i}": (10, rng.randint(0, 10)) for i in range(1, 4)}
    few[f"y{rng.randint(1, 3)}"] = (k - 1, 0)
    return (one, k), (few, k)


def _draw_interval_set(rng, sizes):
    """``[(counts, k, refused)]``: one benchmark per size (6 at k = 1), each with a refusal."""
    items = []
    for number, m in enumerate(sizes):
        k = 1 if m == 6 else rng.choice((2, 5))
        refused = _interval_refusals(rng, max(k, 2))[number % 2]
        items.append((_draw_benchmark(rng, m, k, rng.choice("pqrs")), k, refused))
    return items


def _interval_check(counts, k, refused):
    mistakes = _interval_mistakes(counts, k)

    def explain(actual):
        for values, _, lesson in mistakes:
            if _matches(actual, values, _INTERVAL_TOLERANCES):
                return lesson
        return ""

    def diagnose(seen):
        for _, value in seen:
            for values, mark, _ in mistakes:
                if mark and _matches(value, values, _INTERVAL_TOLERANCES):
                    return mark
        return ""
    compare = _fields(("estimate", "standard_error", "low", "high"),
                      {"estimate": None, "standard_error": None, "low": BOUND_TOL,
                       "high": BOUND_TOL}, explain)
    bad, bad_k = refused
    return _diagnosed(
        _("t_interval on {count} problems at k = {k}, and a refusal").format(
            count=len(counts), k=k),
        [(f"t_interval({counts!r}, {k})", lambda f, c=counts, k=k: f(dict(c), k),
          t_interval_reference(counts, k), compare)],
        [rejects(f"t_interval({bad!r}, {bad_k})", lambda f, c=bad, k=bad_k: f(dict(c), k),
                 ValueError)],
        diagnose)


def _interval_statement(data):
    counts, k, __ = data[0]
    estimate, se, low, high = t_interval_reference(counts, k)
    return _(
        "Complete `t_interval(counts, k)`: *counts* maps a problem id to `(n, c)`. Return a "
        "tuple `(estimate, standard_error, low, high)`: the mean pass@k over problems (per "
        "problem first, with `pass_at_k`, then the plain mean), its standard error over "
        "problems, s / sqrt(m) with s the standard deviation of the per-problem estimates "
        "(dividing by m - 1), and the {confidence} interval "
        "`estimate -/+ t * standard_error` with **Student's t with m - 1 degrees of freedom** "
        "(lesson 04 §5: `student_t_quantile(0.975, m - 1)`, or a printed table to three "
        "decimals), clipped to [0, 1]. Raise `ValueError` for fewer than two problems and for "
        "a problem with n < k (never skip it). Write it yourself: `pass_at_k_interval` and "
        "`paired_pass_at_k_difference` are refused. For your first benchmark, "
        "`{counts}` at k = {k} (`counts, k, _ = task_data(\"kp4_t_interval\")[0]`), the "
        "estimate is {estimate} and the standard error {standard_error}; the interval is "
        "yours to compute.").format(counts=repr(counts), k=k, estimate=f"{estimate:.3f}",
                                    standard_error=f"{se:.3f}", confidence="95%")


_INTERVAL = Exercise(
    id="kp4_t_interval", notebook=NOTEBOOK, answer_name="t_interval", points=3,
    title=N_("How sure is a mean pass@k? The 95% t interval"),
    statement=_interval_statement,
    checks_what=N_(
        "Two tests, each a benchmark of your own (six problems at k = 1; four to eight at "
        "k = 2 or 5, unequal n) compared field by field with an independent computation "
        "(estimate and standard_error rel 1e-9, low and high within 0.001, so a t from a "
        "table passes), together with an input to refuse (one problem, or a problem with "
        "n < k). The grader adds benchmarks of its own. z = 1.96 at a handful of problems, "
        "or pooled samples, caps the exercise at a third; calling `pass_at_k_interval` "
        "earns nothing."),
    hint=N_("Per problem first: one pass_at_k per problem. statistics.stdev divides by m - 1. "
          "Which quantile does a 95% two-sided interval need, and how many degrees of freedom "
          "does s have when it is computed from m values around their own mean?"),
    draw=lambda rng: tuple(_draw_interval_set(rng, (6, rng.choice((4, 5, 7, 8))))),
    checks=lambda data: tuple(_interval_check(*item) for item in data),
    hidden=lambda rng, data: tuple(
        _interval_check(*item) for item in _draw_interval_set(rng, (6, rng.choice((4, 5)),
                                                                   rng.choice((7, 8))))),
    refuses=_INTERVAL_FUNCTIONS,
)


# --- 2. the paired comparison ---------------------------------------------------------------

def _pair(rng, m, kind):
    """Runs A and B on the same *m* problems, of the *kind* asked (see :func:`_draw_pair`)."""
    ids = [f"p{index}" for index in rng.sample(range(1, 10 * m), m)]
    n = rng.choice((8, 10, 20))
    gain = {"overlap": rng.choice((0.15, 0.2, -0.15, -0.2)), "t_not_z": rng.choice((0.1, -0.1)),
            "none": rng.choice((0.0, 0.03))}[kind]
    a, b = {}, {}
    draw = rng.random  # the draws retry hundreds of runs per student: one lookup, lists not generators
    for problem in ids:
        rate = rng.choice((0.05, 0.2, 0.5, 0.8, 0.95, rng.random()))
        rate_a = min(1.0, max(0.0, rate + gain / 2))
        rate_b = min(1.0, max(0.0, rate - gain / 2))
        a[problem] = (n, sum([draw() < rate_a for _ in range(n)]))
        b[problem] = (n, sum([draw() < rate_b for _ in range(n)]))
    if rng.random() < 0.5:  # B lists its problems in another order: pair by id
        b = dict(reversed(list(b.items())))
    return a, b


def _paired_mistakes(a, b, k):
    """``[(values, mark, lesson)]``: wrong paired comparisons the feedback recognises."""
    estimate, se, verdict = paired_reference(a, b, k)
    m = len(a)
    q = _t(0.975, m - 1)
    ia, ib = t_interval_reference(a, k), t_interval_reference(b, k)
    overlap = ia[2] <= ib[3] and ib[2] <= ia[3]
    separate = VERDICT_NO_CLEAR_DIFFERENCE if overlap else (
        VERDICT_A_BETTER if ia[0] > ib[0] else VERDICT_B_BETTER)
    unpaired = math.hypot(ia[1], ib[1])
    by_position = [_pass_at_k(*x, k) - _pass_at_k(*y, k) for x, y in zip(a.values(), b.values())]
    pooled = _pooled(a, k) - _pooled(b, k)
    return [
        ((estimate, se, separate), PAIRED_MARK,
         _("verdict reads whether the two separate intervals overlap: decide from the paired "
           "interval, since the runs share their problems")),
        ((estimate, unpaired, _verdict(estimate, unpaired, q)), PAIRED_MARK,
         _("standard_error combines the two runs' own standard errors as if their problems "
           "were unrelated: take the standard deviation of the per-problem differences")),
        ((estimate, se, _verdict(estimate, se, _Z.inv_cdf(0.975))), T_MARK,
         _("verdict uses z = 1.96; with {count} problems the lesson's t with {df} degrees of "
           "freedom is due").format(count=m, df=m - 1)),
        ((pooled, se, _verdict(pooled, se, q)), POOLING_MARK,
         _("estimate pools each run's samples: difference per problem, then the mean")),
        ((estimate, _sd(by_position) / math.sqrt(m),
          _verdict(estimate, _sd(by_position) / math.sqrt(m), q)), "",
         _("standard_error pairs the problems by their position in the dicts, not by id")),
        ((-estimate, se, _verdict(-estimate, se, q)), "",
         _("estimate is B - A: the difference is A - B")),
    ]


_PAIRED_TOLERANCES = (None, None, "exact")


def _pair_is(a, b, k, kind):
    """True when the runs are of *kind*, and every recognised mistake differs clearly."""
    estimate, se, verdict = paired_reference(a, b, k)
    if se < 0.01:
        return False
    if kind == "overlap":  # the separate intervals only then, and only for a clear verdict
        if verdict == VERDICT_NO_CLEAR_DIFFERENCE:
            return False
        ia, ib = t_interval_reference(a, k), t_interval_reference(b, k)
        return ia[2] <= ib[3] and ib[2] <= ia[3]
    z_verdict = _verdict(estimate, se, _Z.inv_cdf(0.975))
    if kind == "t_not_z":
        return verdict == VERDICT_NO_CLEAR_DIFFERENCE and z_verdict != verdict
    return z_verdict == verdict == VERDICT_NO_CLEAR_DIFFERENCE


def _draw_pair(rng, kind):
    """A pair of runs of *kind*: ``"overlap"`` (separate t intervals overlap, the paired one
    excludes 0), ``"t_not_z"`` (z would decide, t does not) or ``"none"`` (no clear difference)."""
    while True:
        m = rng.choice((6, 7, 8, 10)) if kind != "t_not_z" else rng.choice((5, 6, 7))
        k = rng.choice((1, 1, 2))
        a, b = _pair(rng, m, kind)
        if _pair_is(a, b, k, kind):
            return a, b, k


def _paired_refusals(rng):
    """Runs with different problem ids (the message names those, not the shared ones), one problem."""
    shared = [f"p{i}" for i in rng.sample(range(1, 9), 3)]
    only_a, only_b = f"a{rng.randint(1, 9)}", f"b{rng.randint(1, 9)}"
    a = {p: (10, rng.randint(0, 10)) for p in shared + [only_a]}
    b = {p: (10, rng.randint(0, 10)) for p in shared + [only_b]}
    single = f"p{rng.randint(1, 9)}"
    return (a, b, (only_a, only_b), tuple(shared)), ({single: (10, 3)}, {single: (10, 7)}, (), ())


def _draw_paired_set(rng, kinds):
    refusals = _paired_refusals(rng)
    return tuple((tuple(_draw_pair(rng, kind) for kind in group), refusals[number % 2])
                 for number, group in enumerate(kinds))


def _paired_check(cases, refused):
    tables = [_paired_mistakes(a, b, k) for a, b, k in cases]

    def explain_for(mistakes):
        def explain(actual):
            for values, _, lesson in mistakes:
                if _matches(actual, values, _PAIRED_TOLERANCES):
                    return lesson
            return ""
        return explain

    def diagnose(seen):
        for index, value in seen:
            for values, mark, _ in tables[index]:
                if mark and _matches(value, values, _PAIRED_TOLERANCES):
                    return mark
        return ""
    bad_a, bad_b, named, fine = refused
    refusal = rejects(f"paired_verdict({bad_a!r}, {bad_b!r}, 1)",
                      lambda f, a=bad_a, b=bad_b: f(dict(a), dict(b), 1), ValueError,
                      mentions=named, avoids=fine)
    return _diagnosed(
        _("paired_verdict on {count} pairs of runs, and a refusal").format(count=len(cases)),
        [(_("paired_verdict(A on {problems_a}, B on {problems_b}, {k})").format(
            problems_a=", ".join(a), problems_b=", ".join(b), k=k),
          lambda f, a=a, b=b, k=k: f(dict(a), dict(b), k), paired_reference(a, b, k),
          _fields(("estimate", "standard_error", "verdict"),
                  {"estimate": None, "standard_error": None}, explain_for(mistakes)))
         for (a, b, k), mistakes in zip(cases, tables)],
        [refusal], diagnose)


def _paired_statement(data):
    (a, b, k), *__ = data[0][0]
    return _(
        "Models A and B answered the same problems, each with its own samples: *counts_a* "
        "and *counts_b* map a problem id to `(n, c)`. Complete `paired_verdict(counts_a, "
        "counts_b, k)`: return `(estimate, standard_error, verdict)` for the **paired** "
        "difference A - B of lesson 04 §3: the estimate is the mean over problems of "
        "pass@k(A) - pass@k(B) on the same problem (look each problem up by its id), the "
        "standard error is the standard deviation of those differences (m - 1) over sqrt(m), "
        "and the verdict is {a_better} or {b_better} when the {confidence} "
        "interval `estimate -/+ t * standard_error`, t with m - 1 degrees of freedom, lies "
        "entirely above or below 0, else {no_clear_difference}. Whether the two "
        "runs' separate intervals overlap is not the test. Raise `ValueError` naming the "
        "problem ids that are not in both runs (and no other id), and for a single problem. "
        "Do not call `paired_pass_at_k_difference` or `pass_at_k_interval` (refused). Your "
        "pairs of runs are in `task_data(\"kp4_paired_difference\")`; the first has "
        "{count} problems at k = {k}.").format(
            a_better=repr(VERDICT_A_BETTER), b_better=repr(VERDICT_B_BETTER),
            no_clear_difference=repr(VERDICT_NO_CLEAR_DIFFERENCE), count=len(a), k=k,
            confidence="95%")


_PAIRED = Exercise(
    id="kp4_paired_difference", notebook=NOTEBOOK, answer_name="paired_verdict", points=4,
    title=N_("Is A really better than B? The paired difference on the same problems"),
    statement=_paired_statement,
    checks_what=N_(
        "Two tests, each of two pairs of runs of your own and an input to refuse: runs whose "
        "separate intervals overlap while the paired interval excludes 0, runs where z would "
        "decide and t does not, runs with no clear difference, B listing its problems in "
        "another order; numbers rel 1e-9, the verdict exactly. Runs with different problem "
        "ids must raise ValueError naming those ids and no other, a single problem must "
        "raise too. The grader adds pairs of its own. A verdict read from two separate "
        "intervals, unpaired standard errors or z caps the exercise at a third; calling the library's paired function earns nothing."),
    hint=N_("A hard problem is hard for both models: take the difference problem by problem, "
          "by id, then treat those m differences like the m values of the t interval."),
    draw=lambda rng: _draw_paired_set(rng, (("overlap", "t_not_z"), ("overlap", "none"))),
    checks=lambda data: tuple(_paired_check(*item) for item in data),
    hidden=lambda rng, data: tuple(_paired_check(*item) for item in _draw_paired_set(
        rng, (("overlap", "none"), ("t_not_z", "overlap"), ("overlap", "t_not_z")))),
    refuses=_INTERVAL_FUNCTIONS,
)


# --- 3. how many problems: sigma_D from a pilot ----------------------------------------------

#: The two sums of quantiles a learner may use for 95% confidence and 80% power: the
#: lesson's rounded 1.96 + 0.84, and NormalDist's unrounded 1.95996... + 0.84162...
_Z_SUMS = (1.96 + 0.84, _z_for_power(0.8))


def _pilot_mistakes(a, b, k, gain, differences=None, sigma=None):
    """``[(values, mark, lesson)]``: wrong plans the feedback recognises.

    *differences* (``_differences(a, b, k)``) and *sigma* (their ``_sd``, the
    reference's sigma_d): when the caller has them already.
    """
    differences = _differences(a, b, k) if differences is None else differences
    sigma = _sd(differences) if sigma is None else sigma
    ia, ib = t_interval_reference(a, k), t_interval_reference(b, k)
    m = len(a)
    unpaired = math.hypot(ia[1], ib[1]) * math.sqrt(m)
    population = _sd(differences, population=True)
    unpaired_lesson = _("sigma_d combines the two runs' own spreads as if their problems were "
                        "unrelated: take the standard deviation of the per-problem differences")
    return [
        # Both sums of quantiles: the rounded 2.8 may round up to another count.
        *(((unpaired, math.ceil((z_sum * unpaired / gain) ** 2)), PAIRED_MARK, unpaired_lesson)
          for z_sum in _Z_SUMS),
        ((sigma / math.sqrt(m), math.ceil((_Z_SUMS[1] * sigma / math.sqrt(m) / gain) ** 2)), "",
         _("sigma_d is the pilot's standard error: the formula needs the spread of single "
           "differences, sigma_d, and divides by sqrt(m) itself")),
        ((population, math.ceil((_Z_SUMS[1] * population / gain) ** 2)), "",
         _("sigma_d uses the population standard deviation (divides by m)")),
        ((sigma, math.ceil((_Z.inv_cdf(0.975) * sigma / gain) ** 2)), "",
         _("problems leaves out the power term: with 1.96 alone the gain is found half the "
           "time")),
    ]


def _pilot_ok(a, b, k, gain):
    differences = _differences(a, b, k)
    sigma = _sd(differences)  # problems_needed_reference's, as is its count below
    counts = {math.ceil((z * sigma / gain) ** 2) for z in _Z_SUMS}
    if sigma < 0.05 or len(counts) != 1:
        return False
    (problems,) = counts  # the reference's z sum is one of _Z_SUMS, and both give this count
    if problems < 10:
        return False
    return all(values[1] != problems
               for values, _, _ in _pilot_mistakes(a, b, k, gain, differences, sigma))


def _draw_pilot(rng):
    while True:
        m = rng.choice((20, 25, 30, 40))
        k = rng.choice((1, 1, 2))
        a, b = _pair(rng, m, "none")
        gain = rng.choice((0.02, 0.03, 0.04, 0.05, 0.08))
        if _pilot_ok(a, b, k, gain):
            return a, b, k, gain


def _pilot_refused(rng):
    ids = [f"p{i}" for i in range(1, 5)]
    a = {p: (10, rng.randint(0, 10)) for p in ids}
    b = {p: (10, rng.randint(0, 10)) for p in ids}
    return a, b, 1, rng.choice((0, -0.02, 0.0))


def _pilot_check(pilot, refused):
    a, b, k, gain = pilot
    mistakes = _pilot_mistakes(a, b, k, gain)
    tolerances = (None, "exact")

    def explain(actual):
        for values, _, lesson in mistakes:
            if _matches(actual, values, tolerances):
                return lesson
        return ""

    def diagnose(seen):
        for _, value in seen:
            for values, mark, _ in mistakes:
                if mark and _matches(value, values, tolerances):
                    return mark
        return ""
    bad_a, bad_b, bad_k, bad_gain = refused
    return _diagnosed(
        _("problems_needed on a pilot of {count} problems, gain {gain}, and a refusal").format(
            count=len(a), gain=gain),
        [(_("problems_needed(pilot A, pilot B on {count} problems, {k}, {gain})").format(
            count=len(a), k=k, gain=gain),
          lambda f: f(dict(a), dict(b), k, gain), problems_needed_reference(a, b, k, gain),
          _fields(("sigma_d", "problems"), {"sigma_d": None}, explain))],
        [rejects(f"problems_needed(..., gain={bad_gain})",
                 lambda f: f(dict(bad_a), dict(bad_b), bad_k, bad_gain), ValueError,
                 mentions="gain")],
        diagnose)


def _pilot_statement(data):
    (a, b, k, gain), __ = data[0]
    return _(
        "Before a comparison, plan its size. A pilot ran models A and B on the same few dozen "
        "problems (`{{problem id: (n, c)}}` each). Complete `problems_needed(pilot_a, pilot_b, "
        "k, gain)`: return `(sigma_d, problems)`, where *sigma_d* is the pilot's estimate of "
        "sigma_D, the sample standard deviation (m - 1) of the per-problem differences "
        "pass@k(A) - pass@k(B), and *problems* the fewest problems with which the paired "
        "comparison finds a true gain *gain* with 80% power at {confidence} confidence, lesson "
        "04 §4: "
        "m = ((1.96 + 0.84) * sigma_d / gain) ** 2, rounded up (the unrounded quantiles "
        "`NormalDist().inv_cdf(0.975) + NormalDist().inv_cdf(0.8)` give the same count on "
        "these inputs). Raise `ValueError` naming `gain` unless gain > 0. Your pilot is "
        "`task_data(\"kp4_problems_needed\")[0][0]`: {count} problems at k = {k}, "
        "hoping for a gain of {gain}.").format(count=len(a), k=k, gain=gain, confidence="95%")


_POWER = Exercise(
    id="kp4_problems_needed", notebook=NOTEBOOK, answer_name="problems_needed", points=2,
    title=N_("How many problems? sigma_D from a pilot, then the sample size"),
    statement=_pilot_statement,
    checks_what=N_(
        "Two tests, each a pilot of your own (20 to 40 problems, a gain of 0.02 to 0.08) "
        "compared with an independent computation (sigma_d rel 1e-9, problems exactly), "
        "together with a gain <= 0 that must raise ValueError naming gain. The grader adds "
        "pilots of its own. A sigma from the two runs' separate spreads caps the exercise at "
        "a third; calling the library's paired function earns nothing."),
    hint=N_("sigma_D is the spread of single per-problem differences, not a standard error: "
          "the sample-size formula divides by sqrt(m) itself. Round up: 125.4 problems is 126."),
    draw=lambda rng: tuple((_draw_pilot(rng), _pilot_refused(rng)) for _ in range(2)),
    checks=lambda data: tuple(_pilot_check(*item) for item in data),
    hidden=lambda rng, data: tuple(_pilot_check(_draw_pilot(rng), _pilot_refused(rng))
                                   for _ in range(3)),
    refuses=_INTERVAL_FUNCTIONS + ("reasoneval_mini.lessons.uncertainty.problems_needed",),
)


# --- 4. many comparisons: Bonferroni ----------------------------------------------------------

def _differences_with(rng, m, statistic):
    """*m* per-problem differences (three decimals) whose t statistic is near *statistic*."""
    noise = [round(rng.gauss(0, rng.choice((0.1, 0.2, 0.3))), 3) for _ in range(m)]
    mean, se = _mean_se(noise)
    shift = statistic * se - mean
    return [round(value + shift, 3) for value in noise]


def _band(q_low, q_high):
    return (q_low + q_high) / 2


def _draw_comparisons(rng):
    """``(comparisons, alpha)``: all pairs of 4 or 5 models, one survivor at least, one pair that
    survives only uncorrected, one that survives only with z."""
    while True:
        models = "ABCDE"[:rng.choice((4, 5))]
        names = [f"{x}-{y}" for i, x in enumerate(models) for y in models[i + 1:]]
        m = rng.choice((8, 10, 12))
        alpha = rng.choice((0.05, 0.05, 0.1))
        count = len(names)
        df = m - 1
        t_plain = _t(1 - alpha / 2, df)
        t_corrected = _t(1 - alpha / (2 * count), df)
        z_corrected = _Z.inv_cdf(1 - alpha / (2 * count))
        targets = [rng.choice((1, -1)) * value for value in (
            t_corrected + 2.0, _band(t_plain, min(z_corrected, t_corrected)),
            _band(z_corrected, t_corrected))]
        targets += [rng.uniform(-1.0, 1.0) for _ in range(count - len(targets))]
        rng.shuffle(targets)
        comparisons = {name: _differences_with(rng, m, target) for name, target in zip(names, targets)}
        right, plain, normal = (survivors for _, survivors in
                                bonferroni_readings(comparisons, alpha))
        if right and plain != right and normal != right:
            return comparisons, alpha


def _bonferroni_refused(rng):
    return {"A-B": [0.1, 0.2, 0.0]}, rng.choice((0, 1, 1.5, -0.05))


def _bonferroni_check(drawn, refused):
    comparisons, alpha = drawn
    level = 1 - alpha / len(comparisons)
    right, uncorrected, with_z = bonferroni_readings(comparisons, alpha)
    mistakes = [
        ((1 - alpha, uncorrected[1]),
         CORRECTION_MARK,
         _("level is 1 - alpha: with {count} comparisons some pair looks different "
           "by chance; Bonferroni divides alpha by their number").format(
               count=len(comparisons))),
        ((level, with_z[1]), T_MARK,
         _("survivors use z: each interval is over {count} "
           "problems, so t with m - 1 degrees of freedom is due").format(
               count=len(next(iter(comparisons.values()))))),
    ]
    tolerances = (None, "exact")

    def explain(actual):
        for values, _, lesson in mistakes:
            if _matches(actual, values, tolerances):
                return lesson
        return ""

    def diagnose(seen):
        for _, value in seen:
            for values, mark, _ in mistakes:
                if _matches(value, values, tolerances):
                    return mark
        return ""

    def compare(actual, expected):
        if isinstance(actual, (tuple, list)) and len(actual) == 2:
            actual = (actual[0], _as_set(actual[1]))
        return _fields(("level", "survivors"), {"level": None}, explain)(actual, expected)
    bad, bad_alpha = refused
    return _diagnosed(
        _("bonferroni_survivors on {count} comparisons at alpha = {alpha}, and a "
          "refusal").format(count=len(comparisons), alpha=alpha),
        [(_("bonferroni_survivors({count} comparisons, {alpha})").format(
            count=len(comparisons), alpha=alpha),
          lambda f: f({name: list(values) for name, values in comparisons.items()}, alpha),
          right, compare)],
        [rejects(f"bonferroni_survivors({bad!r}, {bad_alpha})",
                 lambda f: f(dict(bad), bad_alpha), ValueError, mentions="alpha")],
        diagnose)


def _as_set(value):
    try:
        return set(value) if not isinstance(value, (str, bytes, dict)) else value
    except TypeError:
        return value


def _bonferroni_statement(data):
    (comparisons, alpha), __ = data[0]
    return _(
        "A leaderboard compares several models in every pair, each pair on the same m "
        "problems. *comparisons* maps a pair's name (`\"A-B\"`) to its m per-problem "
        "differences pass@k(first) - pass@k(second). Complete `bonferroni_survivors("
        "comparisons, alpha)`: return `(level, survivors)`, where *level* is the confidence "
        "at which Bonferroni computes each of the K intervals, 1 - alpha / K, and "
        "*survivors* the set of pair names whose two-sided interval at that level, "
        "`mean -/+ t * standard_error` with t the (1 + level) / 2 quantile of Student's t "
        "with m - 1 degrees of freedom (`student_t_quantile`), excludes 0. Raise "
        "`ValueError` naming `alpha` unless 0 < alpha < 1. Your leaderboard is "
        "`task_data(\"kp4_bonferroni\")[0][0]`: {count} pairs at alpha = {alpha}.").format(
            count=len(comparisons), alpha=alpha)


_BONFERRONI = Exercise(
    id="kp4_bonferroni", notebook=NOTEBOOK, answer_name="bonferroni_survivors", points=3,
    title=N_("Many comparisons: which differences survive Bonferroni?"),
    statement=_bonferroni_statement,
    checks_what=N_(
        "Two tests, each a leaderboard of your own (all pairs of four or five models, eight "
        "to twelve problems) compared with an independent computation (level rel 1e-9, the "
        "survivors as a set), with a pair that survives only without the correction and one "
        "that survives only with z; together with an alpha outside (0, 1), which must raise "
        "ValueError naming alpha. The grader adds leaderboards of its own. No correction, "
        "or z in place of t, caps the exercise at a third."),
    hint=N_("K is the number of comparisons, not of models. Each interval is two-sided: its "
          "quantile leaves alpha / (2K) in each tail."),
    draw=lambda rng: tuple((_draw_comparisons(rng), _bonferroni_refused(rng)) for _ in range(2)),
    checks=lambda data: tuple(_bonferroni_check(*item) for item in data),
    hidden=lambda rng, data: tuple(_bonferroni_check(_draw_comparisons(rng),
                                                     _bonferroni_refused(rng))
                                   for _ in range(3)),
    # No library function computes a Bonferroni correction, so nothing is refused here; the
    # interval functions take counts, not differences, and would not help.
)

#: Knowledge point 4, in the order of lesson 04.
EXERCISES = (_INTERVAL, _PAIRED, _POWER, _BONFERRONI)
