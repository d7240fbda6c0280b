"""Knowledge point 2: pass@k, estimated without bias, checked by brute force, with error bars.

* :func:`pass_at_k`: the unbiased estimator ``1 - C(n-c, k) / C(n, k)`` for
  one problem, correctly rounded;
* :func:`pass_at_k_by_enumeration`: the definition itself, subset by subset,
  as an exact ``Fraction`` (the check on the closed form);
* :func:`plugin_pass_at_k`: the biased plug-in ``1 - (1 - c/n)**k``, a
  different quantity;
* :func:`mean_pass_at_k`: estimate per problem, then average over problems;
* :func:`pass_at_k_interval` and :func:`paired_pass_at_k_difference`: how
  sure that mean is, and whether two models really differ.

(The module is not called ``pass_at_k.py`` because the package exports the
function :func:`pass_at_k`: a submodule of the same name would hide it.)
"""

import itertools
import math
import statistics
from dataclasses import dataclass
from fractions import Fraction

from reasoneval_mini.support.arguments import ArgumentTypeError


def _check_count(name, value):
    # type() rather than isinstance(): True is an int, but a bool count is a bug.
    if type(value) is not int:
        raise ArgumentTypeError(
            f"{name} must be an int, got {type(value).__name__}: {value!r}"
        )


def check_counts(n, correct, k):
    """Raise ``ValueError`` unless ``n >= 1``, ``0 <= correct <= n`` and ``1 <= k <= n``."""
    _check_count("n", n)
    _check_count("correct", correct)
    _check_count("k", k)
    if n < 1:
        raise ValueError(f"n must be >= 1, got n={n}")
    if not 0 <= correct <= n:
        raise ValueError(f"correct must be in 0..n={n}, got correct={correct}")
    if not 1 <= k <= n:
        raise ValueError(
            f"k must be in 1..n={n}, got k={k}: with only {n} sample{'' if n == 1 else 's'} there is "
            f"no subset of {k} to draw; generate at least {k} samples"
        )


def pass_at_k(n, correct, k):
    """Unbiased estimate of pass@k from *n* judged samples, *correct* of them passing.

    ``pass@k = 1 - C(n - c, k) / C(n, k)``: the probability that a uniformly
    chosen k-subset of the n samples holds at least one passing sample. The
    result is correctly rounded: it equals ``float`` of the exact rational.

    Raises ``ValueError`` for a count that is not exactly ``int`` (``bool``
    included), ``n < 1``, ``correct`` outside ``0..n`` or ``k`` outside ``1..n``.

    >>> pass_at_k(5, 2, 2)
    0.7
    >>> pass_at_k(5, 4, 2)    # only one failing sample: every pair holds a pass
    1.0

    Surprising: k larger than n is refused, not clipped to 1.0.

    >>> pass_at_k(5, 2, 6)
    Traceback (most recent call last):
    ...
    ValueError: k must be in 1..n=5, got k=6: ...
    """
    check_counts(n, correct, k)
    failing = n - correct
    if failing < k:
        return 1.0  # too few failing samples to fill a k-subset: every one holds a pass
    # The share of k-subsets made of failing samples only, taken from 1:
    #     1 - math.comb(failing, k) / math.comb(n, k)
    # _one_minus_binomial_ratio computes exactly this, rounded once.
    return _one_minus_binomial_ratio(failing, n, k)


# 1 - x rounds to exactly 1.0 for every 0 <= x <= 2**-54, so once the ratio
# C(f, k) / C(n, k) is known to be far below that, the correctly rounded
# answer is 1.0 without computing huge products. ln(2**-54) is about -37.4;
# the margin absorbs lgamma's rounding (about 1e-10 at n = 10**5).
_LOG_RATIO_CERTAINLY_NEGLIGIBLE = -40.0


def _log_comb(a, b):
    return math.lgamma(a + 1) - math.lgamma(b + 1) - math.lgamma(a - b + 1)


