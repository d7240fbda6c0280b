"""Plain data: what a student's answer may return to the grader, encoded in the child, decoded here.

The grading child (:mod:`reasoneval_mini.grading.child`) never sends an
object, only *plain data* as tagged JSON (:func:`encode_plain`): exact
``int``, ``float``, ``Fraction``, ``str``, ``bool``, ``None``, and lists,
tuples, sets, frozensets and dicts of them. The grader rebuilds the value
with exact built-in types (:func:`decode_plain`), so the checks compare
values that no student class can redefine, and it refuses what would take
its own time to rebuild: integers over :data:`MAX_INT_BITS` bits.

>>> decode_plain(encode_plain({"a": (1, 2.5)}))
{'a': (1, 2.5)}
"""

import math
from fractions import Fraction

#: Deepest nesting of a returned value that is sent back (deeper: "too deeply nested").
MAX_VALUE_DEPTH = 200
#: Largest integer (numerator, denominator) sent back, in bits; the grader refuses
#: longer ones too, because exact arithmetic on them takes the grader's time.
MAX_INT_BITS = 1 << 16


class NotPlain(Exception):
    """A returned value that is not plain data; the message says what it was."""


class NotPlainValue(TypeError):
    """What a call raises in the grader when the answer returned something other than plain data."""


_CONTAINERS = ((list, "l"), (tuple, "t"), (set, "s"), (frozenset, "fs"))


def encode_plain(value, depth=0):
    """*value* as tagged JSON, if it is plain data; else :class:`NotPlain`.

    Plain: exact ``int`` (up to :data:`MAX_INT_BITS`), ``float``,
    ``Fraction``, ``str``, ``bool``, ``None``, a numpy scalar (as the Python
    number it holds), and lists, tuples, sets, frozensets and dicts of plain
    values. A container subclass (``namedtuple``, ``defaultdict``,
    ``OrderedDict``) is sent as its base type, read through the base type's
    own methods, so its overrides change nothing.

    >>> encode_plain([1, "a", None])
    {'l': [{'i': '0x1'}, 'a', None]}
    >>> from collections import namedtuple
    >>> encode_plain(namedtuple("Point", "x y")(1, 2))
    {'t': [{'i': '0x1'}, {'i': '0x2'}]}

    Surprising: a subclass of ``int`` is not plain, whatever it compares equal to.

    >>> class Anything(int): pass
    >>> encode_plain(Anything(3))
    Traceback (most recent call last):
    ...
    reasoneval_mini.grading.plain_values.NotPlain: Anything
    """
    if depth > MAX_VALUE_DEPTH:
        raise NotPlain("a value nested too deeply")
    kind = type(value)
    if kind.__module__ == "numpy" and getattr(value, "ndim", None) == 0 and hasattr(value, "item"):
        value = value.item()  # a numpy scalar holds a Python number; its type is checked below
        kind = type(value)
    if value is None or kind is bool or kind is str:
        return value
    if kind is int:
        return {"i": hex(_bounded(value))}
    if kind is float:
        return {"f": value.hex() if math.isfinite(value) else repr(value)}
    if kind is Fraction:
        return {"q": [hex(_bounded(value.numerator)), hex(_bounded(value.denominator))]}
    for base, tag in _CONTAINERS:
        if isinstance(value, base):
            return {tag: [encode_plain(item, depth + 1) for item in base.__iter__(value)]}
    if isinstance(value, dict):
        return {"d": [[encode_plain(k, depth + 1), encode_plain(v, depth + 1)]
                      for k, v in dict.items(value)]}
    raise NotPlain(kind.__name__)


def _bounded(number):
    if number.bit_length() > MAX_INT_BITS:
        raise NotPlain(f"an integer of {number.bit_length()} bits (at most {MAX_INT_BITS} "
                       "are graded)")
    return number


_SEQUENCES = {"l": list, "t": tuple, "s": set, "fs": frozenset}
_MAX_HEX_DIGITS = MAX_INT_BITS // 4 + 1


def _integer(text):
    """An int from the child's hex text, refused past :data:`MAX_INT_BITS` before any arithmetic."""
    if type(text) is not str or len(text) > _MAX_HEX_DIGITS + 3:
        raise ValueError(f"an integer over {MAX_INT_BITS} bits")
    return int(text, 16)


def decode_plain(data):
    """The value :func:`encode_plain` encoded, of exact types.

    Raises ``ValueError`` for anything that is not such an encoding, an
    integer (or a fraction's numerator or denominator) over
    :data:`MAX_INT_BITS` bits included: exact
    arithmetic on those would hold every grading thread.

    >>> decode_plain({"l": [{"i": "0x2"}, {"q": ["0x1", "0x3"]}, "a"]})
    [2, Fraction(1, 3), 'a']

    Surprising: a fraction is checked before it is reduced, since reducing is
    the slow part.

    >>> decode_plain({"q": ["0x1" + "0" * 20000, "0x3"]})
    Traceback (most recent call last):
    ...
    ValueError: not a plain value: an integer over 65536 bits
    """
    if data is None or type(data) in (bool, str):
        return data
    if type(data) is not dict or len(data) != 1:
        raise ValueError(f"not a plain value: {type(data).__name__}")
    (tag, body), = data.items()
    try:
        if tag == "i":
            return _integer(body)
        if tag == "f":
            if type(body) is not str or len(body) > 40:
                raise ValueError("a float's text is at most 40 characters")
            return float.fromhex(body) if "0x" in body else float(body)
        if tag == "q":
            numerator, denominator = (_integer(part) for part in body)
            return Fraction(numerator, denominator)
        if tag in _SEQUENCES:
            return _SEQUENCES[tag](decode_plain(item) for item in body)
        if tag == "d":
            return {decode_plain(key): decode_plain(value) for key, value in body}
    except (TypeError, IndexError, ZeroDivisionError, AttributeError, ValueError) as error:
        raise ValueError(f"not a plain value: {error}") from None
    raise ValueError(f"not a plain value: tag {tag!r}")
