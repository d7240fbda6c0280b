"""From execution records to per-problem pass@k, the budget, and a report.

Every planned sample counts in its problem's n, ``not_run`` included: a
sample that never ran scored zero, like every state but ``passed``. The
coverage printed beside the metric says how many samples really ran, so a
reader can tell a weak model from a broken harness.

:func:`plot_execution_states` draws how each problem's samples ended as a
stacked bar chart (it needs matplotlib, imported when it is called).
"""

import platform

from reasoneval_mini.estimators import mean_pass_at_k, pass_at_k, pass_at_k_interval
from reasoneval_mini.records import PASSED, STATUSES, execution_summary
from reasoneval_mini.lessons.figure_text import figure_text, prepare_figure_fonts
from reasoneval_mini.lessons.palette import DPI, FIGSIZE, STATE_COLORS
from reasoneval_mini.support.arguments import ArgumentTypeError
from reasoneval_mini.support.i18n import N_


MEAN_ROW = "mean over problems"


def count_states_per_problem(records):
    """Map each ``task_id`` (in order of first appearance) to counts of all five states.

    Records are validated by :func:`execution_summary`; a record without a
    non-empty ``str`` ``task_id`` raises ``ValueError`` naming it.

    >>> count_states_per_problem([{"sample_id": "1", "task_id": "A", "status": "timeout"}])["A"]
    {'passed': 0, 'assertion_failed': 0, 'timeout': 1, 'runtime_error': 0, 'not_run': 0}
    """
    execution_summary(records)
    per_problem = {}
    for index, record in enumerate(records):
        task_id = record.get("task_id")
        if not isinstance(task_id, str):
            raise ArgumentTypeError(f"records[{index}] needs a non-empty str task_id, got {task_id!r}")
        if not task_id:
            raise ValueError(f"records[{index}] needs a non-empty str task_id, got {task_id!r}")
        per_problem.setdefault(task_id, dict.fromkeys(STATUSES, 0))[record["status"]] += 1
    return per_problem


def count_passes(records):
    """Map each ``task_id`` to ``(n, c)``: planned samples and passed samples.

    *records* are execution records (see :func:`execution_summary`, which
    validates them); each must also carry a non-empty ``str`` ``task_id``.
    Problems keep the order of their first record. Raises ``ValueError``
    naming the bad record.

    >>> count_passes([{"sample_id": "a1", "task_id": "A", "status": "passed"},
    ...               {"sample_id": "a2", "task_id": "A", "status": "not_run"}])
    {'A': (2, 1)}
    """
    return {task_id: (sum(counts.values()), counts[PASSED])
            for task_id, counts in count_states_per_problem(records).items()}


def _check_ks(ks):
    if not isinstance(ks, (list, tuple)) or any(type(k) is not int for k in ks):
        raise ArgumentTypeError(f"ks must be a non-empty list of int, got {ks!r}")
    if not ks:
        raise ValueError(f"ks must be a non-empty list of int, got {ks!r}")


def pass_at_k_table(records, ks):
    """One row per problem with n, c and pass@k for each k, then the mean row.

    Rows are dicts with ``task_id``, ``n``, ``c`` and one ``"pass@<k>"`` key
    per k; the last row's ``task_id`` is :data:`MEAN_ROW` and holds
    :func:`mean_pass_at_k` (its n and c are ``None``: they are not summed,
    because pooling samples across problems is a different quantity).
    Raises ``ValueError`` for bad records, a bad *ks*, or a k larger than
    some problem's n (the message names the problem).

    >>> records = [{"sample_id": f"s{i}", "task_id": t, "status": s}
    ...            for i, (t, s) in enumerate([("A", "passed"), ("A", "timeout"),
    ...                                        ("B", "not_run"), ("B", "not_run")])]
    >>> [row["pass@2"] for row in pass_at_k_table(records, [1, 2])]
    [1.0, 0.0, 0.5]
    """
    _check_ks(ks)
    counts = count_passes(records)
    rows = []
    for task_id, (n, c) in counts.items():
        row = {"task_id": task_id, "n": n, "c": c}
        for k in ks:
            try:
                row[f"pass@{k}"] = pass_at_k(n, c, k)
            except ValueError as error:
                raise ValueError(f"problem {task_id!r}: {error}") from None
        rows.append(row)
    mean = {"task_id": MEAN_ROW, "n": None, "c": None}
    mean.update({f"pass@{k}": mean_pass_at_k(counts, k) for k in ks})
    return rows + [mean]


def evaluation_budget(*, n, ks, timeout, workers, samples="synthetic pool"):
    """The conditions a pass@k number is only valid under, as a dict.

    Keys: ``samples`` (where completions came from), ``n`` (per problem),
    ``k``, ``timeout_s``, ``workers`` and ``python`` (this interpreter's
    version: a changed interpreter can change what passes).

    >>> sorted(evaluation_budget(n=8, ks=[1, 2], timeout=1.0, workers=2))
    ['k', 'n', 'python', 'samples', 'timeout_s', 'workers']
    """
    _check_ks(ks)
    return {"samples": samples, "n": n, "k": list(ks), "timeout_s": timeout,
            "workers": workers, "python": platform.python_version()}


def format_budget(budget):
    """One line: ``budget: samples=..., n=..., ...`` in the dict's order."""
    return "budget: " + ", ".join(f"{key}={value}" for key, value in budget.items())


