"""Run a sample file's programs through the course's executor, in small chunks, resumably.

:func:`run_code_samples` keeps *workers* threads busy
(:func:`~reasoneval_mini.support.parallel.run_parallel`), each handing the
executor one small chunk of the plan at a time (``execute_samples`` with one
worker; a chunk is sized when a thread takes it, from the durations seen so
far), and the main thread appends every finished chunk's records to the
results file as it arrives. So:

* a slow or looping sample holds up one thread, not the whole run (with one
  big ``execute_samples`` call per chunk, every chunk would wait for its
  slowest sample);
* results are written every fraction of a second; killed outright, a run
  loses only the chunks that were running;
* Ctrl-C stops handing out chunks and lets the running ones finish (about
  a second of work each) and be written: nothing finished is lost and
  no sample is cut short, so a rerun runs exactly the samples that never ran.

(A per-record callback in ``execute_samples`` would allow one call for the
whole run; chunks are the way to write as it goes without one.)

With a Dask client (``evaluate code --dask ADDRESS``), the same chunks run
on the cluster's workers instead of local threads (:func:`run_chunk` is the
task; each worker process starts its own sandboxed runner servers), and the
main thread writes them as they come back, exactly as above. A worker that
dies takes its running chunks with it; Dask runs them again elsewhere, and a
sample whose record is already written is never written twice.
"""

import threading
import time
from dataclasses import dataclass

from reasoneval_mini.evaluation.samples import build_plan
from reasoneval_mini.executor import execute_samples
from reasoneval_mini.executor.program import DEFAULT_MEMORY_MB
from reasoneval_mini.records import NOT_RUN
from reasoneval_mini.sandbox import plan_isolation
from reasoneval_mini.support.interrupts import on_first_interrupt
from reasoneval_mini.support.parallel import progress_bar, run_parallel

#: A chunk holds about this many seconds of work, judged from the samples run so far.
CHUNK_SECONDS = 1.0
MIN_CHUNK, FIRST_CHUNK, MAX_CHUNK = 1, 8, 256
#: Samples per task sent to a Dask worker: all are sent at once, so the size cannot follow
#: the durations seen; small enough that a lost worker costs little, large enough that the
#: scheduler's per-task cost (about a millisecond) is small beside a chunk's run.
DASK_CHUNK = 16


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


class _Chunks:
    """Hands out consecutive chunks of *samples* to threads; sizes them from the durations seen."""

    def __init__(self, samples, fixed=None):
        self._samples, self._next, self._fixed = samples, 0, fixed
        self._lock = threading.Lock()
        self._seconds, self._count = 0.0, 0

    def take(self):
        with self._lock:
            size = self._fixed or self._size()
            chunk = self._samples[self._next:self._next + size]
            self._next += len(chunk)
            return chunk

    def observe(self, records):
        with self._lock:
            self._seconds += sum(record["duration_s"] for record in records)
            self._count += len(records)

    def _size(self):
        if not self._count:
            return FIRST_CHUNK
        mean = max(self._seconds / self._count, 1e-4)
        return max(MIN_CHUNK, min(MAX_CHUNK, int(CHUNK_SECONDS / mean)))


def run_chunk(plan, timeout, executor_arguments):
    """Run one chunk of the executor's *plan* here (in a thread, or as a Dask worker's task)."""
    return execute_samples(plan, timeout=timeout, workers=1, progress=False,
                           **(executor_arguments or {}))


def _dask_results(client, to_run, problem_set, timeout, executor_arguments, chunk_size, stop):
    """Send every chunk of *to_run* to *client*'s workers; yield each one's future as it completes.

    Stops at the first completed future after *stop* is set; closed or
    stopped, it cancels the futures still running on the cluster.
    """
    from distributed import as_completed  # the optional extra; the caller checked it is there

    size = chunk_size or DASK_CHUNK
    futures = [client.submit(run_chunk, build_plan(to_run[start:start + size], problem_set),
                             timeout, executor_arguments, pure=False)
               for start in range(0, len(to_run), size)]
    try:
        for future in as_completed(futures):
            if stop.is_set():
                break
            yield future
    finally:
        client.cancel([future for future in futures if not future.done()])


