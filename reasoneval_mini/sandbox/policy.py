"""What a sandboxed run may touch, how much of that this machine enforces, and applying it.

The policy, one domain per run (per program, per student):

* read and execute, nothing else: the running interpreter's installation
  (standard library, ``site-packages``), the ``reasoneval_mini`` package
  folder itself, the system's shared libraries, ``/dev/null`` and
  ``/dev/urandom``; never the folder the package sits in, so not a
  checkout's ``solutions/``, hidden tests or an instructor's files;
* read and write: only the run's own working folder;
* no TCP bind or connect (Landlock ABI 4), and with it, where seccomp
  filters work (x86_64, aarch64), no new socket of any kind (so no UDP, no
  Unix socket file), no kernel keyring, no new session or process group
  (the run's end kills every process it started), no change of any file's
  mode, owner, times, flags or extended attributes (ACLs), no file watch, lease or pipe resize,
  no limit, priority or CPU set on another process, no message queue, no memfd and
  no new namespace (:mod:`~reasoneval_mini.sandbox.seccomp`); no signals and no abstract Unix
  sockets to processes outside the run's own sandbox (ABI 6); no
  ``/proc/<pid>`` of such processes (any ABI: Landlock's ``ptrace`` rule);
* a process running as root also drops every capability first, so that it
  cannot load kernel modules, reboot, or regain them through ``exec``.

*mode* is one of :data:`MODES`:

* ``"auto"`` (the default everywhere): enforce what the kernel offers and
  warn once about the rest;
* ``"required"``: refuse (:class:`SandboxUnavailable`) unless files,
  network and signals are all enforced;
* ``"off"``: run unconfined, with a warning.

:func:`plan_isolation` decides in the caller, :func:`confine` applies in the
child. The decision is an :class:`Isolation` record; its ``str`` is the
one-line *isolation level* that results, runs and reports carry.

>>> print(plan_isolation("off", abi=7))
none (sandbox off)
>>> print(plan_isolation("auto", abi=7))
landlock ABI 7: files, network, signals
>>> plan_isolation("auto", abi=3).missing
('network', 'signals')

Surprising: ``"required"`` on a kernel that sandboxes files but not the
network is refused, not half-applied.

>>> plan_isolation("required", abi=3)
Traceback (most recent call last):
...
reasoneval_mini.sandbox.policy.SandboxUnavailable: sandbox 'required', but this kernel (Landlock ABI 3) does not enforce: network (needs ABI 4, Linux 6.7), signals (needs ABI 6, Linux 6.12); use --sandbox auto to run with what it has
"""

import ctypes
import functools
import os
import site
import sys
import sysconfig
from typing import NamedTuple

import reasoneval_mini.sandbox.landlock as landlock
import reasoneval_mini.sandbox.seccomp as seccomp
from reasoneval_mini.sandbox.libc import libc
from reasoneval_mini.support.descriptors import dup_above

#: The sandbox modes a caller may ask for.
MODES = ("auto", "required", "off")
#: What the sandbox can enforce, each with the Landlock ABI and Linux version it needs.
FEATURES = {"files": (1, "5.13"), "network": (4, "6.7"), "signals": (6, "6.12")}


class SandboxUnavailable(RuntimeError):
    """``mode="required"``, and the kernel cannot enforce the whole policy; the message names what is missing."""