def _one_minus_binomial_ratio(failing, n, k):
    """``1 - C(failing, k) / C(n, k)`` as the correctly rounded float, for ``k <= failing <= n``.

    Why not the textbook line: ``math.comb(n, k)`` has hundreds of digits at
    n = 1000, and ``1 - a / b`` rounds twice (once in the division, once in
    the subtraction). Here the ratio is a ratio of two products of only
    ``min(c, k)`` factors (c = n - failing passing samples), because
    ``C(n-c, k) / C(n, k) = prod_{j<c} (n-k-j)/(n-j) = prod_{i<k} (n-c-i)/(n-i)``,
    and the result is one integer division, which CPython rounds correctly
    however large the operands.
    """
    correct = n - failing
    if correct == 0:
        return 0.0
    if _log_comb(failing, k) - _log_comb(n, k) < _LOG_RATIO_CERTAINLY_NEGLIGIBLE:
        return 1.0
    if correct < k:
        all_fail = math.prod(range(n - k - correct + 1, n - k + 1))
        total = math.prod(range(n - correct + 1, n + 1))
    else:
        all_fail = math.prod(range(failing - k + 1, failing + 1))
        total = math.prod(range(n - k + 1, n + 1))
    return (total - all_fail) / total


def plugin_pass_at_k(n, correct, k):
    """The plug-in value ``1 - (1 - c/n)**k``: a different, biased quantity.

    It treats ``c/n`` as the true success probability and assumes k draws
    *with* replacement. As an estimate of pass@k it is biased low (by
    Jensen's inequality), and it is not what HumanEval reports. Shown for
    comparison only; validates its inputs like :func:`pass_at_k`.

    >>> plugin_pass_at_k(5, 2, 2)
    0.64
    >>> pass_at_k(5, 2, 2) - plugin_pass_at_k(5, 2, 2) > 0
    True
    """
    check_counts(n, correct, k)
    return 1.0 - (1.0 - correct / n) ** k


def mean_pass_at_k(counts, k):
    """Estimate pass@k per problem, then average over problems (unweighted).

    *counts* maps each problem id to a pair ``(n, c)``. Every problem counts
    once, whatever its n. Pooling all samples first would weight problems
    with more samples more, and is a different (wrong) quantity.

    Raises ``ValueError`` for an empty or non-mapping *counts*, or naming the
    first problem whose counts are not a valid ``(n, c)`` pair for this k
    (``n < k`` included): no problem is silently dropped.

    >>> mean_pass_at_k({"easy": (20, 18), "hard": (20, 0)}, 5)
    0.5
    >>> round(pass_at_k(40, 18, 5), 2)    # pooled: a different number
    0.96
    >>> mean_pass_at_k({"a": (10, 3), "b": (3, 1)}, 5)
    Traceback (most recent call last):
    ...
    ValueError: problem 'b': k must be in 1..n=3, got k=5: ...
    """
    estimates = _per_problem_estimates(counts, k).values()
    return math.fsum(estimates) / len(estimates)


#: Largest number of k-subsets :func:`pass_at_k_by_enumeration` will visit.
MAX_ENUMERATED_SUBSETS = 1_000_000


