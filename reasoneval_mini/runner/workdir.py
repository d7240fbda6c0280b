"""The untrusted child's own working folder: made empty, emptied or removed whatever the child did to it.

It is the only folder the sandbox lets the child write
(:func:`~reasoneval_mini.runner.confinement.confine_child`).

>>> folder = make_workdir()
>>> os.listdir(folder)
[]
>>> os.chmod(folder, 0o500)  # what a hostile child may do to its own folder
>>> remove_tree(folder)
>>> os.path.exists(folder)
False

Surprising: on Linux the folder is in ``/dev/shm`` (memory), not on disk,
and nothing there counts against a memory limit: ``/dev/shm`` may hold all
the machine's memory. A child that lives long enough to afford it (the
grader's, one per student) caps its folder with :func:`cap_workdir`.

``shutil`` and ``tempfile`` are imported by the functions that use them, on
the caller's side: a runner server imports this module, and every library
a process has loaded is mapped again at each of its forks (``shutil`` loads
the zlib, bz2 and lzma libraries; together with ``tempfile``'s about 40
mappings, 0.25 ms of every fork and exit on a 2-core machine).
"""

import os
import sys
import time

from reasoneval_mini.sandbox.libc import libc

PREFIX = "reasoneval-run-"


def working_directory_base():
    """Where working folders go: RAM-backed ``/dev/shm`` on Linux, else the temporary folder.

    Creating and removing a folder there costs microseconds; on a disk it
    can cost milliseconds, which would dominate a fast program's run.
    """
    import tempfile  # here, not at the top: see the module's docstring

    shm = "/dev/shm"
    if sys.platform.startswith("linux") and os.path.isdir(shm) and os.access(shm, os.W_OK | os.X_OK):
        return shm
    return tempfile.gettempdir()


def make_workdir(base=None):
    """A new empty folder (mode 0700) below *base* (default :func:`working_directory_base`)."""
    import tempfile  # here, not at the top: see the module's docstring

    return tempfile.mkdtemp(prefix=PREFIX, dir=base or working_directory_base())


def remove_tree(path, deadline=None):
    """Remove *path*, even where the child took away its own permissions; never raises.

    An empty folder goes at once (``rmdir``: what most programs leave).
    Else the fast way first (``shutil.rmtree``), then what it leaves with
    two folders open at a time (:func:`_remove_flattening`): a folder the
    child locked, *path* itself included, is unlocked by its owner's right
    to ``chmod`` (a runner server without root's powers has no other), never
    through a symbolic link (the child may have left one to any folder of
    ours); and the depth of the tree costs nothing (Python 3.11's ``rmtree``
    recurses once a level, and a chain of a few thousand folders, made in
    milliseconds, ended it with ``RecursionError``).

    *deadline* (a :func:`time.monotonic` time), if given, is when to stop
    and leave the rest (the caller sees *path* still there): a chain of
    32,000 folders, made by a program in 0.15 s, takes 0.6 s or more to
    remove, and a caller with a deadline of its own must not wait for it.
    Then ``rmtree``, which cannot be stopped, is skipped.
    """
    try:
        os.rmdir(path)
        return
    except OSError:
        pass
    if deadline is None:  # never in a runner server, which gives a deadline
        import shutil  # here, not at the top: see the module's docstring

        try:
            shutil.rmtree(path, ignore_errors=True)
        except RecursionError:  # a tree deeper than Python's recursion limit
            pass
    if not os.path.lexists(path):
        return
    if os.open in os.supports_dir_fd and hasattr(os, "O_NOFOLLOW") and hasattr(os, "O_DIRECTORY"):
        _remove_flattening(path, deadline)
    else:  # pragma: no cover - Windows: no mode bits to give back
        import shutil

        for root, dirs, _ in os.walk(path):
            for name in dirs:
                if not os.path.islink(os.path.join(root, name)):
                    _unlock(os.path.join(root, name), None)
        shutil.rmtree(path, ignore_errors=True)