class Isolation(NamedTuple):
    """How runs are isolated: the *mode* asked for, the kernel's *abi*, what is *enforced* and *missing*.

    *folder_capped* says whether each run's working folder was a file system
    of the run's memory limit (``True``), or a plain folder in ``/dev/shm``,
    where nothing a program writes counts against any limit (``False``:
    where the kernel lets no process mount one, e.g. with user namespaces
    switched off); ``None`` when not known (a plan, before anything ran).
    The executor sets it from what each run's runner server did.

    >>> print(Isolation("auto", 7, ("files", "network", "signals"), (), folder_capped=False))
    landlock ABI 7: files, network, signals; working folder NOT capped

    A named tuple, not a dataclass: ``dataclasses`` imports ``inspect``
    (1.2 MB of objects), and every runner server holds this class, and
    copies the page tables of all it holds at each fork.
    """

    mode: str
    abi: int
    enforced: tuple
    missing: tuple
    folder_capped: object = None

    @property
    def level(self):
        """``"full"``, ``"partial"`` or ``"none"``."""
        if not self.enforced:
            return "none"
        return "partial" if self.missing else "full"

    def __str__(self):
        if self.mode == "off":
            sandbox = "none (sandbox off)"
        elif not self.enforced:
            sandbox = f"none ({_no_landlock_reason(self.abi)})"
        else:
            sandbox = f"landlock ABI {self.abi}: {', '.join(self.enforced)}"
        return sandbox + _FOLDER_CAP[self.folder_capped]

    def warning(self):
        """The one-line warning a run should print, or ``None`` when everything is enforced."""
        if self.mode == "off":
            return ("sandbox off: programs run with your rights (they can read and change your "
                    "files, use the network and signal your processes)")
        if not self.enforced:
            return (f"no sandbox here ({_no_landlock_reason(self.abi)}): programs run with your "
                    "rights; only time and resource limits apply")
        uncapped = [UNCAPPED_FOLDER] if self.folder_capped is False else []
        if self.missing:
            return (f"sandbox: this kernel (Landlock ABI {self.abi}) does not enforce "
                    f"{_and(self.missing)}; "
                    + "; ".join([_CONSEQUENCE[name] for name in self.missing] + uncapped))
        return f"sandbox: {uncapped[0]}" if uncapped else None


_CONSEQUENCE = {
    "network": "programs can open TCP connections",
    "signals": "programs can signal processes outside the sandbox",
}
#: What a run's record says of its working folder (``folder_capped``: not known, yes, no).
_FOLDER_CAP = {None: "", True: "; working folder capped", False: "; working folder NOT capped"}
#: Why an uncapped folder matters, in one line.
UNCAPPED_FOLDER = ("the working folders are not capped here (no process may mount a file system "
                   "of its own: on Linux, user namespaces are off): a program can fill the "
                   "machine's memory (/dev/shm) or disk through its folder, whatever its memory limit")


def _and(names):
    return " and ".join(names) if len(names) < 3 else ", ".join(names[:-1]) + " and " + names[-1]


def _no_landlock_reason(abi):
    if sys.platform != "linux":
        return f"Landlock is Linux-only, this is {sys.platform}"
    return "this Linux kernel has no Landlock, or it is switched off"


def plan_isolation(mode="auto", *, abi=None):
    """Decide how runs will be isolated; return an :class:`Isolation`.

    *mode* must be one of :data:`MODES` (else ``ValueError`` naming it).
    *abi* defaults to the running kernel's (:func:`landlock.abi_version`);
    tests pass it to ask "what if". ``"required"`` raises
    :class:`SandboxUnavailable` naming each missing feature.
    """
    if mode not in MODES:
        raise ValueError(f"sandbox must be one of {', '.join(map(repr, MODES))}, got {mode!r}")
    if abi is None:
        abi = landlock.abi_version()
    if mode == "off":
        return Isolation(mode, abi, (), tuple(FEATURES))
    enforced = tuple(name for name, (needed, _) in FEATURES.items() if abi >= needed)
    missing = tuple(name for name in FEATURES if name not in enforced)
    if mode == "required" and missing:
        if not enforced:
            raise SandboxUnavailable(
                f"sandbox 'required', but {_no_landlock_reason(abi)}; use --sandbox auto "
                "to run without it")
        needs = ", ".join(f"{name} (needs ABI {FEATURES[name][0]}, Linux {FEATURES[name][1]})"
                          for name in missing)
        raise SandboxUnavailable(
            f"sandbox 'required', but this kernel (Landlock ABI {abi}) does not enforce: "
            f"{needs}; use --sandbox auto to run with what it has")
    return Isolation(mode, abi, enforced, missing)


