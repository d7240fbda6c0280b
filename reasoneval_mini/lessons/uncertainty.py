"""How sure is a pass@k number? A made-up benchmark, redrawn many times (lesson 04).

No model is sampled here. A *benchmark* is a population of problems whose
difficulties are ``Normal(0, spread)``; a *model* of a given skill passes one
sample of a problem of difficulty ``d`` with probability
``sigmoid(skill - d)``. :func:`synthetic_run` draws one run from it: which
problems were asked (``problems_seed``) and which samples each problem got
(``samples_seed``). Two models on the same problems share ``problems_seed``
and sample independently, as real models do; giving them the same
``samples_seed`` as well couples them (one uniform number per sample judges
both), the special case that makes a comparison look more precise than it is.

Everything the lesson claims about spread, the interval's hit rate and power is computed
twice: in closed form (:func:`variance_sources`, :func:`paired_power`) and by
redrawing problems and samples (the ``simulate_*`` functions).

>>> run = synthetic_run(5, 10, 0.0, problems_seed=1, samples_seed=1)
>>> list(run)[:2], all(n == 10 for n, _ in run.values())
(['P000', 'P001'], True)

Surprising: only coupled runs pass "at least as often on every problem".

>>> weaker = synthetic_run(5, 10, -1.0, problems_seed=1, samples_seed=1)
>>> all(w <= s for (_, w), (_, s) in zip(weaker.values(), run.values()))
True
"""

import itertools
import math
import random
import statistics

from reasoneval_mini.estimators import (
    PassAtKInterval,
    paired_pass_at_k_difference,
    pass_at_k,
    pass_at_k_interval,
)
from reasoneval_mini.lessons.figure_text import figure_text, prepare_figure_fonts
from reasoneval_mini.lessons.palette import (
    DPI, FIGSIZE, FIRST_SERIES_COLOUR, GREY, OKABE_ITO, SECOND_SERIES_COLOUR)
from reasoneval_mini.support.arguments import positive_int
from reasoneval_mini.support.i18n import N_

#: The spread of problem difficulties in every example of the lesson.
SPREAD = 3.0


def success_probability(skill, difficulty):
    """``sigmoid(skill - difficulty)``: how often one sample of the problem passes."""
    return 1.0 / (1.0 + math.exp(difficulty - skill))


def _difficulties(problems, seed, spread):
    generator = random.Random(f"problems-{seed}")
    return [generator.gauss(0.0, spread) for _ in range(problems)]


def _judge(difficulties, n, skill, generator):
    run = {}
    for index, difficulty in enumerate(difficulties):
        probability = success_probability(skill, difficulty)
        run[f"P{index:03d}"] = (n, sum(generator.random() < probability for _ in range(n)))
    return run


def synthetic_run(problems, n, skill, *, problems_seed, samples_seed, spread=SPREAD):
    """``{problem id: (n, c)}`` for a made-up model on a made-up benchmark.

    Problem *i*'s difficulty is the *i*-th draw of ``Normal(0, spread)`` from
    a generator seeded by *problems_seed*; each of its *n* samples passes when
    a uniform number from a second generator, seeded by *samples_seed*, is
    below ``success_probability(skill, difficulty)``. Same *problems_seed*:
    same problems. Same *samples_seed* too: coupled runs, in which the better
    model passes every sample the worse one passes. Raises ``ValueError`` for
    a non-positive *problems* or *n*.
    """
    positive_int(problems, "problems")
    positive_int(n, "n")
    samples = random.Random(f"samples-{samples_seed}")
    return _judge(_difficulties(problems, problems_seed, spread), n, skill, samples)


# --- closed forms ----------------------------------------------------------------------

def _within_variance(probability, n, k):
    """Variance of pass_at_k(n, c, k) when c ~ Binomial(n, probability)."""
    if k == 1:
        return probability * (1 - probability) / n  # pass@1 is c / n
    values = [pass_at_k(n, c, k) for c in range(n + 1)]
    weights = [math.comb(n, c) * probability**c * (1 - probability) ** (n - c)
               for c in range(n + 1)]
    mean = math.fsum(w * v for w, v in zip(weights, values))
    return math.fsum(w * (v - mean) ** 2 for w, v in zip(weights, values))


