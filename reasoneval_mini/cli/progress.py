"""``reasoneval-course progress [DIR]``: the progress report of a folder of notebooks (see :func:`~reasoneval_mini.feedback.format_folder_progress`)."""

import sys

from reasoneval_mini.cli import UsageError
from reasoneval_mini.course_map import EXERCISE_NOTEBOOKS
from reasoneval_mini.feedback import format_folder_progress
from reasoneval_mini.grading.progress import MISSING_NOTEBOOK, evaluate_folder
from reasoneval_mini.sandbox import SandboxUnavailable, plan_isolation


def run(args):
    try:
        isolation = plan_isolation(args.sandbox)
    except SandboxUnavailable as error:
        raise UsageError(error) from None
    if isolation.warning():
        print(f"warning: {isolation.warning()}", file=sys.stderr)
    try:
        rows = evaluate_folder(args.directory, args.timeout, isolation=isolation)
    except ValueError as error:
        raise UsageError(error) from None
    if all(row.state == MISSING_NOTEBOOK for row in rows):
        names = ", ".join(notebook.notebook for notebook in EXERCISE_NOTEBOOKS)
        raise UsageError(
            f"{args.directory!r} holds none of the exercise notebooks ({names}); run this "
            "from the course's root folder (the one with exercises/ in it), or name your "
            "folder: reasoneval-course progress path/to/your/exercises")
    print(format_folder_progress(rows))
    return 0
