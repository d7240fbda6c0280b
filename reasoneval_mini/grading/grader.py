"""Grade a class: one folder per student, one grade per (student, exercise).

``SUBMISSIONS_DIR/<student>/<notebook>.ipynb`` holds each student's copies of
the exercise notebooks, under the same file names as in ``exercises/``. Every
student's notebooks are read into memory first
(:func:`~reasoneval_mini.grading.submissions.read_student`), before any
student code runs. Each student is then graded by child processes
(a session of :mod:`reasoneval_mini.runner`), each in the kernel's sandbox (the
run's :class:`~reasoneval_mini.sandbox.Isolation`), with a time limit per step; students
run in parallel on threads, each of which only waits for its own child. The
child runs the cells and calls the answers; the checks themselves run here
(:class:`Checker`), on the plain values the child sends back. When a child is
stopped or dies, the exercises already judged keep their results and a fresh
child continues with the rest. A child killed from outside (SIGKILL, SIGTERM:
another user, an administrator, the kernel) is run again once, at no cost;
killed again, the rest of that student is not graded (``interrupted``). A
child that stops by itself costs the step it was on: if it was calling an exercise's answer, that
exercise gets ``timeout`` or ``error``; if it was running a notebook cell (a
loop that swallows the watchdog's alarms, an ``os._exit``), the fresh child
skips that cell and records it as failed, so one bad cell costs only the
exercises that need it. An answer that is not defined because the cell that
defines it timed out or crashed is ``timeout`` or ``error``, naming the cell.

Scores: an exercise worth P points with n instructor checks (public plus
hidden), k of which pass, scores ``P * k / n`` (all n pass: ``passed``).

Written tasks (the registry's ``WRITTEN_TASKS``, markdown answers graded by
hand) get one row each after the exercises: ``awaiting_instructor`` with the
score ``None`` (blank in grades.csv, never 0), or ``missing`` / ``error`` when
their notebook is.
"""

import os
import re
import signal
import sys
from dataclasses import dataclass, field, replace
from fractions import Fraction
from pathlib import Path

from reasoneval_mini.support.arguments import positive_int, positive_seconds
from reasoneval_mini.support.i18n import DEFAULT_LANGUAGE, N_, _, language, ngettext
from reasoneval_mini.support.interrupts import on_first_interrupt
from reasoneval_mini.support.parallel import Interrupted, progress_bar, run_parallel
from reasoneval_mini.support.text import shorten
from reasoneval_mini.grading.notebooks import cells_defining, explain_missing_answer
from reasoneval_mini.grading.submissions import (
    UNANSWERED_TEXT, discover_students, display_name, is_unanswered, note_copies, read_student,
    with_copy_note, written_answer)
from reasoneval_mini.grading.statuses import (
    GRADE_AWAITING_INSTRUCTOR, GRADE_ERROR, GRADE_FAILED, GRADE_INTERRUPTED, GRADE_MISSING,
    GRADE_PASSED, GRADE_STATUSES, GRADE_TIMEOUT)
from reasoneval_mini.grading.process import (
    ENDING_DIED, ENDING_DONE, ENDING_INTERRUPTED, ENDING_TIMEOUT, CellFailure, GradingJob, Task,
    run_grading_process)
from reasoneval_mini.grading.instructor_checks import DEFAULT_REGISTRY, load_hidden_checks, load_registry
from reasoneval_mini.exercises.answer_key import AnswerKeyMissing, answer_key, use_answer_key
from reasoneval_mini.exercises.typed import typed_value_from_source
from reasoneval_mini.exercises.checks import planned_calls
from reasoneval_mini.exercises.registry import exercise_score
from reasoneval_mini.exercises.variants import Variant
from reasoneval_mini.grading.keys import load_grading_key
from reasoneval_mini.runner.session import Cancel

DEFAULT_TIMEOUT = 10.0
INTERRUPTED_MESSAGE = N_("not graded: grading was interrupted (Ctrl-C) before this was finished")
#: How the message of an answer not judged because of its notebook's variant begins
#: (in English; :func:`other_variant_prefixes` gives it in every language).
OTHER_VARIANT = N_("not graded: built for another variant")


def other_variant_prefixes():
    """:data:`OTHER_VARIANT` in every language, for finding such a grade by its message."""
    from reasoneval_mini.support.i18n import LANGUAGES

    prefixes = []
    for name in LANGUAGES:
        with language(name):
            prefixes.append(_(OTHER_VARIANT))
    return tuple(dict.fromkeys(prefixes))


