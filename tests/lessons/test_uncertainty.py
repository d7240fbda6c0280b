"""Lesson 04's uncertainty helpers: every number the lesson prints, against an independent reference.

The references are written here without the module's helpers: a brute-force
redraw with numpy-free plain loops (own seeds), exact sums over Binomial
outcomes with ``fractions``, and the closed forms checked against them.
"""

import itertools
import math
import random
import statistics
from fractions import Fraction

import pytest

from reasoneval_mini import mean_pass_at_k, pass_at_k, pass_at_k_interval
from reasoneval_mini.estimators import paired_pass_at_k_difference
from reasoneval_mini.lessons.power_explorer import describe_power, make_power_explorer
from reasoneval_mini.lessons.uncertainty import (
    bootstrap_pass_at_k_interval,
    interval_widths,
    paired_difference_sources,
    paired_power,
    plot_interval_widths,
    plot_paired_comparison,
    plot_power,
    power_curves,
    problems_needed,
    simulate_hit_rate,
    simulate_many_comparisons,
    simulate_paired,
    simulate_spread,
    synthetic_run,
    variance_sources,
)
from reasoneval_mini.support.i18n import language
from translations import widget_labels, zh

pytestmark = pytest.mark.slow  # Monte Carlo checks of lesson 04's numbers


def sigmoid(x):
    return 1 / (1 + math.exp(-x))


def brute_force_means(m, n, skill, repeats, seed, spread=3.0):
    """Redraw problems and samples with a generator of our own; return the means and s/sqrt(m)."""
    generator = random.Random(seed)
    means, errors = [], []
    for _ in range(repeats):
        values = []
        for _ in range(m):
            p = sigmoid(skill - generator.gauss(0, spread))
            values.append(sum(generator.random() < p for _ in range(n)) / n)
        means.append(sum(values) / m)
        errors.append(statistics.stdev(values) / math.sqrt(m))
    return means, errors


# --- runs -----------------------------------------------------------------------------------

def test_a_synthetic_run_is_reproducible_and_its_counts_are_valid():
    run = synthetic_run(50, 8, 0.5, problems_seed=3, samples_seed=3)
    assert run == synthetic_run(50, 8, 0.5, problems_seed=3, samples_seed=3)
    assert run != synthetic_run(50, 8, 0.5, problems_seed=3, samples_seed=4)
    assert len(run) == 50 and all(n == 8 and 0 <= c <= 8 for n, c in run.values())


def test_coupled_runs_pass_at_least_as_often_on_every_problem():
    weak = synthetic_run(80, 10, -0.5, problems_seed=5, samples_seed=5)
    strong = synthetic_run(80, 10, 0.5, problems_seed=5, samples_seed=5)
    assert all(strong[p][1] >= weak[p][1] for p in weak)


def test_independent_runs_on_the_same_problems_do_not_all_move_together():
    weak = synthetic_run(164, 10, 0.0, problems_seed=7, samples_seed=2)
    strong = synthetic_run(164, 10, 0.4, problems_seed=7, samples_seed=1)
    assert any(strong[p][1] < weak[p][1] for p in weak)
    assert sum(c for _, c in strong.values()) > sum(c for _, c in weak.values())


@pytest.mark.parametrize("bad", [0, -1, 2.0, True])
def test_a_synthetic_run_refuses_a_bad_size(bad):
    with pytest.raises(ValueError, match="problems"):
        synthetic_run(bad, 10, 0.0, problems_seed=0, samples_seed=0)


# --- closed forms against exact sums and brute force ---------------------------------------

def test_the_within_variance_of_pass_at_k_matches_an_exact_sum_over_outcomes():
    from reasoneval_mini.lessons.uncertainty import _within_variance

    p, n = Fraction(1, 3), 6
    for k in (1, 2, 4):
        values = [1 - Fraction(math.comb(n - c, k), math.comb(n, k)) for c in range(n + 1)]
        weights = [math.comb(n, c) * p**c * (1 - p) ** (n - c) for c in range(n + 1)]
        mean = sum(w * v for w, v in zip(weights, values))
        exact = sum(w * (v - mean) ** 2 for w, v in zip(weights, values))
        assert _within_variance(1 / 3, n, k) == pytest.approx(float(exact), rel=1e-12)


