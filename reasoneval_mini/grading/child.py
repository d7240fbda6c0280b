"""The grading child process: run one student's code cells in the sandbox, then call the answers.

Started by :mod:`reasoneval_mini.grading.process` through
:func:`~reasoneval_mini.runner.start.start_child`, which calls :func:`main`
(the folder that holds the package leaves ``sys.path`` again before any
student code runs). It
reads framed messages (:mod:`reasoneval_mini.support.messages`) on stdin.
The first is the job::

    {"step_timeout": seconds, "isolation": {"mode": ..., "abi": ..., "enforced": [...], "missing": [...]},
     "tasks": [{"notebook": "ex01.ipynb", "cells": [[cell_number, python_source], ...],
                "answers": {"exercise_id": "answer_name", ...}}, ...]}

The cells are plain Python already (the grader converted IPython syntax) and
come from the grader's memory: the child gets no path to any notebook, to the
checkout, the registry or the hidden tests. Before the first cell its working
folder becomes a private memory file system of :data:`WORKDIR_LIMIT_MB`
(:func:`~reasoneval_mini.runner.cap_workdir`, where the kernel lets it), and it confines
itself (:func:`reasoneval_mini.sandbox.confine`): it may read only the
interpreter's installation and the package, write only its own empty working
folder, open no TCP connection, and signal or inspect (``/proc/<pid>``)
nothing outside its sandbox. For each task it runs the cells in one fresh
namespace, emitting ``notebook``, ``cell`` and ``cell_failed`` events, then
``ready`` with which answers are callable, and serves the grader's requests
until ``{"op": "next"}``::

    {"op": "call", "seq": n, "exercise": id, "args": base64 pickle of (args, kwargs)}
    -> {"event": "reply", "seq": n, "outcome": {"returned": plain} | {"raised": {...}}
                                              | {"not_plain": "what"} | {"stopped": "why"}}

The child never sees an expected value, a check or a comparison: it calls the
answer and sends back what it returned as *plain data*
(:func:`~reasoneval_mini.runner.plain_values.encode_plain`),
or the exception's type and message. So whatever student code does in this
process (patch classes, read stack frames, write its own messages on the
channel) can only change what its own answers return, which the grader then
judges in its own process. That is why the channel carries no secret: the only
channel student code can reach is its own (the sandbox keeps it away from a
classmate's ``/proc/<pid>/fd``).

Processes (Linux): the process the grader starts (a fresh interpreter,
:func:`main`), or that the grading server forks for the grader
(:mod:`reasoneval_mini.grading.server`), is a *keeper*. It dies with its
parent, the grader or the server (``PR_SET_PDEATHSIG``), makes itself a child subreaper
(``PR_SET_CHILD_SUBREAPER``) and forks the *worker*, which confines itself
and runs the student's code. Every process the student starts stays below the
keeper, ``setsid`` or double ``fork`` included, so :func:`~reasoneval_mini.runner.reaping.kill_descendants`
finds and kills all of them (Landlock bounds what a process may touch, not how
long it lives); the keeper, outside the sandbox, does that when the worker
ends and when the grader dies. Elsewhere the worker is the process itself, in
its own process group.

A watchdog (``SIGALRM``, POSIX only) stops each cell after ``step_timeout``
seconds, and each exercise's calls after ``step_timeout`` seconds in total, so
that one endless loop costs one step, not the process; the grader's own step
limit stops what swallows the alarms.
"""

import ast
import base64
import builtins
import json
import os
import pickle
import re
import signal
import sys
import threading
import time

from reasoneval_mini.runner import isolation_from_fields, limit_and_confine
from reasoneval_mini.runner.confinement import setup_note
from reasoneval_mini.runner.exceptions import describe_exception
from reasoneval_mini.runner.reaping import become_subreaper, die_with_parent, kill_descendants
from reasoneval_mini.support.call_watch import DelegationRefused, resolve_refused, watched
from reasoneval_mini.support.messages import read_message, write_message
from reasoneval_mini.support.text import shorten
from reasoneval_mini.runner.plain_values import NotPlain, encode_plain

