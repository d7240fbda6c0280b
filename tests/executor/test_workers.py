"""The worker interface: both kinds implement it, give the same raw facts and states."""

import os

import pytest

from reasoneval_mini import ASSERTION_FAILED, NOT_RUN, PASSED, RUNTIME_ERROR, TIMEOUT
from reasoneval_mini.executor.fork_server import ForkServerWorker
from reasoneval_mini.executor.fresh_interpreter import FreshInterpreterWorker
from reasoneval_mini.executor.program import DEFAULT_MEMORY_MB, build_request, classify_run
from reasoneval_mini.executor.workers import (
    CANCELLED,
    OUTCOMES,
    RESULT_KEYS,
    Worker,
)

posix_only = pytest.mark.skipif(not hasattr(os, "fork"), reason="the fork server needs os.fork")
TIMEOUT_S = 1.0
# Written by hand: what each program is known to do.
CASES = [
    ("assert sorted([2, 1]) == [1, 2]", PASSED),
    ("assert 1 == 2, 'no'", ASSERTION_FAILED),
    ("import os\nos._exit(0)", RUNTIME_ERROR),
    ("while True:\n    pass", TIMEOUT),
]


def test_the_interface_cannot_be_used_without_every_method():
    class Partial(Worker):
        def run(self, request):
            return {}

    with pytest.raises(TypeError, match="abstract"):
        Partial()


@pytest.mark.parametrize("kind", [ForkServerWorker, FreshInterpreterWorker])
def test_both_kinds_implement_the_worker_interface(kind):
    assert issubclass(kind, Worker)
    assert not getattr(kind, "__abstractmethods__", None)


@pytest.fixture
def both_workers():
    workers = [ForkServerWorker(), FreshInterpreterWorker()]
    yield workers
    for worker in workers:
        worker.close()


@posix_only
@pytest.mark.parametrize("source, expected", CASES)
def test_both_kinds_give_the_same_state_and_the_documented_raw_keys(both_workers, source,
                                                                    expected):
    request = build_request(source, TIMEOUT_S, DEFAULT_MEMORY_MB)
    for worker in both_workers:
        raw = worker.run(request)
        assert set(RESULT_KEYS) <= set(raw), type(worker).__name__
        assert raw["outcome"] in OUTCOMES
        assert (type(worker).__name__, classify_run(raw, TIMEOUT_S, DEFAULT_MEMORY_MB).status) == (
            type(worker).__name__, expected)


@pytest.mark.parametrize("kind", [ForkServerWorker, FreshInterpreterWorker])
def test_after_cancel_a_run_returns_cancelled_at_once_and_is_not_run(kind):
    if kind is ForkServerWorker and not hasattr(os, "fork"):
        pytest.skip("the fork server needs os.fork")
    worker = kind()
    worker.cancel()
    try:
        raw = worker.run(build_request("pass", TIMEOUT_S, DEFAULT_MEMORY_MB))
        assert raw == {"outcome": CANCELLED}
        assert classify_run(raw, TIMEOUT_S, DEFAULT_MEMORY_MB).status == NOT_RUN
        assert not worker.reusable()
    finally:
        worker.close()