def test_the_standard_error_of_the_mean_matches_a_brute_force_redraw():
    means, errors = brute_force_means(164, 10, 0.0, repeats=400, seed=2024)
    closed = variance_sources(164, 10, 1, 0.0)
    assert statistics.stdev(means) == pytest.approx(closed["standard_error"], rel=0.1)
    assert statistics.fmean(means) == pytest.approx(closed["target"], abs=0.005)
    # s / sqrt(m) of one run estimates the spread with BOTH sources, not the problems' alone.
    assert statistics.fmean(errors) == pytest.approx(closed["standard_error"], rel=0.03)
    means_n1, errors_n1 = brute_force_means(164, 1, 0.0, repeats=400, seed=2025)
    closed_n1 = variance_sources(164, 1, 1, 0.0)
    assert statistics.stdev(means_n1) == pytest.approx(closed_n1["standard_error"], rel=0.1)
    assert statistics.fmean(errors_n1) == pytest.approx(closed_n1["standard_error"], rel=0.03)


def test_the_variance_adds_up_and_more_samples_only_shrink_the_within_part():
    few, many = variance_sources(164, 1, 1, 0.0), variance_sources(164, 10_000, 1, 0.0)
    assert few["standard_error"] ** 2 == pytest.approx(
        few["problems_only"] ** 2 + few["samples_only"] ** 2, rel=1e-12)
    assert few["between"] == pytest.approx(many["between"], rel=1e-12)
    assert many["standard_error"] == pytest.approx(many["problems_only"], rel=1e-3)


def test_lesson_04_section_1_numbers():
    rounded = {n: round(variance_sources(164, n, 1, 0.0)["standard_error"], 4) for n in (1, 10, 10_000)}
    assert rounded == {1: 0.039, 10: 0.0299, 10_000: 0.0287}
    both = simulate_spread(164, 10, 1, 0.0, repeats=300, seed=0)
    problems = simulate_spread(164, 10, 1, 0.0, repeats=300, seed=0, redraw="problems")
    samples = simulate_spread(164, 10, 1, 0.0, repeats=300, seed=0, redraw="samples")
    one = simulate_spread(164, 1, 1, 0.0, repeats=300, seed=0)
    assert (round(both["spread"], 4), round(both["mean_standard_error"], 4)) == (0.0293, 0.0298)
    assert round(problems["spread"], 4) == 0.0289 and round(samples["spread"], 4) == 0.0084
    assert (round(one["spread"], 4), round(one["mean_standard_error"], 4)) == (0.0377, 0.0391)


def test_simulate_spread_refuses_an_unknown_redraw():
    with pytest.raises(ValueError, match="redraw"):
        simulate_spread(10, 2, 1, 0.0, repeats=3, seed=0, redraw="models")


# --- the interval ----------------------------------------------------------------------------

def test_lesson_04_section_2_numbers():
    run = synthetic_run(164, 10, 0.4, problems_seed=7, samples_seed=1)
    normal = pass_at_k_interval(run, 1)
    boot = bootstrap_pass_at_k_interval(run, 1, seed=0)
    assert [round(x, 3) for x in (normal.estimate, normal.standard_error, normal.low, normal.high)] == [
        0.509, 0.030, 0.450, 0.569]
    assert (round(boot.low, 3), round(boot.high, 3)) == (0.448, 0.570)
    assert simulate_hit_rate(164, 10, 1, 0.0, repeats=1000, seed=0) == 0.959


def test_the_normal_interval_covers_about_95_percent_in_a_brute_force_redraw():
    target = variance_sources(164, 10, 1, 0.0)["target"]
    generator = random.Random(99)
    covered = 0
    for _ in range(300):
        values = []
        for _ in range(164):
            p = sigmoid(-generator.gauss(0, 3.0))
            values.append(sum(generator.random() < p for _ in range(10)) / 10)
        mean, se = statistics.fmean(values), statistics.stdev(values) / math.sqrt(164)
        covered += mean - 1.96 * se <= target <= mean + 1.96 * se
    assert 0.92 <= covered / 300 <= 0.98


def test_the_bootstrap_centres_on_the_mean_and_agrees_with_the_normal_interval():
    run = synthetic_run(164, 10, 0.0, problems_seed=7, samples_seed=7)
    boot = bootstrap_pass_at_k_interval(run, 1, resamples=4000, seed=1)
    normal = pass_at_k_interval(run, 1)
    assert boot.estimate == mean_pass_at_k(run, 1)
    values = [pass_at_k(n, c, 1) for n, c in run.values()]
    assert boot.standard_error == pytest.approx(statistics.pstdev(values) / math.sqrt(164), rel=0.1)
    assert boot.low == pytest.approx(normal.low, abs=0.01)
    assert boot.high == pytest.approx(normal.high, abs=0.01)


