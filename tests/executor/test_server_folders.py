"""The runner server's folders, tried as an attacker would: one sample against the next.

A runner server has one base folder (on Linux a file system of its
profile's size, the programs' memory limit, mounted once) and runs each
program in ``<base>/run`` in turn: one folder, made once (the programs'
Landlock rule names it) and emptied after each. Each test here is a sample program that
tries to reach the next sample through that folder (files left behind, a
folder it cannot remove, a full or overfull file system, links, an
unsandboxed program's mounts), and checks the next sample's record: the
state it earned, with no retry and no executor failure in its detail.
"""

import os
import shutil
import signal
import subprocess
import sys
import threading
import textwrap
import time

import pytest
from sandbox_runs import fill_folder, item, needs_filter, run

import reasoneval_mini.sandbox.landlock as landlock
import reasoneval_mini.sandbox.seccomp as seccomp
from reasoneval_mini import (
    ASSERTION_FAILED, PASSED, RUNTIME_ERROR, TIMEOUT, execute_samples, execution_summary)
from reasoneval_mini.executor.program import DEFAULT_MEMORY_MB, profile_for
from reasoneval_mini.runner import session
from reasoneval_mini.runner.server import RUN_FOLDER
from reasoneval_mini.runner.workdir import make_workdir, remove_tree
import reasoneval_mini.runner.start as start

# slow: folders that take seconds to remove
pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not hasattr(os, "fork") or sys.platform == "win32",
                                 reason="the runner server runs on POSIX only")]
ABI = landlock.abi_version()


def scrub(path):
    """Remove *path*, whatever the code under test left (a deep tree upsets pytest's cleanup)."""
    if os.path.lexists(path) and shutil.which("rm"):
        subprocess.run(["chmod", "-R", "u+rwx", path], capture_output=True)
        subprocess.run(["rm", "-rf", "--", path], capture_output=True)


def boot_with(statement, monkeypatch):
    """Make every child started in this test run *statement* (on its module ``_entry``) before its function."""
    boot = start.BOOT.replace("_entry.{function}(", statement + "_entry.{function}(")
    assert boot != start.BOOT
    monkeypatch.setattr(start, "BOOT", boot)


def needs_landlock(test):
    return pytest.mark.skipif(sys.platform != "linux" or ABI < 1,
                              reason="needs Landlock's file rules")(test)


SIZE_PROBE = "import os\nst = os.statvfs('.')\nprint(st.f_blocks * st.f_frsize >> 20)\n"


def folder_size_mb(memory_mb):
    """The size of the run folder's file system as a program sees it, under *memory_mb*."""
    result = run(SIZE_PROBE, memory_mb=memory_mb)
    assert result.status == PASSED, result.detail
    return int(result.stdout_tail)


def skip_unless_capped(memory_mb=64):
    if folder_size_mb(memory_mb) != memory_mb:
        pytest.skip("the server cannot mount its folder's file system here "
                    "(needs root or user namespaces)")


def the_warm_runner(memory_mb=DEFAULT_MEMORY_MB):
    """The one idle runner of programs limited to *memory_mb*."""
    (runner,) = [runner for runner in session._POOL.idle
                 if runner.profile == profile_for(memory_mb)]
    return runner


