"""The fork server: a pre-warmed worker process that forks one clean child per program.

Private to the executor. Both ends live here: :class:`ForkServerWorker`, the
parent's handle (a :class:`~reasoneval_mini.executor.workers.Worker`), and
:func:`serve`, the server. The handle starts the server with
:func:`~reasoneval_mini.runner.start.start_child` (the package imported from
the folder the caller's copy lives in); the server pre-imports modules that
test programs commonly use, and then serves requests read from its stdin,
one at a time, answering on its stdout (framed as
:mod:`reasoneval_mini.support.messages` says).

Why a server: a fresh interpreter costs about 15-30 ms, a fork about 2 ms.
The server itself is single-threaded, so forking it is safe (forking a
multi-threaded Jupyter kernel would not be).

Per request, the child gets: its own session and process group (its end
kills the whole group; on Linux the server is a subreaper, and then also
kills what the program started outside the group:
:mod:`reasoneval_mini.runner.reaping`), a new empty working folder (removed afterwards), a
minimal environment, ``/dev/null`` as stdin,
pipes for stdout and stderr (read here, keeping head and tail), a private
pipe on fd 3 for the end-of-program report (all three read into memory
the server made once, sent to the caller as raw bytes after the answer's
fields, then zeroed; the program's source comes the same way: nothing of
one program stays in the memory the next one is forked from), then the resource
limits and the sandbox the request's plan names, in that order
(:func:`~reasoneval_mini.runner.confinement.limit_and_confine`; the policy's paths
are opened once in the server); the child compiles the program itself,
under those limits.

Folders: the caller makes one base folder per server, and each program's
folder is ``<base>/run`` in turn, made empty before it starts and removed
after it ends (a new folder each time: the sandbox's rule names that very
folder, so a program's leftover helper cannot write in the next one's). The
name never changes, so ``HOME`` and ``TMPDIR`` are set once, in the server's environment.
On Linux the server lives in user and mount namespaces of its own (root's
powers over those only; :func:`~reasoneval_mini.runner.workdir.enter_private_mounts`)
and mounts a ``tmpfs`` of its memory limit over the base once: files in
``/dev/shm`` count against no address-space limit, and the server runs one
program at a time. A request with another ``memory_mb`` gets a new server,
and so does a sandboxed request after an unsandboxed one (which may have
mounted over the base). A folder is removed by a deadline of its own
(:data:`REMOVAL_SECONDS` past the program's), so that what a program left
never delays its answer past the caller's guard; a program whose folder
could not be removed by then is the server's last: the next one, not its
own, would find the folder there.
The server then gives up root's capabilities once, for all its children.
Where the kernel refuses the namespaces, the folders stay uncapped. Anything that fails
before the program runs (a sandbox the kernel refuses, above all) is written
on a setup pipe that the child closes before the program's first line; the
program then never runs. Closing the server's stdin while a program runs
cancels it (its group is killed) and then stops the server.

The caller trusts nothing it cannot check. Each request carries the caller's
own random ``id``, and every message the server sends echoes it: a message
written into the server's answer pipe by anyone else (a program's escaped
helper can open ``/proc/<server>/fd/1``) is dropped, and that server is not
used again. Before the program runs, the server writes a *start note*
(``"\\n<id> <pid> <monotonic time>\\n"``) on a second pipe, and only then
lets the child go on. The caller reads the notes only when it needs them (no
extra wake-up per program): if the server dies or stops (a program can kill
or SIGSTOP its parent), the caller kills the program's process group itself,
removes the working directory and returns by its own deadline.
"""

import gc
import os
import secrets
import select
import signal
import subprocess
import sys
import threading
import time

try:
    import fcntl
except ImportError:  # pragma: no cover - the fork server runs on POSIX only
    fcntl = None

from reasoneval_mini.executor.child import (
    claim_report_channel,
    run_program,
    send_on_channel,
)
from reasoneval_mini.executor.output_buffer import ReusedHeadTail, head_tail_text
from reasoneval_mini.executor.watch_child import watch_child
from reasoneval_mini.executor.workers import (
    CANCELLED,
    EXECUTOR_ERROR,
    Worker,
)
from reasoneval_mini.runner.confinement import (
    MAX_SETUP_NOTE,
    SETUP_FAILED,
    build_child_ruleset,
    fail_setup,
    harden_forking_parent,
    isolation_from_fields,
    limit_and_confine,
    prepare_confinement,
    read_setup_note,
)
from reasoneval_mini.runner.deadlines import ANSWER_GRACE_SECONDS, deadline_after
from reasoneval_mini.runner.limits import (
    FILE_SIZE_LIMIT_MB, OPEN_FILES_LIMIT, cpu_seconds_for, max_fd)
