"""Held-out wrong answers: each is caught, and prediction feedback never gives the answer.

Independent of TYPICAL_MISTAKES (one per exercise): these are the second and third
wrong answers a careful student tries, including the ones issue 11 found passing.
"""

import re

import pytest

from reasoneval_mini.exercises.ex01_answer_equivalence import PRACTICE_PREDICTIONS
from reasoneval_mini.exercises.ex03_execution_states import (
    CONDITIONS, MUST_FIX, PROGRAM_STATUSES, reference_failure_report, reference_possible_states)
from reasoneval_mini.exercises.registry import (
    EXERCISES, STATE_FAILED, STATE_PASSED, exercise_state, run_checks)
from reasoneval_mini.feedback import format_report
from reasoneval_mini.answers import extract_final_answer, numeric_equivalence
from reasoneval_mini.records import PASSED, STATUSES


def _report_over_attempted(records):
    report = reference_failure_report(records)
    for row in report.values():
        counts = row["counts"]
        attempted = row["planned"] - counts["not_run"]
        row["success_rate"] = counts[PASSED] / attempted if attempted else 0.0
    return report


def _gsm8k_first_marker(completion, reference):
    # GSM8K's own regex takes the first "####"; the course's protocol the last.
    match = re.search(r"#### (\-?[0-9\.\,]+)", completion)
    return numeric_equivalence(match.group(1), extract_final_answer(reference)) if match else None


def _rates_zero_when_nothing_ran(records):
    n = len(records)
    attempted = n - sum(r["status"] == "not_run" for r in records)
    passed = sum(r["status"] == "passed" for r in records)
    return {"planned": n, "attempted": attempted, "coverage": attempted / n,
            "success_rate": passed / n,
            "attempted_success_rate": passed / attempted if attempted else 0.0}


WRONG_ANSWERS = [
    ("kp1_score_gsm8k", "GSM8K's own regex: the first marker", _gsm8k_first_marker),
    ("kp3_rates", "attempted_success_rate 0 when nothing ran", _rates_zero_when_nothing_ran),
    ("kp3_possible_states", "not_run added to 'timed out'",
     lambda r: reference_possible_states(r) | ({"not_run"} if r["result"] == "timed out" else set())),
    ("kp3_failure_report", "success_rate = passed / attempted", _report_over_attempted),
    ("kp3_conditions_to_fix", "everything on the menu", lambda: set(CONDITIONS)),
    ("kp3_conditions_to_fix", "the must-fix set plus retry_timeouts",
     lambda: set(MUST_FIX) | {"retry_timeouts"}),
    ("kp3_possible_states", "one state per result, timed out = {timeout, runtime_error} only",
     lambda r: {"passed"} if r["result"] == "passed" else {"timeout", "runtime_error"}),
    ("kp3_possible_states", "the right sets but no ValueError for impossible dicts",
     lambda r: reference_possible_states(r) if r.get("result") in ("passed", "timed out")
     or str(r.get("result", "")).startswith("failed: ") and "passed" in r and "task_id" in r
     and r["passed"] is False else {"runtime_error"}),
    ("kp1_practice_verdicts", "strings instead of None", lambda: {
        p: str(numeric_equivalence(p, "1/2")) for p in PRACTICE_PREDICTIONS}),
    ("kp3_predict_statuses", "missing_module as not_run",
     lambda: {**PROGRAM_STATUSES, "missing_module": "not_run"}),
]


@pytest.mark.parametrize("exercise_id, what, answer", WRONG_ANSWERS,
                         ids=[f"{i}: {w}" for i, w, _ in WRONG_ANSWERS])
def test_a_held_out_wrong_answer_fails(exercise_id, what, answer):
    assert exercise_state(run_checks(exercise_id, answer)) == STATE_FAILED


def _printed(exercise_id, answer):
    return format_report(EXERCISES[exercise_id], run_checks(exercise_id, answer), answer)


def test_practice_feedback_names_the_wrong_prediction_but_not_its_verdict():
    text = _printed("kp1_practice_verdicts",
                    lambda: {"0.5": True, "1/2": True, "0.5001": False, "0.5 kg": False})
    failing = [line for line in text.splitlines() if "FAIL" in line]
    assert failing == ["  FAIL  practice_verdicts()['0.5 kg']"]
    assert "None" not in text


def test_predict_feedback_names_the_wrong_programs_but_not_their_states():
    answer = dict.fromkeys(PROGRAM_STATUSES, "passed")
    text = _printed("kp3_predict_statuses", answer=lambda: answer)
    wrong = [name for name, state in PROGRAM_STATUSES.items() if state != "passed"]
    assert all(f"FAIL  predicted_statuses()[{name!r}]" in text for name in wrong)
    for state in set(STATUSES) - {"passed"}:
        assert state not in text


def test_conditions_feedback_for_an_empty_set_names_no_condition():
    text = _printed("kp3_conditions_to_fix", lambda: set())
    assert not any(key in text for key in CONDITIONS)
    assert f"{len(MUST_FIX)} conditions" in text


def test_conditions_feedback_for_the_whole_menu_names_no_condition():
    # The actual line repeats the learner's own set; the why line must name nothing.
    text = _printed("kp3_conditions_to_fix", lambda: set(CONDITIONS))
    why = [line for line in text.splitlines() if line.strip().startswith(("why:", "expected:"))]
    assert why and not any(key in line for line in why for key in CONDITIONS)


def test_possible_states_feedback_never_shows_a_missing_state():
    # The answer {passed} everywhere: the feedback may name passed (wrong), nothing else.
    text = _printed("kp3_possible_states", lambda r: {"passed"})
    for state in set(STATUSES) - {"passed"}:
        assert state not in text.replace("possible_states", "")


def test_possible_states_feedback_for_all_five_states_names_no_state():
    # Choosing everything must not be answered with the impossible ones (that is the answer).
    text = _printed("kp3_possible_states", lambda r: set(STATUSES))
    why = [line for line in text.splitlines() if line.strip().startswith(("why:", "expected:"))]
    assert why and not any(state in line for line in why for state in STATUSES)


def test_a_plain_hidden_check_on_a_prediction_exercise_is_concealed():
    from reasoneval_mini.exercises.checks import WITHHELD, case

    hidden = case("practice_verdicts()['0.5 kg']", lambda f: f()["0.5 kg"], None)
    results = run_checks("kp1_practice_verdicts", lambda: {p: False for p in PRACTICE_PREDICTIONS},
                         extra_checks=[hidden])
    assert results[-1].expected == WITHHELD and "None" not in results[-1].message


def test_function_exercises_keep_their_expected_values():
    results = run_checks("kp3_rates", lambda records: {})
    assert results[0].expected.startswith("{'planned'")


def test_the_solutions_pass_the_new_checks():
    # Direct check of the two new check sets against their references.
    assert exercise_state(run_checks("kp3_possible_states", reference_possible_states)) == STATE_PASSED
    assert exercise_state(run_checks("kp3_failure_report", reference_failure_report)) == STATE_PASSED
