"""How the package's processes talk: framed JSON messages.

One frame format for every channel between the package's processes (a
runner and its server, a session and its child): an 8-byte big-endian
length, then that many bytes of UTF-8 JSON. One exception: the requests a
caller sends its own session's child, and its runner server
(:func:`encode_request`), are :mod:`marshal`, not JSON: a freshly forked
child pays for the first use of json's decoder in copied memory, and so
does a server at every session (each fork write-protects its pages again).
Marshal is read only from a trusted writer: everything an untrusted process
writes is JSON. :func:`read_message` reads one
frame from a descriptor, waiting; :class:`FrameReader` takes bytes as they
come from several descriptors at once. The functions a writer needs are
bound when this module is imported, so code that later replaces
``json.dumps``, ``struct.pack`` or ``os.write`` cannot change what is sent.
(The session's child, which runs untrusted code in its own process, keeps
its own bound copies of the reader and writer:
:mod:`reasoneval_mini.runner.child`.)

>>> read_end, write_end = os.pipe()
>>> write_message(write_end, {"program": "print('é')"})
>>> read_message(read_end)
{'program': "print('é')"}

Surprising: a reader that accepts frames of at most *max_bytes* refuses a
longer one before reading it, so a hostile writer cannot make it hold more.

>>> reader = FrameReader(max_bytes=100)
>>> reader.feed(struct.pack(">Q", 10**12) + b"{}")
Traceback (most recent call last):
...
reasoneval_mini.support.messages.MessageTooLarge: a message of 1000000000000 bytes claimed; at most 100 accepted
>>> os.close(read_end), os.close(write_end)
(None, None)
"""

import json
import marshal
import os
import select
import struct
import time

# Bound now (see the module docstring).
_dumps, _marshal, _pack, _write = json.dumps, marshal.dumps, struct.pack, os.write
#: A frame's header: its body's length, 8 bytes big-endian (the one definition of the format).
FRAME_HEADER = struct.Struct(">Q")
_decode_json = json.JSONDecoder().decode


class MessageTooLarge(ValueError):
    """A frame claims more bytes than the reader accepts; the rest of the stream is not read."""


def encode_message(message):
    """*message* (a JSON-able dict) as one frame, bytes."""
    # ensure_ascii=False: text full of non-ASCII characters stays ~1-3 bytes a
    # character. A lone surrogate (from an exception message) becomes a \uXXXX
    # escape through backslashreplace, which is still valid JSON.
    data = _dumps(message, ensure_ascii=False).encode("utf-8", "backslashreplace")
    return _pack(">Q", len(data)) + data


def encode_request(message):
    """*message* (a dict of plain values) as one frame of a session's requests, caller to child: marshal.

    Read only by the session's child (:func:`reasoneval_mini.runner.child.read_request`),
    which trusts its caller: the first ``marshal.loads`` in a freshly forked
    child costs it about a third of the first JSON decoding (40 us against
    115 us: json's scanner writes some 30 more pages, each copied from the
    server's memory). Never decode marshal that an untrusted process wrote:
    everything a child sends is JSON.

    >>> frame = encode_request({"op": "call", "seq": 1})
    >>> marshal.loads(frame[8:]), struct.unpack(">Q", frame[:8])[0] == len(frame) - 8
    ({'op': 'call', 'seq': 1}, True)
    """
    data = _marshal(message)
    return _pack(">Q", len(data)) + data


def write_message(fd, message):
    """Send *message* (a JSON-able dict) on *fd* as one frame."""
    write_all(fd, encode_message(message))


def write_all(fd, data):
    """Write all of *data* to *fd*."""
    view = memoryview(data)
    while view:
        written = _write(fd, view)
        if not written:  # a write that moves nothing would loop forever
            raise OSError(f"no progress writing to descriptor {fd}")
        view = view[written:]


def read_message(fd, max_bytes=None, deadline=None, started=b""):
    """The next message from *fd*; None at end of file.

    *started*: the first bytes of the frame, if the caller read them already
    (with the descriptors a socket passed along with them).
    With *max_bytes*, a frame that claims a longer body raises
    :class:`MessageTooLarge` before anything of it is read. With *deadline*
    (a :func:`time.monotonic` time), waiting past it for any part of the
    message raises ``TimeoutError``: a writer that sends half a frame and
    stops cannot hold the reader. A body that is not JSON raises ``ValueError``.

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
    body = _read_frame(fd, max_bytes, deadline, started)
    return None if body is None else json.loads(body)


def read_request(fd, max_bytes=None, deadline=None, started=b""):
    """The next frame :func:`encode_request` made, from *fd*; None at end of file.

    As :func:`read_message`, for a channel whose writer is trusted (a runner
    server reads its caller's so): a body that is not marshal raises ``ValueError``.

    Surprising: what a request holds comes back as it was sent, a tuple
    included (JSON would give a list).

    >>> read_end, write_end = os.pipe()
    >>> _ = os.write(write_end, encode_request({"op": "start", "limits": (64, 3)}))
    >>> read_request(read_end)
    {'op': 'start', 'limits': (64, 3)}
    >>> os.close(read_end), os.close(write_end)
    (None, None)
    """
    body = _read_frame(fd, max_bytes, deadline, started)
    if body is None:
        return None
    try:
        return marshal.loads(body)
    except (EOFError, TypeError) as error:  # ValueError: raised as it is
        raise ValueError(f"not a request: {error}") from None


def _read_frame(fd, max_bytes, deadline, started):
    """The body of the next frame on *fd* (see :func:`read_message`); None at end of file."""
    rest = _read_exact(fd, FRAME_HEADER.size - len(started), deadline)
    if rest is None:
        return None
    size = FRAME_HEADER.unpack(bytes(started) + rest)[0]
    _check_size(size, max_bytes)
    return _read_exact(fd, size, deadline)


def _check_size(size, max_bytes):
    if max_bytes is not None and size > max_bytes:
        raise MessageTooLarge(f"a message of {size} bytes claimed; at most {max_bytes} accepted")


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


class FrameReader:
    """Frames out of bytes that come in pieces, each at most *max_bytes* long.

    :meth:`feed` takes what one read gave and returns the messages it
    completed, in order; a body that is not JSON (or nests too deeply for
    the decoder) is skipped. A frame that claims more than *max_bytes*
    raises :class:`MessageTooLarge` and nothing more is kept: the rest of
    the stream is not the protocol. It never holds more than one frame's
    bytes and one piece.

    >>> reader = FrameReader(max_bytes=64)
    >>> frame = encode_message({"event": "done"})
    >>> reader.feed(frame[:5]), reader.feed(frame[5:] + b"\\0" * 8 + frame[:1])
    ([], [{'event': 'done'}])
    """

    def __init__(self, max_bytes):
        self.max_bytes, self.buffer = max_bytes, bytearray()

    def feed(self, data):
        self.buffer += data
        messages = []
        while len(self.buffer) >= FRAME_HEADER.size:
            size = FRAME_HEADER.unpack_from(self.buffer)[0]
            try:
                _check_size(size, self.max_bytes)
            except MessageTooLarge:
                self.buffer = bytearray()
                raise
            end = FRAME_HEADER.size + size
            if len(self.buffer) < end:
                break
            body = self.buffer[FRAME_HEADER.size:end]
            del self.buffer[:end]
            try:
                # UTF-8, as every writer of frames writes them: json.loads on
                # bytes would first guess among UTF-8, -16 and -32.
                messages.append(_decode_json(body.decode("utf-8")))
            except (ValueError, RecursionError):  # UnicodeDecodeError included
                continue
        return messages
