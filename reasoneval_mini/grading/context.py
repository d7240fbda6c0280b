"""Whether the course's own code runs inside a grading process, said once.

The grader's children carry :data:`UNDER_GRADER_ENV` in their environment
(:data:`~reasoneval_mini.grading.process.CHILD_SETTINGS`). The course's code
that a notebook calls for the learner's own sake asks :func:`under_grader`:
``check()`` then runs nothing, since the grader runs its own checks on what
the answers return and a learner's own check never counts (it would only
spend the student's time: about half of a grading process's work was the
notebooks' ``check()`` cells).

>>> under_grader({UNDER_GRADER_ENV: "1"}), under_grader({})
(True, False)
"""

import os

#: Set to ``"1"`` in every grading process's environment.
UNDER_GRADER_ENV = "REASONEVAL_UNDER_GRADER"


def under_grader(environ=None):
    """True inside a grading process (*environ*: ``os.environ`` unless given)."""
    return (os.environ if environ is None else environ).get(UNDER_GRADER_ENV) == "1"
