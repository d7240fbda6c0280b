"""What Landlock does not rule, tried as an attacker would: each attack is a real sandboxed run.

Every program goes through ``execute_program`` with the default
``sandbox="auto"``. Each attack below reached something outside its run on
this course's machine (Landlock ABI 7, as root) before the seccomp filter
refused it: a file's owner or times, another process's priority, CPUs or
scheduling class, a watch on a folder, a lease that holds up a writer. A test
is skipped where the filter does not run (off x86_64 and aarch64, or no
Landlock: then nothing here is enforced, and the README says so).
"""

import os
import stat
import subprocess
import sys
import sysconfig
import threading
import time
from pathlib import Path

import pytest
from sandbox_runs import needs, needs_filter, run

import reasoneval_mini
from reasoneval_mini import PASSED, RUNTIME_ERROR

REPOSITORY = Path(__file__).resolve().parents[2]
PACKAGE = Path(reasoneval_mini.__file__).resolve().parent


@pytest.fixture
def capless_victim():
    """A process of the same user outside every sandbox, without capabilities, until the test ends.

    Without capabilities as any user's processes are when the course does
    not run as root, and as the runner servers are: the kernel lets a process
    renice only a target whose capabilities are a subset of its own, so a
    root process keeping its capabilities is out of reach anyway.
    """
    victim = subprocess.Popen(
        [sys.executable, "-c", "import sys, time\n"
         "from reasoneval_mini.sandbox import policy\n"
         "policy.drop_capabilities()\n"
         "print('ready', flush=True)\n"
         "time.sleep(30)\n"],
        stdout=subprocess.PIPE, text=True)
    try:
        assert victim.stdout.readline() == "ready\n"
        yield victim.pid
    finally:
        victim.kill()
        victim.wait()
        victim.stdout.close()


# --- Files: owner and times ---------------------------------------------------

@needs(1, "file rules")
@needs_filter
def test_a_program_cannot_clear_the_set_user_id_bit_or_move_the_group_of_a_file_outside_its_folder(
        tmp_path, quiet_off):
    # Landlock rules no owner: chown(2) to the file's own owner is allowed to
    # that owner, and the kernel then clears the set-user-ID bit (as it would
    # on /usr/bin/passwd, for root); its group can go to any group of the user.
    victim = tmp_path / "tool"
    victim.write_text("#!/bin/sh\n")
    victim.chmod(0o4755)
    before = victim.stat()
    attack = f"""
        import os
        refused = 0
        for change in (os.chown, os.lchown):
            try:
                change({str(victim)!r}, os.getuid(), os.getgid())
            except PermissionError:
                refused += 1
        print(refused)
        """
    result = run(attack)
    assert (result.status, result.stdout_tail) == (PASSED, "2\n"), result.detail
    after = victim.stat()
    assert (stat.S_IMODE(after.st_mode), after.st_gid) == (0o4755, before.st_gid)
    if os.getgid() == before.st_gid:  # the contrast clears the bit: shown only where it is harmless
        assert run(attack, sandbox="off").stdout_tail == "0\n"
        assert stat.S_IMODE(victim.stat().st_mode) == 0o755  # the attack is real


@needs(1, "file rules")
@needs_filter
def test_a_program_cannot_set_the_times_of_a_file_outside_its_folder(tmp_path):
    # Landlock rules no times either: a program back-dated any file its user
    # owns (a submission, a notebook) to 1970, by path, without opening it.
    victim = tmp_path / "submission.ipynb"
    victim.write_text("{}")
    before = victim.stat().st_mtime_ns
    result = run(f"""
        import os
        refused = 0
        for times in ((0, 0), None):
            try:
                os.utime({str(victim)!r}, times)
            except PermissionError:
                refused += 1
        print(refused)
        """)
    assert (result.status, result.stdout_tail) == (PASSED, "2\n"), result.detail
    assert victim.stat().st_mtime_ns == before


# --- Other processes: priority, CPUs, scheduling class ---------------------------

