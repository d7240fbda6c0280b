"""Knowledge point 1: final answers, compared exactly over a declared answer space.

Read this module top to bottom:

1. :func:`parse_rational`: the declared answer space, which strings count as
   a rational number;
2. :func:`numeric_equivalence`: exact comparison; an unparseable prediction is
   ``None`` (not ``False``), a broken reference raises ``ValueError``;
3. :func:`compare_with_tolerance`: a separate, declared contract for
   measurement-style answers;
4. :func:`extract_final_answer`: the answer on the last ``####`` line, a
   task rule and not a general cleaner; :func:`remove_thousands_separators`
   is the one comma rule it applies.

Why not ``fractions.Fraction(text)``? It is *not* a stable grammar. Across the
Python versions this course supports it changed under our feet:

* ``"3 / 4"`` parses on 3.12+ but not on 3.11;
* ``"1_000"`` parses on 3.11+ but not on 3.10;
* it accepts non-ASCII digits (``"١٢"``) and exponents (``"1e3"``)
  everywhere.

A scorer whose verdict depends on the interpreter is not a scorer, so the
course declares its own answer space and parses it without ``Fraction``'s
string parser (``Fraction`` is only used to hold the exact value).
"""

import math
import re
from fractions import Fraction

from reasoneval_mini.support.arguments import ArgumentTypeError


# Why each exclusion:
# * ASCII digits only: "١٢" or full-width "１２" are real numbers, but accepting
#   them silently is a normalisation decision the task has to declare.
# * No exponents: "1e3" is the kind of output a float printer produces; a
#   word-problem answer space rarely contains it, and accepting it would make
#   "1e3" == "1000" true on some pipelines and false on GSM8K's string match.
# * No inner spaces or underscores: those are exactly the forms whose meaning
#   changed between Python versions.
# * A length cap: int() refuses more than 4300 digits on 3.11+ (and on patched
#   3.10), so a cap keeps the verdict identical on every version.
_RATIONAL = re.compile(
    r"""
    (?P<sign>[+-]?)
    (?:
        (?P<numerator>[0-9]+)/(?P<denominator>[0-9]+)   # 3/4, -10/20
      | (?P<whole>[0-9]*)\.(?P<fraction>[0-9]+)         # 0.5, .5, -2.25
      | (?P<integer>[0-9]+)\.?                          # 7, +7, 7.
    )
    """,
    re.VERBOSE,
)

#: Longest accepted answer, in characters, after stripping whitespace.
MAX_ANSWER_LENGTH = 1000

# str.strip() with no argument also removes Unicode spaces such as U+3000;
# the declared space only forgives ASCII whitespace around the number.
ASCII_WHITESPACE = " \t\n\r\f\v"


def parse_rational(text):
    """Parse *text* in the course's declared answer space, or return ``None``.

    Accepted, after stripping surrounding ASCII whitespace, with an optional
    leading ``+`` or ``-`` and ASCII digits only:

    * integers: ``"7"``, ``"-0"``, ``"007"``, ``"7."``;
    * decimals: ``"0.5"``, ``".5"``, ``"-2.25"`` (read exactly, never as floats);
    * fractions of two integers: ``"3/4"``, ``"-10/20"``.

    Everything else is outside the space and gives ``None``: exponents,
    inner spaces or underscores, commas, units, currency or percent signs,
    non-ASCII digits, ``"nan"``/``"inf"``, a zero denominator, non-strings
    and strings longer than :data:`MAX_ANSWER_LENGTH` characters.

    >>> parse_rational(" 0.5 ")
    Fraction(1, 2)
    >>> parse_rational("-10/20") == parse_rational("-.5")
    True

    Surprising cases, identical on Python 3.10 to 3.13:

    >>> print(parse_rational("1e3"), parse_rational("3 / 4"), parse_rational("1_000"))
    None None None
    >>> print(parse_rational("١٢"), parse_rational("1/0"), parse_rational("nan"))
    None None None
    """
    if not isinstance(text, str):
        return None
    stripped = text.strip(ASCII_WHITESPACE)
    if len(stripped) > MAX_ANSWER_LENGTH:
        return None
    match = _RATIONAL.fullmatch(stripped)
    if match is None:
        return None
    parts = match.groupdict()
    if parts["denominator"] is not None:
        denominator = int(parts["denominator"])
        if denominator == 0:
            return None
        value = Fraction(int(parts["numerator"]), denominator)
    elif parts["fraction"] is not None:
        digits = parts["fraction"]
        value = int(parts["whole"] or "0") + Fraction(int(digits), 10 ** len(digits))
    else:
        value = Fraction(int(parts["integer"]))
    return -value if parts["sign"] == "-" else value


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
    if not isinstance(reference, str):
        raise ArgumentTypeError(
            f"reference must be a non-empty str, got {reference!r} "
            f"({type(reference).__name__})"
        )
    if not reference.strip():
        raise ValueError(f"reference must be a non-empty str, got {reference!r} (str)")
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
    :func:`reasoneval_mini.answers.parse_rational`): an unparseable
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