from reasoneval_mini.runner.reaping import (
    PARENT_CHECK_SECONDS, become_subreaper, die_with_parent, parent_gone)
from reasoneval_mini.runner.start import start_child
from reasoneval_mini.runner.workdir import (
    enter_private_mounts, make_workdir, mount_capped, remove_tree)
from reasoneval_mini.support.messages import (
    CANCEL_BYTE,
    MAX_REPORT_BYTES,
    parse_report,
    read_exactly,
    read_message,
    write_all,
    write_message,
)
from reasoneval_mini.support.processes import kill_process_group, kill_process_tree

REPORT_FD = 3
GO_BYTE = b"g"  # the server has told the caller the child's pid: the program may run
_exit = os._exit  # bound before any program runs: a program that replaces os._exit changes nothing
#: The process that started this server, and whether the server is a subreaper
#: (it then kills what a program left outside its group), set by serve().
_PARENT = {"pid": None, "subreaper": False}
PRE_IMPORTS = ("typing", "math", "re", "collections", "itertools", "functools",
               "string", "hashlib", "heapq", "bisect", "traceback")


def _child_main(request, workdir, pipes, nonce, ruleset=None):
    """In the forked child: isolate, confine, limit, run, report, exit. Never returns.

    Any failure before the program runs (the sandbox refused, above all) is
    written on the setup pipe and ends the child with :data:`SETUP_FAILED`:
    the program never runs unconfined. The setup pipe is closed before the
    program's first line, so nothing the program does can write there.
    """
    out_w, err_w, report_w, go_r, setup_w = pipes
    try:
        os.setsid()
        # Run nothing of the program before the caller knows our pid: the
        # program could kill the server first, and nobody would know whom to kill.
        if os.read(go_r, 1) != GO_BYTE:
            os._exit(SETUP_FAILED)
        if setup_w <= REPORT_FD:  # keep it clear of the descriptors set below
            setup_w = fcntl.fcntl(setup_w, fcntl.F_DUPFD_CLOEXEC, REPORT_FD + 1)
        os.chdir(workdir)
        if os.environ.get("HOME") != workdir:  # a server set them once; in-process (tests), not
            os.environ.update(HOME=workdir, TMPDIR=workdir)
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        os.dup2(out_w, 1)
        os.dup2(err_w, 2)
        # Not inheritable: a program that execs something does not hand it the channel.
        os.dup2(report_w, REPORT_FD, inheritable=False)
        isolation = isolation_from_fields(request["isolation"])
        top = max_fd()  # asked before the limits: descriptors above the new one stay open
        warnings = limit_and_confine(
            isolation, workdir, memory_mb=request["memory_mb"],
            cpu_seconds=cpu_seconds_for(request["timeout"]), file_size_mb=FILE_SIZE_LIMIT_MB,
            open_files=OPEN_FILES_LIMIT, prepared=_prepared(isolation), ruleset=ruleset)
        os.close(setup_w)  # confined: from here on, nothing can say "setup failed"
        os.closerange(REPORT_FD + 1, top)  # the rules' descriptors too
        claim_report_channel(REPORT_FD)
        status = run_program(_source_of(request), send_on_channel, nonce, warnings)
        _exit(status)
    except BaseException as error:
        fail_setup(setup_w, error)


_PREPARED = {}  # isolation -> the policy's rules, opened once in the server


def _prepared(isolation):
    """The pre-opened rules for *isolation* (made on first use, before any fork uses them).

    In the server process, the first sandboxed request also makes the server
    give up root's capabilities, once for all its children (never in a
    caller that runs :func:`run_request` in its own process, e.g. a test).
    """
    if isolation not in _PREPARED:
        if isolation.enforced and _PARENT["pid"] is not None:
            harden_forking_parent()
        _PREPARED[isolation] = prepare_confinement(isolation)
    return _PREPARED[isolation]


def run_request(request, on_started=None):
    """Run one program in a forked child; return the raw facts as a dict.

    *on_started*, if given, is called with the child's pid before the program
    may run; if it raises ``OSError`` (the caller has gone) the program never runs.
    """
    facts, kept = _run(request, on_started)
    try:
        facts["parts"] = _sizes(kept)
        return answer_from(facts, b"".join(bytes(piece) for piece in _pieces(kept)))
    finally:
        for stream in kept:
            stream.clear()