def emptied_soon(path, seconds=5.0):
    """True once *path* is an empty folder or gone, within *seconds* (a server empties its folder after its report)."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            if not os.listdir(path):
                return True
        except FileNotFoundError:
            return True
        except OSError:
            pass
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)


HONEST = [("passing", "assert sorted([2, 1]) == [1, 2]\n", PASSED),
          ("failing", "assert sorted([2, 1]) == [2, 1]\n", ASSERTION_FAILED)]


def assert_honest_samples_unaffected(attacker, sandbox="auto"):
    """*attacker* first, then the honest samples, on one runner: each keeps its own state."""
    plan = [item("attacker", attacker)] + [item(name, source) for name, source, _ in HONEST]
    records = execute_samples(plan, timeout=5.0, workers=1, progress=False, sandbox=sandbox)
    assert [r["status"] for r in records[1:]] == [state for _, _, state in HONEST], records
    for record in records:
        assert "retried" not in record["detail"], record
        assert "executor failure" not in record["detail"], record
    return records[0]


# --- What one sample leaves, the next never sees ----------------------------------

@pytest.mark.parametrize("sandbox", ["auto", "off"])
def test_a_file_left_by_one_sample_is_not_seen_by_the_next(own_worker, quiet_off, sandbox):
    left = item("leaves", """
        import os
        os.makedirs("sub/deeper")
        for name in ("answer.txt", ".hidden", "sub/deeper/cache.json"):
            with open(name, "w") as handle:
                handle.write("left by the first sample")
        """)
    looks = item("looks", """
        import os
        assert os.listdir(".") == [], os.listdir(".")
        assert not os.path.exists("answer.txt")
        """)
    records = execute_samples([left, looks], workers=1, progress=False, sandbox=sandbox)
    assert [r["status"] for r in records] == [PASSED, PASSED], records


def test_home_and_tmpdir_name_the_programs_own_empty_folder(own_worker):
    for _ in range(2):  # the second program on the same server too
        result = run("""
            import os, tempfile
            here = os.getcwd()
            assert os.listdir(here) == []
            assert os.environ["HOME"] == os.environ["TMPDIR"] == here, dict(os.environ)
            assert os.path.expanduser("~") == here
            assert tempfile.gettempdir() == here
            with tempfile.NamedTemporaryFile(delete=False) as handle:
                handle.write(b"x")
            assert os.path.dirname(handle.name) == here
            """)
        assert result.status == PASSED, result.detail


@needs_landlock
def test_a_helper_left_in_the_group_never_writes_into_the_next_samples_folder(own_worker):
    # The helper stays in its sample's process group (so it is killed at the
    # sample's end); until then it tries the next folder's name, <base>/run.
    attacker = """
        import os, time
        if os.fork() == 0:
            os.chdir("..")
            for _ in range(20000):
                for path in ("run/planted", "planted"):
                    try:
                        open(path, "w").close()
                    except OSError:
                        pass
            os._exit(0)
        time.sleep(0.05)
        """
    record = assert_honest_samples_unaffected(attacker)
    assert record["status"] == PASSED, record
    result = run("import os, time\ntime.sleep(0.1)\nassert os.listdir('.') == [], os.listdir('.')")
    assert result.status == PASSED, result.detail


@needs_landlock
def test_a_program_cannot_reach_its_servers_base_folder_by_dot_dot_or_a_link(own_worker):
    result = run("""
        import os
        base = os.path.dirname(os.getcwd())
        os.symlink("..", "up")
        attempts = [lambda: os.listdir(".."), lambda: os.listdir("up"),
                    lambda: open("../planted", "w"), lambda: open("up/planted", "w"),
                    lambda: open(os.path.join(base, "planted"), "w"),
                    lambda: os.mkdir("../run2"), lambda: os.link("up", "../hard"),
                    lambda: os.rename(".", "../moved")]
        for number, attempt in enumerate(attempts):
            try:
                attempt()
            except OSError:
                continue
            raise AssertionError(f"attempt {number} reached the base folder")
        """)
    assert result.status == PASSED, result.detail


@needs_landlock
@needs_filter  # Landlock has no right for a file's mode: only the filter refuses chmod
def test_a_sandboxed_program_cannot_change_the_mode_of_a_file_outside_its_folder(tmp_path):
    victim = tmp_path / "solutions.ipynb"
    victim.write_text("secret")
    victim.chmod(0o600)
    result = run(f"""
        import os
        try:
            os.chmod({str(victim)!r}, 0o644)
        except OSError:
            pass
        """)
    assert result.status == PASSED, result.detail
    assert victim.stat().st_mode & 0o777 == 0o600, "a sandboxed program made it readable by all"


# --- A folder that resists removal --------------------------------------------------

LOCKS = {
    "its own folder read-only": """
        import os
        open("f", "w").write("x")
        os.chmod(".", 0o555)
        """,
    "its own folder mode 000": """
        import os
        open("f", "w").write("x")
        os.mkdir("d")
        os.chmod(".", 0)
        """,
    "nested read-only folders": """
        import os
        os.makedirs("a/b/c")
        for path in ("a/b/c/f", "a/b/g", "a/h"):
            open(path, "w").write("x")
        for path in ("a/b/c", "a/b", "a"):
            os.chmod(path, 0)
        os.chmod(".", 0o500)
        """,
    "the base folder read-only": """
        import os
        open("f", "w").write("x")
        os.chmod("..", 0o500)  # Landlock does not cover chmod: the owner may
        """,
    "a link to the base inside a locked folder": """
        import os
        os.mkdir("locked")
        os.symlink("..", "locked/base")
        os.symlink("/", "locked/root")
        os.chmod("locked", 0o500)
        os.chmod(".", 0o500)
        """,
}


@pytest.mark.parametrize("sandbox", ["auto", "off"])
@pytest.mark.parametrize("lock", sorted(LOCKS))
def test_a_sample_that_locks_its_folder_costs_the_next_sample_nothing(own_worker, quiet_off,
                                                                       lock, sandbox):
    # Sandboxed where the seccomp filter runs, the lock itself is refused
    # (chmod: PermissionError, the program's own runtime_error). Elsewhere it
    # works, and the server removes the folder by its owner's right to chmod,
    # the folder itself included; before, the folder stayed and the next
    # sample failed on "File exists".
    refused = sandbox == "auto" and seccomp.supported()
    expected = RUNTIME_ERROR if refused else PASSED
    record = assert_honest_samples_unaffected(LOCKS[lock], sandbox)
    assert record["status"] == expected, record
    assert ("PermissionError" in record["detail"]) == refused, record
    first = run(LOCKS[lock], sandbox=sandbox)
    second = run("assert 1 + 1 == 2", sandbox=sandbox)
    assert first.status == expected and first.warnings == (), first
    assert second.status == PASSED, second.detail


DEEP = """
    import os
    for _ in range({depth}):
        os.mkdir("d")
        os.chdir("d")
    open("leaf", "w").write("x")
    """


def test_a_folder_nested_thousands_deep_is_removed_and_its_sample_keeps_its_verdict(own_worker):
    # Made in milliseconds; Python 3.11's rmtree recursed once a level and
    # the server answered RecursionError: the sample's own state was lost.
    record = assert_honest_samples_unaffected(DEEP.format(depth=3000))
    assert (record["status"], record["detail"]) == (PASSED, "ran to the end without an exception")



# Bottom-up: each new folder takes the chain so far, so the program's own
# folder never gets deeper than two, and nothing limits the chain's depth
# but the folder's files (32,768 under the default 512 MB).
DEEP_THEN_LOOP = """
    import os
    os.mkdir("chain")
    try:
        for number in range({depth}):
            os.mkdir("next")
            os.rename("chain", "next/chain")
            os.rename("next", "chain")
    except OSError:
        pass
    while True:
        pass
    """


def test_a_failing_programs_deep_folder_does_not_turn_its_sample_into_not_run(own_worker):
    # Removing 32,000 nested folders outlasted the caller's 0.8 s guard: the
    # sample became not_run (even after the retry), and the attempted success
    # rate read 1.0 instead of 0.33.
    plan = [item("deep", DEEP_THEN_LOOP.format(depth=32000))] + [item(name, source) for name, source, _ in HONEST]
    records = execute_samples(plan, timeout=3.0, workers=1, progress=False)
    assert [r["status"] for r in records] == [TIMEOUT] + [state for _, _, state in HONEST], records
    for record in records:
        assert "retried" not in record["detail"] and "executor failure" not in record["detail"], record
    summary = execution_summary(records)
    assert summary["attempted_success_rate"] == pytest.approx(1 / 3)
    after = run("import os\nassert os.listdir('.') == []")  # and the next program's folder is new
    assert after.status == PASSED, after.detail



def test_a_folder_chain_that_takes_seconds_to_remove_still_leaves_its_program_timed_out(own_worker):
    # The same chain, four times as long (a larger limit allows more files):
    # its removal takes seconds, on any machine. The answer must not wait for it.
    result = run(DEEP_THEN_LOOP.format(depth=120000), memory_mb=2048, timeout=2.0)
    assert result.status == TIMEOUT, result.detail
    after = run("import os\nassert os.listdir('.') == []", memory_mb=2048)
    assert after.status == PASSED, after.detail


def test_remove_tree_removes_a_deep_locked_tree_and_never_follows_its_links(tmp_path):
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "keep").write_text("mine")
    folder = make_workdir(str(tmp_path))
    fd = os.open(folder, os.O_RDONLY)
    for _ in range(3000):  # by descriptor: the path grows past PATH_MAX
        os.mkdir("d", dir_fd=fd)
        deeper = os.open("d", os.O_RDONLY, dir_fd=fd)
        os.close(fd)
        fd = deeper
    os.symlink(victim, "link", dir_fd=fd)
    os.fchmod(fd, 0)
    os.close(fd)
    os.chmod(folder, 0o500)
    victim.chmod(0o500)
    try:
        remove_tree(folder)
        assert not os.path.lexists(folder)
    finally:
        scrub(folder)
    assert (victim / "keep").read_text() == "mine"
    assert victim.stat().st_mode & 0o777 == 0o500


def test_a_server_that_could_not_empty_its_folder_is_not_used_for_the_next_program(
        own_worker, monkeypatch):
    # Whatever the reason something stays (here, a server whose emptying does
    # nothing), the next program must not pay for it: the server says so after
    # the program's end, the caller closes it and removes its base at once,
    # and the next program runs on a new server. The folder is emptied after
    # the program's end is reported: its result cannot say so.
    boot_with("_entry.empty_folder = lambda path, deadline=None: False; ", monkeypatch)
    first = run("import os\nopen('f', 'w').write('x')\nprint(os.getppid(), os.path.dirname(os.getcwd()))")
    assert first.status == PASSED, first.detail
    old_server, old_base = first.stdout_tail.split()
    assert not os.path.exists(old_base)
    second = run("import os\nassert os.listdir('.') == []\nprint(os.getppid())")
    assert second.status == PASSED, second.detail
    assert second.stdout_tail.split() != [old_server]


# --- One folder for every session ------------------------------------------------------

LEAVE_ALL_IT_CAN = """
import os
print(os.getppid(), os.stat(".").st_ino, sorted(os.listdir(".")))
os.makedirs("a/b/c")
for name in ("f", "a/g", "a/b/c/h"):
    with open(name, "w") as handle:
        handle.write("left by an earlier program")