@needs(1, "file rules")
@needs_filter
def test_a_program_cannot_renice_pin_or_idle_a_process_outside_its_run(capless_victim):
    # Landlock scopes signals, not scheduling: a program set a process of the
    # same user to nice 19, one CPU, and SCHED_IDLE (it then runs only when
    # the machine is otherwise idle). Its runner server is such a process, and
    # everything it forks later inherits the damage; so is a grader run by a
    # user who is not root.
    pid = capless_victim
    cpus = sorted(os.sched_getaffinity(pid))
    before = (os.getpriority(os.PRIO_PROCESS, pid), cpus, os.sched_getscheduler(pid))
    result = run(f"""
        import os
        reached = []
        attacks = {{
            "nice": lambda: os.setpriority(os.PRIO_PROCESS, {pid}, 19),
            "group nice": lambda: os.setpriority(os.PRIO_PGRP, os.getpgid({pid}), 19),
            "one cpu": lambda: os.sched_setaffinity({pid}, {{{cpus[-1]}}}),
            "idle": lambda: os.sched_setscheduler({pid}, os.SCHED_IDLE, os.sched_param(0)),
            "param": lambda: os.sched_setparam({pid}, os.sched_param(0)),
            # Its own runner server: asked for what it has already, so that nothing changes either way.
            "server nice": lambda: os.setpriority(os.PRIO_PROCESS, os.getppid(),
                                                  os.getpriority(os.PRIO_PROCESS, os.getppid())),
            "server cpus": lambda: os.sched_setaffinity(os.getppid(), os.sched_getaffinity(os.getppid())),
        }}
        for name, attack in attacks.items():
            try:
                attack()
                reached.append(name)
            except PermissionError:
                pass
        print(reached)
        """)
    assert (result.status, result.stdout_tail) == (PASSED, "[]\n"), result.detail
    assert (os.getpriority(os.PRIO_PROCESS, pid), sorted(os.sched_getaffinity(pid)),
            os.sched_getscheduler(pid)) == before


@needs(1, "file rules")
@needs_filter
def test_a_program_may_still_renice_pin_and_lock_itself_and_touch_its_own_files():
    result = run("""
        import fcntl, os, pathlib
        os.nice(1)
        os.setpriority(os.PRIO_PROCESS, 0, 2)
        os.sched_setaffinity(0, os.sched_getaffinity(0))
        os.sched_setscheduler(0, os.SCHED_BATCH, os.sched_param(0))
        note = pathlib.Path("note.txt")
        note.touch()
        note.touch()  # exists: the times are refused, and touch falls back to opening it
        with open(note, "r+") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            fcntl.lockf(handle, fcntl.LOCK_EX)
            flags = fcntl.fcntl(handle, fcntl.F_GETFL)
        print(os.getpriority(os.PRIO_PROCESS, 0), os.sched_getscheduler(0) == os.SCHED_BATCH, flags > 0)
        """)
    assert (result.status, result.stdout_tail) == (PASSED, "2 True True\n"), result.detail


@needs(1, "file rules")
@needs_filter
def test_a_program_cannot_change_the_inode_flags_or_generation_of_an_installed_file():
    # chattr's ioctls need a descriptor opened for reading and owning the
    # file, not writing it: a program marked a file of site-packages
    # "no dump" (backups skip it) and changed its generation number, for
    # good. Landlock rules ioctl on device files only.
    import fcntl

    target = Path(sysconfig.get_paths()["purelib"]) / f"reasoneval_flags_probe_{os.getpid()}.txt"
    target.write_text("installed\n")
    flags_before = None
    try:
        with open(target, "rb") as handle:
            try:
                flags_before = fcntl.ioctl(handle, 0x80086601, bytes(8))  # FS_IOC_GETFLAGS
                generation_before = fcntl.ioctl(handle, 0x80087601, bytes(8))  # FS_IOC_GETVERSION
            except OSError as error:
                pytest.skip(f"this file system keeps no inode flags ({error})")
        result = run(f"""
            import fcntl, os, struct
            handle = os.open({str(target)!r}, os.O_RDONLY)
            changed = []
            flags = struct.unpack("l", fcntl.ioctl(handle, 0x80086601, bytes(8)))[0]
            generation = struct.unpack("l", fcntl.ioctl(handle, 0x80087601, bytes(8)))[0]
            attrs = bytearray(fcntl.ioctl(handle, 0x801C581F, bytes(28)))  # FS_IOC_FSGETXATTR
            struct.pack_into("I", attrs, 0, struct.unpack_from("I", attrs)[0] | 0x80)  # NODUMP
            for name, command, argument in (
                    ("flags", 0x40086602, struct.pack("l", flags | 0x40)),  # FS_NODUMP_FL
                    ("xflags", 0x401C5820, bytes(attrs)),
                    ("generation", 0x40087602, struct.pack("l", generation + 1))):
                try:
                    fcntl.ioctl(handle, command, argument)
                    changed.append(name)
                except PermissionError:
                    pass
            print(changed)
            """)
        assert (result.status, result.stdout_tail) == (PASSED, "[]\n"), result.detail
        with open(target, "rb") as handle:
            assert fcntl.ioctl(handle, 0x80086601, bytes(8)) == flags_before
            assert fcntl.ioctl(handle, 0x80087601, bytes(8)) == generation_before
    finally:
        if flags_before is not None:  # clear what a failed run may have set, then remove
            with open(target, "rb") as handle:
                fcntl.ioctl(handle, 0x40086602, flags_before)
        target.unlink()


