"""Run one Python program in a separate, sandboxed, limited process and name its execution state.

What isolates a program, where the operating system offers it:

* the sandbox (Linux, Landlock; ``sandbox="auto"`` by default, see
  :mod:`reasoneval_mini.sandbox`), applied in the program's own process
  before its first line, for it and everything it starts: it reads only the
  Python installation and the package folder, writes only its own working
  directory, opens no TCP connection (ABI 4) and, on x86_64 and aarch64, no
  socket at all (seccomp), signals no process outside its sandbox (ABI 6)
  and reads no ``/proc/<pid>`` of one; root's capabilities are gone; on
  x86_64 and aarch64 it cannot leave its process group nor change a file's
  mode (seccomp). A child whose sandbox the kernel refuses never runs the program;
* a clean process per program (forked from a pre-warmed worker, or a fresh
  interpreter where ``fork`` is missing), in its own session and process
  group: a timeout kills the whole group, grandchildren included (on
  Linux, those that left the group too);
* resource limits: address space (``memory_mb``, compiling included), CPU
  time (timeout + 1 s), file size (16 MB), open files (64), no core files;
* a new temporary working directory, removed afterwards (on Linux, a file
  system of ``memory_mb`` of its own where the kernel lets the worker mount
  one; the result's ``isolation`` says whether it was); a minimal
  environment (``PATH``, ``LANG``, ``HOME``/``TMPDIR`` = that directory);
  an empty stdin (``/dev/null``);
* stdout and stderr captured in bounded memory (head and tail kept);
* only the program's main process reports (not a process it forks), through
  functions bound before it runs; a timeout or a signal outranks any report;
* answers checked against the caller's own per-request id; a worker that
  dies or stops has its program killed by the caller, its directory removed.

What it does **not** protect against: off x86_64 and aarch64, UDP and Unix
sockets bound to a path (Landlock up to ABI 7 rules TCP and abstract sockets
only: a program can connect to any socket file it can name, a Docker
daemon's included); reading the
Python installation and the package folder (the policy must allow them);
adversarial code that forges its *own* end-of-program report from inside its
main process (it can dig the channel and the nonce out of the runner's
frames); on macOS, a helper that leaves the group with ``setsid`` (it
survives the timeout; on Linux the worker, a subreaper, kills it); fork
bombs and other
exhaustion beyond the per-process limits. Kernels without Landlock (or
before ABI 4 / 6), macOS and Windows run programs with what they have and a
warning: macOS does not enforce ``RLIMIT_AS`` (no memory limit) and Windows
has no resource limits at all. Each result's ``isolation`` says which level
applied.
"""

import sys
import time
import warnings
from dataclasses import dataclass

from reasoneval_mini.runner.child import REPORT_CHANNEL_LOST, REPORT_CHANNEL_LOST_NOTE
from reasoneval_mini.runner.confinement import isolation_to_fields, plan_sandbox
from reasoneval_mini.runner.exceptions import bounded_fields
from reasoneval_mini.runner.limits import FILE_SIZE_LIMIT_MB, OPEN_FILES_LIMIT, cpu_seconds_for
from reasoneval_mini.runner.session import (
    CANCELLED, EXITED, TIMED_OUT, Profile, RunnerLost, SessionStopped, borrow, give_back)
from reasoneval_mini.sandbox import MODES, plan_isolation
from reasoneval_mini.sandbox.policy import UNCAPPED_FOLDER
from reasoneval_mini.records import ASSERTION_FAILED, NOT_RUN, PASSED, RUNTIME_ERROR, TIMEOUT
from reasoneval_mini.support.arguments import ArgumentTypeError, positive_int, positive_seconds
from reasoneval_mini.support.processes import signal_name
from reasoneval_mini.support.text import MESSAGE_CHARS, cut

