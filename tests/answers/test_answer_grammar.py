"""The declared answer space is the same on every supported Python."""

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reasoneval_mini import MAX_ANSWER_LENGTH, parse_rational

ACCEPTED = {
    "0.5": Fraction(1, 2),
    "1/2": Fraction(1, 2),
    ".5": Fraction(1, 2),
    "7.": Fraction(7),
    "+7": Fraction(7),
    "-0": Fraction(0),
    "007": Fraction(7),
    "-10/20": Fraction(-1, 2),
    "  3/4\n": Fraction(3, 4),
    "0.333333": Fraction(333333, 1000000),
    "123456789012345678901234567890.000000000000000000001": Fraction(
        123456789012345678901234567890 * 10**21 + 1, 10**21
    ),
}

# Each of these parses with fractions.Fraction on at least one supported
# Python version (or is a near miss); none of them is in our answer space.
REJECTED = [
    "3 / 4",  # Fraction: 3.12+ only
    "1_000",  # Fraction: 3.11+ only
    "1e3",  # Fraction: every version
    "1E-2",
    "١٢",  # Arabic-Indic digits: Fraction accepts them
    "１２",  # full-width digits
    "nan",
    "inf",
    "1/0",
    "0/0",
    "1/-2",
    "-1/-2",
    "1.5/2",
    "1,000",
    "$5",
    "5%",
    "100 cm",
    "½",
    "",
    "   ",
    "+",
    "-",
    ".",
    "/",
    "1/",
    "/2",
    "--1",
    "1..2",
    "\u30005",  # ideographic space is not ASCII whitespace
    "5\u00a0",
]


@pytest.mark.parametrize("text, expected", ACCEPTED.items())
def test_accepted_forms_give_their_exact_value(text, expected):
    assert parse_rational(text) == expected


@pytest.mark.parametrize("text", REJECTED)
def test_forms_outside_the_answer_space_give_none(text):
    assert parse_rational(text) is None


@pytest.mark.parametrize("value", [None, 0.5, 1, b"1/2", Fraction(1, 2)])
def test_non_strings_give_none(value):
    assert parse_rational(value) is None


def test_length_cap_is_identical_on_every_version():
    # int() would raise on > 4300 digits on 3.11+; the cap decides first.
    assert parse_rational("1" * MAX_ANSWER_LENGTH) == int("1" * MAX_ANSWER_LENGTH)
    assert parse_rational("1" * (MAX_ANSWER_LENGTH + 1)) is None
    assert parse_rational("9" * 5000) is None


ascii_digits = st.text(alphabet="0123456789", min_size=1, max_size=30)


@st.composite
def rational_texts(draw):
    sign = draw(st.sampled_from(["", "+", "-"]))
    form = draw(st.sampled_from(["int", "decimal", "fraction"]))
    if form == "int":
        body = draw(ascii_digits)
    elif form == "decimal":
        body = draw(st.one_of(st.just(""), ascii_digits)) + "." + draw(ascii_digits)
    else:
        denominator = draw(ascii_digits.filter(lambda d: int(d) != 0))
        body = draw(ascii_digits) + "/" + denominator
    return sign + body


@given(rational_texts())
def test_accepted_texts_agree_with_fraction_as_independent_oracle(text):
    # Fraction's parser agrees with ours on every form we accept, on every
    # supported version; we only refuse to follow it outside those forms.
    assert parse_rational(text) == Fraction(text)


@given(st.text(max_size=12))
def test_any_text_gives_none_or_a_fraction_that_fraction_agrees_with(text):
    value = parse_rational(text)
    if value is not None:
        assert value == Fraction(text.strip(" \t\n\r\f\v"))
