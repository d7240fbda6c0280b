"""A declared normalisation step between extracting an answer and comparing it.

:func:`reasoneval_mini.answers.parse_rational` declares a narrow answer space:
``"$18"``, ``"5 kg"``, ``"\\boxed{18}"`` and ``"１８"`` all fall outside it and
score ``None``. A task may decide that some of these forms mean a number. That
decision belongs in the task's contract, named and written down, not in an
ad-hoc regex that also eats minus signs or units. :func:`normalise_answer` is
that step: the caller lists the rules it declares, and gets back the new text
together with the rules that changed it, so a report can say what was done.

The rules (:data:`RULES`, applied in this order, each at most once):

* :data:`NFKC_DIGITS`: compatibility decimal digits (full-width ``１``,
  mathematical ``𝟏``) become ASCII digits;
* :data:`UNICODE_MINUS`: U+2212 ``−`` becomes ``-``;
* :data:`MATH_DELIMITERS`: an answer wrapped in ``$…$`` or ``$$…$$`` is unwrapped;
* :data:`BOXED`: an answer that is one ``\\boxed{…}`` is unboxed;
* :data:`LATEX_FRACTION`: ``\\frac{a}{b}`` or ``\\dfrac{a}{b}`` of two integers becomes ``a/b``;
* :data:`CURRENCY`: one currency symbol or code before or after the amount is dropped;
* :data:`UNITS`: one unit from the caller's declared list after the amount is dropped;
* :data:`THOUSANDS`: commas of valid thousands groups are removed.

Every rule applies only when the *whole* answer has the rule's shape, so no
rule ever pulls a number out of a sentence, and no rule converts anything:
dropping ``cm`` does not turn centimetres into metres. No rule is on by
default. The step never compares; :func:`normalised_verdict` composes it with
extraction and :func:`reasoneval_mini.answers.numeric_equivalence`.
"""

import re
import unicodedata
from typing import NamedTuple

from reasoneval_mini.answers import (
    ASCII_WHITESPACE,
    extract_final_answer,
    numeric_equivalence,
    remove_thousands_separators,
)
from reasoneval_mini.support.arguments import ArgumentTypeError

NFKC_DIGITS = "nfkc_digits"
UNICODE_MINUS = "unicode_minus"
MATH_DELIMITERS = "math_delimiters"
BOXED = "boxed"
LATEX_FRACTION = "latex_fraction"
CURRENCY = "currency"
UNITS = "units"
THOUSANDS = "thousands"

#: Every rule, in the order :func:`normalise_answer` applies them. The order
#: is fixed here, not taken from the caller, so listing the same rules in a
#: different order can never change a verdict. Unwrapping comes before the
#: symbols inside (``$\\boxed{\\$1,000}$``), the thousands rule last.
RULES = (NFKC_DIGITS, UNICODE_MINUS, MATH_DELIMITERS, BOXED, LATEX_FRACTION,
         CURRENCY, UNITS, THOUSANDS)

#: Named rule sets, for a command line or a configuration file: ``none``
#: declares no rule (the extraction protocol alone: the raw score), ``all``
#: every rule of :data:`RULES`. :func:`declared_rules` expands them.
NO_RULES, ALL_RULES = "none", "all"
RULE_SETS = {NO_RULES: (), ALL_RULES: RULES}

#: Currency signs the :data:`CURRENCY` rule drops (``\\$`` is LaTeX's dollar).
#: The cent sign is not here: ``50¢`` is half a dollar, not 50.
CURRENCY_SYMBOLS = ("\\$", "$", "€", "£", "¥", "₹")
#: Currency codes the :data:`CURRENCY` rule drops.
CURRENCY_CODES = ("USD", "EUR", "GBP", "JPY", "INR", "CNY")


class Normalised(NamedTuple):
    """What :func:`normalise_answer` did: the new *text* and the rules that *fired*, in order."""

    text: str
    fired: tuple


def _fold_digit(char):
    # Only decimal digits (category Nd) whose NFKC form is an ASCII digit.
    # NFKC of the whole text would also turn the superscript in "10²" into
    # "102", a different number; Arabic-Indic digits have no NFKC mapping.
    if char.isascii() or unicodedata.category(char) != "Nd":
        return char
    folded = unicodedata.normalize("NFKC", char)
    return folded if len(folded) == 1 and folded in "0123456789" else char


def _nfkc_digits(text, units):
    return "".join(_fold_digit(char) for char in text)


def _unicode_minus(text, units):
    return text.replace("\u2212", "-")


