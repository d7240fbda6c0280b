"""A stacked bar chart: how each problem's samples ended (needs matplotlib)."""

# A bare Figure (not pyplot): it is not shown twice in a notebook and never
# piles up in pyplot's global list of open figures.
from matplotlib.figure import Figure

from .summarize_evaluation import count_states_per_problem
from .statuses import ASSERTION_FAILED, NOT_RUN, PASSED, RUNTIME_ERROR, STATUSES, TIMEOUT

#: One fixed colour per state, so every chart in the course reads the same.
#: not_run is grey on purpose: it is a harness fact, not a model outcome.
STATE_COLORS = {
    PASSED: "#2e7d32",
    ASSERTION_FAILED: "#ef6c00",
    TIMEOUT: "#6a1b9a",
    RUNTIME_ERROR: "#c62828",
    NOT_RUN: "#9e9e9e",
}


def plot_execution_states(records, *, ax=None, figsize=(6, 3.5), dpi=80):
    """Draw one stacked bar per problem, one segment per state; return the Figure.

    Segments follow :data:`STATUSES` from the bottom up with the colours of
    :data:`STATE_COLORS`; every state has a legend entry even at count 0,
    so charts of different runs can be compared. Pass *ax* to draw into an
    existing axes; otherwise a new figure of *figsize* and *dpi* is made.
    Raises ``ValueError`` for invalid records (see
    :func:`count_states_per_problem`).

    >>> figure = plot_execution_states([{"sample_id": "1", "task_id": "A", "status": "passed"}])
    >>> [text.get_text() for text in figure.axes[0].get_legend().get_texts()]
    ['passed', 'assertion_failed', 'timeout', 'runtime_error', 'not_run']
    """
    per_problem = count_states_per_problem(records)
    if ax is None:
        figure = Figure(figsize=figsize, dpi=dpi)
        ax = figure.add_subplot()
    else:
        figure = ax.figure
    names = list(per_problem)
    positions = range(len(names))
    bottoms = [0] * len(names)
    for status in STATUSES:
        heights = [per_problem[name][status] for name in names]
        ax.bar(positions, heights, bottom=bottoms, color=STATE_COLORS[status], label=status)
        bottoms = [b + h for b, h in zip(bottoms, heights)]
    ax.set_xticks(list(positions), names, rotation=30, ha="right")
    ax.yaxis.get_major_locator().set_params(integer=True)  # counts, not fractions
    ax.set_ylabel("samples")
    ax.set_title("How each problem's samples ended")
    ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize="small")
    figure.tight_layout()
    return figure
