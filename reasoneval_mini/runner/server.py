"""The runner server: a warm process that forks one child per session, and holds nothing of any.

Both ends live here: :func:`serve`, the server, and :class:`Server`, the
caller's handle on it (kept by a :class:`~reasoneval_mini.runner.session.Runner`).
Why a server: a fresh interpreter costs 15-30 ms (and 200 ms more for what
a grading child imports), a fork of a warm one about 2 ms. The server is
single-threaded, so forking it is safe (forking a multi-threaded Jupyter
kernel would not be).

The server imports its profile's modules (never a student's: a fixed list,
imported outside any sandbox), moves its objects out of the collector's
reach, becomes a child subreaper (:mod:`reasoneval_mini.runner.reaping`)
and, on Linux, enters user and mount namespaces of its own and mounts a
``tmpfs`` of the profile's size over its base folder
(:func:`~reasoneval_mini.runner.workdir.enter_private_mounts`). Every
session works in the one folder ``<base>/run``, made when the server starts
and emptied after each session (:func:`~reasoneval_mini.runner.workdir.empty_folder`),
which cannot hold more than that size: the sessions' Landlock rule names
that very folder, so the server builds their ruleset once.

Per session the caller makes the session's pipes and sends their child
ends, with the session's setup (its sandbox plan and limits: nothing
secret), over the ``AF_UNIX`` socket made when the server started
(:func:`socket.send_fds`). The server forks (the child inherits the
Landlock ruleset), closes its copies of the pipes at once and tells the
caller the child's pid. The child (:func:`~reasoneval_mini.runner.child.run_forked`)
reads its job from its own pipe, confines itself and runs; the caller
talks to it directly. The server only waits for the child to exit (or for
the caller's ``end``: it then kills it), kills the child's group while it
is still unreaped and everything left below the server, reports the exit
status, and then empties the folder, within :data:`REMOVAL_SECONDS`: what a
session left behind never delays its own result. A folder that could not
be emptied makes this session the server's last.

So the server never holds a session's job, output, events or results: a
forked child finds nothing of an earlier session in its memory, because
the memory it was forked from never held any (issue 24, attack 3).

The server dies with its caller (it looks at its parent every
:data:`~reasoneval_mini.runner.reaping.PARENT_CHECK_SECONDS`: it outlives
the thread that started it, so no death signal); each child dies with the
server (a death signal). Messages on the socket are frames
(:mod:`reasoneval_mini.support.messages`): the caller's requests (start,
end) marshal, the start's descriptors riding on its first bytes; the
server's answers JSON.
"""

import _socket
import collections
import gc
import importlib
import os
import select
import signal
import stat
import sys
import time

from reasoneval_mini.runner.confinement import (
    SETUP_FAILED, build_child_ruleset, harden_forking_parent, isolation_from_fields,
    prepare_confinement)
from reasoneval_mini.runner.deadlines import EXIT_POLL_SECONDS, KILL_GRACE_SECONDS
from reasoneval_mini.runner.reaping import (
    PARENT_CHECK_SECONDS, become_subreaper, die_with_parent, kill_descendants, parent_gone)
from reasoneval_mini.runner.workdir import (
    empty_folder, enter_private_mounts, make_workdir, mount_capped, remove_tree)
from reasoneval_mini.support.messages import (
    FRAME_HEADER, FrameReader, MessageTooLarge, encode_request, read_request,
    wait_until_readable, write_all, write_message)
from reasoneval_mini.support.processes import kill_process_group, kill_process_tree

#: The sessions' working folder, ``<base>/run``: one folder, emptied after each.
RUN_FOLDER = "run"
#: How long the server may spend emptying the folder after reporting a session's end.
REMOVAL_SECONDS = 0.25
#: Largest message on the socket (each is a few hundred bytes).
MAX_MESSAGE_BYTES = 1 << 16
#: How long a new server may take to import its modules and say it is ready;
#: how long it may take to answer a start or an end.
STARTUP_SECONDS = 15.0
REPLY_SECONDS = 5.0
#: How many descriptors a start carries: events, requests, then stdout and stderr if kept.
START_FDS = (2, 4)


# --- The server ----------------------------------------------------------------------------

_RUN_FORKED = []  # the child's entry point, once warm_up has bound it


