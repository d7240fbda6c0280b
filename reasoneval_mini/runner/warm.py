"""Warm processes kept between uses: lent out, given back, stopped when Python exits.

A runner server takes tens of milliseconds
to start and a notebook or a class uses one many times, so idle ones are
kept, at most :data:`MAX_IDLE` (two per CPU) in each pool. What a pool holds
has a ``close()``; whether one may be kept is the caller's to say, since only
it knows what "still usable" means for its kind.

>>> class Server:
...     closed = False
...     def close(self):
...         self.closed = True
>>> pool, kept, spare = WarmPool(max_idle=1), Server(), Server()
>>> pool.give_back(kept, reusable=True); pool.give_back(spare, reusable=True)
>>> pool.take(2) == [kept], spare.closed  # one may wait; the one past the bound is closed
(True, True)
"""

import atexit
import os
import threading

__all__ = ["MAX_IDLE", "WarmPool"]

#: How many idle processes a pool keeps at most.
MAX_IDLE = 2 * (os.cpu_count() or 1)


class WarmPool:
    """Idle warm processes of one kind, shared by the threads of this process."""

    def __init__(self, max_idle=MAX_IDLE):
        self.idle = []  # ready for the next use
        self.max_idle = max_idle
        self._lock = threading.Lock()
        atexit.register(self.close_idle)

    def take(self, count, fits=None):
        """Up to *count* idle ones (those for which ``fits(one)`` holds), out of the pool."""
        with self._lock:
            taken = [one for one in self.idle if fits is None or fits(one)][:count]
            for one in taken:
                self.idle.remove(one)
        return taken

    def give_back(self, one, reusable):
        """Keep *one* for the next use if *reusable* and the pool has room, else close it."""
        with self._lock:
            keep = reusable and len(self.idle) < self.max_idle
            if keep:
                self.idle.append(one)
        if not keep:
            one.close()

    def close_idle(self):
        """Close every idle one (at exit; tests call it to start afresh)."""
        with self._lock:
            idle, self.idle[:] = list(self.idle), []
        for one in idle:
            one.close()
