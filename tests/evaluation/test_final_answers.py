"""evaluate answers: the three outcomes kept apart, accuracy with its interval, paired comparison."""

import json
import math
import statistics

import pytest

from evaluation_files import write_jsonl
from reasoneval_mini.cli import main

ROWS = [
    {"id": 1, "prediction": "6 * 180 = 1,080\n#### 1,080", "answer": "so...\n#### 1080"},
    {"id": 2, "prediction": "#### 0.5", "reference": "1/2"},
    {"id": 3, "prediction": "#### 7", "reference": "8"},
    {"id": 4, "prediction": "The answer is 12.", "reference": "12"},
    {"id": 5, "prediction": None, "reference": "3"},
    {"id": "six", "prediction": "#### 4", "reference": "four"},
    {"id": 7, "prediction": "#### $5", "answer": "no marker in this solution"},
]


def run(capsys, path, *extra):
    code = main(["evaluate", "answers", str(path), *extra])
    return code, capsys.readouterr()


def test_correct_wrong_no_answer_and_broken_references_are_counted_apart(tmp_path, capsys):
    path = write_jsonl(tmp_path / "p.jsonl", ROWS)
    code, captured = run(capsys, path)
    assert code == 1  # two references are not numbers: the data needs fixing
    report = json.loads((tmp_path / "p.report.json").read_text())
    assert report["counts"] == {"correct": 2, "wrong": 1, "no_answer": 2, "reference_error": 2}
    outcomes = [1, 1, 0, 0, 0]  # the five items with a usable reference
    assert report["accuracy"]["estimate"] == statistics.fmean(outcomes)
    assert (report["accuracy"]["low"], report["accuracy"]["high"]) == (0.0, 1.0)  # clipped
    assert [e["id"] for e in report["examples"]["no_answer"]] == [4, 5]  # as the file gives them
    assert [e["id"] for e in report["examples"]["reference_error"]] == ["six", 7]
    assert "2 references are not numbers" in captured.err
    markdown = (tmp_path / "p.report.md").read_text()
    assert "## No answer (outside the answer space): first 2 of 2" in markdown
    assert "left out of the accuracy" in markdown


def test_accuracy_has_a_t_interval_over_items(tmp_path, capsys):
    outcomes = [1] * 12 + [0] * 8
    path = write_jsonl(tmp_path / "p.jsonl", [{"id": i, "prediction": f"#### {i + 1 - o}",
                                               "reference": str(i)}
                                              for i, o in enumerate(outcomes)])
    assert run(capsys, path)[0] == 0
    accuracy = json.loads((tmp_path / "p.report.json").read_text())["accuracy"]
    t_975_19 = 2.093024054408263  # Student's t, 97.5% quantile, 19 degrees of freedom (tables)
    half_width = t_975_19 * statistics.stdev(outcomes) / math.sqrt(20)
    assert accuracy["estimate"] == 0.6
    assert accuracy["low"] == pytest.approx(0.6 - half_width, rel=1e-9)
    assert accuracy["high"] == pytest.approx(0.6 + half_width, rel=1e-9)


def test_extract_none_compares_the_prediction_as_it_is(tmp_path, capsys):
    path = write_jsonl(tmp_path / "p.jsonl", [{"id": 1, "prediction": "0.50", "reference": "1/2"},
                                              {"id": 2, "prediction": "#### 3", "reference": "3"}])
    code, _ = run(capsys, path, "--extract", "none")
    report = json.loads((tmp_path / "p.report.json").read_text())
    assert code == 0 and report["counts"]["correct"] == 1 and report["counts"]["no_answer"] == 1


def test_the_first_few_of_each_kind_are_listed_and_all_are_counted(tmp_path, capsys):
    rows = [{"id": i, "prediction": f"#### {i + 1}", "reference": str(i)} for i in range(12)]
    path = write_jsonl(tmp_path / "p.jsonl", rows)
    run(capsys, path)
    report = json.loads((tmp_path / "p.report.json").read_text())
    assert report["counts"]["wrong"] == 12 and len(report["examples"]["wrong"]) == 5
    assert "## Wrong: first 5 of 12" in (tmp_path / "p.report.md").read_text()


def test_a_paired_comparison_counts_the_items_only_one_side_got_right(tmp_path, capsys):
    a = write_jsonl(tmp_path / "a.jsonl", [{"id": i, "prediction": f"#### {i}",
                                            "reference": str(i)} for i in range(4)])
    b = write_jsonl(tmp_path / "b.jsonl", [{"id": i, "prediction": f"#### {i % 2}",
                                            "reference": str(i)} for i in range(4)])
    code, _ = run(capsys, a, "--compare", str(b))
    comparison = json.loads((tmp_path / "a.report.json").read_text())["comparison"]
    assert code == 0
    assert comparison["difference"] == 0.5  # items 2 and 3 right only in a
    assert comparison["only_right"] == {"a.jsonl": 2, "b.jsonl": 0}
    assert comparison["standard_error"] == pytest.approx(statistics.stdev([0, 0, 1, 1]) / 2)


def test_a_comparison_with_other_ids_is_refused_by_name(tmp_path, capsys):
    a = write_jsonl(tmp_path / "a.jsonl", [{"id": i, "prediction": "1", "reference": "1"}
                                           for i in range(3)])
    b = write_jsonl(tmp_path / "b.jsonl", [{"id": i, "prediction": "1", "reference": "1"}
                                           for i in (0, 1, 5)])
    code, captured = run(capsys, a, "--compare", str(b))
    assert code == 2
    assert "only in a.jsonl: '2'; only in b.jsonl: '5'" in captured.err
    assert not list(tmp_path.glob("*.report.*"))
