"""The seccomp filter: its program run by a small BPF interpreter, and installed for real."""

import errno
import os
import socket

import pytest

import reasoneval_mini.sandbox.seccomp as seccomp

X86_64, I386 = 0xC000003E, 0x40000003
SOCKET, SOCKETPAIR, IO_URING_SETUP, READ = 41, 53, 425, 0  # x86_64 numbers
ADD_KEY, REQUEST_KEY, KEYCTL, UNSHARE, CLONE, CLONE3, FORK = 248, 249, 250, 272, 56, 435, 57
SHMGET, SHMAT, MSGGET, SHMDT = 29, 30, 68, 67
BPF, PERF_EVENT_OPEN, USERFAULTFD = 321, 298, 323
SETPGID, SETSID, GETPGID, GETSID = 109, 112, 121, 124  # arch/x86/entry/syscalls/syscall_64.tbl
CHMOD, FCHMOD, FCHMODAT, FCHMODAT2, FCHOWN = 90, 91, 268, 452, 93
SETXATTR, FSETXATTR, REMOVEXATTR, GETXATTR, SETXATTRAT = 188, 190, 197, 191, 463
PRLIMIT64, IOPRIO_SET, IOPRIO_GET = 302, 251, 252
CHOWN, LCHOWN, FCHOWNAT, UTIME, UTIMES, FUTIMESAT, UTIMENSAT = 92, 94, 260, 132, 235, 261, 280
SETPRIORITY, GETPRIORITY, SCHED_SETPARAM, SCHED_SETSCHEDULER = 141, 140, 142, 144
SCHED_SETAFFINITY, SCHED_GETAFFINITY, SCHED_SETATTR = 203, 204, 314
INOTIFY_INIT, INOTIFY_INIT1, INOTIFY_ADD_WATCH, FANOTIFY_INIT, FANOTIFY_MARK = 253, 294, 254, 300, 301
FCNTL, FLOCK, IOCTL = 72, 73, 16
MQ_OPEN, MQ_UNLINK, MQ_TIMEDSEND = 240, 241, 242
MEMFD_CREATE, MEMFD_SECRET, MMAP = 319, 447, 9
# include/uapi/linux/fcntl.h, asm-generic/fcntl.h, linux/resource.h
F_GETFD, F_SETFD, F_GETFL, F_SETLK, F_DUPFD_CLOEXEC, F_SETLEASE, F_GETLEASE, F_NOTIFY = (
    1, 2, 3, 6, 1030, 1024, 1025, 1026)
PRIO_PROCESS, PRIO_PGRP, PRIO_USER = 0, 1, 2
DENY = seccomp.SECCOMP_RET_ERRNO | errno.EACCES
NO_SUCH_CALL = seccomp.SECCOMP_RET_ERRNO | errno.ENOSYS
# What glibc's fork() and pthread_create() pass to clone(2) (include/uapi/linux/sched.h).
FORK_FLAGS = 0x01200000 | 17  # CLONE_CHILD_SETTID | CLONE_CHILD_CLEARTID | SIGCHLD
THREAD_FLAGS = 0x003D0F00  # CLONE_VM | FS | FILES | SIGHAND | THREAD | SYSVSEM | SETTLS | ...


def run_filter(program, arch, nr, flags=0, second=0):
    """What the kernel would answer for call *nr* (arguments *flags*, *second*) through *arch*'s entry point."""
    accumulator, pc = 0, 0
    while True:
        code, jt, jf, k = program[pc]
        if code == seccomp.BPF_LD | seccomp.BPF_W | seccomp.BPF_ABS:
            accumulator = {0: nr, 4: arch, 16: flags & 0xFFFFFFFF, 24: second & 0xFFFFFFFF}[k]
            pc += 1
        elif code == seccomp.BPF_JMP | seccomp.BPF_JEQ | seccomp.BPF_K:
            pc += 1 + (jt if accumulator == k else jf)
        elif code == seccomp.BPF_JMP | seccomp.BPF_JGE | seccomp.BPF_K:
            pc += 1 + (jt if accumulator >= k else jf)
        elif code == seccomp.BPF_JMP | seccomp.BPF_JSET | seccomp.BPF_K:
            pc += 1 + (jt if accumulator & k else jf)
        elif code == seccomp.BPF_RET | seccomp.BPF_K:
            return k
        else:
            raise AssertionError(f"unknown instruction {code:#x}")


