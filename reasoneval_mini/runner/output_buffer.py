"""Keep the head and the tail of a byte stream of any length, in bounded memory.

A session keeps its child's stdout and stderr this way
(:class:`~reasoneval_mini.runner.session.Session`).
"""

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