@dataclass(frozen=True)
class Grade:
    """One row of grades.csv; ``checks`` are the check dicts for feedback.

    ``score`` is ``None`` for a written answer that awaits the instructor.
    ``language``: the student's notebooks' (:attr:`~reasoneval_mini.grading.submissions.Submission.language`),
    in which ``message`` and the checks' texts are written, and the feedback file.
    """

    student: str
    exercise: str
    score: Fraction | None
    max_score: int
    status: str
    message: str
    checks: tuple = field(default=(), compare=False)
    language: str = field(default=DEFAULT_LANGUAGE, compare=False)


def unscored(student, exercise, status, message):
    """The :class:`Grade` of an exercise no check ran to the end for (timeout, error, missing)."""
    return Grade(student, exercise.id, Fraction(0), exercise.points, status, message)


def written_grade(student, task, submission):
    """The :class:`Grade` of written task *task*: nothing runs, the instructor grades it.

    ``awaiting_instructor`` with a blank score when its answer cell holds an
    answer (or cannot be found: the instructor reads the notebook);
    ``failed`` with 0 when the answer cell is empty or still reads ``YOUR
    ANSWER HERE``; ``missing`` or ``error`` (score 0) when the notebook is
    absent or unreadable, as for the exercises of that notebook. Each message
    is about this task's own answer cell.
    """
    name = Path(task.notebook).name
    notebook = submission.notebook(name)
    if notebook is None:
        message = next((m for m in submission.missing.values() if name in m),
                       _("no notebook {notebook}").format(notebook=name))
        return unscored(student, task, GRADE_MISSING, shorten(message))
    if notebook.error:
        return unscored(student, task, GRADE_ERROR, notebook.error)
    found = written_answer(notebook, task.id)
    if found is not None and is_unanswered(found[1]):
        grade = unscored(student, task, GRADE_FAILED, shorten(_(
            "not answered: the answer cell of {title!r} (cell {cell} of {notebook}) "
            "still reads {stub!r}").format(title=_(task.title), cell=found[0], notebook=name,
                                            stub=UNANSWERED_TEXT)))
        return with_copy_note(grade, submission, name, untouched=True)
    where = (_("cell {cell} of {notebook}").format(cell=found[0], notebook=name)
             if found is not None else
             _("its answer cell was not found in {notebook} (deleted or moved?), so your "
               "instructor reads the whole notebook").format(notebook=name))
    return Grade(student, task.id, None, task.points, GRADE_AWAITING_INSTRUCTOR, shorten(_(
        "written answer ({title}; {where}): awaits your instructor, who grades it "
        "by hand with the rubric ({points} points)").format(
            title=_(task.title), where=where, points=task.points)))


def _graded(student, exercise, expected_checks, result):
    """Turn one judged result into a :class:`Grade`, validating it.

    The score is :func:`~reasoneval_mini.exercises.registry.exercise_score`:
    taken on the hidden checks (``"hidden": True``), which are named in the
    message only as a count; 0 for an answer that delegates to the library;
    a third at most while a check of one of the page's distinctions fails.
    """
    status, message = result.get("status"), shorten(result.get("message", ""))
    points, checks = exercise.points, result.get("checks")
    if status not in GRADE_STATUSES or not isinstance(checks, list):
        status, message, checks = GRADE_ERROR, _("malformed result {status!r} from the grader").format(
            status=status), []
    if status != GRADE_FAILED:  # timeout, error, missing: no check ran to the end
        return unscored(student, exercise, status, message)
    if len(checks) != expected_checks or not all(
            isinstance(c, dict) and isinstance(c.get("passed"), bool) for c in checks):
        return unscored(student, exercise, GRADE_ERROR,
                        _("the grader got {count} check results, expected {expected}").format(
                            count=len(checks), expected=expected_checks))
    public = [c for c in checks if not c.get("hidden")]
    hidden = [c for c in checks if c.get("hidden")]
    score = exercise_score(points, public, hidden)
    counted = (ngettext("{passed} of {count} public check passed",
                        "{passed} of {count} public checks passed", len(public)) if hidden else
               ngettext("{passed} of {count} check passed",
                        "{passed} of {count} checks passed", len(public))).format(
                   passed=sum(c['passed'] for c in public), count=len(public)) + (
        "; " + _("hidden checks: {passed} of {count} passed").format(
            passed=sum(c['passed'] for c in hidden), count=len(hidden)) if hidden else "")
    note = result.get("note") if isinstance(result.get("note"), str) else ""
    if all(c["passed"] for c in checks):
        return Grade(student, exercise.id, Fraction(points), points, GRADE_PASSED,
                     shorten("; ".join(filter(None, [counted, note]))), tuple(checks))
    if not any(c.get("attempted", True) for c in checks):
        message = shorten("; ".join(filter(None, [
            _("not attempted yet: the function still raises NotImplementedError"), note])))
        return Grade(student, exercise.id, score, points, GRADE_FAILED, message, tuple(checks))
    # The note (the cell that stopped) first: it is the cause, and shorten() cuts from the end.
    parts = [counted] + ([note] if note else [])
    delegated = next((c.get("delegated") for c in checks if c.get("delegated")), "")
    distinction = next((c.get("distinction") for c in checks
                        if c.get("distinction") and not c["passed"]), "")
    if delegated:
        parts.append(_("0 points: the answer calls {function}, which does what the exercise "
                       "asks to write by hand").format(function=delegated))
    elif distinction:
        parts.append(_("at most a third of the points: a check of the distinction "
                       "{distinction} fails").format(distinction=_(distinction)))
    first = next((c for c in checks if not c["passed"] and not c.get("hidden")), None)
    if first is not None:
        parts.append(_("first failure: {name}: {message}").format(
            name=first.get('name', ''), message=first.get('message', '')))
    return Grade(student, exercise.id, score, points, GRADE_FAILED, shorten("; ".join(parts)),
                 tuple(checks))


