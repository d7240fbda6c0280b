"""Confine an untrusted child: plan in the caller (warning once), apply in the child, fail closed.

The caller plans once per run, before anything starts
(:func:`plan_sandbox`): ``"required"`` on a kernel that lacks part of the
policy raises :class:`~reasoneval_mini.sandbox.SandboxUnavailable` there,
and ``"auto"`` or ``"off"`` warn once per session about what is not
enforced. The plan travels to the child as plain JSON values
(:func:`isolation_to_fields`). The child applies it with
:func:`limit_and_confine` (its resource limits, then the sandbox) after its
own setup and before the first untrusted line; when that fails the child
must not run the code at all.

A long-lived server that forks one child per program opens the policy's
read-only paths once (:func:`prepare_confinement`) and builds each child's
ruleset before forking it (:func:`build_child_ruleset`), so that each child
only makes the last system call.

>>> fields = isolation_to_fields(plan_isolation("auto", abi=4))
>>> fields
['auto', 4, ['files', 'network'], ['signals']]
>>> print(isolation_from_fields(fields))
landlock ABI 4: files, network

Surprising: a plan that enforces nothing confines nothing, without an error:
the warning was the caller's to give.

>>> confine_child(plan_isolation("off", abi=7), "/nonexistent") is None
True
"""

import os
import warnings

from reasoneval_mini.runner.limits import apply_limits
from reasoneval_mini.runner.workdir import cap_workdir
from reasoneval_mini.support.descriptors import dup_above
from reasoneval_mini.sandbox.policy import (
    Isolation,
    build_ruleset,
    confine,
    drop_capabilities,
    plan_isolation,
    prepare,
)

_WARNED = set()  # the warnings already given in this session
#: The exit status of a child whose own setup failed (the sandbox refused, above
#: all) before any untrusted code ran; why is its ``setup_failed`` event.
SETUP_FAILED = 70
#: Characters of a setup failure's note kept for the record.
MAX_SETUP_NOTE = 500


class ConfinementFailed(OSError):
    """The kernel refused to confine the child; the untrusted code must not run."""


def plan_sandbox(mode="auto", *, stacklevel=3):
    """The :class:`~reasoneval_mini.sandbox.Isolation` for *mode*; warn once about what is missing.

    *mode* is one of :data:`~reasoneval_mini.sandbox.MODES` (else
    ``ValueError``). Raises :class:`~reasoneval_mini.sandbox.SandboxUnavailable`
    for ``"required"`` where the kernel lacks part of the policy. Each
    distinct warning (``RuntimeWarning``) is issued once per session.
    """
    isolation = plan_isolation(mode)
    message = isolation.warning()
    if message is not None and message not in _WARNED:
        _WARNED.add(message)
        warnings.warn(f"reasoneval_mini: {message}", RuntimeWarning, stacklevel=stacklevel)
    return isolation


def isolation_to_fields(isolation):
    """*isolation* as a JSON-able list, for a request to a child."""
    return [isolation.mode, isolation.abi, list(isolation.enforced), list(isolation.missing)]


def isolation_from_fields(fields):
    """The :class:`~reasoneval_mini.sandbox.Isolation` that :func:`isolation_to_fields` wrote."""
    mode, abi, enforced, missing = fields
    return Isolation(mode, abi, tuple(enforced), tuple(missing))


def prepare_confinement(isolation):
    """Open the read-only paths of the policy once, for children forked later; None if nothing is enforced.

    The descriptors (``O_PATH``, close-on-exec) stay open in the calling
    process; hand the result to :func:`confine_child` in each child.
    """
    return prepare(isolation) if isolation.enforced else None


def harden_forking_parent():
    """In a process that only forks untrusted children (a runner server): give up root's powers once.

    As root it empties its own capability sets (see
    :func:`~reasoneval_mini.sandbox.policy.drop_capabilities`), so that no
    child has to (a child's own ``capset`` cost it about 0.2 ms): each child
    then pays only for its Landlock domain. Such a parent still signals and
    reaps its children, and removes the folders it owns. Does nothing for
    an ordinary user or off Linux.
    """
    drop_capabilities()


def build_child_ruleset(isolation, workdir, prepared=None):
    """In the parent, before forking: the child's whole Landlock ruleset, as a descriptor; None if none.

    Hand it to :func:`confine_child` in the child, then close it in both.
    Numbered 10 or above (a child setting up its 0-3 never replaces it).
    Raises ``OSError`` if the kernel refuses; the child may then try itself
    (and fail closed).
    """
    ruleset = build_ruleset(isolation, workdir, prepared)
    if ruleset is None or ruleset >= 10:
        return ruleset
    try:
        return dup_above(ruleset, 9)
    finally:
        os.close(ruleset)


def confine_child(isolation, workdir, prepared=None, ruleset=None):
    """Confine this process as *isolation* says, *workdir* its only writable folder.

    Call it in the child (one thread), after its own setup, before any
    untrusted code; *prepared* and *ruleset* are what the parent made
    (:func:`prepare_confinement`, :func:`build_child_ruleset`), if it did.
    Raises :class:`ConfinementFailed` naming the kernel's refusal: the
    caller must then exit without running anything.
    """
    try:
        confine(isolation, workdir, prepared, ruleset)
    except OSError as error:
        raise ConfinementFailed(error.errno, f"the sandbox could not be applied: {error}") from None


def limit_and_confine(isolation, workdir, *, memory_mb=None, cpu_seconds=None, file_size_mb=None,
                      open_files=None, cap_mb=None, prepared=None, ruleset=None):
    """In the child, before any untrusted code: its limits, its folder's cap, its sandbox, in that order.

    The one setup of every session's child
    (:mod:`reasoneval_mini.runner.child`). First the resource limits (see
    :func:`~reasoneval_mini.runner.limits.apply_limits` for *memory_mb*,
    *cpu_seconds*, *file_size_mb*, *open_files*): everything after them,
    the sandbox's own steps included, runs under them, and no sandbox the
    kernel may tighten later can forbid lowering them. Then, with *cap_mb*
    and where *isolation* enforces anything, *workdir* gets a file system of
    its own of that size (:func:`~reasoneval_mini.runner.workdir.cap_workdir`,
    which needs the powers the sandbox takes away). Last the sandbox
    (:func:`confine_child`, with the parent's *prepared* rules and
    *ruleset*, if any). Returns ``(warnings, capped)``: the warnings for the
    limits the platform refused, and whether *workdir* was capped here (None
    when no *cap_mb* was asked). Raises :class:`ConfinementFailed` when the
    sandbox could not be applied (then nothing untrusted may run).
    """
    refused = apply_limits(memory_mb=memory_mb, cpu_seconds=cpu_seconds,
                           file_size_mb=file_size_mb, open_files=open_files)
    capped = None
    if cap_mb is not None:  # "off" is off: no namespaces either
        capped = bool(isolation.enforced) and cap_workdir(workdir, cap_mb)
    confine_child(isolation, workdir, prepared, ruleset)
    return refused, capped


def setup_note(error):
    """What a child says of the *error* that ended its setup: ``"Type: message"``, bounded.

    >>> setup_note(ConfinementFailed(1, "the sandbox could not be applied: no"))
    'ConfinementFailed: [Errno 1] the sandbox could not be applied: no'
    """
    return f"{type(error).__name__}: {error}"[:MAX_SETUP_NOTE]
