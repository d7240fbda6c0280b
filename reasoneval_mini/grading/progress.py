"""The learner's progress, from saved notebooks (``progress(DIR)`` and ``reasoneval-course progress``).

The notebooks in *DIR* (default ``exercises/``) are checked exactly as the
instructor's grader checks one student's folder
(:func:`reasoneval_mini.grading.grader.grade_student`): a separate Python
process runs each notebook's code cells in file order (cells that only call
``check``/``hint``/``progress`` are skipped, a failing cell does not stop the
next), then calls each exercise's function on the checks' inputs, and the
checks compare what it returned. The time
limit (``--timeout``, default 10 s) is *per step*: one code cell, or one
exercise's checks. A step that runs too long is stopped (with anything it
started); the rest of the notebook still runs, so an endless loop costs only
the exercise it is in. Nothing the notebook prints or stores in its outputs
counts. Besides ``passed``, ``failed`` and ``not attempted``, an exercise can be:

* ``missing notebook`` -- no file of that name in *DIR* (or several copies in
  its subfolders);
* ``invalid notebook`` -- the file is not notebook JSON, or not a regular file
  (a named pipe is refused, never waited on);
* ``missing answer`` -- the notebook ran but no cell defines the function
  (the message names the cells that failed, if any);
* ``timeout`` -- this exercise's checks, or the cell that defines its
  function, ran past the time limit (the message names the cell);
* ``error`` -- the cell that defines the function raised, or the checking
  process died (the message says which, and how).

The notebook's code runs in the same sandbox as the grader's (Landlock,
where the kernel has it): it cannot change the learner's other files.

>>> row_from_grade(Grade("me", "kp1_x", 0, 1, "missing", "no notebook ex01.ipynb in me/"),
...                missing_notebooks={"kp1_x"})
ProgressRow(exercise_id='kp1_x', notebook='', state='missing notebook', message='no notebook ex01.ipynb in me/')

Surprising: a grader's ``failed`` whose every check met an untouched stub is
``not attempted``, not ``failed``.

>>> row_from_grade(Grade("me", "kp1_x", 0, 1, "failed", "...", ({"passed": False, "attempted": False},)))
ProgressRow(exercise_id='kp1_x', notebook='', state='not attempted', message='...')
"""

from dataclasses import dataclass, field
from pathlib import Path

from reasoneval_mini.support.arguments import positive_seconds
from reasoneval_mini.support.i18n import DEFAULT_LANGUAGE, N_, _
from reasoneval_mini.exercises.registry import (
    EXERCISE_STATES, EXERCISES, STATE_FAILED, STATE_NOT_ATTEMPTED, STATE_PASSED)
from reasoneval_mini.exercises.build import METADATA_KEY
from reasoneval_mini.exercises.variants import DEFAULT_IDENTITY, MAX_IDENTITY_CHARS
from reasoneval_mini.support.notebook_json import load_notebook_json
from reasoneval_mini.grading.submissions import read_regular_file, read_student
from reasoneval_mini.grading.statuses import (
    GRADE_ERROR, GRADE_FAILED, GRADE_INTERRUPTED, GRADE_MISSING, GRADE_PASSED, GRADE_TIMEOUT)
from reasoneval_mini.grading.process import GradingJob
from reasoneval_mini.grading.grader import DEFAULT_TIMEOUT, Grade, grade_student
from reasoneval_mini.grading.instructor_checks import DEFAULT_REGISTRY

# Ids, shown through _() in the table.
MISSING_NOTEBOOK = N_("missing notebook")
INVALID_NOTEBOOK = N_("invalid notebook")
MISSING_ANSWER = N_("missing answer")
TIMEOUT = N_("timeout")
ERROR = N_("error")
#: Every state of the progress table, defined once: the registry's three
#: (passed, failed, not attempted), then the ones only a saved notebook can have.
PROGRESS_STATES = EXERCISE_STATES + (MISSING_NOTEBOOK, INVALID_NOTEBOOK, MISSING_ANSWER,
                                     TIMEOUT, ERROR)

