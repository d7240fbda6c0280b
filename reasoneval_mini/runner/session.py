"""Sessions: the one way the course runs code nobody vouches for.

A *session* is "run these sources in one namespace, then answer these
calls, each with its own deadline", in a process of its own, confined
before the first source runs. An executor's program is a session of one
source and no calls; a student is a session of notebooks (each a task:
cells, then calls to its answers). The child's side is
:mod:`reasoneval_mini.runner.child`; this module is the caller's:

* :class:`Runner`, one thread's way to run sessions, one at a time: on a
  warm runner server of its :class:`Profile` where the platform can fork
  and pass descriptors (:mod:`reasoneval_mini.runner.server`), else in a
  fresh interpreter per session (Windows; or when asked). Warm runners are
  lent and given back (:func:`borrow`, :func:`give_back`);
* :class:`Session`, one running session: the caller writes its job and
  requests, reads its events (:meth:`Session.next_event`) and, when asked,
  the head and tail of its stdout and stderr, each wait bounded by a
  deadline and by a :class:`Cancel`; :meth:`Session.end` ends it, whatever it
  is doing, and reaps everything it started.

The caller believes only what it can check: the events are read as a
protocol (a setup failure only before ``confined``, every other event only
with the session's own nonce; a frame larger than the caller accepts ends
the channel), every wait has a deadline, and a child that stops, dies or
floods its channel costs its own session, never the caller.

>>> runner = Runner(Profile(cap_mb=64), fresh=True)
>>> session = runner.open({"isolation": ["off", None, [], []]},
...                       {"tasks": [{"sources": [["<program>", "print(6 * 7)"]]}]},
...                       output=(100, 100))
>>> session.next_event(lambda event: event["event"] == "done", deadline_in(10))["event"]
'done'
>>> session.wait_exit(deadline_in(10)), session.end().stdout.text()
(0, '42\\n')

Surprising: a session stopped by its deadline still ends cleanly; the
caller learns why from :class:`SessionStopped`, then calls :meth:`Session.end`.

>>> session = runner.open({"isolation": ["off", None, [], []]},
...                       {"tasks": [{"sources": [["<program>", "while True: pass"]]}]})
>>> try:
...     session.wait_exit(deadline_in(0.3))
... except SessionStopped as stop:
...     print(stop.outcome)
timed_out
>>> session.end().returncode < 0  # killed
True
>>> runner.close()
"""

import collections
import json
import os
import secrets
import select
import socket
import subprocess
import threading
import time
import warnings
from dataclasses import dataclass

from reasoneval_mini.runner.confinement import MAX_SETUP_NOTE, SETUP_FAILED, isolation_from_fields
from reasoneval_mini.runner.deadlines import DRAIN_SECONDS, EXIT_POLL_SECONDS
from reasoneval_mini.runner.output_buffer import HeadTailBuffer
from reasoneval_mini.runner.server import Server, ServerLost
from reasoneval_mini.runner.start import descriptor_token, start_child
from reasoneval_mini.runner.warm import WarmPool
from reasoneval_mini.runner.workdir import make_workdir, remove_tree
from reasoneval_mini.support.messages import (
    FrameReader, MessageTooLarge, encode_request, write_all)
from reasoneval_mini.support.processes import kill_process_group, kill_process_tree

#: How a session's wait ended: the process ended by itself (any exit code, any
#: signal), the caller's deadline passed, or a :class:`Cancel` was set.
EXITED = "exited"
TIMED_OUT = "timed_out"
CANCELLED = "cancelled"
OUTCOMES = (EXITED, TIMED_OUT, CANCELLED)
#: Largest event a caller reads by default; a real one (a returned value) is rarely over a few KB.
MAX_EVENT_BYTES = 4 << 20
#: A job this short is written while the server forks (an empty pipe takes it at
#: once, on any system); a longer one after, and by :data:`JOB_SECONDS`.
EARLY_JOB_BYTES = 16384
JOB_SECONDS = 30.0
#: Warnings kept from a child's ``confined`` event, and characters of each.
MAX_WARNINGS, MAX_WARNING_CHARS = 10, 300
_READ_BYTES = 1 << 16


