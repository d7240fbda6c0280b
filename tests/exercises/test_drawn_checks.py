"""One draw serves an exercise's public and hidden checks (what the grader relies on).

:meth:`Exercise.drawn_checks` draws the variant's data once and builds both
kinds of checks on it, where :meth:`Exercise.public_checks` and
:meth:`Exercise.hidden_checks` draw it each. That is only right if building
and running the checks never changes the data (the grader's answers run in
the child, on copies of their arguments), and if the checks built on the
shared draw judge exactly as the ones built on fresh draws: both are held
here, for every exercise, against the two separate draws as reference.
"""

import copy
from dataclasses import replace

import pytest

from assessment_play import IDENTITIES, TEST_KEY, typed_answer
from reasoneval_mini.exercises.registry import EXERCISES, run_checks
from reasoneval_mini.exercises.variants import Variant

SOME_IDENTITIES = IDENTITIES[:3] + IDENTITIES[-3:]


def _stub(*args, **kwargs):
    raise NotImplementedError


def _nothing(*args, **kwargs):
    return None


def _vandal(*args, **kwargs):
    """Empties every dict, list and set it is given, at any depth, then returns its first argument."""
    def wreck(value, depth=0):
        if depth > 6:
            return
        if isinstance(value, dict):
            for item in list(value.values()):
                wreck(item, depth + 1)
            value.clear()
        elif isinstance(value, (list, set)):
            for item in list(value):
                wreck(item, depth + 1)
            value.clear()
        elif isinstance(value, tuple):
            for item in value:
                wreck(item, depth + 1)
    for value in (*args, *kwargs.values()):
        wreck(value)
    return args[0] if args else None


def _answers(exercise, data):
    if exercise.typed:
        return [typed_answer(exercise.id, exercise.solve(data)), typed_answer(exercise.id, None)]
    return [_stub, _nothing, _vandal]


def _sent(answer):
    """*answer* as the grader calls it: arguments and value cross a pipe, as copies."""
    def remote(*args, **kwargs):
        return copy.deepcopy(answer(*copy.deepcopy(args), **copy.deepcopy(kwargs)))
    remote.__name__ = getattr(answer, "__name__", "answer")
    return remote


def _results(checks, answer):
    return [check(answer) for check in checks]


@pytest.mark.parametrize("exercise_id", list(EXERCISES))
def test_drawn_checks_draw_once_and_judge_as_two_fresh_draws(exercise_id):
    exercise = EXERCISES[exercise_id]
    calls = []

    def counted(rng):
        calls.append(1)
        return exercise.draw(rng)
    counting = replace(exercise, draw=counted)
    for identity in SOME_IDENTITIES:
        variant = Variant(identity, key=TEST_KEY)
        calls.clear()
        public, hidden = counting.drawn_checks(variant, hidden=True)
        assert len(calls) == 1, "the data was drawn more than once"
        data = exercise.data(variant)
        for answer in _answers(exercise, data):
            # The reference: public and hidden checks each built on a fresh draw.
            assert _results(public, answer) == _results(exercise.public_checks(variant), answer)
            assert _results(hidden, answer) == _results(exercise.hidden_checks(variant), answer)
        assert counting.drawn_checks(variant)[1] == (), "hidden checks built without hidden=True"


@pytest.mark.parametrize("exercise_id", list(EXERCISES))
def test_building_and_running_the_checks_leaves_the_drawn_data_as_drawn(exercise_id):
    exercise = EXERCISES[exercise_id]
    for identity in SOME_IDENTITIES:
        variant = Variant(identity, key=TEST_KEY)
        drawn = []
        sharing = replace(exercise, draw=lambda rng: drawn.append(exercise.draw(rng)) or drawn[-1])
        public, hidden = sharing.drawn_checks(variant, hidden=True)
        (data,) = drawn
        before = repr(data)
        assert before == repr(exercise.data(variant)), "building the checks changed the data"
        # The grader's answers run in the child, on copies: only the checks could change it.
        for answer in _answers(exercise, data):
            run_checks(exercise_id, answer if exercise.typed else _sent(answer), variant=variant,
                       hidden=True, drawn=(public, hidden))
        assert repr(data) == before, "running the checks changed the data they were built on"
