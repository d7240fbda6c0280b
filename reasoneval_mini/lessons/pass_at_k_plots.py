"""Pictures for lesson 02: subsets, estimator bias, cost, and the curve over k.

Every function draws on a new small figure (or on the *ax* you pass) and
returns the ``Figure``; none of them shows or saves it. The numbers come
from the library, so a figure cannot drift from the text.
"""

import itertools
import math

from reasoneval_mini.estimators import check_counts, pass_at_k, plugin_pass_at_k
from reasoneval_mini.support.arguments import ArgumentTypeError

from reasoneval_mini.lessons.figure_text import figure_text, prepare_figure_fonts
from reasoneval_mini.lessons.palette import (
    DPI,
    FAIL_COLOUR,
    FIGSIZE,
    FIRST_SERIES_COLOUR,
    PASS_COLOUR,
    SECOND_SERIES_COLOUR,
)
from reasoneval_mini.support.i18n import N_


def _new_axes(ax, integer_x=False):
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    if ax is None:
        prepare_figure_fonts()
        _, ax = plt.subplots(figsize=FIGSIZE, dpi=DPI)
    if integer_x:  # k is a count: no tick at 2.5
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    return ax


def estimator_work(n, correct, k):
    """Return ``(subsets, factors)``: work done by enumeration vs the closed form.

    Enumeration visits ``C(n, k)`` subsets; :func:`pass_at_k` multiplies
    ``min(c, k)`` factors (none when ``c = 0`` or ``n - c < k``, where the
    answer is known at once). Validates like :func:`pass_at_k`.

    >>> estimator_work(5, 2, 2)
    (10, 2)
    >>> estimator_work(100, 3, 50)
    (100891344545564193334812497256, 3)
    """
    check_counts(n, correct, k)
    factors = 0 if correct == 0 or n - correct < k else min(correct, k)
    return math.comb(n, k), factors


def plot_subsets(outcomes, k, ax=None):
    """Draw every k-subset of *outcomes* (bools) as a row: the share of rows with a pass is pass@k.

    Raises ``ValueError`` for non-bool outcomes, a bad k, or more than 40
    subsets (too many rows to read).
    """
    from matplotlib.patches import Rectangle

    outcomes = list(outcomes)
    if any(type(o) is not bool for o in outcomes):
        raise ArgumentTypeError(f"outcomes must be a non-empty list of bool, got {outcomes!r}")
    if not outcomes:
        raise ValueError(f"outcomes must be a non-empty list of bool, got {outcomes!r}")
    check_counts(len(outcomes), sum(outcomes), k)
    subsets = list(itertools.combinations(range(len(outcomes)), k))
    if len(subsets) > 40:
        raise ValueError(f"{len(subsets)} subsets are too many to draw (limit 40)")
    ax = _new_axes(ax)
    hits = 0
    for row, subset in enumerate(subsets):
        hit = any(outcomes[i] for i in subset)
        hits += hit
        for i, passed in enumerate(outcomes):
            chosen = i in subset
            colour = PASS_COLOUR if passed else FAIL_COLOUR
            ax.add_patch(Rectangle(
                (i, row), 0.9, 0.8, facecolor=colour if chosen else "white",
                edgecolor=colour, linewidth=1.2))
        ax.text(len(outcomes) + 0.2, row + 0.4,
                figure_text(N_("has a pass")) if hit else figure_text(N_("all fail")),
                va="center", fontsize=9, color="black" if hit else FAIL_COLOUR)
    ax.set_xlim(-0.2, len(outcomes) + 2.2)
    ax.set_ylim(len(subsets), -0.2)
    marks = {True: figure_text(N_("pass")), False: figure_text(N_("fail"))}
    ax.set_xticks([i + 0.45 for i in range(len(outcomes))],
                  [f"s{i + 1}\n{marks[bool(o)]}" for i, o in enumerate(outcomes)])
    ax.set_yticks([])
    ax.set_title(figure_text(N_("{hits} of {count} subsets of size {k} hold a pass")).format(
        hits=hits, count=len(subsets), k=k), fontsize=10)
    for spine in ax.spines.values():
        spine.set_visible(False)
    ax.figure.tight_layout()
    return ax.figure


