"""The executor's sandbox, tried as an attacker would: each attack is a real program run.

Every program goes through ``execute_program`` or ``execute_samples`` with the
default ``sandbox="auto"``. On a kernel without the Landlock feature an attack
needs, its test is skipped with the reason; on a kernel with it, an attack that
succeeds (the sandbox was not applied) fails the test. Where a contrast is
cheap and harmless, the same program is also run with ``sandbox="off"`` to
show that the attack is real.
"""

import hashlib
import os
import signal
import socket
import sys
import sysconfig
import threading
import time
from pathlib import Path

import pytest
from process_checks import assert_gone_soon, process_alive
from sandbox_runs import fill_folder, item, needs, needs_filter, needs_socket_filter, run

import reasoneval_mini
import reasoneval_mini.runner.confinement as confinement
import reasoneval_mini.sandbox.landlock as landlock
from reasoneval_mini import (
    ASSERTION_FAILED,
    NOT_RUN,
    PASSED,
    RUNTIME_ERROR,
    TIMEOUT,
    execute_program,
    execute_samples,
)
from reasoneval_mini.executor import program as program_module
from reasoneval_mini.executor import samples as samples_module
from reasoneval_mini.executor.program import (
    DEFAULT_MEMORY_MB, build_request, classify_run, profile_for, run_request)
from reasoneval_mini.lessons.doctor import working_folder_capped  # the folder's size, as seen
from reasoneval_mini.runner import session
from reasoneval_mini.runner.session import Runner, servers_possible
from reasoneval_mini.sandbox import Isolation, SandboxUnavailable, plan_isolation

pytestmark = pytest.mark.slow  # hostile programs under the sandbox: fork bombs, escapes, leftovers

REPOSITORY = Path(__file__).resolve().parents[2]
PACKAGE = Path(reasoneval_mini.__file__).resolve().parent


# --- Files --------------------------------------------------------------------

@needs(1, "file rules")
def test_a_program_cannot_read_the_solutions_of_the_checkout(quiet_off):
    master = REPOSITORY / "solutions" / "ex01_answer_equivalence.ipynb"
    assert master.exists(), "the masters are the secret this test guards"
    attack = f"print(len(open({str(master)!r}).read()))"
    confined = run(attack)
    assert confined.status == RUNTIME_ERROR
    assert confined.detail.startswith("PermissionError"), confined.detail
    assert confined.stdout_tail == ""
    assert run(attack, sandbox="off").status == PASSED  # the attack is real


@needs(1, "file rules")
def test_a_link_made_in_the_programs_own_folder_opens_nothing_outside_it(quiet_off):
    # The folder is writable, so a program may make links there; the kernel
    # judges the file a link leads to, and a hard link or a rename across
    # the boundary is refused (another file system, and Landlock's REFER).
    master = REPOSITORY / "solutions" / "ex01_answer_equivalence.ipynb"
    package_file = REPOSITORY / "reasoneval_mini" / "answers.py"
    before = package_file.read_bytes()
    symlink = run(f"import os\nos.symlink({str(master)!r}, 'm')\nprint(len(open('m').read()))")
    assert (symlink.status, symlink.detail.split(":")[0]) == (RUNTIME_ERROR, "PermissionError")
    assert symlink.stdout_tail == ""
    for move in ("link", "rename"):
        moved = run(f"import os\nos.{move}({str(package_file)!r}, 'p')\nopen('p', 'a').write('#')")
        assert moved.status == RUNTIME_ERROR, (move, moved.detail)
    assert package_file.read_bytes() == before


@needs(1, "file rules")
def test_the_fresh_interpreter_fallback_is_confined_too(monkeypatch):
    monkeypatch.delattr(os, "fork")
    master = REPOSITORY / "solutions" / "ex01_answer_equivalence.ipynb"
    result = run(f"open({str(master)!r}).read()")
    assert (result.status, result.detail.split(":")[0]) == (RUNTIME_ERROR, "PermissionError")
    # The fresh child caps its own folder where the kernel lets it; the line
    # says what a program there sees (the oracle: the folder's size, probed in the fallback too).
    cap = "capped" if working_folder_capped() else "NOT capped"
    assert result.isolation == f"{plan_isolation('auto')}; working folder {cap}"


