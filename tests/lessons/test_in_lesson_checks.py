"""The lessons' "your turn" checks: right against an independent reference, never raising on a learner's value."""

import itertools
import math
import statistics
from fractions import Fraction

import pytest

from reasoneval_mini.lessons.in_lesson_checks import (
    NOT_WRITTEN,
    NOT_YET,
    RIGHT,
    check_denominators,
    check_draw_factor,
    check_exact_comparison,
    check_paired_difference,
    check_report_rows,
    check_standard_deviation,
    check_standard_error,
    check_subset_count,
)

PAIRS = [((5, 10), (1, 2)), ((5001, 10_000), (1, 2)), ((1, 3), (3333333333333333, 10**16))]
RUN_A = {"p1": (10, 9), "p2": (10, 4), "p3": (10, 0), "p4": (10, 7)}
RUN_B = {"p1": (10, 7), "p2": (10, 4), "p3": (10, 1), "p4": (10, 2)}
RECORDS = ([{"task_id": "A", "status": "passed"}] * 2 + [{"task_id": "A", "status": "timeout"}]
           + [{"task_id": "A", "status": "not_run"}]
           + [{"task_id": "B", "status": "passed"}] + [{"task_id": "B", "status": "runtime_error"}] * 3)


def said(capsys, check, *args, **kwargs):
    assert check(*args, **kwargs) is None
    out = capsys.readouterr().out
    assert out.count("\n") >= 1 and out.startswith((RIGHT, NOT_YET, NOT_WRITTEN)), out
    return out.replace("\n", " ")


#: Values a learner might leave in a cell; no check may raise on any of them.
HOSTILE = [None, "10", 10.5, -1, True, float("nan"), float("inf"), [1, 2], (), {}, object(), 10**400]
HOSTILE_IDS = ["None", "str", "float", "negative", "bool", "nan", "inf", "list", "tuple", "dict",
               "object", "int_past_float"]


# --- lesson 01 ---------------------------------------------------------------------------------

def test_exact_comparison_matches_fractions_and_names_the_float_shortcut(capsys):
    exact = [a * d == c * b for (a, b), (c, d) in PAIRS]
    assert exact == [Fraction(a, b) == Fraction(c, d) for (a, b), (c, d) in PAIRS] == [True, False, False]
    assert said(capsys, check_exact_comparison, exact, PAIRS).startswith(RIGHT)
    floats = [a / b == c / d for (a, b), (c, d) in PAIRS]
    assert floats != exact  # the third pair rounds to one float: the trap is real
    assert "floats" in said(capsys, check_exact_comparison, floats, PAIRS)
    assert said(capsys, check_exact_comparison, [True, True, True], PAIRS).startswith(NOT_YET)


@pytest.mark.parametrize("value", HOSTILE + [[1, 0, 0], ["True"] * 3],
                         ids=HOSTILE_IDS + ["ints", "strs"])
def test_exact_comparison_never_raises_on_a_learner_value(capsys, value):
    assert said(capsys, check_exact_comparison, value, PAIRS).startswith(NOT_YET)


def test_exact_comparison_feedback_names_neither_the_differing_pair_nor_how_many(capsys):
    # Walk-through finding: "2 of 4 verdicts differ, the first at pair 1" told the learner
    # which True/False to flip. Every wrong list but the float one must get the same line.
    exact = [Fraction(a, b) == Fraction(c, d) for (a, b), (c, d) in PAIRS]
    floats = [a / b == c / d for (a, b), (c, d) in PAIRS]
    wrong_lists = [list(v) for v in itertools.product([True, False], repeat=len(PAIRS))
                   if list(v) not in (exact, floats)]
    assert len(wrong_lists) == 2 ** len(PAIRS) - 2
    messages = {said(capsys, check_exact_comparison, v, PAIRS) for v in wrong_lists}
    assert len(messages) == 1, messages
    message, = messages
    assert message.startswith(NOT_YET) and "pair" not in message.replace("pairs", "")
    assert not any(ch.isdigit() for ch in message), message


