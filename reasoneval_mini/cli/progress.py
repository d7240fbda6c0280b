"""``reasoneval-course progress [DIR]``: the progress table of a folder of notebooks."""

from reasoneval_mini.cli import UsageError
from reasoneval_mini.exercises.registry import STATE_FAILED, STATE_NOT_ATTEMPTED, STATE_PASSED
from reasoneval_mini.feedback import format_progress
from reasoneval_mini.grading.progress import evaluate_folder


def run(args):
    try:
        rows = evaluate_folder(args.directory, args.timeout)
    except ValueError as error:
        raise UsageError(error) from None
    print(format_progress({row.exercise_id: row.state for row in rows}))
    problems = [row for row in rows if row.state not in (STATE_PASSED, STATE_NOT_ATTEMPTED)]
    for row in problems:
        print(f"  {row.exercise_id} ({row.notebook}): {row.message}")
    if any(row.state == STATE_FAILED for row in problems):
        print("Each test's call, expected and actual value: run the exercise's check cell in its notebook.")
    return 0
