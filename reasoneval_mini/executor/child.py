"""What runs inside the child process: limits, the program, the end-of-program report.

Private to the executor (see ``execute_program``). Stdlib only at import:
the fork server imports it, and a fresh interpreter (the fallback where
``fork`` is missing, e.g. Windows) runs its :func:`main` on a request file,
which then takes what every child gets (limits, sandbox) from
:mod:`reasoneval_mini.runner`.

The report is the executor's own end-of-program signal: a JSON object carrying
a per-run random nonce, sent on a private channel (an inherited pipe, or a file
whose name the program never sees) after the program's last line ran. An exit
code of 0 without it means the program left early (``os._exit(0)``). Only
the process that started the program sends it (a process the program forks
neither reports nor keeps the channel), and every function on that path is
bound at import, before any program can replace it.
"""

import builtins
import json
import linecache
import os
import sys
import traceback

PROGRAM_FILENAME = "<program>"
MAX_TRACEBACK_FRAMES = 50
#: The exit status of a child whose report could not be sent because the
#: program closed or replaced its report channel (the parent names it).
REPORT_CHANNEL_LOST = 123
#: ... and the last line it writes to stderr (a program's own exit(123) is not taken for it).
REPORT_CHANNEL_LOST_NOTE = ("executor: the program closed or replaced its report channel "
                            "(descriptor 3); its end cannot be confirmed\n")

# Everything the report path calls is bound here, before any program runs: a
# program that replaces os.write, os._exit, os.getpid or json's encoder (to
# mock them in its own tests, or to forge a pass) changes nothing we send.
_getpid, _exit, _write, _fstat, _close, _open = (
    os.getpid, os._exit, os.write, os.fstat, os.close, os.open)
_join, _memoryview = "".join, memoryview
_NOTE_BYTES = REPORT_CHANNEL_LOST_NOTE.encode()
if getattr(json.encoder, "c_make_encoder", None) is not None:
    # The C encoder object, made now: it never looks json's module globals up again.
    _c_encoder = json.encoder.c_make_encoder(
        None, lambda value: "<unencodable>", json.encoder.encode_basestring_ascii, None,
        ": ", ", ", False, True, True)

    def _encode_report(report):
        return _join(_c_encoder(report, 0))
else:  # pragma: no cover - CPython always has the C encoder
    _encode_report = json.JSONEncoder(default=lambda value: "<unencodable>").encode

# The report channel of this run: who may send on it (the program's main
# process) and which open file it is (device and inode, to notice a program
# that closed it or put another file on its descriptor). Set by the runner.
_CHANNEL = {"pid": None, "fd": None, "identity": None}


def _identity(fd):
    """(device, inode) of the open file on *fd*, or None if *fd* is closed."""
    try:
        info = _fstat(fd)
    except OSError:
        return None
    return info.st_dev, info.st_ino


def claim_report_channel(fd=None):
    """Make this process the only one that may report; *fd* is the channel's descriptor, if any."""
    _CHANNEL.update(pid=_getpid(), fd=fd, identity=None if fd is None else _identity(fd))


def _close_channel_in_forked_child():
    # A process the program forks must not hold the channel, let alone report
    # on it; closed only if the descriptor still holds our channel (the
    # program may have put one of its own files there).
    fd = _CHANNEL["fd"]
    if fd is not None and _CHANNEL["pid"] != _getpid() and _identity(fd) == _CHANNEL["identity"]:
        try:
            _close(fd)
        except OSError:
            pass


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_close_channel_in_forked_child)


def send_on_channel(data):
    """Send the report on the claimed descriptor; exit with :data:`REPORT_CHANNEL_LOST` if it is gone."""
    fd = _CHANNEL["fd"]
    if _identity(fd) != _CHANNEL["identity"]:
        _report_channel_lost()
    view = _memoryview(data)
    while view:
        try:
            written = _write(fd, view)
        except OSError:
            _report_channel_lost()
        if not written:
            _report_channel_lost()
        view = view[written:]


def _report_channel_lost():
    try:
        _write(2, _NOTE_BYTES)
    except OSError:
        pass
    _exit(REPORT_CHANNEL_LOST)


def program_facts(error, describe_exception):
    """The facts the parent needs to classify an exception that ended the program, as plain JSON values.

    *describe_exception* is :func:`reasoneval_mini.runner.exceptions.describe_exception`
    (bound before the program ran), whose fields come with ``completed``
    (False) and ``line`` (the program's last line in the traceback, or a
    ``SyntaxError``'s line; None if none).
    """
    facts = {"completed": False, **describe_exception(error), "line": None}
    try:
        line = getattr(error, "lineno", None) if isinstance(error, SyntaxError) else None
        frame = error.__traceback__
        while frame is not None:
            if frame.tb_frame.f_code.co_filename == PROGRAM_FILENAME:
                line = frame.tb_lineno
            frame = frame.tb_next
        facts["line"] = line if isinstance(line, int) else None
    except BaseException:  # noqa: B036 - a hostile exception must not stop the report
        pass
    return facts


