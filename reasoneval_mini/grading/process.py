"""Start one grading child process, read its events, enforce the hard time limit.

The parent side of :mod:`reasoneval_mini.grading.child`. The child gets its
own process group (POSIX), so a timeout kills learner code *and* anything it
started; on Windows only the child itself is killed. Parent and child talk
in framed JSON messages (:mod:`reasoneval_mini.support.messages`, the
executor's protocol); each run has a random nonce, and an event without it is
dropped, so nothing learner code writes can pass for the grader. Events are
read on a thread so the time limit works the same way on every platform.

How a child run ends is one of :data:`ENDINGS`:

* ``done``: the child reported it finished (or reported its own failure);
* ``timeout``: it made no progress for ``step_timeout + KILL_GRACE_SECONDS``
  seconds and was killed;
* ``died``: it stopped without saying so; :attr:`ChildRun.how` says how.
"""

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

from reasoneval_mini.support.messages import MessageTooLarge, read_message, write_message
from reasoneval_mini.support.processes import kill_process_tree, signal_name

#: Extra seconds the parent waits past the child's own watchdog before killing it.
KILL_GRACE_SECONDS = 1.0
ENDING_DONE = "done"
ENDING_TIMEOUT = "timeout"
ENDING_DIED = "died"
#: How a grading child run ends, defined once.
ENDINGS = (ENDING_DONE, ENDING_TIMEOUT, ENDING_DIED)
#: Largest event the parent accepts; a real one (a check's shortened values) is a few KB.
MAX_EVENT_BYTES = 4 << 20

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


def _read_events(stream, events):
    """Put each message of *stream* on *events*, then None; owns and closes *stream*.

    Closing it here, not in the parent, keeps its descriptor number from being
    reused while this thread may still read it (a process that escaped the
    group can hold the pipe open).
    """
    try:
        while True:
            try:
                message = read_message(stream.fileno(), max_bytes=MAX_EVENT_BYTES)
            except MessageTooLarge:  # a garbled frame: the rest of the stream is not ours
                while os.read(stream.fileno(), 1 << 16):  # drain it, so the writer never blocks
                    pass
                break
            except (ValueError, RecursionError):  # a well-framed body that is not JSON: not ours
                continue
            if message is None:
                break
            events.put(message)
    except OSError:
        pass
    finally:
        stream.close()
        events.put(None)


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
    nonce = secrets.token_hex(16)
    message = {"registry": job.registry, "hidden_tests": job.hidden_tests,
               "step_timeout": job.step_timeout, "tasks": tasks, "nonce": nonce}
    with tempfile.TemporaryDirectory(prefix="reasoneval-grade-") as workdir:
        process = subprocess.Popen(
            [sys.executable, "-m", "reasoneval_mini.grading.child"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            cwd=workdir, env=child_environment(), start_new_session=os.name == "posix",
            bufsize=0)
        received = queue.Queue()
        reader = threading.Thread(target=_read_events, args=(process.stdout, received),
                                  daemon=True)
        reader.start()
        try:
            return _collect_events(process, message, nonce, received, job.step_timeout)
        finally:
            kill_process_tree(process)
            reader.join(timeout=KILL_GRACE_SECONDS)  # EOF once the group is dead


def _collect_events(process, message, nonce, received, step_timeout):
    try:
        with process.stdin:
            write_message(process.stdin.fileno(), message)
    except OSError:
        pass  # the child died at once; its exit code tells why
    events = []
    limit = step_timeout + KILL_GRACE_SECONDS
    deadline = time.monotonic() + limit
    while True:
        try:
            message = received.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            return ChildRun(tuple(events), ENDING_TIMEOUT)
        if message is None:
            break
        event = _authentic(message, nonce)
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


def _authentic(message, nonce):
    """The event of *message* without its nonce, or ``None`` if it is not this run's."""
    if not isinstance(message, dict) or message.pop("nonce", None) != nonce:
        return None
    return message if isinstance(message.get("event"), str) else None
