"""``collect``: an LMS download, as Canvas and Moodle name its files, placed and graded.

The archives are built here with each LMS's own naming rules, written out
from their source (not from our parser):

* Canvas, instructure/canvas-lms ``lib/content_zipper.rb``: ``get_filename``
  joins the sortable name (``sanitize_user_name``: ``_<digits>_`` loses its
  underscores, lower case), ``LATE`` when late, and the user id (or
  ``anon_<id>``) with ``_``, then removes every non-word character; the
  upload is ``<that>_<attachment id>_<display name>`` with ``/\\:*?"<>|``
  as ``_``.
* Moodle, moodle/moodle ``mod/assign/locallib.php`` ``download_submissions``:
  ``<Full Name>_<participant id>_assignsubmission_<plugin>_/<file>``, the
  name's underscores as spaces.

A class of 32 (Canvas) and 31 (Moodle) with late, resubmitted, renamed and
stray files goes collect -> grade -> export; the export is checked against
the importer layouts of test_gradebook.py, with scores known from the
notebooks placed (a full or a stub notebook).
"""

import csv
import json
import os
import re
import zipfile

import pytest
from submission_class import (
    ADD, ADD_STUB, FAKE_REGISTRY, SHOUT, WORDS, add_notebook, main, words_notebook)

from reasoneval_mini.grading.lms_download import (
    DownloadError, collect_download, notebook_for, parse_canvas_name, student_folder)

pytestmark = pytest.mark.slow  # LMS download to export, end to end

NOTEBOOKS = ["ex01_add.ipynb", "ex02_words.ipynb"]
FULL_POINTS = {"ex01_add": 2, "ex02_words": 4}


def notebook_bytes(cells, marker=""):
    data = {"nbformat": 4, "nbformat_minor": 5, "metadata": {"marker": marker}, "cells": cells}
    return json.dumps(data, indent=1).encode()


FULL = {"ex01_add.ipynb": notebook_bytes(add_notebook(ADD)),
        "ex02_words.ipynb": notebook_bytes(words_notebook(WORDS, SHOUT))}
STUB_ADD = notebook_bytes(add_notebook(ADD_STUB), "stub")


def canvas_name(sortable_name, user_id, attachment_id, display_name, late=False, anonymous=None):
    """A file name in Canvas's submissions zip, by content_zipper.rb's rules."""
    user = None
    if anonymous is None:
        user = re.sub(r"_(\d+)_", r"\1", sortable_name)
        user = re.sub(r"^(\d+)$", r"\1", user).lower()
    ident = f"anon_{anonymous}" if anonymous is not None else str(user_id)
    base = "_".join(part for part in (user, "LATE" if late else None, ident) if part is not None)
    base = re.sub(r"[^\w]", "", base)  # Ruby's [^[[:word:]]]: Unicode letters, digits, _
    upload = re.sub(r'[\x00/\\:*?"<>|]+', "_", display_name)
    return f"{base}_{attachment_id}_{upload}"


def moodle_folder(full_name, participant_id, plugin="file"):
    """A participant folder in Moodle's download, by locallib.php's rules."""
    prefix = full_name.replace("_", " ") + f"_{participant_id}"
    return f"{prefix}_assignsubmission_{plugin}_"


FIRST = ["Ada", "Alan", "Grace", "Edsger", "Barbara", "Donald", "Frances", "John", "Radia",
         "Ken", "Margaret", "Tony", "Leslie", "Niklaus", "Shafi", "Whitfield"]
LAST = ["Lovelace", "Turing", "Hopper", "Dijkstra", "Liskov", "Knuth", "Allen", "Backus",
        "Perlman", "Thompson", "Hamilton", "Hoare", "Lamport", "Wirth", "Goldwasser", "Diffie"]


