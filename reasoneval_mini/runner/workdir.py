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
    """Remove *path*, even where the child took away its own permissions; never raises."""
    shutil.rmtree(path, ignore_errors=True)
    if os.path.exists(path):
        for root, dirs, _ in os.walk(path):
            for name in [root] + [os.path.join(root, d) for d in dirs]:
                try:
                    os.chmod(name, 0o700)
                except OSError:
                    pass
        shutil.rmtree(path, ignore_errors=True)
