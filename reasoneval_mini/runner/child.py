"""The untrusted side of a session: confine, run the sources in one namespace, answer the calls, report.

Every run of untrusted code is a *session* (:mod:`reasoneval_mini.runner.session`):
an executor's program is a session of one source and no calls, a student a
session of notebooks, each a list of cells followed by calls to its answers.
This module is what runs inside the session's process, forked by a runner
server (:func:`run_forked`) or started as a fresh interpreter (:func:`main`).
Its descriptors, set before anything else happens::

    0  /dev/null           3  events   (framed JSON to the caller; not inheritable)
    1  the program's stdout 4  requests (framed JSON from the caller; not inheritable)
    2  the program's stderr    (1 and 2 are /dev/null when the caller keeps no output)

Order of a session, the same in both ways of starting:

1. the *job* is read from the requests: ``{"tasks": [{"sources": [[filename,
   source], ...], "answers": {exercise: name}, "refuses": {exercise: [dotted
   names]}}, ...], "notebook": bool, "step_seconds": seconds or None,
   "nonce": text}``;
2. the limits, the working folder's cap (a fresh interpreter only: a server
   capped its base once) and the sandbox
   (:func:`~reasoneval_mini.runner.confinement.limit_and_confine`); if they
   fail, ``{"event": "setup_failed"}`` and exit :data:`SETUP_FAILED`, having
   run nothing; else ``{"event": "confined", "warnings": [...]}``. The caller
   believes a setup failure only before that event: code that ran after it
   cannot unsay it;
3. per task, a fresh namespace; per source, ``{"event": "source"}`` (only
   with *step_seconds*: the caller follows the steps it times), then the
   source runs (under a watchdog of *step_seconds*, when given); one that
   raised gives ``{"event": "failed"}`` with the exception's plain fields
   (:func:`~reasoneval_mini.runner.exceptions.describe_exception`), a
   ``text`` (``"ValueError: bad"``) and its ``line``. A *notebook* goes on
   with the next cell, as "run all" does; a program ends there, with its
   traceback on stderr and the exit status Python would give;
4. for a task with answers, ``{"event": "ready", "answers": {exercise: callable?}}``,
   then the caller's requests: ``{"op": "call", "seq", "exercise", "calls"}``
   (a base64 pickle of ``[(args, kwargs), ...]``, from the trusted caller) is
   answered by ``{"event": "reply", "seq", "outcomes": [...]}``, each outcome
   ``{"returned": plain data}`` (:func:`~reasoneval_mini.runner.plain_values.encode_plain`),
   ``{"raised": fields}``, ``{"refused": {...}}`` (the answer called what its
   exercise refuses: :mod:`reasoneval_mini.support.call_watch`),
   ``{"not_plain": what}`` or ``{"stopped": why}``; ``{"op": "next"}`` ends the task;
5. ``{"event": "done"}`` from the session's own process only (never from
   a process its code forked), then exit. Every event after the job is read
   carries the job's ``nonce``: a frame without it is not the session's. Should the runner's
   own code fail, ``{"event": "fatal", "message": ...}`` says so instead.

The caller never sends an expected value, a check or a comparison: the child
only runs code and says what it returned. Whatever that code does here
(patch classes, read frames, write frames of its own on descriptor 3) can
change only what its own session reports, and the caller reads the events
as a protocol. Every function the reporting path calls is bound when this
module is imported, before any untrusted code could replace it, and a
process the code forks loses descriptors 3 and 4 at once. What answering
calls needs (:data:`CALL_MODULES`) is bound when a job asks for calls,
before its first source: a server of programs, which never answer calls,
then never loads those modules' libraries, which each of its forks would
map again.

>>> exit_status_of(SystemExit("bye")), exit_status_of(SystemExit(3)), exit_status_of(KeyError())
(1, 3, 1)
"""

import builtins
import importlib
import json
import linecache
import marshal
import os
import re
import signal
import sys
import time
import traceback
from _thread import get_ident

