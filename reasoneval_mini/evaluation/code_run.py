"""Run a sample file's programs through the course's executor, in chunks, resumably.

:func:`run_code_samples` hands the executor one chunk of the plan at a time
and appends each chunk's finished records to the results file before the
next one starts, so at most one chunk of work is lost when the process is
killed outright. Ctrl-C loses nothing: the executor returns the records of
every sample that finished, the unfinished ones come back ``not_run``
("cancelled") and are simply not written, so a rerun runs exactly those.

(Why chunks: ``execute_samples`` returns its records when the whole plan is
done. A per-record callback in the executor would let every record be
written the moment it finishes; until it has one, a chunk is about 5% of
the run, at least 16 samples and at most 2,000.)
"""

import time
import warnings
from dataclasses import dataclass

from reasoneval_mini.evaluation.samples import build_plan
from reasoneval_mini.executor import execute_samples
from reasoneval_mini.executor.program import DEFAULT_MEMORY_MB
from reasoneval_mini.records import NOT_RUN
from reasoneval_mini.sandbox import plan_isolation
from reasoneval_mini.support.parallel import progress_bar

MIN_CHUNK, MAX_CHUNK = 16, 2000


@dataclass
class CodeRun:
    """The outcome of one session: every finished record (sample order), what ran, what was resumed."""

    records: list
    ran: int
    resumed: int
    interrupted: bool
    wall_s: float


def sandbox_arguments(mode):
    """``(keyword arguments for execute_samples, isolation level line)`` for sandbox *mode*.

    Decided here, before anything runs, so that the level is part of the
    run's settings (a rerun on a machine that isolates less starts afresh).
    Raises :class:`~reasoneval_mini.sandbox.SandboxUnavailable` for
    ``"required"`` where the kernel cannot give it, ``ValueError`` for an
    unknown mode. The executor plans the same level again and stamps it on
    every record.
    """
    return {"sandbox": mode}, str(plan_isolation(mode))


def code_settings(samples_digest, problem_set, *, timeout, sandbox, isolation):
    """Everything that can change a verdict; a rerun resumes only when all of it is equal."""
    return {"samples": samples_digest, "problems": problem_set.identity,
            "timeout_s": float(timeout), "memory_mb": DEFAULT_MEMORY_MB,
            "sandbox": sandbox, "isolation": isolation}


def chunk_size_for(total):
    """About 5% of *total*, within [:data:`MIN_CHUNK`, :data:`MAX_CHUNK`]."""
    return max(MIN_CHUNK, min(MAX_CHUNK, total // 20))


def run_code_samples(samples, problem_set, log, *, timeout, workers, executor_arguments=None,
                     progress=True, chunk_size=None):
    """Run every sample of *samples* that *log* has no record of; append records as chunks end.

    *log* is a :class:`~reasoneval_mini.evaluation.results_log.ResultsLog`.
    Each written record is the executor's (``sample_id``, ``task_id``,
    ``status``, ``detail``, ``duration_s``) plus ``line``, the sample's line
    in its file. Returns a :class:`CodeRun`; ``interrupted`` is True after
    Ctrl-C, and then ``records`` holds only the finished samples.
    """
    started = time.perf_counter()
    resumed = sum(sample.sample_id in log.records for sample in samples)
    to_run = [sample for sample in samples if sample.sample_id not in log.records]
    size = chunk_size or chunk_size_for(len(samples))
    lines = {sample.sample_id: sample.line for sample in samples}
    bar = progress_bar(len(to_run), "evaluating", "sample", progress) if to_run else None
    ran, interrupted = 0, False
    try:
        for start in range(0, len(to_run), size):
            chunk = build_plan(to_run[start:start + size], problem_set)
            with warnings.catch_warnings():
                # The executor's "execution cancelled" warning: the command says it itself.
                warnings.filterwarnings("ignore", "execution cancelled", RuntimeWarning)
                records = execute_samples(chunk, timeout=timeout, workers=workers,
                                          progress=False, **(executor_arguments or {}))
            finished = [dict(record, line=lines[record["sample_id"]]) for record in records
                        if not _cancelled(record)]
            log.append(finished)
            ran += len(finished)
            if bar is not None:
                bar.update(len(finished))
            if len(finished) < len(records):
                interrupted = True
                break
    except KeyboardInterrupt:  # between two chunks: everything finished is written
        interrupted = True
    finally:
        if bar is not None:
            bar.close()
    wall_s = time.perf_counter() - started
    log.end_session(wall_s=round(wall_s, 3), ran=ran, interrupted=interrupted)
    records = [log.records[s.sample_id] for s in samples if s.sample_id in log.records]
    return CodeRun(records, ran, resumed, interrupted, wall_s)


def _cancelled(record):
    # The executor's documented detail for a sample Ctrl-C stopped before it finished.
    return record["status"] == NOT_RUN and record["detail"].startswith("cancelled")
