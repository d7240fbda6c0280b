"""Issue 23 for exercises 2.1-2.5 of ex02: each test plays a student who tries to game the grade.

The students: one who delegates to the library (or to the exercise module's own
reference), one who harvests every (input, expected) pair that ``check()`` shows and
hands in a lookup table, one who hands in a classmate's table, one per misconception of
the page that the exercise is about (k > n clipped; samples pooled across problems), and
two honest ones: the master's solution, which must earn full marks on every identity of
:data:`~assessment_play.IDENTITIES` in ``check()`` and in the grader's score (hidden
checks included), and the untouched stub, which earns 0 and is "not attempted".

Expected values are recomputed here from independent references: enumeration with
:func:`itertools.combinations`, :func:`math.comb` with :class:`fractions.Fraction`.
Answers are taken from the notebooks themselves (the master's solution cells, the
learner copy's stubs), as a learner's kernel defines them.
"""

import itertools
import json
import math
from fractions import Fraction
from pathlib import Path

import pytest

import reasoneval_mini
from assessment_play import IDENTITIES, TEST_KEY, check_results, grade_score
from reasoneval_mini.exercises import ex02_pass_at_k as ex02
from reasoneval_mini.exercises.registry import (
    STATE_NOT_ATTEMPTED, exercise_state, get_exercise, run_checks)
from reasoneval_mini.exercises.variants import Variant
from reasoneval_mini.feedback import format_report

# The notebooks beside the package under test, so that this file tests the tree it runs in.
ROOT = Path(reasoneval_mini.__file__).resolve().parents[1]
NOTEBOOK = "ex02_pass_at_k.ipynb"
IDS = ("kp2_two_subsets", "kp2_pass_at_k_by_subsets", "kp2_exact_pass_at_k",
       "kp2_average_pass_at_k", "kp2_better_run")


def _defined(folder):
    """The functions the setup cell and the answer cells of *folder*'s ex02 define."""
    cells = json.loads((ROOT / folder / NOTEBOOK).read_text(encoding="utf-8"))["cells"]
    namespace = {"__name__": "__main__"}
    for cell in cells:
        grade_id = cell["metadata"].get("nbgrader", {}).get("grade_id", "")
        if cell["cell_type"] == "code" and (grade_id.endswith("_setup") or grade_id in IDS):
            exec(compile("".join(cell["source"]), f"<{folder} {grade_id}>", "exec"), namespace)
    return namespace


SOLUTIONS = _defined("solutions")
STUBS = _defined("exercises")


def _answer(namespace, exercise_id):
    return namespace[get_exercise(exercise_id).answer_name]


def _points(exercise_id):
    return get_exercise(exercise_id).points


# --- independent references ----------------------------------------------------------------

def _pairs_by_loops(n):
    return {frozenset((i, j)) for i in range(n) for j in range(i + 1, n)}


def _by_enumeration(outcomes, k):
    subsets = list(itertools.combinations(outcomes, k))
    return Fraction(sum(any(subset) for subset in subsets), len(subsets))


def _by_comb(n, c, k):
    return 1 - Fraction(math.comb(n - c, k), math.comb(n, k))


def _mean_by_comb(counts, k):
    return sum(_by_comb(n, c, k) for n, c in counts.values()) / len(counts)


# --- the honest students ----------------------------------------------------------------------

@pytest.mark.parametrize("exercise_id", IDS)
def test_the_solution_earns_full_marks_on_every_identity_in_check_and_in_grade(exercise_id):
    answer = _answer(SOLUTIONS, exercise_id)
    assert len(IDENTITIES) >= 50
    for identity in IDENTITIES:
        variant = Variant(identity, key=TEST_KEY)
        # The grader's score rests on hidden checks: without them a table would pass.
        assert len(get_exercise(exercise_id).hidden_checks(variant)) >= 2
        shown = check_results(exercise_id, answer, identity)
        assert [r.message for r in shown if not r.passed] == [], identity
        assert grade_score(exercise_id, answer, identity) == _points(exercise_id), identity


@pytest.mark.parametrize("exercise_id", IDS)
def test_the_untouched_stub_earns_nothing_and_is_not_attempted(exercise_id):
    stub = _answer(STUBS, exercise_id)
    for identity in IDENTITIES[:10]:
        results = run_checks(exercise_id, stub, variant=Variant(identity, key=TEST_KEY),
                             hidden=True)
        assert len(results) > len(check_results(exercise_id, stub, identity))  # hidden ran
        assert exercise_state(results) == STATE_NOT_ATTEMPTED
        assert grade_score(exercise_id, stub, identity) == 0


