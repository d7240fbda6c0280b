"""The fork server: a pre-warmed worker process that forks one clean child per program.

Private to the executor. Started once per worker as ``python -I -c ...`` by
``execute_program``; it imports this file by path (stdlib only, no package
import), pre-imports modules that test programs commonly use, and then serves
requests read from its stdin, one at a time, answering on its stdout (framed
as ``_messages`` says).

Why a server: a fresh interpreter costs about 15-30 ms, a fork about 2 ms.
The server itself is single-threaded, so forking it is safe (forking a
multi-threaded Jupyter kernel would not be).

Per request, the child gets: its own session and process group (a timeout
kills the whole group), resource limits, a new temporary working directory
(removed afterwards), a minimal environment, ``/dev/null`` as stdin, pipes
for stdout and stderr (read here, keeping head and tail), and a private pipe
on fd 3 for the end-of-program report. Closing the server's stdin while a
program runs cancels it (its group is killed) and then stops the server.
"""

import gc
import linecache
import os
import secrets
import select
import shutil
import signal
import sys
import tempfile
import time

try:
    from ._child import PROGRAM_FILENAME, apply_limits, compile_program, run_program
    from ._messages import MAX_REPORT_BYTES, parse_report, read_message, write_all, write_message
    from .capture_output import HeadTailBuffer
except ImportError:  # loaded by path in the server process, outside the package
    from _child import PROGRAM_FILENAME, apply_limits, compile_program, run_program
    from _messages import MAX_REPORT_BYTES, parse_report, read_message, write_all, write_message
    from capture_output import HeadTailBuffer

REPORT_FD = 3
DRAIN_SECONDS = 0.5  # how long to wait for output still held by an escaped grandchild
PARENT_CHECK_SECONDS = 1.0  # how often an idle or waiting server checks its parent is alive
_PARENT = {"pid": None}
PRE_IMPORTS = ("typing", "math", "re", "collections", "itertools", "functools",
               "string", "hashlib", "heapq", "bisect", "traceback")


def _child_main(request, code, workdir, out_w, err_w, report_w, nonce):
    """In the forked child: isolate, limit, run, report, exit. Never returns."""
    try:
        os.setsid()
        os.chdir(workdir)
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        os.dup2(out_w, 1)
        os.dup2(err_w, 2)
        os.dup2(report_w, REPORT_FD)
        os.closerange(REPORT_FD + 1, os.sysconf("SC_OPEN_MAX"))
        warnings = apply_limits(request["timeout"], request["memory_mb"])
        run_program(request["program"], lambda data: write_all(REPORT_FD, data),
                    nonce, warnings, code)
        os._exit(0)
    except BaseException as error:
        try:
            os.write(2, f"executor child setup failed: {error!r}\n".encode())
        finally:
            os._exit(70)


def _supervise(pid, streams, report_r, deadline):
    """Collect output and wait for the child, the deadline, or a cancel.

    A cancel is anything readable on stdin (the parent writes a byte, then
    closes it), or the parent's death.
    """
    pidfd = os.pidfd_open(pid) if hasattr(os, "pidfd_open") else None
    report = bytearray()
    buffers = dict(streams)
    buffers[report_r] = None
    outcome = status = None
    while outcome is None:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            outcome = "timed_out"
            break
        watched = list(buffers) + [0] + ([pidfd] if pidfd is not None else [])
        wait = min(remaining, PARENT_CHECK_SECONDS) if pidfd is not None else min(remaining, 0.002)
        ready = select.select(watched, [], [], wait)[0]
        _read_ready(ready, buffers, report)
        if 0 in ready or _orphaned():
            outcome = "cancelled"
        elif pidfd is not None:
            outcome = "exited" if pidfd in ready else None
        else:
            exited, status = _peek_exit(pid)
            outcome = "exited" if exited else None
    # Kill the group while the leader is still unreaped, so its id cannot be reused.
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    if status is None:
        status = os.waitpid(pid, 0)[1]
    if pidfd is not None:
        os.close(pidfd)
    drain_deadline = time.monotonic() + DRAIN_SECONDS
    while buffers and time.monotonic() < drain_deadline:
        ready = select.select(list(buffers), [], [], drain_deadline - time.monotonic())[0]
        _read_ready(ready, buffers, report)
    for fd in list(buffers):
        del buffers[fd]
        os.close(fd)
    return outcome, status, bytes(report)


def _read_ready(ready, buffers, report):
    for fd in ready:
        if fd not in buffers:
            continue
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            del buffers[fd]
            os.close(fd)
        elif buffers[fd] is None:
            if len(report) < MAX_REPORT_BYTES:
                report += chunk
        else:
            buffers[fd].feed(chunk)


