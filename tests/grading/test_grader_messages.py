"""What the grader says to a new instructor (issue 17): each message names the real cause.

Each case is a student built to have exactly that cause; the expected status
and the words come from the cause (the line of the syntax error, the name of
the copy), not from running the grader first.
"""

import csv
import re
from pathlib import Path

import pytest
from submission_class import (
    ADD, SHOUT, WORDS, WORDS_STUB, cell, grade, load_fake_registry, write_notebook)

from reasoneval_mini.grading.submissions import copy_of


def _rows(out):
    with open(out / "grades.csv", encoding="utf-8", newline="") as handle:
        return {(r["student"], r["exercise"]): r for r in csv.DictReader(handle)}


def test_a_syntax_error_in_the_defining_cell_is_error_naming_the_cell_and_the_line(tmp_path):
    subs = tmp_path / "subs"
    (subs / "ann").mkdir(parents=True)
    broken = "def add_numbers(a, b):\n    total = 0\n    return (a + b\n"  # line 3 never closes
    write_notebook(subs / "ann" / "ex01_add.ipynb", [cell("code", "import math"),
                                                     cell("code", broken, "add")])
    write_notebook(subs / "ann" / "ex02_words.ipynb", [cell("code", WORDS), cell("code", SHOUT)])
    assert grade(subs, tmp_path) == 0
    row = _rows(tmp_path)["ann", "add"]
    assert row["status"] == "error"
    assert "cell 2 of ex01_add.ipynb" in row["message"] and "SyntaxError" in row["message"]
    assert "line 3" in row["message"]


def test_an_answer_defined_before_its_cell_hangs_or_raises_is_graded_and_names_the_cell(tmp_path):
    # `def` runs first, then the loop: under Run All the notebook stops in that cell,
    # but the function exists. It is judged as it stands, and the message says where
    # the notebook stops, so the student is not told "passed" and nothing else.
    subs = tmp_path / "subs"
    (subs / "ann").mkdir(parents=True)
    write_notebook(subs / "ann" / "ex01_add.ipynb",
                   [cell("code", ADD + "while True:\n    pass\n", "add")])
    write_notebook(subs / "ann" / "ex02_words.ipynb",
                   [cell("code", WORDS + "1 / 0\n"), cell("code", SHOUT)])
    assert grade(subs, tmp_path) == 0
    rows = _rows(tmp_path)
    add = rows["ann", "add"]
    assert (add["status"], add["score"]) == ("passed", "2")
    assert "note: cell 1 of ex01_add.ipynb, which defines add_numbers()" in add["message"]
    assert "did not finish within 2 s" in add["message"]
    words = rows["ann", "count_words"]
    assert (words["status"], words["score"]) == ("passed", "3")
    assert ("note: cell 1 of ex02_words.ipynb, which defines count_words(), failed: "
            "ZeroDivisionError") in words["message"]
    # A clean cell gets no note; the feedback file carries the note too.
    assert rows["ann", "shout"]["message"] == "1 of 1 check passed"
    feedback = (tmp_path / "feedback" / "ann.md").read_text(encoding="utf-8")
    assert "note: cell 1 of ex01\\_add.ipynb, which defines add\\_numbers\\(\\)" in feedback


def test_a_name_error_from_a_setup_cell_with_a_syntax_error_names_that_cell(tmp_path):
    # The course's ex03 with its setup cell (the imports) broken by one unclosed
    # bracket: the answers raise NameError, and the message says which cell should
    # have defined the name, and why it did not. The course registry's checks name it.
    import json
    import shutil

    from submission_class import main

    subs = tmp_path / "subs"
    shutil.copytree(Path(__file__).resolve().parents[2] / "solutions", subs / "ann")
    # ann's own copies: the typed answers are for her variant's items.
    from reasoneval_mini.exercises.build import dumps_notebook, master_for
    from reasoneval_mini.exercises.variants import Variant

    for master in (subs / "ann").glob("*.ipynb"):
        master.write_text(dumps_notebook(master_for(master, Variant("ann"))), encoding="utf-8")
    path = subs / "ann" / "ex03_execution_states.ipynb"
    notebook = master_for(path, Variant("ann"))
    [setup] = [c for c in notebook["cells"]
               if c["metadata"].get("nbgrader", {}).get("grade_id") == "ex03_setup"]
    setup["source"] = "".join(setup["source"]) + "\nbroken = (\n"
    lines = setup["source"].count("\n")  # the unclosed bracket's line
    number = notebook["cells"].index(setup) + 1
    path.write_text(json.dumps(notebook), encoding="utf-8")
    assert main(["grade", str(subs), "--out", str(tmp_path / "grades.csv"), "--no-progress",
                 "--workers", "1"]) == 0
    rows = _rows(tmp_path)
    rates = rows["ann", "kp3_rates"]["message"]
    assert re.match(r"0 of \d+ public checks passed; hidden checks: 0 of \d+ passed; note: "
                    f"Counter is not defined because cell {number} of "
                    r"ex03_execution_states\.ipynb, which defines it, failed: SyntaxError", rates)
    assert f"line {lines}" in rates
    # An exercise whose answer needs nothing from the setup cell passes, with no note.
    assert rows["ann", "kp3_human_eval_call_chain"]["message"] == "1 of 1 check passed"