@dataclass(frozen=True)
class Blame:
    """What a stopped child costs, decided by :func:`blame`; the caller applies it.

    *exercises* get ``(status, message)``; or, when the child was running a
    notebook cell, *skip_cell* is ``(notebook name, cell number)``: the next
    child skips that cell and records *message* as its failure. Neither when
    the step is unknown.
    """

    status: str
    message: str
    exercises: tuple = ()
    skip_cell: tuple | None = None


def blame(run, tasks, step_timeout):
    """The :class:`Blame` for the step the stopped child of *run* was on (pure).

    *tasks*: the :class:`~reasoneval_mini.grading.process.Task` list it ran.
    """
    step = run.step
    if run.ending == ENDING_TIMEOUT:
        status, how = GRADE_TIMEOUT, _("made no progress for over {seconds} s and was "
                                       "stopped").format(seconds=f"{step_timeout:g}")
    else:
        status, how = GRADE_ERROR, _("crashed ({how}; os._exit or a crash in learner "
                                     "code?)").format(how=run.how)
    if step.exercise is not None:
        return Blame(status, _("the grading process {how} while checking this exercise").format(
            how=how), (step.exercise,))
    task = next((task for task in tasks if task.notebook == step.notebook), None)
    if task is None:
        return Blame(status, _("the grading process {how}").format(how=how))
    if step.cell is not None:
        return Blame(status, _("not run: the grading process {how} while running it").format(
            how=how), skip_cell=(task.notebook, step.cell))
    return Blame(status, _("the grading process {how} while running the cells of "
                           "{notebook}").format(how=how, notebook=task.notebook),
                 tuple(task.answers))


#: Signals that stop a process from outside (another user, an administrator, the
#: kernel's out-of-memory killer); a crash in learner code shows as SIGSEGV, SIGABRT...
OUTSIDE_SIGNALS = frozenset({signal.SIGKILL, signal.SIGTERM} if hasattr(signal, "SIGKILL")
                            else ())
#: How many times a student's grading process may be killed from outside before
#: the student is reported as not graded.
OUTSIDE_KILLS_TOLERATED = 1


def killed_from_outside(run):
    """True if *run*'s child died by a signal that stops processes from outside.

    Nobody can tell who sent a SIGKILL; learner code seldom sends one to
    itself, so the grader retries rather than blame a step for it.
    """
    return run.ending == ENDING_DIED and run.signal in OUTSIDE_SIGNALS


def not_graded(student, exercise, why):
    """The :class:`Grade` of an exercise the grader could not grade: ``interrupted``, says why."""
    return unscored(student, exercise, GRADE_INTERRUPTED, shorten(
        _("not graded: {why}; grade this student again").format(why=why)))


