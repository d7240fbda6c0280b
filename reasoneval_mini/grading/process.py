"""Start one sandboxed grading process, run its code cells, call its answers, enforce the limits.

The grader's side of :mod:`reasoneval_mini.grading.child`. The child runs the
student's cells and calls the answer functions on the inputs sent to it; the
checks run here, on a stand-in function (:func:`remote_answer`) whose every
call is a request to the child and whose return value is rebuilt from plain
data (:func:`decode_plain`, bounded in size, in the time exact arithmetic
on it takes and in what a set of its parts costs). The expected values,
hidden checks and comparisons never enter the child.

Processes: the child is forked by a warm grading server
(:mod:`reasoneval_mini.grading.server`, one per grading thread at a time,
started by :func:`~reasoneval_mini.runner.start.start_child`), which hands it
the pipes the grader made and then only reports its exit; where no server
runs (no ``fork``, or :data:`FORK_SERVER` off) it is a fresh interpreter
started by :func:`~reasoneval_mini.runner.start.start_child`. Either way it
runs :func:`~reasoneval_mini.grading.child.serve_student`,
with a minimal environment (and :data:`CHILD_SETTINGS`),
an empty temporary working folder, no path to any notebook, registry or
hidden-tests file, and confines itself to the sandbox the job's
:class:`~reasoneval_mini.sandbox.Isolation` describes. On Linux its keeper
holds every process the student starts; when the run ends,
:func:`~reasoneval_mini.runner.reaping.kill_descendants` kills them all,
``setsid`` ones included. Elsewhere on POSIX the child's process group is
killed; on Windows, its process tree.

What the child says is read as a protocol, never trusted: events of the
wrong kind, for a notebook or cell it was not given, or out of turn are
dropped, so student code writing on its own channel can only stall itself.
Every wait has a deadline: a step (a notebook's start, a cell, a call) gets
``step_timeout + KILL_GRACE_SECONDS`` seconds, and only progress starts the
next step, so the whole run is bounded by the steps it has.

How a run ends is one of :data:`ENDINGS`:

* ``done``: the child reported it finished (or reported its own failure, ``fatal``);
* ``timeout``: it made no progress within a step's limit and was killed;
* ``died``: it stopped without saying so; :attr:`ChildRun.how` says how;
* ``interrupted``: the grader was asked to stop (Ctrl-C) and killed it.
"""

import base64
import os
import pickle
import subprocess
import time
from dataclasses import dataclass, field

from reasoneval_mini.support.i18n import _
from reasoneval_mini.runner import (
    isolation_to_fields, make_workdir, plan_sandbox, remove_tree)
from reasoneval_mini.runner.deadlines import CANCEL_POLL_SECONDS, KILL_GRACE_SECONDS, deadline_after
from reasoneval_mini.runner.exceptions import rebuild_exception
from reasoneval_mini.runner.reaping import kill_descendants
from reasoneval_mini.runner.start import start_child
from reasoneval_mini.support.call_watch import DelegationRefused
from reasoneval_mini.support.messages import (
    MessageTooLarge, read_message, wait_until_readable, write_message)
from reasoneval_mini.support.processes import kill_process_tree, signal_name
from reasoneval_mini.support.text import shorten
from reasoneval_mini.grading.child import CELL_ERROR_CHARS
from reasoneval_mini.runner.plain_values import NotPlainValue, decode_plain
from reasoneval_mini.grading.server import ServerLost, borrow, give_back
from reasoneval_mini.grading.statuses import GRADE_TIMEOUT

ENDING_DONE = "done"
ENDING_TIMEOUT = "timeout"
ENDING_DIED = "died"
ENDING_INTERRUPTED = "interrupted"
#: How a grading child run ends, defined once.
ENDINGS = (ENDING_DONE, ENDING_TIMEOUT, ENDING_DIED, ENDING_INTERRUPTED)
#: Largest event the grader reads; a real one (a returned value) is rarely over a few KB.
MAX_EVENT_BYTES = 4 << 20

#: What a grading child's environment holds besides the runner's minimal one
#: (:func:`~reasoneval_mini.runner.environment.child_environment`): reproducible runs.
CHILD_SETTINGS = {"PYTHONHASHSEED": "0", "PYTHONDONTWRITEBYTECODE": "1", "MPLBACKEND": "Agg"}