from reasoneval_mini.runner.confinement import (
    SETUP_FAILED, isolation_from_fields, limit_and_confine, setup_note)
from reasoneval_mini.runner.exceptions import describe_exception
from reasoneval_mini.runner.limits import max_fd
from reasoneval_mini.runner.reaping import die_with_parent
from reasoneval_mini.support.descriptors import dup_above
from reasoneval_mini.support.messages import FRAME_HEADER
from reasoneval_mini.support.text import shorten

EVENTS_FD, REQUESTS_FD = 3, 4
#: The exit status of a session whose code closed or replaced its events channel
#: (descriptor 3): its end cannot be reported; the last line of its stderr says so.
REPORT_CHANNEL_LOST = 123
REPORT_CHANNEL_LOST_NOTE = ("executor: the program closed or replaced its report channel "
                            "(descriptor 3); its end cannot be confirmed\n")
#: The exit status of a session whose runner failed (its ``fatal`` event says how).
RUNNER_FAILED = 71
#: Characters of a failed source's ``text``, and frames of a program's traceback printed.
MAX_TEXT_CHARS = 1000
MAX_TRACEBACK_FRAMES = 50
#: Largest returned value sent back, in characters of its encoding; and largest
#: reply of several calls (under the caller's default bound on an event, 4 MB).
MAX_VALUE_CHARS = 2 << 20
MAX_REPLY_CHARS = 3 << 20

#: The thread that imported this module: a server's or an interpreter's main
#: thread, the main thread of every child forked from it too. Not
#: ``threading.main_thread()``: importing ``threading`` registers a handler
#: that runs in every forked child, and cost each about 0.35 ms (its first
#: run writes some hundred pages, each copied from the server's memory).
_MAIN_THREAD = get_ident()

# Bound before any untrusted code runs (see the module's docstring).
_getpid, _exit, _write, _read, _fstat, _close = (
    os.getpid, os._exit, os.write, os.read, os.fstat, os.close)
_pack, _unpack = FRAME_HEADER.pack, FRAME_HEADER.unpack
_decode, _unmarshal = json.JSONDecoder().decode, marshal.loads
_monotonic, _sleep = time.monotonic, time.sleep
_join, _memoryview, _len, _isinstance = "".join, memoryview, len, isinstance
_NOTE_BYTES = REPORT_CHANNEL_LOST_NOTE.encode()
#: ``ast.PyCF_ALLOW_TOP_LEVEL_AWAIT``, without the ``ast`` module (its classes are
#: half a megabyte of a server's memory, copied at each fork).
_TOP_LEVEL_AWAIT = 0x2000
_CO_COROUTINE = 0x0080  # inspect.CO_COROUTINE, without importing inspect in every child
if getattr(json.encoder, "c_make_encoder", None) is not None:
    # The C encoder object, made now: it never looks json's module globals up again.
    _c_encoder = json.encoder.c_make_encoder(
        None, lambda value: "<unencodable>", json.encoder.encode_basestring_ascii, None,
        ": ", ", ", False, True, True)

    def _encode(event):
        return _join(_c_encoder(event, 0))
else:  # pragma: no cover - CPython always has the C encoder
    _encode = json.JSONEncoder(default=lambda value: "<unencodable>").encode

# The events channel of this session: who may write on it (the session's own
# process) and which open file it is (device, inode), to notice code that
# closed it or put another file on descriptor 3.
_CHANNEL = {"pid": None, "identity": None, "nonce": None}


# --- the channel ------------------------------------------------------------------------

def _identity(fd):
    try:
        info = _fstat(fd)
    except OSError:
        return None
    return info.st_dev, info.st_ino


def _claim_channel():
    _CHANNEL.update(pid=_getpid(), identity=_identity(EVENTS_FD))


