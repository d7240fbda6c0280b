"""A separate, declared contract for measurement-style answers."""

import math
from fractions import Fraction

from .numeric_equivalence import parse_reference
from .parse_answer import parse_rational


def _as_tolerance(name, value):
    # bool is an int subclass; True as a tolerance is almost surely a bug.
    if isinstance(value, bool) or not isinstance(value, (int, float, Fraction)):
        raise ValueError(f"{name} must be an int, float or Fraction, got {value!r}")
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"{name} must be finite, got {value!r}")
        # A caller who writes 0.01 means one hundredth, not the binary double
        # nearest to it, so read the float by its shortest repr.
        value = Fraction(repr(value))
    value = Fraction(value)
    if value < 0:
        raise ValueError(f"{name} must be >= 0, got {value!r}")
    return value


def compare_with_tolerance(prediction, reference, *, abs_tol, rel_tol):
    """Compare two answers with a declared absolute and relative tolerance.

    For tasks whose answers are measurements or float outputs. The verdict
    is ``True`` when ``|prediction - reference| <= max(abs_tol,
    rel_tol * |reference|)``, computed exactly with fractions. Unlike
    :func:`math.isclose` the relative tolerance is taken relative to the
    *reference* only, so the verdict does not depend on the prediction's
    size. Both tolerances are required keyword arguments: a tolerance is part
    of the task's contract and must be written down where it is used.

    Parsing is that of :func:`numeric_equivalence`: an unparseable
    prediction gives ``None``, a broken reference raises ``ValueError``, and
    so does a tolerance that is negative, not finite, or not a number.
    Float tolerances are read by their repr (``0.01`` means 1/100). This
    function never changes :func:`numeric_equivalence`, which stays exact.

    >>> compare_with_tolerance("3.14", "3.14159", abs_tol=0.01, rel_tol=0)
    True
    >>> compare_with_tolerance("101", "100", abs_tol=0, rel_tol=0.01)
    True

    Surprising: the boundary is inclusive and exact, where floats wobble
    (in floating point ``abs(1.1 - 1.0) <= 0.1`` is ``False``).

    >>> compare_with_tolerance("1.1", "1.0", abs_tol=0.1, rel_tol=0), abs(1.1 - 1.0) <= 0.1
    (True, False)
    """
    abs_tol = _as_tolerance("abs_tol", abs_tol)
    rel_tol = _as_tolerance("rel_tol", rel_tol)
    expected = parse_reference(reference)
    actual = parse_rational(prediction)
    if actual is None:
        return None
    return abs(actual - expected) <= max(abs_tol, rel_tol * abs(expected))
