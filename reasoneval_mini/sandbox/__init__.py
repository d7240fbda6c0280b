"""The operating system's sandbox for untrusted programs: Landlock on Linux, a clear warning elsewhere.

Student cells and generated programs are hostile by nature. Checks inside the
hostile process cannot contain it (it can rewrite them); the kernel can. Both
runners of untrusted code (the executor and the grader) apply this sandbox in
the child process, before any untrusted code runs.

* ``landlock``: the kernel interface (three system calls, the kernel's names);
* ``seccomp``: a filter against new sockets, for what Landlock does not rule
  (UDP, Unix sockets bound to a path), on x86_64 and aarch64;
* ``libc``: the C library through ``ctypes``, loaded once for all of the package;
* ``policy``: what a run may touch, the modes (``auto``, ``required``,
  ``off``), how much this machine enforces (:class:`~policy.Isolation`), and
  :func:`~policy.confine`, which applies it.

Standard library only; importing it never fails, on any system.
"""

from reasoneval_mini.sandbox.policy import (
    FEATURES,
    MODES,
    Isolation,
    SandboxUnavailable,
    confine,
    plan_isolation,
)

__all__ = ["FEATURES", "MODES", "Isolation", "SandboxUnavailable", "confine", "plan_isolation"]
