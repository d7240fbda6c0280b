"""Landlock, the Linux kernel's unprivileged sandbox, through its three system calls.

Landlock lets a process restrict *itself* (and everything it starts later):
which files it may open, read, write, create or execute; which TCP ports it
may bind or connect to; whether it may signal, or connect to the abstract
Unix sockets of, processes outside its own sandbox. A process can add
restrictions but never remove them, and the kernel also refuses it any
``ptrace`` access (so ``/proc/<pid>/environ``, ``/proc/<pid>/fd/...``) to a
process outside its sandbox. No daemon, no image, no privilege.

This module only speaks the kernel's interface, under the kernel
documentation's names (``Documentation/userspace-api/landlock.rst``,
``include/uapi/linux/landlock.h``); which paths to allow is decided in
:mod:`reasoneval_mini.sandbox.policy`. Standard library only.

The interface grew in versions ("ABI"); :func:`abi_version` says which one the
running kernel speaks (0: none, or not Linux):

==== ======= ==================================================================
ABI  Linux   adds
==== ======= ==================================================================
1    5.13    files: execute, read, write, list, create and remove entries
2    5.19    ``REFER``: moving or linking a file to another folder
3    6.2     ``TRUNCATE``
4    6.7     network: TCP bind and connect
5    6.10    ``IOCTL_DEV``: ioctl on device files
6    6.12    scopes: signals and abstract Unix sockets stay inside the sandbox
==== ======= ==================================================================

>>> access_rights_for(3) == FS_ACCESS_ABI_1 | LANDLOCK_ACCESS_FS_REFER | LANDLOCK_ACCESS_FS_TRUNCATE
True

Surprising: a right the running kernel does not know is not "denied", it is
*unknown*: naming it makes the whole ruleset invalid (``EINVAL``), so the set
of handled rights must be cut to the kernel's ABI, and whatever it leaves out
stays allowed.

>>> access_rights_for(0)
0
"""

import ctypes
import errno
import os

from reasoneval_mini.sandbox.libc import libc

# --- Constants, named as in include/uapi/linux/landlock.h --------------------

LANDLOCK_CREATE_RULESET_VERSION = 1 << 0

LANDLOCK_ACCESS_FS_EXECUTE = 1 << 0
LANDLOCK_ACCESS_FS_WRITE_FILE = 1 << 1
LANDLOCK_ACCESS_FS_READ_FILE = 1 << 2
LANDLOCK_ACCESS_FS_READ_DIR = 1 << 3
LANDLOCK_ACCESS_FS_REMOVE_DIR = 1 << 4
LANDLOCK_ACCESS_FS_REMOVE_FILE = 1 << 5
LANDLOCK_ACCESS_FS_MAKE_CHAR = 1 << 6
LANDLOCK_ACCESS_FS_MAKE_DIR = 1 << 7
LANDLOCK_ACCESS_FS_MAKE_REG = 1 << 8
LANDLOCK_ACCESS_FS_MAKE_SOCK = 1 << 9
LANDLOCK_ACCESS_FS_MAKE_FIFO = 1 << 10
LANDLOCK_ACCESS_FS_MAKE_BLOCK = 1 << 11
LANDLOCK_ACCESS_FS_MAKE_SYM = 1 << 12
LANDLOCK_ACCESS_FS_REFER = 1 << 13  # ABI 2
LANDLOCK_ACCESS_FS_TRUNCATE = 1 << 14  # ABI 3
LANDLOCK_ACCESS_FS_IOCTL_DEV = 1 << 15  # ABI 5

LANDLOCK_ACCESS_NET_BIND_TCP = 1 << 0  # ABI 4
LANDLOCK_ACCESS_NET_CONNECT_TCP = 1 << 1  # ABI 4

LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET = 1 << 0  # ABI 6
LANDLOCK_SCOPE_SIGNAL = 1 << 1  # ABI 6

LANDLOCK_RULE_PATH_BENEATH = 1

#: Every filesystem right of ABI 1.
FS_ACCESS_ABI_1 = (1 << 13) - 1
#: Rights that make sense on a regular file (the kernel refuses the others there).
FS_ACCESS_FILE = (LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE
                  | LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_TRUNCATE
                  | LANDLOCK_ACCESS_FS_IOCTL_DEV)
#: Reading and running what is there, nothing else.
FS_READ_EXECUTE = (LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_READ_FILE
                   | LANDLOCK_ACCESS_FS_READ_DIR)

# System call numbers: Landlock came after the unified table, so every
# architecture Linux supports uses the same three numbers.
SYS_landlock_create_ruleset = 444
SYS_landlock_add_rule = 445
SYS_landlock_restrict_self = 446
PR_SET_NO_NEW_PRIVS = 38


class LandlockError(OSError):
    """A Landlock system call failed; ``errno`` and the message say which and why."""


class _RulesetAttr(ctypes.Structure):
    # struct landlock_ruleset_attr: the kernel takes a prefix of it, by size.
    _fields_ = [("handled_access_fs", ctypes.c_uint64),
                ("handled_access_net", ctypes.c_uint64),
                ("scoped", ctypes.c_uint64)]


class _PathBeneathAttr(ctypes.Structure):
    # struct landlock_path_beneath_attr is __attribute__((packed)): 12 bytes.
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64),
                ("parent_fd", ctypes.c_int32)]


def _syscall(number, *args):
    result = libc().syscall(ctypes.c_long(number), *args)
    if result < 0:
        code = ctypes.get_errno()
        raise LandlockError(code, os.strerror(code))
    return result


