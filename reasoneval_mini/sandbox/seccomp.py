"""No new sockets: a seccomp filter for what Landlock does not rule (UDP, Unix sockets bound to a path).

Landlock (ABI 7 and before) rules TCP bind and connect and abstract Unix
sockets, but not UDP datagrams, and not a ``connect`` to a Unix socket file
the program can name (a session bus, a Docker daemon's socket). A program
that cannot *create* a socket can do neither. This module installs, in the
calling thread and everything it starts, a seccomp filter that makes
``socket(2)`` (every family) and ``io_uring_setup(2)`` (which can create
sockets on its own) fail with ``EACCES``; ``socketpair(2)`` stays allowed (a
connected pair reaches nobody: ``asyncio`` needs it). Standard library
(``ctypes``) only; the constants carry the kernel's names
(``include/uapi/linux/seccomp.h``, ``filter.h``, ``audit.h``).

The system call numbers differ between architectures, so the filter is known
for ``x86_64`` and ``aarch64`` only (:func:`supported`); a call made through
another architecture's entry point (32-bit calls on a 64-bit kernel, x32) is
refused altogether, or it would bypass the filter.

>>> _program(0xC000003E, 41, 425, x32=True)[-1] == (BPF_RET | BPF_K, 0, 0, SECCOMP_RET_ERRNO | errno.EACCES)
True

Surprising: the filter cannot be lifted, not even by the process that
installed it, and it needs ``no_new_privs`` first (Landlock sets it too).
"""

import ctypes
import errno
import functools
import os
import platform
import sys

import reasoneval_mini.sandbox.landlock as landlock

# Named as in include/uapi/linux/filter.h (classic BPF) and seccomp.h.
BPF_LD, BPF_JMP, BPF_RET = 0x00, 0x05, 0x06
BPF_W, BPF_ABS, BPF_K = 0x00, 0x20, 0x00
BPF_JEQ, BPF_JGE = 0x10, 0x30
SECCOMP_RET_ALLOW = 0x7FFF0000
SECCOMP_RET_ERRNO = 0x00050000
PR_SET_SECCOMP = 22
SECCOMP_MODE_FILTER = 2
X32_SYSCALL_BIT = 0x40000000
# struct seccomp_data: int nr; __u32 arch; ...
_OFFSET_NR, _OFFSET_ARCH = 0, 4

#: machine -> (AUDIT_ARCH_*, __NR_socket, __NR_io_uring_setup, has the x32 entry point)
_ARCHITECTURES = {
    "x86_64": (0xC000003E, 41, 425, True),
    "aarch64": (0xC00000B7, 198, 425, False),
}


class _SockFilter(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint16), ("jt", ctypes.c_uint8), ("jf", ctypes.c_uint8),
                ("k", ctypes.c_uint32)]


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(_SockFilter))]


@functools.lru_cache(maxsize=None)
def supported():
    """True where the filter can be installed: Linux with seccomp filters, on x86_64 or aarch64.

    Read once per process (a fork server reads it before forking).
    """
    if sys.platform != "linux" or platform.machine() not in _ARCHITECTURES:
        return False
    try:
        with open("/proc/self/status", encoding="ascii", errors="replace") as status:
            return any(line.startswith("Seccomp:") for line in status)
    except OSError:
        return False


def _program(arch, socket_nr, io_uring_nr, x32):
    """The filter, as ``(code, jt, jf, k)`` instructions: deny new sockets, allow the rest."""
    deny = (BPF_RET | BPF_K, 0, 0, SECCOMP_RET_ERRNO | errno.EACCES)
    allow = (BPF_RET | BPF_K, 0, 0, SECCOMP_RET_ALLOW)
    body = [
        (BPF_JMP | BPF_JEQ | BPF_K, 0, 1, socket_nr),  # socket(): deny
        deny,
        (BPF_JMP | BPF_JEQ | BPF_K, 0, 1, io_uring_nr),  # io_uring_setup(): deny
        deny,
        allow,
    ]
    if x32:  # the x32 entry point numbers every call anew: refuse it altogether
        body = [(BPF_JMP | BPF_JGE | BPF_K, len(body), 0, X32_SYSCALL_BIT)] + body
    head = [
        (BPF_LD | BPF_W | BPF_ABS, 0, 0, _OFFSET_ARCH),
        (BPF_JMP | BPF_JEQ | BPF_K, 1, 0, arch),  # not our architecture's entry point:
        deny,                                     # refuse the call
        (BPF_LD | BPF_W | BPF_ABS, 0, 0, _OFFSET_NR),
    ]
    return head + body + [deny]


@functools.lru_cache(maxsize=None)
def prepared_filter():
    """The filter for this machine as a ctypes object, built once (a fork server builds it before forking)."""
    arch, socket_nr, io_uring_nr, x32 = _ARCHITECTURES[platform.machine()]
    instructions = _program(arch, socket_nr, io_uring_nr, x32)
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
    if landlock._LIBC.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(program), 0, 0) != 0:
        code = ctypes.get_errno()
        raise OSError(code, f"prctl(PR_SET_SECCOMP): {os.strerror(code)}")