#: The defaults of ``execute_program`` and ``execute_samples``, written once.
DEFAULT_TIMEOUT_S = 3.0
DEFAULT_MEMORY_MB = 512
OUTPUT_HEAD_BYTES = 2048
OUTPUT_TAIL_BYTES = 2048
MIN_MEMORY_MB = 64
MAX_TIMEOUT_S = 3600.0
#: The filename a program runs as (its tracebacks say ``File "<program>"``).
PROGRAM_FILENAME = "<program>"
#: Modules test programs commonly use, imported once by each warm server.
PRE_IMPORTS = ("typing", "math", "re", "collections", "itertools", "functools",
               "string", "hashlib", "heapq", "bisect", "traceback")
#: The one key of a raw result when the runner itself failed (a one-line reason).
EXECUTOR_ERROR = "executor_error"
#: The keys of a request (built and validated by :func:`build_request`).
REQUEST_KEYS = ("program", "timeout", "memory_mb", "head_bytes", "tail_bytes", "isolation")
#: The keys every raw result of a run carries (see :func:`run_request`).
RESULT_KEYS = ("outcome", "exit_code", "signal", "duration_s", "stdout", "stdout_bytes",
               "stderr", "stderr_bytes", "report")
#: Largest event a program's session may send: its report is a few hundred bytes.
MAX_REPORT_BYTES = 1 << 20


@dataclass(frozen=True)
class ExecutionResult:
    """The state of one run and what explains it.

    ``status`` is one of :data:`~reasoneval_mini.records.STATUSES`;
    ``detail`` says why in one line; ``duration_s`` is wall time;
    ``stdout_tail``/``stderr_tail`` keep the first and last 2 KiB of each
    stream (a marker shows how many bytes were dropped in between);
    ``exit_code`` or ``signal`` say how the process ended (None if unknown);
    ``warnings`` lists isolation the platform could not provide;
    ``isolation`` is the isolation level the program ran under, one line
    that also says whether its working folder was capped at its memory limit
    (``"landlock ABI 7: files, network, signals; working folder capped"``,
    ``"none (sandbox off); working folder NOT capped"``;
    see :class:`~reasoneval_mini.sandbox.Isolation`).

    Build one by keyword (only the first three fields are required); the
    order of fields is not part of the contract, and ``detail`` wording may
    change, so code should branch on ``status``, never on ``detail`` text.

    >>> made_up = ExecutionResult(status=TIMEOUT, detail="for a lesson", duration_s=1.0)
    >>> made_up.stdout_tail, made_up.exit_code, made_up.warnings, made_up.isolation
    ('', None, (), 'not recorded')
    """

    status: str
    detail: str
    duration_s: float
    stdout_tail: str = ""
    stderr_tail: str = ""
    exit_code: object = None
    signal: object = None
    warnings: tuple = ()
    isolation: str = "not recorded"


def execute_program(program, *, timeout=DEFAULT_TIMEOUT_S, memory_mb=DEFAULT_MEMORY_MB,
                    sandbox="auto"):
    """Run *program* (Python source, a ``str``) and return an :class:`ExecutionResult`.

    States: ``passed`` only when the executor's own end-of-program report
    arrives (exit code 0 alone never counts); ``assertion_failed`` when an
    ``AssertionError`` escapes; ``timeout`` after *timeout* seconds of wall
    time (the process group is killed; returns within about timeout + 1 s);
    ``runtime_error`` for everything else: another exception, a syntax error,
    an early exit (``sys.exit``, ``exit()``, ``quit()``, ``os._exit``, any
    code), death by a signal, ``MemoryError`` under *memory_mb*, reading the
    empty stdin. ``not_run`` only if the executor itself failed, or the
    sandbox could not be applied (the program then never ran).

    *sandbox* is one of :data:`~reasoneval_mini.sandbox.MODES`: ``"auto"``
    runs the program inside what the kernel enforces (Landlock on Linux) and
    warns once per session about the rest; ``"required"`` raises
    :class:`~reasoneval_mini.sandbox.SandboxUnavailable`, naming the missing
    kernel feature, before anything runs; ``"off"`` runs it unconfined, with
    a warning. The result's ``isolation`` says which level applied.

    >>> execute_program("assert 1 + 1 == 2").status
    'passed'

    Raises ``ValueError`` for an invalid argument: a *program* that is not a
    ``str``, a *timeout* that is not a number of seconds in (0, 3600], a
    *memory_mb* that is not an ``int`` >= 64, a *sandbox* not in
    :data:`~reasoneval_mini.sandbox.MODES`. A wrong type is raised as
    :class:`~reasoneval_mini.support.arguments.ArgumentTypeError`, which is
    also a ``TypeError``.

    >>> execute_program(1)
    Traceback (most recent call last):
    ...
    reasoneval_mini.support.arguments.ArgumentTypeError: program must be a str of Python source, got 1 (int)

    Surprising: a program that exits with code 0 before its end is not a pass.

    >>> result = execute_program("import sys; sys.exit(0); assert False")
    >>> result.status, result.detail
    ('runtime_error', 'exited before the end of the program: SystemExit(0) ...')
    """
    _check_program(program)  # before planning: a bad call warns about nothing
    isolation = plan_run(sandbox, timeout, memory_mb)
    request = build_request(program, timeout, memory_mb, isolation)
    (runner,) = borrow(profile_for(memory_mb))
    try:
        raw = run_request(runner, request)
    except BaseException:  # e.g. KeyboardInterrupt: the runner ended the session; not kept
        runner.close()
        raise
    finally:
        give_back([runner])
    return classify_run(raw, timeout, memory_mb, isolation)