INDEPENDENT = {
    "kp2_two_subsets": lambda n: sorted(tuple(sorted(pair)) for pair in _pairs_by_loops(n)),
    "kp2_pass_at_k_by_subsets": _by_enumeration,
    "kp2_exact_pass_at_k": lambda n, c, k: _exact_by_hand(n, c, k),
    "kp2_average_pass_at_k": lambda counts, k: (_validated(counts, k),
                                                float(_mean_by_comb(counts, k)))[1],
}


@pytest.mark.parametrize("exercise_id", list(INDEPENDENT))
def test_answers_built_from_independent_references_earn_full_marks_on_every_identity(exercise_id):
    # The checks' expected values (public and hidden) agree with nested loops, enumeration
    # with itertools.combinations, and math.comb with fractions.
    for identity in IDENTITIES:
        assert grade_score(exercise_id, INDEPENDENT[exercise_id], identity) == _points(
            exercise_id), identity


# --- the student who imports the answer or delegates it -----------------------------------------

def _delegated_everywhere(exercise_id, answer, function):
    for identity in IDENTITIES[:8]:
        shown = check_results(exercise_id, answer, identity)
        assert any(r.delegated == function for r in shown), identity
        assert function in format_report(get_exercise(exercise_id), shown, answer)
        assert grade_score(exercise_id, answer, identity) == 0


def test_two_subsets_no_expected_set_of_pairs_can_be_imported_from_the_module():
    # On main, ex02 held the ten expected pairs as module data (_TEN_PAIRS).
    for identity in IDENTITIES[:8]:
        n = get_exercise("kp2_two_subsets").data(Variant(identity))["n"]
        for wanted in (_pairs_by_loops(ex02.WORKED_N if hasattr(ex02, "WORKED_N") else 5),
                       _pairs_by_loops(n)):
            assert not [name for name, value in vars(ex02).items() if value == wanted]


def test_pass_at_k_by_subsets_delegating_to_the_library_enumeration_earns_nothing():
    from reasoneval_mini import pass_at_k_by_enumeration
    _delegated_everywhere("kp2_pass_at_k_by_subsets", lambda outcomes, k: pass_at_k_by_enumeration(
        outcomes, k), "reasoneval_mini.estimators.pass_at_k_by_enumeration")


def test_pass_at_k_by_subsets_through_pass_at_k_and_limit_denominator_earns_nothing():
    from reasoneval_mini import pass_at_k

    def rounded(outcomes, k):
        return Fraction(pass_at_k(len(outcomes), sum(outcomes), k)).limit_denominator(10**6)
    _delegated_everywhere("kp2_pass_at_k_by_subsets", rounded, "reasoneval_mini.estimators.pass_at_k")


def test_exact_pass_at_k_calling_the_exercise_modules_reference_earns_nothing():
    # On main the reference was public: ex02.exact_pass_at_k_reference.
    reference = getattr(ex02, "_exact_pass_at_k", None) or ex02.exact_pass_at_k_reference

    def imported(n, c, k):
        if not 1 <= k <= n:
            raise ValueError(f"k={k}")
        if not 0 <= c <= n:
            raise ValueError(f"c={c}")
        return reference(n, c, k)
    _delegated_everywhere("kp2_exact_pass_at_k", imported,
                          f"{ex02.__name__}._exact_pass_at_k")


def test_exact_pass_at_k_calling_the_library_estimator_earns_nothing_but_math_comb_is_allowed():
    from reasoneval_mini import pass_at_k

    def library(n, c, k):
        if not 1 <= k <= n:
            raise ValueError(f"k={k}")
        if not 0 <= c <= n:
            raise ValueError(f"c={c}")
        pass_at_k(n, c, k)
        return 1 - Fraction(math.comb(n - c, k), math.comb(n, k))
    _delegated_everywhere("kp2_exact_pass_at_k", library, "reasoneval_mini.estimators.pass_at_k")

    def with_comb(n, c, k):
        if not 1 <= k <= n:
            raise ValueError(f"k={k}")
        if not 0 <= c <= n:
            raise ValueError(f"c={c}")
        return 1 - Fraction(math.comb(n - c, k), math.comb(n, k))
    for identity in IDENTITIES[:8]:
        assert grade_score("kp2_exact_pass_at_k", with_comb, identity) == 3


