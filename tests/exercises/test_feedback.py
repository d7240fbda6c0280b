"""Learner feedback: check, hint, progress, and comparison by value."""

import json
import re
import unicodedata
from fractions import Fraction
from pathlib import Path

import pytest

from reasoneval_mini.exercises.variants import current_variant

from reasoneval_mini import feedback
from reasoneval_mini.feedback import NOT_CHECKED, check, hint, progress, task_data
from reasoneval_mini.exercises.checks import (
    FLOAT_ABS_TOL, FLOAT_REL_TOL, case, rejects, same_set, same_value, show)
from reasoneval_mini.exercises.registry import WRITTEN_TASKS
from reasoneval_mini.exercises.registry import EXERCISES
from reasoneval_mini.support.i18n import language
from translations import zh

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def fresh_session(monkeypatch):
    monkeypatch.setattr(feedback, "_SESSION_STATES", {})


def _stub(*args):
    raise NotImplementedError()


def _exact_bundle():
    """The first bundle of the exact exercise in this kernel's variant: (valid, refused)."""
    return EXERCISES["kp2_exact_pass_at_k"].data(current_variant())["bundles"][0]


def test_failed_check_prints_call_expected_actual_and_why(capsys):
    from reasoneval_mini.exercises.ex02_pass_at_k import _exact_pass_at_k

    report = check("kp2_exact_pass_at_k", lambda n, c, k: 0.7)
    out = capsys.readouterr().out
    (first, second), ((n, c, k, _, _),) = _exact_bundle()
    assert f"FAIL  exact_pass_at_k on {first}, {second}, refusing {(n, c, k)}" in out
    assert (f"expected: {show(_exact_pass_at_k(*first))} | {show(_exact_pass_at_k(*second))}"
            in out and "actual:   0.7" in out)
    assert f"why:      exact_pass_at_k{first}: expected an exact int or Fraction" in out
    assert "expected an exact int or Fraction, got a float" in out
    assert f"exact_pass_at_k{(n, c, k)}: returned a value instead of raising ValueError" in out
    assert "| raises ValueError, message mentions 'k', and not 'c'" in out
    assert "Traceback" not in out and "hint('kp2_exact_pass_at_k')" in out
    assert report.state == "failed" and not any(r.passed for r in report.results)


def test_passing_test_shows_call_and_value(capsys):
    check("kp2_two_subsets", lambda n: [(i, j) for i in range(n) for j in range(i + 1, n)])
    out = capsys.readouterr().out
    assert "PASS  two_subsets(5)  ->  10 | True | {{0, 1}, {0, 2}" in out
    assert "2 of 2 public checks pass." in out and "hidden checks" in out
    assert "All" not in out  # the grader runs checks of its own: "all tests pass" would mislead


def test_untouched_stub_is_not_attempted_yet(capsys):
    report = check("kp1_classify_outcome", _stub)
    out = capsys.readouterr().out
    assert "not attempted yet" in out and "classify_outcome" in out
    assert "FAIL" not in out and "Traceback" not in out
    assert report.state == "not attempted"


def test_an_exception_from_the_answer_is_a_failure_not_a_traceback(capsys):
    check("kp3_rates", lambda records: records[99])
    out = capsys.readouterr().out
    assert "actual:   IndexError: list index out of range" in out
    assert "the call raised IndexError" in out and "Traceback" not in out


def test_output_is_deterministic(capsys):
    from assessment_play import typed_function

    # Typed in, as the exercise asks; the same set written in two orders prints the same.
    check("kp3_conditions_to_fix", typed_function(
        "def conditions_to_fix():\n    return {'time_limit', 'editor_theme'}\n", "conditions_to_fix"))
    first = capsys.readouterr().out
    check("kp3_conditions_to_fix", typed_function(
        "def conditions_to_fix():\n    return {'editor_theme', 'time_limit'}\n", "conditions_to_fix"))
    assert capsys.readouterr().out == first
    assert "0x" not in first  # no memory addresses


def test_under_nbgrader_a_failed_check_raises_after_printing(capsys, monkeypatch):
    # nbgrader scores a graded cell by whether it raises.
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    with pytest.raises(feedback.ExerciseNotPassed, match="kp3_rates: not attempted"):
        check("kp3_rates", _stub)
    assert "not attempted yet" in capsys.readouterr().out
    assert check("kp2_two_subsets", lambda n: [(i, j) for i in range(n) for j in range(i + 1, n)]).state == "passed"


