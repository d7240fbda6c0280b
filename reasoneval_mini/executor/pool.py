"""Warm workers kept between calls, lent out and given back (private to the executor).

A fork server takes about 30-60 ms to start; a notebook calls the executor
many times, so idle workers are kept (at most two per CPU) and stop when
Python exits.
"""

import atexit
import os
import threading

from reasoneval_mini.executor.fork_server import ForkServerWorker
from reasoneval_mini.executor.fresh_interpreter import FreshInterpreterWorker

_IDLE = []  # warm workers, ready for the next call
_IDLE_LOCK = threading.Lock()
MAX_IDLE = 2 * (os.cpu_count() or 1)


def borrow_workers(count, fresh_interpreter=False):
    """*count* workers, warm ones first; give them back with :func:`return_workers`."""
    kind = FreshInterpreterWorker if fresh_interpreter or not hasattr(os, "fork") else ForkServerWorker
    borrowed = []
    with _IDLE_LOCK:
        for worker in list(_IDLE):
            if len(borrowed) < count and isinstance(worker, kind):
                _IDLE.remove(worker)
                borrowed.append(worker)
    while len(borrowed) < count:
        borrowed.append(make_worker(fresh_interpreter))
    return borrowed


def return_workers(workers):
    """Keep reusable workers warm for the next call; close the others."""
    for worker in workers:
        with _IDLE_LOCK:
            keep = worker.reusable() and len(_IDLE) < MAX_IDLE
            if keep:
                _IDLE.append(worker)
        if not keep:
            worker.close()


@atexit.register
def _close_idle_workers():
    with _IDLE_LOCK:
        idle = list(_IDLE)
        _IDLE.clear()
    for worker in idle:
        worker.close()


def make_worker(fresh_interpreter=False):
    """A fork-server worker where ``os.fork`` exists, else a fresh-interpreter one."""
    if fresh_interpreter or not hasattr(os, "fork"):
        return FreshInterpreterWorker()
    return ForkServerWorker()
