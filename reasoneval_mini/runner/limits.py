"""The untrusted child's resource limits (POSIX ``rlimit``s), set in the child on itself.

Each limit is optional (``None``: leave it as it is). The hard limit is
lowered along with the soft one, so the child cannot raise it again; a limit
already lower is kept. Crashes never write core files.

A limit the platform refuses is not an error but a warning in the returned
list, so a run on macOS or Windows still happens and says what it lacked.

Surprising: the CPU limit is a whole second above even a tiny wall timeout.

>>> cpu_seconds_for(0.2)
2
"""

import math
import os

try:  # imported once, so that forked children do not each load it
    import resource
except ImportError:  # Windows
    resource = None

#: The executor's defaults for the limits besides memory and time.
FILE_SIZE_LIMIT_MB = 16
OPEN_FILES_LIMIT = 64


def cpu_seconds_for(timeout):
    """CPU seconds for a wall *timeout*: one more, so a busy loop meets the wall clock first.

    >>> cpu_seconds_for(3.0), cpu_seconds_for(0.2)
    (4, 2)
    """
    return math.ceil(timeout) + 1


def apply_limits(*, memory_mb=None, cpu_seconds=None, file_size_mb=None, open_files=None):
    """Limit this process (and what it starts); return warnings for the limits refused.

    *memory_mb*: address space; *cpu_seconds*: CPU time (SIGXCPU at the soft
    limit, SIGKILL a second later); *file_size_mb*: largest file written;
    *open_files*: descriptors. Core files are always switched off.
    """
    if resource is None:
        return ["no resource limits: the resource module is missing on this platform"]
    wanted = [("RLIMIT_CORE", 0, 0)]
    if memory_mb is not None:
        wanted.append(("RLIMIT_AS", memory_mb * 2**20, memory_mb * 2**20))
    if cpu_seconds is not None:
        wanted.append(("RLIMIT_CPU", cpu_seconds, cpu_seconds + 1))
    if file_size_mb is not None:
        wanted.append(("RLIMIT_FSIZE", file_size_mb * 2**20, file_size_mb * 2**20))
    if open_files is not None:
        wanted.append(("RLIMIT_NOFILE", open_files, open_files))
    warnings = []
    for name, soft, hard in wanted:
        limit = getattr(resource, name, None)
        if limit is None:
            warnings.append(f"{name} is not available on this platform: not limited")
            continue
        try:
            old_hard = resource.getrlimit(limit)[1]
            if old_hard != resource.RLIM_INFINITY:
                soft, hard = min(soft, old_hard), min(hard, old_hard)
            resource.setrlimit(limit, (soft, hard))
        except (ValueError, OSError) as error:
            warnings.append(f"could not set {name}: {error}")
    return warnings


def max_fd():
    """One past the highest descriptor this process may hold (sysconf may say -1: unlimited).

    A forked child that closes every descriptor it was not given asks this
    before its limits lower ``RLIMIT_NOFILE``: descriptors above the new
    limit stay open, and must be closed too.
    """
    try:
        limit = os.sysconf("SC_OPEN_MAX")
    except (OSError, ValueError):
        limit = -1
    return limit if limit > 0 else 65536
