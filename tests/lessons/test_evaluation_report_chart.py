"""The states chart draws exactly the counts in the records."""

import random
from collections import Counter

import matplotlib

matplotlib.use("Agg")

import pytest  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from reasoneval_mini import STATUSES  # noqa: E402
from reasoneval_mini.lessons.evaluation_report import plot_execution_states  # noqa: E402
from reasoneval_mini.lessons.palette import DPI, FIGSIZE, STATE_COLORS  # noqa: E402
from reasoneval_mini.lessons.evaluation_report import count_states_per_problem  # noqa: E402


def random_records(seed, problems=4, samples=7):
    rng = random.Random(seed)
    return [
        {"sample_id": f"P{p}/{s}", "task_id": f"P{p}", "status": rng.choice(STATUSES)}
        for p in range(problems) for s in range(samples)
    ]


def drawn_heights(figure):
    """{(status, problem index): bar height} read back from the artists."""
    ax = figure.axes[0]
    heights = {}
    for container in ax.containers:
        for index, bar in enumerate(container.patches):
            heights[(container.get_label(), index)] = bar.get_height()
    return heights


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_bar_segments_equal_independently_counted_states(seed):
    records = random_records(seed)
    expected = Counter((r["status"], int(r["task_id"][1:])) for r in records)
    heights = drawn_heights(plot_execution_states(records))
    for status in STATUSES:
        for problem in range(4):
            assert heights[(status, problem)] == expected[(status, problem)]


def test_segments_stack_in_status_order_to_the_number_of_samples():
    records = random_records(3, problems=2, samples=5)
    ax = plot_execution_states(records).axes[0]
    for index in range(2):
        tops = [container.patches[index] for container in ax.containers]
        for lower, upper in zip(tops, tops[1:]):
            assert upper.get_y() == lower.get_y() + lower.get_height()
        assert tops[-1].get_y() + tops[-1].get_height() == 5


def test_every_state_is_in_the_legend_with_its_fixed_colour():
    records = [{"sample_id": "a", "task_id": "A", "status": "passed"}]
    ax = plot_execution_states(records).axes[0]
    assert sorted(t.get_text() for t in ax.get_legend().get_texts()) == sorted(STATUSES)
    for container in ax.containers:
        assert matplotlib.colors.to_hex(container.patches[0].get_facecolor()) == STATE_COLORS[
            container.get_label()
        ]


def test_problems_appear_in_order_of_first_record():
    records = [{"sample_id": str(i), "task_id": t, "status": "passed"}
               for i, t in enumerate(["Z", "A", "Z", "M"])]
    ax = plot_execution_states(records).axes[0]
    assert [label.get_text() for label in ax.get_xticklabels()] == ["Z", "A", "M"]
    assert list(count_states_per_problem(records)) == ["Z", "A", "M"]


def test_returns_a_small_figure_and_can_draw_into_a_given_axes():
    records = random_records(4)
    figure = plot_execution_states(records)
    assert isinstance(figure, Figure)
    assert tuple(figure.get_size_inches()) == FIGSIZE and figure.dpi == DPI
    host = Figure()
    ax = host.add_subplot()
    assert plot_execution_states(records, ax=ax) is host


@pytest.mark.parametrize("records, message", [
    ([], "records is empty"),
    ([{"sample_id": "a", "task_id": "A", "status": "crashed"}], "status 'crashed'"),
    ([{"sample_id": "a", "status": "passed"}], "records\\[0\\] needs a non-empty str task_id"),
])
def test_invalid_records_are_refused(records, message):
    with pytest.raises(ValueError, match=message):
        plot_execution_states(records)


def test_legend_read_top_down_lists_the_states_as_the_stack_shows_them():
    records = random_records(5, problems=1, samples=20)
    ax = plot_execution_states(records).axes[0]
    stack_top_down = [c.get_label() for c in sorted(ax.containers, key=lambda c: -c.patches[0].get_y())]
    assert [t.get_text() for t in ax.get_legend().get_texts()] == stack_top_down


def test_legend_swatches_have_the_colour_of_their_segments():
    ax = plot_execution_states(random_records(6)).axes[0]
    legend = ax.get_legend()
    for text, handle in zip(legend.get_texts(), legend.legend_handles):
        assert matplotlib.colors.to_hex(handle.get_facecolor()) == STATE_COLORS[text.get_text()]
