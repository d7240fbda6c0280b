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
* :func:`rejects` -- call the answer, expect a given exception type;
* :func:`bundle` -- several checks that pass or fail together.

Prediction and choice exercises, whose expected value *is* the answer, are
built with ``Exercise(..., reveal_expected=False)`` and :class:`Withheld`
expected values: a wrong answer hears only :data:`NOT_YET`, never how many
items are wrong nor which (see :func:`withheld_predictions`,
:func:`withheld_subset` and :func:`conceal`).

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
from dataclasses import asdict, dataclass, fields, replace

from reasoneval_mini.exercises.compare import FLOAT_ABS_TOL, FLOAT_REL_TOL, same_set, same_value, show
from reasoneval_mini.support.call_watch import DelegationRefused
from reasoneval_mini.support.i18n import N_, _, join_items, ngettext

__all__ = [
    "FLOAT_ABS_TOL", "FLOAT_REL_TOL", "NOT_ATTEMPTED", "NOT_YET", "RUBRIC_LEVELS", "WITHHELD", "CheckResult",
    "Criterion", "Exercise", "bundle", "planned_calls", "rubric_criteria",
    "Withheld", "WrittenTask", "case", "conceal", "lazy", "rejects", "same_set", "same_value",
    "show", "why_line", "with_distinction", "withheld_choice", "withheld_predictions",
    "withheld_subset",
]

# These are catalogue ids (N_): each is shown through _() in the learner's language.
NOT_ATTEMPTED = N_("not attempted yet")
#: Shown instead of an expected value that would give the answer away.
WITHHELD = N_("withheld: the answer itself")
#: The reason given when a withheld value differs and no safer reason is known.
WITHHELD_REASON = N_("not the right answer for this item")
#: The one thing a withheld answer that is not right hears: never how many items, never which.
NOT_YET = N_("not yet: some item is not right (the check never says which, nor how many)")
#: How the reason of a check whose call raised begins (see :func:`_failure`).
RAISED = N_("the call raised {error_type} ({error})")


def raised_prefix():
    """The words before the error in :data:`RAISED`, in the current language: ``"the call raised "``."""
    return _(RAISED).split("{", 1)[0]