# Inside, a dollar may appear only escaped (LaTeX's "\$"), so "$5$ or $6$"
# is two formulas and is left alone.
_MATH_DELIMITED = re.compile(r"\$\$((?:\\.|[^$\\])+)\$\$|\$((?:\\.|[^$\\])+)\$", re.DOTALL)


def _math_delimiters(text, units):
    match = _MATH_DELIMITED.fullmatch(text)
    if match is None:
        return text
    return (match.group(1) or match.group(2)).strip(ASCII_WHITESPACE)


_BOXED = re.compile(r"\\boxed\{(.*)\}", re.DOTALL)


def _braces_balance(text):
    depth = 0
    for char in text:
        depth += {"{": 1, "}": -1}.get(char, 0)
        if depth < 0:
            return False
    return depth == 0


def _boxed(text, units):
    match = _BOXED.fullmatch(text)
    # "\boxed{1} + \boxed{2}" also fits the pattern; its inside does not balance.
    if match is None or not _braces_balance(match.group(1)):
        return text
    return match.group(1).strip(ASCII_WHITESPACE)


_LATEX_FRACTION = re.compile(
    r"(?P<sign>[+-]?) *\\d?frac *\{ *(?P<numerator>[+-]?[0-9]+) *\} *\{ *(?P<denominator>[0-9]+) *\}"
)


def _latex_fraction(text, units):
    match = _LATEX_FRACTION.fullmatch(text)
    if match is None:
        return text
    return "{sign}{numerator}/{denominator}".format(**match.groupdict())


def _alternatives(words):
    # Longest first, so that "\$" is tried before "$".
    return "|".join(re.escape(word) for word in sorted(words, key=len, reverse=True))


# A trailing unit or code must not be the end of a longer word: with unit "m",
# "1 cm" is not "1 c" plus metres. (?<![^\W\d_]) means "not after a letter".
_NOT_AFTER_A_LETTER = r"(?<![^\W\d_])"
_MONEY = _alternatives(CURRENCY_SYMBOLS + CURRENCY_CODES)
_CURRENCY_BEFORE = re.compile(rf"(?P<sign>[+-]?) *(?:{_MONEY}) *(?P<amount>[^ ].*)", re.DOTALL)
_CURRENCY_AFTER = re.compile(rf"(?P<amount>.*[^ ]) *{_NOT_AFTER_A_LETTER}(?:{_MONEY})", re.DOTALL)


def _currency(text, units):
    match = _CURRENCY_BEFORE.fullmatch(text)
    if match is not None:
        return match.group("sign") + match.group("amount")
    match = _CURRENCY_AFTER.fullmatch(text)
    return text if match is None else match.group("amount")


def _units(text, units):
    if not units:
        return text
    match = re.fullmatch(rf"(?P<amount>.*[^ ]) *{_NOT_AFTER_A_LETTER}(?:{_alternatives(units)})",
                         text, re.DOTALL)
    return text if match is None else match.group("amount")


def _thousands(text, units):
    cleaned = remove_thousands_separators(text)
    return text if cleaned is None else cleaned


_APPLY = {
    NFKC_DIGITS: _nfkc_digits,
    UNICODE_MINUS: _unicode_minus,
    MATH_DELIMITERS: _math_delimiters,
    BOXED: _boxed,
    LATEX_FRACTION: _latex_fraction,
    CURRENCY: _currency,
    UNITS: _units,
    THOUSANDS: _thousands,
}


def _checked_rules(rules):
    if isinstance(rules, str) or not hasattr(rules, "__iter__"):
        # A bare string would be read letter by letter.
        raise ValueError(f"rules must be a collection of rule names from {RULES}, got {rules!r}")
    rules = tuple(rules)
    unknown = [rule for rule in rules if rule not in RULES]
    if unknown:
        raise ValueError(f"unknown rules {unknown!r}; the rules are {RULES}")
    return set(rules)


def _checked_units(units, rules):
    if isinstance(units, str) or not hasattr(units, "__iter__"):
        raise ValueError(f"units must be a collection of unit names such as ('kg',), got {units!r}")
    units = tuple(units)
    for unit in units:
        if (not isinstance(unit, str) or not unit or unit.strip(ASCII_WHITESPACE) != unit
                or any(char.isdigit() for char in unit)):
            raise ValueError(f"each unit must be a non-empty str without digits or outer spaces, got {unit!r}")
    if UNITS in rules and not units:
        raise ValueError(f"the {UNITS!r} rule drops only declared units: pass units=(...)")
    if units and UNITS not in rules:
        raise ValueError(f"units {units!r} are declared but the {UNITS!r} rule is not in rules")
    return units


