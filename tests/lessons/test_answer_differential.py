"""Lesson 01's differential: the course's pipeline side by side, and against math-verify."""

import pytest

from reasoneval_mini.datasets.answer_pairs import EQUAL, LESSON_SLICE, NOT_EQUAL, answer_pairs
from reasoneval_mini.lessons.answer_differential import (
    compare_raw_and_normalised,
    course_verdict,
    differential,
    math_verify_available,
    shown_output,
    summarise_verdicts,
    verdicts_in_fresh_processes,
)
from reasoneval_mini.normalise import RULES

needs_math_verify = pytest.mark.skipif(not math_verify_available(),
                                       reason="math-verify is not installed (the course extra pins it)")


def test_the_side_by_side_counts_match_a_direct_count_over_the_corpus():
    pairs = answer_pairs()
    summaries = compare_raw_and_normalised(pairs)
    for name, rules in (("raw", ()), ("normalised", RULES)):
        verdicts = [course_verdict(pair, rules) for pair in pairs]
        assert summaries[name] == {
            "pairs": len(pairs),
            "accuracy": verdicts.count(True) / len(pairs),
            "none_rate": verdicts.count(None) / len(pairs),
            "false_positives": sum(v is True and p.label == NOT_EQUAL for v, p in zip(verdicts, pairs)),
            "missed": sum(v is not True and p.label == EQUAL for v, p in zip(verdicts, pairs)),
        }


def test_normalising_the_lesson_slice_raises_accuracy_and_lowers_the_none_rate_without_false_positives():
    summaries = compare_raw_and_normalised(answer_pairs(LESSON_SLICE))
    assert summaries["raw"]["pairs"] == summaries["normalised"]["pairs"] == 18
    assert (round(summaries["raw"]["accuracy"] * 18), round(summaries["normalised"]["accuracy"] * 18)) == (2, 7)
    assert (round(summaries["raw"]["none_rate"] * 18), round(summaries["normalised"]["none_rate"] * 18)) == (15, 10)
    assert summaries["raw"]["false_positives"] == summaries["normalised"]["false_positives"] == 0


def test_summaries_refuse_an_empty_list_and_a_verdict_that_is_not_one():
    with pytest.raises(ValueError, match="rows is empty"):
        summarise_verdicts([])
    with pytest.raises(ValueError, match="expected True, False or None"):
        summarise_verdicts([{"label": EQUAL, "verdict": 1}])


def test_the_course_scores_the_slice_identically_in_two_fresh_processes_and_in_this_one():
    first, second = verdicts_in_fresh_processes("course", LESSON_SLICE, runs=2)
    assert first == second == [course_verdict(pair) for pair in answer_pairs(LESSON_SLICE)]


@pytest.mark.parametrize("checker, runs", [("sympy", 2), ("course", 0), ("course", True)])
def test_fresh_process_scoring_refuses_a_bad_checker_or_run_count(checker, runs):
    with pytest.raises(ValueError, match="checker must be|runs must be"):
        verdicts_in_fresh_processes(checker, LESSON_SLICE, runs=runs)


@needs_math_verify
def test_math_verify_takes_the_documented_false_positives_of_the_slice():
    rows = {row["pair_id"]: row for row in differential(answer_pairs(LESSON_SLICE))}
    taken = sorted(pair_id for pair_id, row in rows.items()
                   if row["math_verify"] is True and row["label"] == NOT_EQUAL)
    assert taken == ["cot-negated", "currency-cents", "precision-exponent-not-one",
                     "precision-seventh-decimal"]
    assert not any(row["course"] is True and row["label"] == NOT_EQUAL for row in rows.values())


@needs_math_verify
def test_math_verify_rounding_is_reproduced_by_a_declared_tolerance():
    from reasoneval_mini.answers import compare_with_tolerance
    from reasoneval_mini.lessons.answer_differential import math_verify_verdict

    assert math_verify_verdict("0.5000001", "1/2") is True
    assert compare_with_tolerance("0.5000001", "1/2", abs_tol=5e-7, rel_tol=0) is True
    assert compare_with_tolerance("0.5000001", "1/2", abs_tol=0, rel_tol=0) is False


def _lesson_01_markdown():
    import json
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "notebooks" / "01_answer_equivalence.ipynb"
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown").replace("\n> ", " ")


def test_the_lesson_s_claim_that_rules_more_than_triple_the_slice_s_accuracy_holds():
    summaries = compare_raw_and_normalised(answer_pairs(LESSON_SLICE))
    assert summaries["normalised"]["accuracy"] > 3 * summaries["raw"]["accuracy"]
    assert "more than triples the slice's accuracy" in _lesson_01_markdown().replace("\n", " ")


@needs_math_verify
def test_the_lesson_s_challenge_numbers_are_what_the_two_checkers_give_on_the_slice():
    rows = differential(answer_pairs(LESSON_SLICE))
    course = summarise_verdicts(rows, key="course")
    peer = summarise_verdicts(rows, key="math_verify")
    assert (round(peer["accuracy"] * 100), round(course["accuracy"] * 100)) == (50, 39)
    assert (sum(row["math_verify"] is True for row in rows), peer["false_positives"]) == (9, 4)
    assert (sum(row["course"] is True for row in rows), course["false_positives"]) == (7, 0)
    text = " ".join(_lesson_01_markdown().split())
    assert "math-verify accuracy 50%, our pipeline 39%" in text
    assert "four of math-verify's nine" in text and "against none of the course's seven" in text


def test_shown_output_is_ascii_keeps_ascii_text_as_written_and_escapes_each_look_alike():
    for pair in answer_pairs():
        shown = shown_output(pair.output)
        assert shown.isascii(), pair.pair_id
        if pair.output.isascii() and pair.output.isprintable():
            assert shown == pair.output, pair.pair_id  # a LaTeX backslash is not doubled
    # Each look-alike differs from the ASCII text it imitates, and reads back as itself.
    for look_alike, plain in (("\uff11\uff18", "18"), ("\u22125", "-5"), ("1\u00a0000", "1 000")):
        assert shown_output(look_alike) != plain
        assert shown_output(look_alike).encode("ascii").decode("unicode_escape") == look_alike