#: Longest error text kept per failed cell, in characters (a message names up to three).
CELL_ERROR_CHARS = 150
#: Modules :func:`write_message` calls into, put back before each event: an
#: honest notebook that mocks ``json.dumps`` must not break its own grading.
_PROTOCOL_MODULES = ("json", "struct", "reasoneval_mini.support.messages")
#: Address-space ceiling of a grading process, in MB (POSIX).
MEMORY_LIMIT_MB = 4096
#: Size of the grading process's working folder, in MB (Linux): it lives in
#: memory (``/dev/shm``), where no address-space limit counts what it holds.
WORKDIR_LIMIT_MB = 256
#: Largest file a grading process may write or size, in MB (POSIX): no more
#: than its folder holds. A memfd (where no filter refuses one) is a file
#: too, and its pages count against no address-space limit: one grew past
#: the 4 GiB ceiling while nothing else bounded it.
FILE_SIZE_LIMIT_MB = WORKDIR_LIMIT_MB
#: Largest encoded returned value, in characters.
MAX_VALUE_CHARS = 2 << 20
# Bound before any student code runs.
_loads, _b64decode, _monotonic, _dumps = pickle.loads, base64.b64decode, time.monotonic, json.dumps
_TOP_LEVEL_AWAIT = ast.PyCF_ALLOW_TOP_LEVEL_AWAIT
_CO_COROUTINE = 0x0080  # inspect.CO_COROUTINE, without importing inspect in every child


class StepTimeout(BaseException):
    """Raised by the watchdog; a BaseException so that ``except Exception`` misses it."""


class Watchdog:
    """Run a step with a time limit; degrades to no limit without ``setitimer``."""

    def __init__(self, seconds):
        self.seconds = seconds
        self.fired = self.active = False
        self.available = (hasattr(signal, "setitimer")
                          and threading.current_thread() is threading.main_thread())

    def _alarm(self, signum, frame):
        if self.active:
            self.fired = True
            raise StepTimeout()

    def run(self, thunk, seconds=None):
        """Return ``None`` if ``thunk()`` finished, else the error text (at most *seconds*)."""
        seconds = self.seconds if seconds is None else seconds
        self.fired, self.active = False, True
        if self.available:
            signal.signal(signal.SIGALRM, self._alarm)
            # Re-fires every 0.05 s: learner code that swallows one alarm meets the next.
            signal.setitimer(signal.ITIMER_REAL, max(seconds, 0.001), 0.05)
        try:
            thunk()
            error = None
        except BaseException as caught:  # SystemExit and KeyboardInterrupt included
            error = f"{type(caught).__name__}: {caught}"
        finally:
            self.active = False
            if self.available:
                signal.setitimer(signal.ITIMER_REAL, 0)
        if self.fired:
            return f"did not finish within {self.seconds:g} s (endless loop?)"
        return error


def _outcome(answer, args, kwargs):
    try:
        value = answer(*args, **kwargs)
    except StepTimeout:
        raise
    except DelegationRefused as refused:
        return {"refused": {"function": refused.function, "escape": refused.escape}}
    except BaseException as error:  # noqa: BLE001 - the learner's code may raise anything
        return {"raised": describe_exception(error)}
    try:
        encoded = encode_plain(value)
    except NotPlain as error:
        return {"not_plain": str(error)}
    except RecursionError:
        return {"not_plain": "a value nested too deeply"}
    if len(_dumps(encoded)) > MAX_VALUE_CHARS:
        return {"not_plain": f"a value too large to grade (over {MAX_VALUE_CHARS} characters)"}
    return {"returned": encoded}


