"""execute_program on a battery of small hostile and clumsy programs, run for real.

Each test runs a real program in a real child process and checks the state
against what the program is known to do (written by hand, not by the code).
"""

import dataclasses
import json
import os
import re
import subprocess
import sys
import textwrap
import time

import pytest
from process_checks import assert_gone_soon

from reasoneval_mini import (
    ASSERTION_FAILED,
    NOT_RUN,
    PASSED,
    RUNTIME_ERROR,
    STATUSES,
    TIMEOUT,
    ExecutionResult,
    execute_program,
)
from reasoneval_mini.executor import program as program_module
from reasoneval_mini.support.arguments import ArgumentTypeError

posix_only = pytest.mark.skipif(os.name != "posix", reason="POSIX process groups and limits")
linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="needs /proc")
SHORT = 1.0  # seconds; keeps the suite fast
# The contract is "returns within about timeout + 1 s"; the extra half second
# keeps the check honest but not flaky on a loaded 2-core machine.
RETURN_SLACK = 1.5

ADD = "def add(a, b):\n    return a + b\n"


def run(source, **options):
    return execute_program(textwrap.dedent(source), **options)


def test_a_correct_program_passes():
    result = run(ADD + "assert add(2, 3) == 5\nprint('done')\n")
    assert (result.status, result.stdout_tail) == (PASSED, "done\n")


@pytest.mark.parametrize("source, words", [
    ("def add(a, b):\n    return a - b\nassert add(2, 3) == 5\n", "line 3"),
    ("assert 1 == 2, 'one is not two'", "one is not two"),
    ("assert False", "no message"),
], ids=["wrong-answer", "with-message", "without-message"])
def test_an_escaped_assertion_is_an_assertion_failure_explained_in_the_detail(source, words):
    result = run(source)
    assert result.status == ASSERTION_FAILED
    assert words in result.detail


def test_an_assertion_error_subclass_raised_by_hand_counts_as_assertion():
    result = run("class Mine(AssertionError):\n    pass\nraise Mine('x')\n")
    assert result.status == ASSERTION_FAILED


def test_zero_division_is_a_runtime_error_with_type_and_message():
    result = run(ADD + "add(1, 1) / 0\n")
    assert result.status == RUNTIME_ERROR
    assert "ZeroDivisionError: division by zero" in result.detail
    assert "ZeroDivisionError" in result.stderr_tail  # the traceback is kept


def test_a_syntax_error_is_a_runtime_error():
    result = run("def add(a, b)\n    return a + b\n")
    assert result.status == RUNTIME_ERROR
    assert result.detail.startswith("SyntaxError") and "line 1" in result.detail


@pytest.mark.parametrize("source", [
    "def spin():\n    while True:\n        pass\nspin()\n",
    "while True:\n    pass\n",
], ids=["inside-function", "module-level"])
def test_an_infinite_loop_times_out_promptly(source):
    started = time.monotonic()
    result = run(source, timeout=SHORT)
    elapsed = time.monotonic() - started
    assert result.status == TIMEOUT
    assert SHORT <= elapsed < SHORT + RETURN_SLACK


@pytest.mark.parametrize("source", [
    "import sys\nsys.exit(0)\nassert False\n",
    "exit(0)\nassert False\n",
    "quit()\nassert False\n",
    "raise SystemExit(0)\n",
    "import os\nos._exit(0)\n",
    "import os\nos._exit(3)\n",
], ids=["sys.exit", "exit", "quit", "SystemExit", "os._exit(0)", "os._exit(3)"])
def test_an_early_exit_is_a_runtime_error_never_a_pass_or_timeout(source):
    result = run(source, timeout=SHORT)
    assert result.status == RUNTIME_ERROR
    assert "before the end of the program" in result.detail


def test_os_exit_zero_reports_exit_code_zero():
    result = run("import os\nos._exit(0)\n")
    assert result.exit_code == 0 and result.status == RUNTIME_ERROR


@pytest.mark.parametrize("source", [
    "x = 1\n", "assert False\n", "1 / 0\n", "import sys\nsys.exit(3)\n",
    "import sys\nsys.exit('bye')\n", "raise SystemExit\n",
])
def test_exit_code_is_the_one_plain_python_gives(source, tmp_path):
    # Independent reference: the same program run by `python -I file.py`.
    script = tmp_path / "program.py"
    script.write_text(source)
    plain = subprocess.run([sys.executable, "-I", str(script)], capture_output=True,
                           stdin=subprocess.DEVNULL, timeout=60)
    assert run(source).exit_code == plain.returncode


