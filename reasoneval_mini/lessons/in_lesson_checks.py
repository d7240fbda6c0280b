"""Checks for the lessons' "your turn" cells: you write the computation, a check compares.

Before a library function does a lesson's key computation (an exact
comparison, a subset count, a standard error, the rows of a report), the
lesson asks you to write it in a short code cell. The cell ships with a
placeholder, ``...`` (Python's ``Ellipsis``), where your expression goes, and
ends with one ``check_*`` call from this module. The worked answer is folded
in the challenge just above the cell. Every check:

* compares your value with an **independent** computation (``fractions``,
  ``math.comb``, ``statistics``), never with the library function the lesson
  calls next, and never with a number typed into the lesson;
* prints one line that starts with :data:`RIGHT`, :data:`NOT_YET` or
  :data:`NOT_WRITTEN`, and returns ``None``;
* never raises because of *your* value, whatever it is (a string, ``None``, a
  list of the wrong length): the lesson runs top to bottom with the
  placeholder still in place, and a "Not yet" says what to look at, never the
  expected value (a few common slips are named: ordered picks, ``not_run``
  left out of the planned count, 0 instead of ``None``, dividing by m instead
  of m - 1, two runs treated as independent);
* raises ``ValueError`` or ``TypeError`` for a bad *given* (what the lesson
  passes in: n, c, k, the runs, the records), naming the value.

Surprising: a value equal to the answer passes whatever its type, so
``0.5`` passes where ``Fraction(1, 2)`` is expected (the float is exactly
one half), but ``2/5`` does not (the float nearest two fifths is not two fifths):

>>> check_draw_factor(0.5, n=5, c=2, i=1)
Right. factor = 0.5 is the chance that draw 2 fails after 1 failed draw, as the ratio of math.comb counts gives it.
>>> check_draw_factor(2 / 5, n=6, c=3, i=1)
Not yet. factor = 0.4 is the right number rounded to a float; write it as a Fraction so that the product stays exact.
>>> check_draw_factor(..., n=5, c=2, i=1)
Not written yet. Replace the ... after `factor =` with your computation, then run the cell again.
>>> check_subset_count(20, 3, n=5, c=2, k=2)
Not yet. subsets = 20 counts each pick twice, once in each order: a subset has no order.
"""

import math
import numbers
import statistics
import textwrap
from fractions import Fraction

from reasoneval_mini.records import NOT_RUN, PASSED, STATUSES
from reasoneval_mini.support.i18n import N_, _, ngettext
from reasoneval_mini.support.text import cut

#: First word(s) of each check's line: the value equals the independent computation.
RIGHT = N_("Right.")
#: The value is there but differs; the rest of the line says what to look at.
NOT_YET = N_("Not yet.")
#: The placeholder ``...`` is still in the cell.
NOT_WRITTEN = N_("Not written yet.")

#: Lines are wrapped at this width (JupyterLab wraps longer lines mid-word).
WIDTH = 120
#: Floats (a standard deviation, a pass@k) count as equal within this relative error.
REL_TOL = 1e-9


def _say(state, text):
    # The line's first words (RIGHT, NOT_YET, NOT_WRITTEN) in the learner's language too.
    print(textwrap.fill(_("{state} {text}").format(state=_(state), text=text), width=WIDTH,
                        break_long_words=False))


def _not_written(*names):
    after = _(" and ").join(f"`{name} =`" for name in names)
    _say(NOT_WRITTEN, _("Replace the ... after {names} with your computation, then run the cell "
                        "again.").format(names=after))


def _shown(value):
    return cut(repr(value), 60)


def _is_number(value):
    # Wider than support.arguments.is_number (int or float): a learner may well hand in a
    # Fraction or a numpy float, and either is a number to check, not a wrong type.
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def _is_truth(value):
    # A bool, or numpy's (np.True_ from a comparison of numpy numbers): a verdict either way.
    # numpy is not imported for this; its bool type is recognised by name.
    kind = type(value)
    return isinstance(value, bool) or (kind.__module__ == "numpy" and kind.__name__ in ("bool_", "bool"))


def _rounded_to(value, reference):
    """The number of decimals (0-6) *value* is *reference* rounded to, or ``None``."""
    if not _is_number(value) or _close(value, reference):
        return None
    try:
        value = float(value)
    except OverflowError:  # an int past the floats' range is no rounding of a float
        return None
    for places in range(7):
        if value == round(float(reference), places):
            return places
    return None