def _serve_calls(task, namespace, watchdog, emit, requests, refused):
    """Answer the grader's call requests for *task* until it says ``next``.

    *refused*: ``{exercise_id: {name: function}}``, resolved before the
    task's cells ran (so that a cell cannot put a stand-in under a refused
    name); each call of that exercise's answer is watched for them.
    """
    spent = {}  # exercise id -> seconds its calls have taken
    while True:
        request = read_message(requests)
        if not isinstance(request, dict) or request.get("op") != "call":
            return request is not None
        exercise = request["exercise"]
        answer = namespace.get(task["answers"].get(exercise, ""))
        if callable(answer) and refused.get(exercise):
            answer = watched(answer, refused[exercise])
        args, kwargs = _loads(_b64decode(request["args"]))
        left = watchdog.seconds - spent.get(exercise, 0.0)
        box = {}
        start = _monotonic()
        error = watchdog.run(lambda: box.setdefault("outcome", _outcome(answer, args, kwargs)),
                             seconds=left) if left > 0 else "no time left"
        spent[exercise] = spent.get(exercise, 0.0) + _monotonic() - start
        if "outcome" in box:
            outcome = box["outcome"]
        else:
            outcome = {"stopped": f"the calls of this exercise did not finish within "
                                  f"{watchdog.seconds:g} s in total (endless loop?)"
                       if watchdog.fired or left <= 0 else shorten(error)}
        emit({"event": "reply", "seq": request["seq"], "outcome": outcome})


# ``%timeit -n 10 -r 3 f()``: the options IPython's timing magics take before the statement.
_MAGIC_OPTIONS = re.compile(r"^(?:\s*-[a-z](?:\s*\d+)?)*\s*")


class _Shell:
    """``get_ipython()`` for the magics IPython's converter leaves as calls.

    ``%time`` and ``%timeit`` run their statement once, as Jupyter would run
    it (timing aside); every other magic and shell line does nothing.
    """

    def __init__(self, namespace):
        self.namespace = namespace

    def run_line_magic(self, name, line, *args, **kwargs):
        if name in ("time", "timeit"):
            _execute(_MAGIC_OPTIONS.sub("", line, count=1), f"<%{name}>", self.namespace, None)

    def __getattr__(self, name):
        return lambda *args, **kwargs: None


def _execute(source, filename, namespace, loops):
    """Run *source* in *namespace*; a top-level ``await`` runs on the notebook's event loop.

    *loops* holds that loop once a cell needs one (IPython, too, runs every
    cell of a notebook on one loop); ``None``: a new loop for this source.
    """
    code = compile(source, filename, "exec", flags=_TOP_LEVEL_AWAIT)
    if not code.co_flags & _CO_COROUTINE:
        exec(code, namespace)  # noqa: S102 - running learner code is the point
        return
    import asyncio  # only a notebook with a top-level await pays for it
    loops = [] if loops is None else loops
    if not loops:
        loops.append(asyncio.new_event_loop())
    loops[0].run_until_complete(eval(code, namespace))  # noqa: S307


def run_job(job, emit, requests):
    """Run every task of *job*: cells, then calls; return when the grader is done."""
    watchdog = Watchdog(job["step_timeout"])
    for task in job["tasks"]:
        emit({"event": "notebook", "notebook": task["notebook"]})
        namespace = {"__name__": "__main__", "__builtins__": builtins, "display": print}
        shell = _Shell(namespace)
        namespace["get_ipython"] = lambda: shell
        # Before any cell: a cell that rebinds a library name must not hide the real function.
        refused = {exercise: resolve_refused(names)
                   for exercise, names in task.get("refuses", {}).items()}
        loops = []  # the notebook's event loop, made by its first top-level await
        for number, source in task["cells"]:
            emit({"event": "cell", "cell": number})  # progress: the time limit is per step
            error = watchdog.run(lambda: _execute(source, f"<{task['notebook']} cell {number}>",
                                                  namespace, loops))
            if error is not None:
                emit({"event": "cell_failed", "cell": number,
                      "kind": "timeout" if watchdog.fired else "error",
                      "message": shorten(error, CELL_ERROR_CHARS)})
        answers = {exercise: callable(namespace.get(name))
                   for exercise, name in task["answers"].items()}
        emit({"event": "ready", "notebook": task["notebook"], "answers": answers})
        if not _serve_calls(task, namespace, watchdog, emit, requests, refused):
            return
    emit({"event": "done"})