def test_a_learner_never_gets_an_exception_from_a_failed_check(monkeypatch):
    monkeypatch.delenv("NBGRADER_EXECUTION", raising=False)
    assert check("kp3_rates", _stub).state == "not attempted"


def test_passing_the_result_instead_of_the_function_is_explained(capsys):
    check("kp2_two_subsets", [(0, 1)])
    assert "two_subsets, not two_subsets()" in capsys.readouterr().out


def test_hint_prints_the_registry_hint(capsys):
    hint("kp3_rates")
    assert capsys.readouterr().out == f"Hint for kp3_rates: {EXERCISES['kp3_rates'].hint}\n"


@pytest.mark.parametrize("call", [check, hint], ids=["check", "hint"])
def test_a_mistyped_id_prints_the_close_matches_instead_of_a_traceback(capsys, call):
    args = ("kp3_rate", print) if call is check else ("kp3_rate",)
    assert call(*args) is None
    out = capsys.readouterr().out
    assert out == "There is no exercise 'kp3_rate'. Did you mean 'kp3_rates'?\n"


def test_an_id_like_no_exercise_points_to_where_the_ids_are(capsys):
    hint("zzz")
    out = capsys.readouterr().out
    assert "There is no exercise 'zzz'" in out and "progress()" in out and "Traceback" not in out


def test_an_id_that_is_not_a_text_is_told_to_be_quoted(capsys):
    check(7, print)
    assert "An exercise id is a text in quotes" in capsys.readouterr().out


def test_hint_on_a_written_task_says_there_is_none(capsys):
    hint("kp4_capstone_report")
    assert "is a written task: there is no hint" in capsys.readouterr().out


@pytest.mark.parametrize("task_id", sorted(WRITTEN_TASKS))
def test_check_on_a_written_task_says_it_is_graded_by_hand_not_that_it_does_not_exist(
        capsys, task_id):
    assert check(task_id, print) is None
    out = capsys.readouterr().out
    assert f"{task_id} is a written task: there is nothing to check" in out
    assert "There is no exercise" not in out and "Did you mean" not in out


def _spins(*args):
    while True:
        pass


def test_check_stops_an_endless_loop_after_its_time_limit_with_a_message(capsys):
    report = check("kp3_rates", _spins, time_limit_s=0.3)
    out = capsys.readouterr().out
    assert "STOPPED  rates was still running after 0.3 s" in out and "Traceback" not in out
    assert max(len(line) for line in out.splitlines()) <= 90  # JupyterLab wraps longer lines mid-word
    assert report.state == "failed" and report.results == ()
    assert feedback._SESSION_STATES["kp3_rates"] == "failed"


def test_a_long_reason_is_wrapped_at_words_and_loses_no_word():
    from reasoneval_mini.exercises.ex01_answer_equivalence import reference_outcome

    def answer(prediction, reference):  # delegates: a reason naming a long dotted name
        return reference_outcome(prediction, reference)
    results = feedback.run_checks("kp1_classify_outcome", answer)[:1]
    printed = feedback.format_report(EXERCISES["kp1_classify_outcome"], results, answer)
    why_lines = printed.splitlines()[4:-1]          # after FAIL, expected and actual
    assert why_lines[0].startswith("          why:      ") and len(why_lines) > 1
    assert all(len(line) <= feedback.REASON_WIDTH for line in why_lines)
    why = "\n".join(why_lines)
    # The words printed are the words of the message, in order, none cut.
    assert why.split()[1:] == results[0].message.replace(" | ", " ").split()


def test_check_stops_an_endless_loop_from_a_thread_too(capsys):
    # Off the main thread there is no SIGALRM: the timer-thread fallback (the one Windows uses).
    import threading

    # kp2_two_subsets refuses no library call. With a watched answer (kp3_rates, and
    # kp1_classify_outcome on main) this stop in a thread leaves the next SIGALRM stop in
    # the main thread unable to end the loop (test_a_stopped_check_raises_under_nbgrader
    # then hangs): a bug of call_watch with time_limit, reported, not fixed here.
    reports = []
    worker = threading.Thread(target=lambda: reports.append(
        check("kp2_two_subsets", _spins, time_limit_s=0.3)))
    worker.start()
    worker.join(10)
    assert not worker.is_alive() and reports[0].state == "failed"
    assert "still running after 0.3 s" in capsys.readouterr().out


