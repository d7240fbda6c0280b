"""Run a plan of samples in parallel and keep one record per planned sample."""

import os
import queue
import threading
import warnings
from dataclasses import dataclass

from reasoneval_mini.executor.program import (
    DEFAULT_MEMORY_MB,
    DEFAULT_TIMEOUT_S,
    EXECUTOR_ERROR,
    build_request,
    classify_run,
    plan_run,
    profile_for,
    run_request,
)
from reasoneval_mini.records import NOT_RUN
from reasoneval_mini.runner.session import CANCELLED, Runner, borrow, give_back
from reasoneval_mini.support.arguments import ArgumentTypeError, positive_int
from reasoneval_mini.support.interrupts import ctrl_c_once
from reasoneval_mini.support.parallel import progress_bar, run_parallel

#: The keys every plan item needs.
PLAN_KEYS = ("sample_id", "task_id", "program")


def execute_samples(plan, *, timeout=DEFAULT_TIMEOUT_S, workers=None, progress=True,
                    sandbox="auto"):
    """Run every program of *plan*; return one record per item, in plan order.

    *plan* is a ``list`` of dicts with ``sample_id`` (a unique non-empty
    ``str``), ``task_id`` (a ``str``) and ``program`` (Python source, or
    ``None`` for a sample that has no program, e.g. the model gave no
    answer). Each record has ``sample_id``, ``task_id``, ``status``,
    ``detail``, ``duration_s`` and ``isolation`` (the run's isolation level,
    the same line for every record of one call, with the working folder cap
    as the workers report it), and is accepted as is by
    :func:`~reasoneval_mini.records.execution_summary`. A ``None`` program
    is recorded as ``not_run`` with its reason, never dropped. Programs run
    as in :func:`~reasoneval_mini.executor.program.execute_program` (same
    *timeout*; its default memory limit, 512 MB), over *workers* worker
    processes (default: the number of CPUs), through
    :func:`~reasoneval_mini.support.parallel.run_parallel`, each inside the
    *sandbox* (``"auto"``, ``"required"`` or ``"off"``, as in
    ``execute_program``; ``"required"`` refuses before anything runs). Idle
    workers are kept warm for the next call (at most two per CPU) and stop
    when Python exits.

    *progress* shows a tqdm bar (terminal or notebook); without tqdm
    installed it runs silently. Ctrl-C (``KeyboardInterrupt``) cancels: the
    running programs are killed, every sample not finished is recorded as
    ``not_run`` ("cancelled"), a ``RuntimeWarning`` says so and the records
    are *returned*, not lost; further Ctrl-C while it cancels are ignored
    (in the main thread).

    A sample whose worker died or broke under it (another sample's program
    may kill its siblings' workers) is run once more, on a fresh worker,
    after the others; its ``detail`` then says "retried once on a fresh worker".

    Raises ``ValueError`` naming the item for a plan that is not a list of
    such dicts, a duplicate ``sample_id``, or a program that is neither
    ``str`` nor ``None``; ``ValueError`` for a bad *timeout* or *sandbox* (as
    in ``execute_program``) or *workers* (an ``int`` >= 1, or ``None``). A
    wrong type is raised as
    :class:`~reasoneval_mini.support.arguments.ArgumentTypeError`, which is
    also a ``TypeError``. Nothing runs before the arguments are checked.

    >>> records = execute_samples([
    ...     {"sample_id": "a", "task_id": "t", "program": "assert 2 + 2 == 4"},
    ...     {"sample_id": "b", "task_id": "t", "program": None}], progress=False)
    >>> [(r["sample_id"], r["status"]) for r in records]
    [('a', 'passed'), ('b', 'not_run')]
    """
    validate_plan(plan)
    _check_workers(workers, 1)
    isolation = plan_run(sandbox, timeout, DEFAULT_MEMORY_MB)  # before anything runs
    run = _Run(plan, [None] * len(plan), timeout, isolation)
    to_run = []
    for index, item in enumerate(plan):
        if item["program"] is None:
            run.records[index] = run.record(item, NOT_RUN, "no program to run (program is None)",
                                            0.0)
        else:
            to_run.append(index)
    workers = _check_workers(workers, len(to_run))
    records = run.records
    if to_run:
        cancelled = _run_all(run, to_run, workers, progress)
        if cancelled:
            warnings.warn(f"execution cancelled: {cancelled} of {len(plan)} samples "
                          "recorded as not_run", RuntimeWarning, stacklevel=2)
    _one_level(records, str(isolation))
    return records


def _one_level(records, planned):
    """Give the records that did not run the level the others ran under, when those agree.

    The plan (*planned*) cannot know whether the workers could cap their
    folders; the records of the samples that ran say it. Edits in place.
    """
    ran = {record["isolation"] for record in records} - {planned}
    if len(ran) == 1:
        (level,) = ran
        for record in records:
            record["isolation"] = level


