"""The caller's kernel keyring (keyctl(2), add_key(2)) through ctypes, for the keyring attacks.

The kernel keyring is not a file: Landlock does not rule it, and every
process of a user shares that user's keyring. The attack tests put a secret
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
