"""The statuses of one row of grades.csv, defined once.

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
* ``interrupted``: not graded: grading was stopped (Ctrl-C) first, or the
  student's grading process was killed from outside twice, or a typed answer's
  notebook was built for another variant than the one graded (the message says which);
* ``awaiting_instructor``: a written answer (a manually graded markdown cell),
  which no check can score: the instructor grades it with the rubric. Its
  score is blank, not zero, and it is left out of the automatic total;
* ``graded_by_instructor``: a written answer the instructor has scored
  (``reasoneval-course grade --manual scores.csv``); its score counts in
  every total and export like any other.

The first six (:data:`GRADE_STATUSES`) are those of an exercise with checks;
:data:`WRITTEN_STATUSES` are a written answer's own two, and
:data:`ALL_GRADE_STATUSES` is both.
"""

from reasoneval_mini.support.i18n import N_

# Ids (grades.csv keeps them as they are); N_ so that the feedback can show each in the
# student's language.
GRADE_PASSED = N_("passed")
GRADE_FAILED = N_("failed")
GRADE_TIMEOUT = N_("timeout")
GRADE_ERROR = N_("error")
GRADE_MISSING = N_("missing")
GRADE_INTERRUPTED = N_("interrupted")
GRADE_AWAITING_INSTRUCTOR = N_("awaiting_instructor")
GRADE_INSTRUCTOR_GRADED = N_("graded_by_instructor")

#: Every row of an exercise with checks has exactly one of these, in this order.
GRADE_STATUSES = (GRADE_PASSED, GRADE_FAILED, GRADE_TIMEOUT, GRADE_ERROR, GRADE_MISSING,
                  GRADE_INTERRUPTED)
#: A written task's row before and after the instructor scores it by hand.
WRITTEN_STATUSES = (GRADE_AWAITING_INSTRUCTOR, GRADE_INSTRUCTOR_GRADED)
#: Every row of grades.csv has exactly one of these: a written task's row is
#: ``awaiting_instructor`` or ``graded_by_instructor`` (or ``failed`` for an
#: untouched answer cell, ``missing``, ``error``, ``interrupted`` when its notebook is).
ALL_GRADE_STATUSES = GRADE_STATUSES + WRITTEN_STATUSES