def _run(request, on_started):
    """Run one program; return ``(facts, kept)``: the answer's fields, and its stdout, stderr and report.

    What the program wrote stays in this server's reused memory
    (:class:`~reasoneval_mini.executor.output_buffer.ReusedHeadTail`: never
    in an object of its own, which would leave its bytes in the heap the
    next fork copies); the caller sends it and clears it.
    """
    workdir = _make_run_folder(request)
    nonce = secrets.token_hex(16)
    started = time.monotonic()
    try:
        pid, out_r, err_r, report_r, go_w, setup_r = _fork_child(request, workdir, nonce)
    except BaseException:
        remove_tree(workdir)
        raise
    try:
        if on_started is not None:
            on_started(pid)
        os.write(go_w, GO_BYTE)
    except OSError:  # the caller has gone, or the child died: it will not run the program
        pass
    finally:
        os.close(go_w)
    head, tail = request["head_bytes"], request["tail_bytes"]
    kept = [_kept("stdout", head, tail), _kept("stderr", head, tail),
            _kept("report", MAX_REPORT_BYTES, 0), _kept("setup", MAX_SETUP_NOTE, 0)]
    outcome, status = watch_child(
        pid, dict(zip((out_r, err_r, report_r, setup_r), kept)),
        started + request["timeout"], _PARENT["pid"], _PARENT["subreaper"])
    duration = time.monotonic() - started
    _restore_base()
    # By a deadline of its own: what the program left (a chain of 32,000
    # folders takes 0.6 s or more) must not outlast the caller's guard and
    # turn the program's state into an executor failure. A folder left is
    # said in the answer, and the caller replaces this server.
    remove_tree(workdir, deadline=max(time.monotonic(), started + request["timeout"])
                + REMOVAL_SECONDS)
    setup = kept.pop()  # written by the child before the program, never by the program
    setup_error = read_setup_note(setup.pieces()[0])
    setup.clear()
    return {
        "outcome": outcome,
        "exit_code": os.WEXITSTATUS(status) if os.WIFEXITED(status) else None,
        "signal": os.WTERMSIG(status) if os.WIFSIGNALED(status) else None,
        "duration_s": duration,
        "stdout_bytes": kept[0].total, "stderr_bytes": kept[1].total,
        "nonce": nonce,
        "workdir_left": os.path.exists(workdir),
        "folder_capped": _FOLDERS["capped"],
        "setup_error": setup_error,
    }, kept


#: The memory a server reads each program's streams into, made once per
#: (stream, head, tail) and zeroed after each answer; and the program's source.
_KEPT = {}
_SOURCE = [bytearray(1 << 16)]


def _kept(name, head, tail):
    if (name, head, tail) not in _KEPT:
        _KEPT[name, head, tail] = ReusedHeadTail(head, tail)
    return _KEPT[name, head, tail]


def _sizes(kept):
    """The lengths of the answer's parts: stdout's head and tail, stderr's, the report."""
    stdout, stderr, report = kept
    return [stdout.head_size, stdout.tail_size, stderr.head_size, stderr.tail_size,
            report.head_size]


def _pieces(kept):
    return [piece for stream in kept for piece in stream.pieces()]


def answer_from(facts, data):
    """The raw answer (as :func:`run_request` returns it) from a server's *facts* and the bytes of its parts.

    Raises ``ValueError`` when the parts do not add up to *data*.
    """
    raw = dict(facts)
    sizes, nonce = raw.pop("parts", None), raw.pop("nonce", None)
    if sizes is None:  # an answer with no program's output (an executor error)
        return raw
    if (not isinstance(sizes, list) or len(sizes) != 5 or sum(sizes) != len(data)
            or any(type(size) is not int or size < 0 for size in sizes)):
        raise ValueError(f"answer parts {sizes!r:.80} for {len(data)} bytes")
    pieces, at = [], 0
    for size in sizes:
        pieces.append(bytes(data[at:at + size]))
        at += size
    raw["stdout"] = head_tail_text(pieces[0], pieces[1], raw["stdout_bytes"])
    raw["stderr"] = head_tail_text(pieces[2], pieces[3], raw["stderr_bytes"])
    raw["report"] = parse_report(pieces[4], nonce)
    return raw