def abi_version():
    """The Landlock ABI the running kernel speaks: 0 if none (not Linux, too old, or disabled).

    Never raises: a kernel without Landlock answers ``ENOSYS`` (not built in)
    or ``EOPNOTSUPP`` (built in, switched off at boot), both read as 0.
    """
    try:
        libc()
    except OSError:
        return 0  # not Linux, or no C library to call the kernel through
    try:
        return _syscall(SYS_landlock_create_ruleset, None, ctypes.c_size_t(0),
                        ctypes.c_uint32(LANDLOCK_CREATE_RULESET_VERSION))
    except LandlockError:
        return 0


def access_rights_for(abi):
    """The filesystem rights that ABI *abi* knows (all of them get handled, i.e. denied by default)."""
    if abi < 1:
        return 0
    rights = FS_ACCESS_ABI_1
    if abi >= 2:
        rights |= LANDLOCK_ACCESS_FS_REFER
    if abi >= 3:
        rights |= LANDLOCK_ACCESS_FS_TRUNCATE
    if abi >= 5:
        rights |= LANDLOCK_ACCESS_FS_IOCTL_DEV
    return rights


def restrict_self(abi, rules, *, deny_tcp=True, scope_signals=True):
    """Sandbox the calling thread (and everything it starts from now on). Irreversible.

    *abi* is :func:`abi_version`'s answer (>= 1). *rules* is a list of
    ``(path, rights)``: beneath each path (a folder, or one file) the listed
    ``LANDLOCK_ACCESS_FS_*`` rights stay allowed; every other filesystem right
    the kernel knows is denied everywhere. Rights that *abi* does not know are
    dropped from each rule; a file rule keeps only file rights. A path that
    does not exist is skipped (an installation may lack a folder). A rule may
    also name an open descriptor (:func:`open_rule`'s answer, an ``int``)
    instead of a path: it is used as is and left open.

    *deny_tcp* (ABI 4+) denies every TCP bind and connect; *scope_signals*
    (ABI 6+) keeps signals and abstract Unix sockets inside the sandbox.

    Sets ``no_new_privs`` first (the kernel requires it of an unprivileged
    caller; it also means no set-uid program can lift anything). Raises
    :class:`LandlockError` (an ``OSError``) if the kernel refuses; then
    nothing may run that assumed the sandbox. Call it only in a process that
    has a single thread: Landlock restricts the calling thread and its future
    children, not threads that already exist.

    The same in two steps, for a parent that prepares what its child
    enforces: :func:`create_ruleset` (in the parent), :func:`enforce_ruleset`
    (in the child).
    """
    ruleset = create_ruleset(abi, rules, deny_tcp=deny_tcp, scope_signals=scope_signals)
    try:
        enforce_ruleset(ruleset)
    finally:
        os.close(ruleset)


def create_ruleset(abi, rules, *, deny_tcp=True, scope_signals=True):
    """A ruleset descriptor holding *rules*, as :func:`restrict_self` describes; restricts nothing yet.

    The caller owns the descriptor (close-on-exec) and closes it.
    """
    if abi < 1:
        raise LandlockError(errno.ENOSYS, "this kernel has no Landlock")
    handled = access_rights_for(abi)
    attr = _RulesetAttr(handled_access_fs=handled)
    size = 8  # the ABI 1-3 struct: handled_access_fs only
    if abi >= 4 and deny_tcp:
        attr.handled_access_net = LANDLOCK_ACCESS_NET_BIND_TCP | LANDLOCK_ACCESS_NET_CONNECT_TCP
    if abi >= 4:
        size = 16
    if abi >= 6:
        size = 24
        if scope_signals:
            attr.scoped = LANDLOCK_SCOPE_SIGNAL | LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET
    ruleset = _syscall(SYS_landlock_create_ruleset, ctypes.byref(attr),
                       ctypes.c_size_t(size), ctypes.c_uint32(0))
    try:
        for path, rights in rules:
            _add_path_rule(ruleset, path, rights & handled)
    except BaseException:
        os.close(ruleset)
        raise
    return ruleset


def enforce_ruleset(ruleset):
    """Sandbox the calling thread with the ruleset on descriptor *ruleset*. Irreversible.

    Sets ``no_new_privs`` first; raises :class:`LandlockError` if the kernel
    refuses. The descriptor stays open.
    """
    if libc().prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        code = ctypes.get_errno()
        raise LandlockError(code, f"prctl(PR_SET_NO_NEW_PRIVS): {os.strerror(code)}")
    _syscall(SYS_landlock_restrict_self, ctypes.c_int(ruleset), ctypes.c_uint32(0))


def open_rule(path, rights):
    """``(descriptor, rights)`` for a rule on *path*, opened now (``O_PATH``); None if it is missing.

    For a process that confines many children: open the paths once, pass
    the pairs as rules in each child. A file keeps only file rights.
    """
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except FileNotFoundError:
        return None
    if not os.path.isdir(path):
        rights &= FS_ACCESS_FILE
    return fd, rights


def _add_path_rule(ruleset, path, rights):
    if isinstance(path, int):
        fd, close = path, False
    else:
        opened = open_rule(path, rights)
        if opened is None:
            return
        (fd, rights), close = opened, True
    try:
        if not rights:
            return
        rule = _PathBeneathAttr(allowed_access=rights, parent_fd=fd)
        try:
            _syscall(SYS_landlock_add_rule, ctypes.c_int(ruleset),
                     ctypes.c_int(LANDLOCK_RULE_PATH_BENEATH), ctypes.byref(rule),
                     ctypes.c_uint32(0))
        except LandlockError as error:
            raise LandlockError(error.errno, f"landlock_add_rule({path!r}): {error.strerror}")
    finally:
        if close:
            os.close(fd)