def _over_difficulties(function, spread, points=801):
    """``E[function(d)]`` for ``d ~ Normal(0, spread)``, by the midpoint rule over +-8 sd."""
    width = 16.0 * spread / points
    normal = statistics.NormalDist(0.0, spread)
    grid = [-8.0 * spread + (i + 0.5) * width for i in range(points)]
    return math.fsum(normal.pdf(d) * width * function(d) for d in grid)


def variance_sources(problems, n, k, skill, *, spread=SPREAD):
    """Where the spread of a benchmark's mean pass@k comes from, in closed form.

    For a benchmark of *problems* problems drawn from the population, each
    with *n* samples of a model of *skill*, returns a dict of float:

    * ``target``: the population mean of the true pass@k;
    * ``between``: the variance of a problem's true pass@k over problems;
    * ``within``: the expected variance of its estimate from n samples;
    * ``standard_error``: ``sqrt((between + within) / problems)``, the spread
      of the benchmark's mean when problems and samples are both redrawn;
    * ``problems_only`` and ``samples_only``: ``sqrt(between / problems)``
      and ``sqrt(within / problems)``.

    >>> sources = variance_sources(164, 10, 1, 0.0)
    >>> round(sources["target"], 3), round(sources["standard_error"], 4)
    (0.5, 0.0299)

    Surprising: more samples per problem cannot remove the first source.

    >>> round(variance_sources(164, 10**4, 1, 0.0)["standard_error"], 4)
    0.0287
    """
    positive_int(problems, "problems")

    def true_value(d):
        return 1 - (1 - success_probability(skill, d)) ** k

    target = _over_difficulties(true_value, spread)
    between = _over_difficulties(lambda d: (true_value(d) - target) ** 2, spread)
    within = _over_difficulties(
        lambda d: _within_variance(success_probability(skill, d), n, k), spread)
    return {"target": target, "between": between, "within": within,
            "standard_error": math.sqrt((between + within) / problems),
            "problems_only": math.sqrt(between / problems),
            "samples_only": math.sqrt(within / problems)}


def paired_difference_sources(n, k, skill_a, skill_b, *, spread=SPREAD):
    """The gain and the per-problem spread of pass@k(a) - pass@k(b), independent samples.

    Returns ``{"gain": E[true difference], "between": its variance over
    problems, "within": the expected sum of the two runs' sampling variances}``.
    """
    def true_difference(d):
        return ((1 - success_probability(skill_b, d)) ** k
                - (1 - success_probability(skill_a, d)) ** k)

    gain = _over_difficulties(true_difference, spread)
    between = _over_difficulties(lambda d: (true_difference(d) - gain) ** 2, spread)
    within = _over_difficulties(
        lambda d: (_within_variance(success_probability(skill_a, d), n, k)
                   + _within_variance(success_probability(skill_b, d), n, k)), spread)
    return {"gain": gain, "between": between, "within": within}


def paired_power(problems, n, k, skill_a, skill_b, *, confidence=0.95, spread=SPREAD):
    """Chance that the paired interval of A - B lies above zero (normal approximation).

    ``Phi(gain / SE - z)`` with ``SE = sqrt((between + within) / problems)``
    from :func:`paired_difference_sources`, for runs sampled independently.

    >>> round(paired_power(164, 10, 1, 0.4, 0.0), 2)
    0.97
    """
    positive_int(problems, "problems")
    sources = paired_difference_sources(n, k, skill_a, skill_b, spread=spread)
    standard_error = math.sqrt((sources["between"] + sources["within"]) / problems)
    z = statistics.NormalDist().inv_cdf((1 + confidence) / 2)
    return statistics.NormalDist().cdf(sources["gain"] / standard_error - z)