class Checker:
    """The instructor's side of grading, in the grader: the registry, the keys, the judge.

    Loaded from a :class:`~reasoneval_mini.grading.process.GradingJob` before
    any student code runs; the grading children never load any of it. Each
    student is judged on the variant of their identity (the folder name),
    with hidden checks drawn with the job's grading key. Raises
    ``ValueError`` before anything runs when the answer key that a choice
    exercise needs cannot be read: those exercises would otherwise score 0
    for everyone, and nobody earned that 0.
    """

    def __init__(self, job):
        self.job = job
        self.registry = load_registry(job.registry)
        self.exercises = dict(self.registry.EXERCISES)
        self.written = dict(getattr(self.registry, "WRITTEN_TASKS", {}))
        self.hidden = (load_hidden_checks(job.hidden_tests, self.exercises)
                       if job.hidden_tests else {})
        self.grading_key = job.grading_key
        if self.grading_key is None and not job.public_only:
            self.grading_key = load_grading_key()
        use_answer_key(job.answer_key)
        if any(getattr(e, "keyed", False) for e in self.exercises.values()):
            try:
                answer_key()
            except AnswerKeyMissing as missing:
                raise ValueError(f"{missing}; pass --answer-key PATH (the course's is "
                                 f"solutions/answer_key.py)") from None

    def identity(self, student):
        """Whose variant *student* (a folder's shown name) is judged on: the job's, else theirs."""
        return self.job.identity or student

    def variant(self, identity):
        """The :class:`~reasoneval_mini.exercises.variants.Variant` of *identity*, with the key."""
        return Variant(identity, key=self.grading_key)

    def draw(self, identity):
        """The :class:`DrawnChecks` of *identity*: one student's checks, drawn once each."""
        return DrawnChecks(self, identity)

    def counts(self, drawn):
        """``{exercise_id: number of checks}`` of *drawn*: public, hidden, the file's hidden."""
        return {i: sum(map(len, drawn.checks(i))) for i in self.exercises}

    def judge(self, drawn, exercise, notebook, defined, answer, failures):
        """The result dict of *exercise*: its checks, from *drawn*, run here on the child's *answer*.

        *failures*: the :class:`~reasoneval_mini.grading.process.CellFailure`
        list of *notebook* (skipped cells included). An answer that is not
        defined is ``timeout`` or ``error`` when a cell that defines it timed
        out or crashed (the message names it), else ``missing``. A typed
        exercise is judged on the literal in the cell that defines its
        answer, read here from the notebook (:func:`typed_answer`).
        """
        if not defined:
            return _undefined(exercise, notebook, failures)
        public, own_hidden, file_hidden = drawn.checks(exercise.id)
        if exercise.typed:
            answer = typed_answer(notebook, exercise.answer_name)
        try:
            results = self.registry.run_checks(
                exercise.id, answer, file_hidden, variant=drawn.variant,
                hidden=not self.job.public_only, in_process=False, drawn=(public, own_hidden))
        except Exception as error:  # noqa: BLE001 - a broken check costs this exercise only
            return {"status": GRADE_ERROR, "checks": [], "message": shorten(
                _("the checks crashed: {error_type}: {error}").format(
                    error_type=type(error).__name__, error=error))}
        checks = [{**{key: _plain(value) for key, value in result.to_dict().items()},
                   "hidden": index >= len(public)} for index, result in enumerate(results)]
        return {"status": GRADE_FAILED, "message": "", "checks": checks,
                "note": _cell_note(exercise, notebook, failures)
                or _name_error_note(checks[:len(public)], notebook, failures)}


    def planned_calls(self, drawn, exercise):
        """The first call each of *exercise*'s checks from *drawn* will make, in order (none for a typed one).

        A typed exercise is judged on the literal its cell types, never by calling the child.
        """
        if exercise.typed:
            return []
        public, own_hidden, file_hidden = drawn.checks(exercise.id)
        return planned_calls((*public, *own_hidden, *file_hidden))


class DrawnChecks:
    """One student's checks: each exercise's drawn on first use, then kept for that student.

    Why: drawing is most of the grader's own work per student, and both the
    count of checks (before the child runs) and the judge need them. Each
    student gets their own: checks are never shared between students, so
    nothing one student's checks hold (a computed reference) reaches another.
    A child run again after a kill reuses them: a check keeps nothing of a
    run but a reference computed on first use. Used by one student's thread only.
    """

    def __init__(self, checker, identity):
        self.checker, self.identity = checker, identity
        self.variant = checker.variant(identity)
        self._drawn = {}

    def checks(self, exercise_id):
        """``(public, hidden, the hidden tests file's)`` checks of *exercise_id*, as tuples.

        The two hidden ones are empty when the job grades on public checks only.
        """
        if exercise_id not in self._drawn:
            exercise, public_only = self.checker.exercises[exercise_id], self.checker.job.public_only
            public, hidden = exercise.drawn_checks(self.variant, hidden=not public_only)
            self._drawn[exercise_id] = (public, hidden, () if public_only else
                                        tuple(self.checker.hidden.get(exercise_id, ())))
        return self._drawn[exercise_id]


