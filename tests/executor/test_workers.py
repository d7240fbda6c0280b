"""run_request on both kinds of runner: the same raw facts and states, and cancel's contract.

A program is a runner session of one source and no calls
(:func:`reasoneval_mini.executor.program.run_request`); it runs on a warm
server where the platform can fork (``Runner(profile)``), else, or when
asked, in a fresh interpreter per program (``Runner(profile, fresh=True)``).
"""

import os
import threading
import time

import pytest

from reasoneval_mini import ASSERTION_FAILED, NOT_RUN, PASSED, RUNTIME_ERROR, TIMEOUT
from reasoneval_mini.executor.program import (
    DEFAULT_MEMORY_MB, RESULT_KEYS, build_request, classify_run, profile_for, run_request)
from reasoneval_mini.runner.session import CANCELLED, OUTCOMES, Runner, servers_possible
from reasoneval_mini.sandbox import plan_isolation

posix_only = pytest.mark.skipif(not servers_possible(), reason="a runner server needs os.fork")
KINDS = ["server", "fresh"]
TIMEOUT_S = 1.0
# Written by hand: what each program is known to do.
CASES = [
    ("assert sorted([2, 1]) == [1, 2]", PASSED),
    ("assert 1 == 2, 'no'", ASSERTION_FAILED),
    ("import os\nos._exit(0)", RUNTIME_ERROR),
    ("while True:\n    pass", TIMEOUT),
]


def new_runner(kind):
    return Runner(profile_for(DEFAULT_MEMORY_MB), fresh=kind == "fresh")


@pytest.fixture
def both_runners():
    runners = [new_runner(kind) for kind in KINDS]
    yield runners
    for runner in runners:
        runner.close()


def test_without_fork_a_runner_runs_each_program_in_a_fresh_interpreter(monkeypatch):
    monkeypatch.delattr(os, "fork")
    runner = Runner(profile_for(DEFAULT_MEMORY_MB))
    try:
        assert runner.fresh
        raw = run_request(runner, build_request("assert True", TIMEOUT_S, DEFAULT_MEMORY_MB))
        assert classify_run(raw, TIMEOUT_S, DEFAULT_MEMORY_MB).status == PASSED
        assert runner.server is None  # no server was started
    finally:
        runner.close()


@posix_only
@pytest.mark.parametrize("source, expected", CASES)
def test_both_kinds_give_the_same_state_and_the_documented_raw_keys(both_runners, source,
                                                                    expected):
    request = build_request(source, TIMEOUT_S, DEFAULT_MEMORY_MB)
    for kind, runner in zip(KINDS, both_runners):
        raw = run_request(runner, request)
        assert set(RESULT_KEYS) <= set(raw), kind
        assert raw["outcome"] in OUTCOMES
        assert (kind, classify_run(raw, TIMEOUT_S, DEFAULT_MEMORY_MB).status) == (kind, expected)
        # Each kind ran it its own way: on a server, or in a fresh interpreter.
        assert (kind, runner.server is not None) == (kind, kind == "server")


@pytest.mark.parametrize("kind", KINDS)
def test_after_cancel_a_run_returns_cancelled_at_once_and_runs_nothing(kind, tmp_path):
    if kind == "server" and not servers_possible():
        pytest.skip("a runner server needs os.fork")
    witness = tmp_path / "ran"
    # Unconfined, so that a program that did run would leave the witness behind.
    request = build_request(f"open({str(witness)!r}, 'w').close()", TIMEOUT_S,
                            DEFAULT_MEMORY_MB, plan_isolation("off"))
    runner = new_runner(kind)
    runner.cancel()
    try:
        started = time.monotonic()
        raw = run_request(runner, request)
        assert time.monotonic() - started < 0.2
        assert raw == {"outcome": CANCELLED}
        assert classify_run(raw, TIMEOUT_S, DEFAULT_MEMORY_MB).status == NOT_RUN
        assert not runner.reusable()
        assert runner.server is None  # not even a server was started
        assert not witness.exists()
    finally:
        runner.close()


@pytest.mark.parametrize("kind", KINDS)
def test_a_cancel_during_a_run_ends_it_at_once_as_cancelled(kind):
    if kind == "server" and not servers_possible():
        pytest.skip("a runner server needs os.fork")
    runner = new_runner(kind)
    try:
        # Warm first (a server's start is not the cancel's to pay for).
        run_request(runner, build_request("pass", TIMEOUT_S, DEFAULT_MEMORY_MB))
        request = build_request("while True:\n    pass", 30.0, DEFAULT_MEMORY_MB)
        threading.Timer(0.5, runner.cancel).start()
        started = time.monotonic()
        raw = run_request(runner, request)
        elapsed = time.monotonic() - started
        assert raw["outcome"] == CANCELLED, raw
        assert classify_run(raw, 30.0, DEFAULT_MEMORY_MB).status == NOT_RUN
        assert 0.5 <= elapsed < 1.5, elapsed
        assert not runner.reusable()
    finally:
        runner.close()
