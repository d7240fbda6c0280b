"""Gradebook exports: the CSV Canvas or Moodle imports, checked against their documented layouts.

Expected files are written out by hand from the platforms' documentation:
Canvas's gradebook export/import (``Student, ID, SIS User ID, SIS Login ID,
Section``, one column per assignment, a ``Points Possible`` second row) and
Moodle's grade import (a user identifier column such as ``Email address`` or
``ID number``, then one column per grade item, as in Moodle's own
``grade/import/csv`` test data).
"""

from fractions import Fraction

import pytest
from submission_class import REGISTRY, add_notebook, grade, words_notebook, write_notebook

from reasoneval_mini import cli
from reasoneval_mini.grading.gradebook import (
    EXPORT_CANVAS, EXPORT_FORMATS, EXPORT_MOODLE, RosterError, read_roster, write_gradebook)
from reasoneval_mini.grading.grader import Grade
from reasoneval_mini.grading.statuses import GRADE_FAILED, GRADE_PASSED

EXERCISES = REGISTRY.EXERCISES  # add (2 points) in ex01_add; count_words (3) + shout (1) in ex02_words
HEADER = "folder,name,id,sis_user_id,sis_login_id,section,email\n"
ROSTER = HEADER + (
    'ada,"Lovelace, Ada",1001,S001,ada,Group A,ada@example.org\n'
    'zoe,"Żółć, Zoë",1002,S002,zoe,Group B,zoe@example.org\n'
    'ghost,"Nobody, Jo",1003,,,Group B,jo@example.org\n')


def grades_of(student, add, words, shout, status=GRADE_FAILED):
    return [Grade(student, "add", Fraction(add), 2, status, ""),
            Grade(student, "count_words", Fraction(words), 3, status, ""),
            Grade(student, "shout", Fraction(shout), 1, status, "")]


CLASS = (grades_of("ada", 2, 3, 1, GRADE_PASSED)
         + grades_of("zoe", 1, Fraction(2, 3), 0)
         + grades_of("stranger", 2, 3, 1, GRADE_PASSED))


def export(tmp_path, export_format, roster_text=ROSTER, grades=CLASS):
    roster_path = tmp_path / "roster.csv"
    roster_path.write_text(roster_text, encoding="utf-8")
    out = tmp_path / f"{export_format}.csv"
    result = write_gradebook(grades, read_roster(roster_path, export_format), EXERCISES,
                             export_format, out)
    return result, out.read_text(encoding="utf-8")


def test_canvas_export_has_the_gradebook_columns_a_points_row_and_one_column_per_notebook(tmp_path):
    _, text = export(tmp_path, EXPORT_CANVAS)
    assert text == (
        "Student,ID,SIS User ID,SIS Login ID,Section,ex01_add,ex02_words\n"
        "    Points Possible,,,,,2,4\n"
        '"Lovelace, Ada",1001,S001,ada,Group A,2,4\n'
        '"Żółć, Zoë",1002,S002,zoe,Group B,1,0.67\n')


def test_moodle_export_has_an_email_identifier_then_one_column_per_grade_item(tmp_path):
    _, text = export(tmp_path, EXPORT_MOODLE)
    assert text == (
        "Email address,ID number,Full name,ex01_add,ex02_words\n"
        'ada@example.org,S001,"Lovelace, Ada",2,4\n'
        'zoe@example.org,S002,"Żółć, Zoë",1,0.67\n')


def test_a_roster_student_without_a_folder_is_never_exported_as_zero_and_is_listed(tmp_path):
    # Both importers write a 0 over an existing grade: a typo in 'folder' would zero a student.
    for export_format in EXPORT_FORMATS:
        result, text = export(tmp_path, export_format)
        assert result.without_folder == ("ghost",) and result.exported == 2
        assert "Nobody" not in text and "jo@example.org" not in text


def test_a_folder_not_on_the_roster_is_listed_and_not_exported(tmp_path):
    result, text = export(tmp_path, EXPORT_MOODLE)
    assert result.not_on_roster == ("stranger",)
    assert "stranger" not in text and len(text.splitlines()) == 1 + 2


def test_thirds_add_up_exactly_and_scores_show_at_most_two_decimals(tmp_path):
    thirds = [Grade("ada", "count_words", Fraction(1, 3) * 3, 3, GRADE_FAILED, ""),
              Grade("ada", "shout", Fraction(1, 3), 1, GRADE_FAILED, ""),
              Grade("ada", "add", Fraction(1, 10) * 3 * 10 / 3, 2, GRADE_FAILED, "")]
    roster = HEADER + "ada,Ada,1,,,,ada@example.org\n"
    _, text = export(tmp_path, EXPORT_CANVAS, roster, thirds)
    assert text.splitlines()[2] == "Ada,1,,,,1,1.33"


