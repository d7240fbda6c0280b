"""Compare an answer with the expected value by value, and show both deterministically.

:func:`same_value` returns ``""`` for a match, else a short reason:
``Fraction`` and ``int`` compare exactly (a float is refused there: ``0.7``
is not ``7/10``), ``float`` within :data:`FLOAT_REL_TOL` / :data:`FLOAT_ABS_TOL`
(``math.isclose``), numpy scalars as the Python number they hold (without
importing numpy), dicts key by key, lists and tuples item by item, sets as
sets. ``bool`` is kept apart from numbers and ``None`` from ``False``,
because the course is about exactly that. :func:`show` is the display text:
sets are sorted, so output never depends on hash order, and a number longer
than :data:`MAX_NUMBER_CHARS` is shown as an approximation with its digit
counts (the comparison itself stays exact).

>>> same_value(0.1 + 0.2, 0.3)
''
>>> same_value(False, None)
'expected exactly None, not False'
>>> same_value(1, True)
'expected exactly True, not 1'
>>> same_value([1, 2], [1, 2, 3])
'expected a sequence of length 3, got length 2; first difference: item 2 is missing'
"""

import math
import numbers
from fractions import Fraction

from reasoneval_mini.support.i18n import _

#: Floats are equal when ``math.isclose(a, b, rel_tol=..., abs_tol=...)``.
FLOAT_REL_TOL = 1e-9
FLOAT_ABS_TOL = 1e-12
#: An int or Fraction whose text is longer than this is shown shortened.
MAX_NUMBER_CHARS = 40
# Ints below this in magnitude have at most 18 digits: never shown shortened.
_SHORT_INT = 10 ** 18


def _plain(value):
    # numpy scalars (np.float64, np.int64, np.bool_) hold a Python number;
    # compare that, without importing numpy.
    if type(value).__module__ == "numpy" and hasattr(value, "item"):
        return value.item()
    return value


def _digits(number):
    """Decimal digits of the int *number*'s magnitude, without ``str()``.

    ``str()`` of an int over 4,300 digits raises ``ValueError`` (Python 3.11 and
    later), and an answer may return one: the count comes from ``log10``, which
    takes an int of any size, corrected by one power of ten where it rounds.
    """
    number = abs(number)
    if number < 10**18:
        return len(str(number))
    digits = int(math.log10(number)) + 1
    if 10 ** (digits - 1) > number:
        digits -= 1
    elif 10**digits <= number:
        digits += 1
    return digits