@needs(1, "file rules")
def test_a_program_cannot_read_the_callers_environment_through_proc():
    result = run(f"print(open('/proc/{os.getpid()}/environ', 'rb').read())")
    assert result.status == RUNTIME_ERROR
    assert result.detail.startswith("PermissionError"), result.detail


@needs(1, "file rules")
def test_a_program_cannot_write_a_pth_into_site_packages_and_a_later_run_is_unaffected():
    site_packages = Path(sysconfig.get_paths()["purelib"])
    target = site_packages / "reasoneval_torture.pth"
    assert not target.exists()
    try:
        # Only a comment: even if it were written, no later Python would run it.
        result = run(f"open({str(target)!r}, 'w').write('# must never exist\\n')")
        assert result.status == RUNTIME_ERROR
        assert result.detail.startswith("PermissionError"), result.detail
        assert not target.exists()
        session.close_idle()  # the later run starts a new interpreter, which reads .pth files
        assert run("assert 1 == 2").status == ASSERTION_FAILED
    finally:
        if target.exists():
            target.unlink()


@needs(1, "file rules")
def test_a_program_cannot_append_to_the_package():
    target = PACKAGE / "executor" / "__init__.py"
    before = hashlib.sha256(target.read_bytes()).hexdigest()
    # Opening for appending is the attack; nothing is written even if it opens.
    result = run(f"open({str(target)!r}, 'a').close()")
    assert result.status == RUNTIME_ERROR
    assert result.detail.startswith("PermissionError"), result.detail
    assert hashlib.sha256(target.read_bytes()).hexdigest() == before


@needs(1, "file rules")
def test_a_program_may_still_write_in_its_own_folder_and_import_the_standard_library():
    result = run("""
        import json, fractions, tempfile
        with open("note.txt", "w") as handle:
            handle.write(json.dumps(str(fractions.Fraction(1, 3))))
        with tempfile.TemporaryFile() as scratch:
            scratch.write(b"x")
        assert open("note.txt").read() == '"1/3"'
        """)
    assert (result.status, result.detail) == (PASSED, "ran to the end without an exception")


# --- Network and signals ------------------------------------------------------

@needs(4, "TCP rules")
def test_a_program_cannot_connect_to_a_local_tcp_port():
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        port = listener.getsockname()[1]
        result = run(f"""
            import socket
            socket.create_connection(("127.0.0.1", {port}), timeout=2).close()
            """)
        listener.settimeout(0.2)
        with pytest.raises(socket.timeout):
            listener.accept()[0].close()  # nobody connected
    assert result.status == RUNTIME_ERROR
    assert result.detail.startswith("PermissionError"), result.detail


@needs_socket_filter()
def test_a_program_cannot_connect_to_a_unix_socket_file_it_can_name(tmp_path):
    path = str(tmp_path / "daemon.sock")  # stands for a session bus or a Docker daemon
    with socket.socket(socket.AF_UNIX) as listener:
        listener.bind(path)
        listener.listen(1)
        result = run(f"""
            import socket
            socket.socket(socket.AF_UNIX).connect({path!r})
            """)
        listener.settimeout(0.2)
        with pytest.raises(socket.timeout):
            listener.accept()[0].close()  # nobody connected
    assert result.status == RUNTIME_ERROR
    assert result.detail.startswith("PermissionError"), result.detail