@pytest.mark.parametrize("source, names", [
    ("from x import (a, b as c)\nimport os.path, re\nN: int = 3\ndef f(:",
     {"N", "a", "c", "f", "os", "re"}),
    ("N == 3\n    M = 2\n(", set()),  # a comparison, and an indented line, bind nothing here
])
def test_a_cell_that_does_not_parse_still_names_what_it_meant_to_define(source, names):
    from reasoneval_mini.grading.notebooks import prepare_cells

    [(_, _, found)] = prepare_cells([(1, source)])
    assert found == names


@pytest.mark.parametrize("copy_name", [
    "ex02_words-Copy1.ipynb", "Copy of ex02_words.ipynb", "EX02_Words.ipynb",
    "ex02_words copy.ipynb", "ex02_words (2).ipynb"])
def test_work_saved_in_a_copy_next_to_an_untouched_original_is_named(tmp_path, copy_name):
    subs = tmp_path / "subs"
    (subs / "ann").mkdir(parents=True)
    write_notebook(subs / "ann" / "ex01_add.ipynb", [cell("code", ADD)])
    write_notebook(subs / "ann" / "ex02_words.ipynb", [cell("code", WORDS_STUB),
                                                       cell("code", SHOUT)])
    write_notebook(subs / "ann" / copy_name, [cell("code", WORDS), cell("code", SHOUT)])
    assert grade(subs, tmp_path) == 0
    rows = _rows(tmp_path)
    words = rows["ann", "count_words"]
    assert words["status"] == "failed" and words["message"].startswith("not attempted yet")
    assert f"{copy_name} is a copy of it: only ex02_words.ipynb is graded" in words["message"]
    assert "copy" not in rows["ann", "shout"]["message"]  # attempted: nothing to point at


def test_the_copy_note_is_kept_whole_when_the_message_before_it_is_long(tmp_path):
    # A written task's "not answered" message names its title and cell; with the
    # note after it the line ran past the message limit and lost "save your work".
    from reasoneval_mini.grading.grader import Grade
    from reasoneval_mini.grading.submissions import read_student, with_copy_note
    from reasoneval_mini.support.text import MESSAGE_CHARS

    (tmp_path / "ann").mkdir()
    write_notebook(tmp_path / "ann" / "ex02_words.ipynb", [cell("code", WORDS_STUB)])
    write_notebook(tmp_path / "ann" / "ex02_words-Copy1.ipynb", [cell("code", WORDS)])
    submission = read_student(tmp_path / "ann", load_fake_registry().EXERCISES)
    long = "not answered: " + "x" * MESSAGE_CHARS
    noted = with_copy_note(Grade("ann", "count_words", 0, 3, "failed", long), submission,
                           "ex02_words.ipynb", untouched=True)
    assert len(noted.message) <= MESSAGE_CHARS
    assert noted.message.startswith("not answered: xxx")
    assert noted.message.endswith("is graded, so save your work under that name")


def test_a_copy_is_not_named_when_the_original_holds_the_work(tmp_path):
    subs = tmp_path / "subs"
    (subs / "ann").mkdir(parents=True)
    write_notebook(subs / "ann" / "ex01_add.ipynb", [cell("code", ADD)])
    write_notebook(subs / "ann" / "ex02_words.ipynb", [cell("code", WORDS), cell("code", SHOUT)])
    write_notebook(subs / "ann" / "ex02_words-Copy1.ipynb", [cell("code", WORDS_STUB)])
    assert grade(subs, tmp_path) == 0
    assert _rows(tmp_path)["ann", "count_words"]["message"] == "3 of 3 checks passed"


@pytest.mark.parametrize("name, original", [
    ("ex01-Copy3.ipynb", "ex01.ipynb"), ("copy of ex01-Copy1.ipynb", "ex01.ipynb"),
    ("ex01.ipynb", "ex01.ipynb"), ("my_ex01.ipynb", "my_ex01.ipynb")])
def test_copy_of_recognises_what_jupyter_colab_and_file_managers_add(name, original):
    assert copy_of(name) == original