def _forget_channel_in_forked_child():
    # A process the session's code forks must neither report nor take the
    # caller's requests: both descriptors go, if they still are ours.
    if _CHANNEL["pid"] is None or _CHANNEL["pid"] == _getpid():
        return
    if _identity(EVENTS_FD) == _CHANNEL["identity"]:
        for fd in (EVENTS_FD, REQUESTS_FD):
            try:
                _close(fd)
            except OSError:
                pass


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_channel_in_forked_child)


def emit(event):
    """Send *event* (a dict of JSON values) on the events channel; exit :data:`REPORT_CHANNEL_LOST` if it is gone.

    Once the job is read, every event carries the session's nonce.
    """
    if _identity(EVENTS_FD) != _CHANNEL["identity"]:
        _channel_lost()
    if _CHANNEL["nonce"] is not None:
        event["nonce"] = _CHANNEL["nonce"]
    data = _encode(event).encode()
    view = _memoryview(_pack(_len(data)) + data)
    while view:
        try:
            written = _write(EVENTS_FD, view)
        except OSError:
            _channel_lost()
        if not written:
            _channel_lost()
        view = view[written:]


def _channel_lost():
    try:
        _write(2, _NOTE_BYTES)
    except OSError:
        pass
    _exit(REPORT_CHANNEL_LOST)


def _read_exactly(size):
    chunks, left = [], size
    while left:
        chunk = _read(REQUESTS_FD, min(left, 1 << 20))
        if not chunk:
            return None
        chunks.append(chunk)
        left -= _len(chunk)
    return b"".join(chunks)


def read_request():
    """The caller's next request (a dict), or None at the end of the requests.

    Requests are marshal (:func:`~reasoneval_mini.support.messages.encode_request`):
    they come from the trusted caller (code of the session that writes its
    own requests can only confuse itself).
    """
    try:
        header = _read_exactly(8)
        body = None if header is None else _read_exactly(_unpack(header)[0])
    except OSError:
        return None
    if body is None:
        return None
    request = _unmarshal(body)
    return request if isinstance(request, dict) else None


# --- a source, a step ---------------------------------------------------------------------

class StepTimeout(BaseException):
    """Raised by the watchdog; a BaseException so that ``except Exception`` misses it."""


class Watchdog:
    """Run a step with a time limit (``SIGALRM``); no limit without *seconds* or ``setitimer``.

    The alarm fires again every 0.05 s while the step runs: code that
    swallows one alarm meets the next. A step ended by an alarm after it had
    swallowed an earlier one is *stubborn* (:meth:`stubborn`), and the child
    then holds it (:func:`hold_for_the_caller`) until the caller's deadline
    ends the session, as it would have ended a step that swallowed every
    alarm. Why: such code loops around a ``try`` that catches the alarm, and
    whether a later alarm lands inside that ``try`` (swallowed again) or in
    the few instructions outside it (escapes) depends on the machine's load.
    Held, both ways end the same, and the grade does not depend on the
    scheduler.
    """

    def __init__(self, seconds):
        self.seconds = seconds
        self.fired = self.active = False
        self.alarms = 0  # alarms raised in the running step
        # Alarms reach the main thread only, where a session runs its steps.
        self.available = (seconds is not None and hasattr(signal, "setitimer")
                          and get_ident() == _MAIN_THREAD)

    def _alarm(self, signum, frame):
        if self.active:
            self.fired = True
            self.alarms += 1
            raise StepTimeout()

    def stubborn(self, error):
        """True when the last step ended with *error*, an alarm it met after swallowing one."""
        return self.alarms > 1 and _isinstance(error, StepTimeout)

    def run(self, thunk, seconds=None):
        """Call ``thunk()`` for at most *seconds*; return what it raised (None if nothing)."""
        seconds = self.seconds if seconds is None else seconds
        self.fired, self.active, self.alarms = False, True, 0
        if self.available:
            signal.signal(signal.SIGALRM, self._alarm)
            signal.setitimer(signal.ITIMER_REAL, max(seconds, 0.001), 0.05)
        try:
            thunk()
            error = None
        except BaseException as caught:  # noqa: B036 - SystemExit and KeyboardInterrupt included
            error = caught
        finally:
            self.active = False
            if self.available:
                signal.setitimer(signal.ITIMER_REAL, 0)
        return error

    def timeout_text(self):
        return f"did not finish within {self.seconds:g} s (endless loop?)"