def _as_tolerance(name, value):
    # bool is an int subclass; True as a tolerance is almost surely a bug.
    if isinstance(value, bool) or not isinstance(value, (int, float, Fraction)):
        raise ArgumentTypeError(f"{name} must be an int, float or Fraction, got {value!r}")
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"{name} must be finite, got {value!r}")
    # A caller who writes 0.01 means one hundredth, not the binary double
    # nearest to it, so a float is read by its shortest repr.
    exact = Fraction(repr(value)) if isinstance(value, float) else Fraction(value)
    if exact < 0:
        raise ValueError(f"{name} must be >= 0, got {exact!r}")
    return exact


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
    absolute = _as_tolerance("abs_tol", abs_tol)
    relative = _as_tolerance("rel_tol", rel_tol)
    expected = parse_reference(reference)
    actual = parse_rational(prediction)
    if actual is None:
        return None
    return abs(actual - expected) <= max(absolute, relative * abs(expected))


# A valid thousands group: one to three digits, then one or more groups of
# exactly three, each after a comma. The lookarounds keep a group from being
# cut out of a longer run: "1234,567" (four leading digits), "1,0000" (a
# fourth digit), "0.123,456" (after a decimal point) and "1,000," (a trailing
# comma) are no groups. A decimal part may follow: "1,000.5".
_THOUSANDS_GROUPS = re.compile(r"(?<![0-9.,])[0-9]{1,3}(?:,[0-9]{3})+(?![0-9,])")


def remove_thousands_separators(text):
    """Remove the commas of valid thousands groups; ``None`` if any other comma is left.

    A comma is a thousands separator only inside a group such as ``1,000``
    or ``12,345,678`` (one to three digits, then groups of exactly three).
    Those commas are removed and nothing else changes. A comma anywhere else
    (``"1,2"``, ``"1,0000"``, a European decimal comma, a comma in a
    sentence) means the text is not a number written with separators, and
    the result is ``None`` rather than a guess. Raises ``ValueError`` (an
    :class:`~reasoneval_mini.support.arguments.ArgumentTypeError`) if *text*
    is not a ``str``.

    >>> remove_thousands_separators("12,345,678.5")
    '12345678.5'
    >>> remove_thousands_separators("$1,000 in all")
    '$1000 in all'

    Surprising: removing every comma would turn ``"1,2"`` into ``12``, and
    Indian grouping (``1,00,000``) is not a valid group here either.

    >>> print(remove_thousands_separators("1,2"), remove_thousands_separators("1,00,000"))
    None None
    """
    if not isinstance(text, str):
        raise ArgumentTypeError(f"text must be a str, got {type(text).__name__}: {text!r}")
    cleaned = _THOUSANDS_GROUPS.sub(lambda group: group.group().replace(",", ""), text)
    return None if "," in cleaned else cleaned


GSM8K_MARKER = "####"


def extract_final_answer(text, marker=GSM8K_MARKER):
    """Return the answer on the last *marker* line of *text*, or ``None``.

    The rule: find the last occurrence of *marker* (``####`` by default);
    the answer is the rest of that line, with surrounding ASCII whitespace
    stripped exactly as :func:`parse_rational` strips it, and commas removed
    only where they separate valid thousands groups
    (:func:`remove_thousands_separators`). GSM8K's own scripts use other
    rules (lesson 05 compares them).

    Returns ``None`` when the marker does not occur at all, and when the
    answer holds a comma that is not a thousands separator: ``"1,2"`` is
    not twelve, and guessing would be a false positive. An empty answer
    after the marker is returned as ``""``, left for the equivalence check
    to reject. Nothing else is removed: ``$``, ``%``, units and Unicode
    spaces stay, so ``"#### $5"`` is still outside the numeric answer
    space. Widening the space is a separate, declared step
    (:func:`reasoneval_mini.normalise.normalise_answer`).

    Raises :class:`~reasoneval_mini.support.arguments.ArgumentTypeError` (a
    ``ValueError`` and a ``TypeError``) if *text* is not a ``str``, and
    ``ValueError`` if *marker* is not a non-empty ``str``.

    >>> extract_final_answer("6 * 180 = 1,080 minutes\\n#### 1,080")
    '1080'

    Extraction and equivalence compose: extract from both sides, then compare.

    >>> from reasoneval_mini import numeric_equivalence
    >>> numeric_equivalence(extract_final_answer("so #### 1080.0"),
    ...                     extract_final_answer("#### 1,080"))
    True

    Surprising: the last marker wins, a comma outside a thousands group
    makes the answer unreadable, and a Unicode space is not stripped.

    >>> extract_final_answer("#### 3 wait, no.\\n#### 4")
    '4'
    >>> print(extract_final_answer("#### 1,2"), extract_final_answer("The answer is 42."))
    None None
    >>> extract_final_answer("#### \\u300018")
    '\\u300018'
    """
    if not isinstance(text, str):
        raise ArgumentTypeError(f"text must be a str, got {type(text).__name__}: {text!r}")
    if not isinstance(marker, str) or not marker:
        raise ValueError(f"marker must be a non-empty str, got {marker!r}")
    before, found, after = text.rpartition(marker)
    if not found:
        return None
    line = after.split("\n", 1)[0]
    return remove_thousands_separators(line.strip(ASCII_WHITESPACE))
