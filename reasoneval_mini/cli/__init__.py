"""The ``reasoneval-course`` command line.

Each subcommand lives in its own module, which exposes
``register(subparsers)``: it adds its parser and sets ``run`` (a function
taking the parsed arguments and returning an exit code) as a default.
Modules import their heavy dependencies inside ``run`` so that
``reasoneval-course --help`` stays fast and works with a partial install.
"""

import argparse
import importlib

from reasoneval_mini import __version__

# Order here is the order in --help.
COMMAND_MODULES = (
    "reasoneval_mini.lessons.doctor",
    "reasoneval_mini.cli.grade",
    "reasoneval_mini.exercises.build",
    "reasoneval_mini.grading.progress",
)


def build_parser():
    """Return the argument parser with every registered subcommand."""
    parser = argparse.ArgumentParser(
        prog="reasoneval-course",
        description="Course tools for scoring LLM reasoning and code answers.",
    )
    parser.add_argument(
        "--version", action="version", version=f"reasoneval-course {__version__}"
    )
    subparsers = parser.add_subparsers(title="commands", metavar="COMMAND")
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(subparsers)
    return parser


def main(argv=None):
    """Run the command line; returns the process exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if not hasattr(args, "run"):
        parser.print_help()
        return 2
    return args.run(args)
