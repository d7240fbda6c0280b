"""``evaluate code --shard K/N`` and ``evaluate merge``: N slices give the whole run's report.

The reference is a whole run of the same file, made here: three shards,
merged, must give every sample the same state and the same pass@k. The
merge must refuse, naming what is wrong, every way shards can fail to add
up to one run: a missing shard, one given twice, an unfinished one, shards
of another file or with another setting, a whole run given as a shard.
"""

import json
import subprocess
import sys

import pytest

from evaluation_files import problem, results_records, write_jsonl
from reasoneval_mini.evaluation.code_evaluation import evaluate_code_file, merge_code_shards
from reasoneval_mini.evaluation.shards import Shard, merge_shards, parse_shard

# slow: three shard runs, merged
pytestmark = [pytest.mark.slow, pytest.mark.filterwarnings("ignore:reasoneval_mini. sandbox off:RuntimeWarning")]

# One of each kind of outcome, spread over three problems and uneven per problem.
COMPLETIONS = ["    return 1", "    return 2", "    raise KeyError('x')", "    return 1",
               "    while True:\n        pass", "    return 1", "    return 0", "    return 1",
               "    return 1", "    return int('x')", None]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("shards")
    problems = write_jsonl(folder / "problems.jsonl",
                           [problem("t/0"), problem("t/1"), problem("t/2")])
    samples = write_jsonl(folder / "model.jsonl", [
        {"task_id": f"t/{(3 * i) % 7 % 3}", "completion": c}
        for i, c in enumerate(COMPLETIONS)])
    return folder, problems, samples


def _run(samples, problems, out_dir, shard=None, timeout=1.0):
    return evaluate_code_file(samples, problems_path=problems, ks=(1, 2), timeout=timeout,
                              workers=2, sandbox="off", out_dir=out_dir, progress=False,
                              say=lambda message: None, shard=shard)


@pytest.fixture(scope="module")
def runs(files):
    folder, problems, samples = files
    whole = _run(samples, problems, folder / "whole")
    shard_paths = [_run(samples, problems, folder / "shards", Shard(k, 3)).paths["results"]
                   for k in (1, 2, 3)]
    return whole, shard_paths


def _states(records):
    return {record["sample_id"]: record["status"] for record in records}


def test_three_shards_merged_give_the_whole_runs_states_and_pass_at_k(runs, tmp_path):
    whole, shard_paths = runs
    report, paths = merge_code_shards(shard_paths, ks=(1, 2), out_dir=tmp_path)
    whole_records = results_records(whole.paths["results"])
    merged_ids = [row["task_id"] for row in report["per_problem"]]
    assert merged_ids == [row["task_id"] for row in whole.report["per_problem"]]
    assert report["pass_at_k"] == whole.report["pass_at_k"]
    assert report["states"] == whole.report["states"]
    merged = merge_shards(shard_paths)
    assert _states(merged.records) == _states(whole_records)
    assert len(merged.records) == len(COMPLETIONS)
    assert report["budget"]["shards"] == 3 and paths["markdown"].exists()
    assert json.loads(paths["json"].read_text())["pass_at_k"] == report["pass_at_k"]


def test_each_shard_holds_every_third_sample_and_no_report(runs, files):
    _, shard_paths = runs
    held = [{r["line"] for r in results_records(path)} for path in shard_paths]
    assert sorted(line for lines in held for line in lines) == list(range(1, len(COMPLETIONS) + 1))
    assert held[0] == {1, 4, 7, 10} and held[2] == {3, 6, 9}
    folder = files[0] / "shards"
    assert not list(folder.glob("*.report.*")), "a shard wrote a report of its slice alone"


def test_a_missing_shard_is_named(runs):
    _, shard_paths = runs
    with pytest.raises(ValueError, match=r"1 of 3 shards are missing: 2/3"):
        merge_shards([shard_paths[0], shard_paths[2]])


def test_a_shard_given_twice_is_named(runs):
    _, shard_paths = runs
    with pytest.raises(ValueError, match=r"shard 1/3 is given 2 times"):
        merge_shards([shard_paths[0], shard_paths[0], shard_paths[1], shard_paths[2]])


