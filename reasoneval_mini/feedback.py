"""Feedback in the notebook: ``check``, ``hint`` and ``progress``.

``check("<exercise id>", answer)`` runs that exercise's checks on your
function and prints, per test, PASS or FAIL with the call, the expected and
the actual value; it never shows a bare traceback. For prediction and choice
exercises (``Exercise(..., reveal_expected=False)``) the expected value is
the answer, so it is shown as *withheld* and the why line says how many
items are wrong, never which (see :func:`reasoneval_mini.exercises.checks.withheld_predictions`
and :func:`~reasoneval_mini.exercises.checks.conceal`). A function that still
raises ``NotImplementedError`` is reported as "not attempted yet".
``hint("<id>")`` prints the hint; ``progress()`` prints every exercise with
the state its last ``check`` in this session gave (``progress("exercises")``
evaluates the notebooks of a folder instead, like ``reasoneval-course
progress``). Output is deterministic: no timings, addresses or paths.

Under nbgrader (``nbgrader autograde`` and ``validate`` set the environment
variable ``NBGRADER_EXECUTION``), ``check`` prints the same report and then
raises :class:`ExerciseNotPassed` unless every test passed: nbgrader gives a
graded cell its points when the cell raises nothing, so without this every
check cell would score. For a learner it never raises.

``check`` stops your function after :data:`CHECK_TIME_LIMIT_S` seconds (an
endless loop, a ``sleep`` that never ends) and says so in one message, with
no traceback; see :mod:`reasoneval_mini.support.time_limit` for how, on
POSIX and on Windows. A mistyped exercise id is answered with the closest
valid ids, not with a traceback.

When several tests fail with the same ``TypeError`` (usually a function with
the wrong parameters), the printout shows it once, with the count and the
parameters the function takes; the results (one per test) are unchanged.

Every line speaks the kernel's language (:func:`~reasoneval_mini.support.i18n.use_language`,
which a zh-CN notebook calls in its first code cell): the words come from the
catalogue, the values (calls, expected and actual values, ids) are the same in
every language, and so are the states a :class:`CheckReport` holds.

>>> report = check("kp2_two_subsets", lambda n: [(0, 1)])  # doctest: +ELLIPSIS
kp2_two_subsets: Warm-up: every 2-subset of n completions (1 point)
  FAIL  two_subsets(5)
          expected: 10 | ...
          actual:   1 | {{0, 1}}
          why:      len(two_subsets(5)): different value
...
>>> report.state
'failed'
"""

import difflib
import inspect
import os
import re
import textwrap
from collections import Counter
from dataclasses import dataclass

from reasoneval_mini.exercises.registry import (
    EXERCISES, STATE_FAILED, STATE_NOT_ATTEMPTED, STATE_PASSED, WRITTEN_TASKS, exercise_state,
    get_exercise, run_checks)
from reasoneval_mini.exercises.variants import current_variant, use_variant
from reasoneval_mini.grading.context import under_grader
from reasoneval_mini.support.i18n import DEFAULT_LANGUAGE, N_, _, language, ngettext
from reasoneval_mini.support.text import cut, pad
from reasoneval_mini.support.time_limit import TimeLimitExceeded, call_with_time_limit

#: Longest expected/actual text printed, in characters.
MAX_SHOWN_CHARS = 300

#: Width of the reason lines: JupyterLab wraps a longer output line anywhere, even mid-word.
REASON_WIDTH = 100

#: A reason is teaching text, wrapped over lines: cut later than a value (which may be huge).
MAX_REASON_CHARS = 800
#: Shown by :func:`progress` for an exercise not checked in this session.
NOT_CHECKED = N_("not checked yet")

#: Seconds ``check`` lets all the tests of one exercise run: the slowest solution needs
#: well under one second, so a few seconds mean a loop that does not end.
CHECK_TIME_LIMIT_S = 5

#: Values of ``NBGRADER_EXECUTION`` under which a failed check raises.
NBGRADER_MODES = ("autograde", "validate")

# exercise id -> state of its last check() in this kernel session.
_SESSION_STATES = {}


class ExerciseNotPassed(AssertionError):
    """Raised by :func:`check` under nbgrader only, so that the cell scores 0."""


@dataclass(frozen=True)
class CheckReport:
    """What :func:`check` found: the state and every :class:`CheckResult`."""

    exercise_id: str
    state: str
    results: tuple

    def __repr__(self):
        passed = sum(result.passed for result in self.results)
        return f"<CheckReport {self.exercise_id}: {self.state}, {passed}/{len(self.results)} tests pass>"

    def _ipython_display_(self):
        # check() has printed everything; a repr under it would only repeat it.
        pass


def _shown(text):
    # Values keep their line breaks (a table stays a table), but not their length.
    return cut(text, MAX_SHOWN_CHARS)