def _approximately(value):
    try:
        return f"≈{float(value):.6g}"
    except OverflowError:  # beyond the float range, yet finite: leading digits and the power
        whole = abs(int(value))
        power = _digits(whole) - 1
        lead = str(whole // 10 ** max(power - 5, 0))
        return f"≈{'-' if value < 0 else ''}{lead[0]}.{lead[1:]}e+{power}"


def _show_long_number(value):
    # A 130-digit numerator hides the point; the learner needs size and digits.
    if isinstance(value, Fraction):
        return (f"Fraction({_approximately(value)}…, "
                + _("{numerator}-digit numerator, {denominator}-digit denominator").format(
                    numerator=_digits(value.numerator), denominator=_digits(value.denominator))
                + ")")
    return f"int({_approximately(value)}…, " + _("{count} digits").format(
        count=_digits(value)) + ")"


def _number_chars(value):
    # len(str(value)), without str() (see _digits)
    if isinstance(value, Fraction):
        return (value.numerator < 0) + _digits(value.numerator) + (
            0 if value.denominator == 1 else 1 + _digits(value.denominator))
    return (value < 0) + _digits(value)


def show(value):
    """Deterministic display text: sets sorted, numpy scalars unwrapped, long numbers shortened.

    >>> show({"b", "a"}), show(Fraction(1, 2))
    ("{'a', 'b'}", 'Fraction(1, 2)')
    >>> show(Fraction(10**50 - 1, 10**50))
    'Fraction(≈1…, 50-digit numerator, 51-digit denominator)'

    Surprising: a finite number past the float range, and one too long for ``str()``.

    >>> show(int("6" * 1000)), show(10**5000)
    ('int(≈6.66666e+999…, 1000 digits)', 'int(≈1.00000e+5000…, 5001 digits)')
    """
    kind = type(value)
    # The common leaves first, shown as the general path below shows them (an int this small
    # is never long): the grader shows every expected and returned value of every check.
    if kind is str or kind is float or kind is bool or value is None or (
            kind is int and -_SHORT_INT < value < _SHORT_INT):
        return repr(value)
    value = _plain(value)
    if isinstance(value, (int, Fraction)) and not isinstance(value, bool):
        if _number_chars(value) > MAX_NUMBER_CHARS:
            return _show_long_number(value)
    # map and lists, not generators: a check shows its expected and returned containers whole.
    if isinstance(value, (set, frozenset)):
        items = sorted(map(show, value))
        return "{" + ", ".join(items) + "}" if items else "set()"
    if isinstance(value, dict):
        return "{" + ", ".join([f"{show(k)}: {show(v)}" for k, v in value.items()]) + "}"
    if isinstance(value, (list, tuple)):
        inner = ", ".join(map(show, value))
        if isinstance(value, tuple):
            return f"({inner},)" if len(value) == 1 else f"({inner})"
        return f"[{inner}]"
    return repr(value)


def same_value(actual, expected):
    """Return ``""`` when *actual* matches *expected* by value, else why not."""
    actual, expected = _plain(actual), _plain(expected)
    if isinstance(expected, bool) or expected is None:
        if actual is expected:
            return ""
        return _("expected exactly {expected!r}, not {actual}").format(
            expected=expected, actual=show(actual))
    if isinstance(actual, bool):
        return _("expected a number or value, got the bool {actual!r}").format(actual=actual)
    if isinstance(expected, Fraction) or isinstance(expected, int):
        if isinstance(actual, (Fraction, int)) and actual == expected:
            return ""
        if isinstance(actual, float):
            return _("expected an exact int or Fraction, got a float")
        if isinstance(actual, (Fraction, int)) and _is_long(actual, expected):
            # Both may display as the same approximation: say how far apart they are.
            return _("different value (actual - expected {difference})").format(
                difference=_approximately(actual - expected))
        return _("different value")
    if isinstance(expected, float):
        if not isinstance(actual, numbers.Real):
            return _("expected a number, got {type_name}").format(type_name=type(actual).__name__)
        if math.isclose(float(actual), expected, rel_tol=FLOAT_REL_TOL, abs_tol=FLOAT_ABS_TOL):
            return ""
        return _("differs by more than rel_tol={rel_tol}, abs_tol={abs_tol}").format(
            rel_tol=FLOAT_REL_TOL, abs_tol=FLOAT_ABS_TOL)
    if isinstance(expected, dict):
        return _same_mapping(actual, expected)
    if isinstance(expected, (list, tuple)):
        if not isinstance(actual, (list, tuple)):
            return _("expected a sequence of length {length}, got {type_name}").format(
                length=len(expected), type_name=type(actual).__name__)
        if len(actual) != len(expected):
            return (_("expected a sequence of length {length}, got length {actual}; ").format(
                length=len(expected), actual=len(actual)) + _which_items_differ(actual, expected))
        for index, (a, e) in enumerate(zip(actual, expected)):
            why = same_value(a, e)
            if why:
                return _("item {index}: {why}").format(index=index, why=why)
        return ""
    if isinstance(expected, (set, frozenset)):
        return same_set(actual, expected)
    return "" if type(actual) is type(expected) and actual == expected else _("different value")


def _is_long(*numbers_):
    return any(len(str(number)) > MAX_NUMBER_CHARS for number in numbers_)


def _identifying_key(actual, expected):
    # A key (e.g. "sample_id") that every item of both sequences has, with
    # distinct hashable values: then items can be named by it.
    items = list(actual) + list(expected)
    if not expected or not all(isinstance(item, dict) for item in items):
        return None
    for key in expected[0]:
        if not all(key in item for item in items):
            continue
        try:
            values = {item[key] for item in items}  # unhashable values cannot name items
        except TypeError:
            continue
        if len({item[key] for item in expected}) == len(expected) and values:
            return key
    return None


def _which_items_differ(actual, expected):
    """Name the missing/extra items of two sequences of different lengths."""
    key = _identifying_key(actual, expected)
    if key is not None:
        wanted, got = [item[key] for item in expected], [item[key] for item in actual]
        parts = [_("{key} {value} missing").format(key=key, value=show(value))
                 for value in wanted if value not in got]
        parts += [_("{key} {value} not expected").format(key=key, value=show(value))
                  for value in got if value not in wanted]
        parts += [_("{key} {value} repeated").format(key=key, value=show(value))
                  for value in dict.fromkeys(got) if value in wanted and got.count(value) > 1]
        return ", ".join(parts)
    for index in range(min(len(actual), len(expected))):
        why = same_value(actual[index], expected[index])
        if why:
            return _("first difference: item {index}: {why}").format(index=index, why=why)
    index = min(len(actual), len(expected))
    if len(actual) < len(expected):
        return _("first difference: item {index} is missing").format(index=index)
    return _("first difference: item {index} is not expected ({value})").format(
        index=index, value=show(actual[index]))


def _same_mapping(actual, expected):
    if not isinstance(actual, dict):
        return _("expected a dict, got {type_name}").format(type_name=type(actual).__name__)
    missing = [key for key in expected if key not in actual]
    extra = [key for key in actual if key not in expected]
    if missing and extra:
        return _("missing keys {missing}, unexpected keys {extra}").format(
            missing=show(missing), extra=show(extra))
    if missing:  # the empty half said nothing ("unexpected keys []")
        return _("missing keys {missing}").format(missing=show(missing))
    if extra:
        return _("unexpected keys {extra}").format(extra=show(extra))
    for key, value in expected.items():
        why = same_value(actual[key], value)
        if why:
            return _("key {key!r}: {why}").format(key=key, why=why)
    return ""


def same_set(actual, expected):
    """Compare as sets (order and repeats ignored); say what is missing or extra."""
    try:
        actual = set(actual)
    except TypeError:
        return _("expected a collection of hashable items, got {type_name}").format(
            type_name=type(actual).__name__)
    missing, extra = set(expected) - actual, actual - set(expected)
    if not (missing or extra):
        return ""
    parts = [_("missing {items}").format(items=show(missing))] if missing else []
    parts += [_("not expected {items}").format(items=show(extra))] if extra else []
    return "; ".join(parts)
