"""Shards: run the K-th of N deterministic slices of a sample file, then merge them into one report.

For a batch scheduler (one job per shard, on as many machines), ``evaluate
code SAMPLES --shard K/N`` runs only the samples at positions ``K-1``,
``K-1+N``, ``K-1+2N``, ... of the file (every N-th, from 0). Interleaved, not
in blocks, so that each shard gets its share of every problem and of the
slow ones, and the shards end at about the same time. A shard writes its own
results file (``SAMPLES.shard-K-of-N.results.jsonl``), resumable like any
other, whose header also lists the ids the shard must finish.

``evaluate merge RESULTS...`` (:func:`merge_shards`) reads the N shards'
results files, checks that they share one setting and cover every sample of
the file exactly once, and only then returns the records for one report.
Missing shards, unfinished shards, missing and doubled samples are named.
The sandbox level each shard ran under is kept: shards run on machines that
isolate differently are merged, and the report says so.

>>> parse_shard("2/3")
Shard(index=2, count=3)
>>> [s for s in range(7) if Shard(2, 3).holds(s)]
[1, 4]

Surprising: ``1/1`` is a shard too (the whole file), and ``0/3`` is not one:
shards are counted from 1, as a scheduler's array job numbers them.

>>> parse_shard("0/3")
Traceback (most recent call last):
...
ValueError: --shard must be K/N with 1 <= K <= N (e.g. 2/3), got '0/3'
"""

import re
from dataclasses import dataclass
from pathlib import Path

from reasoneval_mini.evaluation.markdown import listed
from reasoneval_mini.evaluation.results_log import describe_changes, read_results_file

__all__ = ["MAX_SHARDS", "MergedShards", "Shard", "merge_shards", "parse_shard", "shard_samples"]

#: Most shards a file is cut into (a scheduler's array job is seldom larger).
MAX_SHARDS = 10_000
#: The setting that differs between shards by design; every other one must be equal.
SHARD_SETTING = "shard"
#: Settings shards may differ in: merged, and said in the report (a machine without Landlock).
REPORTED_SETTINGS = ("isolation",)


@dataclass(frozen=True)
class Shard:
    """The *index*-th (from 1) of *count* interleaved slices of a sample file."""

    index: int
    count: int

    def holds(self, position):
        """True when the sample at *position* (from 0, file order) belongs to this shard."""
        return position % self.count == self.index - 1

    def __str__(self):
        return f"{self.index}/{self.count}"


def parse_shard(text):
    """The :class:`Shard` written ``K/N``; ``ValueError`` naming *text* otherwise."""
    match = re.fullmatch(r"\s*([0-9]{1,6})\s*/\s*([0-9]{1,6})\s*", text) if isinstance(
        text, str) else None
    index, count = (int(match[1]), int(match[2])) if match else (0, 0)
    if not (match and 1 <= index <= count):
        raise ValueError(f"--shard must be K/N with 1 <= K <= N (e.g. 2/3), got {text!r:.40}")
    if count > MAX_SHARDS:
        raise ValueError(f"--shard: at most {MAX_SHARDS} shards, got {count}")
    return Shard(index, count)


def shard_samples(samples, shard):
    """The samples of *shard*, in file order (*samples* as :func:`read_samples` gives them)."""
    return [sample for position, sample in enumerate(samples) if shard.holds(position)]


def _label(path):
    return Path(path).name


@dataclass
class MergedShards:
    """What :func:`merge_shards` found: one run's worth of records, from N shards.

    *settings*: the shards' common settings (``shard`` removed, ``isolation``
    the levels the shards ran under, ``"; "``-joined); *records*: every
    sample's record, in file order; *task_ids*: the problems in the problem
    set's order; *header*: the first shard's header (samples file, problems);
    *wall_s*: each shard's wall time, in shard order; *notes*: lines for the
    report (shards run under different isolation).
    """

    settings: dict
    records: list
    task_ids: list
    header: dict
    wall_s: list
    notes: list