def format_pass_at_k_table(rows):
    """Render :func:`pass_at_k_table` rows as a fixed-width text table.

    >>> print(format_pass_at_k_table([{"task_id": "A", "n": 2, "c": 1, "pass@1": 0.5}]))
    problem                 n   c  pass@1
    A                       2   1   0.500
    """
    metrics = [key for key in rows[0] if key.startswith("pass@")]
    lines = [f"{'problem':<20}{'n':>5}{'c':>4}" + "".join(f"{m:>8}" for m in metrics)]
    for row in rows:
        n = "" if row["n"] is None else row["n"]
        c = "" if row["c"] is None else row["c"]
        values = "".join(f"{row[m]:>8.3f}" for m in metrics)
        lines.append(f"{row['task_id']:<20}{n:>5}{c:>4}{values}")
    return "\n".join(lines)


def _percent(value):
    return "undefined (nothing ran)" if value is None else f"{value:.1%}"


def build_hand_in_report(records, ks, budget, verdict_counts=None):
    """A short plain-text report a learner could hand in.

    It states the budget first, then what the run cost (samples generated,
    programs run), the execution summary (all five counts, coverage, success
    and attempted success), the per-problem pass@k table, the mean pass@k
    with its standard error and 95% t interval over problems (from two
    problems on; a bound moved to 0 or 1 is marked ``clipped``), optionally
    the final-answer verdict counts (as returned by
    :func:`reasoneval_mini.lessons.answer_pipelines.count_verdicts`), and the
    caveats that bound what the numbers claim.
    """
    summary = execution_summary(records)
    counts = count_passes(records)
    lines = ["# Mini evaluation report", "", format_budget(budget),
             # Lines under 100 characters: JupyterLab breaks longer output lines mid-word.
             f"cost: {summary['planned']} samples planned over {len(counts)} problems, "
             f"{summary['attempted']} programs run;",
             "      every sample counts in pass@k (no selector picked among them)",
             "", "## Execution"]
    lines += [f"- {status}: {summary['counts'][status]}" for status in STATUSES]
    lines += [
        f"- planned {summary['planned']}, attempted {summary['attempted']}",
        f"- coverage {_percent(summary['coverage'])}, success {_percent(summary['success_rate'])}, "
        f"attempted success {_percent(summary['attempted_success_rate'])}",
        "", "## pass@k (estimated per problem, then averaged)",
        format_pass_at_k_table(pass_at_k_table(records, ks)),
    ]
    if len(counts) >= 2:  # a standard error over problems needs two of them
        lines += ["", f"## How sure (95% t interval over {len(counts)} problems, "
                      f"{len(counts) - 1} degrees of freedom)"]
        for k in ks:
            interval = pass_at_k_interval(counts, k, distribution="t")
            clipped = " (clipped to [0, 1])" if interval.clipped else ""
            lines.append(f"- pass@{k} = {interval.estimate:.3f}, SE {interval.standard_error:.3f}, "
                         f"[{interval.low:.3f}, {interval.high:.3f}]{clipped}")
    if verdict_counts is not None:
        total = sum(verdict_counts.values())
        lines += ["", f"## Final answers ({total} outputs, exact rational comparison)"]
        lines += [f"- {name}: {count}" for name, count in verdict_counts.items()]
    lines += [
        "", "## Caveats",
        f"- Samples: {budget.get('samples', 'not stated')}; another source, n, k or timeout "
        "gives another number.",
        "- not_run samples count as failures in n; coverage above says how many ran.",
        "- The interval covers redrawn problems and samples under this budget; with few "
        "problems it is wide.",
        "- It covers this protocol only, not another prompt, temperature, test suite or harness.",
        "- Passing the given tests is not full functional correctness.",
        "- A local run under this budget is not an official benchmark result.",
    ]
    return "\n".join(lines)


def plot_execution_states(records, *, ax=None, figsize=FIGSIZE, dpi=DPI):
    """Draw one stacked bar per problem; a segment's height is its number of samples in one state.

    Returns the Figure.

    Segments follow :data:`STATUSES` from the bottom up with the colours of
    :data:`~reasoneval_mini.lessons.palette.STATE_COLORS` (one per state,
    colour-blind safe); every state has a legend entry even at count 0, so
    charts of different runs can be compared, and the legend lists the
    states top-down in the order the stack shows them (``not_run`` on top). Pass *ax* to draw into an
    existing axes; otherwise a new figure of *figsize* and *dpi* is made.
    Raises ``ValueError`` for invalid records (see
    :func:`count_states_per_problem`).

    >>> figure = plot_execution_states([{"sample_id": "1", "task_id": "A", "status": "passed"}])
    >>> [text.get_text() for text in figure.axes[0].get_legend().get_texts()]
    ['not_run', 'runtime_error', 'timeout', 'assertion_failed', 'passed']
    """
    per_problem = count_states_per_problem(records)
    if ax is None:
        from matplotlib.figure import Figure

        prepare_figure_fonts()
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
    ax.set_ylabel(figure_text(N_("samples")))
    ax.set_title(figure_text(N_("How each problem's samples ended")))
    handles, labels = ax.get_legend_handles_labels()
    # Reversed: read top-down, the legend lists the states as the stack shows them.
    ax.legend(handles[::-1], labels[::-1], loc="upper left", bbox_to_anchor=(1.0, 1.0),
              fontsize="small")
    figure.tight_layout()
    return figure
