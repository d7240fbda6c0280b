"""Descriptors numbered where a process needs them, without the ``fcntl`` module.

A runner server keeps descriptors open for all its children (the
sandbox's pre-opened paths, the Landlock ruleset) above the numbers a child
sets up for itself, and a child moves what it was given out of the way
before it puts its own at 0-4. ``fcntl(F_DUPFD)`` does this in one call, but
a server that imports :mod:`fcntl` maps one more library, and every fork of
it copies and every exit unmaps those mappings (about 30 us a program).
``os.dup`` until the copy lands high enough needs nothing more, and works
on Windows too.
"""

import os


def dup_above(fd, floor):
    """A copy of *fd* numbered above *floor*, close-on-exec; *fd* stays open.

    Raises ``OSError`` as ``os.dup`` does (*fd* not open, no descriptor left).

    Surprising: the copy's number depends on which lower numbers are free,
    not on *fd*: every lower free number is taken, then given back.

    >>> copy = dup_above(0, 9)
    >>> copy > 9, os.get_inheritable(copy)
    (True, False)
    >>> os.close(copy)
    """
    held = [os.dup(fd)]
    try:
        while held[-1] <= floor:
            held.append(os.dup(fd))
    except BaseException:
        for copy in held:
            os.close(copy)
        raise
    for extra in held[:-1]:
        os.close(extra)
    return held[-1]