def merge_shards(paths):
    """Read the shards' results files *paths*; return a :class:`MergedShards`.

    Raises ``ValueError``, saying every problem found in one message: a file
    that is not a shard's results, settings that differ (named), a shard
    missing or given twice, a shard whose header does not match the others
    (another sample file), and samples missing from a shard or present in
    more than one file.
    """
    paths = list(paths)
    if not paths:
        raise ValueError("evaluate merge needs the results files of every shard")
    shards, problems = [], []
    for path in paths:
        header, records, sessions = read_results_file(path)
        settings = header["settings"]
        if SHARD_SETTING not in settings or "shard_ids" not in header:
            problems.append(f"{_label(path)} is the results of a whole run, not of a shard "
                            f"(made without --shard)")
            continue
        shards.append((path, header, records, sessions, parse_shard(settings[SHARD_SETTING])))
    if problems:
        raise ValueError("; ".join(problems))
    first_path, first_header = shards[0][0], shards[0][1]
    common = _without(first_header["settings"])
    count = shards[0][4].count
    seen = {}
    for path, header, _, _, shard in shards:
        changes = [part for part in describe_changes(common, _without(header["settings"]))
                   .removeprefix("starting afresh: ").split("; ") if part]
        if changes:
            problems.append(f"{_label(path)} was run with other settings than "
                            f"{_label(first_path)}: {'; '.join(changes)}")
        if shard.count != count:
            problems.append(f"{_label(path)} is shard {shard} but {_label(first_path)} is one "
                            f"of {count}")
        seen.setdefault(shard.index, []).append(path)
    for index, given in sorted(seen.items()):
        if len(given) > 1:
            problems.append(f"shard {index}/{count} is given {len(given)} times: "
                            f"{listed([_label(p) for p in given])}")
    missing = [f"{index}/{count}" for index in range(1, count + 1) if index not in seen]
    if missing:
        problems.append(f"{len(missing)} of {count} shards are missing: {listed(missing)}")
    if problems:
        raise ValueError("; ".join(problems))

    owner, records = {}, {}
    for path, header, shard_records, _, shard in shards:
        wanted = header["shard_ids"]
        got = {record["sample_id"]: record for record in shard_records}
        absent = [sample for sample in wanted if sample not in got]
        if absent:
            problems.append(f"shard {shard} ({_label(path)}) is unfinished: {len(absent)} of "
                            f"{len(wanted)} samples have no result ({listed(absent)}); rerun "
                            f"its command to finish it")
        for sample in wanted:
            owner.setdefault(sample, []).append(path)
        records.update({sample: got[sample] for sample in wanted if sample in got})
    doubled = [sample for sample, files in owner.items() if len(files) > 1]
    if doubled:
        problems.append(f"{len(doubled)} samples are in more than one shard: {listed(doubled)}")
    total = first_header.get("samples_total")
    if total is not None and len(owner) != total:
        problems.append(f"the shards plan {len(owner)} samples, the file has {total}")
    if problems:
        raise ValueError("; ".join(problems))

    levels = sorted({level for _, header, shard_records, _, _ in shards
                     for level in [header["settings"].get("isolation")]
                     + [record.get("isolation") for record in shard_records] if level})
    notes = []
    if len(levels) > 1:
        notes.append("the shards ran under different isolation: " + "; ".join(
            f"shard {shard}: {header['settings'].get('isolation')}"
            for _, header, _, _, shard in sorted(shards, key=lambda item: item[4].index)))
    settings = dict(common, isolation="; ".join(levels))
    ordered = sorted(records.values(), key=lambda record: record.get("line", 0))
    task_ids = list(first_header.get("task_ids") or dict.fromkeys(
        record["task_id"] for record in ordered))
    walls = [round(sum(session["wall_s"] for session in sessions), 3)
             for _, _, _, sessions, _ in sorted(shards, key=lambda item: item[4].index)]
    return MergedShards(settings, ordered, task_ids, first_header, walls, notes)


def _without(settings):
    # What every shard must share: all settings but the shard itself and the isolation reached.
    return {name: value for name, value in settings.items()
            if name != SHARD_SETTING and name not in REPORTED_SETTINGS}
