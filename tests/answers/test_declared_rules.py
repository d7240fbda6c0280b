"""declared_rules: rule names and the named rule sets, as a command line gives them, checked and ordered."""

import itertools

import pytest

from reasoneval_mini.normalise import ALL_RULES, NO_RULES, RULE_SETS, RULES, UNITS, declared_rules

SUBSETS = [subset for size in range(1, len(RULES) + 1)
           for subset in itertools.combinations(RULES, size)]


@pytest.mark.parametrize("subset", SUBSETS, ids=",".join)
def test_every_rule_subset_comes_back_in_the_fixed_order_whatever_the_order_listed(subset):
    units = ["kg"] if UNITS in subset else []
    assert declared_rules(list(reversed(subset)), units) == subset
    assert declared_rules(list(subset) + list(subset), units) == subset  # a repeat is harmless


def test_the_rule_set_all_is_every_rule_and_units_only_with_declared_units():
    assert declared_rules([ALL_RULES], units=["kg"]) == RULES == RULE_SETS[ALL_RULES]
    assert declared_rules([ALL_RULES]) == tuple(rule for rule in RULES if rule != UNITS)


def test_the_rule_set_none_declares_nothing_and_cannot_be_combined():
    assert declared_rules([NO_RULES]) == ()
    with pytest.raises(ValueError, match="'none' declares no rule and cannot be combined"):
        declared_rules([NO_RULES, "currency"])


@pytest.mark.parametrize("names, message", [
    (["currency", "dollars"], "unknown rule 'dollars'; the rules are nfkc_digits, "),
    ([""], "no rule named; give rule names from"),
    ([], "no rule named"),
    ("currency", "names must be a collection"),
    ([UNITS], "the 'units' rule drops only declared units"),
])
def test_a_bad_name_is_refused_naming_it_and_the_valid_ones(names, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(")):
        declared_rules(names)


def test_units_declared_without_the_units_rule_are_refused():
    with pytest.raises(ValueError, match="units kg are declared but the 'units' rule is not in force"):
        declared_rules(["currency"], units=["kg"])