# --- Watching and holding up files ----------------------------------------------

@needs(1, "file rules")
@needs_filter
def test_a_program_cannot_watch_the_solutions_folder():
    # Landlock refuses listing solutions/, but not a watch on it: with one
    # a program learned the name of every file created or opened there
    # while it ran (a grader reading hidden tests, an instructor saving).
    solutions = REPOSITORY / "solutions"
    assert solutions.is_dir(), "the masters are the secret this test guards"
    result = run(f"""
        import ctypes, fcntl, os
        libc = ctypes.CDLL(None, use_errno=True)
        placed = []
        instance = libc.inotify_init1(os.O_CLOEXEC)
        if instance >= 0 and libc.inotify_add_watch(instance, {str(solutions).encode()!r}, 0xFFF) >= 0:
            placed.append("inotify")
        if libc.fanotify_init(0x200, 0) >= 0:  # FAN_REPORT_FID: what an unprivileged user may ask
            placed.append("fanotify")
        folder = os.open({str(PACKAGE)!r}, os.O_RDONLY)  # a folder it may read, watched with dnotify
        try:
            fcntl.fcntl(folder, fcntl.F_NOTIFY, fcntl.DN_CREATE | fcntl.DN_MULTISHOT)
            placed.append("dnotify")
        except PermissionError:
            pass
        print(placed)
        """)
    assert (result.status, result.stdout_tail) == (PASSED, "[]\n"), result.detail


@needs(1, "file rules")
@needs_filter
def test_a_program_cannot_hold_up_a_writer_outside_its_run_with_a_lease():
    # A read lease needs only a descriptor opened for reading and owning the
    # file (root owns every file of the installation): then every process that
    # opens the file for writing waits (up to the lease-break time, 45 s) for
    # the holder, which can ignore the notice. Here a non-blocking open shows it.
    target = Path(sysconfig.get_paths()["purelib"]) / f"reasoneval_lease_probe_{os.getpid()}.txt"
    target.write_text("installed\n")
    try:
        box = {}
        attack = threading.Thread(target=lambda: box.update(result=run(f"""
            import fcntl, os, signal, time
            signal.signal(signal.SIGIO, signal.SIG_IGN)  # ignore the lease-break notice
            handle = os.open({str(target)!r}, os.O_RDONLY)
            fcntl.fcntl(handle, fcntl.F_SETLEASE, fcntl.F_RDLCK)
            time.sleep(1.0)
            """)))
        attack.start()
        held_up = False
        while attack.is_alive() and not held_up:
            try:
                handle = os.open(target, os.O_WRONLY | os.O_NONBLOCK)
            except BlockingIOError:  # the lease holds this writer up
                held_up = True
            else:
                os.close(handle)
                time.sleep(0.005)
        attack.join()
        result = box["result"]
        assert not held_up
        assert (result.status, result.detail.split(":")[0]) == (RUNTIME_ERROR, "PermissionError")
        assert target.read_text() == "installed\n"
    finally:
        target.unlink()



