"""Grade a class: one folder per student, one grade per (student, exercise).

``SUBMISSIONS_DIR/<student>/<notebook>.ipynb`` holds each student's copies of
the exercise notebooks, under the same file names as in ``exercises/``. Each
student is graded by child processes (:mod:`reasoneval_mini.grading.child`)
with a time limit per step; students run in parallel on threads, each of which
only waits for its own child. When a child is stopped or dies, the exercises it
already reported keep their results and a fresh child continues with the rest:
if it was checking an exercise, that exercise gets ``timeout`` or ``error``; if
it was running a notebook cell (a loop that swallows the watchdog's alarms, an
``os._exit``), the fresh child skips that cell and records it as failed, so one
bad cell costs only the exercises that need it.

Scores: an exercise worth P points with n instructor checks (public plus
hidden), k of which pass, scores ``P * k / n`` (all n pass: ``passed``).
"""

import os
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

from reasoneval_mini.support.arguments import positive_int, positive_seconds
from reasoneval_mini.support.parallel import progress_bar, run_parallel
from reasoneval_mini.support.text import shorten
from reasoneval_mini.grading.submissions import discover_students, plan_notebooks
from reasoneval_mini.grading.statuses import (
    GRADE_ERROR, GRADE_FAILED, GRADE_MISSING, GRADE_PASSED, GRADE_STATUSES, GRADE_TIMEOUT)
from reasoneval_mini.grading.process import (
    ENDING_DONE, ENDING_TIMEOUT, GradingJob, run_grading_process)
from reasoneval_mini.grading.instructor_checks import DEFAULT_REGISTRY, load_hidden_checks, load_registry

DEFAULT_TIMEOUT = 10.0


@dataclass(frozen=True)
class Grade:
    """One row of grades.csv; ``checks`` are the check dicts for feedback."""

    student: str
    exercise: str
    score: Fraction
    max_score: int
    status: str
    message: str
    checks: tuple = field(default=(), compare=False)


def partial_score(points, passed, total):
    """``points * passed / total`` as an exact Fraction (0 when there are no checks).

    >>> partial_score(3, 2, 3)
    Fraction(2, 1)

    Surprising: credit follows the share of checks, so one of three checks of a
    2-point exercise is worth 2/3 of a point (grades.csv shows 0.67).

    >>> partial_score(2, 1, 3)
    Fraction(2, 3)
    """
    return Fraction(points * passed, total) if total else Fraction(0)


def unscored(student, exercise, status, message):
    """The :class:`Grade` of an exercise no check ran to the end for (timeout, error, missing)."""
    return Grade(student, exercise.id, Fraction(0), exercise.points, status, message)


def _graded(student, exercise, expected_checks, result):
    """Turn one child result into a :class:`Grade`, validating it."""
    status, message = result.get("status"), shorten(result.get("message", ""))
    points, checks = exercise.points, result.get("checks")
    if status not in GRADE_STATUSES or not isinstance(checks, list):
        status, message, checks = GRADE_ERROR, f"malformed result {status!r} from the grader", []
    if status != GRADE_FAILED:  # timeout, error, missing: no check ran to the end
        return unscored(student, exercise, status, message)
    if len(checks) != expected_checks or not all(
            isinstance(c, dict) and isinstance(c.get("passed"), bool) for c in checks):
        return unscored(student, exercise, GRADE_ERROR,
                        f"the grader got {len(checks)} check results, expected {expected_checks}")
    passed = sum(c["passed"] for c in checks)
    score = partial_score(points, passed, expected_checks)
    if passed == expected_checks:
        return Grade(student, exercise.id, Fraction(points), points, GRADE_PASSED,
                     f"{passed} of {passed} checks passed", tuple(checks))
    if not any(c.get("attempted", True) for c in checks):
        message = "not attempted yet: the function still raises NotImplementedError"
    else:
        first = next(c for c in checks if not c["passed"])
        message = shorten(f"{passed} of {expected_checks} checks passed; first failure: "
                          f"{first.get('name', '')}: {first.get('message', '')}")
    return Grade(student, exercise.id, score, points, GRADE_FAILED, message, tuple(checks))


def _last_step(events):
    """``(notebook, exercise, cell)``: the step a stopped child was on (None if unknown)."""
    notebook = exercise = cell = None
    for event in events:
        if event["event"] == "notebook":
            notebook, exercise, cell = event.get("notebook"), None, None
        elif event["event"] == "cell":
            cell = event.get("cell")
        elif event["event"] == "exercise":
            exercise, cell = event.get("exercise"), None
    return notebook, exercise, cell


@dataclass(frozen=True)
class Blame:
    """What a stopped child costs, decided by :func:`blame`; the caller applies it.

    *exercises* get ``(status, message)``; or, when the child was running a
    notebook cell, *skip_cell* is ``(notebook path, cell number)``: the next
    child skips that cell and records *message* as its failure. Neither when
    the step is unknown.
    """

    status: str
    message: str
    exercises: tuple = ()
    skip_cell: tuple | None = None


