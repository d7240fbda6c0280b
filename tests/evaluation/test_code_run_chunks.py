"""run_code_samples hands chunks to run_parallel: sizes follow the durations seen; an error loses nothing."""

import threading
from types import SimpleNamespace

import pytest

from reasoneval_mini.evaluation import code_run


class FakeLog:
    """What run_code_samples needs of a ResultsLog: the records so far, append, end_session."""

    def __init__(self):
        self.records, self.sessions = {}, []

    def append(self, records):
        self.records.update((record["sample_id"], record) for record in records)

    def end_session(self, **fields):
        self.sessions.append(fields)


def samples(count):
    return [SimpleNamespace(sample_id=f"s{i}", line=i + 1) for i in range(count)]


def record(sample, seconds):
    return {"sample_id": sample.sample_id, "status": "passed", "detail": "", "duration_s": seconds}


@pytest.fixture
def chunks_run(monkeypatch):
    """The chunks run_chunk was given, in order; each sample 'takes' 1/64 s (exact in binary)."""
    ran = []
    monkeypatch.setattr(code_run, "build_plan", lambda chunk, problem_set: chunk)

    def run_chunk(plan, timeout, executor_arguments):
        ran.append(plan)
        if any(sample.sample_id == "boom" for sample in plan):
            raise RuntimeError("the executor broke")
        return [record(sample, 1 / 64) for sample in plan]

    monkeypatch.setattr(code_run, "run_chunk", run_chunk)
    return ran


def test_chunk_sizes_follow_the_durations_seen_and_every_sample_is_written_once(chunks_run):
    log = FakeLog()
    run = code_run.run_code_samples(samples(300), None, log, timeout=1, workers=1,
                                    progress=False)
    # First chunk: FIRST_CHUNK samples; then CHUNK_SECONDS / (1/64 s) = 64 each, the rest last.
    assert code_run.CHUNK_SECONDS == 1.0 and code_run.FIRST_CHUNK == 8
    assert [len(chunk) for chunk in chunks_run] == [8, 64, 64, 64, 64, 36]
    assert [r["sample_id"] for r in run.records] == [f"s{i}" for i in range(300)]
    assert [r["line"] for r in run.records] == list(range(1, 301))
    assert (run.ran, run.resumed, run.interrupted) == (300, 0, False)
    assert log.sessions and log.sessions[0]["ran"] == 300


def test_an_executor_error_is_raised_after_the_other_threads_chunks_are_written(
        chunks_run, monkeypatch):
    log = FakeLog()
    plan = samples(4)
    plan[1].sample_id = "boom"
    released = threading.Event()
    real = code_run.run_chunk

    def run_chunk(chunk, timeout, executor_arguments):
        if chunk[0].sample_id == "s0":  # running while the other thread's chunk fails
            assert released.wait(timeout=30)
        else:
            released.set()
        return real(chunk, timeout, executor_arguments)

    monkeypatch.setattr(code_run, "run_chunk", run_chunk)
    with pytest.raises(RuntimeError, match="the executor broke"):
        code_run.run_code_samples(plan, None, log, timeout=1, workers=2, progress=False,
                                  chunk_size=1)
    assert "s0" in log.records  # finished after the error: written, not lost
    assert log.sessions and not log.sessions[0]["interrupted"]
    # No chunk is handed out once a chunk failed: s2 and s3 never ran.
    assert sorted(chunk[0].sample_id for chunk in chunks_run) == ["boom", "s0"]
