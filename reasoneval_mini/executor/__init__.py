"""Run Python programs in separate, limited processes and name their execution states.

The public side is two functions and one record type:

* :func:`execute_program`: one program, one :class:`ExecutionResult`;
* :func:`execute_samples`: a whole plan, in parallel, one record per planned
  sample, ready for :func:`reasoneval_mini.records.execution_summary`.

Behind them:

* ``program``: the request, its run as a session of one source and no
  calls (:mod:`reasoneval_mini.runner`, which starts, confines, talks to
  and reaps every run of untrusted code), and the classification of a
  finished run into one of the five states;
* ``samples``: plan validation, the parallel run (through
  :mod:`reasoneval_mini.support.parallel`), Ctrl-C.
"""

from reasoneval_mini.support.exports import lazy_exports

#: Public name -> the module of the executor that defines it, loaded on first use:
#: importing the package costs nothing until one of them is asked for.
_PUBLIC = {"ExecutionResult": "program", "execute_program": "program",
           "execute_samples": "samples"}

__all__ = sorted(_PUBLIC)


__getattr__, __dir__ = lazy_exports(__name__, _PUBLIC)
