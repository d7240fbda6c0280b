"""The exercise set's single source of truth: ids, notebooks, points, checks.

:data:`EXERCISES` maps each exercise id (``^[a-zA-Z0-9_-]*$``, also the
nbgrader ``grade_id`` of its solution cell) to an :class:`Exercise`, in
course order. The notebooks in ``solutions/`` (masters) and ``exercises/``
(generated) have the file names in :data:`NOTEBOOKS`, read from
:data:`reasoneval_mini.course_map.EXERCISE_NOTEBOOKS`; the exercises of
``exNN_name.ipynb`` are the ``EXERCISES`` tuple of the module
``reasoneval_mini.exercises.exNN_name``. Each exercise's answer is the
function ``answer_name`` defined in its notebook.

:func:`run_checks` grades one answer and never raises because of the
learner's code; :func:`exercise_state` turns results into one of
:data:`EXERCISE_STATES`.

Hidden tests (for ``reasoneval-course grade --hidden-tests PATH``) are a
Python file kept outside the package that defines ``HIDDEN_CHECKS``, a dict
from exercise id to a list of checks built with the same constructors::

    from reasoneval_mini.exercises.checks import case, rejects
    from reasoneval_mini import pass_at_k
    HIDDEN_CHECKS = {
        "kp2_exact_pass_at_k": [
            case("exact_pass_at_k(7, 3, 4)", lambda f: f(7, 3, 4), ...),
            rejects("exact_pass_at_k(3, 1, 4)", lambda f: f(3, 1, 4), ValueError),
        ],
    }

The grader reads and validates such a file with
:func:`reasoneval_mini.grading.instructor_checks.load_hidden_checks`.

>>> results = run_checks("kp2_two_subsets", lambda: [(0, 1)])
>>> exercise_state(results)
'failed'
>>> run_checks("no_such_exercise", print)
Traceback (most recent call last):
...
ValueError: unknown exercise id 'no_such_exercise'; valid ids: ...
"""

import importlib
import re
from fractions import Fraction

from reasoneval_mini.course_map import EXERCISE_NOTEBOOKS
from reasoneval_mini.exercises.checks import (
    NOT_ATTEMPTED, RUBRIC_LEVELS, CheckResult, Exercise, WrittenTask, conceal, rubric_criteria)
from reasoneval_mini.exercises.typed import typed_value
from reasoneval_mini.exercises.variants import DEFAULT_IDENTITY, Variant, current_variant
from reasoneval_mini.support.arguments import ArgumentTypeError
from reasoneval_mini.support.call_watch import resolve_refused, watched
from reasoneval_mini.support.i18n import N_, _, join_items, ngettext
from reasoneval_mini.support.text import cut

__all__ = [
    "CheckResult", "EXERCISES", "NOT_ATTEMPTED", "EXERCISE_STATES", "Exercise", "NOTEBOOKS",
    "STATE_FAILED", "STATE_NOT_ATTEMPTED", "STATE_PASSED", "exercise_score", "exercise_state",
    "WRITTEN_TASKS", "WrittenTask", "get_exercise", "render_rubric_markdown",
    "render_task_markdown", "run_checks",
]

# Ids (the grader and the progress table compare them); N_: shown through _().
STATE_PASSED = N_("passed")
STATE_FAILED = N_("failed")
STATE_NOT_ATTEMPTED = N_("not attempted")
#: What one exercise can be, judged from its check results.
EXERCISE_STATES = (STATE_PASSED, STATE_FAILED, STATE_NOT_ATTEMPTED)

#: Longest text shown for an answer that is not a function.
SHOWN_VALUE_CHARS = 200

#: nbgrader's rule for grade ids, which our exercise ids follow.
ID_PATTERN = re.compile(r"^[a-zA-Z0-9_-]*$")

#: Notebook file names, in course order (same names in solutions/ and exercises/).
NOTEBOOKS = tuple(entry.notebook for entry in EXERCISE_NOTEBOOKS)