def canvas_class():
    """``(zip entries {name: bytes}, expected {folder: {notebook: bytes}}, facts)``: 32 students."""
    entries, expected = {}, {}
    facts = {"late": set(), "resubmitted": set(), "stray": set(), "ids": {}}
    attachment = 5000
    for number in range(32):
        first, last = FIRST[number % 16], LAST[(number * 7) % 16]
        if number >= 16:
            first += "e"
        sortable, user_id = f"{last}, {first}", 1000 + number
        folder = re.sub(r"[^\w]", "", sortable.lower())
        late = number % 9 == 4
        files = dict(FULL)
        names = {"ex01_add.ipynb": "ex01_add.ipynb", "ex02_words.ipynb": "ex02_words.ipynb"}
        if number % 5 == 1:  # renamed by the student's browser
            names["ex01_add.ipynb"] = "ex01_add (1).ipynb"
        if number % 7 == 3:  # sent ex01 twice: Canvas renames the second -1; the later counts
            attachment += 1
            entries[canvas_name(sortable, user_id, attachment, "ex01_add.ipynb", late)] = STUB_ADD
            names["ex01_add.ipynb"] = "ex01_add-1.ipynb"
            facts["resubmitted"].add(folder)
        if number == 30:  # only the stub: scores 0 for add
            files["ex01_add.ipynb"] = STUB_ADD
        for notebook, data in files.items():
            attachment += 1
            entries[canvas_name(sortable, user_id, attachment, names[notebook], late)] = data
        if number % 8 == 2:  # a stray file beside the notebooks
            attachment += 1
            stray = canvas_name(sortable, user_id, attachment, "notes: draft?.pdf", late)
            entries[stray] = b"%PDF-1.4"
            facts["stray"].add(stray)
        expected[folder] = files
        facts["ids"][folder] = str(user_id)
        if late:
            facts["late"].add(folder)
    text_entry = "hamiltonmargaret_1099_text.html"  # an online text entry: no attachment id
    entries[text_entry] = b"<p>hi</p>"
    entries["__MACOSX/._lovelaceada_1000_5001_ex01_add.ipynb"] = b"\0"
    facts["stray"] |= {text_entry, "__MACOSX/._lovelaceada_1000_5001_ex01_add.ipynb"}
    return entries, expected, facts


def write_zip(path, entries, times=None):
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in entries.items():
            info = zipfile.ZipInfo(name, date_time=(times or {}).get(name, (2026, 12, 1, 10, 0, 0)))
            archive.writestr(info, data)
    return path


def test_canvas_names_are_parsed_as_content_zipper_writes_them():
    name = canvas_name("O'Brien_2_, Pat", 1002, 5502, "2_ex01: add.ipynb", late=True)
    assert name == "obrien2pat_LATE_1002_5502_2_ex01_ add.ipynb"
    parsed = parse_canvas_name(name)
    assert (parsed.name, parsed.late, parsed.user_id, parsed.attachment_id, parsed.file) == (
        "obrien2pat", True, "1002", 5502, "2_ex01_ add.ipynb")
    anonymous = parse_canvas_name(canvas_name("", None, 77, "ex01_add.ipynb", True, "x7Yq2"))
    assert (anonymous.user_id, anonymous.late, anonymous.name) == ("anon_x7Yq2", True, "")
    assert parse_canvas_name("smith_late_1003_77_ex01_add.ipynb").late  # the older lower case


@pytest.mark.parametrize("file_name, expected", [
    ("ex01_add.ipynb", ("ex01_add.ipynb", 0)), ("ex01_add (1).ipynb", ("ex01_add.ipynb", 1)),
    ("ex01_add-2.ipynb", ("ex01_add.ipynb", 2)), ("Copy of ex01_add.ipynb", ("ex01_add.ipynb", 1)),
    ("ex01_add-Copy3.ipynb", ("ex01_add.ipynb", 3)), ("Untitled.ipynb", None),
    ("ex01_add.pdf", None)])
def test_a_renamed_copy_is_taken_as_the_notebook_it_copies(file_name, expected):
    assert notebook_for(file_name, NOTEBOOKS) == expected


@pytest.fixture(scope="module")
def canvas_run(tmp_path_factory):
    root = tmp_path_factory.mktemp("canvas")
    entries, expected, facts = canvas_class()
    archive = write_zip(root / "submissions.zip", entries)
    code = main(["collect", str(archive), "--out", str(root / "subs"), "--roster",
                 str(root / "roster.csv"), "--registry", str(FAKE_REGISTRY)])
    return root, expected, facts, code


def test_collect_places_every_canvas_students_latest_notebooks(canvas_run):
    root, expected, facts, code = canvas_run
    assert code == 0
    folders = sorted(p.name for p in (root / "subs").iterdir())
    assert folders == sorted(expected) and len(folders) == 32
    for folder, files in expected.items():
        placed = {p.name: p.read_bytes() for p in (root / "subs" / folder).iterdir()}
        assert placed == files, folder  # the resubmission's later file, not the stub before it


def test_the_roster_has_canvas_user_ids_and_reads_as_grade_reads_it(canvas_run):
    from reasoneval_mini.grading.gradebook import read_roster
    root, _, facts, _ = canvas_run
    roster = read_roster(root / "roster.csv", "canvas")
    assert {entry.folder: entry.id for entry in roster} == facts["ids"]


