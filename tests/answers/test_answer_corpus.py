"""The labelled answer pairs: well formed, and never a false positive under any rule set."""

import itertools

import pytest

from reasoneval_mini.answers import parse_reference
from reasoneval_mini.datasets.answer_pairs import (
    ANSWER_PAIRS,
    EQUAL,
    KINDS,
    LABELS,
    LESSON_SLICE,
    NOT_EQUAL,
    answer_pairs,
)
from reasoneval_mini.normalise import RULES, UNITS, normalised_verdict

#: Every subset of the rules: 2 ** 8 = 256 rule sets, the empty one included.
RULE_SETS = [subset for size in range(len(RULES) + 1) for subset in itertools.combinations(RULES, size)]


def verdict(pair, rules):
    units = [pair.unit] if UNITS in rules else []
    return normalised_verdict(pair.output, pair.reference, rules=rules, units=units)


def test_the_corpus_is_well_formed():
    ids = [pair.pair_id for pair in ANSWER_PAIRS]
    assert len(ids) == len(set(ids)), "pair ids repeat"
    for pair in ANSWER_PAIRS:
        assert pair.label in LABELS and pair.kind in KINDS and pair.unit, pair
        parse_reference(pair.reference)  # raises for a broken reference


def test_every_failure_kind_has_both_equal_and_not_equal_pairs():
    for kind in KINDS:
        labels = {pair.label for pair in ANSWER_PAIRS if pair.kind == kind}
        assert {EQUAL, NOT_EQUAL} <= labels, kind


def test_the_lesson_slice_names_pairs_of_the_corpus():
    assert [pair.pair_id for pair in answer_pairs(LESSON_SLICE)] == list(LESSON_SLICE)


def test_there_are_256_rule_sets_and_they_are_distinct():
    assert len(RULE_SETS) == 2 ** len(RULES) == len({frozenset(s) for s in RULE_SETS})


@pytest.mark.parametrize("rules", RULE_SETS, ids=lambda rules: "+".join(rules) or "no_rules")
def test_no_not_equal_pair_is_scored_true_under_any_rule_set(rules):
    false_positives = [pair.pair_id for pair in ANSWER_PAIRS
                       if pair.label == NOT_EQUAL and verdict(pair, rules) is True]
    assert false_positives == []


@pytest.mark.parametrize("rules", RULE_SETS, ids=lambda rules: "+".join(rules) or "no_rules")
def test_adding_rules_never_turns_a_verdict_into_another_number_verdict(rules):
    # A rule may only make an unreadable answer readable: True/False from the
    # raw pipeline must survive every rule set unchanged.
    for pair in ANSWER_PAIRS:
        raw = verdict(pair, ())
        if raw is not None:
            assert verdict(pair, rules) == raw, pair.pair_id


def test_the_rules_read_the_equal_pairs_they_were_written_for():
    read_only_with_rules = sorted(
        pair.pair_id for pair in ANSWER_PAIRS
        if pair.label == EQUAL and verdict(pair, ()) is None and verdict(pair, RULES) is True)
    assert read_only_with_rules == sorted([
        "boxed-plain", "boxed-in-math", "boxed-fraction", "boxed-negative-dfrac",
        "math-fraction", "math-fraction-reduced", "math-dollars",
        "currency-dollar", "currency-latex-dollar", "currency-negative", "currency-code-after",
        "currency-code-before", "currency-thousands-cents",
        "units-declared", "units-glued", "units-word", "units-minutes-thousands", "units-percent",
        "unicode-full-width", "unicode-bold-digits", "unicode-minus",
    ])


def test_unknown_or_single_string_pair_ids_are_refused():
    with pytest.raises(ValueError, match="unknown answer pair ids \\['nope'\\]"):
        answer_pairs(["thousands-valid", "nope"])
    with pytest.raises(ValueError, match="single string"):
        answer_pairs("thousands-valid")