def normalise_answer(text, rules=(), *, units=()):
    """Apply the declared *rules* to an answer text; return :class:`Normalised`.

    *rules* is a collection of names from :data:`RULES`; they are applied in
    the order of :data:`RULES`, whatever order they are listed in. *units* is
    the task's declared list of unit names for the :data:`UNITS` rule
    (required with that rule, refused without it). Surrounding ASCII
    whitespace is stripped as in
    :func:`reasoneval_mini.answers.parse_rational` when any rule fires;
    when none fires the text comes back unchanged. ``fired`` lists the rules
    that changed the text, in the order they ran.

    Raises ``ValueError`` (an ``ArgumentTypeError`` for a non-``str``
    *text*) naming the bad argument: a *text* that is not a ``str``, an
    unknown rule, *rules* or *units* given as a bare string, or a unit that
    is empty, has digits or outer spaces.

    >>> normalise_answer("$1,000", rules=[CURRENCY, THOUSANDS])
    Normalised(text='1000', fired=('currency', 'thousands'))
    >>> normalise_answer("$1,000")
    Normalised(text='$1,000', fired=())

    Each rule, with the case that surprises:

    *nfkc_digits*: full-width digits fold, but a superscript is not a digit
    (NFKC would read ``10²`` as ``102``) and Arabic-Indic digits have no
    compatibility form:

    >>> normalise_answer("１８", rules=[NFKC_DIGITS]).text
    '18'
    >>> normalise_answer("10²", rules=[NFKC_DIGITS]).text, normalise_answer("١٨", rules=[NFKC_DIGITS]).text
    ('10²', '١٨')

    *unicode_minus*: U+2212 only; a hyphen or an en dash is not a minus sign:

    >>> normalise_answer("−5", rules=[UNICODE_MINUS]).text, normalise_answer("–5", rules=[UNICODE_MINUS]).text
    ('-5', '–5')

    *math_delimiters*: ``$5$`` is mathematics, while ``$5`` is money and
    stays for the currency rule:

    >>> normalise_answer("$5$", rules=[MATH_DELIMITERS]).text, normalise_answer("$5", rules=[MATH_DELIMITERS]).text
    ('5', '$5')

    *boxed*: one box around the whole answer; two boxes are left alone,
    and what is inside is only unwrapped, never read (``1e3`` stays outside
    the answer space):

    >>> normalise_answer("\\\\boxed{18}", rules=[BOXED]).text
    '18'
    >>> normalise_answer("\\\\boxed{1} or \\\\boxed{2}", rules=[BOXED]).fired
    ()
    >>> normalise_answer("\\\\boxed{1e3}", rules=[BOXED]).text
    '1e3'

    *latex_fraction*: two integers only, and the fraction must be the whole
    answer: the mixed number ``2\\frac{1}{2}`` (five halves) would otherwise
    become ``21/2``:

    >>> normalise_answer("-\\\\dfrac{3}{4}", rules=[LATEX_FRACTION]).text
    '-3/4'
    >>> normalise_answer("2\\\\frac{1}{2}", rules=[LATEX_FRACTION]).fired
    ()

    *currency*: one sign or code, before or after; it is dropped, never
    converted, so ``€5`` and ``$5`` both become ``5``; the cent sign is
    not a currency symbol here (``50¢`` is half a dollar):

    >>> normalise_answer("-$5", rules=[CURRENCY]).text, normalise_answer("18 USD", rules=[CURRENCY]).text
    ('-5', '18')
    >>> normalise_answer("€5", rules=[CURRENCY]).text, normalise_answer("50¢", rules=[CURRENCY]).text
    ('5', '50¢')

    *units*: only the declared units, matched case-sensitively, and never
    converted: ``100 cm`` becomes ``100``, which is ``1`` only in metres.
    Declare the unit the reference is written in, and nothing else:

    >>> normalise_answer("100 cm", rules=[UNITS], units=["cm"]).text
    '100'
    >>> normalise_answer("5 g", rules=[UNITS], units=["kg"]).text, normalise_answer("1 cm", rules=[UNITS], units=["m"]).text
    ('5 g', '1 cm')

    *thousands*: valid groups only (see
    :func:`reasoneval_mini.answers.remove_thousands_separators`); ``1,2`` is
    left as it is, outside the answer space:

    >>> normalise_answer("12,345,678", rules=[THOUSANDS]).text, normalise_answer("1,2", rules=[THOUSANDS]).text
    ('12345678', '1,2')
    """
    if not isinstance(text, str):
        raise ArgumentTypeError(f"text must be a str, got {type(text).__name__}: {text!r}")
    chosen = _checked_rules(rules)
    units = _checked_units(units, chosen)
    current = text.strip(ASCII_WHITESPACE)
    fired = []
    for rule in RULES:
        if rule not in chosen:
            continue
        changed = _APPLY[rule](current, units).strip(ASCII_WHITESPACE)
        if changed != current:
            fired.append(rule)
            current = changed
    return Normalised(current if fired else text, tuple(fired))


