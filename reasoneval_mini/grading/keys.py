"""The grader's secret key: what makes its hidden checks unknowable in advance.

Hidden checks are drawn from the student's identity *and* this key
(:meth:`~reasoneval_mini.exercises.variants.Variant.hidden_rng`). The
identity is public and the drawing code is in the package, so without a
secret a student could compute the hidden inputs and answer them from a
table. The key is 32 random bytes, kept as 64 hex digits in a file only the
instructor reads; the grading sandbox cannot read it.

One key per instructor: ``grade`` uses :func:`default_key_path` (made on first
use, mode 0600) unless ``--key FILE`` names another. Two graders who must give
the same grades (a rerun elsewhere, a second TA) share the file. The same key
and the same submissions give the same hidden checks, so a rerun is identical.

>>> import tempfile, pathlib
>>> path = pathlib.Path(tempfile.mkdtemp()) / "key"
>>> load_grading_key(path) == load_grading_key(path), len(load_grading_key(path))
(True, 32)
>>> _ = path.write_text("not hex")
>>> load_grading_key(path)
Traceback (most recent call last):
...
ValueError: grading key file ... must hold 64 hex digits (32 bytes); got 7 characters
"""

import os
import secrets
from pathlib import Path

__all__ = ["KEY_BYTES", "default_key_path", "load_grading_key"]

#: Size of a grading key.
KEY_BYTES = 32


def default_key_path():
    """The instructor's key file: ``$XDG_CONFIG_HOME`` (or ``~/.config``; ``%APPDATA%`` on Windows)."""
    base = os.environ.get("XDG_CONFIG_HOME") or (
        os.environ.get("APPDATA") if os.name == "nt" else None) or Path.home() / ".config"
    return Path(base) / "reasoneval-course" / "grading-key"


def load_grading_key(path=None):
    """The key in *path* (default :func:`default_key_path`), made there first if absent.

    ``ValueError`` names a file that exists but does not hold a key.
    """
    path = Path(path) if path is not None else default_key_path()
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            # O_EXCL: two graders starting at once must not each write their own key.
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            pass
        else:
            with os.fdopen(fd, "w") as file:
                file.write(secrets.token_hex(KEY_BYTES) + "\n")
    text = path.read_text(encoding="ascii", errors="replace").strip()
    try:
        key = bytes.fromhex(text)
    except ValueError:
        key = b""
    if len(key) != KEY_BYTES:
        raise ValueError(f"grading key file {path} must hold {2 * KEY_BYTES} hex digits "
                         f"({KEY_BYTES} bytes); got {len(text)} characters")
    return key
