"""What the executor's sandbox tests share: skipping by kernel feature, running a program, a plan item."""

import os
import sys
import textwrap

import pytest

import reasoneval_mini.sandbox.landlock as landlock
import reasoneval_mini.sandbox.seccomp as seccomp
from reasoneval_mini import execute_program

ABI = landlock.abi_version()


def needs(abi, feature):
    """Skip, naming *feature*, unless this kernel has Landlock ABI *abi* or newer."""
    if sys.platform != "linux" or not hasattr(os, "fork"):
        return pytest.mark.skip(reason="Landlock is Linux-only")
    if ABI < abi:
        return pytest.mark.skip(reason=f"{feature} needs Landlock ABI {abi}; this kernel has {ABI}")
    return pytest.mark.skipif(False, reason="the kernel has it")


#: Skip unless the seccomp filter runs here.
needs_filter = pytest.mark.skipif(not seccomp.supported(),
                                  reason="the seccomp filter is known for x86_64 and aarch64 Linux")


def needs_socket_filter():
    """Skip unless both the seccomp filter and Landlock's network rules (ABI 4) run here."""
    if not seccomp.supported():
        return pytest.mark.skip(reason="the socket filter needs seccomp on x86_64 or aarch64 Linux")
    return needs(4, "the network rules")


def run(source, **options):
    """``execute_program`` on *source*, dedented."""
    return execute_program(textwrap.dedent(source), **options)


def item(sample_id, source):
    """A plan item for ``execute_samples``."""
    return {"sample_id": sample_id, "task_id": "task", "program": textwrap.dedent(source)}


def fill_folder(megabytes):
    """A program that writes *megabytes* MB into its folder and prints how many it wrote.

    In files of 16 MB (the executor's file-size limit), stopping at the
    first refusal (``ENOSPC`` in a capped folder).
    """
    return textwrap.dedent(f"""
        written = 0
        try:
            for number in range({megabytes // 16}):
                with open(f"fill-{{number}}", "wb") as handle:
                    for _ in range(16):
                        handle.write(b"x" * (1 << 20))
                        written += 1
        except OSError:
            pass
        print(written)
        """)
