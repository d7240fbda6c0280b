import pytest

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