def _collect_exercises():
    # The course map declares the order; each notebook's module declares its exercises.
    exercises = {}
    for entry in EXERCISE_NOTEBOOKS:
        for exercise in importlib.import_module(entry.module).EXERCISES:
            if exercise.notebook != entry.notebook or exercise.id in exercises:
                raise ValueError(f"{entry.module}: exercise {exercise.id!r} must be unique and "
                                 f"belong to {entry.notebook!r}, got {exercise.notebook!r}")
            exercises[exercise.id] = exercise
    return exercises


EXERCISES = _collect_exercises()


def _collect_written_tasks():
    # Written tasks sit in the same notebooks; their ids share the grade-id namespace.
    written = {}
    for entry in EXERCISE_NOTEBOOKS:
        for task in getattr(importlib.import_module(entry.module), "WRITTEN_TASKS", ()):
            if (task.notebook != entry.notebook or task.id in written or task.id in EXERCISES
                    or not ID_PATTERN.match(task.id)):
                raise ValueError(f"{entry.module}: written task {task.id!r} must have a unique "
                                 f"id and belong to {entry.notebook!r}, got {task.notebook!r}")
            written[task.id] = task
    return written


#: Written answers graded by hand (markdown answer cells), by id, in course order.
WRITTEN_TASKS = _collect_written_tasks()


def _points(count):
    return ngettext("{count} point", "{count} points", count).format(count=count)


def _text(text):
    """An exercise's own text (title, statement, rubric) in the current language, if catalogued."""
    return _(text) if isinstance(text, str) and text else text


def render_rubric_markdown(task_id):
    """The rubric of written task *task_id*, as the solutions notebook shows it.

    Each criterion is listed with what it looks for and, from the top level
    down, the anchor answer of each level.

    >>> print(render_rubric_markdown("kp1_explain_answer_space").splitlines()[0])
    **Rubric (6 points; each criterion 0, 1 or 2)**
    """
    task = WRITTEN_TASKS[task_id]
    rows = rubric_criteria(task.rubric)
    levels = _("{levels} or {top}").format(
        levels=join_items(map(str, RUBRIC_LEVELS[:-1])), top=RUBRIC_LEVELS[-1])
    with_levels = all(criterion is not None for __, __, criterion in rows)
    lines = [(_("**Rubric ({points}; each criterion {levels})**") if with_levels else
              _("**Rubric ({points})**")).format(points=_points(task.points), levels=levels), ""]
    for name, points, criterion in rows:
        if criterion is None:
            lines.append(_("- {criterion} ({points})").format(criterion=_text(name),
                                                              points=_points(points)))
            continue
        lines.append(_("- **{criterion}** ({points}): {looks_for}").format(
            criterion=_text(name), points=_points(points), looks_for=_text(criterion.looks_for)))
        lines += [f"    - {level}: {_text(anchor)}"
                  for level, anchor in reversed(list(zip(RUBRIC_LEVELS, criterion.anchors)))]
    return "\n".join(lines)


