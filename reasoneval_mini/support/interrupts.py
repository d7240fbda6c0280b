"""Ctrl-C (SIGINT) while work that must not be lost is running: the three ways, written once.

* :func:`ctrl_c_once`: the first Ctrl-C raises ``KeyboardInterrupt`` as
  usual; later ones are ignored until the block ends, so that cancelling
  cannot itself be cut short (the executor's ``execute_samples``);
* :func:`on_first_interrupt`: the first Ctrl-C calls an action (set a
  cancel flag) instead of raising; later ones do nothing (the grader);
* :func:`interrupts_deferred`: Ctrl-C is held back while the block runs,
  then raised, so that a file is never half written (the reports).

Python delivers signals to the main thread only: in any other thread each
of them does nothing, and the caller's own cancel path must serve.

>>> calls = []
>>> with on_first_interrupt(lambda: calls.append("stop")):
...     for _ in range(2):
...         os.kill(os.getpid(), signal.SIGINT)
...         time.sleep(0.01)  # the handler runs in the main thread, between two steps
>>> calls
['stop']

Surprising: the second Ctrl-C did nothing at all, not even raise.
"""

import contextlib
import os  # noqa: F401 - used by the doctest
import signal
import threading
import time  # noqa: F401 - used by the doctest


def _in_main_thread():
    return threading.current_thread() is threading.main_thread()


@contextlib.contextmanager
def ctrl_c_once():
    """The first Ctrl-C raises ``KeyboardInterrupt``; later ones, until the block ends, do nothing.

    So that a second Ctrl-C cannot cut the cancelling short and lose the
    records. Only in the main thread, and only if Python's own handler is in
    place (a handler someone else installed is left alone).
    """
    if not _in_main_thread() or signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        yield
        return
    seen = []

    def first_only(signum, frame):
        if not seen:
            seen.append(signum)
            raise KeyboardInterrupt

    signal.signal(signal.SIGINT, first_only)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler)


@contextlib.contextmanager
def on_first_interrupt(action):
    """While the block runs, the first Ctrl-C calls *action()* (no argument); later ones do nothing.

    The previous handler is put back afterwards. Only in the main thread.
    """
    if not _in_main_thread():
        yield
        return
    done = []

    def handler(signum, frame):
        if not done:
            done.append(signum)
            action()

    previous = signal.signal(signal.SIGINT, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


@contextlib.contextmanager
def interrupts_deferred():
    """Hold Ctrl-C back while the block runs, then deliver it to the previous handler.

    Only in the main thread (where Python delivers signals); elsewhere it does nothing.
    """
    if not _in_main_thread():
        yield
        return
    caught = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: caught.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if caught and callable(previous):
        previous(signal.SIGINT, None)