def _close(value, reference):
    """*value* equals *reference* (exactly for ints and Fractions, within REL_TOL for floats)."""
    if not _is_number(value):
        return False
    if isinstance(value, (int, Fraction)) and isinstance(reference, (int, Fraction)):
        return value == reference
    try:
        value = float(value)
    except OverflowError:  # an int past the floats' range equals no float reference
        return False
    return math.isclose(value, float(reference), rel_tol=REL_TOL, abs_tol=1e-12)


def _wrong_type(name, value, expected):
    _say(NOT_YET, _("{name} = {value} is a {type_name}; expected {expected}.").format(
        name=name, value=_shown(value), type_name=type(value).__name__, expected=_(expected)))


def _given_int(value, name, low=0):
    if type(value) is not int or value < low:
        raise ValueError(f"{name} must be an int >= {low}, got {value!r}")


# --- lesson 01 --------------------------------------------------------------------------------

def check_exact_comparison(verdicts, pairs):
    """Check *verdicts*: for each ``((a, b), (c, d))`` of *pairs*, is a/b equal to c/d?

    The reference is ``Fraction(a, b) == Fraction(c, d)`` for each pair. The
    givens are ints with ``b, d > 0`` (else ``ValueError``). A list that
    matches the float comparison ``a / b == c / d`` is named as such; any
    other wrong list gets one message, which names neither the pairs that
    differ nor how many (a verdict has two values: naming it gives it away).

    >>> check_exact_comparison([True, False], [((5, 10), (1, 2)), ((1, 3), (33, 100))])
    Right. All 2 verdicts match the exact comparison of fractions.
    """
    pairs = list(pairs)
    for index, pair in enumerate(pairs):
        try:
            (a, b), (c, d) = pair
        except (TypeError, ValueError):
            raise ValueError(f"pairs[{index}] must be ((a, b), (c, d)), got {pair!r}") from None
        if not all(type(x) is int for x in (a, b, c, d)) or b <= 0 or d <= 0:
            raise ValueError(f"pairs[{index}] must hold ints with positive denominators, got {pair!r}")
    if verdicts is ...:
        return _not_written("verdicts")
    if not isinstance(verdicts, (list, tuple)) or len(verdicts) != len(pairs):
        return _say(NOT_YET, _("verdicts = {value}: expected a list of {count} True/False, one "
                               "per pair.").format(value=_shown(verdicts), count=len(pairs)))
    if not all(_is_truth(v) for v in verdicts):
        return _say(NOT_YET, _("each verdict is True or False (a comparison), got {value}.").format(
            value=_shown(list(verdicts))))
    verdicts = [bool(v) for v in verdicts]
    exact = [Fraction(a, b) == Fraction(c, d) for (a, b), (c, d) in pairs]
    if list(verdicts) == exact:
        return _say(RIGHT, _("All {count} verdicts match the exact comparison of fractions.").format(
            count=len(pairs)))
    floats = [a / b == c / d for (a, b), (c, d) in pairs]
    if list(verdicts) == floats:
        return _say(NOT_YET, _("these verdicts compare through floats, a / b == c / d: a / b is "
                               "rounded to the nearest binary float, so two different fractions "
                               "can round to the same float. Use integers only."))
    # Neither which pair nor how many: a verdict is True or False, so naming the pair that
    # differs would hand out its answer (flip it), and a count lets a blind search finish.
    return _say(NOT_YET, _("some verdicts differ from the exact comparison. Two fractions with "
                           "positive denominators are equal when one integer product equals "
                           "another."))


# --- lesson 02 --------------------------------------------------------------------------------

