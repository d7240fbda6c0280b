"""Start one grading child process, run its code cells, call its answers, enforce the limits.

The parent side of :mod:`reasoneval_mini.grading.child`. The child only runs
the student's cells and calls the answer functions on the inputs the parent
sends; the parent runs the checks itself, on a stand-in function
(:func:`remote_answer`) whose every call is a request to the child and
whose return value is rebuilt from plain data (:func:`decode_plain`). So the
expected values, hidden checks and comparisons never enter the child.

Processes: the child gets a minimal environment (:func:`child_environment`:
no instructor variables), an empty temporary working folder, and no path to
any notebook, registry or hidden-tests file. On Linux it is a keeper that
holds every process the student starts (see the child's docstring); when the
run ends, :func:`kill_descendants` kills them all, ``setsid`` ones included,
then the keeper. Elsewhere on POSIX the child's process group is killed
(a process that calls ``setsid`` escapes it); on Windows, its process tree.
Reading never blocks on a pipe a leftover holds: each wait has a deadline,
and the whole run has one too (*deadline*).

How a child run ends is one of :data:`ENDINGS`:

* ``done``: the child reported it finished (or reported its own failure);
* ``timeout``: it made no progress for ``step_timeout + KILL_GRACE_SECONDS``
  seconds, or ran past its overall deadline, and was killed;
* ``died``: it stopped without saying so; :attr:`ChildRun.how` says how;
* ``interrupted``: the grader was asked to stop (Ctrl-C) and killed it.
"""

import base64
import builtins
import os
import pickle
import queue
import secrets
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

from reasoneval_mini.runner.environment import MINIMAL_ENV
from reasoneval_mini.support.messages import MessageTooLarge, read_message, write_message
from reasoneval_mini.support.processes import kill_process_tree, signal_name
from reasoneval_mini.grading.child import kill_descendants
from reasoneval_mini.grading.statuses import GRADE_TIMEOUT

#: Extra seconds the parent waits past the child's own watchdog before killing it.
KILL_GRACE_SECONDS = 1.0
ENDING_DONE = "done"
ENDING_TIMEOUT = "timeout"
ENDING_DIED = "died"
ENDING_INTERRUPTED = "interrupted"
#: How a grading child run ends, defined once.
ENDINGS = (ENDING_DONE, ENDING_TIMEOUT, ENDING_DIED, ENDING_INTERRUPTED)
#: The events a child may send; anything else on its channel is dropped.
CHILD_EVENTS = ("notebook", "cell", "cell_failed", "ready", "reply", "done", "fatal")
#: Largest event the parent accepts; a real one (a returned value) is rarely over a few KB.
MAX_EVENT_BYTES = 8 << 20
#: How often a waiting parent looks at its cancel event.
POLL_SECONDS = 0.1

_PACKAGE_ROOT = str(Path(__file__).resolve().parents[2])  # the folder holding the package