@pytest.mark.parametrize("score, shown", [
    (Fraction(1, 8), "0.13"), (Fraction(3, 8), "0.38"), (Fraction(5, 8), "0.63"),
    (Fraction(1, 200), "0.01"), (Fraction(2, 3), "0.67"), (Fraction(199, 200), "1")])
def test_scores_are_rounded_half_up_exactly_not_with_float_rounding(tmp_path, score, shown):
    # The reference: decimal arithmetic with ROUND_HALF_UP on the exact fraction.
    from decimal import ROUND_HALF_UP, Decimal
    reference = (Decimal(score.numerator) / Decimal(score.denominator)).quantize(
        Decimal("0.01"), rounding=ROUND_HALF_UP).normalize()
    assert shown == format(reference, "f")
    grades = [Grade("ada", "shout", score, 1, GRADE_FAILED, "")]
    _, text = export(tmp_path, EXPORT_CANVAS, HEADER + "ada,Ada,1,,,,\n", grades)
    assert text.splitlines()[2].split(",")[-1] == shown


WITH_WRITTEN = {"essay": __import__("types").SimpleNamespace(
    id="essay", notebook="ex02_words.ipynb", points=5)}


def test_an_awaiting_answer_blanks_its_own_cell_and_holds_back_nobody_elses_score(tmp_path):
    from reasoneval_mini.grading.statuses import GRADE_AWAITING_INSTRUCTOR, GRADE_INSTRUCTOR_GRADED
    grades = (grades_of("ada", 2, 3, 1, GRADE_PASSED) + grades_of("zoe", 1, 1, 1)
              + [Grade("ada", "essay", Fraction(4), 5, GRADE_INSTRUCTOR_GRADED, ""),
                 Grade("zoe", "essay", None, 5, GRADE_AWAITING_INSTRUCTOR, "")])
    roster = tmp_path / "roster.csv"
    roster.write_text(ROSTER, encoding="utf-8")
    result = write_gradebook(grades, read_roster(roster, EXPORT_CANVAS), EXERCISES,
                             EXPORT_CANVAS, tmp_path / "c.csv", WITH_WRITTEN)
    lines = (tmp_path / "c.csv").read_text(encoding="utf-8").splitlines()
    assert result.awaiting == (("zoe", "ex02_words", ("essay",)),)
    assert lines[1] == "    Points Possible,,,,,2,9"  # 3 + 1 + 5: full points from the start
    assert lines[2].endswith(",2,8")  # ada's hand score is exported while zoe's awaits
    assert lines[3].endswith(",1,")  # zoe's ex02_words cell is blank: no score, not a 0
    # Once zoe's answer is scored, her cell holds it too.
    scored = grades[:-1] + [Grade("zoe", "essay", Fraction(5, 2), 5, GRADE_INSTRUCTOR_GRADED, "")]
    result = write_gradebook(scored, read_roster(roster, EXPORT_CANVAS), EXERCISES,
                             EXPORT_CANVAS, tmp_path / "c.csv", WITH_WRITTEN)
    lines = (tmp_path / "c.csv").read_text(encoding="utf-8").splitlines()
    assert result.awaiting == ()
    assert lines[1] == "    Points Possible,,,,,2,9"  # 3 + 1 + 5
    assert lines[2].endswith(",2,8") and lines[3].endswith(",1,4.5")


def test_a_byte_order_mark_and_blank_lines_in_the_roster_are_accepted(tmp_path):
    path = tmp_path / "roster.csv"
    path.write_text("\ufeff" + HEADER + "\nada,Ada,1,,,,\n\n", encoding="utf-8")
    assert [entry.folder for entry in read_roster(path, EXPORT_CANVAS)] == ["ada"]


