"""How biased is the plug-in 1 - (1 - c/n)**k? Exact expectation and simulation.

Lesson 02 claims that the plug-in value sits below the true pass@k while
the combinatorial estimator does not. Two independent ways to check it:

* :func:`expected_estimates` sums over every possible count ``c`` of a
  Binomial(n, p) pool, which gives the exact expected value of each
  estimator (no randomness);
* :func:`simulate_estimates` draws seeded sample pools and averages, the
  way an experiment would.

If a model solves a problem with probability ``p`` per sample, the true
pass@k is ``1 - (1 - p)**k``.
"""

import math
import random

from reasoneval_mini.estimators import pass_at_k, plugin_pass_at_k
from reasoneval_mini.support.arguments import ArgumentTypeError, is_number, positive_int


def _check_probability(p):
    if not is_number(p):
        raise ArgumentTypeError(f"p must be a number in [0, 1], got {p!r} ({type(p).__name__})")
    if not 0 <= p <= 1:
        raise ValueError(f"p must be a number in [0, 1], got {p!r}")


def _check_ks(n, ks):
    ks = list(ks)
    if not ks:
        raise ValueError("ks is empty: give at least one k")
    for k in ks:
        if type(k) is not int:
            raise ArgumentTypeError(f"every k must be an int in 1..n={n}, got {k!r} ({type(k).__name__})")
        if not 1 <= k <= n:
            raise ValueError(f"every k must be an int in 1..n={n}, got {k!r}")
    return ks


def true_pass_at_k(p, k):
    """The quantity being estimated: ``1 - (1 - p)**k``.

    >>> round(true_pass_at_k(0.1, 5), 4)
    0.4095
    """
    _check_probability(p)
    return 1.0 - (1.0 - p) ** k


def _binomial_weights(p, n):
    return [math.comb(n, c) * p**c * (1 - p) ** (n - c) for c in range(n + 1)]


def expected_estimates(p, n, ks):
    """Exact expected value of both estimators for pools of *n* samples.

    Returns one dict per k with ``k``, ``true``, ``unbiased`` (expected value
    of :func:`pass_at_k`), ``plugin`` (expected value of
    :func:`plugin_pass_at_k`) and ``plugin_gap = true - plugin``. Raises
    ``ValueError`` for p outside [0, 1], n not an int >= 1, or a bad k.

    >>> row = expected_estimates(0.1, 20, [10])[0]
    >>> round(row["unbiased"] - row["true"], 12), round(row["plugin_gap"], 3)
    (0.0, 0.083)
    """
    _check_probability(p)
    positive_int(n, "n")
    ks = _check_ks(n, ks)
    weights = _binomial_weights(p, n)
    rows = []
    for k in ks:
        unbiased = math.fsum(w * pass_at_k(n, c, k) for c, w in enumerate(weights))
        plugin = math.fsum(w * plugin_pass_at_k(n, c, k) for c, w in enumerate(weights))
        true = true_pass_at_k(p, k)
        rows.append({"k": k, "true": true, "unbiased": unbiased,
                     "plugin": plugin, "plugin_gap": true - plugin})
    return rows


def simulate_estimates(p, n, ks, *, trials=20_000, seed=0):
    """Per k: the mean of each estimator over *trials* pools of n samples, each passing with chance p.

    Each trial draws n independent samples that pass with probability p,
    counts the passes c, and scores the pool with both estimators. Returns
    one dict per k with ``k``, ``true``, ``unbiased`` and ``plugin`` (means
    over trials) and ``plugin_gap``. The same seed gives the same numbers.

    >>> row = simulate_estimates(0.1, 20, [5], trials=2000, seed=1)[0]
    >>> abs(row["unbiased"] - row["true"]) < 0.02 < row["plugin_gap"]
    True
    """
    _check_probability(p)
    positive_int(n, "n")
    positive_int(trials, "trials")
    ks = _check_ks(n, ks)
    rng = random.Random(seed)
    # Only the count c matters to either estimator, so tally counts once.
    tally = [0] * (n + 1)
    for _ in range(trials):
        tally[sum(rng.random() < p for _ in range(n))] += 1
    rows = []
    for k in ks:
        unbiased = math.fsum(t * pass_at_k(n, c, k) for c, t in enumerate(tally)) / trials
        plugin = math.fsum(t * plugin_pass_at_k(n, c, k) for c, t in enumerate(tally)) / trials
        true = true_pass_at_k(p, k)
        rows.append({"k": k, "true": true, "unbiased": unbiased,
                     "plugin": plugin, "plugin_gap": true - plugin})
    return rows
