"""ex03's four function exercises, played by the students who try to game them (issue 23).

``kp3_five_state_log``, ``kp3_rates``, ``kp3_records_from_results`` and
``kp3_failure_report`` draw their logs (or runs) per variant, and the grader
adds inputs of its own. Each test plays one student: the one who delegates to
the library, the one who harvests a lookup table from ``check()``, the two who
share it, the one who holds one of the page's misconceptions, the one who
hands in the master's solution, the one who hands in the untouched stub.

Expected values are never taken from the course here: :data:`BY_HAND` counts
every input again with ``Fraction`` and loops, and must earn full marks on
every variant, in ``check()`` and as the grader scores (hidden checks
included), so each check's expected value agrees with it.
"""

import ast
import json
import re
from fractions import Fraction
from pathlib import Path

import pytest

import reasoneval_mini
from assessment_play import IDENTITIES, TEST_KEY, check_results, grade_score
from reasoneval_mini.exercises.registry import (
    EXERCISES, STATE_NOT_ATTEMPTED, exercise_state, run_checks)
from reasoneval_mini.exercises.variants import Variant
from reasoneval_mini.feedback import format_report

# The checkout of the package under test (so that the masters match the registry).
ROOT = Path(reasoneval_mini.__file__).resolve().parents[1]
STATES = ("passed", "assertion_failed", "timeout", "runtime_error", "not_run")
IDS = ("kp3_five_state_log", "kp3_rates", "kp3_records_from_results", "kp3_failure_report")


# --- The independent reference: counted here, by hand -------------------------------------

def five_state_log_by_hand(counts):
    log = []
    for state in counts:
        for _ in range(counts[state]):
            log.append({"sample_id": f"r{len(log)}", "status": state})
    return log


def rates_by_hand(records):
    planned = len(records)
    passed = len([row for row in records if row["status"] == "passed"])
    attempted = len([row for row in records if row["status"] != "not_run"])
    return {"planned": planned, "attempted": attempted,
            "coverage": Fraction(attempted, planned),
            "success_rate": Fraction(passed, planned),
            "attempted_success_rate": Fraction(passed, attempted) if attempted else None}


def records_by_hand(results):
    rows = []
    for sample_id in results:
        result = results[sample_id]
        if result is None:
            rows.append({"sample_id": sample_id, "status": "not_run",
                         "detail": "never executed", "duration_s": None})
        else:
            rows.append({"sample_id": sample_id, "status": result.status,
                         "detail": result.detail, "duration_s": result.duration_s})
    return rows


def failure_report_by_hand(records):
    report = {}
    for row in records:
        entry = report.setdefault(row["problem_id"], {
            "planned": 0, "counts": {state: 0 for state in STATES}})
        entry["planned"] += 1
        entry["counts"][row["status"]] += 1
    for entry in report.values():
        entry["success_rate"] = Fraction(entry["counts"]["passed"], entry["planned"])
    return report


BY_HAND = {"kp3_five_state_log": five_state_log_by_hand, "kp3_rates": rates_by_hand,
           "kp3_records_from_results": records_by_hand,
           "kp3_failure_report": failure_report_by_hand}


def _points(exercise_id):
    return EXERCISES[exercise_id].points


def _hidden_count(exercise_id, identity):
    return len(EXERCISES[exercise_id].hidden_checks(Variant(identity, key=TEST_KEY)))


# --- The solution, as the master holds it ---------------------------------------------------

def _master_answers():
    """The master's setup cell and the four solution cells, run as a notebook runs them."""
    notebook = json.loads((ROOT / "solutions" / "ex03_execution_states.ipynb")
                          .read_text(encoding="utf-8"))
    cells = {cell["metadata"].get("nbgrader", {}).get("grade_id"): "".join(cell["source"])
             for cell in notebook["cells"]}
    namespace = {"__name__": "__main__"}
    for grade_id in ("ex03_setup",) + IDS:
        exec(compile(cells[grade_id], f"<master {grade_id}>", "exec"), namespace)
    return {exercise_id: namespace[EXERCISES[exercise_id].answer_name] for exercise_id in IDS}


MASTER = _master_answers()


@pytest.mark.parametrize("exercise_id", IDS)
@pytest.mark.parametrize("who", ["the master's solution", "the count by hand"])
def test_the_solution_and_a_count_by_hand_earn_full_marks_on_every_variant(exercise_id, who):
    answer = MASTER[exercise_id] if who == "the master's solution" else BY_HAND[exercise_id]
    assert len(IDENTITIES) >= 50
    for identity in IDENTITIES:
        shown = check_results(exercise_id, answer, identity)
        assert shown and all(result.passed for result in shown), (identity, [
            result.message for result in shown if not result.passed])
        # The grader scores on hidden checks of its own, and these pass too.
        assert _hidden_count(exercise_id, identity) >= 3, identity
        assert grade_score(exercise_id, answer, identity) == _points(exercise_id), identity