def hold_for_the_caller():
    """Wait, running nothing more, until the caller ends the session (a stubborn step: see :class:`Watchdog`).

    The caller waits for a step's next event for its time plus a grace, and
    then kills the session: the same end as for a step that never let an
    alarm through. No timer is left to interrupt the wait.
    """
    while True:
        _sleep(3600)


# ``%timeit -n 10 -r 3 f()``: the options IPython's timing magics take before the statement.
_MAGIC_OPTIONS = re.compile(r"^(?:\s*-[a-z](?:\s*\d+)?)*\s*")


class _Shell:
    """``get_ipython()`` for the magics IPython's converter leaves as calls.

    ``%time`` and ``%timeit`` run their statement once, as Jupyter would run
    it (timing aside); every other magic and shell line does nothing.
    """

    def __init__(self, namespace, loops):
        self.namespace, self.loops = namespace, loops

    def run_line_magic(self, name, line, *args, **kwargs):
        if name in ("time", "timeit"):
            execute(_MAGIC_OPTIONS.sub("", line, count=1), f"<%{name}>", self.namespace,
                    notebook=True, loops=None)

    def __getattr__(self, name):
        return lambda *args, **kwargs: None


def execute(source, filename, namespace, notebook=False, loops=None):
    """Compile *source* as *filename* (its lines kept for tracebacks) and run it in *namespace*.

    In a *notebook*, a top-level ``await`` runs on the notebook's event loop,
    *loops* (a list that holds it once a cell needs one: IPython, too, runs
    every cell of a notebook on one loop; None: a new loop for this source).
    Compiling here, under the session's limits, holds the compiler to its memory limit.
    """
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    code = compile(source, filename, "exec", flags=_TOP_LEVEL_AWAIT if notebook else 0,
                   dont_inherit=True)
    if not code.co_flags & _CO_COROUTINE:
        exec(code, namespace)  # noqa: S102 - running untrusted code is the point
        return
    import asyncio  # only a notebook with a top-level await pays for it
    loops = [] if loops is None else loops
    if not loops:
        loops.append(asyncio.new_event_loop())
    loops[0].run_until_complete(eval(code, namespace))  # noqa: S307


def failure_facts(error, filename, watchdog):
    """The ``failed`` event's fields for *error*, raised by the source *filename*; never raises.

    Untrusted code has run by now and may have replaced any builtin: what
    this calls is bound, or guarded.
    """
    timed_out = watchdog.fired or _isinstance(error, StepTimeout)
    facts = {"timeout": timed_out, **describe_exception(error), "line": None, "text": ""}
    try:
        facts["text"] = (watchdog.timeout_text() if timed_out
                         else shorten(f"{type(error).__name__}: {error}", MAX_TEXT_CHARS))
    except BaseException:  # noqa: B036 - a hostile __str__, a replaced builtin
        facts["text"] = f"{facts['type']}: {facts['message']}"[:MAX_TEXT_CHARS]
    if timed_out:
        return facts
    try:
        line = getattr(error, "lineno", None) if _isinstance(error, SyntaxError) else None
        frame = error.__traceback__
        while frame is not None:
            if frame.tb_frame.f_code.co_filename == filename:
                line = frame.tb_lineno
            frame = frame.tb_next
        facts["line"] = line if type(line) is int else None
    except BaseException:  # noqa: B036 - a hostile exception must not stop the report
        pass
    return facts