def plot_estimator_bias(rows, ax=None, title=N_("Expected value of each estimator over k")):
    """Plot, over k, the true 1 - (1 - p)**k and the mean of each estimator (simulate/expected rows).

    Every figure of the course has a title: pass a more specific one (the
    pool's p and n) when you know it.
    """
    rows = list(rows)
    if not rows:
        raise ValueError("rows is empty: nothing to draw")
    ax = _new_axes(ax, integer_x=True)
    ks = [row["k"] for row in rows]
    ax.plot(ks, [r["true"] for r in rows], "k-", label=figure_text(N_("true pass@k = 1-(1-p)^k")))
    ax.plot(ks, [r["unbiased"] for r in rows], "o", color=FIRST_SERIES_COLOUR, ms=4,
            label=figure_text(N_("mean of unbiased estimate")))
    ax.plot(ks, [r["plugin"] for r in rows], "s", color=SECOND_SERIES_COLOUR, ms=4,
            label=figure_text(N_("mean of plug-in 1-(1-c/n)^k")))
    ax.set_xlabel("k")
    ax.set_ylabel("pass@k")
    ax.set_ylim(0, 1)
    ax.legend(fontsize=8, loc="lower right")
    ax.set_title(figure_text(title), fontsize=10)  # a caller's own title is shown as given
    ax.figure.tight_layout()
    return ax.figure


def plot_enumeration_cost(n_values, ax=None):
    """Plot on a log scale C(n, k) subsets (enumeration) and min(c, k) factors (closed form), k = n // 2, c = n // 4."""
    n_values = list(n_values)
    if any(type(n) is not int for n in n_values):
        raise ArgumentTypeError(f"n_values must be ints >= 2, got {n_values!r}")
    if not n_values or any(n < 2 for n in n_values):
        raise ValueError(f"n_values must be ints >= 2, got {n_values!r}")
    ax = _new_axes(ax)
    work = [estimator_work(n, max(1, n // 4), n // 2) for n in n_values]
    ax.semilogy(n_values, [w[0] for w in work], "o-", color=SECOND_SERIES_COLOUR, ms=3,
                label=figure_text(N_("enumeration: C(n, k) subsets")))
    ax.semilogy(n_values, [max(w[1], 1) for w in work], "o-", color=FIRST_SERIES_COLOUR, ms=3,
                label=figure_text(N_("closed form: min(c, k) factors")))
    ax.set_xlabel("n (k = n // 2, c = n // 4)")
    ax.set_ylabel(figure_text(N_("steps (log scale)")))
    ax.set_title(figure_text(N_("Cost of computing pass@k: enumeration vs the closed form")),
                 fontsize=10)
    ax.legend(fontsize=8, loc="upper left")
    ax.figure.tight_layout()
    return ax.figure


def plot_pass_at_k_curve(n, correct, k=None, ax=None):
    """Plot 1 - C(n - c, k) / C(n, k) and the plug-in 1 - (1 - c/n)**k for every k in 1..n; mark *k*."""
    check_counts(n, correct, k if k is not None else 1)
    ax = _new_axes(ax, integer_x=True)
    ks = range(1, n + 1)
    ax.plot(ks, [pass_at_k(n, correct, j) for j in ks], "-", color=FIRST_SERIES_COLOUR,
            label=figure_text(N_("unbiased 1 - C(n-c,k)/C(n,k)")))
    ax.plot(ks, [plugin_pass_at_k(n, correct, j) for j in ks], "--", color=SECOND_SERIES_COLOUR,
            label=figure_text(N_("plug-in 1 - (1-c/n)^k")))
    if k is not None:
        ax.plot([k], [pass_at_k(n, correct, k)], "o", color="black", ms=5)
    ax.set_xlabel("k")
    ax.set_ylabel("pass@k")
    ax.set_ylim(-0.02, 1.02)
    ax.set_title(figure_text(N_("pass@k over k: unbiased vs plug-in (n = {n}, c = {correct})")).format(
        n=n, correct=correct), fontsize=10)
    ax.legend(fontsize=8, loc="lower right")
    ax.figure.tight_layout()
    return ax.figure