@posix_only
def test_ignoring_sigalrm_and_sigterm_does_not_escape_the_timeout():
    result = run("""
        import signal
        signal.signal(signal.SIGALRM, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        while True:
            pass
        """, timeout=SHORT)
    assert result.status == TIMEOUT


# The programs below tell the test their grandchild's pid on stdout: inside
# the sandbox they can write nowhere but their own (removed) folder.

@linux_only
def test_a_timeout_kills_the_grandchildren_too():
    result = run("""
        import subprocess, sys
        sleeper = "print('up', flush=True); import time; time.sleep(60)"
        child = subprocess.Popen([sys.executable, "-c", sleeper], stdout=subprocess.PIPE)
        assert child.stdout.readline() == b"up\\n"  # it runs: the kill below is real
        print(child.pid, flush=True)
        while True:
            pass
        """, timeout=SHORT)
    assert result.status == TIMEOUT
    assert_gone_soon(int(result.stdout_tail))


@linux_only
def test_a_passing_program_leaves_no_background_process():
    result = run("""
        import subprocess, sys
        sleeper = "print('up', flush=True); import time; time.sleep(60)"
        child = subprocess.Popen([sys.executable, "-c", sleeper], stdout=subprocess.PIPE)
        assert child.stdout.readline() == b"up\\n"  # it runs: the kill below is real
        print(child.pid)
        """)
    assert result.status == PASSED
    assert_gone_soon(int(result.stdout_tail))


@posix_only
@pytest.mark.skipif(sys.platform == "darwin", reason="macOS does not enforce RLIMIT_AS")
def test_an_8_gib_allocation_is_a_memory_error():
    result = run("block = bytearray(8 * 1024 ** 3)\n")
    assert result.status == RUNTIME_ERROR
    assert result.detail.startswith("MemoryError")


def test_50_mb_of_output_then_the_right_answer_passes_with_bounded_tails():
    result = run(ADD + """
import sys
line = "x" * 99 + "\\n"
for _ in range(500_000):
    sys.stdout.write(line)
sys.stdout.write("THE END\\n")
assert add(2, 2) == 4
""", timeout=10.0)
    assert result.status == PASSED
    assert len(result.stdout_tail) < 10_000
    assert result.stdout_tail.startswith("x" * 99)
    assert result.stdout_tail.endswith("THE END\n")
    assert "bytes omitted" in result.stdout_tail


def test_reading_input_fails_because_stdin_is_empty():
    result = run("name = input()\n")
    assert result.status == RUNTIME_ERROR
    assert result.detail.startswith("EOFError") and "stdin is empty" in result.detail


def test_unbounded_recursion_is_a_runtime_error():
    result = run("def down(n):\n    return down(n + 1)\ndown(0)\n")
    assert result.status == RUNTIME_ERROR
    assert result.detail.startswith("RecursionError")


def test_a_keyboard_interrupt_raised_by_the_program_is_a_runtime_error():
    result = run("raise KeyboardInterrupt\n")
    assert result.status == RUNTIME_ERROR
    assert result.detail.startswith("KeyboardInterrupt")


@posix_only
def test_death_by_a_signal_is_a_runtime_error_naming_the_signal():
    result = run("import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n")
    assert result.status == RUNTIME_ERROR
    assert "signal 9 (SIGKILL)" in result.detail


def test_files_written_by_the_program_are_gone_and_the_caller_cwd_untouched(tmp_path):
    before = sorted(os.listdir(os.getcwd()))
    result = run("""
        import os
        with open("scratch.txt", "w") as handle:
            handle.write("left behind?")
        print(os.getcwd())
        """)
    assert result.status == PASSED
    workdir = result.stdout_tail.strip()
    assert workdir != os.getcwd()
    assert not os.path.exists(workdir)
    assert sorted(os.listdir(os.getcwd())) == before


def test_the_environment_is_minimal(monkeypatch):
    monkeypatch.setenv("REASONEVAL_SECRET", "do-not-leak")
    result = run("import json, os\n"
                 "print(json.dumps([sorted(os.environ), os.environ['HOME'], os.getcwd()]))\n")
    assert result.status == PASSED
    names, home, cwd = json.loads(result.stdout_tail)
    # The contract's list (TEMP/TMP and SYSTEMROOT only for the Windows fallback).
    assert set(names) <= {"PATH", "LANG", "LC_ALL", "HOME", "TMPDIR", "TEMP", "TMP", "SYSTEMROOT"}
    assert {"PATH", "HOME", "TMPDIR"} <= set(names) and home == cwd


