"""normalise_answer: each declared rule does its one job, and nothing is on by default."""

import itertools
import sys
import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reasoneval_mini.answers import parse_rational
from reasoneval_mini.normalise import (
    BOXED,
    CURRENCY,
    LATEX_FRACTION,
    MATH_DELIMITERS,
    NFKC_DIGITS,
    RULES,
    THOUSANDS,
    UNICODE_MINUS,
    UNITS,
    Normalised,
    normalise_answer,
)


@pytest.mark.parametrize("text", ["$1,000", "\\boxed{18}", "１８", "\u22125", " 5 kg ", "1,2"])
def test_no_rule_is_on_by_default_and_the_text_comes_back_unchanged(text):
    assert normalise_answer(text) == Normalised(text, ())


@pytest.mark.parametrize("rule, text, expected", [
    (NFKC_DIGITS, "１８", "18"),
    (NFKC_DIGITS, "\U0001d7cf\U0001d7d6", "18"),
    (UNICODE_MINUS, "\u22125", "-5"),
    (MATH_DELIMITERS, "$\\frac{3}{4}$", "\\frac{3}{4}"),
    (MATH_DELIMITERS, "$$ 5 $$", "5"),
    (BOXED, "\\boxed{\\frac{1}{2}}", "\\frac{1}{2}"),
    (LATEX_FRACTION, "\\frac{3}{4}", "3/4"),
    (LATEX_FRACTION, "\\dfrac{-3}{4}", "-3/4"),
    (CURRENCY, "$18", "18"),
    (CURRENCY, "\\$18", "18"),
    (CURRENCY, "$-5", "-5"),
    (CURRENCY, "18 EUR", "18"),
    (CURRENCY, "5€", "5"),
    (THOUSANDS, "1,000.25", "1000.25"),
])
def test_each_rule_rewrites_its_own_shape_and_says_it_fired(rule, text, expected):
    assert normalise_answer(text, rules=[rule]) == Normalised(expected, (rule,))


@pytest.mark.parametrize("rule, text", [
    (NFKC_DIGITS, "10²"),                        # a superscript is not a decimal digit
    (NFKC_DIGITS, "١٨"),                         # Arabic-Indic digits have no NFKC form
    (UNICODE_MINUS, "\u20135"),                  # an en dash is not U+2212
    (MATH_DELIMITERS, "$5"),                     # money, not mathematics
    (MATH_DELIMITERS, "$5$ or $6$"),             # two formulas
    (BOXED, "\\boxed{1} or \\boxed{2}"),         # two boxes
    (BOXED, "so \\boxed{18}"),                   # a box inside a sentence
    (LATEX_FRACTION, "2\\frac{1}{2}"),           # a mixed number, five halves
    (LATEX_FRACTION, "\\frac{1+2}{3}"),          # not two integers
    (LATEX_FRACTION, "\\frac{3}{-4}"),           # the space has no signed denominator
    (CURRENCY, "50¢"),                           # the cent sign changes the value
    (CURRENCY, "$"),                             # no amount
    (THOUSANDS, "1,2"),
    (THOUSANDS, "1,00,000"),
])
def test_a_rule_leaves_alone_what_only_looks_like_its_shape(rule, text):
    assert normalise_answer(text, rules=[rule]) == Normalised(text, ())


def test_units_drops_only_a_declared_unit_and_never_converts():
    assert normalise_answer("5 kg", rules=[UNITS], units=["kg"]).text == "5"
    assert normalise_answer("5kg", rules=[UNITS], units=["kg"]).text == "5"
    assert normalise_answer("5 g", rules=[UNITS], units=["kg"]).fired == ()
    assert normalise_answer("5 KG", rules=[UNITS], units=["kg"]).fired == ()  # case matters: mg vs Mg
    assert normalise_answer("1 cm", rules=[UNITS], units=["m"]).fired == ()   # not "1 c" metres
    assert normalise_answer("500 g", rules=[UNITS], units=["g", "kg"]).text == "500"


def test_rules_run_in_the_declared_order_and_each_fires_once():
    result = normalise_answer(" $\\boxed{\\$1,000}$ ", rules=RULES, units=["kg"])
    assert result == Normalised("1000", (MATH_DELIMITERS, BOXED, CURRENCY, THOUSANDS))


def test_the_order_the_caller_lists_rules_in_does_not_matter():
    text = "$\\boxed{-\\dfrac{１}{2}}$"
    results = {normalise_answer(text, rules=order) for order in itertools.permutations(RULES[:5])}
    assert results == {Normalised("-1/2", (NFKC_DIGITS, MATH_DELIMITERS, BOXED, LATEX_FRACTION))}


@given(st.fractions(max_denominator=10**6).map(str)
       | st.decimals(allow_nan=False, allow_infinity=False, places=4).map(str)
       | st.integers().map(str))
def test_every_rule_together_leaves_the_value_of_an_answer_in_the_space_unchanged(text):
    before = parse_rational(text)
    after = parse_rational(normalise_answer(text, rules=RULES, units=["kg", "m", "%"]).text)
    assert before is None or after == before


@pytest.mark.slow  # every code point of this Python's Unicode, one call each
def test_nfkc_digits_folds_exactly_the_decimal_digits_that_have_an_ascii_form():
    # Oracle: unicodedata.decimal, over every code point of this Python's Unicode.
    for code in range(128, sys.maxunicode + 1):
        char = chr(code)
        folded = normalise_answer(char, rules=[NFKC_DIGITS]).text
        if unicodedata.category(char) == "Nd" and unicodedata.normalize("NFKC", char).isascii():
            assert folded == str(unicodedata.decimal(char)), repr(char)
        else:
            assert folded == char, repr(char)


@pytest.mark.parametrize("rules", ["currency", "thousands", None, 3])
def test_rules_must_be_a_collection_of_names_not_one_string(rules):
    with pytest.raises(ValueError, match="rules must be a collection"):
        normalise_answer("5", rules=rules)


def test_an_unknown_rule_is_named_in_the_error():
    with pytest.raises(ValueError, match="unknown rules \\['strip_everything'\\]"):
        normalise_answer("5", rules=[CURRENCY, "strip_everything"])


def test_the_units_rule_needs_declared_units_and_units_need_the_rule():
    with pytest.raises(ValueError, match="pass units="):
        normalise_answer("5 kg", rules=[UNITS])
    with pytest.raises(ValueError, match="rule is not in rules"):
        normalise_answer("5 kg", rules=[CURRENCY], units=["kg"])


@pytest.mark.parametrize("units", ["kg", ["", "kg"], [" kg"], ["m2"], [5]])
def test_a_bad_unit_list_is_refused_showing_it(units):
    with pytest.raises(ValueError, match="unit"):
        normalise_answer("5 kg", rules=[UNITS], units=units)


@pytest.mark.parametrize("text", [None, 5, b"5"])
def test_a_text_that_is_not_a_str_raises_naming_it(text):
    with pytest.raises(ValueError, match="text must be a str"):
        normalise_answer(text, rules=[CURRENCY])


def test_the_pipeline_refuses_a_broken_reference_even_when_the_output_has_no_marker():
    from reasoneval_mini.normalise import normalised_verdict

    with pytest.raises(ValueError, match="reference '1,080'"):
        normalised_verdict("The answer is 1080.", "1,080")
    with pytest.raises(ValueError, match="unknown rules"):
        normalised_verdict("The answer is 1080.", "1080", rules=["guess"])
