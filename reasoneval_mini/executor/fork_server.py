"""The fork server: a pre-warmed worker process that forks one clean child per program.

Private to the executor. Both ends live here: :class:`ForkServerWorker`, the
parent's handle (a :class:`~reasoneval_mini.executor.workers.Worker`), and
:func:`serve`, the server. The handle starts the server as
``python -I -c ...``; the server imports the package from the folder the
caller's copy lives in, pre-imports modules that test programs commonly use, and then serves
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
import subprocess
import sys
import tempfile
import threading
import time

from reasoneval_mini.executor.child import (
    PROGRAM_FILENAME,
    apply_limits,
    compile_program,
    run_program,
)
from reasoneval_mini.executor.output_buffer import HeadTailBuffer
from reasoneval_mini.executor.watch_child import PARENT_CHECK_SECONDS, parent_gone, watch_child
from reasoneval_mini.executor.workers import (
    CANCELLED,
    EXECUTOR_ERROR,
    MINIMAL_ENV,
    Worker,
    remove_tree,
    working_directory_base,
)
from reasoneval_mini.support.messages import (
    CANCEL_BYTE,
    parse_report,
    read_message,
    write_all,
    write_message,
)

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
            answer = {EXECUTOR_ERROR: f"{type(error).__name__}: {error}"}
        try:
            write_message(1, answer)
        except OSError:  # the parent has gone (e.g. it was interrupted): stop quietly
            return
        if answer.get("outcome") == CANCELLED:
            return


# --- The parent's side: a handle on one server -------------------------------

# The folder that holds the package: ``python -I`` ignores PYTHONPATH, and an
# instructor may run the course from a checkout that is not installed.
PACKAGE_PARENT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SERVER_BOOT = (
    "import sys; sys.path.insert(0, {dir!r}); "
    "from reasoneval_mini.executor import fork_server; "
    "del sys.path[0]; fork_server.serve()"
)
GUARD_SECONDS = 5.0  # extra wait for the server before declaring it broken


class ForkServerWorker(Worker):
    """One fork-server process; runs one program at a time (see :class:`Worker`)."""

    def __init__(self):
        self.process = None
        self.lock = threading.Lock()  # one program at a time
        self.state_lock = threading.Lock()  # guards process and cancelled against cancel()
        self.cancelled = False

    def _start(self):
        self.process = subprocess.Popen(
            [sys.executable, "-I", "-X", "utf8", "-c", SERVER_BOOT.format(dir=PACKAGE_PARENT)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=dict(MINIMAL_ENV),
            start_new_session=True,  # a Ctrl-C in the terminal must not reach it
            close_fds=True,
        )

    def run(self, request):
        request = dict(request, tempdir=working_directory_base())
        with self.lock:
            with self.state_lock:
                if self.cancelled:
                    return {"outcome": CANCELLED}
                if self.process is None or self.process.poll() is not None:
                    self._start()
            try:
                write_message(self.process.stdin.fileno(), request)
                answer = self._read_answer(request["timeout"] + GUARD_SECONDS)
            except (OSError, ValueError) as error:
                answer = {EXECUTOR_ERROR: f"fork server failed: {error}"}
            except BaseException:  # e.g. KeyboardInterrupt: kill the program, then re-raise
                self._close_stdin()
                self._stop()
                raise
            if answer is None:
                answer = {EXECUTOR_ERROR: "fork server stopped without an answer"}
            if "outcome" not in answer or answer["outcome"] == CANCELLED:
                self._stop()
            return answer

    def _read_answer(self, wait_s):
        fd = self.process.stdout.fileno()
        if not _wait_readable(fd, wait_s):
            return {EXECUTOR_ERROR: f"fork server silent for {wait_s:g} s"}
        return read_message(fd)

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

    def _stop(self):
        with self.state_lock:
            process, self.process = self.process, None
        if process is None:
            return
        for stream in (process.stdin, process.stdout):
            try:
                stream.close()
            except OSError:
                pass
        try:
            process.wait(timeout=2)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()

    def close(self):
        """Stop the server (waits for a running program to be cancelled)."""
        self.cancel()
        with self.lock:
            self._stop()


def _wait_readable(fd, wait_s):
    """True once *fd* can be read; poll() where it exists (select() fails above fd 1023)."""
    if hasattr(select, "poll"):
        poller = select.poll()
        poller.register(fd, select.POLLIN)
        return bool(poller.poll(wait_s * 1000))
    return bool(select.select([fd], [], [], wait_s)[0])


if __name__ == "__main__":
    sys.exit("run by the executor, not by hand")