def _source_of(request):
    """The program's source: in *request* (a caller in this process), or read into :data:`_SOURCE`."""
    if isinstance(request["program"], str):
        return request["program"]
    return bytes(memoryview(_SOURCE[0])[:request["program"]]).decode("utf-8", "surrogatepass")


def _read_source(request):
    """Read the source that follows *request* on stdin into :data:`_SOURCE`; False at end of file."""
    size = request["program"]
    if type(size) is not int or size < 0:
        raise ValueError(f"a request's program must be its length in bytes, got {size!r:.80}")
    if size > len(_SOURCE[0]):
        _clear_source(len(_SOURCE[0]))
        _SOURCE[0] = bytearray(max(size, 2 * len(_SOURCE[0])))
    return read_exactly(0, size, into=memoryview(_SOURCE[0])) is not None


def _clear_source(size):
    memoryview(_SOURCE[0])[:size] = bytes(size)  # zeros: nothing of the program stays


#: How long the server may spend removing a program's folder past the
#: program's own deadline before it answers (of the caller's ANSWER_GRACE_SECONDS).
REMOVAL_SECONDS = 0.25
#: This server's folders (set by serve()): the base folder its caller made,
#: and whether a file system of the memory limit is mounted over it.
_FOLDERS = {"base": None, "capped": False}
RUN_FOLDER = "run"  # each program's folder, in turn: <base>/run


def _make_run_folder(request):
    """The program's new, empty folder: ``<base>/run`` in a server; in-process (tests), one below ``request["tempdir"]``.

    Raises ``OSError`` if the last program's folder is still there (it could
    not be removed): the next program must not share it, so the request
    fails and the caller replaces this server.
    """
    base = _FOLDERS["base"]
    if base is None:
        return make_workdir(request["tempdir"])
    workdir = os.path.join(base, RUN_FOLDER)
    os.mkdir(workdir, 0o700)
    return workdir


def _restore_base():
    """Give the base folder its mode (0700) back, before the run folder in it is removed.

    Landlock does not cover ``chmod``: a sandboxed program may take away
    the write right on its folder's parent (its owner's right), and the
    server, without root's powers, could then neither remove ``<base>/run``
    nor make the next one. The program cannot replace the base itself (it
    may write only below its own folder; the base is a mount point, too).
    """
    base = _FOLDERS["base"]
    if base is not None:
        try:
            os.chmod(base, 0o700)
        except OSError:
            pass


def _fork_child(request, workdir, nonce):
    """Fork the child for *request*; return its pid, the read ends of its pipes, the go pipe."""
    isolation = isolation_from_fields(request["isolation"])
    ruleset = _child_ruleset(isolation, workdir)
    fds = []
    try:
        for _ in range(5):
            fds.extend(os.pipe())
        pid = os.fork()
    except OSError:  # e.g. EAGAIN or EMFILE; tidy up, let serve() report it
        for fd in fds + ([ruleset] if ruleset is not None else []):
            os.close(fd)
        raise
    out_r, out_w, err_r, err_w, report_r, report_w, go_r, go_w, setup_r, setup_w = fds
    if pid == 0:
        os.close(go_w)  # so that a dead server reads as end of file, not a wait forever
        _child_main(request, workdir, (out_w, err_w, report_w, go_r, setup_w), nonce, ruleset)
    for fd in (out_w, err_w, report_w, go_r, setup_w) + ((ruleset,) if ruleset is not None else ()):
        os.close(fd)
    return pid, out_r, err_r, report_r, go_w, setup_r


def _child_ruleset(isolation, workdir):
    """The child's Landlock ruleset, built here (cheap) rather than in the child (copied pages).

    None when nothing is enforced, or when building it failed: the child then
    builds it itself, and if that fails too, the program never runs.
    """
    prepared = _prepared(isolation)  # the policy's paths, opened here once
    try:
        return build_child_ruleset(isolation, workdir, prepared)
    except OSError:
        return None


def _next_request():
    """The next request, or None when stdin closes or the parent has gone.

    End of file alone is not enough: a process forked from the parent without
    exec (multiprocessing, for one) may hold a copy of our stdin's write end.
    """
    while not select.select([0], [], [], PARENT_CHECK_SECONDS)[0]:
        if parent_gone(_PARENT["pid"]):
            return None
    request = read_message(0)
    if request is not None and not _read_source(request):
        return None
    return request


