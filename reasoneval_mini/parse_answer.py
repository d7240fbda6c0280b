"""The declared answer space: which strings count as a rational number.

``fractions.Fraction(text)`` is *not* a stable grammar. Across the Python
versions this course supports it changed under our feet:

* ``"3 / 4"`` parses on 3.12+ but not on 3.11;
* ``"1_000"`` parses on 3.11+ but not on 3.10;
* it accepts non-ASCII digits (``"١٢"``) and exponents (``"1e3"``)
  everywhere.

A scorer whose verdict depends on the interpreter is not a scorer, so the
course declares its own answer space and parses it without ``Fraction``'s
string parser (``Fraction`` is only used to hold the exact value).
"""

import re
from fractions import Fraction

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
_ASCII_WHITESPACE = " \t\n\r\f\v"


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
    stripped = text.strip(_ASCII_WHITESPACE)
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
