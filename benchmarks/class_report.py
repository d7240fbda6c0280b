"""Benchmark: the class report (``grade --class-report``) as the class grows, beyond grading.

Builds synthetic classes in memory (no grading, no student code runs): every
student's answer to each of the course's 19 exercises is the solution's
answer cell plus a few statements of their own (different literals, so that
two students' answers are about 70-80% alike, under the 90% threshold), and
1 student in 50 copies a classmate's answers with every name changed (the
pairs the report must find). Grades are synthetic too (every exercise
passed). Then, in one run, for each class size:

1. the similarity pass alone (:func:`similar_answers`: fingerprint buckets,
   then difflib inside them), its time, then in a second run its peak
   memory (tracemalloc, which slows Python down);
2. the whole report (:func:`write_class_report`: Markdown and both figures);
3. for the two smallest sizes, the all-pairs comparison the report used
   before (difflib on every pair), for the ratio side by side;
4. one hostile pair (issue 24, attack 8): two near-identical long answers,
   through the bounded pass and through difflib on all their tokens (the
   report before the bound; 60 KB answers took it 100 s), side by side.

The copies planted are checked to be found, so a fast but blind pass fails.

Run:  python benchmarks/class_report.py [--sizes 100 200 500 1000 2000]
"""

import argparse
import difflib
import itertools
import random
import sys
import tempfile
import time
import tracemalloc
from fractions import Fraction
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from reasoneval_mini.exercises.registry import EXERCISES  # noqa: E402
from reasoneval_mini.grading.class_report import write_class_report  # noqa: E402
from reasoneval_mini.grading.grader import Grade  # noqa: E402
from reasoneval_mini.grading.similarity import (  # noqa: E402
    MIN_ANSWER_TOKENS, SIMILARITY_THRESHOLD, answer_sources, compared_source,
    fixed_value_exercises, normalised_tokens, similar_answers, similar_in_exercise)
from reasoneval_mini.grading.statuses import GRADE_PASSED  # noqa: E402
from reasoneval_mini.grading.submissions import Notebook, Submission, read_student  # noqa: E402

COPY_EVERY = 50


def solution_cells():
    """``{exercise id: (notebook name, source of the solution's answer cell)}``."""
    solutions = read_student(ROOT / "solutions", EXERCISES)
    cells = {}
    for notebook in solutions.notebooks:
        for exercise_id in notebook.exercises:
            cells[exercise_id] = (notebook.name, compared_source(notebook, EXERCISES[exercise_id]))
    return cells


def personal(source, rng):
    """*source* with statements of the student's own after each ``def`` line.

    About 5 tokens of their own for every 10 of the solution (at least 3
    statements of 12 tokens): two such answers are about 70% alike.
    """
    lines = source.splitlines()
    statements = max(3, round(0.5 * len(normalised_tokens(source)) / 12))
    out = []
    for line in lines:
        out.append(line)
        if line.lstrip().startswith("def ") and line.rstrip().endswith(":"):
            indent = " " * (len(line) - len(line.lstrip()) + 4)
            for _ in range(statements):
                a, b, c = rng.randint(2, 999), rng.randint(2, 999), rng.randint(2, 99)
                out.append(f"{indent}scratch_{rng.randint(0, 9)} = ({a} * {b} + {c}) % {a + c}")
    return "\n".join(out) + "\n"


def renamed(source, rng):
    """*source* with every ``scratch_N`` name changed: what a copier does."""
    for digit in range(10):
        source = source.replace(f"scratch_{digit}", f"mine_{rng.randint(100, 999)}_{digit}")
    return source


def build_class(size, cells, seed=0):
    """``(submissions, grades, planted pairs)`` of a synthetic class of *size* students."""
    rng = random.Random(seed)
    by_notebook = {}
    for exercise_id, (name, _) in cells.items():
        by_notebook.setdefault(name, []).append(exercise_id)
    submissions, grades, planted, answers = [], [], set(), {}
    for index in range(size):
        student = f"s{index:05d}"
        if index % COPY_EVERY == COPY_EVERY - 1:
            original = f"s{rng.randrange(index):05d}"
            answers[student] = {i: renamed(src, rng) for i, src in answers[original].items()}
            planted.add(tuple(sorted((original, student))))
        else:
            answers[student] = {i: personal(src, rng) for i, (_, src) in cells.items()}
        notebooks = []
        for name, ids in by_notebook.items():
            code = [(n, answers[student][i], {EXERCISES[i].answer_name})
                    for n, i in enumerate(ids, start=1)]
            notebooks.append(Notebook(name, tuple(ids), tuple(code)))
        submissions.append(Submission(Path(student), student, tuple(notebooks)))
        checks = ({"name": "c0", "passed": True, "attempted": True, "actual": "ok"},)
        grades += [Grade(student, i, Fraction(e.points), e.points, GRADE_PASSED, "", checks)
                   for i, e in EXERCISES.items()]
    return submissions, grades, planted