@pytest.mark.parametrize("pairs", [[((1, 0), (1, 2))], [((1, 2),)], [((1.0, 2), (1, 2))], [((1, -2), (1, 2))]])
def test_exact_comparison_refuses_bad_pairs_naming_them(pairs):
    with pytest.raises(ValueError, match=r"pairs\[0\]"):
        check_exact_comparison([True], pairs)


# --- lesson 02 ---------------------------------------------------------------------------------

@pytest.mark.parametrize("n, c, k", [(5, 2, 2), (8, 3, 3), (6, 6, 4), (7, 0, 1)])
def test_subset_count_is_right_for_counts_of_the_enumeration(capsys, n, c, k):
    samples = [True] * c + [False] * (n - c)
    subsets = list(itertools.combinations(samples, k))
    all_fail = sum(not any(s) for s in subsets)
    assert said(capsys, check_subset_count, len(subsets), all_fail, n=n, c=c, k=k).startswith(RIGHT)


def test_subset_count_names_ordered_picks_replacement_and_floats(capsys):
    assert "twice, once in each order" in said(capsys, check_subset_count, 20, 3, n=5, c=2, k=2)
    assert "6 times" in said(capsys, check_subset_count, 60, 1, n=5, c=2, k=3)
    assert "with replacement" in said(capsys, check_subset_count, 10, 9, n=5, c=2, k=2)
    assert "float" in said(capsys, check_subset_count, 10.0, 3, n=5, c=2, k=2)
    assert said(capsys, check_subset_count, 10, 4, n=5, c=2, k=2).startswith(NOT_YET)
    assert "`all_fail =`" in said(capsys, check_subset_count, 10, ..., n=5, c=2, k=2)


def test_subset_count_says_plainly_that_a_count_is_an_int(capsys):
    # Walk-through finding: the line read "expected a count is an int (...)".
    text = said(capsys, check_subset_count, 10.0, 3, n=5, c=2, k=2)
    assert "expected an int: a count is a whole number" in text and "expected a count is" not in text


@pytest.mark.parametrize("value", HOSTILE, ids=HOSTILE_IDS)
def test_subset_count_never_raises_on_a_learner_value(capsys, value):
    assert said(capsys, check_subset_count, value, value, n=5, c=2, k=2).startswith(NOT_YET)


@pytest.mark.parametrize("given", [dict(n=5, c=6, k=2), dict(n=5, c=2, k=6), dict(n=5, c=2, k=0),
                                   dict(n=5.0, c=2, k=2), dict(n=5, c=True, k=2)])
def test_subset_count_refuses_bad_givens(given):
    with pytest.raises(ValueError, match="n|c|k"):
        check_subset_count(10, 3, **given)


@pytest.mark.parametrize("n, c", [(5, 2), (9, 4), (12, 1)])
def test_draw_factor_is_the_ratio_that_multiplies_to_the_binomial_ratio(capsys, n, c):
    factors = [Fraction(n - c - i, n - i) for i in range(n - c)]
    for i, factor in enumerate(factors):
        assert said(capsys, check_draw_factor, factor, n=n, c=c, i=i).startswith(RIGHT)
    for k in range(1, n - c + 1):
        assert math.prod(factors[:k]) == Fraction(math.comb(n - c, k), math.comb(n, k))


def test_draw_factor_names_the_first_draws_chance_and_a_rounded_float(capsys):
    assert "first draw's chance" in said(capsys, check_draw_factor, Fraction(3, 5), n=5, c=2, i=1)
    assert "rounded to a float" in said(capsys, check_draw_factor, 2 / 5, n=6, c=3, i=1)
    assert said(capsys, check_draw_factor, Fraction(2, 5), n=5, c=2, i=1).startswith(NOT_YET)


@pytest.mark.parametrize("value", HOSTILE, ids=HOSTILE_IDS)
def test_draw_factor_never_raises_on_a_learner_value(capsys, value):
    assert said(capsys, check_draw_factor, value, n=5, c=2, i=1).startswith(NOT_YET)


@pytest.mark.parametrize("i", [3, -1, 1.0])
def test_draw_factor_refuses_a_draw_that_cannot_follow_failures(i):
    with pytest.raises(ValueError, match="i"):
        check_draw_factor(Fraction(1, 2), n=5, c=2, i=i)


# --- lesson 03 ---------------------------------------------------------------------------------