@dataclass(frozen=True)
class Exercise:
    """One exercise: where it lives, what it asks, and the checks that grade it.

    *answer_name* is the function the learner completes in *notebook*.

    What a student sees follows their :class:`~reasoneval_mini.exercises.variants.Variant`:
    *draw* (``draw(rng) -> data``) draws the variant's inputs or items from
    the variant's generator; *statement* is a text or ``statement(data)``;
    *checks* is a tuple of callables ``check(answer) -> CheckResult`` or
    ``checks(data)`` returning one. *hidden* (``hidden(rng, data)``) builds
    the grader's own checks on inputs the student never sees, from the
    grader's secret generator: ``check()`` runs only the public ones and
    says so, the grader scores on the hidden ones (see
    :func:`~reasoneval_mini.exercises.registry.exercise_score`).

    *refuses*: dotted names of library functions that do what the exercise
    asks (``"reasoneval_mini.answers.parse_rational"``): a call that runs one
    fails (:mod:`reasoneval_mini.support.call_watch`), in ``check()`` and
    under the grader. *typed*: the answer's body must be ``return`` of a
    literal (predictions are typed in, never computed; see
    :mod:`reasoneval_mini.exercises.typed`).

    With *reveal_expected* False (prediction and choice exercises, whose
    expected value is the answer), every result is passed through
    :func:`conceal`, and a wrong answer hears only "not yet"; once it is
    right, *explain* (``explain(data) -> text``) says why each item is what it is.
    *solve* (``solve(data) -> answer``) is the right answer of a typed
    exercise for *data*: its checks expect it, and the build types it into the
    master. *keyed*: the answers come from the answer key kept with the
    masters (:mod:`reasoneval_mini.exercises.answer_key`), which the grader
    must be able to read before it grades anyone.
    """

    id: str
    notebook: str
    answer_name: str
    points: int
    title: str
    statement: object
    checks_what: str
    hint: str
    checks: object
    reveal_expected: bool = True
    draw: object = None
    hidden: object = None
    refuses: tuple = ()
    typed: bool = False
    explain: object = None
    solve: object = None
    keyed: bool = False

    def data(self, variant):
        """What *variant* draws for this exercise (``None`` for an exercise without a draw)."""
        return None if self.draw is None else self.draw(variant.rng(self.id))

    def statement_for(self, variant):
        """The statement as *variant*'s notebook shows it."""
        return self.statement(self.data(variant)) if callable(self.statement) else self.statement

    def public_checks(self, variant):
        """The checks ``check()`` runs (and the grader shows), for *variant*."""
        return self._public_from(self.data(variant))

    def hidden_checks(self, variant):
        """The grader's hidden checks for *variant* (which carries the grader's key)."""
        return self._hidden_from(variant, self.data(variant))

    def drawn_checks(self, variant, *, hidden=False):
        """``(public, hidden)``: :meth:`public_checks`, and with *hidden* :meth:`hidden_checks`
        (else ``()``), both built on one draw of :meth:`data`.

        Why one draw: drawing is most of the grader's own work per student
        (some exercises draw by rejection, with a reference computed on every
        try). Building the checks only reads the data, so both builders can
        share it (``tests/exercises/test_drawn_checks.py`` holds that).
        """
        data = self.data(variant)
        return self._public_from(data), self._hidden_from(variant, data) if hidden else ()

    def _public_from(self, data):
        return tuple(self.checks(data) if callable(self.checks) else self.checks)

    def _hidden_from(self, variant, data):
        if self.hidden is None:
            return ()
        return tuple(self.hidden(variant.hidden_rng(self.id), data))


#: The levels of a rubric criterion, in points: missing or wrong, partly there, complete.
RUBRIC_LEVELS = (0, 1, 2)


@dataclass(frozen=True)
class Criterion:
    """One rubric criterion, graded at one of :data:`RUBRIC_LEVELS` (0, 1 or 2 points).

    *looks_for* says what is graded; *anchors* holds one anchor answer per
    level, in level order (0, 1, 2): a short example of an answer at that
    level, so that two graders give the same level to the same answer.

    >>> Criterion("Limit", "a case the contract gets wrong", ("none", "vague", "named"))
    ... # doctest: +ELLIPSIS
    Criterion(name='Limit', ...)
    >>> Criterion("Limit", "a case", ("none", "named"))
    Traceback (most recent call last):
    ...
    ValueError: criterion 'Limit': expected one anchor answer per level 0, 1, 2, got 2
    """

    name: str
    looks_for: str
    anchors: tuple

    def __post_init__(self):
        if len(self.anchors) != len(RUBRIC_LEVELS) or not all(
                isinstance(anchor, str) and anchor.strip() for anchor in self.anchors):
            raise ValueError(f"criterion {self.name!r}: expected one anchor answer per level "
                             f"{', '.join(map(str, RUBRIC_LEVELS))}, got {len(self.anchors)}")

    @property
    def points(self):
        """The most a criterion gives: its top level."""
        return RUBRIC_LEVELS[-1]


def rubric_criteria(rubric):
    """``[(name, points, Criterion or None)]`` for a rubric of :class:`Criterion` or legacy pairs.

    A legacy rubric item is ``(criterion text, points)``, graded all or
    nothing; the course's own tasks use :class:`Criterion` (a test holds it).
    """
    rows = []
    for item in rubric:
        if isinstance(item, Criterion):
            rows.append((item.name, item.points, item))
        else:
            text, points = item
            rows.append((text, points, None))
    return rows


