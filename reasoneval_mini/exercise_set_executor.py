"""Exercises for knowledge point 3 that involve the executor and its conditions (ex03).

The expected states of :data:`PROGRAMS` are a written table, so that grading
runs no subprocess; ``tests/test_exercise_set.py`` runs every program through
:func:`execute_program` and checks the table against the real results. The
executor is imported only when a check builds its sample results.
"""

from .execution_summary import execution_summary
from .exercise_checks import Exercise, case, lazy, same_set
from .statuses import ASSERTION_FAILED, NOT_RUN, PASSED, RUNTIME_ERROR, TIMEOUT

NOTEBOOK = "ex03_execution_states.ipynb"

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
# needs no subprocess; tests/test_exercise_set.py runs every program through
# execute_program and checks this table against the real results.
PROGRAM_STATUSES = {
    "adds_up": PASSED, "wrong_sum": ASSERTION_FAILED, "divides_by_zero": RUNTIME_ERROR,
    "spins_forever": TIMEOUT, "missing_module": RUNTIME_ERROR, "exits_early": RUNTIME_ERROR,
    "prints_then_fails": ASSERTION_FAILED,
}


def sample_results():
    """Executor results as a run would return them (``None`` = never executed)."""
    from .execute_program import ExecutionResult  # only when a check needs it

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
        "`CONDITIONS` (in `reasoneval_mini.exercise_set_executor`, printed by the cell below) is a menu of things one "
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

#: The executor exercises, in course order.
EXECUTOR_EXERCISES = (_PREDICT, _RECORDS, _CONDITIONS)