def check_subset_count(subsets, all_fail, *, n, c, k):
    """Check *subsets* (the k-subsets of n samples) and *all_fail* (those of the n - c failures).

    The reference is ``math.comb(n, k)`` and ``math.comb(n - c, k)``. Counts
    must be ints (``10.0`` is named a float). Ordered picks (``math.perm``)
    and picks with replacement (``n ** k``) are named. Raises ``ValueError``
    unless ``0 <= c <= n`` and ``1 <= k <= n``.

    >>> check_subset_count(10, 3, n=5, c=2, k=2)
    Right. subsets = 10 and all_fail = 3, as math.comb counts them: pass@2 = 1 - 3/10.
    """
    _given_int(n, "n", 1)
    _given_int(c, "c")
    _given_int(k, "k", 1)
    if c > n or k > n:
        raise ValueError(f"need 0 <= c <= n and 1 <= k <= n, got n={n}, c={c}, k={k}")
    if subsets is ... or all_fail is ...:
        return _not_written(*[name for name, value in (("subsets", subsets), ("all_fail", all_fail))
                              if value is ...])
    for name, value, pool in (("subsets", subsets, n), ("all_fail", all_fail, n - c)):
        if type(value) is not int:
            what = (N_("an int: a count is a whole number (// divides whole numbers)")
                    if _is_number(value) else N_("an int"))
            return _wrong_type(name, value, what)
        if value == math.comb(pool, k):
            continue
        if k > 1 and value == math.perm(pool, k):
            return _say(NOT_YET, (_("{name} = {value} counts each pick twice, once in each order: "
                                    "a subset has no order.") if k == 2 else
                                  _("{name} = {value} counts each pick {times} times, once in each "
                                    "order: a subset has no order.")).format(
                                      name=name, value=value, times=math.factorial(k)))
        if k > 1 and value == pool ** k:
            return _say(NOT_YET, _("{name} = {value} lets a sample be picked twice (with "
                                   "replacement); a subset holds k different samples.").format(
                                       name=name, value=value))
        source = _("all n samples") if name == "subsets" else _("the n - c failing samples")
        return _say(NOT_YET, _("{name} = {value} is not the number of ways to pick k of {source}. "
                               "Count the ordered picks first, then how often each subset was "
                               "counted.").format(name=name, value=value, source=source))
    return _say(RIGHT, _("subsets = {subsets} and all_fail = {all_fail}, as math.comb counts them: "
                         "pass@{k} = 1 - {all_fail}/{subsets}.").format(
                             subsets=subsets, all_fail=all_fail, k=k))


def check_draw_factor(factor, *, n, c, i):
    """Check *factor*: the chance that draw i + 1 fails, given that the first i all failed.

    Draws take samples one at a time without replacement from n samples of
    which c pass. The reference is a ratio of ``math.comb`` counts,
    ``P(first i + 1 fail) / P(first i fail)`` with ``P(first j fail) =
    Fraction(comb(n - c, j), comb(n, j))``, so it does not assume the
    factor's formula. Raises ``ValueError`` unless ``0 <= i < n - c``.

    >>> from fractions import Fraction
    >>> check_draw_factor(Fraction(3, 5), n=5, c=2, i=0)
    Right. factor = Fraction(3, 5) is the chance that draw 1 fails after 0 failed draws, as the ratio of math.comb counts gives it.
    """
    _given_int(n, "n", 1)
    _given_int(c, "c")
    _given_int(i, "i")
    if not c <= n or not i < n - c:
        raise ValueError(f"need 0 <= c <= n and 0 <= i < n - c (the first i draws can all fail), "
                         f"got n={n}, c={c}, i={i}")
    if factor is ...:
        return _not_written("factor")
    if not _is_number(factor):
        return _wrong_type("factor", factor, N_("a number, best a Fraction"))
    first_fail = [Fraction(math.comb(n - c, j), math.comb(n, j)) for j in (i, i + 1)]
    reference = first_fail[1] / first_fail[0]   # P(first i + 1 fail) / P(first i fail)
    if factor == reference:
        return _say(RIGHT, ngettext(
            "factor = {factor!r} is the chance that draw {draw} fails after {i} failed draw, as "
            "the ratio of math.comb counts gives it.",
            "factor = {factor!r} is the chance that draw {draw} fails after {i} failed draws, as "
            "the ratio of math.comb counts gives it.", i).format(factor=factor, draw=i + 1, i=i))
    if isinstance(factor, float) and math.isclose(factor, reference, rel_tol=1e-9):
        return _say(NOT_YET, _("factor = {factor!r} is the right number rounded to a float; write "
                               "it as a Fraction so that the product stays exact.").format(
                                   factor=factor))
    if i and factor == Fraction(n - c, n):
        return _say(NOT_YET, ngettext(
            "factor = {factor!r} is the first draw's chance. After {i} failed draw, {i} failing "
            "sample is gone from the pool: from the failures and from the total.",
            "factor = {factor!r} is the first draw's chance. After {i} failed draws, {i} failing "
            "samples are gone from the pool: from the failures and from the total.", i).format(
                factor=factor, i=i))
    return _say(NOT_YET, _("factor = {factor!r}: count the samples left before draw {draw}, and "
                           "how many of them fail.").format(factor=factor, draw=i + 1))


