"""Compare an answer with the expected value by value, and show both deterministically.

:func:`same_value` returns ``""`` for a match, else a short reason:
``Fraction`` and ``int`` compare exactly (a float is refused there: ``0.7``
is not ``7/10``), ``float`` within :data:`FLOAT_REL_TOL` / :data:`FLOAT_ABS_TOL`
(``math.isclose``), numpy scalars as the Python number they hold (without
importing numpy), dicts key by key, lists and tuples item by item, sets as
sets. ``bool`` is kept apart from numbers and ``None`` from ``False``,
because the course is about exactly that. :func:`show` is the display text:
sets are sorted, so output never depends on hash order.

>>> same_value(0.1 + 0.2, 0.3)
''
>>> same_value(False, None)
'expected exactly None, not False'
>>> same_value(1, True)
'expected exactly True, not 1'
"""

import math
import numbers
from fractions import Fraction

#: Floats are equal when ``math.isclose(a, b, rel_tol=..., abs_tol=...)``.
FLOAT_REL_TOL = 1e-9
FLOAT_ABS_TOL = 1e-12


def _plain(value):
    # numpy scalars (np.float64, np.int64, np.bool_) hold a Python number;
    # compare that, without importing numpy.
    if type(value).__module__ == "numpy" and hasattr(value, "item"):
        return value.item()
    return value


def show(value):
    """Deterministic display text: sets sorted, numpy scalars unwrapped.

    >>> show({"b", "a"}), show(Fraction(1, 2))
    ("{'a', 'b'}", 'Fraction(1, 2)')
    """
    value = _plain(value)
    if isinstance(value, (set, frozenset)):
        items = sorted((show(item) for item in value))
        return "{" + ", ".join(items) + "}" if items else "set()"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{show(k)}: {show(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        inner = ", ".join(show(item) for item in value)
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
        return f"expected exactly {expected!r}, not {show(actual)}"
    if isinstance(actual, bool):
        return f"expected a number or value, got the bool {actual!r}"
    if isinstance(expected, Fraction) or isinstance(expected, int):
        if isinstance(actual, (Fraction, int)) and actual == expected:
            return ""
        if isinstance(actual, float):
            return "expected an exact int or Fraction, got a float"
        return "different value"
    if isinstance(expected, float):
        if not isinstance(actual, numbers.Real):
            return f"expected a number, got {type(actual).__name__}"
        if math.isclose(float(actual), expected, rel_tol=FLOAT_REL_TOL, abs_tol=FLOAT_ABS_TOL):
            return ""
        return f"differs by more than rel_tol={FLOAT_REL_TOL}, abs_tol={FLOAT_ABS_TOL}"
    if isinstance(expected, dict):
        return _same_mapping(actual, expected)
    if isinstance(expected, (list, tuple)):
        if not isinstance(actual, (list, tuple)) or len(actual) != len(expected):
            return f"expected a sequence of length {len(expected)}"
        for index, (a, e) in enumerate(zip(actual, expected)):
            why = same_value(a, e)
            if why:
                return f"item {index}: {why}"
        return ""
    if isinstance(expected, (set, frozenset)):
        return same_set(actual, expected)
    return "" if type(actual) is type(expected) and actual == expected else "different value"


def _same_mapping(actual, expected):
    if not isinstance(actual, dict):
        return f"expected a dict, got {type(actual).__name__}"
    missing = [key for key in expected if key not in actual]
    extra = [key for key in actual if key not in expected]
    if missing or extra:
        return f"missing keys {show(missing)}, unexpected keys {show(extra)}"
    for key, value in expected.items():
        why = same_value(actual[key], value)
        if why:
            return f"key {key!r}: {why}"
    return ""


def same_set(actual, expected):
    """Compare as sets (order and repeats ignored); say what is missing or extra."""
    try:
        actual = set(actual)
    except TypeError:
        return f"expected a collection of hashable items, got {type(actual).__name__}"
    missing, extra = set(expected) - actual, actual - set(expected)
    if not (missing or extra):
        return ""
    return f"missing {show(missing)}; not expected {show(extra)}"
