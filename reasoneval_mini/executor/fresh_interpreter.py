"""The portable fallback worker: a fresh interpreter per program (private).

Used where ``os.fork`` is missing (Windows) or when asked for. Slower than the
fork server (an interpreter start per program, about 15-30 ms) but it runs
anywhere. The child applies its own resource limits (none on Windows); the
end-of-program report goes to a file in a private directory whose name the
program is never given, opened before the child confines itself (the sandbox
leaves that directory out).
"""

import json
import os
import secrets
import subprocess
import tempfile
import threading
import time

from reasoneval_mini.executor.output_buffer import HeadTailBuffer
from reasoneval_mini.executor.watch_child import DRAIN_SECONDS
from reasoneval_mini.executor.workers import (
    CANCELLED,
    EXITED,
    TIMED_OUT,
    Worker,
)
from reasoneval_mini.runner.confinement import read_setup_note
from reasoneval_mini.runner.deadlines import EXIT_POLL_SECONDS
from reasoneval_mini.runner.start import start_child
from reasoneval_mini.runner.workdir import make_workdir, remove_tree
from reasoneval_mini.support.messages import MAX_REPORT_BYTES, parse_report
from reasoneval_mini.support.processes import kill_process_tree



class FreshInterpreterWorker(Worker):
    """Runs each program in a new interpreter; one program at a time (see :class:`Worker`)."""

    def __init__(self):
        self.cancelled = threading.Event()

    def run(self, request):
        if self.cancelled.is_set():
            return {"outcome": CANCELLED}
        private = tempfile.mkdtemp(prefix="reasoneval-private-")
        workdir = make_workdir(tempfile.gettempdir())
        try:
            return self._run_in(request, private, workdir)
        finally:
            remove_tree(private)
            remove_tree(workdir)

    def _run_in(self, request, private, workdir):
        nonce = secrets.token_hex(16)
        report_path = os.path.join(private, "report.json")
        setup_path = os.path.join(private, "setup.txt")
        started = time.monotonic()
        process = self._spawn(request, private, workdir, nonce, report_path, setup_path)
        buffers = [HeadTailBuffer(request["head_bytes"], request["tail_bytes"]) for _ in "oe"]
        readers = [threading.Thread(target=_pump, args=(stream, buffer), daemon=True)
                   for stream, buffer in zip((process.stdout, process.stderr), buffers)]
        for reader in readers:
            reader.start()
        try:
            outcome = self._wait(process, started + request["timeout"])
        except BaseException:  # e.g. KeyboardInterrupt: leave nothing running
            kill_process_tree(process)
            raise
        duration = time.monotonic() - started
        kill_process_tree(process)
        for reader in readers:
            reader.join(DRAIN_SECONDS)
        returncode = process.returncode
        return {
            "outcome": outcome,
            "exit_code": returncode if returncode is not None and returncode >= 0 else None,
            "signal": -returncode if returncode is not None and returncode < 0 else None,
            "duration_s": duration,
            "stdout": buffers[0].text(), "stdout_bytes": buffers[0].total,
            "stderr": buffers[1].text(), "stderr_bytes": buffers[1].total,
            "report": parse_report(_read_report(report_path), nonce),
            "folder_capped": False,  # a plain temporary folder: no file system of its own
            "setup_error": read_setup_note(_read_report(setup_path)),
        }

    def _spawn(self, request, private, workdir, nonce, report_path, setup_path):
        """Start :func:`~reasoneval_mini.executor.child.main` on a request file in the private directory."""
        request_path = os.path.join(private, "request.json")
        with open(request_path, "w", encoding="utf-8") as handle:
            json.dump({"program": request["program"], "timeout": request["timeout"],
                       "memory_mb": request["memory_mb"], "nonce": nonce,
                       "isolation": request["isolation"], "report_path": report_path,
                       "setup_path": setup_path}, handle)
        return start_child("reasoneval_mini.executor.child", "main", (request_path,),
                           workdir=workdir, cwd=workdir, stdin=subprocess.DEVNULL,
                           stderr=subprocess.PIPE)

    def _wait(self, process, deadline):
        while True:
            if self.cancelled.is_set():
                return CANCELLED
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return TIMED_OUT
            try:
                process.wait(min(remaining, EXIT_POLL_SECONDS))
                return EXITED
            except subprocess.TimeoutExpired:
                pass

    def reusable(self):
        return False  # nothing warm to keep: each program gets a new interpreter anyway

    def cancel(self):
        self.cancelled.set()

    def close(self):
        self.cancel()


def _pump(stream, buffer):
    while True:
        chunk = stream.read(1 << 16)  # an unbuffered pipe: what one read gives
        if not chunk:
            stream.close()
            return
        buffer.feed(chunk)


def _read_report(path):
    try:
        with open(path, "rb") as handle:
            return handle.read(MAX_REPORT_BYTES)
    except OSError:
        return b""