def blame(run, tasks, step_timeout):
    """The :class:`Blame` for the step the stopped child of *run* was on (pure)."""
    notebook, current, cell = _last_step(run.events)
    if run.ending == ENDING_TIMEOUT:
        status, how = GRADE_TIMEOUT, f"made no progress for over {step_timeout:g} s and was stopped"
    else:
        status, how = GRADE_ERROR, f"crashed ({run.how}; os._exit or a crash in learner code?)"
    if current is not None:
        return Blame(status, f"the grading process {how} while checking this exercise", (current,))
    for task in tasks:
        if Path(task["notebook"]).name != notebook:
            continue
        skipped = [number for number, _ in task.get("skip_cells", ())]
        if isinstance(cell, int) and cell not in skipped:
            return Blame(status, f"not run: the grading process {how} while running it",
                         skip_cell=(task["notebook"], cell))
        return Blame(status, f"the grading process {how} while running the cells of {notebook}",
                     tuple(task["exercises"]))
    return Blame(status, f"the grading process {how}")


def _skipping(tasks, notebook, cell, reason):
    """New tasks in which *notebook*'s task also skips *cell* (recorded as *reason*)."""
    return [{**task, "skip_cells": [*task.get("skip_cells", ()), [cell, reason]]}
            if task["notebook"] == notebook else task for task in tasks]


def _progress_mark(grades, tasks):
    return len(grades), sum(len(task.get("skip_cells", ())) for task in tasks)


def grade_student(student_dir, exercises, job, expected_checks):
    """Return one :class:`Grade` per exercise (course order) for one student folder.

    *job* is a :class:`~reasoneval_mini.grading.process.GradingJob`;
    *expected_checks* maps each exercise id to its number of checks (public
    plus hidden).
    """
    student_dir = Path(student_dir)
    student = student_dir.name
    tasks, missing = plan_notebooks(student_dir, exercises)
    grades = {i: unscored(student, exercises[i], GRADE_MISSING, message)
              for i, message in missing.items()}
    while tasks:
        before = _progress_mark(grades, tasks)
        run = run_grading_process(job, tasks)
        pending = {i for task in tasks for i in task["exercises"]}
        for event in run.events:
            if event["event"] == "result" and event.get("exercise") in pending:
                exercise = exercises[event["exercise"]]
                grades.setdefault(exercise.id, _graded(
                    student, exercise, expected_checks[exercise.id], event))
        fatal = next((e.get("message", "") for e in run.events if e["event"] == "fatal"), None)
        if run.ending != ENDING_DONE:
            verdict = blame(run, tasks, job.step_timeout)
            for exercise_id in verdict.exercises:
                if exercise_id in pending:
                    grades.setdefault(exercise_id, unscored(
                        student, exercises[exercise_id], verdict.status, verdict.message))
            if verdict.skip_cell is not None:
                tasks = _skipping(tasks, *verdict.skip_cell, verdict.message)
        tasks = [{**task, "exercises": [i for i in task["exercises"] if i not in grades]}
                 for task in tasks]
        tasks = [task for task in tasks if task["exercises"]]
        if tasks and (run.ending == ENDING_DONE or _progress_mark(grades, tasks) == before):
            # No further progress is possible: record why, never loop forever.
            reason = shorten(f"the grader failed: {fatal}" if fatal
                             else f"not graded: {run.how or run.ending}")
            for task in tasks:
                for exercise_id in task["exercises"]:
                    grades[exercise_id] = unscored(student, exercises[exercise_id],
                                                   GRADE_ERROR, reason)
            break
    return [grades[i] for i in exercises]


def grade_class(submissions_dir, *, registry=DEFAULT_REGISTRY, hidden_tests=None,
                workers=None, timeout=DEFAULT_TIMEOUT, progress=True):
    """Grade every student folder; return grades sorted by student, then course order.

    Raises ``ValueError`` (a :class:`HiddenTestsError` for the hidden tests
    file) before grading anything if the arguments are unusable: *timeout*
    must be a positive, finite number of seconds, *workers* ``None`` (the
    number of CPUs) or a positive int.
    """
    students = discover_students(submissions_dir)
    timeout = positive_seconds(timeout, "timeout")
    workers = positive_int((os.cpu_count() or 1) if workers is None else workers, "workers")
    registry_module = load_registry(registry)
    exercises = dict(registry_module.EXERCISES)
    hidden_path = str(Path(hidden_tests).resolve()) if hidden_tests else None
    hidden = load_hidden_checks(hidden_path, exercises) if hidden_path else {}
    counts = {i: len(e.checks) + len(hidden.get(i, ())) for i, e in exercises.items()}
    spec = str(Path(registry).resolve()) if str(registry).endswith(".py") else registry
    job = GradingJob(spec, hidden_path, timeout)
    root = Path(submissions_dir)
    bar = progress_bar(len(students), "grading", "student", progress)
    try:
        done = run_parallel(lambda name: grade_student(root / name, exercises, job, counts),
                            students, threads=workers,
                            on_done=(lambda _: bar.update(1)) if bar is not None else None)
    finally:
        if bar is not None:
            bar.close()
    by_student = {}
    for name, result in zip(students, done):
        if result.error is None:
            by_student[name] = result.value
        else:  # a grader bug or an unreadable folder: keep the student
            message = shorten(f"the grader failed on this student: "
                              f"{type(result.error).__name__}: {result.error}")
            by_student[name] = [unscored(name, e, GRADE_ERROR, message)
                                for e in exercises.values()]
    return [grade for name in students for grade in by_student[name]]
