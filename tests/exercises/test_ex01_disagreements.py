"""kp1_sort_disagreements: its pool is what the two checkers really say, and its key is right.

The kinds live in the answer key (solutions/answer_key.py), out of the package; every
entry is checked here against the lesson's definitions, applied to the real verdicts.
"""

from fractions import Fraction

import pytest

from reasoneval_mini.answers import extract_final_answer, parse_rational
from reasoneval_mini.datasets.answer_pairs import EQUAL, NOT_EQUAL, answer_pairs
from reasoneval_mini.exercises.answer_key import answer_key
from reasoneval_mini.exercises.ex01_answer_equivalence import DISAGREEMENT_KINDS, DISAGREEMENT_POOL
from reasoneval_mini.normalise import RULES, normalised_verdict

POOL = dict(DISAGREEMENT_POOL)
#: math-verify compares after rounding to 6 decimals: half a unit of the 6th decimal.
ROUNDING = Fraction(5, 10**7)


def _course(pair):
    return normalised_verdict(pair.output, pair.reference, rules=RULES, units=[pair.unit])


def _kind_by_the_lesson(pair, math_verify):
    """Lesson 01's three kinds, read off its definitions, from the verdicts and the numbers."""
    if math_verify is True and pair.label == NOT_EQUAL:
        written = parse_rational(extract_final_answer(pair.output) or "")
        close = written is not None and abs(written - parse_rational(pair.reference)) <= ROUNDING
        return "tolerance" if close else "false positive"
    # Every other disagreement of the pool is on a pair labelled equal: a checker that
    # does not say True could not read the answer as the number it means.
    assert pair.label == EQUAL, pair.pair_id
    return "format failure"


def test_the_course_verdict_differs_from_the_recorded_math_verify_verdict_on_every_pair():
    for pair in answer_pairs(list(POOL)):
        assert _course(pair) is not POOL[pair.pair_id], pair.pair_id


def test_the_recorded_math_verify_verdicts_are_what_the_pinned_package_says():
    pytest.importorskip("math_verify", reason="math-verify is not installed (the course extra pins it)")
    from math_verify import parse, verify

    for pair in answer_pairs(list(POOL)):
        assert bool(verify(parse(pair.reference), parse(pair.output))) is POOL[pair.pair_id], \
            pair.pair_id


def test_the_pool_is_every_disagreement_of_the_corpus_that_one_checker_accepts_or_misses():
    # Left out: ambiguous pairs, and not-equal pairs both checkers reject (None vs False).
    pytest.importorskip("math_verify", reason="math-verify is not installed (the course extra pins it)")
    from math_verify import parse, verify

    expected = set()
    for pair in answer_pairs():
        verdict = bool(verify(parse(pair.reference), parse(pair.output)))
        if _course(pair) is verdict or pair.label not in (EQUAL, NOT_EQUAL):
            continue
        if pair.label == NOT_EQUAL and verdict is False:
            continue
        expected.add(pair.pair_id)
    assert set(POOL) == expected and len(DISAGREEMENT_POOL) == len(POOL)


def test_every_key_entry_is_the_kind_the_lesson_defines():
    key = answer_key().answers("kp1_sort_disagreements")
    assert set(key) == set(POOL)
    assert {pair.pair_id: _kind_by_the_lesson(pair, POOL[pair.pair_id])
            for pair in answer_pairs(list(POOL))} == key
    assert set(key.values()) == set(DISAGREEMENT_KINDS)


def test_every_key_entry_has_a_why_that_names_no_other_kind():
    key = answer_key().answers("kp1_sort_disagreements")
    why = answer_key().why("kp1_sort_disagreements")
    assert set(why) == set(key)
    for item, text in why.items():
        assert len(text) > 20, item
        assert not any(kind in text for kind in DISAGREEMENT_KINDS if kind != key[item]), item


def test_the_seven_pairs_of_the_old_exercise_keep_the_kinds_read_by_hand():
    # Independent of the rule above: read off the lesson's definitions by hand.
    key = answer_key().answers("kp1_sort_disagreements")
    assert {item: key[item] for item in (
        "cot-negated", "units-centimetres", "precision-seventh-decimal", "unicode-full-width",
        "currency-cents", "thousands-no-break-space", "precision-exponent-not-one")} == {
        "cot-negated": "false positive", "units-centimetres": "format failure",
        "precision-seventh-decimal": "tolerance", "unicode-full-width": "format failure",
        "currency-cents": "false positive", "thousands-no-break-space": "format failure",
        "precision-exponent-not-one": "false positive"}