def log_of(*statuses):
    return [{"sample_id": f"s{i}", "status": status} for i, status in enumerate(statuses)]


LOGS = {"worked": log_of("passed", "timeout", "not_run"),
        "cancelled": log_of("not_run", "not_run"),
        "mixed": log_of("passed", "passed", "assertion_failed", "runtime_error", "not_run", "not_run",
                        "timeout")}


def hand_rates(log):
    """The three rates by enumeration: each record is looked at once, and counted where it belongs."""
    planned = attempted = passed = 0
    for record in log:
        planned += 1
        attempted += record["status"] != "not_run"
        passed += record["status"] == "passed"
    return (Fraction(attempted, planned), Fraction(passed, planned),
            Fraction(passed, attempted) if attempted else None)


def test_denominators_by_hand_are_right_and_agree_with_the_library(capsys):
    from reasoneval_mini import execution_summary

    rates = {name: hand_rates(log) for name, log in LOGS.items()}
    assert rates["worked"] == (Fraction(2, 3), Fraction(1, 3), Fraction(1, 2))
    assert rates["cancelled"] == (0, 0, None)
    assert said(capsys, check_denominators, rates, LOGS).startswith(RIGHT)
    # The library's floats pass too: a value equal to the fraction passes whatever its type.
    library = {}
    for name, log in LOGS.items():
        summary = execution_summary(log)
        library[name] = (summary["coverage"], summary["success_rate"], summary["attempted_success_rate"])
    assert said(capsys, check_denominators, library, LOGS).startswith(RIGHT)
    as_lists = {name: list(triple) for name, triple in rates.items()}
    assert said(capsys, check_denominators, as_lists, LOGS).startswith(RIGHT)


def with_rate(name, position, value):
    rates = {key: list(hand_rates(log)) for key, log in LOGS.items()}
    rates[name][position] = value
    return rates


@pytest.mark.parametrize("name, position, value, named", [
    ("worked", 0, 1, "leaves the not_run samples out of the planned count"),
    ("worked", 0, Fraction(2, 2), "leaves the not_run samples out of the planned count"),
    ("mixed", 1, Fraction(2, 5), "divides by the samples that ran"),
    ("mixed", 2, Fraction(2, 7), "divides by every planned sample"),
    ("cancelled", 2, 0, "Zero says that everything ran and nothing passed"),
    ("cancelled", 2, 0.0, "Zero says that everything ran and nothing passed"),
    ("cancelled", 2, float("nan"), "nan is a float"),
    ("worked", 2, None, "None is for a rate with nothing to divide by"),
    ("worked", 0, Fraction(1, 3), "counts the passed samples"),
    ("mixed", 0, 5, "is a count, not a share"),
    ("worked", 0, 0.67, "is rounded"),
    ("worked", 1, "1/3", "is a str"),
    ("worked", 1, True, "is a bool"),
])
def test_denominators_name_the_common_slips_and_never_the_expected_value(capsys, name, position, value, named):
    out = said(capsys, check_denominators, with_rate(name, position, value), LOGS)
    assert out.startswith(NOT_YET) and named in out, out
    expected = hand_rates(LOGS[name])[position]
    if expected is not None:  # neither the fraction nor its float may appear, unless the learner wrote it
        for shown in {str(expected), repr(expected), f"{float(expected):.3f}", repr(float(expected))}:
            assert shown not in out.replace(repr(value), ""), (shown, out)


@pytest.mark.parametrize("value", HOSTILE, ids=HOSTILE_IDS)
def test_denominators_never_raise_on_a_learner_value(capsys, value):
    # as the whole answer, as one log's triple, and as each single rate
    assert said(capsys, check_denominators, value, LOGS).startswith(NOT_YET)
    rates = {name: hand_rates(log) for name, log in LOGS.items()}
    assert said(capsys, check_denominators, {**rates, "worked": value}, LOGS).startswith(NOT_YET)
    for position in range(3):
        out = said(capsys, check_denominators, with_rate("worked", position, value), LOGS)
        assert out.startswith(NOT_YET), out