def deadline_in(seconds):
    """The :func:`time.monotonic` time *seconds* from now."""
    return time.monotonic() + seconds


@dataclass(frozen=True)
class Profile:
    """What every session of a runner shares: its folder's size, its environment, its warm modules.

    *cap_mb*: the size of the file system each session's working folder
    gets (Linux, where the kernel lets the server mount one). *env*: pairs
    added to the child's minimal environment
    (:func:`~reasoneval_mini.runner.environment.child_environment`).
    *pre_imports*: modules a server imports once for all its children, a
    fixed list of the caller's (they run outside any sandbox: never a
    student's). Runners of one profile are interchangeable.
    """

    cap_mb: int
    env: tuple = ()
    pre_imports: tuple = ()


class Cancel:
    """A flag that wakes every session waiting on it: set once, from any thread (or a signal handler).

    It is a pipe that becomes readable when set, so a session's wait sees it
    at once instead of looking now and then.

    >>> cancel = Cancel()
    >>> cancel.is_set(), cancel.set(), cancel.is_set()
    (False, None, True)
    """

    def __init__(self):
        self._read, self._write = os.pipe()
        self._set = False

    def set(self):
        if not self._set:
            self._set = True
            try:
                os.write(self._write, b"!")  # never read: it stays readable
            except OSError:
                pass

    def is_set(self):
        return self._set

    def fileno(self):
        return self._read

    def __del__(self):
        for fd in (getattr(self, "_read", None), getattr(self, "_write", None)):
            if fd is not None:
                try:
                    os.close(fd)
                except OSError:
                    pass


class SessionStopped(Exception):
    """A wait ended without what it waited for; *outcome* is one of :data:`OUTCOMES`.

    ``EXITED`` here means the child's events ended (it exited, or closed
    its channel) before the event the caller waited for.
    """

    def __init__(self, outcome, why=""):
        super().__init__(why or outcome)
        self.outcome = outcome


class SetupFailed(SessionStopped):
    """The child could not be set up (the sandbox refused, above all); nothing of the session ran."""

    def __init__(self, note):
        super().__init__(EXITED, note)
        self.note = note


class RunnerLost(Exception):
    """The runner's own machinery failed (its server died or garbled); the session's fate is unknown."""


@dataclass
class Ended:
    """How a session ended: its *returncode* (None if unknown), its output (None if not kept)."""

    returncode: object
    stdout: object
    stderr: object
    lost: str | None = None  # why the runner could not tell the end, if it could not