@pytest.mark.parametrize("exercise_id", IDS)
def test_the_untouched_stub_earns_nothing_and_is_not_attempted(exercise_id):
    def stub(*args):
        raise NotImplementedError()

    for identity in IDENTITIES:
        assert exercise_state(check_results(exercise_id, stub, identity)) == STATE_NOT_ATTEMPTED
        hidden = run_checks(exercise_id, stub, variant=Variant(identity, key=TEST_KEY),
                            hidden=True)
        assert len(hidden) > len(check_results(exercise_id, stub, identity))
        assert not any(result.attempted for result in hidden)
        assert grade_score(exercise_id, stub, identity) == 0


@pytest.mark.parametrize("exercise_id", IDS)
def test_check_says_how_many_public_checks_pass_and_that_the_grader_adds_more(exercise_id):
    report = format_report(EXERCISES[exercise_id], check_results(
        exercise_id, MASTER[exercise_id], "self-study"))
    flat = " ".join(report.split())
    assert re.search(r"\d+ of \d+ public checks pass", flat)
    assert "The grader adds hidden checks" in flat
    assert not re.search(r"all (the )?(tests|checks) pass", flat, re.IGNORECASE)


# --- Variants: the inputs and the statement's numbers follow the student -------------------

@pytest.mark.parametrize("exercise_id", IDS)
def test_two_students_rarely_get_the_same_inputs_or_statement(exercise_id):
    exercise = EXERCISES[exercise_id]
    draws = [repr(exercise.data(Variant(identity))) for identity in IDENTITIES]
    statements = [exercise.statement_for(Variant(identity)) for identity in IDENTITIES]
    assert len(set(draws)) >= 0.9 * len(draws)
    assert len(set(statements)) >= 0.5 * len(statements)


def _counted(log):
    return {state: len([row for row in log if row["status"] == state]) for state in STATES}


def test_the_rates_statement_works_the_variants_own_first_log():
    for identity in IDENTITIES:
        log = EXERCISES["kp3_rates"].data(Variant(identity))[0]
        counts = _counted(log)
        planned, attempted = len(log), len(log) - counts["not_run"]
        statement = EXERCISES["kp3_rates"].statement_for(Variant(identity))
        assert (f"coverage {attempted}/{planned}, success rate {counts['passed']}/{planned} "
                f"and attempted success rate {counts['passed']}/{attempted}") in statement


def test_the_report_statement_works_the_variants_partly_run_problem():
    for identity in IDENTITIES:
        log = EXERCISES["kp3_failure_report"].data(Variant(identity))[1]
        counts = _counted(log)
        statement = EXERCISES["kp3_failure_report"].statement_for(Variant(identity))
        assert (f"`{log[0]['problem_id']}` with" in statement and
                f"planned {len(log)} and success_rate {counts['passed']}/{len(log)}, not "
                f"{counts['passed']}/{len(log) - counts['not_run']}" in statement)


def test_the_five_state_and_records_statements_follow_the_variant():
    for identity in IDENTITIES:
        counts = EXERCISES["kp3_five_state_log"].data(Variant(identity))[0]
        statement = EXERCISES["kp3_five_state_log"].statement_for(Variant(identity))
        assert f"five_state_log({counts!r})` returns {sum(counts.values())} records" in statement
        run = EXERCISES["kp3_records_from_results"].data(Variant(identity))[0]
        never = len([spec for _, spec in run if spec is None])
        statement = EXERCISES["kp3_records_from_results"].statement_for(Variant(identity))
        task = run[0][0].rsplit("/", 1)[0]
        assert (f"(of `{task}`), plans {len(run)} samples, {never} of them never executed, so its records "
                f"give coverage {len(run) - never}/{len(run)}") in statement


# --- The student who delegates ------------------------------------------------------------

def _rates_with_summary(records):
    from reasoneval_mini.records import execution_summary
    summary = execution_summary(records)
    return {key: summary[key] for key in ("planned", "attempted", "coverage", "success_rate",
                                          "attempted_success_rate")}