def test_denominators_name_a_missing_or_extra_log_and_a_short_triple(capsys):
    rates = {name: hand_rates(log) for name, log in LOGS.items()}
    assert "missing ['cancelled']" in said(capsys, check_denominators,
                                            {k: v for k, v in rates.items() if k != "cancelled"}, LOGS)
    assert "not a log: ['other']" in said(capsys, check_denominators, {**rates, "other": (1, 1, 1)}, LOGS)
    assert "expected three values" in said(capsys, check_denominators,
                                           {**rates, "worked": (Fraction(2, 3), Fraction(1, 3))}, LOGS)


@pytest.mark.parametrize("logs, match", [
    ({}, "non-empty"), ([log_of("passed")], "non-empty"), ({"a": []}, r"logs\['a'\]"),
    ({"a": [{"sample_id": "s0"}]}, r"logs\['a'\]\[0\]"),
    ({"a": log_of("passed", "skipped")}, r"logs\['a'\]\[1\].*skipped"),
    ({"a": ["passed"]}, r"logs\['a'\]\[0\]"),
])
def test_denominators_refuse_bad_logs_naming_them(logs, match):
    with pytest.raises(ValueError, match=match):
        check_denominators({}, logs)


# --- lesson 04 ---------------------------------------------------------------------------------

VALUES = [0, 0.5, 0.5, 1]


def test_standard_deviation_by_the_definition_is_right_and_the_slips_are_named(capsys):
    mean = sum(VALUES) / len(VALUES)
    squares = sum((v - mean) ** 2 for v in VALUES)
    assert said(capsys, check_standard_deviation, math.sqrt(squares / 3), VALUES).startswith(RIGHT)
    assert "divides by m;" in said(capsys, check_standard_deviation, math.sqrt(squares / 4), VALUES)
    assert "variance" in said(capsys, check_standard_deviation, squares / 3, VALUES)


def test_standard_error_by_the_definition_is_right_and_the_slips_are_named(capsys):
    s = statistics.stdev(VALUES)
    assert said(capsys, check_standard_error, s / 2, VALUES).startswith(RIGHT)
    assert "divide by sqrt(m)" in said(capsys, check_standard_error, s, VALUES)
    assert "divides s by m" in said(capsys, check_standard_error, s / 4, VALUES)
    assert "m - 1" in said(capsys, check_standard_error, statistics.pstdev(VALUES) / 2, VALUES)


@pytest.mark.parametrize("value", HOSTILE, ids=HOSTILE_IDS)
def test_spread_checks_never_raise_on_a_learner_value(capsys, value):
    for check in (check_standard_deviation, check_standard_error):
        assert said(capsys, check, value, VALUES).startswith(NOT_YET)


@pytest.mark.parametrize("values", [[1], [], ["a", "b"], [1, None]])
def test_spread_checks_refuse_too_few_or_non_numbers(values):
    for check in (check_standard_deviation, check_standard_error):
        with pytest.raises(ValueError, match="at least 2 numbers"):
            check(0.1, values)


def test_paired_difference_by_hand_is_right_and_the_unpaired_se_is_named(capsys):
    differences = [RUN_A[p][1] / 10 - RUN_B[p][1] / 10 for p in RUN_A]
    mean = sum(differences) / 4
    sd = math.sqrt(sum((d - mean) ** 2 for d in differences) / 3)
    assert said(capsys, check_paired_difference, mean, sd / 2, RUN_A, RUN_B).startswith(RIGHT)
    assert "B - A" in said(capsys, check_paired_difference, -mean, sd / 2, RUN_A, RUN_B)
    unpaired = math.sqrt(statistics.variance([c / 10 for _, c in RUN_A.values()]) / 4
                         + statistics.variance([c / 10 for _, c in RUN_B.values()]) / 4)
    assert "as if their problems were unrelated" in said(capsys, check_paired_difference, mean,
                                                          unpaired, RUN_A, RUN_B)
    assert "sqrt(m)" in said(capsys, check_paired_difference, mean, sd, RUN_A, RUN_B)


def test_paired_difference_pairs_by_problem_id_not_by_position(capsys):
    reordered = dict(reversed(list(RUN_B.items())))
    by_position = [a[1] / 10 - b[1] / 10 for a, b in zip(RUN_A.values(), reordered.values())]
    assert said(capsys, check_paired_difference, statistics.mean(by_position),
                statistics.stdev(by_position) / 2, RUN_A, reordered).startswith(NOT_YET)