def problems_needed(n, k, skill_a, skill_b, *, power=0.8, confidence=0.95, spread=SPREAD):
    """The fewest problems with which :func:`paired_power` reaches *power*.

    ``m = ((z + z_power) * sd / gain) ** 2``, rounded up, where ``sd`` is the
    per-problem standard deviation of the paired difference.

    >>> problems_needed(1, 1, 0.4, 0.0), problems_needed(10, 1, 0.4, 0.0)
    (860, 91)
    """
    sources = paired_difference_sources(n, k, skill_a, skill_b, spread=spread)
    normal = statistics.NormalDist()
    z = normal.inv_cdf((1 + confidence) / 2) + normal.inv_cdf(power)
    return math.ceil((z * math.sqrt(sources["between"] + sources["within"])
                      / sources["gain"]) ** 2)


# --- redrawing problems and samples ----------------------------------------------------

def simulate_spread(problems, n, k, skill, *, repeats, seed, redraw="both", spread=SPREAD):
    """Redraw a benchmark *repeats* times: the standard deviation of its mean pass@k, and the mean s/sqrt(m).

    *redraw* says what changes between repeats: ``"both"`` (new problems and
    new samples), ``"problems"`` (new problems, each scored by its true
    pass@k: no sampling noise) or ``"samples"`` (the problems of the first
    draw, new samples). Returns ``{"spread": sd of the means,
    "mean_standard_error": mean of s/sqrt(m) over the repeats}``.
    """
    positive_int(repeats, "repeats", minimum=2)
    if redraw not in ("both", "problems", "samples"):
        raise ValueError(f"redraw must be 'both', 'problems' or 'samples', got {redraw!r}")
    problem_draws = random.Random(f"spread-problems-{seed}")
    sample_draws = random.Random(f"spread-samples-{seed}")
    fixed = [problem_draws.gauss(0.0, spread) for _ in range(problems)]
    means, errors = [], []
    for _ in range(repeats):
        difficulties = fixed if redraw == "samples" else [
            problem_draws.gauss(0.0, spread) for _ in range(problems)]
        if redraw == "problems":
            values = [1 - (1 - success_probability(skill, d)) ** k for d in difficulties]
        else:
            run = _judge(difficulties, n, skill, sample_draws)
            values = [pass_at_k(n_, c, k) for n_, c in run.values()]
        means.append(math.fsum(values) / problems)
        errors.append(statistics.stdev(values) / math.sqrt(problems))
    return {"spread": statistics.stdev(means), "mean_standard_error": statistics.fmean(errors)}


def simulate_hit_rate(problems, n, k, skill, *, repeats, seed, distribution="normal",
                      bootstrap_resamples=None, confidence=0.95, spread=SPREAD):
    """The share of *repeats* redrawn benchmarks whose interval holds the population's pass@k.

    Each repeat draws new problems and new samples and asks whether the
    interval (:func:`~reasoneval_mini.estimators.pass_at_k_interval` with
    *distribution*, or with *bootstrap_resamples* the percentile bootstrap)
    contains ``variance_sources(...)["target"]``. Returns the fraction.
    """
    positive_int(repeats, "repeats")
    target = variance_sources(problems, n, k, skill, spread=spread)["target"]
    generator = random.Random(f"coverage-{seed}")
    covered = 0
    for repeat in range(repeats):
        run = _judge([generator.gauss(0.0, spread) for _ in range(problems)], n, skill, generator)
        if bootstrap_resamples:
            interval = bootstrap_pass_at_k_interval(
                run, k, confidence=confidence, resamples=bootstrap_resamples, seed=repeat)
        else:
            interval = pass_at_k_interval(run, k, confidence=confidence, distribution=distribution)
        covered += interval.low <= target <= interval.high
    return covered / repeats


