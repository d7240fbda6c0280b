"""Kill everything a run started, including what left the run's process group (Linux).

A run's process group catches most of what a run starts, but a process can
leave it (``setsid``, where the sandbox's filter does not refuse that; a
double ``fork``). On Linux the trusted process that starts the untrusted one
(the runner server, :mod:`reasoneval_mini.runner.server`) makes itself a *child
subreaper* (:func:`become_subreaper`): every process below it whose parent
dies is handed to it rather than to ``init``, so nothing that the run started
leaves its subtree. When the run ends, :func:`kill_descendants` kills that
whole subtree, again and again until it is empty (a process may fork while
it is being killed).

Reading a subtree costs one small ``/proc/<pid>/task/<tid>/children`` read
per thread in it (an empty subtree, the usual case, one read); where the
kernel lacks that file, the whole of ``/proc`` is read instead. Elsewhere
(macOS, Windows) nothing here does anything: only the process group is killed.

>>> import subprocess
>>> sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
>>> sleeper.pid in descendants(os.getpid()) or not sys.platform.startswith("linux")
True

Surprising: a process that is dead but not yet reaped (a zombie) is no
descendant here: it runs nothing, and killing it again would do nothing.

>>> sleeper.kill()
>>> time.sleep(0.2)  # dead by now; reaped only by wait() below
>>> sleeper.pid in descendants(os.getpid())
False
>>> sleeper.wait() != 0
True
"""

import os
import signal
import sys
import time

from reasoneval_mini.sandbox.libc import libc

# Linux prctl options (include/uapi/linux/prctl.h).
PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36


def prctl(option, value):
    """``prctl(option, value)`` on Linux; True if it worked, False where it is not available."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        return libc().prctl(option, value, 0, 0, 0) == 0
    except (OSError, AttributeError):  # no C library to load, or one without prctl
        return False


def become_subreaper():
    """Make this process a child subreaper (Linux); True if it is one now."""
    return prctl(PR_SET_CHILD_SUBREAPER, 1)


#: How often a process that gets no death signal looks at its parent, while it waits.
PARENT_CHECK_SECONDS = 1.0


def parent_gone(parent_pid):
    """True once *parent_pid* is no longer this process's parent (False when it is None)."""
    return parent_pid is not None and os.getppid() != parent_pid


def die_with_parent(parent_pid, signum=None):
    """The one rule of a trusted process that must not outlive *parent_pid*, its parent.

    With *signum*, on Linux, the kernel sends it to this process when its
    parent dies (``PR_SET_PDEATHSIG``). Then, in every case, if the parent
    is gone already (it died before ``prctl`` took effect, or before this
    process could look), this process exits at once (status 1). Returns
    True when the kernel will send *signum*; False where nothing will (no
    *signum*, or not Linux): the caller then looks at :func:`parent_gone`
    every :data:`PARENT_CHECK_SECONDS` while it waits.

    Surprising: Linux sends the signal when the *thread* that started this
    process ends, though its process lives on. A process that outlives the
    thread that started it (a warm runner server, lent to the
    threads of later calls) passes no *signum* and looks for itself.
    """
    armed = signum is not None and prctl(PR_SET_PDEATHSIG, signum)
    if parent_gone(parent_pid):
        os._exit(1)
    return armed


def _children(pid):
    """The live children of *pid*, from its threads' ``children`` files; None where the kernel has none.

    Each thread has its own file (a child forked by another thread is listed
    only there).
    """
    try:
        threads = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return None if not os.path.isdir("/proc/self/task") else []  # no /proc, or *pid* is gone
    listed = []
    for thread in threads:
        try:
            with open(f"/proc/{pid}/task/{thread}/children", "rb") as handle:
                listed.extend(int(child) for child in handle.read().split())
        except FileNotFoundError:
            if not os.path.exists(f"/proc/{pid}/task/{thread}"):
                continue  # the thread ended meanwhile
            return None  # no such file (the kernel was built without CONFIG_PROC_CHILDREN)
        except OSError:
            continue
    return [child for child in listed if is_running(child)]


#: The states of a process that is dead, not yet reaped (zombie) or on its way out.
DEAD_STATES = ("Z", "X")


def process_stat(pid):
    """``(state, parent pid)`` of process *pid*, from ``/proc/<pid>/stat``: ``("S", 1)``; None if unreadable.

    The one reader of that file. None means the process is gone where
    ``/proc`` exists (Linux), and cannot be known where it does not.

    >>> not sys.platform.startswith("linux") or process_stat(os.getpid()) == ("R", os.getppid())
    True
    """
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            # Field 2 is the program's name in parentheses, and a program
            # chooses its name: "a) Z 1" included. Only what follows the
            # last ")" is the kernel's.
            fields = handle.read().rpartition(b")")[2].split()
        return fields[0].decode("ascii"), int(fields[1])
    except (OSError, IndexError, ValueError, UnicodeDecodeError):
        return None


def is_running(pid):
    """True unless process *pid* is gone or a zombie (Linux ``/proc``; False where it cannot be read)."""
    stat = process_stat(pid)
    return stat is not None and stat[0] not in DEAD_STATES


def _children_map():
    """``{parent pid: [child pids]}`` from all of ``/proc`` (empty where there is none)."""
    children = {}
    try:
        entries = os.listdir("/proc")
    except OSError:
        return children
    for entry in entries:
        if not entry.isdigit():
            continue
        stat = process_stat(entry)
        if stat is not None and stat[0] not in DEAD_STATES:  # a zombie is dead already
            children.setdefault(stat[1], []).append(int(entry))
    return children


def descendants(pid):
    """Every live process below *pid* (Linux ``/proc``; empty elsewhere)."""
    found, todo, everyone = [], [pid], None
    while todo:
        parent = todo.pop()
        below = _children(parent) if everyone is None else None
        if below is None:
            if everyone is None:
                everyone = _children_map()
            below = everyone.get(parent, [])
        found.extend(below)
        todo.extend(below)
    return found


def kill_descendants(pid, rounds=100):
    """SIGKILL every process below *pid*, again until none is left (new forks included).

    Called by *pid* itself (a subreaper), it also reaps them: a killed
    process stays a zombie, listed nowhere here, until its parent reaps it;
    and a process with no child at all (``ECHILD``: a subreaper's usual case
    once its run's leader is reaped, since every orphan below it would be its
    child) has nothing below it, and ``/proc`` is not read.
    """
    if pid == os.getpid() and not _has_children():
        return
    for _ in range(rounds):
        below = descendants(pid)
        if not below:
            break
        for child in below:
            try:
                os.kill(child, signal.SIGKILL)
            except OSError:
                pass
        if pid == os.getpid():
            _reap_all()
    if pid == os.getpid():
        _reap_dead()  # those that died after the last look: no zombie stays behind


def _has_children():
    """False when this process has no child, alive or dead (a dead one is reaped here)."""
    try:
        os.waitpid(-1, os.WNOHANG)
    except ChildProcessError:
        return False
    return True


def _reap_dead():
    """Reap every child of this process that has died, without waiting for the others."""
    while True:
        try:
            if os.waitpid(-1, os.WNOHANG)[0] == 0:
                return
        except ChildProcessError:
            return


def _reap_all():
    """Reap every dead child of this process, waiting until none of its descendants runs."""
    while True:
        try:
            if os.waitpid(-1, os.WNOHANG)[0] == 0:
                time.sleep(0.001)
                if not descendants(os.getpid()):
                    return
        except ChildProcessError:
            return
