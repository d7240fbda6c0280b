"""The building blocks of exercise checks: results, comparisons, constructors.

An exercise answer is always a *function* the learner completes. A *check*
is a small callable ``check(answer) -> CheckResult`` that calls the answer
once and compares what came back with an expected value computed from an
independent reference (the library, :func:`math.comb`, enumeration, a real
subprocess run). Checks never raise: an exception from the learner's code
becomes a failed :class:`CheckResult` whose message names it, and the
``NotImplementedError`` of an untouched stub becomes "not attempted yet".

Constructors (the same ones a hidden-tests file uses):

* :func:`case` -- call the answer, compare the value it returns;
* :func:`rejects` -- call the answer, expect a given exception type.

Prediction and choice exercises, whose expected value *is* the answer, are
built with ``Exercise(..., reveal_expected=False)`` and :class:`Withheld`
expected values: the feedback says which items are wrong, never what they
should be (see :func:`conceal`).

Comparison is by value, never by printed text: see
:mod:`reasoneval_mini.exercises.compare` (re-exported here).

>>> check = case("double(2)", lambda f: f(2), 4)
>>> check(lambda x: 2 * x).passed
True
>>> def stub(x):
...     raise NotImplementedError
>>> print(case("double(2)", lambda f: f(2), 4)(stub).message)
not attempted yet: the function still raises NotImplementedError

Surprising: ``0.7`` is not the exact answer ``Fraction(7, 10)``.

>>> from fractions import Fraction
>>> case("p()", lambda f: f(), Fraction(7, 10))(lambda: 0.7).passed
False
"""

import re
import threading
from dataclasses import asdict, dataclass, replace

from reasoneval_mini.exercises.compare import FLOAT_ABS_TOL, FLOAT_REL_TOL, same_set, same_value, show
from reasoneval_mini.support.text import plural

__all__ = [
    "FLOAT_ABS_TOL", "FLOAT_REL_TOL", "NOT_ATTEMPTED", "WITHHELD", "CheckResult", "Exercise",
    "Withheld", "WrittenTask", "case", "conceal", "lazy", "rejects", "same_set", "same_value",
    "show", "withheld_choice", "withheld_subset",
]

NOT_ATTEMPTED = "not attempted yet"
#: Shown instead of an expected value that would give the answer away.
WITHHELD = "withheld: the answer itself"
#: The reason given when a withheld value differs and no safer reason is known.
WITHHELD_REASON = "not the right answer for this item"


@dataclass(frozen=True)
class Exercise:
    """One exercise: where it lives, what it asks, and the checks that grade it.

    *answer_name* is the function the learner completes in *notebook*;
    *checks* is a tuple of callables ``check(answer) -> CheckResult``.
    With *reveal_expected* False (prediction and choice exercises, whose
    expected value is the answer), every result is passed through
    :func:`conceal` before anyone sees it: which items are wrong is said,
    never what they should be.
    """

    id: str
    notebook: str
    answer_name: str
    points: int
    title: str
    statement: str
    checks_what: str
    hint: str
    checks: tuple
    reveal_expected: bool = True


@dataclass(frozen=True)
class WrittenTask:
    """A written answer (markdown cell) graded by the instructor, by hand, with a rubric.

    Its answer cell has the nbgrader ``grade_id`` *id* (schema 3: ``grade``
    and ``solution`` true on a markdown cell: nbgrader's manually graded
    answer); *rubric* is ``((criterion, points), ...)`` and adds up to
    *points*. No check runs: ``reasoneval-course grade`` lists it as
    ``awaiting_instructor`` with a blank score.
    """

    id: str
    notebook: str
    points: int
    title: str
    statement: str
    rubric: tuple

    def __post_init__(self):
        total = sum(points for _, points in self.rubric)
        if total != self.points:
            raise ValueError(f"written task {self.id!r}: the rubric gives {total!r} points, "
                             f"expected {self.points!r}")