# --- lesson 03 --------------------------------------------------------------------------------

#: The three rates of a log, in the order a your-turn cell writes them.
RATE_NAMES = ("coverage", "success", "attempted_success")


def _given_logs(logs):
    """*logs* as ``{name: (planned, attempted, passed)}``, or ``ValueError`` naming the bad given."""
    if not isinstance(logs, dict) or not logs:
        raise ValueError(f"logs must be a non-empty {{name: [record, ...]}} dict, got {cut(repr(logs), 80)}")
    counted = {}
    for name, log in logs.items():
        if not isinstance(log, (list, tuple)) or not log:
            raise ValueError(f"logs[{name!r}] must be a non-empty list of records, got {cut(repr(log), 80)}")
        for index, record in enumerate(log):
            if not isinstance(record, dict) or record.get("status") not in STATUSES:
                raise ValueError(f"logs[{name!r}][{index}] must be a dict whose status is one of "
                                 f"{', '.join(STATUSES)}; got {cut(repr(record), 80)}")
        statuses = [record["status"] for record in log]
        counted[name] = (len(statuses), len(statuses) - statuses.count(NOT_RUN), statuses.count(PASSED))
    return counted


def _rate_slip(where, rate, value, planned, attempted, passed):
    """What is wrong with *value* for *rate* of a log, or ``None`` if it is right.

    The reference is a ``Fraction`` of the log's own counts (``None`` for the
    attempted success rate of a log where nothing ran)."""
    shown = f"{where}: {rate} = {_shown(value)}"
    reference = {"coverage": Fraction(attempted, planned),
                 "success": Fraction(passed, planned),
                 "attempted_success": Fraction(passed, attempted) if attempted else None}[rate]
    if reference is None:
        if value is None:
            return None
        if _is_number(value) and value == 0:
            return _("{shown}. Zero says that everything ran and nothing passed; here nothing ran, "
                     "so there is nothing to divide by: the rate is undefined, and the course "
                     "writes None.").format(shown=shown)
        if isinstance(value, float) and math.isnan(value):
            return _("{shown}. nan is a float, not the course's mark for an undefined rate: write "
                     "None.").format(shown=shown)
        return _("{shown}. How many samples of this log ran? Divide by that number, if you "
                 "can.").format(shown=shown)
    if value is None:
        return (_("{shown}. None is for a rate with nothing to divide by; this log has samples "
                  "that ran.") if rate == "attempted_success" else
                _("{shown}. None is for a rate with nothing to divide by; this log has planned "
                  "samples.")).format(shown=shown)
    if not _is_number(value):
        return _("{shown} is a {type_name}; expected a number: a Fraction, an int or a "
                 "float.").format(shown=shown, type_name=type(value).__name__)
    if _close(value, reference):
        return None
    not_run = planned - attempted
    if not_run and attempted:
        if rate == "coverage" and _close(value, 1):
            return _("{shown} leaves the not_run samples out of the planned count: planned counts "
                     "every sample of the log, those that never ran included.").format(shown=shown)
        if rate == "success" and _close(value, Fraction(passed, attempted)):
            return _("{shown} divides by the samples that ran, which is the attempted success "
                     "rate; the success rate divides by every planned sample, not_run "
                     "included.").format(shown=shown)
    if not_run and rate == "attempted_success" and _close(value, Fraction(passed, planned)):
        return _("{shown} divides by every planned sample, which is the success rate; the "
                 "attempted success rate divides by the samples that ran.").format(shown=shown)
    if rate == "coverage" and passed != attempted and _close(value, Fraction(passed, planned)):
        return _("{shown} counts the passed samples; coverage counts every sample that ran, "
                 "whatever its ending (a timeout ran too).").format(shown=shown)
    if type(value) is int and value > 1:
        return _("{shown} is a count, not a share: divide it by the number of samples the rate is "
                 "over.").format(shown=shown)
    if isinstance(value, float) and math.isfinite(value) and math.isclose(value, reference, abs_tol=0.006):
        return _("{shown} is rounded: write the ratio itself (a Fraction, or one count / another) "
                 "so that nothing is lost.").format(shown=shown)
    return _("{shown}: count the planned samples, those that ran (every state but not_run) and "
             "those that passed, then divide.").format(shown=shown)


