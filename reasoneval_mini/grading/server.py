"""The grading server: a warm process that forks one grading child per student, and holds none of them.

Both ends live here: :class:`GradingServer`, the grader's handle (one per
grading thread at a time, kept warm between students by :func:`borrow` and
:func:`give_back`), and :func:`serve`, the server. The handle starts the
server with :func:`~reasoneval_mini.runner.start.start_child`, in the
grading child's environment (:data:`~reasoneval_mini.grading.process.CHILD_SETTINGS`);
the server imports what every student's run imports (:data:`PRE_IMPORTS`:
the grading child itself and the modules of the notebooks' setup cells),
about 200 ms a student that a fresh interpreter pays each time, then waits.

Per student, the grader makes the two pipes of that student's run (its
requests, its events) and passes the child's ends to the server over the
``AF_UNIX`` socket pair made when the server started
(:func:`socket.send_fds`), with the student's working folder. The server
forks; in the child, :func:`~reasoneval_mini.grading.child.serve_student`
does what a fresh grading interpreter does after its start (keeper and
worker, limits, the folder's cap, the sandbox, the job read from its own
pipe), so the grader talks to the child directly. The server closes its
copies of the pipes at once, tells the grader the child's pid, then only
waits for the child to exit (or for the grader's ``end``: it then kills it
and all it started), kills whatever is left below it (it is a child
subreaper, so a student's escaped helper lands there) and reports the exit
status. So the server never reads a student's cells, requests, answers or
results: a forked child finds nothing of an earlier student in its memory,
because the memory it was forked from never held any (issue 24, item 2).

The server dies with the grader (it looks at its parent every
:data:`~reasoneval_mini.runner.reaping.PARENT_CHECK_SECONDS`: it outlives
the thread that started it, so no death signal); each keeper dies with the
server (``PR_SET_PDEATHSIG``), and kills its student's processes then. A
student who kills the server (where no sandbox stops them) ends their own
run; the handle then reads the socket's end, the run is ``died``, and the
next student gets a new server.

Where there is no ``fork`` or no ``AF_UNIX`` ``SOCK_SEQPACKET`` (Windows,
macOS), or a server does not start, :func:`borrow` returns None and the
grader starts a fresh interpreter per student instead
(:func:`~reasoneval_mini.grading.process.run_grading_process`).
"""

import gc
import importlib
import json
import os
import select
import signal
import socket
import subprocess
import time

from reasoneval_mini.runner.confinement import SETUP_FAILED
from reasoneval_mini.runner.deadlines import EXIT_POLL_SECONDS
from reasoneval_mini.runner.limits import max_fd
from reasoneval_mini.runner.reaping import (
    PARENT_CHECK_SECONDS, become_subreaper, die_with_parent, kill_descendants, parent_gone)
from reasoneval_mini.runner.start import start_child
from reasoneval_mini.runner.warm import WarmPool
from reasoneval_mini.support.processes import kill_process_group, kill_process_tree

#: What every student's run imports, imported once in the server: the grading
#: child, and the modules the course's notebooks import in their setup cell
#: (measured: about 80 ms of feedback, 55 of code_report, 30 of the child, 20
#: of the executor, 28 of ex03's setup cell per fresh interpreter). Names, not imports: a student's run
#: imports them, the server only warms them; none of them may read anything of
#: a student at import time. A fixed list, never the notebooks' own imports:
#: the server is outside the sandbox, and a module's top level runs there.
PRE_IMPORTS = ("reasoneval_mini.grading.child", "reasoneval_mini", "reasoneval_mini.feedback",
               "reasoneval_mini.evaluation.code_report", "reasoneval_mini.executor.program",
               "reasoneval_mini.estimators", "reasoneval_mini.records",
               "reasoneval_mini.exercises.ex03_execution_states")
#: Largest message on the socket (each is a few dozen bytes of JSON).
MAX_MESSAGE_BYTES = 1 << 16
#: How long a new server may take to import and say it is ready; a fork's reply, an exit's report.
STARTUP_SECONDS = 10.0
REPLY_SECONDS = 5.0


# --- The server ------------------------------------------------------------------------

def _send(sock, message, fds=()):
    data = json.dumps(message).encode("utf-8")
    if fds:
        socket.send_fds(sock, [data], list(fds))
    else:
        sock.send(data)


