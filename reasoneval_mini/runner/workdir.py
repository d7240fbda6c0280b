"""The untrusted child's own working folder: made empty, removed whatever the child did to it.

It is the only folder the sandbox lets the child write
(:func:`~reasoneval_mini.runner.confinement.confine_child`).

>>> folder = make_workdir()
>>> os.listdir(folder)
[]
>>> os.chmod(folder, 0o500)  # what a hostile child may do to its own folder
>>> remove_tree(folder)
>>> os.path.exists(folder)
False

Surprising: on Linux the folder is in ``/dev/shm`` (memory), not on disk.
"""

import os
import shutil
import sys
import tempfile

PREFIX = "reasoneval-run-"


def working_directory_base():
    """Where working folders go: RAM-backed ``/dev/shm`` on Linux, else the temporary folder.

    Creating and removing a folder there costs microseconds; on a disk it
    can cost milliseconds, which would dominate a fast program's run.
    """
    shm = "/dev/shm"
    if sys.platform.startswith("linux") and os.path.isdir(shm) and os.access(shm, os.W_OK | os.X_OK):
        return shm
    return tempfile.gettempdir()


def make_workdir(base=None):
    """A new empty folder (mode 0700) below *base* (default :func:`working_directory_base`)."""
    return tempfile.mkdtemp(prefix=PREFIX, dir=base or working_directory_base())


def remove_tree(path):
    """Remove *path*, even where the child took away its own permissions; never raises.

    The second pass gives back the owner's rights to every folder left, and
    never through a symbolic link: the child may have left one to any folder
    of ours (a fork server without root's powers must unlock what the child
    locked, and would otherwise unlock that folder).
    """
    shutil.rmtree(path, ignore_errors=True)
    if os.path.exists(path):
        if hasattr(os, "fwalk") and os.chmod in os.supports_dir_fd:
            # fwalk opens each folder it enters without following a link.
            for _, dirs, _, root_fd in os.fwalk(path):
                for name in dirs:
                    _unlock(name, root_fd)
        else:  # pragma: no cover - Windows: no mode bits to give back
            for root, dirs, _ in os.walk(path):
                for name in dirs:
                    if not os.path.islink(os.path.join(root, name)):
                        _unlock(os.path.join(root, name), None)
        shutil.rmtree(path, ignore_errors=True)


def _unlock(name, dir_fd):
    """``chmod 0700`` the folder *name* (in *dir_fd*), never the target of a link in its place."""
    if dir_fd is None:
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