def render_task_markdown(exercise_id, variant=None):
    """The markdown of an exercise's task cell (grade id ``<id>_task``).

    The registry is the one place an exercise's title, statement, points and
    "what the check tests" are written; ``reasoneval-course build-exercises``
    writes this rendering into the task cells of ``solutions/`` and
    ``exercises/``. Exercises are numbered by notebook, then by position.

    >>> print(render_task_markdown("kp2_two_subsets").splitlines()[0])
    ## 2.1 Warm-up: every 2-subset of n completions (1 point)

    A written task (:data:`WRITTEN_TASKS`) is numbered after the exercises of
    its notebook and says that the instructor grades it.
    """
    if exercise_id in WRITTEN_TASKS:
        return _render_written_task(WRITTEN_TASKS[exercise_id])
    exercise = get_exercise(exercise_id)
    variant = Variant(DEFAULT_IDENTITY) if variant is None else variant
    siblings = [e.id for e in EXERCISES.values() if e.notebook == exercise.notebook]
    number = f"{NOTEBOOKS.index(exercise.notebook) + 1}.{siblings.index(exercise.id) + 1}"
    # "Exercise id: `...`" stays in English in every edition: the grader looks for it.
    return (_("## {number} {title} ({points})").format(
                number=number, title=_text(exercise.title), points=_points(exercise.points))
            + f"\n\nExercise id: `{exercise.id}`\n\n"
            f"{_text(exercise.statement_for(variant))}\n\n"
            + _("**What the check tests:** {checks_what}").format(
                checks_what=_text(exercise.checks_what)) + "\n\n"
            + _("Stuck? Run `hint(\"{exercise_id}\")`.").format(exercise_id=exercise.id))


def _render_written_task(task):
    exercises = [e.id for e in EXERCISES.values() if e.notebook == task.notebook]
    written = [w.id for w in WRITTEN_TASKS.values() if w.notebook == task.notebook]
    number = (f"{NOTEBOOKS.index(task.notebook) + 1}."
              f"{len(exercises) + written.index(task.id) + 1}")
    rows = rubric_criteria(task.rubric)
    criteria = join_items(_text(name) if criterion else _text(name).split(":")[0]
                          for name, __, criterion in rows)
    if all(criterion is not None for __, __, criterion in rows):
        criteria += _("; each criterion 0, 1 or 2 points")
    # "Written task id: `...`" stays in English in every edition: the grader looks for it.
    return (_("## {number} Written: {title} ({points})").format(
                number=number, title=_text(task.title), points=_points(task.points))
            + f"\n\nWritten task id: `{task.id}`\n\n"
            f"{_text(task.statement)}\n\n"
            + _("**How it is graded:** by your instructor, by hand, with a rubric "
                "({criteria}). No check runs here: write your answer in the cell below, in "
                "place of *YOUR ANSWER HERE*.").format(criteria=criteria))


def get_exercise(exercise_id):
    """Return the :class:`Exercise` for *exercise_id*; ``ValueError`` lists the valid ids.

    An id that is not a ``str`` raises :class:`ArgumentTypeError` (a ``ValueError``).
    """
    if not isinstance(exercise_id, str):
        raise ArgumentTypeError(f"an exercise id is a str, got {exercise_id!r} "
                                f"({type(exercise_id).__name__}); valid ids: {', '.join(EXERCISES)}")
    try:
        return EXERCISES[exercise_id]
    except KeyError:
        raise ValueError(
            f"unknown exercise id {exercise_id!r}; valid ids: {', '.join(EXERCISES)}"
        ) from None


def _run_one(check, answer):
    try:
        result = check(answer)
    except Exception as error:  # a broken check must not hide the others
        return CheckResult(getattr(check, "__name__", "check"), False, "", "", "",
                           _("the check itself failed: {error_type}: {error}").format(
                               error_type=type(error).__name__, error=error))
    if not isinstance(result, CheckResult):
        return CheckResult("check", False, "", "", repr(result),
                           _("the check did not return a CheckResult"))
    return result


def _typed(answer):
    """*answer* as a typed prediction: the literal its source returns (see :mod:`.typed`)."""
    def typed(*args, **kwargs):
        return typed_value(answer)
    typed.__name__ = getattr(answer, "__name__", "answer")
    return typed


