"""Kernel objects that are not files (the keyring, System V IPC), through ctypes, for the attack tests.

The kernel keyring and System V IPC are not files: Landlock does not rule them, and every
process of a user shares them, beyond the life of any run. The attack tests put a secret
there as an instructor would, and look for a key planted by untrusted code.
"""

import ctypes
import platform
import sys

import pytest

# Named as in include/uapi/linux/keyctl.h.
KEYCTL_SEARCH, KEYCTL_READ, KEYCTL_UNLINK, KEY_SPEC_USER_KEYRING = 10, 11, 9, -4


class Keyring:
    """The caller's user keyring; skips the test where this system has none to offer."""

    NUMBERS = {"x86_64": (248, 250), "aarch64": (217, 219)}  # add_key, keyctl

    def __init__(self):
        if not sys.platform.startswith("linux") or platform.machine() not in self.NUMBERS:
            pytest.skip("the kernel keyring is Linux's; numbers known for x86_64 and aarch64")
        self.add_key, self.keyctl = self.NUMBERS[platform.machine()]
        self.libc = ctypes.CDLL(None, use_errno=True)
        self.libc.syscall.restype = ctypes.c_long

    def add(self, name, value):
        key = self.libc.syscall(self.add_key, b"user", name, value, len(value), KEY_SPEC_USER_KEYRING)
        if key < 0:
            pytest.skip("this system refuses add_key(2) (a container's own seccomp profile?)")
        return key

    def find(self, name):
        key = self.libc.syscall(self.keyctl, KEYCTL_SEARCH, KEY_SPEC_USER_KEYRING, b"user", name, 0)
        return key if key > 0 else None

    def unlink(self, key):
        self.libc.syscall(self.keyctl, KEYCTL_UNLINK, key, KEY_SPEC_USER_KEYRING)


class SystemV:
    """System V shared memory and message queues (shmget(2), msgget(2)): kernel objects, not files."""

    IPC_RMID = 0

    def __init__(self):
        if not sys.platform.startswith("linux"):
            pytest.skip("System V IPC is checked on Linux")
        self.libc = ctypes.CDLL(None, use_errno=True)

    def segment(self, key):
        """The id of the shared memory segment under *key*, or None."""
        found = self.libc.shmget(key, 0, 0)
        return found if found >= 0 else None

    def queue(self, key):
        """The id of the message queue under *key*, or None."""
        found = self.libc.msgget(key, 0)
        return found if found >= 0 else None

    def remove(self, key):
        """Remove whatever segment or queue a test left under *key*."""
        segment, queue = self.segment(key), self.queue(key)
        if segment is not None:
            self.libc.shmctl(segment, self.IPC_RMID, None)
        if queue is not None:
            self.libc.msgctl(queue, self.IPC_RMID, None)