def test_collect_names_late_resubmitted_and_every_file_it_did_not_place(tmp_path, capsys):
    entries, _, facts = canvas_class()
    archive = write_zip(tmp_path / "s.zip", entries)
    assert main(["collect", str(archive), "--out", str(tmp_path / "subs"), "--roster",
                 str(tmp_path / "r.csv"), "--registry", str(FAKE_REGISTRY)]) == 0
    out = capsys.readouterr().out
    late_line = next(line for line in out.splitlines() if line.startswith("late"))
    assert set(late_line.split(": ")[1].split(", ")) == facts["late"]
    resubmitted = {line.split()[1].split("/")[0] for line in out.splitlines()
                   if line.startswith("resubmitted:")}
    assert resubmitted == facts["resubmitted"]
    assert "ex01_add-1.ipynb" in out.split("resubmitted:")[1].split("\n")[0]
    for stray in facts["stray"]:
        assert f"  {stray}: " in out, stray
    assert f"not placed ({len(facts['stray'])} files):" in out


def test_a_notebook_is_never_overwritten_and_the_roster_never_replaced(canvas_run, capsys):
    root = canvas_run[0]
    code = main(["collect", str(root / "submissions.zip"), "--out", str(root / "subs"),
                 "--roster", str(root / "roster2.csv"), "--registry", str(FAKE_REGISTRY)])
    assert code == 2 and "already holds" in capsys.readouterr().err
    assert not (root / "roster2.csv").exists()
    code = main(["collect", str(root / "submissions.zip"), "--out", str(root / "subs2"),
                 "--roster", str(root / "roster.csv"), "--registry", str(FAKE_REGISTRY)])
    assert code == 2 and "already exists" in capsys.readouterr().err


def _rows(path):
    with open(path, encoding="utf-8", newline="") as handle:
        return list(csv.reader(handle))


def test_collect_then_grade_then_export_gives_canvas_the_lms_ids_and_scores(canvas_run, capsys):
    root, expected, facts, _ = canvas_run
    assert main(["grade", str(root / "subs"), "--out", str(root / "out" / "grades.csv"),
                 "--registry", str(FAKE_REGISTRY), "--no-progress", "--timeout", "5",
                 "--roster", str(root / "roster.csv"), "--export", "canvas"]) == 0
    rows = _rows(root / "out" / "grades_canvas.csv")
    # The importer layout of test_gradebook.py: identity columns, a Points Possible row.
    assert rows[0] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section",
                       "ex01_add", "ex02_words"]
    assert rows[1] == ["    Points Possible", "", "", "", "", "2", "4"]
    exported = {row[1]: row[5:] for row in rows[2:]}
    assert set(exported) == set(facts["ids"].values())  # every student, by Canvas's own id
    for folder, files in expected.items():
        add = "0" if files["ex01_add.ipynb"] == STUB_ADD else "2"
        assert exported[facts["ids"][folder]] == [add, "4"], folder


def moodle_class(root):
    """A Moodle download folder of 31 participants; ``(expected, emails, strays)``."""
    expected, emails, strays = {}, {}, set()
    for number in range(31):
        full_name = f"{FIRST[number % 16]} {LAST[(number * 3) % 16]}" + ("_Jr" if number == 5 else "")
        if number >= 16:
            full_name = "Dr " + full_name
        participant = 2000 + number * 3
        folder = root / moodle_folder(full_name, participant)
        folder.mkdir(parents=True)
        files = dict(FULL)
        for notebook, data in files.items():
            name = notebook.replace(".ipynb", " (1).ipynb") if number % 6 == 2 else notebook
            (folder / name).write_bytes(data)
        if number % 10 == 7:  # a resubmission kept beside: the later file wins
            older = folder / "ex01_add (2).ipynb"
            older.write_bytes(STUB_ADD)
            os.utime(older, (1_700_000_000, 1_700_000_000))
            os.utime(folder / "ex01_add.ipynb", (1_800_000_000, 1_800_000_000))
        if number % 4 == 0:
            online = root / moodle_folder(full_name, participant, "onlinetext")
            online.mkdir()
            (online / "onlinetext.html").write_text("<p>see my notebook</p>", encoding="utf-8")
            strays.add(f"{online.name}/onlinetext.html")
        if number == 9:
            (folder / "report.docx").write_bytes(b"PK")
            strays.add(f"{folder.name}/report.docx")
        expected[full_name.replace("_", " ")] = files
        emails[str(participant)] = f"student{number}@example.org"
    return expected, emails, strays