def test_an_unfinished_shard_names_its_missing_samples(runs, tmp_path):
    _, shard_paths = runs
    lines = shard_paths[1].read_text().splitlines()
    cut = tmp_path / shard_paths[1].name
    # Drop one sample line (the second record), as a job killed before it ran would.
    dropped = json.loads(lines[2])["sample_id"]
    cut.write_text("\n".join(lines[:2] + lines[3:]) + "\n")
    with pytest.raises(ValueError, match="unfinished: 1 of 4 samples have no result") as error:
        merge_shards([shard_paths[0], cut, shard_paths[2]])
    assert dropped in str(error.value)


def test_shards_of_another_setting_are_refused_naming_it(files, runs, tmp_path):
    folder, problems, samples = files
    _, shard_paths = runs
    other = _run(samples, problems, tmp_path, Shard(2, 3), timeout=2.0).paths["results"]
    with pytest.raises(ValueError, match=r"timeout_s changed \(1\.0 -> 2\.0\)"):
        merge_shards([shard_paths[0], other, shard_paths[2]])


def test_shards_of_another_sample_file_are_refused(files, runs, tmp_path):
    folder, problems, _ = files
    _, shard_paths = runs
    other_samples = write_jsonl(tmp_path / "model.jsonl", [
        {"task_id": f"t/{i % 3}", "completion": "    return 1"} for i in range(6)])
    other = _run(other_samples, problems, tmp_path / "o", Shard(2, 3)).paths["results"]
    with pytest.raises(ValueError, match="samples changed"):
        merge_shards([shard_paths[0], other, shard_paths[2]])


def test_a_whole_run_is_not_a_shard(runs):
    whole, shard_paths = runs
    with pytest.raises(ValueError, match="not of a shard"):
        merge_shards([whole.paths["results"], *shard_paths[1:]])


def test_shards_run_under_different_isolation_are_merged_and_say_so(runs, tmp_path):
    _, shard_paths = runs
    lines = shard_paths[2].read_text().splitlines()
    header = json.loads(lines[0])
    header["settings"]["isolation"] = "another machine: no landlock"
    edited = tmp_path / shard_paths[2].name
    edited.write_text("\n".join([json.dumps(header)] + lines[1:]) + "\n")
    report, _ = merge_code_shards([shard_paths[0], shard_paths[1], edited], ks=(1,),
                                  out_dir=tmp_path)
    assert "shard 3/3: another machine: no landlock" in report["budget"]["isolation_differs"]


def test_a_shard_resumes_from_its_own_file(files, runs):
    folder, problems, samples = files
    again = _run(samples, problems, folder / "shards", Shard(2, 3))
    assert again.ran == 0 and again.resumed == 4


@pytest.mark.parametrize("text", ["0/3", "4/3", "3", "a/b", "-1/2", "1/0", "", "1/100001"])
def test_bad_shard_texts_are_refused_with_the_text(text):
    with pytest.raises(ValueError, match="--shard"):
        parse_shard(text)


def test_the_command_line_runs_shards_and_merges(files, tmp_path):
    folder, problems, samples = files
    base = [sys.executable, "-m", "reasoneval_mini", "evaluate"]
    for k in (1, 2):
        done = subprocess.run(base + ["code", str(samples), "--problems", str(problems),
                                      "--sandbox", "off", "--no-progress", "--timeout", "1",
                                      "--k", "1,2", "--shard", f"{k}/2", "--out-dir",
                                      str(tmp_path)], capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        assert f"shard {k}/2:" in done.stdout and "evaluate merge" in done.stdout
    one = tmp_path / "model.shard-1-of-2.results.jsonl"
    two = tmp_path / "model.shard-2-of-2.results.jsonl"
    missing = subprocess.run(base + ["merge", str(one)], capture_output=True, text=True,
                             timeout=60)
    assert missing.returncode == 2 and "1 of 2 shards are missing: 2/2" in missing.stderr
    merged = subprocess.run(base + ["merge", str(one), str(two), "--k", "1,2"],
                            capture_output=True, text=True, timeout=60)
    assert merged.returncode == 0, merged.stderr
    assert f"{len(COMPLETIONS)} samples on 3 problems" in merged.stdout
    assert (tmp_path / "model.report.md").exists()
    bad = subprocess.run(base + ["code", str(samples), "--shard", "3/2"], capture_output=True,
                         text=True, timeout=60)
    assert bad.returncode == 2 and "1 <= K <= N" in bad.stderr