def test_average_pass_at_k_delegating_to_mean_pass_at_k_or_the_interval_earns_nothing():
    from reasoneval_mini import mean_pass_at_k, pass_at_k_interval
    _delegated_everywhere("kp2_average_pass_at_k", mean_pass_at_k,
                          "reasoneval_mini.estimators.mean_pass_at_k")

    def through_interval(counts, k):
        if len(counts) == 1:
            (n, c), = counts.values()
            return mean_pass_at_k({"only": (n, c)}, k)
        return pass_at_k_interval(counts, k).estimate
    _delegated_everywhere("kp2_average_pass_at_k", through_interval,
                          "reasoneval_mini.estimators.pass_at_k_interval")


def test_better_run_calling_the_exercise_modules_reference_earns_nothing():
    reference = getattr(ex02, "_rank_report", None) or ex02.reference_better_run

    def imported(run_a, run_b):
        for key in ("k", "temperature", "tests", "estimator"):
            if run_a.get(key) != run_b.get(key):
                raise ValueError(f"budgets differ in {key}")
        if run_a["n"] != run_b["n"] and run_a.get("estimator") == "plug-in":
            raise ValueError("plug-in runs: n differs")
        return reference(run_a, run_b)
    _delegated_everywhere("kp2_better_run", imported, f"{ex02.__name__}._rank_report")


# --- the student who harvests check() into a lookup table, and the classmate who copies it -------

def _key(args):
    return repr(args)


def _harvest(exercise_id, identity):
    """``{call: (value or None, error or None)}`` for every call check() makes on *identity*."""
    solution, table = _answer(SOLUTIONS, exercise_id), {}

    def recording(*args):
        try:
            value = solution(*args)
        except ValueError as error:
            table[_key(args)] = (None, error)
            raise
        table[_key(args)] = (value, None)
        return value
    assert all(r.passed for r in check_results(exercise_id, recording, identity))
    return table


def _table_answer(table):
    def looked_up(*args):
        value, error = table[_key(args)]  # KeyError on an input check() never showed
        if error is not None:
            raise error
        return value
    return looked_up


@pytest.mark.parametrize("exercise_id", IDS)
def test_a_lookup_table_harvested_from_check_passes_check_and_earns_nothing(exercise_id):
    for identity in IDENTITIES[:12]:
        table = _table_answer(_harvest(exercise_id, identity))
        assert all(r.passed for r in check_results(exercise_id, table, identity))
        assert grade_score(exercise_id, table, identity) == 0, identity


@pytest.mark.parametrize("exercise_id", IDS)
def test_a_classmates_lookup_table_fails_your_own_checks(exercise_id):
    exercise = get_exercise(exercise_id)
    ada, bob = Variant("ada"), Variant("bob")
    assert exercise.data(ada) != exercise.data(bob)
    adas = _table_answer(_harvest(exercise_id, "ada"))
    assert not all(r.passed for r in check_results(exercise_id, adas, "bob"))
    assert grade_score(exercise_id, adas, "bob") == 0
    # Two students rarely get the same inputs.
    draws = {repr(exercise.data(Variant(identity))) for identity in IDENTITIES}
    assert len(draws) >= 0.75 * len(IDENTITIES)


# --- the page's distinctions: k > n refused vs clipped, per problem then the mean -------------

def _exact_by_hand(n, c, k, *, when_k_above_n=None):
    if k > n and when_k_above_n is not None:
        return when_k_above_n(n, c, k)
    if not 1 <= k <= n:
        raise ValueError(f"k must be in 1..n={n}, got k={k}")
    if not 0 <= c <= n:
        raise ValueError(f"c must be in 0..n={n}, got c={c}")
    return _by_comb(n, c, k)


def _at_most_a_third_everywhere(exercise_id, answer):
    for identity in IDENTITIES:
        shown = check_results(exercise_id, answer, identity)
        assert any(not r.passed and r.distinction for r in shown), identity
        assert grade_score(exercise_id, answer, identity) <= Fraction(_points(exercise_id), 3), identity


@pytest.mark.parametrize("clip", [
    lambda n, c, k: Fraction(1),                                       # k > n: "certainly passes"
    lambda n, c, k: Fraction(1) if c else Fraction(0),                 # k clipped to n
], ids=["clipped to 1", "k clipped to n"])
def test_exact_pass_at_k_clipping_k_above_n_earns_at_most_a_third_on_every_variant(clip):
    # On main, clipping to 1 kept 2.25 of 3.
    _at_most_a_third_everywhere("kp2_exact_pass_at_k",
                                lambda n, c, k: _exact_by_hand(n, c, k, when_k_above_n=clip))