def assert_a_udp_datagram_to_a_local_port_is_refused():
    """Run a program that sends one UDP datagram to a port listening here; nothing may arrive."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as receiver:
        receiver.bind(("127.0.0.1", 0))
        port = receiver.getsockname()[1]
        result = run(f"""
            import socket
            socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b"x", ("127.0.0.1", {port}))
            """)
        receiver.settimeout(0.2)
        with pytest.raises(socket.timeout):
            receiver.recvfrom(10)  # nothing arrived
    assert result.status == RUNTIME_ERROR
    assert result.detail.startswith("PermissionError"), result.detail


@needs_socket_filter()
def test_a_program_cannot_send_a_udp_datagram_to_a_local_port():
    assert_a_udp_datagram_to_a_local_port_is_refused()


@needs_socket_filter()
def test_a_program_may_still_use_a_socket_pair_and_asyncio():
    result = run("""
        import asyncio, socket
        left, right = socket.socketpair()
        left.send(b"x")
        assert right.recv(1) == b"x"
        async def three():
            return 3
        assert asyncio.run(three()) == 3
        """)
    assert (result.status, result.detail) == (PASSED, "ran to the end without an exception")


@needs(6, "signal scoping")
def test_a_program_cannot_signal_its_runner_server_or_the_caller():
    # SIGCONT and signal 0: harmless if the sandbox failed to stop them.
    result = run(f"""
        import os, signal
        for name, pid, number in (("server", os.getppid(), signal.SIGCONT),
                                  ("caller", {os.getpid()}, 0)):
            try:
                os.kill(pid, number)
                print(name, "reached")
            except PermissionError:
                print(name, "refused")
        """)
    assert (result.status, result.stdout_tail) == (PASSED, "server refused\ncaller refused\n")


@needs(1, "the ptrace rule")
def test_a_program_cannot_open_its_servers_descriptors_through_proc(own_worker):
    # The server's stderr is the caller's (a terminal, a notebook's log) and
    # its socket carries every session's start and end: opened through /proc,
    # they would let a program write into the caller's output or forge the server's word.
    result = run("""
        import os
        server = os.getppid()
        print(server)
        for fd, mode in ((0, os.O_RDONLY | os.O_NONBLOCK), (1, os.O_WRONLY), (2, os.O_WRONLY)):
            try:
                os.close(os.open(f"/proc/{server}/fd/{fd}", mode))
                print(fd, "opened")
            except PermissionError:
                print(fd, "refused")
        try:
            print(len(os.listdir(f"/proc/{server}/fd")), "listed")
        except PermissionError:
            print("listing refused")
        """)
    server, rest = result.stdout_tail.split("\n", 1)
    (runner,) = session._POOL.idle
    assert int(server) == runner.server.process.pid  # the program's parent is its runner's server
    assert (result.status, rest) == (PASSED, "0 refused\n1 refused\n2 refused\nlisting refused\n")


@needs(1, "file rules")
def test_a_program_keeps_no_capability_even_when_the_caller_is_root():
    result = run("""
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        header = (ctypes.c_uint32 * 2)(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3, this process
        data = (ctypes.c_uint32 * 6)()
        assert libc.capget(header, data) == 0
        print(list(data))
        """)
    assert (result.status, result.stdout_tail) == (PASSED, f"{[0] * 6}\n")


# --- A leftover helper and later samples ---------------------------------------

HELPER_SECONDS = 8.0


def attacker(name, target):
    """A sample whose helper, named *name*, attacks for :data:`HELPER_SECONDS` while the sample runs.

    *target* is another runner's server. The helper tries to stop it and its
    own server (SIGSTOP); to take, from the target's descriptors
    (``/proc/<server>/fd/<n>``: it holds a session's pipes from their start
    until it forks the child), a job on its way to a session, and to put
    another in its place (``pass``: a failing sample would pass); and to
    write a ``done`` with the job's nonce on the events of the sessions the
    target forks next (``/proc/<pid>/fd/3``).
    """
    return f"""
    import ctypes, json, os, signal, struct, time
    own_server, own_main, target = os.getppid(), os.getpid(), {target}
    pid_r, pid_w = os.pipe()
    if os.fork() == 0:
        try:  # out of the sample's process group, which its end kills
            os.setsid()
        except PermissionError:  # the sandbox's filter refuses it: attack from inside
            pass
        if os.fork() != 0:
            os._exit(0)
        ctypes.CDLL(None).prctl(15, {name.encode()!r}, 0, 0, 0)  # PR_SET_NAME: findable from outside
        os.write(pid_w, str(os.getpid()).encode())
        for fd in (0, 1, 2, pid_r, pid_w):  # hold none of the sample's pipes
            os.close(fd)
        nonce = None
        end = time.monotonic() + {HELPER_SECONDS}
        while time.monotonic() < end:
            for server in (own_server, target):
                try:
                    os.kill(server, signal.SIGSTOP)
                except OSError:
                    pass
            for fd in range(3, 64):  # a job in a pipe the server holds: take it, put another
                path = "/proc/%d/fd/%d" % (target, fd)
                try:
                    pipe = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
                except OSError:
                    continue
                try:
                    job = json.loads(os.read(pipe, struct.unpack(">Q", os.read(pipe, 8))[0]))
                    nonce = job["nonce"]
                    job["tasks"] = [{{"sources": [["<program>", "pass"]]}}]
                    data = json.dumps(job).encode()
                    back = os.open(path, os.O_WRONLY)
                    os.write(back, struct.pack(">Q", len(data)) + data)
                    os.close(back)
                except (OSError, TypeError, ValueError, KeyError, struct.error):
                    pass
                finally:
                    os.close(pipe)
            for pid in range(target + 1, target + 300):  # the sessions it forks next
                if pid == own_main:  # its own sample may reach its own channel: not the attack
                    continue
                try:
                    data = json.dumps({{"event": "done", "nonce": nonce}}).encode()
                    events = os.open("/proc/%d/fd/3" % pid, os.O_WRONLY)
                    os.write(events, struct.pack(">Q", len(data)) + data)
                    os.close(events)
                except OSError:
                    pass
        os._exit(0)
    os.close(pid_w)
    print(os.read(pid_r, 20).decode(), flush=True)
    time.sleep({HELPER_SECONDS})  # the helper attacks while its sample runs
    assert False, "the attacker itself fails"
    """


HONEST = [("slow-failing", "import time\ntime.sleep(0.5)\nassert 1 == 2\n", ASSERTION_FAILED),
          ("passing", "assert 1 + 1 == 2\n", PASSED),
          ("failing", "assert sorted([2, 1]) == [2, 1]\n", ASSERTION_FAILED)]


def _state(pid):
    with open(f"/proc/{pid}/stat", encoding="ascii") as handle:
        return handle.read().rpartition(")")[2].split()[0]


@needs(1, "file rules")
@needs_filter
def test_no_process_a_sample_starts_can_leave_its_group_so_its_end_kills_them_all():
    result = run("""
        import os, subprocess, sys, time
        refused, pids = 0, []
        for _ in range(10):
            child = os.fork()
            if child == 0:
                for leave in (os.setsid, lambda: os.setpgid(0, 0)):
                    try:
                        leave()
                    except PermissionError:
                        pass
                time.sleep(60)
                os._exit(0)
            pids.append(child)
        try:
            subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"],
                             start_new_session=True)
        except PermissionError:
            refused += 1
        pids.append(subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"]).pid)
        print(refused, *pids, flush=True)
        while True:  # the timeout ends the sample
            pass
        """, timeout=2.0)
    refused, *pids = map(int, result.stdout_tail.split())
    try:
        assert result.status == TIMEOUT
        assert refused == 1 and len(pids) == 11
        for pid in pids:
            assert_gone_soon(pid)
    finally:
        for pid in pids:
            if process_alive(pid):
                os.kill(pid, signal.SIGKILL)


@needs(1, "file rules")
@needs_filter
def test_a_sandboxed_program_cannot_open_a_file_to_all_with_an_acl_or_mark_it(tmp_path):
    # Landlock rules no extended attribute: a POSIX ACL set on a file the
    # user owns made it readable by all (mode 0600 became 0644).
    victim = tmp_path / "grades.csv"
    victim.write_text("secret")
    victim.chmod(0o600)
    result = run(f"""
        import os, struct
        acl = struct.pack("<I", 2) + b"".join(struct.pack("<HHI", tag, perm, 0xFFFFFFFF)
                                              for tag, perm in ((1, 6), (4, 4), (0x10, 4), (0x20, 4)))
        refused = []
        for name, value in (("system.posix_acl_access", acl), ("user.note", b"planted")):
            try:
                os.setxattr({str(victim)!r}, name, value)
            except PermissionError:
                refused.append(name)
        print(len(refused))
        """)
    assert (result.status, result.stdout_tail) == (PASSED, "2\n"), result.detail
    assert victim.stat().st_mode & 0o777 == 0o600
    assert os.listxattr(victim) == []


@needs(1, "file rules")
@needs_filter
def test_a_sandboxed_program_cannot_change_the_limits_of_a_process_outside_it():
    # Landlock scopes signals, not limits: a program gave a process of the
    # same user (a classmate's grading, the grader) three descriptors.
    import resource
    import subprocess

    victim = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        before = resource.prlimit(victim.pid, resource.RLIMIT_NOFILE)
        result = run(f"""
            import os, resource
            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # its own limits: allowed
            touched = []
            for limit in (resource.RLIMIT_NOFILE, resource.RLIMIT_CPU, resource.RLIMIT_AS):
                try:
                    resource.prlimit({victim.pid}, limit, (1, 1))
                    touched.append(limit)
                except PermissionError:
                    pass
            print(touched)
            """)
        assert (result.status, result.stdout_tail) == (PASSED, "[]\n"), result.detail
        assert resource.prlimit(victim.pid, resource.RLIMIT_NOFILE) == before
        assert victim.poll() is None
    finally:
        victim.kill()
        victim.wait()


def _processes_named(name):
    """The pids whose command name (``/proc/<pid>/comm``) is *name*, zombies excluded."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/comm", encoding="ascii", errors="replace") as handle:
                    if handle.read().strip() == name and process_alive(int(entry)):
                        found.append(int(entry))
            except OSError:
                continue
    return found


