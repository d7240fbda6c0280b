"""The course's word problems: well-formed data, and scoring agrees with a human."""

import copy
import sys
from collections import Counter
from fractions import Fraction
from pathlib import Path

import pytest

from reasoneval_mini.datasets.word_problems import check_word_problems, load_word_problems
from reasoneval_mini.lessons.answer_pipelines import count_verdicts, score_final_answers

ROOT = Path(__file__).resolve().parents[2]

REQUIRED_STYLES = {
    "correct", "correct_with_commas", "dollar_prefix", "units", "no_marker",
    "wrong_number", "fraction_vs_decimal", "multiple_markers",
}


@pytest.fixture(scope="module")
def problems():
    return load_word_problems()


def test_there_are_about_eight_problems_with_unique_ids(problems):
    ids = [p["id"] for p in problems]
    assert 8 <= len(ids) <= 12
    assert len(set(ids)) == len(ids)


def test_every_solution_ends_with_a_gsm8k_answer_line(problems):
    for problem in problems:
        assert problem["solution"].splitlines()[-1].startswith("#### "), problem["id"]


def test_some_references_use_thousands_commas(problems):
    last_lines = [p["solution"].splitlines()[-1] for p in problems]
    assert sum("," in line for line in last_lines) >= 2


def test_every_required_output_style_occurs(problems):
    styles = {output["style"] for p in problems for output in p["outputs"]}
    assert REQUIRED_STYLES <= styles


def test_all_three_verdicts_are_represented_by_the_hand_labels(problems):
    labels = Counter(output["hand_label"] for p in problems for output in p["outputs"])
    assert labels[True] >= 5 and labels[False] >= 5 and labels[None] >= 5


def test_verdict_matches_the_human_label_for_every_output(problems):
    # The hand labels were written by a person reading each output under the
    # declared protocol; they are the oracle, not a copy of the code's result.
    for row in score_final_answers(problems):
        assert row["verdict"] is row["hand_label"], row


def test_string_match_is_gsm8k_text_equality_after_dropping_commas(problems):
    for row in score_final_answers(problems):
        if row["extracted"] is None:
            assert row["string_match"] is False
        else:
            assert row["string_match"] == (row["extracted"] == row["reference"])


def test_string_match_misses_equal_numbers_that_exact_comparison_finds(problems):
    rows = score_final_answers(problems)
    disagreements = [r for r in rows if r["verdict"] is True and not r["string_match"]]
    for row in disagreements:  # checked independently with Fraction
        assert Fraction(row["extracted"]) == Fraction(row["reference"])
    assert {r["style"] for r in disagreements} >= {"fraction_vs_decimal", "trailing_zeros"}


def test_count_verdicts_adds_up_to_the_hand_label_tally(problems):
    rows = score_final_answers(problems)
    labels = Counter(row["hand_label"] for row in rows)
    assert count_verdicts(rows) == {
        "correct": labels[True], "wrong": labels[False], "format_failure": labels[None],
    }


def test_count_verdicts_refuses_a_number_posing_as_a_verdict():
    with pytest.raises(ValueError, match="rows\\[1\\] has verdict 1"):
        count_verdicts([{"verdict": True}, {"verdict": 1}])


def broken(problems, change):
    problems = copy.deepcopy(problems)
    change(problems)
    return problems


@pytest.mark.parametrize("change, message", [
    (lambda ps: ps[0].update(solution="so 1000"), "no '####' answer line"),
    (lambda ps: ps[0].update(solution="#### 1 000"), "not a rational number"),
    (lambda ps: ps[1].update(id=ps[0]["id"]), "repeats id"),
    (lambda ps: ps[2]["outputs"][0].update(hand_label="yes"), "hand_label must be"),
    (lambda ps: ps[2]["outputs"][0].pop("text"), "outputs\\[0\\] must be a dict"),
    (lambda ps: ps[3].pop("question"), "problems\\[3\\] must be a dict"),
])
def test_malformed_data_is_refused_with_a_named_error(problems, change, message):
    with pytest.raises(ValueError, match=message):
        check_word_problems(broken(problems, change))


@pytest.mark.skipif(sys.version_info < (3, 11), reason="tomllib needs Python 3.11+")
def test_the_data_file_is_declared_as_package_data():
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    import fnmatch

    patterns = config["tool"]["setuptools"]["package-data"]["reasoneval_mini.datasets"]
    data_file = ROOT / "reasoneval_mini" / "datasets" / "word_problems.json"
    assert data_file.is_file()
    assert any(fnmatch.fnmatch(data_file.name, pattern) for pattern in patterns)
