"""``reasoneval-course progress [DIR]``: the progress table of a folder of notebooks."""

import sys

from reasoneval_mini.cli import UsageError
from reasoneval_mini.course_map import EXERCISE_NOTEBOOKS
from reasoneval_mini.exercises.registry import STATE_FAILED, STATE_NOT_ATTEMPTED, STATE_PASSED
from reasoneval_mini.feedback import format_progress
from reasoneval_mini.grading.progress import MISSING_NOTEBOOK, evaluate_folder
from reasoneval_mini.sandbox import SandboxUnavailable, plan_isolation


def run(args):
    try:
        isolation = plan_isolation(args.sandbox)
        rows = evaluate_folder(args.directory, args.timeout, isolation=isolation)
    except (ValueError, SandboxUnavailable) as error:
        raise UsageError(error) from None
    if isolation.warning():
        print(f"warning: {isolation.warning()}", file=sys.stderr)
    if all(row.state == MISSING_NOTEBOOK for row in rows):
        names = ", ".join(notebook.notebook for notebook in EXERCISE_NOTEBOOKS)
        raise UsageError(
            f"{args.directory!r} holds none of the exercise notebooks ({names}); run this "
            "from the course's root folder (the one with exercises/ in it), or name your "
            "folder: reasoneval-course progress path/to/your/exercises")
    print(format_progress({row.exercise_id: row.state for row in rows}))
    problems = [row for row in rows if row.state not in (STATE_PASSED, STATE_NOT_ATTEMPTED)]
    # One line per notebook and reason: a missing notebook is one problem, not six.
    grouped = {}
    for row in problems:
        grouped.setdefault((row.notebook, row.state, row.message), []).append(row.exercise_id)
    for (notebook, _, message), exercise_ids in grouped.items():
        print(f"  {', '.join(exercise_ids)} ({notebook}): {message}")
    if any(row.state == STATE_FAILED for row in problems):
        print("Each test's call, expected and actual value: run the exercise's check cell in its notebook.")
    return 0
