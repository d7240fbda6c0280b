"""Play the student: score an answer the way the grader would, without a grading process.

The grader scores an exercise with
:func:`~reasoneval_mini.exercises.registry.exercise_score` on the public and
the hidden checks of the student's variant (hidden ones drawn with its key).
:func:`grade_score` does the same in this process, so that a test can try
hundreds of answers (a misconception, a lookup table, a delegation, a
classmate's answer) on many variants in a second. A typed exercise's answer
is read from its source, so the functions given here must be defined with
``def`` in a file or with :func:`typed_function`; tests of the real grader
(``tests/grading``) check that it agrees.
"""

import linecache
import textwrap
from itertools import count

from reasoneval_mini.exercises.registry import exercise_score, get_exercise, run_checks
from reasoneval_mini.exercises.variants import Variant

#: The key the tests grade with (a real grader's is random, in the instructor's file).
TEST_KEY = bytes(range(32))

#: Identities for "on every variant" tests: at least 50, the shipped one first.
IDENTITIES = ("self-study",) + tuple(f"student-{n:03d}" for n in range(1, 50)) + (
    "zoe ", "\u200fsara", "Ólafur Jóhannsson")

_NUMBERS = count()


def grade_score(exercise_id, answer, identity, *, key=TEST_KEY):
    """The points *answer* earns for *exercise_id* on *identity*'s variant, as the grader gives them."""
    exercise = get_exercise(exercise_id)
    variant = Variant(identity, key=key)
    results = run_checks(exercise_id, answer, variant=variant, hidden=True)
    public = len(exercise.public_checks(variant))
    return exercise_score(exercise.points, results[:public], results[public:])


def check_results(exercise_id, answer, identity):
    """What ``check()`` shows for *answer* on *identity*'s variant (public checks only)."""
    return run_checks(exercise_id, answer, variant=Variant(identity))


def typed_function(source, name):
    """Define *name* from *source* as a notebook cell would, with its source readable.

    IPython keeps each cell's source in :mod:`linecache` under a name of its
    own; so does this, so that a typed answer's source can be read back.
    """
    source = textwrap.dedent(source)
    filename = f"<test cell {next(_NUMBERS)}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace = {"__name__": "__main__"}
    exec(compile(source, filename, "exec"), namespace)
    return namespace[name]


def typed_answer(exercise_id, value):
    """A function of *exercise_id*'s answer name that returns *value* typed in as a literal."""
    name = get_exercise(exercise_id).answer_name
    return typed_function(f"def {name}():\n    return {value!r}\n", name)
