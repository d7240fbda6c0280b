"""Watch one forked child: its output, its exit, the deadline, a cancel (private).

Used by the fork server (and so by every forked child: stdlib only).
"""

import os
import select
import time

from reasoneval_mini.executor.workers import CANCELLED, EXITED, TIMED_OUT
from reasoneval_mini.runner.reaping import PARENT_CHECK_SECONDS, kill_descendants, parent_gone
from reasoneval_mini.support.processes import kill_process_group

DRAIN_SECONDS = 0.5  # how long to wait for output still held by an escaped grandchild


def watch_child(pid, streams, deadline, parent_pid=None, subreaper=False):
    """Collect output and wait for the child, the deadline, or a cancel.

    *streams* maps the read ends of the child's pipes (stdout, stderr, the
    report, the setup note) to objects that keep what is read, each with a
    ``read_from(fd)`` that reads what is waiting and returns the count
    (:class:`~reasoneval_mini.executor.output_buffer.ReusedHeadTail`). A
    cancel is anything readable on stdin (the parent writes a byte, then
    closes it), or the death of *parent_pid*. Kills the child's process
    group in every case, reaps the child, closes the pipes, and returns
    ``(outcome, wait_status)``, outcome one of
    :data:`~reasoneval_mini.executor.workers.OUTCOMES`. A *subreaper*
    (:func:`~reasoneval_mini.runner.reaping.become_subreaper`) then also
    kills what the child started outside its group, before draining the
    pipes such a process may hold.
    """
    pidfd = os.pidfd_open(pid) if hasattr(os, "pidfd_open") else None
    buffers = dict(streams)
    outcome = status = None
    while outcome is None:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            outcome = TIMED_OUT
            break
        watched = list(buffers) + [0] + ([pidfd] if pidfd is not None else [])
        wait = min(remaining, PARENT_CHECK_SECONDS) if pidfd is not None else min(remaining, 0.002)
        ready = select.select(watched, [], [], wait)[0]
        _read_ready(ready, buffers)
        if 0 in ready or parent_gone(parent_pid):
            outcome = CANCELLED
        elif pidfd is not None:
            outcome = EXITED if pidfd in ready else None
        else:
            exited, status = _peek_exit(pid)
            outcome = EXITED if exited else None
    # Kill the group while the leader is still unreaped, so its id cannot be reused.
    kill_process_group(pid)
    if status is None:
        status = os.waitpid(pid, 0)[1]
    if subreaper:  # what left the group (setsid, where the filter allows it) is ours now
        kill_descendants(os.getpid())
    if pidfd is not None:
        os.close(pidfd)
    drain_deadline = time.monotonic() + DRAIN_SECONDS
    while buffers and time.monotonic() < drain_deadline:
        ready = select.select(list(buffers), [], [], drain_deadline - time.monotonic())[0]
        _read_ready(ready, buffers)
    for fd in list(buffers):
        del buffers[fd]
        os.close(fd)
    return outcome, status


def _read_ready(ready, buffers):
    for fd in ready:
        if fd in buffers and not buffers[fd].read_from(fd):
            del buffers[fd]
            os.close(fd)


def _peek_exit(pid):
    """(exited, status) for *pid*, the polling fallback where pidfd is missing.

    Peeks without reaping where ``waitid(WNOWAIT)`` exists (status None: the
    caller reaps after killing the group); else reaps with ``waitpid``.
    """
    if hasattr(os, "waitid") and hasattr(os, "WNOWAIT"):
        info = os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
        return info is not None, None
    reaped, status = os.waitpid(pid, os.WNOHANG)
    return reaped != 0, (status if reaped else None)