@needs(1, "file rules")
@needs_filter
def test_a_fork_bomb_is_a_timeout_and_leaves_no_process_behind():
    # Doubling six times (64 processes, each trying to leave the group), all
    # asleep so that the machine stays usable; the timeout must take every one.
    name = f"bomb{os.getpid() % 100000}"
    source = f"""
        import ctypes, os, time
        libc = ctypes.CDLL(None)
        for _ in range(6):
            if os.fork() == 0:
                libc.prctl(15, {name.encode()!r}, 0, 0, 0)  # PR_SET_NAME: findable from outside
                try:
                    os.setsid()
                except PermissionError:
                    pass
        time.sleep(60)
        """
    box = []
    runner = threading.Thread(target=lambda: box.append(run(source, timeout=3.0)))
    runner.start()
    most = 0
    try:
        while runner.is_alive():
            most = max(most, len(_processes_named(name)))
            time.sleep(0.05)
        runner.join()
        (result,) = box
        assert result.status == TIMEOUT, result.detail
        assert most >= 60, f"the bomb made only {most} processes: the test proves nothing"
        deadline = time.monotonic() + 5.0
        while _processes_named(name) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _processes_named(name) == []
    finally:
        runner.join()
        for pid in _processes_named(name):
            os.kill(pid, signal.SIGKILL)


