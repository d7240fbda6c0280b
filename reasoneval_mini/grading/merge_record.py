"""What the last ``grade`` run merged by hand, remembered beside the grades.

A rerun of the first command (no ``--manual``) used to put every hand score
back to ``awaiting_instructor`` and overwrite the export with lower scores,
with only a warning. So ``grade`` keeps ``<out>_written/merged.json``
(:func:`record_path`): the scores sheet it merged and, for every export it
wrote, how many hand scores that file holds. The next run merges the same
sheet by default (:func:`remembered_sheet`), and refuses to write an export
with fewer hand scores than the file it replaces (:func:`check_exports`)
unless told to replace it on purpose.

The record holds paths and counts only, no score: the sheet stays the one
place a score is typed. A record that cannot be read is treated as none
and named in a warning by the caller (:class:`MergeRecord.problem`).

>>> record = MergeRecord(sheet="/c/scores.csv", exports={"/c/grades_canvas.csv": 7})
>>> check_exports(record, {"/c/grades_canvas.csv": 7}), check_exports(record, {"/c/other.csv": 0})
([], [])

Surprising: an export that is not there any more protects nothing (there
is nothing to overwrite), while one with fewer hand scores is named.

>>> check_exports(record, {"/c/grades_canvas.csv": 3}, existing=lambda path: True)
[('/c/grades_canvas.csv', 7, 3)]
>>> check_exports(record, {"/c/grades_canvas.csv": 3}, existing=lambda path: False)
[]
"""

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from reasoneval_mini.support.files import write_atomically

RECORD_NAME = "merged.json"
#: Bigger than any record of paths and counts: a larger file is not read.
RECORD_BYTES = 1_000_000


@dataclass(frozen=True)
class MergeRecord:
    """The sheet last merged (``None``: none), and ``{export path: hand scores it holds}``."""

    sheet: str | None = None
    exports: dict = field(default_factory=dict)
    problem: str = ""  # why a record file was there but could not be read


def record_path(review_folder):
    """Where the record lives: ``grades_written/merged.json``."""
    return Path(review_folder) / RECORD_NAME


def read_record(review_folder):
    """The :class:`MergeRecord` of *review_folder* (empty when there is none or it is unreadable)."""
    path = record_path(review_folder)
    try:
        if not path.is_file():
            return MergeRecord()
        if path.stat().st_size > RECORD_BYTES:
            raise ValueError(f"larger than {RECORD_BYTES} bytes")
        data = json.loads(path.read_text(encoding="utf-8"))
        sheet, exports = data.get("sheet"), data.get("exports", {})
        if not (sheet is None or isinstance(sheet, str)) or not isinstance(exports, dict) or not all(
                isinstance(k, str) and isinstance(v, int) and v >= 0 for k, v in exports.items()):
            raise ValueError("expected {'sheet': path, 'exports': {path: count}}")
    except (OSError, ValueError, AttributeError) as error:
        return MergeRecord(problem=f"{path} cannot be read ({error}); it is ignored")
    if sheet is not None and not Path(sheet).is_absolute():
        sheet = str(Path(review_folder).resolve() / sheet)  # kept relative: the folder may move
    return MergeRecord(sheet, dict(exports))


def remembered_sheet(record):
    """The sheet to merge by default: the one merged last, if it is still there; else ``None``."""
    if record.sheet and Path(record.sheet).is_file():
        return record.sheet
    return None


def check_exports(record, counts, existing=os.path.exists):
    """``[(export path, hand scores it holds, hand scores this run would write)]`` that lose some.

    *counts* maps each export this run writes (resolved path) to the hand
    scores it would hold. Only an existing file the record counted is protected.
    """
    losses = []
    for path, count in counts.items():
        before = record.exports.get(path, 0)
        if count < before and existing(path):
            losses.append((path, before, count))
    return losses


def write_record(review_folder, sheet, counts, record):
    """Remember *sheet* (``None``: keep the last one) and the hand scores of the exports written.

    *counts* maps the exports this run wrote to their hand scores; the
    counts of other exports in *record* are kept.
    """
    exports = {**record.exports, **counts}
    sheet = Path(sheet).resolve() if sheet else (Path(record.sheet) if record.sheet else None)
    folder = Path(review_folder).resolve()
    if sheet is not None and sheet.is_relative_to(folder):
        sheet = sheet.relative_to(folder)
    data = {"sheet": sheet.as_posix() if sheet is not None else None,
            "exports": dict(sorted(exports.items()))}
    if data["sheet"] is None and not any(exports.values()):
        return  # nothing merged, nothing to protect: no file
    write_atomically(record_path(review_folder), json.dumps(data, indent=1) + "\n")