@dataclass(frozen=True)
class WrittenTask:
    """A written answer (markdown cell) graded by the instructor, by hand, with a rubric.

    Its answer cell has the nbgrader ``grade_id`` *id* (schema 3: ``grade``
    and ``solution`` true on a markdown cell: nbgrader's manually graded
    answer); *rubric* is a tuple of :class:`Criterion` (levels 0/1/2, an
    anchor answer for each), or of legacy ``(criterion, points)`` pairs, and
    adds up to *points*. No check runs: ``reasoneval-course grade`` lists it
    as ``awaiting_instructor`` with a blank score.
    """

    id: str
    notebook: str
    points: int
    title: str
    statement: str
    rubric: tuple

    def __post_init__(self):
        total = sum(points for _, points, _ in rubric_criteria(self.rubric))
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
        return _(self.text)


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
    #: The source page's distinction this check tests (``"None vs 0"``), or ``""``: while such
    #: a check fails, the exercise earns at most a third of its points.
    distinction: str = ""
    #: The refused function the answer called (``"parse_rational"``), or ``""``: an answer
    #: that delegates the exercise to the library earns nothing for it.
    delegated: str = ""

    def to_dict(self):
        """Return a plain dict (JSON- and CSV-friendly): what :func:`dataclasses.asdict` gives."""
        # Not asdict itself when every field is a text, a flag or a number (as every check of
        # the course makes them): it copies each field recursively, about 16 us a result, and
        # the grader makes a dict of every result of every student. Any other value (a check
        # built by hand may hold anything) keeps asdict's copy.
        plain = {name: getattr(self, name) for name in _RESULT_FIELDS}
        if all(type(value) in _SCALAR_TYPES for value in plain.values()):
            return plain
        return asdict(self)


_RESULT_FIELDS = tuple(field.name for field in fields(CheckResult))
#: Field values that :func:`dataclasses.asdict` would copy as they are.
_SCALAR_TYPES = frozenset({str, bool, int, float, type(None)})


def _replaced(result, **changes):
    """``dataclasses.replace(result, **changes)``: a copy of *result* with *changes*.

    Why not ``replace`` itself: the checks copy hundreds of results per graded
    student (to mark, conceal or rename them), and ``replace`` looks every
    field up again, three times the cost of building the copy by keyword. A
    :class:`CheckResult` holds its fields and nothing else, all set by
    ``__init__``; any other object (a check built by hand may return anything)
    goes through ``replace``, and raises as it does.
    """
    if type(result) is CheckResult:
        return CheckResult(**{**result.__dict__, **changes})
    return replace(result, **changes)


def conceal(result):
    """*result* as an exercise with ``reveal_expected=False`` shows it.

    A result built from a :class:`Withheld` is kept (its texts already hide
    the value); any other (a plain check, a hidden check) loses its expected
    value and its reason, which may show it (``expected exactly None, not
    False``); the call (which item) and the learner's own value stay.

    >>> hidden = conceal(CheckResult("v", False, "v()", "None", "False",
    ...                              "expected exactly None, not False"))
    >>> hidden.expected, hidden.message == NOT_YET
    ('withheld: the answer itself', True)
    """
    if result.withheld:
        return result
    message = result.message if result.passed or not result.attempted else _(NOT_YET)
    if result.actual.startswith(("NotImplementedError", "TypeError", "ValueError")) or (
            result.message.startswith(raised_prefix())):
        message = result.message  # the learner's own error shows nothing of the answer
    return _replaced(result, expected=_(WITHHELD), message=message, withheld=True)


def _call_answer(run, answer):
    """Run ``run(answer)``; return ``(value, error)`` with error None on success."""
    try:
        return run(answer), None
    except (Exception, SystemExit) as error:  # the learner's code may raise anything
        return None, error


class _Planned(BaseException):
    """Ends a plan's run early (no ``except Exception`` in a check's code stops it)."""


class _Unknown:
    """What a planned call returns: the value is not known yet, and nothing can be done with it."""

    __slots__ = ()


_UNKNOWN = _Unknown()
#: Calls planned per ``run`` at most (a run that loops on what its calls return stops here).
MAX_PLANNED_CALLS = 256


