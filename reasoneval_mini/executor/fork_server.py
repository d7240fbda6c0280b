"""The fork server: a pre-warmed worker process that forks one clean child per program.

Private to the executor. Started once per worker as ``python -I -c ...`` by
``execute_program``; it imports the package from the folder the caller's copy
lives in, pre-imports modules that test programs commonly use, and then serves
requests read from its stdin, one at a time, answering on its stdout (framed
as :mod:`reasoneval_mini.support.messages` says).

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
import sys
import tempfile
import time

from reasoneval_mini.executor.child import (
    PROGRAM_FILENAME,
    apply_limits,
    compile_program,
    run_program,
)
from reasoneval_mini.executor.output_buffer import HeadTailBuffer
from reasoneval_mini.executor.watch_child import PARENT_CHECK_SECONDS, parent_gone, watch_child
from reasoneval_mini.support.messages import parse_report, read_message, write_all, write_message

REPORT_FD = 3
_PARENT = {"pid": None}  # the process that started this server, set by serve()
PRE_IMPORTS = ("typing", "math", "re", "collections", "itertools", "functools",
               "string", "hashlib", "heapq", "bisect", "traceback")


def _max_fd():
    """One past the highest possible descriptor (sysconf may say -1: unlimited)."""
    try:
        limit = os.sysconf("SC_OPEN_MAX")
    except (OSError, ValueError):
        limit = -1
    return limit if limit > 0 else 65536


def _child_main(request, code, workdir, out_w, err_w, report_w, nonce):
    """In the forked child: isolate, limit, run, report, exit. Never returns."""
    try:
        os.setsid()
        os.chdir(workdir)
        # Here, not in the server: the server's os.environ must stay as it was
        # (run_request also runs in-process, in tests).
        os.environ.update(HOME=workdir, TMPDIR=workdir)
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        os.dup2(out_w, 1)
        os.dup2(err_w, 2)
        os.dup2(report_w, REPORT_FD)
        os.closerange(REPORT_FD + 1, _max_fd())
        warnings = apply_limits(request["timeout"], request["memory_mb"])
        status = run_program(request["program"], lambda data: write_all(REPORT_FD, data),
                             nonce, warnings, code)
        os._exit(status)
    except BaseException as error:
        try:
            os.write(2, f"executor child setup failed: {error!r}\n".encode())
        finally:
            os._exit(70)


def run_request(request):
    """Run one program in a forked child; return the raw facts as a dict."""
    workdir = tempfile.mkdtemp(prefix="reasoneval-run-", dir=request["tempdir"])
    nonce = secrets.token_hex(16)
    started = time.monotonic()
    try:
        pid, out_r, err_r, report_r = _fork_child(request, workdir, nonce)
    except BaseException:
        remove_tree(workdir)
        raise
    stdout = HeadTailBuffer(request["head_bytes"], request["tail_bytes"])
    stderr = HeadTailBuffer(request["head_bytes"], request["tail_bytes"])
    outcome, status, report = watch_child(
        pid, {out_r: stdout, err_r: stderr}, report_r, started + request["timeout"],
        _PARENT["pid"])
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


def _fork_child(request, workdir, nonce):
    """Fork the child for *request*; return its pid and the read ends of its pipes."""
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    report_r, report_w = os.pipe()
    try:
        code = compile_program(request["program"])
    except Exception:  # noqa: BLE001 - SyntaxError, or MemoryError/RecursionError
        # from a pathological program: the child compiles again, under its
        # limits, and reports the error itself as the program's own.
        code = None
    try:
        pid = os.fork()
    except OSError:  # e.g. EAGAIN: too many processes; tidy up, let serve() report it
        for fd in (out_r, out_w, err_r, err_w, report_r, report_w):
            os.close(fd)
        raise
    if pid == 0:
        _child_main(request, code, workdir, out_w, err_w, report_w, nonce)
    linecache.cache.pop(PROGRAM_FILENAME, None)
    for fd in (out_w, err_w, report_w):
        os.close(fd)
    return pid, out_r, err_r, report_r


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


def _next_request():
    """The next request, or None when stdin closes or the parent has gone.

    End of file alone is not enough: a process forked from the parent without
    exec (multiprocessing, for one) may hold a copy of our stdin's write end.
    """
    while not select.select([0], [], [], PARENT_CHECK_SECONDS)[0]:
        if parent_gone(_PARENT["pid"]):
            return None
    return read_message(0)


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
