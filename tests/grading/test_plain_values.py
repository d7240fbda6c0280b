"""What the grading child sends back: plain data of exact built-in types, and nothing else."""

import json
from fractions import Fraction

import pytest

from reasoneval_mini.grading.plain_values import NotPlain, NotPlainValue, decode_plain, encode_plain
from reasoneval_mini.grading.process import outcome_value

PLAIN = [0, -7, 2**20000, 0.1, float("inf"), Fraction(-2, 3), "é\n", True, None,
         [1, (2, "a")], {"k": {1: [None]}}, {1, 2}, frozenset({("a", 1)}), (), {}]


@pytest.mark.parametrize("value", PLAIN, ids=lambda v: type(v).__name__)
def test_a_plain_value_round_trips_with_its_exact_types_through_json(value):
    back = decode_plain(json.loads(json.dumps(encode_plain(value))))

    def shape(v):  # the type of every part, which == alone would not check (1 == True)
        if isinstance(v, (list, tuple, set, frozenset)):
            return (type(v), sorted(map(repr, map(shape, v))))
        if isinstance(v, dict):
            return (dict, sorted(repr((shape(k), shape(x))) for k, x in v.items()))
        return (type(v), v)

    assert shape(back) == shape(value)


@pytest.mark.parametrize("value", [type("MyInt", (int,), {})(3), [1, object()],
                                   {"a": type("S", (str,), {})("x")}, 2**70000],
                         ids=["int subclass", "object", "str subclass", "70000 bits"])
def test_number_subclasses_huge_integers_and_other_objects_are_not_plain(value):
    with pytest.raises(NotPlain):
        encode_plain(value)


def test_a_container_subclass_is_sent_as_its_base_type_whatever_it_overrides():
    class Liar(list):
        def __iter__(self):
            return iter([42])

        def __eq__(self, other):
            return True

    back = decode_plain(json.loads(json.dumps(encode_plain(Liar([1, 2])))))
    assert type(back) is list and back == [1, 2]


def test_an_integer_too_long_to_decode_quickly_is_refused_before_any_arithmetic():
    digits = "f" * 1_000_000  # 4 million bits: reducing such a fraction takes seconds
    with pytest.raises(ValueError, match="over 65536 bits"):
        decode_plain({"q": ["0x" + digits, "0x" + digits[:-1] + "d"]})


@pytest.mark.parametrize("data", [{"i": "zz"}, {"s": [{"l": []}]}, {"q": ["0x1", "0x0"]},
                                  {"x": 1}, [1], 3, {"d": [[1]]}], ids=repr)
def test_a_forged_encoding_is_refused(data):
    with pytest.raises(ValueError):
        decode_plain(data)


def test_an_exception_comes_back_with_its_name_message_and_builtin_base():
    with pytest.raises(ValueError, match="bad n") as info:
        outcome_value({"raised": {"type": "MyError", "builtin": "ValueError", "message": "bad n"}})
    assert type(info.value).__name__ == "MyError"


def test_a_keyboard_interrupt_from_the_answer_is_an_ordinary_exception_in_the_grader():
    with pytest.raises(Exception) as info:
        outcome_value({"raised": {"type": "KeyboardInterrupt", "builtin": "KeyboardInterrupt",
                                  "message": ""}})
    assert not isinstance(info.value, KeyboardInterrupt)


def test_a_value_that_is_not_plain_fails_as_a_type_error_naming_its_type():
    with pytest.raises(NotPlainValue, match="returned Anything, not plain data"):
        outcome_value({"not_plain": "Anything"})