def pass_at_k_by_enumeration(outcomes, k):
    """Exact fraction of k-subsets of *outcomes* that hold at least one success.

    *outcomes* is a sequence of per-sample booleans (``True`` = passed). This
    is the definition of pass@k, computed without any formula, so it serves
    as an independent check of :func:`pass_at_k`.

    Raises ``ValueError`` when *outcomes* is not a non-empty sequence of
    ``bool``, when k is not an int in ``1..len(outcomes)``, or when there
    would be more than :data:`MAX_ENUMERATED_SUBSETS` subsets (the message
    says how many).

    >>> pass_at_k_by_enumeration([True, True, False, False, False], 2)
    Fraction(7, 10)

    Surprising: the count of subsets explodes long before n looks large.

    >>> pass_at_k_by_enumeration([False] * 40, 20)
    Traceback (most recent call last):
    ...
    ValueError: refusing to enumerate C(40, 20) = 137846528820 subsets (limit 1000000); use pass_at_k
    """
    samples = _checked_outcomes(outcomes)
    n = len(samples)
    if type(k) is not int or not 1 <= k <= n:
        raise ValueError(f"k must be an int in 1..n={n}, got {k!r}")
    total = math.comb(n, k)
    if total > MAX_ENUMERATED_SUBSETS:
        raise ValueError(
            f"refusing to enumerate C({n}, {k}) = {total} subsets "
            f"(limit {MAX_ENUMERATED_SUBSETS}); use pass_at_k"
        )
    hits = sum(any(subset) for subset in itertools.combinations(samples, k))
    return Fraction(hits, total)


def _checked_outcomes(outcomes):
    """*outcomes* as a list, or the ``ValueError`` :func:`pass_at_k_by_enumeration` documents."""
    if isinstance(outcomes, (str, bytes)) or not hasattr(outcomes, "__len__"):
        raise ValueError(f"outcomes must be a sequence of bool, got {outcomes!r}")
    samples = list(outcomes)
    if not samples:
        raise ValueError("outcomes is empty: there are no samples to choose from")
    for index, outcome in enumerate(samples):
        if type(outcome) is not bool:
            raise ValueError(
                f"outcomes[{index}] must be a bool, got {type(outcome).__name__}: {outcome!r}"
            )
    return samples


def _per_problem_estimates(counts, k):
    """``{problem: pass_at_k(n, c, k)}`` for a mapping of problem id to ``(n, c)``, validated."""
    if not hasattr(counts, "items"):
        raise ArgumentTypeError(
            f"counts must map problem id to (n, c), got {type(counts).__name__}"
        )
    if not counts:
        raise ValueError("counts is empty: there is no problem to average over")
    estimates = {}
    for problem, pair in counts.items():
        try:
            n, correct = pair
            estimates[problem] = pass_at_k(n, correct, k)
        except (TypeError, ValueError) as error:
            if not isinstance(pair, (tuple, list)) or len(pair) != 2:
                reason = f"expected a pair (n, c), got {pair!r}"
            else:
                reason = str(error)
            raise ValueError(f"problem {problem!r}: {reason}") from None
    return estimates


#: The two ways to turn a standard error into an interval: the normal quantile
#: ``z``, or Student's t quantile with ``m - 1`` degrees of freedom (wider for
#: few problems, the same as ``z`` to two decimals from about 100 problems on).
DISTRIBUTIONS = ("normal", "t")


@dataclass(frozen=True)
class PassAtKInterval:
    """A mean over problems with its standard error and a confidence interval.

    ``estimate`` is the mean over the ``problems`` problems; ``standard_error``
    the sample standard deviation (``m - 1`` in the denominator) of the
    per-problem values divided by ``sqrt(m)``; ``multiplier`` the quantile of
    ``distribution`` for ``confidence`` (``z``, or t with ``m - 1`` degrees of
    freedom); ``low``/``high`` are ``estimate -/+ multiplier * standard_error``,
    clipped to the range the quantity can take (``clipped`` says whether
    that happened).
    """

    estimate: float
    standard_error: float
    low: float
    high: float
    problems: int
    confidence: float
    distribution: str = "normal"
    multiplier: float = None

    @property
    def clipped(self):
        """True when ``low`` or ``high`` was moved to the edge of the range."""
        if self.multiplier is None:
            return False
        margin = self.multiplier * self.standard_error
        return self.low > self.estimate - margin or self.high < self.estimate + margin


def _check_confidence(confidence):
    if isinstance(confidence, bool) or not isinstance(confidence, (int, float)):
        raise ArgumentTypeError(
            f"confidence must be a number in (0, 1), got {confidence!r} "
            f"({type(confidence).__name__})")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), e.g. 0.95, got {confidence!r}")