@needs(6, "signal scoping")
def test_a_helper_left_by_a_sample_cannot_stop_a_server_or_forge_other_samples_verdicts(
        own_worker):
    # The helper lives as long as its sample (whose end kills it, out of the
    # group or not: the server is a subreaper); meanwhile the honest samples
    # run on another runner, whose server and sessions it attacks.
    warm = execute_samples([item("warm", "pass")], workers=1, progress=False)
    assert warm[0]["status"] == PASSED, warm
    (honest,) = session._POOL.idle
    server = honest.server.process.pid
    name = f"helper{os.getpid() % 100000}"
    box = []
    # Another memory limit is another profile: the attacker gets a runner of its own.
    attacking = threading.Thread(target=lambda: box.append(
        run(attacker(name, server), memory_mb=256, timeout=HELPER_SECONDS + 10)))
    attacking.start()
    helpers = []
    try:
        deadline = time.monotonic() + 10
        while not helpers and time.monotonic() < deadline:
            helpers = _processes_named(name)
            time.sleep(0.02)
        (helper,) = helpers
        for call in ("first", "later"):  # a later call on the same warm runner, too
            plan = [item(f"{call}-{sample}", source) for sample, source, _ in HONEST]
            records = execute_samples(plan, timeout=5.0, workers=1, progress=False)
            assert [r["status"] for r in records] == [state for _, _, state in HONEST], records
            assert not any("retried" in r["detail"] for r in records), records
            assert [r for r in session._POOL.idle if r.profile == honest.profile] == [honest]
            assert honest.server.process.pid == server, "the server was replaced"
            assert _state(server) != "T", "the helper stopped the server"
            assert process_alive(helper), "the helper gave up before the samples ran"
        attacking.join()
        (result,) = box
        assert result.status == ASSERTION_FAILED, result.detail
        assert int(result.stdout_tail) == helper
        assert_gone_soon(helper)  # killed at its sample's end
    finally:
        attacking.join()
        for pid in helpers:
            if process_alive(pid):
                os.kill(pid, signal.SIGKILL)