class Session:
    """One running session, read and written by one thread (see the module's docstring).

    ``confined``, ``warnings``, ``setup_error``: what the child said of its
    setup; ``folder_capped``: whether its working folder was a capped file
    system; ``started``: when its job was sent (:func:`time.monotonic`);
    ``returncode``: once it exited (negative: killed by that signal), and
    ``exited_at``: when that was seen.
    """

    def __init__(self, child, events, requests, streams, nonce, cancels, folder_capped,
                 max_event_bytes):
        self.child, self.events, self.requests = child, events, requests
        self.streams = streams  # {fd: HeadTailBuffer} of stdout and stderr, if kept
        self.output = list(streams.values())
        self.nonce, self.cancels, self.folder_capped = nonce, cancels, folder_capped
        self.frames, self.queue, self.garbled = FrameReader(max_event_bytes), collections.deque(), False
        self.confined, self.warnings, self.setup_error = False, [], None
        self.returncode, self.lost, self.started = None, None, time.monotonic()
        self.exited_at = None  # when its exit was seen (time.monotonic())
        self.io = _Readiness()
        for fd in [events, *streams]:
            self.io.watch(fd)
        if self.io.polls:
            os.set_blocking(requests, False)  # a write that would wait says so (see send_frame)

    # -- writing ---------------------------------------------------------------------------

    def send(self, message, deadline):
        """Write *message* on the session's requests by *deadline*; False if the child no longer reads them.

        A child that stops reading (its own code holds it, or shrank the
        pipe) cannot hold the caller: past *deadline* the write raises
        :class:`SessionStopped` (``TIMED_OUT``), and a cancel ends it too.
        """
        return self.send_frame(encode_request(message), deadline)

    def send_frame(self, frame, deadline):
        """Write a frame :func:`~reasoneval_mini.support.messages.encode_request` made; as :meth:`send`."""
        view = memoryview(frame)
        while view and self.requests is not None:
            try:
                view = view[os.write(self.requests, view):]
                continue
            except BlockingIOError:
                pass
            except OSError:  # the child closed its end: it is gone, or done reading
                self.close_requests()
                return False
            if any(cancel.is_set() for cancel in self.cancels):
                raise SessionStopped(CANCELLED)
            left = deadline - time.monotonic()
            if left <= 0:
                raise SessionStopped(TIMED_OUT, "the child did not read its requests in time")
            # Meanwhile its events are read and kept: a child that waits to
            # write a reply reads no request, and neither side would go on.
            readable = [fd for fd in (self.events, *self.streams) if fd is not None]
            for fd in self.io.writable(self.requests, readable,
                                       [c.fileno() for c in self.cancels],
                                       min(left, EXIT_POLL_SECONDS) if not self.io.polls else left):
                self._take_data(fd, self.io.read(fd))
        return self.requests is not None

    def close_requests(self):
        """No more requests: the child's next read of them ends its calls."""
        if self.requests is not None:
            _close(self.requests)
            self.requests = None

    # -- reading ---------------------------------------------------------------------------

    def kept_events(self):
        """The events read and not yet taken by :meth:`next_event`, in order (and forgotten)."""
        events, self.queue = list(self.queue), collections.deque()
        return events

    def next_event(self, accept, deadline):
        """The next event ``accept(event)`` takes, by *deadline*; others are dropped.

        Raises :class:`SetupFailed` when the child could not be set up,
        :class:`SessionStopped` when its events end or stop being the
        protocol (``EXITED``), the deadline passes (``TIMED_OUT``) or a
        cancel is set (``CANCELLED``), and :class:`RunnerLost` when the
        runner's server fails meanwhile.
        """
        while True:
            while self.queue:
                event = self.queue.popleft()
                if accept(event):
                    return event
            if self.setup_error is not None:
                raise SetupFailed(self.setup_error)
            if self.events is None or self.garbled:
                raise SessionStopped(EXITED, "its events ended" if self.events is None
                                     else "its events are not the protocol (a frame too large)")
            self._wait(deadline)

    def wait_exit(self, deadline, events=True):
        """The child's returncode once it has exited, by *deadline*; events meanwhile are kept.

        With *events* False they are read only at :meth:`end` (a program's
        few events then cost no wake-up each: a caller that only needs the
        end; a child that fills its channel meanwhile waits, and its own
        deadline ends it). Raises :class:`SessionStopped` (``TIMED_OUT``,
        ``CANCELLED``) or :class:`RunnerLost`.
        """
        while self.returncode is None:
            self._wait(deadline, events)
        return self.returncode

    def _wait(self, deadline, events=True):
        """Wait once for anything to read, up to *deadline*; take it; raise when the wait ends the session."""
        if any(cancel.is_set() for cancel in self.cancels):
            raise SessionStopped(CANCELLED)
        left = deadline - time.monotonic()
        if left <= 0:
            raise SessionStopped(TIMED_OUT)
        exit_fd = self.child.exit_fd() if self.returncode is None else None
        if exit_fd is not None and self.child.exit_waiting():
            self._take_exit()  # read already, with an earlier message: no descriptor will say so
            return
        if (exit_fd is None and self.returncode is None) or not self.io.polls:
            left = min(left, EXIT_POLL_SECONDS)  # nothing wakes us for these: look now and then
        watched = [fd for fd in (self.events if events else None, *self.streams)
                   if fd is not None]
        extra = ([exit_fd] if exit_fd is not None else []) + [c.fileno() for c in self.cancels]
        for fd in self.io.ready(watched, extra, left):
            if fd == self.events or fd in self.streams:
                self._take_data(fd, self.io.read(fd))
            elif fd == exit_fd:
                self._take_exit()
        if exit_fd is None and self.returncode is None:
            self.returncode = self.child.poll()
            if self.returncode is not None:
                self.exited_at = time.monotonic()

    def _take_exit(self):
        try:
            self.returncode = self.child.take_exit()
            self.exited_at = time.monotonic()
        except ServerLost as error:
            self._lose(error)
            raise RunnerLost(self.lost) from None

    def _lose(self, error):
        """The runner's server failed under this session: say why, kill the child from here."""
        self.lost = str(error)
        self.child.abandon()

    def _read_all(self, fd, until):
        """Read *fd* until it has nothing more for now or *until* passes (True), or it ends (False)."""
        while True:
            data = self.io.read(fd)
            self._take_data(fd, data)
            if data is None:
                return True
            if not data:
                return False
            if time.monotonic() > until:  # a writer that never stops: not read forever
                return True

    def _take_data(self, fd, data):
        """Keep what one read of *fd* gave (None: nothing yet; ``b""``: its end)."""
        if data is None:
            return
        if not data:  # its end: no more waits on it
            self.io.forget(fd)
            _close(fd)
            if fd == self.events:
                self.events = None
            else:
                self.streams = {k: v for k, v in self.streams.items() if k != fd}
        elif fd in self.streams:
            self.streams[fd].feed(data)
        elif not self.garbled:  # a garbled channel is read and dropped: its child must not block
            try:
                events = self.frames.feed(data)
            except MessageTooLarge:  # not the protocol: the rest of the channel is not read
                self.garbled = True
                return
            for event in events:
                self._take(event)

    def _take(self, event):
        """Keep *event* for :meth:`next_event`, or act on it (the setup's two events); drop a stranger's.

        Every event but a setup failure (said before the child read its job)
        carries the session's nonce: one without it was written by someone
        else, however it reached this session's channel.
        """
        if not isinstance(event, dict):
            return
        kind = event.get("event")
        if kind != "setup_failed" and event.get("nonce") != self.nonce:
            return
        if not self.confined:  # only the child's own setup speaks before it is confined
            if kind == "confined":
                self.confined = True
                warnings_ = event.get("warnings")
                self.warnings = ([str(w)[:MAX_WARNING_CHARS] for w in warnings_[:MAX_WARNINGS]]
                                 if isinstance(warnings_, list) else [])
                if self.folder_capped is None and event.get("capped") is not None:
                    self.folder_capped = event.get("capped") is True
            elif kind == "setup_failed" and self.setup_error is None:
                self.setup_error = str(event.get("message", ""))[:MAX_SETUP_NOTE] or "unknown"
            return
        if kind in ("confined", "setup_failed"):
            return  # said after the code began: not the setup's word
        self.queue.append(event)

    # -- the end ---------------------------------------------------------------------------

    def end(self):
        """End the session: kill it if it runs, reap all it started, drain and close its channels.

        Returns :class:`Ended`. Never raises for the child's sake; call it
        once, in every case (a ``finally``).
        """
        self.close_requests()
        if self.returncode is None and self.lost is None:
            try:
                self.returncode = self.child.end()
                self.exited_at = time.monotonic()
            except ServerLost as error:
                self._lose(error)
        drain = time.monotonic() + DRAIN_SECONDS
        while self.events is not None or self.streams:
            watched = [fd for fd in (self.events, *self.streams) if fd is not None]
            # What is there is read at once; only a descriptor that has no
            # more yet (a leftover holds it) costs a wait.
            waiting = [fd for fd in watched if self._read_all(fd, drain)]
            if not waiting:
                continue
            left = drain - time.monotonic()
            if left <= 0 or not self.io.ready(waiting, [], left):
                break  # a leftover holds them (where nothing could kill it): stop reading
        for fd in [self.events, *self.streams]:
            if fd is not None:
                self.io.forget(fd)
                _close(fd)
        self.events, self.streams = None, {}
        self.child.cleanup()
        if self.setup_error is None and not self.confined and self.returncode == SETUP_FAILED:
            self.setup_error = "the child could not be set up (it said no more)"
        stdout, stderr = (self.output + [None, None])[:2]
        return Ended(self.returncode, stdout, stderr, self.lost)


