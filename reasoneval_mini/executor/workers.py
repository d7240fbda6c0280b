"""Parent-side handles on the processes that run programs (private to the executor).

Two kinds, with the same interface ``run(request) -> raw facts``,
``cancel()`` and ``close()``:

* :class:`ForkServerWorker` (POSIX): talks to one ``fork_server`` process,
  which forks a clean child per program. Fast (a fork per program).
* :class:`FreshInterpreterWorker` (everywhere, the fallback where ``fork`` is
  missing, e.g. Windows): a fresh ``python -I child.py`` per program.

The raw facts are a dict with ``outcome`` (``exited``, ``timed_out`` or
``cancelled``), ``exit_code``, ``signal``, ``duration_s``, ``stdout``,
``stderr``, their byte counts, and ``report`` (the child's end-of-program
report, or None); or ``executor_error`` when the machinery itself failed.
"""

import atexit
import os
import select
import subprocess
import sys
import tempfile
import threading

from reasoneval_mini.support.messages import CANCEL_BYTE, read_message, write_message
from reasoneval_mini.executor.fresh_interpreter import FreshInterpreterWorker

# The folder that holds the package: ``python -I`` ignores PYTHONPATH, and an
# instructor may run the course from a checkout that is not installed.
PACKAGE_PARENT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SERVER_BOOT = (
    "import sys; sys.path.insert(0, {dir!r}); "
    "from reasoneval_mini.executor import fork_server; "
    "del sys.path[0]; fork_server.serve()"
)
#: What a child sees in os.environ (plus HOME and TMPDIR, set to its working directory).
MINIMAL_ENV = {"PATH": os.defpath, "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8"}
GUARD_SECONDS = 5.0  # extra wait for the server before declaring it broken

__all__ = ["ForkServerWorker", "FreshInterpreterWorker", "borrow_workers", "make_worker",
           "return_workers", "MINIMAL_ENV"]


_IDLE = []  # warm workers kept between calls: a fork server takes ~30-60 ms to start
_IDLE_LOCK = threading.Lock()
MAX_IDLE = 2 * (os.cpu_count() or 1)


def borrow_workers(count, fresh_interpreter=False):
    """*count* workers, warm ones first; give them back with :func:`return_workers`."""
    kind = FreshInterpreterWorker if fresh_interpreter or not hasattr(os, "fork") else ForkServerWorker
    borrowed = []
    with _IDLE_LOCK:
        for worker in list(_IDLE):
            if len(borrowed) < count and isinstance(worker, kind):
                _IDLE.remove(worker)
                borrowed.append(worker)
    while len(borrowed) < count:
        borrowed.append(make_worker(fresh_interpreter))
    return borrowed


def return_workers(workers):
    """Keep reusable workers warm for the next call; close the others."""
    for worker in workers:
        with _IDLE_LOCK:
            keep = worker.reusable() and len(_IDLE) < MAX_IDLE
            if keep:
                _IDLE.append(worker)
        if not keep:
            worker.close()


@atexit.register
def _close_idle_workers():
    with _IDLE_LOCK:
        idle = list(_IDLE)
        _IDLE.clear()
    for worker in idle:
        worker.close()


def working_directory_base():
    """Where per-program working directories go: RAM-backed /dev/shm on Linux.

    Creating and removing a directory there costs microseconds; on a disk it
    can cost milliseconds, which would dominate a fast program's run.
    """
    shm = "/dev/shm"
    if sys.platform.startswith("linux") and os.path.isdir(shm) and os.access(shm, os.W_OK | os.X_OK):
        return shm
    return tempfile.gettempdir()


def make_worker(fresh_interpreter=False):
    """A fork-server worker where ``os.fork`` exists, else a fresh-interpreter one."""
    if fresh_interpreter or not hasattr(os, "fork"):
        return FreshInterpreterWorker(MINIMAL_ENV)
    return ForkServerWorker()


class ForkServerWorker:
    """One fork-server process; runs one program at a time."""

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
                    return {"outcome": "cancelled"}
                if self.process is None or self.process.poll() is not None:
                    self._start()
            try:
                write_message(self.process.stdin.fileno(), request)
                answer = self._read_answer(request["timeout"] + GUARD_SECONDS)
            except (OSError, ValueError) as error:
                answer = {"executor_error": f"fork server failed: {error}"}
            except BaseException:  # e.g. KeyboardInterrupt: kill the program, then re-raise
                self._close_stdin()
                self._stop()
                raise
            if answer is None:
                answer = {"executor_error": "fork server stopped without an answer"}
            if "outcome" not in answer or answer["outcome"] == "cancelled":
                self._stop()
            return answer

    def _read_answer(self, wait_s):
        fd = self.process.stdout.fileno()
        if not _wait_readable(fd, wait_s):
            return {"executor_error": f"fork server silent for {wait_s:g} s"}
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