@pytest.mark.parametrize("value", HOSTILE, ids=HOSTILE_IDS)
def test_paired_difference_never_raises_on_a_learner_value(capsys, value):
    assert said(capsys, check_paired_difference, value, value, RUN_A, RUN_B).startswith(NOT_YET)


@pytest.mark.parametrize("run_b, match", [({"p1": (10, 7)}, "same problems"), ({"p1": (10, 7), "p2": (0, 0), "p3": (1, 1), "p4": (1, 1)}, "p2"),
                                          ([], "dict"), ({"p1": 7, "p2": (1, 1), "p3": (1, 1), "p4": (1, 1)}, "p1")])
def test_paired_difference_refuses_runs_that_cannot_be_paired(run_b, match):
    with pytest.raises(ValueError, match=match):
        check_paired_difference(0.1, 0.1, RUN_A, run_b)


# --- lesson 05 ---------------------------------------------------------------------------------

def reference_rows(records, ks):
    rows = []
    for task_id in dict.fromkeys(r["task_id"] for r in records):
        statuses = [r["status"] for r in records if r["task_id"] == task_id]
        n, c = len(statuses), statuses.count("passed")
        rows.append((task_id, n, c, *(1 - math.comb(n - c, k) / math.comb(n, k) for k in ks)))
    return rows


def test_report_rows_counted_by_hand_are_right_in_any_order(capsys):
    rows = reference_rows(RECORDS, [1, 2])
    assert said(capsys, check_report_rows, rows, RECORDS, [1, 2]).startswith(RIGHT)
    assert said(capsys, check_report_rows, rows[::-1], RECORDS, [1, 2]).startswith(RIGHT)


def test_report_rows_name_a_dropped_not_run_and_the_plug_in(capsys):
    dropped = [("A", 3, 2, 2 / 3, 1.0), *reference_rows(RECORDS, [1, 2])[1:]]
    assert "leaves out the not_run" in said(capsys, check_report_rows, dropped, RECORDS, [1, 2])
    plugin = [(t, n, c, c / n, 1 - (1 - c / n) ** 2) for t, n, c, *_ in reference_rows(RECORDS, [1, 2])]
    assert "plug-in" in said(capsys, check_report_rows, plugin, RECORDS, [1, 2])
    assert "missing ['B']" in said(capsys, check_report_rows, reference_rows(RECORDS, [1, 2])[:1],
                                   RECORDS, [1, 2])
    twice = reference_rows(RECORDS, [1, 2]) * 2
    assert "twice" in said(capsys, check_report_rows, twice, RECORDS, [1, 2])


@pytest.mark.parametrize("value", HOSTILE + [[("A",)], [("A", "4", 2, 0.5)], [["A", 4, 2, None]],
                                  [[["A"], 4, 2, 0.5]]],
                         ids=HOSTILE_IDS + ["short_row", "str_n", "none_pass_at_k", "unhashable_task"])
def test_report_rows_never_raise_on_a_learner_value(capsys, value):
    assert said(capsys, check_report_rows, value, RECORDS, [1]).startswith(NOT_YET)


def test_report_rows_with_float_counts_equal_to_the_records_are_checked_not_raised(capsys):
    # Walk-through finding: n = 4.0 (or c = 2.0) equal to the records' counts made
    # math.comb raise TypeError inside the check, a traceback instead of a verdict.
    rows = reference_rows(RECORDS, [1, 2])
    floated = [(t, float(n), float(c), *values) for t, n, c, *values in rows]
    assert said(capsys, check_report_rows, floated, RECORDS, [1, 2]).startswith(RIGHT)
    wrong = [(t, float(n), float(c), 0.5, 0.5) for t, n, c, *_ in rows]
    assert said(capsys, check_report_rows, wrong, RECORDS, [1, 2]).startswith(NOT_YET)