def _orphaned():
    """True once the parent that started this server has gone (False outside serve())."""
    return _PARENT["pid"] is not None and os.getppid() != _PARENT["pid"]


def _next_request():
    """The next request, or None when stdin closes or the parent has gone.

    End of file alone is not enough: a process forked from the parent without
    exec (multiprocessing, for one) may hold a copy of our stdin's write end.
    """
    while not select.select([0], [], [], PARENT_CHECK_SECONDS)[0]:
        if _orphaned():
            return None
    return read_message(0)


def _peek_exit(pid):
    """(exited, status) for *pid*, the polling fallback where pidfd is missing.

    Peeks without reaping where ``waitid(WNOWAIT)`` exists (status None: the
    caller reaps after killing the group); else reaps with ``waitpid``.
    """
    if hasattr(os, "waitid") and hasattr(os, "WNOWAIT"):
        info = os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
        return info is not None, None
    reaped, status = os.waitpid(pid, os.WNOHANG)
    return reaped != 0, (status if reaped else None)


def run_request(request):
    """Run one program in a forked child; return the raw facts as a dict."""
    workdir = tempfile.mkdtemp(prefix="reasoneval-run-", dir=request["tempdir"])
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    report_r, report_w = os.pipe()
    nonce = secrets.token_hex(16)
    try:
        code = compile_program(request["program"])
    except (SyntaxError, ValueError):
        code = None  # the child compiles again, and reports the error itself
    # The server's own environment is already minimal (set by the parent);
    # setting these here, in the warm server, is cheaper than in each child.
    os.environ.update(HOME=workdir, TMPDIR=workdir)
    started = time.monotonic()
    try:
        pid = os.fork()
    except OSError:  # e.g. EAGAIN: too many processes; tidy up, let serve() report it
        for fd in (out_r, out_w, err_r, err_w, report_r, report_w):
            os.close(fd)
        remove_tree(workdir)
        raise
    if pid == 0:
        _child_main(request, code, workdir, out_w, err_w, report_w, nonce)
    del code
    linecache.cache.pop(PROGRAM_FILENAME, None)
    for fd in (out_w, err_w, report_w):
        os.close(fd)
    stdout = HeadTailBuffer(request["head_bytes"], request["tail_bytes"])
    stderr = HeadTailBuffer(request["head_bytes"], request["tail_bytes"])
    outcome, status, report = _supervise(
        pid, {out_r: stdout, err_r: stderr}, report_r, started + request["timeout"])
    duration = time.monotonic() - started
    remove_tree(workdir)
    return {
        "outcome": outcome,
        "exit_code": os.WEXITSTATUS(status) if os.WIFEXITED(status) else None,
        "signal": os.WTERMSIG(status) if os.WIFSIGNALED(status) else None,
        "duration_s": duration,
        "stdout": stdout.text(), "stdout_bytes": stdout.total,
        "stderr": stderr.text(), "stderr_bytes": stderr.total,
        "report": parse_report(report, nonce),
        "workdir_left": os.path.exists(workdir),
    }


def remove_tree(path):
    """Remove *path*, even where the program took away its own permissions."""
    shutil.rmtree(path, ignore_errors=True)
    if os.path.exists(path):
        for root, dirs, _ in os.walk(path):
            for name in dirs:
                try:
                    os.chmod(os.path.join(root, name), 0o700)
                except OSError:
                    pass
        shutil.rmtree(path, ignore_errors=True)


def serve():
    """Answer requests from stdin until it closes."""
    # No SIGINT handling here: the server runs in its own session, so a Ctrl-C
    # in a terminal or a notebook's interrupt never reaches it or its children,
    # and the children keep Python's default (KeyboardInterrupt) handler.
    for name in PRE_IMPORTS:
        __import__(name)
    # Move every object so far out of the collector's reach: a collection in a
    # child would otherwise write to all of them, copying every shared page.
    gc.collect()
    gc.freeze()
    _PARENT["pid"] = os.getppid()
    while True:
        try:
            request = _next_request()
        except ValueError:  # a torn message (a cancel mid-request): the parent is done
            return
        if request is None:
            return
        try:
            answer = run_request(request)
        except Exception as error:  # report, do not die: the parent records it
            answer = {"executor_error": f"{type(error).__name__}: {error}"}
        try:
            write_message(1, answer)
        except OSError:  # the parent has gone (e.g. it was interrupted): stop quietly
            return
        if answer.get("outcome") == "cancelled":
            return


if __name__ == "__main__":
    sys.exit("run by the executor, not by hand")
