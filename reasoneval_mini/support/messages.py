"""How the package's processes talk: framed JSON messages, and the executor child's report.

The one child-process protocol of the package: the executor's fork server and
the grader's child both use it. A message is an 8-byte big-endian length
followed by that many bytes of UTF-8 JSON. The functions the writer needs are
bound when this module is imported, so code that later replaces
``json.dumps``, ``struct.pack`` or ``os.write`` cannot change what is sent.

>>> read_end, write_end = os.pipe()
>>> write_message(write_end, {"program": "print('é')"})
>>> read_message(read_end)
{'program': "print('é')"}

Surprising: a report that says it completed is ignored unless it carries this
run's nonce, so a program cannot pass by printing or writing one itself.

>>> parse_report(b'{"nonce": "n0nce", "completed": true}', "n0nce")
{'nonce': 'n0nce', 'completed': True}
>>> print(parse_report(b'{"nonce": "guess", "completed": true}', "n0nce"))
None
>>> os.close(read_end), os.close(write_end)
(None, None)
"""

import json
import os
import select
import struct
import time

#: Sent in place of a message: "stop" (and, while a program runs, "kill it").
#: Never the first byte of a real message, whose length header starts with 0.
CANCEL_BYTE = b"!"
MAX_REPORT_BYTES = 1 << 20
MAX_FIELD_CHARS = 2000

# Bound now (see the module docstring).
_dumps, _pack, _write = json.dumps, struct.pack, os.write
_writev = getattr(os, "writev", None)  # not on Windows


class MessageTooLarge(ValueError):
    """A frame claims more bytes than the reader accepts; the rest of the stream is not read."""


def read_message(fd, max_bytes=None, deadline=None):
    """The next message from *fd* as a dict; None at end of file or on :data:`CANCEL_BYTE`.

    With *max_bytes*, a frame that claims a longer body raises
    :class:`MessageTooLarge` before anything of it is read, so a garbled or
    hostile writer cannot make the reader hold more than that in memory.
    With *deadline* (a :func:`time.monotonic` time), waiting past it for any
    part of the message raises ``TimeoutError``: a writer that sends half a
    frame and stops cannot hold the reader. A body that is not JSON raises
    ``ValueError``.

    >>> read_end, write_end = os.pipe()
    >>> os.write(write_end, struct.pack(">Q", 9) + b'{"half')  # half a frame, then silence
    14
    >>> read_message(read_end, deadline=time.monotonic() + 0.05)
    Traceback (most recent call last):
    ...
    TimeoutError: nothing to read on descriptor ... before the deadline
    >>> os.close(read_end), os.close(write_end)
    (None, None)
    """
    first = _read_exact(fd, 1, deadline)
    if first in (None, CANCEL_BYTE):
        return None
    rest = _read_exact(fd, 7, deadline)
    if rest is None:
        return None
    size = struct.unpack(">Q", first + rest)[0]
    if max_bytes is not None and size > max_bytes:
        raise MessageTooLarge(f"a message of {size} bytes claimed; at most {max_bytes} accepted")
    body = _read_exact(fd, size, deadline)
    return None if body is None else json.loads(body)


def encode_message(message):
    """*message* (a JSON-able dict) as one frame, bytes, as :func:`write_message` sends it."""
    # ensure_ascii=False: text full of non-ASCII characters stays ~1-3 bytes a
    # character. A lone surrogate (from an exception message) becomes a \uXXXX
    # escape through backslashreplace, which is still valid JSON.
    data = _dumps(message, ensure_ascii=False).encode("utf-8", "backslashreplace")
    return _pack(">Q", len(data)) + data


def write_message(fd, message):
    """Send *message* (a JSON-able dict) on *fd* as one framed message."""
    write_all(fd, encode_message(message))


def read_exactly(fd, size, deadline=None, into=None):
    """The next *size* raw bytes from *fd* (see :func:`write_message`'s *parts*); None at end of file.

    With *into* (a writable memoryview of at least *size* bytes) they are
    read into it, and it is returned; else into a new ``bytearray``. With
    *deadline*, as :func:`read_message`.
    """
    if into is None:
        return _read_exact(fd, size, deadline)
    filled = 0
    while filled < size:
        if deadline is not None:
            wait_until_readable(fd, deadline)
        count = _read_into(fd, into[filled:size])
        if not count:
            return None
        filled += count
    return into


def _read_exact(fd, size, deadline=None):
    # One buffer of the announced size, filled in place: reading into fresh
    # chunks and joining them held every byte twice while a message arrived.
    buffer = bytearray(size)
    view, filled = memoryview(buffer), 0
    while filled < size:
        if deadline is not None:
            wait_until_readable(fd, deadline)
        count = _read_into(fd, view[filled:filled + (1 << 20)])
        if not count:
            return None
        filled += count
    return buffer


def _read_into(fd, view):
    if hasattr(os, "readv"):
        return os.readv(fd, [view])
    chunk = os.read(fd, len(view))  # Windows: no readv; the chunk is freed at once
    view[:len(chunk)] = chunk
    return len(chunk)


def wait_until_readable(fd, deadline):
    """Return once *fd* can be read; raise ``TimeoutError`` at *deadline* (monotonic time)."""
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise TimeoutError(f"nothing to read on descriptor {fd} before the deadline")
        if hasattr(select, "poll"):  # select() fails above descriptor 1023
            poller = select.poll()
            poller.register(fd, select.POLLIN)
            if poller.poll(remaining * 1000):
                return
        elif select.select([fd], [], [], remaining)[0]:
            return


def write_all(fd, data):
    """Write all of *data* to *fd*."""
    view = memoryview(data)
    while view:
        written = _write(fd, view)
        if not written:  # a write that moves nothing would loop forever
            raise OSError(f"no progress writing to descriptor {fd}")
        view = view[written:]


def parse_report(data, nonce):
    """The child's report if it carries this run's nonce, else None.

    Whatever the bytes are, the answer is a dict or None, never an error: the
    program may have written anything on its own report channel.

    >>> print(parse_report(b"[" * 5000, "n0nce"))  # too deep for the decoder
    None
    """
    try:
        report = json.loads(data)
    except Exception:  # noqa: BLE001 - ValueError, RecursionError (deep nesting), ...
        return None
    if not isinstance(report, dict) or report.get("nonce") != nonce:
        return None
    # Keep the answer small whatever the program managed to put in its report.
    clean = {}
    for key, value in report.items():
        if isinstance(value, str):
            clean[key] = value[:MAX_FIELD_CHARS]
        elif isinstance(value, list):
            clean[key] = [str(item)[:MAX_FIELD_CHARS] for item in value[:10]]
        elif value is None or isinstance(value, (bool, int)):
            clean[key] = value
    return clean
