"""The sandbox, tried as an attacker would: a forked child confines itself, then attacks.

Each test forks a child that calls :func:`confine` and then tries one thing;
the child reports what happened on a pipe, as plain text. On a kernel without
the feature the test is skipped with the reason; with it, an attack that
succeeds fails the test.
"""

import os
import signal
import socket
import sys
import sysconfig
from pathlib import Path

import pytest

from reasoneval_mini.sandbox import confine, plan_isolation
import reasoneval_mini.sandbox.landlock as landlock
from reasoneval_mini.sandbox.policy import readable_paths

ABI = landlock.abi_version()
REPOSITORY = Path(__file__).resolve().parents[2]


def needs(abi, feature):
    if sys.platform != "linux" or not hasattr(os, "fork"):
        return pytest.mark.skip(reason="Landlock is Linux-only")
    if ABI < abi:
        return pytest.mark.skip(reason=f"{feature} needs Landlock ABI {abi}; this kernel has {ABI}")
    return pytest.mark.skipif(False, reason="the kernel has it")


def attack(workdir, body):
    """Fork, confine with the full policy for *workdir*, run *body()*; return its text."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_end)
        try:
            confine(plan_isolation("auto"), str(workdir))
            result = body()
        except BaseException as error:  # report, never return into pytest
            result = f"{type(error).__name__}: {error}"
        os.write(write_end, str(result).encode()[:4000])
        os._exit(0)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as stream:
        text = stream.read().decode()
    os.waitpid(pid, 0)
    return text


@pytest.fixture
def workdir(tmp_path):
    folder = tmp_path / "run"
    folder.mkdir()
    return folder


def read(path):
    with open(path, encoding="utf-8", errors="replace") as stream:
        return "read " + str(len(stream.read()))


pytestmark = needs(1, "file rules")


def test_the_sandbox_still_runs_ordinary_python(workdir):
    def body():
        import json, fractions, decimal, collections  # noqa: E401
        (Path.cwd() / "note.txt").write_text("x")
        return json.dumps([str(fractions.Fraction(1, 3)), Path("note.txt").read_text()])
    os.chdir(workdir)
    assert attack(workdir, body) == '["1/3", "x"]'


def test_a_program_cannot_read_the_solutions_of_the_checkout(workdir):
    master = REPOSITORY / "solutions" / "ex01_answer_equivalence.ipynb"
    assert master.exists(), "the masters are the secret this test guards"
    assert read(master).startswith("read ")  # readable outside the sandbox
    assert attack(workdir, lambda: read(master)).startswith("PermissionError")


def test_a_program_cannot_list_the_checkout_or_read_etc(workdir):
    assert attack(workdir, lambda: os.listdir(REPOSITORY)).startswith("PermissionError")
    assert attack(workdir, lambda: read("/etc/hostname")).startswith(
        ("PermissionError", "FileNotFoundError"))


def test_a_program_cannot_write_into_the_package_or_site_packages(workdir):
    import reasoneval_mini
    package = Path(reasoneval_mini.__file__).parent
    site_packages = sysconfig.get_paths()["purelib"]
    assert any(site_packages.startswith(path) for path in readable_paths())
    for target in (package / "executor" / "__init__.py", Path(site_packages) / "evil.pth"):
        outcome = attack(workdir, lambda target=target: open(target, "a").write("x"))
        assert outcome.startswith("PermissionError"), (target, outcome)
    assert not (Path(site_packages) / "evil.pth").exists()


def test_a_program_cannot_write_beside_its_own_folder(workdir):
    sibling = workdir.parent / "sibling.txt"
    assert attack(workdir, lambda: sibling.write_text("x")).startswith("PermissionError")
    assert not sibling.exists()


def test_a_program_cannot_read_its_parents_environment_through_proc(workdir):
    os.environ["REASONEVAL_TEST_SECRET"] = "instructor-api-key"
    try:
        parent = os.getpid()
        outcome = attack(workdir, lambda: read(f"/proc/{parent}/environ"))
    finally:
        del os.environ["REASONEVAL_TEST_SECRET"]
    assert outcome.startswith("PermissionError"), outcome


@needs(4, "TCP rules")
def test_a_program_cannot_connect_to_a_local_port(workdir):
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        port = server.getsockname()[1]

        def body():
            with socket.create_connection(("127.0.0.1", port), timeout=2):
                return "connected"
        assert attack(workdir, body).startswith("PermissionError")


@needs(4, "TCP rules")
def test_a_program_cannot_bind_a_port(workdir):
    def body():
        with socket.socket() as listener:
            listener.bind(("127.0.0.1", 0))
            return "bound"
    assert attack(workdir, body).startswith("PermissionError")


@needs(6, "signal scoping")
def test_a_program_cannot_signal_its_parent_or_a_neighbour(workdir):
    neighbour = os.fork()
    if neighbour == 0:
        signal.pause()
        os._exit(0)
    try:
        parent = os.getpid()
        assert attack(workdir, lambda: os.kill(parent, 0)).startswith("PermissionError")
        assert attack(workdir, lambda: os.kill(neighbour, signal.SIGKILL)).startswith(
            "PermissionError")
        assert os.waitpid(neighbour, os.WNOHANG) == (0, 0), "the neighbour was killed"
    finally:
        os.kill(neighbour, signal.SIGKILL)
        os.waitpid(neighbour, 0)


@needs(6, "signal scoping")
def test_a_program_may_still_signal_what_it_started_itself(workdir):
    def body():
        child = os.fork()
        if child == 0:
            signal.pause()
            os._exit(0)
        os.kill(child, signal.SIGKILL)
        return os.WTERMSIG(os.waitpid(child, 0)[1])
    assert attack(workdir, body) == str(int(signal.SIGKILL))  # str(enum) differs before 3.11


def test_root_keeps_no_capability_in_the_sandbox(workdir):
    def body():
        with open("/proc/self/status") as status:  # denied: /proc is outside the policy
            return status.read()
    # /proc is not readable, so ask the kernel directly: capget on ourselves.
    def capabilities():
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        header = (ctypes.c_uint32 * 2)(0x20080522, 0)
        data = (ctypes.c_uint32 * 6)()
        libc.capget(header, data)
        return list(data)
    assert attack(workdir, body).startswith("PermissionError")
    assert attack(workdir, capabilities) == str([0] * 6)


def test_a_refused_sandbox_is_an_error_not_a_silent_run(workdir):
    # The kernel refuses the last call (here: a system call number it does
    # not have): confine must raise rather than let the program run unconfined.
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            landlock.SYS_landlock_restrict_self = 4095
            confine(plan_isolation("auto"), str(workdir))
            os.write(write_end, b"ran unconfined")
        except OSError as error:
            os.write(write_end, type(error).__name__.encode())
        os._exit(0)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as stream:
        assert stream.read() == b"LandlockError"
    os.waitpid(pid, 0)
