"""The one reader of ``/proc/<pid>/stat``, checked against psutil (an independent reader of the same file)."""

import os
import signal
import sys
import time

import pytest

from reasoneval_mini.runner.reaping import is_running, process_stat

psutil = pytest.importorskip("psutil")

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc is Linux's")

#: A name of the kernel's 15-character limit that reads like the fields after it.
TRICKY_NAME = b"x) Z 1 (y"


def _sleeper_named(name):
    """Fork a child that renames itself *name* (as a program may) and sleeps; its pid once renamed."""
    ready_read, ready_write = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        try:
            from reasoneval_mini.sandbox.libc import libc

            libc().prctl(15, name, 0, 0, 0)  # PR_SET_NAME
            os.write(ready_write, b"ok")
            time.sleep(30)
        finally:
            os._exit(0)
    os.close(ready_write)
    assert os.read(ready_read, 2) == b"ok"
    os.close(ready_read)
    return pid


def _wait_for(process, status):
    for _ in range(500):  # a state, not a speed: a busy machine may take a while
        if process.status() == status:
            return
        time.sleep(0.01)
    assert process.status() == status


def test_state_and_parent_match_psutil_for_a_live_a_zombie_and_a_reaped_child():
    pid = _sleeper_named(TRICKY_NAME)
    try:
        reference = psutil.Process(pid)
        assert reference.name() == TRICKY_NAME.decode()  # the name really is the tricky one
        _wait_for(reference, psutil.STATUS_SLEEPING)  # past its write, in its sleep
        assert process_stat(pid) == ("S", reference.ppid()) == ("S", os.getpid())
        assert is_running(pid) is True
        os.kill(pid, signal.SIGKILL)
        _wait_for(reference, psutil.STATUS_ZOMBIE)  # dead a moment after the signal; unreaped
        assert process_stat(pid) == ("Z", os.getpid())
        assert is_running(pid) is False
    finally:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    reaped = process_stat(pid)
    assert reaped is None or reaped[1] != os.getpid()  # gone (its pid may be reused, not as our child)


def test_this_process_reads_as_running_with_its_parent():
    assert process_stat(os.getpid()) == ("R", psutil.Process().ppid())
    assert is_running(os.getpid()) is True
