from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reasoneval_mini import STATUSES, execution_summary


def rows(*statuses):
    return [{"sample_id": f"s{i}", "status": s} for i, s in enumerate(statuses)]


def test_statuses_are_the_five_terminal_states_in_order():
    assert STATUSES == ("passed", "assertion_failed", "timeout", "runtime_error", "not_run")


def test_source_page_worked_example():
    summary = execution_summary(rows("passed", "timeout", "not_run"))
    assert summary["planned"] == 3 and summary["attempted"] == 2
    assert summary["coverage"] == 2 / 3
    assert summary["success_rate"] == 1 / 3
    assert summary["attempted_success_rate"] == 1 / 2
    assert summary["counts"] == {"passed": 1, "assertion_failed": 0, "timeout": 1,
                                 "runtime_error": 0, "not_run": 1}


def test_nothing_ran_gives_none_not_zero():
    summary = execution_summary(rows("not_run", "not_run"))
    assert summary["attempted_success_rate"] is None
    assert summary["coverage"] == 0.0


@given(st.lists(st.sampled_from(STATUSES), min_size=1, max_size=60))
def test_rates_match_exact_counting(statuses):
    summary = execution_summary(rows(*statuses))
    n = len(statuses)
    attempted = n - statuses.count("not_run")
    assert summary["counts"] == {s: statuses.count(s) for s in STATUSES}
    assert summary["coverage"] == float(Fraction(attempted, n))
    assert summary["success_rate"] == float(Fraction(statuses.count("passed"), n))
    if attempted:
        assert summary["attempted_success_rate"] == float(
            Fraction(statuses.count("passed"), attempted))
    else:
        assert summary["attempted_success_rate"] is None


def test_extra_keys_are_ignored():
    records = rows("passed")
    records[0].update(task_id="HumanEval/0", detail="", duration_s=0.1)
    assert execution_summary(records)["success_rate"] == 1.0


@pytest.mark.parametrize("records, named", [
    (None, "NoneType"), ((), "tuple"), ([], "empty"),
    (["passed"], "records[0]"),
    ([{"status": "passed"}], "None"),
    ([{"sample_id": "", "status": "passed"}], "''"),
    ([{"sample_id": 7, "status": "passed"}], "7"),
    (rows("passed") + [{"sample_id": "s0", "status": "timeout"}], "'s0'"),
    ([{"sample_id": "a", "status": "failed"}], "'failed'"),
    ([{"sample_id": "a", "status": None}], "None"),
])
def test_invalid_records_raise_naming_the_problem(records, named):
    with pytest.raises(ValueError) as info:
        execution_summary(records)
    assert named in str(info.value)