def _rates_with_counts_by_problem(records):
    from reasoneval_mini.evaluation.code_report import counts_by_problem
    counts = counts_by_problem([dict(row, task_id="t") for row in records], ["t"])["t"]
    planned, attempted = len(records), len(records) - counts["not_run"]
    return {"planned": planned, "attempted": attempted, "coverage": attempted / planned,
            "success_rate": counts["passed"] / planned,
            "attempted_success_rate": counts["passed"] / attempted if attempted else None}


def _report_with_lesson_counter(records):
    from reasoneval_mini.lessons.evaluation_report import count_states_per_problem
    counts = count_states_per_problem([dict(row, task_id=row["problem_id"]) for row in records])
    return {problem: {"planned": sum(states.values()), "counts": states,
                      "success_rate": states["passed"] / sum(states.values())}
            for problem, states in counts.items()}


def _report_with_the_exercise_reference(records):
    from reasoneval_mini.exercises import ex03_execution_states as course
    return course._reference_failure_report(records)


def _five_states_with_the_module_helper(counts):
    from reasoneval_mini.exercises import ex03_execution_states as course
    return course._log(*[state for state, number in counts.items() for _ in range(number)])


def _records_with_the_executor_record(results):
    from reasoneval_mini.executor.samples import _Run
    run = _Run(plan=[], records=[], timeout=1.0, isolation="none")
    rows = []
    for sample_id, result in results.items():
        item = {"sample_id": sample_id, "task_id": "t"}
        row = (run.record(item, "not_run", "never executed", None) if result is None else
               run.record(item, result.status, result.detail, result.duration_s))
        rows.append({key: row[key] for key in ("sample_id", "status", "detail", "duration_s")})
    return rows


def _records_with_the_exercise_reference(results):
    from reasoneval_mini.exercises import ex03_execution_states as course
    specs = [(sample_id, None if result is None else
              (result.status, result.detail, result.duration_s))
             for sample_id, result in results.items()]
    return course._expected_records(specs)


DELEGATIONS = [
    ("kp3_five_state_log", "reasoneval_mini.exercises.ex03_execution_states._log",
     _five_states_with_the_module_helper),
    ("kp3_rates", "reasoneval_mini.records.execution_summary", _rates_with_summary),
    ("kp3_rates", "reasoneval_mini.evaluation.code_report.counts_by_problem",
     _rates_with_counts_by_problem),
    ("kp3_failure_report", "reasoneval_mini.lessons.evaluation_report.count_states_per_problem",
     _report_with_lesson_counter),
    ("kp3_failure_report",
     "reasoneval_mini.exercises.ex03_execution_states._reference_failure_report",
     _report_with_the_exercise_reference),
    ("kp3_records_from_results", "reasoneval_mini.executor.samples._Run.record",
     _records_with_the_executor_record),
    ("kp3_records_from_results",
     "reasoneval_mini.exercises.ex03_execution_states._expected_records",
     _records_with_the_exercise_reference),
]


@pytest.mark.parametrize("exercise_id, call, answer", DELEGATIONS,
                         ids=[f"{i}: {c.rsplit('.', 1)[-1]}" for i, c, _ in DELEGATIONS])
def test_the_student_who_delegates_earns_nothing_and_hears_which_call(exercise_id, call,
                                                                      answer):
    for identity in IDENTITIES[:12]:
        # Not watched, the delegation is right: only the refusal takes its points.
        unwatched = run_checks(exercise_id, answer, variant=Variant(identity), in_process=False)
        assert all(result.passed for result in unwatched), identity
        shown = check_results(exercise_id, answer, identity)
        assert all(result.delegated == call for result in shown), identity
        assert all(f"your function calls {call}," in result.message for result in shown)
        assert "earns nothing while it does" in shown[0].message
        assert grade_score(exercise_id, answer, identity) == 0


# --- The students who harvest a lookup table, and the classmate who borrows it -------------

def _harvest(exercise_id, identity):
    """Every input ``check()`` calls the answer with, found by a stub that records and raises.

    The table maps each input (by its text) to the right value, as a student copies it
    from the expected column; here it is the count by hand, which equals it.
    """
    seen = []

    def recorder(*args):
        seen.append(args)
        raise RuntimeError("recording")

    check_results(exercise_id, recorder, identity)
    assert seen
    return {repr(args): BY_HAND[exercise_id](*args) for args in seen}


def _lookup(table):
    def answer(*args):
        return table[repr(args)]  # KeyError for an input never seen
    return answer


