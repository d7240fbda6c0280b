"""Exercises for knowledge point 3: execution states and what a run must fix (ex03).

Expected values come from :func:`execution_summary` (tested on its own).
For the exercises on the executor and its conditions, the expected states of :data:`PROGRAMS` are a written table, so that grading
runs no subprocess; ``tests/exercises/test_exercise_set.py`` runs every program through
:func:`execute_program` and checks the table against the real results. The
executor is imported only when a check builds its sample results.
"""

from reasoneval_mini.exercises.checks import Exercise, case, lazy, same_set
from reasoneval_mini.course_map import exercise_notebook_for
from reasoneval_mini.records import (
    ASSERTION_FAILED,
    NOT_RUN,
    PASSED,
    RUNTIME_ERROR,
    STATUSES,
    TIMEOUT,
    execution_summary,
)


#: This exercise set's notebook, as the course map names it.
NOTEBOOK = exercise_notebook_for(__name__).notebook

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
        "least once. Use the constants from `reasoneval_mini.records`."),
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


#: The menu for the conditions exercise: key -> what one might fix or do.
CONDITIONS = {
    "python_version": "the exact Python version that runs the programs and tests",
    "pinned_dependencies": "the installed packages and their exact versions",
    "time_limit": "the time limit per sample",
    "memory_limit": "the memory limit per sample",
    "network_access": "whether a program can reach the network (blocked)",
    "fresh_process": "a fresh process per sample, so one sample cannot change another's state",
    "clean_workdir": "a clean temporary working directory per sample",
    "test_suite_version": "the exact tests each problem is scored with",
    "retry_timeouts": "re-run a sample that timed out until it passes",
    "drop_crashes": "leave samples that crashed out of the denominator",
    "reformat_code": "reformat generated programs with a code formatter before running them",
    "guard_is_sandbox": "treat disabling dangerous functions inside the process as the security boundary",
    "editor_theme": "the colour theme of the editor of whoever runs the evaluation",
}

# The answer, kept apart from the menu the notebook prints. Each must-fix item
# changes what is scored when it varies (the source page: dependencies,
# timeouts, reachable resources); the others change the score itself, are no
# security boundary (HumanEval's reliability_guard), or do not matter.
MUST_FIX = frozenset({
    "python_version", "pinned_dependencies", "time_limit", "memory_limit",
    "network_access", "fresh_process", "clean_workdir", "test_suite_version",
})


#: Programs whose execution state the learner predicts (run with timeout=1.0).
PROGRAMS = {
    "adds_up": "assert 1 + 1 == 2",
    "wrong_sum": "assert sum([1, 2]) == 4",
    "divides_by_zero": "print(1 / 0)",
    "spins_forever": "while True:\n    pass",
    "missing_module": "import reasoneval_no_such_module",
    "exits_early": "import sys\nsys.exit(0)\nassert False",
    "prints_then_fails": "print('ok so far')\nassert 'a' == 'b'",
}

# The executor's documented verdicts for PROGRAMS. Written down so that grading
# needs no subprocess; tests/exercises/test_exercise_set.py runs every program through
# execute_program and checks this table against the real results.
PROGRAM_STATUSES = {
    "adds_up": PASSED, "wrong_sum": ASSERTION_FAILED, "divides_by_zero": RUNTIME_ERROR,
    "spins_forever": TIMEOUT, "missing_module": RUNTIME_ERROR, "exits_early": RUNTIME_ERROR,
    "prints_then_fails": ASSERTION_FAILED,
}


def sample_results():
    """Executor results as a run would return them (``None`` = never executed)."""
    from reasoneval_mini.executor.program import ExecutionResult  # only when a check needs it

    return {
        "s1": ExecutionResult(status=PASSED, detail="ran to the end without an exception",
                              duration_s=0.02, stdout_tail="6\n", exit_code=0),
        "s2": ExecutionResult(status=ASSERTION_FAILED, detail="AssertionError (no message) (line 3)",
                              duration_s=0.03, stderr_tail="Traceback ...\nAssertionError\n",
                              exit_code=1),
        "s3": ExecutionResult(status=TIMEOUT,
                              detail="still running after 1 s; its process group was killed",
                              duration_s=1.01, signal=9),
        "s4": None,
        "s5": ExecutionResult(status=RUNTIME_ERROR, detail="ZeroDivisionError: division by zero (line 2)",
                              duration_s=0.02,
                              stderr_tail="Traceback ...\nZeroDivisionError: division by zero\n",
                              exit_code=1),
        "s6": None,
    }


