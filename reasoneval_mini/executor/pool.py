"""Warm workers kept between calls, lent out and given back (private to the executor).

A fork server takes about 30-60 ms to start; a notebook calls the executor
many times, so idle workers are kept (at most two per CPU) and stop when
Python exits.
"""

import os

from reasoneval_mini.executor.fork_server import ForkServerWorker
from reasoneval_mini.executor.fresh_interpreter import FreshInterpreterWorker
from reasoneval_mini.runner.warm import WarmPool

_POOL = WarmPool()
_IDLE = _POOL.idle  # warm workers, ready for the next call (the pool's own list)
_close_idle_workers = _POOL.close_idle


def borrow_workers(count, fresh_interpreter=False):
    """*count* workers, warm ones first; give them back with :func:`return_workers`."""
    kind = FreshInterpreterWorker if fresh_interpreter or not hasattr(os, "fork") else ForkServerWorker
    borrowed = _POOL.take(count, fits=lambda worker: isinstance(worker, kind))
    while len(borrowed) < count:
        borrowed.append(make_worker(fresh_interpreter))
    return borrowed


def return_workers(workers):
    """Keep reusable workers warm for the next call; close the others."""
    for worker in workers:
        _POOL.give_back(worker, worker.reusable())


def make_worker(fresh_interpreter=False):
    """A fork-server worker where ``os.fork`` exists, else a fresh-interpreter one."""
    if fresh_interpreter or not hasattr(os, "fork"):
        return FreshInterpreterWorker()
    return ForkServerWorker()