def profile_for(memory_mb):
    """The :class:`~reasoneval_mini.runner.session.Profile` of the runners of programs limited to *memory_mb*.

    Each program's folder is a file system of its memory limit: files there
    count against no address-space limit, and a runner runs one program at a time.
    """
    return Profile(cap_mb=memory_mb, pre_imports=PRE_IMPORTS)


def run_request(runner, request):
    """Run one program (a :func:`build_request` request) as a session on *runner*; return the raw facts.

    A session of one source and no calls. The raw result is a dict of
    plain values: every key of :data:`RESULT_KEYS` (``outcome`` one of
    :data:`~reasoneval_mini.runner.session.OUTCOMES`; ``exit_code`` and
    ``signal`` as the process ended, None when not so or unknown;
    ``duration_s`` from the job's sending to the end; the head and tail of
    stdout and stderr as text, with their byte counts; ``report``: the
    program's end, as its session said it with the session's nonce, else
    None) plus ``warnings`` (limits the platform refused), ``setup_error``
    (why the child could not be set up: then nothing ran) and
    ``folder_capped``; or only :data:`EXECUTOR_ERROR` when the runner failed
    and the program's fate is unknown. After :meth:`~reasoneval_mini.runner.session.Runner.cancel`:
    ``{"outcome": "cancelled"}``. It does not classify: :func:`classify_run` does.
    """
    setup = {"isolation": request["isolation"], "memory_mb": request["memory_mb"],
             "cpu_seconds": cpu_seconds_for(request["timeout"]),
             "file_size_mb": FILE_SIZE_LIMIT_MB, "open_files": OPEN_FILES_LIMIT}
    job = {"tasks": [{"sources": [[PROGRAM_FILENAME, request["program"]]]}]}
    try:
        session = runner.open(setup, job, output=(request["head_bytes"], request["tail_bytes"]),
                              max_event_bytes=MAX_REPORT_BYTES)
    except SessionStopped:
        return {"outcome": CANCELLED}
    except RunnerLost as error:
        return {EXECUTOR_ERROR: f"the runner failed: {error}"}
    outcome = EXITED
    try:
        # The events are read at the end: a program sends two or three.
        session.wait_exit(session.started + request["timeout"], events=False)
    except SessionStopped as stop:
        outcome = stop.outcome
    except RunnerLost:
        pass  # said by end() below
    finally:
        ended = session.end()
    events = session.kept_events()
    done = any(event.get("event") == "done" for event in events)
    failure = next((event for event in events if event.get("event") == "failed"), None)
    if ended.lost is not None:
        return {EXECUTOR_ERROR: f"the runner failed: {ended.lost}"}
    code = ended.returncode
    report = None
    if done:
        # What the program's process said of its end: untrusted, so bounded like anything it sends.
        report = {**bounded_fields(failure or {}), "completed": failure is None}
    return {
        "outcome": outcome, "duration_s": (session.exited_at or time.monotonic()) - session.started,
        "exit_code": code if code is not None and code >= 0 else None,
        "signal": -code if code is not None and code < 0 else None,
        "stdout": ended.stdout.text(), "stdout_bytes": ended.stdout.total,
        "stderr": ended.stderr.text(), "stderr_bytes": ended.stderr.total,
        "report": report, "warnings": list(session.warnings),
        "setup_error": session.setup_error, "folder_capped": session.folder_capped,
    }