def _close(fd):
    try:
        os.close(fd)
    except OSError:
        pass


def _write_early(fd, frame):
    """Write a short job into the new, empty pipe *fd* (it takes it at once), before the child exists."""
    try:
        write_all(fd, frame)
    except OSError:
        pass  # the server closed the child's end: its answer says why


# --- Waiting on descriptors ------------------------------------------------------------------

class _PollReadiness:
    """Which descriptors can be read, by ``poll`` (``select`` has a limit of 1024)."""

    polls = True  # a cancel or an exit wakes the wait

    @staticmethod
    def ready(fds, extra, timeout):
        poller = select.poll()
        for fd in (*fds, *extra):
            poller.register(fd, select.POLLIN)
        return [fd for fd, _ in poller.poll(max(timeout, 0) * 1000)]

    @staticmethod
    def watch(fd):
        os.set_blocking(fd, False)  # a read that finds nothing says so, and never waits

    @staticmethod
    def forget(fd):
        pass

    @staticmethod
    def writable(fd, readable, extra, timeout):
        """Wait until *fd* takes a write, or one of *readable* or *extra* can be read, or *timeout* passes.

        Returns those of *readable* that can be read.
        """
        poller = select.poll()
        poller.register(fd, select.POLLOUT)
        for other in (*readable, *extra):
            poller.register(other, select.POLLIN)
        ready = {other for other, _ in poller.poll(max(timeout, 0) * 1000)}
        return [other for other in readable if other in ready]

    @staticmethod
    def read(fd):
        """What *fd* has (``b""`` at its end), or None if nothing yet."""
        try:
            return os.read(fd, _READ_BYTES)
        except BlockingIOError:
            return None