def exit_status_of(error):
    """The exit status ``python program.py`` ends with after *error* escaped (a fact for the record).

    ``SystemExit`` follows CPython (None -> 0, an int -> that int, else 1);
    every other exception gives 1.
    """
    try:
        if isinstance(error, SystemExit):
            if error.code is None:
                return 0
            if isinstance(error.code, int) and not isinstance(error.code, bool):
                return int(error.code) & 0xFF
    except BaseException:  # noqa: B036 - a hostile code object: Python would say 1
        pass
    return 1


def print_bounded_traceback(error):
    """Print *error*'s traceback on stderr, without the runner's frames, its last frames only.

    A runaway recursion can leave millions of frames; formatting them all
    would outlast any timeout.
    """
    try:
        tb = error.__traceback__
        while tb is not None and tb.tb_frame.f_code.co_filename == __file__:
            tb = tb.tb_next  # the runner's own frames
        depth, node = 0, tb
        while node is not None:
            depth, node = depth + 1, node.tb_next
        if depth > MAX_TRACEBACK_FRAMES:
            for _ in range(depth - MAX_TRACEBACK_FRAMES):
                tb = tb.tb_next
            print(f"[... {depth - MAX_TRACEBACK_FRAMES} outer frames omitted ...]",
                  file=sys.stderr)
        traceback.print_exception(type(error), error, tb, chain=depth <= MAX_TRACEBACK_FRAMES)
    except BaseException:  # noqa: B036 - e.g. MemoryError while formatting: the report matters more
        pass


# --- calls -------------------------------------------------------------------------------

#: The modules answering calls needs: bound by :func:`_bind_calls`, and warmed
#: by the servers of runners whose sessions answer calls (the grader's).
CALL_MODULES = ("base64", "pickle", "reasoneval_mini.runner.plain_values",
                "reasoneval_mini.support.call_watch")
_unpickle = _b64decode = encode_plain = resolve_refused = watched = None
NotPlain = DelegationRefused = None


def _bind_calls():
    """Bind what answering calls needs; called before a job's first source (see the module's docstring)."""
    global _unpickle, _b64decode, encode_plain, NotPlain, resolve_refused, watched
    global DelegationRefused
    base64, pickle, plain_values, call_watch = map(importlib.import_module, CALL_MODULES)
    _unpickle, _b64decode = pickle.loads, base64.b64decode
    encode_plain, NotPlain = plain_values.encode_plain, plain_values.NotPlain
    resolve_refused, watched = call_watch.resolve_refused, call_watch.watched
    DelegationRefused = call_watch.DelegationRefused

def _outcome(answer, args, kwargs):
    try:
        value = answer(*args, **kwargs)
    except StepTimeout:
        raise
    except DelegationRefused as refused:
        return {"refused": {"function": refused.function, "escape": refused.escape}}
    except BaseException as error:  # noqa: B036 - the untrusted code may raise anything
        return {"raised": describe_exception(error)}
    try:
        encoded = encode_plain(value)
    except NotPlain as error:
        return {"not_plain": str(error)}
    except RecursionError:
        return {"not_plain": "a value nested too deeply"}
    if _len(_encode(encoded)) > MAX_VALUE_CHARS:
        return {"not_plain": f"a value too large to grade (over {MAX_VALUE_CHARS} characters)"}
    return {"returned": encoded}


def _serve_calls(answers, namespace, watchdog, refused):
    """Answer the caller's call requests until it says ``next``; False at the end of the requests.

    A request names an exercise and holds one or more calls (a base64
    pickle of ``[(args, kwargs), ...]``, from the trusted caller); they run
    in order, and one reply holds their outcomes. Each exercise's calls share
    one budget of *step_seconds*: a call stopped by it ends the request
    (the calls after it are not run), and so does a reply that has grown to
    :data:`MAX_REPLY_CHARS` (the caller makes the rest again). *refused*:
    ``{exercise: {name: function}}``, resolved before the task's sources
    ran, so that no source can put a stand-in under a refused name.
    """
    spent = {}  # exercise -> seconds its calls have taken
    while True:
        request = read_request()
        if request is None or request.get("op") != "call":
            return request is not None
        exercise = request["exercise"]
        answer = namespace.get(answers.get(exercise, ""))
        if callable(answer) and refused.get(exercise):
            answer = watched(answer, refused[exercise])
        outcomes, size = [], 0
        for args, kwargs in _unpickle(_b64decode(request["calls"])):
            outcome, took = _one_call(answer, args, kwargs, watchdog,
                                      spent.get(exercise, 0.0))
            spent[exercise] = spent.get(exercise, 0.0) + took
            size += _len(_encode(outcome))
            if outcomes and size > MAX_REPLY_CHARS:
                break
            outcomes.append(outcome)
            if "stopped" in outcome:
                break
        emit({"event": "reply", "seq": request["seq"], "outcomes": outcomes})