@dataclass(frozen=True)
class GradingJob:
    """What every grading child of one run is told, besides its notebooks.

    *registry*: a dotted module name or an absolute path to a ``.py`` file;
    *hidden_tests*: an absolute path or ``None`` (both are loaded by the
    grader, never by a child); *step_timeout*: seconds one step (a cell, or
    one exercise's calls) may take; *isolation*: the
    :class:`~reasoneval_mini.sandbox.Isolation` every child applies
    (``None``: ``plan_sandbox("auto")``, which warns once about what is missing).
    """

    registry: str
    hidden_tests: str | None
    step_timeout: float
    isolation: object = None
    #: The grader's secret for the hidden checks' draws (never sent to a child).
    grading_key: bytes | None = field(default=None, repr=False)
    #: The answer key file (``None``: the default search of
    #: :func:`~reasoneval_mini.exercises.answer_key.answer_key`); read by the grader only.
    answer_key: str | None = None
    #: Judge every student on this identity's variant (``progress``: the notebooks' own);
    #: ``None``: each on their folder's name (``grade``).
    identity: str | None = None
    #: Run the public checks only (``progress``: what ``check()`` runs), no hidden ones.
    public_only: bool = False

    def sandbox(self):
        """The :class:`~reasoneval_mini.sandbox.Isolation` the children apply."""
        return self.isolation if self.isolation is not None else plan_sandbox("auto")


@dataclass(frozen=True)
class Task:
    """One notebook for a child: its file *name*, the *cells* to run, ``{exercise_id: answer name}``.

    *refuses*: ``{exercise_id: dotted names}`` of the library functions each
    exercise's answer must not call; the child watches every call for them
    (:mod:`reasoneval_mini.support.call_watch`).
    """

    notebook: str
    cells: tuple
    answers: dict
    refuses: dict = field(default_factory=dict)


@dataclass(frozen=True)
class CellFailure:
    """A cell that raised or timed out (*kind* ``"error"`` or ``"timeout"``), or was skipped."""

    cell: int
    kind: str
    message: str


@dataclass(frozen=True)
class Step:
    """Where a run was: the notebook, then the cell it ran or the exercise it checked."""

    notebook: str | None = None
    cell: int | None = None
    exercise: str | None = None


@dataclass(frozen=True)
class ChildRun:
    """What one child run judged, and how it ended (one of :data:`ENDINGS`).

    *results*: ``{exercise_id: result dict}`` of the exercises judged;
    *step*: where it was when it ended; *how*: for ``died``, how
    (``"it exited with code 3"``); *fatal*: the child's own failure message.
    """

    ending: str
    how: str = ""
    step: Step = Step()
    results: dict = field(default_factory=dict)
    fatal: str | None = None
    signal: int | None = None  # died: the signal that ended it, if one did


class CallStopped(BaseException):
    """A call to the child got no answer (it stopped, timed out or died); ends the exercise.

    A BaseException, so that a check's ``except Exception`` does not turn it into a result.
    """




def outcome_value(outcome):
    """Return what a call's *outcome* (a child reply) returned, or raise what it raised."""
    if not isinstance(outcome, dict):
        raise CallStopped("a malformed reply")
    if "returned" in outcome:
        try:
            return decode_plain(outcome["returned"])
        except (ValueError, RecursionError) as error:
            raise NotPlainValue(shorten(error)) from None
    if "not_plain" in outcome:
        raise NotPlainValue(f"returned {str(outcome['not_plain'])[:80]}, not plain data (exact "
                            "int, float, Fraction, str, bool, None, or a list, tuple, dict, set "
                            "or frozenset of them)")
    if "refused" in outcome and isinstance(outcome["refused"], dict):
        refused = outcome["refused"]
        raise DelegationRefused(shorten(str(refused.get("function", "?")), 120),
                                refused.get("escape") is True)
    if "raised" in outcome and isinstance(outcome["raised"], dict):
        raise rebuild_exception(outcome["raised"])
    raise CallStopped(shorten(str(outcome.get("stopped", "no answer"))))


def remote_answer(name, call):
    """A function named *name* that forwards each call to ``call(args, kwargs)`` and returns its value."""
    def answer(*args, **kwargs):
        return outcome_value(call(args, kwargs))
    answer.__name__ = answer.__qualname__ = name
    return answer


# -- one child run --------------------------------------------------------------------------

def describe_exit(returncode):
    """Human words for a child's exit code.

    >>> describe_exit(3)
    'it exited with code 3'
    >>> describe_exit(-11)
    'it was killed by signal SIGSEGV'
    """
    if returncode is None:
        return _("it closed its result channel and was killed")
    if returncode < 0:
        name = signal_name(-returncode)
        if name.startswith("SIG"):
            return _("it was killed by signal {signal}").format(signal=name)
        return _("it was killed by {signal}").format(signal=name)
    return _("it exited with code {code}").format(code=returncode)


class _Stop(BaseException):
    """The run is over (a BaseException: it must pass through the checks untouched)."""

    def __init__(self, ending):
        super().__init__(ending)
        self.ending = ending


