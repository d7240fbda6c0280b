"""What Landlock does not rule, refused by a seccomp filter: sockets, keyring, IPC, other processes, file owners.

Landlock (ABI 7 and before) rules TCP bind and connect and abstract Unix
sockets, but not UDP datagrams, and not a ``connect`` to a Unix socket file
the program can name (a session bus, a Docker daemon's socket). A program
that cannot *create* a socket can do neither. Nor does Landlock rule the
kernel keyring, which every process of a user shares (an instructor's
tokens may live there, and a key planted there outlives the run), System V
IPC (kernel objects shared the same way), or new
user namespaces (root's powers inside one: the usual first step of a kernel
exploit, and of no use to a program under test).

This module installs, in the calling thread and everything it starts, a
seccomp filter that makes these fail with ``EACCES``:

* ``socket(2)`` (every family) and ``io_uring_setup(2)`` (which can create
  sockets on its own); ``socketpair(2)`` stays allowed (a connected pair
  reaches nobody: ``asyncio`` needs it);
* ``add_key(2)``, ``request_key(2)``, ``keyctl(2)``;
* System V IPC (``shmget(2)``, ``msgget(2)``, ``semget(2)`` and the calls
  on their ids) and POSIX message queues (``mq_open(3)``: Landlock refuses
  opening one, not making it): a shared memory segment outlives every
  process of the run (the kernel's default size limits are unlimited), and a
  message queue carries data from one run to the next;
* ``memfd_create(2)`` and ``memfd_secret(2)``: a file that lives in no
  folder, whose pages count against no address-space limit and no capped
  folder (under ``memory_mb=64`` one program held 896 MB in 56 memfds);
* ``bpf(2)``, ``perf_event_open(2)``, ``userfaultfd(2)``, which a machine's
  sysctls may open to anyone (large attack surfaces, no use to a test);
* ``chmod(2)``, ``fchmod(2)``, ``fchmodat(2)``, ``fchmodat2(2)``, and
  setting or removing extended attributes (``setxattr(2)``,
  ``removexattr(2)`` and their variants; a POSIX ACL is one): Landlock has
  no right for a file's mode or attributes, so a program could make any
  file its user owns (every file, for root) readable by all, or lock the
  package folder against later runs; a program under test has no need to
  (``shutil.copy``, which copies a mode, fails);
* ``prlimit64(2)``, ``setpriority(2)``, ``sched_setaffinity(2)``,
  ``sched_setscheduler(2)``, ``sched_setparam(2)`` and ``sched_setattr(2)``
  on any process but the caller itself (``pid`` 0, as the C library's
  ``setrlimit`` and ``nice`` pass it), and ``ioprio_set(2)``: Landlock's
  scoping rules signals, not limits or priorities, so a program could give
  a classmate's grading process (or the grader) one second of CPU or three
  descriptors, starve its disk access, make the runner server (and every
  later program it forks) run only when the machine is idle, or renice
  every process of its user (``PRIO_USER``);
* ``chown(2)`` and its variants, and setting a file's times (``utimensat(2)``
  and the older calls): Landlock rules neither, so a program could clear the
  set-user-ID bit of any file its user owns (a ``chown`` to the same owner
  does), move its group, or back-date it;
* watching files (``inotify``, ``fanotify``, and ``fcntl(F_NOTIFY)``), which
  Landlock does not rule: a program could learn the names of files created
  or opened in any folder it can name, ``solutions/`` included; and
  ``fcntl(F_SETLEASE)``, which holds up, for the lease-break time, any
  process that opens the file for writing; and ``fcntl(F_SETPIPE_SZ)``: a
  run could shrink the pipe its caller writes to, or take its user's pipe
  memory so that every other run's pipes are one page;
* the ``ioctl(2)`` commands that change a file's inode flags (``chattr``),
  extended flags or generation, or turn on fs-verity or encryption: each
  needs only a descriptor opened for reading (of a file in site-packages,
  say) and owning the file, and Landlock rules ``ioctl`` on devices only;
* ``setsid(2)`` and ``setpgid(2)``: every process a run starts stays in
  the run's process group, so the run's end kills them all (a helper in a
  session of its own outlived its sample, held its folder's memory and
  used the CPU the next samples were timed on);
* ``unshare(2)``, and ``clone(2)`` asking for any new namespace;
  ``clone3(2)`` says ``ENOSYS`` (its flags sit in memory a filter cannot
  read), so that the C library falls back to ``clone``.

Standard library (``ctypes``) only; the constants carry the kernel's names
(``include/uapi/linux/seccomp.h``, ``filter.h``, ``audit.h``, ``sched.h``).

The system call numbers differ between architectures, so the filter is known
for ``x86_64`` and ``aarch64`` only (:func:`supported`); a call made through
another architecture's entry point (32-bit calls on a 64-bit kernel, x32) is
refused altogether, or it would bypass the filter.

>>> _program(*_ARCHITECTURES["x86_64"])[-1] == (BPF_RET | BPF_K, 0, 0, SECCOMP_RET_ERRNO | errno.EACCES)
True

Surprising: the filter cannot be lifted, not even by the process that
installed it, and it needs ``no_new_privs`` first (Landlock sets it too).
"""