def plan_run(sandbox, timeout, memory_mb, stacklevel=4):
    """Check the run's arguments, plan its sandbox, warn once about weaker isolation.

    Returns the :class:`~reasoneval_mini.sandbox.Isolation` every program of
    the run gets. Raises as :func:`execute_program` says, before anything runs.
    """
    _check_limits(timeout, memory_mb)
    if not isinstance(sandbox, str):
        raise ArgumentTypeError(f"sandbox must be one of {', '.join(map(repr, MODES))}, "
                                f"got {sandbox!r:.80} ({type(sandbox).__name__})")
    isolation = plan_sandbox(sandbox, stacklevel=stacklevel)
    warn_about_platform_once(stacklevel)
    return isolation


def build_request(program, timeout, memory_mb, isolation=None):
    """Validate the arguments as :func:`execute_program` says; return the request :func:`run_request` takes.

    *isolation* is the run's plan (:func:`plan_run`); without one, the
    program is confined as ``"auto"`` would (never less: no warning given).
    """
    _check_program(program)
    timeout = _check_limits(timeout, memory_mb)
    if isolation is None:
        isolation = plan_isolation("auto")
    return {"program": program, "timeout": timeout, "memory_mb": memory_mb,
            "head_bytes": OUTPUT_HEAD_BYTES, "tail_bytes": OUTPUT_TAIL_BYTES,
            "isolation": isolation_to_fields(isolation)}


def _check_program(program):
    if not isinstance(program, str):
        raise ArgumentTypeError(f"program must be a str of Python source, got {program!r:.80} "
                                f"({type(program).__name__})")


def _check_limits(timeout, memory_mb):
    """*timeout* as a float, after checking it and *memory_mb*."""
    timeout = positive_seconds(timeout, "timeout", maximum=MAX_TIMEOUT_S)
    positive_int(memory_mb, "memory_mb", minimum=MIN_MEMORY_MB)
    return timeout


def classify_run(raw, timeout, memory_mb, isolation=None):
    """Turn :func:`run_request`'s raw facts into an :class:`ExecutionResult` (run under *isolation*).

    The isolation line says whether the working folder was capped as the
    runner says it was (the plan, made before anything ran, cannot know).
    """
    status, detail = _state_of(raw, timeout, memory_mb)
    capped = raw.get("folder_capped")
    if isolation is not None and capped is not None:
        isolation = isolation._replace(folder_capped=bool(capped))
    return ExecutionResult(
        status=status, detail=detail, duration_s=round(raw.get("duration_s", 0.0), 6),
        stdout_tail=raw.get("stdout", ""), stderr_tail=raw.get("stderr", ""),
        exit_code=raw.get("exit_code"), signal=raw.get("signal"),
        warnings=tuple(raw.get("warnings", ())) + _platform_warnings()
        # With the sandbox off nothing is capped, by choice: the warning that
        # the kernel refuses the cap is for a run that asked for one.
        + ((UNCAPPED_FOLDER,) if capped is False and isolation is not None
           and isolation.enforced else ()),
        isolation="not recorded" if isolation is None else str(isolation))