def empty_folder(path, deadline=None):
    """Remove everything in the folder *path* but the folder itself; True if it is empty then. Never raises.

    For a folder that must stay the same folder (a runner server's
    sessions' folder, which their sandbox's rule names by its inode): the
    same care as :func:`remove_tree` (never through a link, the child's
    locks undone, any depth, *deadline* as there), and *path* itself keeps
    its place, with mode 0700. False when something is left, or when *path*
    is no folder (a link in its place included: nothing is then done).

    >>> folder = make_workdir()
    >>> os.makedirs(os.path.join(folder, "a", "b"))
    >>> empty_folder(folder), os.listdir(folder)
    (True, [])
    >>> remove_tree(folder)
    """
    _unlock(path, None)  # the child may have locked its own folder
    if not _is_empty(path):
        _remove_flattening(path, deadline, keep=True)
        if not _is_empty(path):
            return False
    return _forget_metadata(path)


def _is_empty(path):
    """True if *path* is a folder (not a link to one) with nothing in it."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return False
    try:
        return not os.listdir(fd) if os.listdir in os.supports_fd else not os.listdir(path)
    except OSError:
        return False
    finally:
        os.close(fd)


def _forget_metadata(path):
    """Give the folder *path* fixed times and none of its user's extended attributes; True if done.

    What a session could leave on its folder for the next one to read (the
    times of its last change, chosen to the nanosecond; an attribute): the
    system-call filter refuses setting them where it runs, but not the
    times that its own writes leave. Attributes of other namespaces (an
    LSM's label) are not the program's to set, and stay.
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return False
    try:
        if os.utime in os.supports_fd:
            os.utime(fd, ns=(0, 0))
        else:  # pragma: no cover - no futimens here
            os.utime(path, ns=(0, 0))
        for name in os.listxattr(fd) if hasattr(os, "listxattr") else ():
            if name.startswith("user.") or name.startswith("system.posix_acl"):
                os.removexattr(fd, name)
        return True
    except OSError:
        return False
    finally:
        os.close(fd)


def _remove_flattening(path, deadline=None, keep=False):
    """Empty and remove the folder *path* (never following a link), however deep or locked.

    With *keep*, *path* itself stays (emptied).

    Each pass removes every file and link in *path*, and for each folder
    there: unlocks it, removes its files and links, moves its folders up
    into *path* (a rename within one file system), removes it. Every entry
    is moved once at most, and only *path* and one folder below it are open
    at a time. Stops when a pass removes nothing (what is left cannot be
    removed: the caller sees it), or at *deadline*.
    """

    def late():
        return deadline is not None and time.monotonic() > deadline

    flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW
    _unlock(path, None)  # the child may have locked its own folder too
    try:
        top = os.open(path, flags)
    except OSError:
        return  # a link in its place, or gone
    spare = [0]  # the number in the next free name in *path*

    def free_name():
        while True:
            name = f".removing-{spare[0]}"
            spare[0] += 1
            try:
                os.stat(name, dir_fd=top, follow_symlinks=False)
            except OSError:  # not there (or *path* unreadable: the rename fails as well)
                return name

    try:
        progress = True
        while progress:
            progress = False
            try:
                names = os.listdir(top)
            except OSError:
                break
            for name in names:
                if late():
                    return
                try:
                    os.unlink(name, dir_fd=top)  # a file or a link: never followed
                    progress = True
                    continue
                except OSError:
                    pass  # a folder (or not removable)
                _unlock(name, top)
                try:
                    folder = os.open(name, flags, dir_fd=top)
                except OSError:
                    continue
                try:
                    for entry in os.listdir(folder):
                        if late():
                            break
                        try:
                            os.unlink(entry, dir_fd=folder)  # a file or a link: gone now
                            progress = True
                            continue
                        except OSError:
                            pass
                        _unlock(entry, folder)  # moving a folder rewrites its "..": needs write
                        try:
                            os.rename(entry, free_name(), src_dir_fd=folder, dst_dir_fd=top)
                            progress = True  # moved up: the next pass takes it
                        except OSError:
                            pass
                except OSError:
                    pass
                finally:
                    os.close(folder)
                try:
                    os.rmdir(name, dir_fd=top)
                    progress = True
                except OSError:
                    pass
    finally:
        os.close(top)
    if keep:
        return
    try:
        os.rmdir(path)
    except OSError:
        pass


def _unlock(name, dir_fd):
    """``chmod 0700`` the folder *name* (in *dir_fd*, if given), never a link's target."""
    if not hasattr(os, "O_NOFOLLOW"):
        try:
            os.chmod(name, 0o700)
        except OSError:
            pass
        return
    try:
        # O_PATH needs no permission on the folder; O_NOFOLLOW refuses a
        # link, O_DIRECTORY anything else; the fd then names that very folder.
        fd = os.open(name, getattr(os, "O_PATH", os.O_RDONLY) | os.O_DIRECTORY | os.O_NOFOLLOW,
                     dir_fd=dir_fd)
    except OSError:
        return
    try:
        if hasattr(os, "O_PATH"):  # Linux: fchmod refuses an O_PATH fd; its /proc name does not
            os.chmod(f"/proc/self/fd/{fd}", 0o700)
        else:
            os.fchmod(fd, 0o700)
    except OSError:
        pass
    finally:
        os.close(fd)


# Named as in include/uapi/linux/sched.h and mount.h.
CLONE_NEWNS, CLONE_NEWUSER = 0x00020000, 0x10000000
MS_NOSUID, MS_NODEV, MS_REC, MS_PRIVATE = 0x2, 0x4, 0x4000, 1 << 18


def cap_workdir(path, size_mb):
    """In a child about to be confined: give *path* a private memory file system of *size_mb* MB.

    Linux only, in a single-threaded process, before the sandbox (which
    forbids mounting): :func:`enter_private_mounts`, then
    :func:`mount_capped`. A write past the size (or a file past
    ``size_mb * FILES_PER_MB``) fails with ``ENOSPC``, and
    the memory goes back to the system with the last process of the run.
    Nobody else sees the new files (the caller's folder stays empty; it
    still removes it as usual). The process's working directory moves onto
    the new file system.

    Returns True when the folder is capped; False where the kernel refuses
    (not Linux, user namespaces switched off): the folder is then as before.
    """
    if not (enter_private_mounts() and mount_capped(path, size_mb)):
        return False
    os.chdir(path)
    return True


def enter_private_mounts():
    """Move this (single-threaded) process to its own user and mount namespaces; True if it did.

    In its own user namespace the process is root, its own user outside,
    with powers over its own namespaces only: even root leaves its powers
    over the machine behind (a sandbox applied later drops the rest). Where
    the kernel has user namespaces switched off, root still gets a mount
    namespace alone. Mounts made afterwards are seen by this process and
    those it starts, by nobody else. False off Linux or where the kernel
    refuses; a refusal halfway leaves the process in the new namespaces, harmlessly.
    """
    if not sys.platform.startswith("linux"):
        return False
    uid, gid = os.geteuid(), os.getegid()
    if libc().unshare(CLONE_NEWUSER | CLONE_NEWNS) == 0:
        try:
            for name, text in (("setgroups", b"deny"), ("uid_map", b"0 %d 1" % uid),
                               ("gid_map", b"0 %d 1" % gid)):
                fd = os.open(f"/proc/self/{name}", os.O_WRONLY)
                try:
                    os.write(fd, text)  # one write: the kernel takes a map whole
                finally:
                    os.close(fd)
        except OSError:
            return False
    elif libc().unshare(CLONE_NEWNS) != 0:  # no user namespaces: root may still
        return False
    # Private: no mount of ours shows in (or propagates to) the caller's namespace.
    return libc().mount(b"none", b"/", None, MS_REC | MS_PRIVATE, None) == 0


#: Files (folders, links) a capped folder may hold per MB of its size. Each
#: costs the kernel about 1 KiB that ``size`` does not count (an empty file
#: has no data), and tmpfs's default allows half the machine's pages: in a
#: 64 MB folder a program made 300,000 empty files in about a second. At 64
#: a MB they cost at most 1/16 of the size more, and a runner server removes
#: them all (32,768 under 512 MB) in a small part of the 0.8 s its caller
#: allows after a program's deadline (131,072 took 0.5 s, 1.2 s when locked).
FILES_PER_MB = 64


def mount_capped(path, size_mb):
    """Mount a ``tmpfs`` of *size_mb* MB (mode 0700) over the folder *path*; True if it worked.

    It holds at most ``size_mb * FILES_PER_MB`` files, folders and links
    (hard links count too). Only after :func:`enter_private_mounts`, by a
    process that still has the powers to mount (in its own namespace).
    """
    options = b"size=%dm,nr_inodes=%d,mode=0700" % (int(size_mb), int(size_mb) * FILES_PER_MB)
    return libc().mount(b"tmpfs", os.fsencode(path), b"tmpfs", MS_NOSUID | MS_NODEV,
                         options) == 0