def _points(count):
    """``"1 point"``, ``"3 points"``, in the current language."""
    return ngettext("{count} point", "{count} points", count).format(count=count)


def text_of(text):
    """An exercise's own text (title, hint) in the current language, if the catalogue has it."""
    return _(text) if isinstance(text, str) and text else text


def _heading(exercise):
    return _("{exercise_id}: {title} ({points})").format(
        exercise_id=exercise.id, title=text_of(exercise.title), points=_points(exercise.points))


def _reason_lines(reason, prefix):
    """*reason* after *prefix*, wrapped at word boundaries; a wrapped part is indented 2 more."""
    if "\n" in reason:  # a reason with its own layout keeps it
        return [prefix + reason]
    return textwrap.wrap(reason, REASON_WIDTH, initial_indent=prefix,
                         subsequent_indent=" " * (len(prefix) + 2),
                         break_long_words=False, break_on_hyphens=False) or [prefix.rstrip()]


def _parameters_text(answer):
    """``"takes 2 parameters (n, c)"``, or ``""`` when the signature is unknown."""
    try:
        names = list(inspect.signature(answer).parameters)
    except (TypeError, ValueError):  # builtins and odd callables may have none
        return ""
    count = len(names)
    if not names:
        return ngettext("takes {count} parameter", "takes {count} parameters", count).format(
            count=count)
    return ngettext("takes {count} parameter ({names})", "takes {count} parameters ({names})",
                    count).format(count=count, names=", ".join(names))


def _same_type_error_lines(group, answer):
    """One block for several tests that all raised the same TypeError."""
    takes = _parameters_text(answer) if answer is not None else ""
    # Python's wording when a call does not fit the parameters.
    about_arguments = re.search(r"argument|takes \d+|missing \d+", group[0].actual)
    why = (_("your function {takes}; the checks call it as {call}").format(
        takes=takes, call=group[0].call) if takes and about_arguments else group[0].message)
    return [_("  FAIL  {count} tests raised the same TypeError, the first: {call}").format(
                count=len(group), call=_shown(group[0].call)),
            _("          actual:   {value}").format(value=_shown(group[0].actual)),
            _("          why:      {reason}").format(reason=_shown(why))]


def _repeated_type_errors(results):
    # actual text -> the failed results that raised exactly that TypeError.
    failed = [r for r in results if not r.passed and r.actual.startswith("TypeError:")]
    counts = Counter(r.actual for r in failed)
    return {text: [r for r in failed if r.actual == text] for text, n in counts.items() if n > 1}


def format_report(exercise, results, answer=None):
    """The lines :func:`check` prints, as one string (*answer* names its parameters)."""
    state = exercise_state(results)
    lines = [_heading(exercise)]
    if state == STATE_NOT_ATTEMPTED:
        lines.append(_("  not attempted yet: replace `raise NotImplementedError()` in "
                       "{function} with your code, then run this cell again.").format(
                           function=exercise.answer_name))
        return "\n".join(lines)
    repeated = _repeated_type_errors(results)
    for result in results:
        group = repeated.get(result.actual) if not result.passed else None
        if group:
            if result is group[0]:
                lines += _same_type_error_lines(group, answer)
            continue
        if result.passed:
            lines.append(_("  PASS  {call}  ->  {value}").format(
                call=_shown(result.call), value=_shown(result.actual)))
            continue
        # A bundle of checks gives one reason per failed part, " | "-separated: one line each.
        reasons = [cut(reason, MAX_REASON_CHARS) for reason in result.message.split(" | ")]
        lines += [_("  FAIL  {call}").format(call=_shown(result.call)),
                  _("          expected: {value}").format(value=_shown(result.expected)),
                  _("          actual:   {value}").format(value=_shown(result.actual))]
        why = _("          why:      ")
        for number, reason in enumerate(reasons):
            lines += _reason_lines(reason, why if number == 0 else " " * 20)
    lines += _distinction_lines(results)
    return "\n".join(lines + _summary_lines(exercise, results, state))


def _distinction_lines(results):
    """One line per distinction of the page that a failed test checks (each once)."""
    named = []
    for result in results:
        if result.distinction and not result.passed and result.distinction not in named:
            named.append(result.distinction)
    return [line for distinction in named for line in _reason_lines(
        _("A failed test checks the distinction {distinction}, which this exercise is about: "
          "while it fails, the exercise earns at most a third of its points.").format(
              distinction=_(distinction)), _("  note: "))]


