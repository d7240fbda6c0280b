"""Per-problem pass@k, the budget and the report, checked against brute force."""

import itertools
import platform
import random
from fractions import Fraction
from math import comb

import pytest

from reasoneval_mini import STATUSES
from reasoneval_mini.lessons.evaluation_report import (
    MEAN_ROW,
    build_hand_in_report,
    count_passes,
    evaluation_budget,
    format_budget,
    format_pass_at_k_table,
    pass_at_k_table,
)


def records_from(statuses_by_task):
    return [
        {"sample_id": f"{task}/{i}", "task_id": task, "status": status, "detail": "", "duration_s": 0.1}
        for task, statuses in statuses_by_task.items() for i, status in enumerate(statuses)
    ]


def brute_force_pass_at_k(statuses, k):
    """Fraction of k-subsets of the planned samples holding a passed one."""
    subsets = list(itertools.combinations(statuses, k))
    return Fraction(sum("passed" in subset for subset in subsets), len(subsets))


WORKED = {
    "A": ["passed", "passed", "assertion_failed", "timeout", "not_run"],
    "B": ["runtime_error", "not_run", "assertion_failed", "timeout", "timeout"],
    "C": ["passed", "passed", "passed", "passed", "runtime_error"],
}


def test_counts_every_planned_sample_in_n_and_only_passed_in_c():
    assert count_passes(records_from(WORKED)) == {"A": (5, 2), "B": (5, 0), "C": (5, 4)}


@pytest.mark.parametrize("seed", range(5))
def test_each_problem_row_equals_subset_enumeration(seed):
    rng = random.Random(seed)
    statuses = {f"T{t}": [rng.choice(STATUSES) for _ in range(rng.randint(4, 7))] for t in range(4)}
    rows = pass_at_k_table(records_from(statuses), [1, 2, 4])
    for row in rows[:-1]:
        for k in (1, 2, 4):
            assert row[f"pass@{k}"] == pytest.approx(
                float(brute_force_pass_at_k(statuses[row["task_id"]], k)), abs=1e-15)


def test_mean_row_averages_problems_not_pooled_samples():
    rows = pass_at_k_table(records_from(WORKED), [2])
    # By hand: A has n=5, c=2 -> 1 - C(3,2)/C(5,2) = 7/10; B -> 0; C -> 1.
    per_problem = [1 - Fraction(comb(3, 2), comb(5, 2)), Fraction(0), Fraction(1)]
    assert [row["pass@2"] for row in rows[:-1]] == [float(v) for v in per_problem]
    assert rows[-1]["task_id"] == MEAN_ROW and rows[-1]["n"] is None
    assert rows[-1]["pass@2"] == pytest.approx(float(sum(per_problem) / 3))
    pooled = 1 - Fraction(comb(15 - 6, 2), comb(15, 2))
    assert rows[-1]["pass@2"] != pytest.approx(float(pooled))


def test_k_larger_than_a_problems_n_names_the_problem():
    records = records_from({"A": ["passed"] * 5, "short": ["passed", "not_run"]})
    with pytest.raises(ValueError, match="problem 'short': k must be in 1..n=2"):
        pass_at_k_table(records, [1, 3])


@pytest.mark.parametrize("ks", [[], [1.0], "1", None, [True]])
def test_bad_ks_are_refused(ks):
    with pytest.raises(ValueError, match="ks must be a non-empty list of int"):
        pass_at_k_table(records_from(WORKED), ks)


def test_records_without_task_id_are_refused_by_name():
    records = records_from(WORKED)
    del records[3]["task_id"]
    with pytest.raises(ValueError, match="records\\[3\\] needs a non-empty str task_id"):
        count_passes(records)


def test_budget_names_every_condition_and_this_python():
    budget = evaluation_budget(n=8, ks=(1, 2, 5), timeout=1.0, workers=2)
    assert budget == {"samples": "synthetic pool", "n": 8, "k": [1, 2, 5], "timeout_s": 1.0,
                      "workers": 2, "python": platform.python_version()}
    assert format_budget(budget).startswith("budget: samples=synthetic pool, n=8, k=[1, 2, 5]")


