"""Per-sample results as JSON Lines, written as a run goes, so that a rerun resumes.

The file's first line is a header holding the run's *settings* (everything
that can change a verdict: the samples' and problems' identity, timeout,
memory limit, sandbox mode and isolation level). Then one line per finished
sample (its execution record plus its line in the sample file), and one
``session`` line at the end of each run (wall time, samples run).

:func:`open_results` reads an existing file: when its settings equal the
current ones, the finished records are kept and those samples are not run
again; otherwise the run starts afresh and says which setting changed (the
old file is kept beside it, as ``*.previous.jsonl``).

Only finished samples are written: a sample cancelled by Ctrl-C (``not_run``,
"cancelled") is not a result, it is work still to do.
"""

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from reasoneval_mini.records import STATUSES
from reasoneval_mini.support.files import write_atomically

FORMAT = "reasoneval-course evaluate results 1"


@dataclass
class ResultsLog:
    """An open results file: ``records`` already finished (by sample id), why it restarted, if it did."""

    path: Path
    settings: dict
    records: dict = field(default_factory=dict)
    sessions: list = field(default_factory=list)
    fresh_reason: object = None

    def append(self, records):
        """Append finished *records* (dicts) in one write, flushed to disk before returning."""
        if not records:
            return
        data = "".join(json.dumps(record, ensure_ascii=False) + "\n" for record in records)
        _append_bytes(self.path, data.encode("utf-8", "backslashreplace"))
        for record in records:
            self.records[record["sample_id"]] = record

    def end_session(self, **facts):
        """Append a ``session`` line (wall time, how many ran, interrupted or not)."""
        self.sessions.append(facts)
        _append_bytes(self.path, (json.dumps({"session": facts}) + "\n").encode("utf-8"))


def _append_bytes(path, data):
    # One os.write per call: a Ctrl-C between Python bytecodes cannot leave
    # half of a chunk written and the other half buffered.
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        os.fsync(fd)
    finally:
        os.close(fd)


def open_results(path, settings, *, fresh=False, plan=None):
    """Open *path* for a run with *settings*; resume from it when the settings match.

    Returns a :class:`ResultsLog`. ``fresh_reason`` is ``None`` when the run
    resumes (or the file is new), else one line saying why it starts afresh
    (*fresh* asked for it, a setting changed, or the file is not a results
    file of this format). A record whose sample id is not planned any more
    cannot occur with equal settings (the samples' digest is one of them).
    A last line cut short (the process was killed while writing) is dropped.
    *plan* (a dict, e.g. ``{"planned": 32800}``) goes into a new header as
    information; it is not compared.
    """
    path = Path(path)
    log = ResultsLog(path, settings)
    if path.exists():
        header, records, sessions, problem = _read(path)
        if fresh:
            log.fresh_reason = "--fresh was given"
        elif problem:
            log.fresh_reason = problem
        elif header["settings"] != settings:
            log.fresh_reason = describe_changes(header["settings"], settings)
        else:
            log.records, log.sessions = records, sessions
            _rewrite(path, header, records.values(), sessions)  # drops a cut-off last line
            return log
        previous = path.with_name(path.name.replace(".jsonl", "") + ".previous.jsonl")
        os.replace(path, previous)
        log.fresh_reason += f"; the old results were moved to {previous.name}"
    path.parent.mkdir(parents=True, exist_ok=True)
    _rewrite(path, {"format": FORMAT, "settings": settings, **(plan or {})}, (), ())
    return log


def describe_changes(old, new):
    """Which settings differ, as ``"timeout changed (3.0 -> 5.0)"`` parts."""
    names = list(new) + [name for name in old if name not in new]
    parts = [f"{name} changed ({old.get(name)!r} -> {new.get(name)!r})"
             for name in names if old.get(name) != new.get(name)]
    return "starting afresh: " + "; ".join(parts)


def _read(path):
    """``(header, records by id, sessions, problem)``; *problem* says why the file is unusable."""
    header, records, sessions = None, {}, []
    with open(path, "rb") as stream:
        lines = stream.read().split(b"\n")
    for index, raw in enumerate(lines):
        if not raw.strip():
            continue
        try:
            row = json.loads(raw)
        except ValueError:
            if index == len(lines) - 1:  # cut short by a kill: that sample runs again
                break
            return None, {}, [], f"starting afresh: {path.name} line {index + 1} is not JSON"
        if header is None:
            if not (isinstance(row, dict) and row.get("format") == FORMAT
                    and isinstance(row.get("settings"), dict)):
                return None, {}, [], (f"starting afresh: {path.name} is not a results file "
                                      "written by this version of reasoneval-course evaluate")
            header = row
        elif isinstance(row, dict) and "session" in row:
            sessions.append(row["session"])
        elif isinstance(row, dict) and row.get("status") in STATUSES and "sample_id" in row:
            records[row["sample_id"]] = row
        else:
            return None, {}, [], f"starting afresh: {path.name} line {index + 1} is not a result"
    if header is None:
        return None, {}, [], f"starting afresh: {path.name} has no header line"
    return header, records, sessions, None


def _rewrite(path, header, records, sessions):
    lines = [json.dumps(header)] + [json.dumps(r, ensure_ascii=False) for r in records]
    lines += [json.dumps({"session": s}) for s in sessions]
    write_atomically(path, ("\n".join(lines) + "\n").encode("utf-8", "backslashreplace"))


def read_results_file(path):
    """``(header, records, sessions)`` of a results file, else ``ValueError`` saying why."""
    header, records, sessions, problem = _read(Path(path))
    if problem:
        raise ValueError(problem.replace("starting afresh: ", "") + "; expected a results file "
                         "written by reasoneval-course evaluate code")
    return header, list(records.values()), sessions


def is_results_file(path):
    """True when *path*'s first line is a results header of this format."""
    try:
        with open(path, "rb") as stream:
            first = json.loads(stream.readline())
    except (OSError, ValueError):
        return False
    return isinstance(first, dict) and first.get("format") == FORMAT