class _Session:
    """The grader's conversation with one child: events in, requests out, every wait bounded.

    The child's events are followed as a protocol: each wait accepts only the
    events that are progress from where the child is (the next notebook, a
    later cell, the reply to this call) and gives them one step's time
    (``step_timeout + KILL_GRACE_SECONDS``); anything else is dropped and
    extends nothing. Since each of those steps happens once, the run as a
    whole is bounded too. No event is kept: only where the child is
    (:attr:`step`), the failed cells of the current notebook and the results.
    """

    def __init__(self, child, job, tasks, cancel):
        self.cancel = cancel
        self.requests, self.channel = child.requests, child.channel
        self.step_timeout = job.step_timeout
        self.tasks = list(tasks)
        self.step, self.results, self.fatal, self.seq = Step(), {}, None, 0

    def send(self, message):
        try:
            write_message(self.requests, message)
        except (OSError, ValueError):
            raise _Stop(ENDING_DIED) from None

    def next_accepted(self, accept):
        """The next message ``accept(message)`` takes, within one step; raises :class:`_Stop`."""
        step_end = deadline_after(time.monotonic(), self.step_timeout, KILL_GRACE_SECONDS)
        while True:
            message = self._read(step_end)
            if message is None:
                raise _Stop(ENDING_DIED)
            if not isinstance(message, dict):
                continue
            if message.get("event") == "fatal":
                self.fatal = shorten(str(message.get("message", "")))
                raise _Stop(ENDING_DONE)
            if accept(message):
                return message

    def _read(self, step_end):
        """The channel's next message (``{}`` if it is not JSON, None at its end), by *step_end*.

        One message at a time, never more than :data:`MAX_EVENT_BYTES`; half
        a message and then silence is a timeout like any other.
        """
        while True:  # look at the cancel event while waiting
            if self.cancel is not None and self.cancel.is_set():
                raise _Stop(ENDING_INTERRUPTED)
            try:
                wait_until_readable(self.channel, min(step_end, time.monotonic() + CANCEL_POLL_SECONDS))
                return read_message(self.channel, max_bytes=MAX_EVENT_BYTES, deadline=step_end)
            except TimeoutError:
                if time.monotonic() >= step_end:
                    raise _Stop(ENDING_TIMEOUT) from None
            except (MessageTooLarge, OSError):  # a garbled frame: the rest is not the protocol
                raise _Stop(ENDING_DIED) from None
            except (ValueError, RecursionError):  # a well-framed body that is not JSON: dropped
                return {}

    def call(self, exercise_id, args, kwargs):
        """Have the child call the answer of *exercise_id*; return its reply's outcome."""
        self.seq += 1
        try:
            payload = base64.b64encode(pickle.dumps((args, kwargs))).decode("ascii")
        except Exception as error:  # noqa: BLE001 - an argument the child cannot get
            raise TypeError(f"the check's arguments cannot be sent to the student's process: "
                            f"{type(error).__name__}: {error}") from None
        self.send({"op": "call", "seq": self.seq, "exercise": exercise_id, "args": payload})
        seq = self.seq
        reply = self.next_accepted(lambda m: m.get("event") == "reply" and m.get("seq") == seq)
        return reply.get("outcome")

    def converse(self, judge):
        """Follow the child through its tasks, in order; judge each notebook's exercises."""
        for task in self.tasks:
            self.step = Step(task.notebook)
            self.next_accepted(lambda m: m.get("event") == "notebook"
                               and m.get("notebook") == task.notebook)
            failures = self._run_cells(task)
            ready = self.ready
            defined = ready.get("answers") if isinstance(ready.get("answers"), dict) else {}
            for exercise_id, name in task.answers.items():
                self.step = Step(task.notebook, exercise=exercise_id)
                answer = remote_answer(name, lambda args, kwargs, i=exercise_id:
                                       self.call(i, args, kwargs))
                try:
                    result = judge(exercise_id, defined.get(exercise_id) is True, answer, failures)
                except CallStopped as stopped:  # the child's watchdog stopped a call
                    result = {"status": GRADE_TIMEOUT, "message": str(stopped), "checks": []}
                self.results[exercise_id] = result
            self.send({"op": "next"})
        self.step = Step()
        self.next_accepted(lambda m: m.get("event") == "done")

    def _run_cells(self, task):
        """Follow *task*'s cells to its ``ready`` event; return the :class:`CellFailure` list."""
        cells, failures = {number for number, _ in task.cells}, []

        def progress(message):
            kind, cell = message.get("event"), message.get("cell")
            if kind == "ready":
                return message.get("notebook") == task.notebook
            if kind == "cell":  # a later cell of those it was given
                return type(cell) is int and cell in cells and cell > (self.step.cell or 0)
            return (kind == "cell_failed" and cell is not None and cell == self.step.cell
                    and not (failures and failures[-1].cell == cell))  # the cell it is on, once

        while True:
            message = self.next_accepted(progress)
            if message["event"] == "ready":
                self.ready = message
                return failures
            if message["event"] == "cell":
                self.step = Step(task.notebook, cell=message["cell"])
            else:
                failures.append(CellFailure(
                    self.step.cell, "timeout" if message.get("kind") == "timeout" else "error",
                    shorten(str(message.get("message", "")), CELL_ERROR_CHARS)))