@pytest.mark.parametrize("text, export_format, words", [
    ("folder,name,emial\nada,Ada,a@x\n", EXPORT_MOODLE, "line 1, column 'emial' is not a roster column"),
    ("name,email\nAda,a@x\n", EXPORT_MOODLE, "line 1: no column 'folder'"),
    (HEADER + "ada,Ada,1,,,,a@x\nbob,Bob,2,,,\n", EXPORT_CANVAS, "line 3: 6 fields, expected 7"),
    (HEADER + "ada,Ada,1,,,,a@x\n,Bob,2,,,,b@x\n", EXPORT_CANVAS, "line 3, column 'folder': empty"),
    (HEADER + "ada,Ada,1,,,,a@x\nada,Ann,2,,,,b@x\n", EXPORT_CANVAS, "line 3, column 'folder': 'ada' is already on line 2"),
    (HEADER + "ada,Ada,u1001,,,,a@x\n", EXPORT_CANVAS, "line 2, column 'id': 'u1001' is not a Canvas user ID"),
    (HEADER + "ada,Ada,,,,,a@x\n", EXPORT_CANVAS, "line 2: Canvas needs one of the columns id, sis_user_id, sis_login_id"),
    (HEADER + "ada,Ada,1,,,,\n", EXPORT_MOODLE, "line 2, column 'email': empty; Moodle finds 'Ada' by e-mail"),
    (HEADER + "ada,Ada,1,,,,ada.example.org\n", EXPORT_MOODLE, "column 'email': 'ada.example.org' is not an e-mail address"),
    (HEADER, EXPORT_CANVAS, "lists no students"),
    (HEADER + "ada,Ada,1001,,,,a@x\nbob,Bob,1001,,,,b@x\n", EXPORT_CANVAS,
     "line 3, column 'id': '1001' is already on line 2 ('Ada')"),
    (HEADER + "ada,Ada,1,S1,,,a@x\nbob,Bob,2,S1,,,b@x\n", EXPORT_CANVAS,
     "line 3, column 'sis_user_id': 'S1' is already on line 2"),
    (HEADER + "ada,Ada,1,,ada,,a@x\nbob,Bob,2,,ada,,b@x\n", EXPORT_CANVAS,
     "line 3, column 'sis_login_id': 'ada' is already on line 2"),
    (HEADER + "ada,Ada,1,,,,Ada@X.org\nbob,Bob,2,,,,ada@x.ORG\n", EXPORT_MOODLE,
     "line 3, column 'email': 'ada@x.ORG' is already on line 2 ('Ada') (e-mail addresses are "
     "compared in any letter case)"),
    (HEADER + "ada,Ada,\u0661\u0660\u0660\u0661,,,,a@x\n", EXPORT_CANVAS,
     "line 2, column 'id': '\u0661\u0660\u0660\u0661' is not a Canvas user ID (ASCII digits"),
    ("folder,name\nada,Ada\n", EXPORT_MOODLE,
     "line 1: no column 'email'; Moodle finds each student by e-mail address"),
    ("folder,name,section\nada,Ada,A\n", EXPORT_CANVAS,
     "line 1: no column id, sis_user_id or sis_login_id; Canvas finds each student"),
    ("folder;name;email\nada;Ada;a@x\n", EXPORT_MOODLE,
     "line 1: the columns are separated by ';', not commas; save the roster with commas"),
    ("folder\tname\temail\nada\tAda\ta@x\n", EXPORT_MOODLE,
     "line 1: the columns are separated by tab, not commas"),
    # An unclosed quote reads the next lines into one field: name it, not "quote a name".
    ("folder,name,id\nada,\"Lovelace, Ada,1001\nbob,Bob,1002\n", EXPORT_CANVAS,
     "line 2, column 'name': a line break inside a field, so a quote (\") opened in this "
     "line is never closed"),
    # Here the field count still matches: bob would vanish from the roster unnamed.
    ("folder,name,id,section\nada,Ada,1001,\"A\nbob,Bob,1002,B\n", EXPORT_CANVAS,
     "line 2, column 'section': a line break inside a field"),
])
def test_a_bad_roster_is_refused_naming_the_line_and_the_column(tmp_path, text, export_format, words):
    path = tmp_path / "roster.csv"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(RosterError) as raised:
        read_roster(path, export_format)
    assert words in str(raised.value)


def test_a_latin1_roster_names_the_line_and_says_save_as_utf8(tmp_path):
    path = tmp_path / "roster.csv"
    path.write_bytes("folder,name,email\nada,Ada,a@x\nzoe,Zoé,z@x\n".encode("latin-1"))
    with pytest.raises(RosterError, match=r"roster.csv line 3: byte 0xe9 is not UTF-8 .*"
                                          r"save the roster as UTF-8"):
        read_roster(path, EXPORT_MOODLE)


