"""kp1_sort_disagreements: its table is what the two checkers really say, and its feedback teaches."""

import pytest

from reasoneval_mini.datasets.answer_pairs import LESSON_SLICE, answer_pairs
from reasoneval_mini.exercises.ex01_answer_equivalence import (
    DISAGREEMENTS,
    reference_disagreement_kind,
)
from reasoneval_mini.exercises.registry import run_checks
from reasoneval_mini.normalise import RULES, normalised_verdict

EXPECTED = {pair_id: reference_disagreement_kind(answer_pairs([pair_id])[0], verdict)
            for pair_id, verdict in DISAGREEMENTS}


def test_every_listed_pair_is_in_the_lesson_slice():
    assert {pair_id for pair_id, _ in DISAGREEMENTS} <= set(LESSON_SLICE)


def test_the_course_verdict_differs_from_the_recorded_math_verify_verdict_on_every_listed_pair():
    for pair_id, math_verify in DISAGREEMENTS:
        pair, = answer_pairs([pair_id])
        assert normalised_verdict(pair.output, pair.reference, rules=RULES, units=[pair.unit]) is not math_verify


def test_the_recorded_math_verify_verdicts_are_what_the_pinned_package_says():
    pytest.importorskip("math_verify", reason="math-verify is not installed (the course extra pins it)")
    from math_verify import parse, verify

    for pair_id, recorded in DISAGREEMENTS:
        pair, = answer_pairs([pair_id])
        assert bool(verify(parse(pair.reference), parse(pair.output))) is recorded, pair_id


def test_the_kinds_are_one_tolerance_three_false_positives_and_three_format_failures():
    # Independent of the reference function: read off the lesson's definitions by hand.
    assert EXPECTED == {
        "cot-negated": "false positive", "units-centimetres": "format failure",
        "precision-seventh-decimal": "tolerance", "unicode-full-width": "format failure",
        "currency-cents": "false positive", "thousands-no-break-space": "format failure",
        "precision-exponent-not-one": "false positive"}