def test_a_stopped_check_raises_under_nbgrader(monkeypatch, capsys):
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    # Not kp3_rates: a second time-limit stop of a watched answer (one with refuses=) in
    # this process hangs (call_watch with time_limit; reproduced with kp1_classify_outcome
    # on main), a bug reported, not fixed here.
    with pytest.raises(feedback.ExerciseNotPassed, match="kp2_two_subsets: failed"):
        check("kp2_two_subsets", _spins, time_limit_s=0.2)


def test_progress_table_lists_every_exercise_with_its_session_state(capsys):
    check("kp2_two_subsets", _stub)
    check("kp3_five_state_log", lambda counts: [
        {"sample_id": f"s{i}", "status": state}
        for i, state in enumerate(state for state, n in counts.items() for _ in range(n))])
    capsys.readouterr()
    progress()
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == len(EXERCISES) + 3
    states = {line.split()[0]: " ".join(line.split()[2:]) for line in lines[1:-1]}
    written = sum(task.points for task in WRITTEN_TASKS.values())
    assert states["written"] == (f"{len(WRITTEN_TASKS)} written answers, {written} points, "
                                 "graded by your instructor")
    assert states["kp2_two_subsets"] == "not attempted"
    assert states["kp3_five_state_log"] == "passed"
    assert states["kp1_parse_rational"] == NOT_CHECKED
    assert lines[-1] == f"1 of {len(EXERCISES)} exercises passed (1 of "\
        f"{sum(e.points for e in EXERCISES.values())} points)."


def _columns(text):
    """The terminal columns *text* takes, counted here from Unicode's East Asian Width: W and F are 2."""
    return sum(2 if unicodedata.east_asian_width(char) in ("W", "F") else 1 for char in text)


def test_progress_table_columns_line_up_in_chinese_whose_characters_are_two_columns_wide():
    states = {"kp2_two_subsets": "not attempted", "kp3_five_state_log": "passed"}
    with language("zh-CN"):
        lines = feedback.format_progress(states).splitlines()
    assert lines[0].split() == [zh("exercise"), zh("points"), zh("state")]
    assert len(lines) == len(EXERCISES) + 3  # heading, exercises, written tasks, summary
    # Each row: a first column without spaces, the right-aligned points, two spaces, the state.
    row = re.compile(r"^(\S+) +(\S+)  (\S.*)$")
    ends = {(_columns(line[:match.end(2)]), _columns(line[:match.start(3)]))
            for line in lines[:-1] for match in [row.match(line)]}
    assert len(ends) == 1, f"the points and state columns end and start at {ends}:\n" + "\n".join(lines)
    assert any(zh("passed") in line for line in lines)


# Comparison by value -------------------------------------------------------

def test_numpy_scalars_compare_as_the_numbers_they_hold():
    numpy = pytest.importorskip("numpy")
    assert same_value(numpy.float64(0.7), 0.7) == ""
    assert same_value(numpy.int64(10), 10) == ""
    assert same_value(numpy.bool_(True), True) == ""
    assert show(numpy.int64(10)) == "10"


def test_floats_within_the_stated_tolerance_are_equal_and_outside_are_not():
    assert same_value(0.1 + 0.2, 0.3) == ""
    assert same_value(Fraction(1, 3), 1 / 3) == ""
    off = 0.3 * (1 + 10 * FLOAT_REL_TOL)
    assert f"rel_tol={FLOAT_REL_TOL}" in same_value(off, 0.3)
    assert same_value(FLOAT_ABS_TOL / 2, 0.0) == ""


def test_exact_values_refuse_floats_and_bools_and_none_is_not_false():
    assert same_value(Fraction(7, 10), Fraction(7, 10)) == ""
    assert same_value(0.7, Fraction(7, 10)) != ""
    assert same_value(1.0, 1) != ""
    assert same_value(True, 1) != "" and same_value(1, True) != ""
    assert same_value(False, None) != "" and same_value(None, False) != ""
    assert same_value(0, False) != ""


