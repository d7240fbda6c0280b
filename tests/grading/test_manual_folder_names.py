"""``--manual`` reads back the scores sheet ``grade`` wrote, whatever the student folder is called.

Issue 24, attack 6: a folder name with a trailing space (``"zoe "``, as
unzip tools leave them) or a right-to-left mark made ``--manual`` refuse the
grader's own sheet (exit 2), so nobody's hand scores merged. Each name
below is one case: ``grade`` writes the sheet, a score is typed on every
line, and ``--manual`` must merge every one of them onto its own student.
"""

import csv
import os

import pytest
from submission_class import main
from test_written_tasks import REGISTRY_WITH_WRITTEN, write_written_class

from reasoneval_mini.grading.manual import review_folder
from reasoneval_mini.grading.statuses import GRADE_INSTRUCTOR_GRADED
from reasoneval_mini.grading.submissions import display_name

NAMES = {
    "trailing_space": "zoe ",
    "leading_space": " ada",
    "right_to_left_mark": "zo\u200fe",
    "right_to_left_override": "\u202eevil",
    "bell_control_character": "bell\x07",
    "escape_sequence": "red\x1b[31m",
    "carriage_return": "cr\rhidden",
    "tab": "tab\tname",
    "line_break": "two\nlines",
    "latin1_byte": os.fsdecode(b"caf\xe9"),
    "plain_twin_of_the_spaced_name": "zoe",
}


@pytest.fixture(scope="module")
def merged(tmp_path_factory):
    root = tmp_path_factory.mktemp("names")
    registry = root / "registry_with_written.py"
    registry.write_text(REGISTRY_WITH_WRITTEN, encoding="utf-8")
    subs = write_written_class(root / "subs", {
        name: f"Answer number {index}: runs of spaces." for index, name in enumerate(NAMES.values())})
    out = root / "out" / "grades.csv"
    argv = ["grade", str(subs), "--out", str(out), "--registry", str(registry),
            "--timeout", "5", "--no-progress"]
    assert main(argv) == 0
    sheet = review_folder(out) / "scores.csv"
    with open(sheet, encoding="utf-8", newline="") as handle:
        rows = list(csv.reader(handle))
    header = rows[0]
    score = header.index("score")
    for number, row in enumerate(rows[1:]):
        row[score] = str(number % 4)  # a different score on every line
    with open(sheet, "w", encoding="utf-8", newline="") as handle:
        csv.writer(handle, lineterminator="\r\n").writerows(rows)  # as a spreadsheet saves
    code = main(argv + ["--manual", str(sheet)])
    with open(out, encoding="utf-8", newline="") as handle:
        grades = {(r["student"], r["exercise"]): r for r in csv.DictReader(handle)}
    student_column = header.index("student")
    typed = {row[student_column]: str(number % 4) for number, row in enumerate(rows[1:])}
    return code, grades, typed


@pytest.mark.parametrize("case", NAMES)
def test_manual_merges_the_sheet_grade_wrote_for_a_folder_named_with(merged, case):
    code, grades, typed = merged
    assert code == 0
    from reasoneval_mini.grading.escaping import printable
    written = printable(display_name(NAMES[case]))  # how grades.csv writes the student
    row = grades[written, "explain_words"]
    assert row["status"] == GRADE_INSTRUCTOR_GRADED
    assert row["score"] == typed[written]  # this student's own line, not a look-alike's
