"""``reasoneval-course evaluate code|merge|answers``: score your own model's outputs.

Exit codes: 0 when the report is written; 1 for ``answers`` when some
reference is not a number (the report names them); 2 for unusable
arguments or input files (every bad line listed, nothing run); 130 after
Ctrl-C, once every finished sample's result is written (a rerun resumes).
"""

import signal
import sys

from reasoneval_mini.cli import UsageError
from reasoneval_mini.evaluation.input_files import BadInputFile
from reasoneval_mini.sandbox import SandboxUnavailable

INTERRUPTED = 130


def run(args):
    """Carry out ``evaluate code`` or ``evaluate answers``."""
    if args.kind is None:
        raise UsageError("say what to score: evaluate code SAMPLES.jsonl, "
                         "evaluate merge SHARD_RESULTS..., or evaluate answers PREDICTIONS.jsonl")
    try:
        return {"code": _code, "merge": _merge, "answers": _answers}[args.kind](args)
    except (BadInputFile, SandboxUnavailable, ImportError, ValueError) as error:
        raise UsageError(error) from None
    except OSError as error:  # e.g. the results cannot be written where asked
        raise UsageError(f"{error}; choose a writable folder with --out-dir") from None


def _say(message):
    print(message, file=sys.stderr)


def _code(args):
    from reasoneval_mini.evaluation.code_evaluation import evaluate_code_file

    result = evaluate_code_file(
        args.samples, problems_path=args.problems, ks=args.k, timeout=args.timeout,
        workers=args.workers, sandbox=args.sandbox, out_dir=args.out_dir,
        compare=args.compare, fresh=args.fresh, progress=not args.no_progress, say=_say,
        shard=args.shard, dask=args.dask)
    if result.interrupted:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # the message must get out
        print(f"interrupted: {result.ran} samples ran in this session and their results are in "
              f"{result.paths['results']}; rerun the same command to resume")
        return INTERRUPTED
    if args.shard is not None:
        print(f"shard {args.shard}: {result.ran + result.resumed} samples have results in "
              f"{result.paths['results']}; once all {args.shard.count} shards have run: "
              f"reasoneval-course evaluate merge <the {args.shard.count} shard results files>")
        return 0
    _print_code_report(result.report)
    print(f"wrote {result.paths['markdown']}, {result.paths['json']} "
          f"(per-sample results: {result.paths['results']})")
    return 0


def _merge(args):
    from reasoneval_mini.evaluation.code_evaluation import merge_code_shards

    report, paths = merge_code_shards(args.results, ks=args.k, out_dir=args.out_dir)
    if "isolation_differs" in report["budget"]:
        _say(report["budget"]["isolation_differs"])
    _print_code_report(report)
    print(f"wrote {paths['markdown']}, {paths['json']} (from {len(args.results)} shards)")
    return 0


def _print_code_report(report):
    states = report["states"]
    print(f"{states['planned']} samples on {len(report['per_problem'])} problems: "
          + ", ".join(f"{name} {count}" for name, count in states["counts"].items()))
    for entry in report["pass_at_k"]:
        if entry["valid"]:
            interval = ("" if entry["low"] is None
                        else f" [{entry['low']:.3f}, {entry['high']:.3f}]")
            print(f"pass@{entry['k']} = {entry['estimate']:.3f}{interval}")
        else:
            print(f"pass@{entry['k']}: not defined, {entry['why']}")


def _answers(args):
    from reasoneval_mini.evaluation.answers_evaluation import evaluate_answers_file
    from reasoneval_mini.evaluation.answers_report import accuracy_text, rules_text
    from reasoneval_mini.evaluation.final_answers import REFERENCE_ERROR
    from reasoneval_mini.support.text import shorten

    report, paths = evaluate_answers_file(
        args.predictions, file_format=args.file_format, extract=args.extract, rules=args.rules,
        units=args.units, compare=args.compare, out_dir=args.out_dir,
        progress=not args.no_progress)
    counts = ", ".join(f"{name} {count}" for name, count in report["counts"].items())
    print(f"{report['budget']['items']} items: {counts}")
    print(f"accuracy {accuracy_text(report['accuracy'])} with rules: "
          f"{rules_text(report['budget']['rules'])}; raw {accuracy_text(report['raw']['accuracy'])}")
    for name, entry in report.get("harness", {}).items():
        kinds = ", ".join(f"{kind} {count}" for kind, count in entry["kinds"].items()
                          if kind != "agree")
        print(f"harness {shorten(name, 60)}: {entry['harness_score']:.3f} "
              f"({entry['harness_right']} of {entry['documents']} right); disagreements: {kinds}")
    print(f"wrote {paths['markdown']}, {paths['json']} (per-item results: {paths['results']})")
    if report["counts"][REFERENCE_ERROR]:
        print(f"{report['counts'][REFERENCE_ERROR]} references are not numbers; see the report",
              file=sys.stderr)
        return 1
    return 0