# --- The child's side ---------------------------------------------------------

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Shared libraries and the loader's cache: system files, no user data. Without
# them neither ``ctypes`` nor an extension module linked to a system library loads.
_SYSTEM_LIBRARIES = ("/lib", "/lib64", "/usr/lib", "/usr/lib64", "/etc/ld.so.cache")
_DEVICES_READ = ("/dev/urandom", "/dev/random", "/dev/zero")
_DEVICES_READ_WRITE = ("/dev/null",)


@functools.lru_cache(maxsize=None)
def readable_paths():
    """The folders and files a sandboxed run may read (and execute), as a sorted tuple.

    The interpreter's installation as :mod:`sysconfig` and :mod:`site` name
    it (for a virtual environment, its base installation too), the package
    folder, the system's shared libraries, a few devices. Never ``sys.path``
    as a whole: it may start with a checkout or the current folder.
    """
    paths = set(_SYSTEM_LIBRARIES) | set(_DEVICES_READ)
    schemes = [sysconfig.get_paths(),
               sysconfig.get_paths(vars={"base": sys.base_prefix, "platbase": sys.base_exec_prefix,
                                         "installed_base": sys.base_prefix,
                                         "installed_platbase": sys.base_exec_prefix})]
    for scheme in schemes:
        paths.update(scheme[key] for key in ("stdlib", "platstdlib", "purelib", "platlib"))
    paths.update(site.getsitepackages())
    user_site = site.getusersitepackages() if site.ENABLE_USER_SITE else None
    if user_site and user_site in sys.path:
        paths.add(user_site)
    libdir = sysconfig.get_config_var("LIBDIR")
    if libdir:  # libpython, for an interpreter built with --enable-shared
        paths.add(libdir)
    paths.add(os.path.realpath(sys.executable))
    if sys.prefix != sys.base_prefix:  # a virtual environment: Python reads it to start
        paths.add(os.path.join(sys.prefix, "pyvenv.cfg"))
    paths.add(_PACKAGE_DIR)
    return _outermost(os.path.realpath(path) for path in paths)


def _outermost(paths):
    """The sorted distinct *paths*, without those beneath another one (a rule covers its subtree).

    >>> _outermost(["/usr/lib", "/usr/lib/python3", "/usr/lib", "/usr/lib64"])
    ('/usr/lib', '/usr/lib64')
    """
    kept = []
    for path in sorted(set(paths)):
        if not any(path.startswith(parent.rstrip("/") + "/") for parent in kept):
            kept.append(path)
    return tuple(kept)


def _fixed_rules():
    rules = [(path, landlock.FS_READ_EXECUTE) for path in readable_paths()]
    rules += [(path, landlock.LANDLOCK_ACCESS_FS_READ_FILE | landlock.LANDLOCK_ACCESS_FS_WRITE_FILE)
              for path in _DEVICES_READ_WRITE]
    return rules


def prepare(isolation):
    """The policy's fixed rules with their paths opened now, for :func:`confine` in later children.

    A runner server calls it once: each child then skips opening and
    inspecting a dozen paths. The descriptors are ``O_PATH`` (they allow
    no reading), close-on-exec and numbered 10 or above; they stay open
    for the caller's life.
    """
    if not isolation.enforced:
        return ()
    if seccomp.supported():
        seccomp.prepared_filter()  # built here, once: a child only installs it

    rules = []
    for path, rights in _fixed_rules():
        opened = landlock.open_rule(path, rights)
        if opened is not None:
            # Numbered above 9, so that a child setting up its 0-3 never replaces one.
            try:
                fd = dup_above(opened[0], 9)
            finally:
                os.close(opened[0])
            rules.append((fd, opened[1]))
    return tuple(rules)