def serve(parent_pid, sock_fd):
    """Fork a grading child per request on the socket *sock_fd* until it closes or *parent_pid* dies."""
    for name in PRE_IMPORTS:
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001 - a module that fails here fails in the student's run too
            pass
    # Out of the collector's reach: a collection in a child would otherwise
    # write to every object so far, copying every shared page.
    gc.collect()
    gc.freeze()
    die_with_parent(parent_pid)
    become_subreaper()
    server_pid = os.getpid()
    sock = socket.socket(fileno=sock_fd)
    _send(sock, {"ready": os.getpid()})
    while True:
        request = _receive(sock, parent_pid)
        if request is None:
            break
        message, fds = request
        if message.get("op") != "start" or len(fds) != 2 or not isinstance(message.get("workdir"), str):
            for fd in fds:
                os.close(fd)
            continue
        try:
            pid = os.fork()
        except OSError as error:
            for fd in fds:
                os.close(fd)
            if not _told(sock, {"failed": f"{type(error).__name__}: {error}"}):
                break
            continue
        if pid == 0:
            _student(message["workdir"], fds, sock, server_pid)
        for fd in fds:  # the child's ends only: the server holds nothing of the run
            os.close(fd)
        del message, fds, request
        told = _told(sock, {"started": pid})
        returncode, go_on = _wait_student(sock, pid, parent_pid) if told else (_end(pid), False)
        kill_descendants(os.getpid())  # what left the keeper's subtree came here
        if not (go_on and _told(sock, {"exited": pid, "returncode": returncode})):
            break
    kill_descendants(os.getpid())
    os._exit(0)


def _told(sock, message):
    """Send *message* to the grader; False if its socket is gone (the server then stops)."""
    try:
        _send(sock, message)
    except OSError:
        return False
    return True


def _receive(sock, parent_pid):
    """The next ``(message, fds)`` on *sock*; None at its end or once *parent_pid* is gone."""
    while not select.select([sock], [], [], PARENT_CHECK_SECONDS)[0]:
        if parent_gone(parent_pid):
            return None
    try:
        data, fds, _, _ = socket.recv_fds(sock, MAX_MESSAGE_BYTES, 2)
    except OSError:
        return None
    if not data:
        for fd in fds:
            os.close(fd)
        return None
    try:
        message = json.loads(data)
    except ValueError:
        message = {}
    return (message if isinstance(message, dict) else {}), fds


def _student(workdir, fds, sock, server_pid):
    """In the forked child: its own session, folder and environment, only its pipes; never returns."""
    try:
        requests, channel = fds
        os.setsid()
        os.chdir(workdir)
        # What start_child's environment says for a fresh interpreter.
        os.environ.update(HOME=workdir, TMPDIR=workdir)
        sock.detach()  # closed below with the rest: no object may close its number again
        low, high = sorted((requests, channel))
        os.closerange(3, low)
        os.closerange(low + 1, high)
        os.closerange(high + 1, max_fd())
    except BaseException:  # noqa: BLE001 - nothing of the student's has run
        os._exit(SETUP_FAILED)
    from reasoneval_mini.grading.child import serve_student  # imported already (PRE_IMPORTS)

    serve_student(server_pid, channel, requests)


def _wait_student(sock, pid, parent_pid):
    """Wait for the child *pid* to exit, or end it when the grader says so; ``(returncode, go on)``.

    *returncode* is :attr:`subprocess.Popen.returncode`'s (negative: the
    signal). *go on* is False when the grader or its socket is gone: the
    child is killed then, and the server stops.
    """
    try:
        exited = os.pidfd_open(pid)
    except (AttributeError, OSError):
        exited = None
    try:
        while True:
            watched = [sock] + ([exited] if exited is not None else [])
            timeout = PARENT_CHECK_SECONDS if exited is not None else EXIT_POLL_SECONDS
            ready = select.select(watched, [], [], timeout)[0]
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                return os.waitstatus_to_exitcode(status), True
            if sock in ready:
                request = _receive(sock, parent_pid)
                if request is None:
                    return _end(pid), False
                for fd in request[1]:
                    os.close(fd)
                if request[0].get("op") == "end":
                    return _end(pid), True
            elif parent_gone(parent_pid):
                return _end(pid), False
    finally:
        if exited is not None:
            os.close(exited)


def _end(pid):
    """Kill the child *pid* (the keeper), all below it and its group; reap it; its returncode."""
    kill_descendants(pid)
    kill_process_group(pid)
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])


# --- The grader's side: a handle on one server --------------------------------------------

class ServerLost(Exception):
    """The grading server died, stopped answering or said something else than expected."""


