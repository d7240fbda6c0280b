"""Benchmark: ``reasoneval-course grade`` against a Jupyter kernel per notebook.

Builds a synthetic class in a temporary folder from the course's own notebooks
(correct = copies of ``solutions/``, blank = copies of ``exercises/``, partial
= solutions for some notebooks and stubs for the others), then, in one run:

1. grades the whole class with :func:`grade_class` (2 workers), which gives a
   status per (student, exercise);
2. executes the same notebooks the way nbgrader's autograde does: a fresh
   Jupyter kernel per notebook via nbclient, every cell, 2 worker processes.
   Starting kernels is slow, so by default this side runs on the first
   ``--kernel-submissions`` students (the same mix) and reports its rate.

Run:  python benchmarks/grading.py [--submissions 100] [--kernel-submissions 20]
"""

import argparse
import shutil
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
KINDS = ("correct", "partial", "blank")


def build_class(root, count):
    """``count`` student folders cycling through KINDS; returns their paths."""
    notebooks = sorted(p.name for p in (ROOT / "solutions").glob("*.ipynb"))
    students = []
    for index in range(count):
        kind = KINDS[index % len(KINDS)]
        folder = root / f"student{index:03d}_{kind}"
        folder.mkdir(parents=True)
        for position, name in enumerate(notebooks):
            solved = kind == "correct" or (kind == "partial" and (index + position) % 2 == 0)
            shutil.copy(ROOT / ("solutions" if solved else "exercises") / name, folder / name)
        students.append(folder)
    return students


def _quiet():
    # Kernels log a TCP warning each on stderr; keep the report readable.
    import os

    os.dup2(os.open(os.devnull, os.O_WRONLY), 2)


def execute_with_kernel(folder):
    """nbgrader-style: one kernel per notebook, all cells, errors allowed."""
    import nbformat
    from nbclient import NotebookClient

    for path in sorted(folder.glob("*.ipynb")):
        notebook = nbformat.read(path, as_version=4)
        NotebookClient(notebook, timeout=60, kernel_name="python3", allow_errors=True,
                       resources={"metadata": {"path": str(folder)}}).execute()
    return folder.name


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--submissions", type=int, default=100)
    parser.add_argument("--kernel-submissions", type=int, default=20)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    from reasoneval_mini.grading.grader import grade_class
    from reasoneval_mini.exercises.variants import DEFAULT_IDENTITY
    from reasoneval_mini.grading.statuses import GRADE_STATUSES

    with tempfile.TemporaryDirectory(prefix="grading-bench-") as tmp:
        students = build_class(Path(tmp) / "submissions", args.submissions)
        notebooks = len(list(students[0].glob("*.ipynb")))
        print(f"{args.submissions} synthetic submissions ({', '.join(KINDS)} in turn), "
              f"{notebooks} notebooks each, {args.workers} workers")

        start = time.perf_counter()
        # The copies were built for the shipped variant (exercises/ and solutions/ are
        # self-study): grade them on it, as an instructor grades a class given exercises/
        # (per folder name, each typed answer would be judged on another student's items).
        grades = grade_class(Path(tmp) / "submissions", workers=args.workers, progress=False,
                             identity=DEFAULT_IDENTITY)
        ours = time.perf_counter() - start
        # Written tasks await the instructor whatever the kind: only checked exercises count.
        by_kind = {kind: Counter(g.status for g in grades
                                 if g.student.endswith(kind) and g.status in GRADE_STATUSES)
                   for kind in KINDS}
        print("per-exercise statuses by kind: "
              + "; ".join(f"{k}: {dict(sorted(c.items()))}" for k, c in by_kind.items()))
        # Fast only counts if it is right: solutions pass, untouched stubs fail.
        assert set(by_kind["correct"]) == {"passed"}, by_kind["correct"]
        assert set(by_kind["blank"]) == {"failed"}, by_kind["blank"]

        sample = students[: args.kernel_submissions]
        start = time.perf_counter()
        with ProcessPoolExecutor(max_workers=args.workers, initializer=_quiet) as pool:
            list(pool.map(execute_with_kernel, sample))
        kernel = time.perf_counter() - start

    our_rate = args.submissions / ours
    kernel_rate = len(sample) / kernel
    print(f"reasoneval-course grade   : {args.submissions:4d} submissions in {ours:7.2f} s "
          f"= {our_rate:7.2f} submissions/s")
    print(f"kernel per notebook       : {len(sample):4d} submissions in {kernel:7.2f} s "
          f"= {kernel_rate:7.2f} submissions/s  (nbclient, {len(sample) * notebooks} kernels)")
    print(f"ratio: {our_rate / kernel_rate:.1f}x faster (target, issue 24: at least 30x)")


if __name__ == "__main__":
    main()