def _check_distribution(distribution):
    if distribution not in DISTRIBUTIONS:
        raise ValueError(f"distribution must be one of {', '.join(map(repr, DISTRIBUTIONS))}, "
                         f"got {distribution!r}")


def _interval(values, confidence, distribution, lowest, highest):
    """Mean, standard error and the clipped interval of *values* (at least two)."""
    _check_confidence(confidence)
    _check_distribution(distribution)
    m = len(values)
    if m < 2:
        raise ValueError(
            f"a standard error over problems needs at least two problems, got {m}")
    estimate = math.fsum(values) / m
    standard_error = statistics.stdev(values) / math.sqrt(m)
    tail = (1 + confidence) / 2
    if distribution == "t":
        multiplier = student_t_quantile(tail, m - 1)
    else:
        multiplier = statistics.NormalDist().inv_cdf(tail)
    return PassAtKInterval(
        estimate=estimate,
        standard_error=standard_error,
        low=max(lowest, estimate - multiplier * standard_error),
        high=min(highest, estimate + multiplier * standard_error),
        problems=m,
        confidence=confidence,
        distribution=distribution,
        multiplier=multiplier,
    )


def _student_t_two_sided(t, df):
    """``P(|T| <= t)`` for Student's t with an integer *df* >= 1 and ``t >= 0``.

    The standard library has no t distribution, so this is the finite series
    for integer degrees of freedom (Abramowitz and Stegun 26.7.3 and 26.7.4),
    in the angle ``theta = atan(t / sqrt(df))``.
    """
    theta = math.atan(t / math.sqrt(df))
    cos2 = math.cos(theta) ** 2
    if df % 2:  # odd: (2/pi) (theta + sin cos (1 + 2/3 cos^2 + 2*4/(3*5) cos^4 + ...))
        term, series = 1.0, 0.0
        for j in range(1, (df - 1) // 2 + 1):
            series += term
            term *= cos2 * (2 * j) / (2 * j + 1)
        return 2 / math.pi * (theta + math.sin(theta) * math.cos(theta) * series)
    term, series = 1.0, 0.0  # even: sin (1 + 1/2 cos^2 + 1*3/(2*4) cos^4 + ...)
    for j in range(1, df // 2 + 1):
        series += term
        term *= cos2 * (2 * j - 1) / (2 * j)
    return math.sin(theta) * series


def student_t_quantile(probability, df):
    """The t with ``P(T <= t) = probability`` for Student's t with *df* degrees of freedom.

    Accepts ``0.5 < probability < 1`` and an integer ``df >= 1``; anything
    else raises ValueError. Found by bisection on the exact finite series, so
    it needs nothing beyond the standard library. With few problems the t
    multiplier is far from the normal 1.96:

    >>> round(student_t_quantile(0.975, 5), 3), round(student_t_quantile(0.975, 120), 3)
    (2.571, 1.98)

    The series has about df/2 terms, so a huge *df* is slow; intervals over
    problems need only ``df = m - 1``.
    """
    if isinstance(df, bool) or not isinstance(df, int) or df < 1:
        raise ValueError(f"df must be an integer >= 1, got {df!r}")
    if isinstance(probability, bool) or not isinstance(probability, (int, float)) or not (
            0.5 < probability < 1):
        raise ValueError(f"probability must be a number strictly between 0.5 and 1, "
                         f"got {probability!r}")
    target = 2 * probability - 1
    low, high = 0.0, 1.0
    while _student_t_two_sided(high, df) < target:
        high *= 2
    for _ in range(200):  # halves the bracket until it stops shrinking
        middle = (low + high) / 2
        if middle in (low, high):
            break
        if _student_t_two_sided(middle, df) < target:
            low = middle
        else:
            high = middle
    return high


def pass_at_k_interval(counts, k, *, confidence=0.95, distribution="normal"):
    """Mean pass@k over problems, with its standard error over problems and an interval.

    *counts* maps each problem id to ``(n, c)`` as in :func:`mean_pass_at_k`,
    and ``estimate`` equals ``mean_pass_at_k(counts, k)``. The per-problem
    estimates are treated as a sample from a population of problems (the
    method of Miller, "Adding Error Bars to Evals", 2024), so the standard
    error ``s / sqrt(m)`` holds both sources of noise at once: which problems
    were asked, and which n samples each problem happened to get. It does not
    cover the protocol (prompt, temperature, tests, harness): change one and
    the quantity itself changes. *distribution* is ``"normal"`` (``z``) or
    ``"t"`` (Student's t with ``m - 1`` degrees of freedom, for few problems).

    Returns a :class:`PassAtKInterval`. Raises ``ValueError`` for fewer than
    two problems, for any problem whose counts are invalid for this k (named),
    for a *confidence* outside (0, 1) and for an unknown *distribution*.

    >>> result = pass_at_k_interval({"a": (10, 10), "b": (10, 10), "c": (10, 10), "d": (10, 0)}, 1)
    >>> result.estimate, result.standard_error, result.problems
    (0.75, 0.25, 4)

    Surprising: the interval is clipped to [0, 1], so it need not be
    symmetric around the estimate; with four problems the t interval is wider.

    >>> round(result.low, 4), result.high, result.clipped
    (0.26, 1.0, True)
    >>> wide = pass_at_k_interval({"a": (10, 10), "b": (10, 10), "c": (10, 10), "d": (10, 0)},
    ...                           1, distribution="t")
    >>> round(result.multiplier, 3), round(wide.multiplier, 3), wide.low
    (1.96, 3.182, 0.0)
    """
    values = list(_per_problem_estimates(counts, k).values())
    return _interval(values, confidence, distribution, 0.0, 1.0)


def paired_pass_at_k_difference(counts_a, counts_b, k, *, confidence=0.95, distribution="normal"):
    """Mean over problems of pass@k(a) - pass@k(b), with a paired interval.

    Two models answered the *same* problems: the difference is taken problem
    by problem, and its standard error is that of the per-problem
    differences. Easy and hard problems move both models together, so the
    paired interval is usually narrower than the two separate intervals
    suggest. The runs may differ in n: pass@k's expectation does not depend on
    n. Fields and *distribution* as in :func:`pass_at_k_interval`, clipped to
    [-1, 1].

    Raises ``ValueError`` when the two runs do not cover exactly the same
    problem ids (the message names the ones missing from each run), and for
    the reasons :func:`pass_at_k_interval` gives.

    >>> a = {"p1": (10, 9), "p2": (10, 5), "p3": (10, 1)}
    >>> b = {"p1": (10, 8), "p2": (10, 4), "p3": (10, 0)}
    >>> result = paired_pass_at_k_difference(a, b, 1)
    >>> round(result.estimate, 10), round(result.standard_error, 10)
    (0.1, 0.0)

    Surprising: each run alone spreads over most of [0, 1]; the difference
    is known exactly here, because it is the same on every problem.
    """
    estimates_a = _per_problem_estimates(counts_a, k)
    estimates_b = _per_problem_estimates(counts_b, k)
    if estimates_a.keys() != estimates_b.keys():
        only_a = sorted(map(repr, estimates_a.keys() - estimates_b.keys()))
        only_b = sorted(map(repr, estimates_b.keys() - estimates_a.keys()))
        parts = [f"only in counts_a: {', '.join(only_a)}" if only_a else "",
                 f"only in counts_b: {', '.join(only_b)}" if only_b else ""]
        raise ValueError("a paired comparison needs the same problems in both runs; "
                         + "; ".join(part for part in parts if part))
    differences = [estimates_a[problem] - estimates_b[problem] for problem in estimates_a]
    return _interval(differences, confidence, distribution, -1.0, 1.0)