@dataclass(frozen=True)
class GradingJob:
    """What every grading child of one run is told, besides its notebooks.

    *registry*: a dotted module name or an absolute path to a ``.py`` file;
    *hidden_tests*: an absolute path or ``None`` (both are loaded by the
    grader, never by a child); *step_timeout*: seconds one step (a cell, or
    one exercise's calls) may take.
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


class CallStopped(BaseException):
    """A call to the child got no answer (it stopped, timed out or died); ends the exercise.

    A BaseException, so that a check's ``except Exception`` does not turn it into a result.
    """


class NotPlainValue(TypeError):
    """What a call raises in the grader when the answer returned something other than plain data."""


def child_environment(workdir):
    """The child's whole environment: nothing of the grader's but what Python needs.

    >>> sorted(child_environment("/tmp/x"))  # doctest: +NORMALIZE_WHITESPACE
    ['HOME', 'LANG', 'LC_ALL', 'MPLBACKEND', 'PATH', 'PYTHONDONTWRITEBYTECODE',
     'PYTHONHASHSEED', 'PYTHONPATH', 'TMPDIR']
    """
    env = dict(MINIMAL_ENV, HOME=str(workdir), TMPDIR=str(workdir), PYTHONHASHSEED="0",
               PYTHONDONTWRITEBYTECODE="1", MPLBACKEND="Agg", PYTHONPATH=_PACKAGE_ROOT)
    if os.name == "nt" and "SYSTEMROOT" in os.environ:  # pragma: no cover - Windows only
        env["SYSTEMROOT"] = os.environ["SYSTEMROOT"]
    return env


# -- plain values ---------------------------------------------------------------------------

_SEQUENCES = {"l": list, "t": tuple, "s": set, "fs": frozenset}


def decode_plain(data):
    """The value :func:`~reasoneval_mini.grading.child.encode_plain` encoded, of exact types.

    Raises ``ValueError`` for anything that is not such an encoding.

    >>> decode_plain({"l": [{"i": "0x2"}, {"q": ["0x1", "0x3"]}, "a"]})
    [2, Fraction(1, 3), 'a']
    """
    if data is None or type(data) in (bool, str):
        return data
    if type(data) is not dict or len(data) != 1:
        raise ValueError(f"not a plain value: {type(data).__name__}")
    (tag, body), = data.items()
    try:
        if tag == "i":
            return int(body, 16)
        if tag == "f":
            return float.fromhex(body) if "0x" in body else float(body)
        if tag == "q":
            return Fraction(int(body[0], 16), int(body[1], 16))
        if tag in _SEQUENCES:
            return _SEQUENCES[tag](decode_plain(item) for item in body)
        if tag == "d":
            return {decode_plain(key): decode_plain(value) for key, value in body}
    except (TypeError, IndexError, ZeroDivisionError, AttributeError) as error:
        raise ValueError(f"not a plain value: {error}") from None
    raise ValueError(f"not a plain value: tag {tag!r}")


def _exception(raised):
    """An exception standing for the one the answer raised: same name, message and built-in base."""
    base = getattr(builtins, str(raised.get("builtin")), Exception)
    if not (isinstance(base, type) and issubclass(base, (Exception, SystemExit))):
        base = Exception  # KeyboardInterrupt and the like must not act on the grader
    message = str(raised.get("message", ""))
    name = str(raised.get("type") or "")
    name = name if name.isidentifier() else base.__name__  # type() refuses some names
    kind = type(name, (base,),
                {"__str__": lambda self: message, "__module__": "student"})
    return kind(message)


def outcome_value(outcome):
    """Return what a call's *outcome* (a child reply) returned, or raise what it raised."""
    if not isinstance(outcome, dict):
        raise CallStopped("a malformed reply")
    if "returned" in outcome:
        try:
            return decode_plain(outcome["returned"])
        except (ValueError, RecursionError) as error:
            raise NotPlainValue(str(error)) from None
    if "not_plain" in outcome:
        raise NotPlainValue(f"returned {str(outcome['not_plain'])[:80]}, not plain data (exact "
                            "int, float, Fraction, str, bool, None, or a list, tuple, dict, set "
                            "or frozenset of them)")
    if "raised" in outcome and isinstance(outcome["raised"], dict):
        raise _exception(outcome["raised"])
    raise CallStopped(str(outcome.get("stopped", "no answer")))


# -- one child run --------------------------------------------------------------------------

def _read_events(stream, events):
    """Put each message of *stream* on *events*, then None; owns and closes *stream*."""
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


class _Stop(BaseException):
    """The run is over (a BaseException: it must pass through the checks untouched)."""

    def __init__(self, ending, how=""):
        super().__init__(ending)
        self.ending, self.how = ending, how


class _Session:
    """The parent's conversation with one child: events in, requests out, every wait bounded."""

    def __init__(self, process, received, nonce, step_timeout, deadline, cancel):
        self.process, self.received, self.nonce = process, received, nonce
        self.limit = step_timeout + KILL_GRACE_SECONDS
        self.deadline, self.cancel = deadline, cancel
        self.events, self.seq = [], 0

    def send(self, message):
        try:
            write_message(self.process.stdin.fileno(), message)
        except (OSError, ValueError):
            raise _Stop(ENDING_DIED) from None

    def next_event(self):
        """The next authentic event; raises :class:`_Stop` when the child is gone or too slow."""
        step_end = time.monotonic() + self.limit
        while True:
            if self.cancel is not None and self.cancel.is_set():
                raise _Stop(ENDING_INTERRUPTED)
            now = time.monotonic()
            if now >= min(step_end, self.deadline):
                raise _Stop(ENDING_TIMEOUT)
            try:
                message = self.received.get(timeout=min(POLL_SECONDS, step_end - now,
                                                        max(0.0, self.deadline - now)))
            except queue.Empty:
                continue
            if message is None:
                raise _Stop(ENDING_DIED)
            event = _authentic(message, self.nonce)
            if event is not None:
                return event

    def call(self, exercise_id, args, kwargs):
        """Have the child call the answer of *exercise_id*; return its reply's outcome."""
        self.seq += 1
        try:
            payload = base64.b64encode(pickle.dumps((args, kwargs))).decode("ascii")
        except Exception as error:  # noqa: BLE001 - an argument the child cannot get
            raise TypeError(f"the check's arguments cannot be sent to the student's process: "
                            f"{type(error).__name__}: {error}") from None
        self.send({"op": "call", "seq": self.seq, "exercise": exercise_id, "args": payload})
        while True:
            event = self.next_event()
            if event["event"] == "reply" and event.get("seq") == self.seq:
                return event.get("outcome")
            self.events.append(event)