def test_report_rows_refusing_k_above_n_says_why_as_pass_at_k_does():
    # Walk-through finding: lesson 05 says "set N_SAMPLES = 4 (and see which k is then
    # refused, and why)"; the first cell to refuse is this check, which named k and n only.
    from reasoneval_mini import pass_at_k

    with pytest.raises(ValueError) as library:
        pass_at_k(4, 2, 5)
    with pytest.raises(ValueError) as check:
        check_report_rows(..., RECORDS, [1, 5])
    assert "no subset of 5 to draw" in str(library.value)
    for words in ("k=5 is above n=4 of 'A'", "no subset of 5 to draw", "at least 5 samples",
                  "leave k=5 out of ks"):
        assert words in str(check.value), str(check.value)


def test_report_rows_rounded_as_the_table_prints_them_are_named_rounded_not_a_wrong_estimator(capsys):
    # Walk-through finding: rows copied at the table's three decimals were told "the
    # estimator of lesson 02 takes n, c and k", as if the formula were wrong.
    rows = reference_rows(RECORDS, [1, 2])
    rounded = [(t, n, c, *(round(v, 3) for v in values)) for t, n, c, *values in rows]
    assert rounded != rows  # B's pass@2 = 1 - C(3,2)/C(4,2) = 0.5 exact, A's 5/6 is not
    text = said(capsys, check_report_rows, rounded, RECORDS, [1, 2])
    assert text.startswith(NOT_YET) and "is rounded" in text and "estimator of lesson 02" not in text
    far = [(t, n, c, *(v - 0.01 for v in values)) for t, n, c, *values in rows]
    assert "is rounded" not in said(capsys, check_report_rows, far, RECORDS, [1, 2])


@pytest.mark.parametrize("records, ks, match", [(RECORDS, [5], "k=5 is above n=4"), (RECORDS, [0], "ks"),
                                                ([{"status": "passed"}], [1], r"records\[0\]")])
def test_report_rows_refuse_bad_records_or_ks(records, ks, match):
    with pytest.raises(ValueError, match=match):
        check_report_rows([], records, ks)


# --- every check -------------------------------------------------------------------------------

@pytest.mark.parametrize("call", [
    lambda: check_exact_comparison(..., PAIRS),
    lambda: check_subset_count(..., ..., n=5, c=2, k=2),
    lambda: check_draw_factor(..., n=5, c=2, i=1),
    lambda: check_denominators(..., LOGS),
    lambda: check_standard_deviation(..., VALUES),
    lambda: check_standard_error(..., VALUES),
    lambda: check_paired_difference(..., ..., RUN_A, RUN_B),
    lambda: check_report_rows(..., RECORDS, [1]),
])
def test_the_placeholder_is_reported_as_not_written_and_never_as_wrong(capsys, call):
    call()
    out = capsys.readouterr().out
    assert out.startswith(NOT_WRITTEN) and "Replace the ..." in out


def test_exact_comparison_takes_numpy_verdicts_as_verdicts(capsys):
    # A learner who compares numpy integers gets np.True_/np.False_: still verdicts.
    numpy = pytest.importorskip("numpy")
    exact = [numpy.int64(a) * d == numpy.int64(c) * b for (a, b), (c, d) in PAIRS]
    assert {type(v).__name__ for v in exact} <= {"bool_", "bool"} and type(exact[0]) is not bool
    assert said(capsys, check_exact_comparison, exact, PAIRS).startswith(RIGHT)
    floats = [numpy.float64(a) / b == numpy.float64(c) / d for (a, b), (c, d) in PAIRS]
    assert "floats" in said(capsys, check_exact_comparison, floats, PAIRS)


@pytest.mark.parametrize("places", [1, 2, 3, 4])
def test_standard_deviation_rounded_is_named_as_rounded_with_its_places(capsys, places):
    values = [0.2, 0.9, 0.35, 0.6, 0.0, 1.0]
    exact = statistics.stdev(values)
    rounded = round(exact, places)
    assert not math.isclose(rounded, exact, rel_tol=1e-9)  # the case is a real rounding
    fewest = min(p for p in range(places + 1) if round(exact, p) == rounded)  # 0.40 is 0.4
    out = said(capsys, check_standard_deviation, rounded, values)
    assert out.startswith(NOT_YET) and f"rounded to {fewest} decimal" in out
    assert f"{exact:.6f}" not in out and str(exact) not in out  # the full value is not handed out