@pytest.mark.parametrize("arch, nr, expected", [
    (X86_64, SOCKET, DENY),
    (X86_64, ADD_KEY, DENY),
    (X86_64, REQUEST_KEY, DENY),
    (X86_64, KEYCTL, DENY),
    (X86_64, UNSHARE, DENY),
    (X86_64, SHMGET, DENY),
    (X86_64, SHMAT, DENY),
    (X86_64, MSGGET, DENY),
    (X86_64, SHMDT, seccomp.SECCOMP_RET_ALLOW),
    (X86_64, MQ_OPEN, DENY),
    (X86_64, MQ_UNLINK, DENY),
    (X86_64, MQ_TIMEDSEND, DENY),
    (X86_64, MEMFD_CREATE, DENY),  # memory that no address-space limit counts
    (X86_64, MEMFD_SECRET, DENY),
    (X86_64, MMAP, seccomp.SECCOMP_RET_ALLOW),
    (X86_64, BPF, DENY),
    (X86_64, PERF_EVENT_OPEN, DENY),
    (X86_64, USERFAULTFD, DENY),
    (X86_64, SETSID, DENY),
    (X86_64, SETPGID, DENY),
    (X86_64, GETPGID, seccomp.SECCOMP_RET_ALLOW),
    (X86_64, GETSID, seccomp.SECCOMP_RET_ALLOW),
    (X86_64, CHMOD, DENY),
    (X86_64, FCHMOD, DENY),
    (X86_64, FCHMODAT, DENY),
    (X86_64, FCHMODAT2, DENY),
    (X86_64, CHOWN, DENY),
    (X86_64, FCHOWN, DENY),
    (X86_64, LCHOWN, DENY),
    (X86_64, FCHOWNAT, DENY),
    (X86_64, UTIME, DENY),
    (X86_64, UTIMES, DENY),
    (X86_64, FUTIMESAT, DENY),
    (X86_64, UTIMENSAT, DENY),
    (X86_64, INOTIFY_INIT, DENY),
    (X86_64, INOTIFY_INIT1, DENY),
    (X86_64, INOTIFY_ADD_WATCH, DENY),
    (X86_64, FANOTIFY_INIT, DENY),
    (X86_64, FANOTIFY_MARK, DENY),
    (X86_64, GETPRIORITY, seccomp.SECCOMP_RET_ALLOW),
    (X86_64, SCHED_GETAFFINITY, seccomp.SECCOMP_RET_ALLOW),
    (X86_64, FLOCK, seccomp.SECCOMP_RET_ALLOW),
    (X86_64, SETXATTR, DENY),
    (X86_64, FSETXATTR, DENY),
    (X86_64, SETXATTRAT, DENY),
    (X86_64, REMOVEXATTR, DENY),
    (X86_64, GETXATTR, seccomp.SECCOMP_RET_ALLOW),
    (X86_64, IOPRIO_SET, DENY),
    (X86_64, IOPRIO_GET, seccomp.SECCOMP_RET_ALLOW),
    (X86_64, CLONE3, NO_SUCH_CALL),
    (X86_64, FORK, seccomp.SECCOMP_RET_ALLOW),
    (X86_64, IO_URING_SETUP, DENY),
    (X86_64, SOCKETPAIR, seccomp.SECCOMP_RET_ALLOW),
    (X86_64, READ, seccomp.SECCOMP_RET_ALLOW),
    (X86_64, seccomp.X32_SYSCALL_BIT | SOCKET, DENY),  # the x32 entry point
    (X86_64, seccomp.X32_SYSCALL_BIT | READ, DENY),
    (I386, 102, DENY),  # socketcall through the 32-bit entry point
    (I386, 3, DENY),
], ids=["socket", "add_key", "request_key", "keyctl", "unshare", "shmget", "shmat", "msgget", "shmdt", "mq_open", "mq_unlink", "mq_timedsend", "memfd_create", "memfd_secret", "mmap", "bpf", "perf_event_open", "userfaultfd", "setsid", "setpgid", "getpgid", "getsid", "chmod", "fchmod", "fchmodat", "fchmodat2", "chown", "fchown", "lchown", "fchownat", "utime", "utimes", "futimesat",
        "utimensat", "inotify_init", "inotify_init1", "inotify_add_watch", "fanotify_init", "fanotify_mark",
        "getpriority", "sched_getaffinity", "flock", "setxattr", "fsetxattr", "setxattrat", "removexattr", "getxattr", "ioprio_set", "ioprio_get", "clone3", "fork", "io_uring", "socketpair", "read", "x32-socket", "x32-read", "i386-socketcall",
        "i386-read"])