def planned_calls(checks):
    """The calls *checks* will make of the answer, as far as they can be known ahead: ``[(args, kwargs)]``.

    A check made by :func:`case`, :func:`rejects` or :func:`bundle` (as
    :func:`with_distinction` marks it), or one that names its ``runs``,
    knows how it calls the answer; each ``run`` is run on a recorder whose
    calls return a value nothing can be done with. What it calls before it
    uses a value (``[f(x) for x in inputs]``: every call; ``f(f(2))``: the
    first) is planned, in order. So the grader can ask the student's process
    for an exercise's calls at once, and its checks then find each answer
    ready; a call not planned (one that needs an earlier value, one of a
    check of another kind) is made when it comes.

    >>> planned_calls([case("double(2)", lambda f: f(2), 4),
    ...                bundle("both", [case("f(1)", lambda f: [f(1), f(3)], [2, 6]),
    ...                                rejects("f(-1)", lambda f: f(f(-1), strict=True))])])
    [((2,), {}), ((1,), {}), ((3,), {}), ((-1,), {})]
    """
    planned = []
    for check in checks:
        for run in getattr(check, "runs", None) or ():
            calls = []

            def recorder(*args, **kwargs):
                if _UNKNOWN in args or _UNKNOWN in kwargs.values() or len(calls) >= MAX_PLANNED_CALLS:
                    raise _Planned  # it needs a value no plan knows
                calls.append((args, kwargs))
                return _UNKNOWN

            try:
                run(recorder)
            except KeyboardInterrupt:
                raise
            except BaseException:  # noqa: B036 - a run stops where it uses an unknown value
                pass
            planned.extend(calls)
    return planned


def _failure(name, call, expected, error, withheld=False):
    if isinstance(error, NotImplementedError):
        return CheckResult(name, False, call, expected, "NotImplementedError",
                           _("not attempted yet: the function still raises NotImplementedError"),
                           attempted=False, withheld=withheld)
    if isinstance(error, DelegationRefused):
        return CheckResult(name, False, call, expected,
                           _("calls {function}").format(function=error.function),
                           _("{error}: this exercise earns nothing while it does").format(
                               error=error),
                           withheld=withheld, delegated=error.function)
    actual = f"{type(error).__name__}: {error}"
    return CheckResult(name, False, call, expected, actual,
                       _(RAISED).format(error_type=type(error).__name__, error=error),
                       withheld=withheld)


#: The source page's distinctions an exercise can mark a check with (issue 23): the one home
#: of their names, so that a misspelt mark fails when its check is built, not silently uncapped.
#: A mark is an id (the grader caps on it); feedback shows it through _().
DISTINCTIONS = (
    N_("None vs 0"),
    N_("None vs False"),
    N_("ValueError for a broken reference vs False"),
    N_("k > n refused vs clipped"),
    N_("per problem, then the mean"),
)

#: The page's denominators (coverage and success over the *planned* samples) give one more
#: mistake the execution-state exercises cap: a not_run sample dropped from the count. The
#: page states the rule, not a distinction of its own, so it is kept apart from the five.
DENOMINATOR_MISCONCEPTIONS = (
    N_("not_run in the denominator vs dropped"),
)

#: The statistics misconceptions of lesson 04 (issue 25) that cap an exercise like the page's
#: distinctions. They are not the page's words, so they are kept apart from DISTINCTIONS (a
#: test holds that set to the page's five), but they live here, beside them, so that every
#: mark is checked against one closed set. Pooling samples across problems needs no name of
#: its own: it is the page's "per problem, then the mean".
STATISTICS_MISCONCEPTIONS = (
    N_("t with m - 1 degrees of freedom, not z, for few problems"),
    N_("the paired difference, not two separate intervals"),
    N_("a corrected level for many comparisons"),
)

#: Every name a check may be marked with (see :func:`with_distinction`).
MARKS = DISTINCTIONS + DENOMINATOR_MISCONCEPTIONS + STATISTICS_MISCONCEPTIONS


