"""Nothing overwritten in silence: hand scores survive a rerun, and an export never loses them quietly.

Issue 26, item 3: a rerun without ``--manual`` overwrote ``grades_canvas.csv``
with lower scores and only warned. Now the merged sheet is remembered beside
the grades (``grades_written/merged.json``) and merged by default; a run
that would write an export with fewer hand scores than the file it replaces
stops (exit 2) and says how to merge or how to replace on purpose; every
bad line of a sheet is named in one run.
"""

import shutil

import pytest
from test_manual_grading import STUDENTS, TASKS, _class, _fill, _grade, _rows

from reasoneval_mini.grading.manual import ManualScoresError, read_manual_scores, review_folder


@pytest.fixture(scope="module")
def merged_once(tmp_path_factory):
    """A class graded, two answers scored by hand, merged and exported to Canvas."""
    root = tmp_path_factory.mktemp("kept")
    registry, subs = _class(root)
    assert _grade(root, registry, subs) == 0
    sheet = review_folder(root / "out" / "grades.csv") / "scores.csv"
    _fill(sheet, {"answered": ("3", "good"), "hostile": ("1", "")})
    assert _grade(root, registry, subs, "--manual", str(sheet), "--roster",
                  str(root / "roster.csv"), "--export", "canvas") == 0
    return root


def _copy(merged_once, tmp_path):
    shutil.copytree(merged_once, tmp_path, dirs_exist_ok=True)
    record = review_folder(tmp_path / "out" / "grades.csv") / "merged.json"
    text = record.read_text(encoding="utf-8")
    assert '"sheet": "scores.csv"' in text  # beside the record: found again after a move
    # The export is named by its absolute path: point it at this copy's export.
    record.write_text(text.replace(str(merged_once.resolve()), str(tmp_path.resolve())),
                      encoding="utf-8")
    return tmp_path, tmp_path / "registry_with_written.py", tmp_path / "subs"


def _export(root):
    return (root / "out" / "grades_canvas.csv").read_bytes()


def test_a_rerun_without_manual_merges_the_sheet_merged_last_time(merged_once, tmp_path, capsys):
    root, registry, subs = _copy(merged_once, tmp_path)
    before = _export(root)
    capsys.readouterr()
    assert _grade(root, registry, subs, "--roster", str(root / "roster.csv"),
                  "--export", "canvas") == 0
    printed = capsys.readouterr().out
    assert "merged 2 hand scores from" in printed and "the sheet merged last time" in printed
    assert _export(root) == before  # the same hand scores, the same bytes
    rows = {(r["student"], r["exercise"]): r for r in _rows(root / "out" / "grades.csv")}
    assert rows["answered", "explain_words"]["score"] == "3"


def test_an_export_that_would_lose_hand_scores_is_refused_before_grading(merged_once, tmp_path,
                                                                          capsys):
    root, registry, subs = _copy(merged_once, tmp_path)
    sheet = review_folder(root / "out" / "grades.csv") / "scores.csv"
    _fill(sheet, {"answered": ("", ""), "hostile": ("", "")})  # blanked by mistake
    grades_before, export_before = (root / "out" / "grades.csv").read_bytes(), _export(root)
    capsys.readouterr()
    assert _grade(root, registry, subs, "--roster", str(root / "roster.csv"),
                  "--export", "canvas") == 2
    error = capsys.readouterr().err
    assert "grades_canvas.csv holds 2 hand scores and this run would write it with 0" in error
    assert f"--manual {sheet}" in error and "--replace-hand-scores" in error
    assert "nothing was graded or written" in error
    assert _export(root) == export_before
    assert (root / "out" / "grades.csv").read_bytes() == grades_before


def test_a_sheet_that_is_gone_cannot_empty_the_export_either(merged_once, tmp_path, capsys):
    root, registry, subs = _copy(merged_once, tmp_path)
    (review_folder(root / "out" / "grades.csv") / "scores.csv").rename(root / "elsewhere.csv")
    before = _export(root)
    assert _grade(root, registry, subs, "--roster", str(root / "roster.csv"),
                  "--export", "canvas") == 2
    assert "this run merges no scores sheet" in capsys.readouterr().err
    assert _export(root) == before


def test_replace_hand_scores_writes_the_export_on_purpose(merged_once, tmp_path, capsys):
    root, registry, subs = _copy(merged_once, tmp_path)
    sheet = review_folder(root / "out" / "grades.csv") / "scores.csv"
    _fill(sheet, {"answered": ("", ""), "hostile": ("", "")})
    assert _grade(root, registry, subs, "--roster", str(root / "roster.csv"), "--export",
                  "canvas", "--replace-hand-scores") == 0
    canvas = (root / "out" / "grades_canvas.csv").read_text(encoding="utf-8").splitlines()
    assert canvas[2] == '"Lovelace, Ada",1001,,,,2,'  # awaiting again: blank, not 0
    # Replaced on purpose, the file now holds none: the next plain run is not refused.
    assert _grade(root, registry, subs, "--roster", str(root / "roster.csv"),
                  "--export", "canvas") == 0


def test_a_loss_found_after_grading_holds_back_the_export_alone(merged_once, tmp_path, capsys):
    root, registry, subs = _copy(merged_once, tmp_path)
    roster = root / "roster.csv"  # answered left off the roster: one hand score fewer
    roster.write_text("\n".join(line for line in roster.read_text(encoding="utf-8").splitlines()
                                if not line.startswith("answered")) + "\n", encoding="utf-8")
    before = _export(root)
    capsys.readouterr()
    assert _grade(root, registry, subs, "--roster", str(roster), "--export", "canvas") == 2
    captured = capsys.readouterr()
    assert ("error: the export was not written: " in captured.err
            and "holds 2 hand scores and this run would write it with 1" in captured.err)
    assert _export(root) == before
    assert "grades_canvas.csv" not in captured.out.split("wrote ")[-1]
    assert (root / "out" / "grades.csv").is_file()  # grading's own files are written


def test_every_bad_sheet_line_is_reported_in_one_run(tmp_path):
    path = tmp_path / "scores.csv"
    path.write_text("student,task,score,comment\n"
                    "answered,explain_words,9,\n"
                    "hostile,explain_words,1,\n"
                    "zed,explain_words,1,\n"
                    "unanswered,explain_words,\"2,5\",\n"
                    "hostile,explain_words,2,\n", encoding="utf-8")
    with pytest.raises(ManualScoresError) as raised:
        read_manual_scores(path, STUDENTS, TASKS)
    message = str(raised.value)
    assert message.startswith("scores sheet scores.csv: 4 bad lines (nothing merged):")
    for words in ("line 2, column 'score': '9' is more than", "line 4: unknown student 'zed'",
                  "line 5, column 'score': '2,5' is not a number",
                  "line 6: 'hostile' / 'explain_words' is already on line 3"):
        assert words in message, words