def test_the_filter_denies_new_sockets_and_foreign_entry_points_only(arch, nr, expected):
    program = seccomp._program(*seccomp._ARCHITECTURES["x86_64"])
    assert run_filter(program, arch, nr) == expected


@pytest.mark.parametrize("flags, expected", [
    (FORK_FLAGS, seccomp.SECCOMP_RET_ALLOW),
    (THREAD_FLAGS, seccomp.SECCOMP_RET_ALLOW),
    (FORK_FLAGS | seccomp.CLONE_NEWUSER, DENY),
    (seccomp.CLONE_NEWNS | 17, DENY),
    (seccomp.CLONE_NEWPID | 17, DENY),
    (seccomp.CLONE_NEWNET, DENY),
    (1 << 32 | FORK_FLAGS, seccomp.SECCOMP_RET_ALLOW),  # clone3-only flags are not clone's
], ids=["fork", "thread", "new-user-ns", "new-mount-ns", "new-pid-ns", "new-net-ns", "high-bits"])
def test_the_filter_lets_clone_start_processes_and_threads_but_no_namespace(flags, expected):
    program = seccomp._program(*seccomp._ARCHITECTURES["x86_64"])
    assert run_filter(program, X86_64, CLONE, flags) == expected


@pytest.mark.parametrize("pid, expected", [
    (0, seccomp.SECCOMP_RET_ALLOW),  # setrlimit(), resource.prlimit(0, ...): the caller itself
    (1, DENY),
    (4242, DENY),  # another process: a classmate's grading, the grader
    (1 << 32, seccomp.SECCOMP_RET_ALLOW),  # the kernel reads a 32-bit pid_t: this is pid 0
], ids=["self", "init", "other", "high-half-ignored"])
def test_the_filter_lets_prlimit_reach_the_caller_only(pid, expected):
    program = seccomp._program(*seccomp._ARCHITECTURES["x86_64"])
    assert run_filter(program, X86_64, PRLIMIT64, flags=pid) == expected


@pytest.mark.parametrize("nr", [SCHED_SETPARAM, SCHED_SETSCHEDULER, SCHED_SETAFFINITY, SCHED_SETATTR],
                         ids=["sched_setparam", "sched_setscheduler", "sched_setaffinity", "sched_setattr"])
@pytest.mark.parametrize("pid, expected", [
    (0, seccomp.SECCOMP_RET_ALLOW),  # os.sched_setaffinity(0, ...): the caller itself
    (1, DENY),
    (4242, DENY),  # the fork server: SCHED_IDLE there, and every later program starves
], ids=["self", "init", "other"])
def test_the_filter_lets_scheduling_calls_reach_the_caller_only(nr, pid, expected):
    program = seccomp._program(*seccomp._ARCHITECTURES["x86_64"])
    assert run_filter(program, X86_64, nr, flags=pid) == expected


@pytest.mark.parametrize("which, who, expected", [
    (PRIO_PROCESS, 0, seccomp.SECCOMP_RET_ALLOW),  # os.nice(), the C library's nice()
    (PRIO_PROCESS, 4242, DENY),  # the grader, renice'd to 19
    (PRIO_PGRP, 4242, DENY),
    (PRIO_USER, 0, DENY),  # every process of the user, the whole machine's for root
    (PRIO_PGRP, 0, DENY),  # the run's own group: allowed by the kernel, refused here for simplicity
], ids=["self", "other-process", "other-group", "whole-user", "own-group"])
def test_the_filter_lets_setpriority_reach_the_caller_only(which, who, expected):
    program = seccomp._program(*seccomp._ARCHITECTURES["x86_64"])
    assert run_filter(program, X86_64, SETPRIORITY, flags=which, second=who) == expected


