"""Test helpers: a grader's runner servers and sessions, found through Linux's ``/proc``.

A session's child is either forked by a runner server (its parent is the
server, which the grader started) or a fresh interpreter the grader started
itself. A session's processes are its child and everything below it now;
a process that left the child's subtree (a double fork) is found by the
tests that look for it.
"""

from reasoneval_mini.runner.reaping import descendants, process_stat


def _cmdline(pid):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            return handle.read()
    except OSError:
        return b""


def runner_servers(grader_pid):
    """The runner servers *grader_pid* started (its children that run ``reasoneval_mini.runner.server``)."""
    return [pid for pid in descendants(grader_pid)
            if (process_stat(pid) or (None, None))[1] == grader_pid
            and b"reasoneval_mini.runner.server" in _cmdline(pid)]


def sessions(grader_pid):
    """``{session child's pid: [it and every process below it]}`` of *grader_pid*'s running sessions."""
    servers = set(runner_servers(grader_pid))
    found = {}
    for pid in descendants(grader_pid):
        stat = process_stat(pid)
        if stat is None or pid in servers:
            continue
        forked = stat[1] in servers
        fresh = stat[1] == grader_pid and b"reasoneval_mini.runner.child" in _cmdline(pid)
        if forked or fresh:
            found[pid] = [pid, *descendants(pid)]
    return found
