"""Exact final-answer equivalence over the declared answer space."""

from .parse_answer import parse_rational


def parse_reference(reference):
    """Parse a reference answer, raising ``ValueError`` if it is unusable.

    A broken reference is a bug in the data set, not a mistake of the model,
    so it must stop the scorer loudly instead of turning into a wrong answer.

    >>> parse_reference("1/2")
    Fraction(1, 2)
    >>> parse_reference("1,080")
    Traceback (most recent call last):
    ...
    ValueError: reference '1,080' is not a rational number in the declared answer space ...
    """
    if not isinstance(reference, str) or not reference.strip():
        raise ValueError(
            f"reference must be a non-empty str, got {reference!r} "
            f"({type(reference).__name__})"
        )
    value = parse_rational(reference)
    if value is None:
        raise ValueError(
            f"reference {reference!r} is not a rational number in the declared "
            "answer space (integer, decimal or a/b with ASCII digits and a "
            "non-zero denominator); fix the data set"
        )
    return value


def numeric_equivalence(prediction, reference):
    """Compare two answers as exact rational numbers.

    Returns ``True`` when both denote the same rational number, ``False``
    when they denote different ones, and ``None`` when the *prediction* is
    not a ``str`` or lies outside the declared answer space (see
    :func:`reasoneval_mini.parse_answer.parse_rational`): an unparseable
    prediction is a format failure, to be counted by the task's protocol,
    not a wrong number.

    Raises ``ValueError`` when the *reference* is not a non-empty ``str``
    holding a valid rational (zero denominators included).

    No floats, no ``eval``, no tolerance: ``"0.5001"`` is not ``"1/2"``.

    >>> numeric_equivalence("0.5", "1/2")
    True
    >>> numeric_equivalence("0.5001", "1/2")
    False
    >>> print(numeric_equivalence("100 cm", "1"))
    None

    Surprising: a float's shortest repr is not its exact value, yet the text
    "0.1" is exactly one tenth here, because decimals are read exactly.

    >>> numeric_equivalence("0.1", "1/10"), 0.1 + 0.2 == 0.3
    (True, False)
    >>> numeric_equivalence("-0", "0")
    True
    """
    expected = parse_reference(reference)
    actual = parse_rational(prediction)
    if actual is None:
        return None
    return actual == expected