def typed_answer(notebook, name):
    """A stand-in for the typed answer *name*: it returns the literal the defining cell types.

    The last cell that binds *name* is read; a cell that binds it without a
    ``def`` of it, or whose ``def`` computes the predictions, gives a stand-in
    that raises :class:`~reasoneval_mini.exercises.typed.NotTyped` saying so;
    the untouched stub's raises ``NotImplementedError`` (not attempted).
    """
    defining = cells_defining(notebook.cells, name)
    source = next((source for number, source, _ in notebook.cells if number == defining[-1]),
                  "") if defining else ""

    def stand_in(*args, **kwargs):
        return typed_value_from_source(source, name)
    stand_in.__name__ = name
    return stand_in


def _plain(value):
    """*value* as a JSON scalar: a check built by hand may hold any object."""
    if value is None or isinstance(value, (bool, int, float)):
        return value
    return shorten(value)


def _cell_note(exercise, notebook, failures):
    """A note naming a cell that defines the answer and then timed out or raised, else "".

    The answer was defined before the cell stopped (``def`` first, an endless
    loop after it), so it is judged as it stands; without the note the student
    never learns that the notebook stops there under *Run All*.
    """
    defining = set(cells_defining(notebook.cells, exercise.answer_name))
    bad = [f for f in failures if f.cell in defining]
    if not bad:
        return ""
    last = bad[-1]
    if last.kind == GRADE_TIMEOUT:
        return _("note: cell {cell} of {notebook}, which defines {function}(), {message}").format(
            cell=last.cell, notebook=notebook.name, function=exercise.answer_name,
            message=last.message)
    return _("note: cell {cell} of {notebook}, which defines {function}(), failed: "
             "{message}").format(cell=last.cell, notebook=notebook.name,
                                 function=exercise.answer_name, message=last.message)


_NAME_ERROR = re.compile(r"NameError \(name '([A-Za-z_]\w*)' is not defined\)")


def _name_error_note(checks, notebook, failures):
    """A note tracing a public check's NameError to the failed cell that defines that name.

    A setup cell with a typo (its imports never ran) makes the answers of
    other cells raise NameError; the note names that cell, and why it failed.
    """
    for check in checks:
        match = _NAME_ERROR.search(str(check.get("message", "")))
        if match is None:
            continue
        defining = set(cells_defining(notebook.cells, match.group(1)))
        bad = [f for f in failures if f.cell in defining]
        if bad:
            last = bad[-1]
            if last.kind == GRADE_TIMEOUT:
                return _("note: {name} is not defined because cell {cell} of {notebook}, which "
                         "defines it, {message}").format(name=match.group(1), cell=last.cell,
                                                         notebook=notebook.name,
                                                         message=last.message)
            return _("note: {name} is not defined because cell {cell} of {notebook}, which "
                     "defines it, failed: {message}").format(name=match.group(1), cell=last.cell,
                                                             notebook=notebook.name,
                                                             message=last.message)
    return ""


def _undefined(exercise, notebook, failures):
    name = exercise.answer_name
    defining = set(cells_defining(notebook.cells, name))
    bad = [f for f in failures if f.cell in defining]
    if bad:
        last = bad[-1]
        timed_out = last.kind == GRADE_TIMEOUT
        message = (_("{function}() is not defined: cell {cell} of {notebook}, which defines it, "
                     "{message}") if timed_out else
                   _("{function}() is not defined: cell {cell} of {notebook}, which defines it, "
                     "failed: {message}")).format(function=name, cell=last.cell,
                                                  notebook=notebook.name, message=last.message)
        return {"status": GRADE_TIMEOUT if timed_out else GRADE_ERROR, "checks": [],
                "message": shorten(message)}
    texts = [_("cell {cell}: {message}").format(cell=f.cell, message=f.message) for f in failures]
    return {"status": GRADE_MISSING, "checks": [],
            "message": explain_missing_answer(name, notebook.cells, notebook.text_cells, texts)}


def grade_student(student_dir, exercises, job, expected_checks=None, *, checker=None,
                  submission=None, cancel=None):
    """Return one :class:`Grade` per exercise (course order), then per written task.

    *job* is a :class:`~reasoneval_mini.grading.process.GradingJob`;
    *expected_checks* maps each exercise id to its number of checks (public
    plus hidden; ``None``: the checker's count for this student's variant). *submission* (a :class:`~reasoneval_mini.grading.submissions.Submission`)
    is the folder already read; *checker* a :class:`Checker` already loaded;
    *cancel* a :class:`~reasoneval_mini.runner.session.Cancel`: once set, what is not graded yet is
    ``interrupted``.
    """
    checker = checker or Checker(job)
    if submission is None:
        submission = read_student(student_dir, exercises, checker.written.values())
    # The checks' reasons and the messages in the student's language, in this thread only.
    with language(submission.language):
        grades = _grade_submission(submission, exercises, job, expected_checks, checker, cancel)
    return [replace(grade, language=submission.language) for grade in grades]