def simulate_paired(problems, n, k, skill_a, skill_b, *, repeats, seed, coupled=False,
                    confidence=0.95, spread=SPREAD):
    """Redraw two runs on shared problems: the share of paired intervals above zero, the mean SE, the spread.

    Each repeat draws new problems, then samples for A and for B:
    independently, or with *coupled* one uniform number per sample for both.
    Returns ``{"detected": fraction of repeats whose paired interval lies
    above zero, "mean_standard_error": mean paired SE, "spread": sd of the
    paired estimates}``.
    """
    positive_int(repeats, "repeats", minimum=2)
    problem_draws = random.Random(f"paired-problems-{seed}")
    samples_a = random.Random(f"paired-a-{seed}")
    samples_b = samples_a if coupled else random.Random(f"paired-b-{seed}")
    detected, errors, estimates = 0, [], []
    for _ in range(repeats):
        difficulties = [problem_draws.gauss(0.0, spread) for _ in range(problems)]
        if coupled:
            state = samples_a.getstate()
            run_a = _judge(difficulties, n, skill_a, samples_a)
            samples_a.setstate(state)  # B is judged with the very same uniform numbers
            run_b = _judge(difficulties, n, skill_b, samples_a)
        else:
            run_a = _judge(difficulties, n, skill_a, samples_a)
            run_b = _judge(difficulties, n, skill_b, samples_b)
        paired = paired_pass_at_k_difference(run_a, run_b, k, confidence=confidence)
        detected += paired.low > 0
        errors.append(paired.standard_error)
        estimates.append(paired.estimate)
    return {"detected": detected / repeats, "mean_standard_error": statistics.fmean(errors),
            "spread": statistics.stdev(estimates)}


def simulate_many_comparisons(models, problems, n, *, repeats, seed, confidence=0.95,
                              spread=SPREAD):
    """The share of *repeats* in which some pair of equal models gets a paired interval without zero.

    Each repeat draws new problems and one independent run per model (all of
    skill 0), then a paired interval at *confidence* for every pair. Returns
    the fraction of repeats in which at least one interval excludes zero
    (every such verdict is false: the models are equal).
    """
    positive_int(models, "models", minimum=2)
    positive_int(repeats, "repeats")
    generator = random.Random(f"many-{seed}")
    false_alarms = 0
    for _ in range(repeats):
        difficulties = [generator.gauss(0.0, spread) for _ in range(problems)]
        runs = [_judge(difficulties, n, 0.0, generator) for _ in range(models)]
        false_alarms += any(
            not (p.low <= 0.0 <= p.high)
            for p in (paired_pass_at_k_difference(a, b, 1, confidence=confidence)
                      for a, b in itertools.combinations(runs, 2)))
    return false_alarms / repeats


# --- the bootstrap -----------------------------------------------------------------------

def bootstrap_pass_at_k_interval(counts, k, *, confidence=0.95, resamples=2000, seed=0):
    """A percentile bootstrap over problems, beside the normal interval.

    Draws *resamples* benchmarks of the same size by sampling problems with
    replacement (seeded), takes each one's mean pass@k, and returns a
    :class:`~reasoneval_mini.estimators.PassAtKInterval` whose ``low``/``high``
    are the percentiles of those means and whose ``standard_error`` is their
    standard deviation (``distribution`` is ``"bootstrap"``). Validates
    *counts*, *k* and *confidence* as
    :func:`~reasoneval_mini.estimators.pass_at_k_interval` does.
    """
    positive_int(resamples, "resamples", minimum=100)
    normal = pass_at_k_interval(counts, k, confidence=confidence)  # validates everything
    values = [pass_at_k(n, c, k) for n, c in counts.values()]
    generator = random.Random(seed)
    means = sorted(math.fsum(generator.choices(values, k=len(values))) / len(values)
                   for _ in range(resamples))
    tail = (1 - confidence) / 2
    low = means[max(0, math.floor(tail * resamples))]
    high = means[min(resamples - 1, math.ceil((1 - tail) * resamples) - 1)]
    return PassAtKInterval(estimate=normal.estimate, standard_error=statistics.stdev(means),
                           low=low, high=high, problems=normal.problems,
                           confidence=confidence, distribution="bootstrap")


# --- pictures ----------------------------------------------------------------------------

def power_curves(sizes, ns, k, skill_a, skill_b, *, spread=SPREAD):
    """``{n: [(problems, paired_power), ...]}`` for each n in *ns*."""
    return {n: [(size, paired_power(size, n, k, skill_a, skill_b, spread=spread))
                for size in sizes] for n in ns}