os.symlink("/etc", "link")
for fifo in ("fifo", "a/b/fifo"):  # opened without a writer, a FIFO blocks its reader
    os.mkfifo(fifo)
for folder in ("a/b/c", "a/b", "a", "."):
    try:
        os.chmod(folder, 0o500)  # refused by the filter where it runs: locked elsewhere
    except PermissionError:
        pass
"""


def test_every_program_of_a_server_finds_the_same_folder_empty_and_writable(own_worker):
    # The folder is made once (the ruleset built once names it) and emptied
    # after each program, whatever it left there: files, folders, a link,
    # FIFOs (which the emptying must never open), locks. The next program on
    # the same server finds it empty, and may write in it (a ruleset naming a
    # folder made again would refuse that).
    seen = []
    for _ in range(3):
        result = run(LEAVE_ALL_IT_CAN)
        assert result.status == PASSED, result.detail
        server, inode, *listing = result.stdout_tail.split(maxsplit=2)
        seen.append((server, inode, listing[0].strip()))
    assert len({(server, inode) for server, inode, _ in seen}) == 1, seen
    assert all(listing == "[]" for _, _, listing in seen), seen


LEAVE_A_NOTE_IN_THE_FOLDER = """
import os, time
for write in (lambda: os.utime(".", ns=(4242, 4242)),
              lambda: os.setxattr(".", "user.note", b"the answer is 42")):
    try:
        write()
    except OSError:  # refused by the filter where it runs
        pass
