"""Every lesson figure has a title and the course's projector size."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

from reasoneval_mini.estimators import PassAtKInterval  # noqa: E402
from reasoneval_mini.lessons.answer_explorer import plot_pipeline_verdicts  # noqa: E402
from reasoneval_mini.lessons.answer_pipelines import compare_many_answers  # noqa: E402
from reasoneval_mini.lessons.estimator_bias import expected_estimates  # noqa: E402
from reasoneval_mini.lessons.evaluation_report import plot_execution_states  # noqa: E402
from reasoneval_mini.lessons.palette import DPI, FIGSIZE  # noqa: E402
from reasoneval_mini.lessons.pass_at_k_plots import (  # noqa: E402
    plot_enumeration_cost,
    plot_estimator_bias,
    plot_pass_at_k_curve,
    plot_subsets,
)
from reasoneval_mini.lessons.uncertainty import plot_interval_widths, plot_paired_comparison  # noqa: E402


def interval(estimate):
    return PassAtKInterval(estimate=estimate, standard_error=0.05, low=estimate - 0.1,
                           high=estimate + 0.1, problems=20, confidence=0.95)


FIGURES = {
    "subsets": lambda: plot_subsets([True, True, False, False, False], 2),
    "estimator_bias": lambda: plot_estimator_bias(expected_estimates(0.1, 20, range(1, 6))),
    "enumeration_cost": lambda: plot_enumeration_cost(range(4, 21, 4)),
    "pass_at_k_curve": lambda: plot_pass_at_k_curve(20, 2, 10),
    "pipeline_verdicts": lambda: plot_pipeline_verdicts(compare_many_answers()),
    "execution_states": lambda: plot_execution_states(
        [{"sample_id": "1", "task_id": "A", "status": "passed"}]),
    "interval_widths": lambda: plot_interval_widths([(20, 0.3), (80, 0.15)]),
    "paired_comparison": lambda: plot_paired_comparison(interval(0.5), interval(0.4), interval(0.1)),
}


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


@pytest.mark.parametrize("name", FIGURES)
def test_figure_has_a_title(name):
    figure = FIGURES[name]()
    assert any(ax.get_title() for ax in figure.axes), name


@pytest.mark.parametrize("name", [n for n in FIGURES if n != "pipeline_verdicts"])
def test_figure_has_the_course_size_and_resolution(name):
    figure = FIGURES[name]()
    assert tuple(figure.get_size_inches()) == pytest.approx(FIGSIZE)
    assert figure.dpi == DPI


def test_the_verdict_grid_is_as_wide_as_every_other_figure():
    figure = FIGURES["pipeline_verdicts"]()
    assert figure.get_size_inches()[0] == pytest.approx(FIGSIZE[0]) and figure.dpi == DPI