import ctypes
import errno
import functools
import os
import sys

from reasoneval_mini.sandbox.libc import libc

# Named as in include/uapi/linux/filter.h (classic BPF) and seccomp.h.
BPF_LD, BPF_JMP, BPF_RET = 0x00, 0x05, 0x06
BPF_W, BPF_ABS, BPF_K = 0x00, 0x20, 0x00
BPF_JEQ, BPF_JGE, BPF_JSET = 0x10, 0x30, 0x40
SECCOMP_RET_ALLOW = 0x7FFF0000
SECCOMP_RET_ERRNO = 0x00050000
PR_SET_SECCOMP = 22
SECCOMP_MODE_FILTER = 2
X32_SYSCALL_BIT = 0x40000000
# struct seccomp_data: int nr; __u32 arch; __u64 instruction_pointer; __u64 args[6].
# Both architectures are little-endian: the low half of args[0] comes first.
_OFFSET_NR, _OFFSET_ARCH, _OFFSET_ARG0_LOW = 0, 4, 16
# include/uapi/linux/sched.h: every flag of clone(2) that makes a new namespace.
CLONE_NEWNS, CLONE_NEWCGROUP, CLONE_NEWUTS = 0x00020000, 0x02000000, 0x04000000
CLONE_NEWIPC, CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET = 0x08000000, 0x10000000, 0x20000000, 0x40000000
NAMESPACE_FLAGS = (CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER
                   | CLONE_NEWPID | CLONE_NEWNET)

#: System V IPC: shared memory, semaphores, message queues (kernel objects, not files).
SYSTEM_V = ("shmget", "shmat", "shmctl", "semget", "semop", "semtimedop", "semctl",
            "msgget", "msgsnd", "msgrcv", "msgctl")
#: POSIX message queues: Landlock refuses opening one, but not making it, and
#: a queue made outlives the run (its name carries data to a later run, which
#: tells "refused" from "no such queue"; 256 of them fill the machine's table).
POSIX_QUEUES = ("mq_open", "mq_unlink", "mq_timedsend", "mq_timedreceive", "mq_notify", "mq_getsetattr")
#: The calls refused outright, in the order the filter tests them.
#: Kernel interfaces that some machines open to unprivileged users (by their
#: sysctls): large attack surfaces, of no use to a program under test.
KERNEL_SURFACE = ("bpf", "perf_event_open", "userfaultfd")
#: Memory held in a file that lives in no folder: its pages count against no
#: address-space limit and no capped folder (under ``memory_mb=64`` one program
#: held 896 MB in 56 memfds), and the out-of-memory killer does not see them.
MEMORY_OUTSIDE_LIMITS = ("memfd_create", "memfd_secret")
#: Leaving the run's process group, which the run's end kills.
NEW_GROUP = ("setsid", "setpgid")
#: Reaching another process's scheduling (``prlimit64`` is allowed on the caller itself only).
OTHER_PROCESSES = ("ioprio_set",)
#: Calls allowed on the caller itself only: each with the arguments that must
#: be 0 (``pid`` 0 is the caller; for ``setpriority``, ``PRIO_PROCESS`` and 0).
#: Landlock's scoping rules signals, not limits, priorities or CPUs.
SELF_ONLY = {"prlimit64": (0,), "setpriority": (0, 1), "sched_setparam": (0,),
             "sched_setscheduler": (0,), "sched_setaffinity": (0,), "sched_setattr": (0,)}
