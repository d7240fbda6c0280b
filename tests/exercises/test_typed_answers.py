"""Typed predictions: read from the source, never run, and bounded in what the grader parses."""

import pytest

from assessment_play import typed_function
from reasoneval_mini.exercises.typed import (
    MAX_TYPED_SOURCE_CHARS, NotTyped, typed_value, typed_value_from_source)


def test_the_literal_is_read_from_the_def_and_a_docstring_and_comments_are_allowed():
    source = ('def guess():\n    """My predictions."""\n    # 0.5 kg has a unit\n'
              '    return {"0.5": True, "0.5 kg": None, "x": {1, 2}}\n')
    assert typed_value_from_source(source, "guess") == {"0.5": True, "0.5 kg": None, "x": {1, 2}}


@pytest.mark.parametrize("body, says", [
    ("    return {p: None for p in 'ab'}\n", "comprehension"),
    ("    return dict(a=None)\n", "calls a function"),
    ("    return {'a': PASSED}\n", "uses the name PASSED"),
    ("    answer = {'a': None}\n    return answer\n", "single return statement"),
    ("    import os\n    return {}\n", "single return statement"),
])
def test_a_prediction_that_is_computed_is_not_typed(body, says):
    with pytest.raises(NotTyped, match=says):
        typed_value_from_source("def guess():\n" + body, "guess")


def test_the_untouched_stub_is_not_attempted_rather_than_wrong():
    stub = "def guess():\n    # YOUR CODE HERE\n    raise NotImplementedError()\n"
    with pytest.raises(NotImplementedError):
        typed_value_from_source(stub, "guess")


def test_the_last_def_of_the_cell_counts_and_a_missing_one_is_named():
    source = "def guess():\n    return 1\n\ndef guess():\n    return 2\n"
    assert typed_value_from_source(source, "guess") == 2
    with pytest.raises(NotTyped, match="no 'def guess' found"):
        typed_value_from_source("guess = lambda: {}\n", "guess")


def test_a_function_defined_in_a_cell_is_read_through_its_source():
    assert typed_value(typed_function("def guess():\n    return [1, None]\n", "guess")) == [1, None]
    with pytest.raises(NotTyped, match="source cannot be read"):
        typed_value(len)


def test_a_cell_over_the_bound_is_refused_by_name_before_it_is_parsed():
    # A typed answer is student text that the grader parses in its own process.
    huge = "def guess():\n    return [" + "1, " * MAX_TYPED_SOURCE_CHARS + "]\n"
    with pytest.raises(NotTyped, match=f"over {MAX_TYPED_SOURCE_CHARS} characters"):
        typed_value_from_source(huge, "guess")


def test_deep_nesting_and_colliding_hashes_within_the_bound_are_refused_or_cheap():
    deep = "def guess():\n    return " + "[" * 5000 + "]" * 5000 + "\n"
    with pytest.raises(NotTyped, match="does not parse|computes"):
        typed_value_from_source(deep, "guess")
    # Ints that share one hash: as many as the bound allows, a set of them stays small work.
    colliding = ", ".join(str(7 + k * (2**61 - 1)) for k in range(800))
    source = "def guess():\n    return {" + colliding + "}\n"
    assert len(source) < MAX_TYPED_SOURCE_CHARS
    assert len(typed_value_from_source(source, "guess")) == 800
