"""The C library, through ``ctypes``: the one place the package loads it (Linux).

The sandbox (Landlock, seccomp, capabilities) and the runner (``prctl``,
``unshare``, ``mount``) call the C library for what the standard library does
not wrap. They all share one load: each ``ctypes.CDLL`` makes a new library
object with its own function classes, and a runner server's children inherit
the one loaded before the fork instead of loading it again.

``errno`` is kept: after a call that failed, ``ctypes.get_errno()`` says why.

>>> import os, sys
>>> not sys.platform.startswith("linux") or libc().getpid() == os.getpid()
True
>>> not sys.platform.startswith("linux") or libc() is libc()
True
"""

import functools
import sys


@functools.lru_cache(maxsize=None)
def libc():
    """This process's C library (``ctypes.CDLL``, ``use_errno=True``), loaded on first use, then shared.

    Raises ``OSError`` off Linux (the calls made through it are Linux system
    calls) or if the loader refuses; importing this module never fails. A
    refusal is not cached: the next call tries again.
    """
    if not sys.platform.startswith("linux"):
        raise OSError(f"the C library is loaded on Linux only, not on {sys.platform!r}")
    import ctypes  # only where it is used: importing the sandbox works everywhere

    return ctypes.CDLL(None, use_errno=True)