def print_bounded_traceback(error):
    """Print the traceback to stderr, without our own frame, and only its last frames.

    A runaway recursion can leave millions of frames; formatting them all
    would outlast any timeout.
    """
    try:
        tb = error.__traceback__.tb_next  # skip run_program's own frame
        depth, node = 0, tb
        while node is not None:
            depth, node = depth + 1, node.tb_next
        if depth > MAX_TRACEBACK_FRAMES:
            for _ in range(depth - MAX_TRACEBACK_FRAMES):
                tb = tb.tb_next
            print(f"[... {depth - MAX_TRACEBACK_FRAMES} outer frames omitted ...]",
                  file=sys.stderr)
        traceback.print_exception(type(error), error, tb,
                                  chain=depth <= MAX_TRACEBACK_FRAMES)
    except BaseException:  # e.g. MemoryError while formatting: the report matters more
        pass


def compile_program(source):
    """Compile *source*; register its lines so tracebacks can show them.

    Raises what ``compile`` raises (``SyntaxError``, ``ValueError`` for NUL bytes).
    """
    linecache.cache[PROGRAM_FILENAME] = (
        len(source), None, source.splitlines(True), PROGRAM_FILENAME)
    return compile(source, PROGRAM_FILENAME, "exec", dont_inherit=True)


def exit_status_of(error):
    """The exit status ``python program.py`` would end with after *error* escaped.

    ``SystemExit`` follows CPython's rules (None -> 0, an int -> that int,
    anything else -> 1); every other exception gives 1. The status is a fact
    for the record only: the state never depends on it.

    >>> exit_status_of(SystemExit()), exit_status_of(SystemExit(3)), exit_status_of(SystemExit("bye"))
    (0, 3, 1)
    >>> exit_status_of(AssertionError())
    1
    """
    try:
        if isinstance(error, SystemExit):
            if error.code is None:
                return 0
            if isinstance(error.code, int) and not isinstance(error.code, bool):
                return int(error.code) & 0xFF
            return 1
    except BaseException:  # noqa: B036 - a hostile code object: Python would say 1
        return 1
    return 1


def run_program(source, send_report, nonce, warnings=()):
    """Compile and run *source* as ``__main__``, print any traceback, send the report.

    Compiling here, after the limits, holds the compiler to the program's
    memory limit. (A fork server that compiled before forking saved the
    child a few copied pages but cost itself more in all: compiling there
    made each fork slower.) *send_report* is called once with the report as
    ``bytes``, and only in the process that called this function: a process
    the program forked that reaches the end of the program sends nothing.
    Returns the exit status the process should end with, as plain Python
    would (see :func:`exit_status_of`).
    """
    # Bound before the program runs; imported with the runner by then, in both ways a child starts.
    from reasoneval_mini.runner.exceptions import describe_exception

    main_pid = _getpid()
    completed, facts, status = False, {}, 0
    try:
        exec(compile_program(source), {"__name__": "__main__", "__builtins__": builtins})
    except BaseException as error:  # noqa: B036 - every exit path is a fact to report
        facts = program_facts(error, describe_exception)
        print_bounded_traceback(error)
        status = exit_status_of(error)
    else:
        completed = True
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:  # noqa: B036
            pass
    if _getpid() != main_pid:
        return status
    # Built last, as a new dict, from a local flag: whatever the program's
    # objects did while their traceback printed or their streams flushed.
    report = {**facts, "nonce": nonce, "warnings": [*warnings], "completed": completed}
    send_report(_encode_report(report).encode())
    return status


def main(request_path):
    """The fresh interpreter's life (started by :func:`~reasoneval_mini.runner.start.start_child`): read and delete the request, confine, then run.

    The report and setup files sit in a private folder outside the sandbox:
    both are opened before confining. The setup file is closed before the
    program runs; a refused sandbox is written there and the program never runs.
    """
    from reasoneval_mini.runner.confinement import (
        fail_setup, isolation_from_fields, limit_and_confine)
    from reasoneval_mini.runner.limits import FILE_SIZE_LIMIT_MB, OPEN_FILES_LIMIT, cpu_seconds_for

    with open(request_path, encoding="utf-8") as handle:
        request = json.load(handle)
    os.remove(request_path)  # the nonce is not left lying around for the program
    sys.argv = [""]
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC
    report_fd = _open(request["report_path"], flags, 0o600)
    setup_fd = _open(request["setup_path"], flags, 0o600)
    try:
        warnings = limit_and_confine(
            isolation_from_fields(request["isolation"]), os.getcwd(),
            memory_mb=request["memory_mb"], cpu_seconds=cpu_seconds_for(request["timeout"]),
            file_size_mb=FILE_SIZE_LIMIT_MB, open_files=OPEN_FILES_LIMIT)
    except BaseException as error:  # noqa: B036 - nothing of the program may run now
        fail_setup(setup_fd, error)
    _close(setup_fd)
    claim_report_channel(report_fd)
    status = run_program(request["program"], send_on_channel, request["nonce"], warnings)
    _exit(status)  # skip the program's atexit handlers and lingering threads

