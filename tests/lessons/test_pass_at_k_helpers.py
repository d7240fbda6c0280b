"""Helpers behind lesson 02 (pass@k), checked against independent oracles."""

import html
import itertools
import math
from fractions import Fraction

import matplotlib
import pytest

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from reasoneval_mini import pass_at_k, pass_at_k_by_enumeration  # noqa: E402
from reasoneval_mini.lessons.pass_at_k_explorer import (  # noqa: E402
    describe_pass_at_k,
    make_pass_at_k_explorer,
    pass_at_k_curve,
)
from reasoneval_mini.lessons.pass_at_k_plots import (  # noqa: E402
    estimator_work,
    plot_enumeration_cost,
    plot_estimator_bias,
    plot_pass_at_k_curve,
    plot_subsets,
)
from reasoneval_mini.lessons.estimator_bias import (  # noqa: E402
    expected_estimates,
    simulate_estimates,
    true_pass_at_k,
)
from reasoneval_mini.support.i18n import language  # noqa: E402
from translations import widget_labels, zh  # noqa: E402


def exact_unbiased(n, c, k):
    return 1 - Fraction(math.comb(n - c, k), math.comb(n, k))


def exact_plugin(n, c, k):
    return 1 - (1 - Fraction(c, n)) ** k


def exact_expected_plugin(p, n, k):
    # Independent of the module: exact rationals, binomial weights by hand.
    return sum(math.comb(n, c) * p**c * (1 - p) ** (n - c) * exact_plugin(n, c, k)
               for c in range(n + 1))


@pytest.mark.parametrize("p, n", [(0.1, 20), (0.5, 7), (0.9, 3)])
def test_expected_unbiased_estimate_equals_true_pass_at_k(p, n):
    for row in expected_estimates(p, n, range(1, n + 1)):
        assert row["unbiased"] == pytest.approx(true_pass_at_k(p, row["k"]), abs=1e-12)
        assert row["true"] == pytest.approx(1 - (1 - p) ** row["k"], abs=1e-15)


def test_expected_plugin_matches_a_brute_force_over_all_outcomes():
    n, p = 6, 0.3
    for k in range(1, n + 1):
        brute = 0.0
        for outcome in itertools.product((0, 1), repeat=n):
            c = sum(outcome)
            brute += p**c * (1 - p) ** (n - c) * (1 - (1 - c / n) ** k)
        assert expected_estimates(p, n, [k])[0]["plugin"] == pytest.approx(brute, abs=1e-12)


def test_lesson_claim_plugin_sits_003_low_at_k5_and_008_low_at_k10():
    p = Fraction(1, 10)
    for k, claimed in ((5, 0.03), (10, 0.08)):
        exact_gap = float((1 - (1 - p) ** k) - exact_expected_plugin(p, 20, k))
        assert round(exact_gap, 2) == claimed
        row = expected_estimates(0.1, 20, [k])[0]
        assert row["plugin_gap"] == pytest.approx(exact_gap, abs=1e-12)


def test_simulation_is_seeded_and_agrees_with_the_exact_expectation():
    ks = [1, 5, 10, 20]
    first = simulate_estimates(0.1, 20, ks, trials=20_000, seed=3)
    assert first == simulate_estimates(0.1, 20, ks, trials=20_000, seed=3)
    for sim, exact in zip(first, expected_estimates(0.1, 20, ks)):
        # Each estimate lies in [0, 1], so its standard error is at most 0.5/sqrt(trials).
        assert abs(sim["unbiased"] - exact["unbiased"]) < 4 * 0.5 / math.sqrt(20_000)
        assert abs(sim["plugin"] - exact["plugin"]) < 4 * 0.5 / math.sqrt(20_000)


def test_bad_simulation_inputs_are_refused():
    with pytest.raises(ValueError, match="p must be"):
        expected_estimates(1.5, 20, [5])
    with pytest.raises(ValueError, match="k must be an int in 1..n=20"):
        simulate_estimates(0.1, 20, [21])
    with pytest.raises(ValueError, match="trials"):
        simulate_estimates(0.1, 20, [5], trials=0)


@pytest.mark.parametrize("n", range(1, 9))
def test_describe_and_curve_match_exact_fractions_and_enumeration(n):
    for c in range(n + 1):
        outcomes = [True] * c + [False] * (n - c)
        for k, estimate, plugin in pass_at_k_curve(n, c):
            assert estimate == float(exact_unbiased(n, c, k))
            assert estimate == float(pass_at_k_by_enumeration(outcomes, k))
            assert plugin == pytest.approx(float(exact_plugin(n, c, k)), abs=1e-15)
            row = describe_pass_at_k(n, c, k)
            assert (row["estimate"], row["plugin"]) == (estimate, plugin)
            assert row["gap"] >= -1e-15


def test_describe_refuses_k_larger_than_n():
    with pytest.raises(ValueError, match="k must be in 1..n=5"):
        describe_pass_at_k(5, 2, 6)


