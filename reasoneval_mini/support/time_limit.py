"""Stop a call in *this* process after a few seconds, on every platform.

:func:`call_with_time_limit` runs ``thunk()`` and raises :class:`TimeLimitExceeded`
when it is still running after *seconds*. It is meant for learner code run
in the notebook kernel by ``check()``: an endless loop should end in a clear
message after a few seconds, not in silence until Interrupt and then a
traceback through the course package.

Two mechanisms, chosen per call (:func:`time_limit_mechanism`):

* ``"signal"`` (POSIX, main thread, no alarm already set): ``SIGALRM`` via
  ``setitimer``. Its handler runs between bytecodes *and* interrupts blocking
  calls such as ``time.sleep`` or ``input``, so it stops almost anything. The
  previous handler and timer are restored afterwards.
* ``"thread"`` (Windows, a thread other than the main one, or an alarm that
  belongs to someone else, e.g. a grader's watchdog): a timer thread asks
  CPython to raise the exception in the calling thread
  (``PyThreadState_SetAsyncExc``). It needs no signals, so it works on
  Windows, but it is delivered only when the thread runs Python bytecode: a
  loop is stopped at once, a long ``time.sleep`` only when it returns.

Why not run the learner's function in a separate thread or process and
abandon it? A thread cannot be killed (the loop would go on burning a core
in the kernel), and a process cannot receive a function defined in a
notebook. Both mechanisms here stop the code where it runs.

The exception derives from ``BaseException``, like ``KeyboardInterrupt``, so
that the ``except Exception`` of a learner (or of a check that turns the
learner's errors into results) does not swallow it. Code that swallows
*everything* (a bare ``except:`` inside the loop) is met again every
:data:`REPEAT_S` seconds (by the timer thread at most :data:`MAX_REPEATS` times).

>>> call_with_time_limit(lambda: 6 * 7, 1.0)
42

Surprising: the limit stops a pure-Python endless loop, without a traceback through it.

>>> def spin():
...     while True:
...         pass
>>> call_with_time_limit(spin, 0.2)
Traceback (most recent call last):
...
reasoneval_mini.support.time_limit.TimeLimitExceeded: still running after 0.2 s
"""

import ctypes
import signal
import threading

__all__ = ["MAX_REPEATS", "REPEAT_S", "TimeLimitExceeded", "call_with_time_limit", "time_limit_mechanism"]

#: After the limit, the exception is raised again this often, until the call ends.
REPEAT_S = 0.1
#: The timer thread raises at most this many times (5 s of a loop that swallows everything).
MAX_REPEATS = 50


class TimeLimitExceeded(BaseException):
    """The call was still running when its time limit was reached."""


def time_limit_mechanism():
    """``"signal"`` where ``SIGALRM`` is free to use here, else ``"thread"`` (see the module)."""
    if not hasattr(signal, "setitimer") or threading.current_thread() is not threading.main_thread():
        return "thread"
    # An alarm armed by someone else (a grader's watchdog) is theirs: do not take it over.
    if signal.getitimer(signal.ITIMER_REAL) != (0.0, 0.0):
        return "thread"
    if signal.getsignal(signal.SIGALRM) not in (signal.SIG_DFL, signal.SIG_IGN, None):
        return "thread"
    return "signal"


def call_with_time_limit(thunk, seconds):
    """Return ``thunk()``; raise :class:`TimeLimitExceeded` if it runs longer than *seconds*.

    *seconds* must be a positive number (``ValueError`` otherwise).
    """
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not seconds > 0:
        raise ValueError(f"seconds must be a positive number, got {seconds!r}")
    message = f"still running after {seconds:g} s"
    if time_limit_mechanism() == "signal":
        return _with_alarm(thunk, seconds, message)
    return _with_timer_thread(thunk, seconds, message)


def _with_alarm(thunk, seconds, message):
    active = [True]

    def alarm(signum, frame):
        if active[0]:  # a late alarm, once the call is over, is ignored
            # Re-armed one shot at a time (not an interval timer): code that swallowed this
            # alarm meets the next, and none can fire while the finally below unwinds.
            signal.setitimer(signal.ITIMER_REAL, REPEAT_S)
            raise TimeLimitExceeded(message)

    previous = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        return thunk()
    finally:
        active[0] = False
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _raise_in(thread_id, error_type):
    # CPython's documented C API; returns the number of threads it was set for. A NULL
    # error type (None) clears an exception that was set but not yet delivered.
    return ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread_id),
                                                      ctypes.py_object(error_type)
                                                      if error_type is not None else None)


def _with_timer_thread(thunk, seconds, message):
    target, done, fired = threading.get_ident(), threading.Event(), threading.Event()

    def watch():
        if done.wait(seconds):
            return
        fired.set()
        # Until the call ends (a bare except may swallow one), but at most MAX_REPEATS times:
        # should the exception land after the call, the caller is not hit forever.
        for _ in range(MAX_REPEATS):
            if done.is_set():
                return
            _raise_in(target, TimeLimitExceeded)
            done.wait(REPEAT_S)

    watcher = threading.Thread(target=watch, name="time-limit", daemon=True)
    watcher.start()
    try:
        return thunk()
    except TimeLimitExceeded:
        raise TimeLimitExceeded(message) from None  # the asynchronous one has no message
    finally:
        done.set()
        watcher.join()
        _settle(target, fired)  # nothing set after the call may hit the caller's next line


class _Settled(BaseException):
    """Raised into the calling thread on purpose by :func:`_settle`, and caught there."""


def _settle(target, fired):
    # Once the watcher has fired, an exception may still be pending for the caller. Why not
    # clear it with _raise_in(target, None)? On CPython 3.11 that call still raises the
    # interpreter's "asynchronous exception pending" flag, and only *delivering* one lowers
    # it: with the flag stuck, the first function called under a profile or trace hook
    # (support.call_watch's CallWatch) spins forever on its first instruction. So the pending
    # exception, if any, is replaced by a private one that is delivered and caught right here,
    # which lowers the flag. The watcher has been joined: nothing new can be set meanwhile.
    try:
        if not fired.is_set():
            return
        _raise_in(target, _Settled)
        for _ in range(1_000_000):  # delivered at the first backward jump
            pass
    except (_Settled, TimeLimitExceeded):  # ours, or the pending one arriving first: both clear it
        return
    _raise_in(target, None)  # not reached on CPython 3.10-3.13; never leave one pending