# --- Reports and verdicts -------------------------------------------------------

def test_a_report_that_fails_to_parse_is_the_programs_own_runtime_error_never_not_run():
    result = run("""
        import os
        os.write(3, b"[" * 5000)  # too deeply nested for any JSON decoder
        assert 1 == 2
        """)
    assert result.status == RUNTIME_ERROR
    assert "without the executor's end-of-program signal" in result.detail
    records = execute_samples([item("deep", "import os\nos.write(3, b'[' * 5000)\nassert 1 == 2\n")],
                              progress=False)
    assert (records[0]["status"], "retried" in records[0]["detail"]) == (RUNTIME_ERROR, False)


# --- The isolation level, the modes, failing closed --------------------------------

def test_every_result_and_every_record_carries_the_isolation_level():
    cap = "capped" if working_folder_capped() else "NOT capped"
    expected = f"{plan_isolation('auto')}; working folder {cap}"
    assert run("pass").isolation == expected
    records = execute_samples([item("a", "pass"), {"sample_id": "b", "task_id": "t",
                                                   "program": None}], progress=False)
    assert [r["isolation"] for r in records] == [expected, expected]


def test_sandbox_off_warns_and_records_that_nothing_was_enforced(monkeypatch):
    monkeypatch.setattr(confinement, "_WARNED", set())
    with pytest.warns(RuntimeWarning, match="sandbox off: programs run with your rights"):
        result = run("pass", sandbox="off")
    sandbox, folder = result.isolation.split("; ")  # and whether its folder was capped
    assert (result.status, sandbox) == (PASSED, "none (sandbox off)")
    assert folder in ("working folder capped", "working folder NOT capped"), folder


@pytest.mark.parametrize("call", ["execute_program", "execute_samples"])
def test_required_on_a_kernel_without_the_network_rules_refuses_before_anything_runs(
        monkeypatch, call):
    monkeypatch.setattr(landlock, "abi_version", lambda: 3)

    def no_runner(*args, **kwargs):
        raise AssertionError("a runner was asked for: something ran")
    monkeypatch.setattr(program_module, "borrow", no_runner)
    monkeypatch.setattr(samples_module, "borrow", no_runner)
    monkeypatch.setattr(samples_module, "Runner", no_runner)
    with pytest.raises(SandboxUnavailable, match=r"network \(needs ABI 4, Linux 6.7\)"):
        if call == "execute_program":
            execute_program("pass", sandbox="required")
        else:
            execute_samples([item("a", "pass")], sandbox="required", progress=False)


@pytest.mark.parametrize("sandbox", ["strict", None])
def test_an_unknown_sandbox_mode_is_refused_naming_it(sandbox):
    with pytest.raises((ValueError, TypeError), match=repr(sandbox)):
        execute_program("pass", sandbox=sandbox)


@pytest.mark.skipif(not servers_possible(), reason="both kinds of runner")
@pytest.mark.parametrize("kind", ["server", "fresh"])
def test_a_sandbox_the_kernel_refuses_means_the_program_never_runs(kind):
    # A plan that claims file rules at ABI 0: the kernel refuses to confine.
    refused = Isolation("auto", 0, ("files",), ("network", "signals"))
    request = build_request("print('ran')\nassert False", 2.0, DEFAULT_MEMORY_MB, refused)
    runner = Runner(profile_for(DEFAULT_MEMORY_MB), fresh=kind == "fresh")
    try:
        raw = run_request(runner, request)
    finally:
        runner.close()
    result = classify_run(raw, 2.0, DEFAULT_MEMORY_MB, refused)
    assert result.status == NOT_RUN
    assert "the sandbox could not be applied" in result.detail
    assert result.stdout_tail == ""


def test_without_landlock_programs_run_as_before_with_a_warning_and_the_level_says_so(
        monkeypatch):
    monkeypatch.setattr(confinement, "_WARNED", set())
    monkeypatch.setattr(program_module, "_WARNED", [True])  # the macOS memory warning: not here
    monkeypatch.setattr(landlock, "abi_version", lambda: 0)
    monkeypatch.setattr(sys, "platform", "darwin")
    with pytest.warns(RuntimeWarning, match="no sandbox here .Landlock is Linux-only, this is darwin"):
        result = run("assert 1 + 1 == 2")
    assert (result.status, result.isolation.split("; ")[0]) == (
        PASSED, "none (Landlock is Linux-only, this is darwin)")