def _grade_submission(submission, exercises, job, expected_checks, checker, cancel):
    student = submission.student
    drawn = checker.draw(checker.identity(student))
    grades = _without_running(submission, exercises)
    notebooks = {n.name: n for n in submission.notebooks if not n.error}
    grading = _StudentRun(student, notebooks, exercises, job, expected_checks, checker, cancel,
                          drawn)
    grades.update(grading.run())
    grades.update(_built_for_another_variant(grades, notebooks, exercises, student,
                                             checker.identity(student)))
    for exercise_id in exercises:
        grades.setdefault(exercise_id, unscored(student, exercises[exercise_id],
                                                GRADE_INTERRUPTED, _(INTERRUPTED_MESSAGE)))
    return note_copies([grades[i] for i in exercises], submission, exercises) + [
        written_grade(student, task, submission) for task in checker.written.values()]


def _built_for_another_variant(grades, notebooks, exercises, student, identity):
    """``{exercise_id: Grade}``: the typed answers that cannot be judged on *identity*'s variant.

    Why: a typed prediction answers the items of the variant its notebook
    was built for. When that is not the variant graded (a class collected
    under other folder names than it was built with, or ``exercises/``
    handed out as it ships and graded by folder), a right answer would be
    marked wrong: a 0 nobody earned. Such an answer is not graded and says
    why; one that passes anyway, an untouched stub (0 on any variant), or
    one whose two variants draw the same items, keeps its grade. The grader still never grades on the notebook's own
    variant: a student who edits it gets no points, only this message.
    """
    unjudged = {}
    for exercise_id, grade in grades.items():
        exercise = exercises.get(exercise_id)
        notebook = notebooks.get(Path(exercise.notebook).name) if exercise else None
        built = notebook.built_for if notebook is not None else None
        untouched = grade.checks and not any(c.get("attempted", True) for c in grade.checks)
        if (built is None or built == identity or grade.status == GRADE_PASSED or untouched
                or not (getattr(exercise, "typed", False) or getattr(exercise, "keyed", False))
                or exercise.draw is None
                or exercise.data(Variant(built)) == exercise.data(Variant(identity))):
            continue
        unjudged[exercise_id] = unscored(student, exercise, GRADE_INTERRUPTED, shorten(
            _(OTHER_VARIANT) + _(": {notebook} was built for the variant {built!r}, and this "
                                 "student is graded on {identity!r}, whose items differ, so the "
                                 "typed answer cannot be judged; grade with --variant {built!r} "
                                 "if everyone got the same notebooks, else grade this student "
                                 "under the folder name the notebooks were built for, or look "
                                 "for a classmate's notebook handed in "
                                 "(docs/instructor-guide.md)").format(
                                     notebook=notebook.name, built=built, identity=identity)))
    return unjudged


def _without_running(submission, exercises):
    """The grades known before any code runs: notebooks missing, or unreadable."""
    student = submission.student
    grades = {i: unscored(student, exercises[i], GRADE_MISSING, message)
              for i, message in submission.missing.items()}
    for notebook in submission.notebooks:
        for exercise_id in notebook.exercises if notebook.error else ():
            grades[exercise_id] = unscored(student, exercises[exercise_id], GRADE_ERROR,
                                           notebook.error)
    return grades