def remote_answer(name, call):
    """A function named *name* that forwards each call to ``call(args, kwargs)`` and returns its value."""
    def answer(*args, **kwargs):
        return outcome_value(call(args, kwargs))
    answer.__name__ = answer.__qualname__ = name
    return answer


def run_grading_process(job, tasks, judge, *, cancel=None, deadline=None):
    """Run one child on *tasks*; call ``judge(exercise_id, defined, answer, failures)`` per exercise.

    *tasks*: ``[{"notebook": name, "cells": [[number, python_source], ...],
    "answers": {exercise_id: answer_name}}]``. *judge* runs in the grader
    and returns the exercise's result dict (``status``, ``message``,
    ``checks``); *answer* is a :func:`remote_answer`, *defined* whether the
    child found a callable of that name, *failures* the ``cell_failed``
    events of that notebook. A :class:`CallStopped` raised by *judge* (the
    child's watchdog stopped a call) makes that exercise ``timeout``. *cancel*: a :class:`threading.Event` that stops the run;
    *deadline*: a :func:`time.monotonic` time the whole run must end by.
    Returns a :class:`ChildRun` whose events include the grader's own
    ``exercise`` and ``result`` events.
    """
    nonce = secrets.token_hex(16)
    deadline = float("inf") if deadline is None else deadline
    message = {"step_timeout": job.step_timeout, "nonce": nonce,
               "tasks": [{"notebook": t["notebook"], "cells": t["cells"], "answers": t["answers"]}
                         for t in tasks]}
    with tempfile.TemporaryDirectory(prefix="reasoneval-grade-") as workdir:
        process = subprocess.Popen(
            [sys.executable, "-m", "reasoneval_mini.grading.child", str(os.getpid())],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            cwd=workdir, env=child_environment(workdir), start_new_session=os.name == "posix",
            bufsize=0)
        received = queue.Queue()
        reader = threading.Thread(target=_read_events, args=(process.stdout, received),
                                  daemon=True)
        reader.start()
        session = _Session(process, received, nonce, job.step_timeout, deadline, cancel)
        try:
            session.send(message)
            _converse(session, tasks, judge)
            return ChildRun(tuple(session.events), ENDING_DONE)
        except _Stop as stop:
            if stop.ending != ENDING_DIED:
                return ChildRun(tuple(session.events), stop.ending)
            try:
                returncode = process.wait(timeout=KILL_GRACE_SECONDS)
            except subprocess.TimeoutExpired:
                returncode = None
            return ChildRun(tuple(session.events), ENDING_DIED, describe_exit(returncode))
        finally:
            _end(process)
            reader.join(timeout=KILL_GRACE_SECONDS)  # EOF once every holder is dead


def _end(process):
    """Kill the child and everything it started; reap it."""
    if process.poll() is None:
        kill_descendants(process.pid)
    try:
        process.stdin.close()
    except OSError:
        pass
    kill_process_tree(process)


def _converse(session, tasks, judge):
    by_name = {task["notebook"]: task for task in tasks}
    failures = []
    while True:
        event = session.next_event()
        session.events.append(event)
        kind = event["event"]
        if kind in ("done", "fatal"):
            return
        if kind == "notebook":
            failures = []
        elif kind == "cell_failed":
            failures.append(event)
        elif kind == "ready":
            task = by_name.get(event.get("notebook"))
            if task is None:
                raise _Stop(ENDING_DIED, "an unknown notebook")
            defined = event.get("answers") if isinstance(event.get("answers"), dict) else {}
            for exercise_id, name in task["answers"].items():
                session.events.append({"event": "exercise", "exercise": exercise_id})
                answer = remote_answer(name, lambda args, kwargs, i=exercise_id:
                                       session.call(i, args, kwargs))
                try:
                    result = judge(exercise_id, defined.get(exercise_id) is True, answer,
                                   list(failures))
                except CallStopped as stopped:  # the child's watchdog stopped a call
                    result = {"status": GRADE_TIMEOUT, "message": str(stopped), "checks": []}
                session.events.append({"event": "result", "exercise": exercise_id, **result})
            session.send({"op": "next"})


def _authentic(message, nonce):
    """The event of *message* without its nonce, or ``None`` if it is not this run's.

    Only the kinds a child sends pass (:data:`CHILD_EVENTS`): ``exercise``
    and ``result`` events are the grader's own, whatever student code that
    found the nonce writes.
    """
    if not isinstance(message, dict) or message.pop("nonce", None) != nonce:
        return None
    return message if message.get("event") in CHILD_EVENTS else None
