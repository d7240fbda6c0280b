"""Start one grading child process, read its events, enforce the hard time limit.

The parent side of :mod:`reasoneval_mini.grading.child`. The child gets its
own process group (POSIX), so a timeout kills learner code *and* anything it
started; on Windows only the child itself is killed. Events are read on a
thread so the time limit works the same way on every platform.

How a child run ends is one of :data:`ENDINGS`:

* ``done``: the child reported it finished (or reported its own failure);
* ``timeout``: it made no progress for ``step_timeout + KILL_GRACE_SECONDS``
  seconds and was killed;
* ``died``: it stopped without saying so; :attr:`ChildRun.how` says how.
"""

import json
import os
import queue
import secrets
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from reasoneval_mini.support.processes import kill_process_tree, signal_name

#: Extra seconds the parent waits past the child's own watchdog before killing it.
KILL_GRACE_SECONDS = 1.0
#: Longest event line accepted from the child, in bytes (more is not a grader event).
MAX_EVENT_BYTES = 1_000_000

ENDING_DONE = "done"
ENDING_TIMEOUT = "timeout"
ENDING_DIED = "died"
#: How a grading child run ends, defined once.
ENDINGS = (ENDING_DONE, ENDING_TIMEOUT, ENDING_DIED)

_PACKAGE_ROOT = str(Path(__file__).resolve().parents[1])


@dataclass(frozen=True)
class GradingJob:
    """What every grading child of one run is told, besides its notebooks.

    *registry*: a dotted module name or an absolute path to a ``.py`` file;
    *hidden_tests*: an absolute path or ``None``; *step_timeout*: seconds one
    step (a cell, or one exercise's checks) may take.
    """

    registry: str
    hidden_tests: str | None
    step_timeout: float


@dataclass(frozen=True)
class ChildRun:
    """The authentic events of one child, in order, and how it ended (one of :data:`ENDINGS`)."""

    events: tuple
    ending: str
    how: str = ""  # ENDING_DIED only: "it exited with code 3", ...


def child_environment():
    """The child's environment: reproducible hashing, the package importable, no GUI."""
    env = dict(os.environ, PYTHONHASHSEED="0", PYTHONDONTWRITEBYTECODE="1", MPLBACKEND="Agg")
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [_PACKAGE_ROOT, env.get("PYTHONPATH")]))
    return env


def _read_lines(stream, lines):
    try:
        for line in iter(lambda: stream.readline(MAX_EVENT_BYTES), b""):
            lines.put(line)
    except (OSError, ValueError):  # the parent closed the pipe after a kill
        pass
    lines.put(None)


def describe_exit(returncode):
    """Human words for a child's exit code.

    >>> describe_exit(3)
    'it exited with code 3'
    >>> describe_exit(-11)
    'it was killed by signal SIGSEGV'
    """
    if returncode is None:
        return "it closed its result channel and was killed"
    if returncode < 0:
        name = signal_name(-returncode)
        return f"it was killed by {'signal ' if name.startswith('SIG') else ''}{name}"
    return f"it exited with code {returncode}"


def run_grading_process(job, tasks):
    """Run one child on *tasks* with the settings of *job* (a :class:`GradingJob`).

    *tasks*: ``[{"notebook": absolute path, "exercises": [id, ...],
    "skip_cells": [[cell_number, reason], ...]}, ...]``. Returns a
    :class:`ChildRun`; it is ``timeout`` when the child made no progress for
    ``job.step_timeout + KILL_GRACE_SECONDS`` seconds.
    """
    token = secrets.token_hex(16)
    message = {"registry": job.registry, "hidden_tests": job.hidden_tests,
               "step_timeout": job.step_timeout, "tasks": tasks, "token": token}
    with tempfile.TemporaryDirectory(prefix="reasoneval-grade-") as workdir:
        process = subprocess.Popen(
            [sys.executable, "-m", "reasoneval_mini.grading.child"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            cwd=workdir, env=child_environment(), start_new_session=os.name == "posix")
        lines = queue.Queue()
        reader = threading.Thread(target=_read_lines, args=(process.stdout, lines), daemon=True)
        reader.start()
        try:
            return _collect_events(process, message, token, lines, job.step_timeout)
        finally:
            kill_process_tree(process)
            reader.join(timeout=KILL_GRACE_SECONDS)  # EOF once the group is dead
            process.stdout.close()


def _collect_events(process, message, token, lines, step_timeout):
    try:
        process.stdin.write(json.dumps(message).encode("utf-8"))
        process.stdin.close()
    except OSError:
        pass  # the child died at once; its exit code tells why
    events = []
    limit = step_timeout + KILL_GRACE_SECONDS
    deadline = time.monotonic() + limit
    while True:
        try:
            line = lines.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            return ChildRun(tuple(events), ENDING_TIMEOUT)
        if line is None:
            break
        event = _parse_event(line, token)
        if event is None:
            continue
        events.append(event)
        deadline = time.monotonic() + limit
        if event["event"] in ("done", "fatal"):
            return ChildRun(tuple(events), ENDING_DONE)
    try:
        returncode = process.wait(timeout=KILL_GRACE_SECONDS)
    except subprocess.TimeoutExpired:
        returncode = None
    return ChildRun(tuple(events), ENDING_DIED, describe_exit(returncode))


def _parse_event(line, token):
    """The event dict, or ``None`` for anything not signed by this job's token."""
    try:
        event = json.loads(line)
    except ValueError:
        return None
    if not isinstance(event, dict) or event.pop("token", None) != token:
        return None
    return event if isinstance(event.get("event"), str) else None