def reference_records(results):
    """One record per planned sample; ``None`` becomes ``not_run``, never a dropped row."""
    records = []
    for sample_id, result in results.items():
        if result is None:
            records.append({"sample_id": sample_id, "status": NOT_RUN,
                            "detail": "never executed", "duration_s": None})
        else:
            records.append({"sample_id": sample_id, "status": result.status,
                            "detail": result.detail, "duration_s": result.duration_s})
    return records


_PREDICT = Exercise(
    id="kp3_predict_statuses", notebook=NOTEBOOK, answer_name="predicted_statuses", points=2,
    title="Predict the executor's verdicts",
    statement=(
        "`PROGRAMS` (printed by the cell below) holds seven tiny programs. Without running them, complete "
        "`predicted_statuses()`: return a dict mapping each program's name to the state "
        "`execute_program(program, timeout=1.0).status` gives. Careful: the executor counts "
        "a pass only when the program runs to its end. Afterwards you may run them in a new "
        "cell (`from reasoneval_mini import execute_program`) and read each result's `detail` "
        "to see why."),
    checks_what="One test per program: the exact state name (one of the five constants).",
    hint=("An AssertionError is assertion_failed, any other exception runtime_error; leaving "
          "early with sys.exit(0) is not a pass; a loop that never ends is a timeout."),
    checks=(
        case("sorted(predicted_statuses())", lambda f: sorted(f()), sorted(PROGRAMS)),
    ) + tuple(
        case(f"predicted_statuses()[{name!r}]", lambda f, name=name: f()[name], status)
        for name, status in PROGRAM_STATUSES.items()
    ),
)

_RECORDS = Exercise(
    id="kp3_records_from_results", notebook=NOTEBOOK, answer_name="records_from_results", points=2,
    title="Trace the executor's result fields into records",
    statement=(
        "`results` maps each planned sample id to the `ExecutionResult` the executor returned "
        "(fields `status`, `detail`, `duration_s`, `stdout_tail`, `stderr_tail`, ...) or to "
        "`None` when the sample was planned but never executed. Complete "
        "`records_from_results(results)`: return one record per planned sample, in order, "
        "`{\"sample_id\": ..., \"status\": ..., \"detail\": ..., \"duration_s\": ...}` taken "
        "from the result; a sample that never ran gets status `not_run`, detail "
        "`\"never executed\"` and duration_s `None`. Never drop a sample."),
    checks_what="Six planned samples (four results, two never executed): every record, and the coverage it gives.",
    hint="Loop over results.items(); `if result is None` first, then read result.status, .detail, .duration_s.",
    checks=(
        case("records_from_results(sample_results())", lambda f: f(sample_results()),
             lazy(lambda: reference_records(sample_results()))),
        case("execution_summary(records_from_results(sample_results()))['coverage']",
             lambda f: execution_summary(f(sample_results()))["coverage"],
             lazy(lambda: execution_summary(reference_records(sample_results()))["coverage"])),
    ),
)

_CONDITIONS = Exercise(
    id="kp3_conditions_to_fix", notebook=NOTEBOOK, answer_name="conditions_to_fix", points=2,
    title="What a real code evaluation must fix",
    statement=(
        "`CONDITIONS` (in `reasoneval_mini.exercises.ex03_execution_states`, printed by the cell below) is a menu of things one "
        "might do or fix when running generated code. Complete `conditions_to_fix()`: return "
        "the set of keys of the isolation and dependency conditions a real evaluation must "
        "fix and report. Leave out the practices that distort the result and the details "
        "that do not matter."),
    checks_what="Every must-fix condition is chosen, and nothing that distorts the result or is irrelevant.",
    hint=("Changing dependencies, time limits or reachable resources changes what is scored; "
          "retrying, dropping or rewriting samples changes the score itself."),
    checks=(
        case("conditions_to_fix() (keys missing / not expected)",
             lambda f: set(f()), set(MUST_FIX), compare=same_set),
    ),
)

#: Knowledge point 3, in course order (warm-up to stretch).
EXERCISES = (_FIVE_STATES, _RATES, _PREDICT, _RECORDS, _CONDITIONS, _REPORT)