def _validated(counts, k):
    from reasoneval_mini import pass_at_k
    for n, c in counts.values():
        pass_at_k(n, c, k)  # refuses a problem with n < k, as the statement asks


def _pooled_after_validating(counts, k):
    from reasoneval_mini import pass_at_k
    _validated(counts, k)
    return pass_at_k(sum(n for n, _ in counts.values()), sum(c for _, c in counts.values()), k)


def _weighted_by_n(counts, k):
    from reasoneval_mini import pass_at_k
    _validated(counts, k)
    return (sum(n * pass_at_k(n, c, k) for n, c in counts.values())
            / sum(n for n, _ in counts.values()))


def _skips_n_below_k(counts, k):
    from reasoneval_mini import pass_at_k
    kept = [pass_at_k(n, c, k) for n, c in counts.values() if n >= k]
    return sum(kept) / len(kept)


@pytest.mark.parametrize("answer", [_pooled_after_validating, _weighted_by_n, _skips_n_below_k],
                         ids=["samples pooled", "problems weighted by n", "n < k skipped"])
def test_average_pass_at_k_pooling_or_skipping_earns_at_most_a_third_on_every_variant(answer):
    _at_most_a_third_everywhere("kp2_average_pass_at_k", answer)


def test_average_pass_at_k_inputs_tell_pooling_from_the_mean_on_every_variant():
    # Fractions: the per-problem mean differs from the pooled value on every value check.
    for identity in IDENTITIES:
        for counts, k in get_exercise("kp2_average_pass_at_k").data(Variant(identity))["valid"]:
            pooled = _by_comb(sum(n for n, _ in counts.values()),
                              sum(c for _, c in counts.values()), k)
            assert pooled != _mean_by_comb(counts, k)
            assert len({n for n, _ in counts.values()}) == len(counts) >= 2


# --- kp2_better_run: both readings of n earn full marks; the budgets must be reported -------------

def _ranks(run_a, run_b, *, refuse_n=False, plug_in_n=True, report=True):
    for key in ("k", "temperature", "tests", "estimator"):
        if run_a[key] != run_b[key]:
            raise ValueError(f"cannot rank: the runs differ in {key}")
    if run_a["n"] != run_b["n"] and (refuse_n or (plug_in_n and run_a["estimator"] == "plug-in")):
        raise ValueError(f"cannot rank: n differs ({run_a['n']} vs {run_b['n']})")
    better = (None if run_a["pass_at_k"] == run_b["pass_at_k"]
              else max(run_a, run_b, key=lambda run: run["pass_at_k"])["model"])
    if not report:
        return better
    return {"better": better, "k": run_a["k"], "temperature": run_a["temperature"],
            "tests": run_a["tests"], "estimator": run_a["estimator"],
            "n": {run_a["model"]: run_a["n"], run_b["model"]: run_b["n"]}}


def test_better_run_the_pages_reader_who_refuses_any_other_n_earns_full_marks():
    # Issue 25: on main, following the page (不同n) earned half the points.
    for identity in IDENTITIES:
        assert grade_score("kp2_better_run", lambda a, b: _ranks(a, b, refuse_n=True),
                           identity) == 3, identity


def test_better_run_the_lessons_reader_who_ranks_unbiased_runs_across_n_earns_full_marks():
    for identity in IDENTITIES:
        assert grade_score("kp2_better_run", _ranks, identity) == 3, identity


@pytest.mark.parametrize("what, answer", [
    ("plug-in runs ranked across n", lambda a, b: _ranks(a, b, plug_in_n=False)),
    ("the winner without the budgets", lambda a, b: _ranks(a, b, report=False)),
], ids=["plug-in across n", "no budgets reported"])
def test_better_run_a_half_answer_earns_at_most_half_on_every_variant(what, answer):
    for identity in IDENTITIES:
        assert grade_score("kp2_better_run", answer, identity) <= Fraction(3, 2), (what, identity)


def test_better_run_refusal_pairs_make_the_larger_budget_look_better():
    # The statement's warning holds in the checks: where budgets differ, the run with the
    # larger k, the larger n between plug-ins, or the unbiased estimator has the higher number.
    for identity in IDENTITIES[:20]:
        for pairs in get_exercise("kp2_better_run").data(Variant(identity))["refused"]:
            for (run_a, run_b), key in pairs:
                higher, lower = sorted((run_a, run_b), key=lambda run: -run["pass_at_k"])
                if key in ("k", "n"):
                    assert higher[key] > lower[key]
                if key == "estimator":
                    assert higher["estimator"] == "unbiased" and lower["estimator"] == "plug-in"