while time.time_ns() % 1000 != 42:  # a change of its own, timed to the nanosecond
    pass
open("note", "w").close()
os.remove("note")
"""
READ_THE_FOLDER = ("import os\nst = os.stat('.')\n"
                   "print(st.st_mtime_ns, st.st_atime_ns, os.listxattr('.'))")


def test_a_program_leaves_the_next_nothing_in_its_folders_times_or_attributes(own_worker):
    # One folder for every program: what one sets on it (its times, an
    # attribute) or leaves there by its own changes (the time of its last
    # one) would be a note to the next. The server gives the folder fixed
    # times and no attribute after each program.
    for _ in range(2):
        left = run(LEAVE_A_NOTE_IN_THE_FOLDER)
        assert left.status == PASSED, left.detail
        read = run(READ_THE_FOLDER)
        assert read.status == PASSED, read.detail
        assert read.stdout_tail.split() == ["0", "0", "[]"], read.stdout_tail


def test_a_folder_removed_between_programs_is_made_again_for_the_next(own_worker, monkeypatch):
    # Uncapped (as where the kernel refuses namespaces), the folder is in this
    # machine's /dev/shm, where anyone's cleaner may remove it: the next
    # program gets a new folder, and a ruleset that names it.
    boot_with("_entry.enter_private_mounts = lambda: False; ", monkeypatch)
    first = run("import os\nprint(os.getcwd(), os.getppid())")
    assert first.status == PASSED, first.detail
    folder, server = first.stdout_tail.split()
    scrub(folder)
    second = run("import os\nopen('f', 'w').write('x')\nprint(os.getcwd(), os.getppid())")
    assert second.status == PASSED, second.detail
    assert second.stdout_tail.split() == [folder, server]


# --- The shared file system: full, overfull ------------------------------------------

def test_a_file_system_one_sample_filled_is_empty_again_for_the_next(own_worker):
    skip_unless_capped(64)
    filled = run(fill_folder(128), memory_mb=64, timeout=10.0)  # twice the folder's size
    assert filled.status == PASSED, filled.detail
    assert 48 <= int(filled.stdout_tail) <= 64  # it did fill the folder
    after = run("""
        for number in range(3):  # 48 MB: fits only if the last sample's files are gone
            with open(f"file-{number}", "wb") as handle:
                for _ in range(16):
                    handle.write(b"y" * (1 << 20))
        """, memory_mb=64, timeout=10.0)
    assert after.status == PASSED, after.detail


@pytest.mark.parametrize("kind", ["empty files", "hard links"])
def test_the_files_a_program_makes_cost_the_kernel_no_more_than_its_memory_limit(
        own_worker, kind):
    # An empty file holds no data, so the file system's size never counts
    # it; its inode and name cost the kernel about 1 KiB each. Before, a
    # program made 300,000 of them in about a second under a 64 MB limit.
    skip_unless_capped(64)
    make = ("os.close(os.open(str(made), os.O_CREAT | os.O_WRONLY))" if kind == "empty files"
            else "os.link('target', str(made))")
    result = run(f"""
        import os
        open("target", "w").close()
        made = 0
        try:
            while made < 70000:
                {make}
                made += 1
        except OSError:
            pass
        print(made)
        """, memory_mb=64, timeout=10.0)
    assert result.status == PASSED, result.detail
    assert int(result.stdout_tail) * 1024 <= 64 << 20, result.stdout_tail


# --- Servers replaced: another limit, a death, an unsandboxed program ----------------

def test_each_memory_limit_runs_on_a_server_of_its_own_and_every_base_folder_goes(own_worker):
    # A runner's profile is its folder's size: programs of another memory
    # limit run on a runner (and a server, and a base) of their own, kept warm
    # beside the first; closing the idle runners removes every base.
    sizes, servers = [], []
    for memory_mb in (64, 128, 64):
        sizes.append(folder_size_mb(memory_mb))
        server = the_warm_runner(memory_mb).server
        servers.append((server.process.pid, server.base))
    assert servers[0] == servers[2] and servers[1][0] != servers[0][0]
    assert servers[1][1] != servers[0][1]
    assert all(os.path.exists(base) for _, base in servers)
    session.close_idle()
    assert not any(os.path.exists(base) for _, base in servers)
    if sizes[0] != 64:
        pytest.skip("the folders are not capped here: the sizes cannot be checked")
    assert sizes == [64, 128, 64]


def test_a_request_after_the_server_was_killed_runs_on_a_new_server_and_the_old_folder_goes(
        own_worker):
    assert run("open('f', 'w').write('x')").status == PASSED
    runner = the_warm_runner()
    old_process, old_base = runner.server.process, runner.server.base
    os.kill(old_process.pid, signal.SIGKILL)
    old_process.wait()
    result = run("import os\nassert os.listdir('.') == []")
    assert result.status == PASSED, result.detail
    assert the_warm_runner().server.process.pid != old_process.pid
    assert not os.path.exists(old_base)


def test_a_server_killed_while_its_program_runs_leaves_no_folder_and_the_next_runs(own_worker):
    assert run("pass").status == PASSED
    runner = the_warm_runner()
    server, base = runner.server.process.pid, runner.server.base
    killer = threading.Timer(0.3, os.kill, (server, signal.SIGKILL))
    killer.start()
    try:
        lost = run("import time\nopen('f', 'w').write('x')\ntime.sleep(3)", timeout=5.0)
    finally:
        killer.cancel()
    assert lost.status == "not_run" and "the runner failed" in lost.detail, lost.detail
    assert not os.path.exists(base)
    result = run("import os\nassert os.listdir('.') == []")
    assert result.status == PASSED, result.detail


@needs_landlock
def test_an_unsandboxed_program_cannot_shrink_the_folders_of_later_sandboxed_programs(
        own_worker, quiet_off):
    # With the sandbox off a program keeps the server's powers over its own
    # mount namespace: it mounted a 1 MB file system over the base, and every
    # later sandboxed program on that warm server failed to write 4 MB.
    # (First on a new server: one that ran a sandboxed program has given up its powers.)
    attack = run("""
        import ctypes, os
        libc = ctypes.CDLL(None, use_errno=True)
        base = os.path.dirname(os.getcwd()).encode()
        print(libc.mount(b"tmpfs", base, b"tmpfs", 0, b"size=1m"))
        """, sandbox="off")
    if attack.stdout_tail.strip() != "0":
        pytest.skip("an unsandboxed program cannot mount here: nothing to attack")
    assert folder_size_mb(DEFAULT_MEMORY_MB) == DEFAULT_MEMORY_MB
    result = run("open('f', 'wb').write(b'x' * (4 << 20))")
    assert result.status == PASSED, result.detail


# --- What the record says of the folder cap ----------------------------------------

FILL_96_MB = fill_folder(96)  # past a 64 MB limit


def test_a_record_says_its_folder_was_not_capped_where_its_server_could_not_mount_one(
        own_worker, monkeypatch):
    # As where user namespaces are off: the server's namespaces are refused,
    # and a memory_mb=64 program wrote 960 MB into /dev/shm while every record
    # said the sandbox was whole.
    boot_with("_entry.enter_private_mounts = lambda: False; ", monkeypatch)
    result = run(FILL_96_MB, memory_mb=64, timeout=20.0)
    assert result.status == PASSED, result.detail
    assert int(result.stdout_tail) == 96  # the oracle: nothing held it to 64 MB
    assert result.isolation.endswith("; working folder NOT capped"), result.isolation
    assert any("not capped" in warning for warning in result.warnings), result.warnings
    (record,) = execute_samples([item("fills", FILL_96_MB)], workers=1, progress=False)
    assert record["isolation"] == result.isolation


def test_a_record_says_its_folder_was_capped_where_a_program_could_not_fill_it(own_worker):
    skip_unless_capped(64)
    result = run(FILL_96_MB, memory_mb=64, timeout=20.0)
    assert result.status == PASSED, result.detail
    assert int(result.stdout_tail) <= 64  # the oracle: the cap held
    assert result.isolation.endswith("; working folder capped"), result.isolation
    assert result.warnings == (), result.warnings


# --- Without a file system of its own --------------------------------------------------

def test_without_a_capped_file_system_each_run_folder_is_still_emptied(
        own_worker, monkeypatch):
    # Where the kernel refuses namespaces the base is a plain folder (here, a
    # server told it cannot have mounts of its own), which this process sees:
    # the run folder is emptied the same way (removal raised RecursionError
    # before).
    boot_with("_entry.enter_private_mounts = lambda: False; ", monkeypatch)
    programs = [DEEP.format(depth=3000), LOCKS["nested read-only folders"],
                "import os\nassert os.listdir('.') == []\nassert os.environ['HOME'] == os.getcwd()"]
    for source in programs:
        # A generous limit: on a busy machine (the suite on every core) the
        # deep tree alone may take seconds to make.
        result = run(source, timeout=30.0)
        base = the_warm_runner().server.base
        try:
            refused = source == LOCKS["nested read-only folders"] and seccomp.supported()
            assert result.status == (RUNTIME_ERROR if refused else PASSED), result.detail
            assert result.isolation.endswith("; working folder NOT capped"), result.isolation
            # Emptied by the server after its report, or removed with the
            # whole base when the server gave up and was replaced.
            assert emptied_soon(os.path.join(base, RUN_FOLDER)), os.listdir(base)
        finally:
            if not emptied_soon(os.path.join(base, RUN_FOLDER), seconds=0):
                scrub(os.path.join(base, RUN_FOLDER))


def test_a_folder_its_server_could_not_remove_in_time_is_removed_all_the_same(
        own_worker, monkeypatch):
    # The chain of 32,000 folders outlasts the server's removal deadline: the
    # server gives up, says so, and stops. Uncapped (as where the kernel
    # refuses namespaces), the folder is in this machine's /dev/shm, and must
    # not stay there while a runner waits, warm, for a next program that may
    # never come: the caller removes the server's base before it returns.
    boot_with("_entry.enter_private_mounts = lambda: False; ", monkeypatch)
    program = "import os\nprint(os.getcwd(), flush=True)\n" + textwrap.dedent(
        DEEP_THEN_LOOP.format(depth=32000))
    result = run(program, timeout=2.0)
    assert result.status == TIMEOUT, result.detail
    folder = result.stdout_tail.strip()
    try:
        assert folder.endswith("/" + RUN_FOLDER) and not os.path.lexists(folder), folder
    finally:
        scrub(folder)