def serve(parent_pid, notes_fd=None, base=None, memory_mb=None):
    """Answer requests from stdin until it closes or *parent_pid* dies; write start notes on *notes_fd*.

    *base* is the empty folder (made by the caller) that holds each
    program's folder in turn; on Linux a file system of *memory_mb* MB is
    mounted over it, seen by this server and its children only. Its
    environment (``HOME`` and ``TMPDIR`` naming ``<base>/run``) is the
    caller's to give (:meth:`ForkServerWorker._start`).
    """
    # No SIGINT handling here: the server runs in its own session, so a Ctrl-C
    # in a terminal or a notebook's interrupt never reaches it or its children,
    # and the children keep Python's default (KeyboardInterrupt) handler.
    for name in PRE_IMPORTS:
        __import__(name)
    # Move every object so far out of the collector's reach: a collection in a
    # child would otherwise write to all of them, copying every shared page.
    gc.collect()
    gc.freeze()
    # No death signal: this server outlives the caller's thread that started
    # it (it is kept warm for later calls), so it looks for its parent itself.
    die_with_parent(parent_pid)
    _PARENT["pid"] = parent_pid
    _PARENT["subreaper"] = become_subreaper()
    if base is not None:
        # Else the folders stay uncapped, and every answer says so.
        _FOLDERS["capped"] = enter_private_mounts() and mount_capped(base, memory_mb)
        _FOLDERS["base"] = base
        # HOME and TMPDIR already name <base>/run: the caller's start_child set them.
    while True:
        try:
            request = _next_request()
        except ValueError:  # a torn message (a cancel mid-request): the parent is done
            return
        if request is None or not _answer_one(request, notes_fd):
            return


def _answer_one(request, notes_fd):
    """Run *request*, send its answer; False when the server should stop (cancelled, or the parent gone).

    Everything of one run (its request, output, outcome and report) lives in
    this call's frame and goes with it, freed at once (it makes no reference
    cycle): the next program is a fork of this server and must find none of
    it in its frames, in ``gc.get_objects()`` or in any module's globals.
    Its source and what it wrote never become objects here at all (they are
    read into memory made once, and zeroed after the answer), so its bytes
    do not stay behind in the heap either.
    """
    request_id = request.get("id")

    def started(pid):
        if notes_fd is not None:
            # One short write (atomic on a pipe), opened by a newline so
            # that junk another process wrote there cannot run into it.
            write_all(notes_fd, f"\n{request_id} {pid} {time.monotonic()!r}\n".encode())

    kept = []
    try:
        answer, kept = _run(request, started)
        answer["parts"] = _sizes(kept)
    except Exception as error:  # report, do not die: the parent records it
        answer = {EXECUTOR_ERROR: f"{type(error).__name__}: {error}"}
    answer["id"] = request_id
    try:
        # The program's output and report go as they are, from the memory
        # they were read into, which is then zeroed with the source.
        write_message(1, answer, parts=_pieces(kept))
    except OSError:  # the parent has gone (e.g. it was interrupted): stop quietly
        return False
    finally:
        for stream in _KEPT.values():  # every one, even after a failure halfway
            stream.clear()
        _clear_source(request["program"])
    return answer.get("outcome") != CANCELLED


# --- The parent's side: a handle on one server -------------------------------

#: How long the caller waits for a new server to start and to start the
#: program (the compile included); after the program's own timeout, it waits
#: ANSWER_GRACE_SECONDS (reasoneval_mini.runner.deadlines) for the answer.
STARTUP_SECONDS = 5.0
MAX_ANSWER_BYTES = 1 << 20  # an answer's fields are a few hundred bytes
MAX_PARTS_BYTES = MAX_REPORT_BYTES + (1 << 20)  # the report, heads and tails of both streams


class WorkerLost(Exception):
    """The server died, stopped answering or garbled its answer; the program's fate is unknown."""