def test_printing_a_fake_pass_message_is_not_a_pass():
    result = run("print('passed')\nimport os\nos._exit(0)\n")
    assert result.status == RUNTIME_ERROR


def test_the_result_is_immutable_and_its_status_is_one_of_the_five():
    result = run("pass")
    assert isinstance(result, ExecutionResult) and result.status in STATUSES
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.status = NOT_RUN


@pytest.mark.parametrize("bad", [None, b"print(1)", 42])
def test_a_program_that_is_not_a_str_is_an_argument_type_error_showing_it(bad):
    # An ArgumentTypeError is a ValueError (the package's policy) and a TypeError.
    words = r"program must be a str .*, got " + re.escape(repr(bad))
    with pytest.raises(ArgumentTypeError, match=words):
        execute_program(bad)


def test_a_wrong_type_is_caught_by_except_value_error_and_by_except_type_error():
    for expected in (ValueError, TypeError):
        with pytest.raises(expected):
            execute_program(1)


@pytest.mark.parametrize("timeout", [0, -1, float("nan"), float("inf"), "3", True])
def test_a_bad_timeout_is_a_value_error(timeout):
    with pytest.raises(ValueError, match="timeout"):
        execute_program("pass", timeout=timeout)


@pytest.mark.parametrize("memory_mb", [0, 10, 512.0, None])
def test_a_bad_memory_limit_is_a_value_error(memory_mb):
    with pytest.raises(ValueError, match="memory_mb"):
        execute_program("pass", memory_mb=memory_mb)


def test_odd_text_in_messages_and_output_does_not_break_the_executor():
    result = run("""
        import sys
        sys.stdout.buffer.write(b"bad utf-8: \\xff\\xfe, fine: \\xc3\\xa9\\n")
        raise ValueError("lone surrogate \\udc80 and \\u00e9")
        """)
    assert result.status == RUNTIME_ERROR
    assert result.detail.startswith("ValueError: lone surrogate")
    assert "fine: \u00e9" in result.stdout_tail


# The portable fallback (a fresh interpreter per program, used where os.fork is
# missing, e.g. Windows), exercised here by hiding os.fork.
FALLBACK_CASES = [
    (ADD + "assert add(1, 2) == 3\n", PASSED),
    ("assert 1 == 2, 'no'\n", ASSERTION_FAILED),
    ("import sys\nsys.exit(0)\n", RUNTIME_ERROR),
    ("import os\nos._exit(0)\n", RUNTIME_ERROR),
    ("input()\n", RUNTIME_ERROR),
    ("def f(:\n", RUNTIME_ERROR),
    ("while True:\n    pass\n", TIMEOUT),
]


@pytest.mark.parametrize("source, expected", FALLBACK_CASES)
def test_the_fresh_interpreter_fallback_gives_the_same_states(monkeypatch, source, expected):
    monkeypatch.delattr(os, "fork")
    started = time.monotonic()
    result = execute_program(source, timeout=SHORT)
    assert result.status == expected
    assert time.monotonic() - started < SHORT + RETURN_SLACK


@linux_only
def test_the_fresh_interpreter_fallback_kills_grandchildren_and_cleans_up(monkeypatch):
    monkeypatch.delattr(os, "fork")
    result = run("""
        import os, subprocess, sys
        sleeper = "print('up', flush=True); import time; time.sleep(60)"
        child = subprocess.Popen([sys.executable, "-c", sleeper], stdout=subprocess.PIPE)
        assert child.stdout.readline() == b"up\\n"  # it runs: the kill below is real
        open("scratch.txt", "w").write("x")
        print(child.pid, os.getcwd(), flush=True)
        while True:
            pass
        """, timeout=SHORT)
    assert result.status == TIMEOUT
    pid, cwd = result.stdout_tail.strip().split(" ", 1)
    assert_gone_soon(int(pid))
    assert not os.path.exists(cwd)