def test_a_moodle_folder_goes_collect_grade_export_with_the_worksheets_emails(tmp_path, capsys):
    download = tmp_path / "moodle"
    expected, emails, strays = moodle_class(download)
    worksheet = tmp_path / "worksheet.csv"
    with open(worksheet, "w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["Identifier", "Full name", "Email address", "Status", "Grade"])
        for participant, email in emails.items():
            writer.writerow([f"Participant {participant}", "x", email, "Submitted", ""])
    assert main(["collect", str(download), "--out", str(tmp_path / "subs"), "--roster",
                 str(tmp_path / "roster.csv"), "--worksheet", str(worksheet),
                 "--registry", str(FAKE_REGISTRY)]) == 0
    out = capsys.readouterr().out
    assert sorted(p.name for p in (tmp_path / "subs").iterdir()) == sorted(expected)
    for stray in strays:
        assert f"  {stray}: " in out
    assert "Ada Lovelace/ex01_add.ipynb is the latest" not in out  # number 0: no resubmission
    assert main(["grade", str(tmp_path / "subs"), "--out", str(tmp_path / "out" / "grades.csv"),
                 "--registry", str(FAKE_REGISTRY), "--no-progress", "--timeout", "5",
                 "--roster", str(tmp_path / "roster.csv"), "--export", "moodle"]) == 0
    rows = _rows(tmp_path / "out" / "grades_moodle.csv")
    assert rows[0] == ["Email address", "ID number", "Full name", "ex01_add", "ex02_words"]
    assert sorted(row[0] for row in rows[1:]) == sorted(emails.values())
    assert all(row[3:] == ["2", "4"] for row in rows[1:])  # the stub resubmission was older


def test_a_moodle_zip_and_the_flat_naming_of_old_moodle_are_read_too(tmp_path):
    entries = {f"{moodle_folder('Ada Lovelace', 7)}/ex01_add.ipynb": FULL["ex01_add.ipynb"],
               "Alan Turing_8_assignsubmission_file_ex02_words.ipynb": FULL["ex02_words.ipynb"]}
    collection = collect_download(write_zip(tmp_path / "m.zip", entries), tmp_path / "subs",
                                  NOTEBOOKS)
    assert [(s.folder, s.lms_id, s.notebooks[0][0]) for s in collection.students] == [
        ("Ada Lovelace", "7", "ex01_add.ipynb"), ("Alan Turing", "8", "ex02_words.ipynb")]


def test_no_entry_of_a_hostile_zip_writes_outside_the_submissions_folder(tmp_path):
    entries = {"../../escape_1_2_ex01_add.ipynb": FULL["ex01_add.ipynb"],
               "a/b/c/deep_1_2_ex01_add.ipynb": FULL["ex01_add.ipynb"],
               f"{moodle_folder('..', 3)}/ex01_add.ipynb": FULL["ex01_add.ipynb"],
               f"{moodle_folder('.hidden', 4)}/ex01_add.ipynb": FULL["ex01_add.ipynb"],
               canvas_name("evil", 5, 6, "../ex01_add.ipynb"): FULL["ex01_add.ipynb"]}
    out = tmp_path / "box" / "subs"
    collection = collect_download(write_zip(tmp_path / "h.zip", entries), out, NOTEBOOKS)
    written = sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*.ipynb"))
    assert all(path.startswith("box/subs/") for path in written)
    assert [s.folder for s in collection.students] == ["hidden", "student_3"]
    # Canvas writes an upload's "/" as "_": "evil_5_6_.._ex01_add.ipynb" is no notebook of ours.
    assert {path for path, _ in collection.not_placed} == {
        "../../escape_1_2_ex01_add.ipynb", "a/b/c/deep_1_2_ex01_add.ipynb",
        canvas_name("evil", 5, 6, "../ex01_add.ipynb")}


def test_two_students_with_one_name_get_their_ids_in_the_folder_names(tmp_path):
    entries = {canvas_name("Smith, Jo", 11, 1, "ex01_add.ipynb"): FULL["ex01_add.ipynb"],
               canvas_name("Smith, Jo", 12, 2, "ex01_add.ipynb"): STUB_ADD}
    collection = collect_download(write_zip(tmp_path / "s.zip", entries), tmp_path / "subs",
                                  NOTEBOOKS)
    assert [s.folder for s in collection.students] == ["smithjo_11", "smithjo_12"]


def test_a_download_with_no_students_file_is_refused_naming_it(tmp_path):
    archive = write_zip(tmp_path / "x.zip", {"readme.txt": b"hi"})
    with pytest.raises(DownloadError, match="holds no student's notebook"):
        collect_download(archive, tmp_path / "subs", NOTEBOOKS)
    (tmp_path / "bad.zip").write_bytes(b"not a zip")
    with pytest.raises(DownloadError, match="is not a readable zip"):
        collect_download(tmp_path / "bad.zip", tmp_path / "subs", NOTEBOOKS)


def test_a_folder_name_is_one_printable_path_part():
    assert student_folder("a/b\\c", "1") == "a_b_c"
    assert student_folder("zoe\u202e", "2") == "zoe_u202e"  # no bidi mark, no backslash
    assert student_folder("   ", "3") == "student_3"


def test_a_damaged_zip_entry_costs_that_notebook_alone_named(tmp_path):
    archive = write_zip(tmp_path / "d.zip", {
        canvas_name("Lovelace, Ada", 1, 10, "ex01_add.ipynb"): FULL["ex01_add.ipynb"],
        canvas_name("Lovelace, Ada", 1, 11, "ex02_words.ipynb"): FULL["ex02_words.ipynb"]})
    data = bytearray(archive.read_bytes())
    # Flip a byte of the first file's stored data: its CRC no longer matches.
    start = data.index(FULL["ex01_add.ipynb"][:20])
    data[start + 5] ^= 0xFF
    archive.write_bytes(bytes(data))
    collection = collect_download(archive, tmp_path / "subs", NOTEBOOKS)
    assert [path for path, _ in collection.not_placed] == [
        canvas_name("Lovelace, Ada", 1, 10, "ex01_add.ipynb")]
    assert "cannot be read (BadZipFile" in collection.not_placed[0][1]
    assert collection.students[0].notebooks == (
        ("ex02_words.ipynb", canvas_name("Lovelace, Ada", 1, 11, "ex02_words.ipynb")),)
    assert sorted(p.name for p in (tmp_path / "subs" / "lovelaceada").iterdir()) == [
        "ex02_words.ipynb"]


def test_three_commands_from_a_canvas_zip_to_an_export_with_every_hand_score(tmp_path, capsys):
    # collect; grade; type a level per criterion, then merge: the instructor day.
    from test_criterion_grading import CRITERIA, REGISTRY
    from test_written_tasks import _answer_cell
    registry = tmp_path / "registry.py"
    registry.write_text(REGISTRY, encoding="utf-8")
    entries, ids, attachment = {}, {}, 100
    for number in range(30):
        sortable = f"{LAST[number % 16]}, {FIRST[(number * 5) % 16]}{'x' * (number // 16)}"
        words = notebook_bytes(words_notebook(WORDS, SHOUT) + [_answer_cell(f"Answer {number}")])
        for name, data in (("ex01_add.ipynb", FULL["ex01_add.ipynb"]), ("ex02_words.ipynb", words)):
            attachment += 1
            entries[canvas_name(sortable, 500 + number, attachment, name, late=number == 3)] = data
        ids[re.sub(r"[^\w]", "", sortable.lower())] = str(500 + number)
    archive = write_zip(tmp_path / "submissions.zip", entries)
    subs, roster, out = tmp_path / "subs", tmp_path / "roster.csv", tmp_path / "out" / "grades.csv"
    assert main(["collect", str(archive), "--out", str(subs), "--roster", str(roster),
                 "--registry", str(registry)]) == 0
    grade = ["grade", str(subs), "--out", str(out), "--registry", str(registry), "--no-progress",
             "--timeout", "5", "--roster", str(roster), "--export", "canvas"]
    assert main(grade) == 0
    sheet = out.parent / "grades_written" / "scores.csv"
    rows = _rows(sheet)
    levels = {}
    for row in rows[1:]:  # a level per criterion, different for every student
        student, criterion = row[0], row[2]
        row[3] = str((len(student) + list(CRITERIA).index(criterion)) % 3)
        levels[student] = levels.get(student, 0) + int(row[3])
    with open(sheet, "w", encoding="utf-8", newline="") as handle:
        csv.writer(handle, lineterminator="\r\n").writerows(rows)
    assert main(grade + ["--manual", str(sheet)]) == 0
    canvas = _rows(out.parent / "grades_canvas.csv")
    assert canvas[1] == ["    Points Possible", "", "", "", "", "2", "10"]
    exported = {row[1]: row[5:] for row in canvas[2:]}
    assert exported == {ids[folder]: ["2", str(4 + total)] for folder, total in levels.items()}
    first = (out.parent / "grades_canvas.csv").read_bytes()
    assert main(grade) == 0  # a rerun without --manual keeps every hand score
    assert (out.parent / "grades_canvas.csv").read_bytes() == first
    assert "merged 30 hand scores" in capsys.readouterr().out