def confine(isolation, workdir, prepared=None, ruleset=None):
    """Sandbox this process as *isolation* says, with *workdir* its only writable folder.

    Call it in the child, after ``fork`` (one thread), before anything
    untrusted runs. *prepared* is :func:`prepare`'s answer from the parent,
    if it made one; *ruleset*, :func:`build_ruleset`'s (then only the last
    system call is left to the child, and *workdir* is not read). Does
    nothing when *isolation* enforces nothing. Raises ``OSError`` when the
    kernel refuses: the caller must then not run the program (it would run
    unconfined while its record says otherwise).
    """
    if not isolation.enforced:
        return
    # Asked now: the answer is read from /proc/self, which Landlock closes
    # below (a child that asked afterwards read "no seccomp" and ran unfiltered).
    # The filter goes with any Landlock domain: the keyring and namespaces are
    # open on every ABI (on ABI 1-3 it also takes every socket, TCP included).
    filter_calls = seccomp.supported()
    drop_capabilities()
    if ruleset is None:
        ruleset = build_ruleset(isolation, workdir, prepared)
        try:
            landlock.enforce_ruleset(ruleset)
        finally:
            os.close(ruleset)
    else:
        landlock.enforce_ruleset(ruleset)
    if filter_calls:
        # What Landlock leaves open (UDP, Unix sockets bound to a path, the
        # kernel keyring, new namespaces): refused by the seccomp filter.
        seccomp.deny_sockets(seccomp.prepared_filter())


def build_ruleset(isolation, workdir, prepared=None):
    """The Landlock ruleset of the policy for one run in *workdir*, as a descriptor (the caller closes it).

    A runner server builds it before forking each child (the child only
    enforces it, with :func:`confine`): a child that built it itself would
    pay for every call in copied memory pages. None when nothing is enforced.
    """
    if not isolation.enforced:
        return None
    rules = list(prepared) if prepared is not None else _fixed_rules()
    rules.append((workdir, landlock.access_rights_for(isolation.abi)))
    return landlock.create_ruleset(isolation.abi, rules,
                                   deny_tcp="network" in isolation.enforced,
                                   scope_signals="signals" in isolation.enforced)


# Named as in include/uapi/linux/capability.h and prctl.h.
_LINUX_CAPABILITY_VERSION_3 = 0x20080522
PR_CAPBSET_DROP = 24
_CAP_LAST_POSSIBLE = 63


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32),
                ("inheritable", ctypes.c_uint32)]


_BOUNDING_SET = {"empty": False}  # inherited by forked children, like the set itself


def drop_bounding_set():
    """As root: empty this process's capability bounding set (inherited by its children). Idempotent.

    Nothing changes for the caller's own capabilities; only an ``exec`` can
    no longer grant any. A process that forks many sandboxed children (a
    runner server) calls it once, so that each child only clears its own sets.
    """
    if sys.platform != "linux" or os.geteuid() != 0 or _BOUNDING_SET["empty"]:
        return
    for capability in range(_last_capability() + 1):
        libc().prctl(PR_CAPBSET_DROP, capability, 0, 0, 0)  # EINVAL past the last one: fine
    _BOUNDING_SET["empty"] = True


def _last_capability():
    try:
        with open("/proc/sys/kernel/cap_last_cap", encoding="ascii") as handle:
            return int(handle.read())
    except (OSError, ValueError):
        return _CAP_LAST_POSSIBLE


def drop_capabilities():
    """As root: empty the bounding set, then every capability set. Elsewhere: nothing.

    Why both: root that merely clears its capabilities gets them all back on
    the next ``exec``; with the bounding set empty there is nothing to get.
    Landlock already stops root from opening files outside the policy, but
    not from, say, ``reboot(2)`` or loading a kernel module.
    """
    if sys.platform != "linux" or os.geteuid() != 0 or _CAPABILITIES["dropped"]:
        return
    drop_bounding_set()
    header = _CapHeader(_LINUX_CAPABILITY_VERSION_3, 0)
    data = (_CapData * 2)()
    if libc().capset(ctypes.byref(header), data) != 0:
        code = ctypes.get_errno()
        raise OSError(code, f"capset: {os.strerror(code)}")
    _CAPABILITIES["dropped"] = True


# Set once the sets are empty, in a process whose forked children inherit
# both the empty sets and this flag (a runner server drops them for all of its
# children at once: each commit of new credentials costs a child ~0.1 ms).
_CAPABILITIES = {"dropped": False}