def normalised_verdict(output, reference, *, rules=(), units=()):
    """The course's pipeline: extract, normalise with the declared *rules*, compare exactly.

    :func:`reasoneval_mini.answers.extract_final_answer` takes the answer on
    the last ``####`` line of *output*; :func:`normalise_answer` applies
    *rules* (and *units*) to it; :func:`reasoneval_mini.answers.numeric_equivalence`
    compares the result with *reference*. Returns ``True``, ``False`` or
    ``None`` (no marker, a stray comma, or an answer still outside the
    space after normalising). Raises ``ValueError`` for a broken reference,
    bad rules or units, and a non-``str`` *output*, as the three steps do.

    >>> normalised_verdict("So: $1,000.\\n#### $1,000", "1000", rules=RULES, units=["dollars"])
    True
    >>> print(normalised_verdict("#### $1,000", "1000"))
    None

    Surprising: every rule together still cannot read a comma that is not
    a thousands separator; it is not a number with separators, whatever the
    rule set.

    >>> print(normalised_verdict("#### 1,2", "12", rules=RULES, units=["apples"]))
    None
    """
    extracted = extract_final_answer(output)
    if extracted is None:
        # Check the reference and the rules anyway: a broken task must fail
        # loudly on every output, not only on the ones that have a marker.
        numeric_equivalence(None, reference)
        normalise_answer("", rules, units=units)
        return None
    return numeric_equivalence(normalise_answer(extracted, rules, units=units).text, reference)


def declared_rules(names, units=()):
    """The rules in force for *names* (rule names and :data:`RULE_SETS` names), in :data:`RULES` order.

    *names* is a collection of strings such as ``["currency", "thousands"]``
    or ``["all"]``, the way a command line gives them. *units* is the
    task's declared unit list. The ``all`` set holds :data:`UNITS` only when
    *units* declares some, since that rule drops nothing else; a
    :data:`UNITS` named on its own without *units* is an error, as are units
    declared while the :data:`UNITS` rule is not in force.

    Raises ``ValueError`` naming the bad name and the valid ones: an unknown
    name, no name at all, or ``none`` together with a rule.

    >>> declared_rules(["thousands", "currency"])
    ('currency', 'thousands')
    >>> declared_rules(["all"], units=["kg"])[-2:]
    ('units', 'thousands')

    Surprising: ``all`` without units is every rule but one, and says so by
    leaving it out.

    >>> UNITS in declared_rules(["all"]), len(declared_rules(["all"])) == len(RULES) - 1
    (False, True)
    """
    if isinstance(names, str) or not hasattr(names, "__iter__"):
        raise ValueError(f"names must be a collection of rule or rule-set names, got {names!r}")
    names = [name.strip() if isinstance(name, str) else name for name in names]
    if not names or names == [""]:
        raise ValueError(f"no rule named; give rule names from {', '.join(RULES)}, or a rule set: "
                         f"{', '.join(RULE_SETS)}")
    unknown = [name for name in names if name not in RULES and name not in RULE_SETS]
    if unknown:
        raise ValueError(f"unknown rule {', '.join(map(repr, unknown))}; the rules are "
                         f"{', '.join(RULES)}; the rule sets are {', '.join(RULE_SETS)}")
    if NO_RULES in names and len(set(names)) > 1:
        raise ValueError(f"{NO_RULES!r} declares no rule and cannot be combined with others, "
                         f"got {', '.join(names)}")
    chosen = set()
    for name in names:
        if name == ALL_RULES:
            chosen |= {rule for rule in RULES if rule != UNITS or units}
        else:
            chosen |= set(RULE_SETS.get(name, (name,)))
    if UNITS in chosen and not units:
        raise ValueError(f"the {UNITS!r} rule drops only declared units: declare the units the "
                         "references are written in (--units on the command line)")
    if units and not isinstance(units, str) and UNITS not in chosen:
        raise ValueError(f"units {', '.join(map(str, units))} are declared but the {UNITS!r} rule "
                         f"is not in force; add it to the rules (or use {ALL_RULES!r})")
    _checked_units(units, chosen)
    return tuple(rule for rule in RULES if rule in chosen)