def run_grading_process(job, tasks, judge, *, cancel=None):
    """Run one sandboxed child on *tasks*; call ``judge(exercise_id, defined, answer, failures)``.

    *tasks*: :class:`Task` objects, run in order. *judge* runs in the grader
    and returns the exercise's result dict (``status``, ``message``,
    ``checks``); *answer* is a :func:`remote_answer`, *defined* whether the
    child found a callable of that name, *failures* the notebook's
    :class:`CellFailure` list. A :class:`CallStopped` raised by *judge* (the
    child's watchdog stopped a call) makes that exercise ``timeout``.
    *cancel*: a :class:`threading.Event` that stops the run. Returns a
    :class:`ChildRun`.
    """
    job_message = {"step_timeout": job.step_timeout,
                   "isolation": isolation_to_fields(job.sandbox()),
                   "tasks": [{"notebook": t.notebook, "cells": [list(c) for c in t.cells],
                              "answers": t.answers,
                              "refuses": {i: list(names) for i, names in t.refuses.items()}}
                             for t in tasks]}
    workdir = make_workdir()
    try:
        child = _start(workdir)
        session = _Session(child, job, tasks, cancel)
        ending, returncode = ENDING_DONE, None
        try:
            session.send(job_message)
            session.converse(judge)
        except _Stop as stop:
            ending = stop.ending
            if ending == ENDING_DIED:
                returncode = child.returncode_within(KILL_GRACE_SECONDS)
        finally:
            child.end()
    finally:
        remove_tree(workdir)
    how = describe_exit(returncode) if ending == ENDING_DIED else ""
    killed_by = -returncode if returncode is not None and returncode < 0 else None
    return ChildRun(ending, how, session.step, session.results, session.fatal, killed_by)


#: Fork each student's child from a warm grading server where one can run
#: (:mod:`reasoneval_mini.grading.server`); False: a fresh interpreter for
#: each, as where there is no ``fork`` (the tests of that path set it).
FORK_SERVER = True


def _start(workdir):
    """The child for one student in *workdir*: forked by a warm server, else a fresh interpreter."""
    server = borrow(CHILD_SETTINGS) if FORK_SERVER else None
    if server is not None:
        try:
            return _ForkedChild(server, workdir)
        except ServerLost:  # this student gets a fresh interpreter, the next one a new server
            server.close()
    return _FreshChild(workdir)


class _FreshChild:
    """A grading child in a fresh interpreter (its keeper, on Linux): its pipes, its exit, its end."""

    def __init__(self, workdir):
        self.process = start_child("reasoneval_mini.grading.child", "main", (os.getpid(),),
                                   workdir=workdir, cwd=workdir, extra_env=CHILD_SETTINGS)
        self.requests, self.channel = self.process.stdin.fileno(), self.process.stdout.fileno()

    def returncode_within(self, timeout):
        """Its returncode once it has exited, within *timeout* seconds; None if it has not."""
        try:
            return self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return None

    def end(self):
        """Kill the child and everything it started; reap it."""
        process = self.process
        if process.poll() is None:
            kill_descendants(process.pid)
        for stream in (process.stdin, process.stdout):
            try:
                stream.close()
            except OSError:
                pass
        kill_process_tree(process)


class _ForkedChild:
    """A grading child forked by a grading server; the same three as :class:`_FreshChild`.

    The grader holds the pipes and talks to the child directly; the server
    only reports its exit and, at :meth:`end`, kills it and all it started.
    A server that fails is closed (the next student gets a new one).
    """

    def __init__(self, server, workdir):
        self.server = server
        self.requests, self.channel = server.start_student(workdir)

    def returncode_within(self, timeout):
        try:
            return self.server.exit_status(timeout)
        except TimeoutError:
            return None
        except ServerLost:  # e.g. the student killed it: how the child ended is unknown
            self._lose()
            return None

    def end(self):
        for fd in (self.requests, self.channel):
            try:
                os.close(fd)
            except OSError:
                pass
        if self.server is None:
            return
        try:
            self.server.end()
        except (ServerLost, TimeoutError):
            self._lose()
        else:
            give_back(self.server)

    def _lose(self):
        # Its keeper dies with it (a death signal) and kills what the student started.
        self.server.close()
        self.server = None