#: The grader's status -> the progress table's state (``failed`` may become not attempted).
_STATES = {GRADE_PASSED: STATE_PASSED, GRADE_FAILED: STATE_FAILED, GRADE_MISSING: MISSING_ANSWER,
           GRADE_TIMEOUT: TIMEOUT, GRADE_ERROR: ERROR, GRADE_INTERRUPTED: ERROR}


@dataclass(frozen=True)
class ProgressRow:
    """One exercise's line of the progress table; *state* is one of :data:`PROGRESS_STATES`.

    *language*: the notebooks' (their metadata), in which *message* is written
    and the report is printed.
    """

    exercise_id: str
    notebook: str
    state: str
    message: str
    language: str = field(default=DEFAULT_LANGUAGE, repr=False, compare=False)


def row_from_grade(grade, notebook="", missing_notebooks=()):
    """The :class:`ProgressRow` for one grader :class:`Grade`.

    *missing_notebooks*: exercise ids whose ``missing`` means the notebook,
    not the answer, is missing.
    """
    state = _STATES[grade.status]
    if grade.status == GRADE_MISSING and grade.exercise in missing_notebooks:
        state = MISSING_NOTEBOOK
    # The grader's "not attempted" flag: every check met the untouched stub.
    if (grade.status == GRADE_FAILED and grade.checks
            and not any(check.get("attempted", True) for check in grade.checks)):
        state = STATE_NOT_ATTEMPTED
    return ProgressRow(grade.exercise, notebook, state, grade.message,
                       getattr(grade, "language", DEFAULT_LANGUAGE))


def notebooks_variant(directory):
    """The variant the exercise notebooks in *directory* were built for (their metadata).

    The first notebook that records one decides; the shipped variant when
    none does (notebooks from before variants, or metadata an editor lost).
    Progress is the learner's own feedback, so it trusts what the notebook
    says; the grader never does.
    """
    for path in sorted(Path(directory).glob("*.ipynb")):
        try:
            metadata = load_notebook_json(read_regular_file(path), path.name).get("metadata", {})
            identity = metadata.get(METADATA_KEY, {}).get("variant")
        except (OSError, ValueError, AttributeError):
            continue
        if isinstance(identity, str) and 0 < len(identity) <= MAX_IDENTITY_CHARS:
            return identity
    return DEFAULT_IDENTITY


def evaluate_folder(directory, timeout=DEFAULT_TIMEOUT, *, isolation=None):
    """One :class:`ProgressRow` per exercise, in course order, for the notebooks in *directory*.

    *timeout* is the limit in seconds per step (a cell, or one exercise's
    checks); *isolation* the sandbox (``None``: ``plan_isolation("auto")``).
    Raises ``ValueError`` if *directory* is not a folder or
    *timeout* is not a positive, finite number (a wrong type included).
    """
    directory = Path(directory)
    if not directory.is_dir():
        raise ValueError(_("{folder!r} is not a folder of exercise notebooks").format(
            folder=str(directory)))
    timeout = positive_seconds(timeout, "timeout")
    # Read once, as the grader reads a student's folder; an unreadable notebook is
    # reported here, so that the grader's "error" means a crash only.
    submission = read_student(directory, EXERCISES)
    invalid = {i: n.error for n in submission.notebooks if n.error for i in n.exercises}
    # The learner's own check: the notebooks' variant, the public checks, as check() runs them.
    job = GradingJob(DEFAULT_REGISTRY, None, timeout, isolation,
                     identity=notebooks_variant(directory), public_only=True)
    grades = {g.exercise: g for g in grade_student(directory, EXERCISES, job,
                                                   submission=submission)}
    missing = submission.missing
    rows = []
    for exercise_id, exercise in EXERCISES.items():
        if exercise_id in invalid:
            rows.append(ProgressRow(exercise_id, exercise.notebook, INVALID_NOTEBOOK,
                                    invalid[exercise_id], submission.language))
        else:
            rows.append(row_from_grade(grades[exercise_id], exercise.notebook, missing))
    return rows
