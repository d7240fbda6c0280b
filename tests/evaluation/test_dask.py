"""``evaluate code --dask``: a LocalCluster of two worker processes gives the local run's result.

The reference is a local run of the same file (threads in this process).
A worker killed halfway loses nothing: Dask runs its chunks again on the
other worker, and the results file holds every sample exactly once.
"""

import os
import signal
import threading
import time

import pytest

from evaluation_files import problem, results_records, write_jsonl
from reasoneval_mini.evaluation.code_evaluation import evaluate_code_file
from reasoneval_mini.evaluation.dask_cluster import INSTALL_HINT, dask_client

# slow: a Dask LocalCluster of two workers
pytestmark = [pytest.mark.slow, pytest.mark.filterwarnings(
    "ignore:reasoneval_mini. sandbox off:RuntimeWarning",
    "ignore::DeprecationWarning", "ignore::ResourceWarning")]

COMPLETIONS = ["    return 1", "    return 2", "    raise KeyError('x')",
               "    while True:\n        pass", "    return int('x')", None] * 3


@pytest.fixture(scope="module")
def distributed():
    # Imported by the tests that use it, not at collection: every xdist worker collects
    # this file, and importing distributed costs each of them a second.
    return pytest.importorskip("distributed", reason="the dask extra is not installed")


@pytest.fixture(scope="module")
def cluster(distributed):
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None, silence_logs=40) as local:
        with distributed.Client(local) as client:
            yield local, client


def _evaluate(samples, problems, out_dir, **options):
    return evaluate_code_file(samples, problems_path=problems, ks=(1, 2), timeout=1.0,
                              workers=2, out_dir=out_dir, progress=False,
                              say=lambda message: None, **options)


def test_a_local_cluster_gives_the_local_runs_states_and_pass_at_k(cluster, tmp_path):
    _, client = cluster
    problems = write_jsonl(tmp_path / "problems.jsonl", [problem("t/0"), problem("t/1")])
    samples = write_jsonl(tmp_path / "model.jsonl", [
        {"task_id": f"t/{i % 2}", "completion": c} for i, c in enumerate(COMPLETIONS)])
    local = _evaluate(samples, problems, tmp_path / "local")
    remote = _evaluate(samples, problems, tmp_path / "dask", dask=client, chunk_size=2)
    states = {r["sample_id"]: r["status"] for r in results_records(local.paths["results"])}
    assert {r["sample_id"]: r["status"]
            for r in results_records(remote.paths["results"])} == states
    assert len(set(states.values())) == 5  # every state, so the comparison means something
    assert remote.report["pass_at_k"] == local.report["pass_at_k"]
    assert remote.report["budget"]["workers"].startswith("dask ")
    assert "2 workers" in remote.report["budget"]["workers"]


@pytest.mark.skipif(os.name != "posix", reason="kills a worker process with SIGKILL")
def test_a_worker_killed_halfway_loses_nothing_and_counts_nothing_twice(cluster, tmp_path):
    _, client = cluster
    count = 40
    problems = write_jsonl(tmp_path / "problems.jsonl", [problem("t/0")])
    samples = write_jsonl(tmp_path / "model.jsonl", [
        {"task_id": "t/0", "completion": f"    return 1\nimport time\ntime.sleep(0.1)  # {i}\n"}
        for i in range(count)])
    results = tmp_path / "out" / "model.results.jsonl"
    outcome = {}
    run = threading.Thread(target=lambda: outcome.setdefault("result", _evaluate(
        samples, problems, tmp_path / "out", dask=client, chunk_size=2, sandbox="off")))
    run.start()
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not (
            results.exists() and len(results_records(results)) >= 6):
        time.sleep(0.02)
    pids = client.run(os.getpid)
    os.kill(sorted(pids.values())[0], signal.SIGKILL)
    assert len(results_records(results)) < count, "the run ended before a worker was killed"
    run.join(timeout=180)
    assert not run.is_alive(), "the run never finished after a worker died"
    records = results_records(results)
    ids = [record["sample_id"] for record in records]
    assert len(ids) == len(set(ids)) == count
    assert {record["status"] for record in records} == {"passed"}
    assert outcome["result"].report["states"]["counts"]["passed"] == count


def test_without_the_extra_the_error_says_how_to_install_it(monkeypatch):
    import builtins
    real_import = builtins.__import__

    def no_distributed(name, *args, **kwargs):
        if name == "distributed" or name.startswith("distributed."):
            raise ImportError("No module named 'distributed'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_distributed)
    with pytest.raises(ImportError) as error:
        dask_client("tcp://127.0.0.1:1")
    assert str(error.value) == INSTALL_HINT and "reasoneval-course[dask]" in INSTALL_HINT


def test_an_unreachable_scheduler_is_named(distributed):
    with pytest.raises(ValueError, match="cannot reach a Dask scheduler at 'tcp://127.0.0.1:9'"):
        dask_client("tcp://127.0.0.1:9", timeout=1)