def test_containers_compare_elementwise_and_name_the_difference():
    assert same_value({"a": 0.5, "b": [1, None]}, {"a": 1 / 2, "b": [1, None]}) == ""
    assert "key 'b': item 1" in same_value({"a": 0.5, "b": [1, False]}, {"a": 0.5, "b": [1, None]})
    assert "missing keys ['b']" in same_value({"a": 1}, {"a": 1, "b": 2})
    assert same_set([3, 1, 3], {1, 3}) == ""
    assert "missing {2}; not expected {4}" == same_set([1, 4], {1, 2})


def test_a_set_difference_names_only_the_parts_that_are_not_empty():
    assert same_set([1], {1, 2}) == "missing {2}"
    assert same_set([1, 3], {1}) == "not expected {3}"


def test_a_sequence_of_the_wrong_length_says_both_lengths_and_which_item():
    assert same_value([1, 2], [1, 2, 3]).startswith("expected a sequence of length 3, got length 2")
    assert "item 2 is missing" in same_value([1, 2], [1, 2, 3])
    assert "item 1: different value" in same_value([1, 5, 2], [1, 2])
    assert "got str" in same_value("ab", ["a", "b"])


def test_records_with_a_dropped_sample_name_the_missing_sample(capsys):
    first, _ = task_data("kp3_records_from_results")  # this variant's runs: (id, state or None)
    never = [sample_id for sample_id, spec in first if spec is None]

    def drops_never_run(results):  # the typical mistake: skip samples without a result
        return [{"sample_id": sample_id, "status": result.status, "detail": result.detail,
                 "duration_s": result.duration_s}
                for sample_id, result in results.items() if result is not None]

    check("kp3_records_from_results", drops_never_run)
    out = " ".join(capsys.readouterr().out.split())  # a long reason is wrapped over lines
    assert (f"expected a sequence of length {len(first)}, got length "
            f"{len(first) - len(never)}") in out
    assert ", ".join(f"sample_id {sample_id!r} missing" for sample_id in never) in out
    rows = [{"sample_id": "a"}, {"sample_id": "b"}]
    assert same_value(rows + rows[:1], rows).endswith("sample_id 'a' repeated")
    assert same_value([{"sample_id": "c"}], rows).endswith(
        "sample_id 'a' missing, sample_id 'b' missing, sample_id 'c' not expected")


