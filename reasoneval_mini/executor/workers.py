"""The worker interface: what every kind of worker accepts, returns and promises (private).

A *worker* is the parent's handle on whatever runs programs for it. Two
kinds implement :class:`Worker`, so they cannot drift apart:

* :class:`~reasoneval_mini.executor.fork_server.ForkServerWorker` (POSIX):
  one pre-warmed ``fork_server`` process that forks a clean child per program;
* :class:`~reasoneval_mini.executor.fresh_interpreter.FreshInterpreterWorker`
  (everywhere, the fallback where ``fork`` is missing): a fresh
  interpreter per program (both started by
  :func:`~reasoneval_mini.runner.start.start_child`).

This module is also the one home of the worker *outcomes* (how a run ended,
as the worker saw it: :data:`OUTCOMES`). What both kinds give the child (its
environment, working folder, limits, sandbox) lives in
:mod:`reasoneval_mini.runner`, shared with the grader. Standard library
only: the fork server process imports it too.
"""

import abc

#: The program's process ended by itself (any exit code, any signal).
EXITED = "exited"
#: The wall-clock deadline passed first; the program's process group was killed.
TIMED_OUT = "timed_out"
#: :meth:`Worker.cancel` (or the death of the parent) stopped it first.
CANCELLED = "cancelled"
#: Every outcome a raw result may carry, in no particular order.
OUTCOMES = (EXITED, TIMED_OUT, CANCELLED)

#: The keys of a request (built and validated by ``program.build_request``).
REQUEST_KEYS = ("program", "timeout", "memory_mb", "head_bytes", "tail_bytes", "isolation")
#: The keys every raw result of a run carries (see :class:`Worker`).
RESULT_KEYS = ("outcome", "exit_code", "signal", "duration_s", "stdout", "stdout_bytes",
               "stderr", "stderr_bytes", "report")
#: The one key of a raw result when the worker itself failed (a one-line reason).
EXECUTOR_ERROR = "executor_error"


class Worker(abc.ABC):
    """Runs one program at a time, in a separate limited process, and says how it ended.

    The contract both kinds implement:

    * ``run(request)`` runs ``request["program"]`` (a dict with
      :data:`REQUEST_KEYS`, already validated; ``isolation`` is the sandbox
      plan as plain values, which the child applies before the program) in
      a confined child and returns the *raw result*, a
      dict of plain JSON values. Either every key of :data:`RESULT_KEYS`:
      ``outcome`` (one of :data:`OUTCOMES`), ``exit_code`` and ``signal``
      (how the process ended, None when not by that way or unknown),
      ``duration_s`` (wall time), ``stdout``/``stderr`` (head and tail as
      text) with their byte counts ``stdout_bytes``/``stderr_bytes``, and
      ``report`` (the child's end-of-program report if it carried this run's
      nonce, else None), plus optionally ``workdir_left`` (True when the
      working directory could not be removed) and ``setup_error`` (why the
      child could not be set up, the sandbox above all: the program did not
      run; None otherwise); or only :data:`EXECUTOR_ERROR`
      when the machinery failed and the program's fate is unknown. A run
      after :meth:`cancel` returns ``{"outcome": CANCELLED}`` without running.
      It does not classify: ``program.classify_run`` turns the raw result
      into a state, the same way for both kinds. A worker adds what it needs
      to the request (the fork server: its own random ``id``, echoed by every
      answer, and the working directory it made). It may raise only what the
      caller's thread receives (``KeyboardInterrupt``), after leaving nothing
      running.
    * ``cancel()`` kills the running program (its whole process group) and
      makes every later ``run`` return at once; callable from any thread.
    * ``reusable()`` is True if the worker may be kept warm for a later call
      (alive and never cancelled).
    * ``close()`` cancels and releases the worker's processes; idempotent.
    """

    @abc.abstractmethod
    def run(self, request):
        """Run one program; return its raw result (see the class docstring)."""

    @abc.abstractmethod
    def cancel(self):
        """Kill the running program and refuse new ones (any thread)."""

    @abc.abstractmethod
    def reusable(self):
        """True if this worker may run a later program for another caller."""

    @abc.abstractmethod
    def close(self):
        """Cancel, then release every process this worker holds."""