def run_code_samples(samples, problem_set, log, *, timeout, workers, executor_arguments=None,
                     progress=True, chunk_size=None, dask_client=None):
    """Run every sample of *samples* that *log* has no record of; append records as chunks end.

    *log* is a :class:`~reasoneval_mini.evaluation.results_log.ResultsLog`.
    Each written record is the executor's (``sample_id``, ``task_id``,
    ``status``, ``detail``, ``duration_s``, ``isolation``) plus ``line``, the
    sample's line in its file. *chunk_size* fixes the chunk size (tests);
    by default it follows :data:`CHUNK_SECONDS`. Returns a :class:`CodeRun`;
    ``interrupted`` is True after Ctrl-C, and then ``records`` holds only the
    finished samples. An error inside the executor stops the run and is raised
    once the other threads' chunks are written. With *dask_client* (a
    ``distributed.Client``) the chunks run on its workers, *workers* unused.
    """
    started = time.perf_counter()
    resumed = sum(sample.sample_id in log.records for sample in samples)
    to_run = [sample for sample in samples if sample.sample_id not in log.records]
    lines = {sample.sample_id: sample.line for sample in samples}
    chunks = _Chunks(to_run, chunk_size)
    stop = threading.Event()

    def next_chunks():
        # Read by run_parallel as a thread becomes free: each chunk is sized
        # from the durations seen so far, and none is handed out after a stop.
        while not stop.is_set() and (chunk := chunks.take()):
            yield chunk

    def run(chunk):
        try:
            records = run_chunk(build_plan(chunk, problem_set), timeout, executor_arguments)
        except BaseException:
            stop.set()  # here, before this thread takes another chunk; raised in write()
            raise
        chunks.observe(records)
        return records

    if dask_client is not None and to_run:
        # One thread waits for the cluster's results; the work runs on its workers.
        work, threads = (lambda future: future.result()), 1
        items = _dask_results(dask_client, to_run, problem_set, timeout, executor_arguments,
                              chunk_size, stop)
    else:
        work, threads, items = run, min(workers, max(1, len(to_run))), next_chunks()
    bar = progress_bar(len(to_run), "evaluating", "sample", progress) if to_run else None
    ran, errors = 0, []

    def write(done):
        nonlocal ran
        if done.error is not None:
            stop.set()  # no new chunk (Dask's too); the running ones end and are written
            errors.append(done.error)
            return
        # A chunk Dask ran again after losing a worker may hold a sample
        # already written: a sample is counted once.
        kept = [dict(record, line=lines[record["sample_id"]]) for record in done.value
                if not _cancelled(record) and record["sample_id"] not in log.records]
        log.append(kept)
        ran += len(kept)
        if bar is not None:
            bar.update(len(kept))

    try:
        with on_first_interrupt(stop.set):
            run_parallel(work, items if to_run else (), threads=threads, on_done=write)
    except Exception as error:  # noqa: BLE001 - reading Dask's results failed: raised below
        errors.append(error)
    finally:
        items.close()  # a stopped Dask run cancels what still runs on the cluster
        if bar is not None:
            bar.close()
    interrupted = stop.is_set() and not errors
    wall_s = time.perf_counter() - started
    log.end_session(wall_s=round(wall_s, 3), ran=ran, interrupted=interrupted)
    if errors:
        raise errors[0]
    records = [log.records[s.sample_id] for s in samples if s.sample_id in log.records]
    return CodeRun(records, ran, resumed, interrupted, wall_s)


def _cancelled(record):
    # The executor's documented detail for a sample Ctrl-C stopped before it finished
    # (only possible when it runs in the main thread, which it does not here).
    return record["status"] == NOT_RUN and record["detail"].startswith("cancelled")