def _one_call(answer, args, kwargs, watchdog, spent):
    """``(outcome, seconds taken)`` of one call of *answer*, in what is left of the budget."""
    budget = watchdog.seconds
    left = None if budget is None else budget - spent
    box = {}
    start = _monotonic()
    if left is not None and left <= 0:
        error = StepTimeout()
    else:
        error = watchdog.run(lambda: box.setdefault("outcome", _outcome(answer, args, kwargs)),
                             seconds=left)
        if watchdog.stubborn(error):
            hold_for_the_caller()
    took = _monotonic() - start
    if "outcome" in box:
        return box["outcome"], took
    if _isinstance(error, StepTimeout) or watchdog.fired:
        return {"stopped": f"the calls of this exercise did not finish within "
                           f"{budget:g} s in total (endless loop?)"}, took
    return {"stopped": shorten(f"{type(error).__name__}: {error}")}, took


# --- the session -------------------------------------------------------------------------

def run_session(job, main_pid):
    """Run every task of *job* (see the module's docstring); return the exit status."""
    notebook = job.get("notebook") is True
    watchdog = Watchdog(job.get("step_seconds"))
    status = 0
    if any(task.get("answers") or task.get("refuses") for task in job["tasks"]):
        _bind_calls()
    for index, task in enumerate(job["tasks"]):
        namespace = {"__name__": "__main__", "__builtins__": builtins}
        loops = []  # a notebook's event loop, made by its first top-level await
        if notebook:
            shell = _Shell(namespace, loops)
            namespace.update(display=print, get_ipython=lambda: shell)
        # Before any source: a source that rebinds a library name must not hide the real function.
        refused = {exercise: resolve_refused(names)
                   for exercise, names in task.get("refuses", {}).items()}
        for number, (filename, source) in enumerate(task["sources"]):
            if watchdog.seconds is not None:  # steps with a time limit: the caller follows them
                emit({"event": "source", "task": index, "source": number})
            error = watchdog.run(lambda: execute(source, filename, namespace, notebook, loops))
            if _getpid() != main_pid:
                return status  # a process the code forked came back here: it reports nothing
            if watchdog.stubborn(error):
                hold_for_the_caller()
            if error is None and not watchdog.fired:  # fired: it swallowed the alarm, then ended
                continue
            emit({"event": "failed", "task": index, "source": number,
                  **failure_facts(error, filename, watchdog)})
            if not notebook:
                print_bounded_traceback(error)
                status = exit_status_of(error)
                break
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except BaseException:  # noqa: B036 - the code may have replaced or closed them
                pass
        answers = task.get("answers") or {}
        if answers:
            emit({"event": "ready", "task": index,
                  "answers": {exercise: callable(namespace.get(name))
                              for exercise, name in answers.items()}})
            if not _serve_calls(answers, namespace, watchdog, refused):
                return status
    emit({"event": "done"})
    return status


