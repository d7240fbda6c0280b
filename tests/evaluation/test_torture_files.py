"""Hostile input files: each attack found on evaluate gets a named test here."""

import json
import os

import pytest

from evaluation_files import problem, write_jsonl
from reasoneval_mini.cli import main


@pytest.fixture
def problems_file(tmp_path):
    return write_jsonl(tmp_path / "problems.jsonl", [problem("t/0")])


def test_json_nested_too_deeply_is_a_bad_line_not_a_crash(tmp_path, problems_file, capsys):
    samples = tmp_path / "s.jsonl"
    samples.write_text('{"task_id": "t/0", "completion": "    return 1"}\n' + "[" * 200_000 + "\n")
    assert main(["evaluate", "code", str(samples), "--problems", str(problems_file)]) == 2
    assert "line 2: JSON nested too deeply to read" in capsys.readouterr().err


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
def test_a_named_pipe_as_the_samples_file_is_refused_not_waited_on(tmp_path, problems_file,
                                                                   capsys):
    fifo = tmp_path / "s.jsonl"
    os.mkfifo(fifo)
    assert main(["evaluate", "code", str(fifo), "--problems", str(problems_file)]) == 2
    assert "is not a regular file (a named pipe, socket or device)" in capsys.readouterr().err


def test_lone_surrogates_in_predictions_and_references_are_reported_not_a_crash(tmp_path,
                                                                                capsys):
    predictions = tmp_path / "p.jsonl"
    predictions.write_text('{"id": 1, "prediction": "#### \\ud800", "reference": "1"}\n'
                           '{"id": 2, "prediction": "#### 2", "reference": "\\udfff"}\n')
    assert main(["evaluate", "answers", str(predictions)]) == 1  # a broken reference
    report = json.loads((tmp_path / "p.report.json").read_text(encoding="utf-8"))
    assert report["counts"]["no_answer"] == 1 and report["counts"]["reference_error"] == 1
    assert "\\ud800" in (tmp_path / "p.report.md").read_text(encoding="utf-8")


def test_a_completion_with_a_null_byte_or_a_surrogate_is_a_runtime_error_of_its_own(
        tmp_path, problems_file):
    samples = tmp_path / "s.jsonl"
    samples.write_text('{"task_id": "t/0", "completion": "    return 1\\u0000"}\n'
                       '{"task_id": "t/0", "completion": "    return \\"\\ud800\\""}\n'
                       '{"task_id": "t/0", "completion": "    return 1"}\n')
    assert main(["evaluate", "code", str(samples), "--problems", str(problems_file), "--k", "1",
                 "--no-progress"]) == 0
    report = json.loads((tmp_path / "s.report.json").read_text())
    assert report["states"]["counts"]["passed"] == 1
    assert report["states"]["planned"] == 3


def test_a_byte_order_mark_and_crlf_line_ends_are_read(tmp_path, problems_file):
    samples = tmp_path / "s.jsonl"
    samples.write_bytes(b'\xef\xbb\xbf{"task_id": "t/0", "completion": "    return 1"}\r\n')
    assert main(["evaluate", "code", str(samples), "--problems", str(problems_file), "--k", "1",
                 "--no-progress"]) == 0


def test_a_results_file_that_is_not_ours_is_moved_aside_not_trusted(tmp_path, problems_file,
                                                                    capsys):
    samples = write_jsonl(tmp_path / "s.jsonl", [{"task_id": "t/0", "completion": "    return 2"}])
    forged = tmp_path / "s.results.jsonl"
    forged.write_text('{"sample_id": "t/0#0", "task_id": "t/0", "status": "passed"}\n')
    assert main(["evaluate", "code", str(samples), "--problems", str(problems_file), "--k", "1",
                 "--no-progress"]) == 0
    captured = capsys.readouterr()
    assert "is not a results file written by this version" in captured.err
    report = json.loads((tmp_path / "s.report.json").read_text())
    assert report["states"]["counts"]["assertion_failed"] == 1
    assert (tmp_path / "s.results.previous.jsonl").exists()


def lm_eval_line(doc_id, filter_name="strict-match", reply="#### 1", read="1", target="#### 1"):
    return {"doc_id": doc_id, "target": target, "resps": [[reply]], "filtered_resps": [read],
            "filter": filter_name, "metrics": ["exact_match"], "exact_match": 1.0}


def test_lone_surrogates_in_an_lm_eval_log_are_written_escaped_in_the_report_and_results(
        tmp_path, capsys):
    log = write_jsonl(tmp_path / "samples_t.jsonl",
                      [lm_eval_line(0, reply="#### \ud800", read="\udfff")])
    assert main(["evaluate", "answers", str(log), "--format", "lm-eval", "--no-progress"]) == 0
    results = (tmp_path / "samples_t.results.jsonl").read_text(encoding="utf-8")
    assert json.loads(results)["harness"]["strict-match"]["kind"] == "format"
    assert "\\ud800" in (tmp_path / "samples_t.report.md").read_text(encoding="utf-8")


def test_a_thousand_filters_each_lacking_documents_make_one_bounded_message(tmp_path, capsys):
    log = write_jsonl(tmp_path / "samples_t.jsonl",
                      [lm_eval_line(i, filter_name=f"filter-{i}") for i in range(1000)])
    assert main(["evaluate", "answers", str(log), "--format", "lm-eval"]) == 2
    err = capsys.readouterr().err
    assert "; and 997 more filters: a cut-off file?" in err
    assert len(err) < 2000 and len(err.splitlines()) == 1


def test_a_filter_name_of_a_megabyte_is_shortened_in_messages_and_reports(tmp_path, capsys):
    huge = "f" * 1_000_000
    log = write_jsonl(tmp_path / "samples_t.jsonl", [lm_eval_line(0, huge), lm_eval_line(0, huge)])
    assert main(["evaluate", "answers", str(log), "--format", "lm-eval"]) == 2
    err = capsys.readouterr().err
    assert "line 2: doc_id 0 with filter" in err and len(err) < 500
    write_jsonl(log, [lm_eval_line(0, huge)])
    assert main(["evaluate", "answers", str(log), "--format", "lm-eval", "--no-progress"]) == 0
    assert len((tmp_path / "samples_t.report.md").read_bytes()) < 20_000