class _StudentRun:
    """One student's notebooks through as many child runs as it takes (:meth:`run`).

    Each run resumes where the last stopped: the exercises already judged keep
    their results; a cell that stopped a child is skipped (and recorded as
    failed); an exercise whose checks stopped it is ``timeout`` or ``error``.
    A child killed from outside (:func:`killed_from_outside`) costs nothing
    and is run again; the second time, what is left is not graded.
    """

    def __init__(self, student, notebooks, exercises, job, expected_checks, checker, cancel,
                 drawn):
        self.student, self.notebooks, self.exercises = student, notebooks, exercises
        self.job, self.expected_checks, self.checker, self.cancel, self.drawn = (
            job, expected_checks, checker, cancel, drawn)
        self.grades, self.skipped, self.outside_kills = {}, {}, 0  # skipped: name -> [CellFailure]

    def tasks(self):
        """The :class:`Task` list still to run: notebooks with exercises left, skipped cells left out."""
        tasks = []
        for name, notebook in self.notebooks.items():
            answers = {i: self.exercises[i].answer_name for i in notebook.exercises
                       if i not in self.grades}
            skipped = {failure.cell for failure in self.skipped.get(name, ())}
            refuses = {i: tuple(getattr(self.exercises[i], "refuses", ())) for i in answers
                       if getattr(self.exercises[i], "refuses", ())}
            if answers:
                tasks.append(Task(name, tuple((n, source) for n, source, _ in notebook.cells
                                              if n not in skipped), answers, refuses))
        return tasks

    def judge(self, exercise_id, defined, answer, failures):
        notebook = self.notebooks[Path(self.exercises[exercise_id].notebook).name]
        failures = sorted([*self.skipped.get(notebook.name, ()), *failures], key=lambda f: f.cell)
        return self.checker.judge(self.drawn, self.exercises[exercise_id], notebook, defined,
                                  answer, failures)

    def plan(self, exercise_id):
        """The calls the judge will make of *exercise_id*'s answer (asked of the child ahead)."""
        return self.checker.planned_calls(self.drawn, self.exercises[exercise_id])

    def count(self):
        """Draw this student's checks and count them, once (the first child runs its cells meanwhile)."""
        if self.expected_checks is None:
            self.expected_checks = self.checker.counts(self.drawn)

    def run(self):
        """``{exercise_id: Grade}`` for every exercise of the notebooks (less on a Ctrl-C)."""
        while not (self.cancel is not None and self.cancel.is_set()):
            tasks = self.tasks()
            if not tasks:
                break
            run = run_grading_process(self.job, tasks, self.judge, cancel=self.cancel,
                                      plan=self.plan, meanwhile=self.count)
            self.count()  # not drawn yet if no child started
            for exercise_id, result in run.results.items():
                exercise = self.exercises[exercise_id]
                self.grades[exercise_id] = _graded(self.student, exercise,
                                                   self.expected_checks[exercise_id], result)
            if not self._go_on(run, tasks):
                break
        return self.grades

    def _go_on(self, run, tasks):
        """Apply what *run*'s ending costs; False when no further run can help."""
        if run.ending == ENDING_INTERRUPTED:
            return False
        if run.fatal is not None:
            return self._give_up(_("the grader failed: {error}").format(error=run.fatal),
                                 not_graded)
        if run.ending == ENDING_DONE:
            return self._give_up(_("the grading process ended early"), not_graded)
        if killed_from_outside(run):
            self.outside_kills += 1
            if self.outside_kills <= OUTSIDE_KILLS_TOLERATED:
                return True
            return self._give_up(_("its grading process was killed from outside {count} times "
                                   "({how})").format(count=self.outside_kills, how=run.how),
                                 not_graded)
        verdict = blame(run, tasks, self.job.step_timeout)
        for exercise_id in verdict.exercises:
            self.grades.setdefault(exercise_id, unscored(
                self.student, self.exercises[exercise_id], verdict.status, verdict.message))
        if verdict.skip_cell is not None:
            name, cell = verdict.skip_cell
            kind = GRADE_TIMEOUT if verdict.status == GRADE_TIMEOUT else GRADE_ERROR
            self.skipped.setdefault(name, []).append(CellFailure(cell, kind, verdict.message))
        elif not verdict.exercises:  # it stopped before any notebook: the grader's own trouble
            return self._give_up(_("its grading process stopped before the first notebook "
                                   "({how})").format(how=run.how or run.ending), not_graded)
        return True

    def _give_up(self, why, grade):
        """Record *why* for every exercise left (as ``grade(student, exercise, why)``); False."""
        for task in self.tasks():
            for exercise_id in task.answers:
                self.grades[exercise_id] = grade(self.student, self.exercises[exercise_id], why)
        return False


class GradingInterrupted(KeyboardInterrupt):
    """Grading was stopped (Ctrl-C); ``grades`` is complete, unfinished ones ``interrupted``."""

    def __init__(self, grades):
        super().__init__("grading interrupted")
        self.grades = grades


def _stop_grading(cancel):
    """What the first Ctrl-C does: stop grading, and say so."""
    cancel.set()
    print("interrupted: stopping the running students, then writing what was graded",
          file=sys.stderr, flush=True)