def validate_plan(plan):
    """Raise ``ValueError`` naming the first bad item of *plan*."""
    if not isinstance(plan, list):
        raise ArgumentTypeError(f"plan must be a list of dicts, got {plan!r:.80} "
                                f"({type(plan).__name__})")
    seen = set()
    for index, item in enumerate(plan):
        if not isinstance(item, dict):
            raise ArgumentTypeError(f"plan[{index}] must be a dict, got {item!r:.80}")
        missing = [key for key in PLAN_KEYS if key not in item]
        if missing:
            raise ValueError(f"plan[{index}] is missing {', '.join(missing)}; "
                             "each item needs sample_id, task_id and program")
        sample_id = item["sample_id"]
        if not isinstance(sample_id, str) or not sample_id:
            error = ValueError if isinstance(sample_id, str) else ArgumentTypeError
            raise error(f"plan[{index}] needs a non-empty str sample_id, got {sample_id!r:.80}")
        if sample_id in seen:
            raise ValueError(f"plan[{index}] repeats sample_id {sample_id!r}")
        seen.add(sample_id)
        if not isinstance(item["task_id"], str):
            raise ArgumentTypeError(f"plan[{index}] (sample_id {sample_id!r}) needs a str "
                                    f"task_id, got {item['task_id']!r:.80}")
        if item["program"] is not None and not isinstance(item["program"], str):
            raise ArgumentTypeError(f"plan[{index}] (sample_id {sample_id!r}) needs a str "
                                    f"program or None, got {item['program']!r:.80} "
                                    f"({type(item['program']).__name__})")


def _check_workers(workers, jobs):
    if workers is None:
        return max(1, min(os.cpu_count() or 1, jobs))
    return max(1, min(positive_int(workers, "workers"), jobs))


@dataclass
class _Run:
    """One call's plan, its records (filled in as samples end), and what every sample shares."""

    plan: list
    records: list
    timeout: float
    isolation: object

    def request(self, index):
        return build_request(self.plan[index]["program"], self.timeout, DEFAULT_MEMORY_MB,
                             self.isolation)

    def record(self, item, status, detail, duration_s, isolation=None):
        """The record of one sample; *isolation* is its run's line (default: the plan's)."""
        return {"sample_id": item["sample_id"], "task_id": item["task_id"],
                "status": status, "detail": detail, "duration_s": duration_s,
                "isolation": str(self.isolation) if isolation is None else isolation}


def _run_all(run, to_run, workers, progress):
    """Fill ``run.records`` for the indexes in *to_run*; return how many were cancelled."""
    first_failures = {}  # index -> why its worker failed, for those to run again
    bar = progress_bar(len(to_run), "executing", "sample", progress)
    try:
        with ctrl_c_once():
            try:
                profile = profile_for(DEFAULT_MEMORY_MB)
                interrupted = _run_round(run, to_run, borrow(profile, workers), bar,
                                         first_failures)
                retry = sorted(first_failures)
                if retry and not interrupted:
                    # New runners, after every other sample ended: a sample
                    # that kills its siblings' servers is no longer running.
                    fresh = [Runner(profile) for _ in range(min(workers, len(retry)))]
                    _run_round(run, retry, fresh, bar, None, first_failures)
            except KeyboardInterrupt:  # between rounds: nothing runs; the rest is not_run
                pass
    finally:
        if bar is not None:
            bar.close()
    cancelled = 0
    for index in to_run:
        if run.records[index] is None:
            run.records[index] = run.record(run.plan[index], NOT_RUN,
                                            "cancelled (KeyboardInterrupt) before it finished",
                                            0.0)
            cancelled += 1
    return cancelled


def _run_round(run, indexes, pool, bar, failures, retried=None):
    """Run the samples at *indexes* on *pool*; record them; return True if interrupted.

    A sample whose worker failed is left unrecorded and noted in *failures*
    (a dict) when given; with *retried* (the first round's failures), its
    record says it was run a second time.
    """
    free = queue.Queue()  # the runners no thread has taken yet (one thread per runner)
    for runner in pool:
        free.put(runner)

    plan, records = run.plan, run.records
    # A thread per runner: each takes one at its first sample and keeps it
    # (two queue operations per sample saved, each a lock and a wake-up).
    mine = threading.local()

    def run_one(index):
        runner = getattr(mine, "runner", None)
        if runner is None:
            runner = mine.runner = free.get()
        try:
            return run_request(runner, run.request(index))
        except Exception as error:  # the batch goes on; the record says what broke
            return {EXECUTOR_ERROR: f"{type(error).__name__}: {error}"}

    def record(done):
        raw = _raw(done)
        index = indexes[done.index]
        if failures is not None and EXECUTOR_ERROR in raw:
            failures[index] = raw[EXECUTOR_ERROR]
            return
        result = classify_run(raw, run.timeout, DEFAULT_MEMORY_MB, run.isolation)
        detail = result.detail
        if retried is not None:
            detail = (f"{detail} (retried once on a fresh worker: the first one failed: "
                      f"{retried[index]})")
        records[index] = run.record(plan[index], result.status, detail, result.duration_s,
                                    result.isolation)
        if bar is not None:
            bar.update(1)

    def cancel_all():
        for runner in pool:
            runner.cancel()

    try:
        run_parallel(run_one, indexes, threads=len(pool), on_done=record, cancel=cancel_all)
    except KeyboardInterrupt as interrupt:
        cancel_all()  # again: a second interrupt may have cut the first cancel short
        # Results that arrived after the interrupt count, unless the cancel
        # itself ended them: those are recorded as not_run by the caller.
        for done in getattr(interrupt, "results", None) or ():
            if (done is not None and records[indexes[done.index]] is None
                    and _raw(done).get("outcome") != CANCELLED
                    and EXECUTOR_ERROR not in _raw(done)):
                record(done)
        return True
    finally:
        give_back(pool)  # cancelled ones are closed, the rest stay warm
    return False


def _raw(done):
    """A run's raw result from a :class:`~reasoneval_mini.support.parallel.Done`."""
    if done.error is not None:  # not an Exception (those run_one turns into a result)
        return {EXECUTOR_ERROR: f"{type(done.error).__name__}: {done.error}"}
    return done.value