# -- processes ------------------------------------------------------------------------------

def _keep(worker):
    """The keeper's life: reap everything, kill what is left when the worker ends, exit like it."""
    def grader_died(signum, frame):
        kill_descendants(os.getpid())
        os._exit(1)

    signal.signal(signal.SIGTERM, grader_died)
    status = 0
    while True:
        try:
            pid, code = os.wait()
        except ChildProcessError:
            break
        if pid == worker:
            status = code
            kill_descendants(os.getpid())
    if os.WIFSIGNALED(status):  # die the same way, so that the grader can say how
        number = os.WTERMSIG(status)
        try:
            signal.signal(number, signal.SIG_DFL)
        except (OSError, ValueError):  # SIGKILL cannot be handled: it is the default already
            pass
        os.kill(os.getpid(), number)
    os._exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 1)


def _become_worker(parent_pid, pipes):
    """On Linux, split into keeper and worker; return in the worker (everywhere else at once).

    *parent_pid* is the process this one must not outlive (the grader, or
    the grading server it was forked from); *pipes* the descriptors to the
    grader, which only the worker keeps. The keeper gets SIGTERM when that
    parent dies (its handler kills everything below it), the worker SIGKILL
    when the keeper does; either ends at once if its parent died before it
    could ask (:func:`~reasoneval_mini.runner.reaping.die_with_parent`).
    """
    if not die_with_parent(parent_pid, signal.SIGTERM):
        return  # no death signal here: no keeper either
    become_subreaper()
    keeper = os.getpid()
    worker = os.fork()
    if worker:
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):  # only the worker holds the pipes to the grader
            os.dup2(null, fd)
        for fd in pipes:
            os.close(fd)
        _keep(worker)
    die_with_parent(keeper, signal.SIGKILL)


def main(grader):
    """The fresh interpreter's life (*grader*: the grader's pid): its stdin and stdout are the pipes.

    See :func:`serve_student` for the rest.
    """
    serve_student(grader, os.dup(1), os.dup(0))


def serve_student(parent_pid, channel, requests):
    """One student's whole run on its own pipes; never returns.

    *channel* is the descriptor the events go to, *requests* the one the
    job and the grader's requests come from; *parent_pid* the process this
    one dies with (:func:`_become_worker`). Keeper and worker, job, limits
    and sandbox, cells, calls, exit: the same in a fresh interpreter
    (:func:`main`) and in a child forked by the grading server
    (:mod:`reasoneval_mini.grading.server`).
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the grader's to handle
    _become_worker(parent_pid, (channel, requests))
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.close(null)
    sys.stdin = open(os.devnull, encoding="utf-8")
    protocol = {name: dict(vars(sys.modules[name])) for name in _PROTOCOL_MODULES
                if name in sys.modules}
    os_write = os.write

    def emit(event):
        for name, saved in protocol.items():
            vars(sys.modules[name]).update(saved)
        os.write = os_write
        write_message(channel, event)

    try:
        job = read_message(requests)
        # A runaway list gets MemoryError, a runaway file EFBIG; no core files;
        # the folder is capped where the kernel lets us, then the sandbox.
        limit_and_confine(isolation_from_fields(job["isolation"]), os.getcwd(),
                          memory_mb=MEMORY_LIMIT_MB, file_size_mb=FILE_SIZE_LIMIT_MB,
                          cap_mb=WORKDIR_LIMIT_MB)
    except BaseException as error:  # no sandbox, no student code: the grader says why
        emit({"event": "fatal", "message": shorten(setup_note(error))})
        os._exit(0)
    try:
        run_job(job, emit, requests)
    except BaseException as error:  # report the grader's own failure, then stop
        emit({"event": "fatal", "message": shorten(f"{type(error).__name__}: {error}")})
    os.close(channel)
    os._exit(0)  # skip learner atexit handlers and non-daemon threads