def why_line(item, answer, why=""):
    """One line of an exercise's explanation (shown once it is right): ``item -> answer: why``.

    *answer* is shown as given (a verdict, a kind, a value's :func:`show`); *why*
    may be empty, and then the line ends at the answer. The separators are the
    catalogue's (a Chinese line reads ``item → answer：why``).

    >>> why_line("'0.5 kg'", None, "outside the declared answer space")
    "'0.5 kg' -> None: outside the declared answer space"
    >>> why_line("r03", "'timeout'")
    "r03 -> 'timeout'"
    """
    if not why:
        return _("{item} -> {answer}").format(item=item, answer=answer)
    return _("{item} -> {answer}: {why}").format(item=item, answer=answer, why=why)


def with_distinction(check, distinction):
    """*check*, its results marked as testing the source page's *distinction* (``""``: unmarked).

    Why: the page's distinctions (None vs 0, None vs False, ValueError vs
    False, k > n refused vs clipped, per problem then the mean) are what the
    exercises are for; an answer that gets one wrong must not keep most of
    the points because it is right on the other inputs. The grader caps an
    exercise with a failed marked check at a third of its points
    (:func:`~reasoneval_mini.exercises.registry.exercise_score`). A not_run
    sample dropped from a denominator (:data:`DENOMINATOR_MISCONCEPTIONS`) and the
    statistics misconceptions of :data:`STATISTICS_MISCONCEPTIONS` (z for few
    problems, two overlapping intervals as a test, no correction for many
    comparisons) are marked and capped the same way.
    """
    if not distinction:
        return check
    if distinction not in MARKS:
        raise ValueError(f"distinction must be one of {', '.join(map(repr, MARKS))}, "
                         f"got {distinction!r}")

    def marked(answer):
        return _replaced(check(answer), distinction=distinction)
    marked.runs = getattr(check, "runs", None)
    return marked


def case(call, run, expected, *, compare=same_value, name=None, distinction=""):
    """A check that ``run(answer)`` returns a value matching *expected*.

    *call* is the text shown to the learner, e.g. ``"pass_at_k(5, 2, 2)"``;
    *run* takes the learner's function and makes that call; *compare*
    returns ``""`` for a match or a short reason.  *expected* may be a
    zero-argument callable wrapped in :func:`lazy`, evaluated once, when
    first needed (for references that run subprocesses). *distinction*:
    see :func:`with_distinction`.
    """
    return with_distinction(_case(call, run, expected, compare, name), distinction)


def _case(call, run, expected, compare, name):
    def check(answer):
        want = expected.value() if isinstance(expected, lazy) else expected
        hidden = isinstance(want, Withheld)
        value, error = _call_answer(run, answer)
        if error is not None:
            return _failure(name or call, call, show(want), error, withheld=hidden)
        try:
            if hidden and compare in (same_value, same_set):
                # Their reasons name the expected value: give the Withheld's instead.
                why = compare(value, want.value) and want.why
            else:
                why = compare(value, want)
        except Exception as problem:  # an odd value must not crash the check
            why = _("could not compare ({error_type}: {error})").format(
                error_type=type(problem).__name__, error=problem)
        message = "ok" if not why else why
        return CheckResult(name or call, not why, call, show(want), show(value), message,
                           withheld=hidden)
    check.runs = (run,)
    return check


def _mentions(message, text):
    # A whole word: "n" must not be found inside "cannot".
    pattern = rf"(?<![A-Za-z0-9_]){re.escape(text)}(?![A-Za-z0-9_])"
    return re.search(pattern, message, re.IGNORECASE) is not None