class Withheld:
    """An expected value that feedback shows only as *text*, never as the value.

    A comparison written for it receives the ``Withheld`` itself (``value``,
    and ``mistakes``: known wrong computations as ``(fields, values,
    explanation)``) and must name what differs without showing the value.
    With the generic comparisons (:func:`same_value`, :func:`same_set`),
    whose reasons would show it, :func:`case` gives *why* instead.

    >>> Withheld(True, "withheld: the verdict")
    withheld: the verdict
    """

    def __init__(self, value, text=WITHHELD, mistakes=(), why=WITHHELD_REASON):
        self.value, self.text, self.mistakes, self.why = value, text, tuple(mistakes), why

    def __repr__(self):
        return self.text


@dataclass(frozen=True)
class CheckResult:
    """One test of one exercise; ``expected`` and ``actual`` are display texts.

    ``attempted`` is False only when the answer was an untouched stub.
    """

    name: str
    passed: bool
    call: str
    expected: str
    actual: str
    message: str
    attempted: bool = True
    #: True when ``expected`` and ``message`` show nothing that is withheld: built from a
    #: :class:`Withheld`, or by :func:`rejects` (an error the statement asks for is no secret).
    withheld: bool = False

    def to_dict(self):
        """Return a plain dict (JSON- and CSV-friendly)."""
        return asdict(self)


def conceal(result):
    """*result* as an exercise with ``reveal_expected=False`` shows it.

    A result built from a :class:`Withheld` is kept (its texts already hide
    the value); any other (a plain check, a hidden check) loses its expected
    value and its reason, which may show it (``expected exactly None, not
    False``); the call (which item) and the learner's own value stay.

    >>> conceal(CheckResult("v", False, "v()", "None", "False", "expected exactly None, not False"))
    ... # doctest: +NORMALIZE_WHITESPACE
    CheckResult(name='v', passed=False, call='v()', expected='withheld: the answer itself',
                actual='False', message='not the right answer for this item', attempted=True,
                withheld=True)
    """
    if result.withheld:
        return result
    message = result.message if result.passed or not result.attempted else WITHHELD_REASON
    if result.actual.startswith(("NotImplementedError", "TypeError", "ValueError")) or (
            result.message.startswith("the call raised")):
        message = result.message  # the learner's own error shows nothing of the answer
    return replace(result, expected=WITHHELD, message=message, withheld=True)


def _call_answer(run, answer):
    """Run ``run(answer)``; return ``(value, error)`` with error None on success."""
    try:
        return run(answer), None
    except (Exception, SystemExit) as error:  # the learner's code may raise anything
        return None, error


def _failure(name, call, expected, error):
    if isinstance(error, NotImplementedError):
        return CheckResult(name, False, call, expected, "NotImplementedError",
                           NOT_ATTEMPTED + ": the function still raises NotImplementedError",
                           attempted=False)
    actual = f"{type(error).__name__}: {error}"
    return CheckResult(name, False, call, expected, actual,
                       f"the call raised {type(error).__name__} ({error})")


def case(call, run, expected, *, compare=same_value, name=None):
    """A check that ``run(answer)`` returns a value matching *expected*.

    *call* is the text shown to the learner, e.g. ``"pass_at_k(5, 2, 2)"``;
    *run* takes the learner's function and makes that call; *compare*
    returns ``""`` for a match or a short reason.  *expected* may be a
    zero-argument callable wrapped in :func:`lazy`, evaluated once, when
    first needed (for references that run subprocesses).
    """
    def check(answer):
        want = expected.value() if isinstance(expected, lazy) else expected
        hidden = isinstance(want, Withheld)
        value, error = _call_answer(run, answer)
        if error is not None:
            return replace(_failure(name or call, call, show(want), error), withheld=hidden)
        try:
            if hidden and compare in (same_value, same_set):
                # Their reasons name the expected value: give the Withheld's instead.
                why = compare(value, want.value) and want.why
            else:
                why = compare(value, want)
        except Exception as problem:  # an odd value must not crash the check
            why = f"could not compare ({type(problem).__name__}: {problem})"
        message = "ok" if not why else why
        return CheckResult(name or call, not why, call, show(want), show(value), message,
                           withheld=hidden)
    return check


def _mentions(message, text):
    # A whole word: "n" must not be found inside "cannot".
    pattern = rf"(?<![A-Za-z0-9_]){re.escape(text)}(?![A-Za-z0-9_])"
    return re.search(pattern, message, re.IGNORECASE) is not None