def check_denominators(rates, logs):
    """Check *rates*: for each log of *logs*, its (coverage, success, attempted success).

    *logs* maps a name to a list of records, each a dict with a ``status``
    from :data:`~reasoneval_mini.records.STATUSES`; *rates* maps the same
    names to ``(coverage, success, attempted_success)``. The reference counts
    the records itself and divides with ``fractions.Fraction``: coverage =
    attempted / planned, success = passed / planned, attempted success =
    passed / attempted, and ``None`` (undefined) when nothing was attempted,
    where *attempted* is every record whose status is not ``not_run``. A
    value equal to the fraction passes whatever its type (``2 / 3`` as a
    float is within :data:`REL_TOL`). The slips named: ``not_run`` left out
    of the planned count, the success rate over the samples that ran (and
    the reverse), 0 or ``nan`` instead of ``None``, a count for a share, a
    rounded float. Raises ``ValueError`` for an empty *logs*, an empty log
    or a record without a known status, naming it.

    Surprising: 0 is not the attempted success rate of a log where nothing ran.

    >>> cancelled = {"cancelled": [{"status": "not_run"}, {"status": "not_run"}]}
    >>> check_denominators({"cancelled": (0, 0, 0)}, cancelled)   # doctest: +ELLIPSIS
    Not yet. cancelled: attempted_success = 0. Zero says that everything ran and nothing passed; ...
    >>> check_denominators({"cancelled": (0, 0, None)}, cancelled)
    Right. coverage, success and attempted success of the 1 log, as its records count them.
    """
    counted = _given_logs(logs)
    if rates is ...:
        return _not_written("rates")
    if not isinstance(rates, dict):
        return _say(NOT_YET, _("rates = {value}: expected a dict {{log name: (coverage, success, "
                               "attempted_success)}}, one entry per log: {logs}.").format(
                                   value=_shown(rates), logs=cut(repr(list(logs)), 60)))
    missing = [name for name in logs if name not in rates]
    extra = [name for name in rates if name not in logs]
    if missing or extra:
        what = (_("missing {names}").format(names=cut(repr(missing), 60)) if missing else "") + (
            "; " if missing and extra else "") + (
            _("not a log: {names}").format(names=cut(repr(extra), 60)) if extra else "")
        return _say(NOT_YET, _("rates needs one entry per log of logs, {count} in all: "
                               "{what}.").format(count=len(logs), what=what))
    for name, (planned, attempted, passed) in counted.items():
        triple = rates[name]
        if not isinstance(triple, (list, tuple)) or len(triple) != len(RATE_NAMES):
            return _say(NOT_YET, _("rates[{name!r}] = {value}: expected three values, (coverage, "
                                   "success, attempted_success).").format(
                                       name=name, value=_shown(triple)))
        for rate, value in zip(RATE_NAMES, triple):
            slip = _rate_slip(cut(str(name), 40), rate, value, planned, attempted, passed)
            if slip:
                return _say(NOT_YET, slip)
    return _say(RIGHT, ngettext(
        "coverage, success and attempted success of the {count} log, as its records count them.",
        "coverage, success and attempted success of the {count} logs, as their records count "
        "them.", len(logs)).format(count=len(logs)))


# --- lesson 04 --------------------------------------------------------------------------------

def _given_values(values, name, least=2):
    values = list(values)
    if len(values) < least or not all(_is_number(v) for v in values):
        raise ValueError(f"{name} must be at least {least} numbers, got {cut(repr(values), 80)}")
    return values