@pytest.mark.parametrize("command, expected", [
    (F_GETFD, seccomp.SECCOMP_RET_ALLOW),
    (F_SETFD, seccomp.SECCOMP_RET_ALLOW),
    (F_GETFL, seccomp.SECCOMP_RET_ALLOW),
    (F_SETLK, seccomp.SECCOMP_RET_ALLOW),
    (F_DUPFD_CLOEXEC, seccomp.SECCOMP_RET_ALLOW),
    (F_GETLEASE, seccomp.SECCOMP_RET_ALLOW),
    (F_SETLEASE, DENY),  # holds up every later writer of a file it can only read
    (F_NOTIFY, DENY),  # watches a folder outside the run
    (1 << 32 | F_GETFD, seccomp.SECCOMP_RET_ALLOW),  # the kernel reads a 32-bit command
], ids=["getfd", "setfd", "getfl", "setlk", "dupfd-cloexec", "getlease", "setlease", "notify", "high-half"])
def test_the_filter_refuses_fcntl_leases_and_folder_watches_only(command, expected):
    program = seccomp._program(*seccomp._ARCHITECTURES["x86_64"])
    assert run_filter(program, X86_64, FCNTL, flags=3, second=command) == expected


@pytest.mark.parametrize("command, expected", [
    (0x5401, seccomp.SECCOMP_RET_ALLOW),  # TCGETS: isatty(), which open() asks of every file
    (0x541B, seccomp.SECCOMP_RET_ALLOW),  # FIONREAD
    (0x80086601, seccomp.SECCOMP_RET_ALLOW),  # FS_IOC_GETFLAGS: reading them is fine
    (0x801C581F, seccomp.SECCOMP_RET_ALLOW),  # FS_IOC_FSGETXATTR
    (0x40086602, DENY),  # FS_IOC_SETFLAGS (chattr), on a descriptor opened for reading
    (0x40046602, DENY),  # FS_IOC32_SETFLAGS
    (0x401C5820, DENY),  # FS_IOC_FSSETXATTR
    (0x40087602, DENY),  # FS_IOC_SETVERSION
    (0x40047602, DENY),  # FS_IOC32_SETVERSION
    (0x40806685, DENY),  # FS_IOC_ENABLE_VERITY: read-only for good
    (0x800C6613, DENY),  # FS_IOC_SET_ENCRYPTION_POLICY
], ids=["tcgets", "fionread", "getflags", "fsgetxattr", "setflags", "setflags32", "fssetxattr",
        "setversion", "setversion32", "enable-verity", "set-encryption-policy"])
def test_the_filter_refuses_the_ioctls_that_change_a_files_flags_only(command, expected):
    program = seccomp._program(*seccomp._ARCHITECTURES["x86_64"])
    assert run_filter(program, X86_64, IOCTL, flags=3, second=command) == expected