def plot_power(curves, *, simulated=(), ax=None):
    """Draw power (the chance the paired interval lies above zero) against m, one line per n.

    Returns the Figure.

    *simulated* is an optional list of ``(n, problems, detected fraction)``
    points from :func:`simulate_paired`, drawn as markers on the lines.
    """
    import matplotlib.pyplot as plt

    if ax is None:
        prepare_figure_fonts()
        _, ax = plt.subplots(figsize=FIGSIZE, dpi=DPI)
    colours = [FIRST_SERIES_COLOUR, SECOND_SERIES_COLOUR, OKABE_ITO["orange"]]
    for colour, (n, points) in zip(colours, curves.items()):
        ax.plot([size for size, _ in points], [power for _, power in points], "-",
                color=colour, label=figure_text(N_("n = {n} samples per problem")).format(n=n))
        ax.plot([size for n_, size, _ in simulated if n_ == n],
                [found for n_, _, found in simulated if n_ == n], "o", color=colour)
    ax.axhline(0.8, color=GREY, linewidth=0.8, linestyle="--")
    ax.set_xscale("log")
    ax.set_ylim(0, 1.02)
    ax.set_xlabel(figure_text(N_("problems in the benchmark (log scale)")))
    ax.set_ylabel(figure_text(N_("chance to detect the gain")))
    ax.set_title(figure_text(N_("Power of the paired comparison: more problems, or more samples")))
    ax.legend(frameon=False, loc="lower right")
    return ax.figure


def interval_widths(sizes, k, *, n=10, skill=0.0, seed=0):
    """``[(problems, width of the 95% interval)]``: one synthetic run per benchmark size."""
    widths = []
    for size in sizes:
        interval = pass_at_k_interval(
            synthetic_run(size, n, skill, problems_seed=seed, samples_seed=seed), k)
        widths.append((size, interval.high - interval.low))
    return widths


def plot_interval_widths(widths, ax=None):
    """Draw the 95% interval's width (high - low) against m, beside a curve through the last point times 1/sqrt(m).

    Returns the Figure.
    """
    import matplotlib.pyplot as plt

    if ax is None:
        prepare_figure_fonts()
        _, ax = plt.subplots(figsize=FIGSIZE, dpi=DPI)
    sizes = [size for size, _ in widths]
    ax.plot(sizes, [width for _, width in widths], "o", color=FIRST_SERIES_COLOUR,
            label=figure_text(N_("width of the {level} interval")).format(level="95%"))
    largest, last = widths[-1]
    ax.plot(sizes, [last * math.sqrt(largest / size) for size in sizes], "-", color=GREY,
            label=figure_text(N_("∝ 1/√problems")))
    ax.set_xlabel(figure_text(N_("problems in the benchmark")))
    ax.set_ylabel(figure_text(N_("interval width")))
    ax.set_title(figure_text(N_("More problems, narrower interval: halving it takes 4x the problems")))
    ax.legend(frameon=False)
    return ax.figure


def plot_paired_comparison(interval_a, interval_b, paired, labels=("model A", "model B"), ax=None):
    """Draw A's and B's intervals and the paired A - B interval, each from low to high around its estimate.

    Returns the Figure.
    """
    import matplotlib.pyplot as plt

    if ax is None:
        prepare_figure_fonts()
        _, ax = plt.subplots(figsize=FIGSIZE, dpi=DPI)
    rows = [(f"{labels[0]}", interval_a, FIRST_SERIES_COLOUR),
            (f"{labels[1]}", interval_b, SECOND_SERIES_COLOUR),
            (figure_text(N_("{a} - {b} (paired)")).format(a=labels[0], b=labels[1]), paired,
             "#000000")]
    for y, (label, interval, colour) in enumerate(reversed(rows)):
        ax.errorbar(interval.estimate, y, color=colour, fmt="o", capsize=4,
                    xerr=[[interval.estimate - interval.low], [interval.high - interval.estimate]])
    ax.axvline(0.0, color=GREY, linewidth=0.8)
    ax.set_yticks(range(len(rows)), [label for label, _, _ in reversed(rows)])
    ax.set_xlabel(figure_text(N_("pass@k ({level} interval)")).format(level="95%"))
    ax.set_title(figure_text(N_("Same problems: compare problem by problem")))
    return ax.figure