def test_a_forged_report_without_the_nonce_is_not_a_pass():
    # fd 3 is the session's events channel (either kind of runner): a "done"
    # framed as the runner frames it, but without this session's nonce.
    result = run("""
        import json, os, struct
        forged = json.dumps({"event": "done", "nonce": "guess", "completed": True}).encode()
        try:
            os.write(3, struct.pack(">Q", len(forged)) + forged)
        except OSError:
            pass
        os._exit(0)
        """)
    assert result.status == RUNTIME_ERROR


@pytest.mark.parametrize("source, expected", [
    ("import json\njson.dumps = None\n", PASSED),
    ("import json\nreal = json.dumps\n"
     "json.dumps = lambda report: real(dict(report, completed=True))\nassert False\n",
     ASSERTION_FAILED),
], ids=["mocked-away", "forging"])
def test_replacing_json_dumps_does_not_change_the_report(source, expected):
    assert run(source).status == expected


@posix_only
def test_unbounded_recursion_past_the_recursion_limit_is_a_runtime_error():
    result = run("""
        import sys
        sys.setrecursionlimit(10 ** 8)
        def down(n):
            return down(n + 1)
        down(0)
        """, timeout=10.0, memory_mb=128)
    # 3.10 overflows the C stack (SIGSEGV); 3.11+ keeps Python frames on the
    # heap and meets the memory limit (MemoryError, or SystemError from deep inside).
    assert result.status == RUNTIME_ERROR
    assert result.detail.startswith(("killed by signal 11", "MemoryError", "SystemError"))


def test_sleeping_past_the_timeout_is_a_timeout():
    assert run("import time\ntime.sleep(30)\n", timeout=SHORT).status == TIMEOUT


@pytest.mark.filterwarnings("ignore:reasoneval_mini. sandbox off")
@linux_only
def test_unsandboxed_a_child_that_escapes_with_setsid_is_killed_when_its_program_ends():
    # Without the sandbox's filter a new session leaves the process group; the
    # runner server, a subreaper, inherits the orphan and kills it all the same
    # (before, it lived on and held the program's stdout for 30 s).
    result = run("""
        import os, subprocess, sys, time
        code = "import os, time; os.setsid(); time.sleep(30)"
        child = subprocess.Popen([sys.executable, "-c", code])
        time.sleep(0.3)
        assert child.poll() is None  # it runs, in a session of its own: the group kill misses it
        assert os.getsid(child.pid) == child.pid
        print(child.pid)
        """, sandbox="off")
    pid = int(result.stdout_tail)
    try:
        assert result.status == PASSED, result.detail
        assert_gone_soon(pid)
    finally:
        try:
            os.kill(pid, 9)
        except ProcessLookupError:
            pass


#: A module a server imports with its profile: it hides the ways of noticing an exit named in *missing*.
HIDE_EXIT_WAITS = "import os\nfor name in {missing!r}:\n    if hasattr(os, name):\n        delattr(os, name)\n"


@posix_only
@pytest.mark.parametrize("kind", ["server", "fresh"])
@pytest.mark.parametrize("missing", [(), ("pidfd_open",), ("pidfd_open", "waitid")],
                         ids=["pidfd", "waitid-peek", "waitpid-poll"])
def test_each_way_of_noticing_the_exit_gives_the_right_states(monkeypatch, tmp_path, missing,
                                                             kind):
    # Linux has pidfd; macOS has neither pidfd nor (in some builds) waitid. A
    # server notices its child's exit by what it has, and so does the caller
    # for a fresh child: hidden here in the server (a module its profile
    # imports) and in this process.
    from reasoneval_mini.executor.program import (
        DEFAULT_MEMORY_MB, build_request, classify_run, run_request)
    from reasoneval_mini.runner.session import Profile, Runner, servers_possible

    if kind == "server" and not servers_possible():
        pytest.skip("a runner server needs os.fork")
    (tmp_path / "hide_exit_waits.py").write_text(HIDE_EXIT_WAITS.format(missing=missing))
    for name in missing:
        monkeypatch.delattr(os, name, raising=False)
    profile = Profile(cap_mb=DEFAULT_MEMORY_MB, env=(("PYTHONPATH", str(tmp_path)),),
                      pre_imports=("hide_exit_waits",))
    hidden = f"import os\nassert not [name for name in {missing!r} if hasattr(os, name)]"
    cases = [(hidden if kind == "server" else "assert 1 + 1 == 2", PASSED),
             ("import time\ntime.sleep(0.1)\nassert 1 + 1 == 2", PASSED),
             ("import os\nos._exit(3)", RUNTIME_ERROR),
             ("while True:\n    pass", TIMEOUT), ("import time\ntime.sleep(30)", TIMEOUT)]
    runner = Runner(profile, fresh=kind == "fresh")
    try:
        for source, expected in cases:
            request = build_request(source, 0.5, DEFAULT_MEMORY_MB)
            started = time.monotonic()
            result = classify_run(run_request(runner, request), 0.5, DEFAULT_MEMORY_MB)
            assert (source, result.status) == (source, expected), result.detail
            assert time.monotonic() - started < 0.5 + RETURN_SLACK
        assert (runner.server is not None) == (kind == "server")
    finally:
        runner.close()