def all_pairs(submissions, grades):
    """The report's former similarity pass: difflib on every pair of students."""
    sources = answer_sources(submissions, grades, EXERCISES)
    skipped = fixed_value_exercises(sources, EXERCISES)
    found = 0
    for exercise_id, by_student in sources.items():
        if exercise_id in skipped:
            continue
        tokens = {s: t for s, t in ((s, normalised_tokens(src)) for s, src in by_student.items())
                  if len(t) >= MIN_ANSWER_TOKENS}
        for a, b in itertools.combinations(sorted(tokens), 2):
            matcher = difflib.SequenceMatcher(None, tokens[a], tokens[b], autojunk=False)
            if (matcher.real_quick_ratio() >= SIMILARITY_THRESHOLD
                    and matcher.quick_ratio() >= SIMILARITY_THRESHOLD
                    and matcher.ratio() >= SIMILARITY_THRESHOLD):
                found += 1
    return found


def hostile_pair(statements, seed=1):
    """Two near-identical answers of *statements* lines, every 97th line edited."""
    rng = random.Random(seed)
    lines = ["def f(a, b):"] + [f"    a = a + b * {rng.randrange(3)}"
                                for _ in range(statements)] + ["    return a"]
    edited = [("    b = b - a" if i % 97 == 1 else line) for i, line in enumerate(lines)]
    return "\n".join(lines) + "\n", "\n".join(edited) + "\n"


def unbounded_ratio(first, second):
    """difflib on every token of both answers: the close comparison before its bound."""
    matcher = difflib.SequenceMatcher(None, normalised_tokens(first), normalised_tokens(second),
                                      autojunk=False)
    return matcher.ratio()


def hostile(sizes):
    """Print the bounded and the unbounded close comparison of one hostile pair per size."""
    print(f"\n{'KB each':>8}  {'tokens':>6}  {'bounded s':>9}  {'ratio':>5}  "
          f"{'unbounded s':>11}  {'ratio':>5}  {'x':>6}")
    for statements in sizes:
        first, second = hostile_pair(statements)
        pairs, bounded = timed(similar_in_exercise, "f", {"a": first, "b": second})
        ratio, unbounded = timed(unbounded_ratio, first, second)
        shown = f"{pairs[0].ratio:5.3f}" if pairs else "  -  "
        print(f"{len(first) / 1000:8.1f}  {len(normalised_tokens(first)):>6}  {bounded:9.2f}  "
              f"{shown}  {unbounded:11.2f}  {ratio:5.3f}  {unbounded / bounded:6.1f}")
        if not pairs:
            raise SystemExit("the bounded pass missed a near-identical pair")


def timed(function, *args):
    """``(result, seconds)``; memory is traced in a separate run (tracing slows Python down)."""
    start = time.perf_counter()
    result = function(*args)
    return result, time.perf_counter() - start


def peak_mib(function, *args):
    """The peak of memory allocated while *function* runs (tracemalloc), in MiB."""
    tracemalloc.start()
    function(*args)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / 2**20


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100, 200, 500, 1000, 2000])
    parser.add_argument("--all-pairs-sizes", type=int, default=2,
                        help="run the former all-pairs pass on this many of the smallest sizes")
    parser.add_argument("--hostile-statements", type=int, nargs="*", default=[300, 600, 1200],
                        help="lines of each hostile answer (1200: 21 KB; 3000: 54 KB, ~100 s "
                             "unbounded)")
    args = parser.parse_args()
    cells = solution_cells()
    print(f"{len(cells)} exercises; 1 student in {COPY_EVERY} copies a classmate (renamed)")
    print(f"{'students':>8}  {'similarity s':>12}  {'x prev':>6}  {'peak MiB':>8}  "
          f"{'report s':>8}  {'pairs':>5}  {'planted found':>13}  {'all-pairs s':>11}  "
          f"{'x prev':>6}")
    previous = previous_all = None
    for position, size in enumerate(sorted(args.sizes)):
        submissions, grades, planted = build_class(size, cells)
        (pairs, skipped), seconds = timed(similar_answers, submissions, grades, EXERCISES)
        peak = peak_mib(similar_answers, submissions, grades, EXERCISES)
        found = {(p.first, p.second) for p in pairs}
        with tempfile.TemporaryDirectory() as folder:
            _, report_seconds = timed(write_class_report, grades, EXERCISES, folder,
                                      submissions)
        # Each planted copy is alike on every exercise that is not skipped.
        caught = sum(pair in found for pair in planted)
        all_seconds = None
        if position < args.all_pairs_sizes:
            _, all_seconds = timed(all_pairs, submissions, grades)
        ratio = f"{seconds / previous:6.2f}" if previous else f"{'':>6}"
        ratio_all = (f"{all_seconds / previous_all:6.2f}" if previous_all and all_seconds
                     else f"{'':>6}")
        shown_all = f"{all_seconds:11.1f}" if all_seconds is not None else f"{'-':>11}"
        print(f"{size:>8}  {seconds:12.1f}  {ratio}  {peak:8.1f}  {report_seconds:8.1f}  "
              f"{len(pairs):>5}  {caught:>6} of {len(planted):<4}  {shown_all}  {ratio_all}")
        previous, previous_all = seconds, all_seconds
        if caught != len(planted):
            raise SystemExit(f"the similarity pass missed {len(planted) - caught} planted copies")
    print(f"skipped (single right answer): {', '.join(skipped)}")
    hostile(args.hostile_statements)


if __name__ == "__main__":
    main()
