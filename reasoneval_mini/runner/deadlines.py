"""How long the trusted side waits for a child, and how often it looks at a cancel meanwhile.

Every wait on a child has one shape. The child keeps its own limit (the
executor's program its timeout, the grading child its watchdog per step);
the trusted side waits that long plus a grace (:func:`deadline_after`), for
an answer that is late only because the child was busy ending (its output
drained, its folder removed), and past it gives up and kills the child.
While it waits, it looks at its cancel flag now and then.

>>> deadline_after(10.0, 3.0, ANSWER_GRACE_SECONDS)
13.8
"""

#: The executor: past a program's timeout, how long the caller waits for the fork
#: server's answer (the server's drain of output held by a leftover takes 0.5 s).
ANSWER_GRACE_SECONDS = 0.8
#: The grader: past a step's time (the child's own watchdog), how long it waits
#: before it kills the child; and for a child that stopped, how long for its exit.
KILL_GRACE_SECONDS = 1.0
#: How often a grader waiting on its child looks at its cancel event.
CANCEL_POLL_SECONDS = 0.1
#: How often the fresh-interpreter worker, waiting for its program's exit, looks at
#: its cancel flag: that wait is the end of every run, so a short program is kept short.
#: The grading server, where the kernel has no pidfd, looks as often for its child's exit.
EXIT_POLL_SECONDS = 0.02


def deadline_after(start, seconds, grace):
    """When a wait that began at *start* (``time.monotonic()``) gives up: the child's *seconds*, then *grace*."""
    return start + seconds + grace
