"""How sure is a pass@k number? Synthetic runs, a bootstrap, and two pictures (lesson 02).

No model is sampled here: :func:`synthetic_run` draws a benchmark's per-problem
counts from a seeded random generator, so the lesson can show what the
uncertainty over *problems* does to a mean pass@k, and why two models must be
compared problem by problem. The contract functions are
:func:`reasoneval_mini.estimators.pass_at_k_interval` and
:func:`reasoneval_mini.estimators.paired_pass_at_k_difference`; this module
only prepares data for them and draws the results.

>>> run = synthetic_run(problems=5, n=10, skill=0.0, seed=1)
>>> list(run)[:2], all(n == 10 for n, _ in run.values())
(['P000', 'P001'], True)

Surprising: two runs with the same seed share their problems' difficulties,
so a small change of skill moves every problem in the same direction.

>>> weaker = synthetic_run(problems=5, n=10, skill=-1.0, seed=1)
>>> all(w <= s for (_, w), (_, s) in zip(weaker.values(), run.values()))
True
"""

import math
import random
import statistics

from reasoneval_mini.estimators import PassAtKInterval, pass_at_k_interval
from reasoneval_mini.lessons.palette import DPI, FIGSIZE, FIRST_SERIES_COLOUR, GREY, SECOND_SERIES_COLOUR
from reasoneval_mini.support.arguments import positive_int


def synthetic_run(problems, n, skill, seed, *, spread=3.0):
    """``{problem id: (n, c)}`` for a made-up model on a made-up benchmark.

    Problem *i* has a difficulty drawn from ``Normal(0, spread)`` with the
    generator seeded by *seed*; the model solves one sample of it with
    probability ``sigmoid(skill - difficulty)``. Each of the *n* samples is then
    judged with one uniform number per (problem, sample), drawn from a second
    generator with the same seed, so runs with the same seed and different
    *skill* are coupled: a better model passes every sample the worse one
    passes. Raises ``ValueError`` for a non-positive *problems* or *n*.
    """
    positive_int(problems, "problems")
    positive_int(n, "n")
    difficulties = random.Random(seed)
    draws = random.Random(f"{seed}-samples")
    run = {}
    for index in range(problems):
        difficulty = difficulties.gauss(0.0, spread)
        probability = 1.0 / (1.0 + math.exp(difficulty - skill))
        correct = sum(draws.random() < probability for _ in range(n))
        run[f"P{index:03d}"] = (n, correct)
    return run


def bootstrap_pass_at_k_interval(counts, k, *, confidence=0.95, resamples=2000, seed=0):
    """A percentile bootstrap over problems, beside the normal interval.

    Draws *resamples* benchmarks of the same size by sampling problems with
    replacement (seeded), takes each one's mean pass@k, and returns a
    :class:`~reasoneval_mini.estimators.PassAtKInterval` whose ``low``/``high``
    are the percentiles of those means and whose ``standard_error`` is their
    standard deviation. Validates *counts*, *k* and *confidence* as
    :func:`~reasoneval_mini.estimators.pass_at_k_interval` does.
    """
    positive_int(resamples, "resamples", minimum=100)
    normal = pass_at_k_interval(counts, k, confidence=confidence)  # validates everything
    from reasoneval_mini.estimators import pass_at_k

    values = [pass_at_k(n, c, k) for n, c in counts.values()]
    generator = random.Random(seed)
    means = sorted(math.fsum(generator.choices(values, k=len(values))) / len(values)
                   for _ in range(resamples))
    tail = (1 - confidence) / 2
    low = means[max(0, math.floor(tail * resamples))]
    high = means[min(resamples - 1, math.ceil((1 - tail) * resamples) - 1)]
    return PassAtKInterval(estimate=normal.estimate, standard_error=statistics.stdev(means),
                           low=low, high=high, problems=normal.problems,
                           confidence=confidence)


def interval_widths(sizes, k, *, n=10, skill=0.0, seed=0):
    """``[(problems, width of the 95% interval)]``: one synthetic run per benchmark size."""
    return [(size, (lambda r: r.high - r.low)(pass_at_k_interval(
        synthetic_run(size, n, skill, seed), k))) for size in sizes]


def plot_interval_widths(widths, ax=None):
    """Draw interval width against the number of problems, with the 1/sqrt(m) trend; return the Figure."""
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=FIGSIZE, dpi=DPI)
    sizes = [size for size, _ in widths]
    ax.plot(sizes, [width for _, width in widths], "o", color=FIRST_SERIES_COLOUR,
            label="width of the 95% interval")
    largest, last = widths[-1]
    ax.plot(sizes, [last * math.sqrt(largest / size) for size in sizes], "-", color=GREY,
            label="∝ 1/√problems")
    ax.set_xlabel("problems in the benchmark")
    ax.set_ylabel("interval width")
    ax.set_title("More problems, narrower interval: halving it takes 4x the problems")
    ax.legend(frameon=False)
    return ax.figure


def plot_paired_comparison(interval_a, interval_b, paired, labels=("model A", "model B"), ax=None):
    """Draw two separate intervals and the paired difference's interval; return the Figure."""
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=FIGSIZE, dpi=DPI)
    rows = [(f"{labels[0]}", interval_a, FIRST_SERIES_COLOUR),
            (f"{labels[1]}", interval_b, SECOND_SERIES_COLOUR),
            (f"{labels[0]} - {labels[1]} (paired)", paired, "#000000")]
    for y, (label, interval, colour) in enumerate(reversed(rows)):
        ax.errorbar(interval.estimate, y, color=colour, fmt="o", capsize=4,
                    xerr=[[interval.estimate - interval.low], [interval.high - interval.estimate]])
    ax.axvline(0.0, color=GREY, linewidth=0.8)
    ax.set_yticks(range(len(rows)), [label for label, _, _ in reversed(rows)])
    ax.set_xlabel("pass@k (95% interval)")
    ax.set_title("Same problems: compare problem by problem")
    return ax.figure