def warm_up(pre_imports):
    """Import the child's code and *pre_imports* (comma-separated), build what every child would, freeze it all.

    What a server holds before forking, its children share; what each child
    builds for itself costs it CPU and written pages, at every program.
    """
    from reasoneval_mini.runner.child import run_forked

    # Bound here: an import statement in each child would go through the
    # import machinery, writing to its objects (copied pages).
    _RUN_FORKED[:] = [run_forked]
    for name in filter(None, pre_imports.split(",")):
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001 - a module that fails here fails in the session too
            pass
    # CPython builds its AST node types (a few hundred heap types) on a
    # process's first compile() unless they exist: compiling once here, not in
    # each child, saves each ~2 ms of CPU and ~100 written pages (HumanEval's
    # programs: child CPU 4.7 -> 3.3 ms). The server's own modules come from
    # their .pyc, without a compile() call.
    compile("pass", "<warm>", "exec")
    # Out of the collector's reach: a collection in a child would otherwise
    # write to every object so far, copying every shared page.
    gc.collect()
    gc.freeze()


def serve(parent_pid, sock_fd, base, cap_mb, pre_imports, private=True):
    """Fork a child per ``start`` on the socket *sock_fd* until it closes or *parent_pid* dies.

    *base* is the empty folder the caller made for the sessions' folders,
    capped at *cap_mb* MB where the kernel lets the server mount (only a
    *private* server: one for sandboxed sessions; a server for sessions with
    the sandbox off enters no namespace, so that "off" is off);
    *pre_imports* the profile's modules, comma-separated.
    """
    # No SIGINT handling: the server leads its own session, so a Ctrl-C in a
    # terminal or a notebook's interrupt never reaches it or its children.
    warm_up(pre_imports)
    die_with_parent(parent_pid)
    become_subreaper()
    capped = bool(private) and enter_private_mounts() and mount_capped(base, cap_mb)
    sock = _socket.socket(fileno=sock_fd)  # not socket.py: see _receive
    if _told(sock, {"ready": os.getpid(), "capped": capped}):
        while True:
            received = _receive(sock, parent_pid)
            if received is None or not _one_session(sock, received, base, parent_pid):
                break
    kill_descendants(os.getpid())
    os._exit(0)


_PREPARED = {}  # isolation -> the policy's paths, opened once in this server
_RULESETS = {}  # isolation -> its children's Landlock ruleset, built once in this server


def _prepared(isolation):
    """The pre-opened rules for *isolation*; the first sandboxed session also hardens the server."""
    if isolation not in _PREPARED:
        if isolation.enforced:
            harden_forking_parent()  # root's powers go, once for all the children
        _PREPARED[isolation] = prepare_confinement(isolation)
    return _PREPARED[isolation]


_FOLDER = [None]  # (device, inode) of the sessions' folder, as this server made it


def _folder_ready(workdir):
    """Make sure *workdir* is the folder this server made (made now if it is not); OSError if it cannot be.

    Made once, at the first session: the sessions' rulesets name it, so a
    folder made again (someone removed it: ``/dev/shm`` is everyone's where
    the server could not mount its own) drops them. Something else in its
    place cannot be undone here: the error stops the server.
    """
    try:
        found = os.lstat(workdir)
        if stat.S_ISDIR(found.st_mode) and (found.st_dev, found.st_ino) == _FOLDER[0]:
            return
    except FileNotFoundError:
        pass
    os.mkdir(workdir, 0o700)
    made = os.lstat(workdir)
    _FOLDER[0] = (made.st_dev, made.st_ino)
    for ruleset in _RULESETS.values():
        if ruleset is not None:
            os.close(ruleset)
    _RULESETS.clear()


def _ruleset(isolation, workdir):
    """The Landlock ruleset of *isolation*'s children, as a descriptor kept open here; None if none.

    Built once (each build cost the server about 70 us and the pages its
    ctypes calls wrote, copied while the child lived): it names *workdir*,
    which stays the same folder from session to session (emptied after
    each), so one ruleset serves them all. A child enforces it and closes
    its copy. When the kernel refuses here, the child builds its own, or
    fails closed; the next session tries again.
    """
    if _RULESETS.get(isolation) is None:
        try:
            _RULESETS[isolation] = build_child_ruleset(isolation, workdir, _prepared(isolation))
        except OSError:
            return None
    return _RULESETS[isolation]


