"""ex04's fast standard deviation is ``statistics.stdev`` (and ``pstdev``) to the last bit.

The references of lesson 04's exercises take their standard deviations from
``ex04._sd``, which computes with integers what ``statistics`` computes with
fractions. Equal floats, not close ones: then no reference, no recognised
mistake, no drawn case (each draw rejects cases by these numbers) and no
verdict can change. Held on random data of every shape the draws make, on
the inputs ``statistics`` keeps for itself, and on every call that the
public and hidden draws of many variants make.
"""

import math
import random
import statistics
import sys
from fractions import Fraction

import pytest

from assessment_play import IDENTITIES, TEST_KEY
from reasoneval_mini.exercises import ex04_uncertainty as ex04
from reasoneval_mini.exercises.registry import EXERCISES
from reasoneval_mini.exercises.variants import Variant


def _same(a, b):
    return a == b and math.copysign(1, a) == math.copysign(1, b) or (a != a and b != b)


def _outcome(function, *args, **kwargs):
    """What *function* gives: ``("value", float)``, or ``("raised", type, message)``.

    statistics raises on some inputs (3.10 overflows on values near 1e300,
    3.11 raises AttributeError on nan): then the same exception is the contract.
    """
    try:
        value = function(*args, **kwargs)
    except Exception as error:  # noqa: BLE001 - compared, not handled
        return "raised", type(error), str(error)
    if value != value:
        return "value", "nan"
    return "value", value, math.copysign(1, value)  # the sign too: 0.0 == -0.0


def _random_values(rng, trial):
    m = rng.randint(2, 200 if trial % 50 == 0 else 40)
    shape = trial % 6
    if shape == 0:  # per-problem pass@k values
        return [rng.random() for _ in range(m)]
    if shape == 1:  # differences rounded to three decimals, as the Bonferroni draw makes them
        return [round(rng.gauss(0, 0.3), 3) for _ in range(m)]
    if shape == 2:  # few distinct values, many ties; all equal now and then
        pool = (0.0, 1.0, 0.5, 1 / 3, 0.2, -0.7) if trial % 12 else (0.25,)
        return [rng.choice(pool) for _ in range(m)]
    if shape == 3:  # magnitudes far apart
        return [(rng.random() - 0.5) * 10.0 ** rng.randint(-300, 300) for _ in range(m)]
    if shape == 4:  # ints, and ints with floats
        return [rng.randint(-10 ** 6, 10 ** 6) if rng.random() < 0.7 else rng.random()
                for _ in range(m)]
    return [1.0 + rng.randint(-3, 3) * 2.0 ** -52 for _ in range(m)]  # a few ulps apart


@pytest.mark.parametrize("population", [False, True])
def test_the_fast_standard_deviation_is_the_float_statistics_gives(population):
    reference = statistics.pstdev if population else statistics.stdev
    rng = random.Random(4)
    for trial in range(6000):
        values = _random_values(rng, trial)
        assert _outcome(ex04._sd, values, population=population) == _outcome(reference, values), (
            values)


@pytest.mark.parametrize("values", [
    [0.1, float("nan")], [1.0, float("inf")], [Fraction(1, 3), Fraction(1, 2), 0.0],
    [True, False, True], [2.5],
])
def test_inputs_outside_its_integer_path_get_what_statistics_gives(values):
    for population, reference in ((False, statistics.stdev), (True, statistics.pstdev)):
        assert _outcome(ex04._sd, values, population=population) == _outcome(reference, values)


@pytest.mark.skipif(sys.version_info < (3, 11), reason="3.10's statistics rounds twice: left to it")
@pytest.mark.parametrize("exercise_id", [i for i in EXERCISES if i.startswith("kp4_")])
def test_every_standard_deviation_the_draws_take_is_the_one_statistics_gives(exercise_id,
                                                                              monkeypatch):
    fast, calls = ex04._sd, []

    def compared(values, *, population=False):
        got = fast(values, population=population)
        expected = (statistics.pstdev if population else statistics.stdev)(values)
        assert _same(got, expected), (values, population, got, expected)
        calls.append(population)
        return got
    monkeypatch.setattr(ex04, "_sd", compared)
    for identity in IDENTITIES[:12]:
        EXERCISES[exercise_id].drawn_checks(Variant(identity, key=TEST_KEY), hidden=True)
    # 35 to 120 per variant today; fewer would mean the comparison above was not in the path.
    assert len(calls) >= 30 * 12, len(calls)


def _per_sample_se_by_statistics(counts):
    """The standard error of every sample as a 0/1 outcome, as ``statistics`` takes it from the list."""
    passed = sum(c for _, c in counts.values())
    total = sum(n for n, _ in counts.values())
    outcomes = [1.0] * passed + [0.0] * (total - passed)
    return statistics.stdev(outcomes) / math.sqrt(len(outcomes))


def test_the_per_sample_standard_error_is_the_one_statistics_takes_from_the_outcomes():
    rng = random.Random(7)
    cases = [{"p": (n, c)} for n in range(2, 60) for c in range(n + 1)]
    cases += [{f"p{i}": (n, rng.randint(0, n)) for i, n in enumerate(
        rng.choice((5, 8, 10, 12, 20)) for _ in range(rng.randint(1, 12)))} for _ in range(3000)]
    for counts in cases:
        assert _outcome(ex04._per_sample_se, counts) == _outcome(
            _per_sample_se_by_statistics, counts), counts


@pytest.mark.parametrize("counts", [{"p": (1, 1)}, {"p": (0, 0)}, {"p": (3, 5)}, {}])
def test_a_per_sample_standard_error_outside_the_closed_form_is_the_list_s(counts):
    assert _outcome(ex04._per_sample_se, counts) == _outcome(_per_sample_se_by_statistics, counts)


def test_every_per_sample_standard_error_the_draws_take_is_the_one_statistics_gives(monkeypatch):
    fast, calls = ex04._per_sample_se, []

    def compared(counts):
        got, expected = fast(counts), _per_sample_se_by_statistics(counts)
        assert _same(got, expected), (counts, got, expected)
        calls.append(1)
        return got
    monkeypatch.setattr(ex04, "_per_sample_se", compared)
    for identity in IDENTITIES[:12]:
        EXERCISES["kp4_t_interval"].drawn_checks(Variant(identity, key=TEST_KEY), hidden=True)
    assert len(calls) >= 12, len(calls)