def test_an_unknown_export_format_is_a_value_error_naming_it(tmp_path):
    with pytest.raises(ValueError, match=r"unknown export format 'blackboard'; expected one of: canvas, moodle"):
        read_roster(tmp_path / "roster.csv", "blackboard")


def test_the_command_line_offers_exactly_the_gradebook_formats():
    choices = next(action.choices for action in cli.build_parser()._subparsers._group_actions[0]
                   .choices["grade"]._actions if action.dest == "export")
    assert tuple(choices) == EXPORT_FORMATS


def small_class(root):
    for student in ("ada", "stranger"):
        (root / student).mkdir(parents=True)
        write_notebook(root / student / "ex01_add.ipynb", add_notebook())
        write_notebook(root / student / "ex02_words.ipynb", words_notebook())
    return root


def test_grade_with_export_writes_the_csv_and_lists_both_kinds_of_mismatch(tmp_path, capsys):
    (tmp_path / "roster.csv").write_text(ROSTER, encoding="utf-8")
    submissions = small_class(tmp_path / "submissions")
    assert grade(submissions, tmp_path, "--roster", str(tmp_path / "roster.csv"),
                 "--export", "canvas") == 0
    output = capsys.readouterr().out
    assert ("on the roster but no folder (left out of the export, no 0 written): zoe, ghost"
            in output)
    assert "folders not on the roster (not exported): stranger" in output
    rows = (tmp_path / "grades_canvas.csv").read_text(encoding="utf-8").splitlines()
    assert rows[2] == '"Lovelace, Ada",1001,S001,ada,Group A,2,4'


def test_a_roster_folder_in_another_letter_case_is_pointed_at_the_folder_it_means(tmp_path,
                                                                                  capsys):
    (tmp_path / "roster.csv").write_text("folder,name,id\nAda,Ada L,1001\nzoe,Zoe,1002\n",
                                         encoding="utf-8")
    submissions = small_class(tmp_path / "submissions")
    assert grade(submissions, tmp_path, "--roster", str(tmp_path / "roster.csv"),
                 "--export", "canvas") == 0
    output = capsys.readouterr().out
    assert "on the roster but no folder (left out of the export, no 0 written): Ada, zoe" in output
    assert ("the roster's folder 'Ada' is not the folder 'ada' (folder names must match "
            "exactly)") in output
    assert output.count("is not the folder") == 1  # zoe has no look-alike; stranger is nobody's
    rows = (tmp_path / "grades_canvas.csv").read_text(encoding="utf-8").splitlines()
    assert len(rows) == 2  # header and Points Possible: nobody exported, nobody zeroed


@pytest.mark.parametrize("options, words", [
    (["--export", "canvas"], "--export needs --roster"),
    (["--roster", "roster.csv"], "--roster needs --export"),
    (["--export-out", "x.csv"], "--export-out 'x.csv' needs --export"),
])
def test_export_options_without_their_partner_are_a_usage_error(tmp_path, capsys, options, words):
    submissions = small_class(tmp_path / "submissions")
    assert grade(submissions, tmp_path, *options) == 2
    assert words in capsys.readouterr().err
    assert not (tmp_path / "grades.csv").exists()


def test_a_bad_roster_line_stops_grade_before_grading(tmp_path, capsys):
    (tmp_path / "roster.csv").write_text(HEADER + "ada,Ada,1,,,\n", encoding="utf-8")
    submissions = small_class(tmp_path / "submissions")
    assert grade(submissions, tmp_path, "--roster", str(tmp_path / "roster.csv"),
                 "--export", "moodle") == 2
    error = capsys.readouterr().err
    assert error.startswith("reasoneval-course grade: error: roster roster.csv line 2: 6 fields")
    assert not (tmp_path / "grades.csv").exists()


def test_a_student_whose_grading_was_interrupted_is_left_out_not_zeroed(tmp_path):
    from reasoneval_mini.grading.statuses import GRADE_INTERRUPTED
    grades = (grades_of("ada", 2, 3, 1, GRADE_PASSED)
              + [Grade("zoe", "add", Fraction(2), 2, GRADE_PASSED, ""),
                 Grade("zoe", "count_words", Fraction(0), 3, GRADE_INTERRUPTED, ""),
                 Grade("zoe", "shout", Fraction(0), 1, GRADE_INTERRUPTED, "")])
    result, text = export(tmp_path, EXPORT_CANVAS, grades=grades)
    assert result.not_graded == ("zoe",) and result.exported == 1
    assert "Zoë" not in text