def rejects(call, run, error_type=ValueError, *, mentions=(), name=None):
    """A check that ``run(answer)`` raises *error_type* (bad input refused).

    Each text in *mentions* must appear in the error message as a whole word
    (case-insensitive), e.g. the name of the bad value, so the error is clear.
    """
    mentions = (mentions,) if isinstance(mentions, str) else tuple(mentions)
    expected = f"raises {error_type.__name__}" + "".join(
        f", message mentions {text!r}" for text in mentions)

    def check(answer):
        return replace(_rejects_result(answer), withheld=True)

    def _rejects_result(answer):
        value, error = _call_answer(run, answer)
        if isinstance(error, NotImplementedError) and error_type is not NotImplementedError:
            return _failure(name or call, call, expected, error)
        if isinstance(error, error_type):
            actual = f"{type(error).__name__}: {error}"
            absent = [text for text in mentions if not _mentions(str(error), text)]
            message = f"the message does not mention {absent[0]!r}" if absent else "ok"
            return CheckResult(name or call, not absent, call, expected, actual, message)
        if error is not None:
            return _failure(name or call, call, expected, error)
        return CheckResult(name or call, False, call, expected, show(value),
                           f"returned a value instead of raising {error_type.__name__}")
    return check


def withheld_choice(choices, why=WITHHELD_REASON):
    """A comparison for a :class:`Withheld` answer that must be one of *choices*.

    It says whether the value is one of the choices, and whether it is the
    right one, never which one is right.

    >>> compare = withheld_choice((True, False, None), "wrong verdict")
    >>> compare(False, Withheld(None)), compare("None", Withheld(None))
    ('wrong verdict', "not one of the choices True, False, None (got 'None')")
    """
    def compare(actual, expected):
        if not any(same_value(actual, choice) == "" for choice in choices):
            listed = ", ".join(show(choice) for choice in choices)
            return f"not one of the choices {listed} (got {show(actual)})"
        return "" if same_value(actual, expected.value) == "" else why
    return compare


def withheld_subset(universe, *, items, noun, missing, wrong, surplus, unknown="not {}: {}"):
    """A comparison for a :class:`Withheld` set drawn from *universe*.

    It counts the expected items the answer leaves out and never names them
    (*missing*, a format string for ``plural(count, noun)``). It names the
    wrong items chosen (*wrong*, formatted with them) unless the answer holds
    more items than expected: then naming the wrong picks of "everything"
    would hand over the answer, so it only counts them (*surplus*, formatted
    with the count). *items* names the elements in the type message, and
    *unknown* is formatted with *items* and the chosen values outside
    *universe*.

    >>> compare = withheld_subset("abcd", items="letters", noun="letter",
    ...                           missing="{} left out", wrong="not wanted: {}",
    ...                           surplus="{} chosen that are not wanted")
    >>> compare({"a", "c"}, Withheld({"a", "b"}))
    "1 letter left out; not wanted: ['c']"

    Surprising: choosing everything is not answered with the wrong picks.

    >>> compare(set("abcd"), Withheld({"a", "b"}))
    '2 chosen that are not wanted'
    """
    def compare(actual, expected):
        try:
            chosen = set(actual)
        except TypeError:
            return f"expected a set of {items}, got {type(actual).__name__}"
        outside = sorted(str(item) for item in chosen if item not in universe)
        if outside:
            return unknown.format(items, show(outside))
        left_out = len(expected.value - chosen)
        extra = sorted(chosen - expected.value)
        parts = [missing.format(plural(left_out, noun))] if left_out else []
        if extra and len(chosen) > len(expected.value):
            parts.append(surplus.format(len(extra)))
        elif extra:
            parts.append(wrong.format(show(extra)))
        return "; ".join(parts)
    return compare


class lazy:
    """An expected value computed on first use and then kept.

    Thread-safe: the grader runs the checks of several students at once, and
    the value is computed once.
    """

    def __init__(self, compute):
        self._compute = compute
        self._done = False
        self._value = None
        self._lock = threading.Lock()

    def value(self):
        with self._lock:
            if not self._done:
                self._value, self._done = self._compute(), True
        return self._value
