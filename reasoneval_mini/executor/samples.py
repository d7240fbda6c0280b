"""Run a plan of samples in parallel and keep one record per planned sample."""

import os
import queue
import threading
import warnings

from reasoneval_mini.executor.workers import borrow_workers, return_workers
from reasoneval_mini.executor.program import build_request, classify_run, warn_about_platform_once
from reasoneval_mini.records import NOT_RUN

RESULT_POLL_SECONDS = 0.1  # the main thread wakes this often, so Ctrl-C is seen quickly


def execute_samples(plan, *, timeout=3.0, workers=None, progress=True):
    """Run every program of *plan*; return one record per item, in plan order.

    *plan* is a ``list`` of dicts with ``sample_id`` (a unique non-empty
    ``str``), ``task_id`` (a ``str``) and ``program`` (Python source, or
    ``None`` for a sample that has no program, e.g. the model gave no
    answer). Each record has ``sample_id``, ``task_id``, ``status``,
    ``detail`` and ``duration_s``, and is accepted as is by
    :func:`~reasoneval_mini.records`. A ``None`` program is recorded
    as ``not_run`` with its reason, never dropped. Programs run as in
    :func:`~reasoneval_mini.executor.program` (same *timeout*; 512 MB), over
    *workers* worker processes (default: the number of CPUs). Idle workers
    are kept warm for the next call (at most two per CPU) and stop when
    Python exits.

    *progress* shows a tqdm bar (terminal or notebook); without tqdm
    installed it runs silently. Ctrl-C (``KeyboardInterrupt``) cancels: the
    running programs are killed, every sample not finished is recorded as
    ``not_run`` ("cancelled"), a ``RuntimeWarning`` says so and the records
    are *returned*, not lost.

    Raises ``ValueError`` naming the item for a plan that is not a list of
    such dicts, a duplicate ``sample_id``, or a program that is neither
    ``str`` nor ``None``; ``ValueError`` for a bad *timeout* or *workers*.

    >>> records = execute_samples([
    ...     {"sample_id": "a", "task_id": "t", "program": "assert 2 + 2 == 4"},
    ...     {"sample_id": "b", "task_id": "t", "program": None}], progress=False)
    >>> [(r["sample_id"], r["status"]) for r in records]
    [('a', 'passed'), ('b', 'not_run')]
    """
    validate_plan(plan)
    build_request("", timeout, 512)  # validates timeout before anything runs
    warn_about_platform_once()
    records = [None] * len(plan)
    to_run = []
    for index, item in enumerate(plan):
        if item["program"] is None:
            records[index] = _record(item, NOT_RUN, "no program to run (program is None)", 0.0)
        else:
            to_run.append(index)
    workers = _check_workers(workers, len(to_run))
    if to_run:
        cancelled = _run_all(plan, to_run, records, timeout, workers, progress)
        if cancelled:
            warnings.warn(f"execution cancelled: {cancelled} of {len(plan)} samples "
                          "recorded as not_run", RuntimeWarning, stacklevel=2)
    return records


def validate_plan(plan):
    """Raise ``ValueError`` naming the first bad item of *plan*."""
    if not isinstance(plan, list):
        raise ValueError(f"plan must be a list of dicts, got {type(plan).__name__}")
    seen = set()
    for index, item in enumerate(plan):
        if not isinstance(item, dict):
            raise ValueError(f"plan[{index}] must be a dict, got {item!r:.80}")
        missing = [key for key in ("sample_id", "task_id", "program") if key not in item]
        if missing:
            raise ValueError(f"plan[{index}] is missing {', '.join(missing)}; "
                             "each item needs sample_id, task_id and program")
        sample_id = item["sample_id"]
        if not isinstance(sample_id, str) or not sample_id:
            raise ValueError(f"plan[{index}] needs a non-empty str sample_id, got {sample_id!r}")
        if sample_id in seen:
            raise ValueError(f"plan[{index}] repeats sample_id {sample_id!r}")
        seen.add(sample_id)
        if not isinstance(item["task_id"], str):
            raise ValueError(f"plan[{index}] (sample_id {sample_id!r}) needs a str task_id, "
                             f"got {item['task_id']!r}")
        if item["program"] is not None and not isinstance(item["program"], str):
            raise ValueError(f"plan[{index}] (sample_id {sample_id!r}) needs a str program "
                             f"or None, got {type(item['program']).__name__}")


def _check_workers(workers, jobs):
    if workers is None:
        return max(1, min(os.cpu_count() or 1, jobs))
    if not isinstance(workers, int) or isinstance(workers, bool) or workers < 1:
        raise ValueError(f"workers must be an int >= 1 or None, got {workers!r}")
    return max(1, min(workers, jobs))


def _record(item, status, detail, duration_s):
    return {"sample_id": item["sample_id"], "task_id": item["task_id"],
            "status": status, "detail": detail, "duration_s": duration_s}


def _run_all(plan, to_run, records, timeout, workers, progress):
    """Fill *records* for the indexes in *to_run*; return how many were cancelled."""
    todo, done = queue.Queue(), queue.Queue()
    for index in to_run:
        todo.put(index)
    stop = threading.Event()
    pool = borrow_workers(workers)
    threads = [threading.Thread(target=_work, args=(worker, plan, todo, done, stop, timeout),
                                daemon=True) for worker in pool]
    for thread in threads:
        thread.start()
    bar = _progress_bar(len(to_run), progress)
    try:
        _collect(plan, done, records, len(to_run), timeout, bar, stop)
    except KeyboardInterrupt:
        stop.set()
        for worker in pool:
            worker.cancel()
    finally:
        for thread in threads:
            thread.join()
        return_workers(pool)  # cancelled ones are closed, the rest stay warm
        if bar is not None:
            bar.close()
    # Results that arrived after the interrupt; cancelled runs stay unrecorded.
    _collect(plan, done, records, done.qsize(), timeout, None, stop)
    cancelled = 0
    for index in to_run:
        if records[index] is None:
            records[index] = _record(plan[index], NOT_RUN,
                                     "cancelled (KeyboardInterrupt) before it finished", 0.0)
            cancelled += 1
    return cancelled


def _work(worker, plan, todo, done, stop, timeout):
    while not stop.is_set():
        try:
            index = todo.get_nowait()
        except queue.Empty:
            return
        try:
            raw = worker.run(build_request(plan[index]["program"], timeout, 512))
        except Exception as error:  # the batch goes on; the record says what broke
            raw = {"executor_error": f"{type(error).__name__}: {error}"}
        done.put((index, raw))


def _collect(plan, done, records, expected, timeout, bar, stop):
    received = 0
    while received < expected:
        try:
            index, raw = done.get(timeout=RESULT_POLL_SECONDS)
        except queue.Empty:
            continue
        received += 1
        if stop.is_set() and (raw.get("outcome") == "cancelled" or "executor_error" in raw):
            continue  # killed by the cancel: recorded as not_run later
        result = classify_run(raw, timeout, 512)
        records[index] = _record(plan[index], result.status, result.detail, result.duration_s)
        if bar is not None:
            bar.update(1)


def _progress_bar(total, progress):
    if not progress:
        return None
    try:
        from tqdm.auto import tqdm
    except ImportError:
        return None
    return tqdm(total=total, desc="executing", unit="sample")
