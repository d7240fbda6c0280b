"""The exercise set: one source for every exercise's text, points, hint and checks.

* ``checks`` and ``compare``: how a check is built and how values are compared
  and shown to a learner;
* ``ex01_answer_equivalence``, ``ex02_pass_at_k``, ``ex03_execution_states``:
  the exercises of each notebook (named after it, in the order of
  :mod:`reasoneval_mini.course_map`);
* ``registry``: all exercises by id, running their checks;
* ``build``: the learner notebooks in ``exercises/``, generated from the masters
  in ``solutions/`` (``reasoneval-course build-exercises``).

The learner calls them through :mod:`reasoneval_mini.feedback` (``check``, ``hint``).
"""