class _ThreadReadiness:  # pragma: no cover - Windows, where a pipe cannot be polled
    """Which pipes have data, where none can be polled: a thread reads each into a queue.

    *extra* descriptors (a cancel, an exit) are never reported: the caller
    looks at those itself after each wait.
    """

    polls = False

    def __init__(self):
        self.chunks, self.lock = {}, threading.Condition()

    def watch(self, fd):
        self.chunks[fd] = collections.deque()
        threading.Thread(target=self._pump, args=(fd,), daemon=True).start()

    def forget(self, fd):
        with self.lock:
            self.chunks.pop(fd, None)

    def _pump(self, fd):
        while True:
            try:
                data = os.read(fd, _READ_BYTES)
            except OSError:
                data = b""
            with self.lock:
                if fd not in self.chunks:
                    return
                self.chunks[fd].append(data)
                self.lock.notify_all()
            if not data:
                return

    def ready(self, fds, extra, timeout):
        with self.lock:
            self.lock.wait_for(lambda: any(self.chunks.get(fd) for fd in fds), timeout)
            return [fd for fd in fds if self.chunks.get(fd)]

    def read(self, fd):
        with self.lock:
            chunks = self.chunks.get(fd)
            return chunks.popleft() if chunks else None

    def writable(self, fd, readable, extra, timeout):
        time.sleep(timeout)  # a blocking pipe: the write itself waits, this is never reached
        return []


def _Readiness():
    return _PollReadiness() if hasattr(select, "poll") else _ThreadReadiness()


# --- The two kinds of child ---------------------------------------------------------------------

class _ServerChild:
    """A session's child forked by a runner server, which reports its end and kills it on request."""

    def __init__(self, server, pid):
        self.server, self.pid = server, pid

    def exit_fd(self):
        return self.server.fileno()

    def exit_waiting(self):
        return bool(self.server.pending)

    def take_exit(self):
        # The server sends nothing else meanwhile: its report is whole, or coming.
        return self.server.take_exit(time.monotonic() + DRAIN_SECONDS)

    def poll(self):
        return None

    def end(self):
        return self.server.end()

    def abandon(self):
        """The server is lost: kill the child's group from here; the runner replaces the server."""
        self.server.close(kill=True)

    def cleanup(self):
        pass  # the server's word on the folder is read before its next session, or when the runner goes idle