#: Changing a file's owner or times: Landlock has no right for either, so a
#: program could clear the set-user-ID bit of any file its user owns (a
#: ``chown`` to the same owner does), move its group, or set its times.
CHANGE_OWNER_OR_TIMES = ("chown", "fchown", "lchown", "fchownat",
                         "utime", "utimes", "futimesat", "utimensat")
#: Watching files: Landlock does not rule watches, so a program could learn the
#: names and the opening of files in any folder it can name (``solutions/``).
WATCH = ("inotify_init", "inotify_init1", "inotify_add_watch", "fanotify_init", "fanotify_mark")
#: fcntl(2) commands refused: a lease (which holds up, for the lease-break
#: time, any process that opens the file for writing), a folder watch, and a
#: pipe's new size (a run that shrinks the pipe its caller writes to makes the
#: caller's writes wait on it; one that grows its pipes takes the user's pipe
#: memory, and every other run's new pipes get one page).
F_SETLEASE, F_NOTIFY, F_SETPIPE_SZ = 1024, 1026, 1031
#: ioctl(2) commands refused (include/uapi/linux/fs.h, fsverity.h, fscrypt.h):
#: a file's inode flags (``chattr``: no-dump, synchronous writes), its extended
#: flags, its generation number, fs-verity (which makes a file read-only for
#: good) and an encryption policy. Each needs only a descriptor opened for
#: reading and owning the file, and Landlock rules ioctl on devices only.
FS_IOC_SETFLAGS, FS_IOC32_SETFLAGS, FS_IOC_FSSETXATTR = 0x40086602, 0x40046602, 0x401C5820
FS_IOC_SETVERSION, FS_IOC32_SETVERSION = 0x40087602, 0x40047602
FS_IOC_ENABLE_VERITY, FS_IOC_SET_ENCRYPTION_POLICY = 0x40806685, 0x800C6613
#: call -> the values of its second argument (a command) that are refused.
COMMANDS_DENIED = {
    "fcntl": (F_SETLEASE, F_NOTIFY, F_SETPIPE_SZ),
    "ioctl": (FS_IOC_SETFLAGS, FS_IOC32_SETFLAGS, FS_IOC_FSSETXATTR, FS_IOC_SETVERSION,
              FS_IOC32_SETVERSION, FS_IOC_ENABLE_VERITY, FS_IOC_SET_ENCRYPTION_POLICY),
}
#: Changing a file's mode or extended attributes, ACLs included (Landlock
#: rules no such right). aarch64 has no plain chmod.
CHANGE_MODE = ("chmod", "fchmod", "fchmodat", "fchmodat2", "setxattr", "lsetxattr", "fsetxattr",
               "setxattrat", "removexattr", "lremovexattr", "fremovexattr", "removexattrat")
DENIED = (("socket", "io_uring_setup", "add_key", "request_key", "keyctl", "unshare")
          + SYSTEM_V + POSIX_QUEUES + KERNEL_SURFACE + NEW_GROUP + CHANGE_MODE + OTHER_PROCESSES
          + CHANGE_OWNER_OR_TIMES + WATCH + MEMORY_OUTSIDE_LIMITS)