def _summary_lines(exercise, results, state):
    """The closing lines: never "all tests pass", since the grader runs checks of its own."""
    passed = sum(result.passed for result in results)
    if not exercise.reveal_expected:
        if state != STATE_PASSED:
            return [_("Not yet. For a hint, run hint({exercise_id!r}).").format(
                exercise_id=exercise.id)]
        lines = [_("Right.")]
        why = exercise.explain(exercise.data(current_variant())) if exercise.explain else ""
        if why:
            lines += [_("Why:")] + [f"  {line}" for line in why.splitlines()]
        return lines
    public = ngettext("{passed} of {count} public check passes",
                      "{passed} of {count} public checks pass", len(results)).format(
                          passed=passed, count=len(results))
    if state == STATE_PASSED:
        if exercise.hidden is None:
            return _reason_lines(_("{public}.").format(public=public), "")
        return _reason_lines(_("{public}. The grader adds hidden checks on inputs you have not "
                               "seen: make sure your function follows the statement, not only "
                               "these examples.").format(public=public), "")
    return [_("{public}. For a hint, run hint({exercise_id!r}).").format(
        public=public, exercise_id=exercise.id)]


def task_data(exercise_id):
    """What this notebook's variant draws for *exercise_id*: the items its statement lists.

    The exercise notebooks call it in the cell that prints a task's items
    (``PROGRAMS = task_data("kp3_predict_statuses")``); it follows
    :func:`~reasoneval_mini.exercises.variants.use_variant`.
    """
    return get_exercise(exercise_id).data(current_variant())


def unknown_id_message(exercise_id):
    """What to say about an id that names no exercise: the closest valid ids, or all of them.

    >>> print(unknown_id_message("kp2_two_subset"))
    There is no exercise 'kp2_two_subset'. Did you mean 'kp2_two_subsets' or ...?
    """
    if not isinstance(exercise_id, str):
        return _("An exercise id is a text in quotes, like \"kp2_two_subsets\"; "
                 "got {value!r} ({type_name}).").format(
                     value=exercise_id, type_name=type(exercise_id).__name__)
    close = difflib.get_close_matches(exercise_id, list(EXERCISES) + list(WRITTEN_TASKS),
                                      n=3, cutoff=0.6)
    if close:
        return _("There is no exercise {exercise_id!r}. Did you mean {choices}?").format(
            exercise_id=exercise_id, choices=_(" or ").join(map(repr, close)))
    return _("There is no exercise {exercise_id!r}. The ids are shown in each task cell "
             "(\"Exercise id: ...\"); progress() lists them all.").format(exercise_id=exercise_id)


def _known(exercise_id):
    # Printed, not raised: in a notebook a ValueError shows a traceback through the package.
    if isinstance(exercise_id, str) and exercise_id in EXERCISES:
        return True
    if isinstance(exercise_id, str) and exercise_id in WRITTEN_TASKS:
        # Not "no exercise ...; did you mean <the same id>?": it exists, it is just not checked.
        print(_("{exercise_id} is a written task: there is nothing to check. Write your answer in "
                "its markdown cell, in place of YOUR ANSWER HERE; your instructor grades it by "
                "hand.").format(exercise_id=exercise_id))
        return False
    print(unknown_id_message(exercise_id))
    return False


def _stopped_report(exercise, seconds):
    return (_heading(exercise) + "\n"
            + _("  STOPPED  {function} was still running after {seconds} s, so the "
                "check stopped it.").format(function=exercise.answer_name, seconds=f"{seconds:g}")
            + "\n"
            # Short lines: JupyterLab wraps a long output line mid-word.
            + _("  Look for a loop that never ends (a `while` whose condition never changes,\n"
                "  a counter that is never increased) or a call that waits forever; try your\n"
                "  function on one small input in a new cell first."))


def check(exercise_id, answer, *, time_limit_s=CHECK_TIME_LIMIT_S):
    """Run the checks of *exercise_id* on *answer*, print them, return a :class:`CheckReport`.

    All the tests together may run *time_limit_s* seconds; after that the
    answer is stopped, a message says so, and the report's state is
    ``"failed"`` with no results. An unknown id prints the closest valid ids
    and returns ``None``. Inside a grading process it runs nothing and
    returns ``None``: the grader runs its own checks
    (:mod:`reasoneval_mini.grading.context`).
    """
    if under_grader() or not _known(exercise_id):
        return None
    exercise = get_exercise(exercise_id)
    try:
        results = tuple(call_with_time_limit(lambda: run_checks(exercise_id, answer),
                                             time_limit_s))
    except TimeLimitExceeded:
        results, state = (), STATE_FAILED
        print(_stopped_report(exercise, time_limit_s))
    else:
        state = exercise_state(results)
        print(format_report(exercise, results, answer))
    _SESSION_STATES[exercise_id] = state
    if state != STATE_PASSED and os.environ.get("NBGRADER_EXECUTION") in NBGRADER_MODES:
        raise ExerciseNotPassed(f"{exercise_id}: {state}")
    return CheckReport(exercise_id, state, results)