class _FreshChild:
    """A session's child in a fresh interpreter, the caller's own child process."""

    def __init__(self, process, workdir):
        self.process, self.pid, self.workdir = process, process.pid, workdir
        try:
            self.pidfd = os.pidfd_open(self.pid)
        except (AttributeError, OSError):
            self.pidfd = None

    def exit_fd(self):
        return self.pidfd

    def exit_waiting(self):
        return False

    def take_exit(self):
        return self._reap()

    def poll(self):
        exited = _exited_unreaped(self.pid)  # None where the kernel cannot tell without reaping
        if exited is False or (exited is None and self.process.poll() is None):
            return None
        return self._reap()

    def _reap(self):
        # Its group is killed while the leader is unreaped: the id cannot be reused yet.
        kill_process_group(self.pid)
        return self.process.wait()

    def end(self):
        kill_process_tree(self.process)
        return self.process.returncode

    def abandon(self):
        kill_process_tree(self.process)

    def cleanup(self):
        if self.pidfd is not None:
            _close(self.pidfd)
            self.pidfd = None
        remove_tree(self.workdir)


def _exited_unreaped(pid):
    """Whether the child *pid* has exited, asked without reaping it; None where that cannot be asked."""
    if hasattr(os, "waitid") and hasattr(os, "WNOWAIT"):
        try:
            return os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
        except ChildProcessError:
            return True
    return None  # pragma: no cover - Windows: Popen.poll() reaps and tells instead


# --- Runners ---------------------------------------------------------------------------------

def servers_possible():
    """Whether runner servers can run here: ``fork``, and descriptors passed over a socket."""
    return hasattr(os, "fork") and hasattr(socket, "send_fds")

#: Why no server is used in this process (None: servers are tried); set once one fails to start.
_UNAVAILABLE = [None]


