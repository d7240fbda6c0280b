"""The one parallel runner: ``work(item)`` for every item, on a few threads, cancellable.

Threads, not processes: the work this package runs in parallel (a program in
a runner session, a student's notebooks in theirs) waits on other
processes, so the threads spend their time waiting, not holding the GIL.

>>> [done.value for done in run_parallel(lambda n: n * n, [1, 2, 3], threads=2)]
[1, 4, 9]

Surprising: an exception raised by ``work`` does not stop the others; it is
kept in that item's result, and the caller decides what it means.

>>> results = run_parallel(lambda n: 1 // n, [1, 0], threads=2)
>>> results[0].value, type(results[1].error).__name__
(1, 'ZeroDivisionError')
"""

import queue
import sys
import threading
from dataclasses import dataclass

from reasoneval_mini.support.arguments import ArgumentTypeError, positive_int

#: How often the calling thread wakes while it waits, so a Ctrl-C is seen quickly.
POLL_SECONDS = 0.1


@dataclass(frozen=True)
class Done:
    """One item's result: what ``work(item)`` returned (``value``) or raised (``error``).

    ``index`` is the item's position in the input; ``error`` is None when
    ``work`` returned, and ``value`` is None when it raised.
    """

    index: int
    value: object = None
    error: object = None


class Interrupted(KeyboardInterrupt):
    """A ``KeyboardInterrupt`` during :func:`run_parallel`, carrying what had finished.

    ``results`` is the list :func:`run_parallel` would have returned, with
    ``None`` for each item that did not finish (never started, or cancelled).
    Uncaught, it ends the program as a Ctrl-C does.
    """

    def __init__(self, results):
        super().__init__("interrupted")
        self.results = results


def run_parallel(work, items, *, threads, on_done=None, cancel=None):
    """Run ``work(item)`` for every item on up to *threads* threads; return results in item order.

    Items are handed out in order, one at a time, to whichever thread is free.
    *items* is read only then, one item at a time: an iterator (a generator)
    may decide its next item from what has finished so far (the size of the
    next chunk of samples, say), and it is never read by two threads at once.
    Returns a list with one :class:`Done` per item, in the order of *items*.
    Whatever ``work`` raises is kept in that item's ``Done.error``; the
    other items go on.

    *on_done*, if given, is called in the calling thread with each
    :class:`Done` as soon as it finishes (finishing order, not item order):
    for a progress bar, or to record results as they come.

    A ``KeyboardInterrupt`` in the calling thread (while it waits, or raised
    by *on_done*) stops handing out items, calls *cancel* (if given, with no
    arguments: it should make the running ``work`` calls return soon), waits
    for the running ones to return, and raises :class:`Interrupted` carrying
    every result that finished, those finished after the interrupt included
    (*on_done* is not called for them). Any other exception from *on_done*,
    or from reading *items*, is handled the same way, then re-raised as it
    is. No thread outlives the call.

    Raises ``ValueError`` (an ``ArgumentTypeError`` for a wrong type) when
    *work*, *on_done* or *cancel* is not callable (None allowed for the last
    two), *items* is not iterable, or *threads* is not an int >= 1.
    """
    if not callable(work):
        raise ArgumentTypeError(f"work must be callable, got {work!r}")
    for name, value in (("on_done", on_done), ("cancel", cancel)):
        if value is not None and not callable(value):
            raise ArgumentTypeError(f"{name} must be callable or None, got {value!r}")
    positive_int(threads, "threads")
    try:
        source = _Items(items)
    except TypeError:
        raise ArgumentTypeError(f"items must be iterable, got {items!r}") from None
    if source.known == 0:
        return []
    finished = queue.Queue()
    pool = [threading.Thread(target=_serve, args=(work, source, finished), daemon=True)
            for _ in range(min(threads, source.known or threads))]
    for thread in pool:
        thread.start()
    results, running = {}, len(pool)
    try:
        while running:
            done = _next(finished)
            if done is None:  # a thread found nothing more to do
                running -= 1
                continue
            results[done.index] = done
            if on_done is not None:
                on_done(done)
        if source.error is not None:
            raise source.error
    except BaseException as error:
        source.stop()
        if cancel is not None:
            cancel()
        for thread in pool:
            thread.join()
        while not finished.empty():  # finished after the interrupt: kept, never lost
            done = finished.get_nowait()
            if done is not None:
                results[done.index] = done
        if isinstance(error, KeyboardInterrupt):
            raise Interrupted(source.in_order(results)) from error
        raise
    for thread in pool:
        thread.join()
    return source.in_order(results)


class _Items:
    """The items of one :func:`run_parallel` call, handed out one at a time under a lock."""

    def __init__(self, items):
        self.known = len(items) if hasattr(type(items), "__len__") else None  # None: a generator
        self._items = enumerate(iter(items))
        self._lock = threading.Lock()
        self._stopped = False
        self.handed = 0
        self.error = None

    def take(self):
        """``(index, item)`` for the next item; None once there are none, or after :meth:`stop`."""
        with self._lock:
            if self._stopped:
                return None
            try:
                taken = next(self._items)
            except StopIteration:
                self._stopped = True
                return None
            except BaseException as error:  # noqa: BLE001 - raised in the caller's thread
                self._stopped, self.error = True, error
                return None
            self.handed += 1
            return taken

    def stop(self):
        with self._lock:
            self._stopped = True

    def in_order(self, results):
        """The results as a list in item order, None for each item that did not finish."""
        count = self.handed if self.known is None else self.known
        return [results.get(index) for index in range(count)]


def _next(finished):
    # A timed wait, not a blocking one: on some platforms a blocked get()
    # does not let a Ctrl-C through until it returns.
    while True:
        try:
            return finished.get(timeout=POLL_SECONDS)
        except queue.Empty:
            continue


def _serve(work, source, finished):
    try:
        while (taken := source.take()) is not None:
            index, item = taken
            try:
                done = Done(index, value=work(item))
            except BaseException as error:  # noqa: BLE001 - kept for the caller, never lost
                done = Done(index, error=error)
            finished.put(done)
    finally:
        finished.put(None)  # this thread is done: the caller counts them


def progress_bar(total, description, unit, enabled=True):
    """A tqdm bar for *total* items, or ``None`` (no bar) when it would not help.

    No bar when *enabled* is false, when tqdm is not installed (it is an
    optional dependency), or when standard error is neither a terminal nor a
    Jupyter kernel's stream: in a log file a bar is only ``\\r`` frames. In a
    notebook, ``tqdm.auto`` draws a widget.
    """
    if not enabled or not (_is_terminal(sys.stderr) or _in_jupyter_kernel()):
        return None
    try:
        if _is_terminal(sys.stderr):
            # A text bar. tqdm.auto picks its class once, at its import: imported where an
            # IPython shell ran earlier in the process, it stays the notebook bar, which on a
            # terminal prints one frozen frame to standard output.
            from tqdm.std import tqdm
        else:
            from tqdm.auto import tqdm
    except ImportError:
        return None
    return tqdm(total=total, desc=description, unit=unit)


def _is_terminal(stream):
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # None, or a closed stream
        return False


def _in_jupyter_kernel():
    # The kernel's streams are not terminals, but tqdm.auto draws a widget there.
    return "ipykernel" in sys.modules