# --- Shared kernel state ----------------------------------------------------

@needs(1, "file rules")
@needs_filter
def test_a_program_cannot_leave_a_posix_message_queue_for_a_later_run(quiet_off):
    # Like a System V queue, a POSIX queue outlives every process of the run.
    # Landlock refuses *opening* one (its file system has no rule), but the
    # kernel has made it by then: it stayed, and a later run told "refused"
    # (it exists) from "no such queue", so its name carried data across runs.
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    name = f"/reasoneval_queue_{os.getpid()}".encode()
    attack = f"""
        import ctypes, os
        libc = ctypes.CDLL(None, use_errno=True)
        queue = libc.mq_open({name!r}, os.O_CREAT | os.O_RDWR, 0o600, None)
        print("made" if queue >= 0 else os.strerror(ctypes.get_errno()))
        """
    try:
        result = run(attack)
        assert (result.status, result.stdout_tail) == (PASSED, "Permission denied\n"), result.detail
        assert libc.mq_unlink(name) == -1  # nothing left behind
        assert run(attack, sandbox="off").stdout_tail == "made\n"  # the attack is real
    finally:
        libc.mq_unlink(name)


@needs(6, "signal scoping")
def test_a_program_cannot_signal_a_process_outside_its_run_through_a_descriptors_owner(capless_victim):
    # F_SETOWN names any process as the owner of a descriptor; with O_ASYNC
    # the kernel then sends it SIGIO (whose default action ends it) on every
    # write. Landlock's signal scoping covers this path too: the owner is set,
    # the signal never arrives.
    result = run(f"""
        import fcntl, os
        read_end, write_end = os.pipe()
        fcntl.fcntl(read_end, fcntl.F_SETOWN, {capless_victim})
        fcntl.fcntl(read_end, fcntl.F_SETFL, os.O_ASYNC | os.O_NONBLOCK)
        os.write(write_end, b"x")
        print("written")
        """)
    assert (result.status, result.stdout_tail) == (PASSED, "written\n"), result.detail
    time.sleep(0.05)  # a signal sent would have arrived by now
    assert os.waitpid(capless_victim, os.WNOHANG) == (0, 0)  # still running


# --- Memory outside every limit -------------------------------------------------

MEMFD_HOARD = """
import os
held = []
for _ in range(8):  # 8 x 16 MB (the file-size limit): twice the 64 MB limit, outside the address space
    try:
        fd = os.memfd_create("hoard")
    except OSError:
        break
    held.append(fd)
    for _ in range(16):
        os.write(fd, b"x" * (1 << 20))
total = sum(os.fstat(fd).st_size for fd in held) >> 20
assert total <= 64, f"held {total} MB in memfds under a 64 MB limit"
"""


@needs(1, "file rules")
@needs_filter
def test_a_program_cannot_hold_memory_past_its_limit_in_memfds(quiet_off):
    # A memfd's pages count against no address space: with memory_mb=64 one
    # program held 896 MB in 56 of them.
    assert run(MEMFD_HOARD, memory_mb=64, sandbox="off").status != PASSED  # the attack itself
    result = run(MEMFD_HOARD, memory_mb=64)
    assert result.status == PASSED, result.detail


@needs_filter
def test_a_program_cannot_resize_a_pipe_to_stall_its_caller_or_take_the_users_pipe_memory():
    # A run shrank the pipe its caller writes requests to (one page: the
    # caller then waited in write(2) on it), and could grow its pipes to take
    # its user's pipe memory, so that every other run's new pipes got one
    # page. A pipe it makes for itself works as before, at its default size.
    result = run("""
        import fcntl, os
        refused = []
        for fd in (1, 2):
            try:
                fcntl.fcntl(fd, 1031, 4096)  # F_SETPIPE_SZ
            except PermissionError:
                refused.append(fd)
        read_end, write_end = os.pipe()
        os.write(write_end, b"x" * 60000)  # a default pipe takes it at once
        print(refused, len(os.read(read_end, 65536)))
        """)
    assert (result.status, result.stdout_tail) == (PASSED, "[1, 2] 60000\n"), result.detail