class Runner:
    """One thread's way to run sessions, one at a time (see the module's docstring).

    *fresh*: a fresh interpreter per session even where a server could run.
    :meth:`cancel` (from any thread) ends the running session and refuses
    new ones; :meth:`close` also stops the server.
    """

    def __init__(self, profile, fresh=False):
        self.profile = profile
        self.fresh = fresh or not servers_possible()
        self.server = None
        self.cancelled = Cancel()

    def open(self, setup, job, *, output=None, cancel=None, max_event_bytes=MAX_EVENT_BYTES):
        """Start a session: its child, confined as *setup* says, then *job*; return the :class:`Session`.

        *setup*: ``{"isolation": fields}`` (:func:`~reasoneval_mini.runner.confinement.isolation_to_fields`)
        with the limits ``memory_mb``, ``cpu_seconds``, ``file_size_mb``,
        ``open_files`` (each optional). *job*: ``{"tasks": [...]}`` with
        ``notebook`` and ``step_seconds`` as :mod:`reasoneval_mini.runner.child`
        says (its nonce is the session's own). *output*: ``(head, tail)``
        bytes of stdout and stderr to keep (None: neither is kept).
        *cancel*: a :class:`Cancel` of the caller's, besides the runner's own.
        Raises :class:`SessionStopped` (``CANCELLED``) after :meth:`cancel`,
        and :class:`RunnerLost` when no child could be started.
        """
        if self.cancelled.is_set():
            raise SessionStopped(CANCELLED)
        confined = bool(isolation_from_fields(setup["isolation"]).enforced)
        for attempt in (1, 2):
            server = None if self.fresh else self._server(confined)
            try:
                session = self._start(server, setup, job, output, max_event_bytes,
                                      [self.cancelled] + ([cancel] if cancel is not None else []))
            except ServerLost as error:  # nothing ran: a new server, once
                self._drop_server()
                if attempt == 2:
                    raise RunnerLost(str(error)) from None
                continue
            except OSError as error:
                raise RunnerLost(f"{type(error).__name__}: {error}") from None
            break
        return session

    def _server(self, confined):
        """This runner's warm server (a new one if it has none, or may not use it); None for none."""
        self.settle()
        if self.server is not None and (not self.server.alive() or self.server.private != confined):
            # Dead; or made for the other kind of session: an unconfined one
            # could change a server's mounts (a 1 MB file system over the base)
            # or its base's modes, and a confined server's namespaces would
            # confine a session whose sandbox is off.
            self._drop_server()
        if self.server is None and _UNAVAILABLE[0] is None:
            try:
                self.server = Server(self.profile, private=confined)
            except (OSError, ServerLost) as error:
                _UNAVAILABLE[0] = f"{type(error).__name__}: {error}"
                warnings.warn(f"reasoneval_mini: no runner server could start "
                              f"({_UNAVAILABLE[0]}); each session starts a fresh interpreter "
                              "instead (slower, as confined, but a process that leaves its "
                              "session's group where the sandbox lets it is not killed at the "
                              "end)", RuntimeWarning, stacklevel=4)
        return self.server

    def _drop_server(self):
        server, self.server = self.server, None
        if server is not None:
            server.close(kill=True)

    def _start(self, server, setup, job, output, max_event_bytes, cancels):
        events_r, events_w = os.pipe()
        requests_r, requests_w = os.pipe()
        ours, theirs = [events_r, requests_w], [events_w, requests_r]
        streams = {}
        if output is not None:
            for _ in ("stdout", "stderr"):
                read_end, write_end = os.pipe()
                ours.append(read_end)
                theirs.append(write_end)
                streams[read_end] = HeadTailBuffer(*output)
        nonce = secrets.token_hex(16)
        frame = encode_request({**job, "nonce": nonce})
        # A job that fits in an empty pipe goes at once, while the server forks.
        early = len(frame) <= EARLY_JOB_BYTES
        try:
            if server is not None:
                pid = server.start(setup, theirs,
                                   (lambda: _write_early(requests_w, frame)) if early else None)
                child, capped = _ServerChild(server, pid), server.capped
            else:
                child, capped = self._fresh_child(setup, theirs), None
        except BaseException:
            for fd in ours:
                _close(fd)
            raise
        finally:
            for fd in theirs:
                _close(fd)
        session = Session(child, events_r, requests_w, streams, nonce, cancels, capped,
                          max_event_bytes)
        if not early or server is None:
            # False: the child died before it read it; its events say so. It
            # reads its job before any untrusted code runs: a bound for a slow machine only.
            try:
                session.send_frame(frame, time.monotonic() + JOB_SECONDS)
            except SessionStopped:
                session.end()
                raise
        session.started = time.monotonic()
        return session

    def _fresh_child(self, setup, fds):
        workdir = make_workdir()
        setup = {**setup, "cap_mb": self.profile.cap_mb}
        tokens = [descriptor_token(fd) for fd in fds[:2]]
        streams = {} if len(fds) == 2 else {"stdout": fds[2], "stderr": fds[3]}
        try:
            process = start_child(
                "reasoneval_mini.runner.child", "main",
                (json.dumps(setup), *tokens, os.getpid()), workdir=workdir, cwd=workdir,
                extra_env=dict(self.profile.env), stdin=subprocess.DEVNULL,
                stdout=streams.get("stdout", subprocess.DEVNULL),
                stderr=streams.get("stderr", subprocess.DEVNULL), pass_fds=fds[:2])
        except BaseException:
            remove_tree(workdir)
            raise
        return _FreshChild(process, workdir)

    def cancel(self):
        """End the running session and refuse new ones (callable from any thread)."""
        self.cancelled.set()

    def settle(self):
        """Read the server's word on its last session's folder; one that stayed closes the server.

        A folder the server could not remove in time would fail the next
        session that is not its own: the server stops, and closing it here
        removes its base folder (whatever the session left) at once. Read
        before the next session starts (:meth:`Server.start`) or when the
        runner goes back to the pool (:func:`give_back`): not once per
        session, where it would cost a wait on the server each.
        """
        if self.server is not None and not self.server.take_removal():
            self._drop_server()

    def reusable(self):
        """True if this runner may run a later session for another caller (alive, never cancelled)."""
        return not self.cancelled.is_set() and (self.server is None or self.server.alive())

    def close(self):
        """Cancel, then stop this runner's server; idempotent."""
        self.cancel()
        self._drop_server()


_POOL = WarmPool()
close_idle = _POOL.close_idle  # stop every idle runner (at exit; tests call it to start afresh)


def borrow(profile, count=1, fresh=False):
    """*count* runners of *profile*, warm ones first; give them back with :func:`give_back`."""
    fresh = fresh or not servers_possible()
    taken = _POOL.take(count, fits=lambda runner: runner.profile == profile
                       and runner.fresh == fresh)
    return taken + [Runner(profile, fresh) for _ in range(count - len(taken))]


def give_back(runners):
    """Keep the reusable *runners* warm for the next caller; close the others."""
    for runner in runners:
        runner.settle()
        _POOL.give_back(runner, runner.reusable())