# --- The review round: the kernel keyring, the working folder's removal ---------

@needs_socket_filter()
def test_a_program_cannot_read_the_callers_keyring_or_plant_a_key_in_it():
    from kernel_objects import Keyring

    keyring = Keyring()
    secret = keyring.add(b"instructor-token", b"sk-secret-KEYRING")
    try:
        result = run(f"""
            import ctypes
            libc = ctypes.CDLL(None, use_errno=True)
            libc.syscall.restype = ctypes.c_long
            key = libc.syscall({keyring.keyctl}, 10, -4, b"user", b"instructor-token", 0)
            buffer = ctypes.create_string_buffer(100)
            size = libc.syscall({keyring.keyctl}, 11, key, buffer, 100) if key > 0 else -1
            libc.syscall({keyring.add_key}, b"user", b"planted-by-a-program", b"x", 1, -4)
            assert size < 0, buffer.raw[:size]
            """)
        planted = keyring.find(b"planted-by-a-program")
        if planted is not None:
            keyring.unlink(planted)
    finally:
        keyring.unlink(secret)
    assert result.status == PASSED, result.detail  # its own assert: it read nothing
    assert planted is None, "the program planted a key in the caller's keyring"


@needs(1, "file rules")
def test_removing_a_working_folder_never_follows_a_link_the_program_left(tmp_path, quiet_off):
    # A folder the program locked keeps its link from the first removal; the
    # second pass unlocks what it finds, and must not unlock through the link.
    # Unsandboxed: sandboxed, the filter refuses the chmod that locks the folder.
    victim = tmp_path / "instructor-folder"
    victim.mkdir()
    victim.chmod(0o755)
    result = run(f"""
        import os
        os.mkdir("locked")
        os.symlink({str(victim)!r}, "locked/link")
        os.chmod("locked", 0o500)
        """, sandbox="off")
    assert result.status == PASSED, result.detail
    assert victim.stat().st_mode & 0o777 == 0o755


@needs_socket_filter()
def test_the_fresh_interpreter_fallback_installs_the_socket_filter_too(monkeypatch):
    # It too asked /proc/self/status whether seccomp exists after Landlock had closed it.
    monkeypatch.delattr(os, "fork")
    assert_a_udp_datagram_to_a_local_port_is_refused()


@needs_socket_filter()
def test_a_program_cannot_leave_system_v_memory_behind():
    from kernel_objects import SystemV

    system_v = SystemV()
    key = 0x5F000000 | os.getpid() & 0xFFFFFF
    try:
        result = run(f"""
            import ctypes
            libc = ctypes.CDLL(None, use_errno=True)
            assert libc.shmget({key}, 8 << 20, 0o1600) < 0, "a segment that outlives the run"
            assert libc.msgget({key}, 0o1600) < 0, "a queue that outlives the run"
            """)
        left = system_v.segment(key), system_v.queue(key)
    finally:
        system_v.remove(key)
    assert left == (None, None)
    assert result.status == PASSED, result.detail


def _server_mounts_work():
    """Whether a runner server can have mounts of its own here (root, or user namespaces)."""
    import subprocess

    probe = ("from reasoneval_mini.runner.workdir import enter_private_mounts\n"
             "print(enter_private_mounts())")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=str(REPOSITORY)))
    return done.stdout.strip() == "True"


@needs(1, "file rules")
def test_a_program_cannot_write_past_its_memory_limit_into_its_working_folder():
    # The folder is in /dev/shm (here as large as the machine's memory), where
    # no address-space limit counts what it holds; each file alone is held to 16 MB.
    if not _server_mounts_work():
        pytest.skip("capping the folder needs root or user namespaces, which this kernel refuses")
    result = run(fill_folder(192), memory_mb=64, timeout=10.0)  # three times the memory limit
    assert result.status == PASSED, result.detail
    assert int(result.stdout_tail) <= 64, f"{result.stdout_tail} MB written under a 64 MB limit"