def rejects(call, run, error_type=ValueError, *, mentions=(), avoids=(), name=None,
            distinction=""):
    """A check that ``run(answer)`` raises *error_type* (bad input refused).

    Each text in *mentions* must appear in the error message as a whole word
    (case-insensitive), e.g. the name of the bad value, so the error is clear;
    no text in *avoids* may appear (the names of values that were fine), so
    that a message naming every candidate does not pass for naming the bad one.

    >>> check = rejects("f(-1)", lambda f: f(-1), mentions="k", avoids=("n", "c"))
    >>> def vague(k):
    ...     raise ValueError("one of n, c or k is wrong")
    >>> print(check(vague).message)
    the message also names 'n', 'c', which were fine: name only what is wrong
    """
    mentions = (mentions,) if isinstance(mentions, str) else tuple(mentions)
    avoids = (avoids,) if isinstance(avoids, str) else tuple(avoids)

    def expected_text():
        # Built when the check runs, not when it is made: in the language of that moment.
        return _("raises {error_type}").format(error_type=error_type.__name__) + "".join(
            _(", message mentions {text!r}").format(text=text) for text in mentions) + (
            _(", and not {texts}").format(texts=join_items(map(repr, avoids))) if avoids else "")

    def check(answer):  # withheld: see CheckResult.withheld
        expected = expected_text()
        value, error = _call_answer(run, answer)
        if isinstance(error, NotImplementedError) and error_type is not NotImplementedError:
            return _failure(name or call, call, expected, error, withheld=True)
        if isinstance(error, error_type):
            actual = f"{type(error).__name__}: {error}"
            absent = [text for text in mentions if not _mentions(str(error), text)]
            named = [text for text in avoids if _mentions(str(error), text)]
            message = (_("the message does not mention {text!r}").format(text=absent[0])
                       if absent else
                       ngettext("the message also names {texts}, which was fine: name only what "
                                "is wrong",
                                "the message also names {texts}, which were fine: name only what "
                                "is wrong", len(named)).format(texts=join_items(map(repr, named)))
                       if named else "ok")
            return CheckResult(name or call, not (absent or named), call, expected, actual,
                               message, withheld=True)
        if error is not None:
            return _failure(name or call, call, expected, error, withheld=True)
        return CheckResult(name or call, False, call, expected, show(value),
                           _("returned a value instead of raising {error_type}").format(
                               error_type=error_type.__name__), withheld=True)
    check.runs = (run,)
    return with_distinction(check, distinction)


def _unique(texts):
    return list(dict.fromkeys(texts))


def bundle(call, parts, *, name=None, distinction=""):
    """A check that passes only when every check in *parts* passes.

    Why: the grader gives ``points * passed / total``, so with one check per
    input a misconception that is right on most inputs (the plug-in at k = 1,
    an answer that never validates, one that validates but computes wrongly)
    earns most of the points. A bundle holds the inputs that tell each listed
    misconception apart, so that it fails most bundles.

    The failed parts are reported one after the other (``call: why``),
    ``" | "``-separated; a sentence an earlier part already gave is not
    repeated, and identical texts of expected or actual values are shown
    once. A bundle built from :class:`Withheld` parts is ``withheld`` too;
    it is "not attempted" when every part is.

    >>> check = bundle("double on 1 and 2", [case("double(1)", lambda f: f(1), 2),
    ...                                      case("double(2)", lambda f: f(2), 4)])
    >>> result = check(lambda x: x + 1)
    >>> result.passed, result.message
    (False, 'double(2): different value')
    """
    parts = tuple(parts)

    def check(answer):
        results = [part(answer) for part in parts]
        withheld = any(result.withheld for result in results)
        failed = [result for result in results if not result.passed]
        if not failed:
            return CheckResult(name or call, True, call,
                               " | ".join(_unique(r.expected for r in results)),
                               " | ".join(_unique(r.actual for r in results)), "ok",
                               withheld=withheld)
        if not any(result.attempted for result in results):
            return _replaced(failed[0], name=name or call, call=call)
        delegated = next((result.delegated for result in failed if result.delegated), "")
        given, reasons = set(), []
        for result in failed:
            sentences = [s for s in result.message.split("; ") if s not in given]
            given.update(sentences)
            reasons.append(f"{result.call}: " + ("; ".join(sentences) or _("as above")))
        return CheckResult(name or call, False, call,
                           " | ".join(_unique(r.expected for r in failed)),
                           " | ".join(_unique(r.actual for r in failed)), " | ".join(reasons),
                           withheld=withheld, delegated=delegated)
    runs = [getattr(part, "runs", None) for part in parts]
    check.runs = None if None in runs else tuple(run for part in runs for run in part)
    return with_distinction(check, distinction)


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
            return _("not one of the choices {choices} (got {value})").format(
                choices=listed, value=show(actual))
        return "" if same_value(actual, expected.value) == "" else _(why)
    return compare