def _state_of(raw, timeout, memory_mb):
    if EXECUTOR_ERROR in raw:
        return NOT_RUN, f"executor failure, the program's state is unknown: {raw[EXECUTOR_ERROR]}"
    if raw["outcome"] == CANCELLED:
        return NOT_RUN, "cancelled before the program finished"
    if raw.get("setup_error"):  # written by the child before the program, never by the program
        return NOT_RUN, f"the program did not run: its process could not be set up: {raw['setup_error']}"
    # A timeout or a death by signal outranks any report: the report may come
    # from another process of the program, never from the one that ended so.
    if raw["outcome"] == TIMED_OUT:
        return TIMEOUT, f"still running after {timeout:g} s; its process group was killed"
    if raw.get("signal") is not None:
        return RUNTIME_ERROR, _describe_signal(raw["signal"], timeout)
    report = raw.get("report")
    if report is not None:
        return _state_from_report(report, raw.get("exit_code"), memory_mb)
    if (raw.get("exit_code") == REPORT_CHANNEL_LOST
            and raw.get("stderr", "").endswith(REPORT_CHANNEL_LOST_NOTE)):
        return RUNTIME_ERROR, (
            f"exited with code {REPORT_CHANNEL_LOST}: the program closed or replaced the "
            "executor's report channel (descriptor 3), so its end cannot be confirmed")
    return RUNTIME_ERROR, (
        f"exited with code {raw.get('exit_code')} before the end of the program, without "
        "the executor's end-of-program signal (os._exit() or a crash)")


def _state_from_report(report, exit_code, memory_mb):
    if report.get("completed"):
        if exit_code != 0:  # the runner exits with 0 after a completed report, always
            return RUNTIME_ERROR, (
                f"reported its end but exited with code {exit_code}: "
                "the report cannot be trusted; never a pass")
        return PASSED, "ran to the end without an exception"
    where = f" (line {report['line']})" if report.get("line") else ""
    name, message = report.get("exception", "?"), _one_line(report.get("message", ""))
    if report.get("assertion"):
        text = f"{name}: {message}" if message else f"{name} (no message)"
        return ASSERTION_FAILED, text + where
    if report.get("system_exit"):
        return RUNTIME_ERROR, (
            f"exited before the end of the program: SystemExit({report.get('exit_code')}) "
            f"from sys.exit(), exit(), quit() or raise SystemExit{where}; never a pass")
    hint = {"MemoryError": f" (memory limit {memory_mb} MB)",
            "EOFError": " (the program read input, but stdin is empty)",
            "KeyboardInterrupt": " (raised by the program itself)"}.get(name, "")
    return RUNTIME_ERROR, f"{name}: {message}{hint}{where}" if message else f"{name}{hint}{where}"


def _one_line(message):
    """A multi-line exception message folded into one line, at most 300 characters."""
    # Lines joined by a space (not support.text.shorten's " / "): an exception
    # message wrapped over lines reads as one sentence.
    if "\n" in message:
        message = " ".join(line.strip() for line in message.splitlines() if line.strip())
    return cut(message, MESSAGE_CHARS)


def _describe_signal(number, timeout):
    name = signal_name(number)
    why = {"SIGXCPU": f"; CPU time limit ({cpu_seconds_for(timeout)} s) exceeded",
           "SIGXFSZ": "; file size limit exceeded",
           "SIGSEGV": "; a crash, e.g. a C-level stack overflow"}.get(name, "")
    known = f" ({name})" if name != f"signal {number}" else ""  # not "signal 99 (signal 99)"
    return f"killed by signal {number}{known}{why}"


def warn_about_platform_once(stacklevel=3):
    """Issue one ``RuntimeWarning`` per session where process limits are weaker (not Linux)."""
    if _platform_warnings() and not _WARNED:
        _WARNED.append(True)
        warnings.warn("reasoneval_mini executor: " + "; ".join(_platform_warnings()),
                      RuntimeWarning, stacklevel=stacklevel)


_WARNED = []


def _platform_warnings():
    if sys.platform == "win32":
        return ("Windows: no resource limits and no process group; "
                "timeouts kill the process tree with taskkill",)
    if sys.platform == "darwin":
        return ("macOS does not enforce RLIMIT_AS: no memory limit",)
    return ()
