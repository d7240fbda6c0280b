"""One exception policy for the lesson helpers: a wrong type is an ArgumentTypeError
(a ValueError and a TypeError), an out-of-range value a plain ValueError; both show the value."""

import pytest

from reasoneval_mini.lessons.answer_pipelines import compare_answer_pipelines
from reasoneval_mini.lessons.estimator_bias import expected_estimates, simulate_estimates
from reasoneval_mini.lessons.evaluation_report import pass_at_k_table
from reasoneval_mini.lessons.sample_pool import build_sample_pool, check_problems
from reasoneval_mini.support.arguments import ArgumentTypeError

RECORDS = [{"sample_id": "a/0", "task_id": "a", "status": "passed"}]
PROBLEM = {"task_id": "t/0", "prompt": "", "canonical_solution": "", "test": "", "entry_point": "f"}

WRONG_TYPES = [
    (lambda: compare_answer_pipelines(0.5, "1/2"), "0.5"),
    (lambda: expected_estimates("0.5", 5, [1]), "'0.5'"),
    (lambda: expected_estimates(0.5, 5.0, [1]), "5.0"),
    (lambda: expected_estimates(0.5, 5, [1.0]), "1.0"),
    (lambda: simulate_estimates(0.5, 5, [1], trials="many"), "'many'"),
    (lambda: pass_at_k_table(RECORDS, "1"), "'1'"),
    (lambda: pass_at_k_table([{"sample_id": "s", "task_id": 7, "status": "passed"}], [1]), "7"),
    (lambda: check_problems("HumanEval"), "'HumanEval'"),
    (lambda: check_problems([["not", "a", "dict"]]), "['not', 'a', 'dict']"),
    (lambda: build_sample_pool([PROBLEM], n=2.0), "2.0"),
]

OUT_OF_RANGE = [
    (lambda: expected_estimates(1.5, 5, [1]), "1.5"),
    (lambda: expected_estimates(0.5, 0, [1]), "0"),
    (lambda: expected_estimates(0.5, 5, [6]), "6"),
    (lambda: pass_at_k_table(RECORDS, []), "[]"),
    (lambda: build_sample_pool([PROBLEM], n=0), "0"),
    (lambda: check_problems([PROBLEM, PROBLEM]), "'t/0'"),
]


@pytest.mark.parametrize("call, shown", WRONG_TYPES, ids=[shown for _, shown in WRONG_TYPES])
def test_a_wrong_type_raises_argument_type_error_showing_the_value(call, shown):
    with pytest.raises(ArgumentTypeError) as error:
        call()
    assert isinstance(error.value, ValueError) and isinstance(error.value, TypeError)
    assert shown in str(error.value)


@pytest.mark.parametrize("call, shown", OUT_OF_RANGE, ids=[shown for _, shown in OUT_OF_RANGE])
def test_a_value_out_of_range_raises_a_plain_value_error_showing_it(call, shown):
    with pytest.raises(ValueError) as error:
        call()
    assert not isinstance(error.value, TypeError)
    assert shown in str(error.value)