def _one_session(sock, received, base, parent_pid):
    """Fork the child of one ``start``, wait for its end, report it; False when the server must stop."""
    message, fds = received
    if message.get("op") != "start" or len(fds) not in START_FDS:
        _close_all(fds)
        return True
    workdir = os.path.join(base, RUN_FOLDER)  # empty: the last session's end saw to it
    server_pid = os.getpid()
    try:
        _folder_ready(workdir)
    except OSError as error:
        _close_all(fds)
        _told(sock, {"failed": f"{type(error).__name__}: {error}"})
        return False
    try:
        setup = message["setup"]
        isolation = isolation_from_fields(setup["isolation"])
        prepared, ruleset = _prepared(isolation), _ruleset(isolation, workdir)
        pid = os.fork()
    except (OSError, KeyError, TypeError, ValueError) as error:  # e.g. EAGAIN: no session
        _close_all(fds)
        return _told(sock, {"failed": f"{type(error).__name__}: {error}"})
    if pid == 0:  # the session's child: it never comes back to the server's code
        try:
            streams = fds[2:] if len(fds) == 4 else [None, None]
            _RUN_FORKED[0](setup, [fds[0], fds[1], *streams], workdir, server_pid, prepared,
                           ruleset)
        finally:
            os._exit(SETUP_FAILED)
    _close_all(fds)
    del message, fds, received, setup
    if _tell(sock, b'{"started": %d}' % pid):
        status, go_on = _wait(sock, pid, parent_pid)
    else:
        status, go_on = _end(pid), False
    kill_descendants(os.getpid())  # what left the child's subtree came here
    told = _tell(sock, b'{"exited": %d, "status": %d}' % (pid, status))
    _restore_base(base)
    left = not empty_folder(workdir, deadline=time.monotonic() + REMOVAL_SECONDS)
    if not (go_on and told):
        return False
    said = _tell(sock, b'{"removed": %d, "left": %s}' % (pid, b"true" if left else b"false"))
    return said and not left


def _tell(sock, body):
    """Send the caller the JSON *body* (bytes), made by hand; False if its socket is gone.

    The messages of every session (their values are ints) are written so,
    not by ``json``: after each fork, every page the server writes costs a
    fault (a copy while the child lives), and json's encoder wrote about 60.
    """
    try:
        write_all(sock.fileno(), FRAME_HEADER.pack(len(body)) + body)
    except OSError:
        return False
    return True


def _close_all(fds):
    for fd in fds:
        try:
            os.close(fd)
        except OSError:
            pass


def _restore_base(base):
    """Give the base folder its mode (0700) back, before the folder in it is emptied.

    Landlock does not cover ``chmod``: a program may take away the rights
    on its folder's parent (its owner's right), and the server, without
    root's powers, could then no longer reach ``<base>/run`` to empty it
    (the system-call filter refuses ``chmod`` where it runs).
    """
    try:
        os.chmod(base, 0o700)
    except OSError:
        pass