def run_checks(exercise_id, answer, extra_checks=(), *, variant=None, hidden=False,
               in_process=True, drawn=None):
    """Run every check of *exercise_id* for *variant* (then *extra_checks*) on *answer*.

    Returns a list of :class:`CheckResult`, one per check, in order: the
    public checks of *variant* (default: :func:`~.variants.current_variant`),
    then, with *hidden*, its hidden checks (the variant must carry the
    grader's key), then *extra_checks*. An *answer* that is not callable
    gives a single failed result saying which function was expected.

    *in_process* (``check()``): the answer runs here, so a typed exercise
    reads the literal from its source and each call is watched for the
    exercise's refused functions. The grader passes False: its answer is
    a stand-in whose calls are watched in the grading process, and a typed
    answer is read from the notebook cell by the grader itself.
    For an exercise with ``reveal_expected=False`` every result is
    :func:`~reasoneval_mini.exercises.checks.conceal`-ed.

    *drawn*: the ``(public, hidden)`` checks of *variant*, as
    :meth:`~reasoneval_mini.exercises.checks.Exercise.drawn_checks` built them
    with *hidden*, run in place of a fresh draw (the grader draws each
    student's once); ``None`` draws them here.
    """
    exercise = get_exercise(exercise_id)
    variant = current_variant() if variant is None else variant
    if not callable(answer):
        return [CheckResult(
            f"{exercise.answer_name} is a function", False, exercise.answer_name,
            _("a function"), cut(f"{type(answer).__name__}: {answer!r}", SHOWN_VALUE_CHARS),
            _("expected the function {function} itself (from {notebook}); pass it without "
              "calling it: {function}, not {function}()").format(
                  function=exercise.answer_name, notebook=exercise.notebook))]
    if in_process and exercise.typed:
        answer = _typed(answer)
    elif in_process:
        answer = watched(answer, resolve_refused(exercise.refuses))
    public, secret = exercise.drawn_checks(variant, hidden=hidden) if drawn is None else drawn
    checks = tuple(public) + tuple(secret) + tuple(extra_checks)
    results = [_run_one(check, answer) for check in checks]
    # One place decides what a prediction exercise may show, for the notebook and the grader.
    return results if exercise.reveal_expected else [conceal(result) for result in results]


def _field(result, name, default=None):
    return result.get(name, default) if isinstance(result, dict) else getattr(result, name, default)


def exercise_score(points, public, hidden=()):
    """The points an exercise earns from its *public* and *hidden* results, as a Fraction.

    Results are :class:`CheckResult` objects or their dicts. The rules, in order:

    1. an answer that called a refused function (``delegated``) earns 0;
    2. the share of checks passed is taken on the *hidden* checks where there
       are any (inputs the student never saw: a table of the public inputs
       earns nothing there), else on the public ones;
    3. a failed check that tests one of the source page's distinctions caps
       the exercise at a third of its points.

    >>> ok = CheckResult("a", True, "a()", "1", "1", "ok")
    >>> wrong = CheckResult("b", False, "b()", "1", "0", "different value")
    >>> exercise_score(3, [ok, ok], [ok, wrong])
    Fraction(3, 2)

    Surprising: passing every public check earns nothing when every hidden one fails.

    >>> exercise_score(3, [ok, ok], [wrong, wrong])
    Fraction(0, 1)
    >>> from dataclasses import replace
    >>> exercise_score(3, [ok], [ok, ok, replace(wrong, distinction="None vs 0")])
    Fraction(1, 1)
    """
    public, hidden = list(public), list(hidden)
    if any(_field(result, "delegated") for result in public + hidden):
        return Fraction(0)
    scored = hidden or public
    if not scored:
        return Fraction(0)
    share = Fraction(sum(bool(_field(result, "passed")) for result in scored), len(scored))
    if any(_field(result, "distinction") and not _field(result, "passed")
           for result in public + hidden):
        share = min(share, Fraction(1, 3))
    return points * share


def exercise_state(results):
    """``"passed"`` if every result passed, ``"not attempted"`` if every one
    came from an untouched stub, else ``"failed"`` (also for no results)."""
    results = list(results)
    if results and all(result.passed for result in results):
        return STATE_PASSED
    if results and not any(result.attempted for result in results):
        return STATE_NOT_ATTEMPTED
    return STATE_FAILED