def check_standard_deviation(sd, values):
    """Check *sd*: the sample standard deviation of *values*, dividing by ``len(values) - 1``.

    The reference is ``statistics.stdev(values)``. The population version
    (dividing by m, ``statistics.pstdev``) and the variance are named.
    Raises ``ValueError`` for fewer than two numbers.

    >>> check_standard_deviation(0.5, [0, 1])   # doctest: +ELLIPSIS
    Not yet. sd = 0.5 divides by m; the sample standard deviation divides by m - 1...
    """
    values = _given_values(values, "values")
    if sd is ...:
        return _not_written("sd")
    if not _is_number(sd):
        return _wrong_type("sd", sd, N_("a number"))
    if _close(sd, statistics.stdev(values)):
        return _say(RIGHT, _("sd = {sd}, the sample standard deviation of the {count} values "
                             "(statistics.stdev).").format(sd=f"{float(sd):.4f}", count=len(values)))
    if _close(sd, statistics.pstdev(values)):
        return _say(NOT_YET, _("sd = {sd} divides by m; the sample standard deviation divides by "
                               "m - 1, since the deviations are taken from the values' own "
                               "mean.").format(sd=_shown(sd)))
    places = _rounded_to(sd, statistics.stdev(values))
    if places is not None:
        return _say(NOT_YET, ngettext(
            "sd = {sd} is rounded to {places} decimal: keep the full value, and round only what "
            "you print.",
            "sd = {sd} is rounded to {places} decimals: keep the full value, and round only what "
            "you print.", places).format(sd=_shown(sd), places=places))
    if _close(sd, statistics.variance(values)):
        return _say(NOT_YET, _("sd = {sd} is the variance, the mean squared deviation; the "
                               "standard deviation is its square root.").format(sd=_shown(sd)))
    return _say(NOT_YET, _("sd = {sd}: subtract the mean from each value, square, add up, divide "
                           "by m - 1, take the square root.").format(sd=_shown(sd)))


def check_standard_error(se, estimates):
    """Check *se*: the standard error of the mean of *estimates*, ``s / sqrt(m)``.

    The reference is ``statistics.stdev(estimates) / math.sqrt(m)``, with s
    dividing by m - 1. The standard deviation itself, ``s / m`` and the
    population s are named. Raises ``ValueError`` for fewer than two numbers.

    >>> check_standard_error(0.5, [0, 1])
    Right. se = 0.5000, the standard error of the mean of 2 estimates (statistics.stdev / sqrt(m)).
    """
    estimates = _given_values(estimates, "estimates")
    if se is ...:
        return _not_written("se")
    if not _is_number(se):
        return _wrong_type("se", se, N_("a number"))
    m, s = len(estimates), statistics.stdev(estimates)
    if _close(se, s / math.sqrt(m)):
        return _say(RIGHT, _("se = {se}, the standard error of the mean of {m} estimates "
                             "(statistics.stdev / sqrt(m)).").format(se=f"{float(se):.4f}", m=m))
    if _close(se, s):
        return _say(NOT_YET, _("se = {se} is the spread of one estimate, s; the mean of m "
                               "estimates spreads less: divide by sqrt(m).").format(se=_shown(se)))
    if _close(se, s / m):
        return _say(NOT_YET, _("se = {se} divides s by m; the standard error divides by "
                               "sqrt(m).").format(se=_shown(se)))
    if _close(se, statistics.pstdev(estimates) / math.sqrt(m)):
        return _say(NOT_YET, _("se = {se} takes s dividing by m; the sample s divides by "
                               "m - 1.").format(se=_shown(se)))
    return _say(NOT_YET, _("se = {se}: first s, the standard deviation of the estimates "
                           "(dividing by m - 1), then s / sqrt(m).").format(se=_shown(se)))


def _pass_at_1(run, name):
    if not isinstance(run, dict) or not run:
        raise ValueError(f"{name} must be a non-empty {{problem id: (n, c)}} dict, got {cut(repr(run), 80)}")
    rates = {}
    for problem, counts in run.items():
        try:
            n, c = counts
        except (TypeError, ValueError):
            raise ValueError(f"{name}[{problem!r}] must be (n, c), got {counts!r}") from None
        _given_int(n, f"{name}[{problem!r}] n", 1)
        _given_int(c, f"{name}[{problem!r}] c")
        rates[problem] = Fraction(c, n)
    return rates