def _wait(sock, pid, parent_pid):
    """Wait for the child *pid* to exit, or end it when the caller says so; ``(returncode, go on)``.

    *returncode* as :attr:`subprocess.Popen.returncode` (negative: the
    signal). *go on* is False when the caller or its socket is gone.
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
            if exited is None or exited in ready:
                returncode = _reap_if_exited(pid)
                if returncode is not None:
                    return returncode, True
            if sock in ready:
                received = _receive(sock, parent_pid, wait=False)
                if received is None:
                    return _end(pid), False
                _close_all(received[1])
                if received[0].get("op") == "end":
                    return _end(pid), True
            elif parent_gone(parent_pid):
                return _end(pid), False
    finally:
        if exited is not None:
            os.close(exited)


def _reap_if_exited(pid):
    """The returncode of the child *pid* if it has exited (its group killed, it reaped), else None.

    Its group is killed while the leader is unreaped where the kernel lets
    us look without reaping (``waitid(WNOWAIT)``): the group's id cannot be
    reused yet. Elsewhere it is reaped first, and the group killed right after.
    """
    if hasattr(os, "waitid") and hasattr(os, "WNOWAIT"):
        if os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is None:
            return None
        kill_process_group(pid)
        return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
    reaped, status = os.waitpid(pid, os.WNOHANG)  # pragma: no cover - no waitid here
    if not reaped:
        return None
    kill_process_group(pid)
    return os.waitstatus_to_exitcode(status)


def _end(pid):
    """Kill the child *pid*, its group and all below it; reap it; its returncode."""
    kill_process_group(pid)
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    status = os.waitpid(pid, 0)[1]
    kill_descendants(os.getpid())
    return os.waitstatus_to_exitcode(status)


def _told(sock, message):
    """Send *message* to the caller; False if its socket is gone (the server then stops)."""
    try:
        write_message(sock.fileno(), message)
    except OSError:
        return False
    return True




#: Room for the descriptors a start may carry (``CMSG_LEN`` of that many ints).
_FDS_ROOM = _socket.CMSG_LEN(max(START_FDS) * 4) if hasattr(_socket, "CMSG_LEN") else 0


def _receive(sock, parent_pid, wait=True):
    """The next ``(message, fds)`` on *sock*; None at its end, on garbage, or once *parent_pid* is gone.

    The descriptors of a start ride on the first bytes of its frame, a
    marshal request from the caller (:func:`~reasoneval_mini.support.messages.encode_request`).
    Read with the socket's own ``recvmsg``, not :func:`socket.recv_fds`,
    which imports :mod:`array`: a library mapped in the server is mapped
    again at every fork, and unmapped at every child's exit.
    """
    while wait and not select.select([sock], [], [], PARENT_CHECK_SECONDS)[0]:
        if parent_gone(parent_pid):
            return None
    try:
        started, ancillary, _, _ = sock.recvmsg(FRAME_HEADER.size, _FDS_ROOM)
    except OSError:
        return None
    fds = []
    for level, kind, data in ancillary:
        if level == _socket.SOL_SOCKET and kind == _socket.SCM_RIGHTS:
            fds.extend(int.from_bytes(data[at:at + 4], sys.byteorder, signed=True)
                       for at in range(0, len(data) - len(data) % 4, 4))
    try:
        message = read_request(sock.fileno(), max_bytes=MAX_MESSAGE_BYTES,
                               deadline=time.monotonic() + REPLY_SECONDS, started=started)
    except (OSError, ValueError, TimeoutError):
        message = None
    if not started or message is None:
        _close_all(fds)
        return None
    return (message if isinstance(message, dict) else {}), fds


# --- The caller's side: a handle on one server -----------------------------------------------

class ServerLost(Exception):
    """The runner server died, stopped answering or said something unexpected."""


class Server:
    """One runner server process of one profile, used by one thread at a time.

    :meth:`start` forks a session's child; then :meth:`take_exit` reads its
    end (when :meth:`fileno` is readable) or :meth:`end` ends it. Any failure
    raises :class:`ServerLost`; the handle is then :meth:`close`\\ d.
    *private*: a server for sandboxed sessions, in namespaces of its own
    (never used for a session with the sandbox off, nor the other way round:
    such a session could change the server's mounts and modes).
    ``capped``: whether the sessions' folders are a file system of the profile's size.
    """

    def __init__(self, profile, private=True):
        self.profile, self.private = profile, private
        # Here, not at the top (nor in close): ``subprocess`` and ``socket``
        # are the caller's; a server, which forks each session from its own
        # memory, would map their libraries again at every fork.
        import socket
        import subprocess

        self.base = make_workdir()  # made here, so that it is removed here when the server cannot
        self.sock, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)

        from reasoneval_mini.runner.start import start_child

        try:
            # Its stderr is the caller's: a server that fails says why there.
            self.process = start_child(
                "reasoneval_mini.runner.server", "serve",
                (os.getpid(), theirs.fileno(), self.base, int(profile.cap_mb),
                 ",".join(profile.pre_imports), bool(private)),
                workdir=os.path.join(self.base, RUN_FOLDER), cwd=self.base,
                extra_env=dict(profile.env), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                stderr=None, pass_fds=(theirs.fileno(),))
        except BaseException:
            self.sock.close()
            remove_tree(self.base)
            raise
        finally:
            theirs.close()
        self.frames, self.pending = FrameReader(MAX_MESSAGE_BYTES), collections.deque()
        self.child = None  # the running session's pid, between start and its exit
        self.removing = None  # the last session's pid, until the server says its folder went
        try:
            ready = self._expect("ready", STARTUP_SECONDS)
            self.capped = ready.get("capped") is True
        except BaseException:
            self.close(kill=True)
            raise

    def fileno(self):
        return self.sock.fileno()

    def _next(self, deadline):
        """The server's next message, by *deadline*; raises ``TimeoutError`` or :class:`ServerLost`.

        What one read brings is kept: the server's end of a session and its
        word on the folder often come together.
        """
        while not self.pending:
            try:
                wait_until_readable(self.sock.fileno(), deadline)
                data = os.read(self.sock.fileno(), 1 << 16)
                if not data:
                    raise ServerLost("the runner server stopped")
                self.pending.extend(self.frames.feed(data))
            except TimeoutError:
                raise
            except (OSError, MessageTooLarge) as error:
                raise ServerLost(f"a garbled message from the runner server ({error})") from None
        message = self.pending.popleft()
        if not isinstance(message, dict):
            raise ServerLost(f"an unexpected message from the runner server: {message!r:.80}")
        return message

    def _expect(self, key, seconds):
        try:
            message = self._next(time.monotonic() + seconds)
        except TimeoutError:
            raise ServerLost(f"no {key!r} from the runner server in time") from None
        if key in message:
            return message
        if "failed" in message:
            raise ServerLost(f"the runner server could not start a session: {message['failed']}")
        raise ServerLost(f"an unexpected message from the runner server: {str(message)[:80]}")

    def start(self, setup, fds, meanwhile=None):
        """Fork a child for one session with *setup*, handing it *fds*; return its pid.

        *fds* are the child's ends: events and requests, then stdout and
        stderr if the caller keeps them. The caller closes its copies.
        *meanwhile*, if given, is called once the server has the request and
        before its answer is read (the caller writes a short job then, so
        that the child need not wait for a round trip). The word on the last
        session's folder must have been read (:meth:`take_removal`).
        """
        import socket  # see __init__

        try:
            socket.send_fds(self.sock, [encode_request({"op": "start", "setup": setup})], list(fds))
        except OSError as error:
            raise ServerLost(f"the runner server is gone: {error}") from None
        if meanwhile is not None:
            meanwhile()
        pid = self._expect("started", REPLY_SECONDS)["started"]
        if type(pid) is not int or pid <= 1:
            raise ServerLost(f"the runner server sent pid {pid!r:.80}")
        self.child = pid
        return pid

    def take_exit(self, deadline):
        """The returncode of the session's child, from the server's report (which must come by *deadline*)."""
        try:
            message = self._next(deadline)
        except TimeoutError:
            raise ServerLost("no report of the session's end from the runner server") from None
        status = message.get("status")
        if message.get("exited") != self.child or type(status) is not int:
            raise ServerLost(f"an unexpected message from the runner server: {str(message)[:80]}")
        self.removing, self.child = self.child, None
        return status

    def end(self):
        """Have the server kill the session's child and all it started; its returncode."""
        try:
            write_all(self.sock.fileno(), encode_request({"op": "end"}))
        except OSError as error:
            raise ServerLost(f"the runner server is gone: {error}") from None
        return self.take_exit(time.monotonic() + KILL_GRACE_SECONDS)

    def take_removal(self):
        """Wait for the server's word on the last session's folder; True if the server goes on.

        A folder the server could not remove in time makes that session its
        last (the next session must not find it): the caller closes this
        server then, which removes its base folder, whatever it holds.
        """
        pid, self.removing = self.removing, None
        if pid is None:
            return True
        try:
            message = self._next(time.monotonic() + REMOVAL_SECONDS + KILL_GRACE_SECONDS)
        except (TimeoutError, ServerLost):
            return False
        return message.get("removed") == pid and message.get("left") is False

    def alive(self):
        return self.process is not None and self.process.poll() is None

    def close(self, kill=False):
        """Stop the server (its socket's end stops it; killed if it does not go), remove its base folder.

        Idempotent.
        """
        process, self.process = self.process, None
        if process is None and self.base is None:
            return
        self.sock.close()
        if process is not None:
            import subprocess  # see __init__

            if kill:
                kill_process_tree(process)
            else:
                try:
                    process.wait(timeout=1)
                except subprocess.TimeoutExpired:  # e.g. stopped by a program's helper
                    kill_process_tree(process)
        if self.child is not None and _killable(self.child):
            # The server died or was stopped under it: its child dies with it
            # (a death signal), what the child started in its group here.
            kill_process_group(self.child)
            self.child = None
        base, self.base = self.base, None
        if base is not None:
            remove_tree(base)


def _killable(pid):
    """True for a pid the caller may kill as a session's: never itself, its group or init."""
    return pid > 1 and pid not in (os.getpid(), os.getpgrp())
