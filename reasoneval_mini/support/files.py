"""Atomic file writes: a reader sees the old file or the new one, never half of one."""

import os
import tempfile
from pathlib import Path


def write_atomically(path, text, *, mode=0o644):
    """Write *text* (a ``str``, as UTF-8 with ``\\n`` line ends; or ``bytes``, as they are)
    to *path* through a temporary file.

    The temporary file is made next to *path* with a unique name (so two
    writers cannot collide), then renamed over *path* with ``os.replace``.
    If anything fails, or the write is interrupted, the temporary file is
    removed and *path* is left as it was. Missing parent folders are made.

    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> write_atomically(folder / "a.txt", "one\\n")
    >>> (folder / "a.txt").read_text(), sorted(p.name for p in folder.iterdir())
    ('one\\n', ['a.txt'])
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        if isinstance(text, bytes):
            with os.fdopen(handle, "wb") as stream:
                stream.write(text)
        else:
            with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as stream:
                stream.write(text)
        os.chmod(temporary, mode)  # mkstemp makes 0600; course files are for sharing
        os.replace(temporary, path)
    except BaseException:
        try:
            os.unlink(temporary)
        except FileNotFoundError:
            pass
        raise