def check_paired_difference(mean_difference, paired_se, run_a, run_b):
    """Check the paired pass@1 difference of two runs on the same problems, and its standard error.

    *run_a* and *run_b* map the same problem ids to ``(n, c)``. The reference
    takes ``c/n`` of A minus ``c/n`` of B problem by problem (``Fraction``),
    their mean (``statistics.mean``) and ``statistics.stdev / sqrt(m)``. The
    difference B - A, the unpaired ``sqrt(se_a**2 + se_b**2)`` and the
    standard deviation itself are named. Raises ``ValueError`` when the runs
    hold different problem ids, naming them.

    >>> check_paired_difference(0.25, 0.25, {"p": (2, 2), "q": (2, 1)}, {"p": (2, 1), "q": (2, 1)})
    Right. mean_difference = 0.2500 and paired_se = 0.2500, from the 2 per-problem differences A - B.
    """
    rates_a, rates_b = _pass_at_1(run_a, "run_a"), _pass_at_1(run_b, "run_b")
    if set(rates_a) != set(rates_b):
        only = sorted(set(rates_a) ^ set(rates_b), key=str)
        raise ValueError(f"run_a and run_b must hold the same problems; only in one: {cut(repr(only), 80)}")
    if len(rates_a) < 2:
        raise ValueError("a standard error needs at least two problems")
    if mean_difference is ... or paired_se is ...:
        return _not_written(*[name for name, value in (("mean_difference", mean_difference),
                                                       ("paired_se", paired_se)) if value is ...])
    for name, value in (("mean_difference", mean_difference), ("paired_se", paired_se)):
        if not _is_number(value):
            return _wrong_type(name, value, N_("a number"))
    differences = [rates_a[p] - rates_b[p] for p in rates_a]
    m = len(differences)
    mean = statistics.mean(differences)
    if not _close(mean_difference, mean):
        if _close(mean_difference, -mean):
            return _say(NOT_YET, _("mean_difference = {value} is B - A; the lesson asks for "
                                   "A - B.").format(value=_shown(mean_difference)))
        return _say(NOT_YET, _("mean_difference = {value}: take A's pass@1 minus B's on each "
                               "problem (the same id in both runs), then the mean.").format(
                                   value=_shown(mean_difference)))
    se = statistics.stdev(differences) / math.sqrt(m)
    if _close(paired_se, se):
        return _say(RIGHT, _("mean_difference = {mean} and paired_se = {se}, from the {m} "
                             "per-problem differences A - B.").format(
                                 mean=f"{float(mean_difference):.4f}", se=f"{float(paired_se):.4f}",
                                 m=m))
    unpaired = math.sqrt(statistics.variance(rates_a.values()) / m
                         + statistics.variance(rates_b.values()) / m)
    if _close(paired_se, unpaired):
        return _say(NOT_YET, _("paired_se = {value} combines the two runs' own standard errors as "
                               "if their problems were unrelated; take the standard deviation of "
                               "the per-problem differences instead.").format(
                                   value=_shown(paired_se)))
    if _close(paired_se, statistics.stdev(differences)):
        return _say(NOT_YET, _("paired_se = {value} is the differences' standard deviation; the "
                               "standard error of their mean divides it by sqrt(m).").format(
                                   value=_shown(paired_se)))
    return _say(NOT_YET, _("paired_se = {value}: the standard deviation of the per-problem "
                           "differences (dividing by m - 1), over sqrt(m).").format(
                               value=_shown(paired_se)))


# --- lesson 05 --------------------------------------------------------------------------------

