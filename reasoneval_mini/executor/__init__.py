"""Run Python programs in separate, limited processes and name their execution states.

The public side is two functions and one record type:

* :func:`execute_program`: one program, one :class:`ExecutionResult`;
* :func:`execute_samples`: a whole plan, in parallel, one record per planned
  sample, ready for :func:`reasoneval_mini.records.execution_summary`.

Behind them, in the order a request travels:

* ``program``: the request, the classification of a finished run into one of
  the five states;
* ``samples``: plan validation, the parallel run, Ctrl-C;
* ``workers``: the parent's handles on the processes that run programs (the
  worker interface both kinds implement);
* ``fork_server`` (POSIX) and ``fresh_interpreter`` (everywhere): the two
  kinds of worker;
* ``watch_child``: one forked child's output, exit and deadline;
* ``child``: what runs inside the child: limits, the program, its report;
* ``output_buffer``: the head and tail of a stream, in bounded memory.
"""

from reasoneval_mini.executor.program import ExecutionResult, execute_program
from reasoneval_mini.executor.samples import execute_samples

__all__ = ["ExecutionResult", "execute_program", "execute_samples"]
