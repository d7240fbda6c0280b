"""evaluate answers with the declared rules: verdicts, raw and normalised accuracy, per-item results."""

import json
import statistics

import pytest

from evaluation_files import write_jsonl
from reasoneval_mini.cli import main
from reasoneval_mini.evaluation import answers_evaluation
from reasoneval_mini.normalise import RULES, normalised_verdict

ROWS = [
    {"id": "a", "prediction": "so...\n#### $1,000", "reference": "1000"},
    {"id": "b", "prediction": "#### \\boxed{18}", "answer": "... #### 18"},
    {"id": "c", "prediction": "#### 5 kg", "reference": "5"},
    {"id": "d", "prediction": "#### 5 g", "reference": "5"},
    {"id": 5, "prediction": "#### 1,2", "reference": "12"},
    {"id": 6, "prediction": "#### 7", "reference": "8"},
    {"id": 7, "prediction": None, "reference": "3"},
]
NAMES = {True: "correct", False: "wrong", None: "no_answer"}


def run(capsys, path, *extra):
    code = main(["evaluate", "answers", str(path), "--no-progress", *extra])
    captured = capsys.readouterr()
    folder, stem = path.parent, path.name[: -len(".jsonl")]
    report = json.loads((folder / f"{stem}.report.json").read_text())
    results = [json.loads(line) for line in (folder / f"{stem}.results.jsonl").read_text().splitlines()]
    return code, captured, report, results


def expected(row, rules, units=()):
    """The course's pipeline applied here: extract, the declared rules, exact comparison."""
    if row["prediction"] is None:
        return "no_answer"
    reference = row.get("reference") or row["answer"].rpartition("#### ")[2]
    return NAMES[normalised_verdict(row["prediction"], reference, rules=rules, units=units)]


@pytest.mark.parametrize("argv, rules, units", [
    ([], (), ()),
    (["--rules", "currency,thousands"], ("currency", "thousands"), ()),
    (["--rules", "thousands,currency,boxed"], ("boxed", "currency", "thousands"), ()),
    (["--rules", "all", "--units", "kg"],
     ("nfkc_digits", "unicode_minus", "math_delimiters", "boxed", "latex_fraction", "currency",
      "units", "thousands"), ("kg",)),
])
def test_every_verdict_is_the_pipelines_under_the_rules_the_budget_names(tmp_path, capsys, argv,
                                                                         rules, units):
    path = write_jsonl(tmp_path / "p.jsonl", ROWS)
    code, _, report, results = run(capsys, path, *argv)
    assert code == 0
    assert report["budget"]["rules"] == list(rules) and report["budget"]["units"] == list(units)
    assert [row["verdict"] for row in results] == [expected(row, rules, units) for row in ROWS]
    assert [row["raw_verdict"] for row in results] == [expected(row, ()) for row in ROWS]
    markdown = (tmp_path / "p.report.md").read_text()
    assert f"| rules | {', '.join(rules) or 'none (the protocol alone)'} |" in markdown


def test_raw_and_normalised_accuracy_are_reported_side_by_side(tmp_path, capsys):
    path = write_jsonl(tmp_path / "p.jsonl", ROWS)
    code, captured, report, _ = run(capsys, path, "--rules", "all", "--units", "kg")
    raw = [expected(row, ()) for row in ROWS]
    normalised = [expected(row, RULES, ("kg",)) for row in ROWS]
    assert report["raw"]["accuracy"]["estimate"] == statistics.fmean(v == "correct" for v in raw)
    assert report["accuracy"]["estimate"] == statistics.fmean(v == "correct" for v in normalised)
    assert report["raw"]["no_answer_rate"] == statistics.fmean(v == "no_answer" for v in raw)
    assert report["no_answer_rate"] == statistics.fmean(v == "no_answer" for v in normalised)
    assert report["accuracy"]["estimate"] > report["raw"]["accuracy"]["estimate"]
    markdown = (tmp_path / "p.report.md").read_text()
    raw_accuracy = report["raw"]["accuracy"]["estimate"]
    accuracy = report["accuracy"]["estimate"]
    assert f"| raw | none (the protocol alone) | {raw_accuracy:.3f} [" in markdown
    assert (f"| declared rules | nfkc_digits, unicode_minus, math_delimiters, boxed, "
            f"latex_fraction, currency, units, thousands | {accuracy:.3f} [") in markdown
    assert f"accuracy {accuracy:.3f} [" in captured.out and f"; raw {raw_accuracy:.3f} [" in captured.out