class ForkServerWorker(Worker):
    """One fork-server process; runs one program at a time (see :class:`Worker`)."""

    def __init__(self):
        self.process = None
        self.base = None  # the folder that holds the server's program folders (made here)
        self.memory_mb = None  # the limit the server's folders are capped at
        self.notes_r = None  # the read end of the server's start notes
        self.notes = {}  # request id -> (child pid, start time), read from the notes pipe
        self.lock = threading.Lock()  # one program at a time
        self.state_lock = threading.Lock()  # guards process and cancelled against cancel()
        self.cancelled = False
        self.tainted = False  # someone else wrote into this server's answer pipe
        self.ran_unconfined = False  # a program ran here without the sandbox (see run)

    def _start(self, memory_mb):
        self.tainted = False
        self.ran_unconfined = False
        self.notes.clear()
        # Made here, so that it is removed here when the server cannot.
        self.base, self.memory_mb = make_workdir(), memory_mb
        notes_r, notes_w = os.pipe()
        try:
            # Its stderr is the caller's: a server that fails says why there.
            self.process = start_child(
                "reasoneval_mini.executor.fork_server", "serve",
                (os.getpid(), notes_w, self.base, int(memory_mb)),
                workdir=os.path.join(self.base, RUN_FOLDER), stderr=None, pass_fds=(notes_w,))
        except BaseException:
            os.close(notes_r)
            remove_tree(self.base)
            self.base = None
            raise
        finally:
            os.close(notes_w)
        os.set_blocking(notes_r, False)
        self.notes_r = notes_r

    def run(self, request):
        request_id = secrets.token_hex(16)
        # The source follows the request as raw bytes (see _read_source).
        source = request["program"].encode("utf-8", "surrogatepass")
        request = dict(request, id=request_id, program=len(source))
        confined = bool(isolation_from_fields(request["isolation"]).enforced)
        with self.lock:
            if self.process is not None and (self.process.poll() is not None
                                             or self.memory_mb != request["memory_mb"]
                                             or (confined and self.ran_unconfined)):
                # Dead, or its folders are capped at another limit, or a
                # program ran here unconfined: it may have changed the
                # server's own mounts (a 1 MB file system over the base, and
                # every later program's writes fail) or the base's modes.
                self._stop()
            with self.state_lock:
                if self.cancelled:
                    return {"outcome": CANCELLED}
                fresh = self.process is None
                if fresh:
                    self._start(request["memory_mb"])
            sent = time.monotonic()
            self.ran_unconfined = self.ran_unconfined or not confined
            try:
                write_message(self.process.stdin.fileno(), request, parts=(source,))
                answer = self._answer(request_id, request["timeout"], sent, fresh)
            except (WorkerLost, OSError, ValueError) as error:
                self._abandon(request_id)
                return {EXECUTOR_ERROR: f"fork server failed: {error}"}
            except BaseException:  # e.g. KeyboardInterrupt: kill the program, then re-raise
                self._abandon(request_id)
                raise
            self._read_notes()  # keeps the notes pipe from filling; these notes are done
            self.notes.clear()
            answer.pop("id", None)
            if ("outcome" not in answer or answer["outcome"] == CANCELLED or self.tainted
                    or answer.get("workdir_left")):
                # A folder left (<base>/run) would fail the next program that
                # is not its own: that one runs on a new server instead.
                self._stop()
            return answer

    def _answer(self, request_id, timeout, sent, fresh):
        """The server's answer to *request_id*, by a deadline that follows the program's start.

        First deadline: the program's timeout (plus the guard) from the
        sending, enough for a warm server (its own deadline counts from the
        request's arrival, the compile included). If it passes, the start
        note says when the program really started and the deadline moves
        there; with no note yet, only a new server (still starting up) gets
        the startup allowance. Raises :class:`WorkerLost` past the last deadline.
        """
        deadline = deadline_after(sent, timeout, ANSWER_GRACE_SECONDS)
        while True:
            try:
                return self._expect(request_id, deadline)
            except TimeoutError:
                pass
            self._read_notes()
            note = self.notes.get(request_id)
            if note is not None:
                start = min(note[1], sent + STARTUP_SECONDS)
                later = deadline_after(start, timeout, ANSWER_GRACE_SECONDS)
            else:
                later = deadline_after(sent + (STARTUP_SECONDS if fresh else 0.0), timeout,
                                       ANSWER_GRACE_SECONDS)
            if later <= time.monotonic() or later <= deadline:
                raise WorkerLost("no answer from the fork server in time "
                                 "(stopped, or too busy)")
            deadline = later

    def _expect(self, request_id, deadline):
        """The server's next message for *request_id*; others' messages are dropped.

        Raises ``TimeoutError`` if none comes by *deadline*, and
        :class:`WorkerLost` if the server's output ends or is not a message.
        """
        fd = self.process.stdout.fileno()
        while True:
            try:
                message = read_message(fd, max_bytes=MAX_ANSWER_BYTES, deadline=deadline)
            except TimeoutError:
                raise
            except ValueError as error:
                raise WorkerLost(f"garbled answer ({error})") from None
            if message is None:
                raise WorkerLost("the fork server stopped without an answer")
            if not isinstance(message, dict) or message.get("id") != request_id:
                self.tainted = True  # a forgery: dropped, and this server is not reused
                continue
            return self._with_parts(message, fd, deadline)

    @staticmethod
    def _with_parts(message, fd, deadline):
        """The raw answer: *message* with the output and report that follow it read and decoded."""
        sizes = message.get("parts")
        if sizes is None:
            return message
        if (not isinstance(sizes, list)
                or not all(type(size) is int and 0 <= size for size in sizes)
                or sum(sizes) > MAX_PARTS_BYTES):
            raise WorkerLost(f"garbled answer (parts {sizes!r:.80})")
        try:
            data = read_exactly(fd, sum(sizes), deadline)
        except TimeoutError:
            raise WorkerLost("the fork server's answer was cut short") from None
        if data is None:
            raise WorkerLost("the fork server stopped in the middle of its answer")
        try:
            return answer_from(message, data)
        except (KeyError, TypeError, ValueError) as error:
            raise WorkerLost(f"garbled answer ({error})") from None

    def _read_notes(self):
        """Read every start note waiting in the notes pipe into :attr:`notes`."""
        if self.notes_r is None:
            return
        data = b""
        while True:
            try:
                chunk = os.read(self.notes_r, 1 << 16)
            except (BlockingIOError, InterruptedError):
                break
            except OSError:
                break
            if not chunk:
                break
            data += chunk
        for line in data.split(b"\n"):
            parts = line.split()
            if len(parts) != 3:
                continue  # junk, or an empty line between notes
            try:
                self.notes[parts[0].decode("ascii")] = (int(parts[1]), float(parts[2]))
            except ValueError:
                continue

    def _abandon(self, request_id):
        """Kill the program (from here, whatever state the server is in), the server; clean up."""
        self._read_notes()
        note = self.notes.get(request_id)
        child = note[0] if note is not None else None
        if child is not None and _killable(child):
            kill_process_group(child)
            try:
                os.kill(child, signal.SIGKILL)  # not yet its own group leader, perhaps
            except (ProcessLookupError, PermissionError):
                pass
        self._stop(kill=True)

    def _close_notes(self):
        if self.notes_r is not None:
            os.close(self.notes_r)
            self.notes_r = None
        self.notes.clear()

    def reusable(self):
        """True if the server is alive and was never cancelled."""
        with self.state_lock:
            return (not self.cancelled and self.process is not None
                    and self.process.poll() is None)

    def cancel(self):
        """Kill the running program, refuse new ones (callable from any thread)."""
        with self.state_lock:
            self.cancelled = True
            self._close_stdin()

    def _close_stdin(self):
        # The server reads anything on its stdin while a program runs as: kill
        # it, then stop. A byte, not only end of file: a process forked from
        # ours may hold a copy of the pipe's write end, and then no EOF comes.
        process = self.process
        if process is not None and process.stdin and not process.stdin.closed:
            try:
                os.write(process.stdin.fileno(), CANCEL_BYTE)
            except (OSError, ValueError):
                pass
            try:
                process.stdin.close()
            except OSError:
                pass

    def _stop(self, kill=False):
        """Stop the server (at once with *kill*, else given a second), close its pipes, remove its folders."""
        with self.state_lock:
            process, self.process = self.process, None
            base, self.base = self.base, None
        if process is not None:
            for stream in (process.stdin, process.stdout):
                try:
                    stream.close()
                except OSError:
                    pass
            if kill:
                kill_process_tree(process)
            else:
                try:
                    process.wait(timeout=1)
                except subprocess.TimeoutExpired:  # e.g. stopped by a program's helper
                    kill_process_tree(process)
        self._close_notes()
        if base is not None:  # once the server is gone: its folders go with it
            remove_tree(base)

    def close(self):
        """Stop the server (waits for a running program to be cancelled)."""
        self.cancel()
        with self.lock:
            self._stop()


def _killable(pid):
    """True for a pid the caller may kill as a program's: never ourselves, our group or init."""
    return pid > 1 and pid not in (os.getpid(), os.getpgrp())


if __name__ == "__main__":
    sys.exit("run by the executor, not by hand")