def test_the_bootstrap_is_seeded_and_validates_like_the_contract():
    run = synthetic_run(30, 5, 0.0, problems_seed=2, samples_seed=2)
    assert bootstrap_pass_at_k_interval(run, 2, seed=11) == bootstrap_pass_at_k_interval(run, 2, seed=11)
    with pytest.raises(ValueError, match="problem 'b'"):
        bootstrap_pass_at_k_interval({"a": (5, 1), "b": (2, 1)}, 3)
    with pytest.raises(ValueError, match="resamples"):
        bootstrap_pass_at_k_interval({"a": (5, 1), "b": (5, 2)}, 1, resamples=10)


def test_interval_width_shrinks_like_one_over_the_root_of_the_problem_count():
    widths = dict(interval_widths([20, 164, 640], 1, seed=7))
    assert widths[640] / widths[20] == pytest.approx(math.sqrt(20 / 640), rel=0.35)
    assert [round(widths[m], 2) for m in (20, 164, 640)] == [0.34, 0.12, 0.06]


# --- paired comparison and power -------------------------------------------------------------

def test_lesson_04_section_3_numbers():
    run_a = synthetic_run(164, 10, 0.4, problems_seed=7, samples_seed=1)
    run_b = synthetic_run(164, 10, 0.0, problems_seed=7, samples_seed=2)
    paired = paired_pass_at_k_difference(run_a, run_b, 1)
    assert (round(paired.estimate, 3), round(paired.standard_error, 4),
            round(paired.low, 3), round(paired.high, 3)) == (0.046, 0.0111, 0.025, 0.068)
    assert pass_at_k_interval(run_a, 1).low < pass_at_k_interval(run_b, 1).high
    table = {(n, coupled): simulate_paired(164, n, 1, 0.4, 0.0, repeats=300, seed=0, coupled=coupled)
             for n in (1, 10) for coupled in (False, True)}
    assert {key: round(value["detected"], 2) for key, value in table.items()} == {
        (1, False): 0.22, (1, True): 0.94, (10, False): 0.95, (10, True): 1.0}
    assert round(table[10, False]["mean_standard_error"], 4) == 0.0121
    assert round(table[10, True]["mean_standard_error"], 4) == 0.0057
    assert round(table[1, False]["mean_standard_error"], 4) == 0.0374


def test_the_paired_standard_error_matches_the_closed_form_for_independent_runs():
    sources = paired_difference_sources(10, 1, 0.4, 0.0)
    closed = math.sqrt((sources["between"] + sources["within"]) / 164)
    simulated = simulate_paired(164, 10, 1, 0.4, 0.0, repeats=300, seed=0)
    assert simulated["spread"] == pytest.approx(closed, rel=0.1)
    assert simulated["mean_standard_error"] == pytest.approx(closed, rel=0.03)


def test_the_gain_is_the_difference_of_the_two_targets():
    gain = paired_difference_sources(10, 1, 0.4, 0.0)["gain"]
    targets = (variance_sources(10, 1, 1, 0.4)["target"], variance_sources(10, 1, 1, 0.0)["target"])
    assert gain == pytest.approx(targets[0] - targets[1], abs=1e-12)
    assert round(gain, 3) == 0.046


def test_power_in_closed_form_matches_the_simulated_detection_rate():
    for n in (1, 10):
        detected = simulate_paired(164, n, 1, 0.4, 0.0, repeats=300, seed=0)["detected"]
        assert paired_power(164, n, 1, 0.4, 0.0) == pytest.approx(detected, abs=0.05)


def test_problems_needed_is_the_smallest_size_with_80_percent_power():
    for n, expected in ((1, 860), (10, 91)):
        needed = problems_needed(n, 1, 0.4, 0.0)
        assert needed == expected
        assert paired_power(needed, n, 1, 0.4, 0.0) >= 0.8 > paired_power(needed - 1, n, 1, 0.4, 0.0)