def test_estimator_work_counts_subsets_and_factors():
    for n in range(1, 8):
        for c in range(n + 1):
            for k in range(1, n + 1):
                subsets, factors = estimator_work(n, c, k)
                assert subsets == len(list(itertools.combinations(range(n), k)))
                trivial = c == 0 or n - c < k
                assert factors == (0 if trivial else min(c, k))


def test_float_binomials_overflow_where_pass_at_k_stays_exact():
    float(math.comb(1029, 514))
    with pytest.raises(OverflowError):
        float(math.comb(1030, 515))
    from reasoneval_mini import pass_at_k

    assert pass_at_k(2000, 3, 1000) == float(exact_unbiased(2000, 3, 1000))


def test_subset_figure_labels_every_subset_like_brute_force():
    outcomes = [True, True, False, False, False]
    figure = plot_subsets(outcomes, 2)
    labels = [t.get_text() for t in figure.axes[0].texts]
    assert len(labels) == 10
    assert labels.count("all fail") == sum(
        not any(s) for s in itertools.combinations(outcomes, 2))
    assert figure.axes[0].get_title().startswith("7 of 10")
    plt.close(figure)
    with pytest.raises(ValueError, match="too many"):
        plot_subsets([True] + [False] * 9, 5)


def test_other_figures_draw_without_error():
    for figure in (
        plot_estimator_bias(expected_estimates(0.1, 20, range(1, 21))),
        plot_enumeration_cost(range(4, 60, 4)),
        plot_pass_at_k_curve(20, 2, 5),
    ):
        assert figure.axes and figure.axes[0].lines
        plt.close(figure)


def test_explorer_recomputes_when_sliders_move():
    box = make_pass_at_k_explorer(draw=False)
    assert box.result["estimate"] == 0.7
    box.n_slider.value = 20
    box.c_slider.value = 18
    box.k_slider.value = 5
    assert box.result == describe_pass_at_k(20, 18, 5)
    assert box.result["text"] in box.summary.value


def test_explorer_refuses_k_above_n_with_the_library_message_instead_of_clamping():
    box = make_pass_at_k_explorer(n=10, correct=2, k=9, draw=False)
    box.n_slider.value = 5
    assert (box.c_slider.value, box.k_slider.value) == (2, 9)  # nothing was moved for you
    assert box.result is None
    with pytest.raises(ValueError) as raised:
        pass_at_k(5, 2, 9)
    assert box.error == str(raised.value)
    assert "refused" in box.summary.value and "generate at least 9 samples" in box.summary.value
    box.k_slider.value = 5  # a valid request again
    assert box.error is None and box.result == describe_pass_at_k(5, 2, 5)


def test_explorer_refuses_c_above_n():
    box = make_pass_at_k_explorer(n=10, correct=8, k=2, draw=False)
    box.n_slider.value = 6
    assert box.result is None and "correct must be in 0..n=6" in box.error


def test_explorer_recomputes_exactly_once_per_slider_change():
    box = make_pass_at_k_explorer(n=10, correct=8, k=9, draw=False)
    before = box.updates
    box.n_slider.value = 4   # would have clamped c and k (three updates) before
    box.k_slider.value = 2
    box.c_slider.value = 1
    assert box.updates - before == 3


def test_explorer_draws_the_curve_as_image_data_without_pyplot():
    plt.close("all")
    box = make_pass_at_k_explorer(n=6, correct=1, k=3, draw=True)
    first = bytes(box.figure.value)
    box.k_slider.value = 6
    assert box.result["estimate"] == 1.0
    second = bytes(box.figure.value)
    assert first.startswith(b"\x89PNG") and second.startswith(b"\x89PNG")
    assert second != first  # the marked k moved
    assert plt.get_fignums() == []  # nothing left for pyplot to show later


def test_explorer_removes_the_figure_while_it_refuses_and_draws_it_again_after():
    box = make_pass_at_k_explorer(n=6, correct=1, k=3, draw=True)
    box.k_slider.value = 7  # k > n: refused
    assert box.result is None and box.figure.value == b"" and box.figure.layout.display == "none"
    box.k_slider.value = 2
    assert bytes(box.figure.value).startswith(b"\x89PNG") and box.figure.layout.display is None
    plt.close("all")


def test_explorer_says_one_sample_not_one_samples():
    box = make_pass_at_k_explorer(n=3, correct=1, k=2, draw=False)
    box.n_slider.value = 1
    assert "with only 1 sample there" in box.summary.value and "1 samples" not in box.summary.value


def test_explorer_labels_and_refusal_are_in_the_language_it_is_built_in():
    english = make_pass_at_k_explorer(n=5, correct=2, k=2, draw=False)
    with language("zh-CN"):
        chinese = make_pass_at_k_explorer(n=5, correct=2, k=2, draw=False)
    english.k_slider.value = chinese.k_slider.value = 9  # k > n: refused
    assert widget_labels(english) == ["n samples", "c correct", "k"]
    assert widget_labels(chinese) == [zh("n samples"), zh("c correct"), "k"]  # k: the symbol
    assert english.summary.value == f"<code>refused: {html.escape(english.error)}</code>"
    refused = zh("refused: {error}").format(error=chinese.error)
    assert chinese.summary.value == f"<code>{html.escape(refused)}</code>"