def test_table_text_has_a_line_per_problem_plus_header_and_mean():
    text = format_pass_at_k_table(pass_at_k_table(records_from(WORKED), [1, 2]))
    lines = text.splitlines()
    assert len(lines) == 1 + 3 + 1
    assert lines[1].split() == ["A", "5", "2", "0.400", "0.700"]
    assert lines[-1].split()[-2:] == ["0.400", "0.567"]


def test_report_states_budget_all_five_counts_and_caveats():
    records = records_from(WORKED)
    budget = evaluation_budget(n=5, ks=[1, 2], timeout=1.0, workers=2)
    report = build_hand_in_report(records, [1, 2], budget,
                                  {"correct": 3, "wrong": 1, "format_failure": 2})
    assert format_budget(budget) in report
    for status, count in [("passed", 6), ("assertion_failed", 2), ("timeout", 3),
                          ("runtime_error", 2), ("not_run", 2)]:
        assert f"- {status}: {count}" in report
    assert "planned 15, attempted 13" in report
    assert "coverage 86.7%, success 40.0%, attempted success 46.2%" in report
    assert "- format_failure: 2" in report and "6 outputs" in report
    assert "not an official benchmark result" in report


def test_report_says_undefined_when_nothing_ran():
    records = records_from({"A": ["not_run", "not_run"]})
    report = build_hand_in_report(records, [1], evaluation_budget(n=2, ks=[1], timeout=1, workers=1))
    assert "attempted success undefined (nothing ran)" in report


def test_report_gives_each_mean_with_its_interval_over_problems():
    records = records_from(WORKED)
    report = build_hand_in_report(records, [1, 2], evaluation_budget(n=5, ks=[1, 2], timeout=1.0,
                                                                      workers=2))
    # Independent: the three problems' estimates, their sample sd / sqrt(3), and t with 2
    # degrees of freedom, whose CDF is 1/2 + t / (2 sqrt(2 + t^2)): solved for 0.975 by hand.
    import math
    import statistics

    from reasoneval_mini.lessons.evaluation_report import count_passes

    t = math.sqrt(2 * 0.95**2 / (1 - 0.95**2))
    assert round(t, 3) == 4.303  # the printed t table
    for k in (1, 2):
        values = [1 - math.comb(n - c, k) / math.comb(n, k) for n, c in count_passes(records).values()]
        mean = sum(values) / len(values)
        se = statistics.stdev(values) / math.sqrt(len(values))
        low, high = max(0.0, mean - t * se), min(1.0, mean + t * se)
        clipped = " (clipped to [0, 1])" if (low, high) != (mean - t * se, mean + t * se) else ""
        assert f"- pass@{k} = {mean:.3f}, SE {se:.3f}, [{low:.3f}, {high:.3f}]{clipped}" in report
    assert "95% t interval over 3 problems, 2 degrees of freedom" in report


def test_report_states_what_the_run_cost():
    records = records_from(WORKED)
    report = build_hand_in_report(records, [1], evaluation_budget(n=5, ks=[1], timeout=1.0, workers=2))
    assert "cost: 15 samples planned over 3 problems, 13 programs run" in report
    assert report.index("cost:") < report.index("## Execution")


def test_report_says_what_the_interval_does_not_cover():
    records = records_from(WORKED)
    report = build_hand_in_report(records, [1], evaluation_budget(n=5, ks=[1], timeout=1.0, workers=2))
    assert "covers the choice of problems only" not in report
    assert "not another prompt, temperature, test suite or harness" in report


def test_report_with_one_problem_has_no_interval():
    records = records_from({"A": ["passed", "timeout"]})
    report = build_hand_in_report(records, [1], evaluation_budget(n=2, ks=[1], timeout=1, workers=1))
    assert "How sure" not in report


def test_report_lines_fit_a_notebook_page():
    # JupyterLab breaks a longer output line anywhere, even mid-word.
    records = records_from(WORKED)
    budget = evaluation_budget(n=5, ks=[1], timeout=1.0, workers=2, samples="synthetic pool, seed 0")
    report = build_hand_in_report(records, [1], budget, {"correct": 16, "wrong": 12, "format_failure": 14})
    assert max(len(line) for line in report.splitlines()) < 100
