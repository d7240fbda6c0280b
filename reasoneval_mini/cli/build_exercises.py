"""``reasoneval-course build-exercises``: write or check ``exercises/`` and the masters' task cells."""

from reasoneval_mini.cli import UsageError
from reasoneval_mini.exercises.build import build_exercises


def run(args):
    try:
        written = build_exercises(args.solutions, args.exercises)
    except (ValueError, OSError) as error:
        raise UsageError(error) from None
    for path in written:
        print(f"wrote {path}")
    return 0
