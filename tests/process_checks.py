"""Test helpers: is a process still running, and wait for it to be gone.

Shared by the executor, grading and progress tests, which all check that a
timeout leaves no process behind.
"""

import os
import time


def process_alive(pid):
    """True while *pid* exists and is not a zombie (a zombie runs nothing)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as handle:
            # Field 3 is the state; the name before it may contain spaces.
            return handle.read().rpartition(")")[2].split()[0] not in ("Z", "X")
    except OSError:
        return True  # no /proc (macOS): kill(0) succeeded, so count it alive


def assert_gone_soon(pid, seconds=5.0):
    """Fail unless *pid* is gone within *seconds*.

    SIGKILL to a process group returns before the kernel has finished every
    member, so a check straight after a timeout must allow a moment.
    """
    deadline = time.monotonic() + seconds
    while process_alive(pid) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not process_alive(pid), f"process {pid} is still alive after {seconds} s"
