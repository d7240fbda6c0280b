"""Stopping processes and naming how they ended, the same way everywhere.

POSIX: a process started in its own session leads a process group, and
killing the group takes its children and grandchildren too. Windows has no
process groups: the process tree is killed with ``taskkill /T``.

``subprocess`` is imported on Windows only: a runner server uses this
module, and every library it loads is mapped again at each of its forks.
"""

import os
import signal


def kill_process_group(pid):
    """Send SIGKILL to the process group led by *pid*; quietly do nothing if it is gone.

    Call it while the leader is still unreaped where possible: a reaped
    leader's id can be reused, though its group lives on while members do.
    On Windows, kill the tree of *pid* with ``taskkill``.
    """
    if os.name == "nt":  # pragma: no cover - exercised on Windows only
        import subprocess

        subprocess.run(["taskkill", "/F", "/T", "/PID", str(pid)],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def kill_process_tree(process):
    """Kill a :class:`subprocess.Popen` started in its own session, and all it started; reap it."""
    kill_process_group(process.pid)
    if process.poll() is None:
        process.kill()
    process.wait()


def signal_name(number):
    """The name of signal *number* (``"SIGSEGV"``), or ``"signal N"`` if this system has none.

    >>> signal_name(int(signal.SIGTERM))
    'SIGTERM'
    >>> signal_name(0)
    'signal 0'
    """
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"
