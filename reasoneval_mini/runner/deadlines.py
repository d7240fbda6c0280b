"""How long the trusted side waits for a session, and for what.

Every wait on a session's child has a deadline (see
:class:`~reasoneval_mini.runner.session.Session`). The executor's program
has its timeout, counted from when its job was sent; a student's child has
a watchdog of its own per step, and the grader waits that long plus
:data:`KILL_GRACE_SECONDS` for the step's next event before it kills the
child. After a session ends, its output is read for at most
:data:`DRAIN_SECONDS` more: a leftover that nothing could kill may hold its
pipes open.

>>> deadline_after(10.0, 3.0, KILL_GRACE_SECONDS)
14.0
"""

#: The grader: past a step's time (the child's own watchdog), how long it waits
#: for the step's next event before it kills the child; and for a child that
#: stopped, how long for its exit.
KILL_GRACE_SECONDS = 1.0
#: After a session's end, how long its channels are read for what is still in them.
DRAIN_SECONDS = 0.5
#: How often a wait looks for the child's exit where no descriptor tells it
#: (no pidfd), and for a cancel where pipes cannot be polled (Windows).
EXIT_POLL_SECONDS = 0.02


def deadline_after(start, seconds, grace):
    """When a wait that began at *start* (``time.monotonic()``) gives up: the child's *seconds*, then *grace*."""
    return start + seconds + grace
