"""Start one grading child process, read its events, enforce the hard time limit.

The parent side of :mod:`reasoneval_mini.grading.child`. The child gets its
own process group (POSIX), so a timeout kills learner code *and* anything it
started; on Windows only the child itself is killed. Events are read on a
thread so the time limit works the same way on every platform.
"""

import json
import os
import queue
import secrets
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

#: Extra seconds the parent waits past the child's own watchdog before killing it.
KILL_GRACE_SECONDS = 1.0
#: Longest event line accepted from the child, in bytes (more is not a grader event).
MAX_EVENT_BYTES = 1_000_000

_PACKAGE_ROOT = str(Path(__file__).resolve().parents[1])


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


def _kill(process):
    try:
        if os.name == "posix":
            os.killpg(process.pid, signal.SIGKILL)
        else:  # pragma: no cover - Windows: no process groups
            process.kill()
    except (ProcessLookupError, PermissionError):
        pass


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
        try:
            return f"it was killed by signal {signal.Signals(-returncode).name}"
        except ValueError:
            return f"it was killed by signal {-returncode}"
    return f"it exited with code {returncode}"


def run_grading_process(job, step_timeout):
    """Run the child on *job* (without token); return ``(events, ending)``.

    ``events`` are the child's authentic events in order. ``ending`` is
    ``"done"`` when the child finished, ``"timeout"`` when it made no progress
    for ``step_timeout + KILL_GRACE_SECONDS`` seconds and was killed, else a
    sentence on how it died.
    """
    token = secrets.token_hex(16)
    with tempfile.TemporaryDirectory(prefix="reasoneval-grade-") as workdir:
        process = subprocess.Popen(
            [sys.executable, "-m", "reasoneval_mini.grading.child"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            cwd=workdir, env=child_environment(), start_new_session=os.name == "posix")
        lines = queue.Queue()
        reader = threading.Thread(target=_read_lines, args=(process.stdout, lines), daemon=True)
        reader.start()
        try:
            return _collect_events(process, {**job, "token": token}, token, lines, step_timeout)
        finally:
            _kill(process)
            process.wait()
            reader.join(timeout=KILL_GRACE_SECONDS)  # EOF once the group is dead
            process.stdout.close()


def _collect_events(process, job, token, lines, step_timeout):
    try:
        process.stdin.write(json.dumps(job).encode("utf-8"))
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
            return events, "timeout"
        if line is None:
            break
        event = _parse_event(line, token)
        if event is None:
            continue
        events.append(event)
        deadline = time.monotonic() + limit
        if event["event"] in ("done", "fatal"):
            return events, "done"
    try:
        returncode = process.wait(timeout=KILL_GRACE_SECONDS)
    except subprocess.TimeoutExpired:
        returncode = None
    return events, describe_exit(returncode)


def _parse_event(line, token):
    """The event dict, or ``None`` for anything not signed by this job's token."""
    try:
        event = json.loads(line)
    except ValueError:
        return None
    if not isinstance(event, dict) or event.pop("token", None) != token:
        return None
    return event if isinstance(event.get("event"), str) else None