def hint(exercise_id):
    """Print the hint of *exercise_id* (or, for an unknown id, the closest valid ids).

    >>> hint("kp2_two_subsets")
    Hint for kp2_two_subsets: (0, 1) and (1, 0) are the same subset: how do you list each pair exactly once? Two nested loops can, if the second starts in the right place; the standard library also has a tool for it.
    >>> hint("kp3_rate")
    There is no exercise 'kp3_rate'. Did you mean 'kp3_rates'?
    """
    if isinstance(exercise_id, str) and exercise_id in WRITTEN_TASKS:
        print(_("{exercise_id} is a written task: there is no hint; reread its statement and "
                "the lesson it follows.").format(exercise_id=exercise_id))
        return
    if _known(exercise_id):
        exercise = get_exercise(exercise_id)
        print(_("Hint for {exercise_id}: {hint}").format(exercise_id=exercise.id,
                                                          hint=text_of(exercise.hint)))


def format_progress(states):
    """A table of every exercise; *states* maps exercise id to a state text.

    The written tasks (graded by hand, never checked here) are one line of
    their own, after the exercises, so that their points are not forgotten.
    """
    width = max(len(exercise_id) for exercise_id in EXERCISES)
    # The column words are looked up outside the f-strings: the extractor reads no f-string.
    exercise_word, points_word, state_word = _("exercise"), _("points"), _("state")
    lines = [f"{pad(exercise_word, width)}  {pad(points_word, 6, '>')}  {state_word}"]
    earned = done = 0
    for exercise in EXERCISES.values():
        state = states.get(exercise.id, NOT_CHECKED)
        shown = _(state)
        lines.append(f"{exercise.id:<{width}}  {exercise.points:>6}  {shown}")
        if state == STATE_PASSED:
            done, earned = done + 1, earned + exercise.points
    if WRITTEN_TASKS:
        written = sum(task.points for task in WRITTEN_TASKS.values())
        answers = ngettext("{count} written answer", "{count} written answers",
                           len(WRITTEN_TASKS)).format(count=len(WRITTEN_TASKS))
        written_word = _("written")
        lines.append(f"{pad(written_word, width)}  {written:>6}  " + _(
            "{answers}, {points}, graded by your instructor").format(
                answers=answers, points=_points(written)))
    total = sum(exercise.points for exercise in EXERCISES.values())
    lines.append(_("{done} of {count} exercises passed ({earned} of {total} points).").format(
        done=done, count=len(EXERCISES), earned=earned, total=total))
    return "\n".join(lines)


#: The last line of a folder's progress report when some exercise failed a check.
FAILED_CHECK_ADVICE = N_("Each test's call, expected and actual value: run the exercise's check "
                         "cell in its notebook.")


def format_folder_progress(rows):
    """The progress report of a folder of notebooks: the table, then what is wrong, grouped.

    *rows* are :class:`~reasoneval_mini.grading.progress.ProgressRow` objects
    (``exercise_id``, ``notebook``, ``state``, ``message``). Each exercise
    neither passed nor untouched gets its reason, one line per notebook and
    reason (a missing notebook is one problem, not six); a passed or untouched
    one only its note, if its message has one (a copy holds the work, a cell
    stops *Run All*). It speaks the notebooks' language (the rows').
    """
    spoken = next((getattr(row, "language", DEFAULT_LANGUAGE) for row in rows), DEFAULT_LANGUAGE)
    with language(spoken):
        return _format_folder_progress(rows)


def _format_folder_progress(rows):
    lines = [format_progress({row.exercise_id: row.state for row in rows})]
    grouped = {}
    for row in rows:
        if row.state not in (STATE_PASSED, STATE_NOT_ATTEMPTED):
            grouped.setdefault((row.notebook, row.message), []).append(row.exercise_id)
        elif "; " in row.message:
            # Passed or untouched, with a note after the usual words: work saved in a
            # copy of the notebook, or a cell that stops Run All. Only the note is news.
            note = row.message.split("; ", 1)[1]
            grouped.setdefault((row.notebook, note), []).append(row.exercise_id)
    lines += [_("  {exercise_ids} ({notebook}): {message}").format(
        exercise_ids=", ".join(ids), notebook=notebook, message=message)
        for (notebook, message), ids in grouped.items()]
    if any(row.state == STATE_FAILED for row in rows):
        lines.append(_(FAILED_CHECK_ADVICE))
    return "\n".join(lines)


def progress(directory=None):
    """Print the progress table.

    With no *directory*: the state of each exercise's last :func:`check` in
    this session. With a folder of notebooks: check them as the grader does,
    in a separate, sandboxed process (see :mod:`reasoneval_mini.grading.progress`),
    and print the same report as ``reasoneval-course progress``
    (:func:`format_folder_progress`).
    """
    if directory is None:
        print(format_progress(dict(_SESSION_STATES)))
        return
    from reasoneval_mini.grading.progress import evaluate_folder
    print(format_folder_progress(evaluate_folder(directory)))
