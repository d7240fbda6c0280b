"""Helpers behind lesson 01 (answer equivalence), checked against independent oracles."""

import re
from fractions import Fraction

import pytest

from reasoneval_mini.lessons.answer_pipelines import (
    PIPELINES,
    REALISTIC_ANSWERS,
    compare_answer_pipelines,
    gsm8k_extract_answer,
    compare_fraction_grammar,
    compare_many_answers,
    format_pipeline_table,
)
from reasoneval_mini.lessons.answer_explorer import describe_answer_verdicts, make_answer_explorer
from reasoneval_mini.support.i18n import language
from translations import widget_labels, zh

# An independent oracle for the declared space: a regex written from docs/library.md's
# description, and Fraction built from int pieces only (never Fraction(str)).
_SPACE = re.compile(r"\s*([+-]?)(?:(\d+)/(\d+)|(\d*)\.(\d+)|(\d+)\.?)\s*", re.ASCII)


def oracle_value(text):
    m = _SPACE.fullmatch(text)
    if not m:
        return None
    sign, num, den, whole, frac, integer = m.groups()
    if num is not None:
        if int(den) == 0:
            return None
        value = Fraction(int(num), int(den))
    elif frac is not None:
        value = Fraction(int(whole or "0") * 10 ** len(frac) + int(frac), 10 ** len(frac))
    else:
        value = Fraction(int(integer))
    return -value if sign == "-" else value


def oracle_gsm8k_original(text):
    # GSM8K's dataset.py, written out by hand: first "#### ", then [-]?[0-9.,]+ .
    start = text.find("#### ")
    if start < 0:
        return "[invalid]"
    rest = text[start + 5:]
    end = 1 if rest[:1] == "-" else 0
    while end < len(rest) and rest[end] in "0123456789.,":
        end += 1
    if end == 0 or rest[:end] == "-":
        # no run after the marker: GSM8K's search goes on to a later marker
        later = oracle_gsm8k_original(text[start + 5:]) if "#### " in text[start + 5:] else "[invalid]"
        return later
    return rest[:end].replace(",", "")


def oracle_gsm8k(text):
    # The course's GSM8K protocol: rest of the line after the last ####, commas removed.
    return text.split("####")[-1].split("\n")[0].replace(",", "").strip()


@pytest.mark.parametrize("prediction, reference", REALISTIC_ANSWERS)
def test_each_pipeline_matches_its_oracle(prediction, reference):
    row = compare_answer_pipelines(prediction, reference)
    assert row["exact_match"] is (prediction.strip() == reference.strip())
    assert row["course_marker"] is (oracle_gsm8k("#### " + prediction) == oracle_gsm8k("#### " + reference))
    assert row["gsm8k_regex"] is (
        oracle_gsm8k_original("#### " + prediction) == oracle_gsm8k_original("#### " + reference))
    expected = oracle_value(prediction)
    assert row["exact_rational"] == (None if expected is None else expected == oracle_value(reference))


def test_realistic_answers_show_every_kind_of_disagreement():
    rows = compare_many_answers()
    verdict_patterns = {tuple(row[name] for name in PIPELINES) for row in rows}
    assert (False, True, True, None) in verdict_patterns    # 1,000: both marker scorers say yes
    assert (False, True, False, None) in verdict_patterns   # 50%, 5 apples: only GSM8K's regex
    assert (False, False, False, True) in verdict_patterns  # 5.00: only the exact rational says yes
    assert (False, False, False, None) in verdict_patterns  # $5, 1e3, ½: unparsed
    assert (True, True, True, True) in verdict_patterns     # a plain match: all agree


def test_broken_reference_raises_and_names_it():
    with pytest.raises(ValueError, match="'1,080'"):
        compare_answer_pipelines("1080", "1,080")


def test_non_string_input_is_refused():
    with pytest.raises(ValueError, match="prediction must be a str"):
        compare_answer_pipelines(5, "5")
    with pytest.raises(ValueError, match=r"pairs\[1\]"):
        compare_many_answers([("1", "1"), ("1",)])


def test_table_has_one_line_per_row_and_every_verdict():
    rows = compare_many_answers()
    lines = format_pipeline_table(rows).splitlines()
    assert len(lines) == len(rows) + 2
    for line, row in zip(lines[2:], rows):
        assert line.split()[-len(PIPELINES):] == [str(row[name]) for name in PIPELINES]


def test_fraction_grammar_columns_match_fraction_and_the_declared_space():
    for text, from_fraction, declared in compare_fraction_grammar():
        try:
            assert from_fraction == str(Fraction(text))
        except ValueError:
            assert from_fraction == "ValueError"
        assert declared == str(oracle_value(text))


def test_describe_reports_a_broken_reference_instead_of_raising():
    assert describe_answer_verdicts("1080", "1,080").startswith("ValueError: reference '1,080'")
    with pytest.raises(ValueError):
        describe_answer_verdicts(None, "1")


def test_answer_explorer_updates_when_boxes_change():
    box = make_answer_explorer()
    assert box.verdicts.value == describe_answer_verdicts("1,000", "1000")
    box.prediction_box.value = "5.00"
    box.reference_box.value = "5"
    assert "exact_rational  True" in box.verdicts.value
    assert "exact_match     False" in box.verdicts.value
    box.reference_box.value = "five"
    assert box.verdicts.value.startswith("ValueError")


def test_answer_explorer_labels_are_in_the_language_it_is_built_in():
    assert widget_labels(make_answer_explorer()) == ["prediction", "reference"]
    with language("zh-CN"):
        chinese = make_answer_explorer()
    assert widget_labels(chinese) == [zh("prediction"), zh("reference")]


def test_verdict_plot_draws_one_labelled_cell_per_verdict():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from reasoneval_mini.lessons.answer_explorer import plot_pipeline_verdicts

    rows = compare_many_answers()
    figure = plot_pipeline_verdicts(rows)
    ax = figure.axes[0]
    assert len(ax.patches) == len(rows) * len(PIPELINES)
    labels = [t.get_text() for t in ax.texts]
    assert labels == [str(row[name]) for row in rows for name in PIPELINES]
    plt.close(figure)
    with pytest.raises(ValueError, match="empty"):
        plot_pipeline_verdicts([])


@pytest.mark.parametrize("text", [
    "#### 1,080", "#### 5 apples", "#### 50%", "#### $5", "#### 1e3", "#### 3\n#### 4",
    "no marker", "#### -7.5 dollars", "####5", "#### x\n#### 9", "#### 1/2",
])
def test_gsm8k_extraction_matches_a_hand_written_copy_of_its_regex(text):
    assert gsm8k_extract_answer(text) == oracle_gsm8k_original(text)


def test_gsm8k_regex_says_true_where_the_course_extractor_does_not():
    for prediction in ("50%", "5 apples"):
        row = compare_answer_pipelines(prediction, prediction.rstrip("% apples"))
        assert row["gsm8k_regex"] is True and row["course_marker"] is False
