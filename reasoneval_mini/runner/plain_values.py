"""Plain data: what a student's answer may return to the grader, encoded in the child, decoded here.

A session's child (:mod:`reasoneval_mini.runner.child`) never sends an
object, only *plain data* as tagged JSON (:func:`encode_plain`): exact
``int``, ``float``, ``Fraction``, ``str``, ``bool``, ``None``, and lists,
tuples, sets, frozensets and dicts of them. The grader rebuilds the value
with exact built-in types (:func:`decode_plain`), so the checks compare
values that no student class can redefine, and it refuses what would take
its own time to rebuild or to use: integers over :data:`MAX_INT_BITS` bits,
values of more than :data:`MAX_VALUE_PARTS` parts, and values whose parts
flood one hash (:data:`MAX_SHARED_HASH`), which would make every ``set`` or
``dict`` a check builds of them quadratic.

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
#: Most parts (numbers, texts, containers, at every depth) of a value the grader decodes.
MAX_VALUE_PARTS = 100_000
#: Most distinct parts of one decoded value that may share one ``hash()``. The ints
#: ``7 + k * (2**61 - 1)`` all hash alike: a ``set`` of n of them costs n**2 / 2
#: comparisons, so 64,000 of them held the grader for 45 s. Honest values
#: almost never hold two (``hash(-1) == hash(-2)`` is the usual case).
MAX_SHARED_HASH = 32


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
    reasoneval_mini.runner.plain_values.NotPlain: Anything
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
_UNHASHABLE = object()  # the hashable form of a dict, and of what holds one: none
_MAX_HEX_DIGITS = MAX_INT_BITS // 4 + 1


def _integer(text):
    """An int from the child's hex text, refused past :data:`MAX_INT_BITS` before any arithmetic."""
    if type(text) is not str or len(text) > _MAX_HEX_DIGITS + 3:
        raise ValueError(f"an integer over {MAX_INT_BITS} bits")
    return int(text, 16)


def decode_plain(data):
    """The value :func:`encode_plain` encoded, of exact types.

    Raises ``ValueError`` for anything that is not such an encoding, and for
    what would hold every grading thread: an integer (or a fraction's
    numerator or denominator) over :data:`MAX_INT_BITS` bits, a value of more
    than :data:`MAX_VALUE_PARTS` parts, or one where more than
    :data:`MAX_SHARED_HASH` distinct parts share a hash. Parts are counted
    at every depth, each list and tuple also as the tuple and the frozenset
    of its items and each set as a frozenset, since a check may put them in a
    set in any of these forms (``{frozenset(pair) for pair in value}``).

    >>> decode_plain({"l": [{"i": "0x2"}, {"q": ["0x1", "0x3"]}, "a"]})
    [2, Fraction(1, 3), 'a']

    Surprising: a fraction is checked before it is reduced, since reducing is
    the slow part; and equal parts may repeat at will, only distinct ones
    sharing a hash are counted.

    >>> decode_plain({"q": ["0x1" + "0" * 20000, "0x3"]})
    Traceback (most recent call last):
    ...
    ValueError: not a plain value: an integer over 65536 bits
    >>> len(decode_plain(encode_plain([7] * 1000)))
    1000
    >>> decode_plain(encode_plain([7 + k * (2**61 - 1) for k in range(40)]))
    Traceback (most recent call last):
    ...
    ValueError: not a plain value: more than 32 distinct parts share one hash (a hash flood)
    """
    return _Decoder().decode(data)


class _Decoder:
    """One :func:`decode_plain` call: the parts it has built, counted by number and by hash.

    ``first`` maps a hash to the first part seen with it, ``more`` to the
    other distinct ones (fewer than :data:`MAX_SHARED_HASH`), so each part
    costs a dict look-up and at most that many comparisons: the whole check
    is linear in the value's size.
    """

    def __init__(self):
        self.parts, self.first, self.more = 0, {}, {}

    def decode(self, data):
        value, _ = self._decode(data)
        return value

    def _decode(self, data):
        """``(value, frozen)``: the value and its hashable form (:data:`_UNHASHABLE` for a dict)."""
        self.parts += 1
        if self.parts > MAX_VALUE_PARTS:
            raise ValueError(f"not a plain value: more than {MAX_VALUE_PARTS} parts "
                             f"(at most {MAX_VALUE_PARTS} are graded)")
        if data is None or type(data) in (bool, str):
            return data, self._count(data)
        if type(data) is not dict or len(data) != 1:
            raise ValueError(f"not a plain value: {type(data).__name__}")
        (tag, body), = data.items()
        try:
            value, frozen = self._decode_tagged(tag, body)
        except (TypeError, IndexError, ZeroDivisionError, AttributeError) as error:
            raise ValueError(f"not a plain value: {error}") from None
        return value, frozen

    def _decode_tagged(self, tag, body):
        if tag in _SEQUENCES:
            if type(body) is not list:
                raise TypeError(f"a {_SEQUENCES[tag].__name__}'s items come as a list")
            items = [self._decode(item) for item in body]
            frozens = [frozen for _, frozen in items]
            value = _SEQUENCES[tag](item for item, _ in items)
            if any(frozen is _UNHASHABLE for frozen in frozens):
                return value, _UNHASHABLE  # a dict inside
            if tag in ("s", "fs"):
                return value, self._count(frozenset(frozens))
            self._count(frozenset(frozens))
            return value, self._count(tuple(frozens))
        if tag == "d":
            if type(body) is not list or any(type(p) is not list or len(p) != 2 for p in body):
                raise TypeError("a dict's items come as a list of [key, value] pairs")
            pairs = [(self._decode(key), self._decode(item)) for key, item in body]
            return {key: item for (key, _), (item, _) in pairs}, _UNHASHABLE
        number = self._count(_scalar(tag, body))
        return number, number

    def _count(self, part):
        """*part*, counted under its hash; ``ValueError`` past :data:`MAX_SHARED_HASH`."""
        key = hash(part)
        first = self.first.setdefault(key, part)
        if first is part or first == part:
            return part
        more = self.more.setdefault(key, [])
        if part not in more:
            if len(more) + 1 >= MAX_SHARED_HASH:
                raise ValueError(f"not a plain value: more than {MAX_SHARED_HASH} distinct "
                                 "parts share one hash (a hash flood)")
            more.append(part)
        return part


def _scalar(tag, body):
    """The number a tag other than a container's stands for."""
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
    except ValueError as error:
        raise ValueError(f"not a plain value: {error}") from None
    raise ValueError(f"not a plain value: tag {tag!r}")
