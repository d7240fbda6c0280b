"""What a session's child sends back for a call (the grader's answers): plain data of exact built-in types, and nothing else."""

import json
from fractions import Fraction

import pytest

from reasoneval_mini.runner.plain_values import (
    MAX_SHARED_HASH, MAX_VALUE_PARTS, NotPlain, NotPlainValue, decode_plain, encode_plain)
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


# -- hash floods: the grader must not spend quadratic time on what a set of the value costs --

_MERSENNE = 2**61 - 1  # CPython hashes an int n to n mod this prime (sign kept)
_MASK = 2**64 - 1


def _colliding_ints(count):
    """*count* distinct ints of one hash (independent check: their hashes are asserted equal)."""
    values = [7 + k * _MERSENNE for k in range(count)]
    # Distinct since increasing (a set() of them, to check, would be the attack itself).
    assert len(set(map(hash, values))) == 1 and all(a < b for a, b in zip(values, values[1:]))
    return values


def _int_of_hash(target):
    """An int whose hash() is *target* (a 64-bit pattern), or None where no int hashes so."""
    signed = target - 2**64 if target >> 63 else target
    if -_MERSENNE < signed < _MERSENNE and signed != -1:
        return signed
    return None


def _pairs_of_one_frozenset_hash(count):
    """*count* pairs [a, b] of ints, every int of its own hash, whose frozensets hash alike.

    CPython's frozenset hash XORs ``shuffle(hash(item))`` over the items (the
    rest depends only on the size), and ``shuffle`` can be inverted: so for
    any *a* there is a *b* that gives the chosen XOR. Checked below against
    the real hash().
    """
    def shuffle(h):
        return (((h ^ 89869747) ^ (h << 16)) * 3644798167) & _MASK

    def unshuffle(y):
        z = ((y * pow(3644798167, -1, 2**64)) & _MASK) ^ 89869747
        return (z ^ (z << 16) ^ (z << 32) ^ (z << 48)) & _MASK

    pairs, target, a = [], shuffle(3) ^ shuffle(5), 10
    while len(pairs) < count:
        b = _int_of_hash(unshuffle(target ^ shuffle(a)))
        if b is not None and b != a:
            pairs.append([a, b])
        a += 1
    parts = [x for pair in pairs for x in pair]
    assert len(set(map(hash, parts))) == len(parts)  # no int shares a hash...
    assert len({hash(frozenset(pair)) for pair in pairs}) == 1  # ...but every pair does
    return pairs


def test_a_list_of_ints_sharing_one_hash_is_refused_naming_the_bound():
    flood = encode_plain(_colliding_ints(64_000))  # what held the grader 45 s per call
    with pytest.raises(NotPlainValue, match=f"more than {MAX_SHARED_HASH} distinct parts share "
                                            "one hash"):
        outcome_value({"returned": flood})


def test_a_forged_set_of_colliding_ints_is_refused_before_the_set_is_built():
    forged = {"s": [{"i": hex(value)} for value in _colliding_ints(5_000)]}
    with pytest.raises(ValueError, match="share one hash"):
        decode_plain(forged)


@pytest.mark.parametrize("extra", [[], [None]], ids=["pairs", "pairs with a None"])
def test_pairs_whose_frozensets_collide_are_refused_though_no_two_ints_do(extra):
    # ex02 turns each returned pair into a frozenset and builds a set of them;
    # a None beside each pair shifts every frozenset's hash alike.
    groups = [pair + extra for pair in _pairs_of_one_frozenset_hash(MAX_SHARED_HASH + 8)]
    assert len({hash(frozenset(group)) for group in groups}) == 1
    with pytest.raises(ValueError, match="share one hash"):
        decode_plain(encode_plain(groups))


def test_repeated_equal_values_and_a_few_honest_collisions_decode():
    value = [0] * 50_000 + [-1, -2, (-1, 5), (-2, 5)] + [[1, 2]] * 1000 + ["a"] * 1000
    assert hash(-1) == hash(-2)  # the honest collision CPython has
    assert decode_plain(json.loads(json.dumps(encode_plain(value)))) == value


def test_a_value_of_too_many_parts_is_refused_naming_the_bound():
    with pytest.raises(NotPlainValue, match=f"more than {MAX_VALUE_PARTS} parts"):
        outcome_value({"returned": {"l": ["x"] * MAX_VALUE_PARTS}})
    assert len(decode_plain({"l": ["x"] * (MAX_VALUE_PARTS - 1)})) == MAX_VALUE_PARTS - 1
