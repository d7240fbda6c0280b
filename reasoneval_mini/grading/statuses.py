"""The six statuses of one (student, exercise) grade, defined once.

They differ from the five execution states of :mod:`reasoneval_mini.records`:
those describe one planned code sample, these one row of ``grades.csv``.

* ``passed``: every instructor check passed (full points);
* ``failed``: the answer ran and at least one check failed, including an
  untouched stub ("not attempted"); partial credit applies;
* ``timeout``: the checks, or the cell that defines the answer, ran past
  the time limit;
* ``error``: the notebook could not be read or graded (invalid JSON, a
  refused symlink, a crash of the grading process), or the cell that
  defines the answer raised;
* ``missing``: no answer to grade (notebook absent or renamed, answer
  function not defined, e.g. after a deleted or retyped cell);
* ``interrupted``: not graded because grading was stopped (Ctrl-C) first.
"""

GRADE_PASSED = "passed"
GRADE_FAILED = "failed"
GRADE_TIMEOUT = "timeout"
GRADE_ERROR = "error"
GRADE_MISSING = "missing"
GRADE_INTERRUPTED = "interrupted"

#: Every row of grades.csv has exactly one of these, in this order.
GRADE_STATUSES = (GRADE_PASSED, GRADE_FAILED, GRADE_TIMEOUT, GRADE_ERROR, GRADE_MISSING,
                  GRADE_INTERRUPTED)