def test_the_filter_has_the_same_shape_on_aarch64():
    # aarch64's numbers (asm-generic/unistd.h): the calls refused there too.
    program = seccomp._program(*seccomp._ARCHITECTURES["aarch64"])
    aarch64 = 0xC00000B7
    assert run_filter(program, aarch64, 88) == DENY  # utimensat
    assert run_filter(program, aarch64, 55) == DENY  # fchown
    assert run_filter(program, aarch64, 27) == DENY  # inotify_add_watch
    assert run_filter(program, aarch64, 122, flags=4242) == DENY  # sched_setaffinity
    assert run_filter(program, aarch64, 122, flags=0) == seccomp.SECCOMP_RET_ALLOW
    assert run_filter(program, aarch64, 140, flags=PRIO_USER, second=0) == DENY  # setpriority
    assert run_filter(program, aarch64, 25, flags=3, second=F_SETLEASE) == DENY  # fcntl
    assert run_filter(program, aarch64, 25, flags=3, second=F_GETFD) == seccomp.SECCOMP_RET_ALLOW
    assert run_filter(program, aarch64, 180) == DENY  # mq_open
    assert run_filter(program, aarch64, 279) == DENY  # memfd_create
    assert run_filter(program, aarch64, 447) == DENY  # memfd_secret
    assert run_filter(program, aarch64, 222) == seccomp.SECCOMP_RET_ALLOW  # mmap
    assert run_filter(program, aarch64, 29, flags=3, second=0x40086602) == DENY  # ioctl(FS_IOC_SETFLAGS)
    assert run_filter(program, aarch64, 29, flags=1, second=0x5401) == seccomp.SECCOMP_RET_ALLOW
    assert run_filter(program, aarch64, 63) == seccomp.SECCOMP_RET_ALLOW  # read


def test_both_architectures_name_every_call_the_filter_needs():
    for arch, numbers, _ in seccomp._ARCHITECTURES.values():
        assert (set(seccomp.DENIED) | set(seccomp.SELF_ONLY) | set(seccomp.COMMANDS_DENIED)
                | {"clone", "clone3"} <= set(numbers))
        known = [number for number in numbers.values() if number is not None]  # None: no such call
        assert len(set(known)) == len(known)  # no number given twice


@pytest.mark.skipif(not seccomp.supported(), reason="seccomp filters on x86_64 or aarch64 Linux")
def test_installed_the_filter_refuses_socket_and_keeps_socketpair():
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_end)
        try:
            from reasoneval_mini.sandbox.libc import libc
            libc().prctl(38, 1, 0, 0, 0)  # PR_SET_NO_NEW_PRIVS, as Landlock sets it
            seccomp.deny_sockets()
            left, right = socket.socketpair()
            outcome = ["pair ok"]
            try:
                socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
                outcome.append("socket made")
            except PermissionError:
                outcome.append("socket refused")
        except BaseException as error:
            outcome = [f"{type(error).__name__}: {error}"]
        os.write(write_end, " / ".join(outcome).encode())
        os._exit(0)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as stream:
        text = stream.read().decode()
    os.waitpid(pid, 0)
    assert text == "pair ok / socket refused"


@pytest.mark.skipif(not seccomp.supported(), reason="seccomp filters on x86_64 or aarch64 Linux")
def test_installed_the_filter_keeps_threads_forks_and_subprocesses_and_refuses_a_namespace_session_or_mode(
        tmp_path):
    read_end, write_end = os.pipe()
    own = tmp_path / "own.txt"  # a file of the process's own, in a folder of its own
    own.write_text("x")
    own.chmod(0o600)
    folder = os.open(tmp_path, os.O_RDONLY)
    handle = os.open(own, os.O_RDONLY)
    pid = os.fork()
    if pid == 0:
        os.close(read_end)
        try:
            import ctypes
            import subprocess
            import sys
            import threading

            from reasoneval_mini.sandbox.libc import libc
            libc().prctl(38, 1, 0, 0, 0)  # PR_SET_NO_NEW_PRIVS, as Landlock sets it
            seccomp.deny_sockets()
            box = []
            thread = threading.Thread(target=box.append, args=("thread ran",))
            thread.start()
            thread.join()
            child = os.fork()
            if child == 0:
                os._exit(7)
            forked = os.waitpid(child, 0)[1] >> 8
            ran = subprocess.run([sys.executable, "-c", "print(6 * 7)"], capture_output=True,
                                 text=True).stdout.strip()
            libc = ctypes.CDLL(None, use_errno=True)
            refused = libc.unshare(seccomp.CLONE_NEWUSER) == -1 and ctypes.get_errno()
            group = os.getpgid(0)
            for leave in (os.setsid, lambda: os.setpgid(0, 0)):
                try:
                    leave()
                except PermissionError:
                    pass
            stayed = os.getpgid(0) == group and os.getsid(0) == os.getsid(os.getppid())
            modes = []
            for change in (lambda: os.chmod(own, 0o644), lambda: os.chmod(own.name, 0o644, dir_fd=folder),
                           lambda: os.fchmod(handle, 0o644),
                           lambda: os.setxattr(own, "user.note", b"x")):
                try:
                    change()
                    modes.append("changed")
                except PermissionError:
                    modes.append("refused")
            import resource
            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # on itself: allowed
            try:
                resource.prlimit(os.getppid(), resource.RLIMIT_NOFILE, (3, 3))
                limits = "parent limited"
            except PermissionError:
                limits = "parent untouched"
            outcome = [box[0], f"fork {forked}", f"subprocess {ran}", f"unshare errno {refused}",
                       f"same group {stayed}", f"modes {' '.join(modes)}", limits]
        except BaseException as error:
            outcome = [f"{type(error).__name__}: {error}"]
        os.write(write_end, " / ".join(outcome).encode())
        os._exit(0)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as stream:
        text = stream.read().decode()
    os.waitpid(pid, 0)
    os.close(folder)
    os.close(handle)
    assert own.stat().st_mode & 0o777 == 0o600  # unchanged: each attempt was refused
    assert text == (f"thread ran / fork 7 / subprocess 42 / unshare errno {errno.EACCES}"
                    " / same group True / modes refused refused refused refused / parent untouched")