def test_the_explorer_prompts_numbers_half_the_gap_and_more_samples():
    assert problems_needed(10, 1, 0.2, 0.0) == 347  # "about four times as many"
    assert 3.5 < 347 / problems_needed(10, 1, 0.4, 0.0) < 4.5
    assert problems_needed(50, 1, 0.4, 0.0) == 22
    # The floor: with no sampling noise left, only the problems' spread of the difference remains.
    sources = paired_difference_sources(10, 1, 0.4, 0.0)
    floor = ((1.959964 + 0.841621) ** 2 * sources["between"] / sources["gain"] ** 2)
    assert floor < problems_needed(1000, 1, 0.4, 0.0) <= math.ceil(floor) + 2


def test_the_power_description_and_explorer():
    assert describe_power(164, 10, 0.4)["text"] == (
        "gain 0.046 in pass@1: with 164 problems and n=10, detected 97% of the time; "
        "80% needs 91 problems")
    box = make_power_explorer()
    box.n_slider.value = 1
    assert box.result["needed"] == 860 and box.updates == 2
    with pytest.raises(ValueError, match="skill_gap"):
        describe_power(164, 10, 0.0)


def test_the_power_explorer_labels_are_in_the_language_it_is_built_in():
    assert widget_labels(make_power_explorer()) == ["problems", "n samples", "skill gap"]
    with language("zh-CN"):
        chinese = make_power_explorer()
    assert widget_labels(chinese) == [zh("problems"), zh("n samples"), zh("skill gap")]


# --- few problems, many comparisons ----------------------------------------------------------

@pytest.mark.parametrize("df, table_value", [(1, 12.706), (2, 4.303), (5, 2.571), (10, 2.228),
                                             (30, 2.042), (163, 1.975)])
def test_the_t_multiplier_matches_the_printed_tables(df, table_value):
    counts = {f"p{i}": (4, i % 5) for i in range(df + 1)}
    assert round(pass_at_k_interval(counts, 1, distribution="t").multiplier, 3) == table_value


def test_the_t_multiplier_matches_a_simulated_t_statistic():
    generator = random.Random(5)
    statistics_ = []
    for _ in range(20_000):
        sample = [generator.gauss(0, 1) for _ in range(6)]
        statistics_.append(abs(statistics.fmean(sample)) / (statistics.stdev(sample) / math.sqrt(6)))
    simulated = sorted(statistics_)[int(0.95 * len(statistics_))]
    counts = {f"p{i}": (4, i % 5) for i in range(6)}
    assert pass_at_k_interval(counts, 1, distribution="t").multiplier == pytest.approx(simulated, rel=0.03)


def test_lesson_04_section_5_numbers():
    hit_rates = {(m, d): simulate_hit_rate(m, 10, 1, 0.0, repeats=2000, seed=0, distribution=d)
                for m in (6, 20) for d in ("normal", "t")}
    assert hit_rates == {(6, "normal"): 0.894, (6, "t"): 0.937, (20, "normal"): 0.939, (20, "t"): 0.9555}
    assert simulate_hit_rate(6, 10, 1, 0.0, repeats=1000, seed=0, bootstrap_resamples=400) == 0.886


def test_lesson_04_section_6_numbers_and_the_union_bound():
    uncorrected = simulate_many_comparisons(5, 50, 5, repeats=300, seed=0)
    corrected = simulate_many_comparisons(5, 50, 5, repeats=300, seed=0, confidence=1 - 0.05 / 10)
    assert (round(uncorrected, 2), round(corrected, 2)) == (0.30, 0.05)
    assert corrected <= 0.05 + 2 * math.sqrt(0.05 * 0.95 / 300)  # Bonferroni's bound, plus noise
    assert len(list(itertools.combinations(range(5), 2))) == 10


# --- pictures -----------------------------------------------------------------------------------

def test_the_pictures_have_titles_and_one_mark_per_interval():
    run_a = synthetic_run(40, 10, 0.3, problems_seed=1, samples_seed=1)
    run_b = synthetic_run(40, 10, 0.0, problems_seed=1, samples_seed=2)
    figure = plot_paired_comparison(pass_at_k_interval(run_a, 1), pass_at_k_interval(run_b, 1),
                                    paired_pass_at_k_difference(run_a, run_b, 1))
    assert figure.axes[0].get_title() and len(figure.axes[0].containers) == 3
    figure = plot_interval_widths(interval_widths([10, 20, 40], 1))
    assert figure.axes[0].get_title() and len(figure.axes[0].lines) == 2
    figure = plot_power(power_curves([20, 200], (1, 10), 1, 0.4, 0.0), simulated=[(1, 20, 0.1)])
    assert figure.axes[0].get_title() and len(figure.axes[0].lines) == 5
