"""Exercises for knowledge point 3: execution states and what a run must fix (ex03).

Expected values come from :func:`execution_summary` (tested on its own). The
exercises on the executor and its conditions are in
:mod:`reasoneval_mini.exercise_set_executor`.
"""

from .execution_summary import execution_summary
from .exercise_checks import Exercise, case, same_set
from .exercise_set_executor import EXECUTOR_EXERCISES
from .statuses import STATUSES

NOTEBOOK = "ex03_execution_states.ipynb"

def _rates(records):
    summary = execution_summary(records)
    return {key: summary[key] for key in
            ("planned", "attempted", "coverage", "success_rate", "attempted_success_rate")}


def reference_failure_report(records):
    """Per problem: planned samples, counts of all five states, success rate."""
    groups = {}
    for row in records:
        groups.setdefault(row["problem_id"], []).append(row)
    report = {}
    for problem, rows in groups.items():
        summary = execution_summary(rows)
        report[problem] = {"planned": summary["planned"], "counts": summary["counts"],
                           "success_rate": summary["success_rate"]}
    return report


def _log(*statuses, problem=None):
    rows = [{"sample_id": f"s{i}", "status": status} for i, status in enumerate(statuses, 1)]
    if problem is not None:
        for row in rows:
            row["problem_id"] = problem
    return rows


_FIVE_STATES = Exercise(
    id="kp3_five_state_log", notebook=NOTEBOOK, answer_name="five_state_log", points=1,
    title="Warm-up: a log with all five states",
    statement=(
        "Complete `five_state_log()`: return a list of records (dicts with a unique "
        "`sample_id` string and a `status`) in which every one of the five states "
        "`passed`, `assertion_failed`, `timeout`, `runtime_error`, `not_run` occurs at "
        "least once. Use the constants from `reasoneval_mini.statuses`."),
    checks_what="The set of statuses is exactly the five states, sample ids are unique, and execution_summary accepts the log.",
    hint="One record per state is enough: [{'sample_id': 's1', 'status': PASSED}, ...].",
    checks=(
        case("{row['status'] for row in five_state_log()}",
             lambda f: {row["status"] for row in f()}, set(STATUSES), compare=same_set),
        case("sample ids are unique", lambda f: len({r["sample_id"] for r in f()}) == len(f()), True),
        case("execution_summary(five_state_log())['planned'] == len(five_state_log())",
             lambda f: execution_summary(f())["planned"] == len(f()), True),
    ),
)

_RATE_LOGS = (
    _log("passed", "timeout", "not_run"),
    _log("not_run", "not_run"),
    _log("passed", "assertion_failed", "timeout", "runtime_error", "not_run", "passed"),
    _log("passed", "passed"),
)

_RATES = Exercise(
    id="kp3_rates", notebook=NOTEBOOK, answer_name="rates", points=2,
    title="Denominators: coverage, success and attempted success",
    statement=(
        "Complete `rates(records)` without calling `execution_summary`: return a dict with "
        "`planned` (N), `attempted` (N minus not_run), `coverage` (attempted / N), "
        "`success_rate` (passed / N, the full denominator) and `attempted_success_rate` "
        "(passed / attempted, or `None` when nothing ran: undefined is not 0)."),
    checks_what="Four logs, including the worked example and one where nothing ran; floats or Fractions, tolerance rel 1e-9.",
    hint="Count statuses with collections.Counter; guard the division by attempted.",
    checks=tuple(
        case(f"rates({[row['status'] for row in log]} as records)",
             lambda f, log=log: f([dict(row) for row in log]), _rates(log))
        for log in _RATE_LOGS
    ),
)

_REPORT_LOG = (
    _log("passed", "passed", "timeout", problem="sum_list")
    + [dict(row, sample_id="m" + row["sample_id"])
       for row in _log("runtime_error", "not_run", "not_run", "assertion_failed", problem="median")]
)

_REPORT = Exercise(
    id="kp3_failure_report", notebook=NOTEBOOK, answer_name="failure_report", points=3,
    title="Stretch: per-problem budgets and failure classes",
    statement=(
        "Complete `failure_report(records)`: the records also carry a `problem_id`. Return a "
        "dict mapping each problem id to `{\"planned\": N, \"counts\": {state: count for all "
        "five states}, \"success_rate\": passed / N}`. Keep every state, zeros included: a "
        "timeout and a not_run both score zero but mean different things."),
    checks_what=("Two logs: two problems with mixed states, and one problem where nothing "
                 "ran; every problem, every state and the success rate."),
    hint="Group the records by problem_id first, then count each group like rates().",
    checks=(
        case("failure_report(log with problems sum_list and median)",
             lambda f: f([dict(row) for row in _REPORT_LOG]), reference_failure_report(_REPORT_LOG)),
        case("failure_report(log with one problem, all not_run)",
             lambda f: f(_log("not_run", "not_run", problem="p")),
             reference_failure_report(_log("not_run", "not_run", problem="p"))),
    ),
)

#: Knowledge point 3, in course order (warm-up to stretch).
EXECUTION_EXERCISES = (_FIVE_STATES, _RATES) + EXECUTOR_EXERCISES + (_REPORT,)
