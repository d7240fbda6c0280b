"""Keep the head and the tail of a byte stream of any length, in bounded memory.

Used in the fork server (for each child's stdout and stderr) and by the
fresh-interpreter worker.
"""

import os

from reasoneval_mini.support.arguments import ArgumentTypeError


class HeadTailBuffer:
    """Collect bytes, keeping the first *head* and the last *tail* of them.

    ``feed(chunk)`` accepts ``bytes`` chunks of any size; memory stays below
    about ``head + 2 * tail + len(chunk)`` bytes however much is fed.
    ``text()`` decodes what was kept as UTF-8 (bad bytes replaced) and, when
    something was dropped, puts a marker saying how many bytes in between.
    ``total`` counts every byte ever fed. *head* and *tail* must be
    non-negative ints, else ``ValueError`` (``ArgumentTypeError`` for a
    wrong type).

    >>> buffer = HeadTailBuffer(head=3, tail=4)
    >>> for chunk in (b"abc", b"defgh", b"ijklmnop"):
    ...     buffer.feed(chunk)
    >>> buffer.total
    16
    >>> print(buffer.text())
    abc
    [... 9 bytes omitted ...]
    mnop

    Surprising: nothing is dropped while the stream fits, so a short stream
    comes back whole, with no marker.

    >>> short = HeadTailBuffer(head=3, tail=4)
    >>> short.feed(b"hello")
    >>> short.text()
    'hello'
    """

    def __init__(self, head=4096, tail=4096):
        for name, value in (("head", head), ("tail", tail)):
            if type(value) is not int:
                raise ArgumentTypeError(
                    f"{name} must be an int >= 0, got {value!r} ({type(value).__name__})")
            if value < 0:
                raise ValueError(f"{name} must be an int >= 0, got {value!r}")
        self.head_limit = head
        self.tail_limit = tail
        self.head = bytearray()
        self.tail = bytearray()
        self.total = 0

    def feed(self, chunk):
        """Add *chunk* (bytes) to the stream."""
        self.total += len(chunk)
        room = self.head_limit - len(self.head)
        if room > 0:
            self.head += chunk[:room]
            chunk = chunk[room:]
        if not chunk or not self.tail_limit:
            return
        self.tail += chunk
        # Trim only when the tail is twice its size: amortised O(1) per byte.
        if len(self.tail) > 2 * self.tail_limit:
            del self.tail[: len(self.tail) - self.tail_limit]

    def text(self):
        """The kept bytes as text, with a marker where bytes were dropped."""
        tail = bytes(self.tail[-self.tail_limit:]) if self.tail_limit else b""
        return head_tail_text(bytes(self.head), tail, self.total)


def head_tail_text(head, tail, total):
    """The text of a stream of *total* bytes of which *head* and *tail* (``bytes``) were kept.

    >>> print(head_tail_text(b"abc", b"nop", 16))
    abc
    [... 10 bytes omitted ...]
    nop
    """
    omitted = total - len(head) - len(tail)
    if omitted == 0:  # decoded in one piece: a character may straddle head and tail
        return (head + tail).decode("utf-8", errors="replace")
    marker = f"\n[... {omitted} bytes omitted ...]\n"
    return head.decode("utf-8", errors="replace") + marker + tail.decode("utf-8", errors="replace")


class ReusedHeadTail:
    """The head and tail of one stream at a time, read from a descriptor straight into memory kept for good.

    For a process that forks a child per program (the fork server): what
    one program wrote never passes through a new object (a freed ``bytes``
    keeps its contents in the heap, and the next fork copies the heap), and
    :meth:`clear` zeroes it before the next program. ``read_from(fd)``
    reads what is waiting (at most 64 KiB) and returns the count (0: end of
    file); :meth:`pieces` are the kept bytes in order, head first, as
    memoryviews into this object (valid until the next read or clear), and
    ``head_size``/``tail_size`` their lengths; ``total`` counts every byte read.

    >>> read_end, write_end = os.pipe()
    >>> _ = os.write(write_end, b"abcdefghijklmnop"); os.close(write_end)
    >>> kept = ReusedHeadTail(head=3, tail=4)
    >>> while kept.read_from(read_end):
    ...     pass
    >>> os.close(read_end)
    >>> kept.head_size, kept.tail_size, b"".join(kept.pieces())
    (3, 4, b'abcmnop')
    """

    CHUNK = 1 << 16

    def __init__(self, head, tail):
        self.head_limit, self.tail_limit = head, tail
        self.store = bytearray(head + tail + self.CHUNK)  # [head | tail ring | a chunk as read]
        self.view = memoryview(self.store)
        self.zeros = memoryview(bytes(len(self.store)))  # made once: clearing allocates nothing
        self.total = self.ring_start = 0  # ring_start: the oldest tail byte, once the ring is full
        self.chunk_used = 0  # the most of the chunk area one read filled

    @property
    def head_size(self):
        return min(self.total, self.head_limit)

    @property
    def tail_size(self):
        return max(0, min(self.total - self.head_limit, self.tail_limit))

    def read_from(self, fd):
        chunk = self.view[self.head_limit + self.tail_limit:]
        count = os.readv(fd, [chunk])
        if count:
            self.chunk_used = max(self.chunk_used, count)
            self._keep(chunk[:count])
        return count

    def _keep(self, chunk):
        head, limit = self.head_limit, self.tail_limit
        taken = min(head - self.head_size, len(chunk))
        if taken:
            self.view[self.head_size:self.head_size + taken] = chunk[:taken]
            self.total += taken
            chunk = chunk[taken:]
        if limit and len(chunk) >= limit:  # the ring becomes this chunk's end
            self.view[head:head + limit] = chunk[-limit:]
            self.ring_start = 0
        elif limit and chunk:
            filled = self.tail_size
            position = (self.ring_start + filled) % limit  # where the next byte goes
            for piece in (chunk[:limit - position], chunk[limit - position:]):
                if piece:
                    self.view[head + position:head + position + len(piece)] = piece
                    position = (position + len(piece)) % limit
            if filled + len(chunk) > limit:  # the oldest bytes were overwritten
                self.ring_start = position
        self.total += len(chunk)

    def pieces(self):
        """The kept bytes in order: the head, then the tail in one or two pieces."""
        ring = self.view[self.head_limit:self.head_limit + self.tail_size]
        return [self.view[:self.head_size], ring[self.ring_start:], ring[:self.ring_start]]

    def clear(self):
        """Zero what was kept and every chunk read, for the next stream (only the bytes used: cheap)."""
        chunk = self.head_limit + self.tail_limit
        for start, size in ((0, self.head_size), (self.head_limit, self.tail_size),
                            (chunk, self.chunk_used)):
            self.view[start:start + size] = self.zeros[:size]
        self.total = self.ring_start = self.chunk_used = 0