#: machine -> (AUDIT_ARCH_*, {call: number}, has the x32 entry point)
_ARCHITECTURES = {
    "x86_64": (0xC000003E, {"socket": 41, "io_uring_setup": 425, "add_key": 248,
                            "request_key": 249, "keyctl": 250, "unshare": 272,
                            "clone": 56, "clone3": 435,
                            "shmget": 29, "shmat": 30, "shmctl": 31, "semget": 64, "semop": 65,
                            "semctl": 66, "semtimedop": 220, "msgget": 68, "msgsnd": 69,
                            "msgrcv": 70, "msgctl": 71,
                            "bpf": 321, "perf_event_open": 298, "userfaultfd": 323,
                            "setpgid": 109, "setsid": 112,
                            "chmod": 90, "fchmod": 91, "fchmodat": 268, "fchmodat2": 452,
                            "setxattr": 188, "lsetxattr": 189, "fsetxattr": 190,
                            "setxattrat": 463, "removexattr": 197, "lremovexattr": 198,
                            "fremovexattr": 199, "removexattrat": 466,
                            "prlimit64": 302, "ioprio_set": 251,
                            "chown": 92, "fchown": 93, "lchown": 94, "fchownat": 260,
                            "utime": 132, "utimes": 235, "futimesat": 261, "utimensat": 280,
                            "setpriority": 141, "sched_setparam": 142, "sched_setscheduler": 144,
                            "sched_setaffinity": 203, "sched_setattr": 314,
                            "inotify_init": 253, "inotify_init1": 294, "inotify_add_watch": 254,
                            "fanotify_init": 300, "fanotify_mark": 301, "fcntl": 72, "ioctl": 16,
                            "mq_open": 240, "mq_unlink": 241, "mq_timedsend": 242,
                            "mq_timedreceive": 243, "mq_notify": 244, "mq_getsetattr": 245,
                            "memfd_create": 319, "memfd_secret": 447}, True),
    "aarch64": (0xC00000B7, {"socket": 198, "io_uring_setup": 425, "add_key": 217,
                             "request_key": 218, "keyctl": 219, "unshare": 97,
                             "clone": 220, "clone3": 435,
                             "msgget": 186, "msgctl": 187, "msgrcv": 188, "msgsnd": 189,
                             "semget": 190, "semctl": 191, "semtimedop": 192, "semop": 193,
                             "shmget": 194, "shmctl": 195, "shmat": 196,
                             "bpf": 280, "perf_event_open": 241, "userfaultfd": 282,
                             "setpgid": 154, "setsid": 157,
                             "chmod": None, "fchmod": 52, "fchmodat": 53, "fchmodat2": 452,
                             "setxattr": 5, "lsetxattr": 6, "fsetxattr": 7, "setxattrat": 463,
                             "removexattr": 14, "lremovexattr": 15, "fremovexattr": 16,
                             "removexattrat": 466, "prlimit64": 261, "ioprio_set": 30,
                             "chown": None, "fchown": 55, "lchown": None, "fchownat": 54,
                             "utime": None, "utimes": None, "futimesat": None, "utimensat": 88,
                             "setpriority": 140, "sched_setparam": 118, "sched_setscheduler": 119,
                             "sched_setaffinity": 122, "sched_setattr": 274,
                             "inotify_init": None, "inotify_init1": 26, "inotify_add_watch": 27,
                             "fanotify_init": 262, "fanotify_mark": 263, "fcntl": 25, "ioctl": 29,
                             "mq_open": 180, "mq_unlink": 181, "mq_timedsend": 182,
                             "mq_timedreceive": 183, "mq_notify": 184, "mq_getsetattr": 185,
                             "memfd_create": 279, "memfd_secret": 447}, False),
}


class _SockFilter(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint16), ("jt", ctypes.c_uint8), ("jf", ctypes.c_uint8),
                ("k", ctypes.c_uint32)]


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(_SockFilter))]


@functools.lru_cache(maxsize=None)
def supported():
    """True where the filter can be installed: Linux with seccomp filters, on x86_64 or aarch64.

    Read once per process, from ``/proc/self/status``, and kept: a process
    that confines itself must ask before Landlock closes ``/proc`` to it
    (:func:`~reasoneval_mini.sandbox.policy.confine` does), and a fork
    server asks once for all its children.
    """
    if sys.platform != "linux" or os.uname().machine not in _ARCHITECTURES:
        return False
    try:
        with open("/proc/self/status", encoding="ascii", errors="replace") as status:
            return any(line.startswith("Seccomp:") for line in status)
    except OSError:
        return False