class GradingServer:
    """One grading server process, used by one grading thread at a time.

    :meth:`start_student` forks a child for one student; then
    :meth:`exit_status` waits for it to end on its own, or :meth:`end` ends
    it. Any failure raises :class:`ServerLost`, after which the handle is
    :meth:`close`\\ d and not used again.
    """

    def __init__(self, extra_env):
        self.sock, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            # Its stderr is the caller's: a server that fails says why there.
            self.process = start_child(
                "reasoneval_mini.grading.server", "serve", (os.getpid(), theirs.fileno()),
                workdir=os.devnull, cwd=os.sep, extra_env=extra_env, stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL, stderr=None, pass_fds=(theirs.fileno(),))
        except BaseException:
            self.sock.close()
            raise
        finally:
            theirs.close()
        self.pid = None  # the student's child, between start_student and its exit
        try:
            self.server_pid = self._expect("ready", time.monotonic() + STARTUP_SECONDS)
        except BaseException:
            self.close()
            raise

    def _expect(self, key, deadline):
        """The value of *key* in the server's next message, by *deadline*; raises :class:`ServerLost`."""
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.sock], [], [], left)[0]:
                raise TimeoutError(f"no {key!r} from the grading server in time")
            try:
                data = self.sock.recv(MAX_MESSAGE_BYTES)
            except OSError as error:
                raise ServerLost(f"the grading server's socket failed: {error}") from None
            if not data:
                raise ServerLost("the grading server stopped")
            try:
                message = json.loads(data)
            except ValueError:
                raise ServerLost(f"a garbled message from the grading server: {data[:80]!r}") from None
            if isinstance(message, dict) and key in message:
                return message[key]
            if isinstance(message, dict) and "failed" in message:
                raise ServerLost(f"the grading server could not fork: {message['failed']}")
            raise ServerLost(f"an unexpected message from the grading server: {data[:80]!r}")

    def start_student(self, workdir):
        """Fork a child for one student in *workdir*; return ``(its requests' fd, its events' fd)``.

        The caller writes the job and requests on the first, reads events on
        the second, and closes both.
        """
        requests_r, requests_w = os.pipe()
        events_r, events_w = os.pipe()
        try:
            _send(self.sock, {"op": "start", "workdir": workdir}, (requests_r, events_w))
        except OSError as error:
            for fd in (requests_r, requests_w, events_r, events_w):
                os.close(fd)
            raise ServerLost(f"the grading server is gone: {error}") from None
        os.close(requests_r)
        os.close(events_w)
        try:
            self.pid = self._expect_pid("started", REPLY_SECONDS)
        except BaseException:
            os.close(requests_w)
            os.close(events_r)
            raise
        return requests_w, events_r

    def _expect_pid(self, key, seconds):
        try:
            value = self._expect(key, time.monotonic() + seconds)
        except TimeoutError as error:
            raise ServerLost(str(error)) from None
        if type(value) is not int:
            raise ServerLost(f"the grading server sent {key} {value!r:.80}")
        return value

    def exit_status(self, timeout):
        """The returncode of the student's child once it has exited by itself, within *timeout* s.

        Raises ``TimeoutError`` if it has not, :class:`ServerLost` if the server is gone.
        """
        value = self._expect("returncode", time.monotonic() + timeout)
        self.pid = None
        if value is not None and type(value) is not int:
            raise ServerLost(f"the grading server sent returncode {value!r:.80}")
        return value

    def end(self):
        """Have the server kill the student's child and everything it started; its returncode.

        Nothing to do when it exited already (:meth:`exit_status`).
        """
        if self.pid is None:
            return None
        try:
            _send(self.sock, {"op": "end"})
        except OSError as error:
            raise ServerLost(f"the grading server is gone: {error}") from None
        return self.exit_status(REPLY_SECONDS)

    def alive(self):
        return self.process is not None and self.process.poll() is None

    def close(self):
        """Stop the server: its socket's end stops it; kill it if it does not go at once."""
        process, self.process = self.process, None
        self.sock.close()
        if process is not None:
            try:
                process.wait(timeout=1)
            except subprocess.TimeoutExpired:
                kill_process_tree(process)


# --- Warm servers, one per grading thread at a time ------------------------------------------

_POOL = WarmPool()
close_idle = _POOL.close_idle  # stop every idle server (at exit; tests call it to start afresh)
#: Why no server is used in this process (None: servers are tried).
_UNAVAILABLE = [None if hasattr(os, "fork") and hasattr(socket, "SOCK_SEQPACKET")
                and hasattr(socket, "send_fds") else "no fork or no SOCK_SEQPACKET here"]


def borrow(extra_env):
    """A warm server for this thread's next student (a new one if none is idle); None where there is none.

    A server that fails to start is said once per process (on stderr, by
    the server) and none is tried again: every student then gets a fresh
    interpreter.
    """
    if _UNAVAILABLE[0] is not None:
        return None
    while True:
        taken = _POOL.take(1)
        if not taken:
            break
        if taken[0].alive():
            return taken[0]
        taken[0].close()
    try:
        return GradingServer(extra_env)
    except (OSError, ServerLost, TimeoutError) as error:
        _UNAVAILABLE[0] = f"{type(error).__name__}: {error}"
        return None


def give_back(server):
    """Keep *server* warm for the next student, or close it (dead, or enough are idle)."""
    _POOL.give_back(server, server.alive() and server.pid is None)