def _is_one_of(value, choices):
    return any(same_value(value, choice) == "" for choice in choices)


def withheld_predictions(choices, *, noun):
    """A comparison for a :class:`Withheld` dict of predictions, item -> one of *choices*.

    The items (the keys) are given by the statement and may be named; the
    predictions may not. So it checks the keys and that every prediction is
    one of *choices* (both are about the learner's own value and the public
    statement), then says only :data:`NOT_YET` or nothing: never how many
    predictions are wrong, never which, and no reason that differs with the
    wrong item, since a few tries per item would find every answer through
    any of those. *choices* ``None`` accepts any prediction (sets, for instance).

    >>> compare = withheld_predictions((True, False, None), noun="verdict")
    >>> compare({"a": True, "b": True}, Withheld({"a": True, "b": False})) == NOT_YET
    True
    >>> compare({"a": False, "b": True}, Withheld({"a": True, "b": False})) == NOT_YET
    True

    Surprising: a text in place of ``None`` is not a wrong verdict but no verdict at all.

    >>> compare({"a": "None", "b": False}, Withheld({"a": True, "b": False}))
    "'None' is not a verdict here: every verdict must be one of True, False, None"
    """
    def compare(actual, expected):
        wanted = expected.value
        if not isinstance(actual, dict):
            return _("expected a dict mapping each item to its {noun}, got {type_name}").format(
                noun=_(noun), type_name=type(actual).__name__)
        if set(actual) != set(wanted):
            return _("expected exactly the keys {keys}, got {value}").format(
                keys=show(set(wanted)), value=show(set(actual)))
        odd = [value for value in actual.values()
               if choices is not None and not _is_one_of(value, choices)]
        if odd:
            listed = ", ".join(show(choice) for choice in choices)
            # The value first: a long list of choices may be cut off when printed.
            return _("{value} is not a {noun} here: every {noun} must be one of {choices}").format(
                value=show(odd[0]), noun=_(noun), choices=listed)
        if any(same_value(actual[item], wanted[item]) for item in wanted):
            return _(NOT_YET)
        return ""
    return compare


def withheld_subset(universe, *, noun, items="items", unknown=N_("not {}: {}")):
    """A comparison for a :class:`Withheld` set, drawn from *universe* (``None``: any items).

    It checks that the value is a set of items from *universe* (*unknown* is
    formatted with *items* and the chosen values outside it), then says only
    :data:`NOT_YET` or nothing: not how many picks are wrong, not whether
    something is left out. *noun* names the elements in the type message.

    >>> compare = withheld_subset("abcd", noun="letter", items="letters")
    >>> compare({"a", "c"}, Withheld({"a", "b"})) == compare(set(), Withheld({"a", "b"})) == NOT_YET
    True
    >>> compare({"a", "z"}, Withheld({"a", "b"}))
    "not letters: ['z']"
    """
    def compare(actual, expected):
        if isinstance(actual, (str, bytes, dict)):
            return _("expected a set of {noun}s, got {type_name}").format(
                noun=_(noun), type_name=type(actual).__name__)
        try:
            chosen = set(actual)
        except TypeError:
            return _("expected a set of {noun}s, got {type_name}").format(
                noun=_(noun), type_name=type(actual).__name__)
        if universe is not None:
            outside = sorted(str(item) for item in chosen if item not in universe)
            if outside:
                return _(unknown).format(_(items), show(outside))
        return "" if chosen == set(expected.value) else _(NOT_YET)
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