def _program(arch, numbers, x32):
    """The filter, as ``(code, jt, jf, k)`` instructions: refuse :data:`DENIED` and new namespaces.

    The call's number is found by binary search (a tree of ``>=`` tests, a
    few ``==`` at each leaf), not by a list: when a child installs the filter
    the kernel runs it once for every system call number, to cache what is
    always allowed, and a list of 70 tests cost each child about 0.1 ms
    (every call walks it all). A call that needs its arguments looked at
    (``prlimit64``, ``fcntl``, ``clone``...) goes to a block of its own.
    """
    deny = (BPF_RET | BPF_K, 0, 0, SECCOMP_RET_ERRNO | errno.EACCES)
    allow = (BPF_RET | BPF_K, 0, 0, SECCOMP_RET_ALLOW)

    def jump_if(value, jt, jf, test=BPF_JEQ):
        return (BPF_JMP | test | BPF_K, jt, jf, value)

    def load(offset):
        return (BPF_LD | BPF_W | BPF_ABS, 0, 0, offset)

    # Each block: what to do with a call whose arguments decide (labels: jump targets).
    blocks = {"clone3": [(BPF_RET | BPF_K, 0, 0, SECCOMP_RET_ERRNO | errno.ENOSYS)],  # "no such call"
              "clone": [load(_OFFSET_ARG0_LOW),  # a new namespace: refuse
                        jump_if(NAMESPACE_FLAGS, "deny", 0, test=BPF_JSET), allow]}
    for name, zero in SELF_ONLY.items():  # on the caller itself only: these arguments 0
        blocks[name] = [instruction for index in zero  # the low half: a pid_t or an int
                        for instruction in (load(_OFFSET_ARG0_LOW + 8 * index),
                                            jump_if(0, 0, "deny"))] + [allow]
    for name, commands in COMMANDS_DENIED.items():  # fcntl(), ioctl(): look at the command
        blocks[name] = ([load(_OFFSET_ARG0_LOW + 8)]  # the command: an unsigned int
                        + [jump_if(command, "deny", 0) for command in commands] + [allow])
    targets = {numbers[name]: "deny" for name in DENIED if numbers[name] is not None}
    targets.update({numbers[name]: name for name in blocks})
    blocks["deny"] = [deny]  # last: a jump goes forward only

    def search(items):
        """Code that sends a call number in *items* to its block, and allows any other."""
        if len(items) <= 4:  # a leaf: its refusals end here, close by (a jump is 8 bits)
            # From test i, the leaf's own refusal is len(items) - i instructions on.
            return [jump_if(number, len(items) - index if label == "deny" else label, 0)
                    for index, (number, label) in enumerate(items)] + [allow, deny]
        middle = len(items) // 2
        below, above = search(items[:middle]), search(items[middle:])
        return [jump_if(items[middle][0], len(below), 0, test=BPF_JGE)] + below + above

    code = search(sorted(targets.items()))
    if x32:  # the x32 entry point numbers every call anew: refuse it altogether
        code = [jump_if(X32_SYSCALL_BIT, "deny", 0, test=BPF_JGE)] + code
    head = [
        load(_OFFSET_ARCH),
        jump_if(arch, 0, "deny"),  # not our architecture's entry point: refuse the call
        load(_OFFSET_NR),
    ]
    program, where = head + code, {}
    for label, block in blocks.items():
        where[label] = len(program)
        program += block
    program = [(op, where[jt] - index - 1 if isinstance(jt, str) else jt,
                where[jf] - index - 1 if isinstance(jf, str) else jf, k)
               for index, (op, jt, jf, k) in enumerate(program)]
    # A jump offset is 8 bits: one past 255 would be cut short in silence, and
    # land on whatever instruction that is.
    if any(not 0 <= jt <= 255 or not 0 <= jf <= 255 for _, jt, jf, _ in program):
        raise ValueError("a jump in the seccomp filter is longer than 255 instructions")
    return program


@functools.lru_cache(maxsize=None)
def prepared_filter():
    """The filter for this machine as a ctypes object, built once (a runner server builds it before forking)."""
    instructions = _program(*_ARCHITECTURES[os.uname().machine])
    array = (_SockFilter * len(instructions))(*[_SockFilter(*i) for i in instructions])
    program = _SockFprog(len(instructions), ctypes.cast(array, ctypes.POINTER(_SockFilter)))
    program._array = array  # keep the instructions alive as long as the program
    return program


def deny_sockets(program=None):
    """Install the filter in the calling thread (and all it starts). Irreversible.

    *program* is :func:`prepared_filter`'s answer, if made earlier. Raises
    ``OSError`` if the kernel refuses (no seccomp, or ``no_new_privs`` unset).
    """
    if program is None:
        program = prepared_filter()
    if libc().prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(program), 0, 0) != 0:
        code = ctypes.get_errno()
        raise OSError(code, f"prctl(PR_SET_SECCOMP): {os.strerror(code)}")