def test_long_fractions_are_shown_shortened_but_compared_exactly():
    plug_in = 1 - Fraction(190, 200) ** 100  # the plug-in answer to exact_pass_at_k(200, 10, 100)
    numerator, denominator = str(plug_in.numerator), str(plug_in.denominator)
    assert len(numerator) > 100
    text = show(plug_in)
    assert text.startswith(f"Fraction(≈{float(plug_in):.6g}") and numerator not in text
    assert f"{len(numerator)}-digit numerator, {len(denominator)}-digit denominator" in text
    assert len(text) < 80 and show(Fraction(7, 10)) == "Fraction(7, 10)"
    nearly = plug_in + Fraction(1, 10 ** 200)
    # The same approximation on display, still unequal, and the reason says by how much.
    assert show(nearly).split("…")[0] == text.split("…")[0]
    assert same_value(nearly, plug_in) == "different value (actual - expected ≈1e-200)"
    assert same_value(plug_in, plug_in) == ""
    assert show(10 ** 60) == "int(≈1e+60…, 61 digits)" and show(10 ** 39) == str(10 ** 39)
    # Past the float range a number is still finite (it once showed as "≈inf"): its leading
    # digits and power of ten, from the exact value.
    assert show(Fraction(10 ** 400, 3)).startswith("Fraction(≈3.33333e+399…, 401-digit numerator")
    assert show(-(10 ** 400) // 7).startswith("int(≈-1.42857e+399…, 400 digits")


def test_a_number_too_long_for_str_is_shown_not_raised():
    # str() of an int over 4,300 digits raises ValueError on Python 3.11 and later: an answer
    # returning 10**5000 made the feedback itself fail.
    assert show(10 ** 5000) == "int(≈1.00000e+5000…, 5001 digits)"
    assert show([Fraction(1, 10 ** 9999)]) == "[Fraction(≈0…, 1-digit numerator, 10000-digit denominator)]"


def _checks_of(exercise_id):
    return len(EXERCISES[exercise_id].public_checks(current_variant()))


def test_a_wrong_number_of_parameters_is_reported_once_with_the_count(capsys):
    report = check("kp2_exact_pass_at_k", lambda n, c: Fraction(0))
    out = capsys.readouterr().out
    count = _checks_of("kp2_exact_pass_at_k")
    assert out.count("FAIL") == 1 and f"FAIL  {count} tests raised the same TypeError" in out
    (first, second), ((n, c, k, _, _),) = _exact_bundle()
    assert ("your function takes 2 parameters (n, c); the checks call it as exact_pass_at_k on "
            f"{first}, {second}, refusing {(n, c, k)}") in out
    assert len(report.results) == count and not any(r.passed for r in report.results)
    assert f"0 of {count} public checks pass." in out


def test_a_type_error_from_the_body_is_collapsed_without_blaming_the_parameters(capsys):
    def divides_by_text(counts, k):
        if any(n < k for n, _ in counts.values()):
            raise ValueError("a problem has n < k")
        return k / "x"

    check("kp2_average_pass_at_k", divides_by_text)
    out = capsys.readouterr().out
    assert "3 tests raised the same TypeError" in out and out.count("unsupported operand") == 2
    assert "your function takes" not in out
    counts, k = EXERCISES["kp2_average_pass_at_k"].data(current_variant())["short"][0]
    assert f"PASS  average_pass_at_k({counts!r}, {k})" in out  # the others print one by one


def test_a_single_type_error_is_printed_like_any_failure(capsys):
    check("kp2_exact_pass_at_k", lambda n, c, k: n + "x" if n > 100 else Fraction(0))
    out = capsys.readouterr().out
    assert "raised the same" not in out and "the call raised TypeError" in out


def test_rejects_needs_the_named_error():
    check_one = rejects("f(0)", lambda f: f(0), ValueError)
    assert check_one(lambda x: 1 / x).message == "the call raised ZeroDivisionError (division by zero)"
    assert not check_one(lambda x: 1).passed
    assert check_one(lambda x: int("x")).passed


def test_results_are_plain_dicts_for_the_grader():
    [result] = [case("f()", lambda f: f(), 1)(lambda: 2)]
    assert json.loads(json.dumps(result.to_dict()))["actual"] == "2"


def test_rejects_can_require_the_message_to_name_the_bad_value():
    check_one = rejects("f(-1)", lambda f: f(-1), ValueError, mentions="-1")
    assert check_one(lambda x: int("no")).message == "the message does not mention '-1'"

    def refuse(x):
        raise ValueError(f"x must be >= 0, got {x}")
    assert check_one(refuse).passed
    name_n = rejects("g()", lambda f: f(), ValueError, mentions="n")
    assert not name_n(lambda: int("cannot")).passed  # "n" inside a word does not count
    assert name_n(lambda: (_ for _ in ()).throw(ValueError("bad n (20 vs 200)"))).passed


def test_a_long_teaching_reason_is_printed_whole():
    # The typical slip of the interval exercise: the population standard deviation.
    import math
    import statistics

    from reasoneval_mini import pass_at_k

    # t's 0.975-quantile from a printed table (three decimals pass), by degrees of freedom.
    table = {3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365}

    def population_sd(counts, k):
        if len(counts) < 2:
            raise ValueError("one problem has no spread")
        values = [pass_at_k(n, c, k) for n, c in counts.values()]
        mean = statistics.fmean(values)
        se = statistics.pstdev(values) / math.sqrt(len(values))
        t = table[len(values) - 1]
        return mean, se, max(0, mean - t * se), min(1, mean + t * se)

    results = feedback.run_checks("kp4_t_interval", population_sd)
    printed = feedback.format_report(EXERCISES["kp4_t_interval"], results, population_sd)
    unwrapped = " ".join(printed.split())
    assert "population standard deviation (divides by m)" in unwrapped
    assert "(divides by m..." not in unwrapped and "standard devi..." not in unwrapped