def test_the_per_item_results_hold_id_verdict_read_as_reference_and_the_rules_that_fired(
        tmp_path, capsys):
    path = write_jsonl(tmp_path / "p.jsonl", ROWS)
    _, _, report, results = run(capsys, path, "--rules", "currency,thousands,boxed")
    assert [row["id"] for row in results] == [row["id"] for row in ROWS]  # as the file gives them
    assert [row["line"] for row in results] == list(range(1, len(ROWS) + 1))
    # GSM8K's protocol already took the thousands comma out of "$1,000": currency only.
    assert results[0] == {"id": "a", "line": 1, "verdict": "correct", "raw_verdict": "no_answer",
                          "read_as": "1000", "reference": "1000", "rules_fired": ["currency"]}
    assert results[1]["rules_fired"] == ["boxed"] and results[1]["reference"] == "18"
    assert results[4]["read_as"] is None and results[4]["verdict"] == "no_answer"  # 1,2
    assert report["rules_fired"] == {"boxed": 1, "currency": 1, "thousands": 0}


def test_with_extract_none_the_rules_read_the_whole_prediction(tmp_path, capsys):
    path = write_jsonl(tmp_path / "p.jsonl", [{"id": 1, "prediction": "$1,000", "reference": "1000"},
                                              {"id": 2, "prediction": "#### 3", "reference": "3"}])
    _, _, _, results = run(capsys, path, "--extract", "none", "--rules", "currency,thousands")
    assert results[0]["rules_fired"] == ["currency", "thousands"]
    assert [row["verdict"] for row in results] == ["correct", "no_answer"]


def test_a_unit_is_dropped_only_where_declared_and_never_converted(tmp_path, capsys):
    path = write_jsonl(tmp_path / "p.jsonl", ROWS)
    _, _, _, results = run(capsys, path, "--rules", "units", "--units", "kg")
    by_id = {row["id"]: row for row in results}
    assert by_id["c"]["verdict"] == "correct" and by_id["c"]["rules_fired"] == ["units"]
    assert by_id["d"]["verdict"] == "no_answer"  # 5 g: g is not declared


@pytest.mark.parametrize("argv, message", [
    (["--rules", "currency,dollar"], "unknown rule 'dollar'; the rules are nfkc_digits"),
    (["--rules", "units"], "the 'units' rule drops only declared units"),
    (["--rules", "currency", "--units", "kg"], "units kg are declared but the 'units' rule"),
    (["--rules", "none,boxed"], "'none' declares no rule and cannot be combined"),
])
def test_bad_rules_are_a_usage_error_before_anything_is_written(tmp_path, capsys, argv, message):
    path = write_jsonl(tmp_path / "p.jsonl", ROWS)
    code = main(["evaluate", "answers", str(path), *argv])
    err = capsys.readouterr().err
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p.jsonl"]


def test_a_paired_comparison_scores_both_files_under_the_same_rules(tmp_path, capsys):
    a = write_jsonl(tmp_path / "a.jsonl", [{"id": i, "prediction": f"#### ${i}", "reference": str(i)}
                                           for i in range(4)])
    b = write_jsonl(tmp_path / "b.jsonl", [{"id": i, "prediction": f"#### {i}", "reference": str(i)}
                                           for i in range(4)])
    _, _, report, _ = run(capsys, a, "--compare", str(b), "--rules", "currency")
    assert report["comparison"]["difference"] == 0.0
    _, _, report, _ = run(capsys, a, "--compare", str(b))
    assert report["comparison"]["difference"] == -1.0  # "$0" is no answer without the rule


@pytest.mark.parametrize("argv, shown", [([], True), (["--no-progress"], False)])
def test_no_progress_turns_the_answers_bar_off(tmp_path, capsys, monkeypatch, argv, shown):
    asked = []
    monkeypatch.setattr(answers_evaluation, "progress_bar",
                        lambda total, what, unit, enabled: asked.append((total, enabled)))
    path = write_jsonl(tmp_path / "p.jsonl", ROWS)
    assert main(["evaluate", "answers", str(path), *argv]) == 0
    assert asked == [(len(ROWS), shown)]
