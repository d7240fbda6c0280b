import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reasoneval_mini import extract_final_answer, numeric_equivalence


def test_gsm8k_reference_with_thousands_comma():
    assert extract_final_answer("She pays 1,080 in all.\n#### 1,080") == "1080"


def test_last_marker_wins():
    assert extract_final_answer("#### 12\nhmm, recheck\n#### 13") == "13"


def test_answer_is_the_rest_of_the_marker_line_only():
    assert extract_final_answer("#### 42 \nExplanation follows") == "42"


def test_no_marker_gives_none():
    assert extract_final_answer("The answer is 42") is None


def test_empty_answer_after_marker_is_empty_string_and_unparseable():
    assert extract_final_answer("####") == ""
    assert numeric_equivalence(extract_final_answer("####"), "1") is None


@pytest.mark.parametrize("text, extracted", [("#### $5", "$5"), ("#### 50%", "50%"),
                                             ("#### 5 apples", "5 apples")])
def test_only_commas_are_removed_not_units_or_symbols(text, extracted):
    assert extract_final_answer(text) == extracted
    assert numeric_equivalence(extracted, "5") is None


def test_custom_marker():
    assert extract_final_answer("Answer: 7", marker="Answer:") == "7"


@pytest.mark.parametrize("text", [None, 42, b"#### 1"])
def test_non_str_text_raises_value_error_naming_it(text):
    # The package's policy is ValueError; it stays a TypeError for older callers.
    with pytest.raises(ValueError, match="text must be a str") as raised:
        extract_final_answer(text)
    assert isinstance(raised.value, TypeError)


@pytest.mark.parametrize("marker", ["", None, 3])
def test_bad_marker_raises_naming_it(marker):
    with pytest.raises(ValueError, match="marker must be a non-empty str") as info:
        extract_final_answer("#### 1", marker=marker)
    assert repr(marker) in str(info.value)


@pytest.mark.parametrize("text", ["#### 1,2", "#### 5,0", "#### 1,5", "#### 1,0000",
                                  "#### 1234,567", "#### 0.123,456", "#### 1,000,",
                                  "#### 1,00,000", "#### 18, since 12 + 6 = 18"])
def test_a_comma_outside_a_valid_thousands_group_gives_none_not_a_guess(text):
    assert extract_final_answer(text) is None


@pytest.mark.parametrize("text, extracted", [("#### 1,000", "1000"), ("#### 12,345,678", "12345678"),
                                             ("#### -1,000.25", "-1000.25"), ("#### $2,280", "$2280"),
                                             ("#### 999", "999")])
def test_commas_of_valid_thousands_groups_are_removed(text, extracted):
    assert extract_final_answer(text) == extracted


def _is_grouped_number(text):
    # Independent oracle: split on commas; the head has 1-3 digits, every other part 3.
    head, *groups = text.split(",")
    return (1 <= len(head) <= 3 and head.isdigit() and all(len(g) == 3 and g.isdigit() for g in groups))


@given(st.text(alphabet="0123456789,", min_size=1, max_size=14))
def test_an_answer_of_digits_and_commas_is_read_exactly_when_it_is_grouped_in_threes(answer):
    extracted = extract_final_answer(f"#### {answer}")
    if "," not in answer:
        assert extracted == answer
    elif _is_grouped_number(answer):
        assert extracted == answer.replace(",", "")
    else:
        assert extracted is None


# Every character str.isspace() accepts, ASCII and Unicode.
WHITESPACE = [chr(code) for code in range(sys.maxunicode + 1) if chr(code).isspace() and chr(code) != "\n"]


@pytest.mark.parametrize("space", WHITESPACE, ids=lambda c: f"U+{ord(c):04X}")
def test_whitespace_around_the_answer_is_stripped_exactly_as_parse_rational_strips_it(space):
    # Oracle: parse_rational on the same padded text. "\n" ends the marker line, so it is left out.
    padded = f"{space}18{space}"
    assert (numeric_equivalence(extract_final_answer(f"####{padded}"), "18")
            == numeric_equivalence(padded, "18"))
