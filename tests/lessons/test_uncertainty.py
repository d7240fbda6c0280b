"""Lesson 02's uncertainty helpers: synthetic runs, the bootstrap, the two pictures."""

import math
import statistics

import pytest

from reasoneval_mini import mean_pass_at_k, pass_at_k, pass_at_k_interval
from reasoneval_mini.lessons.uncertainty import (
    bootstrap_pass_at_k_interval,
    interval_widths,
    plot_interval_widths,
    plot_paired_comparison,
    synthetic_run,
)


def test_a_synthetic_run_is_reproducible_and_its_counts_are_valid():
    run = synthetic_run(50, 8, 0.5, seed=3)
    assert run == synthetic_run(50, 8, 0.5, seed=3)
    assert run != synthetic_run(50, 8, 0.5, seed=4)
    assert len(run) == 50 and all(n == 8 and 0 <= c <= 8 for n, c in run.values())


def test_a_more_skilled_run_with_the_same_seed_passes_at_least_as_often_on_every_problem():
    weak, strong = synthetic_run(80, 10, -0.5, seed=5), synthetic_run(80, 10, 0.5, seed=5)
    assert all(strong[p][1] >= weak[p][1] for p in weak)
    assert sum(c for _, c in strong.values()) > sum(c for _, c in weak.values())


@pytest.mark.parametrize("bad", [0, -1, 2.0, True])
def test_a_synthetic_run_refuses_a_bad_size(bad):
    with pytest.raises(ValueError, match="problems"):
        synthetic_run(bad, 10, 0.0, seed=0)


def test_the_bootstrap_centres_on_the_mean_and_agrees_with_the_normal_interval():
    run = synthetic_run(164, 10, 0.0, seed=7)
    boot = bootstrap_pass_at_k_interval(run, 1, resamples=4000, seed=1)
    normal = pass_at_k_interval(run, 1)
    assert boot.estimate == mean_pass_at_k(run, 1)
    # The bootstrap's spread of means estimates sd / sqrt(m) with m, not m - 1, in the variance.
    values = [pass_at_k(n, c, 1) for n, c in run.values()]
    plug_in_se = statistics.pstdev(values) / math.sqrt(len(values))
    assert boot.standard_error == pytest.approx(plug_in_se, rel=0.1)
    assert boot.low < boot.estimate < boot.high
    assert boot.low == pytest.approx(normal.low, abs=0.01)
    assert boot.high == pytest.approx(normal.high, abs=0.01)


def test_the_bootstrap_is_seeded():
    run = synthetic_run(30, 5, 0.0, seed=2)
    first = bootstrap_pass_at_k_interval(run, 2, seed=11)
    assert first == bootstrap_pass_at_k_interval(run, 2, seed=11)
    assert first != bootstrap_pass_at_k_interval(run, 2, seed=12)


def test_the_bootstrap_validates_like_the_contract():
    with pytest.raises(ValueError, match="problem 'b'"):
        bootstrap_pass_at_k_interval({"a": (5, 1), "b": (2, 1)}, 3)
    with pytest.raises(ValueError, match="resamples"):
        bootstrap_pass_at_k_interval({"a": (5, 1), "b": (5, 2)}, 1, resamples=10)


def test_interval_width_shrinks_like_one_over_the_root_of_the_problem_count():
    widths = dict(interval_widths([25, 400], 1, seed=3))
    assert widths[400] / widths[25] == pytest.approx(math.sqrt(25 / 400), rel=0.35)


def test_the_pictures_have_titles_and_one_mark_per_interval():
    run_a, run_b = synthetic_run(40, 10, 0.3, seed=1), synthetic_run(40, 10, 0.0, seed=1)
    figure = plot_paired_comparison(pass_at_k_interval(run_a, 1), pass_at_k_interval(run_b, 1),
                                    pass_at_k_interval(run_a, 1))
    axes = figure.axes[0]
    assert axes.get_title() and len(axes.containers) == 3
    figure = plot_interval_widths(interval_widths([10, 20, 40], 1))
    assert figure.axes[0].get_title() and len(figure.axes[0].lines) == 2