def _confine_and_run(setup, workdir, job, prepared=None, ruleset=None):
    """Limits, cap, sandbox, then the session; never returns (see the module's docstring)."""
    nonce = job.get("nonce")
    _CHANNEL["nonce"] = nonce if isinstance(nonce, str) else None
    top = max_fd()  # asked before the limits: descriptors above the new limit stay open
    try:
        warnings, capped = limit_and_confine(
            isolation_from_fields(setup["isolation"]), workdir,
            memory_mb=setup.get("memory_mb"), cpu_seconds=setup.get("cpu_seconds"),
            file_size_mb=setup.get("file_size_mb"), open_files=setup.get("open_files"),
            cap_mb=setup.get("cap_mb"), prepared=prepared, ruleset=ruleset)
    except BaseException as error:  # noqa: B036 - nothing untrusted may run now
        _setup_failed(error)
    os.closerange(REQUESTS_FD + 1, top)  # the sandbox's rules, the server's own descriptors
    emit({"event": "confined", "warnings": [*warnings], "capped": capped})
    main_pid = _getpid()
    try:
        _exit(run_session(job, main_pid))  # skips the code's atexit handlers and lingering threads
    except BaseException as error:  # noqa: B036 - the runner's own failure: said, never hidden
        try:
            if _getpid() == main_pid:
                emit({"event": "fatal", "message": shorten(f"{type(error).__name__}: {error}")})
        finally:
            _exit(RUNNER_FAILED)


def place_descriptors(events, requests, stdout=None, stderr=None):
    """Put the session's descriptors at 0-4 (see the module's docstring); close the ones given."""
    null = os.open(os.devnull, os.O_RDWR)
    sources = [null, null if stdout is None else stdout, null if stderr is None else stderr,
               events, requests]
    # First out of 0-4, so that no dup2 below overwrites a source not yet placed.
    moved = [fd if fd > REQUESTS_FD else dup_above(fd, REQUESTS_FD) for fd in sources]
    for target, fd in enumerate(moved):
        os.dup2(fd, target, inheritable=target <= 2)
    for fd in set(moved + sources) - {0, 1, 2, EVENTS_FD, REQUESTS_FD}:
        try:
            os.close(fd)
        except OSError:
            pass
    _claim_channel()


def _setup_failed(error):
    """Say why the setup failed (before any untrusted code), then exit :data:`SETUP_FAILED`."""
    try:
        emit({"event": "setup_failed", "message": setup_note(error)})
    finally:
        _exit(SETUP_FAILED)


def _job_after(prepare):
    """``prepare()`` (the descriptors, the death signal), then the job; a failure ends the child."""
    try:
        prepare()
        job = read_request()
    except BaseException as error:  # noqa: B036 - nothing untrusted has run
        _setup_failed(error)
    if job is None:  # the caller has gone before sending the job
        _exit(0)
    return job


def run_forked(setup, fds, workdir, server_pid, prepared=None, ruleset=None):
    """In a child a runner server forked: its own session and descriptors, then the session; never returns.

    *fds*: the caller's ``[events, requests, stdout, stderr]`` (stdout and
    stderr None for no output). The child dies with the server (a death
    signal); the server, a subreaper, kills what the child leaves.
    """
    def prepare():
        os.setsid()
        die_with_parent(server_pid, signal.SIGKILL)
        os.chdir(workdir)
        place_descriptors(*fds)

    _confine_and_run(setup, workdir, _job_after(prepare), prepared, ruleset)


def main(setup_text, events, requests, parent_pid):
    """A fresh interpreter's session (started by :class:`~reasoneval_mini.runner.session.Runner`).

    *setup_text* is the setup as JSON; *events* and *requests* the inherited
    descriptors as :func:`~reasoneval_mini.runner.start.start_child` passed
    them (handles on Windows); stdout and stderr are in place already.
    *parent_pid* is the caller, with whom the child dies where the kernel lets it.
    """
    from reasoneval_mini.runner.start import inherited_descriptor

    def prepare():
        die_with_parent(parent_pid, signal.SIGKILL)
        place_descriptors(inherited_descriptor(events), inherited_descriptor(requests), 1, 2)

    job = _job_after(prepare)
    sys.argv = [""]
    _confine_and_run(_decode(setup_text), os.getcwd(), job)