def check_report_rows(rows, records, ks):
    """Check *rows*: one ``(task_id, n, c, pass@k for each k of ks)`` per problem of *records*.

    The reference counts the records itself: n every record of a task
    (``not_run`` included), c those with status ``passed``, and pass@k as
    ``1 - Fraction(comb(n - c, k), comb(n, k))``; the row order does not
    matter. An n without the ``not_run`` samples, the plug-in
    ``1 - (1 - c/n)**k`` and a pass@k rounded (as the table prints it) are named. Raises ``ValueError`` for records
    without ``task_id`` or ``status``, or a k above some problem's n.

    >>> records = [{"task_id": "A", "status": "passed"}, {"task_id": "A", "status": "not_run"}]
    >>> check_report_rows([("A", 2, 1, 0.5)], records, [1])
    Right. 1 row: n, c and pass@1 for every problem, as counted from the records.
    """
    ks = list(ks)
    if not ks or not all(type(k) is int and k >= 1 for k in ks):
        raise ValueError(f"ks must be ints >= 1, got {ks!r}")
    counts = {}
    for index, record in enumerate(records):
        if not isinstance(record, dict) or "task_id" not in record or "status" not in record:
            raise ValueError(f"records[{index}] must be a dict with task_id and status, "
                             f"got {cut(repr(record), 80)}")
        statuses = counts.setdefault(record["task_id"], [])
        statuses.append(record["status"])
    for task_id, statuses in counts.items():
        if max(ks) > len(statuses):
            k, n = max(ks), len(statuses)
            # Lesson 05 invites the learner to set N_SAMPLES = 4 and see which k is refused
            # and why: this cell is the first to meet it, so it says why, as pass_at_k does.
            raise ValueError(f"k={k} is above n={n} of {task_id!r}: with only {n} samples there is "
                             f"no subset of {k} to draw; generate at least {k} samples per problem, "
                             f"or leave k={k} out of ks")
    if rows is ...:
        return _not_written("rows")
    if not isinstance(rows, (list, tuple)) or not all(isinstance(r, (list, tuple)) for r in rows):
        return _say(NOT_YET, _("rows = {value}: expected a list of tuples (task_id, n, c, "
                               "pass@k...), one per problem.").format(value=_shown(rows)))
    width = 3 + len(ks)
    if any(len(row) != width for row in rows):
        return _say(NOT_YET, _("each row holds {width} values: task_id, n, c and pass@k for k in "
                               "{ks}.").format(width=width, ks=ks))
    if not all(isinstance(row[0], str) for row in rows):
        return _say(NOT_YET, _("each row starts with its task_id, a str such as 'HumanEval/0'."))
    by_task = {row[0]: row for row in rows}
    if len(by_task) != len(rows) or set(by_task) != set(counts):
        missing = sorted(set(counts) - set(by_task), key=str)
        return _say(NOT_YET, (_("expected one row per problem, {count} in all; missing {names}.")
                              if missing else
                              _("expected one row per problem, {count} in all; some task appears "
                                "twice or is not in the records.")).format(
                                    count=len(counts), names=cut(repr(missing), 60)))
    for task_id, statuses in counts.items():
        __, n, c, *values = by_task[task_id]
        planned, passed = len(statuses), statuses.count(PASSED)
        if n != planned:
            if n == planned - statuses.count(NOT_RUN):
                return _say(NOT_YET, _("{task_id}: n = {n!r} leaves out the not_run samples; every "
                                       "planned sample counts in n.").format(task_id=task_id, n=n))
            return _say(NOT_YET, _("{task_id}: n = {n!r}; n counts every record of the "
                                   "problem.").format(task_id=task_id, n=n))
        if c != passed:
            return _say(NOT_YET, _("{task_id}: c = {c!r}; c counts the records whose status is "
                                   "{status!r}.").format(task_id=task_id, c=c, status=PASSED))
        for k, value in zip(ks, values):
            # The records' own counts, not the learner's n and c: those equal them by now,
            # but may be floats (8.0), which math.comb refuses.
            exact = 1 - Fraction(math.comb(planned - passed, k), math.comb(planned, k))
            if _close(value, exact):
                continue
            if _close(value, 1 - (1 - Fraction(passed, planned)) ** k):
                return _say(NOT_YET, _("{task_id}: pass@{k} = {value} is the plug-in "
                                       "1 - (1 - c/n)**k, biased low (lesson 02).").format(
                                           task_id=task_id, k=k, value=_shown(value)))
            if (isinstance(value, float) and math.isfinite(value)
                    and math.isclose(value, exact, abs_tol=0.0006)):
                # The lesson's table prints three decimals; a row copied or rounded to
                # them is not a wrong estimator, and the line must not say it is.
                return _say(NOT_YET, _("{task_id}: pass@{k} = {value} is rounded: keep the "
                                       "estimator's full value (round only when you "
                                       "print).").format(task_id=task_id, k=k, value=_shown(value)))
            return _say(NOT_YET, _("{task_id}: pass@{k} = {value}; the estimator of lesson 02 "
                                   "takes n, c and k.").format(
                                       task_id=task_id, k=k, value=_shown(value)))
    named = ", ".join(f"pass@{k}" for k in ks)
    return _say(RIGHT, ngettext(
        "{count} row: n, c and {named} for every problem, as counted from the records.",
        "{count} rows: n, c and {named} for every problem, as counted from the records.",
        len(rows)).format(count=len(rows), named=named))