@pytest.mark.parametrize("exercise_id", IDS)
def test_a_lookup_table_harvested_from_check_passes_check_and_earns_nothing(exercise_id):
    for identity in IDENTITIES:
        table = _lookup(_harvest(exercise_id, identity))
        assert all(result.passed for result in check_results(exercise_id, table, identity))
        assert _hidden_count(exercise_id, identity) >= 3
        assert grade_score(exercise_id, table, identity) == 0, identity


@pytest.mark.parametrize("exercise_id", IDS)
def test_a_classmates_lookup_table_fails_your_own_check_and_earns_nothing(exercise_id):
    for ada, bob in zip(IDENTITIES[::2], IDENTITIES[1::2]):
        borrowed = _lookup(_harvest(exercise_id, ada))
        mine = check_results(exercise_id, borrowed, bob)
        assert not all(result.passed for result in mine), (ada, bob)
        assert grade_score(exercise_id, borrowed, bob) == 0, (ada, bob)


# --- The students who hold one of the page's misconceptions -------------------------------

def _rates_zero_when_nothing_ran(records):
    right = rates_by_hand(records)
    if right["attempted_success_rate"] is None:
        right["attempted_success_rate"] = 0.0
    return right


def _rates_none_when_nothing_passed(records):
    right = rates_by_hand(records)
    if right["attempted_success_rate"] == 0:
        right["attempted_success_rate"] = None
    return right


def _rates_over_attempted(records):
    right = rates_by_hand(records)
    right["success_rate"] = right["attempted_success_rate"] or 0
    return right


def _log_without_not_run(counts):
    return five_state_log_by_hand({state: n for state, n in counts.items() if state != "not_run"})


def _records_dropping_never_run(results):
    return [row for row in records_by_hand(results) if row["status"] != "not_run"]


def _report_over_attempted(records):
    report = failure_report_by_hand(records)
    for entry in report.values():
        attempted = entry["planned"] - entry["counts"]["not_run"]
        entry["success_rate"] = Fraction(entry["counts"]["passed"], attempted) if attempted else 0
    return report


def _report_none_when_nothing_ran(records):
    report = failure_report_by_hand(records)
    for entry in report.values():
        if entry["counts"]["not_run"] == entry["planned"]:
            entry["success_rate"] = None
    return report


MISCONCEPTIONS = [
    ("kp3_rates", "attempted success 0 instead of None when nothing ran", "None vs 0",
     _rates_zero_when_nothing_ran),
    ("kp3_rates", "attempted success None when everything ran and nothing passed", "None vs 0",
     _rates_none_when_nothing_passed),
    ("kp3_rates", "success rate over the attempted samples only",
     "not_run in the denominator vs dropped", _rates_over_attempted),
    ("kp3_five_state_log", "no record for the samples that never ran",
     "not_run in the denominator vs dropped", _log_without_not_run),
    ("kp3_records_from_results", "the never-executed samples dropped",
     "not_run in the denominator vs dropped", _records_dropping_never_run),
    ("kp3_failure_report", "success rate over the attempted samples only",
     "not_run in the denominator vs dropped", _report_over_attempted),
    ("kp3_failure_report", "success rate None for a problem where nothing ran", "None vs 0",
     _report_none_when_nothing_ran),
]


@pytest.mark.parametrize("exercise_id, what, distinction, answer", MISCONCEPTIONS,
                         ids=[f"{i}: {w}" for i, w, _, _ in MISCONCEPTIONS])
def test_a_misconception_earns_at_most_a_third_on_every_variant(exercise_id, what, distinction,
                                                                 answer):
    for identity in IDENTITIES:
        shown = check_results(exercise_id, answer, identity)
        # A failed check marked with the distinction, and no failed check marked with another
        # (the note names only what this answer gets wrong); unmarked checks may fail too.
        marks = {result.distinction for result in shown if not result.passed}
        assert distinction in marks and marks <= {distinction, ""}, (identity, marks)
        assert grade_score(exercise_id, answer, identity) <= Fraction(_points(exercise_id), 3)
        report = " ".join(format_report(EXERCISES[exercise_id], shown).split())
        assert f"checks the distinction {distinction}" in report


def test_the_expected_values_are_shown_for_function_exercises_and_read_back():
    # What a learner copies from the expected column is the value itself (no Withheld).
    shown = check_results("kp3_rates", lambda records: {}, "self-study")
    logs = EXERCISES["kp3_rates"].data(Variant("self-study"))
    for result, log in zip(shown, logs):
        expected = ast.literal_eval(result.expected)
        right = rates_by_hand(log)
        assert expected.keys() == right.keys()
        assert all(expected[key] == right[key] or abs(expected[key] - right[key]) < 1e-12
                   for key in right)
