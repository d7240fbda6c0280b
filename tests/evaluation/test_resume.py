"""Ctrl-C keeps every finished result; a rerun runs only the rest; a changed setting starts afresh."""

import collections
import json
import os
import signal
import subprocess
import sys
import time

import pytest

from evaluation_files import problem, results_records, write_jsonl
from reasoneval_mini.evaluation.code_evaluation import evaluate_code_file

SAMPLES = 40
# The samples log to a file outside their own folder, which the sandbox forbids.
# slow: killed and resumed evaluation runs
pytestmark = [pytest.mark.slow, pytest.mark.filterwarnings("ignore:reasoneval_mini. sandbox off:RuntimeWarning")]


def logging_samples(tmp_path, log):
    """Samples that each append their number to *log* when they run (then pass)."""
    problems = write_jsonl(tmp_path / "problems.jsonl", [problem("t/0"), problem("t/1")])
    completions = [f"    return 1\nimport time\ntime.sleep(0.15)\n"
                   f"with open({str(log)!r}, 'a') as handle:\n    handle.write('{i}\\n')\n"
                   for i in range(SAMPLES)]
    samples = write_jsonl(tmp_path / "samples.jsonl",
                          [{"task_id": f"t/{i % 2}", "completion": c}
                           for i, c in enumerate(completions)])
    return problems, samples


def command(samples, problems):
    return [sys.executable, "-m", "reasoneval_mini", "evaluate", "code", str(samples),
            "--problems", str(problems), "--workers", "2", "--sandbox", "off",
            "--no-progress", "--k", "1,2"]


def wait_for_records(path, at_least, seconds=60):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if path.exists() and len(results_records(path)) >= at_least:
            return
        time.sleep(0.05)
    raise AssertionError(f"{path} never held {at_least} records")


@pytest.mark.skipif(os.name != "posix", reason="sends SIGINT, as Ctrl-C does in a terminal")
def test_ctrl_c_halfway_then_a_rerun_loses_nothing_and_runs_nothing_twice(tmp_path):
    log = tmp_path / "ran.log"
    problems, samples = logging_samples(tmp_path, log)
    results = tmp_path / "samples.results.jsonl"
    first = subprocess.Popen(command(samples, problems), stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    wait_for_records(results, 16)  # well under way
    first.send_signal(signal.SIGINT)
    out, err = first.communicate(timeout=60)
    assert first.returncode == 130, err
    assert "interrupted:" in out and "rerun the same command to resume" in out
    kept = {record["sample_id"] for record in results_records(results)}
    assert 16 <= len(kept) < SAMPLES, "the interrupt came too late to test resuming"

    second = subprocess.run(command(samples, problems), capture_output=True, text=True,
                            timeout=120)
    assert second.returncode == 0, second.stderr
    assert f"resuming; {len(kept)} of {SAMPLES} samples already have results" in second.stderr
    records = results_records(results)
    assert sorted(r["sample_id"] for r in records) == sorted(
        f"t/{i % 2}#{i // 2}" for i in range(SAMPLES)), "lost or doubled a result"
    assert all(r["status"] == "passed" for r in records)
    runs = collections.Counter(int(line) for line in log.read_text().split())
    # Ctrl-C lets the running samples finish and keeps them: every sample ran exactly once.
    assert runs == collections.Counter(range(SAMPLES))
    report = json.loads((tmp_path / "samples.report.json").read_text())
    assert report["budget"]["sessions"] == 2
    assert report["states"]["counts"]["passed"] == SAMPLES


@pytest.mark.skipif(os.name != "posix", reason="SIGKILL")
def test_a_killed_run_keeps_every_written_result_and_a_rerun_finishes_it(tmp_path):
    log = tmp_path / "ran.log"
    problems, samples = logging_samples(tmp_path, log)
    results = tmp_path / "samples.results.jsonl"
    first = subprocess.Popen(command(samples, problems), stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL, start_new_session=True)
    wait_for_records(results, 16)
    os.killpg(first.pid, signal.SIGKILL)  # no chance to write anything more
    first.wait(timeout=30)
    kept = [record["sample_id"] for record in results_records(results)]
    assert subprocess.run(command(samples, problems), capture_output=True,
                          timeout=120).returncode == 0
    final = [record["sample_id"] for record in results_records(results)]
    assert final[:len(kept)] == kept and len(final) == len(set(final)) == SAMPLES


def quiet_run(samples, problems, messages, **settings):
    return evaluate_code_file(samples, problems_path=problems, ks=[1], workers=2,
                              progress=False, say=messages.append,
                              **{"timeout": 3.0, "sandbox": "off", **settings})


def test_the_same_settings_resume_without_running_anything(tmp_path):
    log = tmp_path / "ran.log"
    problems, samples = logging_samples(tmp_path, log)
    messages = []
    quiet_run(samples, problems, messages)
    again = quiet_run(samples, problems, messages)
    assert (again.ran, again.resumed) == (0, SAMPLES)
    assert len(log.read_text().split()) == SAMPLES


@pytest.mark.parametrize("change, named", [
    ({"timeout": 5.0}, "timeout_s changed (3.0 -> 5.0)"),
    ({"sandbox": "auto"}, "sandbox changed ('off' -> 'auto')"),
])
def test_a_changed_setting_starts_afresh_and_says_which(tmp_path, change, named):
    problems, samples = logging_samples(tmp_path, tmp_path / "ran.log")
    messages = []
    quiet_run(samples, problems, messages)
    again = quiet_run(samples, problems, messages, **change)
    assert again.ran == SAMPLES and again.resumed == 0
    assert any("starting afresh" in m and named in m for m in messages), messages
    assert (tmp_path / "samples.results.previous.jsonl").exists()


def test_a_changed_problems_file_starts_afresh_and_says_so(tmp_path):
    problems, samples = logging_samples(tmp_path, tmp_path / "ran.log")
    messages = []
    quiet_run(samples, problems, messages)
    write_jsonl(problems, [problem("t/0"), problem("t/1", answer=2)])
    again = quiet_run(samples, problems, messages)
    assert again.ran == SAMPLES
    assert any("problems changed" in m for m in messages), messages
    assert again.report["states"]["counts"]["assertion_failed"] == SAMPLES // 2