def test_a_multi_line_message_becomes_a_one_line_detail():
    result = run("raise ValueError('first\\n\\n  second' + 'x' * 1000)\n")
    assert result.detail.startswith("ValueError: first second")
    assert "\n" not in result.detail and len(result.detail) < 400
    assert "x" * 1000 not in result.detail  # cut, while stderr keeps the traceback


@linux_only
def test_a_server_whose_parent_died_stops_even_if_its_socket_stays_open():
    # The parent leaves a forked copy of itself holding its end of the
    # server's socket, then dies: the server must notice the death itself.
    script = textwrap.dedent("""
        import os, time
        from reasoneval_mini.executor import execute_program
        from reasoneval_mini.runner import session
        execute_program("pass")
        print(session._POOL.idle[0].server.process.pid, flush=True)
        holder = os.fork()
        if holder == 0:
            os.close(1), os.close(2)  # let the test read our output to its end
            time.sleep(20)
            os._exit(0)
        print(holder, flush=True)
        os._exit(0)
        """)
    import subprocess
    output = subprocess.run([sys.executable, "-c", script], capture_output=True,
                            text=True, timeout=30).stdout.split()
    server, holder = int(output[0]), int(output[1])
    try:
        assert_gone_soon(server, seconds=4)
    finally:
        os.kill(holder, 9)


def test_weaker_isolation_is_announced_once_and_carried_in_each_result(monkeypatch):
    monkeypatch.setattr(program_module, "_WARNED", [])
    monkeypatch.setattr(sys, "platform", "darwin")
    with pytest.warns(RuntimeWarning, match="RLIMIT_AS"):
        first = execute_program("pass")
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        second = execute_program("pass")  # no second warning
    assert first.status == second.status == PASSED
    assert any("RLIMIT_AS" in text for text in second.warnings)


@pytest.mark.filterwarnings("ignore:reasoneval_mini. sandbox off")
@posix_only
def test_unsandboxed_a_program_that_kills_the_executor_is_not_run_and_the_next_call_works(
        tmp_path):
    # On a runner server the parent of the program is the server itself;
    # with the server gone, the caller removes the working directory. (The
    # sandbox forbids the signal; this is the defence where there is none.)
    cwd_file = tmp_path / "cwd"
    result = run(f"import os, signal, time\nopen({str(cwd_file)!r}, 'w').write(os.getcwd())\n"
                 "os.kill(os.getppid(), signal.SIGKILL)\ntime.sleep(0.2)\n", sandbox="off")
    assert result.status == NOT_RUN
    assert "executor failure" in result.detail
    assert not os.path.exists(cwd_file.read_text())
    assert run("assert True").status == PASSED


def test_a_program_too_deeply_nested_to_compile_is_a_runtime_error_not_an_executor_failure():
    # The child compiles under its limits; the parser's own MemoryError
    # there must become the program's error, reported by the child.
    result = run("x = " + "-" * 100_000 + "1\n")
    assert result.status == RUNTIME_ERROR
    assert result.detail.startswith("MemoryError")
    assert run("assert True").status == PASSED


@posix_only
def test_the_file_size_limit_stops_a_huge_file():
    result = run("""
        with open("big.bin", "wb") as handle:
            for _ in range(40):
                handle.write(b"z" * 2**20)  # 40 MB, above the 16 MB limit
        """)
    assert result.status == RUNTIME_ERROR
    assert "File too large" in result.detail


@posix_only
def test_the_open_files_limit_stops_a_descriptor_leak():
    result = run("handles = [open('f%d' % i, 'w') for i in range(200)]\n")
    assert result.status == RUNTIME_ERROR
    assert "Too many open files" in result.detail