def _grade_all(root, students, exercises, job, checker, workers, cancel, progress,
               submissions_out):
    """Read every student's folder, then grade them on *workers* threads; the per-student outcomes."""
    submissions = []
    for name in students:  # all of them, before any student code runs
        if cancel.is_set():
            break
        try:
            submissions.append(read_student(root / name, exercises, checker.written.values()))
        except Exception as error:  # noqa: BLE001 - an unreadable folder: keep the student
            submissions.append(error)
    if submissions_out is not None:
        submissions_out.extend(s for s in submissions if not isinstance(s, Exception))

    def work(index):
        submission = submissions[index]
        if isinstance(submission, Exception):
            raise submission
        return grade_student(submission.folder, exercises, job, checker=checker,
                             submission=submission, cancel=cancel)

    bar = progress_bar(len(students), "grading", "student", progress)
    try:
        return run_parallel(work, range(len(submissions)) if not cancel.is_set() else (),
                            threads=workers, cancel=cancel.set,
                            on_done=(lambda _: bar.update(1)) if bar is not None else None)
    finally:
        if bar is not None:
            bar.close()


def grade_class(submissions_dir, *, registry=DEFAULT_REGISTRY, hidden_tests=None,
                workers=None, timeout=DEFAULT_TIMEOUT, progress=True, isolation=None,
                submissions_out=None, grading_key=None, answer_key=None, identity=None):
    """Grade every student folder; return grades sorted by student, then course order.

    Raises ``ValueError`` (a :class:`HiddenTestsError` for the hidden tests
    file) before grading anything if the arguments are unusable: *timeout*
    must be a positive, finite number of seconds, *workers* ``None`` (the
    number of CPUs) or a positive int. Every student's notebooks are read
    before any student code runs.

    A Ctrl-C (SIGINT, when called from the main thread) stops starting
    students and kills the running ones; then :class:`GradingInterrupted`
    is raised, carrying every grade, the unfinished ones ``interrupted``.
    Further Ctrl-Cs change nothing.

    *isolation*: the :class:`~reasoneval_mini.sandbox.Isolation` every
    grading process applies (``None``: ``plan_isolation("auto")``). A student
    whose grading process is killed from outside twice, or whose process the
    grader cannot run, gets ``interrupted`` rows saying "not graded".

    *grading_key* (bytes): the secret the hidden checks are drawn with
    (``None``: the instructor's key file, :func:`~reasoneval_mini.grading.keys.load_grading_key`);
    *answer_key*: the path of the choice exercises' answer key (``None``: the
    default search of :func:`~reasoneval_mini.exercises.answer_key.answer_key`).
    Each student is judged on the variant of their folder's name, or, with
    *identity*, everyone on that identity's variant (a class given the same
    notebooks). A typed answer whose notebook was built for another variant
    is not graded and says so (:data:`OTHER_VARIANT`).

    *submissions_out*, a list, receives each student's
    :class:`~reasoneval_mini.grading.submissions.Submission` as read before
    grading: the reports that read answers use these, never the disk after
    student code ran.
    """
    students = discover_students(submissions_dir)
    timeout = positive_seconds(timeout, "timeout")
    workers = positive_int((os.cpu_count() or 1) if workers is None else workers, "workers")
    hidden_path = str(Path(hidden_tests).resolve()) if hidden_tests else None
    spec = str(Path(registry).resolve()) if str(registry).endswith(".py") else registry
    if identity is not None:
        Variant(identity)  # a ValueError naming a bad one before anything runs
    job = GradingJob(spec, hidden_path, timeout, isolation, grading_key=grading_key,
                     answer_key=str(Path(answer_key).resolve()) if answer_key else None,
                     identity=identity)
    checker = Checker(job)
    exercises = checker.exercises
    root = Path(submissions_dir)
    cancel = Cancel()
    try:
        with on_first_interrupt(lambda: _stop_grading(cancel)):
            done = _grade_all(root, students, exercises, job, checker, workers, cancel,
                              progress, submissions_out)
    except Interrupted as stop:
        cancel.set()
        done = stop.results
    done = list(done) + [None] * (len(students) - len(done))
    grades = []
    for name, result in zip(students, done):
        shown = display_name(name)
        everything = [*exercises.values(), *checker.written.values()]
        if result is None:
            grades += [unscored(shown, e, GRADE_INTERRUPTED, INTERRUPTED_MESSAGE)
                       for e in everything]
        elif result.error is None:
            grades += result.value
        else:  # a grader bug or an unreadable folder: keep the student
            message = shorten(f"the grader failed on this student: "
                              f"{type(result.error).__name__}: {result.error}")
            grades += [unscored(shown, e, GRADE_ERROR, message) for e in everything]
    if cancel.is_set():
        raise GradingInterrupted(grades)
    return grades