def test_a_filter_whose_jump_would_not_fit_in_8_bits_is_refused_not_cut_short(monkeypatch):
    # Classic BPF jumps are one byte; ctypes would wrap 300 to 44 without a word.
    monkeypatch.setattr(seccomp, "COMMANDS_DENIED", {"ioctl": tuple(range(1, 301))})
    with pytest.raises(ValueError, match="255"):
        seccomp._program(*seccomp._ARCHITECTURES["x86_64"])


def test_every_architecture_filter_ends_by_refusing_and_refuses_the_x32_entry_point():
    for arch, numbers, x32 in seccomp._ARCHITECTURES.values():
        program = seccomp._program(arch, numbers, x32)
        assert program[-1] == (seccomp.BPF_RET | seccomp.BPF_K, 0, 0, DENY)
        if x32:
            assert run_filter(program, arch, seccomp.X32_SYSCALL_BIT | READ) == DENY
        assert run_filter(program, arch, numbers["clone3"]) == NO_SUCH_CALL


def _reference_verdict(numbers, nr, first, second):
    """What the filter must answer, written from the tables directly (no BPF)."""
    allow = seccomp.SECCOMP_RET_ALLOW
    if nr in {numbers[name] for name in seccomp.DENIED if numbers[name] is not None}:
        return DENY
    for name, zero in seccomp.SELF_ONLY.items():
        if nr == numbers[name]:
            return allow if all((first, second)[index] & 0xFFFFFFFF == 0 for index in zero) else DENY
    for name, commands in seccomp.COMMANDS_DENIED.items():
        if nr == numbers[name]:
            return DENY if second & 0xFFFFFFFF in commands else allow
    if nr == numbers["clone3"]:
        return NO_SUCH_CALL
    if nr == numbers["clone"]:
        return DENY if first & seccomp.NAMESPACE_FLAGS else allow
    return allow


@pytest.mark.parametrize("machine", sorted(seccomp._ARCHITECTURES))
def test_the_filter_answers_every_call_number_as_its_tables_say(machine):
    # Every number from 0 to 600, with arguments that each special case looks at.
    arch, numbers, _ = seccomp._ARCHITECTURES[machine]
    program = seccomp._program(*seccomp._ARCHITECTURES[machine])
    arguments = [(0, 0), (1, 0), (0, 1), (4242, 7), (1 << 32, 0), (seccomp.CLONE_NEWUSER | 17, 0),
                 (3, seccomp.F_SETLEASE), (3, seccomp.F_NOTIFY), (3, seccomp.FS_IOC_SETFLAGS),
                 (3, 0x5401)]  # TCGETS, which every open() of a file may ask
    wrong = [(nr, first, second) for nr in range(601) for first, second in arguments
             if run_filter(program, arch, nr, first, second)
             != _reference_verdict(numbers, nr, first, second)]
    assert wrong == []
