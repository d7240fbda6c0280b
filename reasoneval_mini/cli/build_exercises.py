"""``reasoneval-course build-exercises``: write or check ``exercises/`` and the masters' task cells."""

from pathlib import Path

from reasoneval_mini.cli import UsageError
from reasoneval_mini.exercises.build import build_exercises, out_of_date

#: Exit code of ``--check`` when a file is out of date.
OUT_OF_DATE = 1


def _is_master(path, solutions):
    # A master, or a master's language edition (solutions/zh-CN/...).
    folder, solutions = path.parent.resolve(), Path(solutions).resolve()
    return folder == solutions or folder.parent == solutions


def _release(args):
    """``--class`` / ``--variant``: one folder of learner notebooks per identity, into ``--out``."""
    from reasoneval_mini.exercises.build import plan_class
    from reasoneval_mini.support.files import write_atomically

    if args.check or not args.out or (args.roster and args.variant):
        raise UsageError("--class ROSTER or --variant NAME, with --out DIR (and without --check)")
    if Path(args.out).resolve() == Path(args.exercises).resolve():
        raise UsageError(f"--out {args.out!r} is the shipped exercises folder; choose another")
    if args.roster:
        from reasoneval_mini.grading.gradebook import read_roster

        identities = [entry.folder for entry in read_roster(args.roster, None)]
        planned = plan_class(args.solutions, args.out, identities)
    else:
        # One learner's fresh set: the notebooks straight into --out.
        planned = [(Path(args.out) / path.name, text)
                   for path, text in plan_class(args.solutions, args.out, [args.variant])]
    for path, text in planned:
        write_atomically(path, text)
    shown = (f"{len(identities)} students" if args.roster else f"variant {args.variant!r}")
    print(f"wrote {len(planned)} notebooks for {shown} into {args.out}")
    return 0


def run(args):
    """Build (or with ``--check`` only compare) and print one line per file; return the exit code."""
    try:
        if args.roster or args.variant:
            return _release(args)
        if args.check:
            return _check(args)
        written = build_exercises(args.solutions, args.exercises)
    except (ValueError, OSError) as error:
        raise UsageError(error) from None
    for path in written:
        if _is_master(path, args.solutions):
            print(f"updated task cells in {path} (its task texts differed from the registry)")
        else:
            print(f"wrote {path}")
    return 0


def _check(args):
    stale = out_of_date(args.solutions, args.exercises)
    for path in stale:
        what = "task cells differ from the registry" if _is_master(path, args.solutions) else \
            "differs from what build-exercises would write"
        print(f"out of date: {path} ({what})")
    if stale:
        print(f"{len(stale)} file(s) out of date: run `reasoneval-course build-exercises`")
        return OUT_OF_DATE
    print(f"{args.exercises} and the task cells of {args.solutions} are up to date")
    return 0
