"""One policy for invalid arguments, and the checks several modules share.

Any invalid argument to a public function, a wrong type included, raises
``ValueError`` with the value shown by ``%r`` and what was expected: the
policy the core contracts document and the lessons teach. A wrong *type* is
raised as :class:`ArgumentTypeError`, which is a ``ValueError`` and also a
``TypeError``, so code written against either keeps working.

>>> positive_seconds(2, "timeout")
2.0
>>> positive_seconds(float("inf"), "timeout")
Traceback (most recent call last):
...
ValueError: timeout must be a positive, finite number of seconds, got inf

Surprising: ``True`` is an ``int`` in Python, but not a count or a duration here.

>>> positive_int(True, "workers")
Traceback (most recent call last):
...
reasoneval_mini.support.arguments.ArgumentTypeError: workers must be a positive int, got True (bool)
"""

import math


class ArgumentTypeError(ValueError, TypeError):
    """An argument of the wrong type: a ``ValueError`` by policy, a ``TypeError`` too."""


def is_number(value):
    """True for an ``int`` or ``float`` that is not a ``bool``."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def positive_seconds(value, name, *, maximum=math.inf):
    """Return *value* as a float if it is a number of seconds in (0, *maximum*].

    Raises :class:`ArgumentTypeError` for a non-number (``bool`` included)
    and ``ValueError`` for zero, a negative number, ``nan``, infinity or a
    value above *maximum*; the message names *name* and shows the value.
    """
    if not is_number(value):
        raise ArgumentTypeError(
            f"{name} must be a positive number of seconds, got {value!r} "
            f"({type(value).__name__})")
    if not (0 < value < math.inf):
        raise ValueError(f"{name} must be a positive, finite number of seconds, got {value!r}")
    if value > maximum:
        raise ValueError(f"{name} must be at most {maximum:g} seconds, got {value!r}")
    return float(value)


def positive_int(value, name, *, minimum=1):
    """Return *value* if it is an ``int`` (not a ``bool``) of at least *minimum*."""
    if type(value) is not int:
        raise ArgumentTypeError(
            f"{name} must be a positive int, got {value!r} ({type(value).__name__})")
    if value < minimum:
        raise ValueError(f"{name} must be an int >= {minimum}, got {value!r}")
    return value
