"""Run Python programs in separate, limited processes and name their execution states.

The public side is two functions and one record type:

* :func:`execute_program`: one program, one :class:`ExecutionResult`;
* :func:`execute_samples`: a whole plan, in parallel, one record per planned
  sample, ready for :func:`reasoneval_mini.records.execution_summary`.

Behind them, in the order a request travels:

* ``program``: the request, the classification of a finished run into one of
  the five states;
* ``samples``: plan validation, the parallel run (through
  :mod:`reasoneval_mini.support.parallel`), Ctrl-C;
* ``pool``: warm workers kept between calls, lent out and given back;
* ``workers``: the worker interface both kinds implement (``Worker``), and
  the one home of the worker outcomes (``OUTCOMES``: ``EXITED``,
  ``TIMED_OUT``, ``CANCELLED``);
* ``fork_server`` (POSIX) and ``fresh_interpreter`` (everywhere): the two
  kinds of worker, each with its parent-side handle;
* ``watch_child``: one forked child's output, exit and deadline;
* ``child``: what runs inside the child: limits, the program, its report;
* ``output_buffer``: the head and tail of a stream, in bounded memory.
"""

import importlib

#: Public name -> the module of the executor that defines it, loaded on first use:
#: a fresh interpreter that runs one program imports ``child`` alone, not these.
_PUBLIC = {"ExecutionResult": "program", "execute_program": "program",
           "execute_samples": "samples"}

__all__ = sorted(_PUBLIC)


def __getattr__(name):
    # PEP 562: called only for names not yet in this module's namespace.
    if name not in _PUBLIC:
        raise AttributeError(f"module 'reasoneval_mini.executor' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"reasoneval_mini.executor.{_PUBLIC[name]}"), name)
    globals()[name] = value  # later look-ups are plain attribute reads
    return value


def __dir__():
    return sorted(set(globals()) | set(_PUBLIC))
